// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel: publishing and its
 * validation, resize visibility, idle-CPU choice on an SMT/LLC topology,
 * the dispatch order with work stealing, lending, borrowing and reclaim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "host_fake.h"
#include <scxpol/common.bpf.h>
#include <scxpol/pool.bpf.h>

#define MS 1000000ULL
#define SLICE (5 * MS)
#define SOFT SCXPOL_POOL_SOFT
#define STEAL SCXPOL_POOL_STEAL

static u32 llc_of[FAKE_MAX_CPUS];

/* What scxpol_pool_setup() does before load, on @nr_cpus fake CPUs. */
static void setup_pools(u32 nr_cpus, u32 max_pools)
{
	fake_reset(nr_cpus);
	fake_set_clock(1000 * MS);
	memset(llc_of, 0, sizeof(llc_of));
	scxpol_pool_conf.max_pools = max_pools;
	scxpol_pool_conf.nr_cpus = nr_cpus;
	scxpol_pool_conf.max_llcs = nr_cpus;
	scxpol_pool_conf.nr_words = (nr_cpus + 63) / 64;
	FAKE_MAP_RESIZE(&scxpol_pool_slots, 2 * max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_llcs, 2 * max_pools * nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_cpus, 2 * nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_curr, nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_order, 2 * max_pools * max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_clock, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_queued, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_pending, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_stage, max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_mask, max_pools * scxpol_pool_conf.nr_words);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_cpu, nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_order, max_pools * max_pools);
}

/* 8 CPUs: SMT cores {0,1} {2,3} {4,5} {6,7}; LLC 0 = 0-3, LLC 1 = 4-7. */
static int setup_smt8(void **state)
{
	s32 c;

	(void)state;
	setup_pools(8, 4);
	for (c = 0; c < 8; c++) {
		fake_set_core(c, c / 2);
		llc_of[c] = (u32)c / 4;
	}
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

/* 6 CPUs, no SMT; LLCs 0-1, 2-3, 4-5. */
static int setup_llc3(void **state)
{
	s32 c;

	(void)state;
	setup_pools(6, 4);
	for (c = 0; c < 6; c++)
		llc_of[c] = (u32)c / 2;
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

static int setup_4(void **state)
{
	(void)state;
	setup_pools(4, 4);
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

struct tpool {
	const char *name;
	u32 flags;
	const char *cpus;  /* "0-2,5" */
	const char *order; /* "2,1": other pools, nearest first */
};

/* Next number of a list like "0-2,5", ranges expanded; false at the end. */
static bool list_next(const char **s, int *lo, int *hi, int *cur)
{
	char *end;

	if (*cur < *hi) {
		(*cur)++;
		return true;
	}
	if (!**s)
		return false;
	*lo = (int)strtol(*s, &end, 10);
	*hi = *lo;
	if (*end == '-')
		*hi = (int)strtol(end + 1, &end, 10);
	*s = *end == ',' ? end + 1 : end;
	*cur = *lo;
	return true;
}

#define for_list(v, text) \
	for (const char *_s = (text); _s; _s = NULL) \
		for (int _lo = 0, _hi = -1, v = 0; list_next(&_s, &_lo, &_hi, &v);)

/* Stage @n pools the way scxpol_pool_publish() does. */
static void stage(const struct tpool *tp, u32 n)
{
	u32 nr_words = scxpol_pool_conf.nr_words, max = scxpol_pool_conf.max_pools, p, i;
	struct scxpol_pool_cpu none = { .pool = -1 };
	struct scxpol_pool_desc zd = { 0 };
	u64 zw = 0;

	for (p = 0; p < max; p++) {
		bpf_map_update_elem(&scxpol_pool_stage, &p, &zd, 0);
		for (i = 0; i < nr_words; i++) {
			u32 key = p * nr_words + i;

			bpf_map_update_elem(&scxpol_pool_stage_mask, &key, &zw, 0);
		}
	}
	for (i = 0; i < scxpol_pool_conf.nr_cpus; i++)
		bpf_map_update_elem(&scxpol_pool_stage_cpu, &i, &none, 0);
	for (p = 0; p < n; p++) {
		struct scxpol_pool_desc *d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		u32 k = 0;

		snprintf(d->name, sizeof(d->name), "%s", tp[p].name);
		d->flags = tp[p].flags;
		for_list(cpu, tp[p].cpus) {
			u32 key = p * nr_words + (u32)cpu / 64;
			u64 *w = bpf_map_lookup_elem(&scxpol_pool_stage_mask, &key);
			struct scxpol_pool_cpu *c = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);

			*w |= 1ULL << (cpu % 64);
			if (c) {
				c->pool = (s32)p;
				c->llc = llc_of[cpu];
			}
		}
		for_list(q, tp[p].order ? tp[p].order : "") {
			u32 key = p * max + k++;

			bpf_map_update_elem(&scxpol_pool_stage_order, &key, &q, 0);
		}
		d->nr_order = k;
	}
}

/* Run the commit program for @nr_pools staged pools. */
static int commit(u32 nr_pools, struct scxpol_pool_commit_args *a)
{
	memset(a, 0, sizeof(*a));
	a->nr_pools = nr_pools;
	return scxpol_pool_commit(a);
}

static int publish(const struct tpool *tp, u32 n, struct scxpol_pool_commit_args *a)
{
	stage(tp, n);
	return commit(n, a);
}

static void publish_ok(const struct tpool *tp, u32 n)
{
	struct scxpol_pool_commit_args a;

	assert_int_equal(publish(tp, n, &a), 0);
	assert_int_equal(a.err, 0);
}

static struct scxpol_pool_view view(void)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	return v;
}

/* @m as a CPU list, "" for NULL. */
static const char *mask_str(const struct cpumask *m)
{
	static char buf[8][256];
	static int next;
	char *b = buf[next++ % 8];
	u32 c, n = scx_bpf_nr_cpu_ids();
	size_t o = 0;

	b[0] = '\0';
	if (!m)
		return b;
	for (c = 0; c < n; c++) {
		u32 e = c;

		if (!bpf_cpumask_test_cpu(c, m))
			continue;
		while (e + 1 < n && bpf_cpumask_test_cpu(e + 1, m))
			e++;
		o += (size_t)snprintf(b + o, 256 - o, e == c ? "%s%u" : "%s%u-%u", o ? "," : "", c, e);
		c = e;
	}
	return b;
}

static u64 stat(enum scxpol_stat s)
{
	return fake_percpu_sum(&scxpol_stats, s);
}

static struct task_struct tasks[32];

static struct task_struct *task(int i, s32 cpu)
{
	struct task_struct *p = &tasks[i];

	fake_task_init(p, 100 + i, "t");
	p->cpu = cpu;
	assert_int_equal(scxpol_task_init(p), 0);
	return p;
}

/* The policy callbacks, as a policy wires them; select_cpu() sets last_direct. */
static bool last_direct;

static s32 select_cpu(struct task_struct *p, s32 pool, s32 prev)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(prev);
	last_direct = true;
	return scxpol_pool_select_cpu(&v, p, scxpol_task_ctx(p), pool, prev, 0, SLICE, &last_direct);
}

static void enqueue(struct task_struct *p, s32 pool, u64 flags)
{
	struct scxpol_pool_view v = view();

	scxpol_pool_enqueue(&v, p, scxpol_task_ctx(p), pool, flags, SLICE);
}

static int dispatch(s32 cpu)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(cpu);
	return scxpol_pool_dispatch_prev(&v, cpu, NULL);
}

static void running(struct task_struct *p)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(p->cpu);
	scxpol_pool_running(&v, p, scxpol_task_ctx(p));
}

static void stopping(struct task_struct *p, bool runnable)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(p->cpu);
	scxpol_pool_stopping(&v, p, scxpol_task_ctx(p), runnable);
}

static void busy(const char *cpus)
{
	for_list(c, cpus)
		fake_set_idle(c, false);
}

/* --- publishing ------------------------------------------------------------------ */

static void test_init_creates_queues(void **state)
{
	struct scxpol_vclock rule = { .rule = SCXPOL_VTIME_ALG1, .reset_every = 7,
				      .busy_poll_after = 3 };
	u32 i;

	(void)state;
	setup_pools(4, 3);
	assert_int_equal(scxpol_pool_init(&rule), 0);
	assert_true(fake_dsq_exists(SCXPOL_DSQ_SHARED));
	for (i = 0; i < 3; i++)
		assert_true(fake_dsq_exists(SCXPOL_DSQ_POOL(i)));
	assert_false(fake_dsq_exists(SCXPOL_DSQ_POOL(3)));
	/* two queues per possible CPU, for the tasks pinned to it */
	for (i = 0; i < 4; i++) {
		assert_true(fake_dsq_exists(SCXPOL_DSQ_CPU(i)));
		assert_true(fake_dsq_exists(SCXPOL_DSQ_CPU_SHARED(i)));
	}
	assert_false(fake_dsq_exists(SCXPOL_DSQ_CPU(4)));
	assert_false(fake_dsq_exists(SCXPOL_DSQ_CPU_SHARED(4)));
	/* every pool clock and the shared one got the rule */
	for (i = 0; i < 3; i++)
		assert_int_equal(scxpol_pool_vclock((s32)i)->reset_every, 7);
	assert_int_equal(scxpol_pool_vclock(SCXPOL_POOL_SHARED)->rule, SCXPOL_VTIME_ALG1);
	assert_int_equal(scxpol_pool_vclock(SCXPOL_POOL_SHARED)->busy_poll_after, 3);
	assert_ptr_not_equal(scxpol_pool_vclock(0), scxpol_pool_vclock(SCXPOL_POOL_SHARED));
	assert_non_null(scxpol_pool__borrowed());
	assert_int_equal(fake_nr_errors(), 0);
}

static void test_nothing_published(void **state)
{
	struct scxpol_pool_view v = view();
	bool borrowed;

	(void)state;
	assert_int_equal(v.gen, 0);
	assert_int_equal(v.nr_pools, 0);
	assert_int_equal(scxpol_pool_of_cpu(&v, 0), -1);
	assert_null(scxpol_pool_cpumask(&v, 0));
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), -ENOENT);
	/* every CPU still serves the shared queue */
	enqueue(task(0, 1), 0, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 1);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_at(2, 0), &tasks[0]);
}

static void test_publish_builds_table(void **state)
{
	const struct tpool plan[] = {
		{ "lc", SOFT, "0-2", "1" },
		{ "bg", STEAL, "3-7", "0" },
	};
	struct scxpol_pool_view v;

	(void)state;
	publish_ok(plan, 2);
	v = view();
	assert_int_equal(v.gen, 1);
	assert_int_equal(v.nr_pools, 2);
	assert_int_equal(scxpol_pool_of_cpu(&v, 2), 0);
	assert_int_equal(scxpol_pool_of_cpu(&v, 3), 1);
	assert_int_equal(scxpol_pool_of_cpu(&v, 8), -1);
	assert_int_equal(scxpol_pool_cpu_info(&v, 5)->llc, 1);
	assert_int_equal(scxpol_pool_flags(&v, 0), SOFT);
	assert_int_equal(scxpol_pool_flags(&v, 1), STEAL);
	assert_int_equal(scxpol_pool_flags(&v, 2), 0);
	assert_int_equal(scxpol_pool_nr_cpus(&v, 0), 3);
	assert_int_equal(scxpol_pool_nr_cpus(&v, 1), 5);
	assert_string_equal(scxpol_pool__slot(&v, 1)->desc.name, "bg");
	assert_string_equal(mask_str(scxpol_pool_cpumask(&v, 0)), "0-2");
	assert_string_equal(mask_str(scxpol_pool_cpumask(&v, 1)), "3-7");
	assert_string_equal(mask_str(scxpol_pool_llc_cpumask(&v, 0, 0)), "0-2");
	assert_null(scxpol_pool_llc_cpumask(&v, 0, 1));
	assert_string_equal(mask_str(scxpol_pool_llc_cpumask(&v, 1, 0)), "3");
	assert_string_equal(mask_str(scxpol_pool_llc_cpumask(&v, 1, 1)), "4-7");
	assert_string_equal(mask_str(scxpol_pool__union(&v, SCXPOL_POOL__LEND)), "0-2");
	assert_string_equal(mask_str(scxpol_pool__union(&v, SCXPOL_POOL__STEAL)), "3-7");
	assert_int_equal(stat(SCXPOL_STAT_POOL_COMMIT), 1);
	assert_int_equal(stat(SCXPOL_STAT_POOL_REJECT), 0);
	/* the first publication kicks nobody */
	assert_int_equal(fake_nr_kicks(), 0);
}

