// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, enqueue and the vtime
 * it gives: the queue a task goes to (its pool's, the shared one, its CPU's
 * when pinned, the local DSQ for a bound kthread), a busy poller demoted,
 * a clock per pool, wakeup preemption and the head task it spares, a new or
 * moving task placed on its pool's clock, the bounded lead, pinned tasks
 * sharing their CPU by vtime, and a task context made on demand.
 */
#include "bpf_pool_fixture.h"

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

/* @cpu's entry of scxpol_pool_curr. */
static struct scxpol_pool_curr *curr_of(u32 cpu)
{
	struct scxpol_pool_curr *c = bpf_map_lookup_elem(&scxpol_pool_curr, &cpu);

	assert_non_null(c);
	return c;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test_teardown(test_alg1_now_vtime_is_not_bounded, fake_teardown),
		cmocka_unit_test_setup_teardown(test_ctx_on_demand_is_in_no_pool, setup_4,
						fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
