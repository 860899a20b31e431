# The hang watchdog of Scripts/test and Scripts/faults; source it.
#
# `watch_for_hang SECONDS NAME COMMAND…` runs COMMAND in a session of its own and waits for it.
# Still running after SECONDS, it is a hang: every thread's stack of every process below it is
# printed (gdb), the whole session is killed, and the function returns 1. Otherwise it returns
# COMMAND's exit status.

# Every process below `pid`, depth first.
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1"); do
    echo "$child"
    descendants "$child"
  done
}

# Prints the stacks of every thread of `pid`'s descendants (the test binary runs below `swift test`).
dump_threads() {
  local pid
  for pid in $(descendants "$1"); do
    echo "watchdog: threads of $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) (pid $pid)" >&2
    gdb -batch -p "$pid" -ex 'thread apply all bt' </dev/null >&2 2>&1 || true
  done
}

watch_for_hang() {
  local timeout=$1 name=$2 pid deadline
  shift 2
  # A session of its own, so the whole process group can be stopped.
  setsid "$@" &
  pid=$!
  deadline=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "watchdog: ${name} still running after ${timeout} s: a hang" >&2
    dump_threads "$pid"
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" || true
    return 1
  fi
  wait "$pid"
}
