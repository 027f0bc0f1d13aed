# An upgrade: the loader finds the hint maps pinned by an older build, of
# hint layout 1 (task hints and slots without pid_ino, the limits and the
# generation in one writable map). It moves them aside, loads, and carries
# over what it can: the cgroup hint, and the tgid and tid hints of live
# tasks, which then apply; the hint of a pid no process has is dropped, as
# is the registered slot; each map's counts are in the log, and the old
# pins are gone.
. "$(dirname "$0")/common.inc"
cgroup_at_exit $CG/hs-upgrade
mkdir -p $CG/hs-upgrade
sh -c 'exit 0' &
dead=$!
wait "$dead"
sleep 600 &
sleeper=$!
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-upgrade/cgroup.procs
hintctl old-layout $CG/hs-upgrade "$GATED_PID" "$dead" "$sleeper"

start_hintpol
assert_attached hintpol
logged() {
	grep -qF "hintpol: hints: $1" /tmp/hintpol.log || fail "not logged: $1: $(cat /tmp/hintpol.log)"
}
logged "scxpol_hint_tgid is of layout 1 (this libscxpol's is 2): moved to $PINS/layout-1/scxpol_hint_tgid until the load"
logged "scxpol_hint_tgid of layout 1: 1 kept, 1 dropped (no live process has the id), 0 replaced by newer ones"
logged "scxpol_hint_tid of layout 1: 1 kept, 0 dropped (no live thread has the id), 0 replaced by newer ones"
logged "scxpol_hint_slots of layout 1: 0 kept, 1 dropped (registered threads"
logged "scxpol_hint_slot_idx of layout 1: 0 kept, 1 dropped (they indexed the old scxpol_hint_slots)"
logged "scxpol_hint_meta of layout 1: 0 kept, 0 dropped (the loader wrote the limits anew)"
grep -q "^hintpol: pinned hints: cgroups=1 tgids=1 tids=1 threads=0 slots=1024$" /tmp/hintpol.log ||
	fail "the loader did not find the carried hints: $(cat /tmp/hintpol.log)"
[ -e "$PINS/layout-1" ] && fail "the old pins are left: $(ls -la "$PINS/layout-1")"
expect_eq "entries" "$("$HINTCTL" count)" "cgroups=1 tgids=1 tids=1 threads=0"
expect_eq "the dead pid's hint" "$("$HINTCTL" get tgid "$dead" 2>&1 | grep -c 'no hint')" 1
expect_eq "the tid hint" "$("$HINTCTL" get tid "$sleeper")" "pool=-1 class=0 importance=2 flags=4"
expect_eq "the cgroup hint" "$("$HINTCTL" get cgroup $CG/hs-upgrade)" "pool=-1 class=1 importance=0 flags=2"
# the loader's limits, not the old map's (9 pools, 99 classes, importance <= 99)
lim=$("$HINTCTL" meta)
[[ $lim =~ ^nr_pools=2\ nr_classes=([0-9]+)\ max_importance=7\ nr_slots=1024$ ]] &&
	[ "${BASH_REMATCH[1]}" != 99 ] || fail "limits: $lim"
expect_eq "mode of the limits" "$(stat -c %a "$PINS/scxpol_hint_meta")" 600

release
note "tgid class 2 (carried) over cgroup class 1: $GATED_OUT"
expect_eq "cpus with the carried tgid hint" "$(gated_cpus)" 2
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-upgrade/cgroup.procs
release
expect_eq "cpus with the carried cgroup hint" "$(gated_cpus)" 1

# the next start finds the new layout as it is
stop_policy INT
start_hintpol
assert_attached hintpol
expect_eq "moves at the second start" "$(grep -c 'is of layout' /tmp/hintpol.log)" 0
kill "$sleeper"
wait "$sleeper" 2>/dev/null
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs-upgrade
