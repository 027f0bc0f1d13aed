# faas at 4 domains (one CPU each on the 4 vCPUs): see domains_test in common.inc.
. "$SCXPOL_SRC/tests/vm/faas/common.inc"
domains_test 4
