# Under the minimal policy a CPU-bound and a sleep/wake workload both make
# progress, and their tasks are in the ext class: with a CPU each to spare,
# the spinner gets at least half of its 4 s, and the sleeper (1 ms sleeps,
# about 2000 wakeups in 4 s under this emulator's slow timers) at least 1000.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
"$PROBE" spin 4 >/tmp/spin.out &
spin=$!
"$PROBE" sleepwake 4 1000 >/tmp/sw.out &
sw=$!
# at once: forked under the policy, they are in the ext class from the
# start (a check after a 1 s sleep once came when the sleeper's 4 s were
# over: the CI's 6.12 boot, on a host loaded with other work)
in_ext $spin || fail "spin task $spin is not in the ext class:" \
	"$(grep ext /proc/$spin/sched 2>&1); its output: $(cat /tmp/spin.out)"
in_ext $sw || fail "sleep/wake task $sw is not in the ext class:" \
	"$(grep ext /proc/$sw/sched 2>&1); its output: $(cat /tmp/sw.out)"
assert_attached minimal
wait $spin $sw
cpu_ms=$(field cpu_ms "$(cat /tmp/spin.out)")
wakeups=$(field wakeups "$(cat /tmp/sw.out)")
note "spin: $(cat /tmp/spin.out); sleepwake: $(cat /tmp/sw.out)"
[ "${cpu_ms:-0}" -ge 2000 ] || fail "CPU-bound task got under half its 4 s: $(cat /tmp/spin.out)"
[ "${wakeups:-0}" -ge 1000 ] || fail "sleep/wake task woke under 1000 times: $(cat /tmp/sw.out)"
assert_attached minimal
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
