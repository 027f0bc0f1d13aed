// SPDX-License-Identifier: GPL-2.0
/*
 * ads: loader of the ads policy (ads.bpf.c). Splits the online CPUs into
 * the lc and bg pools (the plan hook, at every open), writes the
 * classification rules of the command line, sizes the hint maps (class
 * and importance hints outlive a restart of this process: they are
 * pinned), serves stats, and every interval turns the lc pool's CPU time
 * into its demand, and the part of it that ran on bg CPUs (lc work that
 * found its pool busy) into its overflow, and lets the library's
 * autosizing grow or shrink the pool.
 *
 * The pools and their flags: ads_plan.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scxpol/cli.h>
#include <scxpol/hint.h>
#include <scxpol/match.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#include "ads.h"
#include "ads_plan.h"
#include "ads.bpf.skel.h"

SCXPOL_SKEL_DEFINE(ads_bpf);

#define ADS_MAX_RULES 64
#define ADS_MAX_IMPORTANCE 7

struct rule {
	enum scxpol_match_kind kind;
	const char *pattern;
};

struct opts {
	unsigned int lc_cpus;	/* --lc-cpus; 0: half the online CPUs */
	struct rule rules[ADS_MAX_RULES];
	unsigned int nr_rules;
	double util_lo, util_hi, overflow_hi;
	unsigned int hold;
	unsigned int interval_ms;
	bool no_resize;
	const char *sizing_opt;	/* the first of --util-lo/-hi, --hold, --interval-ms given */
	bool wake_affine, spill;
	unsigned long long lc_slice_us, bg_slice_us, important_slice_us;
	bool checked;	/* the options passed scxpol_cli_check_plan() */
	struct scxpol_pool_autosize *sizer;	/* the current plan's; NULL with --no-resize */
	/* demand measurement */
	unsigned long long last_ns, last_runtime, last_spill;
	bool have_last;
	struct scxpol_stats *st;
};

/*
 * The plan hook: the pools over @topo, keeping the lc pool's size (within
 * what the CPUs allow after a hotplug), and a new sizer for them. On
 * failure the message, naming the option, is printed here.
 */
static struct scxpol_pool_plan *plan(struct scxpol_sched *s, const struct scxpol_topo *topo,
				     void *ctx)
{
	struct scxpol_pool_autosize *sizer = NULL;
	struct scxpol_pool_plan *p = NULL;
	struct opts *o = ctx;
	unsigned int online, n;
	int r;

	(void)s;
	online = scxpol_cpuset_count(scxpol_topo_online(topo));
	if (online < 2) {
		fprintf(stderr, "ads: %u CPU online: the lc and bg pools need one each\n", online);
		errno = EINVAL;
		return NULL;
	}
	n = o->sizer ? scxpol_pool_autosize_nr_cpus(o->sizer) : o->lc_cpus;
	if (!n)
		n = online / 2;
	if (n >= online) {
		if (!o->checked) {
			fprintf(stderr, "ads: --lc-cpus %u: want 1..%u (%u CPUs online; bg keeps one)\n",
				n, online - 1, online);
			errno = EINVAL;
			return NULL;
		}
		n = online - 1;
	}
	r = ads_plan_split(topo, n, &p);
	if (!r && !o->no_resize) {
		SCXPOL_OPTS(scxpol_pool_autosize_opts, ao, .util_lo = o->util_lo,
			    .util_hi = o->util_hi, .hold = o->hold, .overflow_hi = o->overflow_hi);

		sizer = scxpol_pool_autosize_new(p, ADS_POOL_LC, ADS_POOL_BG, &ao);
		r = sizer ? 0 : -errno;
	}
	if (r) {
		fprintf(stderr, "ads: %s\n", scxpol_last_error());
		scxpol_pool_plan_free(p);
		errno = -r;
		return NULL;
	}
	scxpol_pool_autosize_free(o->sizer);
	o->sizer = sizer;
	return p;
}

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct ads_bpf *a = skel;
	struct opts *o = ctx;
	SCXPOL_OPTS(scxpol_hint_limits, lim, .nr_pools = ADS_NR_POOLS,
		    .nr_classes = ADS_NR_CLASSES, .max_importance = ADS_MAX_IMPORTANCE);

	a->rodata->lc_slice_ns = o->lc_slice_us * 1000;
	a->rodata->bg_slice_ns = o->bg_slice_us * 1000;
	a->rodata->important_slice_ns = o->important_slice_us * 1000;
	a->rodata->wake_affine = o->wake_affine;
	a->rodata->spill = o->spill;
	return scxpol_hint_setup(s, &lim);
}

