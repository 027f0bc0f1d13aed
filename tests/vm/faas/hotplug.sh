# CPU hotplug: the library restarts the policy after the event and it plans its
# domains again over the new topology (the configure and loaded hooks run
# again): with 2 domains, offlining the last CPU shrinks d1, onlining it
# restores the first plan, and the stats follow. With one domain per CPU,
# offlining leaves too few CPUs: the loader stops and names --domains.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
# (On 6.12 the kernel warns about its own fair-server bookkeeping when a
# CPU goes offline; scripts/vm-run knows that warning and reports it.)
n=$(nproc)
last=$((n - 1))
cpu=/sys/devices/system/cpu/cpu$last/online
[ -w "$cpu" ] || fail "cannot offline CPUs here ($cpu)"
# (the CPU comes back whatever fails: lib.sh's cleanup_test)

# restarted K: wait until the loader logged restart #K and re-attached
restarted() {
	for ((i = 0; i < 300; i++)); do
		grep -q "restarting (#$1)" /tmp/faas.log && [ "$(scx_state)" = enabled ] &&
			[ "$(grep -c '^faas: domains: ' /tmp/faas.log)" -gt "$1" ] && return 0
		sleep 0.1
	done
	fail "no restart #$1 with new domains: $(cat /tmp/faas.log)"
}

start_faas --domains 2
first=$PLAN
echo 0 >"$cpu"
restarted 1
assert_attached faas
PLAN=$(plan_printed)
expect_eq "domains after offlining CPU $last" "$PLAN" "$(sed "s/\(.*\)-$last\$/\1/;s/,$last\$//" <<<"$first")"
expect_eq "domains in the stats" "$(stat_pools)" "$PLAN"
note "CPU $last offline: $first -> $PLAN"
echo 1 >"$cpu"
restarted 2
assert_attached faas
PLAN=$(plan_printed)
expect_eq "domains after onlining CPU $last" "$PLAN" "$first"
expect_eq "domains in the stats" "$(stat_pools)" "$PLAN"
kill -0 "$POLICY_PID" || fail "loader died: $(cat /tmp/faas.log)"
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0

start_faas --domains "$n"
echo 0 >"$cpu"
rc=0
wait "$POLICY_PID" || rc=$?
expect_eq "faas exit status after losing a domain's CPU" "$rc" 1
want="faas: --domains $n: domains: $n domains need at least $n CPUs, $last are online"
grep -qxF "$want" /tmp/faas.log || fail "want '$want' in: $(cat /tmp/faas.log)"
wait_state disabled 10
echo 1 >"$cpu"
