// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The hint client on the host, against real BPF maps pinned in a private
 * bpffs mount (created here as a policy would create them): open errors,
 * permissions (as an unprivileged user and as a group member), set/get/clear
 * and their checks, cgroup paths, full maps, thread slots under contention.
 * Which task an id names, and pruning, are test_hint_identity.c's; the
 * policy side (scxpol_hint_setup()) is test_hint_setup.c's. Needs root
 * (mount, setuid); without it every test is skipped.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <scxpol/hint.h>

#include "hint_client.h"
#include "hint_pins.h"
#include "internal.h"

static char err_buf[1024];

/* --- opening ---------------------------------------------------------------- */

static void test_open_errors(void **state)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, o);
	char dir[256];

	(void)state;
	if (!hint_mounted)
		skip();
	assert_null(scxpol_hint_client_open("a/b", &o));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), "policy name 'a/b': want a policy's name "
			    "(ops.name), without '/'");
	assert_null(scxpol_hint_client_open("..", &o));
	assert_null(scxpol_hint_client_open("", &o));
	assert_null(scxpol_hint_client_open(NULL, &o));
	assert_string_equal(scxpol_last_error(), "policy name '(null)': want a policy's name "
			    "(ops.name), without '/'");

	snprintf(dir, sizeof(dir), "%s/nope", hint_mnt);
	assert_null(open_at(dir));
	assert_int_equal(errno, ENOENT);
	snprintf(err_buf, sizeof(err_buf), "no hint maps for policy 't': %s does not exist (is the "
		 "policy loaded, and bpffs mounted on /sys/fs/bpf?)", dir);
	assert_string_equal(scxpol_last_error(), err_buf);

	snprintf(dir, sizeof(dir), "%s/partial", hint_mnt);
	make_pins(dir, "scxpol_hint_tid", NULL, NULL);
	assert_null(open_at(dir));
	assert_int_equal(errno, ENOENT);
	snprintf(err_buf, sizeof(err_buf), "cannot open %s/scxpol_hint_tid: No such file or "
		 "directory (policy 't' does not use hints: its BPF side lacks "
		 "<scxpol/hint.bpf.h>)", dir);
	assert_string_equal(scxpol_last_error(), err_buf);

	snprintf(dir, sizeof(dir), "%s/layout", hint_mnt);
	make_pins(dir, NULL, "scxpol_hint_tgid", NULL);
	assert_null(open_at(dir));
	assert_int_equal(errno, EPROTO);
	snprintf(err_buf, sizeof(err_buf), "%s/scxpol_hint_tgid: map type 1, key 4 bytes, value 8 "
		 "bytes, flags 0x1; this libscxpol expects type 1, key 4, value 24 "
		 "(<scxpol/abi/hint.h> of the policy and of this program differ)", dir);
	assert_string_equal(scxpol_last_error(), err_buf);
}

/* In a child as uid 65534 with @groups: open; 0 if the outcome is @want_err with @want_msg. */
static int child_open(gid_t group, int want_err, const char *want_msg)
{
	struct scxpol_hint_client *c;
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	int r;

	if (setgroups(group ? 1 : 0, &group) || setgid(65534) || setuid(65534))
		return 10;
	c = open_at(hint_root);
	if (want_err) {
		if (c || errno != want_err || strcmp(scxpol_last_error(), want_msg)) {
			fprintf(stderr, "got '%s' (errno %d)\nwant '%s'\n", scxpol_last_error(),
				errno, want_msg);
			return 11;
		}
		return 0;
	}
	if (!c) {
		fprintf(stderr, "open: %s\n", scxpol_last_error());
		return 12;
	}
	r = scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h);
	if (r) {
		fprintf(stderr, "set: %s\n", scxpol_last_error());
		return 13;
	}
	scxpol_hint_client_close(c);
	return 0;
}

