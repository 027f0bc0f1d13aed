// SPDX-License-Identifier: GPL-2.0
/* Real-time trace replay: IAT domains, cgroups, bodies, sink, results. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <scxpol/cpuset.h>

#include "replay.h"

#define POLL_MAX_MS 10		   /* bounds how late an exited body is reaped */
#define PREPARE_AHEAD_NS 250000000ULL /* prepare bodies this long before arrival */
#define PREPARE_MAX 64		   /* ... but no more than this many at once */
#define ASLEEP_RETRY_NS 1000000ULL /* a body not asleep yet: look again this soon */
#define ASLEEP_MAX_NS 20000000000ULL /* ... failing this long after its arrival */
/*
 * Bodies that reported are reaped as they exit; all others are looked at
 * this often, to catch one that died without a report. Not every body at
 * every turn: waitpid() walks the list of children, and hundreds in
 * flight (an over-utilised trace) would make that the replay's bottleneck.
 */
#define REAP_SCAN_NS 100000000ULL

struct inv_state {
	pid_t pid;
	int go_fd;	  /* prepared and waiting: write a byte to start */
	int status;	  /* from waitpid */
	bool granted;	  /* holds an IAT grant */
	bool cgroup;	  /* its cgroup exists */
	bool hinted;	  /* sink->assign succeeded, clear pending */
	bool reported, exited;
};

struct run {
	const struct faas_replay_opts *o;
	struct faas_replay *r;
	struct faas_iat *iat;
	struct inv_state *st;
	uint64_t *flight;    /* ids forked and not yet reaped */
	size_t nr_flight;
	uint64_t next;	     /* next invocation to start */
	uint64_t next_prep;  /* ... to prepare: [next, next_prep) wait for go */
	uint64_t *rm;	     /* reaped invocations whose cgroup is still there */
	size_t nr_rm;
	uint64_t *pend;	     /* arrived, waiting for their bodies to fall asleep */
	size_t nr_pend;
	uint64_t *held;	     /* FAAS_OVERFLOW_HOLD: arrived, no domain yet, by arrival */
	size_t held_head, nr_held; /* held[held_head .. nr_held) wait */
	int64_t *last;	     /* core_reuse()'s, per function: taken before the run */
	uint64_t t0;
	uint64_t next_scan;  /* next reap() that looks at every body */
	int rep_fd[2];
	char *err;
	size_t errlen;
};

int faas_cpu_stat_read(const char *path, struct faas_cpu_stat *st, char *err, size_t errlen)
{
	uint64_t v[8] = { 0 };
	char line[1024], *p, *end;
	FILE *f;
	int i;

	f = fopen(path, "re");
	if (!f)
		return faas_errf(err, errlen, errno, "%s: %s", path, strerror(errno));
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (!p || strncmp(line, "cpu ", 4))
		return faas_errf(err, errlen, EINVAL, "%s: the first line is not the \"cpu\" total line",
				 path);
	p = line + 4;
	/* user nice system idle iowait irq softirq steal [guest guest_nice] */
	for (i = 0; i < 8; i++) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || !*p) {
			if (i >= 4)
				break; /* old kernels: fewer columns */
			return faas_errf(err, errlen, EINVAL, "%s: the cpu line has %d numbers, want >= 4",
					 path, i);
		}
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno || (*end != ' ' && *end != '\n' && *end))
			return faas_errf(err, errlen, EINVAL, "%s: field %d of the cpu line is not a number",
					 path, i + 2);
		p = end;
	}
	st->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	st->total = st->busy + v[3] + v[4];
	return 0;
}

