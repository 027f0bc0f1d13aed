/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The way in: ops.init and ops.enable (queues, clocks, the watch), a
 * task's pool and its vtime on that pool's clock, ops.select_cpu (an idle
 * CPU in the pool) and ops.enqueue (the pool's queue, then a CPU woken for
 * it). Part of <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_ENQUEUE_BPF_H
#define SCXPOL_POOL_ENQUEUE_BPF_H

#include <scxpol/pool_kick.bpf.h>

/* --- ops.init / ops.enable ----------------------------------------------- */

/* Start the watch (pool_watch.bpf.h). */
static __always_inline s32 scxpol_pool__watch_start(void);

/*
 * From ops.init: create the shared queue, one queue per pool (all
 * max_pools of them, so a later publication can use any index) and two
 * per CPU for the tasks pinned to it, give every
 * pool clock @rule's rule, reset_every and busy_poll_after (NULL: FAIR,
 * no busy-poll detection), allocate the borrowed-CPU mask, and start the
 * watch (scxpol_pool__watch()).
 */
static __always_inline s32 scxpol_pool_init(const struct scxpol_vclock *rule)
{
	struct scxpol_pool_mask *ms;
	struct bpf_cpumask *m;
	struct scxpol_vclock *c;
	u32 i, key;
	s32 ret;

	ret = scxpol_dsq_create(SCXPOL_DSQ_SHARED, -1);
	if (ret)
		return ret;
	bpf_for(i, 0, scxpol_pool_conf.max_pools) {
		ret = scxpol_dsq_create(SCXPOL_DSQ_POOL(i), -1);
		if (ret)
			return ret;
	}
	bpf_for(i, 0, scxpol_pool_conf.nr_cpus) {
		ret = scxpol_dsq_create(SCXPOL_DSQ_CPU(i), -1);
		if (!ret)
			ret = scxpol_dsq_create(SCXPOL_DSQ_CPU_SHARED(i), -1);
		if (ret)
			return ret;
	}
	bpf_for(i, 0, scxpol_pool_conf.max_pools + 1) {
		c = bpf_map_lookup_elem(&scxpol_pool_clock, &i);
		if (c && rule) {
			c->rule = rule->rule;
			c->reset_every = rule->reset_every;
			c->busy_poll_after = rule->busy_poll_after;
		}
	}
	m = bpf_cpumask_create();
	if (!m)
		return -ENOMEM;
	key = SCXPOL_POOL__BORROWED;
	ms = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	if (!ms) {
		bpf_cpumask_release(m);
		return -ENOENT;
	}
	m = bpf_kptr_xchg(&ms->cpus, m);
	if (m)
		bpf_cpumask_release(m);
	return scxpol_pool__watch_start();
}

/* From ops.enable: @p starts at the shared clock (queueing clamps it to its pool's). */
static __always_inline void scxpol_pool_enable(struct task_struct *p)
{
	struct scxpol_vclock *c = scxpol_pool_vclock(SCXPOL_POOL_SHARED);

	if (c)
		scxpol_vtime_enable(c, p);
}

/* --- a task's pool and its vtime ---------------------------------------- */

/* The key of @pool's clock in scxpol_pool_clock (any non-pool: the shared clock's). */
static __always_inline u32 scxpol_pool__clock_key(s32 pool)
{
	return pool >= 0 && (u32)pool < scxpol_pool_conf.max_pools ? (u32)pool :
								      scxpol_pool_conf.max_pools;
}

/* scxpol_pool_assign(), returning @pool's clock (NULL if none): enqueue needs it next. */
static __always_inline struct scxpol_vclock *
scxpol_pool__assign(const struct scxpol_pool_view *v, struct task_struct *p,
		    struct scxpol_task_ctx *t, s32 pool, u64 slice)
{
	u32 from = t ? scxpol_pool__clock_key(t->pool) : 0, to = scxpol_pool__clock_key(pool);
	struct scxpol_vclock *c = bpf_map_lookup_elem(&scxpol_pool_clock, &to);
	u64 vtime = p->scx.dsq_vtime, now, lead;
	struct scxpol_vclock *oc;
	s64 lag;

