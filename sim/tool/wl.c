// SPDX-License-Identifier: GPL-2.0
/* What the workloads share (wl.h): sampling, task creation, JSON. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "wl.h"

uint64_t wl_sample(const struct dist *d, struct scxpol_sim_rng *r)
{
	double u, v, x = d->a;

	switch (d->kind) {
	case DIST_FIXED:
		break;
	case DIST_EXP:
		x = -d->a * log(1 - scxpol_sim_rng_unit(r));
		break;
	case DIST_UNIFORM:
		x = d->a + (d->b - d->a) * scxpol_sim_rng_unit(r);
		break;
	case DIST_LOGNORMAL:
		/* Box-Muller: one normal sample from two uniform ones */
		u = 1 - scxpol_sim_rng_unit(r);
		v = scxpol_sim_rng_unit(r);
		x = d->a * exp(d->b * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
		break;
	}
	return x < 1e18 ? (uint64_t)llround(x) : (uint64_t)1e18;
}

void wl_fail(struct wl *w, const char *fmt, ...)
{
	char msg[SPEC_ERR_LEN];
	va_list ap;

	if (w->env.err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(w->env.err, sizeof(w->env.err), "%.200s:%u: workload %s: %.250s",
		 w->env.spec->path, w->env.comp->c.line, w->env.comp->c.name, msg);
}

struct scxpol_sim_task *wl_task(struct wl *w, const char *role, unsigned int index,
				scxpol_sim_behave_fn behave, void *ctx)
{
	const struct comp *c = w->env.comp;
	struct scxpol_sim_task_opts o = {
		.sz = sizeof(o), .nice = c->c.nice, .cpus = c->c.has_cpus ? c->c.cpus : NULL,
		.cpu = -1, .cgroup = w->env.cgroup, .group = w->env.group, .behave = behave,
		.ctx = ctx,
	};
	struct scxpol_sim_task *t;
	char comm[16];

	/* cut at 15 characters, as the kernel's comm */
	if (snprintf(comm, sizeof(comm), "%s-%s%u", c->c.name, role, index) >= (int)sizeof(comm))
		comm[sizeof(comm) - 1] = '\0';
	o.comm = comm;
	t = scxpol_sim_task_new(w->env.sim, &o);
	if (!t)
		wl_fail(w, "task %s: %s", comm, scxpol_sim_last_error());
	return t;
}

void wl_lat_json(FILE *f, const struct scxpol_sim_lat *l)
{
	fprintf(f, "{\"count\":%llu,\"mean_ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,"
		   "\"p99_ns\":%llu,\"p999_ns\":%llu,\"max_ns\":%llu}",
		(unsigned long long)l->count, (unsigned long long)l->mean,
		(unsigned long long)l->p50, (unsigned long long)l->p90,
		(unsigned long long)l->p99, (unsigned long long)l->p999,
		(unsigned long long)l->max);
}
