// SPDX-License-Identifier: GPL-2.0
/*
 * scxpol-sim: run sched_ext policies (minimal, ads, faas, the tutorial's
 * twopool, any policy module) and the EEVDF model on a simulated machine,
 * on the workload a YAML spec describes, and report what scripts/bench
 * reports. Deterministic: the same spec, options and seed give the same
 * output, byte for byte. doc/sim.md is the manual.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <scxpol/common.h>
#include <scxpol/sim.h>
#include <scxpol/topology.h>

#include "loaders.h"
#include "report.h"
#include "spec.h"
#include "wl.h"

#define ERR_LEN 1024

struct opts {
	const char *spec, *out, *svg, *policy_dir, *sysfs;
	const char *policies[SPEC_MAX_POLICIES];
	unsigned int nr_policies;
	bool bench, quiet;
	/* machine and run overrides; 0 / UINT64_MAX: the spec's */
	unsigned int cpus, smt, llcs, nodes;
	uint64_t duration_ns, warmup_ns, seed, tick_ns, ctxsw_ns, ipi_ns, idle_exit_ns;
	bool has_seed, has_warmup, has_ctxsw, has_ipi, has_idle_exit;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scxpol-sim [options] SPEC.yaml\n"
		"Run sched_ext policies and the EEVDF model on a simulated machine, on the\n"
		"workload SPEC.yaml describes; print the metrics of scripts/bench as JSON.\n"
		"  -p, --policy 'NAME [OPTIONS]'\n"
		"                       a policy to run (repeat for several; default: the spec's\n"
		"                       policies, else eevdf): eevdf, minimal, twopool, ads, faas\n"
		"                       with their loaders' options (ads --lc-comm 'lc-*',\n"
		"                       faas --domains 8 --steal), or a policy module's path\n"
		"                       (.so); ratios are to the first and to minimal\n"
		"  --cpus N --smt N --llcs N --nodes N\n"
		"                       the machine, instead of the spec's (CPUs are numbered\n"
		"                       core by core, cores LLC by LLC, LLCs node by node)\n"
		"  --sysfs DIR          the machine of the sysfs tree DIR/sys/devices/system\n"
		"                       (as scxpol-topo --root reads it; / is this host): its\n"
		"                       online CPUs numbered 0.. in the order of their ids\n"
		"  --duration DUR --warmup DUR\n"
		"                       measure DUR after a warm-up (250us, 3ms, 1.5s, 10s)\n"
		"  --tick DUR --ctxsw DUR --ipi DUR --idle-exit DUR\n"
		"                       the tick, a context switch's cost, the delay of a\n"
		"                       resched IPI, the extra delay of leaving idle\n"
		"  --seed N             the workload's randomness\n"
		"  -o, --out FILE       the JSON there (default: standard output)\n"
		"  --svg FILE           a plot: faas e2e latency CDFs, else the metrics x the\n"
		"                       first policy\n"
		"  --policy-dir DIR     where policy modules are (default: $SCXPOL_SIM_POLICY_DIR,\n"
		"                       sim/policies in a build tree, else\n"
		"                       " SIM_POLICY_DIR ")\n"
		"  --bench              a speed benchmark: run each policy and print its events\n"
		"                       and callbacks per second of CPU time (no JSON)\n"
		"  -q, --quiet          no table on standard error\n"
		"  -h, --help\n"
		"Model (doc/sim.md lists each simplification against kernel/sched/ext.c):\n"
		"callbacks take no time, no locks or races between CPUs; every task is a\n"
		"sched_ext task (no partial switch, RT or kernel threads, cpu_release);\n"
		"no hotplug, affinity or weight changes, yield, core scheduling or\n"
		"SCX_KICK_WAIT; a task is CPU bursts (no caches, SMT slowdown, frequency);\n"
		"eevdf is a model of fair.c without PELT, DELAY_DEQUEUE or group scheduling.\n"
		"Exit status: 0, 1 when a run failed (a policy error ends its run with the\n"
		"kernel's message; the others still run), 2 for bad usage or input.\n");
}