static int fail(struct run *R, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct run *R, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (R->err && R->errlen) {
		va_start(ap, fmt);
		vsnprintf(R->err, R->errlen, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

static const char *sink_error(const struct faas_sink *s, int r)
{
	const char *m = s->last_error ? s->last_error(s->ctx) : NULL;

	return m && *m ? m : strerror(-r);
}

static void cgroup_path(const struct run *R, uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/inv-%llu", R->o->cgroup_root, (unsigned long long)id);
}

static const char *func_name(const struct run *R, uint64_t id)
{
	return R->o->trace->funcs[R->o->trace->inv[id].func].name;
}

/*
 * The part of starting an invocation that does not depend on when it
 * arrives (a serverless platform's prewarmed container): its cgroup, and
 * its body forked into the cgroup, waiting for go.
 */
static int prepare(struct run *R, uint64_t id)
{
	const struct faas_invocation *inv = &R->o->trace->inv[id];
	struct faas_inv_result *res = &R->r->res[id];
	struct inv_state *st = &R->st[id];
	char path[4096], name[32];
	pid_t pid;
	int r;

	if (R->o->cgroup_root) {
		snprintf(name, sizeof(name), "inv-%llu", (unsigned long long)id);
		r = faas_cgroup_create(R->o->cgroup_root, name, path, sizeof(path), &res->cgroup_id,
				       R->err, R->errlen);
		if (r)
			return r;
		st->cgroup = true;
	}
	pid = faas_body_spawn(id, inv->kind, inv->duration_us, &R->o->body,
			      R->o->cgroup_root ? path : NULL, R->rep_fd[1], &st->go_fd, R->err,
			      R->errlen);
	if (pid < 0)
		return (int)pid;
	st->pid = pid;
	R->flight[R->nr_flight++] = id;
	R->next_prep = id + 1;
	return 0;
}

/*
 * Put the body of invocation @id in the class it works in (out of the
 * real-time class; SCHED_EXT with body_ext), tell the sink its domain,
 * then let it run.
 */
static int release(struct run *R, uint64_t id)
{
	const struct faas_sink *sink = R->o->sink;
	struct faas_inv_result *res = &R->r->res[id];
	struct inv_state *st = &R->st[id];
	char why[FAAS_ERR_LEN];
	int r;

	/* a body that died is reported by the write below (EPIPE) */
	r = faas_body_set_class(st->pid, R->o->body_ext, why, sizeof(why));
	if (r && r != -ESRCH)
		return fail(R, -r, "invocation %llu: %s", (unsigned long long)id, why);
	r = 0;
	if (sink && sink->assign && res->domain >= 0) {
		r = sink->assign(sink->ctx, res->cgroup_id, res->domain);
		if (r)
			return fail(R, -r, "sink '%s': assigning cgroup %llu (invocation %llu) to "
				    "domain %d: %s", sink->name, (unsigned long long)res->cgroup_id,
				    (unsigned long long)id, res->domain, sink_error(sink, r));
		st->hinted = true;
	}
	res->released_ns = faas_now_ns() - R->t0;
	if (write(st->go_fd, "g", 1) != 1)
		r = fail(R, errno, "invocation %llu: cannot start its body: %s",
			 (unsigned long long)id, strerror(errno));
	close(st->go_fd);
	st->go_fd = -1;
	return r;
}

/*
 * Invocation @id has its domain: release it. One whose domain goes to the
 * sink waits, pending, until its body is asleep on its go pipe (see
 * faas_body_asleep()); later arrivals go ahead meanwhile.
 */
static int dispatch(struct run *R, uint64_t id)
{
	const struct faas_sink *sink = R->o->sink;
	int r;

	if (sink && sink->assign && R->r->res[id].domain >= 0) {
		r = faas_body_asleep(R->st[id].pid, R->err, R->errlen);
		if (r < 0)
			return r;
		if (!r) {
			R->pend[R->nr_pend++] = id;
			return 0;
		}
	}
	return release(R, id);
}

/*
 * Invocation @id arrives: pick its domain and dispatch it. With
 * FAAS_OVERFLOW_HOLD one that no domain can take waits for one that can,
 * behind those that arrived before it.
 */
static int start(struct run *R, uint64_t id)
{
	const struct faas_invocation *inv = &R->o->trace->inv[id];
	struct faas_inv_result *res = &R->r->res[id];
	unsigned int cpus = inv->kind == FAAS_KIND_MT ? R->o->body.mt_threads : 1;
	/* one no domain can ever take would wait forever: it runs shared at once */
	bool hold = R->o->overflow == FAAS_OVERFLOW_HOLD && faas_iat_fits(R->iat, cpus);
	int r;

	if (id == R->next_prep) {
		r = prepare(R, id);
		if (r)
			return r;
	}
	if (hold && R->held_head < R->nr_held)
		r = faas_iat_arrive(R->iat, id, inv->func, res->arrival_ns / 1000, cpus);
	else
		r = faas_iat_assign(R->iat, id, inv->func, res->arrival_ns / 1000, cpus,
				    &res->domain);
	if (r)
		return fail(R, -r, "%s", faas_iat_error(R->iat));
	R->st[id].granted = true;
	R->next = id + 1;
	if (hold && res->domain < 0) {
		R->held[R->nr_held++] = id;
		return 0;
	}
	return dispatch(R, id);
}

/*
 * Dispatch held invocations, oldest first, while a domain can take the
 * oldest: a later one never overtakes it, so none waits forever.
 */
static int release_held(struct run *R)
{
	int r;

	while (R->held_head < R->nr_held) {
		uint64_t id = R->held[R->held_head];
		struct faas_inv_result *res = &R->r->res[id];

		r = faas_iat_retry(R->iat, id, R->o->trace->inv[id].func, &res->domain);
		if (r)
			return fail(R, -r, "%s", faas_iat_error(R->iat));
		if (res->domain < 0)
			return 0;
		R->held_head++;
		r = dispatch(R, id);
		if (r)
			return r;
	}
	return 0;
}

/* Release the pending invocations whose bodies are asleep now. */
static int release_pending(struct run *R, uint64_t now)
{
	size_t i;
	int r;

	for (i = 0; i < R->nr_pend;) {
		uint64_t id = R->pend[i];

		r = faas_body_asleep(R->st[id].pid, R->err, R->errlen);
		if (r < 0)
			return r;
		if (!r && now < R->r->res[id].arrival_ns + ASLEEP_MAX_NS) {
			i++;
			continue;
		}
		if (!r)
			return fail(R, ETIMEDOUT, "invocation %llu: its body (pid %d) is not asleep "
				    "on its go pipe %llu s after its arrival", (unsigned long long)id,
				    (int)R->st[id].pid, ASLEEP_MAX_NS / 1000000000ULL);
		R->pend[i] = R->pend[--R->nr_pend];
		r = release(R, id);
		if (r)
			return r;
	}
	return 0;
}

static int unhint(struct run *R, uint64_t id)
{
	const struct faas_sink *sink = R->o->sink;
	int r;

	if (!R->st[id].hinted || !sink->clear)
		return 0;
	r = sink->clear(sink->ctx, R->r->res[id].cgroup_id);
	if (r)
		/* still hinted: abort_all() tries again */
		return fail(R, -r, "sink '%s': clearing cgroup %llu (invocation %llu): %s", sink->name,
			    (unsigned long long)R->r->res[id].cgroup_id, (unsigned long long)id,
			    sink_error(sink, r));
	R->st[id].hinted = false;
	return 0;
}

/* The body finished: record it, give its domain back, drop its hint. */
static int on_report(struct run *R, const struct faas_body_report *rep)
{
	struct faas_inv_result *res;
	struct inv_state *st;
	int r;

	if (rep->id >= R->r->nr || !R->st[rep->id].pid || R->st[rep->id].reported)
		return fail(R, EPROTO, "unexpected report for invocation %llu",
			    (unsigned long long)rep->id);
	st = &R->st[rep->id];
	res = &R->r->res[rep->id];
	st->reported = true;
	if (rep->status)
		return fail(R, rep->status, "invocation %llu (function %s, %s) failed: %s",
			    (unsigned long long)rep->id, func_name(R, rep->id),
			    faas_kind_name(R->o->trace->inv[rep->id].kind), strerror(rep->status));
	res->start_ns = rep->start_ns - R->t0;
	res->end_ns = rep->end_ns - R->t0;
	res->first_cpu = rep->first_cpu;
	res->cpus = rep->cpus;
	snprintf(res->sched_class, sizeof(res->sched_class), "%.*s",
		 (int)sizeof(rep->sched_class) - 1, rep->sched_class);
	res->cgroup = strndup(rep->cgroup, sizeof(rep->cgroup));
	if (!res->cgroup)
		return fail(R, ENOMEM, "out of memory");
	r = faas_iat_release(R->iat, rep->id);
	if (r)
		return fail(R, -r, "%s", faas_iat_error(R->iat));
	st->granted = false;
	return 0;
}

static int drain_reports(struct run *R)
{
	struct faas_body_report rep[8];
	ssize_t n;
	size_t i;
	int r;

	for (;;) {
		n = read(R->rep_fd[0], rep, sizeof(rep));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0 || n % (ssize_t)sizeof(rep[0]))
			return fail(R, EPROTO, "reading body reports: %s",
				    n < 0 ? strerror(errno) : "short read");
		for (i = 0; i < (size_t)n / sizeof(rep[0]); i++) {
			r = on_report(R, &rep[i]);
			if (r)
				return r;
		}
	}
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
		snprintf(buf, len, "exit status 4 (it could not read its real-time priority)");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "wait status %#x", status);
}

/*
 * Reap exited bodies (those that reported; every REAP_SCAN_NS all), then
 * finish those that are both reported and reaped: drop the hint, count it.
 */
static int reap(struct run *R, uint64_t now)
{
	bool scan = now >= R->next_scan;
	char how[64];
	size_t i;
	pid_t pid;
	int status, r;

	if (scan)
		R->next_scan = now + REAP_SCAN_NS;
	/* per pid, not waitpid(-1): the caller may have children of its own */
	for (i = 0; i < R->nr_flight; i++) {
		struct inv_state *st = &R->st[R->flight[i]];

		if (st->exited || (!st->reported && !scan))
			continue;
		pid = waitpid(st->pid, &status, WNOHANG);
		if (pid < 0 && errno != EINTR)
			return fail(R, errno, "waitpid %d: %s", (int)st->pid, strerror(errno));
		if (pid == st->pid) {
			st->exited = true;
			st->status = status;
		}
	}
	/* a report written before exit is in the pipe now */
	r = drain_reports(R);
	if (r)
		return r;
	for (i = 0; i < R->nr_flight;) {
		uint64_t id = R->flight[i];
		struct inv_state *st = &R->st[id];

		if (!st->exited) {
			i++;
			continue;
		}
		if (!WIFEXITED(st->status) || WEXITSTATUS(st->status) || !st->reported) {
			describe_status(st->status, how, sizeof(how));
			return fail(R, ECHILD, "invocation %llu (function %s) %s: %s",
				    (unsigned long long)id, func_name(R, id),
				    st->reported ? "did not exit cleanly" : "ended without a report",
				    how);
		}
		/* its tasks are gone: until now the exit itself ran in its domain */
		r = unhint(R, id);
		if (r)
			return r;
		if (st->cgroup)
			R->rm[R->nr_rm++] = id; /* removed when the replay has time */
		R->r->res[id].done = true;
		R->r->completed++;
		R->flight[i] = R->flight[--R->nr_flight];
	}
	return 0;
}

/* After a failure: nothing may keep running or stay in the cgroup root. */
static void abort_all(struct run *R)
{
	char path[4096];
	uint64_t id;
	size_t i;

	for (i = 0; i < R->nr_flight; i++) {
		struct inv_state *st = &R->st[R->flight[i]];

		if (st->go_fd >= 0)
			close(st->go_fd);
		st->go_fd = -1;
		if (!st->exited)
			kill(st->pid, SIGKILL);
	}
	/* a signal (a second Ctrl-C) must not leave one a zombie, or in its cgroup */
	for (i = 0; i < R->nr_flight; i++)
		while (!R->st[R->flight[i]].exited && waitpid(R->st[R->flight[i]].pid, NULL, 0) < 0 &&
		       errno == EINTR)
			;
	for (id = 0; id < R->r->nr; id++) {
		char ignore[FAAS_ERR_LEN];

		if (R->st[id].hinted && R->o->sink->clear)
			R->o->sink->clear(R->o->sink->ctx, R->r->res[id].cgroup_id);
		if (R->st[id].cgroup) {
			cgroup_path(R, id, path, sizeof(path));
			faas_cgroup_remove(path, ignore, sizeof(ignore));
		}
	}
	R->nr_flight = 0;
	R->nr_rm = 0;
}

/*
 * Work that can wait for a quiet moment, one piece per call so arrivals
 * are not delayed by more than one: prepare the next body, or remove a
 * finished invocation's cgroup. Returns 1 if it did something.
 */
static int background(struct run *R, uint64_t now, int *r)
{
	char path[4096];
	uint64_t id;

	if (R->next_prep < R->r->nr && R->next_prep - R->next < PREPARE_MAX &&
	    R->r->res[R->next_prep].arrival_ns <= now + PREPARE_AHEAD_NS) {
		*r = prepare(R, R->next_prep);
		return 1;
	}
	if (R->nr_rm) {
		id = R->rm[--R->nr_rm];
		cgroup_path(R, id, path, sizeof(path));
		*r = faas_cgroup_remove(path, R->err, R->errlen);
		if (!*r)
			R->st[id].cgroup = false;
		return 1;
	}
	return 0;
}

static void core_reuse(struct faas_replay *r, int64_t *last)
{
	uint64_t i;

	memset(last, 0xff, r->trace->nr_funcs * sizeof(*last));
	for (i = 0; i < r->nr; i++) {
		uint32_t f = r->trace->inv[i].func;

		r->res[i].reuse = last[f] < 0 ? -1
				  : faas_cpuset_has(&r->res[last[f]].cpus, r->res[i].first_cpu);
		last[f] = (int64_t)i;
	}
}

/*
 * A trace built through the API, not by a parser: each invocation names
 * one of its functions (indexes into funcs[] follow), in arrival order
 * (the replay starts them in index order).
 */
static int check_trace(const struct faas_trace *t, char *err, size_t errlen)
{
	uint64_t i;

	for (i = 0; i < t->nr_inv; i++) {
		if (t->inv[i].func >= t->nr_funcs)
			return faas_errf(err, errlen, EINVAL,
					 "invocation %llu: function %u, but the trace has %u",
					 (unsigned long long)i, t->inv[i].func, t->nr_funcs);
		if (i && t->inv[i].arrival_us < t->inv[i - 1].arrival_us)
			return faas_errf(err, errlen, EINVAL,
					 "invocation %llu arrives at %llu us, before invocation "
					 "%llu (%llu us): a trace is sorted by arrival",
					 (unsigned long long)i,
					 (unsigned long long)t->inv[i].arrival_us,
					 (unsigned long long)i - 1,
					 (unsigned long long)t->inv[i - 1].arrival_us);
	}
	return 0;
}

static int check_opts(const struct faas_replay_opts *o, char *err, size_t errlen)
{
	int r;

	if (!o->trace || !o->trace->nr_inv)
		return faas_errf(err, errlen, EINVAL, "no trace, or a trace without invocations");
	r = check_trace(o->trace, err, errlen);
	if (r)
		return r;
	/* 0 means 1; written so that NaN fails too */
	if (!(o->time_scale >= 0 && o->time_scale <= 1e6))
		return faas_errf(err, errlen, EINVAL, "time scale %g: want (0, 1e6]", o->time_scale);
	if (o->overflow != FAAS_OVERFLOW_SHARED && o->overflow != FAAS_OVERFLOW_HOLD)
		return faas_errf(err, errlen, EINVAL,
				 "overflow %d: want FAAS_OVERFLOW_SHARED or FAAS_OVERFLOW_HOLD",
				 (int)o->overflow);
	if (o->body_ext && !(o->sink && o->sink->assign))
		return faas_errf(err, errlen, EINVAL,
				 "bodies in SCHED_EXT need a policy that schedules them by the "
				 "domains the sink assigns: there is no sink");
	if (o->sink && o->sink->assign && !o->cgroup_root)
		return faas_errf(err, errlen, EINVAL,
				 "sink '%s' needs a cgroup root: domains are assigned per cgroup",
				 o->sink->name);
	if (o->cgroup_root) {
		r = faas_cgroup_root_check("cgroup root", o->cgroup_root, err, errlen);
		if (r)
			return r;
	}
	r = faas_body_check(&o->body, err, errlen);
	if (r)
		return r;
	return 0;
}

/* User plus system CPU time of @u, in seconds. */
static double rusage_s(const struct rusage *u)
{
	return (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) +
	       (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec) / 1e6;
}

int faas_replay_run(const struct faas_replay_opts *o, struct faas_replay **out, char *err,
		    size_t errlen)
{
	struct faas_iat_config icfg = {
		.nr_domains = o->nr_domains,
		.capacity = o->capacity,
		.bucket_us = o->bucket_us,
		.alpha = o->iat_alpha,
		.nr_funcs = o->trace ? o->trace->nr_funcs : 0,
		.home_scan = o->home_scan,
	};
	const char *stat_path = o->proc_stat ? o->proc_stat : "/proc/stat";
	double scale = o->time_scale ? o->time_scale : 1;
	struct run R = { .o = o, .err = err, .errlen = errlen, .rep_fd = { -1, -1 } };
	struct sigaction ign_pipe = { .sa_handler = SIG_IGN }, old_pipe;
	struct faas_cpu_stat s0, s1;
	struct rusage self0, self1, kids0, kids1;
	bool made_root = false;
	uint64_t i;
	int r;

	*out = NULL;
	r = check_opts(o, err, errlen);
	if (r)
		return r;
	R.iat = faas_iat_new(&icfg, err, errlen);
	if (!R.iat)
		return -EINVAL;
	/*
	 * A body that died before its release (a kill, Ctrl-C, OOM) has closed
	 * its go pipe: the release must fail with EPIPE and clean up, not
	 * kill the replay with SIGPIPE and leave the cgroups behind.
	 */
	sigaction(SIGPIPE, &ign_pipe, &old_pipe);
	R.r = calloc(1, sizeof(*R.r));
	R.st = calloc(o->trace->nr_inv, sizeof(*R.st));
	R.flight = calloc(o->trace->nr_inv, sizeof(*R.flight));
	R.rm = calloc(o->trace->nr_inv, sizeof(*R.rm));
	R.pend = calloc(o->trace->nr_inv, sizeof(*R.pend));
	R.held = calloc(o->trace->nr_inv, sizeof(*R.held));
	/* (at the end, out of memory would leave the core reuse unknown) */
	R.last = calloc(o->trace->nr_funcs ? o->trace->nr_funcs : 1, sizeof(*R.last));
	if (R.r)
		R.r->res = calloc(o->trace->nr_inv, sizeof(*R.r->res));
	if (!R.r || !R.r->res || !R.st || !R.flight || !R.rm || !R.pend || !R.held || !R.last) {
		r = fail(&R, ENOMEM, "out of memory for %llu invocations",
			 (unsigned long long)o->trace->nr_inv);
		goto out;
	}
	R.r->trace = o->trace;
	R.r->nr = o->trace->nr_inv;
	R.r->nr_domains = o->nr_domains;
	for (i = 0; i < R.r->nr; i++) {
		double ns = (double)o->trace->inv[i].arrival_us * 1000.0 * scale;

		if (ns > 4e18) {
			r = fail(&R, ERANGE, "invocation %llu arrives too late after time scaling",
				 (unsigned long long)i);
			goto out;
		}
		R.r->res[i].arrival_ns = (uint64_t)ns;
		R.r->res[i].domain = FAAS_DOMAIN_SHARED;
		R.r->res[i].first_cpu = -1;
		R.st[i].go_fd = -1;
	}
	if (pipe2(R.rep_fd, O_CLOEXEC | O_NONBLOCK)) {
		r = fail(&R, errno, "pipe: %s", strerror(errno));
		goto out;
	}
	/* a child blocks on a full pipe, it must never fail with EAGAIN */
	if (fcntl(R.rep_fd[1], F_SETFL, 0)) {
		r = fail(&R, errno, "fcntl: %s", strerror(errno));
		goto out;
	}
	if (o->cgroup_root) {
		if (!mkdir(o->cgroup_root, 0755)) {
			made_root = true;
		} else if (errno != EEXIST) {
			r = fail(&R, errno, "cannot create cgroup root %s: %s", o->cgroup_root,
				 strerror(errno));
			goto out;
		}
	}
	r = faas_cpu_stat_read(stat_path, &s0, err, errlen);
	if (r)
		goto out;
	getrusage(RUSAGE_SELF, &self0);
	getrusage(RUSAGE_CHILDREN, &kids0);

	/* prewarm the first bodies before time 0, as later ones are before their arrival */
	while (!r && background(&R, 0, &r))
		;
	if (r) {
		abort_all(&R);
		goto out;
	}
	R.t0 = faas_now_ns();
	R.r->t0_ns = R.t0;
	while (R.r->completed < R.r->nr) {
		struct pollfd pfd = { .fd = R.rep_fd[0], .events = POLLIN };
		uint64_t now = faas_now_ns() - R.t0, wake = now + POLL_MAX_MS * 1000000ULL;
		int timeout;

		if (o->stop && *o->stop)
			break;
		/* arrivals first: everything else can wait */
		while (!r && R.next < R.r->nr && R.r->res[R.next].arrival_ns <= now)
			r = start(&R, R.next);
		if (!r)
			r = release_pending(&R, now);
		if (!r)
			r = reap(&R, now);
		if (!r)
			r = release_held(&R);
		if (!r && background(&R, now, &r))
			wake = now; /* there may be more: look again at once */
		if (r)
			break;
		if (R.nr_pend && now + ASLEEP_RETRY_NS < wake)
			wake = now + ASLEEP_RETRY_NS;
		if (R.next < R.r->nr && R.r->res[R.next].arrival_ns < wake)
			wake = R.r->res[R.next].arrival_ns;
		if (R.next_prep < R.r->nr && R.next_prep - R.next < PREPARE_MAX &&
		    R.r->res[R.next_prep].arrival_ns < wake + PREPARE_AHEAD_NS)
			wake = R.r->res[R.next_prep].arrival_ns > PREPARE_AHEAD_NS + now
				       ? R.r->res[R.next_prep].arrival_ns - PREPARE_AHEAD_NS
				       : now;
		timeout = (int)((wake - now + 999999) / 1000000);
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR) {
			r = fail(&R, errno, "poll: %s", strerror(errno));
			break;
		}
	}
	R.r->run_ns = faas_now_ns() - R.t0;
	/*
	 * Stopped before the end. A Ctrl-C reaches the bodies too: one it
	 * killed may have failed this turn, but the reason is the interruption.
	 */
	if (o->stop && *o->stop && (r || R.r->completed < R.r->nr))
		r = fail(&R, EINTR, "interrupted after %llu of %llu invocations",
			 (unsigned long long)R.r->completed, (unsigned long long)R.r->nr);
	if (r) {
		abort_all(&R);
		goto out;
	}
	r = faas_cpu_stat_read(stat_path, &s1, err, errlen);
	getrusage(RUSAGE_SELF, &self1);
	getrusage(RUSAGE_CHILDREN, &kids1);
	while (!r && R.nr_rm)
		background(&R, 0, &r); /* the cgroups left to remove */
	if (r) {
		abort_all(&R); /* the cgroups not removed yet */
		goto out;
	}
	if (s1.total > s0.total)
		R.r->util = (double)(s1.busy - s0.busy) / (double)(s1.total - s0.total);
	R.r->busy_cpu_s = (double)(s1.busy - s0.busy) / (double)sysconf(_SC_CLK_TCK);
	R.r->cp_cpu_s = rusage_s(&self1) - rusage_s(&self0);
	R.r->bodies_cpu_s = rusage_s(&kids1) - rusage_s(&kids0);
	faas_iat_get_stats(R.iat, &R.r->iat);
	core_reuse(R.r, R.last);
out:
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (made_root && rmdir(o->cgroup_root) && !r)
		r = fail(&R, errno, "cannot remove cgroup root %s: %s", o->cgroup_root,
			 strerror(errno));
	if (R.rep_fd[0] >= 0) {
		close(R.rep_fd[0]);
		close(R.rep_fd[1]);
	}
	faas_iat_free(R.iat);
	free(R.st);
	free(R.flight);
	free(R.rm);
	free(R.pend);
	free(R.held);
	free(R.last);
	if (r) {
		faas_replay_free(R.r);
		return r;
	}
	*out = R.r;
	return 0;
}

