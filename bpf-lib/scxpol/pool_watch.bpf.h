/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The watch, BPF side: a timer that looks at the head of every pool queue
 * and of the shared queue every SCXPOL_POOL_WATCH_NS, wakes a CPU for a
 * task whose wakeup reached none, repairs the pending counts, and sends
 * late kicks. Part of <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_WATCH_BPF_H
#define SCXPOL_POOL_WATCH_BPF_H

#include <scxpol/pool_dispatch.bpf.h>

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif

/* How often the watch looks for queued tasks no CPU was woken for (scxpol_pool__watch()). */
#ifndef SCXPOL_POOL_WATCH_NS
#define SCXPOL_POOL_WATCH_NS 50000000ULL
#endif

/* --- the watch ----------------------------------------------------------- */

/*
 * An idle CPU of @m that @h may run on, claimed (its idle bit cleared), or
 * -EBUSY. A CPU that @h may not run on would dispatch past @h, so waking it
 * helps no one.
 */
static __always_inline s32 scxpol_pool__idle_for(const struct cpumask *m, struct task_struct *h)
{
	u32 cpu;

	if (h->nr_cpus_allowed >= (int)scx_bpf_nr_cpu_ids())
		return scx_bpf_pick_idle_cpu(m, 0);
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		if (bpf_cpumask_test_cpu(cpu, m) && bpf_cpumask_test_cpu(cpu, h->cpus_ptr) &&
		    scx_bpf_test_and_clear_cpu_idle((s32)cpu))
			return (s32)cpu;
	}
	return -EBUSY;
}

/*
 * Whether @h has waited on its queue for a whole SCXPOL_POOL_WATCH_NS. A
 * task queued more recently may be on its way to a CPU kicked for it, or
 * wait for a busy CPU's slice to end while another CPU has just gone idle
 * (a CPU whose ops.dispatch took nothing): neither is a lost wakeup, and
 * the next look sees it again if it still waits. Signed: scxpol_now() is
 * per CPU and may be behind the enqueuing CPU's.
 */
static __always_inline bool scxpol_pool__waited(struct task_struct *h)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(h);

	return !t || (s64)(scxpol_now() - t->queued_at) >= (s64)SCXPOL_POOL_WATCH_NS;
}

/*
 * Whether a CPU that would take @h was kicked less than
 * SCXPOL_POOL_KICK_LATE_NS ago and has neither run a task nor dispatched
 * since (scxpol_pool_kick()): @h may be on its way to it. Such a CPU is
 * online, one @h may run on, and in @qm, @lend or @steal (any of them
 * NULL: not a place to look; @qm NULL: any CPU). A head that waited a
 * whole watch period behind such a kick waits on a CPU the host has not
 * run (an overloaded hypervisor); waking another one for it would count a
 * late wakeup as a lost one. An offline CPU never answers.
 */
static __always_inline bool scxpol_pool__kick_pending(struct task_struct *h,
						      const struct cpumask *qm,
						      const struct cpumask *lend,
						      const struct cpumask *steal)
{
	const struct cpumask *online;
	struct scxpol_pool_curr *c;
	bool pending = false;
	u64 now = scxpol_now(), at;
	u32 cpu;

	online = scx_bpf_get_online_cpumask();
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		c = bpf_map_lookup_elem(&scxpol_pool_curr, &cpu);
		if (!c)
			break;
		at = READ_ONCE(c->kicked_at);
		if (!at || (s64)(now - at) >= (s64)SCXPOL_POOL_KICK_LATE_NS ||
		    !bpf_cpumask_test_cpu(cpu, h->cpus_ptr) || !bpf_cpumask_test_cpu(cpu, online))
			continue;
		if (!qm || bpf_cpumask_test_cpu(cpu, qm) || (lend && bpf_cpumask_test_cpu(cpu, lend)) ||
		    (steal && bpf_cpumask_test_cpu(cpu, steal))) {
			pending = true;
			break;
		}
	}
	scx_bpf_put_cpumask(online);
	return pending;
}

