// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Publishing pool plans to the BPF side (bpf-lib/scxpol/pool.bpf.h): size
 * its maps before load, stage a plan in its staging maps and run its commit
 * program, read back what is published. Layouts: <scxpol/abi/pool.h>.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/abi/pool.h"
#include "scxpol/pool.h"
#include "scxpol/sched.h"
#include "scxpol/topology.h"

#define CONF_SECTION ".rodata.scxpol_pool"
#define COMMIT_PROG "scxpol_pool_commit"
#define QUERY_PROG "scxpol_pool_query"
#define SYNC_MAP "scxpol_pool_sync"

/* Map name and its number of entries for limits @c. */
struct sized_map {
	const char *name;
	uint64_t (*entries)(const struct scxpol_pool_conf *c);
};

static uint64_t n_halves(const struct scxpol_pool_conf *c)
{
	return 2ULL * c->max_pools;
}

static uint64_t n_llcs(const struct scxpol_pool_conf *c)
{
	return 2ULL * c->max_pools * c->max_llcs;
}

static uint64_t n_cpus2(const struct scxpol_pool_conf *c)
{
	return 2ULL * c->nr_cpus;
}

static uint64_t n_order2(const struct scxpol_pool_conf *c)
{
	return 2ULL * c->max_pools * c->max_pools;
}

static uint64_t n_pools1(const struct scxpol_pool_conf *c)
{
	return c->max_pools + 1ULL;
}

static uint64_t n_pools(const struct scxpol_pool_conf *c)
{
	return c->max_pools;
}

static uint64_t n_masks(const struct scxpol_pool_conf *c)
{
	return (uint64_t)c->max_pools * c->nr_words;
}

static uint64_t n_cpus(const struct scxpol_pool_conf *c)
{
	return c->nr_cpus;
}

static uint64_t n_order(const struct scxpol_pool_conf *c)
{
	return (uint64_t)c->max_pools * c->max_pools;
}

static const struct sized_map sized_maps[] = {
	{ "scxpol_pool_slots", n_halves },
	{ "scxpol_pool_llcs", n_llcs },
	{ "scxpol_pool_cpus", n_cpus2 },
	{ "scxpol_pool_curr", n_cpus },
	{ "scxpol_pool_order", n_order2 },
	{ "scxpol_pool_clock", n_pools1 },
	{ "scxpol_pool_queued", n_pools1 },
	{ "scxpol_pool_pending", n_pools1 },
	{ "scxpol_pool_stage", n_pools },
	{ "scxpol_pool_stage_mask", n_masks },
	{ "scxpol_pool_stage_cpu", n_cpus },
	{ "scxpol_pool_stage_order", n_order },
};

void scxpol_pool_conf_init(struct scxpol_pool_conf *c, unsigned int nr_cpus, unsigned int max_pools)
{
	memset(c, 0, sizeof(*c));
	c->max_pools = max_pools;
	c->nr_cpus = nr_cpus;
	c->max_llcs = nr_cpus; /* dense LLC indices: never more LLCs than CPUs */
	c->nr_words = (nr_cpus + 63) / 64;
}

bool scxpol_pool_sized_map(unsigned int i, const struct scxpol_pool_conf *c, const char **name,
			   unsigned long long *entries)
{
	if (i >= ARRAY_SIZE(sized_maps))
		return false;
	*name = sized_maps[i].name;
	*entries = sized_maps[i].entries(c);
	return true;
}

static int no_pool_bpf(struct scxpol_sched *s, const char *what)
{
	return scxpol_err(ENOENT, "%s: the BPF object has no %s: the policy must include "
			  "<scxpol/pool.bpf.h> to use pools", scxpol_sched_name(s), what);
}

/* The pool limits in the object's .rodata.scxpol_pool section, in *@out. */
static int find_conf(struct scxpol_sched *s, struct bpf_object *obj,
		     struct scxpol_pool_conf **out)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, CONF_SECTION);
	size_t sz = 0;
	void *v;

	if (!map)
		return no_pool_bpf(s, "section '" CONF_SECTION "'");
	v = bpf_map__initial_value(map, &sz);
	if (!v || sz != sizeof(struct scxpol_pool_conf))
		return scxpol_err(EINVAL, "%s: section '" CONF_SECTION "' is %zu bytes, want %zu: "
				  "the policy was built against another <scxpol/pool.bpf.h>",
				  scxpol_sched_name(s), sz, sizeof(struct scxpol_pool_conf));
	*out = v;
	return 0;
}

