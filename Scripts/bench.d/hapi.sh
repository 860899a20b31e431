# hapi fan-out: the host's CPU for the encrypted fan-out of one event to 100 iOS devices
# (`pushgate-dev bench hapi`, one thread, per CPU-second of it), ROUNDS rounds.
suite_hapi() {
  local command="$TOOL bench hapi --seconds $SECONDS_PER_FIGURE" round
  text intro ROUNDS="$ROUNDS" <<'EOF_TEXT'
The host's CPU for the encrypted fan-out of one event to 100 iOS devices in relay mode, on
one thread, per CPU-second of that thread (`pushgate-dev bench hapi`, suite file
Sources/pushgate-dev/BenchHapiFanoutSuite.swift). One operation is one `ready` event whose agent
text ends in an `AGENT_NOTIFY_SUMMARY` footer: the event composed into its payload
(`HapiComposer`), the plaintext chosen once (canonical JSON and the §4 cap), then for each of
the 100 devices its stored `pushKey` decoded, a fresh envelope sealed (random nonce,
AES-256-GCM, base64) and the `POST /v1/push` request body built. The store read and the HTTP
sends are I/O and are not counted; before timing, every envelope is opened with its device's
key and compared with the payload. $ROUNDS rounds.
EOF_TEXT
  text outro <<'EOF_TEXT'
For comparison, `core.hapi_seal` (section core) seals a 300-byte plaintext alone; the rest of
a device's cost is the larger seal, the key decode and the request body.
EOF_TEXT
  facts "$command ($ROUNDS times)"
  for ((round = 1; round <= ROUNDS; round++)); do
    at_round "$round"
    echo "bench hapi: round $round/$ROUNDS: $command" >&2
    $command | figures
  done
}
