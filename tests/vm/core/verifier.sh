# Every BPF program of every policy passes the verifier on this kernel; the
# processed instruction counts are printed for the record. Loading logs no
# deprecation warning (7.x says so for interfaces the library must route
# through compat.bpf.h).
. "$SCXPOL_SRC/tests/vm/lib.sh"
seen=$(dmesg | wc -l)
for p in $SCXPOL_VERIFY_POLICIES; do
	out=$("$SCXPOL_BUILD/$p" --load-only --verifier-stats 2>&1) ||
		fail "$p does not load on $(uname -r): $out"
	n=$(grep -c ': verifier: .* [1-9][0-9]* insns$' <<<"$out")
	[ "$n" -gt 0 ] || fail "$p printed no verifier counts: $out"
	grep verifier <<<"$out" | sed "s/^/# $(uname -r) /"
done
dep=$(dmesg | tail -n +$((seen + 1)) | grep -i 'sched_ext.*deprecated')
[ -z "$dep" ] || fail "loading logged deprecation warnings: $dep"
expect_eq "state after load-only" "$(scx_state)" disabled
