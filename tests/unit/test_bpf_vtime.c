// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/vtime.bpf.h on the host fake kernel: the weighted charge,
 * the lag rules, Algorithm 1 and the busy-poll flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host_fake.h"
#include <scxpol/common.bpf.h>
#include <scxpol/task.bpf.h>
#include <scxpol/vtime.bpf.h>

#define MS 1000000ULL

static struct scxpol_vclock clk;

static int setup(void **state)
{
	(void)state;
	fake_reset(4);
	/* a real clock is never 0 (vtime.bpf.h takes run_start 0 as "not running") */
	fake_set_clock(1000 * MS);
	memset(&clk, 0, sizeof(clk));
	return 0;
}

static void new_task(struct task_struct *p, s32 pid)
{
	fake_task_init(p, pid, "t");
	assert_int_equal(scxpol_task_init(p), 0);
}

/* One stint on a CPU: running, @ms of run time, stopping. */
static void run_for(struct task_struct *p, u64 ms, bool runnable)
{
	scxpol_vtime_running(&clk, p);
	fake_advance(ms * MS);
	scxpol_vtime_stopping(&clk, p, runnable);
}

static void test_charge_is_runtime_times_100_over_weight(void **state)
{
	struct task_struct a, b, c;

	(void)state;
	new_task(&a, 1);
	new_task(&b, 2);
	new_task(&c, 3);
	b.scx.weight = 200;
	c.scx.weight = 50;
	run_for(&a, 10, true);
	run_for(&b, 10, true);
	run_for(&c, 10, true);
	assert_int_equal(a.scx.dsq_vtime, 10 * MS);
	assert_int_equal(b.scx.dsq_vtime, 5 * MS);
	assert_int_equal(c.scx.dsq_vtime, 20 * MS);
	assert_int_equal(scxpol_vtime_scale(3 * MS, 300), 1 * MS);
	/* weight 0 (not set) counts as nice 0 */
	assert_int_equal(scxpol_vtime_scale(7 * MS, 0), 7 * MS);
}

static void test_wakeup_floor_is_clock_minus_slice(void **state)
{
	struct task_struct p;
	u64 v;

	(void)state;
	new_task(&p, 1);
	clk.now = 100 * MS;
	p.scx.dsq_vtime = 10 * MS;
	v = scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS);
	assert_int_equal(v, 95 * MS);
	assert_int_equal(p.scx.dsq_vtime, 95 * MS);
	/* inside the window: kept */
	p.scx.dsq_vtime = 97 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS), 97 * MS);
}

static void test_reenqueue_floor_is_clock(void **state)
{
	struct task_struct p;

	(void)state;
	new_task(&p, 1);
	clk.now = 100 * MS;
	p.scx.dsq_vtime = 97 * MS;
	/* preempted or yielded: no boost at all */
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), 100 * MS);
	assert_int_equal(p.scx.dsq_vtime, 100 * MS);
}

/*
 * SCXPOL_ENQ_HEAD: ahead of every task queued without it, whatever their
 * lag; heads among themselves by vtime; running gives the task its vtime
 * back, so it is charged as usual.
 */
static void test_head_goes_first(void **state)
{
	struct task_struct p, q;
	u64 head, qhead;

	(void)state;
	new_task(&p, 1);
	new_task(&q, 2);
	clk.now = 100 * MS;
	p.scx.dsq_vtime = 108 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS), 108 * MS);
	head = scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP | SCX_ENQ_HEAD, 5 * MS);
	/* ahead of a task at the lag floor */
	assert_true(scxpol_time_before(head, 95 * MS));
	assert_int_equal(p.scx.dsq_vtime, 108 * MS);
	q.scx.dsq_vtime = 0;
	qhead = scxpol_vtime_enqueue(&clk, &q, SCX_ENQ_HEAD, 5 * MS);
	/* q (at the floor, 100) before p (108) */
	assert_true(scxpol_time_before(qhead, head));
	/* the kernel's insert stores the head vtime; running gives p its own back */
	p.scx.dsq_vtime = head;
	run_for(&p, 10, true);
	assert_int_equal(p.scx.dsq_vtime, 118 * MS);
	assert_int_equal(clk.now, 108 * MS);
	/* a task not at the head is left alone */
	q.scx.dsq_vtime = 90 * MS;
	scxpol_vtime_running(&clk, &q);
	assert_int_equal(q.scx.dsq_vtime, 90 * MS);
}

