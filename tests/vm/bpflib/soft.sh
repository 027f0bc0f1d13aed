# Soft pools: background tasks borrow the idle CPUs of the latency-critical
# pool, and give them back (reclaim) when critical work arrives; critical
# tasks run only on their own CPUs.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/bgspin
ln -sf "$PROBE" /tmp/lcspin
start_policy testpol /tmp/tp.log "$TP" --pools "lc=0-1 bg=2-3" --flags soft \
	--comm bgspin=bg --comm lcspin=lc
for i in 1 2 3 4; do
	/tmp/bgspin spin 6 >/tmp/bg-$i.out &
done
sleep 2
assert_attached testpol
/tmp/lcspin spin 3 >/tmp/lc-1.out &
/tmp/lcspin spin 3 >/tmp/lc-2.out &
wait
seen=
for i in 1 2 3 4; do
	seen=$seen${seen:+,}$(field cpus "$(cat /tmp/bg-$i.out)")
	note "bg task $i: $(cat /tmp/bg-$i.out)"
done
cpus_meet "$seen" 0-1 || fail "no background task borrowed lc's CPUs 0-1 (cpus=$seen)"
for i in 1 2; do
	assert_cpus_within "lc task $i" "$(field cpus "$(cat /tmp/lc-$i.out)")" 0-1
	note "lc task $i: $(cat /tmp/lc-$i.out)"
done
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
borrowed=$(($(field dispatch_borrow "$stats") + $(field borrow_idle "$stats")))
[ "$borrowed" -gt 0 ] || fail "nothing borrowed: $stats"
[ "$(field reclaim "$stats")" -gt 0 ] || fail "no CPU reclaimed for lc: $stats"
note "$stats"
