# Exclusive domains: tasks placed in a domain, by comm or by pid, run only on
# its CPUs, even when their domain is overloaded and the other one idles;
# nothing is stolen or borrowed.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/d0spin
mkfifo /tmp/go
# placed by pid: the process exists before the policy starts, spins after
( read -r _ </tmp/go; exec "$PROBE" spin 4 ) >/tmp/p1.out &
p1=$!
pids=($p1)
start_policy testpol /tmp/tp.log "$TP" --pools "d0=0-1 d1=2-3" --comm d0spin=d0 --pid "$p1=d1"
echo go >/tmp/go
in_ext "$p1" || fail "pid-placed task $p1 is not in the ext class"
for i in 1 2 3; do
	/tmp/d0spin spin 4 >/tmp/d0-$i.out &
	pids+=($!)
done
assert_attached testpol
wait "${pids[@]}"
for i in 1 2 3; do
	assert_cpus_within "d0 task $i" "$(field cpus "$(cat /tmp/d0-$i.out)")" 0-1
	note "d0 task $i: $(cat /tmp/d0-$i.out)"
done
assert_cpus_within "d1 task (by pid)" "$(field cpus "$(cat /tmp/p1.out)")" 2-3
note "d1 task: $(cat /tmp/p1.out)"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
expect_eq "dispatch_steal" "$(field dispatch_steal "$stats")" 0
expect_eq "dispatch_borrow" "$(field dispatch_borrow "$stats")" 0
expect_eq "borrow_idle" "$(field borrow_idle "$stats")" 0
[ "$(field dispatch_pool "$stats")" -gt 0 ] || fail "no dispatch from a domain queue: $stats"
note "$stats"