struct reject_case {
	struct tpool pools[3];
	u32 nr_staged, nr_pools;
	int err;
	u32 reason;
	s32 pool, cpu, other;
};

static void test_publish_rejects_bad_plans(void **state)
{
	static const struct reject_case cases[] = {
		{ { { "a", 0, "0-3", NULL }, { "b", 0, "3-5", NULL } }, 2, 2,
		  -EINVAL, SCXPOL_POOL_REJ_OVERLAP, 0, 3, 1 },
		{ { { "a", 0, "0-3", NULL }, { "b", 0, "", NULL } }, 2, 2,
		  -EINVAL, SCXPOL_POOL_REJ_EMPTY, 1, -1, -1 },
		/* 8 possible CPUs are staged; CPU 9 only fits the bitmap words */
		{ { { "a", 0, "0-1,9", NULL } }, 1, 1,
		  -ERANGE, SCXPOL_POOL_REJ_CPU_RANGE, 0, 9, 8 },
		{ { { "a", 0x10, "0", NULL } }, 1, 1,
		  -EINVAL, SCXPOL_POOL_REJ_FLAGS, 0, -1, 0x10 },
		{ { { "a", STEAL, "0", "1" }, { "b", STEAL, "1", "1" } }, 2, 2,
		  -EINVAL, SCXPOL_POOL_REJ_ORDER, 1, -1, 1 },
		{ { { "a", STEAL, "0", "2" }, { "b", STEAL, "1", "0" } }, 2, 2,
		  -EINVAL, SCXPOL_POOL_REJ_ORDER, 0, -1, 2 },
		{ { { "a", 0, "0", NULL } }, 1, 0,
		  -ERANGE, SCXPOL_POOL_REJ_NR_POOLS, -1, -1, 0 },
		{ { { "a", 0, "0", NULL }, { "b", 0, "1", NULL }, { "c", 0, "2", NULL } }, 3, 5,
		  -ERANGE, SCXPOL_POOL_REJ_NR_POOLS, -1, -1, 5 },
	};
	const struct tpool good[] = { { "x", 0, "0-3", NULL }, { "y", 0, "4-7", NULL } };
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_view v;
	size_t i;

	(void)state;
	publish_ok(good, 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct reject_case *c = &cases[i];

		print_message("# case %zu\n", i);
		stage(c->pools, c->nr_staged);
		assert_int_equal(commit(c->nr_pools, &a), c->err);
		assert_int_equal(a.err, c->err);
		assert_int_equal(a.reason, c->reason);
		assert_int_equal(a.pool, c->pool);
		assert_int_equal(a.cpu, c->cpu);
		assert_int_equal(a.other, c->other);
		assert_int_equal(stat(SCXPOL_STAT_POOL_REJECT), i + 1);
		/* nothing applied: the good plan is still the published one */
		v = view();
		assert_int_equal(v.gen, 1);
		assert_int_equal(v.nr_pools, 2);
		assert_int_equal(scxpol_pool_of_cpu(&v, 3), 0);
		assert_string_equal(mask_str(scxpol_pool_cpumask(&v, 1)), "4-7");
	}
	assert_int_equal(stat(SCXPOL_STAT_POOL_COMMIT), 1);
}

static void test_per_cpu_table_must_match_bitmaps(void **state)
{
	const struct tpool plan[] = { { "a", 0, "0-1", NULL }, { "b", 0, "2-3", NULL } };
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_cpu *c;
	u32 cpu = 2;

	(void)state;
	/* stage a consistent plan, then make CPU 2's entry disagree */
	assert_int_equal(publish(plan, 2, &a), 0);
	c = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);
	c->pool = 0;
	a.nr_pools = 2;
	assert_int_equal(scxpol_pool_commit(&a), -EINVAL);
	assert_int_equal(a.reason, SCXPOL_POOL_REJ_CPU_TABLE);
	assert_int_equal(a.pool, 1);
	assert_int_equal(a.cpu, 2);
	assert_int_equal(a.other, 0);
	/* an LLC index beyond the sized maps */
	c->pool = 1;
	c->llc = 1000;
	assert_int_equal(scxpol_pool_commit(&a), -ERANGE);
	assert_int_equal(a.reason, SCXPOL_POOL_REJ_LLC_RANGE);
	assert_int_equal(a.other, 1000);
	assert_int_equal(stat(SCXPOL_STAT_POOL_REJECT), 2);
	assert_int_equal(view().gen, 1);
}

static void test_not_set_up(void **state)
{
	struct scxpol_pool_commit_args a = { .nr_pools = 1 };

	(void)state;
	fake_reset(4);
	scxpol_pool_conf.max_pools = 0;
	assert_int_equal(scxpol_pool_commit(&a), -ENOENT);
	assert_int_equal(a.reason, SCXPOL_POOL_REJ_NOT_SETUP);
}

static void test_resize_flips_generation_atomically(void **state)
{
	const struct tpool a[] = {
		{ "d0", STEAL, "0-3", "1" },
		{ "d1", STEAL, "4-7", "0" },
	};
	const struct tpool b[] = {
		{ "d0", STEAL, "0-5", "2,1" },
		{ "d1", SOFT, "6", "0,2" },
		{ "d2", SOFT, "7", "1,0" },
	};
	struct scxpol_pool_view v1, v2;
	unsigned int i;

	(void)state;
	publish_ok(a, 2);
	/* a callback took its snapshot; a publication happens meanwhile */
	v1 = view();
	publish_ok(b, 3);
	v2 = view();
	assert_int_equal(v1.gen, 1);
	assert_int_equal(v2.gen, 2);
	assert_int_not_equal(v1.half, v2.half);
	/* the old snapshot reads the old table, all of it */
	assert_int_equal(v1.nr_pools, 2);
	assert_int_equal(scxpol_pool_of_cpu(&v1, 4), 1);
	assert_int_equal(scxpol_pool_nr_cpus(&v1, 0), 4);
	assert_string_equal(mask_str(scxpol_pool_cpumask(&v1, 0)), "0-3");
	assert_string_equal(mask_str(scxpol_pool_llc_cpumask(&v1, 0, 1)), "");
	assert_string_equal(mask_str(scxpol_pool__union(&v1, SCXPOL_POOL__STEAL)), "0-7");
	assert_string_equal(mask_str(scxpol_pool__union(&v1, SCXPOL_POOL__LEND)), "");
	assert_int_equal(scxpol_pool_flags(&v1, 1), STEAL);
	assert_int_equal(scxpol_pool_flags(&v1, 2), 0);
	/* the new one, the new table */
	assert_int_equal(v2.nr_pools, 3);
	assert_int_equal(scxpol_pool_of_cpu(&v2, 4), 0);
	assert_int_equal(scxpol_pool_nr_cpus(&v2, 0), 6);
	assert_string_equal(mask_str(scxpol_pool_cpumask(&v2, 0)), "0-5");
	assert_string_equal(mask_str(scxpol_pool_llc_cpumask(&v2, 0, 1)), "4-5");
	assert_string_equal(mask_str(scxpol_pool__union(&v2, SCXPOL_POOL__STEAL)), "0-5");
	assert_string_equal(mask_str(scxpol_pool__union(&v2, SCXPOL_POOL__LEND)), "6-7");
	assert_int_equal(scxpol_pool_flags(&v2, 1), SOFT);
	/* CPUs whose pool changed (4, 5 and 7) were kicked to pick from it at once */
	assert_int_equal(fake_nr_kicks(), 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(fake_kick_at(i)->flags, SCX_KICK_PREEMPT);
	assert_int_equal(fake_kick_at(0)->cpu, 4);
	assert_int_equal(fake_kick_at(1)->cpu, 5);
	assert_int_equal(fake_kick_at(2)->cpu, 7);
}

static void test_republishing_does_not_leak_cpumasks(void **state)
{
	const struct tpool a[] = { { "d0", 0, "0-5", NULL }, { "d1", SOFT, "6-7", NULL } };
	int live;
	int i;

	(void)state;
	publish_ok(a, 2);
	publish_ok(a, 2);
	live = fake_cpumasks_live();
	for (i = 0; i < 5; i++)
		publish_ok(a, 2);
	assert_int_equal(fake_cpumasks_live(), live);
	/* both halves: 2 pools, 3 (pool, LLC) masks, 2 unions; plus the borrowed mask */
	assert_int_equal(live, 2 * (2 + 3 + 2) + 1);
}

/* --- idle CPU selection -------------------------------------------------------------- */

static const struct tpool all8[] = { { "all", 0, "0-7", NULL } };

static void test_pick_prev_when_idle(void **state)
{
	struct scxpol_pool_view v;
	bool borrowed;

	(void)state;
	publish_ok(all8, 1);
	v = view();
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 5, &borrowed), 5);
	assert_false(borrowed);
	assert_false(fake_cpu_idle(5));
}

static void test_pick_idle_core_over_half_busy_core(void **state)
{
	struct scxpol_pool_view v;
	bool borrowed;

	(void)state;
	publish_ok(all8, 1);
	busy("0");
	v = view();
	/* 1 is idle but its sibling 0 runs: 2 is on a wholly idle core */
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), 2);
}

static void test_pick_prefers_prev_llc(void **state)
{
	struct scxpol_pool_view v;
	bool borrowed;

	(void)state;
	publish_ok(all8, 1);
	/* idle cores {2,3} in LLC 0 and {4,5} in LLC 1 */
	busy("0,1,7");
	v = view();
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 7, &borrowed), 4);
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 1, &borrowed), 2);
	/* no idle core anywhere: an idle CPU in prev's LLC */
	setup_smt8(NULL);
	publish_ok(all8, 1);
	busy("0,2,4,6");
	v = view();
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 6, &borrowed), 5);
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), 1);
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), 3);
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), 7);
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), -EBUSY);
}

static void test_pick_stays_in_pool(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-3", NULL }, { "d1", 0, "4-7", NULL } };
	struct task_struct *p = task(0, 0);
	struct scxpol_pool_view v;
	bool borrowed;

	(void)state;
	publish_ok(plan, 2);
	v = view();
	/* prev 0 is idle but in d0 */
	assert_int_equal(scxpol_pool_pick_idle(&v, 1, 0, &borrowed), 4);
	busy("5-7");
	/* d1 full, d0 idle: an exclusive pool does not look elsewhere */
	assert_int_equal(select_cpu(p, 1, 0), 0);
	assert_false(last_direct);
	assert_int_equal(fake_nr_inserts(), 0);
	assert_true(fake_cpu_idle(0));
	assert_int_equal(stat(SCXPOL_STAT_DIRECT), 0);
}

