// SPDX-License-Identifier: GPL-2.0
/* IAT consistent hashing (Algorithm 3): buckets, cache, capacity, shared queue. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../examples/faas/iat.h"
#include "../../examples/faas/trace.h"

#define MS 1000ULL

static char err[FAAS_ERR_LEN];

static struct faas_iat *mk(unsigned int n, const unsigned int *cap, double alpha, uint32_t funcs,
			   bool home)
{
	struct faas_iat_config c = {
		.nr_domains = n, .capacity = cap, .bucket_us = 100 * MS, .alpha = alpha,
		.nr_funcs = funcs, .home_scan = home,
	};
	struct faas_iat *p = faas_iat_new(&c, err, sizeof(err));

	assert_non_null(p);
	return p;
}

static int assign(struct faas_iat *p, uint64_t id, uint32_t func, uint64_t t, unsigned int cpus)
{
	int d = -100;

	assert_int_equal(faas_iat_assign(p, id, func, t, cpus, &d), 0);
	return d;
}

static void expect_cached(struct faas_iat *p, uint64_t bucket, unsigned int n, const int *want)
{
	int got[8];

	assert_int_equal(faas_iat_cached(p, bucket, got, 8), n);
	assert_memory_equal(got, want, n * sizeof(int));
}

static void test_buckets_and_cache(void **state)
{
	static const unsigned int cap[] = { 1, 1 };
	struct faas_iat *p = mk(2, cap, 1.0, 3, false);
	struct faas_iat_stats st;

	(void)state;
	/* first arrivals have no IAT: bucket NEW; the scan starts at domain 0 */
	assert_int_equal(assign(p, 0, 0, 0, 1), 0);
	assert_int_equal(assign(p, 1, 1, 10 * MS, 1), 1); /* cached 0 is busy */
	expect_cached(p, FAAS_IAT_BUCKET_NEW, 2, (int[]){ 0, 1 });
	assert_int_equal(faas_iat_release(p, 0), 0);
	assert_int_equal(faas_iat_release(p, 1), 0);

	/* IAT 250 ms: bucket 2, nothing cached yet */
	assert_int_equal(assign(p, 2, 0, 250 * MS, 1), 0);
	assert_int_equal(faas_iat_bucket(p, 0), 2);
	assert_true(faas_iat_iat_us(p, 0) == 250000.0);
	assert_int_equal(assign(p, 3, 1, 260 * MS, 1), 1);
	expect_cached(p, 2, 2, (int[]){ 0, 1 });
	assert_int_equal(faas_iat_release(p, 2), 0);
	assert_int_equal(faas_iat_release(p, 3), 0);

	/* bucket 2 again: its cached domains first, in cache order */
	assert_int_equal(assign(p, 4, 1, 520 * MS, 1), 0);
	assert_int_equal(assign(p, 5, 2, 520 * MS, 1), 1); /* NEW: cached 0 busy, then 1 */
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.assigned, 6);
	assert_int_equal(st.cache_hits, 2);
	assert_int_equal(st.scans, 4);
	assert_int_equal(st.shared, 0);
	assert_int_equal(st.active, 2);
	assert_int_equal(st.buckets, 2);
	/* a bucket never caches a domain twice */
	expect_cached(p, FAAS_IAT_BUCKET_NEW, 2, (int[]){ 0, 1 });
	assert_int_equal(faas_iat_cached(p, 7, NULL, 0), 0);
	assert_int_equal(faas_iat_release(p, 4), 0);
	assert_int_equal(faas_iat_release(p, 5), 0);
	assert_int_equal(faas_iat_used(p, 0) + faas_iat_used(p, 1), 0);
	faas_iat_free(p);
}

