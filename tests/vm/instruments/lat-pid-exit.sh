# --pid of a process that exits after its id was checked, before the
# tracing starts: an error, not an empty trace and exit 0. The tracer is
# stopped once it has a BPF map (its options checked) and no BPF link yet
# (not attached), the process ends, and the tracer goes on.
. "$SCXPOL_SRC/tests/vm/lib.sh"
LAT=$SCXPOL_BUILD/tools/scxpol-lat

# has PID FIELD: an fd of PID is a BPF object whose fdinfo has FIELD
# (map_type: a map, link_type: a link); bash builtins only, to poll fast
has() {
	local f l
	for f in /proc/$1/fdinfo/*; do
		while read -r l; do
			[[ $l == "$2"* ]] && return 0
		done <"$f"
	done 2>/dev/null
	return 1
}

for ((try = 1; try <= 5; try++)); do
	sleep 60 &
	victim=$!
	"$LAT" --pid "$victim" --duration 1 --json >/tmp/lat.json 2>/tmp/lat.err &
	lat=$!
	for ((i = 0; i < 100000; i++)); do
		has $lat map_type: && break
	done
	kill -STOP $lat
	has $lat link_type: || break
	note "try $try: scxpol-lat attached before it was stopped; again"
	kill -CONT $lat
	wait $lat
	kill $victim
	wait $victim 2>/dev/null
done
[ $try -le 5 ] || fail "scxpol-lat was never stopped between its options and its attach"
kill $victim
wait $victim 2>/dev/null
kill -CONT $lat
rc=0
wait $lat || rc=$?
expect_eq "exit status" $rc 1
expect_eq "stderr" "$(cat /tmp/lat.err)" "scxpol-lat: --pid: $victim exited before tracing started"
