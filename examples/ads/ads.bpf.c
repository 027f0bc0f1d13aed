// SPDX-License-Identifier: GPL-2.0
/*
 * ads: a latency-critical pool and a background pool, after the scheduler
 * Meta runs on its ads serving hosts ("Modernizing the Meta Ads Service
 * With an Open-Source Kernel Scheduler", 2026).
 *
 * The CPUs are split in two: the lc pool for threads on the latency-
 * critical request path, the bg pool for everything else. The loader sizes
 * the split from the load (<scxpol/pool.h>'s autosizing): the lc pool
 * grows when its threads keep its CPUs busier than a target and shrinks
 * when they leave them idle, nearest LLC first, so related work stays on
 * one L3. It counts each pool's CPU time here for that.
 *
 * Which pool a thread belongs to: its class hint, if the application or a
 * control plane set one (<scxpol/hint.h>; class 1 = lc, 0 = bg); else the
 * loader's cgroup rules (a cgroup and all below it); else its comm rules
 * (a name or a prefix); else bg.
 *
 * Critical work first. An lc CPU runs the lc queue before anything else.
 * An lc CPU with nothing of its own lends itself to bg work, and takes
 * itself back the moment lc work arrives and finds no idle lc CPU: the bg
 * task on it is preempted. lc work that finds every lc CPU running lc work
 * takes an idle CPU of the bg pool. With spill (the loader's --spill), when
 * no CPU is idle it also preempts non-lc work on another CPU
 * (ads_make_room()), and bg CPUs serve the lc queue before their own
 * (ads_dispatch()): lc work then waits only while every CPU runs lc work,
 * and bg work takes a back seat everywhere. bg work never preempts lc
 * work, and takes idle lc CPUs (borrows them) when its own are busy.
 *
 * Importance. A thread that flags that it serves an important request (its
 * hint slot's importance above 0, one store by the thread) gets a longer
 * slice and goes to the head of its pool's queue, until it clears the
 * flag; from there, no waking task of its pool preempts it. One that used
 * up the whole long slice queues normally, so an important spinner cannot
 * starve its pool.
 *
 * Within a pool, tasks are ordered by weighted virtual time.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/hint.bpf.h>
#include <scxpol/match.bpf.h>
#include <scxpol/stats.bpf.h>

/* ads's own; the library's defaults for the rest (pool_ops.bpf.h) */
#define SCXPOL_POOL_OPS_SELECT_CPU
#define SCXPOL_POOL_OPS_ENQUEUE
#define SCXPOL_POOL_OPS_DISPATCH
#define SCXPOL_POOL_OPS_STOPPING
#include <scxpol/pool_ops.bpf.h>

#include "ads.h"

char _license[] SEC("license") = "GPL";

const volatile u64 lc_slice_ns = 2000000;
const volatile u64 bg_slice_ns = 20000000;
const volatile u64 important_slice_ns = 10000000;
const volatile bool wake_affine;
const volatile bool spill;

/*
 * A CPU outside the lc pool that found lc work at every dispatch for this
 * long serves its own pool first once (ads_dispatch()): bg work
 * progresses, and the library's rescue of starving tasks runs, even while
 * lc work keeps every CPU busy.
 */
#define ADS_BG_TURN_NS 500000000ULL

/* Per CPU. */
struct ads_pcpu {
	u64 counted;  /* up to when the running task's CPU time has been counted */
	u64 lc_since; /* since when every dispatch here took lc work first; 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct ads_pcpu);
} ads_pcpu SEC(".maps");

/* Where a task goes, and what decided it (ADS_STAT_CLASS_*). */
struct ads_place {
	s32 pool;
	u64 slice;
	bool head;
	bool important;
	u32 stat;
};

/* The pool, slice and queue position of @p: hint > cgroup > comm > bg. */
static __always_inline void ads_place(struct task_struct *p, struct scxpol_task_ctx *t,
				      struct ads_place *pl)
{
	struct scxpol_hint h;
	s32 class = ADS_BG;

