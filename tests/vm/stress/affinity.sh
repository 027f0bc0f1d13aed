# Threads moving themselves to random CPU subsets, and one thread pinned to
# each CPU, under each policy: no thread ever runs outside its mask, all
# progress and finish, and the policy stays attached.
. "$(dirname "$0")/common.inc"
stress_each affinity
