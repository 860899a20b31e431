# Starting a server process and reading its address, for Scripts/demo and Scripts/contract; source it.
#
# The caller defines `fail MESSAGE…` (print and exit) and the array `children`, whose processes
# it stops at exit.

# spawn NAME OUT LOG CMD…: starts CMD in the background, registers it in `children` and waits
# for its `listening HOST:PORT` line; sets spawned_pid and spawned_address.
spawn() {
  local name=$1 out=$2 log=$3 line
  shift 3
  : >"$out"
  "$@" >>"$out" 2>"$log" &
  spawned_pid=$!
  children+=("$spawned_pid")
  for _ in $(seq 1 200); do
    line=$(sed -n 's/^listening //p' "$out")
    if [ -n "$line" ]; then spawned_address=$line; return; fi
    kill -0 "$spawned_pid" 2>/dev/null || { cat "$log" >&2; fail "$name exited before listening"; }
    sleep 0.05
  done
  cat "$log" >&2
  fail "$name did not print its listening line within 10 s"
}

# stop_all: SIGTERM to every child, newest first; each must exit 0 (else it is named and the
# status is 1).
stop_all() {
  local i pid status failed=0
  for ((i = ${#children[@]} - 1; i >= 0; i--)); do
    pid=${children[$i]}
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" && status=0 || status=$?
    [ "$status" -eq 0 ] || { printf '   process %s exited %s\n' "$pid" "$status" >&2; failed=1; }
  done
  children=()
  return "$failed"
}
