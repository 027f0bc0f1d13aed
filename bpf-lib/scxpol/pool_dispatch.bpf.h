/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The way out: ops.dispatch (which queue a CPU takes its next task from,
 * stealing, borrowing, stranded tasks) and ops.running, ops.stopping and
 * ops.quiescent (clocks, what a CPU runs, borrowed CPUs). Part of
 * <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_DISPATCH_BPF_H
#define SCXPOL_POOL_DISPATCH_BPF_H

#include <scxpol/pool_enqueue.bpf.h>

/*
 * Every SCXPOL_POOL_SHARED_EVERY-th dispatch on a CPU takes a task
 * stranded or starving in another pool's queue (scxpol_pool_stranded()),
 * or else serves the shared queue, before the CPU's own pool, so those
 * tasks and tasks in no pool make progress when every pool is saturated
 * (the watchdog ejects a scheduler that starves a task for 30 s).
 */
#ifndef SCXPOL_POOL_SHARED_EVERY
#define SCXPOL_POOL_SHARED_EVERY 8
#endif

/* Where scxpol_pool_dispatch() found work. */
enum scxpol_pool_source {
	SCXPOL_POOL_SRC_NONE,
	SCXPOL_POOL_SRC_KEEP,   /* the previous task keeps the CPU (ahead of its queue) */
	SCXPOL_POOL_SRC_POOL,   /* the CPU's own pool */
	SCXPOL_POOL_SRC_SHARED, /* the shared queue */
	SCXPOL_POOL_SRC_STEAL,  /* another STEAL pool's queue */
	SCXPOL_POOL_SRC_BORROW, /* a BORROW pool's queue, on this LEND pool's CPU */
	SCXPOL_POOL_SRC_RESCUE, /* a stranded or starving task of another pool */
	SCXPOL_POOL_SRC_PINNED, /* a task pinned to this CPU (its own queue) */
};

#define SCXPOL_TASK_QUEUED scxpol_kenum(scx_ent_flags, SCX_TASK_QUEUED)

/* --- ops.dispatch -------------------------------------------------------- */

/* Move the first task of @dsq this CPU may run to its local DSQ; count it in @stat. */
static __always_inline bool scxpol_pool__take(u64 dsq, enum scxpol_stat stat)
{
	s64 *n = scxpol_pool__pending_of(dsq);

	if (n && READ_ONCE(*n) <= 0)
		return false;
	if (!scxpol_dsq_move_to_local(dsq)) {
		if (n)
			scxpol_pool__pending_unmark(dsq, n);
		return false;
	}
	scxpol_stat_inc(stat);
	return true;
}

/*
 * From ops.dispatch: move the first task of @pool's queue (SCXPOL_POOL_SHARED:
 * the shared queue) that this CPU may run to its local DSQ, counted as a
 * steal (SCXPOL_STAT_DISPATCH_STEAL). For a policy that serves a pool's
 * queue before the CPU's own pool (scxpol_pool_dispatch_prev()), as it
 * should after scxpol_pool_preempt_pool(). Returns whether it took a task.
 */
static __always_inline bool scxpol_pool_take(s32 pool)
{
	return scxpol_pool__take(scxpol_pool_dsq(pool), SCXPOL_STAT_DISPATCH_STEAL);
}

/*
 * Pull from the queues of the pools in @pool's order list (nearest first):
 * for a STEAL pool (@flags), those of STEAL pools; with @lend, for a LEND
 * pool, those of BORROW pools, but not the STEAL pools the steal pass just
 * looked at (each queue costs a DSQ lookup). Returns whether it took a task.
 * A global function (doc/conventions.md): a loop, on the way to an idle CPU.
 */
int scxpol_pool__pull(const struct scxpol_pool_view *v, s32 pool, u32 nr_order, u32 flags,
		      bool lend);

