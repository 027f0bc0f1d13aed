/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The pool table, BPF side: the maps and types of the published table, the
 * view a callback reads it through, the per-pool queues and clocks, the
 * pending counts that let dispatch skip empty queues (and the watch's
 * repair of them), and the per-CPU record of what each CPU runs and of
 * the tasks pinned to it. Part of <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_TABLE_BPF_H
#define SCXPOL_POOL_TABLE_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/dsq.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/stats.bpf.h>
#include <scxpol/task.bpf.h>
#include <scxpol/vtime.bpf.h>
#include <scxpol/abi/pool.h>

#ifndef EBUSY
#define EBUSY 16
#endif

/* The shared queue where a pool index is expected. */
#define SCXPOL_POOL_SHARED (-1)

#ifdef SCXPOL_HOST_TEST
#define SCXPOL_POOL_CONST volatile /* host tests play scxpol_pool_setup() */
#else
#define SCXPOL_POOL_CONST const volatile
#endif

/* Sizes, set by scxpol_pool_setup() before load: the verifier sees constants. */
SCXPOL_POOL_CONST struct scxpol_pool_conf scxpol_pool_conf SEC(".rodata.scxpol_pool");

/* A cpumask slot; @gen says which publication built it (per-LLC masks). */
struct scxpol_pool_mask {
	struct bpf_cpumask __kptr *cpus;
	u64 gen;
	u32 nr_cpus; /* CPUs the commit set in it */
	u32 pad;
};

/* A published pool. */
struct scxpol_pool_slot {
	struct scxpol_pool_desc desc;
	struct bpf_cpumask __kptr *cpus;
};

/* Per-CPU dispatch state. */
struct scxpol_pool_pcpu {
	u32 nr_dispatch;
};

/* What a CPU runs (scxpol_pool_running()), read by other CPUs' enqueues. */
struct scxpol_pool_curr {
	u64 vtime;  /* the vtime that task was queued with (a head's lagged one) */
	s32 pool;   /* that task's pool; -1: idle, or a task in no pool */
	u32 pinned; /* 0: no task waits on its pinned queues (scxpol_pool_pinned_waiting()) */
	u32 kick;   /* SCXPOL_POOL__KICK_*: kicks a CPU going offline left for the watch */
	u32 pad;
	u64 kicked_at; /* when it was kicked and has not run or dispatched since; 0: not */
};

/* The kicks of scxpol_pool_curr.kick (scxpol_pool_kick()). */
#define SCXPOL_POOL__KICK_IDLE 1
#define SCXPOL_POOL__KICK_PLAIN 2
#define SCXPOL_POOL__KICK_PREEMPT 4

#define SCXPOL_POOL__LEND 0     /* scxpol_pool_masks: lend union of half h at 0 + h */
#define SCXPOL_POOL__STEAL 2    /* steal union at 2 + h */
#define SCXPOL_POOL__BORROWED 4 /* CPUs running a borrowed task */

/* Map sizes below are placeholders: scxpol_pool_setup() sets the real ones. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_state);
} scxpol_pool_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct scxpol_pool_slot);
} scxpol_pool_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct scxpol_pool_mask);
} scxpol_pool_llcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 5);
	__type(key, u32);
	__type(value, struct scxpol_pool_mask);
} scxpol_pool_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct scxpol_pool_cpu);
} scxpol_pool_cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, u32);
} scxpol_pool_order SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, struct scxpol_vclock);
} scxpol_pool_clock SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, u32);
} scxpol_pool_queued SEC(".maps");

/* Tasks that may be on each pool's queue, last: the shared queue (scxpol_pool__pending_add()). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, s64);
} scxpol_pool_pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_pcpu);
} scxpol_pool_pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_curr);
} scxpol_pool_curr SEC(".maps");

/* The watch's timer (scxpol_pool__watch()). */
struct scxpol_pool_watch {
	struct bpf_timer timer;
	u32 rescue; /* its last look saw a stranded head: CPUs about to idle look too */
	u32 kick;   /* some scxpol_pool_curr.kick is set */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_watch);
} scxpol_pool_watch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_desc);
} scxpol_pool_stage SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} scxpol_pool_stage_mask SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_pool_cpu);
} scxpol_pool_stage_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} scxpol_pool_stage_order SEC(".maps");

#ifndef SCXPOL_HOST_TEST
/*
 * Never read by BPF: userspace replaces its entry before each commit, and
 * the kernel waits for an RCU grace period after a map-in-map update, so
 * every callback that could still read the half about to be rebuilt has
 * finished.
 */
struct scxpol_pool_sync_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, u32);
	__array(values, struct scxpol_pool_sync_inner);
} scxpol_pool_sync SEC(".maps");
#endif

