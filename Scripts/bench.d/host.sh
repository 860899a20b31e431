# Host: `pushgate-host` (relay mode) in front of a relay and a fake APNs, all separate
# processes; `pushgate-dev bench host-events` posts `ready` events, one session each. The host's
# own CPU per event is read from /proc around the load (token registration included).
HOST_EVENTS_1=5000        # timed events through the host with 1 token
HOST_EVENTS_100=300       # timed events through the host with 100 tokens in 3 locales
HOST_EVENTS_SERIAL=2000   # timed events through the host with 1 token, one at a time

suite_host() {
  apns_key
  local tokens events concurrency locales host_cpu access_token
  local host_command="PUSHGATE_HOME=… PUSHGATE_HOST_LISTEN=127.0.0.1:0 PUSHGATE_PUSH_RELAY_URL=http://127.0.0.1:PORT $BIN/pushgate-host"
  local events_command="$TOOL bench host-events --host http://127.0.0.1:PORT --access-token …"
  text intro ROUNDS="$FEW_ROUNDS" <<'EOF_TEXT'
`pushgate-host` (release build, relay mode) → `pushgate-relay` (limits raised) → `pushgate-dev
fake-apns`, three processes on 127.0.0.1 sharing the cores with the load generator. `pushgate-dev
bench host-events` registers the tokens through the host API, then posts `ready` events, each
for its own session (no cooldown), over keep-alive connections; every answer must report every
token accepted, so each event is one signed relay send per (locale, environment) group and
one APNs push per token. Host CPU per event is the host process's CPU over the load (token
registration and the warm-up events included) divided by the events posted: the relay's
and the fake's work is in their own processes. $ROUNDS rounds, each with a fresh host (home,
store) per run. The host does an event on one thread (docs/host.md, "Store"). With one event at
a time that thread goes to sleep twice per event — for the next event and for the relay's
answer — and is woken by the next process in the chain; the switch, and caches that the
relay, the fake and the load generator used meanwhile, make the same work cost more CPU
than with 8 events in flight, where the thread rarely sleeps.
EOF_TEXT
  facts "$TOOL fake-apns ${APNS_CREDENTIALS[*]} --cert-out fake-apns.pem" \
    "$BIN/pushgate-relay --port 0 --database-path relay.sqlite ${RELAY_LIMITS[*]} --apns-… (the fake as production host)" \
    "$host_command" \
    "$events_command --tokens 1 --locales en --events $HOST_EVENTS_1 --concurrency 8" \
    "$events_command --tokens 100 --locales en,fr,ja --events $HOST_EVENTS_100 --concurrency 4" \
    "$events_command --tokens 1 --locales en --events $HOST_EVENTS_SERIAL --concurrency 1"
  start_server host-fake-apns "$TOOL" fake-apns "${APNS_CREDENTIALS[@]}" --cert-out "$WORK/host-fake-apns.pem"
  local fake_pid=$SERVER_PID fake_port=$SERVER_PORT
  start_server host-relay env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --port 0 \
    --database-path "$WORK/host-relay.sqlite" "${RELAY_LIMITS[@]}" --apns-key-id BENCHKEY01 --apns-team-id BENCHTEAM1 \
    --apns-bundle-id dev.pushgate.bench --apns-p8-path "$WORK/apns.p8" \
    --apns-host-production "https://127.0.0.1:$fake_port" \
    --apns-ca-file "$WORK/host-fake-apns.pem"
  local relay_pid=$SERVER_PID relay_port=$SERVER_PORT
  local run key round
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    at_round "$round"
    for run in 1 100 serial; do
      case $run in
        1) tokens=1 events=$HOST_EVENTS_1 concurrency=8 locales=en key=1 ;;
        100) tokens=100 events=$HOST_EVENTS_100 concurrency=4 locales=en,fr,ja key=100 ;;
        serial) tokens=1 events=$HOST_EVENTS_SERIAL concurrency=1 locales=en key=1_serial ;;
      esac
      access_token=$(openssl rand -hex 24)
      start_server "host-$key" env PUSHGATE_HOME="$WORK/host-home-$key-$round" PUSHGATE_HOST_LISTEN=127.0.0.1:0 \
        PUSHGATE_HOST_ACCESS_TOKEN="$access_token" PUSHGATE_PUSH_RELAY_URL="http://127.0.0.1:$relay_port" \
        PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-host"
      echo "bench host: round $round/$FEW_ROUNDS: $tokens token(s) in $locales, $events events, $concurrency connections" >&2
      host_cpu=$(cpu_seconds "$SERVER_PID")
      "$TOOL" bench host-events --host "http://127.0.0.1:$SERVER_PORT" --access-token "$access_token" \
        --tokens "$tokens" --locales "$locales" --events "$events" --concurrency "$concurrency" \
        | sed "s/\"host\.events_$tokens\./\"host.events_$key./" | figures
      figure "host.events_$key.host_cpu_per_event" "$(per_unit "$host_cpu" "$(cpu_seconds "$SERVER_PID")" $((events + concurrency)))" µs
      stop_server "$SERVER_PID"
    done
  done
  stop_server "$relay_pid"
  stop_server "$fake_pid"
}
