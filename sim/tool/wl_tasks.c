// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks whose CPU bursts and sleeps come from distributions (tasks), or
 * from a file (trace): a CSV with the header "task,run_us,sleep_us" and
 * one row per burst; each task runs its rows in order (run, then sleep;
 * a sleep of 0 runs the next burst at once) and exits after its last.
 * Rows of different tasks may interleave. Bad input names the file, the
 * line and the field.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

/* --- tasks ---------------------------------------------------------------------- */
struct tasks {
	struct wl *w;
	uint64_t bursts;
};

static void task(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		 enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct tasks *ts = ctx;
	const struct comp_tasks *o = &ts->w->env.comp->u.tasks;
	uint64_t sleep;

	(void)t;
	if (why != SCXPOL_SIM_DONE) {
		a->act = SCXPOL_SIM_RUN;
		a->ns = wl_sample(&o->run, &ts->w->env.rng);
		return;
	}
	if (scxpol_sim_now(s) >= ts->w->env.t0 && scxpol_sim_now(s) <= ts->w->env.t_end)
		ts->bursts++;
	sleep = wl_sample(&o->sleep, &ts->w->env.rng);
	a->act = sleep ? SCXPOL_SIM_SLEEP : SCXPOL_SIM_RUN;
	a->ns = sleep ? sleep : wl_sample(&o->run, &ts->w->env.rng);
}

static int tasks_start(struct wl *w)
{
	struct tasks *ts = calloc(1, sizeof(*ts));
	unsigned int i;

	if (!ts)
		return -ENOMEM;
	w->state = ts;
	ts->w = w;
	for (i = 0; i < w->env.comp->u.tasks.count; i++)
		if (!wl_task(w, "t", i, task, ts))
			return -errno;
	return 0;
}

static void tasks_window(struct wl *w)
{
	((struct tasks *)w->state)->bursts = 0;
}

static void tasks_report(struct wl *w, FILE *f)
{
	fprintf(f, "\"bursts\":%llu", (unsigned long long)((struct tasks *)w->state)->bursts);
}

static void no_metrics(struct wl *w, struct wl_metrics *m)
{
	(void)w;
	(void)m;
}

static void tasks_free(struct wl *w)
{
	free(w->state);
}

const struct wl_kind wl_tasks = { tasks_start, tasks_window, tasks_report, no_metrics, NULL,
				   tasks_free };

/* --- trace ------------------------------------------------------------------------- */
struct burst {
	uint64_t run, sleep;
};

struct ttask {
	char name[64];
	struct burst *b;
	unsigned int n, cap, next;
};

struct trace {
	struct wl *w;
	struct ttask *t;
	unsigned int n;
	uint64_t bursts;
};

static void replay(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		   enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct ttask *tt = ctx;
	const struct burst *b;

	(void)s;
	(void)t;
	if (why == SCXPOL_SIM_DONE) {
		b = &tt->b[tt->next++];
		if (tt->next == tt->n) {
			a->act = SCXPOL_SIM_EXIT;
			return;
		}
		if (b->sleep) {
			a->act = SCXPOL_SIM_SLEEP;
			a->ns = b->sleep;
			return;
		}
	}
	a->act = SCXPOL_SIM_RUN;
	a->ns = tt->b[tt->next].run;
}

/* A microsecond value of field @f at @line, into ns. */
static int field_us(struct wl *w, const char *file, unsigned int line, const char *f,
		    const char *text, uint64_t *ns)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || *end || !(v >= 0 && v <= 1e12)) {
		snprintf(w->env.err, sizeof(w->env.err), "%s:%u: %s: \"%.32s\": want microseconds "
			 ">= 0", file, line, f, text);
		return -EINVAL;
	}
	*ns = (uint64_t)llround(v * 1000);
	return 0;
}

static struct ttask *find_task(struct trace *tr, const char *name)
{
	struct ttask *t;
	unsigned int i;

