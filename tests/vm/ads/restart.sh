# Restarting the loader keeps hints, and they still apply: a process with a
# class-1 hint runs on the lc CPUs before and after; a registered thread
# slot survives; the new loader counts placements by hint and important
# requests of a workload that ran across the restart. Classification
# rules come from the new command line (a process no rule names is bg,
# until a loader started with a comm rule for it makes it lc), and no task
# is left outside sched_ext: after an orderly stop and after SIGKILL of
# the loader. Three loads of ads while spinners hold the guest's CPUs:
# the loader runs at nice -10, as a deployment would run it, or each
# load and unload takes a minute of the emulated guest's time with the
# spinners (between two schedulers, all in the fair class) beside it.
# time limit: 600 s
. "$(dirname "$0")/common.inc"
ADS_NICE=-10
start_ads --lc-cpus 2 --no-resize
assert_attached ads
# x and w class 1 by hint only (no rule names them) fill the lc CPUs; y
# and the bg spinners overfill the bg CPUs, so none moves to the other pool
# but for a moment (an lc CPU lends itself when the other lc CPU just took
# its next lc task, not queued again yet): most samples show each in its
# pool
spin probe-x 600; x=$SPIN_PID
spin probe-w 600; w=$SPIN_PID
spin probe-y 600; y=$SPIN_PID
for i in 1 2 3 4; do spin bgspin$i 600; done
hintctl set tgid $x class=1
hintctl set tgid $w class=1
"$HINTCTL" -P ads hold 600 3 >/tmp/hold.out &
holder=$!
SPINNERS+=("$holder")
for ((i = 0; i < 100; i++)); do grep -q registered /tmp/hold.out && break; sleep 0.1; done
"$WL" --hint ads --important-every 2 --workers 2 --hogs 0 --work-us 500 --rate 200 \
	--duration 600 >/tmp/wl.out 2>&1 &
wl=$!
SPINNERS+=("$wl")
sleep 1
want=$("$HINTCTL" -P ads count)
note "hints before the restarts: $want"
expect_eq "tgid hints and slots" "$(sed 's/ tids=[0-9]*//' <<<"$want")" \
	"cgroups=0 tgids=2 threads=3"
mapfile -t seen < <(sample_cpus 10 $x $y)
assert_cpus_mostly_within "hinted process before the restarts" "${seen[0]}" 0-1
assert_cpus_mostly_within "process without a rule before the restarts" "${seen[1]}" 2-3

rule=()
for how in INT KILL; do
	if [ $how = INT ]; then
		stop_policy INT
		expect_eq "loader exit status" "$POLICY_STATUS" 0
	else
		kill -KILL "$POLICY_PID"
		wait "$POLICY_PID" 2>/dev/null
		wait_state disabled 20
		rm -f "$SOCK"
		# the new loader's command line names y
		rule=(--lc-comm 'probe-y*')
	fi
	start_ads --lc-cpus 2 --no-resize "${rule[@]}"
	assert_attached ads
	expect_eq "hints after a SIG$how restart" "$("$HINTCTL" -P ads count)" "$want"
	sleep 1
	mapfile -t seen < <(sample_cpus 10 $x $y)
	assert_cpus_mostly_within "hinted process after a SIG$how restart" "${seen[0]}" 0-1
	if [ ${#rule[@]} -gt 0 ]; then
		assert_cpus_mostly_within "process of the new comm rule" "${seen[1]}" 0-1
	else
		assert_cpus_mostly_within "process without a rule after a SIG$how restart" "${seen[1]}" 2-3
	fi
	left=$(all_in_ext) || fail "tasks left outside sched_ext after a SIG$how restart:$left"
	for k in class_hint important important_head; do
		[ "$(counter $k)" -gt 0 ] || fail "after a SIG$how restart, $k is 0: $(snapshot)"
	done
	note "after SIG$how: x on ${seen[0]}, y on ${seen[1]}; $(snapshot | jq -c ".counters | {class_hint, important, important_head, dispatch_steal}")"
done
kill $wl $holder
wait $wl $holder 2>/dev/null
assert_attached ads
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
