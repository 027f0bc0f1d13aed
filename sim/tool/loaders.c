// SPDX-License-Identifier: GPL-2.0
/*
 * The example loaders, for the simulated machine (loaders.h). Each policy
 * keeps its loader's option names and defaults:
 *   minimal  -s SLICE_US
 *   twopool  -b N (bg CPUs, default half); comm rule "bg-*" -> bg
 *   ads      --lc-cpus N --lc-comm PATTERN --lc-cgroup NAME --util-lo X
 *            --util-hi Y --overflow-hi X --hold N --interval-ms N --no-resize
 *            --wake-affine --spill --lc-slice-us N --bg-slice-us N
 *            --important-slice-us N
 *   faas     faas_conf_options[] (faas_conf.h: --domains N, --paper and its
 *            switches, --busy-poll, --reset-every N, --slice-us N)
 *   eevdf    the EEVDF model, no options
 * A module given by path (.so) is run without a loader: no pools, rules
 * or hints are published for it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scxpol/abi/hint.h>
#include <scxpol/abi/match.h>
#include <scxpol/abi/pool.h>
#include <scxpol/abi/stats.h>
#include <scxpol/pool.h>
#include <scxpol/sim/host.h>
#include <scxpol/sim/module.h>
#include <scxpol/topology.h>

#include "../../examples/ads/ads.h"
#include "../../examples/ads/ads_plan.h"
#include "../../examples/faas/faas_conf.h"
#include "internal.h"
#include "loaders.h"

#define MAX_ARGS 32
#define MAX_RULES 16
#define HINT_CGROUPS 65536
#define HINT_SLOTS 1024
#define MATCH_MAX 256
#define MAX_RESIZE_LOG 64
/* ads.c's */
#define ADS_MAX_IMPORTANCE 7

enum kind { EEVDF, MODULE, MINIMAL, TWOPOOL, ADS, FAAS };

struct rule {
	bool cgroup;
	char pattern[64];
};

struct loader {
	enum kind kind;
	char label[256];
	struct scxpol_sim_module *m;
	struct scxpol_sim *sim;
	const struct machine *mach;
	struct scxpol_topo *topo;
	struct scxpol_pool_plan *plan;		/* without a sizer */
	struct scxpol_pool_autosize *sizer;	/* ads */
	struct scxpol_pool_conf conf;
	unsigned int max_pools, require, resizes;
	/* options */
	unsigned long long slice_us, lc_slice_us, bg_slice_us, important_slice_us;
	unsigned int pool_cpus;			/* twopool -b, ads --lc-cpus */
	struct rule rules[MAX_RULES];
	unsigned int nr_rules;
	double util_lo, util_hi, overflow_hi;
	unsigned int hold, interval_ms;
	bool no_resize, wake_affine, spill;
	struct faas_conf faas;
	/* ads's demand and overflow, and its resizes (the first MAX_RESIZE_LOG) */
	unsigned long long last_run, last_spill, last_ns;
	bool have_last;
	struct {
		unsigned long long at_ns;
		unsigned int cpus;
		double demand, overflow;
	} log[MAX_RESIZE_LOG];
	/* faas: what the control plane gets */
	unsigned int *domain_cpus;
	struct wl_policy wp;
	char err[LOADER_ERR_LEN];
};

static int fail(char *err, size_t len, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -e;
}

/* --- maps of the module ------------------------------------------------------------------ */
static void *sym(const struct loader *l, const char *name)
{
	return scxpol_sim_module_sym(l->m, name);
}

/* Update @key of array, hash or trie @name (shapes of the ABI headers); 0 or -errno. */
static long put(struct loader *l, const char *name, u32 type, u32 ksz, u32 vsz, const void *key,
		const void *val)
{
	void *def = sym(l, name);

	if (!def)
		return -ENOENT;
	return scxpol_sim_map_update(def, type, ksz, vsz, scxpol_sim_map_max(def, 1), key, val,
				     BPF_ANY);
}

static void *get(struct loader *l, const char *name, u32 type, u32 ksz, u32 vsz, const void *key)
{
	void *def = sym(l, name);

	return def ? scxpol_sim_map_lookup(def, type, ksz, vsz, scxpol_sim_map_max(def, 1), key) :
		     NULL;
}