static int parse_u(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || *out < lo || *out > hi) {
		fprintf(stderr, "scxpol-sim: %s '%s': want a whole number %llu..%llu\n", opt, arg,
			lo, hi);
		return -1;
	}
	return 0;
}

static int parse_dur(const char *opt, const char *arg, uint64_t *ns)
{
	if (spec_parse_duration(arg, ns)) {
		fprintf(stderr, "scxpol-sim: %s '%s': want a duration such as 250us, 3ms or 1.5s\n",
			opt, arg);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_CPUS = 256, O_SMT, O_LLCS, O_NODES, O_SYSFS, O_DURATION, O_WARMUP, O_TICK,
	       O_CTXSW, O_IPI, O_IDLE_EXIT, O_SEED, O_SVG, O_POLICY_DIR, O_BENCH };
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "smt", required_argument, NULL, O_SMT },
		{ "llcs", required_argument, NULL, O_LLCS },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "sysfs", required_argument, NULL, O_SYSFS },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "tick", required_argument, NULL, O_TICK },
		{ "ctxsw", required_argument, NULL, O_CTXSW },
		{ "ipi", required_argument, NULL, O_IPI },
		{ "idle-exit", required_argument, NULL, O_IDLE_EXIT },
		{ "seed", required_argument, NULL, O_SEED },
		{ "out", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, O_SVG },
		{ "policy-dir", required_argument, NULL, O_POLICY_DIR },
		{ "bench", no_argument, NULL, O_BENCH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	int c, r = 0;

	while (!r && (c = getopt_long(argc, argv, "p:o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->nr_policies == SPEC_MAX_POLICIES) {
				fprintf(stderr, "scxpol-sim: at most %d policies\n", SPEC_MAX_POLICIES);
				return 2;
			}
			o->policies[o->nr_policies++] = optarg;
			break;
		case O_CPUS:
			r = parse_u("--cpus", optarg, 1, SPEC_MAX_CPUS, &v);
			o->cpus = (unsigned int)v;
			break;
		case O_SMT:
			r = parse_u("--smt", optarg, 1, 8, &v);
			o->smt = (unsigned int)v;
			break;
		case O_LLCS:
			r = parse_u("--llcs", optarg, 1, 512, &v);
			o->llcs = (unsigned int)v;
			break;
		case O_NODES:
			r = parse_u("--nodes", optarg, 1, 64, &v);
			o->nodes = (unsigned int)v;
			break;
		case O_SYSFS:
			o->sysfs = optarg;
			if (strlen(optarg) >= sizeof(((struct spec *)0)->sysfs)) {
				fprintf(stderr, "scxpol-sim: --sysfs: the path is longer than %zu "
					"characters\n", sizeof(((struct spec *)0)->sysfs) - 1);
				r = -1;
			}
			break;
		case O_DURATION:
			r = parse_dur("--duration", optarg, &o->duration_ns);
			if (!r && !o->duration_ns) {
				fprintf(stderr, "scxpol-sim: --duration 0: want more than that\n");
				r = -1;
			}
			break;
		case O_WARMUP:
			r = parse_dur("--warmup", optarg, &o->warmup_ns);
			o->has_warmup = true;
			break;
		case O_TICK:
			r = parse_dur("--tick", optarg, &o->tick_ns);
			if (!r && o->tick_ns < 10000) {
				fprintf(stderr, "scxpol-sim: --tick %s: want 10us or more\n", optarg);
				r = -1;
			}
			break;
		case O_CTXSW:
			r = parse_dur("--ctxsw", optarg, &o->ctxsw_ns);
			o->has_ctxsw = true;
			break;
		case O_IPI:
			r = parse_dur("--ipi", optarg, &o->ipi_ns);
			o->has_ipi = true;
			break;
		case O_IDLE_EXIT:
			r = parse_dur("--idle-exit", optarg, &o->idle_exit_ns);
			o->has_idle_exit = true;
			break;
		case O_SEED:
			r = parse_u("--seed", optarg, 0, ULLONG_MAX, &v);
			o->seed = v;
			o->has_seed = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case O_SVG:
			o->svg = optarg;
			break;
		case O_POLICY_DIR:
			o->policy_dir = optarg;
			break;
		case O_BENCH:
			o->bench = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (r)
		return 2;
	if (o->sysfs && (o->cpus || o->smt || o->llcs || o->nodes)) {
		fprintf(stderr, "scxpol-sim: --sysfs, or --cpus, --smt, --llcs and --nodes: "
			"not both\n");
		return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "scxpol-sim: %s\n", optind == argc ? "no spec file" :
			"one spec file, then nothing");
		usage(stderr);
		return 2;
	}
	o->spec = argv[optind];
	return 0;
}

/* Where the policy modules are: --policy-dir, $SCXPOL_SIM_POLICY_DIR, the build tree, installed. */
static const char *policy_dir(const struct opts *o, char *buf, size_t len)
{
	const char *env = getenv("SCXPOL_SIM_POLICY_DIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (o->policy_dir)
		return o->policy_dir;
	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		/* the build tree: sim/tool/scxpol-sim, sim/policies/ */
		if (snprintf(buf, len, "%s/../policies/minimal.so", exe) < (int)len &&
		    !access(buf, R_OK)) {
			*strrchr(buf, '/') = '\0';
			return buf;
		}
	}
	return SIM_POLICY_DIR;
}

/* --- one run ------------------------------------------------------------------------------- */
struct cg_ctx {
	const struct spec *spec;
};

/* Cgroup ids of the spec's cgroup names: 2, 3, ... in the order they first appear. */
static unsigned long long cgroup_id(void *ctx, const char *name)
{
	const struct spec *s = ((struct cg_ctx *)ctx)->spec;
	unsigned long long id = 1;
	unsigned int i, j;

	for (i = 0; i < s->nr_comps; i++) {
		const char *c = s->comps[i].c.cgroup;

		if (!c[0])
			continue;
		for (j = 0; j < i && strcmp(s->comps[j].c.cgroup, c); j++)
			;
		if (j == i)
			id++;
		if (!strcmp(c, name))
			return id;
	}
	return 0;
}

static const struct wl_kind *wl_kind_of(enum comp_kind k)
{
	static const struct wl_kind *const kinds[] = {
		[COMP_RR] = &wl_rr, [COMP_HOGS] = &wl_hogs, [COMP_SCHBENCH] = &wl_schbench,
		[COMP_TASKS] = &wl_tasks, [COMP_TRACE] = &wl_trace, [COMP_FAAS] = &wl_faas,
	};

	return kinds[k];
}

static int machine_alloc(struct machine *m, unsigned int cpus)
{
	m->cpus = cpus;
	m->core = calloc(cpus, sizeof(int));
	m->llc = calloc(cpus, sizeof(int));
	m->node = calloc(cpus, sizeof(int));
	return m->core && m->llc && m->node ? 0 : -ENOMEM;
}

/*
 * The machine of the sysfs tree under s->sysfs, read by scxpol_topo_load():
 * its online CPUs numbered densely in the order of their ids, each in its
 * core, LLC and node. Sets the spec's shape to what the tree has: cpus,
 * llcs, nodes, and smt the most threads a core has (as the JSON reports
 * it). 0, -ENOMEM, or -EINVAL with the library's message (naming the
 * file) in @err.
 */
static int machine_sysfs(struct spec *s, struct machine *m, char *err, size_t errlen)
{
	struct scxpol_topo_opts to = { .sz = sizeof(to), .root = s->sysfs };
	struct scxpol_topo *t = scxpol_topo_load(&to);
	unsigned int c, i = 0, n, smt = 1;

	if (!t) {
		snprintf(err, errlen, "%s", scxpol_last_error());
		return -EINVAL;
	}
	n = scxpol_cpuset_count(scxpol_topo_online(t));
	if (n > SPEC_MAX_CPUS) {
		snprintf(err, errlen, "%s: %u CPUs are online, the simulator takes at most %d",
			 s->sysfs, n, SPEC_MAX_CPUS);
		scxpol_topo_free(t);
		return -EINVAL;
	}
	if (machine_alloc(m, n)) {
		scxpol_topo_free(t);
		return -ENOMEM;
	}
	for (c = 0; c < scxpol_topo_nr_cpus(t); c++) {
		const struct scxpol_topo_cpu *tc = scxpol_topo_cpu(t, c);

		if (!tc->online)
			continue;
		m->core[i] = tc->core;
		m->llc[i] = tc->llc;
		m->node[i] = tc->node;
		i++;
	}
	for (c = 0; c < scxpol_topo_nr_cores(t); c++)
		if (scxpol_cpuset_count(scxpol_topo_core_cpus(t, c)) > smt)
			smt = scxpol_cpuset_count(scxpol_topo_core_cpus(t, c));
	s->cpus = n;
	s->smt = smt;
	s->llcs = scxpol_topo_nr_llcs(t);
	s->nodes = scxpol_topo_nr_nodes(t);
	scxpol_topo_free(t);
	return 0;
}

/* The machine of the spec's shape: CPUs core by core, cores LLC by LLC, LLCs node by node. */
static int machine_shape(const struct spec *s, struct machine *m)
{
	unsigned int c, cores = s->cpus / s->smt, per_llc = cores / s->llcs,
			llcs_per_node = s->llcs / s->nodes;

	if (machine_alloc(m, s->cpus))
		return -ENOMEM;
	for (c = 0; c < s->cpus; c++) {
		m->core[c] = (int)(c / s->smt);
		m->llc[c] = m->core[c] / (int)per_llc;
		m->node[c] = m->llc[c] / (int)llcs_per_node;
	}
	return 0;
}

static void lat_members(FILE *f, const char *name, const struct scxpol_sim_lat *l)
{
	fprintf(f, ",\"%s\":", name);
	wl_lat_json(f, l);
}

/* The bench's metrics of the run, from the engine's groups and the workloads'. */
static void metrics(struct run *r, struct scxpol_sim *sim, struct wl *wls, unsigned int n,
		    double secs)
{
	struct scxpol_sim_group_stats lc, bg;
	struct wl_metrics wm;
	struct scxpol_sim_stats st;
	int lci = -1, bgi = -1;
	unsigned int i, k;

	for (k = 0; k < M_NR; k++)
		r->m[k] = NAN;
	memset(&wm, 0, sizeof(wm));
	wm.requests = wm.req_per_s = wm.req_p99_ns = wm.wake_p99_ns = wm.unserved = NAN;
	wm.units_per_s = wm.e2e_p50_ms = wm.e2e_p99_ms = wm.e2e_p999_ms = wm.cost_ms = NAN;
	wm.util = NAN;
	for (i = 0; i < n; i++) {
		enum comp_kind kind = wls[i].env.comp->kind;

		if (lci < 0 && (kind == COMP_RR || kind == COMP_SCHBENCH))
			lci = (int)wls[i].env.group;
		if (bgi < 0 && kind == COMP_HOGS)
			bgi = (int)wls[i].env.group;
		wls[i].kind->metrics(&wls[i], &wm);
	}
	scxpol_sim_stats(sim, &st);
	r->m[M_CPU_IDLE_PCT] = 100.0 * (double)st.idle_ns / (double)(st.idle_ns + st.busy_ns);
	if (lci >= 0) {
		scxpol_sim_group_stats(sim, (unsigned int)lci, &lc);
		r->m[M_RQ_P50] = (double)lc.rqdelay.p50 / 1e3;
		r->m[M_RQ_P99] = (double)lc.rqdelay.p99 / 1e3;
		r->m[M_RQ_P999] = (double)lc.rqdelay.p999 / 1e3;
		r->m[M_LC_PREEMPT] = (double)lc.preempt / secs;
		r->m[M_IDLE_PCT] = lc.wakeups ? 100.0 * lc.wakeups_idle / lc.wakeups : 0;
		r->m[M_IDLE_P99] = (double)lc.wake_idle.p99 / 1e3;
		r->m[M_RQ_X_IDLE] = lc.wake_idle.p99 ? (double)lc.rqdelay.p99 / lc.wake_idle.p99 :
							 NAN;
		r->m[M_REMOTE_PCT] = lc.wakeups ? 100.0 * lc.wakeups_remote / lc.wakeups : 0;
		r->m[M_LC_CPU_PCT] = 100.0 * (double)lc.cpu_ns /
				     (double)(st.idle_ns + st.busy_ns);
		r->m[M_REQ_PER_S] = wm.req_per_s;
		r->m[M_REQ_P99] = wm.req_p99_ns / 1e3;
		r->m[M_WAKE_P99] = wm.wake_p99_ns / 1e3;
		r->m[M_UNSERVED] = wm.unserved;
		r->m[M_REQUESTS] = wm.requests;
	}
	if (bgi >= 0) {
		scxpol_sim_group_stats(sim, (unsigned int)bgi, &bg);
		r->m[M_BG_RQ_P99] = (double)bg.rqdelay.p99 / 1e3;
		r->m[M_BG_BURST] = (double)bg.burst.mean / 1e3;
		r->m[M_BG_CPU_PCT] = 100.0 * (double)bg.cpu_ns / (double)(st.idle_ns + st.busy_ns);
		r->m[M_BG_UNITS] = wm.units_per_s;
	}
	r->m[M_E2E_P50] = wm.e2e_p50_ms;
	r->m[M_E2E_P99] = wm.e2e_p99_ms;
	r->m[M_E2E_P999] = wm.e2e_p999_ms;
	r->m[M_COST] = wm.cost_ms;
	r->m[M_UTIL] = wm.util;
	r->nr_cdf = wm.nr_cdf;
	memcpy(r->cdf, wm.cdf, sizeof(r->cdf));
}

/* The run's JSON object's members: the engine's groups, the workloads', the policy's. */
static void run_json(FILE *f, struct scxpol_sim *sim, struct loader *l, struct wl *wls,
		     unsigned int n)
{
	struct scxpol_sim_group_stats g;
	struct scxpol_sim_stats st;
	unsigned int i;

	scxpol_sim_stats(sim, &st);
	fprintf(f, "\"sim\":{\"events\":%llu,\"callbacks\":%llu,\"switches\":%llu,\"tasks\":%llu,"
		   "\"idle_s\":%.6f,\"busy_s\":%.6f},\"policy_info\":{",
		(unsigned long long)st.events, (unsigned long long)st.callbacks,
		(unsigned long long)st.switches, (unsigned long long)st.tasks,
		(double)st.idle_ns / 1e9, (double)st.busy_ns / 1e9);
	loader_report(l, f);
	fprintf(f, "},\"groups\":[");
	for (i = 0; i < scxpol_sim_nr_groups(sim); i++) {
		scxpol_sim_group_stats(sim, i, &g);
		fprintf(f, "%s{\"name\":\"%s\",\"tasks\":%u,\"wakeups\":%llu,\"wakeups_idle\":%llu,"
			   "\"wakeups_remote\":%llu,\"preempt\":%llu,\"cpu_s\":%.6f",
			i ? "," : "", g.name, g.tasks, (unsigned long long)g.wakeups,
			(unsigned long long)g.wakeups_idle, (unsigned long long)g.wakeups_remote,
			(unsigned long long)g.preempt, (double)g.cpu_ns / 1e9);
		lat_members(f, "rqdelay", &g.rqdelay);
		lat_members(f, "wake", &g.wake);
		lat_members(f, "wake_idle", &g.wake_idle);
		lat_members(f, "burst", &g.burst);
		fprintf(f, "}");
	}
	fprintf(f, "],\"workload\":[");
	for (i = 0; i < n; i++) {
		static const char *const kinds[] = { "rr", "hogs", "schbench", "tasks", "trace",
						     "faas" };

		fprintf(f, "%s{\"kind\":\"%s\",\"name\":\"%s\",", i ? "," : "",
			kinds[wls[i].env.comp->kind], wls[i].env.comp->c.name);
		wls[i].kind->report(&wls[i], f);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static bool all_done(struct wl *wls, unsigned int n)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < n; i++) {
		if (!wls[i].kind->done)
			return false;
		if (!wls[i].kind->done(&wls[i]))
			return false;
		any = true;
	}
	return any;
}

static const char *first_wl_error(struct wl *wls, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (wls[i].env.err[0])
			return wls[i].env.err;
	return NULL;
}

/* Run @spec under the policy of @text into @r. 0, 1 (the run failed: r->err), 2 bad input. */
static int run_one(const struct opts *o, const struct spec *spec, const struct machine *m,
		   const char *text, const char *dir, struct run *r)
{
	struct scxpol_sim_opts so = { .sz = sizeof(so), .nr_cpus = m->cpus, .core = m->core,
				      .llc = m->llc, .node = m->node, .tick_ns = spec->tick_ns,
				      .ctxsw_ns = spec->ctxsw_ns, .ipi_ns = spec->ipi_ns,
				      .idle_exit_ns = spec->idle_exit_ns };
	uint64_t end = spec->warmup_ns + spec->duration_ns, step;
	struct cg_ctx cg = { spec };
	struct timespec t0, t1;
	struct scxpol_sim *sim = NULL;
	struct loader *l = NULL;
	const char *werr;
	struct wl wls[SPEC_MAX_COMPONENTS];
	size_t jsonlen = 0;
	unsigned int i, n = 0;
	FILE *jf;
	int rc = 0, e;

	memset(wls, 0, sizeof(wls));
	snprintf(r->label, sizeof(r->label), "%s", text);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (loader_open(text, dir, m, &l, r->err, sizeof(r->err)))
		return 2;
	loader_sim_opts(l, &so);
	sim = scxpol_sim_new(&so);
	if (!sim) {
		snprintf(r->err, sizeof(r->err), "%s: %s", text, scxpol_sim_last_error());
		loader_close(l);
		return 1;
	}
	for (i = 0; i < spec->nr_comps; i++) {
		const char *c = spec->comps[i].c.cgroup;
		unsigned long long id = c[0] ? cgroup_id(&cg, c) : 0;

		e = id ? scxpol_sim_cgroup_new(sim, id, 0) : 0;
		if (e && e != -EEXIST) {
			snprintf(r->err, sizeof(r->err), "%s: cgroup %s: %s", text, c,
				 scxpol_sim_last_error());
			rc = 1;
			goto out;
		}
	}
	if (loader_loaded(l, sim, cgroup_id, &cg, r->err, sizeof(r->err))) {
		rc = 2;
		goto out;
	}
	for (i = 0; i < spec->nr_comps; i++, n++) {
		struct wl *w = &wls[i];
		const struct comp *c = &spec->comps[i];

		w->kind = wl_kind_of(c->kind);
		w->env = (struct wl_env){ .sim = sim, .spec = spec, .comp = c, .index = i,
					  .group = scxpol_sim_group(sim, c->c.name),
					  .cgroup = c->c.cgroup[0] ? cgroup_id(&cg, c->c.cgroup) : 0,
					  .t0 = spec->warmup_ns, .t_end = end,
					  .policy = loader_wl_policy(l) };
		scxpol_sim_rng_seed(&w->env.rng, spec->seed, i);
		e = w->kind->start(w);
		if (e) {
			if (!w->env.err[0])
				snprintf(w->env.err, sizeof(w->env.err), "%s:%u: workload %s: %s",
					 spec->path, c->c.line, c->c.name, strerror(-e));
			snprintf(r->err, sizeof(r->err), "%s", w->env.err);
			rc = scxpol_sim_exit_info(sim)->kind ? 1 : 2;
			n++;
			goto out;
		}
	}
	e = 0;
	if (spec->warmup_ns) {
		e = scxpol_sim_run(sim, spec->warmup_ns);
		for (i = 0; !e && i < n; i++)
			wls[i].kind->window(&wls[i]);
		if (!e)
			scxpol_sim_stats_reset(sim);
	}
	/* in steps, to end a finite workload (a trace) when it is all done */
	step = spec->duration_ns / 100 ? spec->duration_ns / 100 : 1;
	while (!e && scxpol_sim_now(sim) < end && !all_done(wls, n) && !first_wl_error(wls, n))
		e = scxpol_sim_run(sim, scxpol_sim_now(sim) + step < end ?
					       scxpol_sim_now(sim) + step : end);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	if (e) {
		snprintf(r->err, sizeof(r->err), "%s: at %.6f s: %s", text,
			 (double)scxpol_sim_exit_info(sim)->at_ns / 1e9, scxpol_sim_last_error());
		rc = 1;
		goto out;
	}
	werr = first_wl_error(wls, n);
	if (werr) {
		snprintf(r->err, sizeof(r->err), "%s", werr);
		rc = 1;
		goto out;
	}
	metrics(r, sim, wls, n, (double)(scxpol_sim_now(sim) - spec->warmup_ns) / 1e9);
	jf = open_memstream(&r->json, &jsonlen);
	if (!jf) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		rc = 1;
		goto out;
	}
	run_json(jf, sim, l, wls, n);
	fclose(jf);
	{
		struct scxpol_sim_stats st;

		scxpol_sim_stats(sim, &st);
		r->events = st.events;
		r->callbacks = st.callbacks;
		r->sim_s = (double)scxpol_sim_now(sim) / 1e9;
		r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
out:
	(void)o;
	for (i = 0; i < n; i++)
		if (wls[i].kind)
			wls[i].kind->free(&wls[i]);
	scxpol_sim_free(sim);
	loader_close(l);
	r->status = rc;
	return rc;
}

static void apply_overrides(const struct opts *o, struct spec *s)
{
	if (o->cpus)
		s->cpus = o->cpus;
	if (o->smt)
		s->smt = o->smt;
	if (o->llcs)
		s->llcs = o->llcs;
	if (o->nodes)
		s->nodes = o->nodes;
	/* a shape on the command line replaces the spec's sysfs tree, and --sysfs its shape */
	if (o->cpus || o->smt || o->llcs || o->nodes)
		s->sysfs[0] = '\0';
	if (o->sysfs) {
		snprintf(s->sysfs, sizeof(s->sysfs), "%s", o->sysfs);
		snprintf(s->sysfs_where, sizeof(s->sysfs_where), "--sysfs %s", o->sysfs);
	}
	if (o->duration_ns)
		s->duration_ns = o->duration_ns;
	if (o->has_warmup)
		s->warmup_ns = o->warmup_ns;
	if (o->tick_ns)
		s->tick_ns = o->tick_ns;
	if (o->has_ctxsw)
		s->ctxsw_ns = o->ctxsw_ns;
	if (o->has_ipi)
		s->ipi_ns = o->ipi_ns;
	if (o->has_idle_exit)
		s->idle_exit_ns = o->idle_exit_ns;
	if (o->has_seed)
		s->seed = o->seed;
}

/* The library's messages come back through scxpol_last_error(), with context added. */
static void quiet(enum scxpol_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)msg;
	(void)ctx;
}

