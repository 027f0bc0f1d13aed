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
# time limit: 600 s
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
CPU=3
CYCLES=${SCXPOL_HOTPLUG_KICK_CYCLES:-3}
ONLINE=/sys/devices/system/cpu/cpu$CPU/online
[ "$(nproc)" = 4 ] || fail "this test plans 4 CPUs, the VM has $(nproc)"
[ -w "$ONLINE" ] || fail "cpu$CPU cannot go offline here"

# iwi CPU: CPU's IRQ-work interrupts (/proc/interrupts has a column per online CPU)
iwi() {
	awk -v want="CPU$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) col = i + 1 }
		$1 == "IWI:" { print col ? $col : -1 }' /proc/interrupts
}

# event VALUE: write VALUE to cpu$CPU's online file, wait for testpol to be
# restarted for it and attached again
event() {
	local seq now i
	seq=$(cat $SCX/enable_seq)
	echo "bpflib hotplug-kick: cpu$CPU online=$1" >/dev/kmsg
	echo "$1" >"$ONLINE" || fail "cannot set cpu$CPU online=$1"
	for ((i = 0; i < 1200; i++)); do
		now=$(cat $SCX/enable_seq)
		[ "$now" -gt "$seq" ] && [ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = testpol ] &&
			return 0
		kill -0 "$POLICY_PID" 2>/dev/null ||
			fail "testpol exited after cpu$CPU online=$1: $(cat /tmp/tphk.log)"
		sleep 0.1
	done
	fail "testpol not attached again 120 s after cpu$CPU online=$1 (state $(scx_state)," \
		"enable_seq $seq -> $now): $(tail -n 5 /tmp/tphk.log)"
}

start_policy testpol /tmp/tphk.log "$TP" --kick-enqueue --rest all
seq0=$(cat $SCX/enable_seq)
spinners=()
for i in 1 2 3 4 5 6; do
	nice -n 19 "$PROBE" spin 600 >/dev/null &
	spinners+=($!)
done
trap 'kill "${spinners[@]}" 2>/dev/null; cleanup_test' EXIT
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
