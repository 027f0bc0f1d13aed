# --duration is a deadline: stopping and continuing scxpol-lat (Ctrl-Z, fg)
# interrupts its wait, which must not start the whole duration again.
. "$SCXPOL_SRC/tests/vm/lib.sh"
start_lat /tmp/dur.json --filter-comm probe --json --duration 4
sleep 1
kill -STOP "$LAT_PID"
sleep 1
kill -CONT "$LAT_PID"
rc=0
wait "$LAT_PID" || rc=$?
LAT_PID=
expect_eq "scxpol-lat exit status" "$rc" 0
d=$(json_eval /tmp/dur.json 'd["duration_s"]')
note "--duration 4, stopped for 1 s after 1 s: traced $d s"
[ "$(json_eval /tmp/dur.json '3.9 <= d["duration_s"] < 5')" = 1 ] ||
	fail "--duration 4 traced $d s (stopped for 1 s)"
