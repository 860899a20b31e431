# PostgreSQL: register-token on a dry-run relay with DATABASE_URL pointing at a private
# PostgreSQL server (start_postgres), alternating with a SQLite-file relay, FEW_ROUNDS rounds.
suite_postgres() {
  local bodies=$WORK/postgres-bodies.txt round database
  local count=$((POSTGRES_SECONDS * 20000))
  local presign_command="$TOOL bench relay-presign --count $count --out $bodies"
  local wrk_command="wrk -t1 -c64 -d${POSTGRES_SECONDS}s -s register.lua http://127.0.0.1:PORT"
  text intro SECONDS="$POSTGRES_SECONDS" ROUNDS="$FEW_ROUNDS" <<'EOF_TEXT'
`register-token` on a relay whose store is PostgreSQL (`DATABASE_URL`, docs/store.md) next
to the same relay on a SQLite file, in the same rounds. The method of the relay section:
`pushgate-relay --dry-run` (release build) with the same raised limits, `wrk` (1 thread, 64
keep-alive connections, $SECONDS s) posting pre-signed register-token bodies, each once (signed
just before each round), every answer 2xx. PostgreSQL is a private server this script starts
in its temporary directory, as the tests' `PostgreSQLTestServer` does (`initdb` with trust
authentication; as root, `initdb` and `postgres` run as the `postgres` account through
`setpriv`; `fsync` and `synchronous_commit` at their defaults, on), on the same machine;
the relay connects over TCP to 127.0.0.1, to a fresh database each round. Relay CPU per
register is the relay process's CPU over the load; PostgreSQL CPU per register is that of
the server's processes (postmaster, its backends and helpers, ended ones included). Each
round runs PostgreSQL, then SQLite; $ROUNDS rounds.
EOF_TEXT
  text outro <<'EOF_TEXT'
A register costs the PostgreSQL path about six statement round trips on two connections
(replay set: look the key up, insert it; bindings: refresh, count, count a new token, insert)
plus a shared `BEGIN`/lock/`COMMIT` per group, and the binding writes of all instances take
turns under one advisory lock (docs/store.md), so on a busy machine the writer connection's
round trips are the limit, not the signature checks. The relay, `wrk` and PostgreSQL share
the machine's cores; the CPU per register is the steadier figure.
EOF_TEXT
  start_postgres
  local launcher="${PG_LAUNCHER[*]}${PG_LAUNCHER[*]:+ }"
  facts "$launcher$PG_BIN/initdb -D $PG_DIR/data -U pushgate --auth=trust --no-sync --locale=C --encoding=UTF8" \
    "$launcher$PG_BIN/postgres -D $PG_DIR/data -p PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_buffers=32MB" \
    "$presign_command (each round)" \
    "$PG_BIN/createdb -h $PG_DIR -p PORT -U pushgate bench_N (each round)" \
    "$BIN/pushgate-relay --dry-run --port 0 --database-url postgres://pushgate@127.0.0.1:PORT/bench_N ${RELAY_LIMITS[*]}" \
    "$BIN/pushgate-relay --dry-run --port 0 --database-path $WORK/postgres-N.sqlite ${RELAY_LIMITS[*]}" \
    "$wrk_command (against each relay)"
  fact PostgreSQL "$("$PG_BIN/postgres" --version)"
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    at_round "$round"
    echo "bench postgres: round $round/$FEW_ROUNDS: $presign_command" >&2
    "$TOOL" bench relay-presign --count "$count" --out "$bodies" >/dev/null
    database=bench_$round
    "$PG_BIN/createdb" -h "$PG_DIR" -p "$PG_PORT" -U pushgate "$database"
    echo "bench postgres: round $round/$FEW_ROUNDS: register-token on PostgreSQL ($database)" >&2
    STORE_PID=$PG_PID register_with_wrk postgres.pg "$bodies" "$POSTGRES_SECONDS" \
      --database-url "postgres://pushgate@127.0.0.1:$PG_PORT/$database"
    echo "bench postgres: round $round/$FEW_ROUNDS: register-token on a SQLite file" >&2
    register_with_wrk postgres.sqlite "$bodies" "$POSTGRES_SECONDS" --database-path "$WORK/postgres-$round.sqlite"
  done
  stop_server "$PG_PID" QUIT
}

# Starts a private PostgreSQL server in $WORK/postgres as the tests' PostgreSQLTestServer does:
# a fresh cluster (trust authentication for the role `pushgate`), listening on 127.0.0.1 at a
# free port and on a unix socket in that directory; as root, initdb and postgres run as the
# `postgres` account through setpriv (they refuse to run as root), with a parent-death signal.
# Sets PG_BIN, PG_DIR, PG_PORT, PG_PID and PG_LAUNCHER. Stop it with `stop_server "$PG_PID" QUIT`.
start_postgres() {
  local initdb tries account uid gid
  initdb=$(command -v initdb || true)
  PG_BIN=
  [ -z "$initdb" ] || PG_BIN=$(dirname "$(realpath "$initdb")")
  if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/postgres" ] || [ ! -x "$PG_BIN/createdb" ]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  fi
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/postgres" ] && [ -x "$PG_BIN/createdb" ] \
    || { echo "bench postgres: no PostgreSQL server binaries (Scripts/bootstrap installs them)" >&2; exit 1; }
  PG_DIR=$WORK/postgres
  PG_LAUNCHER=()
  mkdir "$PG_DIR"
  if [ "$(id -u)" = 0 ]; then
    account=$(getent passwd postgres) \
      || { echo "bench postgres: running as root, and there is no postgres account to run the server as" >&2; exit 1; }
    command -v setpriv >/dev/null || { echo "bench postgres: running as root, and setpriv (util-linux) is missing" >&2; exit 1; }
    IFS=: read -r _ _ uid gid _ <<<"$account"
    PG_LAUNCHER=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --pdeathsig TERM --)
    chown "$uid:$gid" "$PG_DIR"
    chmod o+x "$WORK"   # mktemp -d makes it 0700; the postgres account must reach its directory
  elif command -v setpriv >/dev/null; then
    PG_LAUNCHER=(setpriv --pdeathsig TERM --)
  fi
  echo "bench postgres: initdb in $PG_DIR" >&2
  env -i -C "$PG_DIR" LC_ALL=C PATH=/usr/bin:/bin "${PG_LAUNCHER[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U pushgate \
    --auth=trust --no-sync --locale=C --encoding=UTF8 >"$WORK/initdb.log" 2>&1 \
    || { echo "bench postgres: initdb failed:" >&2; tail -n 20 "$WORK/initdb.log" >&2; exit 1; }
  PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  env -i -C "$PG_DIR" LC_ALL=C PATH=/usr/bin:/bin "${PG_LAUNCHER[@]}" "$PG_BIN/postgres" -D "$PG_DIR/data" -p "$PG_PORT" \
    -k "$PG_DIR" -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_buffers=32MB >"$WORK/postgres.log" 2>&1 &
  PG_PID=$!
  STARTED+=("$PG_PID")
  for ((tries = 0; tries < 1200; tries++)); do
    grep -q "ready to accept connections" "$WORK/postgres.log" && return 0
    kill -0 "$PG_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "bench postgres: the server did not start:" >&2
  tail -n 20 "$WORK/postgres.log" >&2
  exit 1
}