	if (!t)
		return c;
	t->pool = pool;
	t->pool_gen = (u32)v->gen;
	/* ALG1_NOW's vtimes are times, the same on every clock, and unbounded */
	if (!c || c->rule == SCXPOL_VTIME_ALG1_NOW)
		return c;
	now = scxpol_vclock_read(c);
	lead = scxpol_vtime_max_lead(slice, p->scx.weight);
	if (from != to) {
		oc = bpf_map_lookup_elem(&scxpol_pool_clock, &from);
		if (!oc)
			return c;
		lag = (s64)(vtime - scxpol_vclock_read(oc));
		if (lag < -(s64)slice)
			lag = -(s64)slice;
		vtime = now + (u64)lag;
	}
	if (scxpol_time_before(now + lead, vtime))
		vtime = now + lead;
	if (vtime != p->scx.dsq_vtime)
		scxpol_task_set_vtime(p, vtime);
	return c;
}

/*
 * Record that @p (context @t) is placed in @pool (SCXPOL_POOL_SHARED: the
 * shared queue), to be given @slice; from ops.select_cpu and ops.enqueue
 * (scxpol_pool_select_cpu() and scxpol_pool_enqueue() call it), and from a
 * policy that places a task itself (a direct dispatch of its own).
 *
 * A task's vtime is a position on the clock of the pool it was last placed
 * in (a new task's, on the shared clock: scxpol_pool_enable()). The clocks
 * run at different paces (a pool of few busy tasks runs ahead of an
 * oversubscribed one), so a task that changes pools (a new task's first
 * placement, a class change, an affinity that leaves its pool, a pinning
 * to a CPU outside it) would carry a vtime that means nothing on
 * its new clock: seconds ahead of it, it would wait behind every task of the
 * new pool until that clock caught up, longer than the watchdog allows. So
 * it keeps its lag, not its vtime: as far behind the new clock as it was
 * behind the old one (at most @slice: the wakeup floor), as far ahead as it
 * was ahead. And in any pool its lead is bounded (scxpol_vtime_max_lead()),
 * so a queued task reaches the head of its queue within a bounded time.
 */
static __always_inline void scxpol_pool_assign(const struct scxpol_pool_view *v,
					       struct task_struct *p, struct scxpol_task_ctx *t,
					       s32 pool, u64 slice)
{
	scxpol_pool__assign(v, p, t, pool, slice);
}

/* --- ops.select_cpu ------------------------------------------------------ */

/* Whether any CPU of @m is idle: one look at the idle mask, cheaper than a failed pick. */
static __always_inline bool scxpol_pool__any_idle(const struct cpumask *m)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	bool any = bpf_cpumask_intersects(m, idle);

	scx_bpf_put_idle_cpumask(idle);
	return any;
}

