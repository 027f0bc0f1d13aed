// SPDX-License-Identifier: GPL-2.0
/*
 * The load of tools/scxpol-workload on the simulated machine, and
 * schbench's message/worker pattern.
 *
 * rr: dispatchers post requests to sleeping workers, at a (stepping)
 * rate at fixed intervals (open loop: a request that finds every worker
 * busy waits in a backlog, its latency counting from when it was due; a
 * full backlog drops it) or keeping `concurrency` requests in flight
 * (closed loop: a completion wakes a waiting dispatcher). Each post costs
 * its dispatcher `dispatch` of CPU, half before the worker's wakeup and
 * half after it (the wake's return and the way to the next wait: the
 * window in which a policy that preempts on wakeup preempts the
 * dispatcher); several dispatchers share the rate, each starting a
 * fraction of an interval later. A worker runs `work`, then, with stages,
 * hands the request to a worker of the next stage (a pipeline), else it
 * is done; then it takes a waiting request or sleeps. Measured as
 * scxpol-workload does: request latency (due -> done), wakeup latency
 * (posted -> the worker running), requests due in the window and done in
 * it, and those due in it but unfinished or dropped.
 *
 * hogs: threads doing units of CPU work in a loop; units done in the
 * window.
 *
 * schbench: message threads each wake their workers, wait for all to
 * finish, think, and again; wakeup latency (posted -> running) and request
 * latency (posted -> done) as schbench reports them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/lat/hist.h"
#include "wl.h"

#define SEC 1000000000ULL

struct req {
	uint64_t due, posted;
};

struct rr;

struct rr_worker {
	struct rr *rr;
	struct scxpol_sim_task *t;
	unsigned int stage;
	bool idle;
	struct req req;
	struct rr_worker *next_idle;
};

/* One stage's idle workers and its backlog (a ring of requests). */
struct rr_stage {
	struct rr_worker *idle;
	struct req *ring;
	unsigned int head, len;
};

/* A dispatcher: with several, each posts 1/n of the requests, offset by its index. */
struct rr_disp {
	struct rr *rr;
	struct scxpol_sim_task *t;
	uint64_t next_due;	/* open loop */
	unsigned int step;
	bool waiting;		/* closed loop: for a completion */
	uint64_t tail;		/* the CPU left after the post; 0 before it */
};

struct rr {
	struct wl *w;
	const struct comp_rr *o;
	struct rr_disp *disps;
	struct rr_worker *workers;
	struct rr_stage *stages;
	unsigned int outstanding; /* closed loop */
	uint64_t done, unfinished, dropped;
	struct lat_hist req, wake;
};

static bool in_window(const struct wl *w, uint64_t t)
{
	return t >= w->env.t0 && t <= w->env.t_end;
}

/*
 * The due time after @t of dispatcher @d at the rate of the step @t falls
 * in, its share of it (rate 0: from the next step).
 */
static uint64_t advance(struct rr_disp *d, uint64_t t)
{
	const struct steps *st = &d->rr->o->rate;
	double n = d->rr->o->dispatchers;

	for (;;) {
		while (d->step + 1 < st->n && t >= st->at[d->step + 1])
			d->step++;
		if (st->rate[d->step] > 0)
			return t + (uint64_t)(1e9 * n / st->rate[d->step]);
		if (d->step + 1 == st->n)
			return UINT64_MAX;
		t = st->at[d->step + 1];
	}
}

/* Hand @q to stage @s: an idle worker (woken by @waker) or the backlog. */
static void post(struct rr *rr, unsigned int s, struct req q, struct scxpol_sim_task *waker)
{
	struct rr_stage *st = &rr->stages[s];
	struct rr_worker *wk = st->idle;

	q.posted = scxpol_sim_now(rr->w->env.sim);
	if (wk) {
		st->idle = wk->next_idle;
		wk->idle = false;
		wk->req = q;
		scxpol_sim_wake(rr->w->env.sim, wk->t, waker, false);
		return;
	}
	if (st->len == rr->o->backlog) {
		if (in_window(rr->w, q.due))
			rr->dropped++;
		return;
	}
	st->ring[(st->head + st->len++) % rr->o->backlog] = q;
}

