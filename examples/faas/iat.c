// SPDX-License-Identifier: GPL-2.0
/* IAT consistent hashing with capacity accounting (Algorithm 3). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iat.h"
#include "trace.h"

/* u64 -> u64, linear probing, backward-shift deletion (no tombstones). */
struct u64map {
	uint64_t *key, *val;
	unsigned char *full;
	size_t cap, n;
};

struct bucket_list {
	unsigned int n;
	uint16_t dom[]; /* nr_domains slots */
};

struct func_state {
	uint64_t last_us;
	double iat_us;
	bool seen, have_iat;
};

struct faas_iat {
	struct faas_iat_config cfg;
	unsigned int *capacity, *used;
	struct func_state *funcs;
	struct u64map buckets; /* bucket id -> index into lists */
	struct bucket_list **lists;
	size_t nr_lists, cap_lists;
	struct u64map grants;  /* invocation id -> (domain + 1) << 32 | cpus */
	struct faas_iat_stats st;
	char err[FAAS_ERR_LEN];
};

static size_t u64_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void u64map_free(struct u64map *m)
{
	free(m->key);
	free(m->val);
	free(m->full);
	memset(m, 0, sizeof(*m));
}

static size_t u64map_slot(const struct u64map *m, uint64_t k)
{
	size_t i = u64_hash(k, m->cap);

	while (m->full[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static uint64_t *u64map_get(const struct u64map *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = u64map_slot(m, k);
	return m->full[i] ? &m->val[i] : NULL;
}

static int u64map_put(struct u64map *m, uint64_t k, uint64_t v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct u64map nm = { .cap = m->cap ? m->cap * 2 : 64 };

		nm.key = malloc(nm.cap * sizeof(*nm.key));
		nm.val = malloc(nm.cap * sizeof(*nm.val));
		nm.full = calloc(nm.cap, 1);
		if (!nm.key || !nm.val || !nm.full) {
			u64map_free(&nm);
			return -ENOMEM;
		}
		for (i = 0; i < m->cap; i++) {
			size_t j;

			if (!m->full[i])
				continue;
			j = u64map_slot(&nm, m->key[i]);
			nm.full[j] = 1;
			nm.key[j] = m->key[i];
			nm.val[j] = m->val[i];
		}
		nm.n = m->n;
		u64map_free(m);
		*m = nm;
	}
	i = u64map_slot(m, k);
	if (!m->full[i])
		m->n++;
	m->full[i] = 1;
	m->key[i] = k;
	m->val[i] = v;
	return 0;
}

static void u64map_del(struct u64map *m, uint64_t k)
{
	size_t i = u64map_slot(m, k), j = i, home;

	if (!m->full[i])
		return;
	m->full[i] = 0;
	m->n--;
	/* shift later members of the probe run back into the hole */
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->full[j])
			return;
		home = u64_hash(m->key[j], m->cap);
		/* j stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->key[i] = m->key[j];
		m->val[i] = m->val[j];
		m->full[i] = 1;
		m->full[j] = 0;
		i = j;
	}
}

static int fail(struct faas_iat *p, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct faas_iat *p, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return -errnum;
}

const char *faas_iat_error(const struct faas_iat *p)
{
	return p->err;
}

void faas_iat_free(struct faas_iat *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_lists; i++)
		free(p->lists[i]);
	free(p->lists);
	u64map_free(&p->buckets);
	u64map_free(&p->grants);
	free(p->capacity);
	free(p->used);
	free(p->funcs);
	free(p);
}

struct faas_iat *faas_iat_new(const struct faas_iat_config *cfg, char *err, size_t errlen)
{
	struct faas_iat *p;
	unsigned int d;

	if (!cfg->nr_domains || cfg->nr_domains > FAAS_IAT_MAX_DOMAINS) {
		faas_errf(err, errlen, EINVAL, "%u domains: want 1..%d", cfg->nr_domains,
			  FAAS_IAT_MAX_DOMAINS);
		return NULL;
	}
	if (!cfg->capacity) {
		faas_errf(err, errlen, EINVAL, "no domain capacities given");
		return NULL;
	}
	for (d = 0; d < cfg->nr_domains; d++) {
		if (!cfg->capacity[d]) {
			faas_errf(err, errlen, EINVAL, "domain %u has capacity 0, want >= 1", d);
			return NULL;
		}
	}
	if (!cfg->bucket_us) {
		faas_errf(err, errlen, EINVAL, "bucket size is 0, want >= 1 us");
		return NULL;
	}
	if (!(cfg->alpha > 0 && cfg->alpha <= 1)) {
		faas_errf(err, errlen, EINVAL, "IAT EWMA weight %g: want (0, 1]", cfg->alpha);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->cfg = *cfg;
	p->capacity = malloc(cfg->nr_domains * sizeof(*p->capacity));
	p->used = calloc(cfg->nr_domains, sizeof(*p->used));
	p->funcs = calloc(cfg->nr_funcs ? cfg->nr_funcs : 1, sizeof(*p->funcs));
	if (!p->capacity || !p->used || !p->funcs)
		goto nomem;
	memcpy(p->capacity, cfg->capacity, cfg->nr_domains * sizeof(*p->capacity));
	p->cfg.capacity = p->capacity;
	return p;
nomem:
	faas_iat_free(p);
	faas_errf(err, errlen, ENOMEM, "out of memory");
	return NULL;
}

static uint64_t bucket_of(const struct faas_iat *p, const struct func_state *f)
{
	double b;

	if (!f->have_iat)
		return FAAS_IAT_BUCKET_NEW;
	b = f->iat_us / (double)p->cfg.bucket_us;
	/* FAAS_IAT_BUCKET_NEW stays reserved */
	return b >= 1.8e19 ? FAAS_IAT_BUCKET_NEW - 1 : (uint64_t)b;
}

uint64_t faas_iat_bucket(const struct faas_iat *p, uint32_t func)
{
	return func < p->cfg.nr_funcs ? bucket_of(p, &p->funcs[func]) : FAAS_IAT_BUCKET_NEW;
}

double faas_iat_iat_us(const struct faas_iat *p, uint32_t func)
{
	return func < p->cfg.nr_funcs && p->funcs[func].have_iat ? p->funcs[func].iat_us : 0;
}

unsigned int faas_iat_used(const struct faas_iat *p, unsigned int d)
{
	return d < p->cfg.nr_domains ? p->used[d] : 0;
}

static struct bucket_list *list_of(const struct faas_iat *p, uint64_t bucket)
{
	uint64_t *i = u64map_get(&p->buckets, bucket);

	return i ? p->lists[*i] : NULL;
}

unsigned int faas_iat_cached(const struct faas_iat *p, uint64_t bucket, int *out,
			     unsigned int max)
{
	const struct bucket_list *l = list_of(p, bucket);
	unsigned int i;

	if (!l)
		return 0;
	for (i = 0; i < l->n && i < max; i++)
		out[i] = l->dom[i];
	return l->n;
}

void faas_iat_get_stats(const struct faas_iat *p, struct faas_iat_stats *st)
{
	*st = p->st;
	st->active = p->grants.n;
	st->buckets = p->nr_lists;
}

bool faas_iat_fits(const struct faas_iat *p, unsigned int cpus)
{
	unsigned int d;

	for (d = 0; d < p->cfg.nr_domains; d++)
		if (cpus <= p->capacity[d])
			return true;
	return false;
}

/* can_serve_and_acquire() of the paper */
static bool acquire(struct faas_iat *p, unsigned int d, unsigned int cpus)
{
	if (p->used[d] > p->capacity[d] || cpus > p->capacity[d] - p->used[d])
		return false;
	p->used[d] += cpus;
	return true;
}

static int cache_domain(struct faas_iat *p, uint64_t bucket, unsigned int d)
{
	struct bucket_list *l = list_of(p, bucket);
	unsigned int i;

	if (!l) {
		if (p->nr_lists == p->cap_lists) {
			size_t cap = p->cap_lists ? p->cap_lists * 2 : 16;
			struct bucket_list **nl = realloc(p->lists, cap * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			p->lists = nl;
			p->cap_lists = cap;
		}
		l = calloc(1, sizeof(*l) + p->cfg.nr_domains * sizeof(l->dom[0]));
		if (!l)
			return -ENOMEM;
		if (u64map_put(&p->buckets, bucket, p->nr_lists)) {
			free(l);
			return -ENOMEM;
		}
		p->lists[p->nr_lists++] = l;
	}
	for (i = 0; i < l->n; i++)
		if (l->dom[i] == d)
			return 0;
	l->dom[l->n++] = (uint16_t)d;
	return 0;
}

/*
 * Algorithm 3's choice for an invocation of @bucket needing @cpus: a cached
 * domain of the bucket, else the scan over all domains, acquiring it and
 * caching it in the bucket; FAAS_DOMAIN_SHARED if none can serve. Returns
 * the domain, or -ENOMEM (nothing acquired).
 */
static int pick(struct faas_iat *p, uint64_t bucket, unsigned int cpus, int *domain)
{
	unsigned int n = p->cfg.nr_domains, i, start;
	struct bucket_list *l = list_of(p, bucket);
	int d = FAAS_DOMAIN_SHARED;

	for (i = 0; l && i < l->n; i++) {
		if (acquire(p, l->dom[i], cpus)) {
			d = l->dom[i];
			p->st.cache_hits++;
			break;
		}
	}
	if (d < 0) {
		start = p->cfg.home_scan ? (unsigned int)(bucket % n) : 0;
		for (i = 0; i < n; i++) {
			if (acquire(p, (start + i) % n, cpus)) {
				d = (int)((start + i) % n);
				p->st.scans++;
				break;
			}
		}
	}
	if (d >= 0 && cache_domain(p, bucket, (unsigned int)d)) {
		p->used[d] -= cpus;
		return -ENOMEM;
	}
	*domain = d;
	return 0;
}

/* The part of an arrival before the choice: checks, IAT, a grant of the shared queue. */
static int arrive(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t arrival_us,
		  unsigned int cpus)
{
	struct func_state *f;
	uint64_t *g;

	if (func >= p->cfg.nr_funcs)
		return fail(p, EINVAL, "invocation %llu: function %u does not exist (%u functions)",
			    (unsigned long long)id, func, p->cfg.nr_funcs);
	if (!cpus)
		return fail(p, EINVAL, "invocation %llu: needs 0 CPUs", (unsigned long long)id);
	g = u64map_get(&p->grants, id);
	if (g)
		return fail(p, EINVAL, "invocation %llu is already assigned (domain %d)",
			    (unsigned long long)id, (int)(*g >> 32) - 1);
	f = &p->funcs[func];
	if (f->seen && arrival_us < f->last_us)
		return fail(p, EINVAL,
			    "invocation %llu: function %u arrives at %llu us, before its previous "
			    "arrival at %llu us", (unsigned long long)id, func,
			    (unsigned long long)arrival_us, (unsigned long long)f->last_us);
	if (u64map_put(&p->grants, id, cpus))
		return fail(p, ENOMEM, "out of memory");
	if (f->seen) {
		double gap = (double)(arrival_us - f->last_us);

		f->iat_us = f->have_iat ? p->cfg.alpha * gap + (1 - p->cfg.alpha) * f->iat_us : gap;
		f->have_iat = true;
	}
	f->seen = true;
	f->last_us = arrival_us;
	return 0;
}

/* Pick a domain for @g, the grant of a shared invocation of @func. */
static int repick(struct faas_iat *p, uint64_t *g, uint32_t func, int *domain)
{
	unsigned int cpus = (unsigned int)*g;

	if (pick(p, bucket_of(p, &p->funcs[func]), cpus, domain))
		return fail(p, ENOMEM, "out of memory");
	if (*domain >= 0)
		*g = ((uint64_t)(*domain + 1) << 32) | cpus;
	return 0;
}

int faas_iat_assign(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t arrival_us,
		    unsigned int cpus, int *domain)
{
	int r = arrive(p, id, func, arrival_us, cpus);

	if (r)
		return r;
	r = repick(p, u64map_get(&p->grants, id), func, domain);
	if (r) {
		u64map_del(&p->grants, id);
		return r;
	}
	if (*domain >= 0)
		p->st.assigned++;
	else
		p->st.shared++;
	return 0;
}

int faas_iat_arrive(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t arrival_us,
		    unsigned int cpus)
{
	int r = arrive(p, id, func, arrival_us, cpus);

	if (!r)
		p->st.shared++;
	return r;
}

int faas_iat_retry(struct faas_iat *p, uint64_t id, uint32_t func, int *domain)
{
	uint64_t *g = u64map_get(&p->grants, id);
	int r;

	if (func >= p->cfg.nr_funcs)
		return fail(p, EINVAL, "retry of invocation %llu: function %u does not exist "
			    "(%u functions)", (unsigned long long)id, func, p->cfg.nr_funcs);
	if (!g || (int)(*g >> 32) - 1 != FAAS_DOMAIN_SHARED)
		return fail(p, EINVAL, "retry of invocation %llu: it is not on the shared queue (%s)",
			    (unsigned long long)id, g ? "it has a domain" : "never assigned, or released");
	r = repick(p, g, func, domain);
	if (!r && *domain >= 0)
		p->st.late++;
	return r;
}

int faas_iat_release(struct faas_iat *p, uint64_t id)
{
	uint64_t *g = u64map_get(&p->grants, id);
	unsigned int cpus;
	int d;

	if (!g)
		return fail(p, ENOENT,
			    "release of invocation %llu: it holds no domain (never assigned, or "
			    "already released)", (unsigned long long)id);
	d = (int)(*g >> 32) - 1;
	cpus = (unsigned int)*g;
	if (d >= 0) {
		if (p->used[d] < cpus)
			return fail(p, EFAULT,
				    "release of invocation %llu: domain %d has %u in use, less than "
				    "its %u", (unsigned long long)id, d, p->used[d], cpus);
		p->used[d] -= cpus;
	}
	u64map_del(&p->grants, id);
	p->st.released++;
	return 0;
}
