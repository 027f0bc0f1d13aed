// SPDX-License-Identifier: GPL-2.0
/*
 * faas: loader of the serverless scheduler (faas.bpf.c). Plans exclusive
 * scheduling domains over the online CPUs, publishes them, sizes the
 * cgroup -> domain hint maps a control plane writes (faas-replay --sink
 * pinned), serves stats, and runs until SIGINT/SIGTERM. After a CPU
 * hotplug the kernel asks for a restart: the library reopens the policy,
 * and the configure hook plans the domains again over the new topology.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	unsigned int nr_configure;
	bool replan_failed;	/* plan_domains() printed why */
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

	/* main() planned the first load; a restart follows a CPU hotplug */
	if (o->nr_configure++) {
		r = plan_domains(o);
		if (r) {
			o->replan_failed = true;
			return r;
		}
	}
	f->rodata->slice_ns = o->slice_us * 1000;
	f->rodata->reset_every = o->reset_every;
	f->rodata->busy_poll_after = o->busy_poll ? FAAS_BUSY_POLL_AFTER : 0;
	lim.nr_pools = scxpol_pool_plan_nr_pools(o->plan);
	r = scxpol_pool_setup(s, lim.nr_pools);
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

static int parse_uint(const char *opt, const char *arg, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (errno || *end || end == arg || *arg == '-' || *out < lo || *out > hi) {
		fprintf(stderr, "faas: %s '%s': want a whole number in %llu..%llu\n", opt, arg, lo,
			hi);
		return -1;
	}
	return 0;
}

/* --pin-group: a group name or number. */
static int parse_group(const char *arg, int *gid)
{
	unsigned long long v;
	struct group *g;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!errno && !*end && end != arg && *arg != '-' && v < (1ULL << 31)) {
		*gid = (int)v;
		return 0;
	}
	g = getgrnam(arg);
	if (!g) {
		fprintf(stderr, "faas: --pin-group '%s': no such group\n", arg);
		return -1;
	}
	*gid = (int)g->gr_gid;
	return 0;
}

static void usage(FILE *f)
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
		"  --slice-us N         time slice in microseconds (default 5000)\n"
		"  --pin-group G        group (name or number) that may write the hint maps\n"
		"                       and read the stats socket (mode 0660)\n"
		"  --stats-socket PATH  stats socket (default /run/scxpol/faas.sock)\n"
		"  --load-only          load through the verifier, then exit\n"
		"  --verifier-stats     print each program's verified instructions\n"
		"  -v                   verbose (library and libbpf messages)\n"
		"The control plane assigns a cgroup to domain D by setting its pool hint to D\n"
		"(faas-replay --sink pinned); tasks of other cgroups use the shared queue.\n",
		FAAS_BUSY_POLL_AFTER);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "domains", required_argument, NULL, 'd' },
		{ "steal", no_argument, NULL, 'S' },
		{ "busy-poll", no_argument, NULL, 'b' },
		{ "reset-every", required_argument, NULL, 'r' },
		{ "slice-us", required_argument, NULL, 's' },
		{ "pin-group", required_argument, NULL, 'g' },
		{ "stats-socket", required_argument, NULL, 'k' },
		{ "load-only", no_argument, NULL, 'L' },
		{ "verifier-stats", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o = { .slice_us = 5000, .reset_every = 8 };
	bool load_only = false, vstats = false;
	struct scxpol_stats_server *srv = NULL;
	const char *sock = NULL;
	struct scxpol_sched *s = NULL;
	unsigned long long v;
	int c, r, gid = -1;

	/* attach, exit and restarts are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_uint("--domains", optarg, 1, FAAS_MAX_DOMAINS, &v))
				return 2;
			o.nr_domains = (unsigned int)v;
			break;
		case 'S':
			o.flags |= SCXPOL_POOL_STEAL;
			break;
		case 'b':
			o.busy_poll = true;
			break;
		case 'r':
			if (parse_uint("--reset-every", optarg, 0, 1000000, &v))
				return 2;
			o.reset_every = (unsigned int)v;
			break;
		case 's':
			if (parse_uint("--slice-us", optarg, 1, 1000000, &o.slice_us))
				return 2;
			break;
		case 'g':
			if (parse_group(optarg, &gid))
				return 2;
			break;
		case 'k':
			sock = optarg;
			break;
		case 'L':
			load_only = true;
			break;
		case 'V':
			vstats = true;
			break;
		case 'v':
			scxpol_log_set(NULL, SCXPOL_LOG_DEBUG, NULL);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "faas: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (plan_domains(&o))
		return 2;

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(faas_bpf),
		    .configure = configure, .loaded = loaded, .ctx = &o,
		    .pin_mode = gid >= 0 ? 0660 : 0, .pin_gid = gid);
	s = scxpol_sched_open(&sopts);
	r = s ? scxpol_sched_load(s) : -errno;
	if (!r && vstats)
		r = scxpol_sched_print_prog_stats(s, stdout);
	if (!r && !load_only) {
		SCXPOL_OPTS(scxpol_stats_server_opts, so, .path = sock,
			    .mode = gid >= 0 ? 0660 : 0, .gid = gid);

		srv = scxpol_stats_server_start(s, &so);
		r = srv ? scxpol_sched_attach(s) : -errno;
		if (!r) {
			printf("faas: attached; stealing %s, busy-poll %s, vtime reset every %u "
			       "enqueues, slice %llu us; stats on %s\n",
			       o.flags & SCXPOL_POOL_STEAL ? "on" : "off", o.busy_poll ? "on" : "off",
			       o.reset_every, o.slice_us, scxpol_stats_server_path(srv));
			fflush(stdout);
			r = scxpol_sched_run(s, NULL);
			printf("faas: restarts %u\n", scxpol_sched_restarts(s));
			scxpol_sched_print_exit(s, stdout);
		}
		scxpol_stats_server_stop(srv);
	}
	/* a failed re-plan has printed its message (naming the option) already */
	if (r && !o.replan_failed)
		fprintf(stderr, "faas: %s\n", scxpol_last_error());
	scxpol_sched_close(s);
	scxpol_pool_plan_free(o.plan);
	scxpol_topo_free(o.topo);
	return r ? 1 : 0;
}
