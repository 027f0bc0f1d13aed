# The stats socket's path: a second loader of a running policy refuses,
# naming the socket, and leaves the first one's socket, scheduler and
# hints alone; a loader given a path that holds a file (or a live socket
# of another kind) refuses and leaves it as it was.
. "$(dirname "$0")/common.inc"
trap 'cleanup_policy' EXIT
start_hintpol
hintctl set tgid $$ class=1
ino=$(stat -c %i "$SOCK")
out=$(timeout 60 "$HINTPOL" 2>&1) && fail "a second loader ran: $out"
grep -qF "a stats server already answers on $SOCK (is the policy running twice?)" <<<"$out" ||
	fail "second loader's message: $out"
note "$(tail -n 1 <<<"$out")"
assert_attached hintpol
expect_eq "the first loader's socket" "$(stat -c %i "$SOCK")" "$ino"
expect_eq "policy in a snapshot" "$("$STAT" --policy hintpol --json | jq -r .policy)" hintpol
expect_eq "the first loader's hint" "$("$HINTCTL" get tgid $$)" "pool=-1 class=1 importance=0 flags=2"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0

echo precious >/tmp/precious
out=$(timeout 60 "$HINTPOL" --stats-socket /tmp/precious 2>&1) && fail "a loader took a file for its socket: $out"
grep -qF "stats socket /tmp/precious: the path exists and is not a socket; remove it or give another path" <<<"$out" ||
	fail "loader's message: $out"
expect_eq "the file" "$(cat /tmp/precious)" precious
note "$(tail -n 1 <<<"$out")"
