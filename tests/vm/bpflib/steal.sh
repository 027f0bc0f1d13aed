# Work stealing, in STEAL domains d0 (CPUs 0-1) and d1 (CPUs 2-3).
# 1. Three tasks in d0 and none in d1: d1's idle CPUs steal d0's queued
#    work; a d0 task is seen on CPUs 2-3 and dispatch_steal counts it.
# 2. Two d0 tasks pinned to CPUs 0 and 1 keep d0 busy with its queue empty
#    (pinned tasks wait on their CPU's own queue): a d0 task that sleeps
#    and wakes goes straight to an idle d1 CPU at its wakeup (steal_idle).
#    Unpinned, the spinners of step 1 may settle on d1 and leave a d0 CPU
#    idle for the sleeper, so this step pins them.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/d0spin
start_policy testpol /tmp/tp.log "$TP" --pools "d0=0-1 d1=2-3" --flags steal --comm d0spin=d0
pids=()
for i in 1 2 3; do
	/tmp/d0spin spin 4 >/tmp/d0-$i.out &
	pids+=($!)
done
assert_attached testpol
wait "${pids[@]}"
seen=
for i in 1 2 3; do
	c=$(field cpus "$(cat /tmp/d0-$i.out)")
	[ -n "$c" ] || fail "d0 task $i reported no CPUs: $(cat /tmp/d0-$i.out)"
	seen=$seen${seen:+,}$c
	note "d0 task $i: $(cat /tmp/d0-$i.out)"
done
cpus_meet "$seen" 2-3 || fail "no d0 task ran on d1's idle CPUs 2-3 (cpus=$seen)"
kill -USR2 "$POLICY_PID"
for ((i = 0; i < 100; i++)); do
	[ "$(grep -c '^testpol: stats' /tmp/tp.log)" -gt 0 ] && break
	sleep 0.1
done
stats1=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
[ -n "$stats1" ] || fail "no stats after SIGUSR2: $(cat /tmp/tp.log)"
note "step 1: $stats1"
[ "$(field dispatch_steal "$stats1")" -gt 0 ] || fail "dispatch_steal is 0: $stats1"

pids=()
for c in 0 1; do
	taskset -c $c /tmp/d0spin spin 4 >/tmp/d0-pin$c.out &
	pids+=($!)
done
sleep 0.5
/tmp/d0spin sleepwake 3 2000 >/tmp/d0-wake.out &
pids+=($!)
wait "${pids[@]}"
for c in 0 1; do
	expect_eq "cpus of the d0 task pinned to $c" "$(field cpus "$(cat /tmp/d0-pin$c.out)")" $c
done
note "d0 sleeper: $(cat /tmp/d0-wake.out)"
cpus_meet "$(field cpus "$(cat /tmp/d0-wake.out)")" 2-3 ||
	fail "the d0 sleeper never ran on d1's idle CPUs 2-3: $(cat /tmp/d0-wake.out)"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
note "step 2: $stats"
[ "$(field steal_idle "$stats")" -gt "$(field steal_idle "$stats1")" ] ||
	fail "steal_idle did not grow in step 2: $(field steal_idle "$stats1") -> $(field steal_idle "$stats")"