static void test_home_scan(void **state)
{
	static const unsigned int cap[] = { 1, 1, 1, 1 };
	struct faas_iat *p = mk(4, cap, 1.0, 2, true);
	struct faas_iat *q = mk(4, cap, 1.0, 2, false);

	(void)state;
	/* NEW is UINT64_MAX: home 3; IAT 150 ms: bucket 1, home 1 */
	assert_int_equal(assign(p, 0, 0, 0, 1), 3);
	assert_int_equal(assign(p, 1, 0, 150 * MS, 1), 1);
	/* NEW is cached on 3 (busy); the scan from home 3 wraps to 0 */
	assert_int_equal(assign(p, 2, 1, 150 * MS, 1), 0);
	/* the paper's order always starts at domain 0 */
	assert_int_equal(assign(q, 0, 0, 0, 1), 0);
	assert_int_equal(assign(q, 1, 0, 150 * MS, 1), 1);
	faas_iat_free(p);
	faas_iat_free(q);
}

static void test_ewma(void **state)
{
	static const unsigned int cap[] = { 8 };
	struct faas_iat *p = mk(1, cap, 0.5, 1, false);

	(void)state;
	assign(p, 0, 0, 0, 1);
	assert_int_equal(faas_iat_bucket(p, 0), FAAS_IAT_BUCKET_NEW);
	assert_true(faas_iat_iat_us(p, 0) == 0);
	assign(p, 1, 0, 100 * MS, 1);
	assert_true(faas_iat_iat_us(p, 0) == 100000.0); /* the first gap sets it */
	assert_int_equal(faas_iat_bucket(p, 0), 1);
	assign(p, 2, 0, 400 * MS, 1);
	assert_true(faas_iat_iat_us(p, 0) == 200000.0); /* 0.5 * 300 + 0.5 * 100 ms */
	/* that arrival used bucket 2, with its own gap, not the 1 of before */
	expect_cached(p, 2, 1, (int[]){ 0 });
	expect_cached(p, 1, 1, (int[]){ 0 });
	assert_int_equal(faas_iat_bucket(p, 0), 2);
	assign(p, 3, 0, 400 * MS, 1);			 /* a gap of 0 */
	assert_true(faas_iat_iat_us(p, 0) == 100000.0);
	assert_int_equal(faas_iat_bucket(p, 0), 1);
	faas_iat_free(p);
}

static void test_capacity_and_shared_queue(void **state)
{
	static const unsigned int cap[] = { 2, 3 };
	struct faas_iat *p = mk(2, cap, 1.0, 8, false);
	struct faas_iat_stats st;

	(void)state;
	assert_int_equal(assign(p, 0, 0, 0, 1), 0);
	assert_int_equal(assign(p, 1, 1, 0, 2), 1); /* 1 + 2 > 2 on domain 0 */
	assert_int_equal(assign(p, 2, 2, 0, 2), FAAS_DOMAIN_SHARED);
	assert_int_equal(faas_iat_used(p, 0), 1);
	assert_int_equal(faas_iat_used(p, 1), 2);
	assert_int_equal(assign(p, 3, 3, 0, 1), 0);
	assert_int_equal(assign(p, 4, 4, 0, 1), 1);
	assert_int_equal(faas_iat_used(p, 0), 2);
	assert_int_equal(faas_iat_used(p, 1), 3);
	assert_int_equal(assign(p, 5, 5, 0, 1), FAAS_DOMAIN_SHARED);
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.shared, 2);
	assert_int_equal(st.assigned, 4);
	assert_int_equal(st.active, 6);

	/* a shared invocation holds nothing, but is released once like any other */
	assert_int_equal(faas_iat_release(p, 2), 0);
	assert_int_equal(faas_iat_used(p, 1), 3);
	assert_int_equal(faas_iat_release(p, 1), 0);
	assert_int_equal(faas_iat_used(p, 1), 1);
	assert_int_equal(faas_iat_release(p, 1), -ENOENT);
	assert_string_equal(faas_iat_error(p), "release of invocation 1: it holds no domain "
			    "(never assigned, or already released)");
	assert_int_equal(faas_iat_used(p, 1), 1);
	assert_int_equal(faas_iat_release(p, 999), -ENOENT);
	assert_string_equal(faas_iat_error(p), "release of invocation 999: it holds no domain "
			    "(never assigned, or already released)");
	assert_int_equal(faas_iat_release(p, 2), -ENOENT);

	/* the freed capacity serves the next arrival: domain 1 has 2 free now */
	assert_int_equal(assign(p, 6, 6, 0, 2), 1);
	/* more CPUs than any domain has: always the shared queue */
	assert_int_equal(faas_iat_release(p, 6), 0);
	assert_int_equal(assign(p, 7, 7, 0, 4), FAAS_DOMAIN_SHARED);
	assert_int_equal(faas_iat_used(p, 0), 2);
	assert_int_equal(faas_iat_used(p, 1), 1);
	assert_int_equal(faas_iat_used(p, 2), 0); /* no such domain */
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.released, 3);
	faas_iat_free(p);
}

