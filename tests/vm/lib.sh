# Helpers for VM tests (sourced by each tests/vm/<suite>/*.sh inside the guest).
# A test passes by exiting 0; any other status fails it. Output goes to the
# TAP diagnostics of the suite runner.
set -u

: "${SCXPOL_BUILD:?SCXPOL_BUILD must point at the meson build directory}"
: "${SCXPOL_SRC:?SCXPOL_SRC must point at the source tree}"
PROBE=$SCXPOL_BUILD/tests/vm/probe
SCX=/sys/kernel/sched_ext

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

note() {
	echo "# $*"
}

# known_defect WHAT: end the test on a failure it caught in the code under
# test whose fix is pending: TAP "not ok ... # TODO WHAT", which meson counts
# as an expected failure, not a pass. WHAT names the defect and where it is
# tracked. Call it only on the one failure it names, never for a test's
# own flakiness.
known_defect() {
	echo "KNOWN DEFECT: $*" >&2
	exit 78
}

# read_whole VAR FILE: VAR = FILE's whole text, read in one pass (builtins
# only); false if nothing could be read. For a /proc file that changes,
# never a loop of `read` on it: bash reads a block, seeks back to the end
# of the line and reads again, and each read after a seek makes the
# kernel print the file anew, so a line whose text moved in between is
# torn (a loader's VmRSS missing from its /proc/PID/status, seen under
# load). Parse the snapshot with `while read ...; done <<<"$VAR"`.
read_whole() {
	local -n _s=$1
	_s=
	IFS= read -r -d '' _s <"$2" || [ -n "$_s" ]
}

scx_state() { cat $SCX/state; }
scx_ops() { cat $SCX/root/ops 2>/dev/null || true; }

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# wait_state STATE [SECS]: wait until sched_ext is in STATE
wait_state() {
	local want=$1 secs=${2:-30} i
	for ((i = 0; i < secs * 10; i++)); do
		[ "$(scx_state)" = "$want" ] && return 0
		sleep 0.1
	done
	fail "sched_ext state is '$(scx_state)' after ${secs}s, want '$want'"
}

# start_policy NAME LOG CMD...: start a policy loader in the background and
# wait until the kernel reports it attached under NAME, up to START_SECS
# seconds (default 30). Sets POLICY_PID.
start_policy() {
	local name=$1 log=$2 i secs=${START_SECS:-30}
	shift 2
	"$@" >"$log" 2>&1 &
	POLICY_PID=$!
	POLICY_LOG=$log
	for ((i = 0; i < secs * 10; i++)); do
		if [ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = "$name" ]; then
			return 0
		fi
		if ! kill -0 "$POLICY_PID" 2>/dev/null; then
			cat "$log" >&2
			fail "policy '$name' exited before attaching"
		fi
		sleep 0.1
	done
	cat "$log" >&2
	fail "policy '$name' did not attach in ${secs}s (state '$(scx_state)', ops '$(scx_ops)')"
}

# assert_attached NAME: the scheduler is enabled and is NAME
assert_attached() {
	if [ "$(scx_state)" != enabled ] || [ "$(scx_ops)" != "$1" ]; then
		# why it left: the loader's exit report and the kernel's
		[ -z "${POLICY_LOG:-}" ] || { echo "--- $POLICY_LOG:"; tail -n 20 "$POLICY_LOG"; } >&2
		dmesg | grep -i 'sched_ext' | tail -n 10 >&2
	fi
	expect_eq "sched_ext state" "$(scx_state)" enabled
	expect_eq "sched_ext root/ops" "$(scx_ops)" "$1"
}

# expect_stall begin|end: bracket a watchdog stall a test provokes on
# purpose; scripts/vm-run does not count the sched_ext console lines
# between the two as a failure.
expect_stall() {
	case $1 in
	begin) echo "scxpol-vm: expect a sched_ext stall" >/dev/kmsg ;;
	end) echo "scxpol-vm: end of the expected stall" >/dev/kmsg ;;
	esac
}

# nap SECS: sleep SECS without a fork (a timed read of a fifo nobody
# writes), for loops that poll: under the emulator a process per poll
# costs a measurable share of the guest's CPUs, which the policy under
# test then lacks.
mkfifo /tmp/nap.$$ && exec {NAP_FD}<>/tmp/nap.$$ && rm -f /tmp/nap.$$ ||
	fail "cannot make the nap fifo /tmp/nap.$$"
nap() {
	read -r -t "$1" -u "$NAP_FD" _ || :
}

