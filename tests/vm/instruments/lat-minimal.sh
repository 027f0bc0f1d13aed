# Under the minimal sched_ext policy scxpol-lat records the same sleep/wake
# loop the same way: the tracepoints do not depend on the scheduler. A
# ping-pong between two pinned processes wakes remote idle CPUs only, and a
# sched_ext task is never queued on a wake list (minimal does not set
# SCX_OPS_ALLOW_QUEUED_WAKEUP): the waker activates it, so the wake delay
# includes the IPI.
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
note "idle VM: $(idle_share /tmp/lat.json probe)% of the wakeups onto an idle CPU"
[ "$(idle_share /tmp/lat.json probe)" -ge 90 ] ||
	fail "idle VM: only $(idle_share /tmp/lat.json probe)% idle-target wakeups: $(cat /tmp/lat.json)"
start_lat /tmp/pp.json --filter-comm pingx --json
pingpong pingx 200 1 2
stop_lat
mapfile -t v <<<"$(json_eval /tmp/pp.json "g('pingx')['wake']['count']" \
	"g('pingx')['wake_remote']['count']" "g('pingx')['wake_idle']['count']" \
	"g('pingx')['wake_queued']")"
note "ping-pong: ${v[0]} wakeups, ${v[1]} remote, ${v[2]} onto an idle CPU, ${v[3]} queued"
[ "${v[0]}" -ge 200 ] || fail "ping-pong: ${v[0]} wakeups for 200 round trips"
[ $((v[1] * 100)) -ge $((v[0] * 80)) ] || fail "ping-pong: only ${v[1]} of ${v[0]} wakeups remote"
[ $((v[2] * 100)) -ge $((v[0] * 90)) ] || fail "ping-pong: only ${v[2]} of ${v[0]} onto an idle CPU"
expect_eq "ping-pong: wakeups queued on a wake list under sched_ext" "${v[3]}" 0
assert_attached minimal
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
