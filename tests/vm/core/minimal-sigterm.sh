# SIGTERM detaches like SIGINT, and the exit reason is reported, with the
# process that sent the signal.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
assert_attached minimal
stop_policy TERM
expect_eq "loader exit status" "$POLICY_STATUS" 0
grep -q '^minimal: exit UNREG (unregistered from user space)$' /tmp/minimal.log ||
	fail "no exit reason after SIGTERM: $(cat /tmp/minimal.log)"
# (kill is a builtin: this shell sent it)
grep -qx "libscxpol: info: minimal: stopping on SIGTERM from pid $$ (bash)" /tmp/minimal.log ||
	fail "the log does not name the signal's sender (pid $$): $(cat /tmp/minimal.log)"