static int resize(struct loader *l, const char *name, unsigned long long n)
{
	void *def = sym(l, name);

	if (!def)
		return fail(l->err, sizeof(l->err), ENOENT, "%s: the policy has no map %s",
			    l->label, name);
	scxpol_sim_map_resize(def, (u32)n);
	return 0;
}

static int set_rodata(struct loader *l, const char *name, const void *v, size_t sz)
{
	if (scxpol_sim_module_set(l->m, name, v, sz))
		return fail(l->err, sizeof(l->err), EINVAL, "%s", scxpol_sim_module_error());
	return 0;
}

/* --- pools ---------------------------------------------------------------------------------- */
static const struct scxpol_pool_plan *current_plan(const struct loader *l)
{
	return l->sizer ? scxpol_pool_autosize_plan(l->sizer) : l->plan;
}

/* scxpol_pool_setup() and scxpol_pool_require(), for the configure hook. */
static int pool_setup(struct loader *l)
{
	unsigned long long n;
	const char *name;
	unsigned int i;
	int r;

	scxpol_pool_conf_init(&l->conf, l->mach->cpus, l->max_pools);
	l->conf.require = l->require;
	for (i = 0; scxpol_pool_sized_map(i, &l->conf, &name, &n); i++) {
		r = resize(l, name, n);
		if (r)
			return r;
	}
	return set_rodata(l, "scxpol_pool_conf", &l->conf, sizeof(l->conf));
}

/* scxpol_pool_publish(): stage the plan, run the policy's commit program. */
static int publish(struct loader *l, const struct scxpol_pool_plan *plan)
{
	int (*commit)(struct scxpol_pool_commit_args *) = sym(l, "scxpol_pool_commit");
	struct scxpol_pool_commit_args a = { 0 };
	struct scxpol_pool_staged st;
	const struct scxpol_pool_conf *c = &l->conf;
	u32 p, k, key;
	int r;

	if (!commit)
		return fail(l->err, sizeof(l->err), ENOENT, "%s: no scxpol_pool_commit program",
			    l->label);
	r = scxpol_pool_stage_plan(plan, c, &st);
	if (r)
		return fail(l->err, sizeof(l->err), -r, "%s: %s", l->label, scxpol_last_error());
	for (p = 0; p < st.nr_pools; p++) {
		put(l, "scxpol_pool_stage", BPF_MAP_TYPE_ARRAY, 4, sizeof(st.descs[p]), &p,
		    &st.descs[p]);
		for (k = 0; k < c->nr_words; k++) {
			key = p * c->nr_words + k;
			put(l, "scxpol_pool_stage_mask", BPF_MAP_TYPE_ARRAY, 4, 8, &key,
			    &st.masks[key]);
		}
		for (k = 0; k < st.descs[p].nr_order; k++) {
			key = p * c->max_pools + k;
			put(l, "scxpol_pool_stage_order", BPF_MAP_TYPE_ARRAY, 4, 4, &key,
			    &st.order[key]);
		}
	}
	for (k = 0; k < c->nr_cpus; k++)
		put(l, "scxpol_pool_stage_cpu", BPF_MAP_TYPE_ARRAY, 4, sizeof(st.cpus[k]), &k,
		    &st.cpus[k]);
	a.nr_pools = st.nr_pools;
	scxpol_pool_staged_free(&st);
	if (commit(&a)) {
		r = scxpol_pool_explain(l->label, plan, c, &a);
		return fail(l->err, sizeof(l->err), -r, "%s", scxpol_last_error());
	}
	return 0;
}

/* scxpol_hint_setup()'s limits, as the meta the BPF side checks hints against. */
static void hint_meta(struct loader *l, u32 nr_pools, u32 nr_classes, u32 max_importance)
{
	struct scxpol_hint_meta m = { .nr_pools = nr_pools, .nr_classes = nr_classes,
				      .max_importance = max_importance, .nr_slots = HINT_SLOTS };
	u32 zero = 0;

	put(l, "scxpol_hint_meta", BPF_MAP_TYPE_ARRAY, 4, sizeof(m), &zero, &m);
}

