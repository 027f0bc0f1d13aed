// SPDX-License-Identifier: GPL-2.0
/*
 * Trace replay on the host: bodies run as real processes (no sched_ext
 * needed), with cgroups when the host lets the test create them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <scxpol/common.h>
#include <scxpol/cpuset.h>
#include <scxpol/hint.h>
#include <scxpol/stats.h>

#include "../../examples/faas/replay.h"
#include "hint_pins.h"

static char err[FAAS_ERR_LEN], tmpdir[256], cg_mount[1024];
static double ipu;

static struct faas_func funcs[] = {
	{ .name = "a", .trigger = "", .kind = FAAS_KIND_CPU },
	{ .name = "b", .trigger = "", .kind = FAAS_KIND_IO },
	{ .name = "c", .trigger = "", .kind = FAAS_KIND_POLL },
	{ .name = "d", .trigger = "", .kind = FAAS_KIND_MT },
};

/* a: cpu x3, b: io x2, c: poll, d: mt x2 */
static struct faas_invocation invs[] = {
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 0, .duration_us = 5000 },
	{ .func = 1, .kind = FAAS_KIND_IO, .arrival_us = 2000, .duration_us = 6000 },
	{ .func = 3, .kind = FAAS_KIND_MT, .arrival_us = 4000, .duration_us = 5000 },
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 10000, .duration_us = 5000 },
	{ .func = 2, .kind = FAAS_KIND_POLL, .arrival_us = 12000, .duration_us = 5000 },
	{ .func = 1, .kind = FAAS_KIND_IO, .arrival_us = 30000, .duration_us = 6000 },
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 40000, .duration_us = 5000 },
	{ .func = 3, .kind = FAAS_KIND_MT, .arrival_us = 41000, .duration_us = 5000 },
};

static struct faas_trace trace = {
	.funcs = funcs, .nr_funcs = 4, .inv = invs, .nr_inv = 8,
};

static const unsigned int cap11[] = { 1, 1 };

static struct faas_replay_opts base_opts(void)
{
	return (struct faas_replay_opts){
		.trace = &trace,
		.nr_domains = 2,
		.capacity = cap11,
		.bucket_us = 10000,
		.iat_alpha = 1,
		.body = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 2 },
	};
}

/* A cgroup2 mount where this process may create cgroups, or "". */
static void find_cgroup2(void)
{
	char line[4096], mnt[1024], probe[1200];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	cg_mount[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - cgroup2 ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1)
			continue;
		snprintf(probe, sizeof(probe), "%s/scxpol-faas-probe.%d", mnt, (int)getpid());
		if (!mkdir(probe, 0755)) {
			rmdir(probe);
			snprintf(cg_mount, sizeof(cg_mount), "%s", mnt);
			break;
		}
	}
	fclose(f);
}

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

/*
 * Make clone3 fail with @errnum: ENOSYS as container runtimes' seccomp
 * profiles do (Docker's among them), E2BIG as Linux 5.3 to 5.6 do for the
 * cgroup field they do not know. Bodies then take the fork-and-move path.
 * Returns 0, or the errno that kept the filter out (then clone3 may work).
 */
static int refuse_clone3(int errnum)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (__u32)errnum),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return errno;
	return 0;
}

/*
 * A child that could not refuse clone3 (status 77): under valgrind, which
 * runs no seccomp filter (scripts/check sets SCXPOL_VALGRIND), the test
 * is left to the plain run; anywhere else it fails.
 */
static bool no_seccomp_under_valgrind(int status)
{
	if (status != 77 || !getenv("SCXPOL_VALGRIND"))
		return false;
	print_message("# valgrind runs no seccomp filter: this test runs without valgrind\n");
	return true;
}

static int setup(void **state)
{
	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/scxpol-faas-replay.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	assert_int_equal(faas_calibrate(&ipu, err, sizeof(err)), 0);
	find_cgroup2();
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s/bpf", tmpdir);
	umount(cmd); /* test_sink_hint_domains' bpffs, if it failed before its umount */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* rmdir @path and the cgroups in it, if they are there */
static void remove_cgroup_tree(const char *path)
{
	char sub[2048];
	struct dirent *e;
	DIR *d = opendir(path);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			remove_cgroup_tree(sub);
		}
	closedir(d);
	rmdir(path);
}

/* A test that failed half-way leaves its bodies and cgroups to no later test. */
static int kill_children(void **state)
{
	char file[1100], buf[4096], *p, *end;
	ssize_t n;
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "/proc/self/task/%d/children", (int)getpid());
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
	}
	if (cg_mount[0]) {
		snprintf(file, sizeof(file), "%s/scxpol-faas-test.%d", cg_mount, (int)getpid());
		remove_cgroup_tree(file);
		snprintf(file, sizeof(file), "%s/scxpol-faas-spawn.%d", cg_mount, (int)getpid());
		remove_cgroup_tree(file);
	}
	return 0;
}

/* No body may be left behind, whatever the outcome. */
static void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void self_cgroup(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "r");

	buf[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
		}
	fclose(f);
}

