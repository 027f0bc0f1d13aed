# A fork/exit storm (2 x nproc processes forking short-lived children) under
# each policy: every forker's children all exit 0, every forker finishes, and
# the policy stays attached.
. "$(dirname "$0")/common.inc"
stress_each forks