/* The faas control plane's hint on a cgroup (sink_hint.c's assign and clear). */
static int assign_domain(void *ctx, unsigned long long cgroup, int domain)
{
	struct loader *l = ctx;
	struct scxpol_hint h = { .pool = domain, .flags = SCXPOL_HINT_F_POOL };
	u32 zero = 0;
	u64 *gen;
	long r;

	if (domain >= 0)
		r = put(l, "scxpol_hint_cgrp", BPF_MAP_TYPE_HASH, 8, sizeof(h), &cgroup, &h);
	else
		r = scxpol_sim_map_delete(sym(l, "scxpol_hint_cgrp"), BPF_MAP_TYPE_HASH, 8,
					  sizeof(h), HINT_CGROUPS, &cgroup);
	gen = get(l, "scxpol_hint_gen", BPF_MAP_TYPE_ARRAY, 4, sizeof(*gen), &zero);
	if (gen)
		(*gen)++;
	return r == -ENOENT && domain < 0 ? 0 : (int)r;
}

static void match_bump(struct loader *l)
{
	struct scxpol_match_meta *m;
	u32 zero = 0;

	m = get(l, "scxpol_match_meta", BPF_MAP_TYPE_ARRAY, 4, sizeof(*m), &zero);
	if (m)
		m->gen++;
}

static int add_rule(struct loader *l, const struct rule *ru, s32 value, cgroup_fn cg, void *ctx)
{
	struct scxpol_match_comm_key key;
	unsigned long long id;

	if (ru->cgroup) {
		id = cg(ctx, ru->pattern);
		if (!id)
			return fail(l->err, sizeof(l->err), ENOENT, "%s: --lc-cgroup %s: no workload "
				    "component has this cgroup", l->label, ru->pattern);
		put(l, "scxpol_match_cgroups", BPF_MAP_TYPE_HASH, 8, 4, &id, &value);
	} else {
		if (scxpol_match_comm_pattern(ru->pattern, &key))
			return fail(l->err, sizeof(l->err), EINVAL, "%s: %s", l->label,
				    scxpol_last_error());
		put(l, "scxpol_match_comms", BPF_MAP_TYPE_LPM_TRIE, sizeof(key), 4, &key, &value);
	}
	match_bump(l);
	return 0;
}

/* --- options -------------------------------------------------------------------------------- */
static int parse_num(struct loader *l, const char *opt, const char *arg, unsigned long long lo,
		     unsigned long long hi, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || *out < lo || *out > hi)
		return fail(l->err, sizeof(l->err), EINVAL, "%s: %s '%s': want a whole number "
			    "%llu..%llu", l->label, opt, arg, lo, hi);
	return 0;
}

/* A utilisation in (0, 1], or with @zero a share in [0, 1]; ads.c's messages. */
static int parse_share(struct loader *l, const char *opt, const char *arg, bool zero,
		       double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (end == arg || *end || !((zero ? *out >= 0 : *out > 0) && *out <= 1))
		return fail(l->err, sizeof(l->err), EINVAL, "%s: %s '%s': want a %s", l->label,
			    opt, arg, zero ? "share in [0, 1]" : "utilisation in (0, 1]");
	return 0;
}

/* An option of ads's loader (ads_options[], ads.c's letters). */
static int ads_option(struct loader *l, int c, const char *name, const char *arg)
{
	unsigned long long v;
	int r = 0;

	switch (c) {
	case 'c':
		r = parse_num(l, name, arg, 1, 1U << 20, &v);
		l->pool_cpus = (unsigned int)v;
		return r;
	case 'm':
	case 'g':
		if (l->nr_rules == MAX_RULES || strlen(arg) >= sizeof(l->rules[0].pattern))
			return fail(l->err, sizeof(l->err), EINVAL, "%s: %s '%s': at most %d rules "
				    "of %zu characters", l->label, name, arg, MAX_RULES,
				    sizeof(l->rules[0].pattern) - 1);
		l->rules[l->nr_rules].cgroup = c == 'g';
		snprintf(l->rules[l->nr_rules++].pattern, sizeof(l->rules[0].pattern), "%s", arg);
		return 0;
	case 'l':
		return parse_share(l, name, arg, false, &l->util_lo);
	case 'u':
		return parse_share(l, name, arg, false, &l->util_hi);
	case 'o':
		return parse_share(l, name, arg, true, &l->overflow_hi);
	case 'P':
		l->spill = true;
		return 0;
	case 'H':
		r = parse_num(l, name, arg, 1, 1000, &v);
		l->hold = (unsigned int)v;
		return r;
	case 'i':
		r = parse_num(l, name, arg, 10, 3600000, &v);
		l->interval_ms = (unsigned int)v;
		return r;
	case 'N':
		l->no_resize = true;
		return 0;
	case 'W':
		l->wake_affine = true;
		return 0;
	case 's':
		return parse_num(l, name, arg, 1, 1000000, &l->lc_slice_us);
	case 'b':
		return parse_num(l, name, arg, 1, 1000000, &l->bg_slice_us);
	case 'I':
		return parse_num(l, name, arg, 1, 1000000, &l->important_slice_us);
	}
	return 0;
}

