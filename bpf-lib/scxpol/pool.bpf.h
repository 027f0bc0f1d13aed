/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU pools / scheduling domains, BPF side: the published pool table, idle
 * CPU selection inside a pool, queueing on a pool's vtime queue, the
 * dispatch order with work stealing, and lending/borrowing between soft
 * pools. Flags and layouts: <scxpol/abi/pool.h>; userspace builds plans with
 * <scxpol/pool.h> and publishes them with scxpol_pool_publish().
 *
 * The table. Userspace sizes the maps at load (scxpol_pool_setup(): the
 * number of possible CPUs and the policy's maximum pool count; no
 * compile-time CPU limit), stages a plan in the scxpol_pool_stage* maps and
 * runs the scxpol_pool_commit program below. The commit validates the plan
 * (rejecting it untouched, with a reason, and counting
 * SCXPOL_STAT_POOL_REJECT) and builds its cpumasks into the inactive half of
 * a double buffer, then bumps the generation. A callback takes one
 * snapshot with scxpol_pool_view() and reads only that half, so a resize is
 * atomic for it. (Userspace waits for an RCU grace period before each
 * commit, so no callback still reads the half being rebuilt.)
 *
 * Per pool: flags, a bpf_cpumask, one per (pool, LLC), an order list (the
 * other pools, nearest first), a vtime clock (struct scxpol_vclock, not
 * double-buffered: it carries over resizes) and a DSQ, SCXPOL_DSQ_POOL(i).
 * Per CPU: its pool, LLC and node (O(1) lookup), and the pool and vtime of
 * the task it runs (wakeup preemption). Plus the CPUs of all
 * lending pools, of all stealing pools, and the CPUs now running a borrowed
 * task.
 *
 * Callbacks to wire (each does one scxpol_task_ctx() lookup, of the task
 * or, in dispatch, of the previous task, and one scxpol_pool_view()):
 *   init       scxpol_pool_init()
 *   init_task  scxpol_task_init()
 *   enable     scxpol_pool_enable()
 *   select_cpu scxpol_pool_select_cpu()
 *   enqueue    scxpol_pool_enqueue()
 *   dispatch   scxpol_pool_dispatch_prev()
 *   running    scxpol_pool_running()
 *   stopping   scxpol_pool_stopping()
 *   quiescent  scxpol_pool_quiescent()
 * The policy decides which pool a task belongs to (a hint, a cgroup, its
 * comm...) and passes it in; -1 (SCXPOL_POOL_SHARED) means the shared
 * fallback queue, which every CPU serves after its own pool. It does so in
 * ops.select_cpu and ops.enqueue only: a task whose pool changes while it
 * runs (a rename, an exec) runs on where it was placed until its next
 * wakeup, or until a slice end at which another task takes its CPU (the
 * dispatch may keep it by its last placement, and the kernel keeps a
 * task alone on its CPU without calling ops.enqueue). A policy
 * that kicks CPUs itself does it with scxpol_pool_kick(), and one that
 * queues tasks on the pools' queues or the shared queue does it with
 * scxpol_pool_enqueue(): dispatch trusts its counts (scxpol_pool__pending_add()).
 *
 * It defines programs and global functions (doc/conventions.md): include
 * it in one .bpf.c of a BPF object.
 */
#ifndef SCXPOL_POOL_BPF_H
#define SCXPOL_POOL_BPF_H

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
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif

/* The shared queue where a pool index is expected. */
#define SCXPOL_POOL_SHARED (-1)

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

/* How often the watch looks for queued tasks no CPU was woken for (scxpol_pool__watch()). */
#ifndef SCXPOL_POOL_WATCH_NS
#define SCXPOL_POOL_WATCH_NS 50000000ULL
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

/* --- kicks --------------------------------------------------------------- */

/*
 * Wake @cpu: scx_bpf_kick_cpu(@cpu, @flags), @flags 0, SCXPOL_KICK_IDLE or
 * SCXPOL_KICK_PREEMPT. Policies kick through this, never the kfunc itself.
 * A kick queues IRQ work on the kicking CPU, and raises the interrupt that
 * runs it only if that CPU's queue was empty. A CPU going offline leaves
 * the online mask, runs its IRQ work one last time, and still wakes tasks
 * after that with its interrupts off for good (its stopper thread wakes the
 * task that asked for the offlining: ops.enqueue runs there). Work queued
 * then never runs and is still queued when the CPU comes back, so every
 * later kick and scheduler exit queued on that CPU waits behind it with no
 * interrupt, and disabling the scheduler waits for it forever. From a CPU
 * out of the online mask the kick is left to the watch, which sends it from
 * a live CPU within SCXPOL_POOL_WATCH_NS (counted in SCXPOL_STAT_WATCH_KICK):
 * the CPU it was meant for may have been claimed from the idle mask
 * already, and nothing else would wake it.
 */
