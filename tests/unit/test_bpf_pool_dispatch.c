// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, dispatch: the CPU's
 * pool, the shared queue every n-th time, then stealing in each pool's order
 * (and at wakeup onto an idle CPU), never from an exclusive pool; stranded
 * and starving heads rescued; affinity respected; and when the previous
 * task keeps its CPU.
 */
#include "bpf_pool_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test_setup_teardown(test_resize_stranded_task_is_rescued, setup_llc3,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_starving_head_is_rescued, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_head_waits, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_woken_head_is_not_starving, setup_4,
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
