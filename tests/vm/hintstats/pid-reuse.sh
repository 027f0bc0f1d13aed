# A pid is reused: a process with hints exits while no policy runs, and a
# new process gets its pid. The hints are the first process's: the BPF side
# ignores them for the second (counted in hint_stale; its importance and
# class do not apply), the client reports none for it, and the loader's
# prune at attach removes them though the pid is alive again.
#
# pid_max is made small so that the pid comes round after a few hundred
# forks. Hinted tasks must be in the initial PID namespace (hint clients
# refuse others), so it is that namespace's pid_max: the one global value
# on kernels without a pid_max per namespace (6.12), the initial
# namespace's on those with one (6.14 and later). The guest is the test's;
# the old value comes back however the script ends.
. "$(dirname "$0")/common.inc"
small_max=512 # at least 301: pids wrap from pid_max back to 300 (RESERVED_PIDS)
old_max=$(cat /proc/sys/kernel/pid_max)
second=
cleanup() {
	echo "$old_max" >/proc/sys/kernel/pid_max ||
		echo "# cleanup: cannot restore pid_max $old_max" >&2
	[ -n "$second" ] && kill "$second" 2>/dev/null
	cleanup_test
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# counter NAME, or 0 for one this library does not have
counter_or0() {
	"$STAT" --policy hintpol --json | jq -r ".counters.$1 // 0"
}

# start_time PID: its start (/proc/PID/stat field 22, after the name, which may hold ") ")
start_time() {
	local s
	s=$(cat "/proc/$1/stat") || fail "no /proc/$1/stat"
	s=${s##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $s
	echo "${20}"
}

# fork_into LO HI: fork short-lived children until the pid last handed out
# (/proc/loadavg's last field) is in LO..HI, a few rounds of pids at most;
# whether it came. Foreground children: bash's wait on a reused pid ($!)
# can answer with the earlier child's status and leave the new one a zombie.
fork_into() {
	local i last
	for ((i = 0; i < 3 * small_max; i++)); do
		( : )
		read -r _ _ _ _ last </proc/loadavg
		[ "$last" -ge "$1" ] && [ "$last" -le "$2" ] && return 0
	done
	return 1
}

# fork_before PID: fork short-lived children until PID is the next pid to
# be handed out: the last one is below it and every pid between is held by
# a live task, which the allocator skips (a kworker started under load may
# hold the one just below PID for good); whether it came.
fork_before() {
	local i last p
	for ((i = 0; i < 3 * small_max; i++)); do
		( : )
		read -r _ _ _ _ last </proc/loadavg
		[ "$last" -lt "$1" ] || continue
		for ((p = last + 1; p < $1; p++)); do
			[ -e "/proc/$p" ] || continue 2
		done
		return 0
	done
	return 1
}

echo "$small_max" >/proc/sys/kernel/pid_max || fail "cannot set pid_max $small_max"
expect_eq "pid_max" "$(cat /proc/sys/kernel/pid_max)" "$small_max"
start_hintpol --hint-prune 0
# a pid past 300: one that comes round once pids wrap
fork_into 300 $((small_max - 2)) || fail "no pid in 300..$((small_max - 2)) with pid_max $small_max"
sleep 600 &
first=$!
if [ "$first" -le 300 ]; then
	fail "first process: pid $first, not in 301..$((small_max - 1))"
fi
first_start=$(start_time "$first")
hintctl set tgid "$first" importance=5 class=1
hintctl set tid "$first" importance=5
# no ops.exit_task to remove them: it dies while no policy runs
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
kill "$first"
wait "$first" 2>/dev/null

# fork until $first is the next pid to be handed out, then start the second
# process held before it execs; another task (a kworker) may take $first:
# again, a round of pids later
for ((try = 0; try < 5; try++)); do
	gate_make
	fork_before "$first" ||
		fail "pid $first was not next in $((3 * small_max)) forks"
	gated "$PROBE" spin 600
	[ "$GATED_PID" -eq "$first" ] && break
	kill "$GATED_PID"
	wait "$GATED_PID" 2>/dev/null
	rm -f "$GATE"
done
expect_eq "pid of the second process" "$GATED_PID" "$first"
second=$GATED_PID
second_start=$(start_time "$second")
[ "$second_start" != "$first_start" ] ||
	fail "pid $first: the same start time $first_start, not a new task"
note "pid $first reused after $try retries (start times $first_start, $second_start)"
expect_eq "entries left by the first process" "$("$HINTCTL" count)" "cgroups=0 tgids=1 tids=1 threads=0"

start_hintpol --hint-prune 0
imp0=$(counter importance_sum)
echo go >"$GATE"
# the second process runs (spins) under the policy: wait until its hints were resolved
for ((i = 0; i < 100; i++)); do
	[ "$(counter_or0 hint_stale)" -gt 0 ] || [ "$(counter importance_sum)" != "$imp0" ] && break
	sleep 0.1
done
expect_eq "importance_sum: the first process's importance 5 is not the second's" "$(counter importance_sum)" "$imp0"
stale=$(counter hint_stale)
[ "$stale" -gt 0 ] || fail "hint_stale $stale"
note "hint_stale $stale"
out=$("$HINTCTL" get tgid "$second" 2>&1) && fail "the second process has the first's hint: $out"
expect_eq "client: the second process's hint" "$out" "hintctl: get: tgid $second: no hint (the entry for this id is of a process that is gone; the prune removes it)"
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0

# the loader's prune at attach, with the pid alive
start_hintpol
wait_count "cgroups=0 tgids=0 tids=0 threads=0"
expect_eq "entries after the loader's prune" "$("$HINTCTL" count)" "cgroups=0 tgids=0 tids=0 threads=0"
expect_eq "prune logged" "$(grep -c 'hintpol: hints: pruned 2 entries of gone tasks and cgroups' /tmp/hintpol.log)" 1
kill -0 "$second" || fail "the second process is gone"
# and the second process's own hint applies
hintctl set tgid "$second" importance=3
imp1=$(counter importance_sum)
for ((i = 0; i < 100; i++)); do
	[ "$(counter importance_sum)" -gt "$imp1" ] && break
	sleep 0.1
done
[ "$(counter importance_sum)" -gt "$imp1" ] || fail "importance_sum did not grow with the second process's own hint"
assert_attached hintpol
kill -INT "$second"
wait "$second"
release_out=$(cat /tmp/gated.out)
note "second process: $release_out"
second=
rm -f "$GATE"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
