# Part 3: a Live Activity on the lock screen. A host with a one-second refresh tick (its own
# process and home, same relay) tracks two agent sessions; a phone registers its activity's push
# token; the activity shows both working, one needing permission, then both done. Every push is
# read back from the fake APNs's record, and ticks where nothing changed send nothing.

# la_api METHOD PATH [BODY]: host_call on this part's host.
la_api() { host_call "$la_host" "$la_token" "$@"; }

# la_pushes: the Live Activity pushes the fake APNs recorded for the activity's token, one per line:
# "event status workingCount priority items…".
la_pushes() {
  python3 - "$work/apns.jsonl" "$activity_token" <<'PY'
import json, sys
path, token = sys.argv[1], sys.argv[2]
for line in open(path, encoding="utf-8"):
    push = json.loads(line)
    if push["path"].rsplit("/", 1)[-1] != token or push["headers"].get("apns-push-type") != "liveactivity":
        continue
    aps = push["payload"]["aps"]
    state = aps["content-state"]
    items = " ".join(f'{item["sessionID"]}:{item["status"]}' for item in state["items"])
    print(aps["event"], state["status"], state["workingCount"], push["headers"]["apns-priority"], items)
PY
}

# la_ticks: refresh ticks the host has logged so far.
la_ticks() { grep -c 'msg="refresh tick"' "$work/la-host.log" || true; }

section "Part 3 — Live Activities: a host that refreshes every second"
la_token=$(openssl rand -hex 24)
spawn "pushgate-host (Live Activities)" "$work/la-host.out" "$work/la-host.log" env \
  PUSHGATE_HOME="$work/la-host-home" \
  PUSHGATE_HOST_LISTEN=127.0.0.1:0 \
  PUSHGATE_HOST_ACCESS_TOKEN="$la_token" \
  PUSHGATE_PUSH_RELAY_URL="$relay" \
  PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS=1000 \
  PUSHGATE_LOG_LEVEL=debug \
  "$bin/pushgate-host"
la_host="http://$spawned_address"
say "pushgate-host: $la_host, PUSHGATE_LIVE_ACTIVITY_REFRESH_INTERVAL_MS=1000, same relay"

section "The hub reports two sessions at work; the phone registers its Live Activity"
api_step la_api PUT /api/sessions/refactor-auth/state '{"status":"busy","title":"refactor-auth","visible":true}'
api_step la_api PUT /api/sessions/write-docs/state '{"status":"busy","title":"write-docs","visible":true}'
activity_token=$(openssl rand -hex 32)
registration='"activityId":"agents","sessionId":"refactor-auth","client":"phone-en"}'
api_step la_api POST /api/push/live-activity-token "{\"token\":\"$activity_token\",$registration" \
  "{\"token\":\"$(short "$activity_token")\",$registration"
say "(the activity starts with its own session; the next tick adds the other visible busy session)"
wait_for_lines 1 "Live Activity pushes" la_pushes

section "Ticks with nothing new send nothing (APNs budgets Live Activity updates)"
ticks_before=$(la_ticks)
sleep 3
ticks_after=$(la_ticks)
[ $((ticks_after - ticks_before)) -ge 2 ] || fail "expected at least 2 refresh ticks in 3 s, saw $((ticks_after - ticks_before))"
[ "$(la_pushes | wc -l)" -eq 1 ] || fail "a tick with nothing changed sent an update"
say "$((ticks_after - ticks_before)) refresh ticks in 3 s, no change, no update sent (still 1 push in all)"

section "One session needs permission, then both finish"
api_step la_api POST /api/events '{"type":"permission","sessionId":"write-docs","sessionName":"write-docs","requestId":"r7"}'
wait_for_lines 2 "Live Activity pushes" la_pushes
api_step la_api PUT /api/sessions/write-docs/state '{"status":"idle"}'
api_step la_api PUT /api/sessions/refactor-auth/state '{"status":"idle"}'
wait_for_lines 4 "Live Activity pushes" la_pushes

section "What the lock screen received (Live Activity pushes in the fake APNs's record)"
say "event   status    working  priority  items"
while read -r event status working priority items; do
  say "$(printf '%-7s %-9s %-8s %-9s %s' "$event" "$status" "$working" "$priority" "$items")"
done < <(la_pushes)
expected="update working 2 5 refactor-auth:working write-docs:working
update working 2 10 refactor-auth:working write-docs:permission
update working 1 5 refactor-auth:working write-docs:complete
end complete 0 10 refactor-auth:complete write-docs:complete"
[ "$(la_pushes)" = "$expected" ] || fail "the Live Activity pushes differ from the expected four"
remaining=$(la_api GET /api/status | python3 -c 'import json,sys; print(json.loads(sys.stdin.read().split(" ",1)[1])["liveActivityTokens"])')
[ "$remaining" = 0 ] || fail "the ended activity's token is still registered"
say "(routine updates at priority 5; permission and the end at 10; after the accepted end the token is gone)"
