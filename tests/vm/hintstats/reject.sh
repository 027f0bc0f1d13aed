# Out-of-range hints: the client refuses them with a message naming the
# range; written into the map anyway (a buggy or hostile writer), the BPF
# side ignores the bad field, counts it in hint_reject, and takes the field
# from the next source in precedence order.
. "$(dirname "$0")/common.inc"
start_hintpol
out=$("$HINTCTL" set tgid $$ class=99 2>&1) && fail "class 99 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: class 99 out of range: policy 'hintpol' accepts classes 0..$(($(nproc) - 1))"
out=$("$HINTCTL" set tgid $$ importance=8 2>&1) && fail "importance 8 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: importance 8 out of range: policy 'hintpol' accepts 0..7"
out=$("$HINTCTL" set tgid $$ pool=2 2>&1) && fail "pool 2 accepted"
expect_eq "client message" "$out" "hintctl: set: tgid $$: pool 2 out of range: policy 'hintpol' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)"

mkdir -p $CG/hs-reject
hintctl set cgroup $CG/hs-reject class=1
rej0=$(counter hint_reject)
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-reject/cgroup.procs
# straight into the map, past the client
hintctl raw tgid "$GATED_PID" class=99
release
rej1=$(counter hint_reject)
note "raw class 99 on the tgid, class 1 on the cgroup: $GATED_OUT; hint_reject +$((rej1 - rej0))"
[ "$rej1" -gt "$rej0" ] || fail "hint_reject did not grow: $rej0 -> $rej1"
expect_eq "cpus: the cgroup's class, not the rejected one" "$(gated_cpus)" 1
stop_policy INT
rmdir $CG/hs-reject
