# The two ways the kernel ejects a policy on its own: the policy calls
# scx_bpf_error() (testpol --error-comm: when a task of that name is
# enqueued), and the watchdog finds a runnable task that no CPU ran for
# the timeout (--stall-comm: tasks of that name go to a DSQ no CPU takes).
# The library's --timeout-ms 2000 makes the watchdog act within seconds.
# Each time the loader exits 1 and prints the kind, reason and message
# the kernel gave, the task the policy mistreated runs to its end in the
# fair class, and the policy attaches again when started again.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/errorme
ln -sf "$PROBE" /tmp/stallme

# ejected KIND LOG TASK_OUT: the loader of POLICY_PID ended on KIND, and TASK ran after it
ejected() {
	local kind=$1 log=$2 out=$3
	wait_state disabled 60
	POLICY_STATUS=0
	wait "$POLICY_PID" || POLICY_STATUS=$?
	POLICY_PID=
	expect_eq "loader exit status after $kind" "$POLICY_STATUS" 1
	grep -q "^testpol: exit $kind (" "$log" || fail "no 'exit $kind' line: $(cat "$log")"
	grep -q "^error: testpol: scheduler stopped on error $kind" "$log" ||
		fail "no error line for $kind: $(cat "$log")"
	[ "$(field iters "$(cat "$out")")" -gt 0 ] ||
		fail "the task did not run after the ejection: $(cat "$out")"
	note "$(grep "^testpol: exit $kind" "$log")"
}

# again: the policy attaches again after an ejection, and detaches cleanly
again() {
	start_policy testpol /tmp/tp-again.log "$TP"
	assert_attached testpol
	stop_policy INT
	expect_eq "loader exit status of the attach after an ejection" "$POLICY_STATUS" 0
}

start_policy testpol /tmp/tp-err.log "$TP" --error-comm errorme
assert_attached testpol
/tmp/errorme spin 2 >/tmp/errorme.out
ejected ERROR_BPF /tmp/tp-err.log /tmp/errorme.out
grep -q "testpol: errorme\[[0-9]*\] enqueued: the error --error-comm asks for" /tmp/tp-err.log ||
	fail "the loader did not report the policy's message: $(cat /tmp/tp-err.log)"
again
progress "scx_bpf_error: ejected, reported, attached again"

expect_stall begin
start_policy testpol /tmp/tp-stall.log "$TP" --stall-comm stallme --timeout-ms 2000
assert_attached testpol
/tmp/stallme spin 2 >/tmp/stallme.out &
stall_pid=$!
wait_state disabled 60
wait "$stall_pid"
expect_stall end
ejected ERROR_STALL /tmp/tp-stall.log /tmp/stallme.out
# (the exit line and the error line both quote the kernel's message)
stalled=$(sed -n "s/.*stallme\[$stall_pid\] failed to run for \([0-9]*\)\.[0-9]*s.*/\1/p" \
	/tmp/tp-stall.log | head -n 1)
[ -n "$stalled" ] || fail "the loader did not report the stalled task: $(cat /tmp/tp-stall.log)"
# --timeout-ms 2000, not the kernel's 30 s (the watchdog checks every half timeout)
[ "$stalled" -lt 10 ] || fail "stalled ${stalled} s before the watchdog acted: --timeout-ms ignored?"
again
progress "watchdog: ejected, reported, attached again"