__noinline int scxpol_pool__pull(const struct scxpol_pool_view *v, s32 pool, u32 nr_order,
				 u32 flags, bool lend)
{
	u32 want = lend ? SCXPOL_POOL_BORROW : SCXPOL_POOL_STEAL;
	u32 skip = lend ? flags & SCXPOL_POOL_STEAL : 0;
	enum scxpol_stat stat = lend ? SCXPOL_STAT_DISPATCH_BORROW : SCXPOL_STAT_DISPATCH_STEAL;
	u32 k, key, q, qflags;
	u32 *qp;

	if (!v)
		return false;
	bpf_for(k, 0, nr_order) {
		key = ((u32)pool * scxpol_pool_conf.max_pools + k) * 2 + v->half;
		qp = bpf_map_lookup_elem(&scxpol_pool_order, &key);
		if (!qp)
			break;
		q = *qp;
		qflags = scxpol_pool_flags(v, (s32)q);
		if (q == (u32)pool || !(qflags & want) || (qflags & skip))
			continue;
		if (scxpol_pool__take(SCXPOL_DSQ_POOL(q), stat))
			return true;
	}
	return false;
}

/* scxpol_pool__head_vtime() of the first task @q. */
static __always_inline bool scxpol_pool__head_of(struct task_struct *q, u64 *vtime, s32 *pool)
{
	struct scxpol_task_ctx *t;

	*vtime = q->scx.dsq_vtime;
	if (pool) {
		t = scxpol_task_ctx(q);
		if (t)
			*pool = t->pool;
	}
	return true;
}

/*
 * The vtime of the first task of @dsq; false when it is empty. With @pool,
 * also the pool that task was queued in (kept if it has no context).
 */
static __always_inline bool scxpol_pool__head_vtime(u64 dsq, u64 *vtime, s32 *pool)
{
	struct task_struct *q;

	if (!scxpol_pool__maybe_queued(dsq))
		return false;
	/* 7.1+: one DSQ lookup instead of two (the count, then an iterator) */
	if (bpf_ksym_exists(scx_bpf_dsq_peek)) {
		q = scx_bpf_dsq_peek(dsq);
		return q && scxpol_pool__head_of(q, vtime, pool);
	}
	if (scx_bpf_dsq_nr_queued(dsq) <= 0)
		return false;
	bpf_for_each(scx_dsq, q, dsq, 0) {
		return scxpol_pool__head_of(q, vtime, pool);
	}
	return false;
}

/*
 * How long a task may wait in its pool's queue (since it was queued) before
 * the CPUs of other pools may take it (scxpol_pool_stranded()).
 */
#ifndef SCXPOL_POOL_STARVE_NS
#define SCXPOL_POOL_STARVE_NS 1000000000ULL
#endif

/*
 * Whether @h, the first task of the queue of a pool whose CPUs are @qm
 * (NULL: not published) and flags @qflags, is stranded there: see
 * scxpol_pool__stranded_head().
 */
static __always_inline bool scxpol_pool__starved(const struct cpumask *qm, u32 qflags,
						 struct task_struct *h)
{
	struct scxpol_task_ctx *t;

	if (!qm || !bpf_cpumask_intersects(qm, h->cpus_ptr))
		return true;
	/* an exclusive pool's tasks wait for its own CPUs, however long */
	if (qflags == SCXPOL_POOL_EXCLUSIVE)
		return false;
	t = scxpol_task_ctx(h);
	/*
	 * Not since it last ran: a task that slept, or never ran under this
	 * scheduler instance (a restart), would look starved the moment it is
	 * queued, and the other pools' CPUs would take it at once. Signed:
	 * scx_bpf_now() is per CPU and may be behind the enqueuing CPU's.
	 */
	return t && (s64)(scxpol_now() - t->queued_at) > (s64)SCXPOL_POOL_STARVE_NS;
}

/* scxpol_pool__stranded_head() for @h, the first task of @q's queue. */
static __always_inline bool scxpol_pool__stranded(const struct cpumask *qm, u32 qflags,
						  struct task_struct *h, s32 cpu)
{
	return bpf_cpumask_test_cpu((u32)cpu, h->cpus_ptr) && scxpol_pool__starved(qm, qflags, h);
}

