# Which pool a thread runs in follows its class: a cgroup rule (the cgroup
# and those below it) or a comm rule (a prefix) makes it lc, nothing makes
# it bg, and a class hint overrides both (hint > cgroup > comm); a rename or
# a cgroup move changes it, and a cgroup rule follows its directory created
# again, even while another rule's path is no cgroup2 directory. Two lc spinners fill the lc CPUs and three bg
# ones overfill the bg CPUs, so the bg CPUs always have bg work before lc
# work to steal, and an lc CPU lends itself only for a moment (its lc task
# was just taken by the other lc CPU and is not queued again yet): each
# spinner runs on its own pool's CPUs in most samples.
. "$(dirname "$0")/common.inc"
cgroup_at_exit $CG/ads-t
mkdir -p $CG/ads-t/lc/sub $CG/ads-t/bg $CG/ads-t/odd
# -v: the loader logs when a cgroup rule follows its directory (info level)
start_ads -v --lc-cpus 2 --no-resize --lc-comm 'lcname*' --lc-cgroup $CG/ads-t/odd \
	--lc-cgroup $CG/ads-t/lc
assert_attached ads
expect_eq "lc pool" "$(lc_cpus)" 0-1

# check_round LC_NAMES BG_NAMES PIDS...: sample the spinners (LC ones first)
check_round() {
	local lc=$1 bg=$2 name i=0
	shift 2
	mapfile -t seen < <(sample_cpus 15 "$@")
	for name in $lc; do
		assert_cpus_mostly_within "$name (lc)" "${seen[i]}" 0-1
		note "$name: CPUs ${seen[i]}"
		i=$((i + 1))
	done
	for name in $bg; do
		assert_cpus_mostly_within "$name (bg)" "${seen[i]}" 2-3
		note "$name: CPUs ${seen[i]}"
		i=$((i + 1))
	done
}

# comm rule, cgroup rule (two levels down); no rule, a cgroup without one
spin lcname-a 600; a=$SPIN_PID
spin probe-b 600 ads-t/lc/sub; b=$SPIN_PID
spin other-c 600; c=$SPIN_PID
spin other-d 600 ads-t/bg; d=$SPIN_PID
spin other-z 600; z=$SPIN_PID
sleep 1
check_round "lcname-a probe-b" "other-c other-d other-z" $a $b $c $d $z
kill $a $b $c $d; wait $a $b $c $d 2>/dev/null

# hints win: a class-1 hint on a process no rule names; class-0 hints on a
# thread the comm rule names and on a process of the lc cgroup
spin other-e 600; e=$SPIN_PID
spin lcname-f 600; f=$SPIN_PID
spin lcname-g 600; g=$SPIN_PID
spin other-h 600 ads-t/lc; h=$SPIN_PID
hintctl set tgid $e class=1
hintctl set tid $g class=0
hintctl set tgid $h class=0
sleep 1
check_round "other-e(hint) lcname-f(comm)" \
	"lcname-g(hint>comm) other-h(hint>cgroup) other-z" $e $f $g $h $z
kill $e $f $g $h $z; wait $e $f $g $h $z 2>/dev/null

# a class follows a rename and a cgroup move at the task's next scheduling
# event (the match is cached per task): other-r renames itself to a comm
# the rule names, other-m moves into the lc cgroup; three bg spinners keep
# the bg CPUs full after they left
spin lcname-k 600; k=$SPIN_PID
spin lcname-l 600; l=$SPIN_PID
spin other-r 600 "" lcname-r; r=$SPIN_PID
spin other-m 600 ads-t/bg; m=$SPIN_PID
spin other-x 600; x=$SPIN_PID
spin other-y 600; y=$SPIN_PID
spin other-w 600; w=$SPIN_PID
sleep 1
check_round "lcname-k lcname-l" "other-r other-m other-x other-y other-w" $k $l $r $m $x $y $w
kill -USR1 $r
echo $m >$CG/ads-t/lc/cgroup.procs
sleep 1
check_round "lcname-k lcname-l lcname-r(renamed) other-m(moved)" "other-x other-y other-w" \
	$k $l $r $m $x $y $w
kill $k $l $r $m $x $y $w; wait $k $l $r $m $x $y $w 2>/dev/null

# a rule's path that is for now no cgroup2 directory (a file system mounted
# on it) waits, with one warning; the rules after it go on following theirs
mount -t tmpfs none $CG/ads-t/odd
odd="cgroup rule \"$CG/ads-t/odd\": cgroup '$CG/ads-t/odd': not on a cgroup2 file system; the rule applies again once it is a cgroup2 directory"
for i in $(seq 30); do
	grep -qF "$odd" /tmp/ads.log && break
	sleep 0.1
done
grep -qF "$odd" /tmp/ads.log || fail "no warning for a rule on a tmpfs: $(tail -5 /tmp/ads.log)"

# the rule's directory removed and created again (a restarted service's
# cgroup: a new cgroup, a new id) is followed within the loader's interval
rmdir $CG/ads-t/lc/sub $CG/ads-t/lc
mkdir -p $CG/ads-t/lc/sub
for i in $(seq 30); do
	grep -q 'cgroup rule "'$CG'/ads-t/lc" follows the cgroup created there again' \
		/tmp/ads.log && break
	sleep 0.1
done
grep -q 'cgroup rule "'$CG'/ads-t/lc": the directory is gone' /tmp/ads.log ||
	note "the loader did not see the directory missing (created again within 1 s)"
grep -q 'cgroup rule "'$CG'/ads-t/lc" follows the cgroup created there again' /tmp/ads.log ||
	fail "the cgroup rule did not follow its directory: $(tail -5 /tmp/ads.log)"
spin probe-n 600 ads-t/lc/sub; n=$SPIN_PID
spin lcname-o 600; o=$SPIN_PID
spin other-p 600; p=$SPIN_PID
spin other-q 600; q=$SPIN_PID
spin other-s 600; s=$SPIN_PID
sleep 1
check_round "probe-n(new-cgroup) lcname-o" "other-p other-q other-s" $n $o $p $q $s
kill $n $o $p $q $s; wait $n $o $p $q $s 2>/dev/null
expect_eq "warnings for the rule on a tmpfs (once)" "$(grep -cF "$odd" /tmp/ads.log)" 1
umount $CG/ads-t/odd

assert_attached ads
# (class_default counts every unmatched task, the shell's too: where the
# other-* spinners ran is its check, above)
for k in class_hint class_cgroup class_comm; do
	[ "$(counter $k)" -gt 0 ] || fail "no placement decided by $k: $(snapshot)"
done
note "$(snapshot | jq -c '.counters | {class_hint, class_cgroup, class_comm, class_default}')"
stop_policy INT
expect_eq "loader exit status" "$POLICY_STATUS" 0
rmdir $CG/ads-t/lc/sub $CG/ads-t/lc $CG/ads-t/bg $CG/ads-t/odd $CG/ads-t
