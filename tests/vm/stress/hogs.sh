# 4 x nproc CPU hogs under each policy: every hog progresses and finishes,
# and the policy stays attached (no stall, no ejection).
. "$(dirname "$0")/common.inc"
stress_each hogs
