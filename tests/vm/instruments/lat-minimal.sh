# Under the minimal sched_ext policy scxpol-lat records the same sleep/wake
# loop the same way: the tracepoints do not depend on the scheduler.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
assert_attached minimal
start_lat /tmp/lat.json --filter-comm probe --json
"$PROBE" sleepwake 2 1000 >/tmp/sw.out &
sw=$!
# every task is in the ext class from fork on
in_ext $sw || fail "probe $sw is not in the ext class: $(grep ext /proc/$sw/sched)"
wait $sw
stop_lat
assert_attached minimal
mapfile -t v <<<"$(json_eval /tmp/lat.json 'd["scheduler"]["start"]' 'd["scheduler"]["end"]')"
expect_eq "scheduler at start" "${v[0]}" minimal
expect_eq "scheduler at end" "${v[1]}" minimal
check_wakeups /tmp/lat.json probe "$(field wakeups "$(cat /tmp/sw.out)")"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
