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
 * scxpol_pool__watch() for @h, the first task of @pool's queue
 * (SCXPOL_POOL_SHARED: the shared queue): wake an idle CPU that would take
 * it, the way scxpol_pool__wake() would have: one of @pool, else, for a
 * BORROW pool, of a LEND pool, else, for a STEAL pool, of a STEAL pool.
 * For the shared queue, or a head stranded in its pool
 * (scxpol_pool__starved()), an idle CPU @h may run on: its ops.dispatch
 * takes it (scxpol_pool__rescue()). Returns whether @h is stranded.
 */
static __always_inline bool scxpol_pool__nudge(const struct scxpol_pool_view *v, s32 pool,
					       struct task_struct *h)
{
	const struct cpumask *qm = NULL, *m;
	bool stranded = false;
	u32 flags = 0;
	s32 cpu;

	if (pool != SCXPOL_POOL_SHARED) {
		qm = scxpol_pool_cpumask(v, pool);
		flags = scxpol_pool_flags(v, pool);
		stranded = scxpol_pool__starved(qm, flags, h);
	}
	if (!qm || stranded) {
		cpu = scx_bpf_pick_idle_cpu(h->cpus_ptr, 0);
	} else {
		cpu = scx_bpf_pick_idle_cpu(qm, 0);
		if (cpu < 0 && (flags & SCXPOL_POOL_BORROW) &&
		    (m = scxpol_pool__union(v, SCXPOL_POOL__LEND)))
			cpu = scx_bpf_pick_idle_cpu(m, 0);
		if (cpu < 0 && (flags & SCXPOL_POOL_STEAL) &&
		    (m = scxpol_pool__union(v, SCXPOL_POOL__STEAL)))
			cpu = scx_bpf_pick_idle_cpu(m, 0);
	}
	if (cpu >= 0) {
		scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
		scxpol_stat_inc(SCXPOL_STAT_WATCH_KICK);
	}
	return stranded;
}

/*
 * The watch, a safety net for wakeups that reach no CPU: every
 * SCXPOL_POOL_WATCH_NS, a BPF timer started by scxpol_pool_init() looks at
 * the head of every pool queue and of the shared queue, and wakes an idle
 * CPU that would take it (scxpol_pool__nudge(); SCXPOL_STAT_WATCH_KICK).
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

__noinline int scxpol_pool__watch(const struct scxpol_pool_view *v)
{
	struct task_struct *h;
	bool stranded = false;
	s32 pool;
	u64 dsq;
	u32 q;

	if (!v)
		return false;
	/* verified as part of the sleepable ops.init: the DSQ peek and iterator want RCU */
	bpf_rcu_read_lock();
	/* q == max_pools: the shared queue */
	bpf_for(q, 0, scxpol_pool_conf.max_pools + 1) {
		pool = q < scxpol_pool_conf.max_pools ? (s32)q : SCXPOL_POOL_SHARED;
		dsq = scxpol_pool_dsq(pool);
		if (bpf_ksym_exists(scx_bpf_dsq_peek)) {
			h = scx_bpf_dsq_peek(dsq);
			if (!h)
				continue;
			scxpol_pool__pending_repair(q);
			if (scxpol_pool__nudge(v, pool, h))
				stranded = true;
			continue;
		}
		if (scx_bpf_dsq_nr_queued(dsq) <= 0)
			continue;
		scxpol_pool__pending_repair(q);
		bpf_for_each(scx_dsq, h, dsq, 0) {
			if (scxpol_pool__nudge(v, pool, h))
				stranded = true;
			break;
		}
	}
	bpf_rcu_read_unlock();
	return stranded;
}

/* The watch's timer callback: look, then look again in SCXPOL_POOL_WATCH_NS. */
static int scxpol_pool__watch_fn(void *map, int *key, struct scxpol_pool_watch *w)
{
	struct scxpol_pool_view v;
	struct scxpol_exit_record *r;
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
