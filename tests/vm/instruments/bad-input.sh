# Bad options and impossible cgroups fail with a message naming the input.
. "$SCXPOL_SRC/tests/vm/lib.sh"
LAT=$SCXPOL_BUILD/tools/scxpol-lat
WL=$SCXPOL_BUILD/tools/scxpol-workload

# expect_fail WANT_RC WANT_MSG CMD...: CMD exits WANT_RC and prints WANT_MSG
expect_fail() {
	local want_rc=$1 want=$2 rc=0 out
	shift 2
	out=$("$@" 2>&1) || rc=$?
	expect_eq "exit status of $*" "$rc" "$want_rc"
	grep -qxF -- "$want" <<<"$out" || fail "$*: got '$out', want the line '$want'"
}

expect_fail 2 "scxpol-lat: --by 'pid': want cgroup, comm or comm:N (N = 1..15)" "$LAT" --by pid
expect_fail 2 "scxpol-lat: --by 'comm:16': want cgroup, comm or comm:N (N = 1..15)" "$LAT" --by comm:16
expect_fail 2 "scxpol-lat: --pid '12,x': item 2 'x': want a whole number in 1..2147483647" "$LAT" --pid 12,x
# numbers are read by the library's rule (no space, sign or hex); no empty id
expect_fail 2 "scxpol-lat: --pid '1,,1': item 2 '': want a whole number in 1..2147483647" "$LAT" --pid 1,,1
expect_fail 2 "scxpol-lat: --pid ' 1': item 1 ' 1': want a whole number in 1..2147483647" "$LAT" --pid ' 1'
expect_fail 2 "scxpol-lat: --by 'comm:+5': want cgroup, comm or comm:N (N = 1..15)" "$LAT" --by comm:+5
expect_fail 2 "scxpol-lat: --duration '0x10': want a number in (0, 1e+06]" "$LAT" --duration 0x10
expect_fail 2 "scxpol-lat: --max-groups ' 5': want a whole number in 1..65536" "$LAT" --max-groups ' 5'
expect_fail 1 "scxpol-lat: --filter-cgroup '/no-such': /sys/fs/cgroup/no-such: No such file or directory" \
	"$LAT" --filter-cgroup /no-such
# a '.' or '..' part made the filter's depth wrong: nothing matched, exit 0
# (--duration ends such a run)
expect_fail 2 "scxpol-lat: --filter-cgroup '/.': '.' and '..' are not allowed" \
	"$LAT" --filter-cgroup /. --duration 1
expect_fail 2 "scxpol-lat: --filter-cgroup '/sys/fs/cgroup/..': '.' and '..' are not allowed" \
	"$LAT" --filter-cgroup /sys/fs/cgroup/.. --duration 1
# an id that is no process or thread (above pid_max)
expect_fail 1 "scxpol-lat: --pid '1,2147483647': no process or thread 2147483647" \
	"$LAT" --pid 1,2147483647 --duration 1
# an id that exited, a zombie its parent (sleep, after exec) never reaps:
# nothing to trace either (it traced nothing, exit 0)
rm -f /tmp/zombie
sh -c 'sleep 0 & echo $! >/tmp/zombie; exec sleep 60' &
zparent=$!
for ((i = 0; i < 100; i++)); do
	[ -s /tmp/zombie ] && grep -q '^State:.Z' "/proc/$(cat /tmp/zombie)/status" 2>/dev/null && break
	sleep 0.1
done
z=$(cat /tmp/zombie)
expect_fail 1 "scxpol-lat: --pid '$z': $z has exited (a zombie)" "$LAT" --pid "$z" --duration 1
kill "$zparent"
wait "$zparent" 2>/dev/null
# in another PID namespace (/proc mounted for it) the ids are not the
# kernel's: pid 1 is the tracer itself here, which traced the system's init
expect_fail 1 "scxpol-lat: --pid: /proc shows a PID namespace other than the initial one, whose ids the filter compares; run in the initial one" \
	unshare -p -f --mount-proc "$LAT" --pid 1 --duration 1
expect_fail 2 "scxpol-workload: --rate '0': want a number in 0.001..1e+07" "$WL" --rate 0
# the critical process cannot create its cgroup below a file
expect_fail 1 "scxpol-workload: --worker-cgroup 'cgroup.procs/x': cannot create /sys/fs/cgroup/cgroup.procs/x: Not a directory" \
	"$WL" --duration 1 --iters-per-us 100 --worker-cgroup cgroup.procs/x
# nor can the background process, which hands its error to the critical one
out=$("$WL" --duration 1 --iters-per-us 100 --hog-cgroup cgroup.procs/y 2>&1) && fail "no error: $out"
expect_eq "background cgroup error, once" "$out" \
	"scxpol-workload: --hog-cgroup 'cgroup.procs/y': cannot create /sys/fs/cgroup/cgroup.procs/y: Not a directory"