/* scxpol_pool_pick_idle() for the pool of slot @s, whose CPUs are @pm. */
static __always_inline s32 scxpol_pool__pick_idle(const struct scxpol_pool_view *v,
						  struct scxpol_pool_slot *s,
						  const struct cpumask *pm, s32 pool,
						  s32 prev_cpu, bool *borrowed)
{
	const struct cpumask *lm = NULL, *lend, *idle;
	struct scxpol_pool_cpu *pc;
	bool any, prev_idle;
	u32 nr_llc = 0;
	s32 cpu;

	*borrowed = false;
	pc = scxpol_pool_cpu_info(v, prev_cpu);
	/*
	 * One look at the idle mask answers the common cases before any scan
	 * (and before looking up prev's LLC): the pool has no idle CPU (a busy
	 * pool: go borrow), or @prev_cpu is.
	 */
	idle = scx_bpf_get_idle_cpumask();
	any = bpf_cpumask_intersects(pm, idle);
	prev_idle = any && pc && pc->pool == pool && bpf_cpumask_test_cpu((u32)prev_cpu, idle);
	scx_bpf_put_idle_cpumask(idle);
	if (any) {
		if (prev_idle && scx_bpf_test_and_clear_cpu_idle(prev_cpu))
			return prev_cpu;
		if (pc)
			lm = scxpol_pool__llc(v, pool, pc->llc, &nr_llc);
		/* a pool across LLCs: prev's LLC first, idle cores before idle CPUs */
		if (lm && nr_llc < s->desc.nr_cpus) {
			cpu = scx_bpf_pick_idle_cpu(lm, SCXPOL_PICK_IDLE_CORE);
			if (cpu >= 0)
				return cpu;
			cpu = scx_bpf_pick_idle_cpu(pm, SCXPOL_PICK_IDLE_CORE);
			if (cpu >= 0)
				return cpu;
			cpu = scx_bpf_pick_idle_cpu(lm, 0);
			if (cpu >= 0)
				return cpu;
		}
		/* (it takes a CPU of a wholly idle core first, as the steps above) */
		cpu = scx_bpf_pick_idle_cpu(pm, 0);
		if (cpu >= 0)
			return cpu;
	}
	if (!(s->desc.flags & SCXPOL_POOL_BORROW))
		return -EBUSY;
	lend = scxpol_pool__union(v, SCXPOL_POOL__LEND);
	if (!lend)
		return -EBUSY;
	cpu = scx_bpf_pick_idle_cpu(lend, 0);
	/* our own pool may lend too: one of its CPUs may have just gone idle */
	if (cpu >= 0)
		*borrowed = scxpol_pool_of_cpu(v, cpu) != pool;
	return cpu;
}

/*
 * An idle CPU for a task of @pool that last ran on @prev_cpu, in this order:
 *   1. @prev_cpu, if it is in @pool and idle;
 *   2. a CPU of a wholly idle SMT core in @pool, in @prev_cpu's LLC first;
 *   3. an idle CPU of @pool in @prev_cpu's LLC;
 *   4. any idle CPU of @pool;
 *   5. if @pool may BORROW: an idle CPU of a LEND pool (*@borrowed = true).
 * The CPU's idle bit is cleared (it is claimed). Returns it, or -EBUSY when
 * there is none (-ENOENT: @pool is not a pool). Does not look at @p's
 * affinity: scxpol_pool_select_cpu() does. Cost: one look at the idle mask
 * when the pool has no idle CPU; a scan per step only in a pool that spans
 * LLCs.
 */
static __always_inline s32 scxpol_pool_pick_idle(const struct scxpol_pool_view *v, s32 pool,
						 s32 prev_cpu, bool *borrowed)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);
	struct bpf_cpumask *m = s ? s->cpus : NULL;

	*borrowed = false;
	if (!m)
		return -ENOENT;
	return scxpol_pool__pick_idle(v, s, scxpol_cast_mask(m), pool, prev_cpu, borrowed);
}

/* Insert @p straight into the local DSQ of the idle CPU it is placed on. */
static __always_inline void scxpol_pool__direct(struct task_struct *p, u64 slice, bool *direct)
{
	scxpol_dsq_insert(p, SCX_DSQ_LOCAL, slice, 0);
	scxpol_stat_inc(SCXPOL_STAT_DIRECT);
	if (direct)
		*direct = true;
}

/*
 * For a task of STEAL pool @pool (slot @s, CPUs @pm) that found no idle CPU
 * of its own: an idle CPU of a STEAL pool, @prev_cpu first, if @pool's
 * queue and the shared queue are empty (pending counts 0) and, for a LEND
 * pool, none of its CPUs is lent out. Its enqueue would have found the same:
 * queued alone, it would have the idle CPU kicked to steal it
 * (scxpol_pool__wake()); placed there now, it skips the enqueue, the kick
 * and the steal's DSQ move, and the wait for them. The wake would have
 * preempted a later task of @pool on its CPU first, but that task would
 * then have gone to the same idle CPU; a lent CPU, though, goes back to its
 * own pool's work before a task of the pool runs elsewhere. With tasks
 * queued ahead, the task queues behind them. Counts SCXPOL_STAT_STEAL_IDLE.
 */
