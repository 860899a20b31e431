# The hang watchdog of Scripts/test, Scripts/faults and Scripts/soak; source it.
#
# `watch_for_hang SECONDS NAME COMMAND…` runs COMMAND in a session of its own and waits for it.
# Still running after SECONDS, it is a hang: every thread's stack of every process below it is
# printed (gdb), every process below it is killed, and the function returns 1. Otherwise it
# returns COMMAND's exit status. Interrupted (SIGINT, SIGTERM) while it waits, it kills every
# process below COMMAND too and the script exits: the session of its own keeps the terminal's
# Ctrl-C from reaching them, so without this the relay, host and fake would run on.
#
# PRIVATE_MOUNTS is the prefix that runs a command in a mount namespace of its own (root only,
# else empty): what the command mounts (the fault suite's tmpfs under the host's home) goes
# away with the namespace, even when the command is killed before it unmounts.

if [ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null; then
  PRIVATE_MOUNTS=(unshare -m --propagation private)
else
  PRIVATE_MOUNTS=()
fi

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

# Kills (SIGKILL) `pid`'s process group and every process below it, some of which (a
# PostgreSQL server) lead process groups of their own.
kill_below() {
  local below
  below=$(descendants "$1")
  kill -KILL -- "-$1" 2>/dev/null || true
  # shellcheck disable=SC2086 # one pid a word
  [ -z "$below" ] || kill -KILL $below 2>/dev/null || true
}

watch_for_hang() {
  local timeout=$1 name=$2 pid deadline
  shift 2
  # A session of its own, so the whole process group can be stopped.
  setsid "$@" &
  pid=$!
  # shellcheck disable=SC2064 # the pid is fixed now
  trap "echo 'watchdog: interrupted; killing ${name}' >&2; kill_below $pid; exit 130" INT
  # shellcheck disable=SC2064
  trap "echo 'watchdog: terminated; killing ${name}' >&2; kill_below $pid; exit 143" TERM
  deadline=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "watchdog: ${name} still running after ${timeout} s: a hang" >&2
    dump_threads "$pid"
    kill_below "$pid"
    wait "$pid" || true
    trap - INT TERM
    return 1
  fi
  trap - INT TERM
  wait "$pid"
}
