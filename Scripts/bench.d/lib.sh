# What every suite of Scripts/bench shares: the binaries, the servers it starts, CPU and memory
# readings, and the figure lines the suites print (one JSON object a line, read by
# `pushgate-dev bench report`; docs/bench.md, "Figure lines"). Sourced by Scripts/bench.

# The release binaries' directory and the binary with `bench`, `fake-apns` and `fake-fcm`.
release_binaries() {
  BIN=$(realpath --relative-to=. "$(swift build -c release --show-bin-path)")
  TOOL=$BIN/pushgate-dev
}

STARTED=()                # processes start_server started and stop_server has not stopped
SUITE=                    # the suite running now, set by Scripts/bench
ROUND=1                   # the round (and group) the next figure lines belong to (at_round)
GROUP=

# Limits a benchmarked relay runs with, raised out of the load's way.
RELAY_LIMITS=(--register-limit-per-minute 1000000 --send-limit-per-minute 1000000
              --server-send-limit-per-minute 1000000 --max-replay-keys 10000000
              --max-tokens 100000000 --max-tokens-per-host 10000000 --new-tokens-per-ip-per-hour 10000000
              --max-in-flight 10000 --max-connections-per-ip 4096)

# --- Figure lines -------------------------------------------------------------------------

# `at_round ROUND [GROUP]`: the figure lines that follow belong to that round (from 1) and group
# (runs of one round that report the same names: the apns windows, hapi-push's connections).
at_round() { ROUND=$1 GROUP=${2:-}; }

# Adds suite, round and group to the figure lines on standard input (`pushgate-dev bench` prints
# `{"name":…,"value":…,"unit":…}`): `"$TOOL" bench core | figures`.
figures() { sed "s/^{/{\"suite\":\"$SUITE\",\"round\":$ROUND,\"group\":\"$GROUP\",/"; }

# One figure the script computed: `figure NAME VALUE UNIT`.
figure() { printf '{"name":"%s","value":%s,"unit":"%s"}\n' "$1" "$2" "$3" | figures; }

# A size the section's labels name: `setting NAME VALUE`.
setting() { printf '{"suite":"%s","setting":"%s","value":%s}\n' "$SUITE" "$1" "$2"; }

# A paragraph of the section, from standard input: `text intro|outro [NAME=VALUE…] <<'EOF'`;
# `$NAME` in the text is replaced by VALUE (the text is quoted, so its backticks stay).
text() {
  local place=$1 body
  shift
  body=$(cat)
  python3 -c '
import json, string, sys
suite, place, body, *assignments = sys.argv[1:]
values = dict(assignment.split("=", 1) for assignment in assignments)
print(json.dumps({"suite": suite, "text": string.Template(body).safe_substitute(values), "place": place}, ensure_ascii=False))
' "$SUITE" "$place" "$body" "$@"
}

# The facts every section starts with: date, machine, load, the script's invocation and the
# commands the suite runs (`facts COMMAND…`; the run's directory is written `$WORK`).
facts() {
  local command commands=()
  for command in "$@"; do commands+=("${command//"$WORK"/\$WORK}"); done
  python3 - "$SUITE" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(machine)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$INVOCATION" \
    "${commands[@]}" <<'PY'
import json, sys
suite, date, machine, load, invocation, *commands = sys.argv[1:]
for fact, text in [("date", date), ("machine", machine), ("load", load), ("invocation", invocation)] + [("ran", c) for c in commands]:
    print(json.dumps({"suite": suite, "fact": fact, "text": text}, ensure_ascii=False))
PY
}

# One more fact of the section: `fact LABEL TEXT` (`fact OpenSSL "$(openssl version)"`).
fact() { python3 -c 'import json, sys; print(json.dumps({"suite": sys.argv[1], "fact": sys.argv[2], "text": sys.argv[3]}, ensure_ascii=False))' "$SUITE" "$1" "$2"; }

