// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Pool plans: named, non-overlapping CPU pools laid out over a topology. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scxpol/pool.h"

struct pool {
	char name[SCXPOL_POOL_NAME_LEN];
	unsigned int flags;
	struct scxpol_cpuset *cpus;
};

struct scxpol_pool_plan {
	const struct scxpol_topo *topo;
	struct pool *pools;
	unsigned int nr_pools, cap_pools;
	/* Pool index of each CPU id, -1 for none. */
	int *cpu_pool;
};

/* "CPU 3 is" / "CPUs 3,5 are" for messages. */
static const char *cpus_are(const struct scxpol_cpuset *s, char *buf, size_t len)
{
	char list[200];

	snprintf(buf, len, "%s %s %s", scxpol_cpuset_count(s) == 1 ? "CPU" : "CPUs",
		 scxpol_cpuset_str(s, list, sizeof(list)), scxpol_cpuset_count(s) == 1 ? "is" : "are");
	return buf;
}

struct scxpol_pool_plan *scxpol_pool_plan_new(const struct scxpol_topo *t)
{
	struct scxpol_pool_plan *p;
	unsigned int i, n = scxpol_topo_nr_cpus(t);

	if (!t)
		return scxpol_err_ptr(EINVAL, "scxpol_pool_plan_new: topology is NULL");
	p = calloc(1, sizeof(*p));
	if (p)
		p->cpu_pool = malloc(n * sizeof(*p->cpu_pool));
	if (!p || !p->cpu_pool) {
		free(p);
		return scxpol_err_ptr(ENOMEM, "out of memory for a pool plan");
	}
	p->topo = t;
	for (i = 0; i < n; i++)
		p->cpu_pool[i] = -1;
	return p;
}

void scxpol_pool_plan_free(struct scxpol_pool_plan *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_pools; i++)
		scxpol_cpuset_free(p->pools[i].cpus);
	free(p->pools);
	free(p->cpu_pool);
	free(p);
}

/* Append a pool (no checks); takes @cpus. */
static int push_pool(struct scxpol_pool_plan *p, const char *name, unsigned int flags,
		     struct scxpol_cpuset *cpus)
{
	struct pool *np;
	int cpu;

	if (p->nr_pools == p->cap_pools) {
		np = realloc(p->pools, (p->cap_pools ? p->cap_pools * 2 : 4) * sizeof(*np));
		if (!np) {
			scxpol_cpuset_free(cpus);
			return scxpol_err(ENOMEM, "out of memory for a pool plan");
		}
		p->pools = np;
		p->cap_pools = p->cap_pools ? p->cap_pools * 2 : 4;
	}
	np = &p->pools[p->nr_pools];
	snprintf(np->name, sizeof(np->name), "%s", name);
	np->flags = flags;
	np->cpus = cpus;
	scxpol_cpuset_for_each(cpu, cpus)
		p->cpu_pool[cpu] = (int)p->nr_pools;
	return (int)p->nr_pools++;
}

struct scxpol_pool_plan *scxpol_pool_plan_dup(const struct scxpol_pool_plan *p)
{
	struct scxpol_pool_plan *d;
	struct scxpol_cpuset *cpus;
	unsigned int i;
	int r;

	if (!p)
		return scxpol_err_ptr(EINVAL, "scxpol_pool_plan_dup: plan is NULL");
	d = scxpol_pool_plan_new(p->topo);
	for (i = 0; d && i < p->nr_pools; i++) {
		cpus = scxpol_cpuset_dup(p->pools[i].cpus);
		r = cpus ? push_pool(d, p->pools[i].name, p->pools[i].flags, cpus) : -errno;
		if (r < 0) {
			scxpol_pool_plan_free(d);
			errno = -r;
			return NULL;
		}
	}
	return d;
}

