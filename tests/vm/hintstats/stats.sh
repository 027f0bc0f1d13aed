# The stats server answers {"req":"stats"} with every library counter and
# the policy's own (and its pools, when it has some), {"req":"stats_meta"}
# with each counter's unit and description, {"req":"list"} with what it
# knows, errors with errno and a message; scxpol-stat prints snapshots,
# tables with rates, descriptors, and errors.
. "$(dirname "$0")/common.inc"
out=$("$STAT" --policy hintpol 2>&1) && fail "scxpol-stat without a policy succeeded"
expect_eq "no such policy" "$out" "scxpol-stat: no policy 'hintpol' serves stats ($SOCK does not exist)"
out=$("$STAT" --socket /etc/hostname 2>&1) && fail "scxpol-stat on a regular file succeeded"
expect_eq "not a socket" "$out" "scxpol-stat: cannot connect to /etc/hostname: it is not a socket"
out=$("$STAT" --json --count 2 2>&1) && fail "scxpol-stat --json --count succeeded"
expect_eq "table option with --json" "$out" "scxpol-stat: --count is for the table, not for --json"
start_hintpol
"$PROBE" sleepwake 1 500 >/dev/null

out=$("$STAT" --policy hintpol --request '{"req":"list"}')
expect_eq "list errno" "$(jq -r .errno <<<"$out")" 0
names="enqueue direct dispatch_pool dispatch_shared dispatch_steal dispatch_borrow dispatch_none borrow_idle reclaim hint_hit hint_miss hint_reject busy_poll_demote pool_commit pool_reject important dispatch_pinned kthread_local watch_kick pending_repair steal_idle hint_stale watch_rescue importance_sum class_placed"
expect_eq "counters listed" "$(jq -r '.resp.counters | join(" ")' <<<"$out")" "$names"
expect_eq "requests listed" "$(jq -r '.resp.requests | join(" ")' <<<"$out")" "list stats stats_meta"

# every counter described, in snapshot order, the policy's own as hintpol.c says
out=$("$STAT" --policy hintpol --request '{"req":"stats_meta"}')
expect_eq "meta errno" "$(jq -r .errno <<<"$out")" 0
expect_eq "counters described" "$(jq -r '.resp.counters | map(.name) | join(" ")' <<<"$out")" "$names"
expect_eq "every counter has a unit and a description" \
	"$(jq '[.resp.counters[] | select(.name != "" and .unit != "" and .desc != "")] | length' <<<"$out")" \
	"$(wc -w <<<"$names")"
expect_eq "a user counter's descriptor" "$(jq -c '.resp.counters[-1]' <<<"$out")" \
	'{"name":"class_placed","unit":"tasks","desc":"enqueues onto the CPU of the hint'"'"'s class"}'
"$STAT" --policy hintpol --meta >/tmp/meta.out || fail "scxpol-stat --meta failed"
expect_eq "--meta header" "$(head -1 /tmp/meta.out)" "COUNTER                  UNIT         DESCRIPTION"
grep -Eq '^enqueue +tasks +tasks enqueued \(ops.enqueue\)$' /tmp/meta.out ||
	fail "no enqueue line in scxpol-stat --meta: $(cat /tmp/meta.out)"

"$STAT" --json >/tmp/snap1.json || fail "scxpol-stat --json (the only socket) failed"
expect_eq "policy" "$(jq -r .policy /tmp/snap1.json)" hintpol
expect_eq "counter names in the snapshot" "$(jq -r '.counters | keys_unsorted | join(" ")' /tmp/snap1.json)" "$names"
e1=$(jq -r .counters.enqueue /tmp/snap1.json)
[ "$e1" -gt 500 ] || fail "enqueue $e1 after 1 s of 500 us sleeps"
[ "$(jq -r .counters.dispatch_shared /tmp/snap1.json)" -gt 0 ] || fail "no dispatch_shared: $(cat /tmp/snap1.json)"
[ "$(jq -r .counters.hint_miss /tmp/snap1.json)" -gt 0 ] || fail "no hint_miss without hints: $(cat /tmp/snap1.json)"
"$PROBE" sleepwake 1 500 >/dev/null
e2=$("$STAT" --socket "$SOCK" --json | jq -r .counters.enqueue)
[ "$e2" -gt "$e1" ] || fail "enqueue did not grow: $e1 -> $e2"
note "enqueue $e1 -> $e2"

out=$("$STAT" --policy hintpol --request '{"req":"nope"}')
expect_eq "unknown request" "$out" '{"errno":22,"resp":null,"error":"unknown request \"nope\"; known: list, stats, stats_meta"}'
out=$("$STAT" --policy hintpol --request 'stats')
expect_eq "not JSON" "$out" '{"errno":22,"resp":null,"error":"bad JSON at line 1, column 5: invalid token near '"'stats'"'"}'

"$PROBE" sleepwake 3 500 >/dev/null &
load=$!
"$STAT" --policy hintpol --interval 0.5 --count 3 >/tmp/table.out || fail "table failed"
wait $load
expect_eq "tables printed" "$(grep -c '^COUNTER' /tmp/table.out)" 3
expect_eq "rates in the first table" "$(awk '/^enqueue/ {print $3; exit}' /tmp/table.out)" -
rate=$(awk '/^enqueue/ {r = $3} END {print r}' /tmp/table.out)
[[ $rate =~ ^[0-9]+\.[0-9]$ ]] && [ "${rate%.*}" -gt 0 ] || fail "enqueue rate '$rate': $(cat /tmp/table.out)"
note "enqueue rate $rate/s"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
[ -e "$SOCK" ] && fail "socket left behind after the policy stopped"
out=$("$STAT" --json 2>&1) && fail "scxpol-stat found a server after the policy stopped"
expect_eq "no socket" "$out" "scxpol-stat: no policy serves stats here (no socket in /run/scxpol)"
# a killed policy's socket, which nobody listens on: not a server to pick
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /run/scxpol/dead.sock
out=$("$STAT" --json 2>&1) && fail "scxpol-stat read stats from a stale socket"
expect_eq "stale socket only" "$out" "scxpol-stat: no policy serves stats here (in /run/scxpol, nobody listens on the sockets of dead: stopped without removing them)"

# a policy with pools: their sizes and queue depths are in the snapshot
start_hintpol --pool-plan "lc=0-1 bg=2-$(($(nproc) - 1))"
"$STAT" --json >/tmp/snap2.json || fail "scxpol-stat --json beside a stale socket failed"
rm /run/scxpol/dead.sock
expect_eq "pools" "$(jq -c '[.pools[] | [.name, .cpus, .nr_cpus]]' /tmp/snap2.json)" \
	"[[\"lc\",\"0-1\",2],[\"bg\",\"2-$(($(nproc) - 1))\",$(($(nproc) - 2))]]"
[[ $(jq -r '.pools | map(.queued | tostring) | join(" ")' /tmp/snap2.json) =~ ^[0-9]+\ [0-9]+$ ]] ||
	fail "queue depths: $(cat /tmp/snap2.json)"
[ "$(jq -r .counters.pool_commit /tmp/snap2.json)" -ge 1 ] || fail "no pool_commit: $(cat /tmp/snap2.json)"
"$STAT" --policy hintpol --count 1 >/tmp/table2.out
grep -Eq '^lc +0-1 +2 +[0-9]+$' /tmp/table2.out || fail "no pool in the table: $(cat /tmp/table2.out)"
note "$(jq -c .pools /tmp/snap2.json)"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
