# A resize to fewer pools: pool hints follow the published plan. A cgroup
# hint naming a pool the new plan does not have is refused by the client;
# written before the resize, it stays in the map but the BPF side ignores
# its pool and counts it in hint_reject, while its other fields still apply
# and the task runs.
. "$(dirname "$0")/common.inc"
start_hintpol --pool-plan "a=0 b=1 c=2-3" --resize "a=0-1 b=2-3"
cgroup_at_exit $CG/hs-resize
mkdir -p $CG/hs-resize
hintctl set cgroup $CG/hs-resize pool=2 class=1
id=$(stat -c %i $CG/hs-resize)

rej0=$(counter hint_reject)
gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-resize/cgroup.procs
release
expect_eq "cpus before the resize" "$(gated_cpus)" 1
expect_eq "hint_reject before the resize (pool 2 exists)" "$(counter hint_reject)" "$rej0"

kill -USR2 "$POLICY_PID"
for ((i = 0; i < 100; i++)); do
	grep -q '^hintpol: resized to 2 pools$' /tmp/hintpol.log && break
	sleep 0.1
done
grep -q '^hintpol: resized to 2 pools$' /tmp/hintpol.log || fail "no resize: $(cat /tmp/hintpol.log)"
expect_eq "pools in the stats" "$("$STAT" --policy hintpol --json | jq -r '[.pools[].cpus] | join(" ")')" "0-1 2-3"

out=$("$HINTCTL" set cgroup $CG/hs-resize pool=2 2>&1) && fail "pool 2 accepted after the resize"
expect_eq "client message" "$out" "hintctl: set: cgroup $CG/hs-resize: cgroup id $id: pool 2 out of range: policy 'hintpol' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)"
expect_eq "the stale hint is still there" "$("$HINTCTL" get cgroup $CG/hs-resize)" "pool=2 class=1 importance=0 flags=3"

gated "$PROBE" cpus 1
echo "$GATED_PID" >$CG/hs-resize/cgroup.procs
release
rej1=$(counter hint_reject)
note "pool 2 after the resize to 2 pools: $GATED_OUT; hint_reject +$((rej1 - rej0))"
[ "$rej1" -gt "$rej0" ] || fail "hint_reject did not grow for the removed pool: $rej0 -> $rej1"
expect_eq "cpus: the hint's class still applies" "$(gated_cpus)" 1

hintctl set cgroup $CG/hs-resize pool=1 class=1
assert_attached hintpol
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/hs-resize
