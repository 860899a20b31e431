# Part 2: the whole chain. A phone app registers two devices (English and Japanese) with the
# host; the agent hub posts events; the host composes localized, content-free alerts, signs
# them and sends them through the relay to the fake APNs; the badge counts sessions needing
# attention until the user looks.

# show_pushes FROM: prints, per push recorded after line FROM, what the phone shows.
show_pushes() {
  python3 - "$work/apns.jsonl" "$1" "$phone_en" "$phone_ja" <<'PY'
import json, sys
path, start, en, ja = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
names = {en: "phone (en)", ja: "phone (ja)"}
for push in [json.loads(line) for line in open(path, encoding="utf-8")][start:]:
    token = push["path"].rsplit("/", 1)[-1]
    aps = push["payload"]["aps"]
    alert = aps["alert"]
    print(f"   📱 {names.get(token, token[:8])}  {alert['title']} — {alert.get('body', '')}  "
          f"[badge {aps.get('badge', '-')}]  (APNs {push['status']})")
PY
}

section "Part 2 — the host: a phone registers two devices through the host API"
phone_en=$(openssl rand -hex 32) phone_ja=$(openssl rand -hex 32)
for pair in "en:$phone_en" "ja:$phone_ja"; do
  locale=${pair%%:*} token=${pair#*:}
  answer=$(api POST /api/push/apns-token "{\"token\":\"$token\",\"locale\":\"$locale\",\"client\":\"phone-$locale\"}")
  say "POST /api/push/apns-token  locale $locale  $(short "$token")  →  $answer"
  [ "${answer%% *}" = 200 ] || fail "registering the $locale device failed"
done
say "GET /api/status  →  $(api GET /api/status | cut -d' ' -f2-)"

section "The hub posts three events: ready, permission, question"
host_part_start=$(pushes_recorded)
api_step api POST /api/events '{"type":"ready","sessionId":"refactor-auth","sessionName":"refactor-auth"}'
api_step api POST /api/events '{"type":"permission","sessionId":"fix-flaky-test","sessionName":"fix-flaky-test","requestId":"r1"}'
api_step api POST /api/events '{"type":"question","sessionId":"write-docs","sessionName":"write-docs"}'
say "(permission and question wait 500 ms for follow-ups before they are sent: 202 pending)"
wait_for_pushes $((host_part_start + 6))

section "What each phone shows (read from the fake APNs's record)"
show_pushes "$host_part_start"
badge=$(api GET /api/status | python3 -c 'import json,sys; print(json.loads(sys.stdin.read().split(" ",1)[1])["badge"])')
[ "$badge" = 3 ] || fail "expected badge 3 after three sessions need attention, got $badge"

section "The user opens a session on the phone: the badge resets"
say "POST /api/sessions/refactor-auth/view  →  $(api POST /api/sessions/refactor-auth/view)"
view_start=$(pushes_recorded)
api_step api POST /api/events '{"type":"ready","sessionId":"ship-release","sessionName":"ship-release"}'
wait_for_pushes $((view_start + 2))
show_pushes "$view_start"
last_badges=$(python3 -c '
import json, sys
print(sorted({json.loads(l)["payload"]["aps"].get("badge") for l in open(sys.argv[1]).readlines()[int(sys.argv[2]):]}))' \
  "$work/apns.jsonl" "$view_start" 2>/dev/null || true)
[ "$last_badges" = "[1]" ] || fail "expected badge 1 after the reset, got $last_badges"
