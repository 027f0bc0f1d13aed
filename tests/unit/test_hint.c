// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The hint client on the host, against real BPF maps pinned in a private
 * bpffs mount (created here as a policy would create them): open errors,
 * permissions (as an unprivileged user and as a group member), set/get/clear
 * and their checks, cgroup paths, full maps, thread slots under contention,
 * pruning of dead tasks and cgroups, ids reused. The policy side
 * (scxpol_hint_setup()) is test_hint_setup.c's. Needs root (mount,
 * setuid); without it every test is skipped.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
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
#include "pidfd_native.h"

static char err_buf[1024];

static struct scxpol_hint_client *open_at(const char *dir)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, o, .pin_root = dir);

	return scxpol_hint_client_open("t", &o);
}

static struct scxpol_hint_client *open_client(void)
{
	struct scxpol_hint_client *c;

	if (!hint_mounted)
		skip();
	c = open_at(hint_root);
	assert_non_null(c);
	return c;
}

/* A pin of the hint maps under hint_root, opened. */
static int pin(const char *map)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hint_root, map);
	fd = bpf_obj_get(path);
	assert_true(fd >= 0);
	return fd;
}

/* The generation writers bump, in the pins @c opened (those under hint_root). */
static __u64 gen(struct scxpol_hint_client *c)
{
	__u64 g;
	int fd;

	(void)c;
	fd = pin("scxpol_hint_gen");
	assert_int_equal(bpf_map_lookup_elem(fd, &(__u32){ 0 }, &g), 0);
	close(fd);
	return g;
}

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
	r = scxpol_hint_set_tgid(c, getpid(), &h);
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

/*
 * The pins as pin_gid 4242 and pin_mode 0660 leave them: the limits, which
 * the programs only read (BPF_F_RDONLY_PROG), 0640.
 */
static void share_pins(void)
{
	char path[512];
	size_t i;

	assert_int_equal(chown(hint_root, (uid_t)-1, 4242), 0);
	assert_int_equal(chmod(hint_root, 0710), 0);
	for (i = 0; i < NR_HINT_PIN_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", hint_root, hint_pin_maps[i].name);
		assert_int_equal(chown(path, (uid_t)-1, 4242), 0);
		assert_int_equal(chmod(path, hint_pin_maps[i].flags & BPF_F_RDONLY_PROG ? 0640 : 0660),
				 0);
	}
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
	assert_int_equal(scxpol_hint_set_tid(c, tid, &h), 0);
	assert_int_equal(gen(c), g + 1);
	assert_int_equal(scxpol_hint_get_tid(c, tid, &out), 0);
	/* the fields without their flag are stored neutral */
	assert_int_equal(out.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(out.class_id, 2);
	assert_int_equal(out.pool, SCXPOL_HINT_POOL_NONE);
	assert_int_equal(out.importance, 0);

	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .importance = 7,
				  .flags = SCXPOL_HINT_F_POOL | SCXPOL_HINT_F_IMPORTANCE };
	assert_int_equal(scxpol_hint_set_tid(c, tid, &h), 0);
	assert_int_equal(scxpol_hint_get_tid(c, tid, &out), 0);
	assert_memory_equal(&out, &h, sizeof(h));

	assert_int_equal(scxpol_hint_clear_tid(c, tid), 0);
	assert_int_equal(gen(c), g + 3);
	expect_err(scxpol_hint_get_tid(c, tid, &out), ENOENT, "tid %d: no hint", tid);
	expect_err(scxpol_hint_clear_tid(c, tid), ENOENT, "tid %d: no hint to clear", tid);
	/* failures do not bump */
	assert_int_equal(gen(c), g + 3);
	scxpol_hint_client_close(c);
}

struct waiter {
	pthread_barrier_t b;
	pid_t tid;
};