/* One callback's snapshot of the published table. */
struct scxpol_pool_view {
	u64 gen;      /* generation; 0 = nothing published */
	u32 half;     /* half of the double buffer it reads */
	u32 nr_pools; /* pools in it */
};

/* --- reading the table --------------------------------------------------- */

/* Take the snapshot a callback reads the table through (once per callback). */
static __always_inline void scxpol_pool_view(struct scxpol_pool_view *v)
{
	struct scxpol_pool_state *st;
	u32 zero = 0;

	v->gen = 0;
	v->half = 0;
	v->nr_pools = 0;
	st = bpf_map_lookup_elem(&scxpol_pool_state, &zero);
	if (!st)
		return;
	v->gen = READ_ONCE(st->gen);
	v->half = (u32)v->gen & 1;
	if (v->gen)
		v->nr_pools = READ_ONCE(st->nr_pools[v->half]);
}

/*
 * @cpu's entry (pool, LLC, node, flags as the plan's topology had them) in
 * @v, or NULL for a CPU out of range.
 */
static __always_inline struct scxpol_pool_cpu *scxpol_pool_cpu_info(const struct scxpol_pool_view *v,
								     s32 cpu)
{
	u32 key;

	if (!v->gen || cpu < 0 || (u32)cpu >= scxpol_pool_conf.nr_cpus)
		return NULL;
	key = (u32)cpu * 2 + v->half;
	return bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
}

/* The pool @cpu belongs to, or -1. */
static __always_inline s32 scxpol_pool_of_cpu(const struct scxpol_pool_view *v, s32 cpu)
{
	struct scxpol_pool_cpu *c = scxpol_pool_cpu_info(v, cpu);

	return c ? c->pool : -1;
}

static __always_inline struct scxpol_pool_slot *scxpol_pool__slot(const struct scxpol_pool_view *v,
								   s32 pool)
{
	u32 key;

	if (pool < 0 || (u32)pool >= v->nr_pools)
		return NULL;
	key = (u32)pool * 2 + v->half;
	return bpf_map_lookup_elem(&scxpol_pool_slots, &key);
}

/* Whether @pool is a pool of @v. */
static __always_inline bool scxpol_pool_valid(const struct scxpol_pool_view *v, s32 pool)
{
	return pool >= 0 && (u32)pool < v->nr_pools;
}

/* @pool's flags (SCXPOL_POOL_*), 0 for no pool. */
static __always_inline u32 scxpol_pool_flags(const struct scxpol_pool_view *v, s32 pool)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);

	return s ? s->desc.flags : 0;
}

/* Number of CPUs in @pool, 0 for no pool. */
static __always_inline u32 scxpol_pool_nr_cpus(const struct scxpol_pool_view *v, s32 pool)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);

	return s ? s->desc.nr_cpus : 0;
}

/* @pool's CPUs (valid for this callback), or NULL for no pool. */
static __always_inline const struct cpumask *scxpol_pool_cpumask(const struct scxpol_pool_view *v,
								  s32 pool)
{
	struct scxpol_pool_slot *s = scxpol_pool__slot(v, pool);
	struct bpf_cpumask *m;

	if (!s)
		return NULL;
	m = s->cpus;
	return m ? scxpol_cast_mask(m) : NULL;
}

/* scxpol_pool_llc_cpumask(), also giving the number of CPUs in it. */
static __always_inline const struct cpumask *
scxpol_pool__llc(const struct scxpol_pool_view *v, s32 pool, u32 llc, u32 *nr_cpus)
{
	struct scxpol_pool_mask *ms;
	struct bpf_cpumask *m;
	u32 key;

	*nr_cpus = 0;
	if (!scxpol_pool_valid(v, pool) || llc >= scxpol_pool_conf.max_llcs)
		return NULL;
	key = ((u32)pool * scxpol_pool_conf.max_llcs + llc) * 2 + v->half;
	ms = bpf_map_lookup_elem(&scxpol_pool_llcs, &key);
	/* a slot not rebuilt by this publication belongs to an older plan */
	if (!ms || ms->gen != v->gen)
		return NULL;
	m = ms->cpus;
	if (!m)
		return NULL;
	*nr_cpus = ms->nr_cpus;
	return scxpol_cast_mask(m);
}

/* The CPUs of @pool in LLC @llc, or NULL when it has none there. */
static __always_inline const struct cpumask *
scxpol_pool_llc_cpumask(const struct scxpol_pool_view *v, s32 pool, u32 llc)
{
	u32 nr;

	return scxpol_pool__llc(v, pool, llc, &nr);
}

