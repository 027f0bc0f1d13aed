// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Which task a hint's id names, and the prune that removes the hints of
 * tasks and cgroups that are gone, against maps pinned in a private bpffs
 * mount: tasks /proc hides from the client, entries the BPF side deletes
 * under a walk, pruning (with and without a cgroup2 tree, whose mount the
 * pruner finds in mountinfo), pids and tids reused, and a kernel without
 * pidfd_open(). test_hint.c has the rest of the client. Needs root (mount,
 * setuid, ns_last_pid); without it every test is skipped.
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/bpf.h>

#include <scxpol/hint.h>

#include "hint_client.h"
#include "hint_pins.h"
#include "internal.h"
#include "pidfd_native.h"

static char err_buf[1024];

/* --- tasks /proc hides ------------------------------------------------------------ */

static int do_prune(struct scxpol_hint_client *c)
{
	unsigned int removed = 0;

	return scxpol_hint_prune(c, &removed) ? -1 : (int)removed;
}

/* The parent process (another user's, as its hidden child sees it) as a process and a thread. */
static int set_parent(struct scxpol_hint_client *c)
{
	struct scxpol_hint h = { .class_id = 2, .flags = SCXPOL_HINT_F_CLASS };

	return scxpol_hint_set(c, SCXPOL_HINT_TGID, getppid(), &h) ||
			       scxpol_hint_set(c, SCXPOL_HINT_TID, getppid(), &h)
		       ? -1
		       : 0;
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
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, w.tid, &h), 0);
	share_pins();
	assert_int_equal(run_hidden(c, set_parent), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TGID, getpid(), &h), 0);
	assert_int_equal(h.class_id, 2);
	assert_int_equal(run_hidden(c, do_prune), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TGID, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, gettid(), &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, w.tid, &h), 0);
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
	if (scxpol_hint_set(c, SCXPOL_HINT_CGROUP, 77, &h))
		return 10;
	dead = fork();
	if (!dead) {
		pause();
		_exit(0);
	}
	if (scxpol_hint_set(c, SCXPOL_HINT_TGID, dead, &h))
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
	return scxpol_hint_clear(c, SCXPOL_HINT_CGROUP, 77) ? 14 : 0;
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
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), 0);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, gettid(), &h), 0);
	snprintf(live, sizeof(live), "%s/scxpol-hint-live-%d", cg2, getpid());
	snprintf(dead, sizeof(dead), "%s/scxpol-hint-dead-%d", cg2, getpid());
	assert_int_equal(mkdir(live, 0755), 0);
	assert_int_equal(mkdir(dead, 0755), 0);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_CGROUP, cgid(live), &h), 0);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_CGROUP, cgid(dead), &h), 0);
	assert_int_equal(rmdir(dead), 0);

	/* dead: a thread with a hint, a process with a hint, a registered thread */
	pthread_barrier_init(&w.b, NULL, 2);
	pthread_create(&th, NULL, wait_thread, &w);
	pthread_barrier_wait(&w.b);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, w.tid, &h), 0);
	pthread_barrier_wait(&w.b);
	pthread_join(th, NULL);
	child = fork();
	if (!child) {
		pause();
		_exit(0);
	}
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, child, &h), 0);
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
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_CGROUP, cgid(live), &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, gettid(), &h), 0);

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
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, first, &h), 0);
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, first, &h), 0);
	reap(first);
	second = spawn_as(first);
	if (!second) {
		scxpol_hint_client_close(c);
		skip();
	}
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TGID, second, &out), ENOENT,
		   "tgid %d: no hint (the entry "
		   "for this id is of a process that is gone; the prune removes it)",
		   second);
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TID, second, &out), ENOENT,
		   "tid %d: no hint (the entry for "
		   "this id is of a thread that is gone; the prune removes it)",
		   second);
	assert_int_equal(scxpol_hint_prune(c, &removed), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(scxpol_hint_count(c, &n), 0);
	assert_int_equal(n.tgids + n.tids, 0);
	/* its own */
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, second, &h), 0);
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TGID, second, &out), 0);
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
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TGID, pid, &h), 0);
	if (!pid) {
		scxpol_hint_client_close(c);
		skip();
	}
	assert_int_equal(pid, first);
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TGID, pid, &out), ENOENT,
		   "tgid %d: no hint (the entry for "
		   "this id is of a process that is gone; the prune removes it)",
		   pid);
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
	assert_int_equal(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), 0);
	pidfd_native_fail = ENOSYS;
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TID, tid, &h), ENOSYS,
		   "tid %d: a hint names its task by "
		   "its pidfd's inode, as ids are reused: %s",
		   tid, why);
	expect_err(scxpol_hint_set(c, SCXPOL_HINT_TGID, getpid(), &h), ENOSYS,
		   "tgid %d: a hint names its "
		   "task by its pidfd's inode, as ids are reused: %s",
		   getpid(), why);
	expect_err(scxpol_hint_get(c, SCXPOL_HINT_TID, tid, &h), ENOSYS,
		   "tid %d: a hint names its task by "
		   "its pidfd's inode, as ids are reused: %s",
		   tid, why);
	assert_null(scxpol_hint_thread_register(c));
	assert_int_equal(errno, ENOSYS);
	snprintf(err_buf, sizeof(err_buf), "thread %d: a slot names its thread by its pidfd's "
		 "inode: %s", tid, why);
	assert_string_equal(scxpol_last_error(), err_buf);
	expect_err(scxpol_hint_prune(c, &removed), ENOSYS, "cannot tell the tasks of "
		   "%s/scxpol_hint_tid from earlier ones with their ids: %s", hint_root, why);
	assert_int_equal(removed, 0);
	pidfd_native_fail = 0;
	assert_int_equal(scxpol_hint_get(c, SCXPOL_HINT_TID, tid, &h), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		hint_pins_test(test_hidden_tasks),
		hint_pins_test(test_count_while_entries_go),
		hint_pins_test(test_prune),
		hint_pins_test(test_prune_without_cgroup_tree),
		hint_pins_test(test_pid_reused),
		hint_pins_test(test_pid_reused_under_write),
		hint_pins_test(test_tid_reused_slot),
		hint_pins_test(test_no_pidfd_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
