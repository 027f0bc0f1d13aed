# The lc pool grows when its work keeps finding it busy, not only when it
# is busier than util-hi. Three lc workers (each burning 1 ms, then
# sleeping 6 ms) start on a 1-CPU lc pool next to bg spinners on every
# CPU, with --spill. With --util-hi 1 the utilisation asks for a CPU more
# only in intervals whose demand (lc CPU time, wherever it ran) passes the
# pool's CPUs, which a loaded emulator's bursts sometimes make it do.
# Whenever two workers are runnable at once, one of them runs on a bg
# CPU: the loader reads that CPU time as the pool's overflow and, above
# --overflow-hi (0.05 of the demand: how much spills varies from boot to
# boot, and at 0.2 one 6.12 boot never grew), grows the pool. So with
# --overflow-hi 0.05 the pool grows at least once at a utilisation of at
# most 1 (the loader prints the demand of the interval that decided it),
# and with --overflow-hi 0 it never does. Every growth the loader prints
# was published: the BPF side counted a commit for each (pool_commit);
# the pool's size sampled through the stats server shows it only if the
# sample falls before the next shrink, which a loaded host can miss.
. "$(dirname "$0")/common.inc"

# lc_nr: the number of CPUs of the published lc pool
lc_nr() {
	snapshot | jq -r '.pools[] | select(.name == "lc") | .nr_cpus'
}

# run_overflow ARGS...: the load above for 6 s under ads with ARGS; sets
# MAX_LC (the largest lc pool seen, sampled every 0.2 s), SPILL (the lc
# CPU time on bg CPUs, ns) and COMMITS (pools published), counter
# differences
run_overflow() {
	local i n spill0 commits0 pids=()
	start_ads --lc-cpus 1 --lc-comm 'lcof*' --interval-ms 100 --hold 2 --util-lo 0.1 \
		--util-hi 1 --spill "$@"
	assert_attached ads
	expect_eq "lc pool at start" "$(lc_cpus)" 0
	commits0=$(counter pool_commit)
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
	COMMITS=$(( $(counter pool_commit) - commits0 ))
	assert_attached ads
	kill_spinners
	wait "${SPINNERS[@]}" 2>/dev/null
	SPINNERS=()
	stop_policy INT
	expect_eq "loader exit status" "$POLICY_STATUS" 0
}

# grown_in_band: the loader's growths at a utilisation of at most 1 (the
# last interval's demand over the CPUs the pool had), one per line
grown_in_band() {
	sed -n 's/.*resized lc \([0-9]*\) -> \([0-9]*\) CPUs (lc demand \([0-9.]*\) CPUs.*/\1 \2 \3/p' \
		/tmp/ads.log | awk '$2 > $1 && $3 <= $1 { print }'
}

run_overflow --overflow-hi 0.05
note "--overflow-hi 0.05: largest lc pool sampled $MAX_LC CPUs, $COMMITS pools published," \
	"lc CPU time on bg CPUs $((SPILL / 1000000)) ms; $(grep 'resized' /tmp/ads.log | head -n 1)"
[ "$SPILL" -gt 0 ] || fail "no lc CPU time on bg CPUs: nothing overflowed"
resizes=$(grep -c 'resized' /tmp/ads.log)
[ "$COMMITS" -ge "$resizes" ] || fail "$resizes resizes printed, $COMMITS pools published"
grep -Eq 'resized lc 1 -> ([2-9]|[1-9][0-9]+) CPUs' /tmp/ads.log ||
	fail "the lc pool never grew to 2 CPUs: $(grep resized /tmp/ads.log)"
[ -n "$(grown_in_band)" ] ||
	fail "no growth at a utilisation of at most 1: $(grep resized /tmp/ads.log)"

run_overflow --overflow-hi 0
note "--overflow-hi 0: largest lc pool $MAX_LC CPUs, lc CPU time on bg CPUs $((SPILL / 1000000)) ms;" \
	"$(grep -c 'resized' /tmp/ads.log) resizes"
[ -z "$(grown_in_band)" ] ||
	fail "--overflow-hi 0: grown at a utilisation of at most 1: $(grep resized /tmp/ads.log)"
