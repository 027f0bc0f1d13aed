# Work stealing (Algorithm 2): eight 300 ms CPU bursts arrive at once and
# the control plane puts them all in domain d0 (capacity 100 per domain:
# IAT hashing then scans from d0 and always finds room there), so d0's two
# CPUs are overloaded while d1's are idle. With --steal, d1's CPUs run d0's
# queued work (dispatch_steal counts it, and d0 invocations report d1's
# CPUs); without, no d0 invocation leaves d0 and nothing is stolen. Both
# runs complete every invocation.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
trace=/tmp/burst.csv
echo "function,arrival_ms,duration_ms,kind" >$trace
for i in 0 1 2 3 4 5 6 7; do echo "burst$i,$((i * 10)),300,cpu" >>$trace; done

# run NAME ARGS...: replay the burst under faas --domains 2 ARGS; sets
# STOLEN (the dispatch_steal counter), AT_WAKE (steal_idle: woken straight
# onto an idle d1 CPU) and OUT (d0 invocations that ran outside d0)
run() {
	local name=$1
	shift
	start_faas --domains 2 "$@"
	replay "$name" --trace $trace --domains 2 --capacity 100
	assert_attached faas
	"$SCXPOL_SRC/tests/vm/faas-replay/check-results" "/tmp/$name.csv" "/tmp/$name.out" 8 2 \
		"/sys/fs/cgroup/faas-$name" || exit 1
	expect_eq "$name: invocations in d0" "$(rows "/tmp/$name.csv" '$4 == 0')" 8
	STOLEN=$(counter dispatch_steal)
	AT_WAKE=$(counter steal_idle)
	OUT=$(outside "/tmp/$name.csv")
	stop_policy INT
	expect_eq "faas exit status" "$POLICY_STATUS" 0
}

run steal --steal
d1=$(domain_cpus 1)
[ "$STOLEN" -gt 0 ] || fail "--steal: dispatch_steal is 0"
[ -n "$OUT" ] || fail "--steal: no d0 invocation ran on d1's idle CPUs $d1"
note "--steal: dispatch_steal $STOLEN, steal_idle $AT_WAKE; d0 invocations on d1's CPUs (id domain cpus):" $OUT

run nosteal
expect_eq "dispatch_steal without --steal" "$STOLEN" 0
expect_eq "steal_idle without --steal" "$AT_WAKE" 0
[ -z "$OUT" ] || fail "without --steal, d0 invocations ran outside d0 (id domain cpus): $OUT"
note "no steal: every d0 invocation stayed on d0's CPUs $(domain_cpus 0)"
