/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The simulated kernel's state, shared by the files of libscxpol-sim that
 * implement it (kernel.c, cpumask.c, dsq.c, maps.c) and drive it
 * (engine.c), and by the unit tests' fake (tests/bpf-host). Not installed.
 *
 * One kernel per process: the kfuncs policies call take no context, as in
 * the kernel. Two modes:
 *   attached  the engine (engine.c) runs it: inserts from ops.select_cpu
 *             and ops.enqueue are direct-dispatch verdicts carried out
 *             after the callback, those from ops.dispatch are buffered
 *             until it returns, kicks and timers become events, and an
 *             error ends the scheduler, all as kernel/sched/ext.c does;
 *   detached  the unit tests of the helpers drive it by hand: inserts
 *             take effect at once, kicks, timers and errors are only
 *             recorded, and idle CPUs are picked lowest first.
 */
#ifndef SCXPOL_SIM_KERNEL_H
#define SCXPOL_SIM_KERNEL_H

#include <stdio.h>

#include <scxpol/sim/host.h>

#include "idtab.h"

#define SIM_BITS (8 * sizeof(unsigned long))
#define SIM_MASK_WORDS(n) (((n) + SIM_BITS - 1) / SIM_BITS)
#define SIM_MAX_KICKS 1024
#define SIM_MAX_TIMERS 16
#define SIM_MSG_LEN 1024
/* task_struct.flags: PF_EXITING (include/linux/sched.h) */
#define SIM_PF_EXITING 0x00000004
/* The kernel's SCX_DSP_DFL_MAX_BATCH: inserts one ops.dispatch may buffer. */
#define SIM_DSP_MAX_BATCH 32
/* The kernel's SCX_DSP_MAX_LOOPS: ops.dispatch calls per balance. */
#define SIM_DSP_MAX_LOOPS 32
/* Tasks bpf_task_from_pid() finds in detached mode (sim_task_hash()). */
#define SIM_MAX_HASHED 16

/* A dispatch queue: FIFO, or ordered by vtime (a treap keyed by vtime, then insertion). */
struct scxpol_sim_dsq {
	u64 id;
	bool priq;		/* vtime-ordered (has vtime-inserted tasks) */
	u32 nr;
	s32 cpu;		/* the CPU of a local DSQ, -1 for others */
	struct task_struct *first, *last;
	struct task_struct *root;	/* vtime DSQs: the treap */
	u64 seq;		/* insertions so far */
};

/* The callback the kernel is running, for the kfuncs' rules (attached mode). */
enum sim_op {
	SIM_OP_NONE,		/* detached, or not in a callback */
	SIM_OP_SELECT_CPU,
	SIM_OP_ENQUEUE,
	SIM_OP_DISPATCH,
	SIM_OP_OTHER,		/* running, stopping, tick, timers, init... */
};

struct sim_cpu {
	s32 core, llc, node;
	bool online;
	struct scxpol_sim_dsq local;
	struct task_struct *curr;	/* NULL: its idle task runs */
	/*
	 * The task it switches away from, the kernel's current until the
	 * context switch: set through put_prev and the next task's
	 * ops.running, where curr is already NULL.
	 */
	struct task_struct *switching;
	struct task_struct idle;	/* the idle task (pid 0), for bpf_get_current_task_btf() */
	u32 distribute_prev;		/* cpumask_any_and_distribute()'s per-CPU start */
	struct cpumask smt;		/* its core's CPUs */
	struct cpumask llc_span, node_span;	/* its LLC's and its node's */
};

struct sim_kick {
	s32 cpu;
	u64 flags;
};

struct sim_insert {
	struct task_struct *p;
	u64 dsq_id;
	u64 slice;
	u64 vtime;
	u64 enq_flags;
	bool vtime_insert;
};

/* An engine event: ordered by (at, seq); embedded in what it is about. */
struct sim_event {
	u64 at, seq;
	u32 idx;	/* 1-based place in the engine's heap, 0: not queued */
	u8 kind;
};

