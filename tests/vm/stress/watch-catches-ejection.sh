# The checks the stress tests rely on catch an ejection: sysrq-S disables
# the policy mid-run (as the watchdog would, minus the error), and both the
# 0.5 s attachment sampler and the enable_seq comparison must then fail, with
# a message naming the policy. Without this, "stayed attached" could pass by
# never looking.
. "$(dirname "$0")/common.inc"
load_policies
policy_start "${POLICIES[0]}"
watch_start
wl_start hogs 4
nap 1
echo S >/proc/sysrq-trigger
wait_state disabled 20
wl_wait
status=0
wait "$POLICY_PID" || status=$?
grep -q "exit SYSRQ" "$P_LOG" || fail "$P_NAME: the loader did not report the sysrq exit: $(cat "$P_LOG")"
rc=0
(watch_stop) 2>/tmp/watch.err || rc=$?
WATCH_PID=
[ $rc -ne 0 ] || fail "the sampler missed the ejection: $(cat "$WATCH")"
grep -q "^FAIL: $P_NAME not attached in [1-9][0-9]* of [0-9]* samples" /tmp/watch.err ||
	fail "unexpected sampler message: $(cat /tmp/watch.err)"
# a detach and a new attach between two samples still moves enable_seq
seq0=$P_SEQ
policy_start "${POLICIES[0]}"
[ "$P_SEQ" -gt "$seq0" ] || fail "enable_seq $P_SEQ after a new attach, was $seq0"
policy_stop
caught=$(head -n 1 /tmp/watch.err)
caught=${caught#FAIL: }
note "$P_NAME: the sampler reported \"${caught%%; loader:*}\"; loader exit status $status;" \
	"enable_seq $seq0 -> $P_SEQ on the next attach"
