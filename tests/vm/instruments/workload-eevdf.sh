# scxpol-workload completes under EEVDF with requests and background units,
# its numbers are consistent, and scxpol-lat (by comm, filtered to the
# workload's cgroups) sees its thread classes with as many sleeps as wakeups.
. "$SCXPOL_SRC/tests/vm/lib.sh"
mkdir -p /sys/fs/cgroup/wl-test
start_lat /tmp/lat.json --by comm --filter-cgroup /wl-test --json
"$SCXPOL_BUILD/tools/scxpol-workload" --duration 3 --worker-cgroup wl-test/lc \
	--hog-cgroup wl-test/bg >/tmp/wl.out || fail "scxpol-workload failed: $(cat /tmp/wl.out)"
stop_lat
tail -n 1 /tmp/wl.out >/tmp/wl.json
sed -n '1,5s/^/# /p' /tmp/wl.out
cpus=$(nproc)
expect_eq "workers" "$(json_eval /tmp/wl.json 'd["workers"]')" "$cpus"
expect_eq "hogs (2x oversubscription)" "$(json_eval /tmp/wl.json 'd["hogs"]')" "$cpus"
req=$(json_eval /tmp/wl.json 'd["requests"]')
[ "$req" -gt 0 ] || fail "no requests completed: $(cat /tmp/wl.out)"
[ "$(json_eval /tmp/wl.json 'd["bg_units"]')" -gt 0 ] || fail "no background units: $(cat /tmp/wl.out)"
expect_eq "request latency samples" "$(json_eval /tmp/wl.json 'd["request_latency"]["count"]')" "$req"
expect_eq "wakeup latency samples (closed loop)" \
	"$(json_eval /tmp/wl.json 'd["wakeup_latency"]["count"]')" "$req"
for grp in lc-worker lc-dispatch bg-hog; do
	[ "$(json_eval /tmp/lat.json "g('$grp') is not None")" = 1 ] ||
		fail "scxpol-lat has no group $grp: $(cat /tmp/lat.json)"
	wake=$(json_eval /tmp/lat.json "g('$grp')['wake']['count']")
	sleep=$(json_eval /tmp/lat.json "g('$grp')['sleep']")
	note "$grp: wake=$wake sleep=$sleep preempt=$(json_eval /tmp/lat.json "g('$grp')['preempt']")" \
		"bursts=$(json_eval /tmp/lat.json "g('$grp')['burst']['count']")"
	[ "$wake" -gt 0 ] || fail "$grp: no wakeups recorded"
	# every thread was created and exited while traced: each sleep has its wakeup
	[ $((sleep - wake)) -le "$cpus" ] && [ $((wake - sleep)) -le "$cpus" ] ||
		fail "$grp: $sleep sleeps but $wake wakeups"
done
[ "$(json_eval /tmp/lat.json "g('bg-hog')['burst']['count']")" -gt 0 ] || fail "bg-hog: no run bursts"