static int loaded(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct opts *o = ctx;
	unsigned int i;
	char text[1024];
	int r;

	(void)skel;
	for (i = 0, r = 0; !r && i < o->nr_rules; i++)
		r = scxpol_match_add(s, o->rules[i].kind, o->rules[i].pattern, ADS_LC);
	if (r)
		return r;
	/* the counters start again with the new object */
	o->have_last = false;
	scxpol_pool_plan_format(scxpol_pool_plan_current(s), text, sizeof(text));
	printf("ads: pools %s\n", text);
	fflush(stdout);
	return 0;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/*
 * The lc pool's demand over the last interval, and its overflow (the part
 * run on other CPUs), in CPUs; demand -1 on the first call.
 */
static int lc_demand(struct scxpol_sched *s, struct opts *o, double *demand, double *overflow)
{
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = ads_stat_descs, .nr_user = ADS_NR_STATS);
	const struct scxpol_stat_value *v, *sp;
	unsigned long long t = now_ns(), run, spill;
	int r;

	r = scxpol_stats_read(s, &so, o->st);
	if (r)
		return r;
	v = scxpol_stats_find(o->st, ads_stat_descs[ADS_STAT_LC_RUNTIME_NS].name);
	sp = scxpol_stats_find(o->st, ads_stat_descs[ADS_STAT_LC_SPILL_NS].name);
	if (!v || !sp)
		return -ENOENT;
	run = v->value;
	spill = sp->value;
	*demand = -1;
	/* the spill is counted with the run time, after it: at most the same */
	if (o->have_last && run >= o->last_runtime && spill >= o->last_spill && t > o->last_ns) {
		*demand = (double)(run - o->last_runtime) / (double)(t - o->last_ns);
		*overflow = (double)(spill - o->last_spill) / (double)(t - o->last_ns);
		if (*overflow > *demand)
			*overflow = *demand;
	}
	o->last_ns = t;
	o->last_runtime = run;
	o->last_spill = spill;
	o->have_last = true;
	return 0;
}

static int periodic(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct opts *o = ctx;
	unsigned int before;
	double demand, overflow = 0;
	char text[1024];
	int r;

	(void)skel;
	if (!o->sizer)
		return 0;
	r = lc_demand(s, o, &demand, &overflow);
	if (r || demand < 0)
		return r;
	before = scxpol_pool_autosize_nr_cpus(o->sizer);
	r = scxpol_pool_autosize_update_overflow(o->sizer, demand, overflow);
	if (r <= 0)
		return r;
	r = scxpol_pool_publish(s, scxpol_pool_autosize_plan(o->sizer));
	if (r)
		return r;
	scxpol_pool_plan_format(scxpol_pool_autosize_plan(o->sizer), text, sizeof(text));
	printf("ads: resized lc %u -> %u CPUs (lc demand %.2f CPUs, overflow %.2f): %s\n", before,
	       scxpol_pool_autosize_nr_cpus(o->sizer), demand, overflow, text);
	fflush(stdout);
	return 0;
}

