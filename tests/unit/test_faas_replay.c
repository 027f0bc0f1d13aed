// SPDX-License-Identifier: GPL-2.0
/*
 * Trace replay on the host (faas_replay_run()): bodies run as real
 * processes (no sched_ext needed), with cgroups when the host lets the test
 * create them; a sink told each invocation's domain before its body runs
 * and cleared after; held overflow; a failing sink, a body killed or a
 * replay stopped mid-run cleaned up after; bad traces, options and cgroup
 * roots refused before anything runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../examples/faas/replay.h"
#include "faas_replay_fixture.h"

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
	int gone; /* at a clear, cgroups of earlier clears that were gone already */
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
	for (int k = 0; k < r->n_clear; k++)
		r->gone += inv_of(r->root, r->cleared[k]) < 0;
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
	/* no cgroup was removed while the replay ran (replay_remove_cgroups()) */
	assert_int_equal(rec.gone, 0);
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

int main(void)
{
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
	};

	return run_replay_tests(tests);
}