/* A thread that lives between two barriers; its tid in w->tid. */
static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->tid = gettid();
	pthread_barrier_wait(&w->b);
	pthread_barrier_wait(&w->b);
	return NULL;
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
	expect_err(scxpol_hint_set_tid(c, tid, &h), EINVAL, "tid %d: the hint sets no field "
		   "(flags 0); clear the hint to remove it", tid);
	h.flags = 0x10 | SCXPOL_HINT_F_CLASS;
	expect_err(scxpol_hint_set_tid(c, tid, &h), EINVAL, "tid %d: unknown hint flags 0x10", tid);
	h = (struct scxpol_hint){ .class_id = 3, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set_tid(c, tid, &h), EINVAL, "tid %d: class 3 out of range: policy "
		   "'t' accepts classes 0..2", tid);
	h = (struct scxpol_hint){ .pool = 2, .flags = SCXPOL_HINT_F_POOL };
	expect_err(scxpol_hint_set_tgid(c, getpid(), &h), EINVAL, "tgid %d: pool 2 out of range: "
		   "policy 't' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)", getpid());
	h.pool = -2;
	expect_err(scxpol_hint_set_cgroup_id(c, 77, &h), EINVAL, "cgroup id 77: pool -2 out of "
		   "range: policy 't' has pools 0..1 (or SCXPOL_HINT_POOL_NONE)");
	h = (struct scxpol_hint){ .importance = 8, .flags = SCXPOL_HINT_F_IMPORTANCE };
	expect_err(scxpol_hint_set_tid(c, tid, &h), EINVAL, "tid %d: importance 8 out of range: "
		   "policy 't' accepts 0..7", tid);
	expect_err(scxpol_hint_set_tid(c, tid, NULL), EINVAL, "tid %d: hint is NULL", tid);
	expect_err(scxpol_hint_set_cgroup_id(c, 0, &h), EINVAL, "cgroup id 0: not a cgroup id");
	expect_err(scxpol_hint_set_tid(c, -5, &h), EINVAL, "tid -5: not a thread id");

	h = (struct scxpol_hint){ .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set_tid(c, 0x3ffffff0, &h), ESRCH, "tid 1073741808: no such thread "
		   "(ids are those of the initial PID namespace)");
	expect_err(scxpol_hint_set_tgid(c, 0x3ffffff0, &h), ESRCH, "tgid 1073741808: no such "
		   "process (ids are those of the initial PID namespace)");
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	expect_err(scxpol_hint_set_tgid(c, w.tid, &h), ESRCH, "tgid %d: a thread of process %d, "
		   "not a process", w.tid, getpid());
	assert_int_equal(scxpol_hint_set_tid(c, w.tid, &h), 0);
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
			int r = scxpol_hint_set_tgid(c, getpid(), &h);

			if (r != -EOPNOTSUPP || strcmp(scxpol_last_error(), want)) {
				fprintf(stderr, "set_tgid: %d, '%s'\n", r, scxpol_last_error());
				r = 1;
			} else {
				r = scxpol_hint_clear_tid(c, 1) == -EOPNOTSUPP ? 0 : 2;
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
	assert_int_equal(scxpol_hint_set_tgid(c, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_clear_tgid(c, getpid()), 0);
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
	expect_err(scxpol_hint_set_tgid(c, getpid(), &h), EINVAL, "tgid %d: pool 0 out of range: "
		   "policy 't' has no pools (only SCXPOL_HINT_POOL_NONE)", getpid());
	h = (struct scxpol_hint){ .class_id = 0, .flags = SCXPOL_HINT_F_CLASS };
	expect_err(scxpol_hint_set_tgid(c, getpid(), &h), EINVAL, "tgid %d: class 0 out of range: "
		   "policy 't' accepts no classes", getpid());
	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .flags = SCXPOL_HINT_F_POOL };
	assert_int_equal(scxpol_hint_set_tgid(c, getpid(), &h), 0);
	scxpol_hint_client_close(c);
}

/* --- cgroups -------------------------------------------------------------------- */

/* The cgroup2 mount point, or "" if there is none. */
static void cgroup2_mount(char *buf, size_t len)
{
	char line[1024], r[512], m[512];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	buf[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " - cgroup2 ") &&
		    sscanf(line, "%*s %*s %*s %511s %511s", r, m) == 2 && !strcmp(r, "/")) {
			snprintf(buf, len, "%s", m);
			break;
		}
	fclose(f);
}