static int check_name(const struct scxpol_pool_plan *p, const char *name)
{
	size_t len, i;
	char c;

	if (!name || !name[0])
		return scxpol_err(EINVAL, "pool name is %s", name ? "empty" : "NULL");
	len = strlen(name);
	if (len >= SCXPOL_POOL_NAME_LEN)
		return scxpol_err(EINVAL, "pool name \"%.64s\" is too long (%zu characters, at most %d)",
				  name, len, SCXPOL_POOL_NAME_LEN - 1);
	for (i = 0; i < len; i++) {
		c = name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '.' || c == '-')
			continue;
		if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
			return scxpol_err(EINVAL, "pool name \"%s\": bad character '%c' at column %zu "
					  "(use A-Z a-z 0-9 _ . -)", name, c, i + 1);
		return scxpol_err(EINVAL, "pool name: bad character '\\x%02x' at column %zu "
				  "(use A-Z a-z 0-9 _ . -)", (unsigned char)c, i + 1);
	}
	for (i = 0; i < p->nr_pools; i++)
		if (!strcmp(p->pools[i].name, name))
			return scxpol_err(EEXIST, "pool \"%s\" already exists (pool %zu)", name, i);
	return 0;
}

/* @what names the caller in the message: `pool "lc"`, `domains`. */
static int check_flags(const char *what, unsigned int flags)
{
	if (flags & ~SCXPOL_POOL_FLAGS_ALL)
		return scxpol_err(EINVAL, "%s: unknown flags 0x%x (known: LEND 0x%x, "
				  "BORROW 0x%x, STEAL 0x%x)", what, flags & ~SCXPOL_POOL_FLAGS_ALL,
				  SCXPOL_POOL_LEND, SCXPOL_POOL_BORROW, SCXPOL_POOL_STEAL);
	return 0;
}

/* Every check of _add(); returns 0 or a negative errno with the message. */
static int check_pool(const struct scxpol_pool_plan *p, const char *name, unsigned int flags,
		      const struct scxpol_cpuset *cpus)
{
	const struct scxpol_topo *t = p->topo;
	struct scxpol_cpuset *bad;
	char what[256], list[200];
	unsigned int i;
	int r, cpu;

	r = check_name(p, name);
	if (r)
		return r;
	snprintf(what, sizeof(what), "pool \"%s\"", name);
	r = check_flags(what, flags);
	if (r)
		return r;
	if (!cpus)
		return scxpol_err(EINVAL, "pool \"%s\": cpu set is NULL", name);
	if (!scxpol_cpuset_count(cpus))
		return scxpol_err(EINVAL, "pool \"%s\" has no CPUs", name);

	bad = scxpol_cpuset_new(scxpol_cpuset_capacity(cpus));
	if (!bad)
		return -errno;
	scxpol_cpuset_for_each(cpu, cpus)
		if ((unsigned int)cpu >= scxpol_topo_nr_cpus(t))
			scxpol_cpuset_set(bad, (unsigned int)cpu);
	if (scxpol_cpuset_count(bad)) {
		r = scxpol_err(EINVAL, "pool \"%s\": %s not on this machine (it has CPUs 0-%u)",
			       name, cpus_are(bad, what, sizeof(what)), scxpol_topo_nr_cpus(t) - 1);
		goto out;
	}
	scxpol_cpuset_or(bad, cpus);
	scxpol_cpuset_andnot(bad, scxpol_topo_online(t));
	if (scxpol_cpuset_count(bad)) {
		r = scxpol_err(EINVAL, "pool \"%s\": %s offline", name,
			       cpus_are(bad, what, sizeof(what)));
		goto out;
	}
	for (i = 0; i < p->nr_pools; i++) {
		if (!scxpol_cpuset_intersects(cpus, p->pools[i].cpus))
			continue;
		scxpol_cpuset_or(bad, cpus);
		scxpol_cpuset_and(bad, p->pools[i].cpus);
		r = scxpol_err(EINVAL, "pool \"%s\" overlaps pool \"%s\" on %s %s", name,
			       p->pools[i].name, scxpol_cpuset_count(bad) == 1 ? "CPU" : "CPUs",
			       scxpol_cpuset_str(bad, list, sizeof(list)));
		goto out;
	}
out:
	scxpol_cpuset_free(bad);
	return r;
}

int scxpol_pool_plan_add(struct scxpol_pool_plan *p, const char *name, unsigned int flags,
			 const struct scxpol_cpuset *cpus)
{
	struct scxpol_cpuset *copy;
	int r;

	if (!p)
		return scxpol_err(EINVAL, "scxpol_pool_plan_add: plan is NULL");
	r = check_pool(p, name, flags, cpus);
	if (r)
		return r;
	/* Stored with the topology's capacity whatever the caller's was. */
	copy = scxpol_cpuset_new(scxpol_topo_nr_cpus(p->topo));
	if (!copy)
		return -errno;
	scxpol_cpuset_or(copy, cpus);
	return push_pool(p, name, flags, copy);
}