/*
 * scxpol_pool__watch() for @h, the first task of @pool's queue
 * (SCXPOL_POOL_SHARED: the shared queue), if it has waited a whole watch
 * period (scxpol_pool__waited()) and no CPU that would take it was kicked
 * and has yet to answer (scxpol_pool__kick_pending()): wake an idle CPU
 * that would take it, the way scxpol_pool__wake() would have: one of
 * @pool, else, for a BORROW pool, of a LEND pool, else, for a STEAL pool,
 * of a STEAL pool; in each, one @h may run on. For the shared queue, or a
 * head stranded in its pool (scxpol_pool__starved()), an idle CPU @h may
 * run on: its ops.dispatch takes it (scxpol_pool__rescue()). Counts the
 * kick in SCXPOL_STAT_WATCH_KICK, or for a stranded head in
 * SCXPOL_STAT_WATCH_RESCUE. Returns whether @h is stranded.
 */
static __always_inline bool scxpol_pool__nudge(const struct scxpol_pool_view *v, s32 pool,
					       struct task_struct *h)
{
	const struct cpumask *qm = NULL, *lend = NULL, *steal = NULL;
	bool stranded = false;
	u32 flags = 0;
	s32 cpu;

	if (pool != SCXPOL_POOL_SHARED) {
		qm = scxpol_pool_cpumask(v, pool);
		flags = scxpol_pool_flags(v, pool);
		stranded = scxpol_pool__starved(qm, flags, h);
	}
	if (!scxpol_pool__waited(h))
		return stranded;
	if (stranded)
		qm = NULL;
	if (qm && (flags & SCXPOL_POOL_BORROW))
		lend = scxpol_pool__union(v, SCXPOL_POOL__LEND);
	if (qm && (flags & SCXPOL_POOL_STEAL))
		steal = scxpol_pool__union(v, SCXPOL_POOL__STEAL);
	if (scxpol_pool__kick_pending(h, qm, lend, steal))
		return stranded;
	if (!qm) {
		cpu = scx_bpf_pick_idle_cpu(h->cpus_ptr, 0);
	} else {
		cpu = scxpol_pool__idle_for(qm, h);
		if (cpu < 0 && lend)
			cpu = scxpol_pool__idle_for(lend, h);
		if (cpu < 0 && steal)
			cpu = scxpol_pool__idle_for(steal, h);
	}
	if (cpu >= 0) {
		scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
		/* a stranded head is the rescue's by design; any other one's wakeup was lost */
		scxpol_stat_inc(stranded ? SCXPOL_STAT_WATCH_RESCUE : SCXPOL_STAT_WATCH_KICK);
	}
	return stranded;
}

/*
 * The watch, a safety net for wakeups that reach no CPU: every
 * SCXPOL_POOL_WATCH_NS, a BPF timer started by scxpol_pool_init() looks at
 * the head of every pool queue and of the shared queue, and, for a head
 * that has waited a whole period, wakes an idle CPU that would take it
 * (scxpol_pool__nudge(); SCXPOL_STAT_WATCH_KICK, SCXPOL_STAT_WATCH_RESCUE).
 * Enqueueing wakes a CPU it finds in the kernel's idle mask, which can be
 * stale: a CPU whose ops.dispatch has just found nothing is not marked idle
 * yet (the race scx_bpf_pick_idle_cpu()'s kernel doc warns of), and a CPU
 * that went offline keeps its idle bit until someone claims it, so the kick
 * is lost. The task then waits while every CPU that could run it sleeps,
 * and when every CPU sleeps nothing wakes one: not even the kernel's
 * watchdog, whose work item waits for this scheduler to run it. Returns
 * whether a head is stranded in its pool (the watch's rescue flag).
 * A global function (doc/conventions.md): a loop over the queues.
 */
int scxpol_pool__watch(const struct scxpol_pool_view *v);