static void test_select_inserts_directly(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-3", NULL }, { "d1", 0, "4-7", NULL } };
	struct task_struct *p = task(0, 1);

	(void)state;
	publish_ok(plan, 2);
	busy("1");
	assert_int_equal(select_cpu(p, 0, 1), 2);
	assert_true(last_direct);
	assert_non_null(fake_last_insert());
	assert_ptr_equal(fake_last_insert()->p, p);
	assert_int_equal(fake_last_insert()->dsq_id, SCX_DSQ_LOCAL);
	assert_int_equal(fake_last_insert()->slice, SLICE);
	assert_int_equal(stat(SCXPOL_STAT_DIRECT), 1);
	assert_int_equal(scxpol_task_ctx(p)->pool, 0);
	assert_int_equal(scxpol_task_ctx(p)->pool_gen, 1);
}

static void test_borrow_idle_cpu_of_lending_pool(void **state)
{
	const struct tpool plan[] = { { "lc", SOFT, "0-3", "1" }, { "bg", SOFT, "4-7", "0" } };
	const struct tpool excl[] = { { "lc", 0, "0-3", NULL }, { "bg", SOFT, "4-7", NULL } };
	struct task_struct *p = task(0, 0);
	struct scxpol_pool_view v;
	bool borrowed;

	(void)state;
	publish_ok(plan, 2);
	busy("0-5,7");
	v = view();
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), 6);
	assert_true(borrowed);
	fake_set_idle(6, true);
	assert_int_equal(select_cpu(p, 0, 0), 6);
	assert_true(last_direct);
	assert_int_equal(stat(SCXPOL_STAT_BORROW_IDLE), 1);
	assert_int_equal(stat(SCXPOL_STAT_DIRECT), 1);
	/* an exclusive pool never borrows */
	fake_set_idle(6, true);
	publish_ok(excl, 2);
	v = view();
	assert_int_equal(scxpol_pool_pick_idle(&v, 0, 0, &borrowed), -EBUSY);
	assert_false(borrowed);
	assert_true(fake_cpu_idle(6));
}

static void test_select_respects_affinity(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-3", NULL }, { "d1", 0, "4-7", NULL } };
	const s32 only5[] = { 5 }, two[] = { 2, 3 };
	struct task_struct *p = task(0, 0), *q = task(1, 1);

	(void)state;
	publish_ok(plan, 2);
	/* allowed outside its pool only: the kernel's choice within its CPUs */
	fake_task_allow(p, only5, 1);
	assert_int_equal(select_cpu(p, 0, 0), 5);
	assert_true(last_direct);
	/* allowed on part of its pool: only an idle prev inside both */
	fake_task_allow(q, two, 2);
	assert_int_equal(select_cpu(q, 0, 1), 1);
	assert_false(last_direct);
	assert_true(fake_cpu_idle(2));
	assert_int_equal(select_cpu(q, 0, 3), 3);
	assert_true(last_direct);
	assert_false(fake_cpu_idle(3));
	/* prev busy: not inserted, ops.enqueue will queue it */
	assert_int_equal(select_cpu(q, 0, 3), 3);
	assert_false(last_direct);
	assert_int_equal(stat(SCXPOL_STAT_DIRECT), 2);
}

/* --- enqueue ------------------------------------------------------------------------- */

static void test_enqueue_queues_on_pool_and_wakes_it(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct task_struct *p = task(0, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0");
	enqueue(p, 0, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	assert_true(fake_last_insert()->vtime_insert);
	assert_int_equal(stat(SCXPOL_STAT_ENQUEUE), 1);
	/* the idle CPU of its pool is woken */
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 1);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	/* a full exclusive pool wakes nobody else */
	busy("1");
	enqueue(task(1, 0), 0, 0);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 2);
}

static void test_enqueue_special_cases(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	const s32 pin[] = { 2 }, out[] = { 2, 3 };
	struct task_struct *p = task(0, 2), *q = task(1, 3), *r = task(2, 0), *p1 = task(3, 2);

	(void)state;
	publish_ok(plan, 2);
	/*
	 * pinned to one CPU: a queue of that CPU's, and the CPU is woken if
	 * idle; a task of d0 pinned to d1's CPU 2 is a task whose affinity
	 * misses its pool: the queue on the shared clock
	 */
	fake_task_allow(p, pin, 1);
	fake_clear_kicks();
	enqueue(p, 0, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_CPU_SHARED(2)), 1);
	assert_int_equal(fake_local_count(2), 0);
	assert_int_equal(scxpol_task_ctx(p)->pool, SCXPOL_POOL_SHARED);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 2);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	/* a task of d1 pinned there: the queue on d1's clock */
	fake_task_allow(p1, pin, 1);
	enqueue(p1, 1, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_CPU(2)), 1);
	assert_int_equal(scxpol_task_ctx(p1)->pool, 1);
	/* affinity outside its pool: the shared queue, which every CPU serves */
	fake_task_allow(q, out, 2);
	enqueue(q, 0, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 1);
	/* not a pool of the published table: the shared queue */
	enqueue(r, 7, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 2);
	assert_int_equal(scxpol_task_ctx(r)->pool, SCXPOL_POOL_SHARED);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 0);
	assert_int_equal(fake_nr_errors(), 0);
}

/*
 * A kernel thread bound to one CPU goes to that CPU's local DSQ, ahead of
 * every queue, in no pool (whatever it had before its binding: running it
 * moves no pool's clock); unbound, or a user task bound to the CPU, it is
 * queued like any task; and one that used up SCXPOL_POOL_KTHREAD_SLICES
 * slices in a row without sleeping is queued like a pinned task.
 */
static void test_enqueue_bound_kthread_local(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	const s32 pin[] = { 2 }, two[] = { 2, 3 };
	struct task_struct *kw = task(0, 2), *kw1 = task(1, 2), *unbound = task(2, 2),
			   *user = task(3, 2);
	int i;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	kw->flags = kw1->flags = unbound->flags = SCXPOL_PF_KTHREAD;
	/* kw1 ran in d1 before it was bound (a new kworker's first run) */
	enqueue(kw1, 1, 0);
	assert_int_equal(scxpol_task_ctx(kw1)->pool, 1);
	dispatch(2);
	assert_ptr_equal(fake_local_pop(2), kw1);
	assert_int_equal(stat(SCXPOL_STAT_KTHREAD_LOCAL), 0);
	fake_task_allow(kw, pin, 1);
	fake_task_allow(kw1, pin, 1);
	fake_task_allow(unbound, two, 2);
	fake_task_allow(user, pin, 1);
	enqueue(kw, SCXPOL_POOL_SHARED, 0);
	enqueue(kw1, 1, 0);
	assert_int_equal(fake_local_count(2), 2);
	assert_ptr_equal(fake_local_at(2, 0), kw);
	assert_ptr_equal(fake_local_at(2, 1), kw1);
	assert_int_equal(scxpol_task_ctx(kw1)->pool, SCXPOL_POOL_SHARED);
	assert_int_equal(stat(SCXPOL_STAT_KTHREAD_LOCAL), 2);
	kw1->scx.dsq_vtime = 50 * MS;
	running(kw1);
	assert_int_equal(scxpol_pool_vclock(1)->now, 0);
	enqueue(unbound, SCXPOL_POOL_SHARED, 0);
	enqueue(user, SCXPOL_POOL_SHARED, 0);
	assert_int_equal(fake_local_count(2), 2);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 1);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_CPU_SHARED(2)), 1);
	assert_int_equal(stat(SCXPOL_STAT_KTHREAD_LOCAL), 2);
	/* kw runs slice after slice without sleeping: after the limit, queued by vtime */
	assert_ptr_equal(fake_local_pop(2), kw);
	assert_ptr_equal(fake_local_pop(2), kw1);
	enqueue(kw, SCXPOL_POOL_SHARED, 0);
	for (i = 0; i < SCXPOL_POOL_KTHREAD_SLICES; i++) {
		assert_ptr_equal(fake_local_pop(2), kw);
		running(kw);
		fake_advance(SLICE);
		stopping(kw, true);
		enqueue(kw, SCXPOL_POOL_SHARED, 0);
	}
	assert_int_equal(stat(SCXPOL_STAT_KTHREAD_LOCAL), 2 + SCXPOL_POOL_KTHREAD_SLICES);
	assert_int_equal(fake_local_count(2), 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_CPU_SHARED(2)), 2);
	assert_int_equal(fake_nr_errors(), 0);
}

static void test_enqueue_demotes_busy_poller(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-3", NULL } };
	struct task_struct *poll = task(0, 0), *work = task(1, 0);

	(void)state;
	publish_ok(plan, 1);
	busy("0-3");
	scxpol_task_ctx(poll)->flags |= SCXPOL_TASKF_BUSY_POLL;
	enqueue(poll, 0, 0);
	assert_int_equal(poll->scx.dsq_vtime, SLICE);
	enqueue(work, 0, 0);
	assert_int_equal(work->scx.dsq_vtime, 0);
	assert_int_equal(stat(SCXPOL_STAT_BUSY_POLL_DEMOTE), 1);
	assert_ptr_equal(fake_dsq_at(SCXPOL_DSQ_POOL(0), 0), work);
	assert_ptr_equal(fake_dsq_at(SCXPOL_DSQ_POOL(0), 1), poll);
	/* running, the demoted poller does not drag the pool's clock to its vtime */
	running(poll);
	assert_int_equal(scxpol_pool_vclock(0)->now, 0);
	running(work);
	assert_int_equal(scxpol_pool_vclock(0)->now, 0);
	work->scx.dsq_vtime = 2 * MS;
	running(work);
	assert_int_equal(scxpol_pool_vclock(0)->now, 2 * MS);
	/* but it is still charged for the time it ran */
	fake_advance(3 * MS);
	stopping(poll, true);
	assert_int_equal(poll->scx.dsq_vtime, SLICE + 3 * MS);
}

static void test_pool_clocks_are_separate(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct task_struct *p = task(0, 2);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	enqueue(p, 1, 0);
	p->scx.dsq_vtime = 40 * MS;
	running(p);
	assert_int_equal(scxpol_pool_vclock(1)->now, 40 * MS);
	assert_int_equal(scxpol_pool_vclock(0)->now, 0);
	assert_int_equal(scxpol_pool_vclock(SCXPOL_POOL_SHARED)->now, 0);
	fake_advance(2 * MS);
	stopping(p, true);
	assert_int_equal(p->scx.dsq_vtime, 42 * MS);
	/* the next task of d1 is clamped to d1's clock */
	enqueue(task(1, 2), 1, 0);
	assert_int_equal(tasks[1].scx.dsq_vtime, 40 * MS);
}

static void test_wakeup_preempts_a_later_task(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct task_struct *poll = task(0, 1), *w = task(1, 1), *late = task(2, 1);
	struct task_struct *away = task(3, 2);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	/* CPU 1 runs a task of d0 at vtime 50 ms (the clock follows) */
	scxpol_task_ctx(poll)->pool = 0;
	poll->scx.dsq_vtime = 50 * MS;
	running(poll);
	assert_int_equal(scxpol_pool_vclock(0)->now, 50 * MS);
	/* a task of d0 waking on CPU 1 comes in at 45 ms: it preempts */
	scxpol_task_ctx(w)->pool = 0;
	enqueue(w, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(w->scx.dsq_vtime, 45 * MS);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 1);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_PREEMPT);
	/* one that keeps a lead past 50 ms does not */
	late->scx.dsq_vtime = 70 * MS;
	enqueue(late, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	/* nor one whose CPU is in another pool */
	enqueue(away, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	/* once the CPU's task stopped, there is nothing to preempt */
	stopping(poll, false);
	enqueue(task(4, 1), 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
}

/* d0 on CPUs 0-1, its clock at 50 ms, and @p of d0 at 50 ms queued at its head. */
static void queue_at_head(struct task_struct *p)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL } };

	publish_ok(plan, 1);
	busy("0-1");
	scxpol_pool_vclock(0)->now = 50 * MS;
	scxpol_task_ctx(p)->pool = 0;
	p->scx.dsq_vtime = 50 * MS;
	enqueue(p, 0, SCX_ENQ_HEAD);
	assert_ptr_equal(fake_dsq_at(SCXPOL_DSQ_POOL(0), 0), p);
}

