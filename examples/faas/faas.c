// SPDX-License-Identifier: GPL-2.0
/*
 * faas: loader of the serverless scheduler (faas.bpf.c). Plans exclusive
 * scheduling domains over the online CPUs, publishes them, sizes the
 * cgroup -> domain hint maps a control plane writes (faas-replay --sink
 * pinned), serves stats, and runs until SIGINT/SIGTERM. The plan hook
 * plans the domains at every open: after a CPU hotplug the library
 * restarts the policy, and the domains follow the new topology.
 */
#include <stdio.h>

#include <scxpol/cli.h>
#include <scxpol/hint.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>

#include "faas.bpf.skel.h"
#include "faas_conf.h"

SCXPOL_SKEL_DEFINE(faas_bpf);

struct opts {
	struct faas_conf conf;
};

/*
 * The plan hook: the domains over @topo. On failure the message, naming
 * the option, is printed here: the library's last error alone would not
 * say which input was wrong.
 */
static struct scxpol_pool_plan *plan(struct scxpol_sched *s, const struct scxpol_topo *topo,
				     void *ctx)
{
	struct scxpol_pool_plan *p = NULL;
	struct opts *o = ctx;
	char err[512];
	int r;

	(void)s;
	r = faas_conf_plan(&o->conf, topo, &p, err, sizeof(err));
	if (r) {
		fprintf(stderr, "faas: %s\n", err);
		errno = -r;
	}
	return p;
}

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct faas_bpf *f = skel;
	struct opts *o = ctx;
	SCXPOL_OPTS(scxpol_hint_limits, lim,
		    .nr_pools = scxpol_pool_plan_nr_pools(scxpol_pool_plan_current(s)));
	int r;

	f->rodata->slice_ns = o->conf.slice_us * 1000;
	f->rodata->reset_every = o->conf.reset_every;
	f->rodata->busy_poll_after = o->conf.busy_poll ? FAAS_BUSY_POLL_AFTER : 0;
	f->rodata->vtime_now = o->conf.vtime_now;
	f->rodata->dispatch_paper = o->conf.dispatch_paper;
	if (o->conf.partial)
		f->struct_ops.faas_ops->flags |= FAAS_SCX_OPS_SWITCH_PARTIAL;
	/* the paper's domains partition the CPUs: one in none never runs an invocation */
	r = scxpol_pool_require(s, SCXPOL_POOL_REQ_COVER);
	return r ? r : scxpol_hint_setup(s, &lim);
}

static int loaded(struct scxpol_sched *s, void *skel, void *ctx)
{
	const struct scxpol_pool_plan *p = scxpol_pool_plan_current(s);
	char text[1024];

	(void)skel;
	(void)ctx;
	if (scxpol_pool_plan_format(p, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "%u (too many CPU ranges to print)",
			 scxpol_pool_plan_nr_pools(p));
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

static int option(const struct scxpol_cli *c, int opt, const char *arg)
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
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct scxpol_sched *s;
	char text[512];
	int r;

	faas_conf_init(&o.conf);
	/* attach, exit and restarts are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	if (faas_conf_finish(&o.conf, text, sizeof(text))) {
		fprintf(stderr, "faas: %s\n", text);
		return 2;
	}
	/* the options against the topology, before anything is loaded */
	r = scxpol_cli_check_plan(&cli, plan, &o);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	faas_conf_format(&o.conf, text, sizeof(text));
	printf("faas: %s\n", text);

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(faas_bpf),
		    .plan = plan, .configure = configure, .loaded = loaded, .ctx = &o,
		    .pin_mode = common.pin_mode, .pin_gid = common.pin_gid);
	s = scxpol_sched_open(&sopts);
	/* a failed re-plan after a hotplug prints its message, naming --domains, first */
	r = scxpol_cli_run(s, &cli, &common, NULL);
	scxpol_sched_close(s);
	return r;
}
