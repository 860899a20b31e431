# hapi-push: `POST /v1/push` through `pushgate-relay` (--trust-proxy-hops 1, default limits) to a fake
# APNs (`pushgate-dev bench hapi-push`), 32 and 64 connections (the groups), FEW_ROUNDS rounds, a
# fresh relay per run.
suite_hapi-push() {
  apns_key
  local round concurrency relay_cpu fake_cpu requests
  local push_command="$TOOL bench hapi-push --relay http://127.0.0.1:PORT --requests $HAPI_PUSH_REQUESTS --concurrency C"
  text intro ROUNDS="$FEW_ROUNDS" REQUESTS="$(grouped "$HAPI_PUSH_REQUESTS")" <<'EOF_TEXT'
`POST /v1/push` (protocol/hapi-push.md §7) through `pushgate-relay` (release build) to a fake APNs
process (`pushgate-dev fake-apns`) over HTTP/2: each request is one encrypted envelope for one
iOS token, sent on as the `HAPI` / `New activity` alert with the `hapi` object.
`pushgate-dev bench hapi-push` builds every body beforehand (a 492-character envelope of a
~340-byte permission-request plaintext, collapse id, priority 10) and posts them over
keep-alive connections; every answer must be 200 `{"ok":true}`. The relay runs with its
default limits (`MAX_IN_FLIGHT` 64) and the route's buckets in force (300/min per client IP,
30/min per token): it trusts `X-Forwarded-For` (`--trust-proxy-hops 1`) and the requests cycle over
enough addresses (≤ 250 requests each) and random tokens (≤ 25 each) that none empties. Each
run has a fresh relay (so no bucket carries over); relay and fake CPU per request are the
processes' CPU over the run (`/proc/PID/stat`, warm-up included) divided by the requests
posted. $ROUNDS rounds of $REQUESTS timed requests with 32, then 64 connections.
EOF_TEXT
  text outro <<'EOF_TEXT'
Next to the signed route (section relay: `send` with 1 token), a `/v1/push` does no P-256
verification, no replay check and no binding lookup: only the JSON checks, two bucket
updates and the APNs request.
EOF_TEXT
  facts "$TOOL fake-apns ${APNS_CREDENTIALS[*]} --cert-out $WORK/hapi-fake-apns.pem" \
    "PUSHGATE_LOG_LEVEL=warning $BIN/pushgate-relay --port 0 --database-path $WORK/hapi-push-R-C.sqlite --trust-proxy-hops 1 --trusted-proxy-addresses 127.0.0.1 --apns-… (the fake as production host, its certificate as CA)" \
    "$push_command (C = 32, then 64; a fresh relay each)"
  start_server hapi-fake-apns "$TOOL" fake-apns "${APNS_CREDENTIALS[@]}" --cert-out "$WORK/hapi-fake-apns.pem"
  local fake_pid=$SERVER_PID
  local apns_settings=(--apns-key-id BENCHKEY01 --apns-team-id BENCHTEAM1 --apns-bundle-id dev.pushgate.bench
                       --apns-p8-path "$WORK/apns.p8" --apns-host-production "https://127.0.0.1:$SERVER_PORT"
                       --apns-ca-file "$WORK/hapi-fake-apns.pem")
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    for concurrency in 32 64; do
      at_round "$round" "$concurrency"
      echo "bench hapi-push: round $round/$FEW_ROUNDS: $HAPI_PUSH_REQUESTS requests, $concurrency connections" >&2
      start_server hapi-push-relay env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --port 0 \
        --database-path "$WORK/hapi-push-$round-$concurrency.sqlite" --trust-proxy-hops 1 --trusted-proxy-addresses 127.0.0.1 "${apns_settings[@]}"
      relay_cpu=$(cpu_seconds "$SERVER_PID")
      fake_cpu=$(cpu_seconds "$fake_pid")
      "$TOOL" bench hapi-push --relay "http://127.0.0.1:$SERVER_PORT" \
        --requests "$HAPI_PUSH_REQUESTS" --concurrency "$concurrency" | figures
      requests=$((HAPI_PUSH_REQUESTS + concurrency))
      figure hapi_push.relay_cpu_per_request "$(per_unit "$relay_cpu" "$(cpu_seconds "$SERVER_PID")" "$requests")" µs
      figure hapi_push.fake_cpu_per_request "$(per_unit "$fake_cpu" "$(cpu_seconds "$fake_pid")" "$requests")" µs
      figure hapi_push.relay_peak_rss "$(status_kib "$SERVER_PID" VmHWM | awk '{ print $1 / 1024 }')" MiB
      stop_server "$SERVER_PID"
    done
  done
  stop_server "$fake_pid"
}
