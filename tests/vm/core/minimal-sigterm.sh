# SIGTERM detaches like SIGINT, and the exit reason is reported.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
stop_policy TERM
expect_eq "loader exit status" "$POLICY_STATUS" 0
grep -q '^minimal: exit UNREG (unregistered from user space)$' /tmp/minimal.log ||
	fail "no exit reason after SIGTERM: $(cat /tmp/minimal.log)"
