# Busy-poll de-prioritisation changes who gets the CPU: six poll bodies
# (0.8 s of CPU each, never sleeping) keep domain d0 (two CPUs) busy, four
# of them always queued, while twelve io bodies (1 ms bursts, 2 ms sleeps)
# arrive; the control plane puts every invocation in d0 (capacity 100), so
# d1's idle CPUs serve the shared queue, where faas-replay itself runs,
# without delay. Both runs use --reset-every 1, which makes Algorithm 1
# plain FIFO on the domain's clock, so the demotion is the only thing that
# can put the workers ahead (at the default reset the sleep-frequency rule
# already does). Each body's work is fixed, so how long it takes measures
# the CPU share it got; the io bodies' share relative to the pollers' is
# their mean worker time divided by the pollers' (a ratio within one run,
# so a host that slows the whole VM down cancels out). With --busy-poll the
# pollers are demoted (counted) and that ratio drops: direction with a
# margin (at least 20 % lower), not a time.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
trace=/tmp/poll.csv
echo "function,arrival_ms,duration_ms,kind" >$trace
for i in 0 1 2 3 4 5; do echo "poller,$i,800,poll" >>$trace; done
for i in $(seq 0 11); do echo "worker,$((50 + i * 100)),300,io" >>$trace; done

# run NAME ARGS...: replay under faas --domains 2 --reset-every 1 ARGS; sets
# IO and POLL (mean worker ms of the io and poll bodies), DEMOTED
run() {
	local name=$1
	shift
	start_faas --domains 2 --reset-every 1 "$@"
	replay "$name" --trace $trace --domains 2 --capacity 100
	assert_attached faas
	"$SCXPOL_SRC/tests/vm/faas-replay/check-results" "/tmp/$name.csv" "/tmp/$name.out" 18 2 \
		"/sys/fs/cgroup/faas-$name" || exit 1
	expect_eq "$name: invocations in d0" "$(rows "/tmp/$name.csv" '$4 == 0')" 18
	IO=$(awk -F, 'NR > 1 && $3 == "io" { s += $12; n++ } END { printf "%.0f", s / n }' "/tmp/$name.csv")
	POLL=$(awk -F, 'NR > 1 && $3 == "poll" { s += $12; n++ } END { printf "%.0f", s / n }' "/tmp/$name.csv")
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
io_fifo=$IO poll_fifo=$POLL
run busy --busy-poll
[ "$DEMOTED" -gt 0 ] || fail "--busy-poll: busy_poll_demote is 0"
note "mean worker ms without --busy-poll: io ${io_fifo}, poll ${poll_fifo}" \
	"(io/poll $(ratio "$io_fifo" "$poll_fifo")); with: io ${IO}, poll ${POLL}" \
	"(io/poll $(ratio "$IO" "$POLL")); busy_poll_demote $DEMOTED"
# IO / POLL <= 0.8 * io_fifo / poll_fifo
[ $((IO * poll_fifo * 10)) -le $((io_fifo * POLL * 8)) ] ||
	fail "with --busy-poll the io bodies took $(ratio "$IO" "$POLL") x the pollers' time," \
		"not clearly less than $(ratio "$io_fifo" "$poll_fifo") x without"
