// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Pool plans over fake topologies: builders, moves, parsing, every error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/pool.h>

#include "fake_sysfs.h"

/* A plan constructor's failure: NULL with errno @e. */
#define assert_plan_err(call, e)                  \
	do {                                      \
		errno = 0;                        \
		assert_null(call);                \
		assert_int_equal(errno, (e));     \
	} while (0)

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

/* 2 LLCs x 4 cores x 2 threads: cores 0-1, 2-3, ...; LLCs 0-7 and 8-15. */
static const struct fake_topo two_llc = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 4,
					  .threads = 2 };
/* One LLC, 4 cores, siblings c and c + 4. */
static const struct fake_topo stride = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4,
					 .threads = 2, .stride = true };
/* 4 nodes x 2 LLCs x 16 cores x 2 threads. */
static const struct fake_topo big = { .nodes = 4, .llcs_per_node = 2, .cores_per_llc = 16,
				      .threads = 2 };
/* 2 nodes x 1 LLC x 2 cores x 2 threads. */
static const struct fake_topo two_node = { .nodes = 2, .llcs_per_node = 1, .cores_per_llc = 2,
					   .threads = 2 };
/* The test VM: 2 cores x 2 threads, one LLC. */
static const struct fake_topo vm = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 2,
				     .threads = 2 };

static struct scxpol_topo *load_topo(const struct fake_topo *ft)
{
	char *root = fake_sysfs(ft);
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);
	struct scxpol_topo *t = scxpol_topo_load(&o);

	fake_free(root);
	if (!t)
		fail_msg("load failed: %s", scxpol_last_error());
	return t;
}

/* The shared shapes are loaded once for the whole group (the trees are big). */
static const struct fake_topo *shapes[] = { &two_llc, &stride, &big, &two_node, &vm };
static struct scxpol_topo *loaded[5];

/*
 * The topology of @ft: a shared one for the shapes above, else a new one.
 * Release with put_topo().
 */
static struct scxpol_topo *topo_of(const struct fake_topo *ft)
{
	unsigned int i;

	for (i = 0; i < 5; i++)
		if (ft == shapes[i])
			return loaded[i];
	return load_topo(ft);
}

static void put_topo(struct scxpol_topo *t)
{
	unsigned int i;

	for (i = 0; i < 5; i++)
		if (t == loaded[i])
			return;
	scxpol_topo_free(t);
}

static int setup(void **state)
{
	unsigned int i;

	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	for (i = 0; i < 5; i++)
		loaded[i] = load_topo(shapes[i]);
	return 0;
}

static int teardown(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++)
		scxpol_topo_free(loaded[i]);
	return 0;
}

static const char *plan_str(const struct scxpol_pool_plan *p)
{
	static char buf[4096];

	assert_true(scxpol_pool_plan_format(p, buf, sizeof(buf)) >= 0);
	return buf;
}

static void expect_domains(const struct scxpol_topo *t, unsigned int n, const char *want)
{
	struct scxpol_pool_plan *p = NULL;

	assert_non_null(p = scxpol_pool_plan_domains(t, n, SCXPOL_POOL_EXCLUSIVE));
	assert_int_equal(scxpol_pool_plan_nr_pools(p), n);
	assert_string_equal(plan_str(p), want);
	scxpol_pool_plan_free(p);
}

static struct scxpol_cpuset *cpus(const char *list, unsigned int capacity)
{
	struct scxpol_cpuset *s;

	assert_non_null(s = scxpol_cpuset_parse(list, capacity));
	return s;
}

static struct scxpol_pool_plan *plan_of(const struct scxpol_topo *t, const char *text)
{
	struct scxpol_pool_plan *p = scxpol_pool_plan_parse(t, text, SCXPOL_POOL_EXCLUSIVE);

	if (!p)
		fail_msg("parse \"%s\": %s", text, scxpol_last_error());
	return p;
}

static void test_domains_two_llcs(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);

	(void)state;
	expect_domains(t, 1, "d0=0-15");
	expect_domains(t, 2, "d0=0-7 d1=8-15");
	expect_domains(t, 4, "d0=0-3 d1=4-7 d2=8-11 d3=12-15");
	expect_domains(t, 8, "d0=0-1 d1=2-3 d2=4-5 d3=6-7 d4=8-9 d5=10-11 d6=12-13 d7=14-15");
	/* 16 = 6 + 5 + 5: a core split is unavoidable; the first domain is the bigger. */
	expect_domains(t, 3, "d0=0-5 d1=6-10 d2=11-15");
	put_topo(t);
}