/*
 * A task queued at the head (an important request) keeps its CPU when a
 * task that queued behind it wakes, even one earlier in vtime; a head
 * waker still preempts a task queued without it.
 */
static void test_wakeup_spares_a_head_task(void **state)
{
	struct task_struct *imp = task(0, 1), *w = task(1, 1), *norm = task(2, 0);
	struct task_struct *w2 = task(3, 0);

	(void)state;
	/* CPU 1 runs, from the head of d0's queue, a task at vtime 50 ms */
	queue_at_head(imp);
	running(imp);
	/* running, it has its own vtime back */
	assert_int_equal(imp->scx.dsq_vtime, 50 * MS);
	/* a waker at 45 ms would queue behind it: no preemption */
	scxpol_task_ctx(w)->pool = 0;
	enqueue(w, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(w->scx.dsq_vtime, 45 * MS);
	assert_int_equal(fake_nr_kicks(), 0);
	/* CPU 0 runs a task queued without it: a head waker preempts that one */
	scxpol_task_ctx(norm)->pool = 0;
	norm->scx.dsq_vtime = 50 * MS;
	enqueue(norm, 0, 0);
	running(norm);
	scxpol_task_ctx(w2)->pool = 0;
	w2->scx.dsq_vtime = 60 * MS;
	enqueue(w2, 0, SCX_ENQ_WAKEUP | SCX_ENQ_HEAD);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 0);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_PREEMPT);
}

/*
 * A new task starts on the shared clock, which tasks in no pool drive
 * ahead of an oversubscribed pool's clock: joining that pool it must come
 * in at the pool's clock, not seconds ahead of every task queued there (it
 * would wait until the pool's clock caught up: a watchdog stall).
 */
static void test_new_task_joins_at_its_pools_clock(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct task_struct *loner = task(0, 0), *hog = task(1, 2), *fresh = task(2, 2);
	struct scxpol_pool_view v;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	/* a task in no pool ran 30 s: the shared clock is there */
	enqueue(loner, SCXPOL_POOL_SHARED, 0);
	loner->scx.dsq_vtime = 30000 * MS;
	running(loner);
	assert_int_equal(scxpol_pool_vclock(SCXPOL_POOL_SHARED)->now, 30000 * MS);
	/* d1's clock is at 2 s */
	enqueue(hog, 1, 0);
	hog->scx.dsq_vtime = 2000 * MS;
	running(hog);
	assert_int_equal(scxpol_pool_vclock(1)->now, 2000 * MS);
	/* a task forked now starts at the shared clock, and joins d1 at d1's */
	scxpol_pool_enable(fresh);
	assert_int_equal(fresh->scx.dsq_vtime, 30000 * MS);
	enqueue(fresh, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fresh->scx.dsq_vtime, 2000 * MS);
	assert_int_equal(scxpol_task_ctx(fresh)->pool, 1);
	/* the same through ops.select_cpu (a direct dispatch never enqueues) */
	fresh = task(3, 2);
	scxpol_pool_enable(fresh);
	select_cpu(fresh, 1, 2);
	assert_int_equal(fresh->scx.dsq_vtime, 2000 * MS);
	/* and a policy's own placement */
	fresh = task(4, 2);
	scxpol_pool_enable(fresh);
	v = view();
	scxpol_pool_assign(&v, fresh, scxpol_task_ctx(fresh), 1, SLICE);
	assert_int_equal(fresh->scx.dsq_vtime, 2000 * MS);
}

/* @p was dispatched to @cpu and runs there (ops.running), still runnable. */
static struct task_struct *run_on(struct task_struct *p, s32 cpu, s32 pool)
{
	enqueue(p, pool, 0);
	assert_int_equal(dispatch(cpu), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(cpu), p);
	running(p);
	p->scx.flags |= SCX_TASK_QUEUED;
	return p;
}

/* @cpu's entry of scxpol_pool_curr. */
static struct scxpol_pool_curr *curr_of(u32 cpu)
{
	struct scxpol_pool_curr *c = bpf_map_lookup_elem(&scxpol_pool_curr, &cpu);

	assert_non_null(c);
	return c;
}

/* run_on(), then @ns pass and @p's slice runs out. */
static struct task_struct *slice_out_after(struct task_struct *p, s32 cpu, s32 pool, u64 ns)
{
	run_on(p, cpu, pool);
	fake_advance(ns);
	p->scx.slice = 0;
	return p;
}

static int dispatch_prev(s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(cpu);
	return scxpol_pool_dispatch_prev(&v, cpu, prev);
}

/* A task queued at the head is spared for its first slice only: kept on, it can be preempted. */
static void test_kept_head_task_can_be_preempted(void **state)
{
	struct task_struct *imp = task(0, 1), *w = task(1, 1);

	(void)state;
	queue_at_head(imp);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(1), imp);
	running(imp);
	imp->scx.flags |= SCX_TASK_QUEUED;
	fake_advance(SLICE);
	imp->scx.slice = 0;
	/* nothing else queued: it keeps the CPU, from its own vtime now */
	assert_int_equal(dispatch_prev(1, imp), SCXPOL_POOL_SRC_KEEP);
	scxpol_task_ctx(w)->pool = 0;
	enqueue(w, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(w->scx.dsq_vtime, 45 * MS);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 1);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_PREEMPT);
}

/*
 * One slice of whatever ops.dispatch gives @cpu: it runs 5 ms and, still
 * runnable, is enqueued again into @pool. Returns the task.
 */
static struct task_struct *run_slice(s32 cpu, s32 pool)
{
	struct task_struct *p;

	assert_int_not_equal(dispatch(cpu), SCXPOL_POOL_SRC_NONE);
	p = fake_local_pop(cpu);
	assert_non_null(p);
	running(p);
	fake_advance(SLICE);
	stopping(p, true);
	enqueue(p, pool, 0);
	return p;
}

/*
 * A CPU hog pinned to CPU 0 and a hog queued where it would be share the
 * CPU: the pinned task's queue and that queue are on one clock, and
 * dispatch takes the earlier head. (In the CPU's local DSQ, which the
 * kernel serves before ops.dispatch, the pinned hog would have had the CPU
 * to itself.) @pool: the pool of both (CPU 0's, or SCXPOL_POOL_SHARED).
 */
static void pinned_shares_cpu(s32 pool, u64 pinned_dsq, u64 other_dsq)
{
	const struct tpool plan[] = { { "d0", 0, "0", NULL }, { "d1", 0, "1-3", NULL } };
	const s32 pin[] = { 0 };
	struct task_struct *pinned = task(0, 0), *hog = task(1, 0), *p;
	int runs[2] = { 0, 0 }, i;

	publish_ok(plan, 2);
	busy("0-3");
	fake_task_allow(pinned, pin, 1);
	enqueue(pinned, pool, 0);
	enqueue(hog, pool, 0);
	assert_int_equal(fake_dsq_count(pinned_dsq), 1);
	assert_int_equal(fake_dsq_count(other_dsq), 1);
	for (i = 0; i < 20; i++) {
		p = run_slice(0, pool);
		runs[p == hog]++;
	}
	assert_int_equal(runs[0], 10);
	assert_int_equal(runs[1], 10);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_PINNED), 10);
	assert_int_equal(fake_nr_errors(), 0);
}

static void test_pinned_task_shares_its_cpu(void **state)
{
	(void)state;
	pinned_shares_cpu(0, SCXPOL_DSQ_CPU(0), SCXPOL_DSQ_POOL(0));
}

static void test_pinned_task_in_no_pool_shares_its_cpu(void **state)
{
	(void)state;
	pinned_shares_cpu(SCXPOL_POOL_SHARED, SCXPOL_DSQ_CPU_SHARED(0), SCXPOL_DSQ_SHARED);
}

/*
 * The earlier vtime wins between the pool's head and the pinned head; a
 * still-runnable previous task keeps the CPU only if ahead of both; a CPU
 * in no pool weighs its pinned tasks against the shared queue.
 */
static void test_pinned_head_competes_by_vtime(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2", NULL } };
	const s32 pin0[] = { 0 }, pin3[] = { 3 };
	struct task_struct *pn = task(0, 0), *q = task(1, 0), *prev, *pn3 = task(3, 3),
			   *sh = task(4, 3);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	prev = slice_out_after(task(2, 0), 0, 0, 1 * MS);
	fake_task_allow(pn, pin0, 1);
	pn->scx.dsq_vtime = 3 * MS;
	enqueue(pn, 0, SCX_ENQ_WAKEUP);
	q->scx.dsq_vtime = 4 * MS;
	enqueue(q, 0, SCX_ENQ_WAKEUP);
	/* prev would be requeued at 1 ms: ahead of both, it goes on */
	assert_int_equal(dispatch_prev(0, prev), SCXPOL_POOL_SRC_KEEP);
	/* at 3.5 ms it is behind the pinned head (3 ms) but not the pool's (4 ms) */
	fake_advance(2500000);
	assert_int_equal(dispatch_prev(0, prev), SCXPOL_POOL_SRC_PINNED);
	assert_ptr_equal(fake_local_pop(0), pn);
	/* pinned at 5 ms: the pool's head (4 ms) first, then the pinned task */
	pn->scx.dsq_vtime = 5 * MS;
	enqueue(pn, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(0), q);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_PINNED);
	assert_ptr_equal(fake_local_pop(0), pn);
	/* CPU 3 is in no pool: its pinned task against the shared queue's head */
	fake_task_allow(pn3, pin3, 1);
	enqueue(pn3, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(scxpol_task_ctx(pn3)->pool, SCXPOL_POOL_SHARED);
	sh->scx.dsq_vtime = pn3->scx.dsq_vtime + MS;
	enqueue(sh, SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_PINNED);
	assert_ptr_equal(fake_local_pop(3), pn3);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_pop(3), sh);
	/* CPU 0's queues are empty: the count resets, and dispatch stops looking */
	assert_int_equal(curr_of(0)->pinned, 1);
	assert_false(scxpol_pool_pinned_waiting(0));
	assert_int_equal(curr_of(0)->pinned, 0);
	assert_false(scxpol_pool_pinned_waiting(0));
	/* a task queued again counts, and stays counted while it waits */
	enqueue(pn, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(curr_of(0)->pinned, 1);
	assert_true(scxpol_pool_pinned_waiting(0));
	assert_true(scxpol_pool_pinned_waiting(0));
	assert_int_equal(curr_of(0)->pinned, 1);
	assert_int_equal(fake_nr_errors(), 0);
}

/*
 * A task pinned to a CPU waits there on its pool's clock; a resize that
 * moves the CPU to a pool whose clock is far behind must not leave it
 * waiting until that clock catches up (longer than the watchdog allows).
 */
