# Algorithm 1 with busy-poll demotion: on one contended CPU, a worker that
# runs 10 ms and sleeps 1 ms gets more CPU than a busy poller that never
# sleeps, and the poller's demotions are counted.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/poller
ln -sf "$PROBE" /tmp/worker
start_policy testpol /tmp/tp.log "$TP" --pools "sys=0-2 hot=3" --alg1 4 --busy-poll 8 \
	--comm poller=hot --comm worker=hot
/tmp/poller spin 6 >/tmp/poller.out &
/tmp/worker worker 6 10000 1000 >/tmp/worker.out &
sleep 1
assert_attached testpol
wait
note "poller: $(cat /tmp/poller.out)"
note "worker: $(cat /tmp/worker.out)"
assert_cpus_within poller "$(field cpus "$(cat /tmp/poller.out)")" 3
assert_cpus_within worker "$(field cpus "$(cat /tmp/worker.out)")" 3
poll=$(field cpu_ms "$(cat /tmp/poller.out)")
work=$(field cpu_ms "$(cat /tmp/worker.out)")
[ "${work:-0}" -gt "${poll:-0}" ] ||
	fail "the sleepy worker got ${work}ms of CPU, the busy poller ${poll}ms"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
[ "$(field busy_poll_demote "$stats")" -gt 0 ] || fail "no busy-poll demotion: $stats"
note "$stats"