struct sim_timer {
	const struct bpf_timer *t;
	void *map;		/* the map def it lives in */
	void *cb;
	u64 ns;			/* delay of the last start (detached mode records it) */
	s32 cpu;		/* the CPU that started it: its callback runs there */
	struct sim_event ev;	/* attached: when it fires */
};

struct sim_kernel {
	u32 nr_cpus;
	struct sim_cpu cpus[SCXPOL_SIM_MAX_CPUS];
	struct cpumask idle, idle_smt, online, possible;
	bool smt_active;
	bool multi_llc, multi_node;	/* more than one LLC, node */
	s32 cur_cpu;		/* where the running callback runs */
	u64 now;

	struct engine *engine;	/* NULL: detached */
	enum sim_op op;
	struct task_struct *ddsp_task;	/* the task select_cpu/enqueue may direct-dispatch */
	struct sim_insert dsp_buf[SIM_DSP_MAX_BATCH];
	u32 dsp_cursor;

	struct idtab dsqs;	/* custom DSQs by id */
	struct scxpol_sim_dsq global;

	/* records (detached mode) and counts (both) */
	struct sim_kick kicks[SIM_MAX_KICKS];
	u32 nr_kicks;
	struct sim_insert last_insert;
	u32 nr_inserts, nr_moves;
	u32 dsp_nr_tasks;	/* tasks ops.dispatch moved or inserted (the dispatch loop's) */
	u32 nr_errors;
	char first_error[SIM_MSG_LEN], last_error[SIM_MSG_LEN];
	struct sim_timer timers[SIM_MAX_TIMERS];
	u32 nr_timers;
	int cpumasks_live;
	int cpumask_creates_left;	/* -1: never fail */
	bool pick_lowest;	/* detached: idle CPUs lowest first, not distributed */
	struct task_struct *hashed[SIM_MAX_HASHED];	/* detached: findable by id */
	int tasks_held;		/* bpf_task_from_pid() not yet released */
};

extern struct sim_kernel sim_k;

/* An internal error of the simulator or a test: print and abort. */
void sim_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* --- kernel.c ---------------------------------------------------------------- */
/*
 * Forget everything and make @nr_cpus online CPUs, each its own core, LLC
 * and node, all idle, detached. The maps and cpumasks are freed too.
 */
void sim_kernel_reset(u32 nr_cpus);
/* Recompute the SMT masks and smt_active after the cores changed. */
void sim_kernel_topology_done(void);
/* Mark @cpu idle (its idle task runs) or busy, keeping the SMT mask. */
void sim_cpu_set_idle(s32 cpu, bool idle);
/*
 * A policy error (scx_error()): detached, record it; attached, end the
 * scheduler with @kind (SCX_EXIT_ERROR...).
 */