/* A post's CPU: its first half now, the rest (d->tail) after the wakeup. */
static void post_cpu(struct rr_disp *d, struct scxpol_sim_action *a)
{
	uint64_t ns = wl_sample(&d->rr->o->dispatch, &d->rr->w->env.rng) + 2;

	a->act = SCXPOL_SIM_RUN;
	a->ns = ns / 2;
	d->tail = ns - ns / 2;
}

static void dispatcher(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		       enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct rr_disp *d = ctx;
	struct rr *rr = d->rr;
	uint64_t now = scxpol_sim_now(s);

	if (why == SCXPOL_SIM_START) {
		if (rr->o->concurrency) {
			post_cpu(d, a);
		} else {
			/* dispatcher i of n starts i/n of an interval late */
			uint64_t first = advance(d, now);

			if (first == UINT64_MAX) {
				d->next_due = first;
				a->act = SCXPOL_SIM_BLOCK;
				return;
			}
			d->next_due = now + (first - now) * (uint64_t)(d - rr->disps) /
						    rr->o->dispatchers;
			a->act = SCXPOL_SIM_SLEEP;
			a->ns = d->next_due - now;
		}
		return;
	}
	if (why == SCXPOL_SIM_WOKEN) {
		post_cpu(d, a);
		return;
	}
	if (d->tail) {
		/* the post's first half is done: post, then the rest */
		if (rr->o->concurrency) {
			while (rr->outstanding < rr->o->concurrency) {
				rr->outstanding++;
				post(rr, 0, (struct req){ .due = now }, t);
			}
		} else if (d->next_due <= now) {
			post(rr, 0, (struct req){ .due = d->next_due }, t);
			d->next_due = advance(d, d->next_due);
		}
		a->act = SCXPOL_SIM_RUN;
		a->ns = d->tail;
		d->tail = 0;
		return;
	}
	if (rr->o->concurrency) {
		/* completions during the post's CPU: post again before waiting */
		if (rr->outstanding < rr->o->concurrency) {
			post_cpu(d, a);
			return;
		}
		d->waiting = true;
		a->act = SCXPOL_SIM_BLOCK;
		return;
	}
	/* one post per wakeup; late, it posts again at once (each costs its CPU) */
	if (d->next_due <= now) {
		post_cpu(d, a);
	} else {
		a->act = d->next_due == UINT64_MAX ? SCXPOL_SIM_BLOCK : SCXPOL_SIM_SLEEP;
		a->ns = d->next_due - now;
	}
}

/*
 * A worker's answers but at a burst's end: it waits to be woken (START:
 * BLOCK), then runs a piece of work sampled from @work (WOKEN: RUN).
 * Returns whether @why was one of those.
 */
static bool worker_waits_and_works(enum scxpol_sim_why why, struct scxpol_sim_action *a,
				   const struct dist *work, struct scxpol_sim_rng *rng)
{
	if (why == SCXPOL_SIM_START) {
		a->act = SCXPOL_SIM_BLOCK;
		return true;
	}
	if (why == SCXPOL_SIM_WOKEN) {
		a->act = SCXPOL_SIM_RUN;
		a->ns = wl_sample(work, rng);
		return true;
	}
	return false;
}

