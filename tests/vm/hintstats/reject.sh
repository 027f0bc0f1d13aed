# Out-of-range hints: the client refuses them with a message naming the
# range; written into the map anyway (a buggy or hostile writer), the BPF
# side ignores the bad field, counts it in hint_reject, and takes the field
# from the next source in precedence order. Hints for a dead process: the
# client refuses them; written anyway, nothing resolves them and the pruner
# removes and counts them (here the client's prune: the loader's own, every
# 60 s by default, is off, so that it cannot remove them first). (A pool a
# resize removed: pool-resize.sh.)
. "$(dirname "$0")/common.inc"
start_hintpol --hint-prune 0
out=$("$HINTCTL" set tgid $$ class=99 2>&1) && fail "class 99 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: class 99 out of range: policy 'hintpol' accepts classes 0..$(($(nproc) - 1))"
out=$("$HINTCTL" set tgid $$ importance=8 2>&1) && fail "importance 8 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: importance 8 out of range: policy 'hintpol' accepts 0..7"
out=$("$HINTCTL" set tgid $$ pool=2 2>&1) && fail "pool 2 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: pool 2 out of range: policy 'hintpol' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)"

cgroup_at_exit $CG/hs-reject
mkdir -p $CG/hs-reject
hintctl set cgroup $CG/hs-reject class=1
rej0=$(counter hint_reject)
# Straight into the map, past the client, and before the move: a raw write
# bumps no generation, so only the move (a new cgroup id) makes the task
# resolve its hint again. Written after it, the hint would be missed if the
# gated shell, not yet asleep on the gate, had been enqueued in between.
gated "$PROBE" cpus 1
hintctl raw tgid "$GATED_PID" class=99
echo "$GATED_PID" >$CG/hs-reject/cgroup.procs
release
rej1=$(counter hint_reject)
note "raw class 99 on the tgid, class 1 on the cgroup: $GATED_OUT; hint_reject +$((rej1 - rej0))"
[ "$rej1" -gt "$rej0" ] || fail "hint_reject did not grow: $rej0 -> $rej1"
expect_eq "cpus: the cgroup's class, not the rejected one" "$(gated_cpus)" 1

# a pool out of range (hintpol accepts pools 0..1), straight into the map
gated "$PROBE" cpus 1
hintctl raw tgid "$GATED_PID" pool=7
echo "$GATED_PID" >$CG/hs-reject/cgroup.procs
release
rej2=$(counter hint_reject)
note "raw pool 7 on the tgid: $GATED_OUT; hint_reject +$((rej2 - rej1))"
[ "$rej2" -gt "$rej1" ] || fail "hint_reject did not grow for pool 7: $rej1 -> $rej2"
expect_eq "cpus: the cgroup's class still applies" "$(gated_cpus)" 1

# a dead process: refused; written anyway, pruned and counted. (An exited,
# reaped child's pid, found without a kill: a CI run once saw the loader
# stopped by a signal at this step, sent by a kill of a sleep, it seemed.)
dead=$(sh -c 'echo $$')
[ ! -e /proc/$dead ] || fail "pid $dead of an exited process is in use again"
out=$("$HINTCTL" set tgid $dead class=1 2>&1) && fail "a hint for dead process $dead accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $dead: no such process (ids are those of the initial PID namespace)"
out=$("$HINTCTL" set tid $dead importance=1 2>&1) && fail "a hint for dead thread $dead accepted"
expect_eq "client message" "$out" "hintctl: set: tid $dead: no such thread (ids are those of the initial PID namespace)"
hintctl raw tgid $dead class=1
hintctl raw tid $dead importance=1
expect_eq "entries with the dead process's" "$("$HINTCTL" count)" "cgroups=1 tgids=1 tids=1 threads=0"
expect_eq "prune" "$("$HINTCTL" prune)" "removed=2"
expect_eq "entries after prune" "$("$HINTCTL" count)" "cgroups=1 tgids=0 tids=0 threads=0"
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs-reject
