# Lending and borrowing (the ads setup): background tasks (bg BORROWs) run
# on the idle CPU of the latency-critical pool (lc LENDs), and give it back
# (reclaim) as soon as critical work arrives: each time the lc worker wakes
# (it runs 2 ms, sleeps 2 ms) while a bg task holds lc's CPU (five bg tasks
# for bg's three CPUs: one is always waiting to borrow), the CPU is taken
# back. The critical task runs only on lc's CPU. The bg tasks spin until
# told to stop: in a slow guest, spinners with a fixed run time could end
# before the lc worker started, leaving nothing to reclaim.
. "$SCXPOL_SRC/tests/vm/lib.sh"
TP=$SCXPOL_BUILD/tests/bpf/testpol
ln -sf "$PROBE" /tmp/bgspin
ln -sf "$PROBE" /tmp/lcwork
start_policy testpol /tmp/tp.log "$TP" --pools "lc=0 bg=1-3" --pool-flags lc=lend \
	--pool-flags bg=borrow --comm bgspin=bg --comm lcwork=lc
bg=()
for i in 1 2 3 4 5; do
	/tmp/bgspin spin 600 >/tmp/bg-$i.out &
	bg+=($!)
done
sleep 2
assert_attached testpol
/tmp/lcwork worker 3 2000 2000 >/tmp/lc.out
for p in "${bg[@]}"; do
	kill -0 "$p" 2>/dev/null || fail "bg task $p ended before the lc worker did"
done
kill -INT "${bg[@]}"
wait "${bg[@]}"
seen=
for i in 1 2 3 4 5; do
	seen=$seen${seen:+,}$(field cpus "$(cat /tmp/bg-$i.out)")
	note "bg task $i: $(cat /tmp/bg-$i.out)"
done
cpus_meet "$seen" 0 || fail "no background task borrowed lc's CPU 0 (cpus=$seen)"
assert_cpus_within "lc task" "$(field cpus "$(cat /tmp/lc.out)")" 0
note "lc task: $(cat /tmp/lc.out)"
assert_attached testpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
stats=$(grep '^testpol: stats' /tmp/tp.log | tail -n 1)
borrowed=$(($(field dispatch_borrow "$stats") + $(field borrow_idle "$stats")))
[ "$borrowed" -gt 0 ] || fail "nothing borrowed: $stats"
[ "$(field reclaim "$stats")" -gt 0 ] || fail "no CPU reclaimed for lc: $stats"
note "$stats"
