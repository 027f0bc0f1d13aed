# Dead tasks leave nothing behind: 50 hinted processes killed take their
# entries with them while the policy runs (ops.exit_task; removed cgroups:
# cgroups-10k.sh); what dies while no policy is loaded is removed by the
# pruner.
. "$(dirname "$0")/common.inc"
start_hintpol
cgroup_at_exit $CG/hs1k
mkdir $CG/hs1k
echo +cpu >$CG/hs1k/cgroup.subtree_control

pids=()
for ((i = 0; i < 50; i++)); do
	sleep 600 &
	pids+=($!)
done
list=$(IFS=,; echo "${pids[*]}")
hintctl set tgid "$list" class=2
hintctl set tid "$list" importance=1
expect_eq "entries" "$("$HINTCTL" count)" "cgroups=0 tgids=50 tids=50 threads=0"
kill "${pids[@]}"
wait "${pids[@]}" 2>/dev/null
for ((i = 0; i < 100; i++)); do
	[ "$("$HINTCTL" count)" = "cgroups=0 tgids=0 tids=0 threads=0" ] && break
	sleep 0.1
done
expect_eq "entries after the processes died" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"

# while no policy is loaded, nothing removes them: the pruner does
mkdir $CG/hs1k/d{0..99}
hintctl set-cgroups $CG/hs1k class=1 >/dev/null
sleep 600 &
gone=$!
hintctl set tgid $gone class=1
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs1k/d*
kill $gone
wait $gone 2>/dev/null
start_hintpol
expect_eq "stale entries found by the restarted loader" "$(grep -c 'pinned hints: cgroups=100 tgids=1 tids=0 threads=0' /tmp/hintpol.log)" 1
expect_eq "prune" "$("$HINTCTL" prune)" "removed=101"
expect_eq "entries after prune" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs1k
