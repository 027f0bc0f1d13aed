// SPDX-License-Identifier: GPL-2.0
/*
 * faas: loader of the serverless scheduler (faas.bpf.c). Plans exclusive
 * scheduling domains over the online CPUs, publishes them, sizes the
 * cgroup -> domain hint maps a control plane writes (faas-replay --sink
 * pinned), serves stats, and runs until SIGINT/SIGTERM. The configure hook
 * plans the domains at every open: after a CPU hotplug the library
 * restarts the policy, and the domains follow the new topology.
 */
#include <errno.h>
#include <stdio.h>

#include <scxpol/cli.h>
#include <scxpol/hint.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#include "faas.bpf.skel.h"

SCXPOL_SKEL_DEFINE(faas_bpf);

/* --busy-poll: full-slice stints without sleeping before a task is demoted */
#define FAAS_BUSY_POLL_AFTER 4
#define FAAS_MAX_DOMAINS 1024

struct opts {
	unsigned int nr_domains;	/* --domains; 0: one per LLC */
	unsigned int flags;		/* SCXPOL_POOL_* of every domain */
	unsigned long long slice_us;
	unsigned int reset_every;
	bool busy_poll;
	/* the plan of the current (re)load, over the topology it was made for */
	struct scxpol_topo *topo;
	struct scxpol_pool_plan *plan;
};

/*
 * Plan the domains over the topology as it is now. On failure the message,
 * naming the option, is printed here: the library's last error alone
 * would not say which input was wrong.
 */
static int plan_domains(struct opts *o)
{
	struct scxpol_pool_plan *plan = NULL;
	struct scxpol_topo *topo;
	unsigned int n;
	int r;

	topo = scxpol_topo_load(NULL);
	if (!topo) {
		r = -errno;
		fprintf(stderr, "faas: topology: %s\n", scxpol_last_error());
		return r;
	}
	n = o->nr_domains ? o->nr_domains : scxpol_topo_nr_llcs(topo);
	r = scxpol_pool_plan_domains(topo, n, o->flags, &plan);
	if (r) {
		if (o->nr_domains)
			fprintf(stderr, "faas: --domains %u: %s\n", n, scxpol_last_error());
		else
			fprintf(stderr, "faas: one domain per LLC (%u): %s\n", n, scxpol_last_error());
		scxpol_topo_free(topo);
		return r;
	}
	scxpol_pool_plan_free(o->plan);
	scxpol_topo_free(o->topo);
	o->plan = plan;
	o->topo = topo;
	return 0;
}

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct faas_bpf *f = skel;
	struct opts *o = ctx;
	SCXPOL_OPTS(scxpol_hint_limits, lim);
	int r;

	/*
	 * Plan at every open, the first too: the topology is read after the
	 * library noted the hotplug sequence, so a CPU that came online since
	 * main() checked the options is in a domain (or the attach restarts).
	 */
	r = plan_domains(o);
	if (r)
		return r;
	f->rodata->slice_ns = o->slice_us * 1000;
	f->rodata->reset_every = o->reset_every;
	f->rodata->busy_poll_after = o->busy_poll ? FAAS_BUSY_POLL_AFTER : 0;
	lim.nr_pools = scxpol_pool_plan_nr_pools(o->plan);
	r = scxpol_pool_setup(s, lim.nr_pools);
	/* the paper's domains partition the CPUs: one in none never runs an invocation */
	if (!r)
		r = scxpol_pool_require(s, SCXPOL_POOL_REQ_COVER);
	return r ? r : scxpol_hint_setup(s, &lim);
}

static int loaded(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct opts *o = ctx;
	char text[1024];
	int r;

	(void)skel;
	r = scxpol_pool_publish(s, o->plan);
	if (r)
		return r;
	if (scxpol_pool_plan_format(o->plan, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "%u (too many CPU ranges to print)",
			 scxpol_pool_plan_nr_pools(o->plan));
	printf("faas: domains: %s\n", text);
	fflush(stdout);
	return 0;
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f,
		"usage: faas [options]\n"
		"  --domains N          N exclusive scheduling domains over the online CPUs\n"
		"                       (default: one per LLC)\n"
		"  --steal              idle domains steal queued work from other domains,\n"
		"                       nearest first\n"
		"  --busy-poll          queue tasks that used %d whole slices in a row\n"
		"                       without sleeping one slice later (behind workers)\n"
		"  --reset-every N      Algorithm 1: reset a task's vtime to its domain's clock\n"
		"                       every N enqueues (default 8; 0: never)\n"
		"  --slice-us N         time slice in microseconds (default 5000)\n",
		FAAS_BUSY_POLL_AFTER);
	scxpol_cli_usage(c, f);
	fprintf(f, "The control plane assigns a cgroup to domain D by setting its pool hint to D\n"
		   "(faas-replay --sink pinned); tasks of other cgroups use the shared queue.\n");
}

static int option(struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;
	unsigned long long v;

	switch (opt) {
	case 'd':
		if (scxpol_cli_parse_uint("--domains", arg, 1, FAAS_MAX_DOMAINS, &v))
			return scxpol_cli_usage_error(c);
		o->nr_domains = (unsigned int)v;
		break;
	case 'S':
		o->flags |= SCXPOL_POOL_STEAL;
		break;
	case 'b':
		o->busy_poll = true;
		break;
	case 'r':
		if (scxpol_cli_parse_uint("--reset-every", arg, 0, 1000000, &v))
			return scxpol_cli_usage_error(c);
		o->reset_every = (unsigned int)v;
		break;
	case 's':
		if (scxpol_cli_parse_uint("--slice-us", arg, 1, 1000000, &o->slice_us))
			return scxpol_cli_usage_error(c);
		break;
	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "domains", required_argument, NULL, 'd' },
		{ "steal", no_argument, NULL, 'S' },
		{ "busy-poll", no_argument, NULL, 'b' },
		{ "reset-every", required_argument, NULL, 'r' },
		{ "slice-us", required_argument, NULL, 's' },
		{ 0 },
	};
	struct opts o = { .slice_us = 5000, .reset_every = 8 };
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "faas", .usage = usage,
		    .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET |
			 SCXPOL_CLI_HINTS,
		    .options = longopts, .option = option, .ctx = &o);
	struct scxpol_sched *s;
	char reset[32];
	int r;

	/* attach, exit and restarts are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	r = scxpol_cli_parse(&cli, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	/* the options against the topology, before anything is loaded */
	if (plan_domains(&o))
		return 2;
	snprintf(reset, sizeof(reset), "every %u enqueues", o.reset_every);
	printf("faas: stealing %s, busy-poll %s, vtime reset %s, slice %llu us\n",
	       o.flags & SCXPOL_POOL_STEAL ? "on" : "off", o.busy_poll ? "on" : "off",
	       o.reset_every ? reset : "never", o.slice_us);

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(faas_bpf),
		    .configure = configure, .loaded = loaded, .ctx = &o,
		    .pin_mode = cli.pin_mode, .pin_gid = cli.pin_gid);
	s = scxpol_sched_open(&sopts);
	/* a failed re-plan after a hotplug prints its message, naming --domains, first */
	r = scxpol_cli_run(s, &cli, NULL);
	scxpol_sched_close(s);
	scxpol_pool_plan_free(o.plan);
	scxpol_topo_free(o.topo);
	return r;
}