	for (i = 0; i < tr->n; i++)
		if (!strcmp(tr->t[i].name, name))
			return &tr->t[i];
	t = realloc(tr->t, (tr->n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	tr->t = t;
	t = &tr->t[tr->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

static int read_trace(struct wl *w, struct trace *tr, const char *file)
{
	char buf[512], *f[4], *p;
	unsigned int line = 0, k;
	struct ttask *t;
	struct burst b;
	FILE *in = fopen(file, "r");
	int r = 0;

	if (!in) {
		snprintf(w->env.err, sizeof(w->env.err), "%s: %s", file, strerror(errno));
		return -errno;
	}
	while (!r && fgets(buf, sizeof(buf), in)) {
		line++;
		buf[strcspn(buf, "\r\n")] = '\0';
		if (line == 1) {
			if (strcmp(buf, "task,run_us,sleep_us"))
				r = -EINVAL;
			if (r)
				snprintf(w->env.err, sizeof(w->env.err), "%s:1: header: want "
					 "\"task,run_us,sleep_us\", got \"%.64s\"", file, buf);
			continue;
		}
		for (k = 0, p = buf; k < 4 && p; k++) {
			f[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (k != 3 || p) {
			snprintf(w->env.err, sizeof(w->env.err), "%s:%u: want 3 fields "
				 "(task,run_us,sleep_us), got %u", file, line, p ? 4 : k);
			r = -EINVAL;
			break;
		}
		if (!*f[0] || strlen(f[0]) >= sizeof(t->name)) {
			snprintf(w->env.err, sizeof(w->env.err), "%s:%u: task: want a name of 1..%zu "
				 "characters", file, line, sizeof(t->name) - 1);
			r = -EINVAL;
			break;
		}
		r = field_us(w, file, line, "run_us", f[1], &b.run);
		if (!r)
			r = field_us(w, file, line, "sleep_us", f[2], &b.sleep);
		if (!r && !b.run) {
			snprintf(w->env.err, sizeof(w->env.err), "%s:%u: run_us: want more than 0",
				 file, line);
			r = -EINVAL;
		}
		if (r)
			break;
		t = find_task(tr, f[0]);
		if (!t || (t->n == t->cap &&
			   !(t->b = realloc(t->b, (t->cap = t->cap ? 2 * t->cap : 16) * sizeof(b))))) {
			r = -ENOMEM;
			break;
		}
		t->b[t->n++] = b;
	}
	if (!r && ferror(in)) {
		snprintf(w->env.err, sizeof(w->env.err), "%s: read error", file);
		r = -EIO;
	}
	if (!r && !tr->n) {
		snprintf(w->env.err, sizeof(w->env.err), "%s: no rows after the header", file);
		r = -EINVAL;
	}
	fclose(in);
	return r;
}

static int trace_start(struct wl *w)
{
	struct trace *tr = calloc(1, sizeof(*tr));
	unsigned int i;
	int r;

	if (!tr)
		return -ENOMEM;
	w->state = tr;
	tr->w = w;
	r = read_trace(w, tr, w->env.comp->u.trace.file);
	for (i = 0; !r && i < tr->n; i++)
		if (!wl_task(w, "t", i, replay, &tr->t[i]))
			r = -errno;
	return r;
}

static void trace_window(struct wl *w)
{
	(void)w;
}

static void trace_report(struct wl *w, FILE *f)
{
	struct trace *tr = w->state;
	unsigned int i, done = 0;

	for (i = 0; i < tr->n; i++)
		done += tr->t[i].next == tr->t[i].n;
	fprintf(f, "\"tasks\":%u,\"tasks_done\":%u", tr->n, done);
}

static bool trace_done(struct wl *w)
{
	struct trace *tr = w->state;
	unsigned int i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i].next < tr->t[i].n)
			return false;
	return true;
}

static void trace_free(struct wl *w)
{
	struct trace *tr = w->state;
	unsigned int i;

	if (!tr)
		return;
	for (i = 0; i < tr->n; i++)
		free(tr->t[i].b);
	free(tr->t);
	free(tr);
}

const struct wl_kind wl_trace = { trace_start, trace_window, trace_report, no_metrics, trace_done,
				   trace_free };