struct core_key {
	int node, llc, core;
};

static int cmp_core_key(const void *a, const void *b)
{
	const struct core_key *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->llc != y->llc)
		return x->llc < y->llc ? -1 : 1;
	return (x->core > y->core) - (x->core < y->core);
}

/*
 * The online CPUs in topology order (node, LLC, core; a core's CPUs
 * together, ascending) into a new array *@out. Returns how many, or a
 * negative errno.
 */
static int topo_order(const struct scxpol_topo *t, int **out)
{
	unsigned int nr = scxpol_topo_nr_cores(t), i, n = 0;
	const struct scxpol_topo_cpu *tc;
	struct core_key *keys;
	int *order, cpu;

	keys = calloc(nr ? nr : 1, sizeof(*keys));
	order = calloc(scxpol_cpuset_count(scxpol_topo_online(t)) + 1, sizeof(*order));
	if (!keys || !order) {
		free(keys);
		free(order);
		return scxpol_err(ENOMEM, "out of memory for a pool plan");
	}
	for (i = 0; i < nr; i++) {
		cpu = scxpol_cpuset_next(scxpol_topo_core_cpus(t, i), -1);
		tc = scxpol_topo_cpu(t, (unsigned int)cpu);
		keys[i] = (struct core_key){ tc->node, tc->llc, (int)i };
	}
	qsort(keys, nr, sizeof(*keys), cmp_core_key);
	for (i = 0; i < nr; i++)
		scxpol_cpuset_for_each(cpu, scxpol_topo_core_cpus(t, (unsigned int)keys[i].core))
			order[n++] = cpu;
	free(keys);
	*out = order;
	return (int)n;
}

/*
 * Cost of a boundary between order[pos - 1] and order[pos]: cutting an SMT
 * core costs more than all LLC cuts together can (@n CPUs, fewer cuts).
 */
static uint64_t cut_cost(const struct scxpol_topo *t, const int *order, unsigned int n,
			 unsigned int pos)
{
	const struct scxpol_topo_cpu *a, *b;

	if (pos == 0 || pos >= n)
		return 0;
	a = scxpol_topo_cpu(t, (unsigned int)order[pos - 1]);
	b = scxpol_topo_cpu(t, (unsigned int)order[pos]);
	if (a->core == b->core)
		return n;
	return a->llc == b->llc;
}

/*
 * Choose which of the @nd domains get the extra CPU (big[i]), by dynamic
 * programming over (domains placed i, big ones among them j): the boundary
 * after them sits at i * q + j. Ties keep the later domains small.
 */
static int choose_sizes(const struct scxpol_topo *t, const int *order, unsigned int n,
			unsigned int nd, bool *big)
{
	unsigned int q = n / nd, r = n % nd, i, j;
	uint64_t *prev, *cur, inf = UINT64_MAX, small, large;
	unsigned char *pick; /* bit (i, j): domain i - 1 is big on the best path to (i, j) */
	size_t w = (size_t)r + 1;

	prev = malloc(w * sizeof(*prev));
	cur = malloc(w * sizeof(*cur));
	pick = calloc(((size_t)nd + 1) * w / 8 + 1, 1);
	if (!prev || !cur || !pick) {
		free(prev);
		free(cur);
		free(pick);
		return scxpol_err(ENOMEM, "out of memory planning %u domains", nd);
	}
	for (j = 0; j <= r; j++)
		prev[j] = j ? inf : 0;
	for (i = 1; i <= nd; i++) {
		for (j = 0; j <= r; j++) {
			/* j bigs among i domains, and room for the rest later. */
			if (j > i || r - j > nd - i) {
				cur[j] = inf;
				continue;
			}
			small = prev[j];
			large = j ? prev[j - 1] : inf;
			if (large < small) {
				size_t bit = (size_t)i * w + j;

				pick[bit / 8] |= (unsigned char)(1U << (bit % 8));
				small = large;
			}
			cur[j] = small == inf ? inf : small + cut_cost(t, order, n, i * q + j);
		}
		memcpy(prev, cur, w * sizeof(*prev));
	}
	for (i = nd, j = r; i > 0; i--) {
		size_t bit = (size_t)i * w + j;

		big[i - 1] = pick[bit / 8] >> (bit % 8) & 1;
		j -= big[i - 1];
	}
	free(prev);
	free(cur);
	free(pick);
	return 0;
}