static void test_domains_stride_keeps_cores(void **state)
{
	struct scxpol_topo *t = topo_of(&stride);

	(void)state;
	expect_domains(t, 1, "d0=0-7");
	expect_domains(t, 2, "d0=0-1,4-5 d1=2-3,6-7");
	expect_domains(t, 4, "d0=0,4 d1=1,5 d2=2,6 d3=3,7");
	expect_domains(t, 8, "d0=0 d1=4 d2=1 d3=5 d4=2 d5=6 d6=3 d7=7");
	expect_domains(t, 3, "d0=0-1,4 d1=2,5-6 d2=3,7");
	put_topo(t);
}

static void test_domains_256(void **state)
{
	struct scxpol_topo *t = topo_of(&big);
	struct scxpol_pool_plan *p;
	unsigned int i, lonely;

	(void)state;
	expect_domains(t, 1, "d0=0-255");
	expect_domains(t, 2, "d0=0-127 d1=128-255");
	expect_domains(t, 4, "d0=0-63 d1=64-127 d2=128-191 d3=192-255");
	expect_domains(t, 8, "d0=0-31 d1=32-63 d2=64-95 d3=96-127 d4=128-159 d5=160-191 "
		       "d6=192-223 d7=224-255");
	/*
	 * 256 / 6: four domains of 43 CPUs and two of 42. The boundary after
	 * domain i sits at 42 * i + (big ones so far), so an odd count of big
	 * ones cuts a core: at least two boundaries must, and no more do.
	 */
	assert_non_null(p = scxpol_pool_plan_domains(t, 6, 0));
	for (i = 0, lonely = 0; i < 6; i++) {
		const struct scxpol_cpuset *s = scxpol_pool_plan_cpus(p, i);
		unsigned int n = scxpol_cpuset_count(s);
		int cpu;

		assert_true(n == 42 || n == 43);
		scxpol_cpuset_for_each(cpu, s)
			lonely += !scxpol_cpuset_test(s, (unsigned int)(cpu ^ 1));
	}
	assert_int_equal(lonely, 4);
	scxpol_pool_plan_free(p);
	put_topo(t);
}

static void test_domains_two_nodes_and_vm(void **state)
{
	struct scxpol_topo *t = topo_of(&two_node), *v = topo_of(&vm);

	(void)state;
	expect_domains(t, 2, "d0=0-3 d1=4-7");
	expect_domains(v, 1, "d0=0-3");
	expect_domains(v, 2, "d0=0-1 d1=2-3");
	expect_domains(v, 4, "d0=0 d1=1 d2=2 d3=3");
	put_topo(t);
	put_topo(v);
}

static void test_domains_uneven_llcs(void **state)
{
	/* 2 LLCs of 3 cores x 2 threads; LLC 0-5 and 6-11. */
	struct fake_topo a = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 3, .threads = 2,
			       .offline = "4-5,11" };
	struct fake_topo b = a;
	struct scxpol_topo *t;

	(void)state;
	/* 4 + 5 CPUs: the smaller domain first, rather than cutting the second LLC. */
	t = topo_of(&a);
	expect_domains(t, 2, "d0=0-3 d1=6-10");
	put_topo(t);
	/* 5 + 4 CPUs. */
	b.offline = "5,10-11";
	t = topo_of(&b);
	expect_domains(t, 2, "d0=0-4 d1=6-9");
	put_topo(t);
	/* One offline CPU in the first LLC: 5 + 6, cutting no core. */
	b.offline = "3";
	t = topo_of(&b);
	expect_domains(t, 2, "d0=0-2,4-5 d1=6-11");
	put_topo(t);
}