static struct bpf_map *find_map(struct scxpol_sched *s, struct bpf_object *obj, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
	char what[64];

	if (!map) {
		snprintf(what, sizeof(what), "map '%s'", name);
		no_pool_bpf(s, what);
	}
	return map;
}

/* The pool limits, in *@out, for @fn to change before load. */
static int conf_before_load(struct scxpol_sched *s, struct bpf_object *obj, const char *fn,
			    struct scxpol_pool_conf **out)
{
	int r = find_conf(s, obj, out);

	if (r)
		return r;
	if (bpf_map__fd(bpf_object__find_map_by_name(obj, CONF_SECTION)) >= 0)
		return scxpol_err(EINVAL, "%s: %s: the policy is already loaded; call it from the "
				  "configure hook", scxpol_sched_name(s), fn);
	return 0;
}

int scxpol_pool_setup(struct scxpol_sched *s, unsigned int max_pools)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_object *obj = scxpol_sched_object(s);
	struct scxpol_pool_conf *conf, c;
	const char *name = scxpol_sched_name(s);
	struct bpf_map *map;
	const char *mname;
	unsigned long long n;
	int nr_cpus, r;
	unsigned int i;

	if (!obj)
		return scxpol_err(EINVAL, "%s: scxpol_pool_setup: no BPF object is open", name);
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus <= 0)
		return scxpol_err(nr_cpus < 0 ? -nr_cpus : EINVAL,
				  "%s: cannot count the possible CPUs: %s", name,
				  strerror(nr_cpus < 0 ? -nr_cpus : EINVAL));
	if (!max_pools || max_pools > (unsigned int)nr_cpus)
		return scxpol_err(EINVAL, "%s: scxpol_pool_setup: max_pools %u: want 1..%d (a pool "
				  "needs a CPU; this machine has %d possible CPUs)", name, max_pools,
				  nr_cpus, nr_cpus);
	r = conf_before_load(s, obj, "scxpol_pool_setup", &conf);
	if (r)
		return r;
	scxpol_pool_conf_init(&c, (unsigned int)nr_cpus, max_pools);
	for (i = 0; scxpol_pool_sized_map(i, &c, &mname, &n); i++) {
		map = find_map(s, obj, mname);
		if (!map)
			return -ENOENT;
		if (n > UINT32_MAX)
			return scxpol_err(E2BIG, "%s: scxpol_pool_setup: max_pools %u needs %llu "
					  "entries in map '%s'; use fewer pools", name, max_pools,
					  (unsigned long long)n, mname);
		r = bpf_map__set_max_entries(map, (uint32_t)n);
		if (r)
			return scxpol_err(-r, "%s: cannot size map '%s' to %llu entries: %s", name,
					  mname, (unsigned long long)n, strerror(-r));
	}
	c.require = conf->require; /* scxpol_pool_require() may come first */
	*conf = c;
	scxpol_log(SCXPOL_LOG_DEBUG, "%s: pool maps sized for %u pools, %u CPUs", name, max_pools,
		   c.nr_cpus);
	return 0;
}

int scxpol_pool_require(struct scxpol_sched *s, unsigned int req)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_object *obj = scxpol_sched_object(s);
	const char *name = scxpol_sched_name(s);
	struct scxpol_pool_conf *conf;
	int r;

	if (!obj)
		return scxpol_err(EINVAL, "%s: scxpol_pool_require: no BPF object is open", name);
	if (req & ~SCXPOL_POOL_REQ_ALL)
		return scxpol_err(EINVAL, "%s: scxpol_pool_require: unknown requirements 0x%x",
				  name, req & ~SCXPOL_POOL_REQ_ALL);
	r = conf_before_load(s, obj, "scxpol_pool_require", &conf);
	if (r)
		return r;
	conf->require = req;
	return 0;
}

/* --- staging ------------------------------------------------------------- */

void scxpol_pool_staged_free(struct scxpol_pool_staged *st)
{
	free(st->descs);
	free(st->masks);
	free(st->cpus);
	free(st->order);
	memset(st, 0, sizeof(*st));
}

/*
 * How far apart pools @a and @b are: the smallest LLC distance between an
 * LLC of one and an LLC of the other (@llcs: nr_llcs flags per pool).
 */