static int run_child(gid_t group, int want_err, const char *want_msg)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid)
		_exit(child_open(group, want_err, want_msg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_permissions(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint_counts n;
	char want[1024];

	(void)state;
	/* as the policy leaves them: directory 0700, files 0600, root's */
	snprintf(want, sizeof(want), "cannot open %s/scxpol_hint_cgrp: Permission denied (directory "
		 "%s is mode 0700 owned by root:root; ask for group access via the policy's "
		 "--pin-group, i.e. scxpol_sched_opts.pin_gid)", hint_root, hint_root);
	assert_int_equal(run_child(0, EACCES, want), 0);

	/* a searchable directory: the files' own mode is what stops it */
	assert_int_equal(chmod(hint_root, 0711), 0);
	snprintf(want, sizeof(want), "cannot open %s/scxpol_hint_cgrp: Permission denied (maps are "
		 "mode 0600 owned by root:root; ask for group access via the policy's --pin-group, "
		 "i.e. scxpol_sched_opts.pin_gid)", hint_root);
	assert_int_equal(run_child(0, EACCES, want), 0);

	/* pin_gid 4242, pin_mode 0660: a member of the group may write hints */
	share_pins();
	assert_int_equal(run_child(4242, 0, NULL), 0);
	/* what the child wrote (its process is gone now, the entry is not) */
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.tgids, 1);
	/* and without the group, still refused */
	snprintf(want, sizeof(want), "cannot open %s/scxpol_hint_cgrp: Permission denied (directory "
		 "%s is mode 0710 owned by root:4242; ask for group access via the policy's "
		 "--pin-group, i.e. scxpol_sched_opts.pin_gid)", hint_root, hint_root);
	assert_int_equal(run_child(0, EACCES, want), 0);
	scxpol_hint_client_close(c);
}

/*
 * What a member of the pin group can do to the limits: open them to read
 * (the client does), not to write, and not write through a read-only
 * descriptor. 0, or the step that was let through.
 */
static int child_tamper(void)
{
	LIBBPF_OPTS(bpf_obj_get_opts, ro, .file_flags = BPF_F_RDONLY);
	struct scxpol_hint_meta m;
	gid_t group = 4242;
	char path[512];
	void *p;
	int fd;

	if (setgroups(1, &group) || setgid(65534) || setuid(65534))
		return 10;
	snprintf(path, sizeof(path), "%s/scxpol_hint_meta", hint_root);
	if (bpf_obj_get(path) >= 0 || errno != EACCES)
		return 11;
	fd = bpf_obj_get_opts(path, &ro);
	if (fd < 0 || bpf_map_lookup_elem(fd, &(__u32){ 0 }, &m) || m.max_importance != 7)
		return 12;
	m.max_importance = 1000;
	if (!bpf_map_update_elem(fd, &(__u32){ 0 }, &m, BPF_ANY) || errno != EPERM)
		return 13;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED)
		return 14;
	return 0;
}

static void test_limits_not_writable(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint_meta m;
	pid_t pid;
	int status;

	(void)state;
	share_pins();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		scxpol_hint_client_close(c); /* the child's copy: no leak under valgrind */
		_exit(child_tamper());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(scxpol_hint_get_meta(c, &m), 0);
	assert_int_equal(m.max_importance, 7);
	scxpol_hint_client_close(c);
}

/* --- set, get, clear ---------------------------------------------------------- */

static void test_set_get_clear_tid(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .pool = 1, .class_id = 2, .importance = 9,
				 .flags = SCXPOL_HINT_F_CLASS }, out;
	pid_t tid = gettid();
	__u64 g = gen(c);

	(void)state;
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), 0);
	assert_int_equal(gen(c), g + 1);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, tid, &out), 0);
	/* the fields without their flag are stored neutral */
	assert_int_equal(out.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(out.class_id, 2);
	assert_int_equal(out.pool, SCXPOL_HINT_POOL_NONE);
	assert_int_equal(out.importance, 0);

	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .importance = 7,
				  .flags = SCXPOL_HINT_F_POOL | SCXPOL_HINT_F_IMPORTANCE };
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, tid, &out), 0);
	assert_memory_equal(&out, &h, sizeof(h));

	assert_int_equal(scxpol_hint_clear(c, SCXPOL_HINT_TID, tid), 0);
	assert_int_equal(gen(c), g + 3);
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TID, tid, &out), ENOENT, "tid %d: no hint", tid);
	expect_err(scxpol_hint_clear(c, SCXPOL_HINT_TID, tid), ENOENT, "tid %d: no hint to clear",
		   tid);
	/* failures do not bump */
	assert_int_equal(gen(c), g + 3);
	scxpol_hint_client_close(c);
}

