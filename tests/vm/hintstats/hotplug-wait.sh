# A CPU hotplug event the policy recorded (ops.cpu_offline's call of
# scxpol_sched_cpu_offline(); hintpol --offline-event 1 records one while
# CPU 1 stays online): the loader waits for the CPU to be offline, stops
# waiting after 10 s with a warning naming it, and restarts the policy,
# which attaches again. With --max-restarts 0 the same event ends the
# loader with an error naming the CPU, and the machine is back on the fair
# class.
. "$(dirname "$0")/common.inc"
[ -e /sys/devices/system/cpu/cpu1/online ] || fail "needs a CPU 1 with an online file"
# (logged only when the 10 s are over)
WARNED="libscxpol: warn: hintpol: cpu 1 is not offline 10000 ms after its hotplug event; going on"

# logged LINE: the loader's log has LINE
logged() {
	grep -qxF "$1" /tmp/hintpol.log || fail "no line '$1' in the log: $(cat /tmp/hintpol.log)"
}

STATUS=0
"$HINTPOL" --offline-event 1 --max-restarts 0 >/tmp/hintpol.log 2>&1 || STATUS=$?
expect_eq "exit status at a hotplug restart with --max-restarts 0" "$STATUS" 1
logged "hintpol: attached; stats on $SOCK; SIGINT or SIGTERM detaches"
logged "$WARNED"
logged "error: hintpol: a CPU hotplug asked for a restart: cpu 1 went offline (--max-restarts is 0)"
grep -q "restarting (#" /tmp/hintpol.log && fail "restarted with --max-restarts 0: $(cat /tmp/hintpol.log)"
expect_eq "state after the loader gave up" "$(scx_state)" disabled

seq0=$(cat $SCX/enable_seq)
start_hintpol --offline-event 1
for ((i = 0; i < 300; i++)); do
	grep -q "restarting (#1)" /tmp/hintpol.log && break
	sleep 0.1
done
logged "$WARNED"
# the event came within 2 s of the attach, but the 10 s wait makes it a slow restart
logged "libscxpol: info: hintpol: restarting (#1): cpu 1 went offline"
for ((i = 0; i < 300; i++)); do
	[ "$(cat $SCX/enable_seq)" -gt $((seq0 + 1)) ] && [ "$(scx_state)" = enabled ] && break
	sleep 0.1
done
assert_attached hintpol
expect_eq "enable_seq after the restart" "$(cat $SCX/enable_seq)" $((seq0 + 2))
expect_eq "CPU 1" "$(cat /sys/devices/system/cpu/cpu1/online)" 1
stop_policy INT
expect_eq "exit status after SIGINT" "$POLICY_STATUS" 0
logged "hintpol: restarts 1"
note "a recorded offline of CPU 1, which stayed online: the warning, then restart #1, attached again"
