# Gateway: the Orca-compatible gateway in a dry-run relay on SQLite, loaded by `pushgate-dev bench
# gateway` (handshakes, then queued and over-quota sends), FEW_ROUNDS rounds, a fresh relay each.
suite_gateway() {
  local origin=https://gateway.bench.test round relay_cpu
  local refused=10 concurrency=16
  local requests=$((GATEWAY_HOSTS * (2 + 1 + 60 + refused)))
  local relay_environment=(PUSHGATE_LOG_LEVEL=warning PUSHGATE_GATEWAY_PUBLIC_URL="$origin" PUSHGATE_GATEWAY_TRUSTED_PROXY_HOPS=1)
  local load_command="$TOOL bench gateway --gateway http://127.0.0.1:PORT --origin $origin --hosts $GATEWAY_HOSTS --refused-per-host $refused --concurrency $concurrency"
  text intro HOSTS="$(grouped "$GATEWAY_HOSTS")" CONCURRENCY="$concurrency" SENDS="$(grouped $((GATEWAY_HOSTS * 60)))" \
    REFUSED="$refused" REFUSED_ALL="$(grouped $((GATEWAY_HOSTS * refused)))" REQUESTS="$(grouped "$requests")" ROUNDS="$FEW_ROUNDS" <<'EOF_TEXT'
The Orca-compatible gateway (docs/gateway.md) inside one `pushgate-relay`, SQLite store
(a fresh file each round, WAL, `synchronous=FULL`, group commit), `--dry-run` so deliveries stop at the
relay (no APNs). `pushgate-dev bench gateway` simulates $HOSTS desktops, each with its own X25519 key
and its own `X-Forwarded-For` address (the relay trusts 1 proxy hop, so the per-IP buckets meter
each desktop as a proxy in front would), over $CONCURRENCY keep-alive connections (libcurl, `HTTP1Client`):

1. handshakes: challenge, the desktop's §2.9 checks and proof (in the bench process), session —
   $HOSTS timed;
2. one iOS registration per desktop (not timed);
3. 60 sends per desktop, each to its one registration: the whole hourly host quota, so every
   request counts both quota windows and writes a send-log row, and is queued into a coalescing
   window (3 s; flushed windows are delivered to the dry-run channel meanwhile) — $SENDS timed;
4. $REFUSED more per desktop: both windows counted, refused (`rate_limited`, HTTP 200, nothing
   written) — $REFUSED_ALL timed.

The bench client runs on the same cores as the relay. Relay CPU is the relay process's over
the whole round; per request it is divided by all $REQUESTS requests (two per handshake,
the registrations, the sends). $ROUNDS rounds, a fresh relay and database each.
EOF_TEXT
  text outro <<'EOF_TEXT'
A handshake is two write transactions (the challenge row; the session step's consume, host
upsert, old-session delete and session insert) plus an X25519 key pair, a `crypto_box` seal and
an HMAC on the relay. A queued send is one session lookup on the read connection and one write
(ownership, the two quota counts through their indexes, one send-log row), then the window; an
over-quota send skips the insert, so its write transaction changes nothing, and opens no
window — the two send figures differ by the send-log insert (four B-trees: the random-UUID key
and three indexes), the window, and the deliveries its flushes start (not separated here).
EOF_TEXT
  facts "${relay_environment[*]} $BIN/pushgate-relay --dry-run --port 0 --database-path $WORK/gateway-N.sqlite" "$load_command"
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    at_round "$round"
    echo "bench gateway: round $round/$FEW_ROUNDS: $GATEWAY_HOSTS hosts, $concurrency connections" >&2
    start_server gateway-relay env "${relay_environment[@]}" "$BIN/pushgate-relay" --dry-run --port 0 \
      --database-path "$WORK/gateway-$round.sqlite"
    relay_cpu=$(cpu_seconds "$SERVER_PID")
    "$TOOL" bench gateway --gateway "http://127.0.0.1:$SERVER_PORT" --origin "$origin" \
      --hosts "$GATEWAY_HOSTS" --refused-per-host "$refused" --concurrency "$concurrency" | figures
    relay_cpu=$(echo "$relay_cpu $(cpu_seconds "$SERVER_PID")" | awk '{ print $2 - $1 }')
    figure gateway.relay_cpu "$relay_cpu" s
    figure gateway.relay_cpu_per_request "$(per_unit 0 "$relay_cpu" "$requests")" µs
    figure gateway.relay_peak_rss "$(status_kib "$SERVER_PID" VmHWM | awk '{ print $1 / 1024 }')" MiB
    stop_server "$SERVER_PID"
  done
}
