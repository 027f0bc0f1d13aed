# The "pinned" sink end to end: faas-replay writes each invocation's domain
# as a cgroup pool hint of a loaded policy (the hint test policy hintpol,
# with the replay's two domains as its pools: the sink checks them against
# the policy's stats), the BPF side resolves those hints for the bodies'
# tasks, and every hint is gone once its invocation completed. Minutes 1-5
# of the Azure under trace, work scaled by 1/4 as in eevdf-under.
. "$SCXPOL_SRC/tests/vm/hintstats/common.inc"
dir=$SCXPOL_SRC/examples/faas/traces
want=$(awk -F, 'NR > 1 && $2 < 5000' "$dir/under.csv" | wc -l)
plan="d0=0-1 d1=2-$(($(nproc) - 1))"
# other CPUs than the replay's: refused before any invocation runs
start_hintpol --pools 2 --pool-plan "d0=0 d1=1-$(($(nproc) - 1))"
out=$("$SCXPOL_BUILD/examples/faas/faas-replay" --trace "$SCXPOL_SRC/examples/faas/traces/under.csv" \
	--plan "$plan" --sink pinned:hintpol --cgroup-root /sys/fs/cgroup/faas-refused 2>&1) &&
	fail "faas-replay ran with other domains than the policy's: $out"
expect_eq "domains that differ" "$out" "faas-replay: sink 'pinned': policy hintpol's domain 0 (d0) is CPUs 0, the replay's is 0-1: domain d must be the same CPUs on both sides (the replay's --domains or --plan)"
stop_policy INT
start_hintpol --pools 2 --pool-plan "$plan"
hits0=$(counter hint_hit)
"$SCXPOL_BUILD/examples/faas/faas-replay" --format azure \
	--trace "$dir/azure/invocations_per_function_md.anon.under.csv" \
	--durations "$dir/azure/function_durations_percentiles.anon.under.csv" \
	--minutes 1-5 --minute-ms 1000 --duration-scale 0.25 --plan "$plan" \
	--sink pinned:hintpol --cgroup-root /sys/fs/cgroup/faas-pinned \
	--out /tmp/pinned.csv >/tmp/pinned.out 2>&1 ||
	fail "faas-replay failed: $(cat /tmp/pinned.out)"
assert_attached hintpol
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/pinned.csv /tmp/pinned.out "$want" 2 \
	/sys/fs/cgroup/faas-pinned || exit 1
hinted=$(awk -F, 'NR > 1 && $4 >= 0' /tmp/pinned.csv | wc -l)
[ "$hinted" -gt 0 ] || fail "no invocation got a domain: $(cat /tmp/pinned.out)"
hits=$(($(counter hint_hit) - hits0))
[ "$hits" -gt 0 ] || fail "the policy resolved no hint for $hinted hinted invocations"
expect_eq "hint entries after the replay" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"
note "$hinted of $want invocations hinted with a domain; hint_hit +$hits"
stop_policy INT
expect_eq "hintpol exit status" "$POLICY_STATUS" 0
