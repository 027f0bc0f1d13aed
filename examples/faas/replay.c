// SPDX-License-Identifier: GPL-2.0
/*
 * Real-time trace replay (replay.h): check the options, run the loop that
 * starts invocations at their arrival (their steps: replay_inv.c), measure
 * the run's CPU time and core reuse, free the results.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_int.h"

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
	R.pend = calloc(o->trace->nr_inv, sizeof(*R.pend));
	R.held = calloc(o->trace->nr_inv, sizeof(*R.held));
	/* (at the end, out of memory would leave the core reuse unknown) */
	R.last = calloc(o->trace->nr_funcs ? o->trace->nr_funcs : 1, sizeof(*R.last));
	if (R.r)
		R.r->res = calloc(o->trace->nr_inv, sizeof(*R.r->res));
	if (!R.r || !R.r->res || !R.st || !R.flight || !R.pend || !R.held || !R.last) {
		r = replay_fail(&R, ENOMEM, "out of memory for %llu invocations",
				(unsigned long long)o->trace->nr_inv);
		goto out;
	}
	R.r->trace = o->trace;
	R.r->nr = o->trace->nr_inv;
	R.r->nr_domains = o->nr_domains;
	for (i = 0; i < R.r->nr; i++) {
		double ns = (double)o->trace->inv[i].arrival_us * 1000.0 * scale;

		if (ns > 4e18) {
			r = replay_fail(&R, ERANGE, "invocation %llu arrives too late after time scaling",
					(unsigned long long)i);
			goto out;
		}
		R.r->res[i].arrival_ns = (uint64_t)ns;
		R.r->res[i].domain = FAAS_DOMAIN_SHARED;
		R.r->res[i].first_cpu = -1;
		R.st[i].go_fd = -1;
	}
	if (pipe2(R.rep_fd, O_CLOEXEC | O_NONBLOCK)) {
		r = replay_fail(&R, errno, "pipe: %s", strerror(errno));
		goto out;
	}
	/* a child blocks on a full pipe, it must never fail with EAGAIN */
	if (fcntl(R.rep_fd[1], F_SETFL, 0)) {
		r = replay_fail(&R, errno, "fcntl: %s", strerror(errno));
		goto out;
	}
	if (o->cgroup_root) {
		if (!mkdir(o->cgroup_root, 0755)) {
			made_root = true;
		} else if (errno != EEXIST) {
			r = replay_fail(&R, errno, "cannot create cgroup root %s: %s", o->cgroup_root,
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
	while (!r && replay_prepare_next(&R, 0, &r))
		;
	if (r) {
		replay_abort_all(&R);
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
			r = replay_start(&R, R.next);
		if (!r)
			r = replay_release_pending(&R, now);
		if (!r)
			r = replay_reap(&R, now);
		if (!r)
			r = replay_release_held(&R);
		if (!r && replay_prepare_next(&R, now, &r))
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
			r = replay_fail(&R, errno, "poll: %s", strerror(errno));
			break;
		}
	}
	R.r->run_ns = faas_now_ns() - R.t0;
	/*
	 * Stopped before the end. A Ctrl-C reaches the bodies too: one it
	 * killed may have failed this turn, but the reason is the interruption.
	 */
	if (o->stop && *o->stop && (r || R.r->completed < R.r->nr))
		r = replay_fail(&R, EINTR, "interrupted after %llu of %llu invocations",
				(unsigned long long)R.r->completed, (unsigned long long)R.r->nr);
	if (r) {
		replay_abort_all(&R);
		goto out;
	}
	r = faas_cpu_stat_read(stat_path, &s1, err, errlen);
	getrusage(RUSAGE_SELF, &self1);
	getrusage(RUSAGE_CHILDREN, &kids1);
	if (!r)
		r = replay_remove_cgroups(&R);
	if (r) {
		replay_abort_all(&R); /* the cgroups not removed yet */
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
		r = replay_fail(&R, errno, "cannot remove cgroup root %s: %s", o->cgroup_root,
				strerror(errno));
	if (R.rep_fd[0] >= 0) {
		close(R.rep_fd[0]);
		close(R.rep_fd[1]);
	}
	faas_iat_free(R.iat);
	free(R.st);
	free(R.flight);
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
