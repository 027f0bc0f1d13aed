/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The engine's state, shared by engine.c (the run loop, tasks), heap.c,
 * metrics.c, ext.c (the sched_ext core) and eevdf.c (the EEVDF model). Not
 * installed.
 */
#ifndef SCXPOL_SIM_ENGINE_H
#define SCXPOL_SIM_ENGINE_H

#include <scxpol/sim.h>

#include "../tools/lat/hist.h"
#include "kernel.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

enum ev_kind {
	EV_RESCHED,	/* a CPU schedules (an IPI arrived) */
	EV_BURST,	/* the running task's burst is done */
	EV_TICK,	/* the scheduler tick of a busy CPU */
	EV_WAKE,	/* a sleeping task's timer */
	EV_TIMER,	/* a BPF timer */
	EV_WATCHDOG,	/* sched_ext's stall check */
	EV_BALANCE,	/* EEVDF's periodic load balance */
	EV_USER,	/* scxpol_sim_at() */
};

enum task_state {
	T_BLOCKED,
	T_RUNNABLE,	/* queued somewhere, waiting for a CPU */
	T_RUNNING,
	T_DEAD,
};

struct eevdf_se {
	u64 vruntime, deadline, slice;
	s64 vlag;
	u32 weight;	/* the kernel's load weight: 1024 at nice 0 */
	bool on_rq;	/* runnable on its CPU's queue (running or waiting) */
	/* waiting: a treap by (deadline, seq), each node knowing its subtree's least vruntime */
	struct scxpol_sim_task *left, *right;
	u64 prio, seq, min_vruntime;
};

struct scxpol_sim_task {
	struct task_struct p;	/* first: the policies see this */
	enum task_state state;
	u64 remaining;		/* of the current burst */
	u64 work_start;		/* its work (re)started on the CPU: after the context switch */
	u64 burst_start;	/* the current burst's work first ran */
	bool burst_begun;
	u64 queued_at;		/* became runnable (woken or preempted) */
	bool woken;		/* ... by a wakeup, not a preemption */
	bool wake_idle;		/* that wakeup's target CPU was idle */
	u64 switched_in;
	struct sim_event ev_wake;
	unsigned int group;
	scxpol_sim_behave_fn behave;
	void *ctx;
	struct signal_struct sig;
	struct pid spid;	/* its identity: ino unique in the run */
	bool enabled;		/* ops.enable ran */
	struct eevdf_se se;
};

struct sim_cgroup {
	struct cgroup cgrp;
	struct kernfs_node kn;
	struct css_set cset;
	unsigned long long id;
};

struct ecpu {
	struct sim_event ev_resched, ev_burst, ev_tick;
	u64 exec_start;		/* update_curr()'s last look */
	bool need_resched;	/* schedule once the current event is done */
	bool queued;		/* on the deferred list */
	bool in_balance;
	struct cpumask kick, kick_idle, kick_preempt; /* kicks this CPU sends (irq_work) */
	bool has_kicks;
	u64 idle_since;		/* went idle at; (u64)-1 while busy */
	struct scxpol_sim_task *last;	/* switched out, its successor not chosen yet (trace) */
	bool last_preempted;
	u64 idle_ns;
	/* EEVDF's run queue: the waiting tasks (the running one is not in it) */
	struct scxpol_sim_task *rq_root;
	u32 rq_nr;		/* runnable tasks, the running one included */
	u64 rq_seq;
	u64 min_vruntime;	/* the base of the keys below */
	s64 avg_vruntime;	/* sum over the waiting tasks of (vruntime - min_vruntime) * weight */
	u64 avg_load;		/* sum of their weights */
};

struct user_event {
	struct sim_event ev;
	scxpol_sim_event_fn fn;
	void *ctx;
	struct user_event *next_free;
};

struct group {
	char name[32];
	unsigned int tasks;
	struct lat_hist rq, wake, wake_idle, burst;
	u64 preempt, wakeups, wakeups_idle, wakeups_remote, cpu_ns;
};

