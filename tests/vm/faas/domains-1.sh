# faas at 1 domain: see domains_test in common.inc.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
domains_test 1
