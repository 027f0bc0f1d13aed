# Bad options are refused with a message naming the input, before anything
# is loaded; the largest valid domain count (one per vCPU) then attaches.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
n=$(nproc)
# expect_refused MESSAGE ARGS...: faas ARGS exits 2 and prints MESSAGE
expect_refused() {
	local want=$1 out rc=0
	shift
	out=$("$FAAS" "$@" 2>&1) || rc=$?
	expect_eq "faas $* exit status" "$rc" 2
	grep -qxF "$want" <<<"$out" || fail "faas $*: want '$want', got: $out"
	expect_eq "state after faas $*" "$(scx_state)" disabled
}
expect_refused "faas: --domains $((n + 1)): domains: $((n + 1)) domains need at least $((n + 1)) CPUs, $n are online" \
	--domains $((n + 1))
expect_refused "faas: --domains $((n + 1)): domains: $((n + 1)) domains need at least $((n + 1)) CPUs, $n are online" \
	--paper --domains $((n + 1))
expect_refused "faas: --domains '0': want a whole number in 1..1024" --domains 0
expect_refused "faas: --switch 'some': want all or partial" --paper --switch some
expect_refused "faas: --steal and --no-steal: give one" --paper --steal --no-steal
expect_refused "faas: --slice-us 'x': want a whole number in 1..1000000" --slice-us x
expect_refused "faas: --reset-every '-1': want a whole number in 0..1000000" --reset-every -1
expect_refused "faas: --pin-group 'no-such-group': no such group" --pin-group no-such-group
expect_refused "faas: unexpected argument 'extra' (see --help)" extra
start_faas --domains "$n"
assert_attached faas
expect_eq "domains published" "$(wc -w <<<"$PLAN")" "$n"
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0