static unsigned int pool_distance(const struct scxpol_topo *t, const bool *llcs,
				  unsigned int nr_llcs, unsigned int a, unsigned int b)
{
	unsigned int best = UINT32_MAX, x, y, d;

	for (x = 0; x < nr_llcs; x++) {
		if (!llcs[a * nr_llcs + x])
			continue;
		for (y = 0; y < nr_llcs; y++) {
			if (!llcs[b * nr_llcs + y])
				continue;
			d = scxpol_topo_llc_distance(t, x, y);
			if (d < best)
				best = d;
		}
	}
	return best;
}

/*
 * Whether pool @a goes before pool @b in pool @p's order list: the nearer
 * LLC first, then the nearer index, the lower one first on a tie: among
 * pools at one LLC distance, the neighbours of @p expanding on each side
 * (p-1, p+1, p-2, p+2, ...), the victim order of the serverless paper's
 * work stealing.
 */
static bool order_before(const unsigned int *dist, unsigned int p, unsigned int a, unsigned int b)
{
	unsigned int da = a > p ? a - p : p - a, db = b > p ? b - p : p - b;

	if (dist[a] != dist[b])
		return dist[a] < dist[b];
	return da != db ? da < db : a < b;
}

/* Each pool's order list: the other pools by distance, then index (order_before()). */
static int stage_order(const struct scxpol_pool_plan *plan, const struct scxpol_pool_conf *conf,
		       struct scxpol_pool_staged *st)
{
	const struct scxpol_topo *t = scxpol_pool_plan_topo(plan);
	unsigned int nr_llcs = scxpol_topo_nr_llcs(t), n = st->nr_pools;
	unsigned int p, q, k, j, *dist;
	bool *llcs;
	int cpu;

	llcs = calloc((size_t)n * (nr_llcs ? nr_llcs : 1), sizeof(*llcs));
	dist = calloc(n, sizeof(*dist));
	if (!llcs || !dist) {
		free(llcs);
		free(dist);
		return scxpol_err(ENOMEM, "out of memory");
	}
	for (p = 0; p < n; p++)
		scxpol_cpuset_for_each(cpu, scxpol_pool_plan_cpus(plan, p)) {
			int llc = scxpol_topo_cpu(t, (unsigned int)cpu)->llc;

			if (llc >= 0 && (unsigned int)llc < nr_llcs)
				llcs[p * nr_llcs + (unsigned int)llc] = true;
		}
	for (p = 0; p < n; p++) {
		unsigned int *row = st->order + (size_t)p * conf->max_pools;

		for (q = 0; q < n; q++)
			dist[q] = pool_distance(t, llcs, nr_llcs, p, q);
		k = 0;
		for (q = 0; q < n; q++) {
			if (q == p)
				continue;
			for (j = k; j > 0 && order_before(dist, p, q, row[j - 1]); j--)
				row[j] = row[j - 1];
			row[j] = q;
			k++;
		}
		st->descs[p].nr_order = k;
	}
	free(llcs);
	free(dist);
	return 0;
}

int scxpol_pool_stage_plan(const struct scxpol_pool_plan *plan, const struct scxpol_pool_conf *conf,
			   struct scxpol_pool_staged *out)
{
	const struct scxpol_topo *t = scxpol_pool_plan_topo(plan);
	struct scxpol_pool_staged st = { 0 };
	unsigned int p, n = scxpol_pool_plan_nr_pools(plan);
	int cpu, r;