static void test_replay_without_cgroups(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct faas_replay *r;
	struct faas_summary s;
	char path[300], line[1024], mine[512];
	uint64_t i;
	int rows = 0, mt = 0;
	FILE *f;

	(void)state;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), 0);
	assert_no_children();
	assert_int_equal(r->nr, 8);
	assert_int_equal(r->completed, 8);
	self_cgroup(mine, sizeof(mine));
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];

		assert_true(x->done);
		assert_int_equal(x->arrival_ns, invs[i].arrival_us * 1000);
		/* released at or after its arrival, started after that */
		assert_true(x->released_ns >= x->arrival_ns);
		assert_true(x->start_ns >= x->released_ns);
		assert_true(x->end_ns > x->start_ns);
		assert_true(x->first_cpu >= 0);
		assert_true(faas_cpuset_has(&x->cpus, x->first_cpu));
		assert_int_equal(x->cgroup_id, 0);
		assert_string_equal(x->cgroup, mine);
		/* an mt body needs 2 units: no domain of capacity 1 can take it */
		if (invs[i].kind == FAAS_KIND_MT) {
			assert_int_equal(x->domain, FAAS_DOMAIN_SHARED);
			mt++;
		} else {
			assert_true(x->domain >= FAAS_DOMAIN_SHARED && x->domain <= 1);
		}
	}
	/* a function's first invocation has nothing to reuse */
	assert_int_equal(r->res[0].reuse, -1);
	assert_int_equal(r->res[1].reuse, -1);
	assert_int_equal(r->res[2].reuse, -1);
	assert_int_equal(r->res[4].reuse, -1);
	assert_true(r->res[3].reuse == 0 || r->res[3].reuse == 1);
	assert_int_equal(r->iat.assigned + r->iat.shared, 8);
	assert_true(r->iat.shared >= (uint64_t)mt);
	assert_int_equal(r->iat.active, 0);
	assert_true(r->util >= 0 && r->util <= 1);

	assert_int_equal(faas_replay_summarize(r, &s), 0);
	assert_int_equal(s.count, 8);
	assert_int_equal(s.completed, 8);
	assert_int_equal(s.reuse_of, 4);
	assert_int_equal(s.shared, r->iat.shared);
	assert_true(s.p50_ms <= s.p99_ms && s.p99_ms <= s.p999_ms);

	/* one CSV row per invocation, in trace order */
	snprintf(path, sizeof(path), "%s/results.csv", tmpdir);
	f = fopen(path, "w+");
	assert_non_null(f);
	assert_int_equal(faas_replay_write_csv(r, f), 0);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "id,function,kind,domain,cgroup_id,cgroup,arrival_ms,released_ms,"
			    "start_ms,end_ms,e2e_ms,worker_ms,first_cpu,cpus,core_reuse,class\n");
	while (fgets(line, sizeof(line), f)) {
		char want[64], *p;
		int commas = 0;

		for (p = line; *p; p++)
			commas += *p == ',';
		assert_int_equal(commas, 15);
		/* normal tasks: the fair class (or sched_ext, if a policy runs every task) */
		assert_true(strstr(line, ",fair\n") || strstr(line, ",ext\n"));
		snprintf(want, sizeof(want), "%d,%s,%s,%s", rows, funcs[invs[rows].func].name,
			 faas_kind_name(invs[rows].kind),
			 invs[rows].kind == FAAS_KIND_MT ? "-1," : "");
		assert_int_equal(strncmp(line, want, strlen(want)), 0);
		rows++;
	}
	assert_int_equal(rows, 8);
	fclose(f);
	faas_replay_free(r);
}

static volatile sig_atomic_t stop_flag;

struct recorder {
	const char *root;
	int fail;       /* errno to fail assign with */
	int clear_fail; /* errno to fail clear with (each call still recorded) */
	int n_assign, n_clear;
	uint64_t cgid[16], cleared[16], when[16];
	int domain[16], procs[16];
	long inv; /* the invocation kill_assign killed, or the one a failing assign or clear got */
	volatile sig_atomic_t *stop; /* kill_assign sets it too: a Ctrl-C */
};

/*
 * The invocation N whose cgroup (root/inv-N) has the id (inode) @cgid, or
 * -1. A release does not follow arrival order: one whose body is not asleep
 * yet waits while later ones go ahead.
 */
static long inv_of(const char *root, uint64_t cgid)
{
	char path[2048];
	struct dirent *e;
	struct stat st;
	long n = -1;
	DIR *d = opendir(root);

	assert_non_null(d);
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
		if (!strncmp(e->d_name, "inv-", 4) && !stat(path, &st) && st.st_ino == cgid)
			n = strtol(e->d_name + 4, NULL, 10);
	}
	closedir(d);
	return n;
}

/* Processes in the cgroup under the root whose id is @cgid, or -1. */
static int procs_in(const char *root, uint64_t cgid)
{
	char path[2048], line[64];
	long inv = inv_of(root, cgid);
	FILE *f;
	int n;

	if (inv < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/inv-%ld/cgroup.procs", root, inv);
	f = fopen(path, "r");
	assert_non_null(f);
	for (n = 0; fgets(line, sizeof(line), f); n++)
		;
	fclose(f);
	return n;
}

static int rec_assign(void *ctx, uint64_t cgid, int domain)
{
	struct recorder *r = ctx;

	if (r->fail) {
		r->cgid[0] = cgid;
		r->domain[0] = domain;
		r->inv = inv_of(r->root, cgid);
		return -r->fail;
	}
	assert_true(r->n_assign < 16);
	r->when[r->n_assign] = faas_now_ns();
	r->cgid[r->n_assign] = cgid;
	r->domain[r->n_assign] = domain;
	r->procs[r->n_assign] = procs_in(r->root, cgid);
	r->n_assign++;
	return 0;
}

static int rec_clear(void *ctx, uint64_t cgid)
{
	struct recorder *r = ctx;

	assert_true(r->n_clear < 16);
	if (r->clear_fail && !r->n_clear)
		r->inv = inv_of(r->root, cgid);
	r->cleared[r->n_clear++] = cgid;
	return -r->clear_fail;
}

static const char *rec_error(void *ctx)
{
	(void)ctx;
	return "the map is full";
}

/* @o runs under the test's cgroup root, written to @root, reporting to @sink and its @rec. */
static void with_sink(struct faas_replay_opts *o, struct recorder *rec,
		      const struct faas_sink *sink, char *root, size_t len)
{
	snprintf(root, len, "%s/scxpol-faas-test.%d", cg_mount, (int)getpid());
	rec->root = root;
	o->cgroup_root = root;
	o->sink = sink;
}

static void test_replay_cgroups_and_sink(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct recorder rec = { 0 };
	struct faas_sink sink = { .name = "rec", .ctx = &rec, .assign = rec_assign,
				  .clear = rec_clear };
	char root[1100], want[1200];
	struct faas_replay *r;
	struct stat st;
	uint64_t i;
	int k, n, assigned = 0;

	(void)state;
	if (!cg_mount[0])
		skip(); /* the host gives this test no writable cgroup2 */
	with_sink(&o, &rec, &sink, root, sizeof(root));
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), 0);
	assert_no_children();
	assert_int_equal(r->completed, 8);
	/* the replay created the root, so it removed it with its cgroups */
	assert_int_equal(stat(root, &st), -1);

	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];

		snprintf(want, sizeof(want), "/scxpol-faas-test.%d/inv-%llu", (int)getpid(),
			 (unsigned long long)i);
		assert_string_equal(x->cgroup, want);
		assert_int_not_equal(x->cgroup_id, 0);
		if (i)
			assert_int_not_equal(x->cgroup_id, r->res[i - 1].cgroup_id);
		if (x->domain < 0)
			continue;
		/* told the sink before the body ran, with the body in its cgroup */
		for (k = 0; k < rec.n_assign && rec.cgid[k] != x->cgroup_id; k++)
			;
		assert_true(k < rec.n_assign);
		assert_int_equal(rec.domain[k], x->domain);
		assert_int_equal(rec.procs[k], 1);
		assert_true(rec.when[k] - r->t0_ns < x->start_ns);
		/* and cleared its hint once (completions come in any order) */
		for (k = 0, n = 0; k < rec.n_clear; k++)
			n += rec.cleared[k] == x->cgroup_id;
		assert_int_equal(n, 1);
		assigned++;
	}
	/* shared-queue invocations get no hint */
	assert_int_equal(rec.n_assign, assigned);
	assert_int_equal(rec.n_clear, assigned);
	assert_int_equal((uint64_t)assigned, r->iat.assigned);
	faas_replay_free(r);
}

