# A SIGINT sent before the run loop took over (here: pending from the exec
# on, as for a script that signals on reading "attached") stops the policy
# in order: it attaches, detaches, reports the exit and exits 0, rather
# than being lost (a blocked one) or killing the loader while attached.
# It detaches too soon to sample state and root/ops while attached: the
# kernel's enable_seq (one more enable) and the exit record the BPF side
# wrote (UNREG) show the scheduler was really enabled.
. "$SCXPOL_SRC/tests/vm/lib.sh"
seq0=$(cat $SCX/enable_seq)
python3 - "$SCXPOL_BUILD/examples/minimal/minimal" >/tmp/early.log 2>&1 <<'PY' &
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
os.kill(os.getpid(), signal.SIGINT)
os.execv(sys.argv[1], sys.argv[1:])
PY
pid=$!
for ((i = 0; i < 300; i++)); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $pid 2>/dev/null; then
	kill -TERM $pid
	fail "the loader did not stop on the pending SIGINT: $(cat /tmp/early.log)"
fi
wait $pid
expect_eq "loader exit status" "$?" 0
grep -q '^minimal: attached' /tmp/early.log || fail "never attached: $(cat /tmp/early.log)"
grep -q '^minimal: exit UNREG (unregistered from user space)$' /tmp/early.log ||
	fail "no orderly exit: $(cat /tmp/early.log)"
expect_eq "sched_ext state" "$(scx_state)" disabled
expect_eq "enable_seq (one attach)" "$(cat $SCX/enable_seq)" $((seq0 + 1))
