# Hints change where the BPF side puts a task: hintpol runs a task whose
# hint has class c on CPU c only. A tid hint beats a tgid hint beats a
# cgroup hint, a cgroup's hint applies to its descendants, and fields merge
# from different levels.
. "$(dirname "$0")/common.inc"
start_hintpol
cgroup_at_exit $CG/hs-place
mkdir -p $CG/hs-place/child
hintctl set cgroup $CG/hs-place class=1
hits0=$(counter hint_hit)
placed0=$(counter class_placed)

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/cgroup.procs
release
note "cgroup class 1: $GATED_OUT"
expect_eq "cpus with a cgroup hint" "$(gated_cpus)" 1

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/child/cgroup.procs
release
expect_eq "cpus with the parent cgroup's hint" "$(gated_cpus)" 1

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/cgroup.procs
hintctl set tgid "$GATED_PID" class=2
release
note "tgid class 2 over cgroup class 1: $GATED_OUT"
expect_eq "cpus with a tgid hint over a cgroup hint" "$(gated_cpus)" 2

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/cgroup.procs
hintctl set tgid "$GATED_PID" class=2
hintctl set tid "$GATED_PID" class=3 importance=1
release
note "tid class 3 over tgid class 2: $GATED_OUT"
expect_eq "cpus with a tid hint over a tgid hint" "$(gated_cpus)" 3

# the tid hint sets only importance: the class comes from the tgid
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/cgroup.procs
hintctl set tgid "$GATED_PID" class=2
hintctl set tid "$GATED_PID" importance=4
imp0=$(counter importance_sum)
release
expect_eq "cpus with class from the tgid, importance from the tid" "$(gated_cpus)" 2
imp1=$(counter importance_sum)
[ $((imp1 - imp0)) -ge 4 ] || fail "importance 4 of the tid hint not seen: importance_sum $imp0 -> $imp1"

# hints of a live task can be read back and cleared
out=$("$HINTCTL" get cgroup $CG/hs-place) || fail "get: $out"
expect_eq "cgroup hint read back" "$out" "pool=-1 class=1 importance=0 flags=2"
hits1=$(counter hint_hit)
placed1=$(counter class_placed)
[ "$hits1" -gt "$hits0" ] || fail "hint_hit did not grow: $hits0 -> $hits1"
[ "$placed1" -gt "$placed0" ] || fail "class_placed did not grow: $placed0 -> $placed1"
note "hint_hit +$((hits1 - hits0)), class_placed +$((placed1 - placed0))"
hintctl clear cgroup $CG/hs-place
out=$("$HINTCTL" get cgroup $CG/hs-place 2>&1) && fail "a hint is left after clear: $out"
# a task in the cleared cgroup has no class: hintpol places none of its runs
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-place/cgroup.procs
release
note "hint cleared: $GATED_OUT"
expect_eq "class placements after the clear" "$(counter class_placed)" "$placed1"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs-place/child $CG/hs-place