# watch_attached OPS FILE: run in the background; every 0.2 s, append to
# FILE the time and state/ops whenever OPS is not the attached scheduler.
# Builtins only: forking cat, date and sleep five times a second cost a
# benchmark's policies (watched) several % of the emulated CPUs that EEVDF
# (not watched) kept.
watch_attached() {
	local ops=$1 file=$2 st o
	while :; do
		st=; o=
		read -r st <"$SCX/state"
		# (2> first: the redirection's own error goes there too)
		read -r o 2>/dev/null <"$SCX/root/ops"
		[ "$st/$o" = "enabled/$ops" ] || echo "$EPOCHREALTIME $st/$o" >>"$file"
		nap 0.2
	done
}

# progress WHAT: note WHAT and mark that the test got somewhere: the suite
# runner's time limit (suite-inside) counts from the last mark, so a test
# of many steps that each take long on a slow host fails only on a step
# that takes the whole limit.
PROGRESS_N=0
progress() {
	PROGRESS_N=$((PROGRESS_N + 1))
	[ -z "${SCXPOL_PROGRESS:-}" ] || echo "$PROGRESS_N" >"$SCXPOL_PROGRESS"
	note "$*"
}

# repair_clean OPS: the library's watch in the running policy OPS repaired
# nothing (counters watch_kick and pending_repair 0): a lost wakeup or a
# drifted pending count would otherwise show only as latency. A policy
# without a stats socket (no pools, no watch) has nothing to check.
repair_clean() {
	local json k
	[ -S "/run/scxpol/$1.sock" ] || return 0
	json=$("$SCXPOL_BUILD/tools/scxpol-stat" --policy "$1" --json) || fail "$1: scxpol-stat failed"
	for k in watch_kick pending_repair; do
		expect_eq "$1: counter $k" "$(jq -r ".counters.$k" <<<"$json")" 0
	done
}

# stop_policy [SIGNAL]: signal the loader, wait for it; sets POLICY_STATUS.
# A suite that sets REPAIR_CLEAN to its policy's name has repair_clean
# checked first, while the loader runs; a test that injects what the
# watch repairs unsets it.
stop_policy() {
	local sig=${1:-INT}
	if [ -n "${REPAIR_CLEAN:-}" ] && kill -0 "$POLICY_PID" 2>/dev/null; then
		repair_clean "$REPAIR_CLEAN"
	fi
	kill -"$sig" "$POLICY_PID"
	POLICY_STATUS=0
	wait "$POLICY_PID" || POLICY_STATUS=$?
	wait_state disabled 10
}

# in_ext PID: the task is in the sched_ext class
in_ext() {
	grep -Eq '^ext\.enabled +: +1$' "/proc/$1/sched"
}

# field KEY LINE: value of key=value in LINE
field() {
	local k=$1 line=$2
	sed -n "s/.*\\b$k=\\([^ ]*\\).*/\\1/p" <<<"$line"
}

cleanup_policy() {
	if [ -n "${POLICY_PID:-}" ] && kill -0 "$POLICY_PID" 2>/dev/null; then
		kill -INT "$POLICY_PID" 2>/dev/null
		wait "$POLICY_PID" 2>/dev/null
	fi
}

# start_lat OUT ARGS...: run scxpol-lat ARGS in the background, its report in
# OUT and its messages in OUT.err; return once it is tracing. Sets LAT_PID.
start_lat() {
	local out=$1 i
	shift
	"$SCXPOL_BUILD/tools/scxpol-lat" "$@" >"$out" 2>"$out.err" &
	LAT_PID=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^scxpol-lat: tracing' "$out.err" && return 0
		if ! kill -0 "$LAT_PID" 2>/dev/null; then
			cat "$out.err" >&2
			fail "scxpol-lat $* exited before tracing"
		fi
		sleep 0.1
	done
	fail "scxpol-lat $* did not start tracing in 60s: $(cat "$out.err")"
}

# stop_lat: SIGINT scxpol-lat, wait for its report; fails unless it exits 0.
stop_lat() {
	local rc=0
	kill -INT "$LAT_PID"
	wait "$LAT_PID" || rc=$?
	LAT_PID=
	[ $rc -eq 0 ] || fail "scxpol-lat exited $rc"
}

cleanup_lat() {
	if [ -n "${LAT_PID:-}" ] && kill -0 "$LAT_PID" 2>/dev/null; then
		kill -INT "$LAT_PID" 2>/dev/null
		wait "$LAT_PID" 2>/dev/null
	fi
}

