// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol_hint_setup() and the load, the policy side of the hint maps,
 * against maps pinned in a private bpffs mount: sizing the maps from the
 * limits or the pins, pins of another build refused, the pin directory's
 * ownership and mode checked, and pins of hint layout 1 moved aside and
 * carried into the new maps. Needs root (mount); without it every test is
 * skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scxpol/abi/pool.h>
#include <scxpol/hint.h>
#include <scxpol/skel.h>

#include "hint_client.h"
#include "hint_pins.h"
#include "hintpol.bpf.skel.h"
#include "internal.h"
#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(hintpol_bpf);
SCXPOL_SKEL_DEFINE(minimal_bpf);

static struct scxpol_sched *open_policy(const struct scxpol_skel *skel, const char *pins)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = skel, .pin_root = pins);
	struct scxpol_sched *s = scxpol_sched_open(&o);

	assert_non_null(s);
	return s;
}

static __u32 max_of(struct scxpol_sched *s, const char *map)
{
	return bpf_map__max_entries(bpf_object__find_map_by_name(scxpol_sched_object(s), map));
}

static void test_setup_sizes_maps(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4, .nr_slots = 16, .max_tids = 128);
	struct scxpol_sched *s;
	char dir[256];

	(void)state;
	if (!hint_mounted)
		skip();
	snprintf(dir, sizeof(dir), "%s/fresh", hint_mnt);
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	assert_int_equal(scxpol_hint_setup(s, &lim), 0);
	assert_int_equal(max_of(s, "scxpol_hint_slots"), 16);
	assert_int_equal(max_of(s, "scxpol_hint_slot_idx"), 16);
	assert_int_equal(max_of(s, "scxpol_hint_tid"), 128);
	assert_int_equal(max_of(s, "scxpol_hint_cgrp"), 16384);
	assert_int_equal(max_of(s, "scxpol_hint_tgid"), 16384);
	expect_err(scxpol_hint_setup(s, NULL), EINVAL, "scxpol_hint_setup: limits are NULL");
	lim.nr_slots = (1U << 20) + 1;
	expect_err(scxpol_hint_setup(s, &lim), EINVAL, "hint limits: nr_slots 1048577 is more than "
		   "1048576");
	scxpol_sched_close(s);

	s = open_policy(SCXPOL_SKEL(minimal_bpf), dir);
	expect_err(scxpol_hint_setup(s, &lim), EINVAL, "minimal: the BPF object has no map "
		   "'scxpol_hint_cgrp'; include <scxpol/hint.bpf.h> in the policy");
	scxpol_sched_close(s);
}

static void test_setup_respects_pins(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4, .max_tids = 128);
	struct scxpol_sched *s;

	(void)state;
	if (!hint_mounted)
		skip();
	/* hint_root holds maps pinned with 64 tids and NR_SLOTS slots */
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), hint_root);
	expect_err(scxpol_hint_setup(s, &lim), EEXIST, "%s/scxpol_hint_tid is pinned with 64 "
		   "entries, the policy asks for 128 (max_tids): pinned hint maps keep their entries "
		   "across restarts and cannot be resized in place; remove the pins (rm -r %s) to "
		   "start afresh, or leave max_tids at 0 to keep the pinned size", hint_root,
		   hint_root);
	/* 0: whatever is pinned */
	lim.max_tids = 0;
	assert_int_equal(scxpol_hint_setup(s, &lim), 0);
	assert_int_equal(max_of(s, "scxpol_hint_tid"), 64);
	assert_int_equal(max_of(s, "scxpol_hint_slots"), NR_SLOTS);
	scxpol_sched_close(s);
}

/*
 * The pin directory and those above it must be the policy's: a directory
 * anyone may write to, a symbolic link, or another user's directory would
 * let someone else put their maps (or a link to a file) where the policy
 * pins its own and then changes their mode. Checked before the BPF load;
 * the host kernel's lack of sched_ext is hidden by a fake sysfs.
 */
/* Open @o, expect its load to fail with @err and the message, close. */
#define expect_load_refused(o, err, ...)                                  \
	do {                                                              \
		struct scxpol_sched *s_ = scxpol_sched_open(o);           \
		assert_non_null(s_);                                      \
		expect_err(scxpol_sched_load(s_), err, __VA_ARGS__);      \
		scxpol_sched_close(s_);                                   \
	} while (0)