/*
 * Overflow held: arrivals squeezed into half a millisecond, two domains of
 * capacity 1. The control plane runs one invocation per domain at a time,
 * releases the rest in arrival order, and never holds an mt one (it needs
 * 2: no domain can ever take it).
 */
static void test_replay_hold(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct faas_replay *r;
	struct faas_summary s;
	uint64_t i, j, held = 0;

	(void)state;
	o.overflow = FAAS_OVERFLOW_HOLD;
	o.time_scale = 0.01;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), 0);
	assert_no_children();
	assert_int_equal(r->completed, 8);
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];

		assert_true(x->done);
		if (invs[i].kind == FAAS_KIND_MT) {
			assert_int_equal(x->domain, FAAS_DOMAIN_SHARED);
			continue;
		}
		assert_true(x->domain == 0 || x->domain == 1);
		for (j = i + 1; j < r->nr; j++) {
			const struct faas_inv_result *y = &r->res[j];

			if (invs[j].kind == FAAS_KIND_MT)
				continue;
			/* first come, first released */
			assert_true(x->released_ns <= y->released_ns);
			/* one at a time per domain: the next starts after the last ended */
			if (y->domain == x->domain)
				assert_true(y->released_ns >= x->end_ns);
		}
		/* all arrive within 0.5 ms and run for ms: only two go at once */
		held += x->released_ns > x->arrival_ns + 1000000;
	}
	assert_true(held >= 3);
	/*
	 * Found no room at arrival: the 2 mt ones and those held (4 of the 6
	 * others, fewer when a loaded host delays the control plane past the
	 * first invocations' end); the held are given a domain later.
	 */
	assert_true(r->iat.late >= 3 && r->iat.late <= 4);
	assert_int_equal(r->iat.shared, r->iat.late + 2);
	assert_int_equal(faas_replay_summarize(r, &s), 0);
	assert_int_equal(s.shared, 2);
	assert_int_equal(s.held, r->iat.late);
	faas_replay_free(r);
}

static void test_replay_sink_failure(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct recorder rec = { .fail = ENOSPC };
	struct faas_sink sink = { .name = "rec", .ctx = &rec, .assign = rec_assign,
				  .clear = rec_clear, .last_error = rec_error };
	struct faas_replay *r = (void *)1;
	char root[1100], want[300];
	struct stat st;

	(void)state;
	if (!cg_mount[0])
		skip();
	with_sink(&o, &rec, &sink, root, sizeof(root));
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -ENOSPC);
	assert_null(r);
	assert_no_children();
	assert_int_equal(stat(root, &st), -1);
	/* the first release: invocation 0's, unless its body was not asleep yet */
	snprintf(want, sizeof(want), "sink 'rec': assigning cgroup %llu (invocation %ld) to domain %d: "
		 "the map is full", (unsigned long long)rec.cgid[0], rec.inv, rec.domain[0]);
	assert_string_equal(err, want);
	assert_true(rec.inv >= 0);
	assert_int_equal(rec.n_clear, 0);
}

/*
 * A hint that cannot be cleared fails the replay, naming the cgroup, and
 * stays pending: the cleanup after the failure tries to clear it again.
 */
static void test_replay_clear_failure(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct recorder rec = { .clear_fail = EIO };
	struct faas_sink sink = { .name = "rec", .ctx = &rec, .assign = rec_assign,
				  .clear = rec_clear, .last_error = rec_error };
	struct faas_replay *r = (void *)1;
	char root[1100], want[300];
	int k, n = 0;

	(void)state;
	if (!cg_mount[0])
		skip();
	with_sink(&o, &rec, &sink, root, sizeof(root));
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EIO);
	assert_null(r);
	assert_no_children();
	assert_true(rec.n_clear >= 2);
	snprintf(want, sizeof(want), "sink 'rec': clearing cgroup %llu (invocation %ld): the map "
		 "is full", (unsigned long long)rec.cleared[0], rec.inv);
	assert_string_equal(err, want);
	assert_true(rec.inv >= 0);
	for (k = 0; k < rec.n_clear; k++)
		n += rec.cleared[k] == rec.cleared[0];
	assert_int_equal(n, 2);
}

/* A sink that kills the first body it is given (cgroup.kill) and waits for it to be gone. */
static int kill_assign(void *ctx, uint64_t cgid, int domain)
{
	struct recorder *r = ctx;
	char path[2048];
	long inv = inv_of(r->root, cgid);
	int i, fd;

	(void)domain;
	assert_true(inv >= 0);
	snprintf(path, sizeof(path), "%s/inv-%ld/cgroup.kill", r->root, inv);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1", 1), 1);
	close(fd);
	for (i = 0; i < 500 && procs_in(r->root, cgid) > 0; i++)
		usleep(10000);
	assert_int_equal(procs_in(r->root, cgid), 0);
	r->inv = inv;
	r->n_assign++;
	if (r->stop)
		*r->stop = 1;
	return 0;
}

/*
 * A body killed before its release (a kill, Ctrl-C, the OOM killer): the
 * release fails with EPIPE and the replay cleans up, where SIGPIPE used
 * to kill it and leave its cgroups behind.
 */
static void test_replay_body_killed_before_release(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct recorder rec = { 0 };
	struct faas_sink sink = { .name = "kill", .ctx = &rec, .assign = kill_assign,
				  .clear = rec_clear };
	struct faas_replay *r = (void *)1;
	char root[1100], want[100];
	struct stat st;

	(void)state;
	if (!cg_mount[0])
		skip();
	with_sink(&o, &rec, &sink, root, sizeof(root));
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EPIPE);
	assert_null(r);
	assert_int_equal(rec.n_assign, 1);
	assert_no_children();
	assert_int_equal(stat(root, &st), -1);
	snprintf(want, sizeof(want), "invocation %ld: cannot start its body: Broken pipe",
		 rec.inv);
	assert_string_equal(err, want);

	/*
	 * Killed by a Ctrl-C, which reaches the bodies (the same process
	 * group) as the replay's handler sets its stop flag: the replay says
	 * it was interrupted, not that a body failed.
	 */
	rec.n_assign = 0;
	rec.stop = &stop_flag;
	o.stop = &stop_flag;
	stop_flag = 0;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINTR);
	assert_null(r);
	assert_int_equal(rec.n_assign, 1);
	assert_no_children();
	assert_int_equal(stat(root, &st), -1);
	assert_string_equal(err, "interrupted after 0 of 8 invocations");
}