void faas_replay_free(struct faas_replay *r)
{
	uint64_t i;

	if (!r)
		return;
	for (i = 0; r->res && i < r->nr; i++)
		free(r->res[i].cgroup);
	free(r->res);
	free(r);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* @s as a CPU list, through the library's formatter; ';' between ranges. */
static int format_cpus(const struct faas_cpuset *s, struct scxpol_cpuset *tmp, char *buf,
		       size_t len)
{
	int cpu, r;
	char *c;

	for (cpu = 0; cpu < FAAS_MAX_CPUS; cpu++)
		if (faas_cpuset_has(s, cpu))
			scxpol_cpuset_set(tmp, (unsigned int)cpu);
	r = scxpol_cpuset_format(tmp, buf, len);
	for (cpu = 0; cpu < FAAS_MAX_CPUS; cpu++)
		if (faas_cpuset_has(s, cpu))
			scxpol_cpuset_clear(tmp, (unsigned int)cpu);
	if (r < 0)
		return -ENOSPC;
	for (c = buf; *c; c++)
		if (*c == ',')
			*c = ';';
	return 0;
}

int faas_replay_write_csv(const struct faas_replay *r, FILE *f)
{
	struct scxpol_cpuset *tmp = scxpol_cpuset_new(FAAS_MAX_CPUS);
	char cpus[4096];
	uint64_t i;

	if (!tmp)
		return -ENOMEM;
	fprintf(f, "id,function,kind,domain,cgroup_id,cgroup,arrival_ms,released_ms,start_ms,"
		   "end_ms,e2e_ms,worker_ms,first_cpu,cpus,core_reuse,class\n");
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];
		const struct faas_invocation *inv = &r->trace->inv[i];

		if (!x->done)
			continue;
		if (format_cpus(&x->cpus, tmp, cpus, sizeof(cpus))) {
			scxpol_cpuset_free(tmp);
			return -ENOSPC;
		}
		fprintf(f, "%llu,%s,%s,%d,%llu,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s,%s,%s\n",
			(unsigned long long)i, r->trace->funcs[inv->func].name, faas_kind_name(inv->kind),
			x->domain, (unsigned long long)x->cgroup_id, x->cgroup ? x->cgroup : "",
			ms(x->arrival_ns), ms(x->released_ns), ms(x->start_ns), ms(x->end_ns), ms(x->end_ns - x->arrival_ns),
			ms(x->end_ns - x->start_ns), x->first_cpu, cpus,
			x->reuse < 0 ? "-" : x->reuse ? "1" : "0", x->sched_class);
	}
	scxpol_cpuset_free(tmp);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the ceil(p/100 * n)-th smallest of sorted @v */
