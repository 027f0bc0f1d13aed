# Algorithm 1 (reset every 50 enqueues) with busy-poll demotion: on one
# contended CPU, a worker that runs 10 ms and sleeps 1 ms rarely waits
# behind a busy poller that never sleeps, while the poller waits whenever
# the worker runs: per ms of CPU each got, the worker waited less on the
# run queue than the poller (the kernel's schedstat run-queue wait, so slow
# sleeps in an emulator do not matter). The poller's demotions are counted.
# The worker's runs (2 slices) stay far below the busy-poll threshold (20
# full slices without sleeping).
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/poller
ln -sf "$PROBE" /tmp/worker
start_policy testpol /tmp/tp.log "$TP" --pools "sys=0-2 hot=3" --alg1 50 --busy-poll 20 \
	--comm poller=hot --comm worker=hot
/tmp/poller spin 6 >/tmp/poller.out &
pids=($!)
/tmp/worker worker 6 10000 1000 >/tmp/worker.out &
pids+=($!)
assert_attached testpol
wait "${pids[@]}"
note "poller: $(cat /tmp/poller.out)"
note "worker: $(cat /tmp/worker.out)"
assert_cpus_within poller "$(field cpus "$(cat /tmp/poller.out)")" 3
assert_cpus_within worker "$(field cpus "$(cat /tmp/worker.out)")" 3
pc=$(field cpu_ms "$(cat /tmp/poller.out)")
pw=$(field wait_ms "$(cat /tmp/poller.out)")
wc=$(field cpu_ms "$(cat /tmp/worker.out)")
ww=$(field wait_ms "$(cat /tmp/worker.out)")
[ "${pc:-0}" -gt 0 ] && [ "${wc:-0}" -gt 0 ] || fail "a task got no CPU (poller ${pc}ms, worker ${wc}ms)"
# ww / wc < pw / pc
[ $((ww * pc)) -lt $((pw * wc)) ] ||
	fail "the worker waited ${ww}ms for ${wc}ms of CPU, the poller ${pw}ms for ${pc}ms"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
[ "$(field busy_poll_demote "$stats")" -gt 0 ] || fail "no busy-poll demotion: $stats"
note "$stats"