static __always_inline s32 scxpol_pool__steal_idle(const struct scxpol_pool_view *v,
						   struct scxpol_pool_slot *s,
						   const struct cpumask *pm, s32 pool, s32 prev_cpu)
{
	const struct cpumask *steal;
	struct bpf_cpumask *b;
	u32 flags = s->desc.flags;
	s32 cpu;

	if (!(flags & SCXPOL_POOL_STEAL) || scxpol_pool__maybe_queued(scxpol_pool_dsq(pool)) ||
	    scxpol_pool__maybe_queued(SCXPOL_DSQ_SHARED))
		return -EBUSY;
	if (flags & SCXPOL_POOL_LEND) {
		b = scxpol_pool__borrowed();
		if (!b || bpf_cpumask_intersects(pm, scxpol_cast_mask(b)))
			return -EBUSY;
	}
	steal = scxpol_pool__union(v, SCXPOL_POOL__STEAL);
	if (!steal)
		return -EBUSY;
	if (bpf_cpumask_test_cpu((u32)prev_cpu, steal) && scx_bpf_test_and_clear_cpu_idle(prev_cpu))
		cpu = prev_cpu;
	else
		cpu = scx_bpf_pick_idle_cpu(steal, 0);
	if (cpu >= 0)
		scxpol_stat_inc(SCXPOL_STAT_STEAL_IDLE);
	return cpu;
}

/*
 * ops.select_cpu for a task of @pool (SCXPOL_POOL_SHARED: no pool): place it
 * on an idle CPU (scxpol_pool_pick_idle(); for a STEAL pool with nothing
 * queued, then one a steal would have taken it to:
 * scxpol_pool__steal_idle()) and insert it there directly with @slice;
 * otherwise return @prev_cpu and let ops.enqueue queue it.
 * Tasks in no pool use the kernel's default idle selection. A task whose
 * affinity excludes some CPUs takes only an idle @prev_cpu of its pool; if
 * its affinity misses the pool entirely, the kernel's default selection
 * within its affinity. Records the pool in @t (may be NULL), moving its
 * vtime to the pool's clock (scxpol_pool_assign()). *@direct (may be NULL)
 * says whether it inserted @p: if so, the kernel skips ops.enqueue for this
 * wakeup, so a policy that counts placements counts this one here.
 */
static __always_inline s32 scxpol_pool_select_cpu(const struct scxpol_pool_view *v,
						  struct task_struct *p, struct scxpol_task_ctx *t,
						  s32 pool, s32 prev_cpu, u64 wake_flags, u64 slice,
						  bool *direct)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);
	struct bpf_cpumask *m = s ? s->cpus : NULL;
	const struct cpumask *pm = m ? scxpol_cast_mask(m) : NULL;
	bool borrowed = false, idle = false;
	s32 cpu;

	if (direct)
		*direct = false;
	scxpol_pool_assign(v, p, t, pm ? pool : SCXPOL_POOL_SHARED, slice);
	if (pm && p->nr_cpus_allowed < (int)scx_bpf_nr_cpu_ids()) {
		if (bpf_cpumask_intersects(pm, p->cpus_ptr)) {
			/* the pool's masks ignore affinity: only prev can be checked cheaply */
			if (scxpol_pool_of_cpu(v, prev_cpu) == pool &&
			    bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr) &&
			    scx_bpf_test_and_clear_cpu_idle(prev_cpu))
				scxpol_pool__direct(p, slice, direct);
			return prev_cpu;
		}
		pm = NULL; /* its affinity leaves the pool: the kernel places it */
	}
	if (!pm) {
		cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);
		if (idle)
			scxpol_pool__direct(p, slice, direct);
		return cpu;
	}
	if (!s)
		return prev_cpu;
	cpu = scxpol_pool__pick_idle(v, s, pm, pool, prev_cpu, &borrowed);
	if (cpu < 0)
		cpu = scxpol_pool__steal_idle(v, s, pm, pool, prev_cpu);
	if (cpu < 0)
		return prev_cpu;
	scxpol_pool__direct(p, slice, direct);
	if (borrowed)
		scxpol_stat_inc(SCXPOL_STAT_BORROW_IDLE);
	return cpu;
}

