# Busy-poll de-prioritisation changes who gets the CPU: six poll bodies
# (spinning for 1.5 s until their event, never sleeping) keep domain d0
# (two CPUs) busy, four of them always queued, while twelve io bodies (1 ms
# bursts, 2 ms sleeps) arrive, the last at 1.15 s; the control plane puts every invocation in d0 (capacity 100), so
# d1's idle CPUs serve the shared queue, where faas-replay itself runs,
# without delay. Both runs use --reset-every 1, which makes Algorithm 1
# plain FIFO on the domain's clock, so the demotion is the only thing that
# can put the workers ahead (at the default reset the sleep-frequency rule
# already does).
# Measured per kind, from scxpol-lat's per-cgroup report (each invocation
# is its own cgroup; the results CSV maps cgroup ids to kinds): the mean
# run-queue delay, how long a runnable body waited for a CPU. The io
# bodies' delay relative to the pollers' is a ratio within one run, so a
# host that slows the whole VM down cancels out (the bodies' wall times do
# not: under TCG an io body's is mostly late timer wakeups). With
# --busy-poll the pollers are demoted (counted) and the io bodies stop
# waiting behind them: that ratio drops by at least half. A direction with
# a margin, not a time. The CPU the pollers burn is reported, not asserted:
# demotion only reorders, so they still fill d0 whenever no io body is
# runnable, and how much the io bodies overlap their 1.5 s depends on how
# late a busy host starts them.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
trace=/tmp/poll.csv
echo "function,arrival_ms,duration_ms,kind" >$trace
for i in 0 1 2 3 4 5; do echo "poller,$i,1500,poll" >>$trace; done
for i in $(seq 0 11); do echo "worker,$((50 + i * 100)),300,io" >>$trace; done

# by_kind NAME: "IO_US POLL_US IO_CPU_MS POLL_CPU_MS": mean run-queue delay
# and CPU time of the io and of the poll bodies of run NAME
by_kind() {
	/usr/bin/python3 -I - "/tmp/lat-$1.json" "/tmp/$1.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
kind = {int(r["cgroup_id"]): r["kind"] for r in csv.DictReader(open(sys.argv[2]))}
acc = {"io": [0, 0, 0], "poll": [0, 0, 0]}  # delay ns, delays, CPU ns
for g in d["groups"]:
    k = kind.get(g.get("cgroup_id"))
    if k in acc:
        acc[k][0] += g["rqdelay"]["mean_ns"] * g["rqdelay"]["count"]
        acc[k][1] += g["rqdelay"]["count"]
        acc[k][2] += g["burst"]["mean_ns"] * g["burst"]["count"]
if not acc["io"][1] or not acc["poll"][1]:
    sys.exit("no run-queue delays of io or poll bodies in " + sys.argv[1])
print(*[acc[k][0] // acc[k][1] // 1000 for k in ("io", "poll")],
      *[acc[k][2] // 1000000 for k in ("io", "poll")])
PY
}

# run NAME ARGS...: replay under faas --domains 2 --reset-every 1 ARGS with
# scxpol-lat watching the bodies; sets IO_US POLL_US IO_CPU POLL_CPU, DEMOTED
run() {
	local name=$1 v
	shift
	start_faas --domains 2 --reset-every 1 "$@"
	start_lat "/tmp/lat-$name.json" --by cgroup --filter-comm faas-replay --json
	replay "$name" --trace $trace --domains 2 --capacity 100
	stop_lat
	assert_attached faas
	"$SCXPOL_SRC/tests/vm/faas-replay/check-results" "/tmp/$name.csv" "/tmp/$name.out" 18 2 \
		"/sys/fs/cgroup/faas-$name" || exit 1
	expect_eq "$name: invocations in d0" "$(rows "/tmp/$name.csv" '$4 == 0')" 18
	v=$(by_kind "$name") || fail "$name: $v"
	read -r IO_US POLL_US IO_CPU POLL_CPU <<<"$v"
	DEMOTED=$(counter busy_poll_demote)
	stop_policy INT
	expect_eq "faas exit status" "$POLICY_STATUS" 0
}

# ratio A B: A / B with two decimals
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

run fifo
expect_eq "demotions without --busy-poll" "$DEMOTED" 0
io_fifo=$IO_US poll_fifo=$POLL_US
note "without --busy-poll: mean run-queue delay io ${IO_US} us, poll ${POLL_US} us" \
	"(io/poll $(ratio "$IO_US" "$POLL_US")); CPU io ${IO_CPU} ms, poll ${POLL_CPU} ms"
run busy --busy-poll
[ "$DEMOTED" -gt 0 ] || fail "--busy-poll: busy_poll_demote is 0"
note "with --busy-poll: mean run-queue delay io ${IO_US} us, poll ${POLL_US} us" \
	"(io/poll $(ratio "$IO_US" "$POLL_US")); CPU io ${IO_CPU} ms, poll ${POLL_CPU} ms;" \
	"busy_poll_demote $DEMOTED"
# IO_US / POLL_US <= 0.75 * io_fifo / poll_fifo: demoting the pollers
# moves the io bodies' share of the waiting clearly; how far depends on
# the host's load (0.28 against 0.50 in a loaded CI, 0.56 x)
[ $((IO_US * poll_fifo * 4)) -le $((io_fifo * POLL_US * 3)) ] ||
	fail "with --busy-poll the io bodies waited $(ratio "$IO_US" "$POLL_US") x as long as the" \
		"pollers, not clearly less than $(ratio "$io_fifo" "$poll_fifo") x without"