/* An option of the other loaders: minimal's -s, twopool's -b, faas's (faas_conf.c). */
static int option(struct loader *l, int c, const char *name, const char *arg)
{
	unsigned long long v;
	char err[256];
	int r = 0;

	if (l->kind == ADS)
		return ads_option(l, c, name, arg);
	if (l->kind == FAAS) {
		r = faas_conf_option(&l->faas, c, arg, err, sizeof(err));
		return r < 0 ? fail(l->err, sizeof(l->err), -r, "%s: %s", l->label, err) : 0;
	}
	switch (c) {
	case 's':
		return parse_num(l, name, arg, 1, 1000000, &l->slice_us);
	case 'b':
		r = parse_num(l, name, arg, 1, 1U << 20, &v);
		l->pool_cpus = (unsigned int)v;
		return r;
	}
	return 0;
}

/* The options of @l's policy, as its loader has them. */
static int parse_options(struct loader *l, int argc, char **argv)
{
	static const struct option none[] = { { 0 } };
	const struct option *lo = l->kind == ADS    ? ads_options :
				  l->kind == FAAS ? faas_conf_options :
						    none;
	char err[256];
	const char *shorts = l->kind == MINIMAL ? "+:s:" : l->kind == TWOPOOL ? "+:b:" : "+:";
	char name[32];
	int c, idx, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		if (c == '?' || c == ':')
			return fail(l->err, sizeof(l->err), EINVAL, "%s: option '%s' %s", l->label,
				    argv[optind - 1], c == '?' ? "is not one of the policy's loader" :
								 "wants a value");
		if (c < 256 && strchr(shorts, c))
			snprintf(name, sizeof(name), "-%c", c);
		else
			snprintf(name, sizeof(name), "--%s", lo[idx].name);
		r = option(l, c, name, optarg);
		if (r)
			return r;
	}
	if (optind < argc)
		return fail(l->err, sizeof(l->err), EINVAL, "%s: '%s' is not an option", l->label,
			    argv[optind]);
	if (l->kind == ADS && l->util_lo >= l->util_hi)
		return fail(l->err, sizeof(l->err), EINVAL, "%s: --util-lo %g --util-hi %g: want "
			    "util-lo < util-hi", l->label, l->util_lo, l->util_hi);
	r = l->kind == FAAS ? faas_conf_finish(&l->faas, err, sizeof(err)) : 0;
	return r ? fail(l->err, sizeof(l->err), -r, "%s: %s", l->label, err) : 0;
}

/* --- configure: plans, rodata and map sizes before ops.init ----------------------------------- */
static int configure_plan(struct loader *l)
{
	unsigned int online = l->mach->cpus, n;
	char err[256];
	int r = 0;

	switch (l->kind) {
	case TWOPOOL:
		n = l->pool_cpus ? l->pool_cpus : online / 2;
		if (n >= online)
			return fail(l->err, sizeof(l->err), EINVAL, "%s: -b %u: want 1..%u", l->label,
				    n, online - 1);
		l->plan = scxpol_pool_plan_split(l->topo, "fg", "bg", online - n,
						 SCXPOL_POOL_EXCLUSIVE);
		r = l->plan ? 0 : -errno;
		l->max_pools = 2;
		break;
	case ADS:
		n = l->pool_cpus ? l->pool_cpus : online / 2;
		if (n >= online)
			return fail(l->err, sizeof(l->err), EINVAL, "%s: --lc-cpus %u: want 1..%u (%u "
				    "CPUs; bg keeps one)", l->label, n, online - 1, online);
		r = ads_plan_split(l->topo, n, &l->plan);
		if (!r && !l->no_resize) {
			SCXPOL_OPTS(scxpol_pool_autosize_opts, ao, .util_lo = l->util_lo,
				    .util_hi = l->util_hi, .hold = l->hold,
				    .overflow_hi = l->overflow_hi);

			l->sizer = scxpol_pool_autosize_new(l->plan, ADS_POOL_LC, ADS_POOL_BG, &ao);
			r = l->sizer ? 0 : -errno;
			scxpol_pool_plan_free(l->plan);
			l->plan = NULL;
		}
		l->max_pools = ADS_NR_POOLS;
		break;
	case FAAS:
		r = faas_conf_plan(&l->faas, l->topo, &l->plan, err, sizeof(err));
		if (r)
			return fail(l->err, sizeof(l->err), -r, "%s: %s", l->label, err);
		l->max_pools = scxpol_pool_plan_nr_pools(l->plan);
		l->require = SCXPOL_POOL_REQ_COVER;
		break;
	default:
		return 0;
	}
	if (r)
		return fail(l->err, sizeof(l->err), -r, "%s: %s", l->label, scxpol_last_error());
	return 0;
}