	scxpol_hint_lookup_ctx(t, p, &h);
	if (h.flags & SCXPOL_HINT_F_CLASS) {
		class = h.class_id;
		pl->stat = ADS_STAT_CLASS_HINT;
	} else {
		switch (scxpol_match_ctx(t, p, &class)) {
		case SCXPOL_MATCH_BY_CGROUP:
			pl->stat = ADS_STAT_CLASS_CGROUP;
			break;
		case SCXPOL_MATCH_BY_COMM:
			pl->stat = ADS_STAT_CLASS_COMM;
			break;
		default:
			pl->stat = ADS_STAT_CLASS_DEFAULT;
		}
	}
	pl->pool = class == ADS_LC ? ADS_POOL_LC : ADS_POOL_BG;
	pl->slice = class == ADS_LC ? lc_slice_ns : bg_slice_ns;
	pl->head = false;
	pl->important = h.importance;
	if (pl->important) {
		pl->slice = important_slice_ns;
		pl->head = !t || !t->full_slices;
	}
	/* a direct dispatch does not record the slice: the full-slice count needs it */
	if (t)
		t->slice = pl->slice;
}

/*
 * Count a placement: in ops.enqueue, and in ops.select_cpu only when it
 * inserted the task (the kernel then skips ops.enqueue), so each time a
 * task is queued or run counts once.
 */
static __always_inline void ads_count_place(const struct ads_place *pl)
{
	scxpol_stat_user_inc(pl->stat);
	if (pl->important)
		scxpol_stat_inc(SCXPOL_STAT_IMPORTANT);
}

/*
 * An lc task woken by an lc task on an lc CPU waits on that CPU, behind
 * its waker: a request handed over by a thread that then waits for the
 * next one runs at once where the data is, with no IPI.
 */
static __always_inline s32 ads_wake_affine(const struct scxpol_pool_view *v, struct task_struct *p,
					   struct scxpol_task_ctx *t, const struct ads_place *pl,
					   u64 wake_flags)
{
	struct scxpol_task_ctx *wt;
	s32 cpu;

	if (!wake_affine || pl->pool != ADS_POOL_LC || !(wake_flags & SCXPOL_WAKE_TTWU))
		return -1;
	cpu = bpf_get_smp_processor_id();
	if (scxpol_pool_of_cpu(v, cpu) != ADS_POOL_LC || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
		return -1;
	wt = scxpol_task_ctx(bpf_get_current_task_btf());
	if (!wt || wt->pool != ADS_POOL_LC)
		return -1;
	/* its vtime moves to the lc clock if it was placed elsewhere before */
	scxpol_pool_assign(v, p, t, ADS_POOL_LC, pl->slice);
	scxpol_dsq_insert(p, SCX_DSQ_LOCAL, pl->slice, pl->head ? SCXPOL_ENQ_HEAD : 0);
	scxpol_stat_user_inc(ADS_STAT_WAKE_AFFINE);
	ads_count_place(pl);
	return cpu;
}

s32 SCXPOL_OPS(ads_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_pool_view v;
	struct ads_place pl;
	bool direct;
	s32 cpu;

	scxpol_pool_view(&v);
	ads_place(p, t, &pl);
	cpu = ads_wake_affine(&v, p, t, &pl, wake_flags);
	if (cpu >= 0)
		return cpu;
	cpu = scxpol_pool_select_cpu(&v, p, t, pl.pool, prev_cpu, wake_flags, pl.slice, &direct);
	if (direct)
		ads_count_place(&pl);
	return cpu;
}

/*
 * lc task @p is queued and no CPU was woken for it: no lc CPU is idle or
 * lent out, none runs later lc work, no CPU at all is idle. Preempt non-lc
 * work on another CPU (bg work, or a task pinned outside its pool), whose
 * dispatch then takes @p (ads_dispatch()), rather than let @p wait for lc
 * work to finish.
 */
static __always_inline void ads_make_room(const struct scxpol_pool_view *v, struct task_struct *p)
{
	scxpol_stat_user_inc(ADS_STAT_LC_BUSY);
	if (spill && scxpol_pool_preempt_pool(v, p, ADS_POOL_LC) >= 0)
		scxpol_stat_user_inc(ADS_STAT_LC_PREEMPT_BG);
}

void SCXPOL_OPS(ads_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_pool_view v;
	struct ads_place pl;

	scxpol_pool_view(&v);
	ads_place(p, t, &pl);
	ads_count_place(&pl);
	if (pl.head) {
		enq_flags |= SCXPOL_ENQ_HEAD;
		scxpol_stat_user_inc(ADS_STAT_HEAD);
	}
	if (!scxpol_pool_enqueue(&v, p, t, pl.pool, enq_flags, pl.slice) && pl.pool == ADS_POOL_LC)
		ads_make_room(&v, p);
}

/*
 * A CPU outside the lc pool serves the lc queue first (but once after
 * ADS_BG_TURN_NS of nothing else), so lc work that spilled over does not
 * wait behind bg work. Then the library's order: a task whose slice ran out
 * keeps its CPU while it is ahead of its pool's queue
 * (scxpol_pool_dispatch_prev()): ops.dispatch runs before the kernel
 * queues @prev again, so an lc CPU would otherwise find the lc queue empty
 * and fetch bg work ahead of its own lc task.
 */
void SCXPOL_OPS(ads_dispatch, s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v;
	struct ads_pcpu *pc;
	u32 zero = 0;
	u64 now;

	scxpol_pool_view(&v);
	if (spill && scxpol_pool_of_cpu(&v, cpu) != ADS_POOL_LC &&
	    (pc = bpf_map_lookup_elem(&ads_pcpu, &zero))) {
		now = scxpol_now();
		if (pc->lc_since && now - pc->lc_since >= ADS_BG_TURN_NS) {
			pc->lc_since = 0;
		} else if (scxpol_pool_take(ADS_POOL_LC)) {
			if (!pc->lc_since)
				pc->lc_since = now;
			return;
		} else {
			pc->lc_since = 0;
		}
	}
	scxpol_pool_dispatch_prev(&v, cpu, prev);
}

/*
 * Add the CPU time the running task used since it started or was last
 * counted to its pool's counter (the loader's demand), and an lc task's
 * on a CPU outside the lc pool to the lc overflow (the loader grows the
 * pool when much of its work runs elsewhere). From every tick too: a task
 * the kernel keeps running stops only when it blocks.
 */
static __always_inline void ads_count(const struct scxpol_pool_view *v, struct scxpol_task_ctx *t)
{
	u64 now = scxpol_now(), from;
	struct ads_pcpu *pc;
	u32 zero = 0;

	if (!t || !t->run_start || (t->pool != ADS_POOL_LC && t->pool != ADS_POOL_BG))
		return;
	pc = bpf_map_lookup_elem(&ads_pcpu, &zero);
	if (!pc)
		return;
	from = scxpol_time_before(pc->counted, t->run_start) ? t->run_start : pc->counted;
	pc->counted = now;
	if (t->pool == ADS_POOL_BG) {
		scxpol_stat_user_add(ADS_STAT_BG_RUNTIME_NS, now - from);
		return;
	}
	scxpol_stat_user_add(ADS_STAT_LC_RUNTIME_NS, now - from);
	if (scxpol_pool_of_cpu(v, bpf_get_smp_processor_id()) != ADS_POOL_LC)
		scxpol_stat_user_add(ADS_STAT_LC_SPILL_NS, now - from);
}

void SCXPOL_OPS(ads_tick, struct task_struct *p)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	ads_count(&v, scxpol_task_ctx(p));
}

void SCXPOL_OPS(ads_stopping, struct task_struct *p, bool runnable)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	ads_count(&v, t);
	scxpol_pool_stopping(&v, p, t, runnable);
}

SCXPOL_POOL_OPS_DEFINE(ads, .tick = (void *)ads_tick);