static int add_rule(struct opts *o, const char *opt, enum scxpol_match_kind kind, const char *arg)
{
	if (o->nr_rules == ADS_MAX_RULES) {
		fprintf(stderr, "ads: %s '%s': more than %d rules\n", opt, arg, ADS_MAX_RULES);
		return -1;
	}
	if (scxpol_match_check(kind, arg)) {
		fprintf(stderr, "ads: %s '%s': %s\n", opt, arg, scxpol_last_error());
		return -1;
	}
	o->rules[o->nr_rules++] = (struct rule){ .kind = kind, .pattern = arg };
	return 0;
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f,
		"usage: ads [--lc-cpus N] [--lc-comm PATTERN]... [--lc-cgroup PATH]...\n"
		"           [--util-lo X --util-hi Y] [--overflow-hi X] [--hold N]\n"
		"           [--interval-ms N] [--no-resize] [--wake-affine] [--spill]\n"
		"           [--lc-slice-us N] [--bg-slice-us N]\n"
		"           [--important-slice-us N] [--pin-group G] [--stats-socket PATH] [-v]\n"
		"           [--verifier-stats] [--load-only] [--max-restarts N]\n"
		"Latency-critical (lc) and background (bg) CPU pools; lc work runs first.\n"
		"  --lc-cpus N          CPUs of the lc pool at start (default: half)\n"
		"  --lc-comm PATTERN    threads named PATTERN are lc: a name, or a prefix\n"
		"                       ending in '*' (\"lc-*\"); repeatable\n"
		"  --lc-cgroup PATH     tasks in cgroup2 directory PATH or below it are lc;\n"
		"                       repeatable; PATH removed and created again (a\n"
		"                       restarted service) is followed within a second.\n"
		"                       A class hint beats a cgroup rule, which\n"
		"                       beats a comm rule; everything else is bg.\n"
		"  --util-lo X, --util-hi Y\n"
		"                       keep the lc pool's utilisation (its CPU time / its\n"
		"                       CPUs) in [X, Y] (default 0.5, 0.8)\n"
		"  --overflow-hi X      grow the lc pool (by a CPU at least) when more than\n"
		"                       X of its CPU time ran on bg CPUs, its own being\n"
		"                       busy (default 0.2; 0: utilisation only)\n"
		"  --hold N             resize after N intervals asking for it (default 3)\n"
		"  --interval-ms N      sizing interval (default 250)\n"
		"  --no-resize          keep the pools as --lc-cpus made them\n"
		"  --wake-affine        an lc task woken by an lc task on an lc CPU waits on\n"
		"                       that CPU, behind its waker\n"
		"  --spill              lc work that finds every CPU busy preempts non-lc work\n"
		"                       on another CPU, and bg CPUs serve lc work first\n"
		"                       (default: it leaves the lc pool only for an idle CPU)\n"
		"  --lc-slice-us N      slice of lc tasks (default 2000)\n"
		"  --bg-slice-us N      slice of bg tasks (default 20000)\n"
		"  --important-slice-us N\n"
		"                       slice of a thread flagged important (default 10000)\n");
	scxpol_cli_usage(c, f);
	fprintf(f, "Class hints: 1 = lc, 0 = bg; importance 1..%d = important.\n",
		ADS_MAX_IMPORTANCE);
}

