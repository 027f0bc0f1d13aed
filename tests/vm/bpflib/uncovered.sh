# A plan that leaves an online CPU in no pool, under a policy that requires
# every online CPU in a pool (testpol --require-cover: scxpol_pool_require()).
# At the start it is refused with a message naming the CPU, and nothing
# attaches. As a resize while attached it is refused and counted in
# pool_reject, the running plan stays, and its tasks go on running on their
# domain's CPUs.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
want="testpol: pool plan rejected: online CPU 3 is in no pool; the policy requires every online CPU in a pool"
[ "$(nproc)" = 4 ] || fail "this test plans 4 CPUs, the VM has $(nproc)"

rc=0
"$TP" --require-cover --pools "d0=0-1 d1=2" >/tmp/tpu0.log 2>&1 || rc=$?
expect_eq "testpol exit status, uncovered plan at the start" "$rc" 1
grep -qF "$want" /tmp/tpu0.log || fail "want '$want' in: $(cat /tmp/tpu0.log)"
expect_eq "state after the refused start" "$(scx_state)" disabled
note "$(grep -F "$want" /tmp/tpu0.log)"

ln -sf "$PROBE" /tmp/d1spin
start_policy testpol /tmp/tpu.log "$TP" --require-cover --pools "d0=0-1 d1=2-3" \
	--resize "d0=0-1" --comm d1spin=d1
kill -USR1 "$POLICY_PID"
for ((i = 0; i < 100; i++)); do
	grep -q '^testpol: resize refused' /tmp/tpu.log && break
	sleep 0.1
done
expect_eq "refused resize" "$(grep '^testpol: resize refused' /tmp/tpu.log)" \
	"testpol: resize refused: ${want/CPU 3 is/CPUs 2-3 are}"
/tmp/d1spin spin 3 >/tmp/d1.out &
wait $!
assert_cpus_within "d1 task after the refused resize" "$(field cpus "$(cat /tmp/d1.out)")" 2-3
note "d1 task: $(cat /tmp/d1.out)"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tpu.log | tail -n 1)
expect_eq "pool_reject" "$(field pool_reject "$stats")" 1
expect_eq "pool_commit" "$(field pool_commit "$stats")" 1
expect_eq "generation" "$(grep '^testpol: generation' /tmp/tpu.log | tail -n 1)" \
	"testpol: generation 1"
grep -q '^testpol: pool d1 cpus=2-3 nr_cpus=2 ' /tmp/tpu.log ||
	fail "the published table does not show d1 on 2-3: $(cat /tmp/tpu.log)"
