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
# wait until the kernel reports it attached under NAME. Sets POLICY_PID.
start_policy() {
	local name=$1 log=$2 i
	shift 2
	"$@" >"$log" 2>&1 &
	POLICY_PID=$!
	for ((i = 0; i < 300; i++)); do
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
	fail "policy '$name' did not attach in 30s (state '$(scx_state)', ops '$(scx_ops)')"
}

# assert_attached NAME: the scheduler is enabled and is NAME
assert_attached() {
	expect_eq "sched_ext state" "$(scx_state)" enabled
	expect_eq "sched_ext root/ops" "$(scx_ops)" "$1"
}

# stop_policy [SIGNAL]: signal the loader, wait for it; sets POLICY_STATUS
stop_policy() {
	local sig=${1:-INT}
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
trap cleanup_policy EXIT
