# With --spill, lc work that finds every CPU of its pool busy runs ahead
# of bg work on the bg CPUs. The lc pool is CPUs 0-1 (no resizing); four lc workers, each
# burning 2 ms and sleeping 1 ms (2.7 CPUs' worth), overfill it, and six bg
# spinners keep both bg CPUs (2-3) busy with a queue behind them, so no CPU
# is ever idle. An lc worker that wakes, or is preempted, and finds no lc
# CPU for it preempts a bg spinner (lc_preempt_bg; lc_busy counts it
# queued), and the bg CPU's dispatch serves the lc queue before its own:
# the lc workers are seen on the bg CPUs too, and the bg spinners still
# progress. Without --spill the same lc work is queued (lc_busy), no bg
# task is preempted for it (lc_preempt_bg stays 0), and it runs on the lc
# CPUs only. The lc workers' run-queue wait (schedstat) in both runs is
# printed, not asserted.
. "$(dirname "$0")/common.inc"

# run_spill ARGS...: ads with ARGS under the load above for 4 s; sets
# BUSY, PREEMPTED (counter differences), LC_CPUS (where the lc workers ran),
# LC_WAIT (their wait_ms, summed) and BG_MS (the bg spinners' cpu_ms, least)
run_spill() {
	local i busy0 pre0 line ms
	start_ads --lc-cpus 2 --no-resize --lc-comm 'lcw*' "$@"
	assert_attached ads
	expect_eq "lc pool" "$(lc_cpus)" 0-1
	SPINNERS=()
	for i in 1 2 3 4 5 6; do
		spin bgspill$i 600
	done
	sleep 1
	busy0=$(counter lc_busy)
	pre0=$(counter lc_preempt_bg)
	local pids=()
	for i in 1 2 3 4; do
		ln -sf "$PROBE" "/tmp/lcw$i"
		"/tmp/lcw$i" worker 4 2000 1000 >"/tmp/lcw$i.out" &
		pids+=($!)
	done
	wait "${pids[@]}" || fail "an lc worker failed: $(cat /tmp/lcw*.out)"
	BUSY=$(( $(counter lc_busy) - busy0 ))
	PREEMPTED=$(( $(counter lc_preempt_bg) - pre0 ))
	assert_attached ads
	kill -INT "${SPINNERS[@]}"
	wait "${SPINNERS[@]}" 2>/dev/null
	SPINNERS=()
	BG_MS=
	for i in 1 2 3 4 5 6; do
		line=$(cat "/tmp/bgspill$i.out")
		ms=$(field cpu_ms "$line")
		[[ $ms =~ ^[0-9]+$ ]] || fail "bg spinner $i reported '$line'"
		if [ -z "$BG_MS" ] || [ "$ms" -lt "$BG_MS" ]; then
			BG_MS=$ms
		fi
	done
	LC_CPUS=
	LC_WAIT=0
	for i in 1 2 3 4; do
		line=$(cat "/tmp/lcw$i.out")
		LC_CPUS=$LC_CPUS${LC_CPUS:+,}$(field cpus "$line")
		LC_WAIT=$((LC_WAIT + $(field wait_ms "$line")))
	done
	stop_policy INT
	expect_eq "loader exit status" "$POLICY_STATUS" 0
}

run_spill --spill
note "--spill: lc_busy $BUSY, lc_preempt_bg $PREEMPTED, lc workers on CPUs $LC_CPUS," \
	"waited $LC_WAIT ms in all; least bg spinner CPU time $BG_MS ms"
[ "$BUSY" -gt 0 ] || fail "no lc placement found the lc pool busy (lc_busy $BUSY)"
[ "$PREEMPTED" -gt 0 ] || fail "no bg task preempted for lc work (lc_preempt_bg 0, lc_busy $BUSY)"
[ "$PREEMPTED" -le "$BUSY" ] || fail "lc_preempt_bg $PREEMPTED > lc_busy $BUSY"
cpus_meet "$LC_CPUS" 2-3 || fail "lc work never ran on a bg CPU (cpus=$LC_CPUS)"
[ "$BG_MS" -gt 0 ] || fail "a bg spinner got no CPU time"

run_spill
note "default: lc_busy $BUSY, lc_preempt_bg $PREEMPTED, lc workers on CPUs $LC_CPUS," \
	"waited $LC_WAIT ms in all"
[ "$BUSY" -gt 0 ] || fail "default: no lc placement found the lc pool busy"
expect_eq "default: bg tasks preempted for lc work" "$PREEMPTED" 0
assert_cpus_within "default: lc workers" "$LC_CPUS" 0-1