# json_eval FILE EXPR...: print each Python expression EXPR, one per line,
# evaluated with d = the JSON object in FILE and g(NAME) = the entry of
# d["groups"] named NAME (None if there is none); booleans print as 1/0.
# The system python, isolated: a version manager's shim takes seconds to
# start in the emulated guest.
json_eval() {
	local py=/usr/bin/python3
	[ -x $py ] || py=python3
	$py -I - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def g(name):
    return next((x for x in d.get("groups", []) if x.get("name") == name), None)
for e in sys.argv[2:]:
    v = eval(e)
    print(int(v) if isinstance(v, bool) else v)
PY
}
# expand_cpus LIST: a CPU list ("0-2,5") as words ("0 1 2 5")
expand_cpus() {
	local part parts out=() i
	IFS=, read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		[ -n "$part" ] || continue
		for ((i = ${part%-*}; i <= ${part#*-}; i++)); do out+=("$i"); done
	done
	echo "${out[*]}"
}

# assert_cpus_within WHAT LIST ALLOWED: every CPU of LIST is in ALLOWED
assert_cpus_within() {
	local c allowed=" $(expand_cpus "$3") " seen
	seen=$(expand_cpus "$2")
	[ -n "$seen" ] || fail "$1: no CPUs observed (cpus='$2')"
	for c in $seen; do
		[[ $allowed == *" $c "* ]] || fail "$1 ran on CPU $c, outside $3 (cpus=$2)"
	done
}

# assert_cpus_mostly_within WHAT SAMPLES ALLOWED: at least 4 in 5 of
# SAMPLES (one CPU per sample, repeats kept) in ALLOWED. For a task of a
# soft pool: another pool's CPU with nothing of its own may run it for a
# moment, where a task put in the wrong pool would run there nearly always.
assert_cpus_mostly_within() {
	local c allowed=" $(expand_cpus "$3") " n=0 in=0
	for c in $(expand_cpus "$2"); do
		n=$((n + 1))
		[[ $allowed == *" $c "* ]] && in=$((in + 1))
	done
	[ $n -gt 0 ] || fail "$1: no CPUs observed (cpus='$2')"
	[ $((in * 5)) -ge $((n * 4)) ] ||
		fail "$1 ran outside $3 in $((n - in)) of $n samples (cpus=$2)"
}

# cpus_meet LIST SET: some CPU of LIST is in SET
cpus_meet() {
	local c set=" $(expand_cpus "$2") "
	for c in $(expand_cpus "$1"); do
		[[ $set == *" $c "* ]] && return 0
	done
	return 1
}

# cgroup_at_exit DIR...: remove cgroups DIR (with what is below them) when
# the test exits, failed or not, killing what still runs there and
# unmounting what is mounted below them, so no later test of the boot
# finds them; a test that removes them itself (to check what follows)
# still may
CGROUPS_AT_EXIT=()
cgroup_at_exit() {
	CGROUPS_AT_EXIT+=("$@")
}

cleanup_cgroups() {
	local d i
	for d in "${CGROUPS_AT_EXIT[@]}"; do
		[ -d "$d" ] || continue
		# a file system a failed test left mounted below (ads/classify's tmpfs)
		awk -v d="$d/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts |
			xargs -r umount -l
		echo 1 >"$d/cgroup.kill" 2>/dev/null
		# killed tasks leave their cgroups a moment later
		for ((i = 0; i < 50; i++)); do
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$d" ] || break
			sleep 0.1
		done
		[ -d "$d" ] && echo "# cleanup: cannot remove cgroup $d" >&2
	done
}

# The CPUs online when the test started. restore_cpus brings back online
# any of them the test left offline: later tests of the boot plan with
# them (the suite runner checks it too, after a test it had to kill).
read -r CPUS_AT_START </sys/devices/system/cpu/online
restore_cpus() {
	local c v f
	for c in $(expand_cpus "$CPUS_AT_START"); do
		f=/sys/devices/system/cpu/cpu$c/online
		[ -e "$f" ] || continue
		read -r v <"$f"
		[ "$v" = 1 ] || echo 1 >"$f" || echo "# cleanup: cannot bring cpu$c back online" >&2
	done
}

# cleanup_test: what a test leaves is undone when it exits, failed or not
# (a test that sets its own EXIT trap calls it last). The policy stops
# before CPUs come back: a CPU coming online would restart it.
cleanup_test() {
	cleanup_lat
	cleanup_policy
	cleanup_cgroups
	restore_cpus
}
trap cleanup_test EXIT