/* Add pool @name holding order[from..to). */
static int add_run(struct scxpol_pool_plan *p, const char *name, unsigned int flags,
		   const int *order, unsigned int from, unsigned int to)
{
	struct scxpol_cpuset *s = scxpol_cpuset_new(scxpol_topo_nr_cpus(p->topo));
	int r;

	if (!s)
		return -errno;
	for (; from < to; from++)
		scxpol_cpuset_set(s, (unsigned int)order[from]);
	r = scxpol_pool_plan_add(p, name, flags, s);
	scxpol_cpuset_free(s);
	return r < 0 ? r : 0;
}

/* The plan a builder below made in @p, or NULL with errno -@r (the message is recorded). */
static struct scxpol_pool_plan *plan_or_null(int r, struct scxpol_pool_plan *p)
{
	if (r) {
		errno = -r;
		return NULL;
	}
	return p;
}

static int plan_domains(const struct scxpol_topo *t, unsigned int n, unsigned int flags,
			struct scxpol_pool_plan **out)
{
	struct scxpol_pool_plan *p = NULL;
	unsigned int nr_online, i, pos = 0;
	bool *big = NULL;
	int *order = NULL, r;
	char name[SCXPOL_POOL_NAME_LEN];

	if (!t)
		return scxpol_err(EINVAL, "scxpol_pool_plan_domains: topology is NULL");
	nr_online = scxpol_cpuset_count(scxpol_topo_online(t));
	if (!n)
		return scxpol_err(EINVAL, "domains: cannot make 0 domains");
	if (n > nr_online)
		return scxpol_err(EINVAL, "domains: %u domains need at least %u CPUs, %u are online",
				  n, n, nr_online);
	r = check_flags("domains", flags);
	if (r)
		return r;
	r = topo_order(t, &order);
	if (r < 0)
		return r;
	big = calloc(n, sizeof(*big));
	p = scxpol_pool_plan_new(t);
	if (!big || !p) {
		r = big ? -errno : scxpol_err(ENOMEM, "out of memory planning %u domains", n);
		goto out;
	}
	r = choose_sizes(t, order, nr_online, n, big);
	for (i = 0; !r && i < n; i++) {
		unsigned int size = nr_online / n + big[i];

		snprintf(name, sizeof(name), "d%u", i);
		r = add_run(p, name, flags, order, pos, pos + size);
		pos += size;
	}
out:
	free(order);
	free(big);
	if (r) {
		scxpol_pool_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}

struct scxpol_pool_plan *scxpol_pool_plan_domains(const struct scxpol_topo *t, unsigned int n,
						  unsigned int flags)
{
	struct scxpol_pool_plan *p = NULL;
	int r = plan_domains(t, n, flags, &p);

	return plan_or_null(r, p);
}

static int plan_split(const struct scxpol_topo *t, const char *first, const char *second,
		      unsigned int first_cpus, unsigned int flags, struct scxpol_pool_plan **out)
{
	struct scxpol_pool_plan *p;
	unsigned int nr_online;
	int *order, r;

	if (!t)
		return scxpol_err(EINVAL, "scxpol_pool_plan_split: topology is NULL");
	nr_online = scxpol_cpuset_count(scxpol_topo_online(t));
	r = check_flags("split", flags);
	if (r)
		return r;
	if (!first_cpus || first_cpus >= nr_online)
		return scxpol_err(EINVAL, "split: %u CPUs for the first pool leaves %s (%u CPUs "
				  "online; both pools need a CPU)", first_cpus,
				  first_cpus ? "none for the second" : "it empty", nr_online);
	r = topo_order(t, &order);
	if (r < 0)
		return r;
	p = scxpol_pool_plan_new(t);
	r = p ? add_run(p, first, flags, order, 0, first_cpus) : -errno;
	if (!r)
		r = add_run(p, second, flags, order, first_cpus, nr_online);
	free(order);
	if (r) {
		scxpol_pool_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}

struct scxpol_pool_plan *scxpol_pool_plan_split(const struct scxpol_topo *t, const char *first,
						const char *second, unsigned int first_cpus,
						unsigned int flags)
{
	struct scxpol_pool_plan *p = NULL;
	int r = plan_split(t, first, second, first_cpus, flags, &p);

	return plan_or_null(r, p);
}

/* A move candidate: the CPUs of one core that pool `from` holds. */
struct unit {
	unsigned int dist;	/* LLC distance to the nearest LLC of `to` */
	unsigned int whole;	/* 0: the core's other CPUs are all in `to`,
				   1: all the core's CPUs are in `from`, 2: other */
	unsigned int near;	/* topology-order distance to `to`'s nearest CPU */
	int first;		/* lowest CPU */
	int core;
	unsigned int size;	/* CPUs of the core in `from` */
};

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->whole != y->whole)
		return x->whole < y->whole ? -1 : 1;
	if (x->near != y->near)
		return x->near < y->near ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* Move the CPUs of core @u held by `from`, or only the @max lowest. */
static unsigned int take_unit(struct scxpol_pool_plan *p, const struct unit *u, unsigned int from,
			      unsigned int to, unsigned int max)
{
	const struct scxpol_cpuset *core = scxpol_topo_core_cpus(p->topo, (unsigned int)u->core);
	unsigned int n = 0;
	int cpu;

	scxpol_cpuset_for_each(cpu, core) {
		if (n == max)
			break;
		if (p->cpu_pool[cpu] != (int)from)
			continue;
		scxpol_cpuset_clear(p->pools[from].cpus, (unsigned int)cpu);
		scxpol_cpuset_set(p->pools[to].cpus, (unsigned int)cpu);
		p->cpu_pool[cpu] = (int)to;
		n++;
	}
	return n;
}

/* Fill @units for the cores `from` has CPUs in; returns how many. */
static int move_units(const struct scxpol_pool_plan *p, unsigned int from, unsigned int to,
		      struct unit *units)
{
	const struct scxpol_topo *t = p->topo;
	unsigned int nr_llcs = scxpol_topo_nr_llcs(t), nr_cores = scxpol_topo_nr_cores(t);
	unsigned int *llc_dist, *near, n, i, l, nu = 0, d;
	int *order, *pos, cpu, r;

