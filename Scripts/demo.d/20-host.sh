# Part 2: the whole chain. Two iPhones (English and Japanese) and an Android phone (English)
# register with the host; the agent hub posts events; the host composes localized,
# content-free alerts, signs them and sends them through the relay, which delivers the iPhones'
# through the fake APNs and the Android phone's through the fake FCM; the badge counts sessions
# needing attention until the user looks.

# show_pushes APNS_FROM FCM_FROM: prints what each phone shows, per push recorded after line
# APNS_FROM of the fake APNs's record and after send FCM_FROM of the fake FCM's.
show_pushes() {
  python3 - "$work/apns.jsonl" "$1" "$work/fcm.jsonl" "$2" "$phone_en" "$phone_ja" "$phone_android" <<'PY'
import json, sys
apns, apns_start, fcm, fcm_start, en, ja, android = sys.argv[1:8]
names = {en: "iPhone (en) ", ja: "iPhone (ja) ", android: "Android (en)"}
for push in [json.loads(line) for line in open(apns, encoding="utf-8")][int(apns_start):]:
    token = push["path"].rsplit("/", 1)[-1]
    aps = push["payload"]["aps"]
    if "alert" not in aps:
        print(f"   📱 {names.get(token, token[:8])}  (background: dismiss {push['payload'].get('dismiss', {}).get('collapseIds')})")
        continue
    alert = aps["alert"]
    attention = ", ".join(str(v) for v in (aps.get("interruption-level"), aps.get("category")) if v)
    print(f"   📱 {names.get(token, token[:8])}  {alert['title']} — {alert.get('body', '')}  "
          f"[badge {aps.get('badge', '-')}; {attention}; collapse id {push['headers'].get('apns-collapse-id')}]  (APNs {push['status']})")
sends = [json.loads(line) for line in open(fcm, encoding="utf-8")]
for send in [s for s in sends if s["kind"] == "send"][int(fcm_start):]:
    message = send["message"]
    if "notification" not in message:
        continue
    note, shown = message["notification"], message["android"]["notification"]
    print(f"   📱 {names.get(message['token'], message['token'][:8])}  {note['title']} — {note.get('body', '')}  "
          f"[badge {shown.get('notification_count', '-')}]  (FCM {send['status']}, tag {shown.get('tag')})")
PY
}

# android_matches_english APNS_FROM FCM_FROM: fails unless the Android phone was shown exactly
# what the English iPhone was (title, body, badge), every FCM send accepted.
android_matches_english() {
  python3 - "$work/apns.jsonl" "$1" "$work/fcm.jsonl" "$2" "$phone_en" "$phone_android" <<'PY' || fail "the Android phone did not get the English iPhone's pushes"
import json, sys
apns, apns_start, fcm, fcm_start, en, android = sys.argv[1:7]
iphone = sorted((p["payload"]["aps"]["alert"]["title"], p["payload"]["aps"]["alert"].get("body"), p["payload"]["aps"].get("badge"))
                for p in [json.loads(l) for l in open(apns, encoding="utf-8")][int(apns_start):] if p["path"].endswith("/" + en))
sends = [s for s in map(json.loads, open(fcm, encoding="utf-8")) if s["kind"] == "send"][int(fcm_start):]
phone = sorted((s["message"]["notification"]["title"], s["message"]["notification"].get("body"),
                s["message"]["android"]["notification"].get("notification_count")) for s in sends)
ok = iphone and phone == iphone and all(s["status"] == 200 and s["message"]["token"] == android for s in sends)
sys.exit(0 if ok else 1)
PY
}

