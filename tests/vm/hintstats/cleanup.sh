# Dead tasks leave nothing behind: 50 hinted processes killed take their
# entries with them while the policy runs (ops.exit_task; removed cgroups:
# cgroups-10k.sh). What the policy cannot see die (cgroups without the cpu
# controller, for which the kernel runs no ops.cgroup_exit) or what dies
# while no policy is loaded is removed by the loader's prune, at attach and
# then periodically (--hint-prune), which keeps every live entry.
. "$(dirname "$0")/common.inc"
start_hintpol --hint-prune 0
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
wait_count "cgroups=0 tgids=0 tids=0 threads=0"
expect_eq "entries after the processes died" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"

# hs1k/nocpu has the cpu controller, its children do not: their removal
# does not reach the policy
mkdir $CG/hs1k/nocpu $CG/hs1k/nocpu/n{0..19}
expect_eq "controllers of a child of nocpu" "$(cat $CG/hs1k/nocpu/n0/cgroup.controllers)" ""
hintctl set-cgroups $CG/hs1k/nocpu class=1 >/dev/null
rmdir $CG/hs1k/nocpu/n*
sleep 2
expect_eq "entries of removed cgroups without the cpu controller" "$("$HINTCTL" count)" "cgroups=20 tgids=0 tids=0 threads=0"

# while no policy is loaded, nothing removes them
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
# live ones, which every prune must keep: a cgroup (nocpu, hinted above)
# and a process
sleep 600 &
live=$!
hintctl set tgid $live class=2

# the restarted loader finds them all, and its prune at attach removes the
# stale ones at once: the next prune is an hour away
start_hintpol --hint-prune 3600
t0=$SECONDS
expect_eq "stale entries found by the restarted loader" "$(grep -c 'pinned hints: cgroups=121 tgids=2 tids=0 threads=0' /tmp/hintpol.log)" 1
left="cgroups=1 tgids=1 tids=0 threads=0"
wait_count "$left"
expect_eq "entries after the loader's prune at attach" "$("$HINTCTL" count)" "$left"
note "prune at attach: the stale entries were gone $((SECONDS - t0)) s after the attach"
expect_eq "prune logged" "$(grep -c 'hintpol: hints: pruned 121 entries of gone tasks and cgroups' /tmp/hintpol.log)" 1
expect_eq "the live cgroup's class" "$(field class "$("$HINTCTL" get cgroup $CG/hs1k/nocpu)")" 1
expect_eq "the live process's class" "$(field class "$("$HINTCTL" get tgid $live)")" 2
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0

# and again while it runs, each second (the prune at attach, which finds
# nothing stale, is over by the time the cgroups go)
start_hintpol --hint-prune 1
sleep 1
mkdir $CG/hs1k/nocpu/m{0..9}
hintctl set-cgroups $CG/hs1k/nocpu class=1 >/dev/null
expect_eq "entries" "$("$HINTCTL" count)" "cgroups=11 tgids=1 tids=0 threads=0"
rmdir $CG/hs1k/nocpu/m*
wait_count "$left"
expect_eq "entries after the periodic prune" "$("$HINTCTL" count)" "$left"
# (a prune may have come between two of the removals: the lines add up)
expect_eq "entries the prunes logged" "$(awk '/hintpol: hints: pruned [0-9]+ entries of gone tasks and cgroups/ { for (i = 1; i < NF; i++) if ($i == "pruned") n += $(i + 1) } END { print n + 0 }' /tmp/hintpol.log)" 10
expect_eq "the live process's class" "$(field class "$("$HINTCTL" get tgid $live)")" 2
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
kill $live
wait $live 2>/dev/null
rmdir $CG/hs1k/nocpu $CG/hs1k
