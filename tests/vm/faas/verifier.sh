# Every program of the faas policy passes the verifier on this kernel; the
# processed instruction counts are printed. The check is core's, on this
# suite's list.
. "$SCXPOL_SRC/tests/vm/core/verifier.sh"