static double percentile(const double *v, uint64_t n, double p)
{
	uint64_t rank;
	double x;

	if (!n)
		return 0;
	x = p / 100.0 * (double)n;
	rank = (uint64_t)x;
	if (x - (double)rank > 1e-9) /* 99.9 / 100 * 1000 is 999.0000000000001 */
		rank++;
	return v[rank ? rank - 1 : 0];
}

int faas_replay_summarize(const struct faas_replay *r, struct faas_summary *s)
{
	double *e2e = malloc((r->nr ? r->nr : 1) * sizeof(*e2e)), sum_e2e = 0, sum_worker = 0;
	uint64_t i, n = 0;

	memset(s, 0, sizeof(*s));
	if (!e2e)
		return -ENOMEM;
	s->count = r->nr;
	s->completed = r->completed;
	s->shared = r->iat.shared - r->iat.late;
	s->held = r->iat.late;
	s->util = r->util;
	s->busy_cpu_s = r->busy_cpu_s;
	s->cp_cpu_s = r->cp_cpu_s;
	s->bodies_cpu_s = r->bodies_cpu_s;
	s->run_s = (double)r->run_ns / 1e9;
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];

		if (!x->done)
			continue;
		e2e[n++] = ms(x->end_ns - x->arrival_ns);
		sum_e2e += ms(x->end_ns - x->arrival_ns);
		sum_worker += ms(x->end_ns - x->start_ns);
		if (x->reuse >= 0) {
			s->reuse_of++;
			s->reuse += (uint64_t)x->reuse;
		}
	}
	if (n) {
		qsort(e2e, n, sizeof(*e2e), cmp_double);
		s->p50_ms = percentile(e2e, n, 50);
		s->p99_ms = percentile(e2e, n, 99);
		s->p999_ms = percentile(e2e, n, 99.9);
	}
	if (n) {
		s->mean_e2e_ms = sum_e2e / (double)n;
		s->mean_worker_ms = sum_worker / (double)n;
	}
	s->cost_ms = s->mean_e2e_ms * s->util;
	free(e2e);
	return 0;
}