/* --- ops.enqueue --------------------------------------------------------- */

/*
 * Wakeup preemption: if @p's CPU is in @pool and runs a task of @pool that
 * is behind @p in vtime, preempt it, so that a waking task does not wait a
 * whole slice (up to the kernel's default slice, when the running task was
 * kept for lack of other work) behind, say, a busy poller. Both sides
 * compare their places in the queue: a task that was queued at the head
 * (SCXPOL_ENQ_HEAD) is preempted only by a head waker queued before it,
 * until its slice runs out (scxpol_pool__curr_requeued()), and a head
 * waker preempts any task queued without it.
 */
static __always_inline bool scxpol_pool__preempt(const struct scxpol_pool_view *v,
						 struct task_struct *p, s32 pool, u64 vtime)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct scxpol_pool_curr *c;
	u32 key = (u32)cpu;

	if (scxpol_pool_of_cpu(v, cpu) != pool)
		return false;
	c = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
	if (!c || c->pool != pool || !scxpol_time_before(vtime, c->vtime))
		return false;
	scxpol_pool_kick(cpu, SCXPOL_KICK_PREEMPT);
	return true;
}

/*
 * After @p, with @vtime, was queued on @pool (whose flags are @flags) and
 * no CPU was placed for it: wake an idle CPU of @pool; else, for a wakeup,
 * preempt a later task of @pool on @p's CPU (scxpol_pool__preempt()); else,
 * for a LEND pool, take back one of its CPUs running a borrowed task
 * (SCXPOL_KICK_PREEMPT); else, for a BORROW pool, wake an idle CPU of a
 * LEND pool; else, for a STEAL pool, wake an idle CPU of a STEAL pool,
 * which will steal. One look at the idle mask first: a scan for an idle
 * CPU runs only over masks that have one. Returns whether it woke or
 * preempted a CPU.
 */
static __always_inline bool scxpol_pool__wake(const struct scxpol_pool_view *v,
					      struct task_struct *p, s32 pool, u32 flags,
					      const struct cpumask *pm, u64 vtime, u64 enq_flags)
{
	const struct cpumask *lend = NULL, *steal = NULL, *idle;
	bool in_pool, in_lend = false, in_steal = false;
	struct bpf_cpumask *b;
	s32 cpu;

	if (flags & SCXPOL_POOL_BORROW)
		lend = scxpol_pool__union(v, SCXPOL_POOL__LEND);
	if (flags & SCXPOL_POOL_STEAL)
		steal = scxpol_pool__union(v, SCXPOL_POOL__STEAL);
	idle = scx_bpf_get_idle_cpumask();
	in_pool = bpf_cpumask_intersects(pm, idle);
	if (lend)
		in_lend = bpf_cpumask_intersects(lend, idle);
	if (steal)
		in_steal = bpf_cpumask_intersects(steal, idle);
	scx_bpf_put_idle_cpumask(idle);

	if (in_pool) {
		cpu = scx_bpf_pick_idle_cpu(pm, 0);
		if (cpu >= 0) {
			scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
			return true;
		}
	}
	if ((enq_flags & SCXPOL_ENQ_WAKEUP) && scxpol_pool__preempt(v, p, pool, vtime))
		return true;
	if (flags & SCXPOL_POOL_LEND) {
		b = scxpol_pool__borrowed();
		if (b) {
			cpu = (s32)bpf_cpumask_any_and_distribute(pm, scxpol_cast_mask(b));
			if ((u32)cpu < scx_bpf_nr_cpu_ids()) {
				scxpol_pool_kick(cpu, SCXPOL_KICK_PREEMPT);
				scxpol_stat_inc(SCXPOL_STAT_RECLAIM);
				return true;
			}
		}
	}
	if (lend && in_lend) {
		cpu = scx_bpf_pick_idle_cpu(lend, 0);
		if (cpu >= 0) {
			scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
			return true;
		}
	}
	if (steal && in_steal) {
		cpu = scx_bpf_pick_idle_cpu(steal, 0);
		if (cpu >= 0) {
			scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
			return true;
		}
	}
	return false;
}