static void test_lead_survives_sleep(void **state)
{
	struct task_struct p;
	struct scxpol_task_ctx *t;

	(void)state;
	new_task(&p, 1);
	t = scxpol_task_ctx(&p);
	clk.now = 100 * MS;
	p.scx.dsq_vtime = 107 * MS;
	scxpol_vtime_quiescent_ctx(t, SCX_DEQ_SLEEP);
	assert_int_equal(scxpol_vtime_enqueue_ctx(&clk, &p, t, SCX_ENQ_WAKEUP, 5 * MS), 107 * MS);
	assert_int_equal(t->nr_sleeps, 1);
	/* a dequeue that is not a sleep is not counted */
	scxpol_vtime_quiescent(&p, 0);
	assert_int_equal(t->nr_sleeps, 1);
}

/*
 * A lead survives only up to SCXPOL_VTIME_MAX_LEAD_SLICES stints of the
 * task's slice as charged at its weight: a nice-19 kernel thread whose
 * short runs were each charged 100 times waits a bounded time, not until
 * dozens of busy tasks per CPU have caught up with it. ALG1's growth is
 * left alone.
 */
static void test_lead_is_capped(void **state)
{
	struct task_struct p, light;
	u64 slice = scxpol_vtime_slice(5 * MS, 1);

	(void)state;
	new_task(&p, 1);
	new_task(&light, 2);
	clk.now = 100 * MS;
	p.scx.dsq_vtime = 500 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS),
			 100 * MS + SCXPOL_VTIME_MAX_LEAD_SLICES * 5 * MS);
	light.scx.weight = 1;
	assert_int_equal(slice, 5 * MS / SCXPOL_VTIME_SLICE_DIV);
	light.scx.dsq_vtime = 5000 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &light, 0, slice),
			 100 * MS + SCXPOL_VTIME_MAX_LEAD_SLICES * slice * 100);
	clk.rule = SCXPOL_VTIME_ALG1;
	p.scx.dsq_vtime = 500 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS), 500 * MS);
}

static void test_clock_only_moves_forward(void **state)
{
	(void)state;
	clk.now = 50 * MS;
	scxpol_vclock_advance(&clk, 40 * MS);
	assert_int_equal(clk.now, 50 * MS);
	scxpol_vclock_advance(&clk, 60 * MS);
	assert_int_equal(clk.now, 60 * MS);
	/* wrap-safe: just past 2^64 is after just before it */
	clk.now = ~0ULL - 5;
	scxpol_vclock_advance(&clk, 3);
	assert_int_equal(clk.now, 3);
}

/*
 * Algorithm 1: a worker that runs 4 ms and sleeps, against a poller that
 * runs 2 ms stints and never sleeps. FAIR charges the worker more (it runs
 * longer) and puts it behind; ALG1 divides its charge by its sleeps and
 * puts it ahead.
 */
static void alg1_round(struct task_struct *worker, struct task_struct *poller)
{
	run_for(worker, 4, false);
	scxpol_vtime_quiescent(worker, SCX_DEQ_SLEEP);
	scxpol_vtime_enqueue(&clk, worker, SCX_ENQ_WAKEUP, 20 * MS);
	run_for(poller, 2, true);
	scxpol_vtime_enqueue(&clk, poller, 0, 20 * MS);
}