	r = topo_order(t, &order);
	if (r < 0)
		return r;
	n = (unsigned int)r;
	llc_dist = calloc(nr_llcs, sizeof(*llc_dist));
	near = calloc(n, sizeof(*near));
	pos = calloc(scxpol_topo_nr_cpus(t), sizeof(*pos));
	if (!llc_dist || !near || !pos) {
		r = scxpol_err(ENOMEM, "out of memory moving CPUs between pools");
		goto out;
	}
	/* Each LLC's distance to the nearest LLC where `to` has CPUs. */
	for (l = 0; l < nr_llcs; l++) {
		llc_dist[l] = UINT_MAX;
		scxpol_cpuset_for_each(cpu, p->pools[to].cpus) {
			int llc = scxpol_topo_cpu(t, (unsigned int)cpu)->llc;

			d = scxpol_topo_llc_distance(t, l, (unsigned int)llc);
			if (d < llc_dist[l])
				llc_dist[l] = d;
		}
	}
	/* Distance in topology order to the nearest CPU of `to`: two sweeps. */
	for (i = 0, d = UINT_MAX; i < n; i++) {
		d = p->cpu_pool[order[i]] == (int)to ? 0 : d == UINT_MAX ? d : d + 1;
		near[i] = d;
	}
	for (i = n, d = UINT_MAX; i-- > 0;) {
		d = p->cpu_pool[order[i]] == (int)to ? 0 : d == UINT_MAX ? d : d + 1;
		if (d < near[i])
			near[i] = d;
	}
	for (i = 0; i < n; i++)
		pos[order[i]] = (int)i;
	for (i = 0; i < nr_cores; i++) {
		const struct scxpol_cpuset *core = scxpol_topo_core_cpus(t, i);
		struct unit u = { .first = -1, .core = (int)i, .near = UINT_MAX };
		bool others = false, others_in_to = true;

		scxpol_cpuset_for_each(cpu, core) {
			if (p->cpu_pool[cpu] != (int)from) {
				others = true;
				others_in_to &= p->cpu_pool[cpu] == (int)to;
				continue;
			}
			if (u.first < 0)
				u.first = cpu;
			u.size++;
			if (near[pos[cpu]] < u.near)
				u.near = near[pos[cpu]];
		}
		if (u.first < 0)
			continue;
		u.dist = llc_dist[scxpol_topo_cpu(t, (unsigned int)u.first)->llc];
		u.whole = !others ? 1 : others_in_to ? 0 : 2;
		units[nu++] = u;
	}
	qsort(units, nu, sizeof(*units), cmp_unit);
	r = (int)nu;
out:
	free(order);
	free(llc_dist);
	free(near);
	free(pos);
	return r;
}

int scxpol_pool_plan_move(struct scxpol_pool_plan *p, unsigned int from, unsigned int to,
			  unsigned int k)
{
	unsigned int have, left = k, i, j, nu;
	struct unit *units;
	bool *taken;
	int r;

	if (!p)
		return scxpol_err(EINVAL, "scxpol_pool_plan_move: plan is NULL");
	if (from >= p->nr_pools || to >= p->nr_pools)
		return scxpol_err(EINVAL, "move: no pool %u (the plan has %u)",
				  from >= p->nr_pools ? from : to, p->nr_pools);
	if (from == to)
		return scxpol_err(EINVAL, "move: pool \"%s\" is both source and destination",
				  p->pools[from].name);
	if (!k)
		return scxpol_err(EINVAL, "move: 0 CPUs to move from pool \"%s\" to pool \"%s\"",
				  p->pools[from].name, p->pools[to].name);
	have = scxpol_cpuset_count(p->pools[from].cpus);
	if (k >= have)
		return scxpol_err(EINVAL, "move: pool \"%s\" has %u CPUs, moving %u would leave "
				  "it empty", p->pools[from].name, have, k);

	units = calloc(scxpol_topo_nr_cores(p->topo), sizeof(*units));
	taken = calloc(scxpol_topo_nr_cores(p->topo), sizeof(*taken));
	if (!units || !taken) {
		r = scxpol_err(ENOMEM, "out of memory moving CPUs between pools");
		goto out;
	}
	r = move_units(p, from, to, units);
	if (r < 0)
		goto out;
	nu = (unsigned int)r;
	r = 0;
	/* Level by level: whole cores that fit, then cut the first one left. */
	for (i = 0; i < nu && left; i = j) {
		for (j = i; j < nu && units[j].dist == units[i].dist; j++) {
			if (units[j].size > left)
				continue;
			left -= take_unit(p, &units[j], from, to, units[j].size);
			taken[j] = true;
		}
		for (j = i; left && j < nu && units[j].dist == units[i].dist; j++)
			if (!taken[j])
				left -= take_unit(p, &units[j], from, to, left);
		while (j < nu && units[j].dist == units[i].dist)
			j++;
	}
out:
	free(units);
	free(taken);
	return r;
}

unsigned int scxpol_pool_plan_nr_pools(const struct scxpol_pool_plan *p)
{
	return p ? p->nr_pools : 0;
}

const char *scxpol_pool_plan_name(const struct scxpol_pool_plan *p, unsigned int pool)
{
	return p && pool < p->nr_pools ? p->pools[pool].name : NULL;
}

unsigned int scxpol_pool_plan_flags(const struct scxpol_pool_plan *p, unsigned int pool)
{
	return p && pool < p->nr_pools ? p->pools[pool].flags : 0;
}

const struct scxpol_cpuset *scxpol_pool_plan_cpus(const struct scxpol_pool_plan *p, unsigned int pool)
{
	return p && pool < p->nr_pools ? p->pools[pool].cpus : NULL;
}

int scxpol_pool_plan_find(const struct scxpol_pool_plan *p, const char *name)
{
	unsigned int i;

	SCXPOL_NONNULL(p, "plan");
	SCXPOL_NONNULL(name, "name");
	for (i = 0; i < p->nr_pools; i++)
		if (!strcmp(p->pools[i].name, name))
			return (int)i;
	return scxpol_err(ENOENT, "no pool \"%.64s\" in the plan", name);
}

int scxpol_pool_plan_cpu_pool(const struct scxpol_pool_plan *p, unsigned int cpu)
{
	return p && cpu < scxpol_topo_nr_cpus(p->topo) ? p->cpu_pool[cpu] : -1;
}

const struct scxpol_topo *scxpol_pool_plan_topo(const struct scxpol_pool_plan *p)
{
	return p ? p->topo : NULL;
}

/* Length of @s as a CPU list, without writing it. */
static size_t list_len(const struct scxpol_cpuset *s)
{
	size_t n = 0;
	int a, b;

	for (a = scxpol_cpuset_next(s, -1); a >= 0; a = scxpol_cpuset_next(s, b)) {
		for (b = a; scxpol_cpuset_test(s, (unsigned int)b + 1); b++)
			;
		n += (size_t)(a == b ? snprintf(NULL, 0, ",%d", a) : snprintf(NULL, 0, ",%d-%d", a, b));
	}
	return n ? n - 1 : 0;
}

int scxpol_pool_plan_format(const struct scxpol_pool_plan *p, char *buf, size_t len)
{
	size_t need = 0, o = 0;
	unsigned int i;

	if (!p || (!buf && len))
		return scxpol_err(EINVAL, "scxpol_pool_plan_format: %s is NULL", p ? "buf" : "plan");
	for (i = 0; i < p->nr_pools; i++)
		need += (i ? 1 : 0) + strlen(p->pools[i].name) + 1 + list_len(p->pools[i].cpus);
	if (need >= len || need > INT_MAX) {
		if (len)
			buf[0] = '\0';
		return scxpol_err(ENOSPC, "pool plan of %u pools needs %zu bytes, the buffer has %zu",
				  p->nr_pools, need + 1, len);
	}
	buf[0] = '\0';
	for (i = 0; i < p->nr_pools; i++) {
		o += (size_t)snprintf(buf + o, len - o, "%s%s=", i ? " " : "", p->pools[i].name);
		o += (size_t)scxpol_cpuset_format(p->pools[i].cpus, buf + o, len - o);
	}
	return (int)o;
}

static int plan_parse(const struct scxpol_topo *t, const char *text, unsigned int flags,
		      struct scxpol_pool_plan **out)
{
	struct scxpol_pool_plan *p;
	struct scxpol_cpuset *cpus;
	char *copy, *tok, *eq, msg[512], q[300];
	size_t i = 0, start;
	int r = 0;

