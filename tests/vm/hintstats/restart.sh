# Hints live in pinned maps: a restarted loader finds every entry, after an
# orderly stop, after SIGKILL of the loader, and after the library's own
# restart (what a CPU hotplug event triggers), where the stats server keeps
# answering with the new skeleton. Placement still follows the hints.
. "$(dirname "$0")/common.inc"
start_hintpol
cgroup_at_exit $CG/hs-restart
mkdir -p $CG/hs-restart/a $CG/hs-restart/b
hintctl set cgroup $CG/hs-restart/a class=1
hintctl set cgroup $CG/hs-restart/b class=2 importance=3
sleep 600 &
sleeper=$!
hintctl set tgid $sleeper class=1
hintctl set tid $sleeper importance=2
"$HINTCTL" hold 600 5 >/tmp/hold.out &
holder=$!
for ((i = 0; i < 100; i++)); do grep -q registered /tmp/hold.out && break; sleep 0.1; done
want="cgroups=2 tgids=1 tids=1 threads=1"
expect_eq "entries" "$("$HINTCTL" count)" "$want"
expect_eq "pin directory mode" "$(stat -c %a "$PINS")" 700
for f in "$PINS"/*; do
	expect_eq "mode of $f" "$(stat -c '%a %U' "$f")" "600 root"
done

found() {
	grep -c "^hintpol: pinned hints: $want slots=1024$" /tmp/hintpol.log
}
stop_policy INT
start_hintpol
expect_eq "loader finds the hints after SIGINT" "$(found)" 1

kill -KILL "$POLICY_PID"
wait "$POLICY_PID" 2>/dev/null
wait_state disabled 20
[ -S "$SOCK" ] || fail "the killed loader's socket is gone already"
start_hintpol
expect_eq "loader finds the hints after SIGKILL" "$(found)" 1
expect_eq "entries after SIGKILL" "$("$HINTCTL" count)" "$want"
"$STAT" --policy hintpol --json >/dev/null || fail "stats after SIGKILL"

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-restart/b/cgroup.procs
release
expect_eq "cpus after the restarts" "$(gated_cpus)" 2

# the library restarts the policy itself when the kernel asks (as it does at
# a CPU hotplug for a policy without ops.cpu_online/offline; here the BPF
# side asks, on the loader's SIGUSR1)
for n in 1 2; do
	kill -USR1 "$POLICY_PID"
	for ((i = 0; i < 200; i++)); do
		r=$("$STAT" --policy hintpol --json 2>/dev/null | jq -r .restarts)
		[ "$r" = $n ] && [ "$(scx_state)" = enabled ] && break
		sleep 0.1
	done
	expect_eq "restarts the stats server reports" "$r" $n
	# (with the back-off's wait when it came within 2 s of the attach)
	grep -Eq "restarting \(#$n\)( in [0-9]+ ms \(.*\))?: restart requested by the loader" \
		/tmp/hintpol.log ||
		fail "no restart #$n logged: $(cat /tmp/hintpol.log)"
	expect_eq "loads that found the hints" "$(found)" $((n + 1))
	assert_attached hintpol
done
expect_eq "entries after two in-process restarts" "$("$HINTCTL" count)" "$want"
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-restart/a/cgroup.procs
release
expect_eq "cpus after the in-process restarts" "$(gated_cpus)" 1
note "restarts: $(grep -c restarting /tmp/hintpol.log) in-process, 2 of the loader"

kill "$holder" "$sleeper"
wait "$holder" "$sleeper" 2>/dev/null
stop_policy INT
rmdir $CG/hs-restart/a $CG/hs-restart/b $CG/hs-restart