/* Union masks: SCXPOL_POOL__LEND or SCXPOL_POOL__STEAL of @v's half. */
static __always_inline const struct cpumask *scxpol_pool__union(const struct scxpol_pool_view *v,
								 u32 kind)
{
	struct scxpol_pool_mask *ms;
	struct bpf_cpumask *m;
	u32 key = kind + v->half;

	ms = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	if (!v->gen || !ms || ms->gen != v->gen)
		return NULL;
	m = ms->cpus;
	return m ? scxpol_cast_mask(m) : NULL;
}

static __always_inline struct bpf_cpumask *scxpol_pool__borrowed(void)
{
	struct scxpol_pool_mask *ms;
	u32 key = SCXPOL_POOL__BORROWED;

	ms = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	return ms ? ms->cpus : NULL;
}

/* @pool's vtime clock; SCXPOL_POOL_SHARED (or any non-pool) gives the shared queue's. */
static __always_inline struct scxpol_vclock *scxpol_pool_vclock(s32 pool)
{
	u32 key = scxpol_pool_conf.max_pools;

	if (pool >= 0 && (u32)pool < scxpol_pool_conf.max_pools)
		key = (u32)pool;
	return bpf_map_lookup_elem(&scxpol_pool_clock, &key);
}

/* The DSQ of @pool; SCXPOL_POOL_SHARED gives the shared queue. */
static __always_inline u64 scxpol_pool_dsq(s32 pool)
{
	return pool >= 0 ? SCXPOL_DSQ_POOL(pool) : SCXPOL_DSQ_SHARED;
}

/*
 * Pending counts. A DSQ lookup (each move to the local DSQ, peek or depth
 * takes one) costs 200-300 instructions, and most dispatches of an idle
 * CPU look at queues that are empty. So scxpol_pool_enqueue() counts each
 * task it queues on a pool's queue or the shared queue in that queue's
 * scxpol_pool_pending entry, and the task's context remembers which
 * (scxpol_task_ctx.pending); the count is dropped when the task has
 * certainly left the queue: when it starts running (scxpol_pool_running()),
 * is dequeued (scxpol_pool_quiescent(): a property change, a class change)
 * or is enqueued again. The count is raised before the kernel inserts the
 * task and dropped after it took it out, so it is never below the queue's
 * length, and dispatch skips a queue whose count is 0
 * (scxpol_pool__maybe_queued()): a look that would have found it empty,
 * but for a task being inserted at that moment, which a look at the queue
 * could miss as well (its enqueue kicks a CPU of its pool). A task whose
 * drop the policy does not wire (no ops.quiescent, and it left sched_ext)
 * leaves its count up: dispatch then looks at that queue every time, as
 * without counts. Only tasks queued by scxpol_pool_enqueue() count:
 * dispatch would skip a task a policy inserted into these queues itself.
 */
static __always_inline u32 scxpol_pool__pending_key(u64 dsq)
{
	return dsq == SCXPOL_DSQ_SHARED ? scxpol_pool_conf.max_pools :
					  (u32)(dsq - SCXPOL_DSQ_POOL(0));
}

/* Count @t's task as queued on @dsq (a pool's queue or the shared queue). */
static __always_inline void scxpol_pool__pending_add(struct scxpol_task_ctx *t, u64 dsq)
{
	u32 key = scxpol_pool__pending_key(dsq);
	s64 *n = bpf_map_lookup_elem(&scxpol_pool_pending, &key);

	if (!n)
		return;
	__sync_fetch_and_add(n, 1);
	/* without a context the count can never be dropped: it stays up, which is safe */
	if (t)
		t->pending = key + 1;
}

/* Drop @t's count, if it has one: its task is not on that queue any more. */
static __always_inline void scxpol_pool__pending_drop(struct scxpol_task_ctx *t)
{
	u32 key;
	s64 *n;

	if (!t || !t->pending)
		return;
	key = t->pending - 1;
	t->pending = 0;
	n = bpf_map_lookup_elem(&scxpol_pool_pending, &key);
	if (n)
		__sync_fetch_and_sub(n, 1);
}

/* @dsq's pending count; NULL for a queue without one (not a pool's queue or the shared queue). */
static __always_inline s64 *scxpol_pool__pending_of(u64 dsq)
{
	u32 key;

	if (dsq != SCXPOL_DSQ_SHARED && (dsq < SCXPOL_DSQ_POOL(0) ||
					 dsq >= SCXPOL_DSQ_POOL(scxpol_pool_conf.max_pools)))
		return NULL;
	key = scxpol_pool__pending_key(dsq);
	return bpf_map_lookup_elem(&scxpol_pool_pending, &key);
}

/* Whether a task may be waiting on @dsq: false only for a counted queue whose count is 0. */
static __always_inline bool scxpol_pool__maybe_queued(u64 dsq)
{
	s64 *n = scxpol_pool__pending_of(dsq);

	return !n || READ_ONCE(*n) > 0;
}