void faas_summary_json(const struct faas_summary *s, FILE *f)
{
	fprintf(f, "{\"count\":%llu,\"completed\":%llu,\"run_s\":%.3f,\"e2e_p50_ms\":%.3f,"
		   "\"e2e_p99_ms\":%.3f,\"e2e_p999_ms\":%.3f,\"e2e_mean_ms\":%.3f,"
		   "\"worker_mean_ms\":%.3f,\"cpu_util\":%.4f,\"invocation_cost_ms\":%.3f,"
		   "\"core_reuse\":%.4f,\"core_reuse_n\":%llu,\"core_reuse_of\":%llu,"
		   "\"shared_queue\":%llu,\"held\":%llu,\"busy_cpu_s\":%.3f,\"cp_cpu_s\":%.3f,"
		   "\"bodies_cpu_s\":%.3f}\n",
		(unsigned long long)s->count, (unsigned long long)s->completed, s->run_s, s->p50_ms,
		s->p99_ms, s->p999_ms, s->mean_e2e_ms, s->mean_worker_ms, s->util, s->cost_ms,
		s->reuse_of ? (double)s->reuse / (double)s->reuse_of : 0.0,
		(unsigned long long)s->reuse, (unsigned long long)s->reuse_of,
		(unsigned long long)s->shared, (unsigned long long)s->held, s->busy_cpu_s,
		s->cp_cpu_s, s->bodies_cpu_s);
}

