/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libscxpol-sim: a deterministic discrete-event simulator of a machine of
 * up to SCXPOL_SIM_MAX_CPUS CPUs running either a sched_ext policy (BPF C
 * compiled for the host against <scxpol/sim/host.h>, called through its
 * struct sched_ext_ops exactly as kernel/sched/ext.c calls it) or a model
 * of EEVDF, the kernel's default scheduler. doc/sim.md describes the
 * model and every simplification against the kernel.
 *
 * A simulation is a machine (CPUs, their cores, LLCs and nodes, a tick, a
 * context-switch cost, an IPI latency), one scheduler and tasks. A task
 * runs CPU bursts; what it does after each (run again, sleep, block until
 * another task wakes it, exit) is decided by its behaviour, a callback
 * (struct scxpol_sim_task_opts). Behaviours and other code can schedule
 * their own events (scxpol_sim_at()). The same inputs give the same
 * events in the same order: everything is ordered by (time, insertion
 * number), and randomness comes only from the caller's seeded
 * struct scxpol_sim_rng.
 *
 * Errors follow libscxpol's conventions: negative errno returns, NULL with
 * errno for constructors, the message in scxpol_sim_last_error().
 */
#ifndef SCXPOL_SIM_H
#define SCXPOL_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCXPOL_SIM_API __attribute__((visibility("default")))

struct scxpol_sim;
struct scxpol_sim_task;
struct sched_ext_ops;

/* The last error's message (thread-local), "" if none. */
SCXPOL_SIM_API const char *scxpol_sim_last_error(void);

/* --- randomness ------------------------------------------------------------- */
/* xoshiro256**: a stream per user, seeded with scxpol_sim_rng_seed(). */
struct scxpol_sim_rng {
	uint64_t s[4];
};

/* Seed @r from @seed and @stream (e.g. a workload component's index). */
SCXPOL_SIM_API void scxpol_sim_rng_seed(struct scxpol_sim_rng *r, uint64_t seed, uint64_t stream);
SCXPOL_SIM_API uint64_t scxpol_sim_rng_next(struct scxpol_sim_rng *r);
/* A double in [0, 1). */
SCXPOL_SIM_API double scxpol_sim_rng_unit(struct scxpol_sim_rng *r);

/* --- the machine and the simulation ------------------------------------------ */
/* A context switch, for a trace of the run (scxpol_sim_opts.trace). */
struct scxpol_sim_switch {
	uint64_t at_ns;
	unsigned int cpu;
	const struct scxpol_sim_task *prev; /* NULL: the CPU was idle */
	const struct scxpol_sim_task *next; /* NULL: it goes idle */
	bool preempted;	/* prev is still runnable */
};
typedef void (*scxpol_sim_trace_fn)(void *ctx, const struct scxpol_sim_switch *sw);

enum scxpol_sim_sched {
	SCXPOL_SIM_SCHED_EXT,	/* a sched_ext policy: opts.ops */
	SCXPOL_SIM_SCHED_EEVDF,	/* the EEVDF model (sim/eevdf.c) */
};

struct scxpol_sim_opts {
	size_t sz;
	unsigned int nr_cpus;	/* 1..SCXPOL_SIM_MAX_CPUS */
	/* per CPU: its core, LLC and NUMA node (dense, from 0); NULL: each its own core, one LLC and node */
	const int *core, *llc, *node;
	enum scxpol_sim_sched sched;
	const struct sched_ext_ops *ops; /* SCXPOL_SIM_SCHED_EXT */
	uint64_t tick_ns;	/* 0: 1 ms (HZ=1000, the test kernels') */
	uint64_t ctxsw_ns;	/* a context switch's cost to the incoming task; 0: none */
	uint64_t ipi_ns;	/* from a resched or kick to the other CPU acting on it; 0: at once */
	uint64_t idle_exit_ns;	/* extra for a CPU leaving idle */
	/* EEVDF: its base slice (0: 3 ms, the kernel's 0.75 ms x (1 + ilog2(8 CPUs))) */
	uint64_t eevdf_slice_ns;
	/* EEVDF: the period of its load balancer (0: 4 ms) */
	uint64_t eevdf_balance_ns;
	/* called at every context switch (NULL: none) */
	scxpol_sim_trace_fn trace;
	void *trace_ctx;
	/*
	 * A loader's configure hook: after the kernel is set up, before the
	 * policy's ops.init, the place to size maps (scxpol_sim_map_resize()).
	 * A negative return fails scxpol_sim_new() with it.
	 */
	int (*configure)(void *ctx);
	void *configure_ctx;
};
#define scxpol_sim_opts__last_field configure_ctx

