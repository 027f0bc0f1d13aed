# scxpol-lat's tracepoint programs pass the verifier on this kernel (the
# sched_switch/sched_wakeup prototypes and the task and cgroup fields it reads
# through CO-RE); the processed instruction counts are printed.
. "$SCXPOL_SRC/tests/vm/lib.sh"
for p in $SCXPOL_VERIFY_POLICIES; do
	out=$("$SCXPOL_BUILD/$p" --load-only --verifier-stats 2>&1) ||
		fail "$p does not load on $(uname -r): $out"
	for prog in lat_wakeup lat_wakeup_new lat_switch; do
		grep -Eq "^scxpol-lat: verifier: $prog [1-9][0-9]* insns$" <<<"$out" ||
			fail "$p: no verifier count for $prog: $out"
	done
	grep verifier <<<"$out" | sed "s/^/# $(uname -r) /"
done
expect_eq "state after load-only" "$(scx_state)" disabled