# 100000 → 100 000.
grouped() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/ &/; ta'; }

# --- Processes ----------------------------------------------------------------------------

# Starts `NAME COMMAND…` in the background and waits for the `listening HOST:PORT` line it
# prints on standard output once ready; sets SERVER_PID and SERVER_PORT, and SERVER_METRICS_PORT
# from a relay's `metrics HOST:PORT` line (printed before it). Its standard error goes to
# $WORK/NAME.err.
start_server() {
  local name=$1 tries
  shift
  : >"$WORK/$name.out"
  "$@" >>"$WORK/$name.out" 2>"$WORK/$name.err" &
  SERVER_PID=$!
  STARTED+=("$SERVER_PID")
  for ((tries = 0; tries < 400; tries++)); do
    SERVER_PORT=$(sed -n 's/^listening .*:\([0-9][0-9]*\)$/\1/p' "$WORK/$name.out")
    SERVER_METRICS_PORT=$(sed -n 's/^metrics .*:\([0-9][0-9]*\)$/\1/p' "$WORK/$name.out")
    [ -n "$SERVER_PORT" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "bench: $name did not start: $*" >&2
  cat "$WORK/$name.err" >&2
  exit 1
}

# Stops a process start_server (or start_postgres) started, with SIGTERM or the signal given
# (`stop_server PID [SIGNAL]`), and waits for it.
stop_server() {
  kill -"${2:-TERM}" "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local kept=() pid
  for pid in "${STARTED[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  STARTED=("${kept[@]}")
}

# Stops whatever start_server started and is still running (the script's exit trap).
stop_all_servers() {
  local pid
  for pid in "${STARTED[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
}

# A memory line of /proc/PID/status in KiB: `status_kib PID VmRSS` (resident now) or VmHWM (peak).
status_kib() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status"; }

# CPU seconds (user + system, all threads) process PID has used so far.
cpu_seconds() { awk -v tick="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / tick }' "/proc/$1/stat"; }

# CPU seconds process PID and its children have used so far, ended children included (their
# time moves to PID once reaped): PostgreSQL runs one process per connection.
tree_cpu_seconds() {
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v tick="$(getconf CLK_TCK)" -v pid="$1" '{
    own = $1; sub(/^.*\) /, "")
    if (own == pid || $2 == pid) total += $12 + $13 + $14 + $15
  } END { print total / tick }'
}

# `per_unit CPU_BEFORE CPU_AFTER COUNT`: the CPU between the readings per item, in µs.
per_unit() { echo "$1 $2 $3" | awk '{ print ($2 - $1) / $3 * 1e6 }'; }

# `timed_cpu FILE COMMAND…` runs COMMAND and writes the CPU seconds (user + system) it used,
# children included, to FILE, as /usr/bin/time counts a whole process.
# Its standard error is shown once it ends.
timed_cpu() {
  local file=$1 TIMEFORMAT='%3U %3S' status=0
  shift
  { time "$@" 2>"$file.err"; } 2>"$file.time" || status=$?
  cat "$file.err" >&2
  [ "$status" = 0 ] || { echo "bench: $* failed with status $status" >&2; exit 1; }
  awk '{ print $1 + $2 }' "$file.time" >"$file"
}

