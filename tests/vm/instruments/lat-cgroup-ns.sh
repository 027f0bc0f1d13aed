# --filter-cgroup inside a cgroup namespace: scxpol-lat runs in a namespace
# rooted at /lat-ns with cgroup2 mounted anew, where /lat-ns/a is "/a", one
# level up from its real level; the probe in it is still counted, by its
# path as the namespace shows it.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
cgroup_at_exit /sys/fs/cgroup/lat-ns
mkdir -p /sys/fs/cgroup/lat-ns/a /sys/fs/cgroup/lat-ns/b
# start_lat, but in the namespace: unshare and sh exec, LAT_PID stays the tracer
(echo "$BASHPID" >/sys/fs/cgroup/lat-ns/cgroup.procs &&
	exec unshare -C -m --propagation private sh -c \
	'umount /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && exec "$0" "$@"' \
	"$SCXPOL_BUILD/tools/scxpol-lat" --by cgroup --filter-cgroup /a --json) \
	>/tmp/lat.json 2>/tmp/lat.json.err &
LAT_PID=$!
for ((i = 0; i < 600; i++)); do
	grep -q '^scxpol-lat: tracing' /tmp/lat.json.err && break
	kill -0 "$LAT_PID" 2>/dev/null || fail "scxpol-lat exited before tracing: $(cat /tmp/lat.json.err)"
	sleep 0.1
done
[ $i -lt 600 ] || fail "scxpol-lat did not start tracing in 60s: $(cat /tmp/lat.json.err)"
run_in_cgroup lat-ns/a "$PROBE" sleepwake 2 1000 >/tmp/a.out &
pa=$!
run_in_cgroup lat-ns/b "$PROBE" sleepwake 2 1000 >/tmp/b.out
wait $pa
stop_lat
expect_eq "groups" "$(json_eval /tmp/lat.json '[x["name"] for x in d["groups"]]')" "['/a']"
expect_eq "cgroup id of /a" "$(json_eval /tmp/lat.json 'g("/a")["cgroup_id"]')" \
	"$(stat -c %i /sys/fs/cgroup/lat-ns/a)"
check_wakeups /tmp/lat.json /a "$(field wakeups "$(cat /tmp/a.out)")"
rmdir /sys/fs/cgroup/lat-ns/a /sys/fs/cgroup/lat-ns/b /sys/fs/cgroup/lat-ns