/* A repair's mark on a count: far above any number of queued tasks. */
#define SCXPOL_POOL__REPAIRED (1LL << 32)

/*
 * From the watch, which found a task on the queue of count @key: a count
 * of 0 there means a task the counts missed (a policy's own insert), which
 * dispatch would skip forever. Mark the count (SCXPOL_POOL__REPAIRED), so
 * that dispatch looks again, until a look finds the queue empty
 * (scxpol_pool__pending_unmark()). The mark is not for good: the task the
 * watch saw may have been taken and counted off in the meantime, and a
 * count left up for an empty queue would keep dispatch looking at it and
 * scxpol_pool__steal_idle() refusing its pool.
 */
static __always_inline void scxpol_pool__pending_repair(u32 key)
{
	s64 *n = bpf_map_lookup_elem(&scxpol_pool_pending, &key);

	if (n && READ_ONCE(*n) <= 0) {
		__sync_fetch_and_add(n, SCXPOL_POOL__REPAIRED);
		scxpol_stat_inc(SCXPOL_STAT_PENDING_REPAIR);
	}
}

/*
 * A look at @dsq, whose count is @n, found nothing to take: if the count
 * carries a repair's mark and the queue is empty, take the mark off (the
 * tasks counted stay counted). A task a policy inserts past the counts
 * afterwards is the watch's to find again. Costs a DSQ lookup only while a
 * mark is on.
 */
static __always_inline void scxpol_pool__pending_unmark(u64 dsq, s64 *n)
{
	s64 old = READ_ONCE(*n);

	if (old < SCXPOL_POOL__REPAIRED || scx_bpf_dsq_nr_queued(dsq) > 0)
		return;
	/* a count that moved meanwhile keeps the mark until the next look */
	__sync_val_compare_and_swap(n, old, old - SCXPOL_POOL__REPAIRED);
}

/* Tasks waiting on @pool's queue (SCXPOL_POOL_SHARED: the shared queue). */
static __always_inline u32 scxpol_pool_depth(s32 pool)
{
	return scxpol_dsq_depth(scxpol_pool_dsq(pool));
}

/* Tasks pinned to @cpu waiting on its two queues (scxpol_pool_enqueue()). */
static __always_inline u32 scxpol_pool_pinned_depth(s32 cpu)
{
	return scxpol_dsq_depth(SCXPOL_DSQ_CPU(cpu)) + scxpol_dsq_depth(SCXPOL_DSQ_CPU_SHARED(cpu));
}

/*
 * Whether tasks pinned to @cpu may wait on its queues, from ops.dispatch on
 * @cpu (a policy that keeps a task on the CPU by itself, without
 * dispatching, should not while this says true). Most dispatches find
 * none, and on kernels without scx_bpf_dsq_peek() each queue costs a DSQ
 * lookup, so enqueueing counts them in @cpu's scxpol_pool_curr
 * (scxpol_pool__pinned_note()) and this
 * looks at the queues only while that count is not 0, which it resets
 * when they are empty. The reset comes before the look: an enqueue after
 * it counts again, one before it shows in the queues. An enqueue that
 * counts just after a 0 was read kicks @cpu, which then dispatches again.
 */
static __always_inline bool scxpol_pool_pinned_waiting(s32 cpu)
{
	u32 key = (u32)cpu;
	struct scxpol_pool_curr *cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);

	if (!cur)
		return true;
	if (!READ_ONCE(cur->pinned))
		return false;
	__sync_lock_test_and_set(&cur->pinned, 0);
	if (!scxpol_pool_pinned_depth(cpu))
		return false;
	__sync_fetch_and_add(&cur->pinned, 1);
	return true;
}

/*
 * From ops.dispatch on @cpu with @prev still runnable: its slice ran out.
 * If it runs on (kept, by scxpol_pool__keep() or by the kernel when
 * nothing else came), wakers compare with its own vtime: a task queued at
 * the head (scxpol_pool_running()) is spared for one slice only.
 */
static __always_inline void scxpol_pool__curr_requeued(s32 cpu, const struct task_struct *prev)
{
	u32 key = (u32)cpu;
	struct scxpol_pool_curr *cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);

	if (cur)
		cur->vtime = prev->scx.dsq_vtime;
}

/* Count a task queued as pinned to @cpu (scxpol_pool_pinned_waiting()). */
static __always_inline void scxpol_pool__pinned_note(s32 cpu)
{
	u32 key = (u32)cpu;
	struct scxpol_pool_curr *cur = bpf_map_lookup_elem(&scxpol_pool_curr, &key);

	if (cur)
		__sync_fetch_and_add(&cur->pinned, 1);
}

#endif
