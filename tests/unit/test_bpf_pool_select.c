// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, idle-CPU selection
 * (ops.select_cpu) on an SMT/LLC topology: prev while idle, a whole idle
 * core first, prev's LLC first, the task's own pool only or an idle CPU a
 * lending pool lends, direct insertion, and the task's affinity.
 */
#include "bpf_pool_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