/* The address of the first task on @dsq, 0 if none: for comparing two looks. */
static __always_inline u64 scxpol_pool__head_addr(u64 dsq)
{
	struct task_struct *h;

	if (bpf_ksym_exists(scx_bpf_dsq_peek))
		return (u64)scx_bpf_dsq_peek(dsq);
	bpf_for_each(scx_dsq, h, dsq, 0) {
		return (u64)h;
	}
	return 0;
}

/*
 * The watch found @head first on queue @q (@dsq): if @q's pending count
 * is 0 and @head is still first after the count was read, @head was on
 * the queue uncounted (a policy inserted it past scxpol_pool_enqueue()):
 * mark the count (scxpol_pool__pending_repair()). A head gone meanwhile
 * may have run and dropped its count after the watch saw it; that is no
 * drift.
 */
static __always_inline void scxpol_pool__pending_check(u32 q, u64 dsq, u64 head)
{
	s64 *n = bpf_map_lookup_elem(&scxpol_pool_pending, &q);

	if (n && READ_ONCE(*n) <= 0 && scxpol_pool__head_addr(dsq) == head)
		scxpol_pool__pending_repair(q);
}

__noinline int scxpol_pool__watch(const struct scxpol_pool_view *v)
{
	struct task_struct *h;
	bool stranded = false;
	s32 pool;
	u64 dsq, head;
	u32 q;

	if (!v)
		return false;
	/* verified as part of the sleepable ops.init: the DSQ peek and iterator want RCU */
	bpf_rcu_read_lock();
	/* q == max_pools: the shared queue */
	bpf_for(q, 0, scxpol_pool_conf.max_pools + 1) {
		pool = q < scxpol_pool_conf.max_pools ? (s32)q : SCXPOL_POOL_SHARED;
		dsq = scxpol_pool_dsq(pool);
		head = 0;
		if (bpf_ksym_exists(scx_bpf_dsq_peek)) {
			h = scx_bpf_dsq_peek(dsq);
			if (!h)
				continue;
			head = (u64)h;
			if (scxpol_pool__nudge(v, pool, h))
				stranded = true;
		} else {
			if (scx_bpf_dsq_nr_queued(dsq) <= 0)
				continue;
			bpf_for_each(scx_dsq, h, dsq, 0) {
				head = (u64)h;
				if (scxpol_pool__nudge(v, pool, h))
					stranded = true;
				break;
			}
		}
		if (head)
			scxpol_pool__pending_check(q, dsq, head);
	}
	bpf_rcu_read_unlock();
	return stranded;
}

/* The watch's timer callback: look, then look again in SCXPOL_POOL_WATCH_NS. */
static int scxpol_pool__watch_fn(void *map, int *key, struct scxpol_pool_watch *w)
{
	struct scxpol_pool_view v;
	struct scxpol_sched_exit_record *r;
	u32 zero = 0;

	(void)map;
	(void)key;
	r = bpf_map_lookup_elem(&scxpol_exit, &zero);
	/* exited (the object outlives it): leave the CPUs to the next scheduler */
	if (!r || READ_ONCE(r->kind))
		return 0;
	scxpol_pool__kick_late(w);
	scxpol_pool_view(&v);
	WRITE_ONCE(w->rescue, scxpol_pool__watch(&v) ? 1 : 0);
	bpf_timer_start(&w->timer, SCXPOL_POOL_WATCH_NS, 0);
	return 0;
}

/* Start the watch's timer (scxpol_pool__watch()). */
static __always_inline s32 scxpol_pool__watch_start(void)
{
	struct scxpol_pool_watch *w;
	u32 zero = 0;
	s32 ret;

	w = bpf_map_lookup_elem(&scxpol_pool_watch, &zero);
	if (!w)
		return -ENOENT;
	ret = bpf_timer_init(&w->timer, &scxpol_pool_watch, CLOCK_MONOTONIC);
	/* -EBUSY: an earlier attach of this same object set it up */
	if (ret && ret != -EBUSY)
		return ret;
	ret = bpf_timer_set_callback(&w->timer, scxpol_pool__watch_fn);
	if (ret)
		return ret;
	return bpf_timer_start(&w->timer, SCXPOL_POOL_WATCH_NS, 0);
}

#endif