/*
 * Whether the first task of @q's queue is stranded there and @cpu may run
 * it: no CPU of @q may (a resize took away every CPU of its pool it is
 * allowed on; or @q is no longer published), or, @q not being exclusive,
 * it has waited there for SCXPOL_POOL_STARVE_NS (its pool's CPUs do not serve it: say they are
 * going offline, which the kernel lets no queued task run on while it
 * waits for an RCU grace period before the hotplug restart). Enqueueing
 * sends a task whose affinity misses its pool to the shared queue, but a
 * resize does not requeue the tasks already queued.
 */
static __always_inline bool scxpol_pool__stranded_head(const struct scxpol_pool_view *v, s32 q,
							s32 cpu)
{
	const struct cpumask *qm = scxpol_pool_cpumask(v, q);
	u32 qflags = scxpol_pool_flags(v, q);
	u64 dsq = SCXPOL_DSQ_POOL(q);
	struct task_struct *h;

	if (bpf_ksym_exists(scx_bpf_dsq_peek)) {
		h = scx_bpf_dsq_peek(dsq);
		return h && scxpol_pool__stranded(qm, qflags, h, cpu);
	}
	if (scx_bpf_dsq_nr_queued(dsq) <= 0)
		return false;
	bpf_for_each(scx_dsq, h, dsq, 0) {
		return scxpol_pool__stranded(qm, qflags, h, cpu);
	}
	return false;
}

/*
 * The starvation guarantee across pools: whether the queue of a pool other
 * than @cpu's holds, first, a task that @cpu may run and that no CPU of
 * that pool may, or that waited for SCXPOL_POOL_STARVE_NS
 * (scxpol_pool__stranded_head()). A queue's other tasks go before it in
 * vtime order, and its pool's clock passes its vtime within a bounded time
 * (scxpol_pool_assign() bounds leads), so each such task comes to the head
 * in turn. scxpol_pool_dispatch_prev() takes such a task every
 * SCXPOL_POOL_SHARED_EVERY-th dispatch; a policy that keeps a task on a
 * CPU by itself, without dispatching, should not while this says true.
 */
static __always_inline bool scxpol_pool_stranded(const struct scxpol_pool_view *v, s32 cpu)
{
	s32 pool = scxpol_pool_of_cpu(v, cpu);
	u32 q;

	bpf_for(q, 0, scxpol_pool_conf.max_pools) {
		if ((s32)q != pool && scxpol_pool__stranded_head(v, (s32)q, cpu))
			return true;
	}
	return false;
}

/*
 * Take a stranded task (scxpol_pool_stranded()) to @cpu; false if there is
 * none. A global function (doc/conventions.md): a loop, every
 * SCXPOL_POOL_SHARED_EVERY-th dispatch.
 */
int scxpol_pool__rescue(const struct scxpol_pool_view *v, s32 cpu, s32 pool);

__noinline int scxpol_pool__rescue(const struct scxpol_pool_view *v, s32 cpu, s32 pool)
{
	u32 q;

	if (!v)
		return false;
	bpf_for(q, 0, scxpol_pool_conf.max_pools) {
		/* the head may run here: the move takes it, the first task that may */
		if ((s32)q != pool && scxpol_pool__stranded_head(v, (s32)q, cpu) &&
		    scxpol_pool__take(SCXPOL_DSQ_POOL(q), SCXPOL_STAT_DISPATCH_STEAL))
			return true;
	}
	return false;
}

/*
 * Whether @prev, whose slice ran out but which is still runnable, should go
 * on running on @cpu of @pool: it is a task of @pool, and its queue is
 * empty or its head is not ahead of @prev (scxpol_vtime_requeue_ctx(), plus
 * the busy-poll demotion), nor is @pin, the vtime of the first task pinned
 * to @cpu (NULL: none). The kernel re-enqueues @prev only after
 * ops.dispatch, so without this the head of the queue would always win and
 * two tasks would take turns slice by slice whatever their vtimes. If so,
 * @prev gets a new slice (the one it was last given). Without @vs_queue,
 * the queue's head is left out: it was ahead, but this CPU could not take
 * it (another CPU did, or its affinity excludes this one).
 */