static void test_checks(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h;
	pid_t tid = gettid();
	struct waiter w;
	pthread_t th;

	(void)state;
	h = (struct scxpol_hint){ .flags = 0 };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), EINVAL,
		   "tid %d: the hint sets no field "
		   "(flags 0); clear the hint to remove it",
		   tid);
	h.flags = 0x10 | SCXPOL_HINT_F_CLASS;
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), EINVAL,
		   "tid %d: unknown hint flags 0x10", tid);
	h = (struct scxpol_hint){ .class_id = 3, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), EINVAL,
		   "tid %d: class 3 out of range: policy "
		   "'t' accepts classes 0..2",
		   tid);
	h = (struct scxpol_hint){ .pool = 2, .flags = SCXPOL_HINT_F_POOL };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), EINVAL,
		   "tgid %d: pool 2 out of range: "
		   "policy 't' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)",
		   getpid());
	h.pool = -2;
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_CGROUP, 77, &h), EINVAL,
		   "cgroup id 77: pool -2 out of "
		   "range: policy 't' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)");
	h = (struct scxpol_hint){ .importance = 8, .flags = SCXPOL_HINT_F_IMPORTANCE };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), EINVAL,
		   "tid %d: importance 8 out of range: "
		   "policy 't' accepts 0..7",
		   tid);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, NULL), EINVAL, "tid %d: hint is NULL",
		   tid);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_CGROUP, 0, &h), EINVAL,
		   "cgroup id 0: not a cgroup id");
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, -5, &h), EINVAL, "tid -5: not a thread id");

	h = (struct scxpol_hint){ .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, 0x3ffffff0, &h), ESRCH,
		   "tid 1073741808: no such thread "
		   "(ids are those of the initial PID namespace)");
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, 0x3ffffff0, &h), ESRCH,
		   "tgid 1073741808: no such "
		   "process (ids are those of the initial PID namespace)");
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, w.tid, &h), ESRCH,
		   "tgid %d: a thread of process %d, "
		   "not a process",
		   w.tid, getpid());
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, w.tid, &h), 0);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&w.b);
	scxpol_hint_client_close(c);
}

/* Task hints from another PID namespace: refused, not stored under another task's id. */
static void test_other_pid_namespace(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	const char *want = "tgid 1: task hints need the initial PID namespace (the policy sees "
			   "ids of that namespace, this process is in another)";
	int status;
	pid_t pid;

	(void)state;
	/* a child makes the namespace: the test process's own children stay in this one */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(77); /* not root */
		inner = fork(); /* the first process of the new namespace: pid 1 there */
		if (!inner) {
			int r = scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h);

			if (r != -EOPNOTSUPP || strcmp(scxpol_last_error(), want)) {
				fprintf(stderr, "set_tgid: %d, '%s'\n", r, scxpol_last_error());
				r = 1;
			} else {
				r = scxpol_hint_clear(c, SCXPOL_HINT_TID, 1) == -EOPNOTSUPP ? 0 : 2;
			}
			scxpol_hint_client_close(c);
			_exit(r);
		}
		scxpol_hint_client_close(c);
		if (inner < 0 || waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(3);
		_exit(WEXITSTATUS(status));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the parent's own calls are in the initial namespace still */
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_clear(c, SCXPOL_HINT_TGID, getpid()), 0);
	scxpol_hint_client_close(c);
}

static void test_no_pools(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .pool = 0, .flags = SCXPOL_HINT_F_POOL };
	struct scxpol_hint_meta m = { .nr_classes = 0 };
	int fd;

	(void)state;
	fd = pin("scxpol_hint_meta");
	assert_int_equal(bpf_map_update_elem(fd, &(__u32){ 0 }, &m, BPF_ANY), 0);
	close(fd);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), EINVAL,
		   "tgid %d: pool 0 out of range: "
		   "policy 't' has no pools (only SCXPOL_HINT_POOL_NONE)",
		   getpid());
	h = (struct scxpol_hint){ .class_id = 0, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), EINVAL,
		   "tgid %d: class 0 out of range: "
		   "policy 't' accepts no classes",
		   getpid());
	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .flags = SCXPOL_HINT_F_POOL };
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), 0);
	scxpol_hint_client_close(c);
}

/* --- cgroups -------------------------------------------------------------------- */

static void test_cgroup_paths(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS }, out;
	char cg2[512], dir[600], file[700];
	struct stat st;
	uint64_t id;

	(void)state;
	cgroup2_mount(cg2, sizeof(cg2));
	if (!cg2[0])
		skip();
	snprintf(dir, sizeof(dir), "%s/scxpol-hint-test-%d", cg2, getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(scxpol_hint_cgroup_id(dir, &id), 0);
	assert_int_equal(id, st.st_ino);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_CGROUP, id, &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_CGROUP, id, &out), 0);
	assert_int_equal(out.class_id, 1);
	assert_int_equal(scxpol_hint_clear(c, SCXPOL_HINT_CGROUP, id), 0);
	expect_err(scxpol_hint_clear(c, SCXPOL_HINT_CGROUP, id), ENOENT,
		   "cgroup id %llu: no hint to "
		   "clear",
		   (unsigned long long)id);

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	expect_err(scxpol_hint_cgroup_id(file, &id), ENOTDIR, "cgroup '%s': not a directory", file);
	expect_err(scxpol_hint_cgroup_id("/tmp", &id), EINVAL,
		   "cgroup '/tmp': not on a cgroup2 "
		   "file system");
	expect_err(scxpol_hint_cgroup_id("/nonexistent", &id), ENOENT,
		   "cgroup '/nonexistent': No "
		   "such file or directory");
	expect_err(scxpol_hint_set(c, (enum scxpol_hint_kind)7, 1, &h), EINVAL,
		   "hint kind 7: "
		   "unknown (SCXPOL_HINT_CGROUP, _TGID or _TID)");
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TGID, (uint64_t)INT_MAX + 1, &out), EINVAL,
		   "tgid 2147483648: not a process id");
	assert_int_equal(rmdir(dir), 0);
	scxpol_hint_client_close(c);
}