/* Records the assignment, then asks the replay to stop, as SIGINT's handler does. */
static int stop_assign(void *ctx, uint64_t cgid, int domain)
{
	struct itimerval every_50us = { { 0, 50 }, { 0, 50 } };
	int r = rec_assign(ctx, cgid, domain);

	if (!stop_flag)
		assert_int_equal(setitimer(ITIMER_REAL, &every_50us, NULL), 0);
	stop_flag = 1;
	return r;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Stopped mid-run (SIGINT, SIGTERM) while signals keep coming (a second
 * Ctrl-C, a supervisor's repeated SIGTERM; here SIGALRM every 50 us, no
 * SA_RESTART as faas-replay's handler): every body is killed and reaped,
 * every hint given is cleared, every cgroup removed. A waitpid() the
 * signal interrupted used to leave its body a zombie.
 */
static void test_replay_stop_mid_run(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct faas_replay_opts o = base_opts();
	struct recorder rec = { 0 };
	struct faas_sink sink = { .name = "rec", .ctx = &rec, .assign = stop_assign,
				  .clear = rec_clear };
	struct faas_replay *r = (void *)1;
	char root[1100];
	sigset_t alrm;
	struct stat st;
	int k, n, rc;

	(void)state;
	if (!cg_mount[0])
		skip();
	with_sink(&o, &rec, &sink, root, sizeof(root));
	o.stop = &stop_flag;
	stop_flag = 0;
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	rc = faas_replay_run(&o, &r, err, sizeof(err));
	setitimer(ITIMER_REAL, &off, NULL);
	/*
	 * A SIGALRM still pending (valgrind delivers late) would kill the
	 * test once the default action is back: take it first.
	 */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	while (sigtimedwait(&alrm, NULL, &(struct timespec){ 0 }) == SIGALRM)
		;
	sigaction(SIGALRM, &old, NULL);
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	assert_int_equal(rc, -EINTR);
	assert_null(r);
	assert_int_equal(strncmp(err, "interrupted after ", 18), 0);
	assert_no_children();
	assert_int_equal(stat(root, &st), -1);
	assert_true(rec.n_assign >= 1);
	for (k = 0; k < rec.n_assign; k++) {
		int j;

		for (j = 0, n = 0; j < rec.n_clear; j++)
			n += rec.cleared[j] == rec.cgid[k];
		assert_int_equal(n, 1);
	}
	assert_int_equal(rec.n_clear, rec.n_assign);
}

/* A replay of two invocations of @inv fails with -EINVAL, saying @want, and leaves nothing. */
static void expect_refused(struct faas_invocation *inv, const char *want)
{
	struct faas_trace t = { .funcs = funcs, .nr_funcs = 2, .inv = inv, .nr_inv = 2 };
	struct faas_replay_opts o = base_opts();
	struct faas_replay *r = (void *)1;

	o.trace = &t;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	assert_no_children();
	assert_string_equal(err, want);
}

static void test_replay_body_failure(void **state)
{
	static struct faas_invocation bad[] = {
		{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 0, .duration_us = 20000 },
		{ .func = 1, .kind = (enum faas_kind)9, .arrival_us = 1000, .duration_us = 1000 },
	};

	(void)state;
	expect_refused(bad, "invocation 1 (function b, ?) failed: Invalid argument");
}

/* A trace built through the API is checked: no index past funcs[], arrival order. */
static void test_replay_bad_trace(void **state)
{
	static struct faas_invocation past[] = {
		{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 0, .duration_us = 1000 },
		{ .func = 2, .kind = FAAS_KIND_CPU, .arrival_us = 1000, .duration_us = 1000 },
	};
	static struct faas_invocation unsorted[] = {
		{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 5000, .duration_us = 1000 },
		{ .func = 1, .kind = FAAS_KIND_CPU, .arrival_us = 4000, .duration_us = 1000 },
	};

	(void)state;
	expect_refused(past, "invocation 1: function 2, but the trace has 2");
	expect_refused(unsorted, "invocation 1 arrives at 4000 us, before invocation 0 (5000 us): "
				 "a trace is sorted by arrival");
}

static void test_replay_stop_and_options(void **state)
{
	static const unsigned int cap0[] = { 0 };
	struct faas_sink sink = { .name = "rec", .assign = rec_assign, .clear = rec_clear };
	volatile sig_atomic_t stop = 1;
	struct faas_replay_opts o = base_opts();
	struct faas_replay *r;

	(void)state;
	o.stop = &stop;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINTR);
	assert_string_equal(err, "interrupted after 0 of 8 invocations");

	/* not a time scale: refused, not a replay at arrival times of NaN ns */
	o = base_opts();
	o.stop = &stop;
	o.time_scale = NAN;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "time scale nan: want (0, 1e6]");
	o.time_scale = 1;
	o.overflow = (enum faas_overflow)2;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "overflow 2: want FAAS_OVERFLOW_SHARED or FAAS_OVERFLOW_HOLD");

	/* bodies in SCHED_EXT with no control plane telling a policy their domains */
	o = base_opts();
	o.body_ext = true;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bodies in SCHED_EXT need a policy that schedules them by the "
				 "domains the sink assigns: there is no sink");

	o = base_opts();
	o.sink = &sink;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "sink 'rec' needs a cgroup root: domains are assigned per cgroup");

	o = base_opts();
	o.body.mt_threads = 5;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "mt threads 5: want 2..4");

	o = base_opts();
	o.body.iters_per_us = 0;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "iterations per us 0: calibrate first");

	o = base_opts();
	o.nr_domains = 1;
	o.capacity = cap0;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "domain 0 has capacity 0, want >= 1");

	o = base_opts();
	o.cgroup_root = "/proc/no-such-dir/faas";
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "cgroup root '/proc/no-such-dir/faas': no such directory, and its "
			    "parent '/proc/no-such-dir' is not a cgroup2 directory");
	assert_no_children();
}