static __always_inline bool scxpol_pool__keep(const struct scxpol_pool_view *v,
					      struct task_struct *prev, s32 pool, const u64 *pin,
					      bool vs_queue)
{
	struct scxpol_task_ctx *t;
	struct scxpol_vclock *c;
	u64 head = 0, vtime;
	bool queued;

	if (!prev || !(prev->scx.flags & SCXPOL_TASK_QUEUED) || !scxpol_pool_valid(v, pool))
		return false;
	t = scxpol_task_ctx(prev);
	c = scxpol_pool_vclock(pool);
	if (!t || !c || t->pool != pool || !t->slice)
		return false;
	queued = vs_queue && scxpol_pool__head_vtime(SCXPOL_DSQ_POOL(pool), &head, NULL);
	if (queued || pin) {
		vtime = scxpol_vtime_requeue_ctx(c, prev, t);
		if (scxpol_vtime_busy_poll_ctx(t))
			vtime += t->slice;
		if ((queued && !scxpol_time_before(vtime, head)) ||
		    (pin && !scxpol_time_before(vtime, *pin)))
			return false;
	}
	scxpol_vtime_kept_ctx(c, t);
	scxpol_task_set_slice(prev, t->slice);
	return true;
}

/*
 * Take the first task of @pinned, a queue of tasks pinned to this CPU, if
 * its vtime @pin is not behind the head of @own, the queue on the same
 * clock (scxpol_pool_enqueue()).
 */
static __always_inline bool scxpol_pool__take_pinned(u64 pinned, u64 pin, u64 own)
{
	u64 head;

	if (scxpol_pool__head_vtime(own, &head, NULL) && scxpol_time_before(head, pin))
		return false;
	return scxpol_pool__take(pinned, SCXPOL_STAT_DISPATCH_PINNED);
}

/*
 * The shared queue's turn on @cpu: its head or the first task pinned to
 * @cpu on the shared clock (if @waiting: scxpol_pool_pinned_waiting()),
 * the earlier vtime first.
 */
static __always_inline int scxpol_pool__take_shared(s32 cpu, bool waiting)
{
	u64 pinned = SCXPOL_DSQ_CPU_SHARED(cpu), pin = 0;

	if (waiting && scxpol_pool__head_vtime(pinned, &pin, NULL) &&
	    scxpol_pool__take_pinned(pinned, pin, SCXPOL_DSQ_SHARED))
		return SCXPOL_POOL_SRC_PINNED;
	if (scxpol_pool__take(SCXPOL_DSQ_SHARED, SCXPOL_STAT_DISPATCH_SHARED))
		return SCXPOL_POOL_SRC_SHARED;
	return SCXPOL_POOL_SRC_NONE;
}

/*
 * ops.dispatch on @cpu (@prev: its previous task, or NULL): move one task
 * to the CPU's local DSQ, looking in this order: the CPU's pool queue and
 * its tasks pinned to @cpu, the earlier vtime first, with a still-runnable
 * @prev kept if it is ahead of both (scxpol_pool__keep()); the shared
 * queue and the other tasks pinned to @cpu, the same way; for a STEAL
 * pool, the other STEAL pools' queues; for a LEND pool, BORROW pools'
 * queues; a stranded head the watch saw. Every @shared_every-th dispatch
 * (0: never) first takes a stranded or starving task of another pool
 * (scxpol_pool_stranded()), then serves the shared queue, so no task
 * starves while every pool is saturated. Counts and returns where the
 * task came from (SCXPOL_STAT_DISPATCH_*, enum scxpol_pool_source).
 */
static __always_inline int scxpol_pool_dispatch_every(const struct scxpol_pool_view *v, s32 cpu,
						      struct task_struct *prev, u32 shared_every)
{
	struct scxpol_pool_watch *w;
	struct scxpol_pool_pcpu *pc;
	struct scxpol_pool_curr *cur;
	struct scxpol_pool_slot *s;
	bool shared_first = false, pinned = false, waiting;
	u32 zero = 0, flags = 0, nr_order = 0, key = (u32)cpu;
	s32 pool = scxpol_pool_of_cpu(v, cpu), pin_pool = pool;
	/* set even when unused: the compiler may spill it, the verifier rejects uninitialised reads */
	u64 pin = 0;
	int src;