# The bench's APNs key ($WORK/apns.p8), made once per run; its credentials are APNS_CREDENTIALS.
APNS_CREDENTIALS=()
apns_key() {
  [ -f "$WORK/apns.p8" ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/apns.p8" 2>/dev/null
  APNS_CREDENTIALS=(--p8 "$WORK/apns.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
}

# --- Register load (relay, postgres) -------------------------------------------------------

# Starts a dry-run relay with RELAY_LIMITS and the store options given, posts the bodies in
# BODIES (from `pushgate-dev bench relay-presign`) with wrk (1 thread, 64 connections) for SECONDS,
# stops the relay and prints its figure lines PREFIX.* (register_figures, through `figures`).
# With STORE_PID set, the CPU that process and its children used over the load is counted too.
# `register_with_wrk PREFIX BODIES SECONDS STORE-OPTION…`
register_with_wrk() {
  local prefix=$1 bodies=$2 seconds=$3 lua=$WORK/register.lua relay_cpu store_cpu=0 result
  shift 3
  command -v wrk >/dev/null || { echo "bench: wrk is not installed (Scripts/bootstrap installs it)" >&2; exit 1; }
  [ -f "$lua" ] || cp Scripts/bench.d/register.lua "$lua"
  start_server relay-register env PUSHGATE_LOG_LEVEL=warning "$BIN/pushgate-relay" --dry-run --port 0 \
    "$@" "${RELAY_LIMITS[@]}"
  relay_cpu=$(cpu_seconds "$SERVER_PID")
  [ -z "${STORE_PID:-}" ] || store_cpu=$(tree_cpu_seconds "$STORE_PID")
  result=$(BENCH_BODIES=$bodies wrk -t1 -c64 -d"${seconds}s" -s "$lua" "http://127.0.0.1:$SERVER_PORT" | grep '^BENCH ')
  relay_cpu=$(echo "$relay_cpu $(cpu_seconds "$SERVER_PID")" | awk '{ print $2 - $1 }')
  [ -z "${STORE_PID:-}" ] || store_cpu=$(echo "$store_cpu $(tree_cpu_seconds "$STORE_PID")" | awk '{ print $2 - $1 }')
  stop_server "$SERVER_PID"
  register_figures "$prefix" "$result" "$relay_cpu" "${STORE_PID:+$store_cpu}" | figures
}

# Figure lines from one register run: `register_figures PREFIX "BENCH …" RELAY_CPU_SECONDS
# [STORE_CPU_SECONDS]`. Fails when a request was refused, a socket failed or the bodies ran out
# (a body posted twice would be a replay, which the relay answers without a store write).
register_figures() {
  echo "$2" | awk -v prefix="$1" -v cpu="$3" -v store_cpu="${4:-}" '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    if (v["status_errors"] > 0 || v["socket_errors"] > 0 || v["posted"] >= v["bodies"]) {
      printf "bench: %s: %d refused, %d socket errors, %d of %d bodies posted\n", prefix, v["status_errors"], v["socket_errors"], v["posted"], v["bodies"] > "/dev/stderr"
      exit 1
    }
    printf "{\"name\":\"%s.requests_per_second\",\"value\":%f,\"unit\":\"requests/s\"}\n", prefix, v["requests"] / v["duration_us"] * 1e6
    printf "{\"name\":\"%s.per_relay_cpu_second\",\"value\":%f,\"unit\":\"requests/CPU-s\"}\n", prefix, v["requests"] / cpu
    printf "{\"name\":\"%s.latency_p50\",\"value\":%f,\"unit\":\"ms\"}\n", prefix, v["p50_us"] / 1000
    printf "{\"name\":\"%s.latency_p99\",\"value\":%f,\"unit\":\"ms\"}\n", prefix, v["p99_us"] / 1000
    if (store_cpu != "")
      printf "{\"name\":\"%s.store_cpu_per_request\",\"value\":%f,\"unit\":\"µs\"}\n", prefix, store_cpu / v["requests"] * 1e6
  }'
}

# `openssl_p256_speed SUITE COMMAND`: runs `openssl speed ecdsap256` as COMMAND and prints its
# signatures and verifications per second, "SIGN VERIFY"; fails when it printed no such line.
openssl_p256_speed() {
  local speed
  # The result line reads: `256 bits ecdsa (nistp256) 0.0000s 0.0000s SIGN/s VERIFY/s`.
  speed=$($2 2>/dev/null | awk '/ecdsa \(nistp256\)/ { print $(NF-1), $NF }') && [ -n "$speed" ] \
    || { echo "bench $1: $2 failed or printed no nistp256 line" >&2; return 1; }
  echo "$speed"
}
