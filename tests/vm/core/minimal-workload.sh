# Under the minimal policy a CPU-bound and a sleep/wake workload both make
# progress, and their tasks are in the ext class.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
"$PROBE" spin 4 >/tmp/spin.out &
spin=$!
"$PROBE" sleepwake 4 1000 >/tmp/sw.out &
sw=$!
sleep 1
in_ext $spin || fail "spin task $spin is not in the ext class: $(grep ext /proc/$spin/sched)"
in_ext $sw || fail "sleep/wake task $sw is not in the ext class"
assert_attached minimal
wait $spin $sw
iters=$(field iters "$(cat /tmp/spin.out)")
wakeups=$(field wakeups "$(cat /tmp/sw.out)")
note "spin: $(cat /tmp/spin.out); sleepwake: $(cat /tmp/sw.out)"
[ "${iters:-0}" -gt 100 ] || fail "CPU-bound task made no progress: $(cat /tmp/spin.out)"
[ "${wakeups:-0}" -gt 100 ] || fail "sleep/wake task made no progress: $(cat /tmp/sw.out)"
assert_attached minimal
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
