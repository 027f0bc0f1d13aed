# Kernel threads bound to one CPU (kworkers) go to that CPU's local DSQ
# (kthread_local), not behind a domain's backlog: a kworker holding
# cgroup_mutex there held up every cgroup mkdir, rmdir and fork into a
# cgroup. Eight 2 s CPU bursts all go to d0 (capacity 100: IAT hashing
# scans from d0 and always finds room there), 4 per CPU, while a SCHED_FIFO
# loop on d0's CPUs (as the faas control plane) creates and removes 100
# cgroups (each removal queues work on that CPU's kworker). No user task
# here is pinned to one CPU, so only a kernel thread that used
# SCXPOL_POOL_KTHREAD_SLICES slices in a row goes through the per-CPU
# queues of pinned tasks: dispatch_pinned stays below a tenth of
# kthread_local, the bound kernel threads queued first (any CPU's); before,
# every kworker went there (596-932). Both count for as long as the
# bursts run, which a slow host stretches, so the test compares them.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
trace=/tmp/kt-burst.csv
echo "function,arrival_ms,duration_ms,kind" >$trace
for i in 0 1 2 3 4 5 6 7; do echo "burst$i,$((i * 10)),2000,cpu" >>$trace; done

start_faas --domains 2
d0=$(domain_cpus 0)
local0=$(counter kthread_local)
pinned0=$(counter dispatch_pinned)
replay kthreads --trace $trace --domains 2 --capacity 100 &
replay_pid=$!
# wait until every burst runs in its cgroup (the replay prepares each
# cgroup ahead of its arrival), for as long as the replay lives. Builtins
# only (as paper.sh): with the bursts spinning on a loaded host, a look
# that forked nine processes took 11 to 27 s of the guest's time, and the
# bursts' 10 s went by between two looks.
# running VAR: VAR = the number of the replay's cgroups with a process in them
running() {
	local -n _n=$1
	local f p
	_n=0
	for f in /sys/fs/cgroup/faas-kthreads/inv-*/cgroup.procs; do
		p=
		read -r p 2>/dev/null <"$f"
		[ -n "$p" ] && _n=$((_n + 1))
	done
}
most=0
for ((;;)); do
	running n
	[ "$n" -gt "$most" ] && most=$n
	[ "$n" -ge 8 ] && break
	kill -0 $replay_pid 2>/dev/null ||
		fail "the replay ended before its 8 bursts ran at once (at most $most seen):" \
			"$(cat /tmp/kthreads.out)"
	nap 0.1
done
start=$(date +%s%N)
taskset -c "$d0" chrt -f 1 bash -c 'for ((i = 0; i < 100; i++)); do
	mkdir /sys/fs/cgroup/kt-probe && rmdir /sys/fs/cgroup/kt-probe || exit 1
done' || fail "the cgroup loop on d0's CPUs $d0 failed"
loop_ms=$((($(date +%s%N) - start) / 1000000))
wait $replay_pid || fail "faas-replay failed: $(cat /tmp/kthreads.out)"
assert_attached faas
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/kthreads.csv /tmp/kthreads.out 8 2 \
	/sys/fs/cgroup/faas-kthreads || exit 1
expect_eq "invocations in d0" "$(rows /tmp/kthreads.csv '$4 == 0')" 8
local=$(($(counter kthread_local) - local0))
pinned=$(($(counter dispatch_pinned) - pinned0))
[ "$local" -gt 0 ] || fail "kthread_local did not grow while kworkers ran"
[ $((pinned * 10)) -lt "$local" ] ||
	fail "dispatch_pinned +$pinned, kthread_local +$local: kernel threads went through" \
		"the pinned tasks' queues"
note "100 cgroup mkdir+rmdir on d0 ($d0) under 8 bursts in d0: ${loop_ms} ms;" \
	"kthread_local +$local, dispatch_pinned +$pinned"
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0
