# Attaching while another scheduler is attached fails with a clear error,
# and does not disturb the attached one.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/first.log "$SCXPOL_BUILD/examples/minimal/minimal"
rc=0
"$SCXPOL_BUILD/examples/minimal/minimal" >/tmp/second.log 2>&1 || rc=$?
[ $rc -ne 0 ] || fail "second loader succeeded while 'minimal' was attached"
grep -q "another sched_ext scheduler is attached (state 'enabled', root/ops 'minimal')" /tmp/second.log ||
	fail "unclear error from the second loader: $(cat /tmp/second.log)"
note "second loader: $(tail -n 1 /tmp/second.log)"
assert_attached minimal
stop_policy INT
expect_eq "first loader exit status" "$POLICY_STATUS" 0
