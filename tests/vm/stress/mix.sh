# Hogs, the fork storm and the affinity movers and pinned threads at once,
# under each policy: every worker progresses and finishes, and the policy
# stays attached.
. "$(dirname "$0")/common.inc"
stress_each mix
