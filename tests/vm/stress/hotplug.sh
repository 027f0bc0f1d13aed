# CPU hotplug under the mixed workload, for each policy: cycles of offlining
# then onlining a CPU (never CPU 0, a different one each time while there
# are): 1 at CI's 10 s (its two steps already restart a restarted policy),
# SCXPOL_STRESS_SECS / 6 for longer runs (10 in a soak), or
# SCXPOL_STRESS_HOTPLUG_CYCLES. The policy's ops.cpu_online/
# ops.cpu_offline keep it loaded through each event; once the event has
# completed, the loader restarts it by itself (enable_seq advances, it logs
# "restarting (#N) ...: cpu N went offline") and it is attached again,
# re-planned; the kernel never unloads it for the event.
# After each step no runnable task is left on an offline CPU and every worker
# progresses; at the end every worker finished and the policy detaches
# cleanly. (Each restart loads the policy again, libbpf's relocations and
# the verifier: with the workload running beside it, 109-117 s per
# restart for ads in a CI run on 6.12, in the emulated guest. So the
# workload is stopped from the end of each event to the attach (PAUSE,
# hotplug_restart()); the sigkill test restarts under load. The restarts
# set the number of cycles and the time limit.)
# time limit: 600 s
. "$(dirname "$0")/common.inc"
# (On Linux 6.12 the kernel itself warns in deadline.c when a CPU goes
# offline under sched_ext; scripts/vm-run reports that known 6.12.y warning
# without failing the boot.)
CYCLES=${SCXPOL_STRESS_HOTPLUG_CYCLES:-$((STRESS_SECS / 6 > 1 ? STRESS_SECS / 6 : 1))}
[[ $CYCLES =~ ^[1-9][0-9]{0,3}$ ]] || fail "SCXPOL_STRESS_HOTPLUG_CYCLES '$CYCLES' is not a number of cycles"
WL_HOTPLUG=1
PAUSE=1
cpus=()
for f in $CPUS/cpu[1-9]*/online; do
	[ -w "$f" ] && cpus+=("$(basename "$(dirname "$f")")")
done
[ ${#cpus[@]} -gt 0 ] || fail "no CPU can go offline here ($(ls $CPUS))"
# time under the workload after each restart, in which every worker must
# progress (an emulated guest needs seconds for that under this load)
gap=$((STRESS_SECS / 10 > 3 ? STRESS_SECS / 10 : 3))

# step CPU VALUE: write VALUE to CPU's online file; wait for the restart
step() {
	hotplug_restart "$1" "$2"
	# (as it goes: a test that times out shows how far it got)
	note "$P_NAME: $1 online=$2: re-attached after $RESTART_SECS s"
	assert_placed "after $1 online=$2"
	kv RUNNABLE runnable "$SNAP"
	nap "$gap"
	assert_progress "after $1 online=$2"
	STEPS=$((STEPS + 1))
}

load_policies
for line in "${POLICIES[@]}"; do
	kmsg_mark
	policy_start "$line"
	seq0=$P_SEQ
	# long enough for every step to take its longest; ended once the cycles are done
	wl_start mix $((CYCLES * 2 * (RESTART_MAX + gap + 30) + 600))
	STEPS=0
	used=()
	for ((c = 0; c < CYCLES; c++)); do
		cpu=${cpus[c % ${#cpus[@]}]}
		used+=("$cpu")
		step "$cpu" 0
		step "$cpu" 1
	done
	wl_end
	wl_wait
	assert_attached "$P_OPS"
	# (each step asserted its own restart and re-enable)
	count_in restarts "$P_LOG" 'restarting (#'
	note "$P_NAME: $restarts restarts for $STEPS hotplug steps"
	policy_stop
	kmsg_check
	while read -r r; do note "$P_NAME hotplug: $r"; done <<<"$WL_REPORT"
	note "$P_NAME hotplug: $CYCLES cycles over ${used[*]}, $STEPS steps, $restarts restarts," \
		"enable_seq +$(($(enable_seq) - seq0)), last check $RUNNABLE runnable tasks, all on online CPUs," \
		"$STALLS stalls, $EJECTIONS ejections; kernel warnings: $KWARN"
done
