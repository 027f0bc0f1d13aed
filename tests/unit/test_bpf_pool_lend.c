// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, lending, borrowing and
 * reclaim: the CPU scxpol_pool_preempt_pool() preempts, a lending pool's
 * idle CPU running a borrowing pool's task and taken back for its own work,
 * a LEND | STEAL pool stealing from a BORROW | STEAL one, and exclusive
 * pools that never lend.
 */
#include "bpf_pool_fixture.h"

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
