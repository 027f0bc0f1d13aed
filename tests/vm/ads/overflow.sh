# The lc pool grows when its work keeps finding it busy, not only when it
# is busier than util-hi. Three lc workers (each burning 1 ms, then
# sleeping 6 ms) start on a 1-CPU lc pool next to bg spinners on every
# CPU. With --util-hi 1 the utilisation asks for more than that CPU only
# once the demand (lc CPU time, wherever it ran) passes 1 CPU, which this
# load does not reach (1.5 ms every 5.5 ms measured 0.96 CPU in the
# emulated guest, whose busy vCPUs run slower than the host). Whenever two
# workers are runnable at once, one of them runs on a bg CPU: the loader
# reads that CPU time as the pool's overflow and, above --overflow-hi (0.2
# of the demand), grows the pool. With --overflow-hi 0 the same load
# leaves it at 1 CPU.
. "$(dirname "$0")/common.inc"

# lc_nr: the number of CPUs of the published lc pool
lc_nr() {
	snapshot | jq -r '.pools[] | select(.name == "lc") | .nr_cpus'
}

# run_overflow ARGS...: the load above for 6 s under ads with ARGS; sets
# MAX_LC (the largest lc pool seen, sampled every 0.2 s) and SPILL (the
# lc CPU time on bg CPUs, ns, counter difference)
run_overflow() {
	local i n spill0 pids=()
	start_ads --lc-cpus 1 --lc-comm 'lcof*' --interval-ms 100 --hold 2 --util-lo 0.1 \
		--util-hi 1 "$@"
	assert_attached ads
	expect_eq "lc pool at start" "$(lc_cpus)" 0
	SPINNERS=()
	for i in 1 2 3 4; do
		spin bgof$i 600
	done
	sleep 1
	spill0=$(counter lc_spill_ns)
	for i in 1 2 3; do
		ln -sf "$PROBE" "/tmp/lcof$i"
		"/tmp/lcof$i" worker 6 1000 6000 >"/tmp/lcof$i.out" &
		pids+=($!)
	done
	MAX_LC=1
	while kill -0 "${pids[0]}" 2>/dev/null; do
		n=$(lc_nr)
		[ "$n" -gt "$MAX_LC" ] && MAX_LC=$n
		sleep 0.2
	done
	wait "${pids[@]}" || fail "an lc worker failed: $(cat /tmp/lcof*.out)"
	SPILL=$(( $(counter lc_spill_ns) - spill0 ))
	assert_attached ads
	kill_spinners
	wait "${SPINNERS[@]}" 2>/dev/null
	SPINNERS=()
	stop_policy INT
	expect_eq "loader exit status" "$POLICY_STATUS" 0
}

run_overflow --overflow-hi 0.2
note "--overflow-hi 0.2: largest lc pool $MAX_LC CPUs, lc CPU time on bg CPUs $((SPILL / 1000000)) ms;" \
	"$(grep 'resized' /tmp/ads.log | head -n 1)"
[ "$SPILL" -gt 0 ] || fail "no lc CPU time on bg CPUs: nothing overflowed"
grep -q 'resized lc 1 -> 2 CPUs' /tmp/ads.log || fail "the lc pool never grew: $(cat /tmp/ads.log)"
[ "$MAX_LC" -ge 2 ] || fail "the published lc pool never had 2 CPUs (largest $MAX_LC)"

run_overflow --overflow-hi 0
note "--overflow-hi 0: largest lc pool $MAX_LC CPUs, lc CPU time on bg CPUs $((SPILL / 1000000)) ms"
expect_eq "--overflow-hi 0: largest lc pool" "$MAX_LC" 1
! grep -q 'resized' /tmp/ads.log || fail "--overflow-hi 0: resized: $(grep resized /tmp/ads.log)"
