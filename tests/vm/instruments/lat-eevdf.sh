# Under EEVDF (no sched_ext scheduler) scxpol-lat records every wakeup of a
# sleep/wake loop, with run-queue delays and run bursts.
. "$SCXPOL_SRC/tests/vm/lib.sh"
. "$SCXPOL_SRC/tests/vm/instruments/checks.inc"
expect_eq "sched_ext state" "$(scx_state)" disabled
start_lat /tmp/lat.json --filter-comm probe --json
"$PROBE" sleepwake 2 1000 >/tmp/sw.out
stop_lat
mapfile -t v <<<"$(json_eval /tmp/lat.json 'd["scheduler"]["start"]' 'd["scheduler"]["end"]' \
	'[x["name"] for x in d["groups"]]')"
expect_eq "scheduler at start" "${v[0]}" fair
expect_eq "scheduler at end" "${v[1]}" fair
expect_eq "groups" "${v[2]}" "['probe']"
check_wakeups /tmp/lat.json probe "$(field wakeups "$(cat /tmp/sw.out)")"
