# --by comm keeps two differently named thread groups apart, each with its
# own wakeups; --by comm:6 merges them into one group named by the prefix.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
cp "$PROBE" /tmp/probe-a
cp "$PROBE" /tmp/probe-b
start_lat /tmp/comm.json --by comm --filter-comm probe- --json
lat_comm=$LAT_PID
start_lat /tmp/prefix.json --by comm:6 --filter-comm probe- --json
/tmp/probe-a sleepwake 2 1000 >/tmp/a.out &
pa=$!
/tmp/probe-b sleepwake 2 4000 >/tmp/b.out
wait $pa
stop_lat
LAT_PID=$lat_comm
stop_lat
na=$(field wakeups "$(cat /tmp/a.out)")
nb=$(field wakeups "$(cat /tmp/b.out)")
expect_eq "groups by comm" "$(json_eval /tmp/comm.json '[x["name"] for x in d["groups"]]')" \
	"['probe-a', 'probe-b']"
check_wakeups /tmp/comm.json probe-a "$na"
check_wakeups /tmp/comm.json probe-b "$nb"
expect_eq "groups by comm:6" "$(json_eval /tmp/prefix.json '[x["name"] for x in d["groups"]]')" \
	"['probe-']"
check_wakeups /tmp/prefix.json probe- $((na + nb)) 2
