# The under-utilised trace (simple format) replays under EEVDF: every
# invocation completes, each in its own cgroup, and the root is cleaned up.
# TCG runs the 4 vCPUs on one host thread, so the trace's work is scaled by
# 1/4 to keep a 4-CPU "under-utilised" load under-utilised here.
. "$SCXPOL_SRC/tests/vm/lib.sh"
trace=$SCXPOL_SRC/examples/faas/traces/under.csv
want=$(($(wc -l <"$trace") - 1))
expect_eq "sched_ext state" "$(scx_state)" disabled
"$SCXPOL_BUILD/examples/faas/faas-replay" --trace "$trace" --domains 2 --duration-scale 0.25 \
	--cgroup-root /sys/fs/cgroup/faas --out /tmp/under.csv >/tmp/under.out 2>&1 ||
	fail "faas-replay failed: $(cat /tmp/under.out)"
head -1 /tmp/under.out | sed 's/^/# /'
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/under.csv /tmp/under.out "$want" 2 \
	/sys/fs/cgroup/faas || exit 1
expect_eq "sched_ext state" "$(scx_state)" disabled
# --out is put in place only by a replay that ran: one that fails after
# opening it (here, on its trace) leaves the earlier results whole
"$SCXPOL_BUILD/examples/faas/faas-replay" --trace /tmp/no-such-trace.csv --domains 2 \
	--out /tmp/under.csv >/tmp/fail.out 2>&1 && fail "a replay of a missing trace succeeded"
expect_eq "failed replay's message" "$(cat /tmp/fail.out)" \
	"faas-replay: /tmp/no-such-trace.csv: No such file or directory"
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/under.csv /tmp/under.out "$want" 2 \
	/sys/fs/cgroup/faas || exit 1
expect_eq "temporary files left" "$(ls /tmp/under.csv.* 2>/dev/null)" ""
# a hangup (the replay's terminal closed) stops it as SIGINT does: bodies
# killed, their cgroups and the root removed
"$SCXPOL_BUILD/examples/faas/faas-replay" --trace "$trace" --domains 2 --duration-scale 0.25 \
	--cgroup-root /sys/fs/cgroup/faas-hup >/tmp/hup.out 2>&1 &
pid=$!
for i in $(seq 100); do
	[ -n "$(ls -d /sys/fs/cgroup/faas-hup/inv-* 2>/dev/null)" ] && break
	sleep 0.1
done
kill -HUP $pid
rc=0
wait $pid || rc=$?
expect_eq "exit status after SIGHUP" "$rc" 1
grep -q 'interrupted after' /tmp/hup.out || fail "no 'interrupted' after SIGHUP: $(cat /tmp/hup.out)"
[ ! -e /sys/fs/cgroup/faas-hup ] || fail "SIGHUP left /sys/fs/cgroup/faas-hup: $(ls /sys/fs/cgroup/faas-hup)"