/* A control plane holding invocations: arrive without a choice, retry later. */
static void test_hold_and_retry(void **state)
{
	static const unsigned int cap[] = { 1, 2 };
	struct faas_iat *p = mk(2, cap, 1.0, 4, false);
	struct faas_iat_stats st;
	int d = 42;

	(void)state;
	assert_true(faas_iat_fits(p, 2));
	assert_false(faas_iat_fits(p, 3));
	assert_int_equal(assign(p, 0, 0, 0, 1), 0);
	assert_int_equal(assign(p, 1, 1, 0, 2), 1);
	assert_int_equal(assign(p, 2, 2, 0, 1), FAAS_DOMAIN_SHARED);
	/* older ones wait: no choice for this one, even if a domain had room */
	assert_int_equal(faas_iat_arrive(p, 3, 3, 0, 1), 0);
	assert_int_equal(faas_iat_retry(p, 2, 2, &d), 0);
	assert_int_equal(d, FAAS_DOMAIN_SHARED);
	assert_int_equal(faas_iat_release(p, 1), 0);
	/* its bucket (NEW) cached domains 0 then 1: domain 1 has room now */
	assert_int_equal(faas_iat_retry(p, 2, 2, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(faas_iat_used(p, 1), 1);
	assert_int_equal(faas_iat_retry(p, 3, 3, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(faas_iat_used(p, 1), 2);
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.assigned, 2);
	assert_int_equal(st.shared, 2);
	assert_int_equal(st.late, 2);
	assert_int_equal(st.active, 3);
	/* a retried invocation holds its domain like an assigned one */
	assert_int_equal(faas_iat_release(p, 2), 0);
	assert_int_equal(faas_iat_used(p, 1), 1);

	d = 42;
	assert_int_equal(faas_iat_retry(p, 3, 3, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "retry of invocation 3: it is not on the shared "
			    "queue (it has a domain)");
	assert_int_equal(faas_iat_retry(p, 2, 2, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "retry of invocation 2: it is not on the shared "
			    "queue (never assigned, or released)");
	assert_int_equal(faas_iat_retry(p, 0, 9, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "retry of invocation 0: function 9 does not exist "
			    "(4 functions)");
	assert_int_equal(d, 42);
	assert_int_equal(faas_iat_arrive(p, 3, 3, 10 * MS, 1), -EINVAL);
	assert_string_equal(faas_iat_error(p), "invocation 3 is already assigned (domain 1)");
	faas_iat_free(p);
}

static void test_assign_errors(void **state)
{
	static const unsigned int cap[] = { 1 };
	struct faas_iat *p = mk(1, cap, 1.0, 2, false);
	int d = 42;

	(void)state;
	assert_int_equal(faas_iat_assign(p, 0, 2, 0, 1, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "invocation 0: function 2 does not exist (2 functions)");
	assert_int_equal(faas_iat_assign(p, 0, 0, 0, 0, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "invocation 0: needs 0 CPUs");
	assert_int_equal(d, 42);
	assert_int_equal(assign(p, 0, 0, 100 * MS, 1), 0);
	assert_int_equal(faas_iat_assign(p, 0, 1, 100 * MS, 1, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "invocation 0 is already assigned (domain 0)");
	assert_int_equal(faas_iat_assign(p, 1, 0, 50 * MS, 1, &d), -EINVAL);
	assert_string_equal(faas_iat_error(p), "invocation 1: function 0 arrives at 50000 us, "
			    "before its previous arrival at 100000 us");
	/* failed calls changed nothing */
	assert_int_equal(faas_iat_used(p, 0), 1);
	assert_int_equal(faas_iat_bucket(p, 0), FAAS_IAT_BUCKET_NEW);
	faas_iat_free(p);
}

static void test_config_errors(void **state)
{
	static const unsigned int cap[] = { 1, 0 };
	struct faas_iat_config c = { .nr_domains = 2, .capacity = cap, .bucket_us = 1, .alpha = 1 };

	(void)state;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "domain 1 has capacity 0, want >= 1");
	c.nr_domains = 0;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "0 domains: want 1..1024");
	c.nr_domains = 1;
	c.bucket_us = 0;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "bucket size is 0, want >= 1 us");
	c.bucket_us = 1;
	c.alpha = 1.5;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "IAT EWMA weight 1.5: want (0, 1]");
	c.alpha = 0;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "IAT EWMA weight 0: want (0, 1]");
	c.capacity = NULL;
	c.alpha = 1;
	assert_null(faas_iat_new(&c, err, sizeof(err)));
	assert_string_equal(err, "no domain capacities given");
}

/* Random arrivals and completions against a model: capacity stays in bounds. */
static void test_random_invariants(void **state)
{
	static const unsigned int cap[] = { 1, 2, 3, 4 };
	enum { N = 20000, FUNCS = 16 };
	struct faas_iat *p = mk(4, cap, 0.3, FUNCS, true);
	static int dom[N];
	static unsigned int cpus[N];
	static bool active[N];
	unsigned int used[4] = { 0 }, d;
	uint64_t rng = 99, t = 0, next = 0, shared = 0, i;
	struct faas_iat_stats st;

	(void)state;
	while (next < N) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((rng >> 62) < 2) {
			uint64_t id = next++;

			t += (rng >> 40) % (300 * MS);
			cpus[id] = 1 + (unsigned int)((rng >> 20) % 3);
			dom[id] = assign(p, id, (uint32_t)((rng >> 8) % FUNCS), t, cpus[id]);
			active[id] = true;
			if (dom[id] >= 0)
				used[dom[id]] += cpus[id];
			else
				shared++;
		} else if (next) {
			uint64_t id = (rng >> 33) % next;

			if (active[id]) {
				assert_int_equal(faas_iat_release(p, id), 0);
				active[id] = false;
				if (dom[id] >= 0)
					used[dom[id]] -= cpus[id];
			} else {
				assert_int_equal(faas_iat_release(p, id), -ENOENT);
			}
		}
		for (d = 0; d < 4; d++) {
			assert_true(used[d] <= cap[d]);
			assert_int_equal(faas_iat_used(p, d), used[d]);
		}
	}
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.shared, shared);
	assert_int_equal(st.assigned + st.shared, N);
	assert_true(st.cache_hits > 0 && st.scans > 0 && shared > 0);
	for (i = 0; i < N; i++)
		if (active[i])
			assert_int_equal(faas_iat_release(p, i), 0);
	for (d = 0; d < 4; d++)
		assert_int_equal(faas_iat_used(p, d), 0);
	faas_iat_get_stats(p, &st);
	assert_int_equal(st.active, 0);
	faas_iat_free(p);
}

/*
 * Algorithm 3 written out plainly, as the paper states it (the scan over
 * all domains in index order), against the policy over random arrivals
 * and completions: the same domain or the shared queue every time. IATs
 * are EWMAs (alpha 0.4) with the first gap as the first estimate; a
 * function's first arrival uses the bucket FAAS_IAT_BUCKET_NEW.
 */
enum { M_N = 30000, M_FUNCS = 12, M_DOMS = 5, M_BUCKET = 7000 };

struct model {
	unsigned int cap[M_DOMS], used[M_DOMS];
	struct {
		uint64_t bucket;
		unsigned int n;
		int dom[M_DOMS];
	} map[M_N + 1]; /* domains_map, one entry per bucket seen */
	unsigned int nr_map;
};

/* PickAvailableDomain(D, cpus) with can_serve_and_acquire() */
static int model_pick(struct model *m, const int *dom, unsigned int n, unsigned int cpus)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (m->used[dom[i]] + cpus <= m->cap[dom[i]]) {
			m->used[dom[i]] += cpus;
			return dom[i];
		}
	}
	return FAAS_DOMAIN_SHARED;
}