static int configure_rodata(struct loader *l)
{
	unsigned long long ns;
	u32 v;
	bool b;
	int r = 0;

	switch (l->kind) {
	case MINIMAL:
		ns = l->slice_us * 1000;
		return set_rodata(l, "slice_ns", &ns, sizeof(ns));
	case ADS:
		ns = l->lc_slice_us * 1000;
		r = set_rodata(l, "lc_slice_ns", &ns, sizeof(ns));
		ns = l->bg_slice_us * 1000;
		r = r ? r : set_rodata(l, "bg_slice_ns", &ns, sizeof(ns));
		ns = l->important_slice_us * 1000;
		r = r ? r : set_rodata(l, "important_slice_ns", &ns, sizeof(ns));
		b = l->wake_affine;
		r = r ? r : set_rodata(l, "wake_affine", &b, sizeof(b));
		b = l->spill;
		return r ? r : set_rodata(l, "spill", &b, sizeof(b));
	case FAAS:
		/* faas.c's; --switch partial changes nothing here: every task is a sched_ext one */
		ns = l->faas.slice_us * 1000;
		r = set_rodata(l, "slice_ns", &ns, sizeof(ns));
		v = l->faas.reset_every;
		r = r ? r : set_rodata(l, "reset_every", &v, sizeof(v));
		v = l->faas.busy_poll ? FAAS_BUSY_POLL_AFTER : 0;
		r = r ? r : set_rodata(l, "busy_poll_after", &v, sizeof(v));
		b = l->faas.vtime_now;
		r = r ? r : set_rodata(l, "vtime_now", &b, sizeof(b));
		b = l->faas.dispatch_paper;
		return r ? r : set_rodata(l, "dispatch_paper", &b, sizeof(b));
	default:
		return 0;
	}
}

/* The configure hook (after the kernel's reset, before ops.init): map sizes. */
static int configure(void *ctx)
{
	struct loader *l = ctx;
	int r = 0;

	if (l->max_pools)
		r = pool_setup(l);
	if (!r && (l->kind == ADS || l->kind == FAAS))
		r = resize(l, "scxpol_hint_cgrp", HINT_CGROUPS);
	if (!r && (l->kind == ADS || l->kind == TWOPOOL)) {
		r = resize(l, "scxpol_match_comms", MATCH_MAX);
		r = r ? r : resize(l, "scxpol_match_cgroups", MATCH_MAX);
	}
	return r;
}

static const char *module_path(const char *name, const char *dir, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (strchr(name, '/') || (n > 3 && !strcmp(name + n - 3, ".so")))
		return name;
	snprintf(buf, len, "%s/%s.so", dir, name);
	return buf;
}

static const struct {
	const char *name;
	enum kind kind;
} kinds[] = { { "eevdf", EEVDF }, { "minimal", MINIMAL }, { "twopool", TWOPOOL },
	      { "ads", ADS }, { "faas", FAAS } };

int loader_open(const char *text, const char *policy_dir, const struct machine *mach,
		struct loader **out, char *err, size_t errlen)
{
	char *argv[MAX_ARGS + 1], *copy, *tok, *save, path[PATH_MAX];
	struct loader *l;
	int argc = 0, r;
	size_t i;