static void worker(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		   enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct rr_worker *wk = ctx;
	struct rr *rr = wk->rr;
	struct rr_stage *st = &rr->stages[wk->stage];
	uint64_t now = scxpol_sim_now(s);

	if (worker_waits_and_works(why, a, &rr->o->work, &rr->w->env.rng))
		return;
	if (in_window(rr->w, wk->req.due))
		lat_hist_add(&rr->wake, scxpol_sim_task_burst_start(t) - wk->req.posted);
	if (wk->stage + 1 < rr->o->stages) {
		post(rr, wk->stage + 1, wk->req, t);
	} else {
		if (in_window(rr->w, wk->req.due) && now <= rr->w->env.t_end) {
			rr->done++;
			lat_hist_add(&rr->req, now - wk->req.due);
		}
		if (rr->o->concurrency) {
			unsigned int i;

			rr->outstanding--;
			for (i = 0; i < rr->o->dispatchers && !rr->disps[i].waiting; i++)
				;
			if (i < rr->o->dispatchers) {
				rr->disps[i].waiting = false;
				scxpol_sim_wake(s, rr->disps[i].t, t, false);
			}
		}
	}
	if (st->len) {
		wk->req = st->ring[st->head];
		wk->req.posted = now;
		st->head = (st->head + 1) % rr->o->backlog;
		st->len--;
		a->act = SCXPOL_SIM_RUN;
		a->ns = wl_sample(&rr->o->work, &rr->w->env.rng);
		return;
	}
	wk->idle = true;
	wk->next_idle = st->idle;
	st->idle = wk;
	a->act = SCXPOL_SIM_BLOCK;
}

static int rr_start(struct wl *w)
{
	const struct comp_rr *o = &w->env.comp->u.rr;
	unsigned int i, s;
	struct rr *rr;

	rr = calloc(1, sizeof(*rr));
	if (!rr)
		return -ENOMEM;
	w->state = rr;
	rr->w = w;
	rr->o = o;
	rr->workers = calloc((size_t)o->workers * o->stages, sizeof(*rr->workers));
	rr->stages = calloc(o->stages, sizeof(*rr->stages));
	rr->disps = calloc(o->dispatchers, sizeof(*rr->disps));
	if (!rr->workers || !rr->stages || !rr->disps)
		return -ENOMEM;
	for (s = 0; s < o->stages; s++) {
		rr->stages[s].ring = calloc(o->backlog, sizeof(struct req));
		if (!rr->stages[s].ring)
			return -ENOMEM;
	}
	for (i = 0; i < o->workers * o->stages; i++) {
		struct rr_worker *wk = &rr->workers[i];

		wk->rr = rr;
		wk->stage = i / o->workers;
		wk->idle = true;
		wk->t = wl_task(w, "w", i, worker, wk);
		if (!wk->t)
			return -errno;
		wk->next_idle = rr->stages[wk->stage].idle;
		rr->stages[wk->stage].idle = wk;
	}
	for (i = 0; i < o->dispatchers; i++) {
		rr->disps[i].rr = rr;
		rr->disps[i].t = wl_task(w, "d", i, dispatcher, &rr->disps[i]);
		if (!rr->disps[i].t)
			return -errno;
	}
	return 0;
}

static void rr_window(struct wl *w)
{
	struct rr *rr = w->state;

	rr->done = rr->unfinished = rr->dropped = 0;
	memset(&rr->req, 0, sizeof(rr->req));
	memset(&rr->wake, 0, sizeof(rr->wake));
}

/* Requests due in the window, not done by its end: in workers' hands, waiting, not posted. */
static uint64_t unfinished(struct rr *rr)
{
	struct wl *w = rr->w;
	uint64_t n = 0, due;
	unsigned int i, s;

	for (i = 0; i < rr->o->workers * rr->o->stages; i++)
		n += !rr->workers[i].idle && in_window(w, rr->workers[i].req.due);
	for (s = 0; s < rr->o->stages; s++)
		for (i = 0; i < rr->stages[s].len; i++)
			n += in_window(w, rr->stages[s].ring[(rr->stages[s].head + i) %
							    rr->o->backlog].due);
	for (i = 0; !rr->o->concurrency && i < rr->o->dispatchers; i++)
		for (due = rr->disps[i].next_due; due <= w->env.t_end; due = advance(&rr->disps[i], due))
			n += due >= w->env.t0;
	return n;
}

