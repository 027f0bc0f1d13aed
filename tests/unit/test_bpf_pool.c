// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, publishing: the queues
 * and clocks init makes, the table a commit builds and the plans it rejects
 * (leaving the published one), a resize that every snapshot sees whole and
 * the CPUs it kicks, and no cpumask leaked by publishing again.
 */
#include "bpf_pool_fixture.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