	if (!n)
		return scxpol_err(EINVAL, "pool plan is empty: publish at least one pool");
	if (n > conf->max_pools)
		return scxpol_err(E2BIG, "pool plan has %u pools; scxpol_pool_setup() sized the "
				  "policy for %u", n, conf->max_pools);
	st.nr_pools = n;
	st.descs = calloc(n, sizeof(*st.descs));
	st.masks = calloc((size_t)n * conf->nr_words, sizeof(*st.masks));
	st.cpus = calloc(conf->nr_cpus, sizeof(*st.cpus));
	st.order = calloc((size_t)n * conf->max_pools, sizeof(*st.order));
	if (!st.descs || !st.masks || !st.cpus || !st.order) {
		scxpol_pool_staged_free(&st);
		return scxpol_err(ENOMEM, "out of memory");
	}
	for (cpu = 0; (unsigned int)cpu < conf->nr_cpus; cpu++) {
		const struct scxpol_topo_cpu *tc = scxpol_topo_cpu(t, (unsigned int)cpu);

		st.cpus[cpu].pool = -1;
		/* what SCXPOL_POOL_REQ_COVER checks against: the plan's view */
		if (tc && tc->online)
			st.cpus[cpu].flags = SCXPOL_POOL_CPU_ONLINE;
	}
	for (p = 0; p < n; p++) {
		const char *name = scxpol_pool_plan_name(plan, p);

		snprintf(st.descs[p].name, sizeof(st.descs[p].name), "%s", name);
		st.descs[p].flags = scxpol_pool_plan_flags(plan, p);
		scxpol_cpuset_for_each(cpu, scxpol_pool_plan_cpus(plan, p)) {
			const struct scxpol_topo_cpu *tc = scxpol_topo_cpu(t, (unsigned int)cpu);

			if ((unsigned int)cpu >= conf->nr_cpus) {
				scxpol_pool_staged_free(&st);
				return scxpol_err(ERANGE, "pool \"%s\": CPU %d is beyond the %u possible "
						  "CPUs the policy was set up for", name, cpu,
						  conf->nr_cpus);
			}
			if (!tc || !tc->online || tc->llc < 0 || tc->node < 0) {
				scxpol_pool_staged_free(&st);
				return scxpol_err(EINVAL, "pool \"%s\": CPU %d is offline in the plan's "
						  "topology", name, cpu);
			}
			st.masks[(size_t)p * conf->nr_words + (unsigned int)cpu / 64] |=
				1ULL << (cpu % 64);
			st.cpus[cpu].pool = (int)p;
			st.cpus[cpu].llc = (unsigned int)tc->llc;
			st.cpus[cpu].node = (unsigned int)tc->node;
		}
	}
	r = stage_order(plan, conf, &st);
	if (r) {
		scxpol_pool_staged_free(&st);
		return r;
	}
	*out = st;
	return 0;
}

/* --- publishing ---------------------------------------------------------- */

static int put(struct scxpol_sched *s, struct bpf_map *map, uint32_t key, const void *val)
{
	int r = bpf_map_update_elem(bpf_map__fd(map), &key, val, BPF_ANY);

	if (r)
		return scxpol_err(errno, "%s: cannot write entry %u of map '%s': %s",
				  scxpol_sched_name(s), key, bpf_map__name(map), strerror(errno));
	return 0;
}