static void test_pinned_task_survives_a_resize(void **state)
{
	const struct tpool before[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	const struct tpool after[] = { { "d0", 0, "0", NULL }, { "d1", 0, "1-3", NULL } };
	const s32 pin1[] = { 1 };
	struct task_struct *pn = task(0, 1), *ahead = task(1, 0);
	int i;

	(void)state;
	publish_ok(before, 2);
	busy("0-3");
	/* d0's clock runs 10 s ahead of d1's */
	enqueue(ahead, 0, 0);
	ahead->scx.dsq_vtime = 10000 * MS;
	running(ahead);
	fake_task_allow(pn, pin1, 1);
	enqueue(pn, 0, SCX_ENQ_WAKEUP);
	assert_true(pn->scx.dsq_vtime >= 9000 * MS);
	publish_ok(after, 2);
	for (i = 0; i < 4; i++)
		enqueue(task(2 + i, 2), 1, SCX_ENQ_WAKEUP);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_PINNED);
	assert_ptr_equal(fake_local_pop(1), pn);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
	assert_non_null(fake_local_pop(1));
	/* and when the resize leaves the CPU in no pool */
	publish_ok(before, 2);
	enqueue(pn, 0, SCX_ENQ_WAKEUP);
	publish_ok(after, 1);
	enqueue(task(6, 1), SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_PINNED);
	assert_ptr_equal(fake_local_pop(1), pn);
	assert_int_equal(fake_nr_errors(), 0);
}

/* A task moving between pools keeps its lag behind or lead over the clock. */
static void test_pool_change_keeps_lag(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct task_struct *a = task(0, 0), *b = task(1, 2), *p = task(2, 0), *q = task(3, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	/* d0's clock is at 9 s, d1's at 100 ms */
	a->scx.dsq_vtime = 9000 * MS;
	scxpol_task_ctx(a)->pool = 0;
	running(a);
	b->scx.dsq_vtime = 100 * MS;
	scxpol_task_ctx(b)->pool = 1;
	running(b);
	/* 3 ms ahead of d0's clock: 3 ms ahead of d1's */
	scxpol_task_ctx(p)->pool = 0;
	p->scx.dsq_vtime = 9003 * MS;
	enqueue(p, 1, 0);
	assert_int_equal(p->scx.dsq_vtime, 103 * MS);
	/* long behind d0's: the wakeup floor of d1 */
	scxpol_task_ctx(q)->pool = 0;
	q->scx.dsq_vtime = 10 * MS;
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(q->scx.dsq_vtime, 100 * MS - SLICE);
	/* and back: 3 ms ahead of d1's is 3 ms ahead of d0's */
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(2), q);
	assert_ptr_equal(fake_local_pop(2), p);
	enqueue(p, 0, 0);
	assert_int_equal(p->scx.dsq_vtime, 9003 * MS);
}

/*
 * A queued task's lead over its pool's clock is bounded: one that ran alone
 * for seconds (kept on its CPU, the clock did not follow) does not wait for
 * all of them once others come. The bound is in slices of the task's
 * weighted charge, and a light task's slice is shorter in proportion
 * (scxpol_vtime_slice()), down to 1/SCXPOL_VTIME_SLICE_DIV: weight 50 may
 * be as far ahead as weight 100, weight 1 (nice 19) 100/16 times as far,
 * not 100 times (its wait behind a few dozen busy tasks per CPU would pass
 * the kernel's watchdog timeout).
 */
static void test_lead_is_bounded(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-3", NULL } };
	struct task_struct *p = task(0, 0), *light = task(1, 0), *nice19 = task(2, 0);

	(void)state;
	publish_ok(plan, 1);
	busy("0-3");
	scxpol_task_ctx(p)->pool = 0;
	p->scx.dsq_vtime = 5000 * MS;
	enqueue(p, 0, 0);
	assert_int_equal(p->scx.dsq_vtime, SCXPOL_VTIME_MAX_LEAD_SLICES * SLICE);
	light->scx.weight = 50;
	assert_int_equal(scxpol_vtime_slice(SLICE, 50), SLICE / 2);
	scxpol_task_ctx(light)->pool = 0;
	light->scx.dsq_vtime = 5000 * MS;
	enqueue(light, 0, 0);
	assert_int_equal(light->scx.dsq_vtime, SCXPOL_VTIME_MAX_LEAD_SLICES * SLICE);
	nice19->scx.weight = 1;
	assert_int_equal(scxpol_vtime_slice(SLICE, 1), SLICE / SCXPOL_VTIME_SLICE_DIV);
	scxpol_task_ctx(nice19)->pool = 0;
	nice19->scx.dsq_vtime = 5000 * MS;
	enqueue(nice19, 0, 0);
	assert_int_equal(nice19->scx.dsq_vtime,
			 SCXPOL_VTIME_MAX_LEAD_SLICES * SLICE * 100 / SCXPOL_VTIME_SLICE_DIV);
	assert_int_equal(scxpol_vtime_slice(SLICE, 100), SLICE);
	assert_int_equal(scxpol_vtime_slice(SLICE, 10000), SLICE);
}

/* --- dispatch ------------------------------------------------------------------------ */

static const struct tpool steal3[] = {
	{ "d0", STEAL, "0-1", "1,2" },
	{ "d1", STEAL, "2-3", "0,2" },
	{ "d2", STEAL, "4-5", "1,0" },
};

static void test_dispatch_own_shared_then_steal_nearest(void **state)
{
	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	enqueue(task(0, 0), 2, 0);
	enqueue(task(1, 0), 1, 0);
	enqueue(task(2, 0), SCXPOL_POOL_SHARED, 0);
	enqueue(task(3, 0), 0, 0);
	enqueue(task(4, 0), 2, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_SHARED);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	/* own pool, shared, then d1 (the nearer), then d2 in its queue order */
	assert_ptr_equal(fake_local_at(0, 0), &tasks[3]);
	assert_ptr_equal(fake_local_at(0, 1), &tasks[2]);
	assert_ptr_equal(fake_local_at(0, 2), &tasks[1]);
	assert_ptr_equal(fake_local_at(0, 3), &tasks[0]);
	assert_ptr_equal(fake_local_at(0, 4), &tasks[4]);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_POOL), 1);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_SHARED), 1);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_STEAL), 3);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_NONE), 1);
}

static void test_steal_follows_each_pools_order(void **state)
{
	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	enqueue(task(0, 0), 0, 0);
	enqueue(task(1, 0), 1, 0);
	/* d2's nearest is d1 */
	assert_int_equal(dispatch(4), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(4, 0), &tasks[1]);
	assert_int_equal(dispatch(5), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(5, 0), &tasks[0]);
}

static void test_enqueue_wakes_a_stealer(void **state)
{
	(void)state;
	publish_ok(steal3, 3);
	busy("0-3");
	enqueue(task(0, 0), 0, 0);
	/* d0 has no idle CPU: an idle CPU of a STEAL pool is woken to steal */
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 4);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	assert_int_equal(dispatch(4), SCXPOL_POOL_SRC_STEAL);
}

/*
 * A waking task of a busy STEAL pool with nothing queued goes straight to
 * the idle CPU a steal would have taken it to (prev first); with a task
 * queued ahead of it, in its own pool's queue or the shared one, it is
 * left to ops.enqueue to queue behind that task.
 */
static void test_select_steals_idle_when_nothing_queued(void **state)
{
	const struct {
		s32 pool;
		int src;
	} ahead[] = { { 0, SCXPOL_POOL_SRC_POOL }, { SCXPOL_POOL_SHARED, SCXPOL_POOL_SRC_SHARED } };
	struct task_struct *p = task(0, 0), *q = task(1, 0), *r = task(2, 0), *w = task(3, 0);
	int i;

	(void)state;
	publish_ok(steal3, 3);
	busy("0-3");
	assert_int_equal(select_cpu(p, 0, 1), 4);
	assert_true(last_direct);
	assert_ptr_equal(fake_last_insert()->p, p);
	assert_int_equal(fake_last_insert()->dsq_id, SCX_DSQ_LOCAL);
	assert_false(fake_cpu_idle(4));
	assert_int_equal(select_cpu(q, 0, 5), 5);
	assert_int_equal(stat(SCXPOL_STAT_STEAL_IDLE), 2);
	assert_int_equal(fake_nr_kicks(), 0);
	/* a task queued ahead in d0, then in the shared queue: w queues behind it */
	for (i = 0; i < 2; i++) {
		enqueue(r, ahead[i].pool, 0);
		fake_set_idle(4, true);
		assert_int_equal(select_cpu(w, 0, 1), 1);
		assert_false(last_direct);
		assert_int_equal(dispatch(1), ahead[i].src);
		assert_ptr_equal(fake_local_pop(1), r);
		running(r);
	}
	assert_int_equal(select_cpu(w, 0, 1), 4);
	assert_true(last_direct);
	assert_int_equal(stat(SCXPOL_STAT_STEAL_IDLE), 3);
}

/* ads's pools: a LEND pool takes its lent CPU back first; only a STEAL pool steals at wakeup. */
static void test_select_steal_idle_yields_to_reclaim(void **state)
{
	const struct tpool plan[] = { { "lc", SCXPOL_POOL_LEND | STEAL, "0-1", "1" },
				      { "bg", SCXPOL_POOL_BORROW | STEAL, "2-3", "0" } };
	const struct tpool nosteal[] = { { "lc", SCXPOL_POOL_LEND, "0-1", "1" },
					 { "bg", SCXPOL_POOL_BORROW, "2-3", "0" } };
	struct task_struct *x = task(0, 0), *y = task(1, 1);

	(void)state;
	publish_ok(plan, 2);
	busy("0-2");
	/* bg's x runs on lc's CPU 0 */
	scxpol_task_ctx(x)->pool = 1;
	running(x);
	assert_string_equal(mask_str(scxpol_cast_mask(scxpol_pool__borrowed())), "0");
	assert_int_equal(select_cpu(y, 0, 1), 1);
	assert_false(last_direct);
	assert_true(fake_cpu_idle(3));
	stopping(x, true);
	assert_int_equal(select_cpu(y, 0, 1), 3);
	assert_true(last_direct);
	assert_int_equal(stat(SCXPOL_STAT_STEAL_IDLE), 1);
	fake_set_idle(3, true);
	publish_ok(nosteal, 2);
	assert_int_equal(select_cpu(y, 0, 1), 1);
	assert_false(last_direct);
	assert_int_equal(stat(SCXPOL_STAT_STEAL_IDLE), 1);
}

static void test_exclusive_domains_never_steal(void **state)
{
	const struct tpool excl[] = {
		{ "d0", 0, "0-1", "1,2" },
		{ "d1", 0, "2-3", "0,2" },
		{ "d2", 0, "4-5", "1,0" },
	};
	const struct tpool mixed[] = {
		{ "d0", STEAL, "0-1", "1,2" },
		{ "d1", 0, "2-3", "0,2" },
		{ "d2", STEAL, "4-5", "1,0" },
	};

	(void)state;
	publish_ok(excl, 3);
	busy("0-3");
	enqueue(task(0, 0), 1, 0);
	assert_int_equal(fake_nr_kicks(), 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(dispatch(4), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	/* but the shared queue is everyone's */
	enqueue(task(1, 0), SCXPOL_POOL_SHARED, 0);
	assert_int_equal(dispatch(4), SCXPOL_POOL_SRC_SHARED);
	/* a STEAL pool does not steal from an exclusive one, even the nearest */
	publish_ok(mixed, 3);
	enqueue(task(2, 0), 2, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(0, 0), &tasks[2]);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_STEAL), 1);
}

/* Every CPU busy, tasks 0-9 queued on d0, task 10 on the shared queue. */
static void ten_in_d0_one_shared(void)
{
	int i;

	publish_ok(steal3, 3);
	busy("0-5");
	for (i = 0; i < 10; i++)
		enqueue(task(i, 0), 0, 0);
	enqueue(task(10, 0), SCXPOL_POOL_SHARED, 0);
}

