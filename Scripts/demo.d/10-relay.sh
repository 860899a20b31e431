# Part 1: the signed relay by hand, with the `pushgate` tool acting as two hosts (A and B).
relay_part_start=$(pushes_recorded)
section "Part 1 — the relay by hand: two hosts, each with its own P-256 identity (pushgate tool)"
host_a=$(pushgate identity new --out "$work/host-a.jwk")
host_b=$(pushgate identity new --out "$work/host-b.jwk")
say "host A  serverId $(short "$host_a")"
say "host B  serverId $(short "$host_b")"

section "Register device tokens (signed by the registering host)"
phone1=$(openssl rand -hex 32) phone2=$(openssl rand -hex 32) phone_b=$(openssl rand -hex 32)
register() {
  local host=$1 key=$2 token=$3 answer
  answer=$(pushgate relay register --relay "$relay" --key "$key" --token "$token") || fail "register failed: $answer"
  say "host $host registers $(short "$token")  →  $answer"
}
register A "$work/host-a.jwk" "$phone1"
register A "$work/host-a.jwk" "$phone2"
register B "$work/host-b.jwk" "$phone_b"

section "Host A sends one notification to its two devices and to host B's device"
say "pushgate relay send --tokens $(short "$phone1"),$(short "$phone2"),$(short "$phone_b") --title … --badge 2 --save-request send.json"
answer=$(pushgate relay send --relay "$relay" --key "$work/host-a.jwk" \
  --tokens "$phone1,$phone2,$phone_b" --title "Agent needs your input" \
  --body "refactor-auth: allow \`swift test\` to run?" --badge 2 --collapse-id session-refactor-auth \
  --data '{"sessionId":"refactor-auth","kind":"permission"}' --save-request "$work/send.json") \
  || fail "send failed: $answer"
say "relay answered ${answer%% *}; per token:"
printf '%s\n' "${answer#* }" | python3 -c '
import json, sys
foreign = sys.argv[1]
for row in json.load(sys.stdin)["results"]:
    token = row["token"]
    if row["ok"]:
        verdict = "ok:true   accepted by APNs"
    elif token == foreign:
        verdict = "ok:false  refused: bound to host B, not to host A"
    else:
        verdict = "ok:false  not delivered"
    print(f"   {token[:8]}…  {verdict}")
' "$phone_b"
case $answer in
  *"\"token\":\"$phone_b\",\"ok\":false"*) ;;
  *) fail "host B's token was not refused to host A" ;;
esac

section "What the phones show (the pushes as the fake APNs received them)"
python3 - "$work/apns.jsonl" "$phone_b" "$relay_part_start" <<'PY'
import json, sys
path, foreign, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [json.loads(line) for line in open(path, encoding="utf-8")][start:]
for push in lines:
    token = push["path"].rsplit("/", 1)[-1]
    aps = push["payload"]["aps"]
    alert = aps["alert"]
    badge = f"  [badge {aps['badge']}]" if "badge" in aps else ""
    print(f"   📱 {token[:8]}…  {alert['title']} — {alert.get('body', '')}{badge}")
    data = ", ".join(f"{k}={v}" for k, v in push["payload"].items() if k != "aps")
    headers = push["headers"]
    print(f"      topic {headers['apns-topic']} · {headers['apns-push-type']} · "
          f"thread {aps.get('thread-id', '-')} · data {data or '-'} · APNs {push['status']}")
received = {push["path"].rsplit("/", 1)[-1] for push in lines}
if foreign in received:
    sys.exit("demo: host B's device received host A's push")
print(f"   (host B's device {foreign[:8]}… received nothing; {len(lines)} pushes in all)")
PY

section "Replay: the captured send request, posted again unchanged"
say "pushgate relay resend --endpoint send --request send.json"
if answer=$(pushgate relay resend --relay "$relay" --endpoint send --request "$work/send.json"); then
  fail "the replayed send was accepted: $answer"
fi
say "$answer  (exit 1: refused, nothing sent)"
[ "$answer" = '401 {"error":"replay"}' ] || fail "expected 401 replay, got: $answer"
[ "$(pushes_recorded)" -eq $((relay_part_start + 2)) ] || fail "the replay reached APNs"