void sim_error(s32 kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The timer slot of @t, or NULL. */
struct sim_timer *sim_timer_find(const struct bpf_timer *t);
/*
 * Detached mode: make @p findable by bpf_task_from_pid() (its id hashed, as
 * a live task), or no longer (release_task() at its exit).
 */
void sim_task_hash(struct task_struct *p);
void sim_task_unhash(struct task_struct *p);

/* --- cpumask.c --------------------------------------------------------------- */
static inline bool sim_mask_test(const struct cpumask *m, u32 cpu)
{
	return cpu < SCXPOL_SIM_MAX_CPUS && (m->bits[cpu / SIM_BITS] >> (cpu % SIM_BITS)) & 1;
}

static inline void sim_mask_set(struct cpumask *m, u32 cpu)
{
	if (cpu < SCXPOL_SIM_MAX_CPUS)
		m->bits[cpu / SIM_BITS] |= 1UL << (cpu % SIM_BITS);
}

static inline void sim_mask_clear(struct cpumask *m, u32 cpu)
{
	if (cpu < SCXPOL_SIM_MAX_CPUS)
		m->bits[cpu / SIM_BITS] &= ~(1UL << (cpu % SIM_BITS));
}

/* The first CPU >= @from set in both @a and @b (@b may be NULL), or nr_cpus. */
u32 sim_mask_next_and(const struct cpumask *a, const struct cpumask *b, u32 from);
/* The first CPU set in both after @prev, wrapping around; nr_cpus if none. */
u32 sim_mask_next_and_wrap(const struct cpumask *a, const struct cpumask *b, u32 prev);
u32 sim_mask_weight(const struct cpumask *m);
void sim_cpumasks_free(void);

/* --- dsq.c ------------------------------------------------------------------- */
void sim_dsq_init(struct scxpol_sim_dsq *d, u64 id, s32 cpu);
void sim_dsqs_free(void);
struct scxpol_sim_dsq *sim_dsq_find(u64 id);
/* Queue @p on @d: by @vtime when @priq, else at the tail (the head with @head). */
void sim_dsq_add(struct scxpol_sim_dsq *d, struct task_struct *p, bool priq, bool head);
/* Take @p off its DSQ. */
void sim_dsq_remove(struct task_struct *p);
/* The task after @p in @p's DSQ's order. */
static inline struct task_struct *sim_dsq_next(const struct task_struct *p)
{
	return p->scx.dsq_next;
}
/*
 * What an insert with @dsq_id from the current context means for @p: the
 * DSQ, or NULL after reporting the kernel's error (non-existent DSQ,
 * invalid CPU of SCX_DSQ_LOCAL_ON).
 */
/*
 * The DSQ an insert of @p with @dsq_id means, SCX_DSQ_LOCAL being
 * @local_cpu's; on a bad id the kernel's error, and the global DSQ.
 */
struct scxpol_sim_dsq *sim_dsq_for_dispatch(u64 dsq_id, struct task_struct *p, s32 local_cpu);
/*
 * Put @p on @d with @enq_flags (the kernel's dispatch_enqueue()), with the
 * vtime order when @priq. Inserting into a local DSQ wakes its CPU if idle
 * or preempts it with SCX_ENQ_PREEMPT (attached).
 */
void sim_dispatch_enqueue(struct scxpol_sim_dsq *d, struct task_struct *p, u64 enq_flags,
			  bool priq);
/*
 * Move @p, which the kernel owns (direct dispatch or dispatch buffer), into
 * the local DSQ @d (the kernel's dispatch_to_local_dsq()): a CPU @p may not
 * run on is the policy's error, and @p goes to the global DSQ.
 */
void sim_dispatch_to_local(struct scxpol_sim_dsq *d, struct task_struct *p, u64 enq_flags);
/* Move the first task of @d that @cpu may run to @cpu's local DSQ. */
bool sim_consume(struct scxpol_sim_dsq *d, s32 cpu);

/* --- maps.c ------------------------------------------------------------------ */
void sim_maps_free(void);
/* Free @p's task-storage values (the task exits). */
void sim_task_storage_free(struct task_struct *p);
/* The map def @def, its value size and the index of the value that holds @addr. */
bool sim_map_locate(void *def, const void *addr, u32 *key, void **value);

/* --- engine.c (attached mode) ------------------------------------------------- */
struct engine;
/* Have @cpu schedule: now if it is the current CPU, after an IPI if not. */
void engine_resched(struct engine *e, s32 cpu);
/* Carry out the inserts ops.dispatch buffered so far (the kernel's flush_dispatch_buf()). */
void engine_flush_dispatch(struct engine *e);
/* A kick from the current CPU, sent once the running callback returns. */
void engine_kick(struct engine *e, s32 cpu, u64 flags);
/* Arm @tm to fire in @ns. */
void engine_timer_start(struct engine *e, struct sim_timer *tm, u64 ns);
/* The policy broke a rule or called scx_bpf_error()/_exit(): end it. */
void engine_exit(struct engine *e, s32 kind, s64 code, const char *msg);
/* The live (not exited) task of id @pid, or NULL. */
struct task_struct *engine_task_by_pid(struct engine *e, s32 pid);

#endif