static void test_domains_errors(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);
	struct scxpol_pool_plan *p = NULL;

	(void)state;
	assert_plan_err(scxpol_pool_plan_domains(t, 0, 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "domains: cannot make 0 domains");
	assert_plan_err(scxpol_pool_plan_domains(t, 17, 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "domains: 17 domains need at least 17 CPUs, 16 are online");
	assert_plan_err(scxpol_pool_plan_domains(t, 2, 0x8), EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "domains: unknown flags 0x8 (known: LEND 0x1, BORROW 0x2, STEAL 0x4)");
	assert_null(p);
	assert_non_null(p = scxpol_pool_plan_domains(t, 16, SCXPOL_POOL_SOFT | SCXPOL_POOL_STEAL));
	assert_int_equal(scxpol_pool_plan_flags(p, 15), SCXPOL_POOL_FLAGS_ALL);
	assert_string_equal(scxpol_pool_plan_name(p, 15), "d15");
	scxpol_pool_plan_free(p);
	put_topo(t);
}

static void test_split(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc), *s = topo_of(&stride);
	struct scxpol_pool_plan *p = NULL;

	(void)state;
	assert_non_null(p = scxpol_pool_plan_split(t, "lc", "bg", 6, SCXPOL_POOL_SOFT));
	assert_string_equal(plan_str(p), "lc=0-5 bg=6-15");
	assert_int_equal(scxpol_pool_plan_flags(p, 1), SCXPOL_POOL_SOFT);
	scxpol_pool_plan_free(p);
	assert_non_null(p = scxpol_pool_plan_split(t, "lc", "bg", 10, 0));
	assert_string_equal(plan_str(p), "lc=0-9 bg=10-15");
	scxpol_pool_plan_free(p);
	assert_non_null(p = scxpol_pool_plan_split(s, "lc", "bg", 4, 0));
	assert_string_equal(plan_str(p), "lc=0-1,4-5 bg=2-3,6-7");
	scxpol_pool_plan_free(p);
	assert_non_null(p = scxpol_pool_plan_split(s, "lc", "bg", 3, 0));
	assert_string_equal(plan_str(p), "lc=0-1,4 bg=2-3,5-7");
	scxpol_pool_plan_free(p);
	p = NULL;

	assert_plan_err(scxpol_pool_plan_split(t, "lc", "bg", 0, 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "split: 0 CPUs for the first pool leaves it empty "
			    "(16 CPUs online; both pools need a CPU)");
	assert_plan_err(scxpol_pool_plan_split(t, "lc", "bg", 16, 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "split: 16 CPUs for the first pool leaves none for "
			    "the second (16 CPUs online; both pools need a CPU)");
	assert_plan_err(scxpol_pool_plan_split(t, "lc", "lc", 4, 0), EEXIST);
	assert_string_equal(scxpol_last_error(), "pool \"lc\" already exists (pool 0)");
	assert_plan_err(scxpol_pool_plan_split(t, "", "bg", 4, 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "pool name is empty");
	assert_plan_err(scxpol_pool_plan_split(t, "lc", "bg", 4, 0x10), EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "split: unknown flags 0x10 (known: LEND 0x1, BORROW 0x2, STEAL 0x4)");
	assert_null(p);
	put_topo(t);
	put_topo(s);
}

static void expect_move(struct scxpol_pool_plan *p, unsigned int from, unsigned int to,
			unsigned int k, const char *want)
{
	if (scxpol_pool_plan_move(p, from, to, k))
		fail_msg("move: %s", scxpol_last_error());
	assert_string_equal(plan_str(p), want);
}

static void test_move_same_llc_first(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);
	struct scxpol_pool_plan *p = plan_of(t, "lc=0-5 bg=6-15");

	(void)state;
	/* Growing lc takes bg's CPUs in lc's LLC first (6-7, not 8-9 or 14-15). */
	expect_move(p, 1, 0, 2, "lc=0-7 bg=8-15");
	/* Then the next LLC, nearest to lc in topology order. */
	expect_move(p, 1, 0, 2, "lc=0-9 bg=10-15");
	/* Shrinking gives back the CPUs in bg's LLC first, then those next to bg. */
	expect_move(p, 0, 1, 4, "lc=0-5 bg=6-15");
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 6), 1);
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 5), 0);
	scxpol_pool_plan_free(p);

	/* All of a's LLC goes first. */
	p = plan_of(t, "a=0-1 b=2-15");
	expect_move(p, 1, 0, 6, "a=0-7 b=8-15");
	scxpol_pool_plan_free(p);
	put_topo(t);
}

