# The control plane holding what no domain has room for (faas-replay
# --overflow hold): the over-utilised trace (work x1/4, as in domains_test)
# at 2 domains, 2 invocations per CPU. Every invocation completes, none
# runs on the shared queue, some were held, each ran on its domain's CPUs,
# and no domain ever had more invocations released and unfinished than
# its capacity (each invocation counts from release to end: it gives its
# room back only after its end).
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
want=$(($(wc -l <"$TRACES/over.csv") - 1))
start_faas --domains 2
replay hold --trace "$TRACES/over.csv" --domains 2 --duration-scale 0.25 \
	--overflow hold --capacity 2x
assert_attached faas
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/hold.csv /tmp/hold.out "$want" 2 \
	/sys/fs/cgroup/faas-hold || exit 1
json=$(grep '^{' /tmp/hold.out)
held=$(jq -r .held <<<"$json")
expect_eq "invocations on the shared queue" "$(jq -r .shared_queue <<<"$json")" 0
[ "$held" -gt 0 ] || fail "no invocation was held on the over-utilised trace: $(cat /tmp/hold.out)"
bad=$(outside /tmp/hold.csv)
[ -z "$bad" ] || fail "invocations ran outside their domain of $PLAN (id domain cpus): $bad"
# capacity per domain: 2 per CPU; an mt invocation takes 2 (faas-replay's --mt-threads)
cap=$(sed -n 's/^faas-replay: .*, capacity \([0-9 ]*\);.*/\1/p' /tmp/hold.out)
expect_eq "capacities" "$cap" "4 4"
# id,function,kind,domain,cgroup_id,cgroup,arrival_ms,released_ms,start_ms,end_ms,...
peak=$(awk -F, 'NR > 1 { n = $3 == "mt" ? 2 : 1
		printf "%s %s +%d\n%s %s -%d\n", $4, $8, n, $4, $10, n }' /tmp/hold.csv |
	sort -k1,1n -k2,2g -k3,3r | awk '{ use[$1] += $3; if (use[$1] > peak) peak = use[$1] }
		END { print peak + 0 }')
[ "$peak" -le 4 ] || fail "a domain had $peak units of invocations running, capacity 4"
note "over: $want invocations, $held held, peak $peak of capacity 4 per domain;" \
	"e2e p99 $(jq -r .e2e_p99_ms <<<"$json") ms"
assert_attached faas
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0
