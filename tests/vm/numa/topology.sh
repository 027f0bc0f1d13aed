# A boot with two NUMA nodes (run-suite with SCXPOL_VM_NUMA=1, vm-run
# --numa): QEMU's LLC spans both nodes, the kernel warns once in
# topology_sane and splits the LLC at the node boundary; vm-run must not take
# that warning for a crash (or this suite would fail before reporting). The
# library reads two nodes, one LLC in each, and a policy attaches and runs
# tasks in both (as many spinners as CPUs, each in sched_ext).
. "$SCXPOL_SRC/tests/vm/lib.sh"
expect_eq "online nodes" "$(cat /sys/devices/system/node/online)" 0-1
topo=$("$SCXPOL_BUILD/tools/scxpol-topo") || fail "scxpol-topo failed: $topo"
grep -qx 'nodes: 2' <<<"$topo" || fail "scxpol-topo does not see 2 nodes: $topo"
grep -qx 'llcs: 2' <<<"$topo" || fail "scxpol-topo does not see 2 LLCs: $topo"
for n in 0 1; do
	grep -Eq "^  llc [0-9]+: .* \(node $n\)$" <<<"$topo" || fail "no LLC in node $n: $topo"
done
note "$(grep -E '^(nodes|  node|  llc)' <<<"$topo" | tr -s ' ' | paste -sd';')"
warned=$(dmesg | grep -c "sibling CPU #[0-9]* is not on the same node")
note "kernel topology_sane warnings ignored by vm-run: $warned"
start_policy minimal /tmp/minimal.log "$SCXPOL_BUILD/examples/minimal/minimal"
"$PROBE" spin 10 >/tmp/a.out &
a=$!
"$PROBE" spin 10 >/tmp/b.out &
b=$!
"$PROBE" spin 10 >/tmp/c.out &
c=$!
"$PROBE" spin 10 >/tmp/d.out &
d=$!
# at once: a loaded emulator may not run this shell again for seconds (in
# a CI with 4 s spinners, one had ended before its check)
for p in $a $b $c $d; do
	in_ext $p || fail "spinner $p is not in sched_ext"
done
wait $a $b $c $d
assert_attached minimal
seen=$(for f in /tmp/[abcd].out; do field cpus "$(cat "$f")"; done | paste -sd,)
note "4 spinners under minimal ran on CPUs $seen"
for n in 0 1; do
	cpus_meet "$seen" "$(cat /sys/devices/system/node/node$n/cpulist)" ||
		fail "no spinner ran in node $n (CPUs $(cat /sys/devices/system/node/node$n/cpulist)): $seen"
done
for f in /tmp/[abcd].out; do
	[ "$(field iters "$(cat "$f")")" -gt 0 ] || fail "a spinner made no progress: $(cat "$f")"
done
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
