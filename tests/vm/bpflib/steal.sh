# Work stealing: with three tasks in STEAL domain d0 (two CPUs) and none in
# d1, d1's idle CPUs steal d0's queued work: a d0 task is seen on d1's CPUs
# and dispatch_steal counts it. A d0 task that sleeps and wakes meanwhile
# finds d0 busy and, whenever d0's queue is empty, goes straight to an idle
# d1 CPU at its wakeup (steal_idle).
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/d0spin
start_policy testpol /tmp/tp.log "$TP" --pools "d0=0-1 d1=2-3" --flags steal --comm d0spin=d0
pids=()
for i in 1 2 3; do
	/tmp/d0spin spin 4 >/tmp/d0-$i.out &
	pids+=($!)
done
/tmp/d0spin sleepwake 3 2000 >/tmp/d0-wake.out &
pids+=($!)
assert_attached testpol
wait "${pids[@]}"
note "d0 sleeper: $(cat /tmp/d0-wake.out)"
seen=
for i in 1 2 3; do
	c=$(field cpus "$(cat /tmp/d0-$i.out)")
	[ -n "$c" ] || fail "d0 task $i reported no CPUs: $(cat /tmp/d0-$i.out)"
	seen=$seen${seen:+,}$c
	note "d0 task $i: $(cat /tmp/d0-$i.out)"
done
cpus_meet "$seen" 2-3 || fail "no d0 task ran on d1's idle CPUs 2-3 (cpus=$seen)"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
[ "$(field dispatch_steal "$stats")" -gt 0 ] || fail "dispatch_steal is 0: $stats"
[ "$(field steal_idle "$stats")" -gt 0 ] || fail "steal_idle is 0: $stats"
note "$stats"