static void test_shared_first_every_nth_dispatch(void **state)
{
	int i;

	(void)state;
	ten_in_d0_one_shared();
	for (i = 1; i < SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_at(1, SCXPOL_POOL_SHARED_EVERY - 1), &tasks[10]);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
}

/*
 * scxpol_pool_dispatch_every() with 0, Algorithm 2's order: the CPU's pool
 * for as long as it has work, the shared queue only then.
 */
static void test_dispatch_every_zero_is_pool_then_shared(void **state)
{
	struct scxpol_pool_view v;
	int i;

	(void)state;
	ten_in_d0_one_shared();
	v = view();
	fake_set_cpu(1);
	for (i = 0; i < 10; i++)
		assert_int_equal(scxpol_pool_dispatch_every(&v, 1, NULL, 0), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(scxpol_pool_dispatch_every(&v, 1, NULL, 0), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_at(1, 10), &tasks[10]);
	/* any other period: the shared queue's turn comes every n-th dispatch */
	for (i = 11; i < 14; i++)
		enqueue(task(i, 0), 0, 0);
	enqueue(task(14, 0), SCXPOL_POOL_SHARED, 0);
	/* (dispatch 12 on this CPU, even) */
	assert_int_equal(scxpol_pool_dispatch_every(&v, 1, NULL, 2), SCXPOL_POOL_SRC_SHARED);
	assert_int_equal(scxpol_pool_dispatch_every(&v, 1, NULL, 2), SCXPOL_POOL_SRC_POOL);
}

/* Under ALG1_NOW vtimes are times: no lead cap, no lag carried between clocks. */
static void test_alg1_now_vtime_is_not_bounded(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct scxpol_vclock rule = { .rule = SCXPOL_VTIME_ALG1_NOW, .reset_every = 8 };
	struct task_struct *p, *q;
	struct scxpol_task_ctx *t;

	(void)state;
	setup_pools(4, 4);
	p = task(0, 0);
	q = task(1, 0);
	t = scxpol_task_ctx(q);
	assert_int_equal(scxpol_pool_init(&rule), 0);
	publish_ok(plan, 2);
	busy("0-3");
	/* a first enqueue: the current time, whatever the clock */
	enqueue(p, 0, 0);
	assert_int_equal(p->scx.dsq_vtime, 1000 * MS);
	/* 4 s ahead of the clock, last queued on another pool's: kept as it is */
	t->pool = 0;
	t->nr_enqueues = 1;
	t->last_runtime = 4000 * MS;
	q->scx.dsq_vtime = 1000 * MS;
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(q->scx.dsq_vtime, 5000 * MS);
	assert_int_equal(t->pool, 1);
}

/*
 * A resize can leave a queued task in a pool none of whose CPUs it may run
 * on (it was queued there when the pool had one): the other pools' CPUs
 * take it on their SCXPOL_POOL_SHARED_EVERY-th dispatch, however busy
 * their own pool; also from the queue of a pool no longer published.
 */
static void test_resize_stranded_task_is_rescued(void **state)
{
	const struct tpool before[] = { { "d0", 0, "0-2", NULL }, { "d1", 0, "3", NULL },
					{ "d2", 0, "4-5", NULL } };
	const struct tpool after[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-5", NULL } };
	const s32 two[] = { 2, 3 };
	struct task_struct *p = task(0, 2), *gone = task(1, 4);
	struct scxpol_pool_view v;
	int i;

	(void)state;
	publish_ok(before, 3);
	busy("0-5");
	/* allowed on 2 and 3: queued on d0, which has CPU 2 */
	fake_task_allow(p, two, 2);
	enqueue(p, 0, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	enqueue(gone, 2, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(2)), 1);
	v = view();
	assert_false(scxpol_pool_stranded(&v, 3));
	/* CPU 2 moves to d1, d2 goes: no CPU of d0 may run p, nor any of d2 */
	publish_ok(after, 2);
	v = view();
	assert_true(scxpol_pool_stranded(&v, 2));
	assert_true(scxpol_pool_stranded(&v, 4));
	/* d1 is busy, and so is the shared queue: CPU 3 serves d1, then rescues p */
	for (i = 0; i < 16; i++)
		enqueue(task(2 + i, 3), 1, 0);
	for (i = 0; i < 4; i++)
		enqueue(task(18 + i, 3), SCXPOL_POOL_SHARED, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 4);
	for (i = 1; i < SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_RESCUE);
	assert_ptr_equal(fake_local_at(3, SCXPOL_POOL_SHARED_EVERY - 1), p);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 0);
	for (i = 1; i < SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(5), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(dispatch(5), SCXPOL_POOL_SRC_RESCUE);
	assert_ptr_equal(fake_local_at(5, SCXPOL_POOL_SHARED_EVERY - 1), gone);
	v = view();
	assert_false(scxpol_pool_stranded(&v, 2));
}

/*
 * A task its pool's CPUs do not serve (say they are going offline) is
 * taken by another pool's CPU once it waited SCXPOL_POOL_STARVE_NS at the
 * head of its queue; not before; and never out of an exclusive pool.
 * Returns what d1's CPU 2 took on its last dispatch past that time.
 */
static int starving_head(u32 flags)
{
	const struct tpool plan[] = { { "d0", flags, "0-1", NULL }, { "d1", flags, "2-3", NULL } };
	struct task_struct *p = task(0, 0);
	struct scxpol_pool_view v;
	int i;

	publish_ok(plan, 2);
	busy("0-3");
	enqueue(p, 0, 0);
	for (i = 0; i < 20; i++)
		enqueue(task(1 + i, 2), 1, 0);
	fake_advance(SCXPOL_POOL_STARVE_NS - MS);
	v = view();
	assert_false(scxpol_pool_stranded(&v, 2));
	for (i = 0; i < SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	fake_advance(2 * MS);
	v = view();
	assert_int_equal(scxpol_pool_stranded(&v, 2), flags != SCXPOL_POOL_EXCLUSIVE);
	for (i = 1; i < SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	return dispatch(2);
}

static void test_starving_head_is_rescued(void **state)
{
	(void)state;
	assert_int_equal(starving_head(SCXPOL_POOL_STEAL), SCXPOL_POOL_SRC_RESCUE);
	assert_ptr_equal(fake_local_at(2, 2 * SCXPOL_POOL_SHARED_EVERY - 1), &tasks[0]);
}

static void test_exclusive_head_waits(void **state)
{
	(void)state;
	assert_int_equal(starving_head(SCXPOL_POOL_EXCLUSIVE), SCXPOL_POOL_SRC_POOL);
}

/* --- the watch ------------------------------------------------------------------ */

static struct scxpol_pool_watch *watch(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&scxpol_pool_watch, &zero);
}

/* The watch's timer fires: returns the kicks it made, as "cpu,cpu". */
static const char *fire(void)
{
	static char buf[64];
	struct scxpol_pool_watch *w = watch();
	unsigned int i;
	size_t o = 0;

	fake_clear_kicks();
	fake_timer_clear(&w->timer);
	assert_int_equal(scxpol_pool__watch_fn(&scxpol_pool_watch, NULL, w), 0);
	buf[0] = '\0';
	for (i = 0; i < fake_nr_kicks(); i++) {
		assert_int_equal(fake_kick_at(i)->flags, SCXPOL_KICK_IDLE);
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", i ? "," : "",
				      fake_kick_at(i)->cpu);
	}
	return buf;
}

static void test_init_starts_the_watch(void **state)
{
	struct scxpol_pool_watch *w = watch();

	(void)state;
	assert_ptr_equal(fake_timer_cb(&w->timer), (void *)scxpol_pool__watch_fn);
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
	/* the same object attached again: its timer is already set up */
	fake_timer_clear(&w->timer);
	assert_int_equal(scxpol_pool__watch_start(), 0);
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
	/* nothing queued: it looks again, waking no one */
	assert_string_equal(fire(), "");
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
}

/*
 * The pending counts (scxpol_pool__pending_add()): a task queued by
 * scxpol_pool_enqueue() counts on its queue until it runs, is dequeued or
 * is enqueued again, and a dispatch that finds every count at 0 looks at
 * no queue. Each case can fail: a count that stayed up would make the
 * last dispatch look at the queues, one dropped early would skip a task.
 */
static void test_pending_counts_skip_empty_queues(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_STEAL, "0-1", "1" },
				      { "d1", SCXPOL_POOL_STEAL, "2-3", "0" } };
	struct task_struct *p = task(0, 0), *q = task(1, 0);
	u32 d0 = 0, shared = scxpol_pool_conf.max_pools;
	unsigned int moves;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	enqueue(p, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	assert_int_equal(scxpol_task_ctx(p)->pending, d0 + 1);
	/* taken by another domain's CPU (a steal): counted until it runs */
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_STEAL);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	/* enqueued again from there without having run (the kernel re-enqueues): still one */
	assert_ptr_equal(fake_local_pop(2), p);
	enqueue(p, 0, 0);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_STEAL);
	running(fake_local_pop(2));
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 0);
	assert_int_equal(scxpol_task_ctx(p)->pending, 0);
	/* dequeued from the shared queue (a property change): ops.quiescent drops it */
	enqueue(q, SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &shared), 1);
	scxpol_pool_quiescent(scxpol_task_ctx(q), 0);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &shared), 0);
	/* every count 0: a dispatch moves from no queue (q is still on the fake's shared queue) */
	moves = fake_nr_moves();
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_nr_moves(), moves);
	assert_int_equal(fake_nr_errors(), 0);
}

/*
 * A task a policy put on a pool's queue itself, past scxpol_pool_enqueue(),
 * has no count: dispatch skips it until the watch finds it there, marks
 * the count (pending_repair) and wakes a CPU, which then takes it. A look
 * that finds the queue empty takes the mark off again.
 */
static void test_watch_repairs_an_uncounted_queue(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", "1" }, { "d1", 0, "2-3", "0" } };
	struct task_struct *p = task(0, 0);
	u32 d1 = 1;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	scxpol_dsq_insert_vtime(p, SCXPOL_DSQ_POOL(1), SLICE, 0, 0);
	fake_set_idle(2, true);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	assert_string_equal(fire(), "2");
	assert_int_equal(stat(SCXPOL_STAT_PENDING_REPAIR), 1);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d1), SCXPOL_POOL__REPAIRED);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(2, 0), p);
	/* a count already up is left alone */
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_PENDING_REPAIR), 1);
	/* the next look finds the queue empty and takes the mark off: a counted task stays counted */
	scxpol_pool__pending_add(NULL, SCXPOL_DSQ_POOL(1));
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d1), 1);
}

/*
 * An enqueue found d1's CPUs busy, so it woke none, and then CPU 3 went
 * idle (the race of a CPU that has just found nothing to dispatch): once
 * the task has waited a whole watch period, the watch wakes CPU 3, which
 * takes it; before, the task may be on its way to a CPU kicked for it. A
 * BORROW pool whose CPUs are busy gets an idle CPU of a LEND pool; the
 * shared queue any idle CPU the task may run on; a queue whose CPUs are
 * all busy, or idle but not allowed to the task, nothing.
 */