	/* a kick this CPU was sent is answered (scxpol_pool_kick()) */
	cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
	if (cur && READ_ONCE(cur->kicked_at))
		WRITE_ONCE(cur->kicked_at, 0);
	if (prev && (prev->scx.flags & SCXPOL_TASK_QUEUED))
		scxpol_pool__curr_requeued(cpu, prev);
	pc = bpf_map_lookup_elem(&scxpol_pool_pcpu, &zero);
	if (pc) {
		pc->nr_dispatch++;
		shared_first = shared_every && pc->nr_dispatch % shared_every == 0;
	}
	waiting = scxpol_pool_pinned_waiting(cpu);
	/* a stranded task has no other way out: before a shared queue that is never empty */
	if (shared_first && scxpol_pool__rescue(v, cpu, pool))
		return SCXPOL_POOL_SRC_RESCUE;
	if (shared_first && (src = scxpol_pool__take_shared(cpu, waiting)) != SCXPOL_POOL_SRC_NONE)
		return src;
	s = scxpol_pool__slot(v, pool);
	if (waiting && scxpol_pool__head_vtime(SCXPOL_DSQ_CPU(cpu), &pin, &pin_pool)) {
		/* queued on another pool's clock, before a resize moved @cpu: due now */
		if (pin_pool != pool &&
		    scxpol_pool__take(SCXPOL_DSQ_CPU(cpu), SCXPOL_STAT_DISPATCH_PINNED))
			return SCXPOL_POOL_SRC_PINNED;
		pinned = s != NULL;
	}
	if (scxpol_pool__keep(v, prev, pool, pinned ? &pin : NULL, true))
		return SCXPOL_POOL_SRC_KEEP;
	if (pinned && scxpol_pool__take_pinned(SCXPOL_DSQ_CPU(cpu), pin, SCXPOL_DSQ_POOL(pool)))
		return SCXPOL_POOL_SRC_PINNED;
	if (s) {
		flags = s->desc.flags;
		nr_order = s->desc.nr_order;
		if (scxpol_pool__take(SCXPOL_DSQ_POOL(pool), SCXPOL_STAT_DISPATCH_POOL))
			return SCXPOL_POOL_SRC_POOL;
		/* rather than fetch other work while @prev would wait in its queue */
		if (scxpol_pool__keep(v, prev, pool, pinned ? &pin : NULL, false))
			return SCXPOL_POOL_SRC_KEEP;
	}
	if (!shared_first && (src = scxpol_pool__take_shared(cpu, waiting)) != SCXPOL_POOL_SRC_NONE)
		return src;
	if ((flags & SCXPOL_POOL_STEAL) && scxpol_pool__pull(v, pool, nr_order, flags, false))
		return SCXPOL_POOL_SRC_STEAL;
	if ((flags & SCXPOL_POOL_LEND) && scxpol_pool__pull(v, pool, nr_order, flags, true))
		return SCXPOL_POOL_SRC_BORROW;
	/* a queue's head was ahead, but another CPU took it, or it may not run here */
	if (waiting && (scxpol_pool__take(SCXPOL_DSQ_CPU(cpu), SCXPOL_STAT_DISPATCH_PINNED) ||
			scxpol_pool__take(SCXPOL_DSQ_CPU_SHARED(cpu), SCXPOL_STAT_DISPATCH_PINNED)))
		return SCXPOL_POOL_SRC_PINNED;
	/* the watch saw a stranded head and may have woken this CPU for it */
	w = bpf_map_lookup_elem(&scxpol_pool_watch, &zero);
	if (w && READ_ONCE(w->rescue) && scxpol_pool__rescue(v, cpu, pool))
		return SCXPOL_POOL_SRC_RESCUE;
	scxpol_stat_inc(SCXPOL_STAT_DISPATCH_NONE);
	return SCXPOL_POOL_SRC_NONE;
}

/*
 * scxpol_pool_dispatch_every() with the other queues' turn every
 * SCXPOL_POOL_SHARED_EVERY-th dispatch: a policy's ops.dispatch.
 */
static __always_inline int scxpol_pool_dispatch_prev(const struct scxpol_pool_view *v, s32 cpu,
						     struct task_struct *prev)
{
	return scxpol_pool_dispatch_every(v, cpu, prev, SCXPOL_POOL_SHARED_EVERY);
}

