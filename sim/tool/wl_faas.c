// SPDX-License-Identifier: GPL-2.0
/*
 * A FaaS trace on the simulated machine, with examples/faas's control
 * plane: its trace parsers (trace.c: Azure 2019 or the per-invocation CSV),
 * Algorithm 3 (iat.c: IAT consistent hashing with capacity accounting)
 * and its summary (replay.c: e2e percentiles, invocation cost), run as
 * faas-replay runs them (replay.h), on simulated time:
 *   arrival   the control plane picks a domain (faas_iat_assign()); with
 *             overflow "hold", one no domain can take waits, first come
 *             first served, until a completion frees capacity
 *   release   the invocation gets its own cgroup, the domain's hint on it
 *             (the policy's hint map, as faas-replay --sink pinned writes
 *             it), then its body starts: cpu one burst; io bursts of at
 *             most 1 ms each followed by io_sleep_ratio times as much
 *             sleep; poll spins until its duration has passed since it
 *             started; mt mt_threads threads each doing the duration
 *   complete  the capacity is released, the hint cleared, the cgroup
 *             removed, held invocations retried oldest first
 * Not modelled: the control plane's own CPU time and lag, prewarming
 * (bodies start when released: forked then, not woken).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/faas/iat.h"
#include "../../examples/faas/replay.h"
#include "../../examples/faas/trace.h"
#include "wl.h"

#define FAAS_CGROUP_BASE (1ULL << 32)
#define POLL_CHUNK_NS 256000ULL
#define IO_BURST_NS 1000000ULL

struct faas;

struct body {
	struct faas *fs;
	uint64_t inv;
	uint64_t left;		/* work left (cpu, io, mt) */
	uint64_t deadline;	/* poll: ends at the first look after it */
	bool started, sleeping;
};

struct faas {
	struct wl *w;
	const struct comp_faas *o;
	struct faas_trace *trace;
	struct faas_iat *iat;
	struct faas_replay rep;
	unsigned int *capacity;
	unsigned int nr_domains;
	uint64_t next;		/* next arrival to handle */
	uint64_t *held;		/* held invocations, FIFO */
	uint64_t held_head, held_len;
	unsigned int *threads_left;
	struct body *bodies;	/* one per thread: invocation i's at i * mt_threads */
	uint64_t last_end;
	unsigned long long cgroup;	/* the component's: the invocations' parent */
};

static unsigned int threads_of(const struct faas *fs, uint64_t i)
{
	return fs->trace->inv[i].kind == FAAS_KIND_MT ? fs->o->mt_threads : 1;
}

static void retry_held(struct faas *fs);

static void complete(struct faas *fs, uint64_t i)
{
	struct faas_inv_result *x = &fs->rep.res[i];
	const struct wl_policy *p = fs->w->env.policy;
	struct scxpol_sim *s = fs->w->env.sim;

	x->end_ns = scxpol_sim_now(s);
	x->done = true;
	fs->rep.completed++;
	fs->last_end = x->end_ns;
	faas_iat_release(fs->iat, i);
	if (x->domain >= 0 && p->assign)
		p->assign(p->ctx, x->cgroup_id, -1);
	scxpol_sim_cgroup_remove(s, x->cgroup_id);
	retry_held(fs);
}

static void body(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		 enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct body *b = ctx;
	struct faas *fs = b->fs;
	struct faas_inv_result *x = &fs->rep.res[b->inv];
	enum faas_kind kind = fs->trace->inv[b->inv].kind;
	uint64_t now = scxpol_sim_now(s), burst;
	int cpu = scxpol_sim_task_cpu(t);

	if (why == SCXPOL_SIM_DONE) {
		if (!b->started) {
			b->started = true;
			if (!x->start_ns || scxpol_sim_task_burst_start(t) < x->start_ns)
				x->start_ns = scxpol_sim_task_burst_start(t);
			if (x->first_cpu < 0)
				x->first_cpu = cpu;
			if (kind == FAAS_KIND_POLL)
				b->deadline = scxpol_sim_task_burst_start(t) +
					      fs->trace->inv[b->inv].duration_us * 1000;
		}
		faas_cpuset_set(&x->cpus, cpu);
		if (kind == FAAS_KIND_IO && !b->sleeping && b->left) {
			b->sleeping = true;
			a->act = SCXPOL_SIM_SLEEP;
			a->ns = IO_BURST_NS * fs->o->io_sleep_ratio;
			return;
		}
		if ((kind == FAAS_KIND_POLL && now >= b->deadline) ||
		    (kind != FAAS_KIND_POLL && !b->left)) {
			if (!--fs->threads_left[b->inv])
				complete(fs, b->inv);
			a->act = SCXPOL_SIM_EXIT;
			return;
		}
	}
	b->sleeping = false;
	if (kind == FAAS_KIND_POLL) {
		burst = b->deadline && b->deadline > now && b->deadline - now < POLL_CHUNK_NS ?
				b->deadline - now : POLL_CHUNK_NS;
	} else {
		burst = kind == FAAS_KIND_IO && b->left > IO_BURST_NS ? IO_BURST_NS : b->left;
		b->left -= burst;
	}
	a->act = SCXPOL_SIM_RUN;
	a->ns = burst ? burst : 1;
}

