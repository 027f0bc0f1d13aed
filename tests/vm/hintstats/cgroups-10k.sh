# 10 000 cgroups created, hinted and removed, twice, while the policy runs:
# ops.cgroup_exit takes every entry with its cgroup, so the cgroup hint map
# ends empty, and the memory the kernel accounts to the hint maps (memlock
# in their fdinfo; the hash maps are not preallocated) returns to its
# baseline each time instead of growing with every round. (No periodic
# prune: the removals are the policy's own. One prune by hand, with every
# cgroup alive, shows what it costs at this size and that it keeps them.)
. "$(dirname "$0")/common.inc"
N=10000
# seconds from date +%s.%N stamp $1 to $2, e.g. 0.95
secs() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }
start_hintpol --hint-prune 0
cgroup_at_exit $CG/hs10k
mkdir $CG/hs10k
echo +cpu >$CG/hs10k/cgroup.subtree_control
empty="cgroups=0 tgids=0 tids=0 threads=0"
expect_eq "entries at start" "$("$HINTCTL" count)" "$empty"
base=$("$HINTCTL" mem) || fail "hintctl mem failed"
note "hint maps at start: $base"

for round in 1 2; do
	t0=$(date +%s.%N)
	# mkdir takes at most ARG_MAX worth of names at a time
	for ((i = 0; i < N; i += 1000)); do
		mkdir $(seq -f "$CG/hs10k/c%.0f" $i $((i + 999)))
	done
	t1=$(date +%s.%N)
	expect_eq "round $round: hinted" "$("$HINTCTL" set-cgroups $CG/hs10k class=1 pool=1)" "set=$N"
	expect_eq "round $round: entries" "$("$HINTCTL" count)" "cgroups=$N tgids=0 tids=0 threads=0"
	full=$("$HINTCTL" mem) || fail "hintctl mem failed"
	if [ $round = 1 ]; then
		# what the loader's periodic prune costs with every hinted cgroup
		# alive: it keeps them all
		tp=$(date +%s.%N)
		expect_eq "round 1: a prune with $N live hinted cgroups" "$("$HINTCTL" prune)" "removed=0"
		note "round 1: a prune with $N live hinted cgroups took" \
			"$(secs "$tp" "$(date +%s.%N)") s"
		expect_eq "round 1: entries after the prune" "$("$HINTCTL" count)" "cgroups=$N tgids=0 tids=0 threads=0"
	fi
	t2=$(date +%s.%N)
	find $CG/hs10k -mindepth 1 -maxdepth 1 -type d -exec rmdir {} +
	wait_count "$empty" 120
	t3=$(date +%s.%N)
	expect_eq "round $round: entries after removing the cgroups" "$("$HINTCTL" count)" "$empty"
	after=$("$HINTCTL" mem) || fail "hintctl mem failed"
	note "round $round: $N cgroups: mkdir $(secs "$t0" "$t1") s, hint" \
		"$(secs "$t1" "$t2") s, entries gone" \
		"$(secs "$t2" "$t3") s after the rmdirs began"
	note "round $round: hint maps with $N cgroup hints: $full"
	note "round $round: hint maps after removal: $after"
	cg_full=$(field cgrp "$full")
	[ "$cg_full" -gt "$(field cgrp "$base")" ] ||
		fail "round $round: the cgroup map's memlock did not grow with $N entries: $base -> $full"
	expect_eq "round $round: hint maps' memlock back to the baseline" "$after" "$base"
done

# the policy kept scheduling throughout, and is still attached
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs10k
