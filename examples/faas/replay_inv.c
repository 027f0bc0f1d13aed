// SPDX-License-Identifier: GPL-2.0
/*
 * One invocation's steps in a replay (replay.h, steps 1-4): prepare its
 * cgroup and body, pick its domain at arrival (or hold it), release it
 * through the sink, take its report, reap it, remove its cgroup; and undo
 * all of that for every invocation after a failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_int.h"

int replay_fail(struct run *R, int errnum, const char *fmt, ...)
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
		return replay_fail(R, -r, "invocation %llu: %s", (unsigned long long)id, why);
	r = 0;
	if (sink && sink->assign && res->domain >= 0) {
		r = sink->assign(sink->ctx, res->cgroup_id, res->domain);
		if (r)
			return replay_fail(R, -r, "sink '%s': assigning cgroup %llu (invocation %llu) to "
					   "domain %d: %s", sink->name, (unsigned long long)res->cgroup_id,
					   (unsigned long long)id, res->domain, sink_error(sink, r));
		st->hinted = true;
	}
	res->released_ns = faas_now_ns() - R->t0;
	if (write(st->go_fd, "g", 1) != 1)
		r = replay_fail(R, errno, "invocation %llu: cannot start its body: %s",
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
int replay_start(struct run *R, uint64_t id)
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
		return replay_fail(R, -r, "%s", faas_iat_error(R->iat));
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
int replay_release_held(struct run *R)
{
	int r;

	while (R->held_head < R->nr_held) {
		uint64_t id = R->held[R->held_head];
		struct faas_inv_result *res = &R->r->res[id];

		r = faas_iat_retry(R->iat, id, R->o->trace->inv[id].func, &res->domain);
		if (r)
			return replay_fail(R, -r, "%s", faas_iat_error(R->iat));
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
int replay_release_pending(struct run *R, uint64_t now)
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
			return replay_fail(R, ETIMEDOUT, "invocation %llu: its body (pid %d) is not asleep "
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
		/* still hinted: replay_abort_all() tries again */
		return replay_fail(R, -r, "sink '%s': clearing cgroup %llu (invocation %llu): %s", sink->name,
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
		return replay_fail(R, EPROTO, "unexpected report for invocation %llu",
				   (unsigned long long)rep->id);
	st = &R->st[rep->id];
	res = &R->r->res[rep->id];
	st->reported = true;
	if (rep->status)
		return replay_fail(R, rep->status, "invocation %llu (function %s, %s) failed: %s",
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
		return replay_fail(R, ENOMEM, "out of memory");
	r = faas_iat_release(R->iat, rep->id);
	if (r)
		return replay_fail(R, -r, "%s", faas_iat_error(R->iat));
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
			return replay_fail(R, EPROTO, "reading body reports: %s",
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
int replay_reap(struct run *R, uint64_t now)
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
			return replay_fail(R, errno, "waitpid %d: %s", (int)st->pid, strerror(errno));
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
			return replay_fail(R, ECHILD, "invocation %llu (function %s) %s: %s",
					   (unsigned long long)id, func_name(R, id),
					   st->reported ? "did not exit cleanly" : "ended without a report",
					   how);
		}
		/* its tasks are gone: until now the exit itself ran in its domain */
		r = unhint(R, id);
		if (r)
			return r;
		R->r->res[id].done = true;
		R->r->completed++;
		R->flight[i] = R->flight[--R->nr_flight];
	}
	return 0;
}

/* After a failure: nothing may keep running or stay in the cgroup root. */
void replay_abort_all(struct run *R)
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
}

/*
 * Prepare the next body if it is due (replay.h, step 1): one per call, so
 * that arrivals wait for no more than one. Returns 1 if it prepared one.
 */
int replay_prepare_next(struct run *R, uint64_t now, int *r)
{
	if (R->next_prep < R->r->nr && R->next_prep - R->next < PREPARE_MAX &&
	    R->r->res[R->next_prep].arrival_ns <= now + PREPARE_AHEAD_NS) {
		*r = prepare(R, R->next_prep);
		return 1;
	}
	return 0;
}

/*
 * Remove the finished invocations' cgroups, once every invocation has
 * finished. Not during the replay: a removal hands work to kworkers that
 * hold cgroup_mutex (css_killed_work_fn, css_release_work_fn,
 * cgroup_bpf_release), and a kworker preempted by the bodies there stalls
 * the control plane's next cgroup mkdir or fork into a cgroup for seconds.
 */
int replay_remove_cgroups(struct run *R)
{
	char path[4096];
	uint64_t id;
	int r;

	for (id = 0; id < R->r->nr; id++) {
		if (!R->st[id].cgroup)
			continue;
		cgroup_path(R, id, path, sizeof(path));
		r = faas_cgroup_remove(path, R->err, R->errlen);
		if (r)
			return r;
		R->st[id].cgroup = false;
	}
	return 0;
}