/* Release invocation @i to @domain: its cgroup, its hint, its body's threads. */
static int release(struct faas *fs, uint64_t i, int domain)
{
	static const char role[FAAS_NR_KINDS] = { 'c', 'i', 'p', 'm' };
	const struct faas_invocation *inv = &fs->trace->inv[i];
	struct faas_inv_result *x = &fs->rep.res[i];
	const struct wl_policy *p = fs->w->env.policy;
	struct scxpol_sim *s = fs->w->env.sim;
	unsigned int k, n = threads_of(fs, i);
	char r[2] = { role[inv->kind], 0 };
	uint64_t work = inv->duration_us * 1000;

	x->domain = domain;
	x->released_ns = scxpol_sim_now(s);
	x->cgroup_id = FAAS_CGROUP_BASE + i;
	/* the first failure stops the control plane; the run reports it */
	if (scxpol_sim_cgroup_new(s, x->cgroup_id, fs->cgroup)) {
		wl_fail(fs->w, "invocation %llu: %s", (unsigned long long)i,
			scxpol_sim_last_error());
		return -EIO;
	}
	if (domain >= 0 && p->assign && p->assign(p->ctx, x->cgroup_id, domain)) {
		wl_fail(fs->w, "invocation %llu: cannot write its domain hint (the hint map is "
			"full?)", (unsigned long long)i);
		return -EIO;
	}
	if (inv->kind == FAAS_KIND_IO)
		work /= 1 + fs->o->io_sleep_ratio;
	fs->threads_left[i] = n;
	fs->w->env.cgroup = x->cgroup_id;
	for (k = 0; k < n; k++) {
		struct body *b = &fs->bodies[i * fs->o->mt_threads + k];

		*b = (struct body){ .fs = fs, .inv = i, .left = work };
		if (!wl_task(fs->w, r, (unsigned int)i, body, b))
			break;
	}
	fs->w->env.cgroup = fs->cgroup;
	return k == n ? 0 : -errno;
}

static void retry_held(struct faas *fs)
{
	int domain;

	while (fs->held_len) {
		uint64_t i = fs->held[fs->held_head];

		if (faas_iat_retry(fs->iat, i, fs->trace->inv[i].func, &domain) ||
		    domain == FAAS_DOMAIN_SHARED)
			return;
		fs->held_head++;
		fs->held_len--;
		release(fs, i, domain);
	}
}

/* Every invocation arriving now (one event per distinct arrival time). */
static void arrive(struct scxpol_sim *s, void *ctx)
{
	struct faas *fs = ctx;
	const struct faas_trace *tr = fs->trace;
	uint64_t now = scxpol_sim_now(s), i;
	int domain, r;

	for (; !fs->w->env.err[0] && fs->next < tr->nr_inv &&
	       fs->rep.res[fs->next].arrival_ns <= now; fs->next++) {
		i = fs->next;
		if (fs->o->hold && fs->held_len &&
		    faas_iat_fits(fs->iat, threads_of(fs, i))) {
			r = faas_iat_arrive(fs->iat, i, tr->inv[i].func,
					    fs->rep.res[i].arrival_ns / 1000, threads_of(fs, i));
			domain = FAAS_DOMAIN_SHARED;
		} else {
			r = faas_iat_assign(fs->iat, i, tr->inv[i].func,
					    fs->rep.res[i].arrival_ns / 1000, threads_of(fs, i),
					    &domain);
		}
		if (r) {
			wl_fail(fs->w, "invocation %llu: %s", (unsigned long long)i,
				faas_iat_error(fs->iat));
			return;
		}
		if (domain == FAAS_DOMAIN_SHARED && fs->o->hold &&
		    faas_iat_fits(fs->iat, threads_of(fs, i))) {
			fs->held[(fs->held_head + fs->held_len++)] = i;
			continue;
		}
		release(fs, i, domain);
	}
	if (!fs->w->env.err[0] && fs->next < tr->nr_inv)
		scxpol_sim_at(s, fs->rep.res[fs->next].arrival_ns, arrive, fs);
}