static void test_pin_dir_checked(void **state)
{
	char sys[64] = "/tmp/scxpol-hint-sysfs.XXXXXX", path[256], pins[256];
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(hintpol_bpf), .sysfs_root = sys,
		    .pin_root = pins);
	static const char *const levels[] = { "sys", "sys/kernel", "sys/kernel/sched_ext" };
	unsigned int i;
	int cwd;
	FILE *f;

	(void)state;
	if (!hint_mounted)
		skip();
	assert_non_null(mkdtemp(sys));
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", sys, levels[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/sched_ext/state", sys);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("disabled\n", f);
	fclose(f);

	snprintf(path, sizeof(path), "%s/open", hint_mnt);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(chmod(path, 0777), 0);
	snprintf(pins, sizeof(pins), "%s/open/p", hint_mnt);
	expect_load_refused(&o, EPERM, "pin directory %s: %s is writable by everyone "
			    "(mode 0777): they could replace the pins", pins, path);

	snprintf(path, sizeof(path), "%s/real", hint_mnt);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(pins, sizeof(pins), "%s/link", hint_mnt);
	assert_int_equal(symlink(path, pins), 0);
	expect_load_refused(&o, ENOTDIR, "pin directory %s: %s is not a directory (a "
			    "symbolic link?)", pins, pins);

	/* sticky is no shelter for the pin directory itself: anyone may pin there first */
	snprintf(pins, sizeof(pins), "%s/sticky", hint_mnt);
	assert_int_equal(mkdir(pins, 0700), 0);
	assert_int_equal(chmod(pins, 01777), 0);
	expect_load_refused(&o, EPERM, "pin directory %s: %s is writable by everyone "
			    "(mode 1777): they could replace the pins", pins, pins);

	/* a relative path: checked from the root down, as its absolute path */
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	assert_true(cwd >= 0);
	assert_int_equal(chdir(hint_mnt), 0);
	snprintf(pins, sizeof(pins), "open/q");
	snprintf(path, sizeof(path), "%s/open", hint_mnt);
	expect_load_refused(&o, EPERM, "pin directory open/q: %s is writable by everyone "
			    "(mode 0777): they could replace the pins", path);
	assert_int_equal(fchdir(cwd), 0);
	close(cwd);

	snprintf(path, sizeof(path), "%s/theirs", hint_mnt);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, 4242, 4242), 0);
	snprintf(pins, sizeof(pins), "%s/theirs/p", hint_mnt);
	expect_load_refused(&o, EPERM, "pin directory %s: %s belongs to uid 4242, not to "
			    "root or this user: its owner could replace the pins", pins, path);

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_ext/state", sys);
	unlink(path);
	for (i = 3; i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", sys, levels[i]);
		rmdir(path);
	}
	rmdir(sys);
}

/*
 * A pin of another build, whose flags or value size differ: libbpf would
 * not reuse it; say why, and how to start afresh.
 */
static void test_setup_checks_pinned_flags(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4);
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	struct scxpol_sched *s;
	char dir[256], path[512];
	int fd;

	(void)state;
	if (!hint_mounted)
		skip();
	/* scxpol_hint_tid preallocated (flags 0), where the policy says BPF_F_NO_PREALLOC */
	snprintf(dir, sizeof(dir), "%s/flags", hint_mnt);
	make_pins(dir, "scxpol_hint_tid", NULL, NULL);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "hint_test", 4, 24, 64, &mo);
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/scxpol_hint_tid", dir);
	assert_int_equal(bpf_obj_pin(fd, path), 0);
	close(fd);
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	expect_err(scxpol_hint_setup(s, &lim), EEXIST, "%s is pinned with flags 0x0, map_extra 0x0; "
		   "the policy's map has flags 0x1, map_extra 0x0 (a pin from another build?): "
		   "libbpf reuses a pin only if they are equal; remove the pins (rm -r %s) to "
		   "start afresh", path, dir);
	scxpol_sched_close(s);

	snprintf(dir, sizeof(dir), "%s/layout", hint_mnt);
	make_pins(dir, NULL, "scxpol_hint_tgid", NULL);
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	expect_err(scxpol_hint_setup(s, &lim), EEXIST, "%s/scxpol_hint_tgid: map type 1, key 4 "
		   "bytes, value 8 bytes, flags 0x1; this libscxpol expects type 1, key 4, value 24 "
		   "(<scxpol/abi/hint.h> of the pin's build and of this program differ): remove the "
		   "pins (rm -r %s) to start afresh", dir, dir);
	scxpol_sched_close(s);
}

/* --- upgrades: pins of an older layout --------------------------------------------------- */

static char log_buf[8192];

static void capture(enum scxpol_log_level l, const char *m, void *c)
{
	size_t n = strlen(log_buf);

	(void)c;
	if (l <= SCXPOL_LOG_INFO)
		snprintf(log_buf + n, sizeof(log_buf) - n, "%s\n", m);
}