struct engine {
	struct scxpol_sim_opts o;
	const struct sched_ext_ops *ops;
	struct ecpu *cpus;
	struct sim_event **heap;
	u32 nr_heap, heap_cap;
	u64 seq;
	/* CPUs with deferred work (kicks, a resched), in the order they got it */
	s32 *deferred;
	u32 nr_deferred;
	struct scxpol_sim_task **tasks;
	u32 nr_tasks, tasks_cap;
	int next_pid;
	u64 next_ino;		/* the last struct pid's ino */
	struct sim_cgroup **cgroups;	/* in creation order */
	u32 nr_cgroups, cgroups_cap;
	struct idtab cgroup_ids;
	struct group *groups;
	u32 nr_groups;
	struct user_event *free_user;
	struct user_event **user_blocks;
	u32 nr_user_blocks;
	struct sim_event ev_watchdog, ev_balance;
	u64 watchdog_ns;
	struct scxpol_sim_exit exit;
	char exit_msg[SIM_MSG_LEN];
	bool exiting;
	bool stuck;		/* scheduling did not settle in an instant (defer_cpu()) */
	bool attached;		/* the scheduler's attach succeeded, its detach is due */
	bool in_event;		/* an event or its deferred work is being handled */
	struct scxpol_sim_stats st;
	u64 stats_since;
	/* EEVDF */
	struct cpumask overloaded;	/* CPUs with a task waiting */
	u32 (*balance_scratch)[2];
};

/* The engine of the simulation (one per process). */
extern struct engine *sim_engine;

static inline struct scxpol_sim_task *task_of(struct task_struct *p)
{
	return (struct scxpol_sim_task *)p;
}

/* --- heap.c -------------------------------------------------------------------- */
void ev_arm(struct engine *e, struct sim_event *ev, u64 at);
void ev_cancel(struct engine *e, struct sim_event *ev);
/* The earliest armed event, disarmed; NULL when none is. */
struct sim_event *ev_pop(struct engine *e);

/* --- engine.c ------------------------------------------------------------------ */
/* Sets scxpol_sim_last_error() to the message; returns -@err. */
int engine_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Put @cpu on the deferred list: its kicks and resched are handled after the event. */
void defer_cpu(struct engine *e, s32 cpu);
/* @cpu's running task: account its run since the last look (CPU time, burst progress). */
void account_curr(struct engine *e, s32 cpu);
/* A task starts running on @cpu at now (after a switch costing ctxsw). */
void switch_in(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool ctxsw);
/* The running task of @cpu stops (still runnable: @preempted). */
void switch_out(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool preempted);
/* @cpu goes idle / leaves idle (accounting only). */
void cpu_idle_enter(struct engine *e, s32 cpu);
void cpu_idle_leave(struct engine *e, s32 cpu);
/* Re-arm @cpu's tick after what it needs changed. */
void engine_rearm_tick(struct engine *e, s32 cpu);
/* A task becomes runnable at now: the clock of its run-queue delay starts. */
void mark_queued(struct engine *e, struct scxpol_sim_task *t, bool woken);

/* --- the scheduler: ext.c (sched_ext) or eevdf.c ---------------------------------- */
struct sched_class {
	int (*attach)(struct engine *e);	/* ops.init and the like */
	void (*detach)(struct engine *e);
	int (*task_init)(struct engine *e, struct scxpol_sim_task *t, bool fork);
	void (*wake)(struct engine *e, struct scxpol_sim_task *t, s32 waker_cpu, u64 wake_flags);
	void (*block)(struct engine *e, struct scxpol_sim_task *t, bool exiting);
	void (*task_dead)(struct engine *e, struct scxpol_sim_task *t);
	void (*schedule)(struct engine *e, s32 cpu);
	void (*tick)(struct engine *e, s32 cpu);
	/* the next tick @cpu needs after @now (0: none) */
	u64 (*next_tick)(struct engine *e, s32 cpu);
	void (*kicks)(struct engine *e, s32 cpu);
	void (*cgroup_exit)(struct engine *e, struct sim_cgroup *c);
};

extern const struct sched_class sched_ext_class, eevdf_class;

/* ext.c */
void ext_watchdog(struct engine *e);
void ext_timer(struct engine *e, struct sim_timer *tm);
/* eevdf.c */
void eevdf_balance(struct engine *e);

#endif