/*
 * scxpol_sim_new - a machine at time 0 with its CPUs idle and no task. The
 * policy is attached at once: ops.init runs (a failure of it is an error
 * of scxpol_sim_new, with the policy's message). libscxpol-sim runs one
 * simulation at a time per process (the kfuncs have no context): a second
 * scxpol_sim_new() before scxpol_sim_free() fails with EBUSY.
 */
SCXPOL_SIM_API struct scxpol_sim *scxpol_sim_new(const struct scxpol_sim_opts *opts);
SCXPOL_SIM_API void scxpol_sim_free(struct scxpol_sim *s);

/* The simulated time, ns. */
SCXPOL_SIM_API uint64_t scxpol_sim_now(const struct scxpol_sim *s);
SCXPOL_SIM_API unsigned int scxpol_sim_nr_cpus(const struct scxpol_sim *s);

/*
 * scxpol_sim_run - process events until @until ns (or until the scheduler
 * exits: then -ECANCELED, the kernel's exit message in
 * scxpol_sim_last_error() and scxpol_sim_exit_info()). 0 when @until was
 * reached.
 */
SCXPOL_SIM_API int scxpol_sim_run(struct scxpol_sim *s, uint64_t until);

/*
 * How the scheduler ended, as the kernel's exit info has it: kind
 * (enum scx_exit_kind; 0 while it runs), reason ("runnable task stall"),
 * message ("hog[2] failed to run for 1.500s"), the time it happened.
 */
struct scxpol_sim_exit {
	int kind;
	long long code;
	const char *reason;
	const char *msg;
	uint64_t at_ns;
};
SCXPOL_SIM_API const struct scxpol_sim_exit *scxpol_sim_exit_info(const struct scxpol_sim *s);

/* An event of the caller's: @fn(@s, @ctx) at @at_ns (>= now). 0 or -EINVAL. */
typedef void (*scxpol_sim_event_fn)(struct scxpol_sim *s, void *ctx);
SCXPOL_SIM_API int scxpol_sim_at(struct scxpol_sim *s, uint64_t at_ns, scxpol_sim_event_fn fn,
				 void *ctx);

/* --- tasks ------------------------------------------------------------------- */
enum scxpol_sim_act {
	SCXPOL_SIM_RUN,		/* run .ns more of CPU work */
	SCXPOL_SIM_SLEEP,	/* sleep .ns, then wake (and ask again) */
	SCXPOL_SIM_BLOCK,	/* sleep until scxpol_sim_wake() */
	SCXPOL_SIM_EXIT,
};

struct scxpol_sim_action {
	enum scxpol_sim_act act;
	uint64_t ns;
};

/* Why a behaviour is asked what its task does next. */
enum scxpol_sim_why {
	SCXPOL_SIM_START,	/* the task was created: RUN, SLEEP or BLOCK */
	SCXPOL_SIM_WOKEN,	/* it was woken (it is runnable now): RUN only */
	SCXPOL_SIM_DONE,	/* its burst is done (it is running now): any action */
};

/*
 * A task's behaviour: what @t does next, into @a. Called in the context
 * of the event: at SCXPOL_SIM_DONE the task runs on its CPU and may wake
 * other tasks (scxpol_sim_wake(), the task being the waker) before it
 * sleeps, blocks or exits.
 */
typedef void (*scxpol_sim_behave_fn)(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
				     enum scxpol_sim_why why, struct scxpol_sim_action *a);

struct scxpol_sim_task_opts {
	size_t sz;
	const char *comm;	/* up to 15 characters (TASK_COMM_LEN) */
	int pid;		/* 0: the next free one (from 100) */
	int tgid;		/* 0: the pid */
	int nice;		/* -20..19: the weight as the kernel maps it */
	const unsigned long *cpus; /* allowed CPUs, a bitmap; NULL: all */
	int cpu;		/* where it was last (its first prev_cpu); -1: pid % nr_cpus */
	unsigned long long cgroup; /* its cgroup's id (scxpol_sim_cgroup_new()); 0: the root */
	unsigned int group;	/* the metrics group it counts in (scxpol_sim_group()) */
	scxpol_sim_behave_fn behave;
	void *ctx;
	bool kthread;		/* PF_KTHREAD */
};
#define scxpol_sim_task_opts__last_field kthread

