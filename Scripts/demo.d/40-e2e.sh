# Part 4: the end-to-end encrypted path (hapi-compatible). An iOS device registers with the
# host and hands it a key of its own; the hub posts events with the real text; the host
# encrypts each one for that device and sends only ciphertext through the relay's /v1/push
# to the fake APNs. The demo then opens what the fake APNs received with the device's key
# and prints what Apple saw next to what the device shows.

section "Part 4 — end-to-end encryption: an iOS device registers its own key with the host"
e2e_token=$(openssl rand -hex 32)
e2e_key=$(openssl rand -base64 32)

answer=$(api POST /api/devices/register \
  "{\"token\":\"$e2e_token\",\"platform\":\"ios\",\"deviceId\":\"demo-iphone\",\"pushKey\":\"$e2e_key\"}")
say "POST /api/devices/register  ios $(short "$e2e_token")  with its pushKey (32 random bytes, made on the device)"
say "   →  $answer"
[ "${answer%% *}" = 200 ] || fail "registering the E2E device failed"

section "The hub posts events with the real text (agentText, pendingRequests, task)"
e2e_start=$(pushes_recorded)
e2e_event() {
  answer=$(api POST /api/events "$1")
  say "POST /api/events $2  →  ${answer%% *}"
  case ${answer%% *} in 200|202) ;; *) fail "the event was refused: $answer" ;; esac
}
e2e_event '{"type":"ready","sessionId":"e2e-refactor","sessionName":"refactor-auth","agent":"Claude","agentText":"I split the token check out of the handler.\nDone.AGENT_NOTIFY_SUMMARY {\"version\":1,\"summary\":\"Auth refactor done, 214 tests pass\",\"action\":\"Review AuthGuard.swift\"}"}' \
  "ready with an AGENT_NOTIFY_SUMMARY footer"
e2e_event '{"type":"permission","sessionId":"e2e-deploy","sessionName":"deploy-staging","agent":"Codex","pendingRequests":[{"id":"req-7","tool":"Bash","arguments":{"command":"kubectl rollout restart deploy/api"}}]}' \
  "permission, pending request req-7 (Bash)"
e2e_event '{"type":"task_complete","sessionId":"e2e-nightly","sessionName":"nightly-build","agent":"Claude","task":{"summary":"Nightly build failed at the link step","status":"Killed"}}' \
  "task_complete, status Killed"

# The E2E device's pushes in the fake APNs's record, one per line: collapse id, envelope, title, body.
e2e_pushes() {
  python3 - "$work/apns.jsonl" "$e2e_start" "$e2e_token" <<'PY'
import json, sys
path, start, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for push in [json.loads(line) for line in open(path, encoding="utf-8")][start:]:
    if push["path"].rsplit("/", 1)[-1] != token:
        continue
    alert = push["payload"]["aps"]["alert"]
    print(push["headers"].get("apns-collapse-id", "-"), push["payload"]["hapi"]["e"], alert["title"], alert["body"], sep="\t")
PY
}
wait_for_lines 3 "pushes for the E2E device" e2e_pushes
[ "$(e2e_pushes | wc -l)" -eq 3 ] || fail "the fake APNs recorded $(e2e_pushes | wc -l) pushes for the E2E device, expected 3"

section "What Apple saw, and what the device shows after decrypting with its own key"
shown=()
while IFS=$'\t' read -r collapse envelope apple_title apple_body; do
  plaintext=$(pushgate envelope open --key "$e2e_key" --envelope "$envelope") || fail "the device could not open an envelope"
  IFS=$'\t' read -r title body < <(python3 -c '
import json, sys
p = json.loads(sys.argv[1])
print(json.dumps(p["title"], ensure_ascii=False), json.dumps(p["body"], ensure_ascii=False), sep="\t")' "$plaintext")
  say "🍎 Apple saw:  \"$apple_title\" / \"$apple_body\"   (collapse id $collapse, envelope ${#envelope} base64 chars)"
  say "📱 device:     $title / $body"
  shown+=("$title")
done < <(e2e_pushes)
# ready and task_complete leave at once; the permission waits 500 ms for more request ids.
expected='"Claude - refactor-auth" "Task failed" "Permission Request"'
[ "${shown[*]}" = "$expected" ] || fail "the device showed ${shown[*]}, expected $expected"

for secret in "214 tests pass" "kubectl rollout" "link step" "$e2e_key"; do
  if grep -qF -- "$secret" "$work/apns.jsonl" "$work/relay.log" "$work/host.log"; then
    fail "\"$secret\" reached the fake APNs's record or a log"
  fi
done
say "(neither the relay, nor Apple, nor any log saw the text or the key: checked apns.jsonl, relay.log and host.log)"