static void test_watch_wakes_a_cpu_for_a_lost_wakeup(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_LEND, "0-1", "1" },
				      { "d1", SCXPOL_POOL_BORROW, "2-3", "0" } };
	const s32 only1[] = { 1 };
	struct task_struct *p = task(0, 2), *q = task(1, 2), *r = task(2, 0), *s = task(3, 2);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	fake_clear_kicks();
	enqueue(p, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(3, true);
	assert_string_equal(fire(), "");
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "3");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);
	assert_int_equal(watch()->rescue, 0);
	assert_int_equal(fake_timer_ns(&watch()->timer), SCXPOL_POOL_WATCH_NS);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(3, 0), p);

	/* every CPU busy: the queue waits for them, no kick */
	fake_set_idle(3, false);
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	/* d1 busy, d0's CPU 1 idle: d1 borrows it */
	fake_set_idle(1, true);
	assert_string_equal(fire(), "1");
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_BORROW);
	assert_ptr_equal(fake_local_at(1, 0), q);

	/* the shared queue: an idle CPU the task may run on, not just any */
	fake_task_allow(r, only1, 1);
	r->nr_cpus_allowed = 2; /* not pinned: it queues on the shared queue */
	enqueue(r, SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 1);
	fake_set_idle(0, true);
	fake_set_idle(1, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "1");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 3);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_at(1, 1), r);

	/* d1's head may run on CPUs 0 and 2, both busy: idle CPU 3 would pass it by */
	fake_set_idle(0, false);
	fake_set_idle(1, false);
	fake_task_allow(s, (const s32[]){ 0, 2 }, 2);
	enqueue(s, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(3, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 3);
}

/*
 * The enqueue kicked idle CPU 3, which does not answer for a watch period
 * (the host does not run it), while CPU 2 went idle just after the
 * enqueue looked: the task is on its way to CPU 3, so the watch kicks no
 * one, until CPU 3 has been silent for SCXPOL_POOL_KICK_LATE_NS. A CPU
 * that dispatched has answered; one kicked and then gone offline never
 * will, so the watch does not wait for it; nor for a kick to a CPU that
 * would not take the head.
 */
static void test_watch_leaves_a_late_kick_alone(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_LEND, "0-1", "1" },
				      { "d1", SCXPOL_POOL_BORROW, "2-3", "0" } };
	struct task_struct *p = task(0, 2), *q = task(1, 2), *r = task(2, 2), *s = task(3, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0-2");
	fake_clear_kicks();
	enqueue(p, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 3);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(2, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	fake_advance(SCXPOL_POOL_KICK_LATE_NS - 2 * SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	fake_advance(2 * SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "2");
	/* waiting past SCXPOL_POOL_STARVE_NS made it stranded: the rescue's */
	assert_int_equal(stat(SCXPOL_STAT_WATCH_RESCUE), 1);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(2, 0), p);

	/* CPU 3 answers at last (finds nothing); kicked again, it goes offline */
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_NONE);
	fake_set_idle(3, true);
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_online(3, false);
	fake_set_cpu(0); /* the watch's timer runs on a live CPU */
	fake_set_idle(1, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "1");
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_BORROW);
	assert_ptr_equal(fake_local_at(1, 0), q);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);

	/* a kick on its way to d1's CPU 2 is not one for d0's head: d0 borrows no CPU */
	fake_set_online(3, true);
	busy("0-3");
	fake_set_idle(2, true);
	enqueue(r, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	enqueue(s, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	fake_set_idle(0, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "0");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 2);
}

/*
 * d0's CPUs never dispatch again (they are going offline) and d1's CPU 3
 * is idle: once the head of d0's queue has waited SCXPOL_POOL_STARVE_NS,
 * the watch wakes CPU 3 and raises the rescue flag, and CPU 3, about to go
 * idle, takes the task instead. Before that, CPU 3 leaves it alone.
 */
static void test_watch_rescues_a_stranded_head(void **state)
{
	/* not exclusive (those wait for their own CPUs); no LEND pool to borrow from */
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_BORROW, "0-1", NULL },
				      { "d1", 0, "2-3", NULL } };
	struct task_struct *p = task(0, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0-2");
	enqueue(p, 0, 0);
	assert_string_equal(fire(), "");
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_NONE);
	fake_advance(SCXPOL_POOL_STARVE_NS + MS);
	assert_string_equal(fire(), "3");
	assert_int_equal(watch()->rescue, 1);
	/* the rescue is by design, not a lost wakeup */
	assert_int_equal(stat(SCXPOL_STAT_WATCH_RESCUE), 1);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_RESCUE);
	assert_ptr_equal(fake_local_at(3, 0), p);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 0);
	/* nothing stranded any more: the flag goes down at the next look */
	assert_string_equal(fire(), "");
	assert_int_equal(watch()->rescue, 0);
}

/*
 * An enqueue made on a CPU going offline (out of the online mask, its
 * interrupts off until it dies) claims d0's idle CPU 1 but does not kick
 * it from there, where the kick's IRQ work would never run: the watch
 * kicks CPU 1 from a live CPU, once (scxpol_pool_kick()).
 */
static void test_watch_sends_the_kicks_of_a_dying_cpu(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };

	(void)state;
	publish_ok(plan, 2);
	busy("0");
	fake_clear_kicks();
	fake_set_cpu(3);
	fake_set_online(3, false);
	enqueue(task(0, 0), 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	assert_int_equal(fake_nr_kicks(), 0);
	assert_false(fake_cpu_idle(1));
	fake_set_cpu(0);
	assert_string_equal(fire(), "1");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);
	assert_string_equal(fire(), "");
	/* back online, it kicks for itself */
	fake_set_online(3, true);
	fake_set_cpu(3);
	fake_set_idle(1, true);
	enqueue(task(1, 0), 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 1);
	assert_string_equal(fire(), "");
	/* several left for one CPU: the watch sends the strongest, once */
	fake_set_online(3, false);
	fake_clear_kicks();
	scxpol_pool_kick(2, SCX_KICK_IDLE);
	scxpol_pool_kick(2, SCX_KICK_PREEMPT);
	scxpol_pool_kick(1, SCX_KICK_IDLE);
	scxpol_pool_kick(1, 0);
	scxpol_pool_kick(0, SCX_KICK_IDLE);
	assert_int_equal(fake_nr_kicks(), 0);
	fake_set_cpu(0);
	assert_int_equal(scxpol_pool__watch_fn(&scxpol_pool_watch, NULL, watch()), 0);
	assert_int_equal(fake_nr_kicks(), 3);
	assert_int_equal(fake_kick_at(0)->cpu, 0);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	assert_int_equal(fake_kick_at(1)->cpu, 1);
	assert_int_equal(fake_kick_at(1)->flags, 0);
	assert_int_equal(fake_kick_at(2)->cpu, 2);
	assert_int_equal(fake_kick_at(2)->flags, SCX_KICK_PREEMPT);
	assert_string_equal(fire(), "");
}

/* Once the scheduler has exited, the watch neither kicks nor looks again. */
static void test_watch_stops_at_exit(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct scxpol_sched_exit_record *rec;
	u32 zero = 0;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	enqueue(task(0, 2), 1, 0);
	fake_set_idle(2, true);
	rec = bpf_map_lookup_elem(&scxpol_exit, &zero);
	rec->kind = 64; /* SCX_EXIT_UNREG */
	assert_string_equal(fire(), "");
	assert_int_equal(fake_timer_ns(&watch()->timer), 0);
	assert_true(fake_cpu_idle(2));
}

/*
 * A task ops.init_task never saw (an idle task) gets its context on
 * demand, in no pool: pool 0 would be a real one, and an idle CPU's
 * waker would count as a task of it.
 */
static void test_ctx_on_demand_is_in_no_pool(void **state)
{
	struct task_struct *p = &tasks[0];

	(void)state;
	fake_task_init(p, 100, "swapper/1");
	assert_int_equal(scxpol_task_ctx(p)->pool, SCXPOL_POOL_SHARED);
	scxpol_task_ctx(p)->pool = 1;
	assert_int_equal(scxpol_task_ctx(p)->pool, 1);
}

/*
 * The wait counts from the enqueue, not from when the task last ran: one
 * that slept for long, or never ran under this scheduler (a restart), is
 * not starving the moment it wakes, and stays with its own pool. Nor is
 * one queued by a CPU whose clock is ahead.
 */
static void test_woken_head_is_not_starving(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_STEAL, "0-1", NULL },
				      { "d1", SCXPOL_POOL_STEAL, "2-3", NULL } };
	struct task_struct *slept = task(0, 0), *fresh = task(1, 0);
	struct scxpol_pool_view v;
	int i;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	scxpol_task_ctx(slept)->run_start = scxpol_now();
	fake_advance(3 * SCXPOL_POOL_STARVE_NS);
	enqueue(slept, 0, 0);
	enqueue(fresh, 0, 0);
	for (i = 0; i < 20; i++)
		enqueue(task(2 + i, 2), 1, 0);
	v = view();
	assert_false(scxpol_pool_stranded(&v, 2));
	for (i = 0; i < 2 * SCXPOL_POOL_SHARED_EVERY; i++)
		assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 2);
	/* the enqueuing CPU's clock (scx_bpf_now()) may be ahead of this one's */
	scxpol_task_ctx(slept)->queued_at = scxpol_now() + MS;
	scxpol_task_ctx(fresh)->queued_at = scxpol_now() + MS;
	v = view();
	assert_false(scxpol_pool_stranded(&v, 2));
}

static void test_dispatch_respects_affinity(void **state)
{
	const s32 only1[] = { 1, 3 };
	struct task_struct *p;

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	p = task(0, 1);
	fake_task_allow(p, only1, 2);
	enqueue(p, 0, 0);
	enqueue(task(1, 0), 0, 0);
	/* CPU 0 may not run task 0: it takes the next one */
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(0, 0), &tasks[1]);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(1, 0), p);
}

static void test_prev_keeps_cpu_when_ahead(void **state)
{
	struct task_struct *p, *q = task(1, 0);

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	p = slice_out_after(task(0, 0), 0, 0, 5 * MS);
	/* q waits at 8 ms; p would be requeued at 5 ms: p goes on */
	q->scx.dsq_vtime = 8 * MS;
	enqueue(q, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(q->scx.dsq_vtime, 8 * MS);
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_KEEP);
	assert_int_equal(p->scx.slice, SLICE);
	assert_int_equal(fake_local_count(0), 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	/* 20 ms later p is behind q: q gets the CPU */
	fake_advance(20 * MS);
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(0, 0), q);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_POOL), 2);
}

/*
 * Under Algorithm 1 (reset every 4th enqueue here) each keep counts as an
 * enqueue: a task that slept 1000 times (placed on idle CPUs, without
 * ops.enqueue, it never reached a reset) and now runs on loses that credit
 * at the 4th keep, and the CPU to the task queued 10 ms ahead of it at the
 * next slice's end; else its stint, charged /1001, kept it for 2000 slices.
 */
static void test_alg1_keeps_count_for_the_reset(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct scxpol_vclock rule = { .rule = SCXPOL_VTIME_ALG1, .reset_every = 4 };
	struct task_struct *p = task(0, 0), *q = task(1, 0);
	int i;

	(void)state;
	setup_pools(4, 4);
	assert_int_equal(scxpol_pool_init(&rule), 0);
	publish_ok(plan, 2);
	busy("0-3");
	run_on(p, 0, 0);
	scxpol_task_ctx(p)->nr_sleeps = 1000;
	/* q comes in 10 ms past the clock (its last run, charged on requeue) */
	scxpol_task_ctx(q)->pool = 0;
	scxpol_task_ctx(q)->nr_enqueues = 1;
	scxpol_task_ctx(q)->last_runtime = 10 * MS;
	enqueue(q, 0, 0);
	assert_int_equal(q->scx.dsq_vtime, scxpol_pool_vclock(0)->now + 10 * MS);
	for (i = 1; i <= 4; i++) {
		fake_advance(SLICE);
		p->scx.slice = 0;
		assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_KEEP);
	}
	assert_int_equal(scxpol_task_ctx(p)->nr_sleeps, 0);
	fake_advance(SLICE);
	p->scx.slice = 0;
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(0, 0), q);
}

