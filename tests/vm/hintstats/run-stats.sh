# A loader run with --verifier-stats (scxpol_sched_print_prog_stats) prints
# each program's verified instructions at load and, when the kernel counted
# runs (kernel.bpf_stats_enabled=1), each program's callback, run count and
# run time when the scheduler detaches; without run counting, nothing.
. "$(dirname "$0")/common.inc"
trap 'echo 0 >/proc/sys/kernel/bpf_stats_enabled; cleanup_test' EXIT

echo 0 >/proc/sys/kernel/bpf_stats_enabled
start_hintpol --verifier-stats
"$PROBE" cpus 1 >/dev/null
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
grep -q '^hintpol: verifier: hintpol_enqueue [1-9][0-9]* insns$' /tmp/hintpol.log ||
	fail "no verifier line for hintpol_enqueue: $(cat /tmp/hintpol.log)"
expect_eq "run lines without bpf_stats" "$(grep -c ': run: ' /tmp/hintpol.log)" 0

echo 1 >/proc/sys/kernel/bpf_stats_enabled
start_hintpol --verifier-stats
"$PROBE" cpus 1 >/dev/null
stop_policy INT
echo 0 >/proc/sys/kernel/bpf_stats_enabled
expect_eq "loader exit status" "$POLICY_STATUS" 0
grep ': run: ' /tmp/hintpol.log | sed 's/^/# /'
# one line per loaded program, after the detach and before the exit line
expect_eq "run lines" "$(grep -c ': run: ' /tmp/hintpol.log)" "$(grep -c ': verifier: ' /tmp/hintpol.log)"
for cb in select_cpu enqueue dispatch running stopping init exit; do
	line=$(grep "^hintpol: run: hintpol_$cb $cb " /tmp/hintpol.log) ||
		fail "no run line for $cb: $(cat /tmp/hintpol.log)"
	[[ $line =~ \ ([0-9]+)\ runs\ ([0-9]+)\ ns$ ]] || fail "bad run line: $line"
	[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[2]}" -gt 0 ] ||
		fail "$cb did not run, or took no time: $line"
done
# syscall programs are no callback
grep -q '^hintpol: run: scxpol_pool_commit - [0-9]* runs [0-9]* ns$' /tmp/hintpol.log ||
	fail "no run line for scxpol_pool_commit: $(cat /tmp/hintpol.log)"
after=$(grep -n ': run: ' /tmp/hintpol.log | tail -1 | cut -d: -f1)
ex=$(grep -n '^hintpol: exit ' /tmp/hintpol.log | cut -d: -f1)
[ "$after" -lt "$ex" ] || fail "run lines after the exit line: $(cat /tmp/hintpol.log)"
