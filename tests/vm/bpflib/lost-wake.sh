# Lost wakeups: testpol --lose-wakes 0 places every wakeup of a pool's task
# on CPU 0 without inserting it, and queues it on its pool waking no CPU, as
# an enqueue that read a stale idle mask does. The task under test is in d1
# (CPUs 2-3), every other task in d0 (--rest d0), whose CPU 0 the kernel
# wakes for them: nothing but the library's watch wakes CPU 2 or 3 for d1's
# task. The task sleeps 20 ms and works 100 us in a loop: it must keep
# running, on d1's CPUs only (sampled from its first wakeup as lostwake
# on: the exec that names it calls no scheduler callback, see probe.c's
# first_wakeup()), the watch's kicks counted (watch_kick), and the
# scheduler must stay attached. Its inserts bypass scxpol_pool_enqueue()
# and so the queue's pending count, which dispatch would trust: the watch
# must find the task there and raise the count (pending_repair). (Built
# without the watch, its first lost wakeup waited 30 s and the kernel's
# watchdog ejected testpol: "lostwake[144] failed to run for 30.188s".)
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
[ "$(nproc)" = 4 ] || fail "this test plans 4 CPUs, the VM has $(nproc)"
ln -sf "$PROBE" /tmp/lostwake
# every other task in d0: one woken on CPU 2 or 3 would wake d1's task too
start_policy testpol /tmp/tplw.log "$TP" --pools "d0=0-1 d1=2-3" --comm lostwake=d1 \
	--rest d0 --lose-wakes 0
rc=0
timeout 60 /tmp/lostwake worker 3 100 20000 >/tmp/lw.out || rc=$?
expect_eq "worker exit status" "$rc" 0
res=$(cat /tmp/lw.out)
note "lost-wake task: $res"
wakeups=$(field cycles "$res")
assert_cpus_within "lost-wake task" "$(field cpus "$res")" 2-3
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tplw.log | tail -n 1)
note "$stats"
kicks=$(field watch_kick "$stats")
[ "$wakeups" -ge 10 ] || fail "only $wakeups wakeups in 3 s of 20 ms sleeps: $res"
[ "$kicks" -ge $((wakeups / 2)) ] || fail "watch_kick $kicks for $wakeups lost wakeups: $stats"
[ "$(field pending_repair "$stats")" -ge 1 ] || fail "no pending_repair for an uncounted queue: $stats"
