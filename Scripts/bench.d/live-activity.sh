# Live Activity: one refresh tick of the host's Live Activity engine (`pushgate-dev bench
# live-activity`) over LIVE_ACTIVITY_TOKENS tokens of 4 rows: unchanged, 1 % changed, after a
# reload, and with no tokens; FEW_ROUNDS rounds, each a fresh process and store.
suite_live-activity() {
  local command="$TOOL bench live-activity --tokens $LIVE_ACTIVITY_TOKENS --changed-percent 1 --ticks $LIVE_ACTIVITY_TICKS"
  local round
  setting tokens "$LIVE_ACTIVITY_TOKENS"
  setting ticks "$LIVE_ACTIVITY_TICKS"
  text intro TOKENS="$(grouped "$LIVE_ACTIVITY_TOKENS")" TICKS="$LIVE_ACTIVITY_TICKS" ROUNDS="$FEW_ROUNDS" <<'EOF_TEXT'
One refresh tick of the host's Live Activity engine (`LiveActivityEngine`, docs/live-activities.md)
over $TOKENS Live Activity tokens of 4 rows each: each token shows its own session and 3 of
30 shared ones, every session is `busy` and every row `working`, so an unchanged tick finds
nothing to change. Real engine, real SQLite store (`host.sqlite` in a temporary directory,
WAL; tick writes commit with `synchronous=NORMAL`, as in the running host); instead of the
relay, a transport that builds and signs every request body exactly as the relay transport
does (`RelayRequestSigner`, P-256) and accepts every token, so the figures are the host's own
work without the network. CPU time is the whole process (`getrusage`, user + system, every
thread: the store runs on its own queue) around one awaited tick; a round's figure is the
median over its $TICKS ticks (the reload: over 3). $ROUNDS rounds, each a fresh process and
store (filling it is most of a round's time); **met?** judges every round, or for a time the
median of the rounds.
EOF_TEXT
  text outro <<'EOF_TEXT'
Where an unchanged tick goes (a `perf record` of 200 ticks, taken by hand): for each of the
rows one dictionary lookup of its session's state (hashing the session id) and the
retain/release of the row's strings; the store costs one `SELECT revision`. A changed tick
adds, per changed token, its rows' JSON and one signed request (one per changed token here, as
every changed token shows different rows; tokens showing the same rows share a request), and
two write transactions per tick (the `live` event version, then the accepted rows). A reload
(the revision moved because another process, such as `import-openchamber`, wrote the table)
parses every stored snapshot once; this host's own writes never cause one.
EOF_TEXT
  facts "$command ($FEW_ROUNDS times)"
  for ((round = 1; round <= FEW_ROUNDS; round++)); do
    at_round "$round"
    echo "bench live-activity: round $round/$FEW_ROUNDS: $command" >&2
    $command | figures
  done
}
