# CPU hotplug while the minimal policy runs: its ops.cpu_offline/online keep
# it loaded through the event, the library restarts it by itself once the
# event completed (not the kernel during it), and it stays attached.
. "$SCXPOL_SRC/tests/vm/lib.sh"
cpu=/sys/devices/system/cpu/cpu$(($(nproc) - 1))/online
[ -w "$cpu" ] || fail "cannot offline CPUs here ($cpu)"
# (the CPU comes back whatever fails: lib.sh's cleanup_test)
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
seq0=$(cat $SCX/enable_seq)
echo 0 > "$cpu"
# the restart re-enables the scheduler: enable_seq moves on
for ((i = 0; i < 300; i++)); do
	[ "$(cat $SCX/enable_seq)" -gt "$seq0" ] && [ "$(scx_state)" = enabled ] && break
	sleep 0.1
done
assert_attached minimal
[ "$(cat $SCX/enable_seq)" -gt "$seq0" ] || fail "no re-enable after offlining a CPU: $(cat /tmp/minimal.log)"
grep -q "restarting (#1).*: cpu ${cpu//[^0-9]/} went offline\$" /tmp/minimal.log ||
	fail "loader did not log a restart for the offline CPU: $(cat /tmp/minimal.log)"
"$PROBE" spin 1 >/tmp/spin.out
note "after offline: $(cat /tmp/spin.out)"
seq1=$(cat $SCX/enable_seq)
echo 1 > "$cpu"
for ((i = 0; i < 300; i++)); do
	[ "$(cat $SCX/enable_seq)" -gt "$seq1" ] && [ "$(scx_state)" = enabled ] && break
	sleep 0.1
done
assert_attached minimal
grep -q "restarting (#2).*: cpu ${cpu//[^0-9]/} went online\$" /tmp/minimal.log ||
	fail "no restart after onlining: $(cat /tmp/minimal.log)"
! grep -q "exiting scheduler" /tmp/minimal.log ||
	fail "the kernel unloaded the policy during an event: $(cat /tmp/minimal.log)"
kill -0 "$POLICY_PID" || fail "loader died"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
note "$(grep -c restarting /tmp/minimal.log) restarts logged"