/*
 * A cgroup root that is no cgroup2 directory is refused before anything
 * runs or is created, not at the first invocation's clone3().
 */
static void test_cgroup_root_check(void **state)
{
	struct faas_replay_opts o = base_opts();
	char path[1100], want[2600];
	struct faas_replay *r;
	struct stat st;
	FILE *f;

	(void)state;
	/* an ordinary directory: nothing made in it */
	o.cgroup_root = tmpdir;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "cgroup root '%s': not a cgroup2 directory", tmpdir);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/inv-0", tmpdir);
	assert_int_equal(stat(path, &st), -1);
	assert_no_children();

	/* one to create, on an ordinary file system: not created */
	snprintf(path, sizeof(path), "%s/root", tmpdir);
	o.cgroup_root = path;
	assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "cgroup root '%s': no such directory, and its parent '%s' "
		 "is not a cgroup2 directory", path, tmpdir);
	assert_string_equal(err, want);
	assert_int_equal(stat(path, &st), -1);

	/* a file */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(faas_cgroup_root_check("--cgroup-root", path, err, sizeof(err)), -ENOTDIR);
	snprintf(want, sizeof(want), "--cgroup-root '%s': not a cgroup2 directory", path);
	assert_string_equal(err, want);
	unlink(path);

	if (!cg_mount[0])
		skip(); /* the host gives this test no writable cgroup2 */
	/* the cgroup2 mount itself, and a cgroup to create in it */
	assert_int_equal(faas_cgroup_root_check("--cgroup-root", cg_mount, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/scxpol-faas-check.%d", cg_mount, (int)getpid());
	assert_int_equal(faas_cgroup_root_check("--cgroup-root", path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), -1); /* a check creates nothing */
	/* its parent missing */
	snprintf(path, sizeof(path), "%s/scxpol-faas-check.%d/a/b", cg_mount, (int)getpid());
	assert_int_equal(faas_cgroup_root_check("--cgroup-root", path, err, sizeof(err)), -ENOENT);
}

/* A stats server that answers one request with a snapshot of policy "t"
 * whose domains d0, d1, ... are the CPU lists @cpus. */
struct one_stats {
	char path[300];
	char resp[2048];
	int fd;
	bool served;
	pthread_t thread;
};

static void *one_stats_serve(void *arg)
{
	struct one_stats *o = arg;
	char buf[4096];
	size_t off = 0;
	ssize_t got = 0;
	int c = accept(o->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	/* the whole line: the client may send its newline apart, and a close before it is EPIPE */
	while (off < sizeof(buf) && !memchr(buf, '\n', off) &&
	       (got = recv(c, buf + off, sizeof(buf) - off, 0)) > 0)
		off += (size_t)got;
	if (memchr(buf, '\n', off))
		o->served = send(c, o->resp, strlen(o->resp), MSG_NOSIGNAL) > 0;
	close(c);
	return NULL;
}

static void one_stats_start(struct one_stats *o, unsigned int n, const char *const *cpus)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char json[1024];
	unsigned int i;

	snprintf(st.policy, sizeof(st.policy), "t");
	for (i = 0; i < n; i++) {
		snprintf(st.pools[i].name, sizeof(st.pools[i].name), "d%u", i);
		snprintf(st.pools[i].cpus, sizeof(st.pools[i].cpus), "%s", cpus[i]);
	}
	st.nr_pools = n;
	assert_true(scxpol_stats_json(&st, json, sizeof(json)) > 0);
	snprintf(o->resp, sizeof(o->resp), "{\"errno\":0,\"resp\":%s}\n", json);
	snprintf(o->path, sizeof(o->path), "%s/t.sock", tmpdir);
	assert_true(strlen(o->path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, o->path, strlen(o->path));
	o->served = false;
	o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(o->fd >= 0);
	assert_int_equal(bind(o->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(o->fd, 1), 0);
	assert_int_equal(pthread_create(&o->thread, NULL, one_stats_serve, o), 0);
}

/* Stop: whether it was asked (a sink that never asked ends its wait in accept()). */
static bool one_stats_stop(struct one_stats *o)
{
	shutdown(o->fd, SHUT_RDWR);
	pthread_join(o->thread, NULL);
	close(o->fd);
	unlink(o->path);
	return o->served;
}

/* Open the sink on @pins against a server of the @n domains @cpus: it must fail; its errno. */
static int sink_refused(const char *pins, struct scxpol_cpuset *const *want, unsigned int n,
			const char *const *cpus)
{
	struct one_stats srv;
	int e;

	one_stats_start(&srv, n, cpus);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, srv.path, HINT_PINS_NR_POOLS, want, err,
					sizeof(err)));
	e = errno;
	assert_true(one_stats_stop(&srv));
	return e;
}

/* The pinned sink needs the policy's pinned hint maps; it says which are missing. */
static void test_sink_hint_open_fails(void **state)
{
	struct scxpol_cpuset *cpus[2] = { NULL, NULL };
	char pins[300];

	(void)state;
	snprintf(pins, sizeof(pins), "%s/no-pins", tmpdir);
	errno = 0;
	assert_null(faas_sink_hint_open("faas", pins, NULL, 2, cpus, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(strncmp(err, "sink 'pinned': ", 15), 0);
	assert_non_null(strstr(err, pins));
	faas_sink_hint_close(NULL);
}

/*
 * The pinned sink, on hint maps pinned as a policy of 2 domains pins them:
 * a replay of another number of domains is refused (its domain d is not
 * the policy's), so is one whose domains are other CPUs than the policy's
 * stats server reports, or with no server to ask; one of the same 2 runs
 * with every hint it set cleared.
 */
static void test_sink_hint_domains(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct scxpol_hint_counts n;
	SCXPOL_OPTS(scxpol_hint_client_opts, co, .pin_root = NULL);
	struct scxpol_hint_client *c;
	struct scxpol_cpuset *cpus[2] = { scxpol_cpuset_new(8), scxpol_cpuset_new(8) };
	struct faas_sink *sink;
	struct faas_replay *r;
	struct one_stats srv;
	char mnt[300], pins[400], root[1100], want[600], sock[300];
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_int_equal(scxpol_cpuset_set(cpus[i / 4], i), 0);
	snprintf(mnt, sizeof(mnt), "%s/bpf", tmpdir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("bpf", mnt, "bpf", 0, "mode=0700"))
		skip(); /* no bpffs here (not root) */
	snprintf(pins, sizeof(pins), "%s/t", mnt);
	make_pins(pins, NULL, NULL, NULL);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, NULL, 1, cpus, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	snprintf(want, sizeof(want), "sink 'pinned': policy t has %d domains, the replay 1: "
		 "domain d must be the same CPUs on both sides (the replay's --domains or --plan)",
		 HINT_PINS_NR_POOLS);
	assert_string_equal(err, want);
	/* no stats server where the replay looks */
	snprintf(sock, sizeof(sock), "%s/none.sock", tmpdir);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, sock, HINT_PINS_NR_POOLS, cpus, err,
					sizeof(err)));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "sink 'pinned': reading policy t's domains from its stats "
		 "socket %s (--policy-socket): ", sock);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	/* the policy's stats report another number of domains than its hint maps */
	assert_int_equal(sink_refused(pins, cpus, 3, (const char *const[]){ "0-1", "2-3", "4-7" }),
			 EINVAL);
	snprintf(want, sizeof(want), "sink 'pinned': policy t reports 3 domains, the replay has "
		 "%d", HINT_PINS_NR_POOLS);
	assert_string_equal(err, want);
	/* the policy's domain 1 is CPUs 4-6, the replay's 4-7 */
	assert_int_equal(sink_refused(pins, cpus, 2, (const char *const[]){ "0-3", "4-6" }),
			 EINVAL);
	assert_string_equal(err, "sink 'pinned': policy t's domain 1 (d1) is CPUs 4-6, the "
				 "replay's is 4-7: domain d must be the same CPUs on both sides "
				 "(the replay's --domains or --plan)");
	one_stats_start(&srv, 2, (const char *const[]){ "0-3", "4-7" });
	sink = faas_sink_hint_open("t", pins, srv.path, HINT_PINS_NR_POOLS, cpus, err,
				   sizeof(err));
	assert_true(one_stats_stop(&srv));
	assert_non_null(sink);
	if (cg_mount[0]) {
		snprintf(root, sizeof(root), "%s/scxpol-faas-test.%d", cg_mount, (int)getpid());
		o.cgroup_root = root;
		o.sink = sink;
		assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), 0);
		assert_true(r->iat.assigned > 0);
		faas_replay_free(r);
		co.pin_root = pins;
		c = scxpol_hint_client_open("t", &co);
		assert_non_null(c);
		assert_int_equal(scxpol_hint_count(c, &n), 0);
		assert_int_equal(n.cgroups, 0);
		scxpol_hint_client_close(c);
	}
	faas_sink_hint_close(sink);
	umount(mnt);
	scxpol_cpuset_free(cpus[0]);
	scxpol_cpuset_free(cpus[1]);
}

