# A pid is reused: a process with hints exits while no policy runs, and a
# new process gets its pid. The hints are the first process's: the BPF side
# ignores them for the second (counted in hint_stale; its importance and
# class do not apply), the client reports none for it, and the loader's
# prune at attach removes them though the pid is alive again. pid_max is
# made small so that the pid comes round after a few hundred forks.
. "$(dirname "$0")/common.inc"
old_max=$(cat /proc/sys/kernel/pid_max)
second=
cleanup() {
	[ -n "$second" ] && kill "$second" 2>/dev/null
	cleanup_policy
	echo "$old_max" >/proc/sys/kernel/pid_max
}
trap cleanup EXIT

# counter NAME, or 0 for one this library does not have
counter_or0() {
	"$STAT" --policy hintpol --json | jq -r ".counters.$1 // 0"
}

# allocations wrap from pid_max back to 300 (RESERVED_PIDS)
echo 1024 >/proc/sys/kernel/pid_max
start_hintpol --hint-prune 0
first=
for ((try = 0; try < 10; try++)); do
	sleep 600 &
	first=$!
	[ "$first" -gt 301 ] && [ "$first" -lt 1024 ] && break
	kill "$first"
	wait "$first" 2>/dev/null
done
if [ "$first" -le 301 ] || [ "$first" -ge 1024 ]; then
	fail "no pid in 302..1023 after pid_max 1024: $first"
fi
hintctl set tgid "$first" importance=5 class=1
hintctl set tid "$first" importance=5
# no ops.exit_task to remove them: it dies while no policy runs
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
kill "$first"
wait "$first" 2>/dev/null

# fork until the pid before $first was handed out, then start the second
# process held before it execs; someone else may take $first: again
for ((try = 0; try < 5; try++)); do
	for ((i = 0; i < 2000; i++)); do
		true &
		last=$!
		wait "$last"
		[ "$last" -eq $((first - 1)) ] && break
	done
	gated "$PROBE" spin 600
	[ "$GATED_PID" -eq "$first" ] && break
	kill "$GATED_PID"
	wait "$GATED_PID" 2>/dev/null
	rm -f "$GATE"
done
expect_eq "pid of the second process" "$GATED_PID" "$first"
second=$GATED_PID
note "pid $first reused after $try retries"
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