/* Write @st into the staging maps. */
static int write_stage(struct scxpol_sched *s, struct bpf_object *obj,
		       const struct scxpol_pool_conf *conf, const struct scxpol_pool_staged *st)
{
	struct bpf_map *desc, *mask, *cpus, *order;
	uint32_t p, i;
	int r;

	if (!(desc = find_map(s, obj, "scxpol_pool_stage")) ||
	    !(mask = find_map(s, obj, "scxpol_pool_stage_mask")) ||
	    !(cpus = find_map(s, obj, "scxpol_pool_stage_cpu")) ||
	    !(order = find_map(s, obj, "scxpol_pool_stage_order")))
		return -ENOENT;
	for (p = 0; p < st->nr_pools; p++) {
		r = put(s, desc, p, &st->descs[p]);
		for (i = 0; !r && i < conf->nr_words; i++)
			r = put(s, mask, p * conf->nr_words + i, &st->masks[p * conf->nr_words + i]);
		for (i = 0; !r && i < st->descs[p].nr_order; i++)
			r = put(s, order, p * conf->max_pools + i, &st->order[p * conf->max_pools + i]);
		if (r)
			return r;
	}
	for (i = 0; i < conf->nr_cpus; i++) {
		r = put(s, cpus, i, &st->cpus[i]);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Wait until no BPF callback still reads the table half the commit is about
 * to rebuild: replacing an entry of a map-in-map makes the kernel wait for
 * an RCU grace period, and callbacks run inside RCU read sections.
 */
static int wait_readers(struct scxpol_sched *s, struct bpf_object *obj)
{
	struct bpf_map *outer = find_map(s, obj, SYNC_MAP);
	uint32_t zero = 0;
	int inner, r;

	if (!outer)
		return -ENOENT;
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "scxpol_sync", sizeof(uint32_t),
			       sizeof(uint32_t), 1, NULL);
	if (inner < 0)
		return scxpol_err(errno, "%s: cannot create a map to wait for BPF readers: %s",
				  scxpol_sched_name(s), strerror(errno));
	r = bpf_map_update_elem(bpf_map__fd(outer), &zero, &inner, BPF_ANY);
	if (r)
		r = scxpol_err(errno, "%s: cannot update map '" SYNC_MAP "': %s",
			       scxpol_sched_name(s), strerror(errno));
	close(inner);
	return r;
}

static const char *pool_name(const struct scxpol_pool_plan *plan, int pool)
{
	const char *n = pool >= 0 ? scxpol_pool_plan_name(plan, (unsigned int)pool) : NULL;

	return n ? n : "?";
}

/* @set as a CPU list in @buf, cut with "..." when longer than @len. */
static void format_cut(const struct scxpol_cpuset *set, char *buf, size_t len)
{
	size_t need = (size_t)scxpol_cpuset_count(set) * 12 + 1;
	char *tmp = malloc(need);

	if (!tmp || scxpol_cpuset_format(set, tmp, need) < 0)
		snprintf(buf, len, "?");
	else if (strlen(tmp) < len)
		memcpy(buf, tmp, strlen(tmp) + 1);
	else
		snprintf(buf, len, "%.*s...", (int)len - 4, tmp);
	free(tmp);
}

/*
 * The online CPUs of @plan's topology in none of its pools, as a CPU list
 * in @buf, and how many: what the commit saw (it reads the tables staged
 * from @plan). Without memory for that, the commit's first one and count.
 */
static unsigned int uncovered(const struct scxpol_pool_plan *plan,
			      const struct scxpol_pool_commit_args *a, char *buf, size_t len)
{
	struct scxpol_cpuset *bare =
		scxpol_cpuset_dup(scxpol_topo_online(scxpol_pool_plan_topo(plan)));
	unsigned int p, n = 0;

	if (bare) {
		for (p = 0; p < scxpol_pool_plan_nr_pools(plan); p++)
			scxpol_cpuset_andnot(bare, scxpol_pool_plan_cpus(plan, p));
		n = scxpol_cpuset_count(bare);
	}
	if (n) {
		format_cut(bare, buf, len);
	} else {
		n = a->other > 1 ? (unsigned int)a->other : 1;
		if (n > 1)
			snprintf(buf, len, "%d and %u more", a->cpu, n - 1);
		else
			snprintf(buf, len, "%d", a->cpu);
	}
	scxpol_cpuset_free(bare);
	return n;
}

int scxpol_pool_explain(const char *name, const struct scxpol_pool_plan *plan,
			const struct scxpol_pool_conf *conf,
			const struct scxpol_pool_commit_args *a)
{
	int err = a->err < 0 ? -a->err : EINVAL;
	char list[SCXPOL_POOL_CPUS_LEN];
	unsigned int n;

	switch (a->reason) {
	case SCXPOL_POOL_REJ_NR_POOLS:
		return scxpol_err(err, "%s: pool plan rejected: %d pools, the policy takes 1..%u",
				  name, a->other, conf->max_pools);
	case SCXPOL_POOL_REJ_FLAGS:
		return scxpol_err(err, "%s: pool plan rejected: pool \"%s\" (%d) has unknown flags "
				  "0x%x", name, pool_name(plan, a->pool), a->pool, (unsigned int)a->other);
	case SCXPOL_POOL_REJ_OVERLAP:
		return scxpol_err(err, "%s: pool plan rejected: pools \"%s\" (%d) and \"%s\" (%d) "
				  "both contain CPU %d", name, pool_name(plan, a->pool), a->pool,
				  pool_name(plan, a->other), a->other, a->cpu);
	case SCXPOL_POOL_REJ_CPU_RANGE:
		return scxpol_err(err, "%s: pool plan rejected: pool \"%s\" (%d) has CPU %d, the "
				  "kernel's CPU ids end at %d", name, pool_name(plan, a->pool),
				  a->pool, a->cpu, a->other - 1);
	case SCXPOL_POOL_REJ_CPU_TABLE:
		return scxpol_err(err, "%s: pool plan rejected: CPU %d is in pool %d's CPU bitmap "
				  "but its per-CPU entry says pool %d", name, a->cpu, a->pool, a->other);
	case SCXPOL_POOL_REJ_LLC_RANGE:
		return scxpol_err(err, "%s: pool plan rejected: CPU %d of pool \"%s\" (%d) has LLC "
				  "index %d, beyond what the maps were sized for", name, a->cpu,
				  pool_name(plan, a->pool), a->pool, a->other);
	case SCXPOL_POOL_REJ_EMPTY:
		return scxpol_err(err, "%s: pool plan rejected: pool \"%s\" (%d) has no CPU", name,
				  pool_name(plan, a->pool), a->pool);
	case SCXPOL_POOL_REJ_ORDER:
		return scxpol_err(err, "%s: pool plan rejected: the order list of pool \"%s\" (%d) "
				  "names pool %d", name, pool_name(plan, a->pool), a->pool, a->other);
	case SCXPOL_POOL_REJ_NOMEM:
		return scxpol_err(err, "%s: pool plan not published: the kernel is out of memory "
				  "for cpumasks", name);
	case SCXPOL_POOL_REJ_UNCOVERED:
		n = uncovered(plan, a, list, sizeof(list));
		return scxpol_err(err, "%s: pool plan rejected: online CPU%s %s %s in no pool; the "
				  "policy requires every online CPU in a pool", name,
				  n > 1 ? "s" : "", list, n > 1 ? "are" : "is");
	case SCXPOL_POOL_REJ_NOT_SETUP:
		return scxpol_err(err, "%s: pool plan not published: the pool maps are not sized; "
				  "call scxpol_pool_setup() from the configure hook", name);
	default:
		return scxpol_err(err, "%s: pool plan rejected: %s (reason %u)", name,
				  strerror(err), a->reason);
	}
}

/* The loaded syscall program @name. */
static int prog_fd(struct scxpol_sched *s, struct bpf_object *obj, const char *prog)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	int fd;

	if (!p) {
		char what[64];

		snprintf(what, sizeof(what), "program '%s'", prog);
		return no_pool_bpf(s, what);
	}
	fd = bpf_program__fd(p);
	if (fd < 0)
		return scxpol_err(EINVAL, "%s: the policy is not loaded: publish pools after "
				  "scxpol_sched_load() (e.g. from the loaded hook)",
				  scxpol_sched_name(s));
	return fd;
}

