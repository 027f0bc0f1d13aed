# faas --paper (--no-steal): the policy runs only SCHED_EXT tasks (SCX_OPS_SWITCH_PARTIAL).
# It attaches and says so; a task set to SCHED_EXT runs in the ext class
# (policy 7 and ext.enabled 1 in /proc/PID/sched) while an unrelated task
# stays in the fair class (policy 0, ext.enabled 0). The control plane
# (faas-replay --body-class ext, in the real-time class as the bench runs
# it) stays out of the ext class and puts each function body in SCHED_EXT
# at its release: each body is in the ext class once released, reads ext
# itself at its start (the CSV's class) and runs only on its domain's CPUs.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
trace=/tmp/paper-burst.csv
echo "function,arrival_ms,duration_ms,kind" >$trace
# long enough for the checks below to see both bodies while they work
for i in 0 1; do echo "burst$i,$((i * 10)),8000,cpu" >>$trace; done

# class VAR PID: VAR = "POLICY EXT" (its policy field and ext.enabled) from
# /proc/PID/sched, read in one pass (read_whole); empty if the task is
# gone. Builtins only, as everything the observer below runs: with two
# bodies spinning, a fork and exec in the emulated guest on a loaded host
# took up to a second, and the observer, forking a dozen per look, missed
# a body's whole 8 s (seen
# in 1 of 6 runs on a busy host, every run with a CPU hog beside the VM)
class() {
	local -n _c=$1
	local l pol='' ext='' sched
	_c=
	read_whole sched "/proc/$2/sched" 2>/dev/null || return 0
	while read -r l; do
		[[ $l =~ ^policy\ *:\ *([0-9-]+)$ ]] && pol=${BASH_REMATCH[1]}
		[[ $l =~ ^ext\.enabled\ *:\ *([0-9-]+)$ ]] && ext=${BASH_REMATCH[1]}
	done <<<"$sched"
	_c="$pol $ext"
}
spin_pids=()
cleanup() {
	local p
	for p in "${spin_pids[@]}"; do kill "$p" 2>/dev/null; done
	cleanup_test
}
trap cleanup EXIT

# without stealing: the paper's steals queued work and, through
# select_cpu, idle CPUs of the other domain, so its bodies may run on any
# CPU (seen: both on 0-3); the rest of the design is the paper's
start_faas --paper --no-steal --domains 2
assert_attached faas
grep -q '^faas: paper: switch partial (SCHED_EXT tasks only), vtime reset to the current time' \
	/tmp/faas.log || fail "the loader did not report the paper's design: $(cat /tmp/faas.log)"

# an unrelated task, and one its parent puts in SCHED_EXT (7) before it spins
sh -c 'while :; do :; done' &
spin_pids+=($!)
fair=$!
/usr/bin/python3 -I -c 'import os; os.sched_setscheduler(0, 7, os.sched_param(0)); \
os.execv("/bin/sh", ["sh", "-c", "while :; do :; done"])' &
spin_pids+=($!)
ext=$!
# until the exec: then the SCHED_EXT spinner is sh
until [ "$(cat /proc/$ext/comm)" = sh ]; do
	kill -0 $ext 2>/dev/null || fail "the SCHED_EXT spinner exited (no SCHED_EXT on this kernel?)"
	sleep 0.1
done
class c $fair
expect_eq "unrelated spinner (pid $fair): policy, ext.enabled" "$c" "0 0"
class c $ext
expect_eq "SCHED_EXT spinner (pid $ext): policy, ext.enabled" "$c" "7 1"
kill "${spin_pids[@]}"
wait "${spin_pids[@]}" 2>/dev/null
spin_pids=()
assert_attached faas

# the control plane in the real-time class, as the bench runs it: its
# bodies are spawned there (policy 1) and leave it at their release
(chrt -f -p 1 $BASHPID >/dev/null && replay paper --trace $trace --domains 2 --capacity 1 --body-class ext) &
replay_pid=$!
# each body as first seen released (out of policy 1, before it goes back
# for its report): its class then, and the control plane's (the bodies'
# parent) while the first one runs
declare -A seen=()
renice -n -10 -p $$ >/dev/null || fail "cannot renice the test to -10"
while :; do
	for f in /sys/fs/cgroup/faas-paper/inv-*/cgroup.procs; do
		p=
		read -r p 2>/dev/null <"$f"
		[ -n "$p" ] && [ -z "${seen[$p]:-}" ] || continue
		class c "$p"
		[ -n "$c" ] && [ "${c%% *}" != 1 ] || continue
		seen[$p]=$c
		expect_eq "function body $f (pid $p) released: policy, ext.enabled" "$c" "7 1"
		if [ -z "${cp:-}" ]; then
			# the control plane: the body's parent, a faas-replay outside
			# the invocations' cgroups (read from the body, which is
			# alive: a scan of every process races with the replay's forks)
			read -r _ _ _ cp _ <"/proc/$p/stat" ||
				fail "body $p ended before its parent could be read"
			cp_comm= cp_cg=
			read -r cp_comm <"/proc/$cp/comm"
			read -r cp_cg <"/proc/$cp/cgroup"
			[ "$cp_comm" = faas-replay ] && [[ $cp_cg != */faas-paper/inv-* ]] ||
				fail "the parent of body $p is not the control plane: pid $cp $cp_comm" \
					"$cp_cg; faas-replay processes: $(ps -o pid=,ppid=,comm=,cgroup= -C faas-replay)"
			class c "$cp"
			expect_eq "control plane (pid $cp): policy, ext.enabled" "$c" "1 0"
		fi
	done
	[ ${#seen[@]} -lt 2 ] || break
	kill -0 $replay_pid 2>/dev/null ||
		fail "the replay ended with ${#seen[@]} of 2 bodies seen released (pids ${!seen[*]});" \
			"its times (ms since the start): $(cut -d, -f1,7-12 /tmp/paper.csv 2>/dev/null |
			paste -sd ' ');" "its report: $(cat /tmp/paper.out)"
	nap 0.1
done
wait $replay_pid || fail "the replay failed: $(cat /tmp/paper.out)"
assert_attached faas
"$SCXPOL_SRC/tests/vm/faas-replay/check-results" /tmp/paper.csv /tmp/paper.out 2 2 \
	/sys/fs/cgroup/faas-paper || exit 1
expect_eq "bodies that started outside the ext class" "$(rows /tmp/paper.csv '$16 != "ext"')" 0
# one per domain (capacity 1)
expect_eq "bodies given d0" "$(rows /tmp/paper.csv '$4 == 0')" 1
expect_eq "bodies given d1" "$(rows /tmp/paper.csv '$4 == 1')" 1
bad=$(outside /tmp/paper.csv)
[ -z "$bad" ] || fail "invocations ran outside their domain of $PLAN (id domain cpus): $bad"
note "paper: domains $PLAN; bodies (id domain cpus):" \
	"$(awk -F, 'NR > 1 { printf "%s %s %s; ", $1, $4, $14 }' /tmp/paper.csv)"
assert_attached faas
stop_policy INT
expect_eq "faas exit status" "$POLICY_STATUS" 0