/* The members both request workloads report: counts, rates, latencies. */
static void requests_report(struct wl *w, FILE *f, uint64_t n, const struct lat_hist *req,
			    const struct lat_hist *wake)
{
	struct lat_summary s;

	fprintf(f, "\"requests\":%llu,\"requests_per_s\":%.3f", (unsigned long long)n,
		(double)n / ((double)(w->env.t_end - w->env.t0) / 1e9));
	lat_hist_summarize(req, &s);
	fprintf(f, ",\"request_latency\":");
	lat_summary_json(f, &s);
	lat_hist_summarize(wake, &s);
	fprintf(f, ",\"wakeup_latency\":");
	lat_summary_json(f, &s);
}

static void requests_metrics(struct wl *w, struct wl_metrics *m, uint64_t n,
			     const struct lat_hist *req, const struct lat_hist *wake)
{
	m->requests = (double)n;
	m->req_per_s = (double)n / ((double)(w->env.t_end - w->env.t0) / 1e9);
	m->req_p99_ns = (double)lat_hist_percentile(req, 99);
	m->wake_p99_ns = (double)lat_hist_percentile(wake, 99);
}

static void rr_report(struct wl *w, FILE *f)
{
	struct rr *rr = w->state;

	requests_report(w, f, rr->done, &rr->req, &rr->wake);
	fprintf(f, ",\"unfinished\":%llu,\"dropped\":%llu", (unsigned long long)unfinished(rr),
		(unsigned long long)rr->dropped);
}

static void rr_metrics(struct wl *w, struct wl_metrics *m)
{
	struct rr *rr = w->state;

	requests_metrics(w, m, rr->done, &rr->req, &rr->wake);
	m->unserved = (double)(unfinished(rr) + rr->dropped);
}

static void rr_free(struct wl *w)
{
	struct rr *rr = w->state;
	unsigned int s;

	if (!rr)
		return;
	for (s = 0; rr->stages && s < rr->o->stages; s++)
		free(rr->stages[s].ring);
	free(rr->stages);
	free(rr->workers);
	free(rr->disps);
	free(rr);
}

const struct wl_kind wl_rr = { rr_start, rr_window, rr_report, rr_metrics, NULL, rr_free };

/* --- hogs -------------------------------------------------------------------------- */
struct hogs {
	struct wl *w;
	uint64_t units;
};

static void hog(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct hogs *h = ctx;

	(void)t;
	if (why == SCXPOL_SIM_DONE && in_window(h->w, scxpol_sim_now(s)))
		h->units++;
	a->act = SCXPOL_SIM_RUN;
	a->ns = wl_sample(&h->w->env.comp->u.hogs.unit, &h->w->env.rng);
}

static int hogs_start(struct wl *w)
{
	struct hogs *h = calloc(1, sizeof(*h));
	unsigned int i;

	if (!h)
		return -ENOMEM;
	w->state = h;
	h->w = w;
	for (i = 0; i < w->env.comp->u.hogs.count; i++)
		if (!wl_task(w, "h", i, hog, h))
			return -errno;
	return 0;
}

static void hogs_window(struct wl *w)
{
	((struct hogs *)w->state)->units = 0;
}

static void hogs_report(struct wl *w, FILE *f)
{
	struct hogs *h = w->state;

	fprintf(f, "\"units\":%llu,\"units_per_s\":%.3f", (unsigned long long)h->units,
		(double)h->units / ((double)(w->env.t_end - w->env.t0) / 1e9));
}

static void hogs_metrics(struct wl *w, struct wl_metrics *m)
{
	m->units_per_s = (double)((struct hogs *)w->state)->units /
			 ((double)(w->env.t_end - w->env.t0) / 1e9);
}

static void hogs_free(struct wl *w)
{
	free(w->state);
}

const struct wl_kind wl_hogs = { hogs_start, hogs_window, hogs_report, hogs_metrics, NULL, hogs_free };

/* --- schbench ------------------------------------------------------------------------ */
struct sb;

struct sb_worker {
	struct sb_msg *m;
	struct scxpol_sim_task *t;
};

struct sb_msg {
	struct sb *sb;
	struct scxpol_sim_task *t;
	struct sb_worker *workers;
	unsigned int pending;
	uint64_t posted;
	bool thinking;
};