int scxpol_pool_publish(struct scxpol_sched *s, const struct scxpol_pool_plan *plan)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_object *obj = scxpol_sched_object(s);
	struct scxpol_pool_commit_args args = { 0 };
	struct scxpol_pool_staged st;
	struct scxpol_pool_conf *conf;
	char text[512];
	int fd, r;

	scxpol_err_clear();
	if (!plan)
		return scxpol_err(EINVAL, "%s: scxpol_pool_publish: plan is NULL",
				  scxpol_sched_name(s));
	if (!obj)
		return scxpol_err(EINVAL, "%s: scxpol_pool_publish: no BPF object is open",
				  scxpol_sched_name(s));
	r = find_conf(s, obj, &conf);
	if (r)
		return r;
	if (!conf->max_pools)
		return scxpol_err(EINVAL, "%s: scxpol_pool_publish: the pool maps are not sized; "
				  "call scxpol_pool_setup() from the configure hook",
				  scxpol_sched_name(s));
	fd = prog_fd(s, obj, COMMIT_PROG);
	if (fd < 0)
		return fd;
	r = scxpol_pool_stage_plan(plan, conf, &st);
	if (r) {
		snprintf(text, sizeof(text), "%s", scxpol_last_error());
		return scxpol_err(-r, "%s: %s", scxpol_sched_name(s), text);
	}
	r = write_stage(s, obj, conf, &st);
	args.nr_pools = st.nr_pools;
	scxpol_pool_staged_free(&st);
	if (!r)
		r = wait_readers(s, obj);
	if (r)
		return r;
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &args, .ctx_size_in = sizeof(args));

		r = bpf_prog_test_run_opts(fd, &o);
		if (r)
			return scxpol_err(errno, "%s: cannot run program '" COMMIT_PROG "': %s",
					  scxpol_sched_name(s), strerror(errno));
		if ((int)o.retval)
			return scxpol_pool_explain(scxpol_sched_name(s), plan, conf, &args);
	}
	if (scxpol_pool_plan_format(plan, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "%u pools", scxpol_pool_plan_nr_pools(plan));
	scxpol_log(SCXPOL_LOG_INFO, "%s: published pools (generation %llu): %s",
		   scxpol_sched_name(s), (unsigned long long)args.gen, text);
	/* pool hints name pools of this plan only (lib/hint.c) */
	return scxpol_hint_pools_published(s, args.nr_pools);
}

/* --- the plan hook (struct scxpol_sched_opts): the pool module ---------- */

