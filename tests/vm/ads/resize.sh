# The lc pool follows its load: three lc spinners (a load step from nothing
# to 3 CPUs' worth) grow it from 1 CPU to 3, the most the bg pool lets go,
# in topology order (0-2); when they stop, it shrinks back to 1 CPU. Each
# resize is a new published generation, visible in the stats server's pool
# table.
. "$(dirname "$0")/common.inc"
start_ads --lc-cpus 1 --lc-comm 'lcstep*' --interval-ms 100 --hold 2 --util-lo 0.3 --util-hi 0.7
assert_attached ads
expect_eq "lc pool at start" "$(lc_cpus)" 0

# lc_nr: the number of CPUs of the published lc pool
lc_nr() {
	snapshot | jq -r '.pools[] | select(.name == "lc") | .nr_cpus'
}

# wait_lc N SECS: wait until the published lc pool has N CPUs
wait_lc() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ "$(lc_nr)" = "$1" ] && return 0
		sleep 0.1
	done
	fail "lc pool is '$(lc_cpus)' after $2 s, want $1 CPUs: $(cat /tmp/ads.log)"
}

# idle: the lc demand is ~0, under the band, but the pool is at its minimum
sleep 1
expect_eq "lc pool while idle" "$(lc_cpus)" 0
commits0=$(counter pool_commit)
spin lcstep1 600; s1=$SPIN_PID
spin lcstep2 600; s2=$SPIN_PID
spin lcstep3 600; s3=$SPIN_PID
wait_lc 3 20
expect_eq "lc pool grown" "$(lc_cpus)" 0-2
note "grown: $(grep 'resized' /tmp/ads.log | tail -n 1)"
assert_attached ads
kill $s1 $s2 $s3
wait $s1 $s2 $s3 2>/dev/null
wait_lc 1 20
note "shrunk: $(grep 'resized' /tmp/ads.log | tail -n 1)"
commits=$(( $(counter pool_commit) - commits0 ))
[ "$commits" -ge 2 ] || fail "$commits publications for a grow and a shrink: $(snapshot)"
expect_eq "CPUs of bg after the shrink" \
	"$(snapshot | jq -r '.pools[] | select(.name == "bg") | .nr_cpus')" 3
assert_attached ads
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