static void test_cgroup_paths(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS }, out;
	char cg2[512], dir[600], file[700];
	struct stat st;

	(void)state;
	cgroup2_mount(cg2, sizeof(cg2));
	if (!cg2[0])
		skip();
	snprintf(dir, sizeof(dir), "%s/scxpol-hint-test-%d", cg2, getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(scxpol_hint_set_cgroup_path(c, dir, &h), 0);
	assert_int_equal(scxpol_hint_get_cgroup_id(c, st.st_ino, &out), 0);
	assert_int_equal(out.class_id, 1);
	assert_int_equal(scxpol_hint_get_cgroup_path(c, dir, &out), 0);
	assert_int_equal(scxpol_hint_clear_cgroup_id(c, st.st_ino), 0);
	expect_err(scxpol_hint_clear_cgroup_path(c, dir), ENOENT, "cgroup %s (id %llu): no hint to "
		   "clear", dir, (unsigned long long)st.st_ino);

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	expect_err(scxpol_hint_set_cgroup_path(c, file, &h), ENOTDIR, "cgroup '%s': not a "
		   "directory", file);
	expect_err(scxpol_hint_set_cgroup_path(c, "/tmp", &h), EINVAL, "cgroup '/tmp': not on a "
		   "cgroup2 file system");
	expect_err(scxpol_hint_get_cgroup_path(c, "/nonexistent", &out), ENOENT, "cgroup "
		   "'/nonexistent': No such file or directory");
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
	assert_int_equal(scxpol_hint_set_tid(c, gettid(), &h), 0);
	/* replacing an entry needs no room */
	assert_int_equal(scxpol_hint_set_tid(c, gettid(), &h), 0);
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	expect_err(scxpol_hint_set_tid(c, w.tid, &h), ENOSPC, "tid %d: %s/scxpol_hint_tid is full "
		   "(1 entries): remove stale hints (scxpol_hint_prune) or raise the policy's "
		   "max_tids", w.tid, dir);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	scxpol_hint_client_close(c);
}

static int do_prune(struct scxpol_hint_client *c)
{
	unsigned int removed = 0;

	return scxpol_hint_prune(c, &removed) ? -1 : (int)removed;
}

/* The parent process (another user's, as its hidden child sees it) as a process and a thread. */
static int set_parent(struct scxpol_hint_client *c)
{
	struct scxpol_hint h = { .class_id = 2, .flags = SCXPOL_HINT_F_CLASS };

	return scxpol_hint_set_tgid(c, getppid(), &h) || scxpol_hint_set_tid(c, getppid(), &h) ?
		       -1 : 0;
}

/*
 * In a child with its own /proc mounted hidepid=2, as uid 65534 in group
 * 4242: @fn on a client of the pins. Its exit status is what @fn returns,
 * or 100+.
 */
static int hidden_child(int (*fn)(struct scxpol_hint_client *c))
{
	struct scxpol_hint_client *c;
	gid_t group = 4242;
	int r;

	if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", 0, "hidepid=2"))
		return 100;
	if (setgroups(1, &group) || setgid(65534) || setuid(65534))
		return 101;
	c = open_at(hint_root);
	r = c ? fn(c) : -1;
	if (r < 0) {
		fprintf(stderr, "%s\n", scxpol_last_error());
		return 102;
	}
	scxpol_hint_client_close(c);
	return r;
}

/* hidden_child(@fn) in a child of this process, which has client @own open. */
static int run_hidden(struct scxpol_hint_client *own, int (*fn)(struct scxpol_hint_client *c))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		scxpol_hint_client_close(own); /* the child's copy: no leak under valgrind */
		_exit(hidden_child(fn));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A client that /proc does not show other users' tasks to (hidepid=):
 * their hints can be set, and a prune removes none of them.
 */
