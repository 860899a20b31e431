# Relay: `pushgate-relay` driven by `wrk` with pre-signed register-token bodies (each posted
# once), next to `openssl speed` verification; `send` through it to a fake APNs
# (`pushgate-dev bench relay-send`); and its resident memory idle, with 1 000 open idle
# connections and with 100 000 bindings. The register runs are FEW_ROUNDS rounds (group ""),
# send and memory one run (group `once`).
RELAY_HOSTS=1000          # host keys of the many-hosts register run: 400 bodies each, below a key table's threshold
RELAY_BODIES=400000       # pre-signed register-token bodies: more than wrk posts in WRK_SECONDS
WRK_SECONDS=10
SEND_REQUESTS_1=20000     # timed relay sends with 1 token
SEND_REQUESTS_100=1000    # timed relay sends with 100 tokens
IDLE_CONNECTIONS=1000
BINDINGS=100000

suite_relay() {
  local bodies=$WORK/register-bodies.txt host_bodies=$WORK/register-bodies-hosts.txt speed store relay_cpu
  local speed_command="openssl speed -seconds 3 ecdsap256"
  local presign_command="$TOOL bench relay-presign --count $RELAY_BODIES --out $bodies"
  local presign_hosts_command="$TOOL bench relay-presign --count $RELAY_BODIES --hosts $RELAY_HOSTS --out $host_bodies"
  local relay_command="$BIN/pushgate-relay --dry-run --port 0 --database-path FILE|:memory: ${RELAY_LIMITS[*]}"
  local wrk_command="wrk -t1 -c64 -d${WRK_SECONDS}s -s register.lua http://127.0.0.1:PORT"
  local send_command="$TOOL bench relay-send --relay http://127.0.0.1:PORT --key host.jwk"
  apns_key
  setting register_hosts "$RELAY_HOSTS"
  setting bindings "$BINDINGS"
  setting idle_connections "$IDLE_CONNECTIONS"
  text intro WRK_SECONDS="$WRK_SECONDS" HOSTS="$RELAY_HOSTS" ROUNDS="$FEW_ROUNDS" <<'EOF_TEXT'
`pushgate-relay` (release build) on 127.0.0.1 with its limits raised out of the way (below).
**Register:** `wrk` (1 thread, 64 keep-alive connections, $WRK_SECONDS s) posts pre-signed
register-token bodies, each once (distinct tokens, one host key, signed just before), in
dry-run mode; each is parsed, verified (P-256), checked against the replay set and written
as a binding — with a SQLite file, a durable group-committed write, and again with
`:memory:` to show whether the store is the limit. One busy host's key soon gets its own
precomputed table (docs/relay.md, "Signature verification"), so a third run, again with a
SQLite file, posts bodies signed in turn by $HOSTS hosts: no key verifies enough requests
to earn a table, the cost of many quiet hosts. The reference is `openssl speed`
verifications per CPU-second of one core; the relay shares the 2 cores with `wrk` (and with
whatever else runs), so the CPU the relay used is given too. $ROUNDS rounds, each `openssl
speed`, freshly signed bodies, then the file, the `:memory:` and the many-host run.
**Send:** the relay delivers to a fake APNs process (`pushgate-dev fake-apns`) over HTTP/2, and
Android tokens to a fake FCM process (`pushgate-dev fake-fcm`, one OAuth exchange, then HTTP/2);
`pushgate-dev bench relay-send` registers its tokens, signs every request beforehand (fresh
signature each, so none is a replay) and posts them over keep-alive connections.
**Memory:** `VmRSS` of the relay process.
EOF_TEXT
  facts "$speed_command" "$presign_command" "$presign_hosts_command" "$relay_command" "$wrk_command" \
    "$TOOL fake-apns ${APNS_CREDENTIALS[*]} --cert-out fake-apns.pem" \
    "$BIN/pushgate-relay --port 0 --database-path send.sqlite ${RELAY_LIMITS[*]} --apns-… (the fake as production host, its certificate as CA)" \
    "$send_command --tokens-per-request 1 --requests $SEND_REQUESTS_1 --concurrency 32" \
    "$TOOL fake-fcm --service-account fcm-account.json --cert-out fake-fcm.pem" \
    "$send_command --tokens-per-request 100 --requests $SEND_REQUESTS_100 --concurrency 8" \
    "$send_command --tokens-per-request 100 --android-tokens 50 --requests $SEND_REQUESTS_100 --concurrency 8" \
    "python3 (in Scripts/bench.d/relay.sh): $IDLE_CONNECTIONS connections, one GET /healthz each, left open" \
    "$TOOL bench relay-post --relay http://127.0.0.1:PORT --path /v1/push/register-token --bodies (the first $BINDINGS bodies) --concurrency 64; RSS read at once and again 11 s later; then the relay restarted on that database"
  fact OpenSSL "$(openssl version)"

  # (a) register-token throughput, with a durable SQLite file and with an in-memory store,
  # next to `openssl speed` run just before in the same round (fresh bodies each round).
  local round
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    at_round "$round"
    echo "bench relay: round $round/$FEW_ROUNDS: $speed_command" >&2
    speed=$(openssl_p256_speed relay "$speed_command")
    figure openssl.verify "${speed#* }" verifications/s
    echo "bench relay: round $round/$FEW_ROUNDS: $presign_command" >&2
    "$TOOL" bench relay-presign --count "$RELAY_BODIES" --out "$bodies"
    echo "bench relay: round $round/$FEW_ROUNDS: $presign_hosts_command" >&2
    "$TOOL" bench relay-presign --count "$RELAY_BODIES" --hosts "$RELAY_HOSTS" --out "$host_bodies"
    for store in file memory hosts; do
      local database=$WORK/register-$store-$round.sqlite run_bodies=$bodies
      [ "$store" = memory ] && database=:memory:
      [ "$store" = hosts ] && run_bodies=$host_bodies
      echo "bench relay: round $round/$FEW_ROUNDS: register-token with $wrk_command, store $database, bodies $run_bodies" >&2
      register_with_wrk "relay.register_$store" "$run_bodies" "$WRK_SECONDS" --database-path "$database"
    done
  done

  # (b) send through the relay to a fake APNs, 1 and 100 tokens per request, and 100 of which 50
  # are Android tokens that go to a fake FCM (the rs256-oauth.json vector's service account).
  at_round 1 once
  start_server fake-apns "$TOOL" fake-apns "${APNS_CREDENTIALS[@]}" --cert-out "$WORK/fake-apns.pem"
  local fake_pid=$SERVER_PID
  local apns_settings=(--apns-key-id BENCHKEY01 --apns-team-id BENCHTEAM1 --apns-bundle-id dev.pushgate.bench
                       --apns-p8-path "$WORK/apns.p8" --apns-host-production "https://127.0.0.1:$SERVER_PORT"
                       --apns-ca-file "$WORK/fake-apns.pem")
  python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["serviceAccount"], open(sys.argv[2], "w"))' \
    Fixtures/vectors/rs256-oauth.json "$WORK/fcm-account.json"
  chmod 600 "$WORK/fcm-account.json"
  start_server fake-fcm "$TOOL" fake-fcm --service-account "$WORK/fcm-account.json" --cert-out "$WORK/fake-fcm.pem"
  local fcm_pid=$SERVER_PID
  local android_settings=(--android-fcm-service-account-path "$WORK/fcm-account.json"
                          --android-fcm-origin "https://127.0.0.1:$SERVER_PORT"
                          --android-fcm-token-uri "https://127.0.0.1:$SERVER_PORT/token" --android-fcm-ca-file "$WORK/fake-fcm.pem")
  start_server relay-send env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --port 0 \
    --database-path "$WORK/send.sqlite" "${RELAY_LIMITS[@]}" "${apns_settings[@]}" "${android_settings[@]}"
  "$BIN/pushgate" identity new --out "$WORK/host.jwk" >/dev/null
  local run tokens android name requests concurrency
  for run in 1:0 100:0 100:50; do
    tokens=${run%:*} android=${run#*:}
    if [ "$tokens" = 1 ]; then requests=$SEND_REQUESTS_1 concurrency=32; else requests=$SEND_REQUESTS_100 concurrency=8; fi
    if [ "$android" = 0 ]; then name=relay.send_$tokens; else name=relay.send_${tokens}_android_$android; fi
    echo "bench relay: send, $tokens token(s) per request ($android Android), $requests requests, $concurrency connections" >&2
    relay_cpu=$(cpu_seconds "$SERVER_PID")
    "$TOOL" bench relay-send --relay "http://127.0.0.1:$SERVER_PORT" --key "$WORK/host.jwk" \
      --tokens-per-request "$tokens" --android-tokens "$android" --requests "$requests" --concurrency "$concurrency" | figures
    figure "$name.relay_cpu_per_token" "$(per_unit "$relay_cpu" "$(cpu_seconds "$SERVER_PID")" $((requests * tokens)))" µs
  done
  stop_server "$SERVER_PID"
  stop_server "$fcm_pid"
  stop_server "$fake_pid"

  # (c) resident memory: idle, with 1 000 idle keep-alive connections, with 100 000 bindings.
  local database=$WORK/memory.sqlite
  echo "bench relay: memory, idle and with $IDLE_CONNECTIONS idle connections" >&2
  start_server relay-memory env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --dry-run --port 0 \
    --database-path "$database" "${RELAY_LIMITS[@]}"
  curl -sf "http://127.0.0.1:$SERVER_PORT/healthz" >/dev/null
  figure relay.rss_idle "$(status_kib "$SERVER_PID" VmRSS)" KiB
  # Assigned first: set -e does not see a failure inside a command's argument.
  local rss_connections
  rss_connections=$(hold_idle_connections "$SERVER_PORT" "$SERVER_PID" "$IDLE_CONNECTIONS")
  figure relay.rss_idle_connections "$rss_connections" KiB
  echo "bench relay: memory, registering $BINDINGS bindings" >&2
  head -n "$BINDINGS" "$bodies" >"$WORK/bindings.txt"
  "$TOOL" bench relay-post --relay "http://127.0.0.1:$SERVER_PORT" --path /v1/push/register-token \
    --bodies "$WORK/bindings.txt" --concurrency 64 >/dev/null
  require_bindings "$SERVER_METRICS_PORT" "$BINDINGS"
  figure relay.rss_bindings_burst "$(status_kib "$SERVER_PID" VmRSS)" KiB
  # One purge cycle (10 s): expired limiter keys go and freed heap is handed back (HeapTrim).
  sleep 11
  figure relay.rss_bindings "$(status_kib "$SERVER_PID" VmRSS)" KiB
  stop_server "$SERVER_PID"
  start_server relay-memory env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --dry-run --port 0 \
    --database-path "$database" "${RELAY_LIMITS[@]}"
  require_bindings "$SERVER_METRICS_PORT" "$BINDINGS"
  figure relay.rss_bindings_restarted "$(status_kib "$SERVER_PID" VmRSS)" KiB
  stop_server "$SERVER_PID"
}

# Opens COUNT keep-alive connections to the relay at PORT, one answered GET /healthz on each,
# and prints the relay's (PID) VmRSS in KiB while all of them are open and idle.
hold_idle_connections() {
  python3 - "$1" "$2" "$3" <<'PY'
import resource, socket, sys

port, pid, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < count + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
connections = []
for _ in range(count):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
    connections.append(connection)
for connection in connections:
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = connection.recv(4096)
        if not chunk:
            sys.exit("bench relay: the relay closed an idle connection")
        reply += chunk
    head = reply.split(b"\r\n\r\n")[0].lower()
    if not head.startswith(b"http/1.1 200") or b"connection: close" in head:
        sys.exit("bench relay: /healthz was not answered with 200 on a kept-alive connection")
with open(f"/proc/{pid}/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmRSS:")))
PY
}

# Fails unless the relay whose metrics listener is at PORT reports exactly COUNT bound tokens.
require_bindings() {
  local bound
  bound=$(curl -sf "http://127.0.0.1:$1/metrics" | awk '$1 == "pushgate_relay_bound_tokens" { print $2 }')
  [ "$bound" = "$2" ] || { echo "bench relay: the relay holds ${bound:-?} bindings, expected $2" >&2; exit 1; }
}
