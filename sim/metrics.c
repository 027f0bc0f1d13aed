// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Metrics groups and what the engine measured: per group the run-queue
 * delay, wake delay and burst histograms (tools/lat/hist.h, scxpol-lat's),
 * preemptions, wakeups and CPU time; per machine events, callbacks and
 * idle time. A reset starts the measurement (the end of a warm-up).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

unsigned int scxpol_sim_group(struct scxpol_sim *s, const char *name)
{
	struct engine *e = (struct engine *)s;
	struct group *g;
	u32 i;

	for (i = 0; i < e->nr_groups; i++)
		if (!strncmp(e->groups[i].name, name, sizeof(e->groups[i].name) - 1))
			return i;
	g = realloc(e->groups, (e->nr_groups + 1) * sizeof(*g));
	if (!g)
		sim_die("out of memory for a metrics group");
	e->groups = g;
	memset(&g[e->nr_groups], 0, sizeof(*g));
	snprintf(g[e->nr_groups].name, sizeof(g->name), "%s", name);
	return e->nr_groups++;
}

static void summarize(const struct lat_hist *h, struct scxpol_sim_lat *out)
{
	struct lat_summary s;

	lat_hist_summarize(h, &s);
	out->count = s.count;
	out->mean = s.mean;
	out->p50 = s.p50;
	out->p90 = s.p90;
	out->p99 = s.p99;
	out->p999 = s.p999;
	out->max = s.max;
}

/* CPU time of @group's running tasks since they started running or the counts were reset. */
static u64 running_ns(const struct engine *e, unsigned int group)
{
	u64 ns = 0;
	u32 c;

	for (c = 0; c < e->o.nr_cpus; c++) {
		const struct task_struct *p = sim_k.cpus[c].curr;
		const struct scxpol_sim_task *t = (const struct scxpol_sim_task *)p;

		if (p && t->group == group)
			ns += sim_k.now - (t->switched_in > e->stats_since ? t->switched_in :
									 e->stats_since);
	}
	return ns;
}

unsigned int scxpol_sim_nr_groups(const struct scxpol_sim *s)
{
	return ((const struct engine *)s)->nr_groups;
}

int scxpol_sim_group_stats(const struct scxpol_sim *s, unsigned int group,
			   struct scxpol_sim_group_stats *out)
{
	const struct engine *e = (const struct engine *)s;
	const struct group *g;

	if (group >= e->nr_groups)
		return engine_fail(ENOENT, "no metrics group %u", group);
	g = &e->groups[group];
	out->name = g->name;
	out->tasks = g->tasks;
	summarize(&g->rq, &out->rqdelay);
	summarize(&g->wake, &out->wake);
	summarize(&g->wake_idle, &out->wake_idle);
	summarize(&g->burst, &out->burst);
	out->preempt = g->preempt;
	out->wakeups = g->wakeups;
	out->wakeups_idle = g->wakeups_idle;
	out->wakeups_remote = g->wakeups_remote;
	out->cpu_ns = g->cpu_ns + running_ns(e, group);
	return 0;
}

void scxpol_sim_stats(const struct scxpol_sim *s, struct scxpol_sim_stats *out)
{
	const struct engine *e = (const struct engine *)s;
	u64 idle = e->st.idle_ns, span = sim_k.now - e->stats_since;
	u32 c;

	*out = e->st;
	/* CPUs idle now count up to now */
	for (c = 0; c < e->o.nr_cpus; c++)
		if (e->cpus[c].idle_since != (u64)-1)
			idle += sim_k.now - e->cpus[c].idle_since;
	out->idle_ns = idle;
	out->busy_ns = span * e->o.nr_cpus - idle;
}

void scxpol_sim_stats_reset(struct scxpol_sim *s)
{
	struct engine *e = (struct engine *)s;
	u32 i, c;

	for (i = 0; i < e->nr_groups; i++) {
		struct group *g = &e->groups[i];
		unsigned int tasks = g->tasks;
		char name[sizeof(g->name)];

		memcpy(name, g->name, sizeof(name));
		memset(g, 0, sizeof(*g));
		memcpy(g->name, name, sizeof(name));
		g->tasks = tasks;
	}
	c = (u32)e->st.tasks;
	memset(&e->st, 0, sizeof(e->st));
	e->st.tasks = c;
	e->stats_since = sim_k.now;
	for (c = 0; c < e->o.nr_cpus; c++)
		if (e->cpus[c].idle_since != (u64)-1)
			e->cpus[c].idle_since = sim_k.now;
}