static void test_hidden_tasks(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	struct waiter w;
	pthread_t th;

	(void)state;
	/* and a thread other than the leader */
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	assert_int_equal(scxpol_hint_set_tid(c, w.tid, &h), 0);
	share_pins();
	assert_int_equal(run_hidden(c, set_parent), 0);
	assert_int_equal(scxpol_hint_get_tgid(c, getpid(), &h), 0);
	assert_int_equal(h.class_id, 2);
	assert_int_equal(run_hidden(c, do_prune), 0);
	assert_int_equal(scxpol_hint_get_tgid(c, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_get_tid(c, gettid(), &h), 0);
	assert_int_equal(scxpol_hint_get_tid(c, w.tid, &h), 0);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	scxpol_hint_client_close(c);
}

/* --- walking a map while the BPF side deletes ------------------------------------ */

/* Armed: the walk of map @deleting_id deletes the key of its @deleting_at-th step first. */
static __u32 deleting_id;
static int deleting_at;

static __u32 map_id(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_map_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/*
 * libbpf's, through this hook: as the BPF side deletes the hint of a task
 * that exits while a client walks the map. The kernel then restarts the
 * walk at the first key.
 */
int bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	int (*real)(int, const void *, void *) =
		(int (*)(int, const void *, void *))dlsym(RTLD_NEXT, "bpf_map_get_next_key");

	if (key && deleting_id && map_id(fd) == deleting_id && !deleting_at--)
		bpf_map_delete_elem(fd, key);
	return real(fd, key, next_key);
}

/* An entry deleted under the walk: the others are counted once each, not twice. */
static void test_count_while_entries_go(void **state)
{
	struct scxpol_hint_task h = { .hint = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS } };
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint_counts n;
	__u32 tid;
	int fd;

	(void)state;
	fd = pin("scxpol_hint_tid");
	for (tid = 1000; tid < 1010; tid++)
		assert_int_equal(bpf_map_update_elem(fd, &tid, &h, BPF_ANY), 0);
	/* the third key the walk stands on goes (after it was counted) */
	deleting_id = map_id(fd);
	deleting_at = 2;
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	deleting_id = 0;
	close(fd);
	assert_int_equal(n.tids, 10);
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

/* --- pruning --------------------------------------------------------------------- */

static void *register_and_exit(void *arg)
{
	struct scxpol_hint_client *c = arg;

	/* exits registered, as a thread that crashes would */
	return scxpol_hint_thread_register(c);
}

/*
 * Prune with no cgroup2 tree to read (a child's mount namespace without
 * it): the cgroup hints cannot be checked, an error says why, and the dead
 * process's hint is removed all the same.
 */
static int prune_no_cgroup_tree(struct scxpol_hint_client *c, const char *cg2)
{
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	unsigned int removed = 99;
	pid_t dead;

	if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    umount2(cg2, MNT_DETACH))
		return 77;
	if (scxpol_hint_set_cgroup_id(c, 77, &h))
		return 10;
	dead = fork();
	if (!dead) {
		pause();
		_exit(0);
	}
	if (scxpol_hint_set_tgid(c, dead, &h))
		return 11;
	kill(dead, SIGKILL);
	waitpid(dead, NULL, 0);
	if (scxpol_hint_prune(c, &removed) != -ENOENT || removed != 1)
		return 12;
	if (strcmp(scxpol_last_error(), "no cgroup2 file system mounted at its root (see "
		   "/proc/self/mountinfo): cannot tell which cgroups exist")) {
		fprintf(stderr, "prune: '%s'\n", scxpol_last_error());
		return 13;
	}
	return scxpol_hint_clear_cgroup_id(c, 77) ? 14 : 0;
}

static void test_prune_without_cgroup_tree(void **state)
{
	struct scxpol_hint_client *c = open_client();
	char cg2[512];
	int status;
	pid_t pid;

	(void)state;
	cgroup2_mount(cg2, sizeof(cg2));
	if (!cg2[0])
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int r = prune_no_cgroup_tree(c, cg2);

		scxpol_hint_client_close(c); /* the child's copy: no leak under valgrind */
		_exit(r);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
	scxpol_hint_client_close(c);
}

