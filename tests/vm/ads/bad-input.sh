# Bad command lines fail before anything loads, with a message naming the
# input; the scheduler stays disabled.
. "$(dirname "$0")/common.inc"

# refuse WANT ARGS...: ads ARGS exits 2 and its message is WANT
refuse() {
	local want=$1 out rc=0
	shift
	out=$("$ADS" "$@" 2>&1) || rc=$?
	expect_eq "exit status of ads $*" "$rc" 2
	expect_eq "message of ads $*" "$out" "$want"
}

refuse "ads: --lc-cpus 4: want 1..3 (4 CPUs online; bg keeps one)" --lc-cpus 4
refuse "ads: --lc-cpus '0': want a whole number in 1..1048576" --lc-cpus 0
refuse "ads: --lc-comm 'a*b': comm pattern \"a*b\": '*' only as the last character (a prefix)" \
	--lc-comm 'a*b'
refuse "ads: --lc-comm '*': comm pattern \"*\": matches every thread (give a prefix before the '*')" \
	--lc-comm '*'
refuse "ads: --lc-comm 'sixteen-chars-xx': comm pattern \"sixteen-chars-xx\": longer than 15 characters (the kernel's comm limit)" \
	--lc-comm sixteen-chars-xx
refuse "ads: --lc-cgroup '/sys/fs/cgroup/no-such': cgroup '/sys/fs/cgroup/no-such': No such file or directory" \
	--lc-cgroup /sys/fs/cgroup/no-such
refuse "ads: --lc-cgroup '/tmp': cgroup '/tmp': not on a cgroup2 file system" --lc-cgroup /tmp
refuse "ads: --util-lo 0.9 --util-hi 0.8: want util-lo < util-hi" --util-lo 0.9 --util-hi 0.8
refuse "ads: --util-hi '1.5': want a utilisation in (0, 1]" --util-hi 1.5
refuse "ads: --interval-ms '5': want a whole number in 10..3600000" --interval-ms 5
refuse "ads: --hold sizes the pools, which --no-resize keeps fixed" --no-resize --hold 2 --util-lo 0.1
refuse "ads: --overflow-hi '1.5': want a share in [0, 1]" --overflow-hi 1.5
refuse "ads: --overflow-hi sizes the pools, which --no-resize keeps fixed" --no-resize --overflow-hi 0.3
refuse "ads: --pin-group 'no-such-group': no such group" --pin-group no-such-group
refuse "ads: unexpected argument 'extra' (see --help)" extra
expect_eq "sched_ext state" "$(scx_state)" disabled

# a good command line attaches
start_ads --lc-cpus 3 --no-resize --lc-comm 'lc-*' --lc-cgroup /sys/fs/cgroup
assert_attached ads
expect_eq "lc pool" "$(lc_cpus)" 0-2
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