static void test_alg1_sleepy_worker_overtakes_poller(void **state)
{
	struct task_struct w, p;
	int i;

	(void)state;
	clk.rule = SCXPOL_VTIME_FAIR;
	new_task(&w, 1);
	new_task(&p, 2);
	for (i = 0; i < 6; i++)
		alg1_round(&w, &p);
	assert_true(scxpol_time_before(p.scx.dsq_vtime, w.scx.dsq_vtime));

	setup(NULL);
	clk.rule = SCXPOL_VTIME_ALG1;
	clk.reset_every = 100;
	new_task(&w, 1);
	new_task(&p, 2);
	for (i = 0; i < 6; i++)
		alg1_round(&w, &p);
	assert_true(scxpol_time_before(w.scx.dsq_vtime, p.scx.dsq_vtime));
	/* the queue orders them that way */
	assert_int_equal(scx_bpf_create_dsq(7, -1), 0);
	scx_bpf_dsq_insert_vtime(&p, 7, 20 * MS, p.scx.dsq_vtime, 0);
	scx_bpf_dsq_insert_vtime(&w, 7, 20 * MS, w.scx.dsq_vtime, 0);
	assert_ptr_equal(fake_dsq_at(7, 0), &w);
	assert_ptr_equal(fake_dsq_at(7, 1), &p);
}

static void test_alg1_charge_divided_by_sleeps(void **state)
{
	struct task_struct p;
	struct scxpol_task_ctx *t;

	(void)state;
	clk.rule = SCXPOL_VTIME_ALG1;
	clk.reset_every = 10;
	new_task(&p, 1);
	t = scxpol_task_ctx(&p);
	clk.now = 1000 * MS;
	/* enqueue #0 resets to the clock */
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), 1000 * MS);
	t->last_runtime = 9 * MS;
	t->nr_sleeps = 2;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 5 * MS), 1003 * MS);
	assert_int_equal(t->nr_enqueues, 2);
}

static void test_alg1_reset_every_nth_enqueue(void **state)
{
	struct task_struct p;
	struct scxpol_task_ctx *t;
	int i;

	(void)state;
	clk.rule = SCXPOL_VTIME_ALG1;
	clk.reset_every = 3;
	new_task(&p, 1);
	t = scxpol_task_ctx(&p);
	clk.now = 50 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), 50 * MS);
	t->last_runtime = 100 * MS;
	t->nr_sleeps = 4;
	/* enqueues #1 and #2 accumulate: 100 / 5 = 20 ms each */
	for (i = 1; i <= 2; i++)
		assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), (50 + 20 * i) * MS);
	/* #3 resets, even from 40 ms ahead, and forgets the sleeps */
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), 50 * MS);
	assert_int_equal(t->nr_sleeps, 0);
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS), 150 * MS);
}

/*
 * ALG1_NOW, Algorithm 1 line by line: the n-th enqueue (the first too)
 * resets to the current time, not to the clock, and no floor lifts a
 * vtime that fell behind the clock.
 */
static void test_alg1_now_resets_to_current_time(void **state)
{
	struct task_struct p;
	struct scxpol_task_ctx *t;

	(void)state;
	clk.rule = SCXPOL_VTIME_ALG1_NOW;
	clk.reset_every = 3;
	clk.now = 50 * MS;
	new_task(&p, 1);
	t = scxpol_task_ctx(&p);
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 3 * MS), 1000 * MS);
	t->last_runtime = 6 * MS;
	t->nr_sleeps = 2;
	/* far behind a clock that ran ahead: kept, where ALG1 lifts it to the floor */
	clk.now = 5000 * MS;
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, SCX_ENQ_WAKEUP, 3 * MS), 1002 * MS);
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 3 * MS), 1004 * MS);
	fake_advance(40 * MS);
	/* #3: the current time, not the clock */
	assert_int_equal(scxpol_vtime_enqueue(&clk, &p, 0, 3 * MS), 1040 * MS);
	assert_int_equal(p.scx.dsq_vtime, 1040 * MS);
	assert_int_equal(t->nr_sleeps, 0);
}

/*
 * Under ALG1_NOW a task that arrives later queues behind one that has
 * been running since an earlier reset, as long as that one's charges
 * (run time per sleep) add up to less than the time between them: under
 * overload, older work first. ALG1 puts both at the clock.
 */
