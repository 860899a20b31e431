# Core: P-256, hapi envelope and canonical JSON through PushgateCore on one thread, next to
# `openssl speed` on the same curve, alternating the two for ROUNDS rounds.
suite_core() {
  local openssl_command="openssl speed -seconds $SECONDS_PER_FIGURE ecdsap256"
  local pushgate_command="$TOOL bench core --seconds $SECONDS_PER_FIGURE"
  local round speed
  text intro ROUNDS="$ROUNDS" <<'EOF_TEXT'
PushgateCore on one thread, operations per CPU-second of that thread (as `openssl speed`,
which divides by user CPU time), over $ROUNDS rounds that each run `openssl speed` and then
`pushgate-dev bench core`. The verify figure uses a cached `P256PublicKey` and one valid
signature over a relay `send` message (SHA-256 of the message, P1363 → DER, verify); the
table figure verifies the same with the key's own precomputed table, as the relay does for a
busy host (docs/relay.md, "Signature verification"); the seal figure seals an
already-chosen 300-byte canonical plaintext (random nonce, AES-256-GCM, base64); canonical
JSON serializes that payload object.
EOF_TEXT
  facts "$openssl_command" "$pushgate_command"
  fact OpenSSL "$(openssl version)"
  for ((round = 1; round <= ROUNDS; round++)); do
    at_round "$round"
    echo "bench core: round $round/$ROUNDS: $openssl_command" >&2
    speed=$(openssl_p256_speed core "$openssl_command")
    figure openssl.sign "${speed% *}" signatures/s
    figure openssl.verify "${speed#* }" verifications/s
    echo "bench core: round $round/$ROUNDS: $pushgate_command" >&2
    $pushgate_command | figures
  done
}
