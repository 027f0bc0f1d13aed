# The control plane in the real-time class, as scripts/bench faas runs it:
# chrt -f 1 faas-replay with the under-utilised trace (work scaled by 1/4,
# as in domains_test) under faas --domains 4. The replay runs SCHED_FIFO
# throughout; the bodies it forks inherit that and leave it before they
# wait for their release (examples/faas/funcs.h). As RT tasks the RT class
# would place them (by their fork CPU, the replay's); as normal tasks the
# policy does: every invocation completes in its own cgroup and, when it
# was given a domain, runs only on that domain's CPU.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
want=$(($(wc -l <"$TRACES/under.csv") - 1))
start_faas --domains 4
hits0=$(counter hint_hit)
chrt -f 1 "$REPLAY" --sink pinned --cgroup-root /sys/fs/cgroup/faas-rt --out /tmp/rt.csv \
	--trace "$TRACES/under.csv" --domains 4 --duration-scale 0.25 >/tmp/rt.out 2>&1 &
pid=$!
sleep 2
policy=$(chrt -p "$pid" 2>&1 | sed -n 's/.*current scheduling policy: //p')
wait "$pid" || fail "chrt -f 1 faas-replay failed: $(cat /tmp/rt.out)"
expect_eq "the replay's scheduling policy while it ran" "$policy" SCHED_FIFO
got=$(sed -n 's/^faas-replay: .*; domains \(.*\), capacity .*/\1/p' /tmp/rt.out)
expect_eq "the replay's domains" "$got" "$PLAN"
assert_attached faas
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/rt.csv /tmp/rt.out "$want" 4 \
	/sys/fs/cgroup/faas-rt || exit 1
bad=$(outside /tmp/rt.csv)
[ -z "$bad" ] || fail "invocations ran outside their domain of $PLAN (id domain cpus): $bad"
hits=$(($(counter hint_hit) - hits0))
[ "$hits" -gt 0 ] || fail "the policy resolved no domain hint"
note "replay SCHED_FIFO; $(rows /tmp/rt.csv '$4 >= 0') of $want invocations in a domain," \
	"all on its CPUs; hint_hit +$hits"
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0
