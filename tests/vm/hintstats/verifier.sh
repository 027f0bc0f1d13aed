# The hint test policy passes the verifier on this kernel; processed
# instruction counts are printed for the record.
. "$(dirname "$0")/common.inc"
for p in $SCXPOL_VERIFY_POLICIES; do
	out=$("$SCXPOL_BUILD/$p" --load-only --verifier-stats 2>&1) ||
		fail "$p does not load on $(uname -r): $out"
	n=$(grep -c ': verifier: .* [1-9][0-9]* insns$' <<<"$out")
	[ "$n" -gt 0 ] || fail "$p printed no verifier counts: $out"
	grep verifier <<<"$out" | sed "s/^/# $(uname -r) /"
done
expect_eq "state after load-only" "$(scx_state)" disabled
