# Every program of the ads policy (the pool, hint and rule helpers it
# wires, the pool commit and query programs) passes the verifier on this
# kernel; the processed instruction counts are printed. The check is
# core's, on this suite's list.
. "$SCXPOL_SRC/tests/vm/core/verifier.sh"