static __always_inline void scxpol_pool_kick(s32 cpu, u64 flags)
{
	const struct cpumask *online = scx_bpf_get_online_cpumask();
	bool up = bpf_cpumask_test_cpu(bpf_get_smp_processor_id(), online);
	struct scxpol_pool_watch *w;
	struct scxpol_pool_curr *c;
	u32 key = (u32)cpu, zero = 0;

	scx_bpf_put_cpumask(online);
	if (up) {
		scx_bpf_kick_cpu(cpu, flags);
		return;
	}
	c = bpf_map_lookup_elem(&scxpol_pool_curr, &key);
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

/* --- ops.init / ops.enable ----------------------------------------------- */

static int scxpol_pool__watch_fn(void *map, int *key, struct scxpol_pool_watch *w);

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

/*
 * How far ahead of its pool's clock a task is queued at most, in slices of
 * its weighted charge (scxpol_pool_assign()).
 */
#ifndef SCXPOL_POOL_MAX_LEAD_SLICES
#define SCXPOL_POOL_MAX_LEAD_SLICES 2
#endif

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
	lead = scxpol_vtime_scale(slice, p->scx.weight) * SCXPOL_POOL_MAX_LEAD_SLICES;
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
 * was ahead. And in any pool its lead is bounded: at most
 * SCXPOL_POOL_MAX_LEAD_SLICES of its weighted slice charge ahead of the
 * clock (a task kept running alone for many slices, which the clock does
 * not follow, would otherwise wait for all of them), so a queued task
 * reaches the head of its queue within a bounded time.
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
 * ops.enqueue for a task of @pool (SCXPOL_POOL_SHARED: the shared queue):
 * insert it into the pool's queue at its vtime on the pool's clock
 * (scxpol_pool_assign() moves it there from the clock of its previous
 * pool and bounds its lead, then scxpol_vtime_enqueue_ctx(); a task
 * flagged as a busy poller goes one @slice later and counts
 * SCXPOL_STAT_BUSY_POLL_DEMOTE), then make sure a
 * CPU will pick it up soon (see scxpol_pool__wake(): an idle CPU, wakeup
 * preemption, reclaim, lending, stealing). A task whose affinity misses
 * its pool goes to the shared queue.
 *
 * A task pinned to one CPU goes to a queue of that CPU's own: only that
 * CPU can run it, and there it competes by vtime with the queue it would
 * otherwise be in (scxpol_pool_dispatch_prev()). A task of the CPU's pool
 * goes to SCXPOL_DSQ_CPU(cpu), on the pool's clock, to compete with the
 * pool's queue; any other (the CPU is in another pool or none: its
 * affinity misses its pool) to SCXPOL_DSQ_CPU_SHARED(cpu), on the shared
 * clock, to compete with the shared queue. In the pool's queue, which
 * other CPUs serve first, it could starve; in the CPU's local DSQ, which
 * the kernel serves before ops.dispatch, it would never yield the CPU to
 * other tasks (a pinned CPU hog would starve them).
 *
 * Except a kernel thread bound to one CPU (a kworker, ksoftirqd), in no
 * pool: it goes to that CPU's local DSQ, to run when the current task's
 * slice ends (SCXPOL_STAT_KTHREAD_LOCAL). Such threads do work others wait
 * for, often under a lock (css_release_work_fn() holds cgroup_mutex, which
 * every cgroup mkdir, rmdir and fork into a cgroup takes): queued behind a
 * pool's backlog, a preempted one held up those tasks for seconds. One
 * that has used up SCXPOL_POOL_KTHREAD_SLICES slices in a row without
 * sleeping is queued like a pinned task: the kernel serves the local DSQ
 * before ops.dispatch, so busy ones there would keep the CPU from
 * everything else.
 *
 * Returns whether it woke or preempted a CPU for @p (or put @p where a CPU
 * will run it: a bound kernel thread's local DSQ, a pinned task's CPU);
 * false when @p waits in its pool's queue with every CPU that could take
 * it busy, for a policy that then makes room (scxpol_pool_preempt_pool()).
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
	/* from when it may starve there (scxpol_pool__stranded()) */
	if (t && pm)
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
 * ops.dispatch on @cpu (@prev: ops.dispatch's previous task, or NULL), with
 * a turn for other queues every @shared_every-th dispatch: move one task
 * to the CPU's local DSQ, looking in this order: @cpu's pool queue and
 * the queue of the pool's tasks pinned to @cpu, whose heads compete by
 * vtime (a pinned task queued on another pool's clock, before a resize
 * moved @cpu, goes first), with a still-runnable @prev of the pool (it keeps the CPU if it
 * is ahead of both: scxpol_pool__keep()) -> the shared queue and the
 * queue of other tasks pinned to @cpu, the same way
 * -> (a STEAL pool) the queues of the other STEAL pools, nearest first ->
 * (a LEND pool) the queues of BORROW pools not looked at already, nearest
 * first -> if the watch last saw a stranded head (scxpol_pool__watch()),
 * that task. Every @shared_every-th dispatch on a CPU looks first
 * for a task stranded or starving in another pool's queue
 * (scxpol_pool_stranded(); counted as a steal), then at the shared queue;
 * with 0 never (Algorithm 2's order: a stranded task waits for the watch's
 * rescue, the shared queue for the pool's queue to empty). A CPU in no pool
 * serves the shared queue (and its pinned tasks) only, and stranded tasks.
 * Counts where the task came from (SCXPOL_STAT_DISPATCH_*) and returns it
 * (enum scxpol_pool_source).
 */
static __always_inline int scxpol_pool_dispatch_every(const struct scxpol_pool_view *v, s32 cpu,
						      struct task_struct *prev, u32 shared_every)
{
	struct scxpol_pool_watch *w;
	struct scxpol_pool_pcpu *pc;
	struct scxpol_pool_slot *s;
	bool shared_first = false, pinned = false, waiting;
	u32 zero = 0, flags = 0, nr_order = 0;
	s32 pool = scxpol_pool_of_cpu(v, cpu), pin_pool = pool;
	/* set even when unused: the compiler may spill it, the verifier rejects uninitialised reads */
	u64 pin = 0;
	int src;

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

/* --- publication (userspace runs these with bpf_prog_test_run_opts) ------ */

static __always_inline int scxpol_pool__reject(struct scxpol_pool_commit_args *a, int err,
					       u32 reason, s32 pool, s32 cpu, s32 other)
{
	a->err = -err;
	a->reason = reason;
	a->pool = pool;
	a->cpu = cpu;
	a->other = other;
	if (reason != SCXPOL_POOL_REJ_NOMEM)
		scxpol_stat_inc(SCXPOL_STAT_POOL_REJECT);
	return -err;
}

/* Check the staged plan of @nr_pools pools; fill each pool's nr_cpus. */
static __always_inline int scxpol_pool__validate(struct scxpol_pool_commit_args *a, u32 nr_pools)
{
	u32 max_pools = scxpol_pool_conf.max_pools, nr_words = scxpol_pool_conf.nr_words;
	u32 nr_ids = scx_bpf_nr_cpu_ids();
	bool cover = scxpol_pool_conf.require & SCXPOL_POOL_REQ_COVER;
	struct scxpol_pool_cpu *sc;
	struct scxpol_pool_desc *d;
	u32 p, k, key, cpu, q, nr_bare = 0;
	s32 owner, bare = -1;
	u64 *w;
	u32 *qp;

	bpf_for(p, 0, nr_pools) {
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (!d)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p, -1, -1);
		if (d->flags & ~SCXPOL_POOL_FLAGS_ALL)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_FLAGS, p, -1, d->flags);
		if (d->nr_order > nr_pools - 1)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_ORDER, p, -1,
						   d->nr_order);
		d->nr_cpus = 0;
		bpf_for(k, 0, d->nr_order) {
			key = p * max_pools + k;
			qp = bpf_map_lookup_elem(&scxpol_pool_stage_order, &key);
			if (!qp)
				return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p,
							   -1, -1);
			q = *qp;
			if (q >= nr_pools || q == p)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_ORDER, p, -1, q);
		}
	}
	bpf_for(cpu, 0, nr_words * 64) {
		owner = -1;
		bpf_for(p, 0, nr_pools) {
			key = p * nr_words + cpu / 64;
			w = bpf_map_lookup_elem(&scxpol_pool_stage_mask, &key);
			if (!w || !((*w >> (cpu & 63)) & 1))
				continue;
			if (owner >= 0)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_OVERLAP, owner,
							   cpu, p);
			owner = p;
		}
		sc = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);
		if (owner < 0) {
			if (sc && sc->pool != -1)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_CPU_TABLE,
							   -1, cpu, sc->pool);
			if (cover && sc && (sc->flags & SCXPOL_POOL_CPU_ONLINE)) {
				if (bare < 0)
					bare = (s32)cpu;
				nr_bare++;
			}
			continue;
		}
		if (cpu >= nr_ids || !sc)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_CPU_RANGE, owner, cpu,
						   nr_ids);
		if (sc->pool != owner)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_CPU_TABLE, owner, cpu,
						   sc->pool);
		if (sc->llc >= scxpol_pool_conf.max_llcs)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_LLC_RANGE, owner, cpu,
						   sc->llc);
		key = (u32)owner;
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &key);
		if (d)
			d->nr_cpus++;
	}
	bpf_for(p, 0, nr_pools) {
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (d && !d->nr_cpus)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_EMPTY, p, -1, -1);
	}
	if (bare >= 0)
		return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_UNCOVERED, -1, bare,
					   (s32)nr_bare);
	return 0;
}

