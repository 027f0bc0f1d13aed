# A policy that asks for a restart as soon as it runs, load after load:
# the library waits before each reload, twice as long each time, and a
# loader's --max-restarts N gives up at restart N+1 with an error exit that
# leaves the fair class. Without a limit the loop ends attached.
. "$(dirname "$0")/common.inc"
ASKED="restart requested by the loader"

# run_hintpol ARGS...: run the loader to its end; its status in STATUS
run_hintpol() {
	STATUS=0
	"$HINTPOL" "$@" >/tmp/hintpol.log 2>&1 || STATUS=$?
}

# logged LINE: the loader's log has LINE
logged() {
	grep -qxF "$1" /tmp/hintpol.log || fail "no line '$1' in the log: $(cat /tmp/hintpol.log)"
}

loads() {
	grep -c "^hintpol: pinned hints: " /tmp/hintpol.log
}

run_hintpol --restart-at-load 3 --max-restarts 2
expect_eq "exit status at restart #3 with --max-restarts 2" "$STATUS" 1
logged "hintpol: attached; stats on $SOCK; SIGINT or SIGTERM detaches"
for n in 1 2; do
	logged "libscxpol: info: hintpol: restarting (#$n) in $((100 << (n - 1))) ms (quick restart $n in a row: asked within 2000 ms of the attach): $ASKED"
done
logged "hintpol: restarts 2"
logged "error: hintpol: kernel asked for restart #3, over max_restarts (2): $ASKED"
expect_eq "loads" "$(loads)" 3
expect_eq "state after the loader gave up" "$(scx_state)" disabled

run_hintpol --restart-at-load 1 --max-restarts 0
expect_eq "exit status at a restart with --max-restarts 0" "$STATUS" 1
logged "error: hintpol: the kernel asked for a restart: $ASKED (--max-restarts is 0)"
grep -q restarting /tmp/hintpol.log && fail "restarted with --max-restarts 0: $(cat /tmp/hintpol.log)"
expect_eq "loads" "$(loads)" 1
expect_eq "state after the loader gave up" "$(scx_state)" disabled

# no limit: two quick restarts, then the third load stays attached
start_hintpol --restart-at-load 2
for ((i = 0; i < 300; i++)); do
	[ "$(loads)" = 3 ] && [ "$(scx_state)" = enabled ] && break
	sleep 0.1
done
expect_eq "loads" "$(loads)" 3
assert_attached hintpol
logged "libscxpol: info: hintpol: restarting (#2) in 200 ms (quick restart 2 in a row: asked within 2000 ms of the attach): $ASKED"
expect_eq "restarts the stats server reports" "$("$STAT" --policy hintpol --json | jq -r .restarts)" 2
stop_policy INT
expect_eq "exit status after SIGINT" "$POLICY_STATUS" 0

# a stop during a wait ends the loader there, and the restart it waited
# for is not counted
"$HINTPOL" --restart-at-load 100 >/tmp/hintpol.log 2>&1 &
POLICY_PID=$!
WAITING="libscxpol: info: hintpol: restarting (#6) in 3200 ms (quick restart 6 in a row: asked within 2000 ms of the attach): $ASKED"
for ((i = 0; i < 600; i++)); do
	grep -qxF "$WAITING" /tmp/hintpol.log && break
	sleep 0.1
done
logged "$WAITING"
stop_policy INT
expect_eq "exit status after SIGINT in the wait" "$POLICY_STATUS" 0
logged "hintpol: restarts 5"
expect_eq "loads" "$(loads)" 6
