# faas at 2 domains: see domains_test in common.inc.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
domains_test 2