/* Put a new empty cpumask into slot @ms (dropping the old one), stamped @gen. */
static __always_inline int scxpol_pool__fresh(struct scxpol_pool_mask *ms, u64 gen)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (!m)
		return -ENOMEM;
	m = bpf_kptr_xchg(&ms->cpus, m);
	if (m)
		bpf_cpumask_release(m);
	ms->gen = gen;
	ms->nr_cpus = 0;
	return 0;
}

/* Set @cpu in the cpumask of slot @ms (if any); in an RCU read section. */
static __always_inline void scxpol_pool__set(struct scxpol_pool_mask *ms, u32 cpu)
{
	struct bpf_cpumask *m = ms->cpus;

	if (m) {
		bpf_cpumask_set_cpu(cpu, m);
		ms->nr_cpus++;
	}
}

/* Build the validated plan into half @h for generation @gen. */
static __always_inline int scxpol_pool__build(struct scxpol_pool_commit_args *a, u32 nr_pools,
					      u64 gen, u32 h)
{
	u32 max_pools = scxpol_pool_conf.max_pools, max_llcs = scxpol_pool_conf.max_llcs;
	struct scxpol_pool_mask *ms, *lend, *steal;
	struct scxpol_pool_cpu *sc, *dc;
	struct scxpol_pool_desc *d;
	struct scxpol_pool_slot *s;
	struct bpf_cpumask *m;
	u32 p, k, cpu, key, src, flags;
	u32 *qp, *dq;

	bpf_for(p, 0, max_pools) {
		key = p * 2 + h;
		s = bpf_map_lookup_elem(&scxpol_pool_slots, &key);
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (!s || !d)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p, -1, -1);
		m = NULL;
		if (p < nr_pools) {
			s->desc = *d;
			m = bpf_cpumask_create();
			if (!m)
				return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, p, -1, -1);
		} else {
			__builtin_memset(&s->desc, 0, sizeof(s->desc));
		}
		m = bpf_kptr_xchg(&s->cpus, m);
		if (m)
			bpf_cpumask_release(m);
		if (p >= nr_pools)
			continue;
		bpf_for(k, 0, s->desc.nr_order) {
			src = p * max_pools + k;
			key = src * 2 + h;
			qp = bpf_map_lookup_elem(&scxpol_pool_stage_order, &src);
			dq = bpf_map_lookup_elem(&scxpol_pool_order, &key);
			if (qp && dq)
				*dq = *qp;
		}
	}
	key = SCXPOL_POOL__LEND + h;
	lend = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	key = SCXPOL_POOL__STEAL + h;
	steal = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	if (!lend || !steal)
		return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, -1, -1);
	if (scxpol_pool__fresh(lend, gen) || scxpol_pool__fresh(steal, gen))
		return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, -1, -1, -1);
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		sc = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);
		key = cpu * 2 + h;
		dc = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		if (!sc || !dc)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, cpu, -1);
		*dc = *sc;
		if (sc->pool < 0)
			continue;
		key = ((u32)sc->pool * max_llcs + sc->llc) * 2 + h;
		ms = bpf_map_lookup_elem(&scxpol_pool_llcs, &key);
		if (ms && ms->gen != gen && scxpol_pool__fresh(ms, gen))
			return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, sc->pool, cpu, -1);
		key = (u32)sc->pool * 2 + h;
		s = bpf_map_lookup_elem(&scxpol_pool_slots, &key);
		if (!s)
			continue;
		flags = s->desc.flags;
		bpf_rcu_read_lock();
		m = s->cpus;
		if (m)
			bpf_cpumask_set_cpu(cpu, m);
		if (ms)
			scxpol_pool__set(ms, cpu);
		if (flags & SCXPOL_POOL_LEND)
			scxpol_pool__set(lend, cpu);
		if (flags & SCXPOL_POOL_STEAL)
			scxpol_pool__set(steal, cpu);
		bpf_rcu_read_unlock();
	}
	return 0;
}

