# Under the minimal policy a CPU-bound and a sleep/wake workload both make
# progress, and their tasks are in the ext class: with a CPU each to spare,
# the spinner gets at least half of its 4 s, and the sleeper (1 ms sleeps)
# wakes at least half as often as it does under the fair class in the same
# boot just before. (An absolute count measured the host: 445 wakeups in
# 4 s on a loaded host, about 2000 on a quiet one.)
. "$SCXPOL_SRC/tests/vm/lib.sh"
base=$("$PROBE" sleepwake 2 1000)
base_wakeups=$(field wakeups "$base")
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
note "spin: $(cat /tmp/spin.out); sleepwake: $(cat /tmp/sw.out); fair class, 2 s alone: $base"
[ "${cpu_ms:-0}" -ge 2000 ] || fail "CPU-bound task got under half its 4 s: $(cat /tmp/spin.out)"
[ "${base_wakeups:-0}" -gt 0 ] || fail "the fair-class sleep/wake run printed no wakeups: $base"
# per second: under the policy (4 s) at least half the fair class's (2 s)
[ $((${wakeups:-0} * 2)) -ge "$base_wakeups" ] ||
	fail "sleep/wake task woke ${wakeups:-0} times in 4 s, under half its fair-class rate ($base_wakeups in 2 s)"
assert_attached minimal
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
