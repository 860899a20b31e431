# Part 5: the Orca-compatible gateway. A desktop that holds an X25519 key (it can decrypt but
# not sign) proves its key with an encrypted challenge, registers one phone, and posts three
# quick events; the gateway holds them for its coalescing window and sends one banner.
section "Part 5 — the Orca gateway: a desktop proves its X25519 key, registers a phone, three events make one banner"
gateway_origin=https://gateway.demo.test
spawn "pushgate-relay (gateway)" "$work/gateway-relay.out" "$work/gateway-relay.log" env \
  PUSHGATE_RELAY_PORT=0 \
  PUSHGATE_RELAY_METRICS_LISTEN=127.0.0.1:0 \
  PUSHGATE_RELAY_DATABASE_PATH="$work/gateway-relay.sqlite" \
  PUSHGATE_RELAY_APNS_KEY_ID=$key_id \
  PUSHGATE_RELAY_APNS_TEAM_ID=$team_id \
  PUSHGATE_RELAY_APNS_BUNDLE_ID=$bundle_id \
  PUSHGATE_RELAY_APNS_P8_PATH="$work/AuthKey.p8" \
  PUSHGATE_RELAY_APNS_HOST_PRODUCTION="https://$fake_address" \
  PUSHGATE_RELAY_APNS_HOST_SANDBOX="https://$fake_address" \
  PUSHGATE_RELAY_APNS_CA_FILE="$work/apns-ca.pem" \
  PUSHGATE_GATEWAY_PUBLIC_URL=$gateway_origin \
  PUSHGATE_GATEWAY_COALESCE_MS=3000 \
  "$bin/pushgate-relay"
gateway="http://$spawned_address"
say "pushgate-relay with PUSHGATE_GATEWAY_PUBLIC_URL=$gateway_origin (the origin bound into every challenge;"
say "a TLS proxy would serve it), listening on $gateway, coalescing window 3000 ms"
gateway_as_desktop=(--gateway "$gateway" --origin "$gateway_origin" --key "$work/desktop.key" --session "$work/desktop.session")

desktop=$(pushgate gateway key --out "$work/desktop.key")
desktop_fingerprint=$(printf '%s' "$desktop" | python3 -c 'import json, sys; print(json.load(sys.stdin)["hostFingerprint"])')
say "desktop X25519 key, fingerprint $desktop_fingerprint (first 16 chars of b64url(SHA-256(key)))"

section "Handshake: challenge (a NaCl box only this key opens) → host checks → proof → session"
answer=$(pushgate gateway challenge "${gateway_as_desktop[@]}") || fail "handshake failed: $answer"
say "pushgate gateway challenge  →  $answer"
say "(the 43-character session token went to desktop.session, mode 0600; the gateway keeps only its hash)"
case $answer in
  "200 "*"\"hostFingerprint\":\"$desktop_fingerprint\""*) ;;
  *) fail "the session does not name the desktop" ;;
esac

section "One phone registered, three events within the window"
gateway_phone=$(openssl rand -hex 32)
answer=$(pushgate gateway register "${gateway_as_desktop[@]}" --device-id iphone-1 --token "$gateway_phone" --env production) \
  || fail "register failed: $answer"
registration=$(printf '%s' "${answer#* }" | python3 -c 'import json, sys; print(json.load(sys.stdin)["registrationId"])')
say "register iphone-1 $(short "$gateway_phone")  →  $answer"
gateway_part_start=$(wc -l <"$work/apns.jsonl")
for agent in "refactor-auth" "fix-flaky-test" "write-docs"; do
  answer=$(pushgate gateway send "${gateway_as_desktop[@]}" --registrations "$registration" \
    --title "$agent needs input" --body "Waiting on your answer" --agent-state needs-input \
    --notification-id "note-$agent" --worktree "$agent") || fail "send failed: $answer"
  say "send \"$agent needs input\"  →  $answer"
done

section "What the phone shows (the fake APNs's record, after the window closed)"
for _ in $(seq 1 100); do
  [ "$(wc -l <"$work/apns.jsonl")" -gt "$gateway_part_start" ] && break
  sleep 0.05
done
sleep 0.2  # a second banner, if the relay wrongly sent one, would arrive now
python3 - "$work/apns.jsonl" "$gateway_part_start" "$gateway_phone" <<'PY' || fail "the fake APNs did not see exactly one \"3 agents need attention\" banner"
import json, sys
path, start, phone = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pushes = [json.loads(line) for line in open(path, encoding="utf-8")][start:]
for push in pushes:
    alert = push["payload"]["aps"]["alert"]
    orca = push["payload"]["orca"]
    print(f"   📱 {push['path'].rsplit('/', 1)[-1][:8]}…  {alert['title']} — {alert['body']}  (APNs {push['status']})")
    print(f"      collapse id {push['headers']['apns-collapse-id']} · thread {push['payload']['aps']['thread-id']} · "
          f"coalescedCount {orca['coalescedCount']} · data of the latest: {orca['notificationId']}")
ok = (len(pushes) == 1 and pushes[0]["path"].endswith(phone)
      and pushes[0]["payload"]["aps"]["alert"] == {"title": "Orca", "body": "3 agents need attention"}
      and pushes[0]["payload"]["orca"]["coalescedCount"] == 3)
sys.exit(0 if ok else 1)
PY
say "(three queued events, one banner: the window is per phone and is never extended)"