static void test_prune(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	struct scxpol_hint_counts n;
	char cg2[512], live[600], dead[600];
	unsigned int removed = 99;
	struct waiter w;
	pthread_t th;
	void *leaked;
	__u64 g;
	pid_t child;

	(void)state;
	cgroup2_mount(cg2, sizeof(cg2));
	if (!cg2[0])
		skip();
	/* live: this process, this thread, a cgroup */
	assert_int_equal(scxpol_hint_set_tgid(c, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_set_tid(c, gettid(), &h), 0);
	snprintf(live, sizeof(live), "%s/scxpol-hint-live-%d", cg2, getpid());
	snprintf(dead, sizeof(dead), "%s/scxpol-hint-dead-%d", cg2, getpid());
	assert_int_equal(mkdir(live, 0755), 0);
	assert_int_equal(mkdir(dead, 0755), 0);
	assert_int_equal(scxpol_hint_set_cgroup_path(c, live, &h), 0);
	assert_int_equal(scxpol_hint_set_cgroup_path(c, dead, &h), 0);
	assert_int_equal(rmdir(dead), 0);

	/* dead: a thread with a hint, a process with a hint, a registered thread */
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	assert_int_equal(scxpol_hint_set_tid(c, w.tid, &h), 0);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	child = fork();
	if (!child) {
		pause();
		_exit(0);
	}
	assert_int_equal(scxpol_hint_set_tgid(c, child, &h), 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	pthread_create(&th, NULL, register_and_exit, c);
	pthread_join(th, &leaked);
	assert_non_null(leaked);
	free(leaked); /* the handle only: its slot is what prune must find */

	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.cgroups, 2);
	assert_int_equal(n.tgids, 2);
	assert_int_equal(n.tids, 2);
	assert_int_equal(n.threads, 1);
	g = gen(c);
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	/* cgroup, tgid, tid, and the registration (index entry and slot) */
	assert_int_equal(removed, 4);
	assert_int_equal(gen(c), g + 1);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.cgroups, 1);
	assert_int_equal(n.tgids, 1);
	assert_int_equal(n.tids, 1);
	assert_int_equal(n.threads, 0);
	assert_int_equal(scxpol_hint_get_cgroup_path(c, live, &h), 0);
	assert_int_equal(scxpol_hint_get_tid(c, gettid(), &h), 0);

	/* nothing left to do: no bump */
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(gen(c), g + 1);
	assert_int_equal(rmdir(live), 0);
	scxpol_hint_client_close(c);
}

/* --- ids reused ----------------------------------------------------------------- */

/* Write ns_last_pid so that the next task gets @want; false without it. */
static bool next_pid(pid_t want)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC), n;
	bool ok;

	if (fd < 0)
		return false;
	n = snprintf(buf, sizeof(buf), "%d", (int)want - 1);
	ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok;
}

/*
 * A new child that gets pid @want, which is free (other processes of the
 * host may take it first: try again). 0 when it cannot be had (no
 * ns_last_pid).
 */
static pid_t spawn_as(pid_t want)
{
	pid_t pid;
	int i;

	for (i = 0; i < 100; i++) {
		if (!next_pid(want))
			return 0;
		pid = spawn_paused();
		if (pid == want)
			return pid;
		reap(pid);
	}
	return 0;
}

/*
 * A process exits while no policy runs and a new one gets its pid: the
 * hints set for the first are not the second's. get says so, and the
 * prune removes them though the pid is alive.
 */
static void test_pid_reused(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS }, out;
	struct scxpol_hint_counts n;
	unsigned int removed;
	pid_t first, second;

	(void)state;
	first = spawn_paused();
	assert_int_equal(scxpol_hint_set_tgid(c, first, &h), 0);
	assert_int_equal(scxpol_hint_set_tid(c, first, &h), 0);
	reap(first);
	second = spawn_as(first);
	if (!second) {
		scxpol_hint_client_close(c);
		skip();
	}
	expect_err(scxpol_hint_get_tgid(c, second, &out), ENOENT, "tgid %d: no hint (the entry "
		   "for this id is of a process that is gone; the prune removes it)", second);
	expect_err(scxpol_hint_get_tid(c, second, &out), ENOENT, "tid %d: no hint (the entry for "
		   "this id is of a thread that is gone; the prune removes it)", second);
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.tgids + n.tids, 0);
	/* its own */
	assert_int_equal(scxpol_hint_set_tgid(c, second, &h), 0);
	assert_int_equal(scxpol_hint_get_tgid(c, second, &out), 0);
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	assert_int_equal(removed, 0);
	reap(second);
	scxpol_hint_client_close(c);
}