section "Part 2 — the host: two iPhones and an Android phone register through the host API"
phone_en=$(openssl rand -hex 32) phone_ja=$(openssl rand -hex 32)
# An FCM registration token has the form <instance id>:<token>.
phone_android="demo-pixel:APA91b$(openssl rand -hex 60)"
for entry in "en:ios:$phone_en" "ja:ios:$phone_ja" "en:android:$phone_android"; do
  locale=${entry%%:*} rest=${entry#*:}
  platform=${rest%%:*} token=${rest#*:}
  answer=$(api POST /api/push/apns-token \
    "{\"token\":\"$token\",\"platform\":\"$platform\",\"locale\":\"$locale\",\"client\":\"$platform-$locale\"}")
  say "POST /api/push/apns-token  $platform $locale  $(short "$token")  →  $answer"
  [ "${answer%% *}" = 200 ] || fail "registering the $platform $locale device failed"
done
say "GET /api/status  →  $(api GET /api/status | cut -d' ' -f2-)"

section "The hub posts three events: ready, permission, question"
host_part_start=$(pushes_recorded) host_fcm_start=$(fcm_sends | wc -l)
api_step api POST /api/events '{"type":"ready","sessionId":"refactor-auth","sessionName":"refactor-auth"}'
api_step api POST /api/events '{"type":"permission","sessionId":"fix-flaky-test","sessionName":"fix-flaky-test","requestId":"r1"}'
api_step api POST /api/events '{"type":"question","sessionId":"write-docs","sessionName":"write-docs"}'
say "(permission and question wait 500 ms for follow-ups before they are sent: 202 pending)"
wait_for_pushes $((host_part_start + 6))
wait_for_fcm_sends $((host_fcm_start + 3))

section "What each phone shows (read from the fake APNs's and the fake FCM's records)"
show_pushes "$host_part_start" "$host_fcm_start"
android_matches_english "$host_part_start" "$host_fcm_start"
badge=$(api GET /api/status | python3 -c 'import json,sys; print(json.loads(sys.stdin.read().split(" ",1)[1])["badge"])')
[ "$badge" = 3 ] || fail "expected badge 3 after three sessions need attention, got $badge"

section "The user opens a session on the phone: the badge resets"
say "POST /api/sessions/refactor-auth/view  →  $(api POST /api/sessions/refactor-auth/view)"
view_start=$(pushes_recorded) view_fcm_start=$(fcm_sends | wc -l)
api_step api POST /api/events '{"type":"ready","sessionId":"ship-release","sessionName":"ship-release"}'
wait_for_pushes $((view_start + 2))
wait_for_fcm_sends $((view_fcm_start + 1))
show_pushes "$view_start" "$view_fcm_start"
android_matches_english "$view_start" "$view_fcm_start"
last_badges=$(python3 -c '
import json, sys
print(sorted({json.loads(l)["payload"]["aps"].get("badge") for l in open(sys.argv[1]).readlines()[int(sys.argv[2]):]}))' \
  "$work/apns.jsonl" "$view_start" 2>/dev/null || true)
[ "$last_badges" = "[1]" ] || fail "expected badge 1 after the reset, got $last_badges"

section "Answered at the desk: the hub resolves the permission prompt"
resolve_start=$(pushes_recorded) resolve_fcm_start=$(fcm_sends | wc -l)
api_step api POST /api/events '{"type":"resolved","sessionId":"fix-flaky-test","sessionName":"fix-flaky-test","requestId":"r1"}'
wait_for_pushes $((resolve_start + 2))
wait_for_fcm_sends $((resolve_fcm_start + 1))
say "(the same collapse id replaces the time-sensitive prompt on each phone with a passive note)"
show_pushes "$resolve_start" "$resolve_fcm_start"
python3 - "$work/apns.jsonl" "$resolve_start" "$phone_en" <<'PY' || fail "the resolved prompt was not replaced by a passive alert under its collapse id"
import json, sys
pushes = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")][int(sys.argv[2]):]
mine = [p for p in pushes if p["path"].endswith("/" + sys.argv[3])]
ok = len(mine) == 1 and mine[0]["headers"].get("apns-collapse-id") == "permission-r1" \
    and mine[0]["payload"]["aps"].get("interruption-level") == "passive" and "sound" not in mine[0]["payload"]["aps"]
sys.exit(0 if ok else 1)
PY