/* AssignDomainToRequest() */
static int model_assign(struct model *m, uint64_t bucket, unsigned int cpus)
{
	static const int sys[M_DOMS] = { 0, 1, 2, 3, 4 };
	unsigned int e, i;
	int d;

	for (e = 0; e < m->nr_map && m->map[e].bucket != bucket; e++)
		;
	if (e == m->nr_map) {
		m->map[e].bucket = bucket;
		m->map[e].n = 0;
		m->nr_map++;
	}
	d = model_pick(m, m->map[e].dom, m->map[e].n, cpus);
	if (d < 0)
		d = model_pick(m, sys, M_DOMS, cpus);
	if (d < 0)
		return d;
	/* domains_map[bucket] <- D_preferred u {d} */
	for (i = 0; i < m->map[e].n && m->map[e].dom[i] != d; i++)
		;
	if (i == m->map[e].n)
		m->map[e].dom[m->map[e].n++] = d;
	return d;
}

static void test_paper_model(void **state)
{
	static const unsigned int cap[M_DOMS] = { 1, 2, 1, 3, 2 };
	struct faas_iat_config c = { .nr_domains = M_DOMS, .capacity = cap, .bucket_us = M_BUCKET,
				     .alpha = 0.4, .nr_funcs = M_FUNCS };
	static struct model m;
	static int dom[M_N];
	static unsigned int cpus[M_N];
	static uint64_t act[M_N];
	struct faas_iat_stats st;
	size_t nr_act = 0;
	double iat[M_FUNCS];
	uint64_t last[M_FUNCS], rng = 7, t = 0, next = 0, shared = 0;
	bool seen[M_FUNCS] = { 0 }, have[M_FUNCS] = { 0 };
	struct faas_iat *p = faas_iat_new(&c, err, sizeof(err));

	(void)state;
	assert_non_null(p);
	memset(&m, 0, sizeof(m));
	memcpy(m.cap, cap, sizeof(cap));
	while (next < M_N) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((rng >> 62) < 1) { /* 1 in 4 an arrival, else a completion */
			uint64_t id = next++;
			uint32_t f = (uint32_t)((rng >> 8) % M_FUNCS);

			t += (rng >> 40) % 20000;
			cpus[id] = 1 + (unsigned int)((rng >> 20) % 2);
			if (seen[f]) {
				double gap = (double)(t - last[f]);

				iat[f] = have[f] ? 0.4 * gap + 0.6 * iat[f] : gap;
				have[f] = true;
			}
			seen[f] = true;
			last[f] = t;
			dom[id] = model_assign(&m, have[f] ? (uint64_t)(iat[f] / M_BUCKET)
							   : FAAS_IAT_BUCKET_NEW, cpus[id]);
			assert_int_equal(assign(p, id, f, t, cpus[id]), dom[id]);
			shared += dom[id] < 0;
			act[nr_act++] = id;
		} else {
			/* one of the active, at random: domains fill and empty */
			size_t k;
			uint64_t id;

			if (!nr_act)
				continue;
			k = (size_t)((rng >> 33) % nr_act);
			id = act[k];
			act[k] = act[--nr_act];
			assert_int_equal(faas_iat_release(p, id), 0);
			if (dom[id] >= 0)
				m.used[dom[id]] -= cpus[id];
		}
	}
	/* the run saw every case: cache hits, scans, a full system, many buckets */
	faas_iat_get_stats(p, &st);
	assert_true(st.cache_hits > 0 && st.scans > 0 && shared > 0);
	assert_int_equal(st.shared, shared);
	assert_int_equal(st.buckets, m.nr_map);
	assert_true(m.nr_map > 10);
	faas_iat_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_and_cache),
		cmocka_unit_test(test_home_scan),
		cmocka_unit_test(test_ewma),
		cmocka_unit_test(test_capacity_and_shared_queue),
		cmocka_unit_test(test_hold_and_retry),
		cmocka_unit_test(test_assign_errors),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_random_invariants),
		cmocka_unit_test(test_paper_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