	if (!t || !text)
		return scxpol_err(EINVAL, "scxpol_pool_plan_parse: %s is NULL",
				  !t ? "topology" : "text");
	copy = strdup(text);
	p = scxpol_pool_plan_new(t);
	if (!copy || !p) {
		free(copy);
		scxpol_pool_plan_free(p);
		return scxpol_err(ENOMEM, "out of memory parsing a pool plan");
	}
	while (!r) {
		while (copy[i] == ' ' || copy[i] == '\t')
			i++;
		if (!copy[i])
			break;
		start = i;
		while (copy[i] && copy[i] != ' ' && copy[i] != '\t')
			i++;
		if (copy[i])
			copy[i++] = '\0';
		tok = copy + start;
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			r = scxpol_err(EINVAL, "pool plan \"%s\": expected NAME=CPUS at column %zu",
				       scxpol_err_quote(text, q, sizeof(q)), start + 1);
			break;
		}
		*eq = '\0';
		cpus = scxpol_cpuset_parse(eq + 1, scxpol_topo_nr_cpus(t));
		r = cpus ? 0 : -errno;
		if (!r) {
			r = scxpol_pool_plan_add(p, tok, flags, cpus);
			r = r < 0 ? r : 0;
			scxpol_cpuset_free(cpus);
		}
		if (r) {
			snprintf(msg, sizeof(msg), "%s", scxpol_last_error());
			r = scxpol_err(-r, "pool plan \"%s\": %s", scxpol_err_quote(text, q, sizeof(q)),
				       msg);
		}
	}
	free(copy);
	if (r) {
		scxpol_pool_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}

struct scxpol_pool_plan *scxpol_pool_plan_parse(const struct scxpol_topo *t, const char *text,
						unsigned int flags)
{
	struct scxpol_pool_plan *p = NULL;
	int r = plan_parse(t, text, flags, &p);

	return plan_or_null(r, p);
}
