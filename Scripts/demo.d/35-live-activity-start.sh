# Part 3b: a Live Activity that starts by push. A phone hands the chain's host its push-to-start
# token; a session starting work makes the host start an activity on it through the relay; the
# phone then registers the new activity's update token, which the host ends when the session
# settles. Every push is read back from the fake APNs's record.

# start_pushes TOKEN…: the Live Activity pushes the fake APNs recorded for TOKENs since this part
# began, one per line: "token event apns-priority topic status title items…".
start_pushes() {
  python3 - "$work/apns.jsonl" "$start_from" "$@" <<'PY'
import json, sys
path, skip, tokens = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for line in open(path, encoding="utf-8").readlines()[skip:]:
    push = json.loads(line)
    token = push["path"].rsplit("/", 1)[-1]
    if token not in tokens or push["headers"].get("apns-push-type") != "liveactivity":
        continue
    aps = push["payload"]["aps"]
    state = aps["content-state"]
    items = " ".join(f'{item["sessionID"]}:{item["status"]}' for item in state["items"])
    print(token[:8], aps["event"], push["headers"]["apns-priority"], push["headers"]["apns-topic"], state["status"],
          state["title"], items)
PY
}

# start_members: the members only a start carries, of the first start recorded since this part began.
start_members() {
  python3 - "$work/apns.jsonl" "$start_from" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8").readlines()[int(sys.argv[2]):]:
    aps = json.loads(line)["payload"]["aps"]
    if aps.get("event") == "start":
        members = {key: aps[key] for key in ("attributes-type", "attributes", "alert", "input-push-token")}
        print(json.dumps(members, separators=(",", ":")))
        break
PY
}

section "Part 3b — a Live Activity that starts by push (iOS 17.2 push-to-start)"
start_from=$(pushes_recorded)
start_token=$(openssl rand -hex 32)
api_step api POST /api/push/live-activity-token "{\"kind\":\"start\",\"token\":\"$start_token\",\"client\":\"phone-start\"}" \
  "{\"kind\":\"start\",\"token\":\"$(short "$start_token")\",\"client\":\"phone-start\"}"
say "(the host binds it on the relay as a push-to-start token: only a start reaches it)"

section "A session starts working: the phone shows no activity, so the host starts one"
api_step api PUT /api/sessions/deploy-api/state '{"status":"busy","title":"deploy-api","visible":true}'
wait_for_lines 1 "Live Activity starts" start_pushes "$start_token"
say "start members: $(start_members)"
expected_members='{"attributes-type":"PushgateActivityAttributes","attributes":{"sessionId":"deploy-api"},"alert":{"title":"deploy-api","body":"Started working"},"input-push-token":1}'
[ "$(start_members)" = "$expected_members" ] || fail "the start's attributes or alert differ from the expected ones"

section "The new activity reports its update token; while it shows, nothing else starts"
activity_token=$(openssl rand -hex 32)
registration='"activityId":"started-by-push","sessionId":"deploy-api","client":"phone-start"}'
api_step api POST /api/push/live-activity-token "{\"token\":\"$activity_token\",$registration" \
  "{\"token\":\"$(short "$activity_token")\",$registration"
answer=$(api PUT /api/sessions/run-tests/state '{"status":"busy","title":"run-tests","visible":true}')
say "PUT /api/sessions/run-tests/state {\"status\":\"busy\",\"title\":\"run-tests\",\"visible\":true}"
say "   →  $answer"
[ "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1].split(" ",1)[1])["requests"])' "$answer")" = 0 ] \
  || fail "a second session started an activity on a device that shows one"
api_step api PUT /api/sessions/deploy-api/state '{"status":"idle"}'
wait_for_lines 2 "Live Activity pushes" start_pushes "$start_token" "$activity_token"

section "What the lock screen received (the fake APNs's record)"
say "token      event   priority  topic                                     status    title       items"
while read -r token event priority topic status title items; do
  say "$(printf '%-10s %-7s %-9s %-41s %-9s %-11s %s' "$token…" "$event" "$priority" "$topic" "$status" "$title" "$items")"
done < <(start_pushes "$start_token" "$activity_token")
expected="${start_token:0:8} start 10 $bundle_id.push-type.liveactivity working deploy-api deploy-api:working
${activity_token:0:8} end 10 $bundle_id.push-type.liveactivity complete deploy-api deploy-api:complete"
[ "$(start_pushes "$start_token" "$activity_token")" = "$expected" ] || fail "the pushes differ from the start and the end expected"
say "(a start to the push-to-start token, then the end to the token the started activity reported;"
say " the next start to this phone waits PUSHGATE_LIVE_ACTIVITY_START_COOLDOWN_SECONDS, 600 by default)"