static void test_alg1_now_older_work_first(void **state)
{
	struct task_struct old, young;
	struct scxpol_task_ctx *t;
	u64 vo, vy;
	int i;

	(void)state;
	clk.rule = SCXPOL_VTIME_ALG1_NOW;
	clk.reset_every = 8;
	new_task(&old, 1);
	new_task(&young, 2);
	t = scxpol_task_ctx(&old);
	scxpol_vtime_enqueue(&clk, &old, 0, 3 * MS);
	/* it runs 3 ms of every 12 (four such tasks on a CPU), for 5 rounds */
	for (i = 0; i < 5; i++) {
		run_for(&old, 3, true);
		fake_advance(9 * MS);
		vo = scxpol_vtime_enqueue(&clk, &old, 0, 3 * MS);
	}
	assert_int_equal(t->nr_enqueues, 6);
	vy = scxpol_vtime_enqueue(&clk, &young, SCX_ENQ_WAKEUP, 3 * MS);
	assert_int_equal(vo, 1015 * MS);
	assert_int_equal(vy, 1060 * MS);
	assert_true(scxpol_time_before(vo, vy));
	/* what a keep compares: the charge so far, or the current time on a reset turn */
	scxpol_vtime_running(&clk, &old);
	fake_advance(3 * MS);
	assert_int_equal(scxpol_vtime_requeue_ctx(&clk, &old, t), 1018 * MS);
	t->nr_enqueues = 8;
	assert_int_equal(scxpol_vtime_requeue_ctx(&clk, &old, t), 1063 * MS);
}

static void test_busy_poll_flag(void **state)
{
	struct task_struct p;
	struct scxpol_task_ctx *t;

	(void)state;
	clk.busy_poll_after = 3;
	new_task(&p, 1);
	t = scxpol_task_ctx(&p);
	scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS);
	run_for(&p, 5, true);
	run_for(&p, 6, true);
	assert_false(scxpol_vtime_busy_poll(&p));
	/* a stint shorter than the slice, still runnable (preempted): neither */
	run_for(&p, 1, true);
	assert_false(scxpol_vtime_busy_poll(&p));
	run_for(&p, 5, true);
	assert_true(scxpol_vtime_busy_poll(&p));
	assert_true(scxpol_vtime_busy_poll_ctx(t));
	assert_int_equal(t->full_slices, 3);
	/* one sleep clears it */
	run_for(&p, 5, false);
	assert_false(scxpol_vtime_busy_poll(&p));
	assert_int_equal(t->full_slices, 0);
}

static void test_busy_poll_off_by_default(void **state)
{
	struct task_struct p;
	int i;

	(void)state;
	new_task(&p, 1);
	scxpol_vtime_enqueue(&clk, &p, 0, 5 * MS);
	for (i = 0; i < 20; i++)
		run_for(&p, 5, true);
	assert_false(scxpol_vtime_busy_poll(&p));
}

static void test_enable_starts_at_clock(void **state)
{
	struct task_struct p;

	(void)state;
	new_task(&p, 1);
	clk.now = 77 * MS;
	scxpol_vtime_enable(&clk, &p);
	assert_int_equal(p.scx.dsq_vtime, 77 * MS);
	/* running advances the clock to the vtime of what runs */
	p.scx.dsq_vtime = 90 * MS;
	scxpol_vtime_running(&clk, &p);
	assert_int_equal(clk.now, 90 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_charge_is_runtime_times_100_over_weight, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_floor_is_clock_minus_slice, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_reenqueue_floor_is_clock, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_head_goes_first, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_lead_survives_sleep, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_lead_is_capped, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_clock_only_moves_forward, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_alg1_sleepy_worker_overtakes_poller, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_alg1_charge_divided_by_sleeps, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_alg1_reset_every_nth_enqueue, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_alg1_now_resets_to_current_time, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_alg1_now_older_work_first, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_busy_poll_flag, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_busy_poll_off_by_default, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_enable_starts_at_clock, setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
