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
#include "faas_conf.h"

SCXPOL_SKEL_DEFINE(faas_bpf);

struct opts {
	struct faas_conf conf;
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
	char err[512];
	int r;

	topo = scxpol_topo_load(NULL);
	if (!topo) {
		r = -errno;
		fprintf(stderr, "faas: topology: %s\n", scxpol_last_error());
		return r;
	}
	r = faas_conf_plan(&o->conf, topo, &plan, err, sizeof(err));
	if (r) {
		fprintf(stderr, "faas: %s\n", err);
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
	f->rodata->slice_ns = o->conf.slice_us * 1000;
	f->rodata->reset_every = o->conf.reset_every;
	f->rodata->busy_poll_after = o->conf.busy_poll ? FAAS_BUSY_POLL_AFTER : 0;
	f->rodata->vtime_now = o->conf.vtime_now;
	f->rodata->dispatch_paper = o->conf.dispatch_paper;
	if (o->conf.partial)
		f->struct_ops.faas_ops->flags |= FAAS_SCX_OPS_SWITCH_PARTIAL;
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
		"  --paper              the paper's design: --switch partial --vtime-reset now\n"
		"                       --slice-us 3000 --dispatch paper --steal (each of\n"
		"                       these given explicitly wins, wherever it stands)\n"
		"  --switch all|partial every task runs under the policy (default), or only\n"
		"                       SCHED_EXT tasks: the control plane's function bodies\n"
		"                       (faas-replay --body-class ext), the rest in the fair class\n"
		"  --vtime-reset clock|now  Algorithm 1's reset every N enqueues: to the\n"
		"                       domain's clock with a lag floor and a lead cap\n"
		"                       (default), or to the current time, line by line\n"
		"  --dispatch project|paper  a CPU's order: a task whose slice ran out keeps\n"
		"                       the CPU while ahead of its queue, every 8th dispatch\n"
		"                       serves the shared queue first (default); or the\n"
		"                       domain, the shared queue, then stealing (Algorithm 2)\n"
		"  --steal, --no-steal  idle domains steal queued work from other domains,\n"
		"                       the neighbours expanding on each side (default: off)\n"
		"  --busy-poll          queue tasks that used %d whole slices in a row\n"
		"                       without sleeping one slice later (behind workers)\n"
		"  --reset-every N      Algorithm 1's N (default 8; 0: never)\n"
		"  --slice-us N         time slice in microseconds (default 5000)\n",
		FAAS_BUSY_POLL_AFTER);
	scxpol_cli_usage(c, f);
	fprintf(f, "The control plane assigns a cgroup to domain D by setting its pool hint to D\n"
		   "(faas-replay --sink pinned); tasks of other cgroups use the shared queue.\n"
		   "FIFO holding of invocations no domain has room for (Algorithm 3) is the\n"
		   "control plane's: faas-replay --overflow hold.\n");
}

static int option(struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;
	char err[256];

	if (faas_conf_option(&o->conf, opt, arg, err, sizeof(err)) < 0) {
		fprintf(stderr, "faas: %s\n", err);
		return 2;
	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "faas", .usage = usage,
		    .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET |
			 SCXPOL_CLI_HINTS,
		    .options = faas_conf_options, .option = option, .ctx = &o);
	struct scxpol_sched *s;
	char text[512];
	int r;

	faas_conf_init(&o.conf);
	/* attach, exit and restarts are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	r = scxpol_cli_parse(&cli, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	if (faas_conf_finish(&o.conf, text, sizeof(text))) {
		fprintf(stderr, "faas: %s\n", text);
		return 2;
	}
	/* the options against the topology, before anything is loaded */
	if (plan_domains(&o))
		return 2;
	faas_conf_format(&o.conf, text, sizeof(text));
	printf("faas: %s\n", text);

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
