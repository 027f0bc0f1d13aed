# Under the minimal policy scxpol-workload places its two processes in their
# cgroups, and scxpol-lat --by cgroup reports both groups.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
mkdir -p /sys/fs/cgroup/wl-test
start_lat /tmp/lat.json --by cgroup --filter-cgroup /wl-test --json
"$SCXPOL_BUILD/tools/scxpol-workload" --duration 3 --worker-cgroup wl-test/lc \
	--hog-cgroup /wl-test/bg >/tmp/wl.out || fail "scxpol-workload failed: $(cat /tmp/wl.out)"
stop_lat
assert_attached minimal
tail -n 1 /tmp/wl.out >/tmp/wl.json
sed -n '1,5s/^/# /p' /tmp/wl.out
[ "$(json_eval /tmp/wl.json 'd["requests"]')" -gt 0 ] || fail "no requests: $(cat /tmp/wl.out)"
[ "$(json_eval /tmp/wl.json 'd["bg_units"]')" -gt 0 ] || fail "no background units: $(cat /tmp/wl.out)"
expect_eq "scheduler during the run" "$(json_eval /tmp/lat.json 'd["scheduler"]["start"] + "/" + d["scheduler"]["end"]')" \
	minimal/minimal
expect_eq "groups" "$(json_eval /tmp/lat.json '[x["name"] for x in d["groups"]]')" \
	"['/wl-test/bg', '/wl-test/lc']"
for grp in /wl-test/lc /wl-test/bg; do
	[ "$(json_eval /tmp/lat.json "g('$grp')['burst']['count']")" -gt 0 ] ||
		fail "$grp: no run bursts: $(cat /tmp/lat.json)"
done
[ "$(json_eval /tmp/lat.json "g('/wl-test/lc')['wake']['count']")" -gt 0 ] || fail "lc: no wakeups"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
