# Per-thread importance through the mmap-ed slots: a registered thread flips
# its importance with a store and the BPF side sees it on its next enqueue
# (SCXPOL_STAT_IMPORTANT and the policy's importance_sum counter); a value
# above max_importance is ignored and counted. Registration is race-free,
# and a thread that exits registered leaves no slot behind (the policy
# frees it: no periodic prune here).
. "$(dirname "$0")/common.inc"
start_hintpol --hint-prune 0
out=$("$HINTCTL" slots "$SOCK" 200 0 3 0 99) || fail "slots: $out"
note "$(tr '\n' ';' <<<"$out")"
phase() { sed -n "$1p" <<<"$out"; }
expect_eq "importance 0: important" "$(field important "$(phase 1)")" 0
imp=$(field important "$(phase 2)")
sum=$(field importance_sum "$(phase 2)")
[ "$imp" -ge 100 ] || fail "importance 3: only $imp important enqueues of 200 wakeups"
expect_eq "importance 3: importance_sum" "$sum" $((3 * imp))
expect_eq "back to 0: important" "$(field important "$(phase 3)")" 0
expect_eq "importance 99: important" "$(field important "$(phase 4)")" 0
[ "$(field hint_reject "$(phase 4)")" -ge 100 ] || fail "importance 99 not rejected: $(phase 4)"

out=$("$HINTCTL" race 32) || fail "race: $out"
note "race: $(tr '\n' ' ' <<<"$out")"
grep -qx 'registered=32 threads=32' <<<"$out" || fail "32 racing threads: $out"
grep -qx 'unregister_failures=0' <<<"$out" || fail "unregister after the race: $out"

# a thread that exits registered: the policy frees its slot (exit_task)
hintctl exit-registered
wait_count "cgroups=0 tgids=0 tids=0 threads=0"
expect_eq "entries after a registered thread exited" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