	l = calloc(1, sizeof(*l));
	copy = strdup(text);
	if (!l || !copy) {
		free(l);
		free(copy);
		return fail(err, errlen, ENOMEM, "out of memory");
	}
	snprintf(l->label, sizeof(l->label), "%s", text);
	l->mach = mach;
	l->slice_us = 5000;
	l->lc_slice_us = 2000;
	l->bg_slice_us = 20000;
	l->important_slice_us = 10000;
	l->util_lo = 0.5;
	l->util_hi = 0.8;
	l->overflow_hi = 0.2;
	l->hold = 3;
	l->interval_ms = 250;
	faas_conf_init(&l->faas);
	for (tok = strtok_r(copy, " \t", &save); tok && argc < MAX_ARGS;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	r = argc ? 0 : fail(err, errlen, EINVAL, "an empty policy");
	l->kind = MODULE;
	for (i = 0; !r && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(argv[0], kinds[i].name))
			l->kind = kinds[i].kind;
	if (!r)
		r = parse_options(l, argc, argv);
	if (!r && l->kind == MODULE && argc > 1)
		r = fail(l->err, sizeof(l->err), EINVAL, "%s: a module without a loader takes no "
			 "options", l->label);
	if (!r && l->kind != EEVDF) {
		l->m = scxpol_sim_module_open(module_path(argv[0], policy_dir, path, sizeof(path)));
		if (!l->m)
			r = fail(l->err, sizeof(l->err), errno, "%s%s", scxpol_sim_module_error(),
				 l->kind == MODULE ? " (a policy is eevdf, minimal, twopool, ads, "
						     "faas, or a module's path)" : "");
	}
	if (!r) {
		l->topo = scxpol_topo_build(mach->cpus, mach->core, mach->llc, mach->node);
		if (!l->topo)
			r = fail(l->err, sizeof(l->err), errno, "%s", scxpol_last_error());
	}
	if (!r)
		r = configure_plan(l);
	if (!r)
		r = configure_rodata(l);
	free(copy);
	if (r) {
		snprintf(err, errlen, "%s", l->err[0] ? l->err : err);
		loader_close(l);
		return r;
	}
	*out = l;
	return 0;
}

void loader_sim_opts(struct loader *l, struct scxpol_sim_opts *o)
{
	o->sched = l->kind == EEVDF ? SCXPOL_SIM_SCHED_EEVDF : SCXPOL_SIM_SCHED_EXT;
	o->ops = l->m ? scxpol_sim_module_ops(l->m) : NULL;
	o->configure = configure;
	o->configure_ctx = l;
}

/*
 * ads's periodic hook, as ads.c's: the lc pool's demand over the interval
 * and its overflow (the part of it run on bg CPUs), then the sizer.
 */
static void ads_periodic(struct scxpol_sim *s, void *ctx)
{
	struct loader *l = ctx;
	void *stats = sym(l, "scxpol_stats");
	unsigned long long now = scxpol_sim_now(s), run, spill;
	double demand = -1, overflow = 0;
	int r;

	scxpol_sim_at(s, now + l->interval_ms * 1000000ULL, ads_periodic, l);
	run = scxpol_sim_percpu_sum(stats, SCXPOL_STAT_USER_BASE + ADS_STAT_LC_RUNTIME_NS);
	spill = scxpol_sim_percpu_sum(stats, SCXPOL_STAT_USER_BASE + ADS_STAT_LC_SPILL_NS);
	if (l->have_last && run >= l->last_run && spill >= l->last_spill && now > l->last_ns) {
		demand = (double)(run - l->last_run) / (double)(now - l->last_ns);
		overflow = (double)(spill - l->last_spill) / (double)(now - l->last_ns);
		if (overflow > demand)
			overflow = demand;
	}
	l->last_run = run;
	l->last_spill = spill;
	l->last_ns = now;
	l->have_last = true;
	if (demand < 0)
		return;
	r = scxpol_pool_autosize_update_overflow(l->sizer, demand, overflow);
	if (r > 0 && !publish(l, scxpol_pool_autosize_plan(l->sizer))) {
		if (l->resizes < MAX_RESIZE_LOG) {
			l->log[l->resizes].at_ns = now;
			l->log[l->resizes].cpus = scxpol_pool_autosize_nr_cpus(l->sizer);
			l->log[l->resizes].demand = demand;
			l->log[l->resizes].overflow = overflow;
		}
		l->resizes++;
	}
}

int loader_loaded(struct loader *l, struct scxpol_sim *s, cgroup_fn cg, void *cg_ctx, char *err,
		  size_t errlen)
{
	static const struct rule bg = { false, "bg-*" };
	unsigned int i;
	int r = 0;

	l->sim = s;
	if (l->max_pools)
		r = publish(l, current_plan(l));
	for (i = 0; !r && l->kind == ADS && i < l->nr_rules; i++)
		r = add_rule(l, &l->rules[i], ADS_LC, cg, cg_ctx);
	if (!r && l->kind == TWOPOOL)
		r = add_rule(l, &bg, scxpol_pool_plan_find(l->plan, "bg"), cg, cg_ctx);
	if (!r && l->kind == ADS) {
		hint_meta(l, ADS_NR_POOLS, ADS_NR_CLASSES, ADS_MAX_IMPORTANCE);
		if (l->sizer)
			r = scxpol_sim_at(s, scxpol_sim_now(s), ads_periodic, l);
	}
	if (!r && l->kind == FAAS) {
		unsigned int n = scxpol_pool_plan_nr_pools(l->plan);

		hint_meta(l, n, 0, 0);
		l->domain_cpus = calloc(n, sizeof(*l->domain_cpus));
		if (!l->domain_cpus)
			r = fail(l->err, sizeof(l->err), ENOMEM, "out of memory");
		for (i = 0; !r && i < n; i++)
			l->domain_cpus[i] = scxpol_cpuset_count(scxpol_pool_plan_cpus(l->plan, i));
		l->wp = (struct wl_policy){ .nr_domains = n, .domain_cpus = l->domain_cpus,
					    .assign = assign_domain, .ctx = l };
	}
	if (r)
		snprintf(err, errlen, "%s", l->err);
	return r;
}

const struct wl_policy *loader_wl_policy(const struct loader *l)
{
	return &l->wp;
}

const char *loader_label(const struct loader *l)
{
	return l->label;
}

void loader_report(const struct loader *l, FILE *f)
{
	static const char *const names[] = { SCXPOL_STAT_NAMES };
	const struct scxpol_pool_plan *plan = current_plan(l);
	char text[4096];
	unsigned int i;
	void *stats;

	fprintf(f, "\"ops\":\"%s\"", l->m ? scxpol_sim_module_name(l->m) : "-");
	if (plan) {
		if (scxpol_pool_plan_format(plan, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), "(%u pools)", scxpol_pool_plan_nr_pools(plan));
		fprintf(f, ",\"plan\":\"%s\",\"resizes\":%u", text, l->resizes);
	}
	if (l->sizer) {
		fprintf(f, ",\"resize_log\":[");
		for (i = 0; i < l->resizes && i < MAX_RESIZE_LOG; i++)
			fprintf(f, "%s[%.3f,%u,%.2f,%.2f]", i ? "," : "",
				(double)l->log[i].at_ns / 1e9, l->log[i].cpus, l->log[i].demand,
				l->log[i].overflow);
		fprintf(f, "]");
	}
	if (l->kind == FAAS) {
		faas_conf_format(&l->faas, text, sizeof(text));
		fprintf(f, ",\"conf\":\"%s\"", text);
	}
	stats = l->m ? sym(l, "scxpol_stats") : NULL;
	if (!stats)
		return;
	fprintf(f, ",\"stats\":{");
	for (i = 0; i < SCXPOL_STAT_NR; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", names[i],
			(unsigned long long)scxpol_sim_percpu_sum(stats, i));
	for (i = 0; i < SCXPOL_STAT_USER_NR; i++) {
		unsigned long long v = scxpol_sim_percpu_sum(stats, SCXPOL_STAT_USER_BASE + i);

		if (l->kind == ADS && i < ADS_NR_STATS)
			fprintf(f, ",\"%s\":%llu", ads_stat_descs[i].name, v);
		else if (v)
			fprintf(f, ",\"user%u\":%llu", i, v);
	}
	fprintf(f, "}");
}

void loader_close(struct loader *l)
{
	if (!l)
		return;
	scxpol_pool_autosize_free(l->sizer);
	scxpol_pool_plan_free(l->plan);
	scxpol_topo_free(l->topo);
	scxpol_sim_module_close(l->m);
	free(l->domain_cpus);
	free(l);
}
