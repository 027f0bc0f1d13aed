# The stats socket's path: a second loader of a running policy refuses,
# naming the socket, and leaves the first one's socket, scheduler and
# hints alone; a loader given a path that holds a file (or a live socket
# of another kind) refuses and leaves it as it was; one given a directory
# others may write to refuses it.
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

mkdir -m 0700 /run/hs-socket
echo precious >/run/hs-socket/precious
out=$(timeout 60 "$HINTPOL" --stats-socket /run/hs-socket/precious 2>&1) && fail "a loader took a file for its socket: $out"
grep -qF "stats socket /run/hs-socket/precious: the path exists and is not a socket; remove it or give another path" <<<"$out" ||
	fail "loader's message: $out"
expect_eq "the file" "$(cat /run/hs-socket/precious)" precious
note "$(tail -n 1 <<<"$out")"
rm -r /run/hs-socket

# a directory anyone may write to (sticky or not) is no place for the socket
# and its lock: another user could make the lock file first
out=$(timeout 60 "$HINTPOL" --stats-socket /tmp/hs.sock 2>&1) && fail "a loader served stats in /tmp: $out"
grep -qF "stats socket directory /tmp: /tmp is writable by everyone (mode $(stat -c %04a /tmp)): they could replace the socket" <<<"$out" ||
	fail "loader's message: $out"
expect_eq "files made in /tmp" "$(ls /tmp/hs.sock* 2>/dev/null)" ""