/* Armed: the next write to map @reuse_id first replaces process *reuse_pid by a new one. */
static __u32 reuse_id;
static pid_t *reuse_pid;

/* libbpf's, through this hook: the process dies and its pid is reused as the client writes. */
int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	int (*real)(int, const void *, const void *, __u64) =
		(int (*)(int, const void *, const void *, __u64))dlsym(RTLD_NEXT,
								      "bpf_map_update_elem");

	if (reuse_id && map_id(fd) == reuse_id) {
		pid_t old = *reuse_pid;

		reuse_id = 0;
		reap(old);
		*reuse_pid = spawn_as(old);
	}
	return real(fd, key, value, flags);
}

/* The process exits between the client's look at it and its write. */
static void test_pid_reused_under_write(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS }, out;
	unsigned int removed;
	pid_t pid, first;
	int fd;

	(void)state;
	fd = pin("scxpol_hint_tgid");
	pid = first = spawn_paused();
	reuse_pid = &pid;
	reuse_id = map_id(fd);
	close(fd);
	assert_int_equal(scxpol_hint_set_tgid(c, pid, &h), 0);
	if (!pid) {
		scxpol_hint_client_close(c);
		skip();
	}
	assert_int_equal(pid, first);
	expect_err(scxpol_hint_get_tgid(c, pid, &out), ENOENT, "tgid %d: no hint (the entry for "
		   "this id is of a process that is gone; the prune removes it)", pid);
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	assert_int_equal(removed, 1);
	reap(pid);
	scxpol_hint_client_close(c);
}

struct tid_reg {
	struct scxpol_hint_client *c;
	pid_t tid;
	struct scxpol_hint_thread *t;
	int err;
};

/* Registers, records its tid, and exits registered. */
static void *register_recorded(void *arg)
{
	struct tid_reg *a = arg;

	a->tid = gettid();
	a->t = scxpol_hint_thread_register(a->c);
	a->err = a->t ? 0 : errno;
	return NULL;
}

/*
 * A thread exits registered, and a new thread gets its tid: the slot is
 * the first thread's, so the second registers (it is not "registered
 * already"), and the first's slot is given back.
 */
static void test_tid_reused_slot(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct tid_reg first = { .c = c }, second = { .c = c };
	struct scxpol_hint_counts n;
	pthread_t th;
	int i;

	(void)state;
	pthread_create(&th, NULL, register_recorded, &first);
	pthread_join(th, NULL);
	assert_non_null(first.t);
	for (i = 0; i < 100; i++) {
		if (!next_pid(first.tid))
			break;
		second = (struct tid_reg){ .c = c };
		pthread_create(&th, NULL, register_recorded, &second);
		pthread_join(th, NULL);
		if (second.tid == first.tid)
			break;
		if (second.t)
			scxpol_hint_thread_unregister(second.t);
	}
	if (second.tid != first.tid) {
		free(first.t);
		scxpol_hint_client_close(c);
		skip();
	}
	assert_int_equal(second.err, 0);
	assert_non_null(second.t);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.threads, 1);
	assert_int_equal(scxpol_hint_thread_unregister(second.t), 0);
	/* the handle only: its slot went with the second registration */
	free(first.t);
	scxpol_hint_client_close(c);
}

/*
 * A kernel without pidfd_open() (or a tool that does not know the call):
 * every call that names a task says which call is missing, and the prune
 * cannot tell an entry's task from an earlier one with its id.
 */