static void test_full_map(void **state)
{
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	struct scxpol_hint_client *c;
	struct waiter w;
	char dir[256];
	pthread_t th;

	(void)state;
	if (!hint_mounted)
		skip();
	snprintf(dir, sizeof(dir), "%s/small", hint_mnt);
	make_pins(dir, NULL, NULL, "scxpol_hint_tid");
	c = open_at(dir);
	assert_non_null(c);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, gettid(), &h), 0);
	/* replacing an entry needs no room */
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, gettid(), &h), 0);
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, w.tid, &h), ENOSPC,
		   "tid %d: %s/scxpol_hint_tid is full "
		   "(1 entries): remove stale hints (scxpol_hint_prune) or raise the policy's "
		   "max_tids",
		   w.tid, dir);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	scxpol_hint_client_close(c);
}

/* --- thread slots ----------------------------------------------------------------- */

static struct scxpol_hint_slot slot_at(struct scxpol_hint_client *c, __u32 idx)
{
	struct scxpol_hint_slot s;
	int fd;

	(void)c;
	fd = pin("scxpol_hint_slots");
	assert_int_equal(bpf_map_lookup_elem(fd, &idx, &s), 0);
	close(fd);
	return s;
}

static int slot_of(__u32 tid, __u32 *idx)
{
	int fd, r;

	fd = pin("scxpol_hint_slot_idx");
	r = bpf_map_lookup_elem(fd, &tid, idx);
	close(fd);
	return r;
}

static void test_thread_slot(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint_thread *t;
	struct scxpol_hint_slot s;
	__u32 tid = (__u32)gettid(), idx;
	__u64 g = gen(c);

	(void)state;
	t = scxpol_hint_thread_register(c);
	assert_non_null(t);
	assert_int_equal(gen(c), g + 1);
	assert_int_equal(slot_of(tid, &idx), 0);
	assert_int_equal(idx, tid % NR_SLOTS);
	s = slot_at(c, idx);
	assert_int_equal(s.tid, tid);
	assert_int_equal(s.importance, 0);

	/* a store into shared memory, seen through the map */
	scxpol_hint_thread_set_importance(t, 5);
	s = slot_at(c, idx);
	assert_int_equal(s.importance, 5);
	scxpol_hint_thread_set_importance(t, 2);
	assert_int_equal(slot_at(c, idx).importance, 2);
	assert_int_equal(slot_at(c, idx).seq, s.seq + 1);
	assert_int_equal(gen(c), g + 1);

	assert_null(scxpol_hint_thread_register(c));
	assert_int_equal(errno, EEXIST);
	snprintf(err_buf, sizeof(err_buf), "thread %u is registered already (slot %u); unregister "
		 "it first", tid, idx);
	assert_string_equal(scxpol_last_error(), err_buf);

	assert_int_equal(scxpol_hint_thread_unregister(t), 0);
	assert_int_equal(gen(c), g + 2);
	s = slot_at(c, idx);
	assert_int_equal(s.tid, 0);
	assert_int_equal(s.importance, 0);
	assert_int_equal(slot_of(tid, &idx), -ENOENT);

	/* the policy freed the slot (the thread exited): unregister says so */
	t = scxpol_hint_thread_register(c);
	assert_non_null(t);
	{
		struct scxpol_hint_slot z = { 0 };
		int fd;

		fd = pin("scxpol_hint_slots");
		assert_int_equal(bpf_map_update_elem(fd, &idx, &z, BPF_ANY), 0);
		close(fd);
	}
	expect_err(scxpol_hint_thread_unregister(t), ESRCH, "thread %u: slot %u was released "
		   "already (the thread exited and the policy or a pruner freed it)", tid, idx);
	scxpol_hint_client_close(c);
}

struct racer {
	struct scxpol_hint_client *c;
	pthread_barrier_t *start, *done;
	struct scxpol_hint_thread *t;
	__u32 tid;
	int err;
	char msg[256];
};

