# Pins are 0600 and the socket 0600, both root's: an unprivileged user can
# neither write hints nor read stats, and is told why. Given a group
# (--pin-group: pins and socket get the group, modes 0660), a member of it
# can do both, and read the limits hints are checked against but not
# change them (their pin is 0640, and the map read-only to programs).
. "$(dirname "$0")/common.inc"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
member=(setpriv --reuid=65534 --regid=65534 --groups=4242)
start_hintpol
out=$("${nobody[@]}" "$HINTCTL" set tgid $$ class=1 2>&1) && fail "nobody wrote a hint"
expect_eq "unprivileged hint write" "$out" "hintctl: open: cannot open $PINS/scxpol_hint_cgrp: Permission denied (directory $PINS is mode 0700 owned by root:root; ask for group access via the policy's --pin-group, i.e. scxpol_sched_opts.pin_gid)"
out=$("${nobody[@]}" "$STAT" --policy hintpol --json 2>&1) && fail "nobody read stats"
expect_eq "unprivileged stats read" "$out" "scxpol-stat: cannot connect to $SOCK: Permission denied (the socket is mode 0600 owned by root:root; ask for group access via the policy's stats socket group)"
expect_eq "socket mode" "$(stat -c '%a %U:%G' $SOCK)" "600 root:root"
expect_eq "socket directory mode" "$(stat -c %a /run/scxpol)" 711
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0

start_hintpol --pin-group 4242
limits=$("$HINTCTL" meta) || fail "hintctl meta failed"
# the limits are the loader's: a member may read them, not raise them
out=$("${member[@]}" "$HINTCTL" tamper-limits 2>&1) || fail "a member of group 4242 changed the limits: $out"
note "a member's tries at the limits: $(tr '\n' ';' <<<"$out")"
expect_eq "the limits after the member's tries" "$("$HINTCTL" meta)" "$limits"
expect_eq "the limits' pin" "$(stat -c '%a %g' "$PINS/scxpol_hint_meta")" "640 4242"
expect_eq "pin directory" "$(stat -c '%a %g' "$PINS")" "710 4242"
expect_eq "a pin" "$(stat -c '%a %g' "$PINS/scxpol_hint_tid")" "660 4242"
expect_eq "socket" "$(stat -c '%a %g' $SOCK)" "660 4242"
"${member[@]}" "$HINTCTL" set tgid $$ class=1 || fail "a member of group 4242 cannot write hints"
expect_eq "hint written by the group member" "$("$HINTCTL" get tgid $$)" "pool=-1 class=1 importance=0 flags=2"
out=$("${member[@]}" "$STAT" --policy hintpol --json) || fail "a member of group 4242 cannot read stats"
expect_eq "policy in the member's snapshot" "$(jq -r .policy <<<"$out")" hintpol
out=$("${nobody[@]}" "$HINTCTL" set tgid $$ class=1 2>&1) && fail "nobody wrote a hint"
expect_eq "non-member hint write" "$out" "hintctl: open: cannot open $PINS/scxpol_hint_cgrp: Permission denied (directory $PINS is mode 0710 owned by root:4242; ask for group access via the policy's --pin-group, i.e. scxpol_sched_opts.pin_gid)"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0

# A later run gives the pins its own group, taking back what an earlier run
# gave: --pin-group root (gid 0) is root's, not "keep 4242"; no group at all
# is the loader's (root's), mode 0600.
start_hintpol --pin-group root
expect_eq "pin directory, group root" "$(stat -c '%a %g' "$PINS")" "710 0"
expect_eq "a pin, group root" "$(stat -c '%a %g' "$PINS/scxpol_hint_tid")" "660 0"
out=$("${member[@]}" "$HINTCTL" set tgid $$ class=1 2>&1) && fail "a member of 4242 still wrote a hint"
expect_eq "former member's hint write" "$out" "hintctl: open: cannot open $PINS/scxpol_hint_cgrp: Permission denied (directory $PINS is mode 0710 owned by root:root; ask for group access via the policy's --pin-group, i.e. scxpol_sched_opts.pin_gid)"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
start_hintpol --pin-group 4242
stop_policy INT
start_hintpol
expect_eq "pin directory, no group" "$(stat -c '%a %g' "$PINS")" "700 0"
expect_eq "a pin, no group" "$(stat -c '%a %g' "$PINS/scxpol_hint_tid")" "600 0"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
