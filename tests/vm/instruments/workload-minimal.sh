# Under the minimal policy scxpol-workload places its two processes in their
# cgroups, and scxpol-lat --by cgroup reports both groups.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
cgroup_at_exit /sys/fs/cgroup/wl-test
mkdir -p /sys/fs/cgroup/wl-test
start_lat /tmp/lat.json --by cgroup --filter-cgroup /wl-test --json
"$SCXPOL_BUILD/tools/scxpol-workload" --duration 3 --worker-cgroup wl-test/lc \
	--hog-cgroup /wl-test/bg >/tmp/wl.out || fail "scxpol-workload failed: $(cat /tmp/wl.out)"
stop_lat
assert_attached minimal
tail -n 1 /tmp/wl.out >/tmp/wl.json
sed -n '1,5s/^/# /p' /tmp/wl.out
mapfile -t v <<<"$(json_eval /tmp/wl.json 'd["requests"]' 'd["bg_units"]')"
[ "${v[0]}" -gt 0 ] || fail "no requests: $(cat /tmp/wl.out)"
[ "${v[1]}" -gt 0 ] || fail "no background units: $(cat /tmp/wl.out)"
mapfile -t v <<<"$(json_eval /tmp/lat.json 'd["scheduler"]["start"] + "/" + d["scheduler"]["end"]' \
	'[x["name"] for x in d["groups"]]' "g('/wl-test/lc')['wake']['count']" \
	"g('/wl-test/lc')['burst']['count']" "g('/wl-test/bg')['burst']['count']")"
expect_eq "scheduler during the run" "${v[0]}" minimal/minimal
expect_eq "groups" "${v[1]}" "['/wl-test/bg', '/wl-test/lc']"
[ "${v[2]}" -gt 0 ] || fail "/wl-test/lc: no wakeups: $(cat /tmp/lat.json)"
[ "${v[3]}" -gt 0 ] || fail "/wl-test/lc: no run bursts: $(cat /tmp/lat.json)"
[ "${v[4]}" -gt 0 ] || fail "/wl-test/bg: no run bursts: $(cat /tmp/lat.json)"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