static int load_trace(struct faas *fs)
{
	const struct comp_faas *o = fs->o;
	char err[FAAS_ERR_LEN];
	int r;

	if (o->trace[0]) {
		r = faas_trace_load_simple(o->trace, &fs->trace, err, sizeof(err));
	} else {
		struct faas_azure_opts ao = {
			.first_minute = o->first_minute, .last_minute = o->last_minute,
			.minute_us = (uint64_t)(o->minute_s * 1e6), .duration_scale = o->duration_scale,
			.max_funcs = o->max_funcs, .seed = fs->w->env.spec->seed,
		};

		r = faas_trace_load_azure(o->invocations, o->durations, &ao, &fs->trace, err,
					  sizeof(err));
	}
	if (r)
		wl_fail(fs->w, "%s", err);
	return r;
}

static int faas_start(struct wl *w)
{
	const struct comp_faas *o = &w->env.comp->u.faas;
	const struct wl_policy *p = w->env.policy;
	struct faas_iat_config cfg = { 0 };
	unsigned int cpus = scxpol_sim_nr_cpus(w->env.sim), d;
	struct faas *fs = calloc(1, sizeof(*fs));
	char err[FAAS_ERR_LEN];
	uint64_t i;
	int r;

	if (!fs)
		return -ENOMEM;
	w->state = fs;
	fs->w = w;
	fs->o = o;
	fs->cgroup = w->env.cgroup;
	r = load_trace(fs);
	if (r)
		return r;
	/* the policy's domains; without a domain-aware policy, the spec's (default 1) */
	fs->nr_domains = p->nr_domains ? p->nr_domains : o->domains ? o->domains : 1;
	if (p->nr_domains && o->domains && o->domains != p->nr_domains) {
		wl_fail(w, "domains %u, but the policy has %u", o->domains, p->nr_domains);
		return -EINVAL;
	}
	if (fs->nr_domains > cpus) {
		wl_fail(w, "%u domains on %u CPUs", fs->nr_domains, cpus);
		return -EINVAL;
	}
	fs->capacity = calloc(fs->nr_domains, sizeof(*fs->capacity));
	fs->rep.res = calloc(fs->trace->nr_inv ? fs->trace->nr_inv : 1, sizeof(*fs->rep.res));
	fs->held = calloc(fs->trace->nr_inv ? fs->trace->nr_inv : 1, sizeof(*fs->held));
	fs->threads_left = calloc(fs->trace->nr_inv ? fs->trace->nr_inv : 1, sizeof(unsigned int));
	fs->bodies = calloc((fs->trace->nr_inv ? fs->trace->nr_inv : 1) * o->mt_threads,
			    sizeof(*fs->bodies));
	if (!fs->capacity || !fs->rep.res || !fs->held || !fs->threads_left || !fs->bodies)
		return -ENOMEM;
	for (d = 0; d < fs->nr_domains; d++) {
		unsigned int dc = p->nr_domains ? p->domain_cpus[d] :
				  cpus / fs->nr_domains + (d < cpus % fs->nr_domains);
		double c = o->capacity_x ? o->capacity * dc : o->capacity;

		fs->capacity[d] = c < 1 ? 1 : (unsigned int)c;
	}
	cfg = (struct faas_iat_config){ .nr_domains = fs->nr_domains, .capacity = fs->capacity,
					.bucket_us = o->bucket_us, .alpha = o->alpha,
					.nr_funcs = fs->trace->nr_funcs, .home_scan = o->home_scan };
	fs->iat = faas_iat_new(&cfg, err, sizeof(err));
	if (!fs->iat) {
		wl_fail(w, "%s", err);
		return -EINVAL;
	}
	fs->rep.trace = fs->trace;
	fs->rep.nr = fs->trace->nr_inv;
	fs->rep.nr_domains = fs->nr_domains;
	for (i = 0; i < fs->trace->nr_inv; i++) {
		fs->rep.res[i].arrival_ns = (uint64_t)((double)fs->trace->inv[i].arrival_us *
						       o->time_scale * 1000);
		fs->rep.res[i].first_cpu = -1;
		fs->rep.res[i].domain = FAAS_DOMAIN_SHARED;
	}
	if (fs->trace->nr_inv)
		return scxpol_sim_at(w->env.sim, fs->rep.res[0].arrival_ns, arrive, fs);
	return 0;
}

