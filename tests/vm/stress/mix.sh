# Hogs, the fork storm and the affinity movers and pinned threads at once,
# under each policy: every worker progresses and finishes, and the policy
# stays attached. And the hogs get a fair share next to the threads pinned
# one to each CPU: a policy that let a pinned thread keep its CPU while
# other work waits gave the hogs 2-24% of the pinned threads' iterations,
# where a fair one gives them about as many (each CPU has its pinned
# thread and, on average, one hog).
. "$(dirname "$0")/common.inc"

stress_check() {
	local hogs= pinned= line v
	while read -r line; do
		kv v iters "$line"
		case $line in
		hogs\ *) hogs=$v ;;
		pinned\ *) pinned=$v ;;
		esac
	done <<<"$WL_REPORT"
	[ -n "$hogs" ] && [ -n "$pinned" ] || fail "$P_NAME: mix reported no hog or pinned iterations: $WL_REPORT"
	note "$P_NAME mix: hogs/pinned iterations $((100 * hogs / pinned))%"
	[ $((3 * hogs)) -ge "$pinned" ] ||
		fail "$P_NAME: mix: the hogs did $hogs iterations, under a third of the pinned threads' $pinned"
}

stress_each mix
