# The minimal policy attaches, SIGINT detaches, the loader reports why and
# who sent the signal.
. "$SCXPOL_SRC/tests/vm/lib.sh"
expect_eq "state before" "$(scx_state)" disabled
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
assert_attached minimal
sleep 1
assert_attached minimal
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
expect_eq "state after SIGINT" "$(scx_state)" disabled
grep -q '^minimal: exit UNREG (unregistered from user space)$' /tmp/minimal.log ||
	fail "loader did not print the exit reason: $(cat /tmp/minimal.log)"
grep -qx "libscxpol: info: minimal: stopping on SIGINT from pid $$ (bash)" /tmp/minimal.log ||
	fail "the log does not name the signal's sender (pid $$): $(cat /tmp/minimal.log)"