static void test_summary(void **state)
{
	static struct faas_inv_result res[1000];
	static struct faas_invocation inv[1000];
	struct faas_trace t = { .funcs = funcs, .nr_funcs = 1, .inv = inv, .nr_inv = 1000 };
	struct faas_replay r = { .trace = &t, .res = res, .nr = 1000, .completed = 1000,
				 .util = 0.25, .run_ns = 2500000000ULL };
	struct faas_summary s;
	int i;

	(void)state;
	r.iat.shared = 7;
	for (i = 0; i < 1000; i++) {
		/* e2e = i + 1 ms, in reverse order; worker = 1 ms */
		res[i] = (struct faas_inv_result){ .done = true, .arrival_ns = 0,
						   .start_ns = (uint64_t)(999 - i) * 1000000,
						   .end_ns = (uint64_t)(1000 - i) * 1000000,
						   .reuse = i == 0 ? -1 : i % 4 == 0 };
	}
	assert_int_equal(faas_replay_summarize(&r, &s), 0);
	assert_int_equal(s.count, 1000);
	assert_true(s.p50_ms == 500.0);
	assert_true(s.p99_ms == 990.0);
	assert_true(s.p999_ms == 999.0);
	assert_true(s.mean_e2e_ms == 500.5);
	assert_true(s.mean_worker_ms == 1.0);
	assert_true(s.cost_ms == 500.5 * 0.25);
	assert_int_equal(s.reuse_of, 999);
	assert_int_equal(s.reuse, 249);
	assert_int_equal(s.shared, 7);
	assert_true(s.run_s == 2.5);
}

static void test_csv_cpu_list(void **state)
{
	static struct faas_invocation inv[1] = { { .func = 0, .kind = FAAS_KIND_CPU } };
	struct faas_trace t = { .funcs = funcs, .nr_funcs = 1, .inv = inv, .nr_inv = 1 };
	struct faas_inv_result res = { .done = true, .domain = 1, .cgroup_id = 77,
				       .cgroup = (char *)"/faas/inv-0", .arrival_ns = 1000000,
				       .released_ns = 1250000, .start_ns = 1500000, .end_ns = 4000000, .first_cpu = 5,
				       .reuse = -1, .sched_class = "ext" };
	struct faas_replay r = { .trace = &t, .res = &res, .nr = 1, .completed = 1 };
	char path[300], line[512];
	FILE *f;

	(void)state;
	faas_cpuset_set(&res.cpus, 0);
	faas_cpuset_set(&res.cpus, 1);
	faas_cpuset_set(&res.cpus, 2);
	faas_cpuset_set(&res.cpus, 5);
	faas_cpuset_set(&res.cpus, 1023);
	faas_cpuset_set(&res.cpus, 1024); /* out of range: ignored */
	assert_int_equal(faas_cpuset_count(&res.cpus), 5);
	snprintf(path, sizeof(path), "%s/one.csv", tmpdir);
	f = fopen(path, "w+");
	assert_non_null(f);
	assert_int_equal(faas_replay_write_csv(&r, f), 0);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "0,a,cpu,1,77,/faas/inv-0,1.000,1.250,1.500,4.000,3.000,2.500,5,"
			    "0-2;5;1023,-,ext\n");
	fclose(f);
}

static void test_cpu_stat(void **state)
{
	struct faas_cpu_stat st;
	char path[300], want[400];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/stat", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	fputs("cpu  100 2 30 1000 40 5 6 7 50 1\ncpu0 1 2 3 4\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.busy, 150);
	assert_int_equal(st.total, 1190);

	f = fopen(path, "w");
	fputs("cpu  1 2 3\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: the cpu line has 3 numbers, want >= 4", path);
	assert_string_equal(err, want);

	f = fopen(path, "w");
	fputs("cpu  1 2 x 4\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: field 4 of the cpu line is not a number", path);
	assert_string_equal(err, want);

	f = fopen(path, "w");
	fputs("intr 1 2 3\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: the first line is not the \"cpu\" total line", path);
	assert_string_equal(err, want);

	assert_int_equal(faas_cpu_stat_read("/proc/stat", &st, err, sizeof(err)), 0);
	assert_true(st.total >= st.busy && st.total > 0);
}