struct sb {
	struct wl *w;
	struct sb_msg *msgs;
	uint64_t requests;
	struct lat_hist req, wake;
};

static void sb_message(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		       enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct sb_msg *m = ctx;
	const struct comp_schbench *o = &m->sb->w->env.comp->u.sb;
	unsigned int i;

	if (why != SCXPOL_SIM_DONE) {
		a->act = SCXPOL_SIM_RUN;
		a->ns = 1000;
		return;
	}
	if (m->thinking || !o->think.a) {
		/* post to every worker, then wait for all of them */
		m->thinking = false;
		m->posted = scxpol_sim_now(s);
		m->pending = o->workers;
		for (i = 0; i < o->workers; i++)
			scxpol_sim_wake(s, m->workers[i].t, t, false);
		a->act = SCXPOL_SIM_BLOCK;
		return;
	}
	m->thinking = true;
	a->act = SCXPOL_SIM_SLEEP;
	a->ns = wl_sample(&o->think, &m->sb->w->env.rng);
}

static void sb_worker(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		      enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct sb_worker *wk = ctx;
	struct sb_msg *m = wk->m;
	struct sb *sb = m->sb;
	uint64_t now = scxpol_sim_now(s);

	if (worker_waits_and_works(why, a, &sb->w->env.comp->u.sb.work, &sb->w->env.rng))
		return;
	if (in_window(sb->w, m->posted) && now <= sb->w->env.t_end) {
		sb->requests++;
		lat_hist_add(&sb->wake, scxpol_sim_task_burst_start(t) - m->posted);
		lat_hist_add(&sb->req, now - m->posted);
	}
	if (!--m->pending)
		scxpol_sim_wake(s, m->t, t, false);
	a->act = SCXPOL_SIM_BLOCK;
}

static int sb_start(struct wl *w)
{
	const struct comp_schbench *o = &w->env.comp->u.sb;
	struct sb *sb = calloc(1, sizeof(*sb));
	unsigned int i, j;

	if (!sb)
		return -ENOMEM;
	w->state = sb;
	sb->w = w;
	sb->msgs = calloc(o->messages, sizeof(*sb->msgs));
	if (!sb->msgs)
		return -ENOMEM;
	for (i = 0; i < o->messages; i++) {
		struct sb_msg *m = &sb->msgs[i];

		m->sb = sb;
		m->workers = calloc(o->workers, sizeof(*m->workers));
		if (!m->workers)
			return -ENOMEM;
		for (j = 0; j < o->workers; j++) {
			m->workers[j].m = m;
			m->workers[j].t = wl_task(w, "w", i * o->workers + j, sb_worker,
						  &m->workers[j]);
			if (!m->workers[j].t)
				return -errno;
		}
		m->t = wl_task(w, "m", i, sb_message, m);
		if (!m->t)
			return -errno;
	}
	return 0;
}

static void sb_window(struct wl *w)
{
	struct sb *sb = w->state;

	sb->requests = 0;
	memset(&sb->req, 0, sizeof(sb->req));
	memset(&sb->wake, 0, sizeof(sb->wake));
}

static void sb_report(struct wl *w, FILE *f)
{
	struct sb *sb = w->state;

	requests_report(w, f, sb->requests, &sb->req, &sb->wake);
}

static void sb_metrics(struct wl *w, struct wl_metrics *m)
{
	struct sb *sb = w->state;

	requests_metrics(w, m, sb->requests, &sb->req, &sb->wake);
	m->unserved = 0;
}

static void sb_free(struct wl *w)
{
	struct sb *sb = w->state;
	unsigned int i;

	if (!sb)
		return;
	for (i = 0; sb->msgs && i < w->env.comp->u.sb.messages; i++)
		free(sb->msgs[i].workers);
	free(sb->msgs);
	free(sb);
}

const struct wl_kind wl_schbench = { sb_start, sb_window, sb_report, sb_metrics, NULL, sb_free };
