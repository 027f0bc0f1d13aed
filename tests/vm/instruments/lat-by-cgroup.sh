# --by cgroup names groups by cgroup path, and --filter-cgroup keeps only a
# subtree: two probes in two cgroups are counted apart, nothing else is seen.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
cgroup_at_exit /sys/fs/cgroup/lat-test
mkdir -p /sys/fs/cgroup/lat-test/a /sys/fs/cgroup/lat-test/b
start_lat /tmp/lat.json --by cgroup --filter-cgroup /lat-test --json
run_in_cgroup lat-test/a "$PROBE" sleepwake 2 1000 >/tmp/a.out &
pa=$!
run_in_cgroup lat-test/b "$PROBE" sleepwake 2 4000 >/tmp/b.out
wait $pa
stop_lat
mapfile -t v <<<"$(json_eval /tmp/lat.json '[x["name"] for x in d["groups"]]' 'g("/lat-test/a")["cgroup_id"]')"
expect_eq "groups" "${v[0]}" "['/lat-test/a', '/lat-test/b']"
expect_eq "cgroup id of /lat-test/a" "${v[1]}" "$(stat -c %i /sys/fs/cgroup/lat-test/a)"
check_wakeups /tmp/lat.json /lat-test/a "$(field wakeups "$(cat /tmp/a.out)")"
check_wakeups /tmp/lat.json /lat-test/b "$(field wakeups "$(cat /tmp/b.out)")"
rmdir /sys/fs/cgroup/lat-test/a /sys/fs/cgroup/lat-test/b /sys/fs/cgroup/lat-test