static void test_move_prefers_whole_and_mended_cores(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc), *b = topo_of(&big);
	struct scxpol_pool_plan *p;

	(void)state;
	/* lc holds half of core 4-5: moving one CPU mends it. */
	p = plan_of(t, "lc=0-4 bg=5-15");
	expect_move(p, 1, 0, 1, "lc=0-5 bg=6-15");
	scxpol_pool_plan_free(p);
	/* CPU 2 shares its core with pool x: whole core 4-5 goes before it. */
	p = plan_of(t, "lc=0-1 x=3 bg=2,4-15");
	expect_move(p, 2, 0, 2, "lc=0-1,4-5 x=3 bg=2,6-15");
	scxpol_pool_plan_free(p);
	/* An odd count cuts one core, the last one taken, at the same LLC. */
	p = plan_of(t, "lc=0-1 bg=2-15");
	expect_move(p, 1, 0, 3, "lc=0-4 bg=5-15");
	scxpol_pool_plan_free(p);
	/* Far pools: from node 3's LLCs to node 0, the same node's LLC first. */
	p = plan_of(b, "a=0-15 z=16-255");
	expect_move(p, 1, 0, 20, "a=0-35 z=36-255");
	expect_move(p, 1, 0, 30, "a=0-65 z=66-255");
	scxpol_pool_plan_free(p);
	put_topo(t);
	put_topo(b);
}

static void test_move_errors(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);
	struct scxpol_pool_plan *p = plan_of(t, "lc=0-1 bg=2-15");

	(void)state;
	assert_int_equal(scxpol_pool_plan_move(p, 1, 0, 0), -EINVAL);
	assert_string_equal(scxpol_last_error(), "move: 0 CPUs to move from pool \"bg\" to pool \"lc\"");
	assert_int_equal(scxpol_pool_plan_move(p, 0, 1, 2), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "move: pool \"lc\" has 2 CPUs, moving 2 would leave it empty");
	assert_int_equal(scxpol_pool_plan_move(p, 0, 2, 1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "move: no pool 2 (the plan has 2)");
	assert_int_equal(scxpol_pool_plan_move(p, 1, 1, 1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "move: pool \"bg\" is both source and destination");
	/* Nothing changed. */
	assert_string_equal(plan_str(p), "lc=0-1 bg=2-15");
	scxpol_pool_plan_free(p);
	put_topo(t);
}

static void add_fails(struct scxpol_pool_plan *p, const char *name, unsigned int flags,
		      const char *list, unsigned int capacity, int err, const char *msg)
{
	struct scxpol_cpuset *s = list ? cpus(list, capacity) : NULL;

	assert_int_equal(scxpol_pool_plan_add(p, name, flags, s), -err);
	assert_string_equal(scxpol_last_error(), msg);
	scxpol_cpuset_free(s);
}

static void test_add_and_getters(void **state)
{
	struct fake_topo ft = two_llc;
	struct scxpol_topo *t;
	struct scxpol_pool_plan *p;
	struct scxpol_cpuset *s;

	(void)state;
	ft.offline = "3,5,6";
	t = topo_of(&ft);
	p = scxpol_pool_plan_new(t);
	assert_ptr_equal(scxpol_pool_plan_topo(p), t);
	assert_int_equal(scxpol_pool_plan_nr_pools(p), 0);
	assert_string_equal(plan_str(p), "");

	s = cpus("0-1", 64);	/* any capacity: stored with the topology's */
	assert_int_equal(scxpol_pool_plan_add(p, "lc", SCXPOL_POOL_STEAL, s), 0);
	scxpol_cpuset_free(s);
	s = cpus("8-15", 16);
	assert_int_equal(scxpol_pool_plan_add(p, "bg.1_x-Y", SCXPOL_POOL_SOFT, s), 1);
	scxpol_cpuset_free(s);
	assert_int_equal(scxpol_pool_plan_nr_pools(p), 2);
	assert_string_equal(scxpol_pool_plan_name(p, 1), "bg.1_x-Y");
	assert_int_equal(scxpol_pool_plan_flags(p, 0), SCXPOL_POOL_STEAL);
	assert_int_equal(scxpol_cpuset_capacity(scxpol_pool_plan_cpus(p, 0)), 16);
	assert_int_equal(scxpol_pool_plan_find(p, "bg.1_x-Y"), 1);
	assert_int_equal(scxpol_pool_plan_find(p, "nope"), -ENOENT);
	assert_string_equal(scxpol_last_error(), "no pool \"nope\" in the plan");
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 1), 0);
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 2), -1);
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 12), 1);
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 16), -1);
	assert_null(scxpol_pool_plan_name(p, 2));
	assert_null(scxpol_pool_plan_cpus(p, 2));
	assert_int_equal(scxpol_pool_plan_flags(p, 2), 0);
	assert_string_equal(plan_str(p), "lc=0-1 bg.1_x-Y=8-15");

	add_fails(p, "x", 0, "", 16, EINVAL, "pool \"x\" has no CPUs");
	add_fails(p, "x", 0, NULL, 16, EINVAL, "pool \"x\": cpu set is NULL");
	add_fails(p, "", 0, "2", 16, EINVAL, "pool name is empty");
	add_fails(p, NULL, 0, "2", 16, EINVAL, "pool name is NULL");
	add_fails(p, "abcdefghijklmnop", 0, "2", 16, EINVAL,
		  "pool name \"abcdefghijklmnop\" is too long (16 characters, at most 15)");
	add_fails(p, "a b", 0, "2", 16, EINVAL,
		  "pool name \"a b\": bad character ' ' at column 2 (use A-Z a-z 0-9 _ . -)");
	add_fails(p, "a=b", 0, "2", 16, EINVAL,
		  "pool name \"a=b\": bad character '=' at column 2 (use A-Z a-z 0-9 _ . -)");
	add_fails(p, "a\tb", 0, "2", 16, EINVAL,
		  "pool name: bad character '\\x09' at column 2 (use A-Z a-z 0-9 _ . -)");
	add_fails(p, "lc", 0, "2", 16, EEXIST, "pool \"lc\" already exists (pool 0)");
	add_fails(p, "x", 0x8, "2", 16, EINVAL,
		  "pool \"x\": unknown flags 0x8 (known: LEND 0x1, BORROW 0x2, STEAL 0x4)");
	add_fails(p, "x", 0, "2,20", 32, EINVAL, "pool \"x\": CPU 20 is not on this machine (it has CPUs 0-15)");
	add_fails(p, "x", 0, "16-17,30", 32, EINVAL,
		  "pool \"x\": CPUs 16-17,30 are not on this machine (it has CPUs 0-15)");
	add_fails(p, "x", 0, "2-3", 16, EINVAL, "pool \"x\": CPU 3 is offline");
	add_fails(p, "x", 0, "2-7", 16, EINVAL, "pool \"x\": CPUs 3,5-6 are offline");
	add_fails(p, "x", 0, "1-2", 16, EINVAL, "pool \"x\" overlaps pool \"lc\" on CPU 1");
	add_fails(p, "x", 0, "2,4,7-9", 16, EINVAL, "pool \"x\" overlaps pool \"bg.1_x-Y\" on CPUs 8-9");
	assert_int_equal(scxpol_pool_plan_nr_pools(p), 2);
	assert_int_equal(scxpol_pool_plan_add(NULL, "x", 0, NULL), -EINVAL);
	scxpol_pool_plan_free(p);
	assert_null(scxpol_pool_plan_new(NULL));
	assert_int_equal(errno, EINVAL);
	put_topo(t);
}

