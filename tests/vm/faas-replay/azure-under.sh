# The Azure 2019 pair of the under-utilised trace, minutes 1-15 at one
# second each, replays under EEVDF with four domains: the expansion yields
# the same number of invocations as the simple trace, and each completes in
# its own cgroup. Work scaled by 1/4 as in eevdf-under.
. "$SCXPOL_SRC/tests/vm/lib.sh"
dir=$SCXPOL_SRC/examples/faas/traces
want=$(($(wc -l <"$dir/under.csv") - 1))
"$SCXPOL_BUILD/examples/faas/faas-replay" --format azure \
	--trace "$dir/azure/invocations_per_function_md.anon.under.csv" \
	--durations "$dir/azure/function_durations_percentiles.anon.under.csv" \
	--minutes 1-15 --minute-ms 1000 --duration-scale 0.25 --domains 4 --home-scan \
	--cgroup-root /sys/fs/cgroup/faas-azure --out /tmp/azure.csv >/tmp/azure.out 2>&1 ||
	fail "faas-replay failed: $(cat /tmp/azure.out)"
head -1 /tmp/azure.out | sed 's/^/# /'
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/azure.csv /tmp/azure.out "$want" 4 \
	/sys/fs/cgroup/faas-azure || exit 1
expect_eq "sched_ext state" "$(scx_state)" disabled