static void test_body_direct(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 3, .io_sleep_ratio = 1 };
	struct faas_body_report rep;
	int k;

	(void)state;
	for (k = 0; k < FAAS_NR_KINDS; k++) {
		memset(&rep, 0, sizeof(rep));
		assert_int_equal(faas_body_run(k, 3000, &cfg, &rep), 0);
		assert_int_equal(rep.status, 0);
		assert_true(rep.end_ns > rep.start_ns);
		assert_true(rep.first_cpu >= 0);
		assert_true(faas_cpuset_has(&rep.cpus, rep.first_cpu));
		assert_true(rep.cgroup[0] == '/');
	}
	assert_int_equal(faas_body_run((enum faas_kind)7, 1000, &cfg, &rep), -EINVAL);
	assert_int_equal(rep.status, EINVAL);

	cfg.io_sleep_ratio = 0;
	assert_int_equal(faas_body_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "io sleep ratio 0: want 1..100");
	cfg.io_sleep_ratio = 1;
	cfg.mt_threads = 1;
	assert_int_equal(faas_body_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "mt threads 1: want 2..4");
	assert_true(sizeof(struct faas_body_report) <= 4096); /* PIPE_BUF: atomic writes */
}

static volatile int spin_stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A poll body waits for its event D after its start, not for D of its own
 * CPU time: sharing its CPU with a spinner, it still ends at about D
 * (after at most a slice of the spinner's) and burns only its share.
 */
static void test_body_poll_waits_for_its_event(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 2 };
	struct faas_body_report rep;
	cpu_set_t one, old;
	pthread_t th;
	uint64_t cpu0, cpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	/* the spinner inherits the single CPU */
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	spin_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
	cpu0 = thread_cpu_ns();
	assert_int_equal(faas_body_run(FAAS_KIND_POLL, 50000, &cfg, &rep), 0);
	cpu = thread_cpu_ns() - cpu0;
	spin_stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	print_message("# poll body of 50 ms next to a spinner: %.1f ms wall, %.1f ms CPU\n",
		      (double)(rep.end_ns - rep.start_ns) / 1e6, (double)cpu / 1e6);
	assert_true(rep.end_ns - rep.start_ns >= 50000000ULL);
	/*
	 * The old body spun until 50 ms of CPU (about 100 ms of wall time
	 * here): the CPU bound tells it apart whatever the host's load. No
	 * upper wall bound: on a host busy with VMs the spinner's CPU is
	 * shared with them too, and wall time says nothing about the body.
	 */
	assert_true(cpu < 40000000ULL);
}