static void test_dup_is_independent(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);
	struct scxpol_pool_plan *p = plan_of(t, "lc=0-5 bg=6-15"), *d;

	(void)state;
	d = scxpol_pool_plan_dup(p);
	assert_non_null(d);
	assert_string_equal(plan_str(d), "lc=0-5 bg=6-15");
	expect_move(d, 1, 0, 2, "lc=0-7 bg=8-15");
	assert_string_equal(plan_str(p), "lc=0-5 bg=6-15");
	assert_int_equal(scxpol_pool_plan_cpu_pool(p, 7), 1);
	assert_int_equal(scxpol_pool_plan_cpu_pool(d, 7), 0);
	scxpol_pool_plan_free(d);
	scxpol_pool_plan_free(p);
	put_topo(t);
}

static void test_parse_and_format(void **state)
{
	struct scxpol_topo *t = topo_of(&two_llc);
	struct scxpol_pool_plan *p = NULL;
	char buf[16];

	(void)state;
	p = plan_of(t, "  lc=0-1\t\tbg=2-3,8 ");
	assert_int_equal(scxpol_pool_plan_nr_pools(p), 2);
	assert_string_equal(plan_str(p), "lc=0-1 bg=2-3,8");
	assert_int_equal(scxpol_pool_plan_format(p, buf, 16), 15);
	assert_int_equal(scxpol_pool_plan_format(p, buf, 15), -ENOSPC);
	assert_string_equal(buf, "");
	assert_string_equal(scxpol_last_error(), "pool plan of 2 pools needs 16 bytes, the buffer has 15");
	scxpol_pool_plan_free(p);

	p = plan_of(t, "");
	assert_int_equal(scxpol_pool_plan_nr_pools(p), 0);
	scxpol_pool_plan_free(p);
	p = NULL;

	assert_plan_err(scxpol_pool_plan_parse(t, "lc 0-1", 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan \"lc 0-1\": expected NAME=CPUS at column 1");
	assert_plan_err(scxpol_pool_plan_parse(t, "lc=0 =1", 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan \"lc=0 =1\": expected NAME=CPUS at column 6");
	assert_plan_err(scxpol_pool_plan_parse(t, "lc=0-x", 0), EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "pool plan \"lc=0-x\": cpu list \"0-x\": bad character 'x' at column 3");
	assert_plan_err(scxpol_pool_plan_parse(t, "a=0-1 b=1", 0), EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "pool plan \"a=0-1 b=1\": pool \"b\" overlaps pool \"a\" on CPU 1");
	assert_plan_err(scxpol_pool_plan_parse(t, "a=0-1 a=2", 0), EEXIST);
	assert_string_equal(scxpol_last_error(),
			    "pool plan \"a=0-1 a=2\": pool \"a\" already exists (pool 0)");
	assert_plan_err(scxpol_pool_plan_parse(t, "a=", 0), EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan \"a=\": pool \"a\" has no CPUs");
	assert_plan_err(scxpol_pool_plan_parse(t, "a=0-16", 0), ERANGE);
	assert_string_equal(scxpol_last_error(), "pool plan \"a=0-16\": cpu list \"0-16\": CPU 16 at "
			    "column 3 is out of range (the set holds CPUs 0-15)");
	/* a long plan is quoted in part, with "...": the column still counts in all of it */
	assert_plan_err(scxpol_pool_plan_parse(t, "aaaaaaaaaa=0 bbbbbbbbbb=1 cccccccccc=2 "
						  "dddddddddd=3 eeeeeeeeee=4 ffffffffff=5 x", 0),
			EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan \"aaaaaaaaaa=0 bbbbbbbbbb=1 cccccccccc=2 "
			    "dddddddddd=3 eeeeeeeeee=4...\": expected NAME=CPUS at "
			    "column 79");
	/* bytes a terminal would act on are shown, not sent */
	assert_plan_err(scxpol_pool_plan_parse(t, "a=0 \033[2J", 0), EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "pool plan \"a=0 \\x1b[2J\": expected NAME=CPUS at column 5");
	assert_plan_err(scxpol_pool_plan_parse(t, "a=0", 0x20), EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan \"a=0\": pool \"a\": unknown flags 0x20 "
			    "(known: LEND 0x1, BORROW 0x2, STEAL 0x4)");
	assert_null(p);
	put_topo(t);
}

/* format and parse are inverses on every builder's output. */
static void test_format_parse_roundtrip(void **state)
{
	struct scxpol_topo *t = topo_of(&big);
	struct scxpol_pool_plan *p, *q;
	unsigned int n, i;
	char *text;

	(void)state;
	text = malloc(8192);
	for (n = 1; n <= 64; n *= 4) {
		assert_non_null(p = scxpol_pool_plan_domains(t, n, 0));
		assert_true(scxpol_pool_plan_format(p, text, 8192) > 0);
		q = plan_of(t, text);
		assert_int_equal(scxpol_pool_plan_nr_pools(q), n);
		for (i = 0; i < n; i++)
			assert_true(scxpol_cpuset_equal(scxpol_pool_plan_cpus(p, i),
							scxpol_pool_plan_cpus(q, i)));
		scxpol_pool_plan_free(p);
		scxpol_pool_plan_free(q);
	}
	free(text);
	put_topo(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domains_two_llcs),
		cmocka_unit_test(test_domains_stride_keeps_cores),
		cmocka_unit_test(test_domains_256),
		cmocka_unit_test(test_domains_two_nodes_and_vm),
		cmocka_unit_test(test_domains_uneven_llcs),
		cmocka_unit_test(test_domains_errors),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_move_same_llc_first),
		cmocka_unit_test(test_move_prefers_whole_and_mended_cores),
		cmocka_unit_test(test_move_errors),
		cmocka_unit_test(test_add_and_getters),
		cmocka_unit_test(test_dup_is_independent),
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_format_parse_roundtrip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