/* see scxpol_pool_enqueue() */
#ifndef SCXPOL_POOL_KTHREAD_SLICES
#define SCXPOL_POOL_KTHREAD_SLICES 32
#endif

/*
 * ops.enqueue for a task of @pool (SCXPOL_POOL_SHARED: the shared queue),
 * @slice being a nice-0 task's (scxpol_vtime_slice() for its weight):
 * insert it into the pool's queue at its vtime on the pool's clock
 * (scxpol_pool_assign(), scxpol_vtime_enqueue_ctx(); a busy poller one
 * @slice later, SCXPOL_STAT_BUSY_POLL_DEMOTE), then make sure a CPU will
 * pick it up soon (scxpol_pool__wake()). A task whose affinity misses its
 * pool goes to the shared queue. A task pinned to one CPU goes to that
 * CPU's SCXPOL_DSQ_CPU (a task of the CPU's pool, on the pool's clock) or
 * SCXPOL_DSQ_CPU_SHARED (any other, on the shared clock), where it
 * competes by vtime with the queue it would otherwise be in: in the pool's
 * queue it could starve, in the local DSQ it would never yield. A kernel
 * thread bound to one CPU goes to that CPU's local DSQ
 * (SCXPOL_STAT_KTHREAD_LOCAL), as others wait for its work, until it runs
 * SCXPOL_POOL_KTHREAD_SLICES slices in a row; then it is queued as
 * pinned (doc/concepts.md, "Why the pool helpers do what they do").
 * Returns whether a CPU will run @p soon; false when it waits with every
 * CPU that could take it busy (see scxpol_pool_preempt_pool()).
 */