/*
 * The same without the previous task: the head of the CPU's pool queue
 * wins over a still-runnable previous task whatever their vtimes (the
 * kernel keeps the previous task only when nothing else is found; one
 * that was queued at the head then stays spared from wakeup preemption
 * for the slice the kernel gives it, see scxpol_pool__curr_requeued()).
 */
static __always_inline int scxpol_pool_dispatch(const struct scxpol_pool_view *v, s32 cpu)
{
	return scxpol_pool_dispatch_prev(v, cpu, NULL);
}

/* --- ops.running / stopping / quiescent ---------------------------------- */

/*
 * ops.running: advance the clock of @p's pool (unless @p is a demoted busy
 * poller, see scxpol_pool_enqueue()), note what the CPU runs (for
 * wakeup preemption), and if @p runs on a CPU its BORROW pool borrowed from
 * a LEND pool, mark the CPU (so the lender can take it back) and @p
 * (SCXPOL_TASKF_BORROWED).
 */
static __always_inline void scxpol_pool_running(const struct scxpol_pool_view *v,
						struct task_struct *p, struct scxpol_task_ctx *t)
{
	struct scxpol_pool_curr *cur;
	struct scxpol_vclock *c;
	struct bpf_cpumask *b;
	s32 cpu, here;
	u32 key;

	scxpol_pool__pending_drop(t);
	cpu = scx_bpf_task_cpu(p);
	key = (u32)cpu;
	cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
	/*
	 * Its place in the queue, before a head's lag is given back: a waker
	 * that would have queued behind it does not preempt it.
	 */
	if (cur) {
		cur->vtime = p->scx.dsq_vtime;
		cur->pool = t && scxpol_pool_valid(v, t->pool) ? t->pool : -1;
		cur->kicked_at = 0;
	}
	c = scxpol_pool_vclock(t ? t->pool : SCXPOL_POOL_SHARED);
	/* (a demoted busy poller does not advance it: scxpol_vtime_running_ctx()) */
	if (c)
		scxpol_vtime_running_ctx(c, p, t);
	if (!t || !scxpol_pool_valid(v, t->pool))
		return;
	here = scxpol_pool_of_cpu(v, cpu);
	if (here < 0 || here == t->pool || !(scxpol_pool_flags(v, here) & SCXPOL_POOL_LEND) ||
	    !(scxpol_pool_flags(v, t->pool) & SCXPOL_POOL_BORROW))
		return;
	b = scxpol_pool__borrowed();
	if (b)
		bpf_cpumask_set_cpu((u32)cpu, b);
	t->flags |= SCXPOL_TASKF_BORROWED;
}

/* ops.stopping: charge @p on its pool's clock; give a borrowed CPU back. */
static __always_inline void scxpol_pool_stopping(const struct scxpol_pool_view *v,
						 struct task_struct *p, struct scxpol_task_ctx *t,
						 bool runnable)
{
	struct scxpol_pool_curr *cur;
	struct scxpol_vclock *c;
	struct bpf_cpumask *b;
	u32 key = (u32)scx_bpf_task_cpu(p);

	(void)v;
	c = scxpol_pool_vclock(t ? t->pool : SCXPOL_POOL_SHARED);
	if (c)
		scxpol_vtime_stopping_ctx(c, p, t, runnable);
	cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
	if (cur)
		cur->pool = -1;
	if (!t || !(t->flags & SCXPOL_TASKF_BORROWED))
		return;
	t->flags &= ~SCXPOL_TASKF_BORROWED;
	b = scxpol_pool__borrowed();
	if (b)
		bpf_cpumask_clear_cpu((u32)scx_bpf_task_cpu(p), b);
}

/*
 * ops.quiescent: count sleeps (Algorithm 1's sleep frequency); a task
 * dequeued from its queue no longer counts there (scxpol_pool__pending_add()).
 */
static __always_inline void scxpol_pool_quiescent(struct scxpol_task_ctx *t, u64 deq_flags)
{
	scxpol_pool__pending_drop(t);
	scxpol_vtime_quiescent_ctx(t, deq_flags);
}

#endif
