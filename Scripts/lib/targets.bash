# The test-target loop of Scripts/test and Scripts/sanitize; source it after watchdog.bash.
#
# `test_each_target SECONDS [SWIFT_TEST_OPTION…] -- [FILTER…]` runs each filter (by default
# each test target, `^Target\.`) once in its own `swift test --skip-build --no-parallel
# SWIFT_TEST_OPTION… --filter FILTER` process under the hang watchdog, allowed SECONDS, and
# returns at the first that fails with its status.
test_each_target() {
  local timeout=$1 options=() filters=() target filter
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
  [ $# -eq 0 ] || shift
  filters=("$@")
  if [ ${#filters[@]} -eq 0 ]; then
    for target in $(cd Tests && ls -d *Tests); do filters+=("^${target}\."); done
  fi
  for filter in "${filters[@]}"; do
    watch_for_hang "$timeout" "$filter" "${PRIVATE_MOUNTS[@]}" \
      swift test --skip-build --no-parallel "${options[@]}" --filter "$filter" || return
  done
}