static void *race_thread(void *arg)
{
	struct racer *r = arg;

	r->tid = (__u32)gettid();
	pthread_barrier_wait(r->start);
	r->t = scxpol_hint_thread_register(r->c);
	r->err = r->t ? 0 : errno;
	snprintf(r->msg, sizeof(r->msg), "%s", scxpol_last_error());
	/* alive until all are checked: tids are not reused meanwhile */
	pthread_barrier_wait(r->done);
	return NULL;
}

static void test_thread_race(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct racer r[NR_SLOTS + 1];
	pthread_t th[NR_SLOTS + 1];
	pthread_barrier_t start, done;
	bool used[NR_SLOTS] = { 0 };
	struct scxpol_hint_counts n;
	int i, ok = 0, full = -1;

	(void)state;
	pthread_barrier_init(&start, NULL, NR_SLOTS + 1);
	pthread_barrier_init(&done, NULL, NR_SLOTS + 2);
	for (i = 0; i < NR_SLOTS + 1; i++) {
		r[i] = (struct racer){ .c = c, .start = &start, .done = &done };
		assert_int_equal(pthread_create(&th[i], NULL, race_thread, &r[i]), 0);
	}
	/* wait until all have tried: count while they are alive */
	for (i = 0; i < 500; i++) {
		int tried = 0, j;

		for (j = 0; j < NR_SLOTS + 1; j++)
			tried += r[j].t || r[j].err;
		if (tried == NR_SLOTS + 1)
			break;
		usleep(10000);
	}
	for (i = 0; i < NR_SLOTS + 1; i++) {
		struct scxpol_hint_slot s;
		__u32 idx;

		if (!r[i].t) {
			full = i;
			continue;
		}
		ok++;
		assert_int_equal(slot_of(r[i].tid, &idx), 0);
		assert_false(used[idx]);
		used[idx] = true;
		s = slot_at(c, idx);
		assert_int_equal(s.tid, r[i].tid);
	}
	assert_int_equal(ok, NR_SLOTS);
	assert_true(full >= 0);
	assert_int_equal(r[full].err, ENOSPC);
	snprintf(err_buf, sizeof(err_buf), "thread %u: all %d hint slots of policy 't' are taken "
		 "(raise its nr_slots, or prune dead threads)", r[full].tid, NR_SLOTS);
	assert_string_equal(r[full].msg, err_buf);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.threads, NR_SLOTS);
	for (i = 0; i < NR_SLOTS + 1; i++)
		if (r[i].t)
			assert_int_equal(scxpol_hint_thread_unregister(r[i].t), 0);
	pthread_barrier_wait(&done);
	for (i = 0; i < NR_SLOTS + 1; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.threads, 0);
	scxpol_hint_client_close(c);
}

static void test_proc_status(void **state)
{
	pid_t t = 0;

	(void)state;
	assert_int_equal(scxpol_proc_status_tgid("Name:\tbash\nUmask:\t0022\nState:\tS\n"
						 "Tgid:\t4242\nNgid:\t0\nPid:\t4243\n", &t), 0);
	assert_int_equal(t, 4242);
	/* the last line, without its newline; the name is escaped, so no line mimics one */
	assert_int_equal(scxpol_proc_status_tgid("Name:\tTgid: 7\nTgid:  9", &t), 0);
	assert_int_equal(t, 9);
	/* what strtol() took: a sign, trailing text, an overflow, no number, pid 0 */
	assert_int_equal(scxpol_proc_status_tgid("Tgid:\t-5\n", &t), -EINVAL);
	assert_int_equal(scxpol_proc_status_tgid("Tgid:\t12x\n", &t), -EINVAL);
	assert_int_equal(scxpol_proc_status_tgid("Tgid:\t2147483648\n", &t), -EINVAL);
	assert_int_equal(scxpol_proc_status_tgid("Tgid:\n", &t), -EINVAL);
	assert_int_equal(scxpol_proc_status_tgid("Tgid:\t0\n", &t), -EINVAL);
	assert_int_equal(scxpol_proc_status_tgid("Name:\tx\n", &t), -EINVAL);
	assert_int_equal(t, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_status),
		hint_pins_test(test_open_errors),
		hint_pins_test(test_permissions),
		hint_pins_test(test_limits_not_writable),
		hint_pins_test(test_set_get_clear_tid),
		hint_pins_test(test_checks),
		hint_pins_test(test_other_pid_namespace),
		hint_pins_test(test_no_pools),
		hint_pins_test(test_cgroup_paths),
		hint_pins_test(test_full_map),
		hint_pins_test(test_thread_slot),
		hint_pins_test(test_thread_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