/* The plan hook's plan and the topology it was made for, kept in the handle. */
struct pool_planned {
	struct scxpol_pool_plan *plan;
	struct scxpol_topo *topo;
};

static void planned_free(void *state)
{
	struct pool_planned *pl = state;

	scxpol_pool_plan_free(pl->plan);
	scxpol_topo_free(pl->topo);
	pl->plan = NULL;
	pl->topo = NULL;
}

/* At each open: run the plan hook over the topology read now, size the maps. */
static int plan_open(struct scxpol_sched *s, void *state)
{
	const struct scxpol_sched_opts *o = scxpol_sched__opts(s);
	SCXPOL_OPTS(scxpol_topo_opts, to, .root = scxpol_sched__sysfs_root(s));
	struct scxpol_pool_plan *plan;
	struct scxpol_topo *topo;
	int r;

	if (!o->plan)
		return 0;
	scxpol_err_clear();
	topo = scxpol_topo_load(&to);
	if (!topo)
		return scxpol_sched__hook_failed(s, "plan", -errno);
	errno = 0;
	plan = o->plan(s, topo, o->ctx);
	if (!plan)
		r = errno ? -errno
			  : scxpol_err(EINVAL, "%s: the plan hook returned NULL without setting "
				       "errno", scxpol_sched_name(s));
	else
		r = scxpol_pool_setup(s, scxpol_pool_plan_nr_pools(plan));
	if (r) {
		scxpol_pool_plan_free(plan);
		scxpol_topo_free(topo);
		return scxpol_sched__hook_failed(s, "plan", r);
	}
	/* after the hook: it may free what it made from the previous plan */
	planned_free(state);
	((struct pool_planned *)state)->plan = plan;
	((struct pool_planned *)state)->topo = topo;
	return 0;
}

/* After the load: publish the plan (the hint limits are published by then). */
static int plan_loaded(struct scxpol_sched *s, void *state)
{
	struct pool_planned *pl = state;

	return pl->plan ? scxpol_pool_publish(s, pl->plan) : 0;
}

const struct scxpol_sched_module scxpol_pool_module = {
	.name = "pool",
	.state_size = sizeof(struct pool_planned),
	.open = plan_open,
	.loaded = plan_loaded,
	.fini = planned_free,
};

const struct scxpol_pool_plan *scxpol_pool_plan_current(const struct scxpol_sched *s)
{
	SCXPOL_NONNULL_PTR(s, "scheduler");
	return ((struct pool_planned *)scxpol_sched__mod_state(s, SCXPOL_MOD_POOL))->plan;
}

/* --- reading back -------------------------------------------------------- */

/* Pools of generation @gen: CPU lists from the per-CPU table of its half. */
static int read_cpus(struct scxpol_sched *s, struct bpf_object *obj,
		     const struct scxpol_pool_conf *conf, unsigned long long gen,
		     struct scxpol_pool_stat *out, size_t n)
{
	struct bpf_map *cpus = find_map(s, obj, "scxpol_pool_cpus");
	struct scxpol_cpuset **sets;
	struct scxpol_pool_cpu pc;
	uint32_t cpu, key;
	size_t i;
	int r = 0;

	if (!cpus)
		return -ENOENT;
	sets = calloc(n ? n : 1, sizeof(*sets));
	if (!sets)
		return scxpol_err(ENOMEM, "out of memory");
	for (i = 0; i < n && !r; i++)
		if (!(sets[i] = scxpol_cpuset_new(conf->nr_cpus)))
			r = scxpol_err(ENOMEM, "out of memory");
	for (cpu = 0; cpu < conf->nr_cpus && !r; cpu++) {
		key = cpu * 2 + (uint32_t)(gen & 1);
		if (bpf_map_lookup_elem(bpf_map__fd(cpus), &key, &pc))
			r = scxpol_err(errno, "%s: cannot read CPU %u of map 'scxpol_pool_cpus': %s",
				       scxpol_sched_name(s), cpu, strerror(errno));
		else if (pc.pool >= 0 && (size_t)pc.pool < n)
			scxpol_cpuset_set(sets[pc.pool], cpu);
	}
	for (i = 0; i < n; i++) {
		if (!r)
			format_cut(sets[i], out[i].cpus, sizeof(out[i].cpus));
		scxpol_cpuset_free(sets[i]);
	}
	free(sets);
	return r;
}