void faas_summary_print(const struct faas_summary *s, FILE *f)
{
	fprintf(f, "invocations          %llu\n", (unsigned long long)s->count);
	fprintf(f, "completed            %llu\n", (unsigned long long)s->completed);
	fprintf(f, "run time             %.2f s\n", s->run_s);
	fprintf(f, "e2e latency p50      %.2f ms\n", s->p50_ms);
	fprintf(f, "e2e latency p99      %.2f ms\n", s->p99_ms);
	fprintf(f, "e2e latency p99.9    %.2f ms\n", s->p999_ms);
	fprintf(f, "e2e latency mean     %.2f ms\n", s->mean_e2e_ms);
	fprintf(f, "worker duration mean %.2f ms\n", s->mean_worker_ms);
	fprintf(f, "CPU utilisation      %.1f %%\n", s->util * 100);
	fprintf(f, "CPU time             %.2f s busy: control plane %.2f s, bodies %.2f s, "
		   "other %.2f s\n", s->busy_cpu_s, s->cp_cpu_s, s->bodies_cpu_s,
		s->busy_cpu_s - s->cp_cpu_s - s->bodies_cpu_s);
	fprintf(f, "invocation cost      %.2f ms (mean e2e latency x CPU utilisation)\n", s->cost_ms);
	fprintf(f, "core reuse           %.1f %% (%llu of %llu)\n",
		s->reuse_of ? 100.0 * (double)s->reuse / (double)s->reuse_of : 0.0,
		(unsigned long long)s->reuse, (unsigned long long)s->reuse_of);
	fprintf(f, "shared queue         %llu\n", (unsigned long long)s->shared);
	fprintf(f, "held for a domain    %llu\n", (unsigned long long)s->held);
	faas_summary_json(s, f);
}