#define expect_logged(...)                                                \
	do {                                                              \
		char want_[1024];                                         \
		snprintf(want_, sizeof(want_), __VA_ARGS__);              \
		if (!strstr(log_buf, want_))                              \
			fail_msg("not logged: %s\nlog:\n%s", want_, log_buf); \
	} while (0)

static bool pinned_at(const char *dir, const char *sub, const char *map)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s%s/%s", dir, sub[0] ? "/" : "", sub, map);
	return !stat(path, &st);
}

/* The pid of a process that was and is gone. */
static pid_t dead_pid(void)
{
	pid_t pid = spawn_paused();

	reap(pid);
	return pid;
}

static const char *const moved_maps[] = { "scxpol_hint_tgid", "scxpol_hint_tid",
					  "scxpol_hint_slots", "scxpol_hint_slot_idx",
					  "scxpol_hint_meta" };

/*
 * The maps of layout 1 are moved aside, entries and all, not refused; the
 * new maps have their sizes; after the load, the cgroup hints (never moved)
 * and the hints of live tasks are in the new maps, named by the task's
 * pidfd inode, the dead process's is dropped, registered slots are
 * dropped, each counted in the log, and the side directory is gone.
 */
static void test_setup_moves_old_layout(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4);
	struct scxpol_hint_slot slot;
	struct scxpol_hint_task t;
	__u32 me = (__u32)getpid(), tid = (__u32)gettid(), dead = (__u32)dead_pid(), i;
	int fd[M_NR], side;
	struct scxpol_sched *s;
	char dir[256], path[512];
	__u64 ino;

	(void)state;
	if (!hint_mounted)
		skip();
	snprintf(dir, sizeof(dir), "%s/old", hint_mnt);
	make_old_pins(dir, me, dead, tid);
	log_buf[0] = '\0';
	scxpol_log_set(capture, SCXPOL_LOG_INFO, NULL);
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	if (scxpol_hint_setup(s, &lim))
		fail_msg("%s", scxpol_last_error());
	for (i = 0; i < ARRAY_SIZE(moved_maps); i++) {
		assert_false(pinned_at(dir, "", moved_maps[i]));
		assert_true(pinned_at(dir, "layout-1", moved_maps[i]));
	}
	assert_true(pinned_at(dir, "", "scxpol_hint_cgrp"));
	expect_logged("hintpol: hints: scxpol_hint_tgid is of layout 1 (this libscxpol's is 2): "
		      "moved to %s/layout-1/scxpol_hint_tgid until the load, which replaces it",
		      dir);
	/* the pinned sizes, unless the limits ask */
	assert_int_equal(max_of(s, "scxpol_hint_tgid"), 64);
	assert_int_equal(max_of(s, "scxpol_hint_slots"), NR_SLOTS);
	snprintf(path, sizeof(path), "%s/layout-1/scxpol_hint_tgid", dir);
	side = bpf_obj_get(path);
	assert_true(side >= 0);
	assert_int_equal(bpf_map_lookup_elem(side, &dead, &t.hint), 0);
	assert_int_equal(t.hint.class_id, 2);
	close(side);
	scxpol_sched_close(s);

	/* the load: libbpf makes the new maps (a writer wrote one tid hint before the carry) */
	for (i = 0; i < M_NR; i++) {
		const struct hint_pin_map *p = &hint_pin_maps[i];
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = p->flags);

		fd[i] = bpf_map_create(p->type, "hint_test", p->key, p->value, p->max, &o);
		assert_true(fd[i] >= 0);
	}
	t = (struct scxpol_hint_task){ .hint = { .importance = 3, .flags = SCXPOL_HINT_F_IMPORTANCE } };
	assert_int_equal(bpf_map_update_elem(fd[M_TID], &tid, &t, BPF_ANY), 0);
	assert_int_equal(scxpol_hint__layout_carry(dir, "t", fd), 0);

	assert_int_equal(bpf_map_lookup_elem(fd[M_TGID], &me, &t), 0);
	assert_int_equal(t.hint.class_id, 1);
	assert_int_equal(t.hint.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(scxpol_hint__task_ino(M_TGID, (pid_t)me, &ino), 0);
	assert_true(t.pid_ino == ino);
	assert_int_equal(bpf_map_lookup_elem(fd[M_TGID], &dead, &t), -ENOENT);
	/* the newer one wins */
	assert_int_equal(bpf_map_lookup_elem(fd[M_TID], &tid, &t), 0);
	assert_int_equal(t.hint.importance, 3);
	for (i = 0; i < NR_SLOTS; i++) {
		assert_int_equal(bpf_map_lookup_elem(fd[M_SLOTS], &i, &slot), 0);
		assert_int_equal(slot.tid, 0);
	}
	expect_logged("t: hints: scxpol_hint_tgid of layout 1: 1 kept, 1 dropped (no live process "
		      "has the id), 0 replaced by newer ones; layout 1 could not tell a reused id, "
		      "so a kept hint is now the live process's that has the id");
	expect_logged("t: hints: scxpol_hint_tid of layout 1: 0 kept, 0 dropped (no live thread "
		      "has the id), 1 replaced by newer ones;");
	expect_logged("t: hints: scxpol_hint_slots of layout 1: 0 kept, 1 dropped (registered "
		      "threads: each keeps writing the old slot it mapped, and must register again)");
	expect_logged("t: hints: scxpol_hint_slot_idx of layout 1: 0 kept, 1 dropped (they "
		      "indexed the old scxpol_hint_slots)");
	expect_logged("t: hints: scxpol_hint_meta of layout 1: 0 kept, 0 dropped (the loader "
		      "wrote the limits anew)");
	assert_false(pinned_at(dir, "", "layout-1"));
	for (i = 0; i < M_NR; i++)
		close(fd[i]);
}

