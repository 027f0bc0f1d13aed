# scxpol-workload completes under EEVDF with requests and background units,
# its numbers are consistent, and scxpol-lat (by comm, filtered to the
# workload's cgroups) sees its thread classes with as many sleeps as wakeups
# (unless it dropped events: expect_paired) and an exit per thread.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
cgroup_at_exit /sys/fs/cgroup/wl-test
mkdir -p /sys/fs/cgroup/wl-test
start_lat /tmp/lat.json --by comm --filter-cgroup /wl-test --json
"$SCXPOL_BUILD/tools/scxpol-workload" --duration 3 --worker-cgroup wl-test/lc \
	--hog-cgroup wl-test/bg >/tmp/wl.out || fail "scxpol-workload failed: $(cat /tmp/wl.out)"
stop_lat
tail -n 1 /tmp/wl.out >/tmp/wl.json
sed -n '1,5s/^/# /p' /tmp/wl.out
cpus=$(nproc)
mapfile -t v <<<"$(json_eval /tmp/wl.json 'd["workers"]' 'd["hogs"]' 'd["requests"]' \
	'd["bg_units"]' 'd["request_latency"]["count"]' 'd["wakeup_latency"]["count"]' \
	'd["unfinished"]')"
expect_eq "workers" "${v[0]}" "$cpus"
expect_eq "hogs (2x oversubscription)" "${v[1]}" "$cpus"
[ "${v[2]}" -gt 0 ] || fail "no requests completed: $(cat /tmp/wl.out)"
[ "${v[3]}" -gt 0 ] || fail "no background units: $(cat /tmp/wl.out)"
expect_eq "request latency samples" "${v[4]}" "${v[2]}"
expect_eq "wakeup latency samples (closed loop)" "${v[5]}" "${v[2]}"
# closed loop: only the requests in flight at the end are left unfinished
[ "${v[6]}" -le "$cpus" ] || fail "${v[6]} unfinished requests, more than the $cpus in flight"
declare -A threads=([lc-worker]=$cpus [lc-dispatch]=1 [bg-hog]=$cpus)
for grp in lc-worker lc-dispatch bg-hog; do
	mapfile -t v <<<"$(json_eval /tmp/lat.json "g('$grp') is not None")"
	[ "${v[0]}" = 1 ] || fail "scxpol-lat has no group $grp: $(cat /tmp/lat.json)"
	mapfile -t v <<<"$(json_eval /tmp/lat.json "g('$grp')['wake']['count']" "g('$grp')['sleep']" \
		"g('$grp')['preempt']" "g('$grp')['burst']['count']" "g('$grp')['exit']")"
	note "$grp: wake=${v[0]} sleep=${v[1]} preempt=${v[2]} bursts=${v[3]} exit=${v[4]}"
	[ "${v[0]}" -gt 0 ] || fail "$grp: no wakeups recorded"
	[ "${v[3]}" -gt 0 ] || fail "$grp: no run bursts recorded"
	# every thread was named and exited while traced: each sleep has its
	# wakeup, and each thread's last switch-out is its exit
	expect_paired /tmp/lat.json "$grp" "${v[1]}" "${v[0]}"
	expect_eq "$grp: exits (one per thread)" "${v[4]}" "${threads[$grp]}"
done
