# APNs: one APNsClient (`pushgate-dev bench apns`) against a fake APNs in another process
# (`pushgate-dev fake-apns`, counters only), over one HTTP/2 connection with 1 000 streams, for
# ROUNDS rounds, each with a fresh fake: first 1 000 sends outstanding (the fake's stream
# limit), then 2 000 (half of them waiting in the client for a stream). Beside the client's
# 1 000-outstanding run, `h2load` (nghttp2's own client) sends as many pushes to a fake of its
# own, before the client in even rounds and after it in odd ones: the same payload and headers,
# distinct device tokens (so HPACK favours neither).
APNS_PUSHES=100000        # timed pushes per apns run

suite_apns() {
  apns_key
  local round window fake_cpu fake_hwm client_cpu h2load_cpu h2load_rate total
  local fake_command="$TOOL fake-apns ${APNS_CREDENTIALS[*]} --cert-out $WORK/fake-apns.pem"
  local client_command="$TOOL bench apns --target PORT --ca $WORK/fake-apns.pem ${APNS_CREDENTIALS[*]} --count $APNS_PUSHES --payload-bytes 300 --window W"
  local token_command="$TOOL bench apns-token ${APNS_CREDENTIALS[*]} --payload-out $WORK/payload.json --payload-bytes 300"
  local h2load_command="h2load -n $((APNS_PUSHES + 1000)) -c 1 -m 1000 -i $WORK/uris.txt -d $WORK/payload.json -H 'authorization: bearer JWT' -H 'apns-topic: dev.pushgate.bench' -H 'apns-push-type: alert' -H 'apns-priority: 10' -H 'apns-expiration: 0' https://127.0.0.1:PORT"
  command -v h2load >/dev/null || { echo "bench apns: h2load is not installed (Scripts/bootstrap installs nghttp2-client)" >&2; exit 1; }
  text intro PUSHES="$(grouped "$APNS_PUSHES")" ROUNDS="$ROUNDS" <<'EOF_TEXT'
Notifications per second from one `APNsClient` (PushgateProviders) to the fake APNs
(PushgateTesting, recording counters only) in a second process, over **one** HTTP/2
connection (`maxConnectionsPerOrigin = 1`; the fake allows 1 000 concurrent streams and
checks every request, provider token included). The client keeps a window of W sends
outstanding (W sender tasks, each sending its next push when its last one's outcome came) and
times $PUSHES pushes of a 300-byte alert after a warm-up of one window; latency is per push,
send to outcome. `h2load` sends as many pushes with the same payload and headers on a fake of
its own, before the client in even rounds, after it in odd ones. Its rate covers its whole run
(connection and TLS handshake included), the client's only the timed pushes; CPU per push is
whole-process for both. Rates are wall-clock on the
shared machine, so the CPU per push is given too (client: all threads, timed pushes only;
fake: its whole life, warm-up included). Peak RSS is `VmHWM` of each process. $ROUNDS rounds,
each with a fresh fake per window; the best round by rate is shown.
EOF_TEXT
  facts "$fake_command" "$client_command (W = 1000, then 2000)" "$token_command" \
    "$h2load_command (beside the client with W = 1000, a fresh fake, before the client in even rounds; uris.txt: one https://127.0.0.1:PORT/3/device/<64 hex> per request, each token once)"
  fact h2load "$(h2load --version | head -n 1)"
  for ((round = 1; round <= ROUNDS; round++)); do
    for window in 1000 2000; do
      at_round "$round" "$window"
      echo "bench apns: round $round/$ROUNDS: $APNS_PUSHES pushes, window $window" >&2
      total=$((APNS_PUSHES + window))
      if [ "$window" = 1000 ] && ((round % 2 == 0)); then apns_h2load_round "$round" "$total"; fi
      start_server fake-apns "$TOOL" fake-apns "${APNS_CREDENTIALS[@]}" --cert-out "$WORK/fake-apns.pem"
      timed_cpu "$WORK/apns-client.cpu" "$TOOL" bench apns --target "$SERVER_PORT" --ca "$WORK/fake-apns.pem" "${APNS_CREDENTIALS[@]}" \
        --count "$APNS_PUSHES" --payload-bytes 300 --window "$window" >"$WORK/apns-client.out"
      figures <"$WORK/apns-client.out"
      client_cpu=$(cat "$WORK/apns-client.cpu")
      figure apns.client_process_cpu_per_push "$(per_unit 0 "$client_cpu" "$total")" µs
      fake_cpu=$(cpu_seconds "$SERVER_PID")
      fake_hwm=$(status_kib "$SERVER_PID" VmHWM)
      figure apns.fake_cpu_per_push "$(per_unit 0 "$fake_cpu" "$total")" µs
      figure apns.fake_peak_rss "$(echo "$fake_hwm" | awk '{ print $1 / 1024 }')" MiB
      stop_server "$SERVER_PID"
      if [ "$window" = 1000 ] && ((round % 2 == 1)); then apns_h2load_round "$round" "$total"; fi
    done
  done
}

# `apns_h2load_round ROUND COUNT`: h2load's run of a round, against a fake of its own.
apns_h2load_round() {
  echo "bench apns: round $1/$ROUNDS: h2load, $2 pushes, 1000 streams" >&2
  start_server fake-apns "$TOOL" fake-apns "${APNS_CREDENTIALS[@]}" --cert-out "$WORK/fake-apns.pem"
  run_h2load "$2"
  stop_server "$SERVER_PID"
}

# `run_h2load COUNT`: COUNT pushes from h2load to the fake at SERVER_PORT, with a fresh provider
# token, the client's payload and one distinct device token per push; prints its figures.
run_h2load() {
  local count=$1 token rate succeeded
  token=$("$TOOL" bench apns-token "${APNS_CREDENTIALS[@]}" --payload-out "$WORK/payload.json" --payload-bytes 300)
  awk -v count="$count" -v port="$SERVER_PORT" \
    'BEGIN { for (i = 0; i < count; i++) printf "https://127.0.0.1:%d/3/device/%064x\n", port, i }' >"$WORK/uris.txt"
  timed_cpu "$WORK/h2load.cpu" h2load -n "$count" -c 1 -m 1000 -i "$WORK/uris.txt" -d "$WORK/payload.json" \
    -H "authorization: bearer $token" -H "apns-topic: dev.pushgate.bench" -H "apns-push-type: alert" \
    -H "apns-priority: 10" -H "apns-expiration: 0" "https://127.0.0.1:$SERVER_PORT" >"$WORK/h2load.out"
  # `finished in 1.40s, 72142.86 req/s, …` and `requests: N total, N started, N done, N succeeded, …`
  rate=$(awk '/^finished in/ { sub(/,$/, "", $4); print $4 }' "$WORK/h2load.out")
  succeeded=$(awk '/^requests:/ { print $8 }' "$WORK/h2load.out")
  local ok
  ok=$(awk '/^status codes:/ { sub(/,$/, "", $3); print $3 }' "$WORK/h2load.out")
  [ -n "$rate" ] && [ "$succeeded" = "$count" ] && [ "$ok" = "$count" ] || {
    echo "bench apns: h2load did not get $count answers 2xx:" >&2
    cat "$WORK/h2load.out" >&2
    exit 1
  }
  figure h2load.pushes_per_second "$rate" pushes/s
  figure h2load.cpu_per_push "$(per_unit 0 "$(cat "$WORK/h2load.cpu")" "$count")" µs
}
