# A resize while attached: swapping the domains' CPUs (SIGUSR1 makes testpol
# publish its --resize plan) moves a running task of d0 to d0's new CPUs.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/rsz

# sample_cpus PID N: SAMPLES gets N samples, 0.1 s apart, of the CPU PID
# last ran on
sample_cpus() {
	local i c
	SAMPLES=
	for ((i = 0; i < $2; i++)); do
		c=$(awk '{print $39}' "/proc/$1/stat") || fail "task $1 is gone"
		SAMPLES=$SAMPLES${SAMPLES:+,}$c
		sleep 0.1
	done
}

start_policy testpol /tmp/tp.log "$TP" --pools "d0=0-1 d1=2-3" --resize "d0=2-3 d1=0-1" \
	--comm rsz=d0
/tmp/rsz spin 600 >/tmp/rsz.out &
pid=$!
for ((i = 0; i < 100; i++)); do
	[ "$(cat /proc/$pid/comm)" = rsz ] && break
	sleep 0.1
done
expect_eq "comm of the d0 task" "$(cat /proc/$pid/comm)" rsz
sample_cpus $pid 10
before=$SAMPLES
assert_cpus_within "d0 task before the resize" "$before" 0-1
kill -USR1 "$POLICY_PID"
for ((i = 0; i < 100; i++)); do
	grep -q '^testpol: resized to generation 2: d0=2-3 d1=0-1$' /tmp/tp.log && break
	sleep 0.1
done
grep -q '^testpol: resized to generation 2' /tmp/tp.log || fail "no resize: $(cat /tmp/tp.log)"
# The commit kicks CPU 0-1 and the task moves at once; under a loaded TCG
# host the CPU it moves to may take a while to be emulated, so wait for the
# move (bounded), then require it to stay.
moved=
for ((i = 0; i < 50; i++)); do
	sample_cpus $pid 1
	[[ $SAMPLES == [23] ]] && { moved=$i; break; }
done
[ -n "$moved" ] || fail "d0 task still on CPU $SAMPLES 5 s after the resize (d0 is 2-3 now)"
sample_cpus $pid 10
after=$SAMPLES
assert_cpus_within "d0 task after the resize" "$after" 2-3
note "CPUs sampled before: $before; moved within $(((moved + 1) * 100)) ms; after: $after"
assert_attached testpol
kill $pid
wait $pid
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
expect_eq "pool_commit" "$(field pool_commit "$stats")" 2
grep -q '^testpol: pool d0 cpus=2-3 nr_cpus=2' /tmp/tp.log ||
	fail "the published table does not show d0 on 2-3: $(cat /tmp/tp.log)"