static int read_published(struct scxpol_sched *s, struct bpf_object *obj,
			  const struct scxpol_pool_conf *conf, unsigned long long *gen,
			  struct scxpol_pool_stat *out, size_t n, unsigned int *shared_queued)
{
	struct bpf_map *state, *slots, *queued;
	struct scxpol_pool_state st = { 0 };
	struct scxpol_pool_query_args q = { 0 };
	uint32_t zero = 0, key, i;
	size_t vsz;
	char *val;
	int fd, r, tries;

	fd = prog_fd(s, obj, QUERY_PROG);
	if (fd < 0)
		return fd;
	if (!(state = find_map(s, obj, "scxpol_pool_state")) ||
	    !(slots = find_map(s, obj, "scxpol_pool_slots")) ||
	    !(queued = find_map(s, obj, "scxpol_pool_queued")))
		return -ENOENT;
	vsz = bpf_map__value_size(slots);
	if (vsz < sizeof(struct scxpol_pool_desc))
		return scxpol_err(EINVAL, "%s: map 'scxpol_pool_slots' has %zu-byte values, too "
				  "small for struct scxpol_pool_desc", scxpol_sched_name(s), vsz);
	val = malloc(vsz);
	if (!val)
		return scxpol_err(ENOMEM, "out of memory");
	/* a publication between the query and the reads: read again */
	for (tries = 0; tries < 8; tries++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &q, .ctx_size_in = sizeof(q));

		r = bpf_prog_test_run_opts(fd, &o);
		if (r) {
			r = scxpol_err(errno, "%s: cannot run program '" QUERY_PROG "': %s",
				       scxpol_sched_name(s), strerror(errno));
			break;
		}
		for (i = 0; i < q.nr_pools && i < n && !r; i++) {
			struct scxpol_pool_desc d;

			key = i * 2 + (uint32_t)(q.gen & 1);
			r = bpf_map_lookup_elem(bpf_map__fd(slots), &key, val);
			if (!r)
				r = bpf_map_lookup_elem(bpf_map__fd(queued), &i, &out[i].queued);
			if (r) {
				r = scxpol_err(errno, "%s: cannot read pool %u: %s",
					       scxpol_sched_name(s), i, strerror(errno));
				break;
			}
			memcpy(&d, val, sizeof(d));
			memcpy(out[i].name, d.name, sizeof(out[i].name));
			out[i].name[sizeof(out[i].name) - 1] = '\0';
			out[i].flags = d.flags;
			out[i].nr_cpus = d.nr_cpus;
		}
		if (!r)
			r = read_cpus(s, obj, conf, q.gen, out, q.nr_pools < n ? q.nr_pools : n);
		if (!r && shared_queued) {
			key = conf->max_pools;
			if (bpf_map_lookup_elem(bpf_map__fd(queued), &key, shared_queued))
				r = scxpol_err(errno, "%s: cannot read the shared queue's depth: %s",
					       scxpol_sched_name(s), strerror(errno));
		}
		if (!r && bpf_map_lookup_elem(bpf_map__fd(state), &zero, &st))
			r = scxpol_err(errno, "%s: cannot read map 'scxpol_pool_state': %s",
				       scxpol_sched_name(s), strerror(errno));
		if (r || st.gen == q.gen)
			break;
	}
	free(val);
	if (r)
		return r;
	/* rather than a mix of two tables */
	if (st.gen != q.gen)
		return scxpol_err(EAGAIN, "%s: the pools were published again during each of %d "
				  "reads; read again", scxpol_sched_name(s), tries);
	if (gen)
		*gen = q.gen;
	return (int)q.nr_pools;
}

int scxpol_pool_read(struct scxpol_sched *s, unsigned long long *gen, struct scxpol_pool_stat *out,
		     size_t n, unsigned int *shared_queued)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_object *obj = scxpol_sched_object(s);
	struct scxpol_pool_conf *conf;
	int r;

	if (!obj)
		return scxpol_err(EINVAL, "%s: scxpol_pool_read: the policy is not loaded",
				  scxpol_sched_name(s));
	r = find_conf(s, obj, &conf);
	if (r)
		return r;
	if (!conf->max_pools)
		return scxpol_err(EINVAL, "%s: scxpol_pool_read: the pool maps are not sized; call "
				  "scxpol_pool_setup() from the configure hook", scxpol_sched_name(s));
	return read_published(s, obj, conf, gen, out, n, shared_queued);
}