static void test_no_pidfd_open(void **state)
{
	struct scxpol_hint_client *c = open_client();
	struct scxpol_hint h = { .class_id = 1, .flags = SCXPOL_HINT_F_CLASS };
	const char *why = "pidfd_open() is not offered (ENOSYS): it needs Linux 5.3 or later, "
			  "and a tool this process runs under may not know it (valgrind 3.19 "
			  "does not)";
	pid_t tid = gettid();
	unsigned int removed = 0;

	(void)state;
	assert_int_equal(scxpol_hint_set_tid(c, tid, &h), 0);
	pidfd_native_fail = ENOSYS;
	expect_err(scxpol_hint_set_tid(c, tid, &h), ENOSYS, "tid %d: a hint names its task by "
		   "its pidfd's inode, as ids are reused: %s", tid, why);
	expect_err(scxpol_hint_set_tgid(c, getpid(), &h), ENOSYS, "tgid %d: a hint names its "
		   "task by its pidfd's inode, as ids are reused: %s", getpid(), why);
	expect_err(scxpol_hint_get_tid(c, tid, &h), ENOSYS, "tid %d: a hint names its task by "
		   "its pidfd's inode, as ids are reused: %s", tid, why);
	assert_null(scxpol_hint_thread_register(c));
	assert_int_equal(errno, ENOSYS);
	snprintf(err_buf, sizeof(err_buf), "thread %d: a slot names its thread by its pidfd's "
		 "inode: %s", tid, why);
	assert_string_equal(scxpol_last_error(), err_buf);
	expect_err(scxpol_hint_prune(c, &removed), ENOSYS, "cannot tell the tasks of "
		   "%s/scxpol_hint_tid from earlier ones with their ids: %s", hint_root, why);
	assert_int_equal(removed, 0);
	pidfd_native_fail = 0;
	assert_int_equal(scxpol_hint_get_tid(c, tid, &h), 0);
	assert_int_equal(h.class_id, 1);
	scxpol_hint_client_close(c);
}

/* The pruner finds the cgroup2 mount in /proc/self/mountinfo (no root needed). */
static void test_mountinfo(void **state)
{
	char m[4096], tiny[8];

	(void)state;
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /sys/fs/cgroup rw,nosuid shared:4 "
						  "- cgroup2 cgroup2 rw,nsdelegate\n", m,
						  sizeof(m)), 1);
	assert_string_equal(m, "/sys/fs/cgroup");
	/* no optional fields, no newline */
	assert_int_equal(scxpol_mountinfo_cgroup2("29 1 0:26 / /cg rw - cgroup2 none rw", m,
						  sizeof(m)), 1);
	assert_string_equal(m, "/cg");
	/* the kernel escapes space, tab, newline and backslash */
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /mnt/a\\040b\\011c\\012d\\134e rw "
						  "- cgroup2 cgroup2 rw\n", m, sizeof(m)), 1);
	assert_string_equal(m, "/mnt/a b\tc\nd\\e");
	/* a mount point that reads " - cgroup2 " once decoded is not a separator */
	assert_int_equal(scxpol_mountinfo_cgroup2("37 25 8:1 / /x\\040-\\040cgroup2\\040y rw - ext4 "
						  "/dev/sda1 rw\n", m, sizeof(m)), 0);
	/* a subtree bind mount, cgroup v1, a line without a separator */
	assert_int_equal(scxpol_mountinfo_cgroup2("40 25 0:26 /sub /mnt/sub rw shared:9 - cgroup2 "
						  "cgroup2 rw\n", m, sizeof(m)), 0);
	assert_int_equal(scxpol_mountinfo_cgroup2("41 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup "
						  "cgroup rw,cpu\n", m, sizeof(m)), 0);
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /cg rw cgroup2 cgroup2 rw\n", m,
						  sizeof(m)), 0);
	assert_int_equal(scxpol_mountinfo_cgroup2("", m, sizeof(m)), 0);
	/* what does not fit, and a NUL, are errors */
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 "
						  "rw\n", tiny, sizeof(tiny)), -ENAMETOOLONG);
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 "
						  "rw\n", tiny, 0), -ENAMETOOLONG);
	assert_int_equal(scxpol_mountinfo_cgroup2("36 25 0:26 / /a\\000b rw - cgroup2 cgroup2 rw\n",
						  m, sizeof(m)), -EINVAL);
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
		cmocka_unit_test(test_mountinfo),
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
		hint_pins_test(test_hidden_tasks),
		hint_pins_test(test_count_while_entries_go),
		hint_pins_test(test_thread_slot),
		hint_pins_test(test_thread_race),
		hint_pins_test(test_prune),
		hint_pins_test(test_prune_without_cgroup_tree),
		hint_pins_test(test_pid_reused),
		hint_pins_test(test_pid_reused_under_write),
		hint_pins_test(test_tid_reused_slot),
		hint_pins_test(test_no_pidfd_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