static void faas_window(struct wl *w)
{
	(void)w;
}

/* Core reuse: a first CPU one of its function's previous invocation (by arrival) ran on. */
static void reuse(struct faas *fs)
{
	uint64_t *prev = calloc(fs->trace->nr_funcs + 1, sizeof(*prev)), i;

	for (i = 0; prev && i < fs->trace->nr_inv; i++) {
		struct faas_inv_result *x = &fs->rep.res[i];
		uint32_t f = fs->trace->inv[i].func;

		x->reuse = -1;
		if (prev[f] && x->done && fs->rep.res[prev[f] - 1].done && x->first_cpu >= 0)
			x->reuse = faas_cpuset_has(&fs->rep.res[prev[f] - 1].cpus, x->first_cpu);
		prev[f] = i + 1;
	}
	free(prev);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The summary as faas-replay makes it, from the simulated results. */
static void summarize(struct wl *w, struct faas_summary *sum)
{
	struct faas *fs = w->state;
	struct scxpol_sim_stats st;
	struct scxpol_sim_group_stats g;

	scxpol_sim_stats(w->env.sim, &st);
	scxpol_sim_group_stats(w->env.sim, w->env.group, &g);
	faas_iat_get_stats(fs->iat, &fs->rep.iat);
	fs->rep.run_ns = fs->last_end;
	fs->rep.busy_cpu_s = (double)st.busy_ns / 1e9;
	fs->rep.bodies_cpu_s = (double)g.cpu_ns / 1e9;
	fs->rep.util = st.busy_ns ? (double)st.busy_ns / ((double)(st.busy_ns + st.idle_ns)) : 0;
	reuse(fs);
	faas_replay_summarize(&fs->rep, sum);
}

static void faas_metrics(struct wl *w, struct wl_metrics *m)
{
	struct faas *fs = w->state;
	struct faas_summary sum;
	double *e2e;
	uint64_t i, n = 0, k;

	summarize(w, &sum);
	m->e2e_p50_ms = sum.p50_ms;
	m->e2e_p99_ms = sum.p99_ms;
	m->e2e_p999_ms = sum.p999_ms;
	m->cost_ms = sum.cost_ms;
	m->util = sum.util;
	/* the e2e latency CDF at 100 ranks */
	e2e = malloc((fs->rep.nr ? fs->rep.nr : 1) * sizeof(*e2e));
	for (i = 0; e2e && i < fs->rep.nr; i++)
		if (fs->rep.res[i].done)
			e2e[n++] = (double)(fs->rep.res[i].end_ns - fs->rep.res[i].arrival_ns) / 1e6;
	m->nr_cdf = 0;
	if (e2e && n) {
		qsort(e2e, n, sizeof(*e2e), cmp_double);
		for (k = 1; k <= 100; k++) {
			m->cdf[k - 1][0] = e2e[(n * k + 99) / 100 - 1];
			m->cdf[k - 1][1] = (double)k / 100;
		}
		m->nr_cdf = 100;
	}
	free(e2e);
}

static void faas_report(struct wl *w, FILE *f)
{
	struct faas *fs = w->state;
	struct faas_summary sum;

	summarize(w, &sum);
	fprintf(f, "\"domains\":%u,\"summary\":", fs->nr_domains);
	faas_summary_json(&sum, f);
}

static bool faas_done(struct wl *w)
{
	struct faas *fs = w->state;

	return fs->rep.completed == fs->rep.nr || fs->w->env.err[0];
}

static void faas_free(struct wl *w)
{
	struct faas *fs = w->state;

	if (!fs)
		return;
	faas_iat_free(fs->iat);
	faas_trace_free(fs->trace);
	free(fs->capacity);
	free(fs->rep.res);
	free(fs->held);
	free(fs->threads_left);
	free(fs->bodies);
	free(fs);
}

const struct wl_kind wl_faas = { faas_start, faas_window, faas_report, faas_metrics, faas_done,
				  faas_free };
