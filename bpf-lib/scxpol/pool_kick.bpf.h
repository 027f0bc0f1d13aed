/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Kicking CPUs, BPF side: scxpol_pool_kick(), which every kick of the pool
 * helpers and of a pool policy goes through, and the watch's sending of
 * the kicks that CPUs going offline could not send. Part of
 * <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_KICK_BPF_H
#define SCXPOL_POOL_KICK_BPF_H

#include <scxpol/pool_table.bpf.h>

/* --- kicks --------------------------------------------------------------- */

/*
 * How long the watch takes a kicked CPU that has neither run a task nor
 * dispatched since to be on its way (scxpol_pool__kick_pending()): a
 * virtual CPU the host does not run for a while answers late, not never.
 */
#ifndef SCXPOL_POOL_KICK_LATE_NS
#define SCXPOL_POOL_KICK_LATE_NS 1000000000ULL
#endif

/*
 * Wake @cpu: scx_bpf_kick_cpu(@cpu, @flags), @flags 0, SCXPOL_KICK_IDLE or
 * SCXPOL_KICK_PREEMPT. Policies kick through this, never the kfunc itself:
 * a kick from a CPU out of the online mask would queue IRQ work that never
 * runs and blocks every later kick from that CPU (doc/concepts.md, "Why
 * the pool helpers do what they do"), so it is left to the watch, which
 * sends it from a live CPU within SCXPOL_POOL_WATCH_NS
 * (SCXPOL_STAT_WATCH_KICK). A kick sent is noted in @cpu's
 * scxpol_pool_curr until @cpu runs a task or dispatches, before it is
 * sent, so that the note cannot outlive the answer.
 */
static __always_inline void scxpol_pool_kick(s32 cpu, u64 flags)
{
	const struct cpumask *online = scx_bpf_get_online_cpumask();
	bool up = bpf_cpumask_test_cpu(bpf_get_smp_processor_id(), online);
	struct scxpol_pool_watch *w;
	struct scxpol_pool_curr *c;
	u32 key = (u32)cpu, zero = 0;

	scx_bpf_put_cpumask(online);
	c = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
	if (up) {
		if (c)
			WRITE_ONCE(c->kicked_at, scxpol_now() | 1);
		scx_bpf_kick_cpu(cpu, flags);
		return;
	}
	w = bpf_map_lookup_elem(&scxpol_pool_watch, &zero);
	if (!c || !w)
		return;
	__sync_fetch_and_or(&c->kick, (flags & SCXPOL_KICK_PREEMPT) ? SCXPOL_POOL__KICK_PREEMPT :
				      (flags & SCXPOL_KICK_IDLE) ? SCXPOL_POOL__KICK_IDLE :
				      SCXPOL_POOL__KICK_PLAIN);
	__sync_fetch_and_or(&w->kick, 1);
}

/*
 * The watch sends the kicks CPUs going offline left (scxpol_pool_kick()),
 * one per CPU, the strongest asked for: a preemption, else a plain kick
 * (which also wakes an idle CPU), else an idle one.
 */
static __always_inline void scxpol_pool__kick_late(struct scxpol_pool_watch *w)
{
	struct scxpol_pool_curr *c;
	u32 cpu, k;
	u64 flags;

	if (!READ_ONCE(w->kick) || !__sync_lock_test_and_set(&w->kick, 0))
		return;
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		c = bpf_map_lookup_elem(&scxpol_pool_curr, &cpu);
		if (!c || !READ_ONCE(c->kick))
			continue;
		k = __sync_lock_test_and_set(&c->kick, 0);
		flags = (k & SCXPOL_POOL__KICK_PREEMPT) ? SCXPOL_KICK_PREEMPT :
			(k & SCXPOL_POOL__KICK_PLAIN) ? 0 : SCXPOL_KICK_IDLE;
		scx_bpf_kick_cpu((s32)cpu, flags);
		scxpol_stat_inc(SCXPOL_STAT_WATCH_KICK);
	}
}

#endif