/* --lc-cpus, --hold, --interval-ms: a whole number in @lo..@hi into *@out */
static int parse_count(const char *opt, const char *arg, unsigned long long lo,
		       unsigned long long hi, unsigned int *out)
{
	unsigned long long v;

	if (scxpol_cli_parse_uint(opt, arg, lo, hi, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;
	const char *name;

	switch (opt) {
	case 'c':
		if (parse_count("--lc-cpus", arg, 1, 1U << 20, &o->lc_cpus))
			return scxpol_cli_usage_error(c);
		break;
	case 'm':
		if (add_rule(o, "--lc-comm", SCXPOL_MATCH_COMM, arg))
			return 2;
		break;
	case 'g':
		if (add_rule(o, "--lc-cgroup", SCXPOL_MATCH_CGROUP, arg))
			return 2;
		break;
	case 'o':
		o->sizing_opt = o->sizing_opt ? o->sizing_opt : "--overflow-hi";
		if (scxpol_cli_parse_double("--overflow-hi", arg, -1, 1, &o->overflow_hi) ||
		    o->overflow_hi < 0) {
			fprintf(stderr, "ads: --overflow-hi '%s': want a share in [0, 1]\n", arg);
			return 2;
		}
		break;
	case 'P':
		o->spill = true;
		break;
	case 'l':
	case 'u':
		name = opt == 'l' ? "--util-lo" : "--util-hi";
		o->sizing_opt = o->sizing_opt ? o->sizing_opt : name;
		if (scxpol_cli_parse_double(name, arg, 0, 1, opt == 'l' ? &o->util_lo : &o->util_hi)) {
			fprintf(stderr, "ads: %s '%s': want a utilisation in (0, 1]\n", name, arg);
			return 2;
		}
		break;
	case 'H':
		if (parse_count("--hold", arg, 1, 1000, &o->hold))
			return scxpol_cli_usage_error(c);
		o->sizing_opt = o->sizing_opt ? o->sizing_opt : "--hold";
		break;
	case 'i':
		if (parse_count("--interval-ms", arg, 10, 3600000, &o->interval_ms))
			return scxpol_cli_usage_error(c);
		o->sizing_opt = o->sizing_opt ? o->sizing_opt : "--interval-ms";
		break;
	case 'N':
		o->no_resize = true;
		break;
	case 'W':
		o->wake_affine = true;
		break;
	case 's':
		if (scxpol_cli_parse_uint("--lc-slice-us", arg, 50, 1000000, &o->lc_slice_us))
			return scxpol_cli_usage_error(c);
		break;
	case 'b':
		if (scxpol_cli_parse_uint("--bg-slice-us", arg, 50, 1000000, &o->bg_slice_us))
			return scxpol_cli_usage_error(c);
		break;
	case 'I':
		if (scxpol_cli_parse_uint("--important-slice-us", arg, 50, 1000000,
					  &o->important_slice_us))
			return scxpol_cli_usage_error(c);
		break;
	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	struct opts o = { .util_lo = 0.5, .util_hi = 0.8, .overflow_hi = 0.2, .hold = 3,
			  .interval_ms = 250,
			  .lc_slice_us = 2000, .bg_slice_us = 20000, .important_slice_us = 10000 };
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = ads_stat_descs, .nr_user = ADS_NR_STATS);
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "ads", .usage = usage, .stats = &so,
		    .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET |
			 SCXPOL_CLI_HINTS,
		    .options = ads_options, .option = option, .ctx = &o);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct scxpol_sched *s;
	int r;

	/* bad input: the messages below quote the library's, no need to see it twice */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	if (o.no_resize && o.sizing_opt) {
		fprintf(stderr, "ads: %s sizes the pools, which --no-resize keeps fixed\n",
			o.sizing_opt);
		return 2;
	}
	if (o.util_lo >= o.util_hi) {
		fprintf(stderr, "ads: --util-lo %g --util-hi %g: want util-lo < util-hi\n", o.util_lo,
			o.util_hi);
		return 2;
	}
	/* the options against the topology, before anything is loaded */
	r = scxpol_cli_check_plan(&cli, plan, &o);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	/* the first open plans again, from --lc-cpus, and no longer refuses it */
	scxpol_pool_autosize_free(o.sizer);
	o.sizer = NULL;
	o.checked = true;
	/* attach, exit and restarts are worth an operator's eye */
	scxpol_log_set(NULL, common.verbose ? SCXPOL_LOG_DEBUG : SCXPOL_LOG_INFO, NULL);
	o.st = scxpol_stats_new();
	if (!o.st) {
		fprintf(stderr, "ads: out of memory\n");
		return 1;
	}
	if (o.sizer)
		printf("ads: lc utilisation %g..%g, overflow %g, hold %u x %u ms; ", o.util_lo,
		       o.util_hi, o.overflow_hi, o.hold, o.interval_ms);
	else
		printf("ads: fixed pools; ");
	printf("slices lc %llu us, bg %llu us, important %llu us\n", o.lc_slice_us, o.bg_slice_us,
	       o.important_slice_us);
	fflush(stdout);

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(ads_bpf),
		    .plan = plan, .configure = configure, .loaded = loaded, .ctx = &o,
		    .pin_mode = common.pin_mode, .pin_gid = common.pin_gid);
	SCXPOL_OPTS(scxpol_run_opts, ro, .interval_ms = o.interval_ms, .periodic = periodic,
		    .ctx = &o);
	s = scxpol_sched_open(&sopts);
	/* a failed re-plan after a hotplug has printed its message before this one */
	r = scxpol_cli_run(s, &cli, &common, &ro);
	scxpol_sched_close(s);
	scxpol_pool_autosize_free(o.sizer);
	free(o.st);
	return r;
}