static void test_prev_keeps_cpu_rather_than_steal(void **state)
{
	struct task_struct *p;

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	p = run_on(task(0, 0), 0, 0);
	enqueue(task(1, 2), 1, 0);
	/* its own queue is empty: p goes on, d1's task is not stolen */
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_KEEP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	/* a previous task that went to sleep is not kept */
	p->scx.flags &= ~SCX_TASK_QUEUED;
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_STEAL);
}

/*
 * The head of its queue is ahead of @prev but may not run on @prev's CPU
 * (or another CPU took it meanwhile): @prev goes on rather than the CPU
 * taking another pool's work, behind which @prev would wait.
 */
static void test_prev_keeps_cpu_when_head_cannot_run_here(void **state)
{
	const s32 not0[] = { 1, 2 };
	struct task_struct *p, *h = task(1, 1);

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	p = slice_out_after(task(0, 0), 0, 0, 10 * MS);
	fake_task_allow(h, not0, 2);
	h->scx.dsq_vtime = 0;
	fake_set_cpu(1);
	enqueue(h, 0, SCX_ENQ_WAKEUP);
	enqueue(task(2, 2), 1, 0);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_KEEP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
}

static void test_prev_of_another_pool_is_not_kept(void **state)
{
	struct task_struct *p;

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	/* a task of d1 stolen by CPU 0 (d0) */
	enqueue(task(0, 2), 1, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	p = fake_local_pop(0);
	running(p);
	p->scx.flags |= SCX_TASK_QUEUED;
	enqueue(task(1, 0), 0, 0);
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(0, 0), &tasks[1]);
}

static void test_busy_poller_prev_is_demoted(void **state)
{
	struct task_struct *p, *q = task(1, 0);

	(void)state;
	publish_ok(steal3, 3);
	busy("0-5");
	p = run_on(task(0, 0), 0, 0);
	fake_advance(5 * MS);
	q->scx.dsq_vtime = 8 * MS;
	enqueue(q, 0, SCX_ENQ_WAKEUP);
	/* at 5 ms p is ahead of q (8 ms), at 5 + 5 (demoted) it is not */
	scxpol_task_ctx(p)->flags |= SCXPOL_TASKF_BUSY_POLL;
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(0), q);
	scxpol_task_ctx(p)->flags &= ~SCXPOL_TASKF_BUSY_POLL;
	q->scx.dsq_vtime = 8 * MS;
	enqueue(q, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(dispatch_prev(0, p), SCXPOL_POOL_SRC_KEEP);
}

/* --- lending, borrowing, reclaim ----------------------------------------------------- */

static s32 preempt_pool(struct task_struct *p, s32 pool)
{
	struct scxpol_pool_view v = view();

	return scxpol_pool_preempt_pool(&v, p, pool);
}

/*
 * lc on CPUs 0-1, bg on 2-3, all busy; CPU 2 ran lc task @a. Making room
 * for @a preempts the first CPU not running lc work, @a's own CPU first;
 * but not @a's own CPU while that CPU queues @a as it stops running it
 * (@a is still its current task): that CPU is scheduling already, and the
 * kick would preempt @a's successor there, which would then do the same.
 */
static void test_preempt_pool_spares_the_cpu_putting_the_task(void **state)
{
	const struct tpool plan[] = { { "lc", 0, "0-1", NULL }, { "bg", 0, "2-3", NULL } };
	struct task_struct *lc0 = task(0, 0), *lc1 = task(1, 1), *a = task(2, 2);
	struct task_struct *bg = task(3, 3), *w = task(4, 2);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	scxpol_task_ctx(lc0)->pool = scxpol_task_ctx(lc1)->pool = 0;
	scxpol_task_ctx(a)->pool = scxpol_task_ctx(w)->pool = 0;
	scxpol_task_ctx(bg)->pool = 1;
	running(lc0);
	running(lc1);
	running(a);
	running(bg);
	/* @a's slice ran out: CPU 2 stops it and queues it again */
	stopping(a, true);
	fake_set_cpu(2);
	fake_set_curr(2, a);
	assert_int_equal(preempt_pool(a, 0), 3);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 3);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_PREEMPT);
	/* a wakeup of @w, last on CPU 2, from CPU 0: CPU 2 first */
	fake_set_cpu(0);
	fake_set_curr(0, lc0);
	assert_int_equal(preempt_pool(w, 0), 2);
	assert_int_equal(fake_kick_at(1)->cpu, 2);
	/* with lc work on CPU 3 too, there is no room but CPU 2's own */
	scxpol_task_ctx(task(5, 3))->pool = 0;
	running(&tasks[5]);
	fake_set_cpu(2);
	fake_set_curr(2, a);
	assert_int_equal(preempt_pool(a, 0), -EBUSY);
	assert_int_equal(fake_nr_kicks(), 2);
}

static void test_lend_borrow_and_reclaim(void **state)
{
	const struct tpool soft[] = { { "lc", SOFT, "0-1", "1" }, { "bg", SOFT, "2-3", "0" } };
	struct task_struct *x = task(0, 2), *y = task(1, 1), *z = task(2, 1);

	(void)state;
	publish_ok(soft, 2);
	busy("1-3");
	/* bg's CPUs are busy: lc's idle CPU 0 is woken to lend itself */
	enqueue(x, 1, 0);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 0);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	/* its own queue and the shared one are empty: it runs bg's task */
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_BORROW);
	assert_ptr_equal(fake_local_pop(0), x);
	running(x);
	assert_true(scxpol_task_ctx(x)->flags & SCXPOL_TASKF_BORROWED);
	assert_string_equal(mask_str(scxpol_cast_mask(scxpol_pool__borrowed())), "0");
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_BORROW), 1);
	/* lc's own work arrives with no idle CPU: CPU 0 is taken back */
	enqueue(y, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 2);
	assert_int_equal(fake_kick_at(1)->cpu, 0);
	assert_int_equal(fake_kick_at(1)->flags, SCX_KICK_PREEMPT);
	assert_int_equal(stat(SCXPOL_STAT_RECLAIM), 1);
	/* the borrower stops; CPU 0 serves lc first */
	stopping(x, true);
	assert_false(scxpol_task_ctx(x)->flags & SCXPOL_TASKF_BORROWED);
	assert_string_equal(mask_str(scxpol_cast_mask(scxpol_pool__borrowed())), "");
	enqueue(x, 1, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(0), y);
	/* nothing left to take back and nothing idle: no kick */
	fake_clear_kicks();
	enqueue(z, 0, 0);
	assert_int_equal(fake_nr_kicks(), 0);
	assert_int_equal(stat(SCXPOL_STAT_RECLAIM), 1);
}

static void test_own_pool_task_is_not_borrowed(void **state)
{
	const struct tpool soft[] = { { "lc", SOFT, "0-1", "1" }, { "bg", SOFT, "2-3", "0" } };
	struct task_struct *p = task(0, 1);

	(void)state;
	publish_ok(soft, 2);
	busy("0-3");
	enqueue(p, 0, 0);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_POOL);
	running(p);
	assert_false(scxpol_task_ctx(p)->flags & SCXPOL_TASKF_BORROWED);
	assert_string_equal(mask_str(scxpol_cast_mask(scxpol_pool__borrowed())), "");
}

/*
 * ads's pools: a CPU of a LEND | STEAL pool pulls a task of a BORROW |
 * STEAL pool in its steal pass (the borrow pass does not look at that
 * queue again), and one it may not run stays queued.
 */
static void test_lend_steal_pulls_steal_borrow_pool(void **state)
{
	const struct tpool plan[] = { { "lc", SOFT | STEAL, "0-1", "1" },
				      { "bg", SOFT | STEAL, "2-3", "0" } };
	struct task_struct *x = task(0, 2), *y = task(1, 2);
	const s32 bg_cpus[] = { 2, 3 };

	(void)state;
	publish_ok(plan, 2);
	busy("1-3");
	enqueue(x, 1, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_pop(0), x);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_STEAL), 1);
	fake_task_allow(y, bg_cpus, 2);
	enqueue(y, 1, 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	assert_int_equal(stat(SCXPOL_STAT_DISPATCH_BORROW), 0);
}

static void test_exclusive_pools_never_lend(void **state)
{
	const struct tpool plan[] = { { "lc", 0, "0-1", "1" }, { "bg", SOFT, "2-3", "0" } };

	(void)state;
	publish_ok(plan, 2);
	busy("1-3");
	enqueue(task(0, 2), 1, 0);
	/* CPU 0 is idle but lc does not lend */
	assert_int_equal(fake_nr_kicks(), 0);
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_init_creates_queues, fake_teardown),
		cmocka_unit_test_setup_teardown(test_nothing_published, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_publish_builds_table, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_publish_rejects_bad_plans, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_per_cpu_table_must_match_bitmaps, setup_4,
						fake_teardown),
		cmocka_unit_test_teardown(test_not_set_up, fake_teardown),
		cmocka_unit_test_setup_teardown(test_resize_flips_generation_atomically, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_republishing_does_not_leak_cpumasks, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pick_prev_when_idle, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pick_idle_core_over_half_busy_core, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pick_prefers_prev_llc, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pick_stays_in_pool, setup_smt8, fake_teardown),
		cmocka_unit_test_setup_teardown(test_select_inserts_directly, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_borrow_idle_cpu_of_lending_pool, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_select_respects_affinity, setup_smt8,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_queues_on_pool_and_wakes_it, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_special_cases, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_bound_kthread_local, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_demotes_busy_poller, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pool_clocks_are_separate, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_preempts_a_later_task, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_spares_a_head_task, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_kept_head_task_can_be_preempted, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_new_task_joins_at_its_pools_clock, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pinned_task_shares_its_cpu, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pinned_task_in_no_pool_shares_its_cpu, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pinned_head_competes_by_vtime, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pinned_task_survives_a_resize, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pool_change_keeps_lag, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_lead_is_bounded, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_own_shared_then_steal_nearest, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_steal_follows_each_pools_order, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_wakes_a_stealer, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_select_steals_idle_when_nothing_queued, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_select_steal_idle_yields_to_reclaim, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_domains_never_steal, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_shared_first_every_nth_dispatch, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_every_zero_is_pool_then_shared,
						setup_llc3, fake_teardown),
		cmocka_unit_test_teardown(test_alg1_now_vtime_is_not_bounded, fake_teardown),
		cmocka_unit_test_setup_teardown(test_resize_stranded_task_is_rescued, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_starving_head_is_rescued, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_head_waits, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_init_starts_the_watch, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_wakes_a_cpu_for_a_lost_wakeup, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_leaves_a_late_kick_alone, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_rescues_a_stranded_head, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_sends_the_kicks_of_a_dying_cpu, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pending_counts_skip_empty_queues, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_repairs_an_uncounted_queue, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_stops_at_exit, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_woken_head_is_not_starving, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_ctx_on_demand_is_in_no_pool, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_respects_affinity, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_prev_keeps_cpu_when_ahead, setup_llc3,
						fake_teardown),
		cmocka_unit_test_teardown(test_alg1_keeps_count_for_the_reset, fake_teardown),
		cmocka_unit_test_setup_teardown(test_prev_keeps_cpu_rather_than_steal, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_prev_keeps_cpu_when_head_cannot_run_here, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_prev_of_another_pool_is_not_kept, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_busy_poller_prev_is_demoted, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_preempt_pool_spares_the_cpu_putting_the_task,
						setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_lend_borrow_and_reclaim, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_own_pool_task_is_not_borrowed, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_lend_steal_pulls_steal_borrow_pool, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_pools_never_lend, setup_4,
						fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
