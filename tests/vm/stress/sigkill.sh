# SIGKILL of the loader under the mixed workload, for each policy: the kernel
# unregisters the policy (state disabled) and reverts every task to the fair
# class, where every worker keeps progressing; starting the policy again
# attaches it and takes the tasks back into the ext class; the workload
# finishes with every worker done.
. "$(dirname "$0")/common.inc"
third=$((STRESS_SECS / 3 > 0 ? STRESS_SECS / 3 : 1))

load_policies
for line in "${POLICIES[@]}"; do
	kmsg_mark
	policy_start "$line"
	seq0=$P_SEQ
	wl_start mix $((STRESS_SECS * 10 + 600))
	nap "$third"
	assert_progress "under $P_NAME"
	before=$SNAP
	kv ext ext "$SNAP"
	all=${ext#*/}
	[ "$all" -gt 0 ] && [ "$ext" = "$all/$all" ] ||
		fail "$P_NAME: workload tasks in the ext class before the kill: $ext"

	kill -KILL "$POLICY_PID"
	status=0
	wait "$POLICY_PID" || status=$?
	expect_eq "$P_NAME: loader status after SIGKILL" "$status" 137
	wait_state disabled 30
	expect_eq "$P_NAME: root/ops after SIGKILL" "$(scx_ops)" ""
	wl_snapshot
	kv ext ext "$SNAP"
	expect_eq "$P_NAME: workload tasks in the ext class after SIGKILL" "$ext" "0/$all"
	nap "$third"
	assert_progress "after SIGKILL of $P_NAME"
	killed=$SNAP

	policy_start "$line" "/tmp/$P_NAME.again.log"
	[ "$P_SEQ" -gt "$seq0" ] || fail "$P_NAME: enable_seq $P_SEQ after re-attaching, was $seq0"
	wl_snapshot
	kv ext ext "$SNAP"
	expect_eq "$P_NAME: workload tasks in the ext class after re-attaching" "$ext" "$all/$all"
	nap "$third"
	assert_progress "after re-attaching $P_NAME"
	wl_end
	wl_wait
	assert_attached "$P_OPS"
	policy_stop
	kmsg_check
	note "$P_NAME sigkill: before: $before"
	note "$P_NAME sigkill: after the kill (fair class): $killed"
	note "$P_NAME sigkill: re-attached: $SNAP"
	while read -r r; do note "$P_NAME sigkill: $r"; done <<<"$WL_REPORT"
	note "$P_NAME sigkill: $STALLS stalls, $EJECTIONS ejections; kernel warnings: $KWARN"
done