/*
 * A load that fails after the move leaves the old pins aside: the next
 * start takes its sizes from them and carries them after its own load. An
 * old pin in place as well (an older build started since) is refused.
 */
static void test_setup_resumes_layout(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4);
	struct scxpol_sched *s;
	char dir[256], path[512];
	unsigned int i;

	(void)state;
	if (!hint_mounted)
		skip();
	snprintf(dir, sizeof(dir), "%s/old", hint_mnt);
	make_old_pins(dir, (__u32)getpid(), (__u32)dead_pid(), (__u32)gettid());
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	assert_int_equal(scxpol_hint_setup(s, &lim), 0);
	scxpol_sched_close(s);

	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	assert_int_equal(scxpol_hint_setup(s, &lim), 0);
	for (i = 0; i < ARRAY_SIZE(moved_maps); i++)
		assert_true(pinned_at(dir, "layout-1", moved_maps[i]));
	assert_int_equal(max_of(s, "scxpol_hint_tgid"), 64);
	scxpol_sched_close(s);

	close(make_pin(dir, "scxpol_hint_tgid", 16, BPF_F_NO_PREALLOC));
	snprintf(path, sizeof(path), "%s/scxpol_hint_tgid", dir);
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	expect_err(scxpol_hint_setup(s, &lim), EEXIST, "%s is of hint layout 1 and "
		   "%s/layout-1/scxpol_hint_tgid exists too (an upgrade was interrupted, and an "
		   "older build started since?): remove the one whose hints are not to be kept",
		   path, dir);
	scxpol_sched_close(s);
}

/* A shape of no known layout is refused, and nothing is moved before it is. */
static void test_setup_refuses_unknown_layout(void **state)
{
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_classes = 4);
	struct scxpol_sched *s;
	char dir[256], path[512];

	(void)state;
	if (!hint_mounted)
		skip();
	snprintf(dir, sizeof(dir), "%s/old", hint_mnt);
	make_old_pins(dir, (__u32)getpid(), (__u32)dead_pid(), (__u32)gettid());
	snprintf(path, sizeof(path), "%s/scxpol_hint_meta", dir);
	assert_int_equal(unlink(path), 0);
	close(make_pin(dir, "scxpol_hint_meta", 8, 0));
	s = open_policy(SCXPOL_SKEL(hintpol_bpf), dir);
	expect_err(scxpol_hint_setup(s, &lim), EEXIST, "%s: map type 2, key 4 bytes, value 8 "
		   "bytes, flags 0x0; this libscxpol expects type 2, key 4, value 16, "
		   "BPF_F_RDONLY_PROG (<scxpol/abi/hint.h> of the pin's build and of this program "
		   "differ): remove the pins (rm -r %s) to start afresh", path, dir);
	assert_true(pinned_at(dir, "", "scxpol_hint_tgid"));
	assert_false(pinned_at(dir, "", "layout-1"));
	scxpol_sched_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		hint_pins_test(test_setup_sizes_maps),
		hint_pins_test(test_setup_respects_pins),
		hint_pins_test(test_setup_checks_pinned_flags),
		hint_pins_test(test_setup_moves_old_layout),
		hint_pins_test(test_setup_resumes_layout),
		hint_pins_test(test_setup_refuses_unknown_layout),
		hint_pins_test(test_pin_dir_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