/* A spawned body is asleep on its go pipe; a running process is not. */
static void test_body_asleep(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	int rep[2], go, i, r = 0, status;
	char want[128];
	pid_t pid, spin;

	(void)state;
	assert_int_equal(pipe(rep), 0);
	pid = faas_body_spawn(0, FAAS_KIND_CPU, 1000, &cfg, NULL, rep[1], &go, err, sizeof(err));
	assert_true(pid > 0);
	for (i = 0; i < 5000 && (r = faas_body_asleep(pid, err, sizeof(err))) == 0; i++)
		usleep(1000);
	assert_int_equal(r, 1);
	close(go); /* exits without running */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	close(rep[0]);
	close(rep[1]);

	spin = fork();
	assert_true(spin >= 0);
	if (!spin)
		for (;;)
			;
	/* it may be preempted for a moment, never asleep */
	for (i = 0; i < 20; i++)
		assert_int_equal(faas_body_asleep(spin, err, sizeof(err)), 0);
	kill(spin, SIGKILL);
	assert_int_equal(waitpid(spin, NULL, 0), spin);

	assert_int_equal(faas_body_asleep(spin, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "cannot open /proc/%d/wchan: %s", (int)spin, strerror(ENOENT));
	assert_string_equal(err, want);
	assert_no_children();
}

/*
 * A body spawned with a cgroup is in it before its release (born there by
 * clone3; where clone3 is refused, faas_body_spawn() moves it before it
 * returns), and an mt body, whose threads a raw clone3 child creates,
 * runs and reports from there.
 */
static void test_body_spawn_into_cgroup(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	char cg[1100], want[1200], file[64], line[1300], name[64];
	struct faas_body_report rep;
	int rp[2], go, status;
	uint64_t cgid;
	FILE *f;
	pid_t pid;

	(void)state;
	if (!cg_mount[0])
		skip(); /* the host gives this test no writable cgroup2 */
	snprintf(name, sizeof(name), "scxpol-faas-spawn.%d", (int)getpid());
	assert_int_equal(faas_cgroup_create(cg_mount, name, cg, sizeof(cg), &cgid, err,
					    sizeof(err)), 0);
	snprintf(want, sizeof(want), "0::%s\n", cg + strlen(cg_mount));
	assert_int_equal(pipe(rp), 0);
	pid = faas_body_spawn(9, FAAS_KIND_MT, 1000, &cfg, cg, rp[1], &go, err, sizeof(err));
	assert_true(pid > 0);
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "r");
	assert_non_null(f);
	/* the v2 line, which a hybrid hierarchy lists last */
	while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
		;
	fclose(f);
	assert_string_equal(line, want);
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	assert_int_equal(read(rp[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	assert_int_equal(rep.id, 9);
	assert_int_equal(rep.status, 0);
	assert_string_equal(rep.cgroup, cg + strlen(cg_mount));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(rp[0]);
	close(rp[1]);
	assert_int_equal(faas_cgroup_remove(cg, err, sizeof(err)), 0);
	assert_no_children();
}

/*
 * In a child where clone3 fails as on Linux 5.3 to 5.6 (E2BIG: they have
 * clone3, but not its cgroup field): spawn a body into @cg and run it.
 * Returns the child's exit status: 0 when the body ran in @cg, 77 when
 * no seccomp filter can be installed here.
 */
static int spawn_where_clone3_is_too_old(const char *cg)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct faas_body_report rep;
	int rp[2], go, status;
	pid_t pid;

	if (refuse_clone3(E2BIG))
		return 77;
	if (pipe(rp))
		return 2;
	pid = faas_body_spawn(4, FAAS_KIND_CPU, 1000, &cfg, cg, rp[1], &go, err, sizeof(err));
	if (pid < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (write(go, "g", 1) != 1 || read(rp[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 3;
	/* the report names the cgroup the body ran in */
	return strcmp(rep.cgroup, cg + strlen(cg_mount)) ? 4 : 0;
}

/*
 * @fn(@arg) in a child process, which keeps its seccomp filter and
 * signals to itself: its exit status.
 */
static int in_child(int (*fn)(const char *), const char *arg)
{
	int status;
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child)
		_exit(fn(arg));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Where clone3 cannot place a body in its cgroup (E2BIG), it is forked and moved. */
static void test_body_spawn_clone3_too_old(void **state)
{
	char cg[1100], name[64];
	uint64_t cgid;
	int status;

	(void)state;
	if (!cg_mount[0])
		skip();
	snprintf(name, sizeof(name), "scxpol-faas-spawn.%d", (int)getpid());
	assert_int_equal(faas_cgroup_create(cg_mount, name, cg, sizeof(cg), &cgid, err,
					    sizeof(err)), 0);
	status = in_child(spawn_where_clone3_is_too_old, cg);
	assert_int_equal(faas_cgroup_remove(cg, err, sizeof(err)), 0);
	if (no_seccomp_under_valgrind(status))
		return;
	assert_int_equal(status, 0);
	assert_no_children();
}

/*
 * In a child without clone3 (ENOSYS) and with SIGALRM every 20 us (no
 * SA_RESTART, as faas-replay's handlers): spawn bodies "into" @dir, no
 * cgroup, so the move fails and the body is sent away. Returns 0 when
 * each such body was reaped, 1 when one was left a zombie, 77 without
 * seccomp.
 */
static int spawn_move_fails_under_signals(const char *dir)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct itimerval every_20us = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int rp[2], go, i, r = 0;

	if (refuse_clone3(ENOSYS))
		return 77;
	if (pipe(rp) || sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &every_20us, NULL))
		return 2;
	for (i = 0; i < 50 && !r; i++) {
		if (faas_body_spawn(6, FAAS_KIND_CPU, 1000, &cfg, dir, rp[1], &go, err,
				    sizeof(err)) >= 0)
			r = 3; /* moved into no cgroup? */
		else if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
			r = 1;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	return r;
}

/* A body whose move into its cgroup failed is reaped, whatever signals come meanwhile. */
static void test_body_spawn_move_fails(void **state)
{
	int status;

	(void)state;
	status = in_child(spawn_move_fails_under_signals, tmpdir);
	if (no_seccomp_under_valgrind(status))
		return;
	assert_int_equal(status, 0);
	assert_no_children();
}

/*
 * Spawned from a SCHED_FIFO process (chrt -f faas-replay), a body sleeps
 * on its go pipe in SCHED_FIFO (asleep without waiting for a CPU as a
 * normal task), runs in SCHED_OTHER once the parent took it out, and is
 * in SCHED_FIFO again once its work is done.
 */
static void test_body_leaves_rt(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct sched_param rt = { .sched_priority = 1 }, normal = { .sched_priority = 0 };
	struct faas_body_report rep;
	int rp[2], go, i, r = 0, status;
	pid_t pid;

	(void)state;
	if (sched_setscheduler(0, SCHED_FIFO, &rt)) {
		assert_true(errno == EPERM);
		skip(); /* no CAP_SYS_NICE here */
	}
	assert_int_equal(pipe(rp), 0);
	pid = faas_body_spawn(5, FAAS_KIND_CPU, 1000, &cfg, NULL, rp[1], &go, err, sizeof(err));
	assert_int_equal(sched_setscheduler(0, SCHED_OTHER, &normal), 0);
	assert_true(pid > 0);
	for (i = 0; i < 5000 && (r = faas_body_asleep(pid, err, sizeof(err))) == 0; i++)
		usleep(1000);
	assert_int_equal(r, 1);
	/* asleep on go in its real-time class; the parent takes it out */
	assert_int_equal(sched_getscheduler(pid), SCHED_FIFO);
	assert_int_equal(faas_body_set_class(pid, false, err, sizeof(err)), 0);
	assert_int_equal(sched_getscheduler(pid), SCHED_OTHER);
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	assert_int_equal(read(rp[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	assert_int_equal(rep.id, 5);
	assert_int_equal(rep.status, 0);
	/* it reports, and exits, back in its real-time class (a zombie keeps it) */
	assert_int_equal(sched_getscheduler(pid), SCHED_FIFO);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(rp[0]);
	close(rp[1]);
	assert_no_children();
}

int main(void)
{
	int r;

	if (getenv("SCXPOL_TEST_NO_CLONE3")) {
		r = refuse_clone3(ENOSYS);
		/* clone3 with no arguments: EINVAL if it exists, ENOSYS if refused */
		if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS) {
			printf("1..0 # SKIP cannot refuse clone3 here: seccomp: %s\n", strerror(r));
			return 0;
		}
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_replay_without_cgroups, kill_children),
		cmocka_unit_test_teardown(test_replay_cgroups_and_sink, kill_children),
		cmocka_unit_test_teardown(test_replay_hold, kill_children),
		cmocka_unit_test_teardown(test_replay_sink_failure, kill_children),
		cmocka_unit_test_teardown(test_replay_clear_failure, kill_children),
		cmocka_unit_test_teardown(test_replay_body_killed_before_release, kill_children),
		cmocka_unit_test_teardown(test_replay_stop_mid_run, kill_children),
		cmocka_unit_test_teardown(test_replay_body_failure, kill_children),
		cmocka_unit_test_teardown(test_replay_bad_trace, kill_children),
		cmocka_unit_test_teardown(test_replay_stop_and_options, kill_children),
		cmocka_unit_test_teardown(test_cgroup_root_check, kill_children),
		cmocka_unit_test_teardown(test_sink_hint_open_fails, kill_children),
		cmocka_unit_test_teardown(test_sink_hint_domains, kill_children),
		cmocka_unit_test_teardown(test_summary, kill_children),
		cmocka_unit_test_teardown(test_csv_cpu_list, kill_children),
		cmocka_unit_test_teardown(test_cpu_stat, kill_children),
		cmocka_unit_test_teardown(test_body_direct, kill_children),
		cmocka_unit_test_teardown(test_body_poll_waits_for_its_event, kill_children),
		cmocka_unit_test_teardown(test_body_asleep, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_into_cgroup, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_clone3_too_old, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_move_fails, kill_children),
		cmocka_unit_test_teardown(test_body_leaves_rt, kill_children),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