static __always_inline bool scxpol_pool_enqueue(const struct scxpol_pool_view *v,
						struct task_struct *p, struct scxpol_task_ctx *t,
						s32 pool, u64 enq_flags, u64 slice)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);
	struct bpf_cpumask *m = s ? s->cpus : NULL;
	const struct cpumask *pm = m ? scxpol_cast_mask(m) : NULL;
	bool restricted = p->nr_cpus_allowed < (int)scx_bpf_nr_cpu_ids();
	bool kthread = p->nr_cpus_allowed == 1 && (p->flags & SCXPOL_PF_KTHREAD);
	struct scxpol_vclock *c;
	s32 cpu = -1;
	u32 flags = 0;
	u64 vtime;

	scxpol_stat_inc(SCXPOL_STAT_ENQUEUE);
	slice = scxpol_vtime_slice(slice, p->scx.weight);
	/* being enqueued, it is on no queue: a count it still has is stale */
	scxpol_pool__pending_drop(t);
	if (p->nr_cpus_allowed == 1) {
		cpu = (s32)bpf_cpumask_first(p->cpus_ptr);
		/* a bound kernel thread is in no pool, whatever it had before its binding */
		if (kthread || !pm || !bpf_cpumask_test_cpu((u32)cpu, pm))
			pool = SCXPOL_POOL_SHARED;
		pm = NULL;
	} else if (pm && restricted && !bpf_cpumask_intersects(pm, p->cpus_ptr)) {
		pm = NULL;
	}
	if (!pm && cpu < 0)
		pool = SCXPOL_POOL_SHARED;
	c = scxpol_pool__assign(v, p, t, pool, slice);
	vtime = c ? scxpol_vtime_enqueue_ctx(c, p, t, enq_flags, slice) : p->scx.dsq_vtime;
	if (kthread && (!t || t->full_slices < SCXPOL_POOL_KTHREAD_SLICES)) {
		scxpol_dsq_insert(p, SCX_DSQ_LOCAL, slice, enq_flags);
		scxpol_stat_inc(SCXPOL_STAT_KTHREAD_LOCAL);
		return true;
	}
	if (scxpol_vtime_busy_poll_ctx(t)) {
		vtime += slice;
		scxpol_stat_inc(SCXPOL_STAT_BUSY_POLL_DEMOTE);
	}
	if (cpu >= 0) {
		scxpol_dsq_insert_vtime(p, pool >= 0 ? SCXPOL_DSQ_CPU(cpu) : SCXPOL_DSQ_CPU_SHARED(cpu),
					slice, vtime, enq_flags);
		scxpol_pool__pinned_note(cpu);
		scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
		return true;
	}
	/* from when it may starve there (scxpol_pool__stranded()) or be lost (scxpol_pool__waited()) */
	if (t)
		t->queued_at = scxpol_now();
	scxpol_pool__pending_add(t, scxpol_pool_dsq(pool));
	scxpol_dsq_insert_vtime(p, scxpol_pool_dsq(pool), slice, vtime, enq_flags);
	if (!pm) {
		/* every CPU serves the shared queue: wake one @p may use, if one is idle */
		if (scxpol_pool__any_idle(p->cpus_ptr)) {
			cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
			if (cpu >= 0) {
				scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
				return true;
			}
		}
		return false;
	}
	if (restricted) {
		/* only some of the pool's CPUs may run it: nudge one of them */
		cpu = (s32)bpf_cpumask_any_and_distribute(pm, p->cpus_ptr);
		if ((u32)cpu < scx_bpf_nr_cpu_ids())
			scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
		return true;
	}
	if (s)
		flags = s->desc.flags;
	return scxpol_pool__wake(v, p, pool, flags, pm, vtime, enq_flags);
}

/*
 * Make room for @p, queued on @pool (scxpol_pool_enqueue() returned
 * false): preempt (SCXPOL_KICK_PREEMPT) a CPU @p may run on whose current
 * task is not of @pool (a task of another pool, or of none: a task pinned
 * outside its pool), @p's own CPU first. For a policy whose pool outranks
 * the others: the preempted CPU's ops.dispatch must then serve @pool's
 * queue before its own (scxpol_pool_take()). Returns that CPU, or -EBUSY
 * when every CPU @p may run on runs a task of @pool. Costs a lookup per
 * CPU up to the one it preempts: for the wakeups that found their pool
 * busy.
 *
 * When @p is queued by its own CPU as it stops running there (its slice
 * ran out, or it was preempted: @p is still that CPU's current task), that
 * CPU is not a candidate: it is scheduling already, and runs what its
 * ops.dispatch took. Preempting it would preempt @p's successor, which the
 * same call would then queue and preempt its own successor for, without
 * end: a kick of one's own CPU takes effect after the context switch.
 */
static __always_inline s32 scxpol_pool_preempt_pool(const struct scxpol_pool_view *v,
						    struct task_struct *p, s32 pool)
{
	s32 prev = scx_bpf_task_cpu(p), self = -1;
	struct scxpol_pool_curr *c;
	u32 cpu, nr = scxpol_pool_conf.nr_cpus, key;

	if (!scxpol_pool_valid(v, pool))
		return -EBUSY;
	if (bpf_get_current_task_btf()->pid == p->pid)
		self = prev;
	bpf_for(cpu, 0, nr) {
		/* @prev first, then the others in order */
		key = cpu == 0 ? (u32)prev : cpu == (u32)prev ? 0 : cpu;
		if ((s32)key == self)
			continue;
		c = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
		if (!c || READ_ONCE(c->pool) == pool || !bpf_cpumask_test_cpu(key, p->cpus_ptr))
			continue;
		scxpol_pool_kick((s32)key, SCXPOL_KICK_PREEMPT);
		return (s32)key;
	}
	return -EBUSY;
}

#endif