/*
 * After a failed build of half @h for @gen: the next commit builds that
 * half for @gen again, and would take a per-LLC mask this one stamped
 * (holding its plan's CPUs) as rebuilt already.
 */
static __always_inline void scxpol_pool__unstamp(u64 gen, u32 h)
{
	struct scxpol_pool_mask *ms;
	u32 i, key;

	bpf_for(i, 0, scxpol_pool_conf.max_pools * scxpol_pool_conf.max_llcs) {
		key = i * 2 + h;
		ms = bpf_map_lookup_elem(&scxpol_pool_llcs, &key);
		if (ms && ms->gen == gen)
			ms->gen = 0;
	}
}

/*
 * Publish the staged plan of @a->nr_pools pools (see <scxpol/abi/pool.h>):
 * validate, build the inactive half, flip the generation, and kick the CPUs
 * whose pool changed so they pick from their new pool at once. Returns 0 or
 * a negative errno, with the reason in @a.
 */
int scxpol_pool_commit(struct scxpol_pool_commit_args *a);
SEC("syscall")
int scxpol_pool_commit(struct scxpol_pool_commit_args *a)
{
	struct scxpol_pool_cpu *was, *now;
	struct scxpol_pool_state *st;
	u32 zero = 0, nr_pools = a->nr_pools, h, cpu, key;
	u64 gen;
	int ret;

	a->err = 0;
	a->reason = SCXPOL_POOL_REJ_NONE;
	a->pool = -1;
	a->cpu = -1;
	a->other = -1;
	st = bpf_map_lookup_elem(&scxpol_pool_state, &zero);
	if (!st || !scxpol_pool_conf.max_pools)
		return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, -1, -1);
	if (!nr_pools || nr_pools > scxpol_pool_conf.max_pools)
		return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_NR_POOLS, -1, -1,
					   (s32)nr_pools);
	ret = scxpol_pool__validate(a, nr_pools);
	if (ret)
		return ret;
	gen = st->gen + 1;
	h = (u32)gen & 1;
	ret = scxpol_pool__build(a, nr_pools, gen, h);
	if (ret) {
		scxpol_pool__unstamp(gen, h);
		return ret;
	}
	st->nr_pools[h] = nr_pools;
	/* a full barrier: readers that see the new generation see its half */
	__sync_fetch_and_add(&st->gen, 1);
	a->gen = gen;
	scxpol_stat_inc(SCXPOL_STAT_POOL_COMMIT);
	if (gen == 1)
		return 0;
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		key = cpu * 2 + (h ^ 1);
		was = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		key = cpu * 2 + h;
		now = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		if (was && now && was->pool != now->pool && cpu < scx_bpf_nr_cpu_ids())
			scxpol_pool_kick((s32)cpu, SCXPOL_KICK_PREEMPT);
	}
	return 0;
}

/* Fill scxpol_pool_queued with every pool's queue depth (last: shared). */
int scxpol_pool_query(struct scxpol_pool_query_args *a);
SEC("syscall")
int scxpol_pool_query(struct scxpol_pool_query_args *a)
{
	struct scxpol_pool_state *st;
	u32 zero = 0, i;
	u32 *q;

	bpf_for(i, 0, scxpol_pool_conf.max_pools + 1) {
		q = bpf_map_lookup_elem(&scxpol_pool_queued, &i);
		if (q)
			*q = scxpol_pool_depth(i < scxpol_pool_conf.max_pools ? (s32)i :
							 SCXPOL_POOL_SHARED);
	}
	st = bpf_map_lookup_elem(&scxpol_pool_state, &zero);
	a->gen = st ? st->gen : 0;
	a->nr_pools = st && st->gen ? st->nr_pools[st->gen & 1] : 0;
	return 0;
}

#endif
