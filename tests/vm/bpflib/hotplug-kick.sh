# Kicks made on a CPU going offline. testpol --kick-enqueue kicks at every
# enqueue, and --rest all places every task in its one pool through the
# pool helpers, as ads places its tasks; so the wakeups a dying CPU runs
# after it has left the online mask and run its IRQ work for the last time
# (its stopper thread wakes the hotplug writer) kick from there, where
# interrupts stay off until the CPU is dead. The IRQ work of such a kick
# never runs and, still queued when the CPU comes back, silences every
# later kick made there, and the next restart's disable waits for it
# forever; scxpol_pool_kick() leaves those kicks to the watch. CPU 3 goes
# offline and online CYCLES times (3; SCXPOL_HOTPLUG_KICK_CYCLES) while
# spinners keep every CPU busy. After each event the library restarts
# testpol (its ops.cpu_online/offline keep it loaded through the event);
# after each cycle, a task sleeping and waking on CPU 3 raises CPU 3's
# IRQ-work interrupt count (IWI in /proc/interrupts): the kicks it makes
# there run. (With the kicks sent straight from the dying CPU, 7.2 failed
# this at cycle 4: "IWI 2877 -> 2877 for 64 wakeups".)
#
# Each restart reloads testpol through the verifier, in the loader's own
# process: the same work as the first attach, and under the emulator, whose
# one host thread runs every vCPU in turn, as slow as the host is busy. So
# the spinners are stopped from the end of each event to the restart's
# attach (they would take three of the four vCPUs' turns from it), the
# waits poll with builtins only, and a restart may take up to
# RESTART_RATIO times the first attach's time in this boot (at least
# 120 s) before the test calls it stuck. Each restart marks progress: the
# suite runner's time limit counts per event, not for all six.
# time limit: 600 s
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
CPU=3
CYCLES=${SCXPOL_HOTPLUG_KICK_CYCLES:-3}
RESTART_RATIO=5
ONLINE=/sys/devices/system/cpu/cpu$CPU/online
[ "$(nproc)" = 4 ] || fail "this test plans 4 CPUs, the VM has $(nproc)"
[ -w "$ONLINE" ] || fail "cpu$CPU cannot go offline here"

# iwi CPU: CPU's IRQ-work interrupts (/proc/interrupts has a column per online CPU)
iwi() {
	awk -v want="CPU$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) col = i + 1 }
		$1 == "IWI:" { print col ? $col : -1 }' /proc/interrupts
}

# event VALUE: write VALUE to cpu$CPU's online file, then, the spinners
# stopped, wait for testpol to be restarted for it and attached again
event() {
	local seq now st ops t0
	read -r seq <"$SCX"/enable_seq
	echo "bpflib hotplug-kick: cpu$CPU online=$1" >/dev/kmsg
	echo "$1" >"$ONLINE" || fail "cannot set cpu$CPU online=$1"
	kill -STOP "${spinners[@]}"
	t0=$SECONDS
	for (( ; ; )); do
		read -r now <"$SCX"/enable_seq
		read -r st <"$SCX"/state
		ops=
		read -r ops 2>/dev/null <"$SCX"/root/ops
		[ "$now" -gt "$seq" ] && [ "$st" = enabled ] && [ "$ops" = testpol ] && break
		kill -0 "$POLICY_PID" 2>/dev/null ||
			fail "testpol exited after cpu$CPU online=$1: $(cat /tmp/tphk.log)"
		[ $((SECONDS - t0)) -lt "$restart_limit" ] ||
			fail "testpol not attached again ${restart_limit} s after cpu$CPU online=$1" \
				"($RESTART_RATIO times its first attach's ${attach_s} s; state $st," \
				"enable_seq $seq -> $now): $(tail -n 5 /tmp/tphk.log)"
		nap 0.1
	done
	kill -CONT "${spinners[@]}"
	progress "cpu$CPU online=$1: testpol restarted and attached in $((SECONDS - t0)) s"
}

t0=$SECONDS
start_policy testpol /tmp/tphk.log "$TP" --kick-enqueue --rest all
attach_s=$((SECONDS - t0))
restart_limit=$((RESTART_RATIO * attach_s))
[ "$restart_limit" -ge 120 ] || restart_limit=120
note "first attach in $attach_s s: a restart may take up to $restart_limit s"
read -r seq0 <"$SCX"/enable_seq
spinners=()
for i in 1 2 3 4 5 6; do
	nice -n 19 "$PROBE" spin 3600 >/dev/null &
	spinners+=($!)
done
# (a stopped spinner acts on the SIGTERM once continued)
trap 'kill "${spinners[@]}" 2>/dev/null; kill -CONT "${spinners[@]}" 2>/dev/null; cleanup_test' EXIT
for ((c = 1; c <= CYCLES; c++)); do
	event 0
	event 1
	# one restart per event, by the library (not the kernel's unload)
	expect_eq "enable_seq after cycle $c" "$(cat $SCX/enable_seq)" $((seq0 + 2 * c))
	before=$(iwi $CPU)
	out=$(taskset -c $CPU "$PROBE" sleepwake 1 10000) || fail "sleepwake on cpu$CPU: $out"
	after=$(iwi $CPU)
	note "cycle $c: cpu$CPU $(field wakeups "$out") wakeups, IWI $before -> $after"
	[ "$before" -ge 0 ] && [ "$after" -gt "$before" ] ||
		fail "cycle $c: cpu$CPU's kicks never ran: IWI $before -> $after for" \
			"$(field wakeups "$out") wakeups there (its IRQ work is stuck)"
done
assert_attached testpol
kill "${spinners[@]}"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
# (the counters of the last instance: each restart starts them at 0)
stats=$(grep '^testpol: stats' /tmp/tphk.log | tail -n 1)
note "$stats"