/*
 * scxpol_sim_task_new - create a task now: ops.init_task (fork: true after
 * time 0), ops.enable, then its first action (a RUN is a fork's wakeup:
 * ops.select_cpu with SCX_WAKE_FORK). NULL + errno on bad options or when
 * the policy refused the task (its message).
 */
SCXPOL_SIM_API struct scxpol_sim_task *scxpol_sim_task_new(struct scxpol_sim *s,
							   const struct scxpol_sim_task_opts *o);

/*
 * scxpol_sim_wake - wake blocked task @t now, @waker (NULL: a timer or an
 * outside event, on @t's previous CPU) being the running task that wakes
 * it; @sync: SCX_WAKE_SYNC (the waker is about to sleep). 0, or -EINVAL
 * if @t is not blocked (a wakeup of a runnable task is a no-op in the
 * kernel: then 1).
 */
SCXPOL_SIM_API int scxpol_sim_wake(struct scxpol_sim *s, struct scxpol_sim_task *t,
				   struct scxpol_sim_task *waker, bool sync);

SCXPOL_SIM_API int scxpol_sim_task_pid(const struct scxpol_sim_task *t);
SCXPOL_SIM_API int scxpol_sim_task_cpu(const struct scxpol_sim_task *t);
SCXPOL_SIM_API const char *scxpol_sim_task_comm(const struct scxpol_sim_task *t);
/* When the current burst's work first ran (after the context switch), ns. */
SCXPOL_SIM_API uint64_t scxpol_sim_task_burst_start(const struct scxpol_sim_task *t);
/* The kernel's task_struct of @t, for a loader that reads or writes the policy's view. */
SCXPOL_SIM_API struct task_struct *scxpol_sim_task_struct(struct scxpol_sim_task *t);

/* --- cgroups ------------------------------------------------------------------ */
/*
 * scxpol_sim_cgroup_new - cgroup @id (> 1; the root is 1) below @parent (0
 * or 1: the root), online. 0, -EEXIST, -ENOENT (no such parent), -EINVAL.
 */
SCXPOL_SIM_API int scxpol_sim_cgroup_new(struct scxpol_sim *s, unsigned long long id,
					 unsigned long long parent);
/* scxpol_sim_cgroup_remove - take cgroup @id offline (rmdir); ops.cgroup_exit runs. */
SCXPOL_SIM_API int scxpol_sim_cgroup_remove(struct scxpol_sim *s, unsigned long long id);

/* --- metrics ----------------------------------------------------------------- */
/*
 * Groups: tasks are counted per group, as scxpol-lat counts them per comm
 * prefix or cgroup. scxpol_sim_group() returns the index of group @name,
 * adding it; group 0 is "other".
 */
SCXPOL_SIM_API unsigned int scxpol_sim_group(struct scxpol_sim *s, const char *name);

/* Percentiles of a latency histogram (tools/lat/hist.h's method), ns. */
struct scxpol_sim_lat {
	uint64_t count, mean, p50, p90, p99, p999, max;
};

struct scxpol_sim_group_stats {
	const char *name;
	unsigned int tasks;
	struct scxpol_sim_lat rqdelay;	/* woken or preempted -> running */
	struct scxpol_sim_lat wake;	/* woken -> running */
	struct scxpol_sim_lat wake_idle; /* of those, onto a CPU that was idle */
	struct scxpol_sim_lat burst;	/* running -> stopped */
	uint64_t preempt;		/* switched out while runnable */
	uint64_t wakeups, wakeups_idle, wakeups_remote; /* remote: onto another CPU than the waker's */
	uint64_t cpu_ns;		/* CPU time (context switches included) */
};
SCXPOL_SIM_API unsigned int scxpol_sim_nr_groups(const struct scxpol_sim *s);
SCXPOL_SIM_API int scxpol_sim_group_stats(const struct scxpol_sim *s, unsigned int group,
					  struct scxpol_sim_group_stats *out);

struct scxpol_sim_stats {
	uint64_t events;	/* engine events handled */
	uint64_t callbacks;	/* policy callbacks called (sched_ext) */
	uint64_t switches;	/* context switches */
	uint64_t idle_ns;	/* summed over the CPUs */
	uint64_t busy_ns;
	uint64_t tasks;
};
SCXPOL_SIM_API void scxpol_sim_stats(const struct scxpol_sim *s, struct scxpol_sim_stats *out);

/* Reset every group's and the machine's counts (the end of a warm-up). */
SCXPOL_SIM_API void scxpol_sim_stats_reset(struct scxpol_sim *s);

#ifdef __cplusplus
}
#endif
#endif