int main(int argc, char **argv)
{
	static struct spec spec;
	struct opts o = { 0 };
	char err[ERR_LEN], dirbuf[PATH_MAX];
	struct machine m = { 0 };
	struct run *runs;
	const char *dir;
	unsigned int i, n;
	int r, worst = 0;
	FILE *out = stdout;

	scxpol_log_set(quiet, SCXPOL_LOG_WARN, NULL);
	r = parse_args(argc, argv, &o);
	if (r)
		return r;
	if (spec_load(o.spec, &spec, err, sizeof(err))) {
		fprintf(stderr, "scxpol-sim: %s\n", err);
		return 2;
	}
	apply_overrides(&o, &spec);
	if (spec.sysfs[0]) {
		r = machine_sysfs(&spec, &m, err, sizeof(err));
		if (r == -EINVAL) {
			fprintf(stderr, "scxpol-sim: %s: %s\n", spec.sysfs_where, err);
			return 2;
		}
	} else {
		if (spec_check_machine(&spec, err, sizeof(err))) {
			fprintf(stderr, "scxpol-sim: the machine: %s\n", err);
			return 2;
		}
		r = machine_shape(&spec, &m);
	}
	if (r) {
		fprintf(stderr, "scxpol-sim: out of memory\n");
		return 1;
	}
	if (spec_resolve(&spec, err, sizeof(err))) {
		fprintf(stderr, "scxpol-sim: %s\n", err);
		return 2;
	}
	n = o.nr_policies ? o.nr_policies : spec.nr_policies ? spec.nr_policies : 1;
	runs = calloc(n, sizeof(*runs));
	if (!runs) {
		fprintf(stderr, "scxpol-sim: out of memory\n");
		return 1;
	}
	dir = policy_dir(&o, dirbuf, sizeof(dirbuf));
	for (i = 0; i < n; i++) {
		const char *text = o.nr_policies ? o.policies[i] :
				   spec.nr_policies ? spec.policies[i] : "eevdf";

		r = run_one(&o, &spec, &m, text, dir, &runs[i]);
		if (r == 2) {
			fprintf(stderr, "scxpol-sim: %s\n", runs[i].err);
			worst = 2;
			break;
		}
		if (r) {
			fprintf(stderr, "scxpol-sim: %s\n", runs[i].err);
			worst = 1;
		}
		if (o.bench && !r)
			printf("%-32s %10llu events %10llu callbacks %7.2f s simulated in %7.3f s "
			       "CPU: %9.0f events/s %7.1f ns/event %9.0f callbacks/s\n",
			       runs[i].label, runs[i].events, runs[i].callbacks, runs[i].sim_s,
			       runs[i].wall_s, runs[i].events / runs[i].wall_s,
			       runs[i].wall_s * 1e9 / (double)runs[i].events,
			       runs[i].callbacks / runs[i].wall_s);
	}
	if (worst == 2 || o.bench)
		goto done;
	if (!o.quiet)
		report_table(stderr, &spec, runs, n);
	if (o.out && !(out = fopen(o.out, "w"))) {
		fprintf(stderr, "scxpol-sim: --out %s: %s\n", o.out, strerror(errno));
		worst = 2;
		goto done;
	}
	report_json(out, &spec, runs, n);
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "scxpol-sim: --out %s: %s\n", o.out, strerror(errno));
		worst = 2;
	}
	if (o.svg && report_svg(o.svg, &spec, runs, n, err, sizeof(err))) {
		fprintf(stderr, "scxpol-sim: %s\n", err);
		worst = 2;
	}
done:
	for (i = 0; i < n; i++)
		free(runs[i].json);
	free(runs);
	free(m.core);
	free(m.llc);
	free(m.node);
	return worst;
}
