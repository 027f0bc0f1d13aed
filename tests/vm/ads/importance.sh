# An important request gets the longer slice: three lc workers share the
# one lc CPU (bg spinners overfill the bg CPUs, so none is stolen away).
# One (scxpol-workload --hint ads --important-every 1) gets a 20 ms request
# every 500 ms, each flagged important through its hint slot, and sleeps
# in between; the two others have a backlog of 200 ms requests, none
# flagged, so they never sleep. Their run bursts (scxpol-lat --by comm)
# follow the slices: an important request runs in one burst, ahead of the
# queue and not cut by the lc dispatchers' wakeups (it would be: it is
# behind them in vtime), within its 100 ms slice (a loaded host stretched
# the 20 ms of work past 40 ms); the normal workers take turns every 2 ms
# (slices end at a tick: 4 ms at HZ=250).
# The important worker must keep up, or it takes its next request from its
# backlog without sleeping, no wakeup queues at the head, and it stays
# behind at a third of the CPU: so its requests are 4% of a CPU, and the
# work loop is calibrated once, before the load, with every vCPU busy (as
# in the test). Calibrated under the load, on a loaded host, the important
# workload's speed came out 44 to 159 iterations per us in three runs.
# The policy counted the placements decided by the hint, the important
# ones and those at the head.
. "$(dirname "$0")/common.inc"
start_ads --lc-cpus 1 --no-resize --lc-comm 'norm-*' --lc-slice-us 2000 \
	--important-slice-us 100000
assert_attached ads
ipu=$("$WL" --calibrate --calibrate-threads "$(nproc)" | sed -n 's/^iters_per_us=//p')
[ -n "$ipu" ] || fail "scxpol-workload --calibrate printed no speed"
for i in 1 2 3 4 5; do spin bgspin$i 600; done
start_lat /tmp/lat.json --by comm --json
# the normal backlog first, and until the important workload is done
# (its SIGINT ends the window; 60 s is a bound): the lc CPU is busy (never
# idle) through the whole important window, so every important wakeup
# queues (at the head) instead of landing on an idle CPU, however long a
# loaded host makes the important workload's start.
"$WL" --iters-per-us "$ipu" --workers 2 --rate 20 --hogs 0 --work-us 200000 --duration 60 \
	--worker-comm norm-worker --dispatch-comm norm-disp >/tmp/norm.out 2>&1 &
norm=$!
for ((i = 0; i < 100; i++)); do
	[ "$(grep -lx norm-worker /proc/$norm/task/*/comm 2>/dev/null | wc -l)" -eq 2 ] && break
	sleep 0.1
done
[ "$i" -lt 100 ] || fail "the normal workers did not start: $(cat /tmp/norm.out)"
sleep 0.5 # their first requests are due and queued
"$WL" --iters-per-us "$ipu" --hint ads --important-every 1 --workers 1 --rate 2 --hogs 0 \
	--work-us 20000 --duration 8 --worker-comm imp-worker --dispatch-comm imp-disp \
	>/tmp/imp.out 2>&1 || fail "important workload: $(cat /tmp/imp.out)"
kill -0 $norm 2>/dev/null || fail "the normal workload ended before the important one: $(cat /tmp/norm.out)"
kill -INT $norm
wait $norm || fail "normal workload: $(cat /tmp/norm.out)"
stop_lat
assert_attached ads
flagged=$(tail -n 1 /tmp/imp.out | jq -r .important)
[ "$flagged" -gt 0 ] || fail "the workload flagged no request: $(cat /tmp/imp.out); $(snapshot);" \
	"bursts: $(json_eval /tmp/lat.json "{c: (g(c) or {}).get('burst') for c in ('imp-worker', 'imp-disp')}")"
# every request is flagged: the important ones are counted like the requests
# (one finished after the window is neither)
expect_eq "important requests (every one flagged)" "$flagged" \
	"$(tail -n 1 /tmp/imp.out | jq -r .requests)"
note "important workload: $(tail -n 1 /tmp/imp.out | jq -c "{requests,unfinished,iters_per_us}");" \
	"normal: $(tail -n 1 /tmp/norm.out | jq -c "{requests,unfinished,iters_per_us}")"
counts=()
for k in important important_head class_hint; do
	v=$(counter $k)
	[ "$v" -gt 0 ] || fail "counter $k is 0: $(snapshot)"
	counts+=("$k=$v")
done
note "counters: ${counts[*]}"
mapfile -t b < <(json_eval /tmp/lat.json "g('imp-worker')['burst']['p50_ns']" \
	"g('norm-worker')['burst']['p50_ns']" "g('imp-worker')['burst']['count']" \
	"g('norm-worker')['burst']['count']")
note "run bursts: important p50 $((b[0] / 1000)) us (${b[2]}), normal p50" \
	"$((b[1] / 1000)) us (${b[3]}); slices 100000 / 2000 us; $flagged important requests"
[ "${b[2]}" -gt 10 ] && [ "${b[3]}" -gt 10 ] || fail "too few bursts: ${b[*]}"
# requests 10x the lc slice, 5x with the tick: at least 3x in the median bursts
if [ "${b[0]}" -le $((3 * b[1])) ]; then
	msg="important bursts ($((b[0] / 1000)) us) are not 3x the normal ones ($((b[1] / 1000)) us)"
	# Debian's distro kernel (HZ 250, NO_HZ_FULL): the normal workers'
	# bursts are about 12 ms against their 2 ms slice (4 ms on 6.12), so
	# even an important burst the full 20 ms long is under 3x; and traced,
	# the lc dispatchers' wakeups cut important bursts 10-55 ms in. A
	# defect of the policy on that kernel, tracked in issue 31.
	case $(uname -r) in
	*+deb*-amd64) known_defect "$msg: on this kernel normal bursts overrun their 2 ms slice and important ones are cut (issue 31)" ;;
	esac
	fail "$msg"
fi
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
