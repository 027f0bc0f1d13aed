/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Default callbacks of a pool policy: the wiring every policy built on
 * <scxpol/pool.bpf.h> repeats, so that the policy writes only its
 * classifier and the callbacks it decides differently.
 *
 * SCXPOL_POOL_OPS_DEFINE(NAME, ...) at the end of the policy emits, for
 * each callback below the policy does not provide, a program NAME_<callback>,
 * then the struct_ops map NAME_ops named "NAME" wiring all of them, plus
 * the extra members given as its other arguments (".tick = (void
 * *)NAME_tick"). To provide its own callback the policy defines
 * SCXPOL_POOL_OPS_<CALLBACK> before it includes this header and names the
 * program NAME_<callback>:
 *   select_cpu  scxpol_pool_select_cpu() into NAME_place()'s pool and slice
 *   enqueue     scxpol_pool_enqueue() likewise
 *   dispatch    scxpol_pool_dispatch_prev()
 *   running, stopping, quiescent, enable: the pool's accounting
 *   init_task   scxpol_task_init()
 *   init        scxpol_pool_init(NULL): the FAIR vtime rule
 *   exit        scxpol_sched_record_exit()
 *   cpu_online, cpu_offline: stay loaded through CPU hotplug
 *               (scxpol_sched_cpu_online()/_offline())
 *   exit_task, cgroup_exit: a policy that includes <scxpol/hint.bpf.h>
 *               before this header: drop the hints of a task or cgroup
 *               that dies (scxpol_hint_task_exit()/_cgroup_exit())
 * Unless it provides both select_cpu and enqueue, the policy defines the
 * classifier they call, before SCXPOL_POOL_OPS_DEFINE:
 *   s32 NAME_place(struct task_struct *p, struct scxpol_task_ctx *t, u64 *slice)
 * returns the pool of @p (SCXPOL_POOL_SHARED: the shared queue) and sets
 * its slice in ns; @t is @p's context, NULL when it has none.
 *
 * The defaults are the calls a policy would write itself, one
 * scxpol_pool_view() and one scxpol_task_ctx() per callback, inlined: the
 * programs are the same instructions as the hand-written ones.
 * Like <scxpol/pool.bpf.h>, include it in one .bpf.c of a BPF object.
 */
#ifndef SCXPOL_POOL_OPS_BPF_H
#define SCXPOL_POOL_OPS_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/pool.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/task.bpf.h>

#ifndef SCXPOL_POOL_OPS_SELECT_CPU
#define SCXPOL_POOL__SELECT_CPU(pol)							\
s32 SCXPOL_OPS(pol##_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)	\
{											\
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);					\
	struct scxpol_pool_view v;							\
	u64 slice;									\
	s32 pool;									\
											\
	scxpol_pool_view(&v);								\
	pool = pol##_place(p, t, &slice);						\
	return scxpol_pool_select_cpu(&v, p, t, pool, prev_cpu, wake_flags, slice, NULL); \
}
#else
#define SCXPOL_POOL__SELECT_CPU(pol)
#endif

#ifndef SCXPOL_POOL_OPS_ENQUEUE
#define SCXPOL_POOL__ENQUEUE(pol)							\
void SCXPOL_OPS(pol##_enqueue, struct task_struct *p, u64 enq_flags)			\
{											\
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);					\
	struct scxpol_pool_view v;							\
	u64 slice;									\
	s32 pool;									\
											\
	scxpol_pool_view(&v);								\
	pool = pol##_place(p, t, &slice);						\
	scxpol_pool_enqueue(&v, p, t, pool, enq_flags, slice);				\
}
#else
#define SCXPOL_POOL__ENQUEUE(pol)
#endif

#ifndef SCXPOL_POOL_OPS_DISPATCH
#define SCXPOL_POOL__DISPATCH(pol)							\
void SCXPOL_OPS(pol##_dispatch, s32 cpu, struct task_struct *prev)			\
{											\
	struct scxpol_pool_view v;							\
											\
	scxpol_pool_view(&v);								\
	scxpol_pool_dispatch_prev(&v, cpu, prev);					\
}
#else
#define SCXPOL_POOL__DISPATCH(pol)
#endif

#ifndef SCXPOL_POOL_OPS_RUNNING
#define SCXPOL_POOL__RUNNING(pol)							\
void SCXPOL_OPS(pol##_running, struct task_struct *p)					\
{											\
	struct scxpol_pool_view v;							\
											\
	scxpol_pool_view(&v);								\
	scxpol_pool_running(&v, p, scxpol_task_ctx(p));					\
}
#else
#define SCXPOL_POOL__RUNNING(pol)
#endif

#ifndef SCXPOL_POOL_OPS_STOPPING
#define SCXPOL_POOL__STOPPING(pol)							\
void SCXPOL_OPS(pol##_stopping, struct task_struct *p, bool runnable)			\
{											\
	struct scxpol_pool_view v;							\
											\
	scxpol_pool_view(&v);								\
	scxpol_pool_stopping(&v, p, scxpol_task_ctx(p), runnable);			\
}
#else
#define SCXPOL_POOL__STOPPING(pol)
#endif

#ifndef SCXPOL_POOL_OPS_QUIESCENT
#define SCXPOL_POOL__QUIESCENT(pol)							\
void SCXPOL_OPS(pol##_quiescent, struct task_struct *p, u64 deq_flags)			\
{											\
	scxpol_pool_quiescent(scxpol_task_ctx(p), deq_flags);				\
}
#else
#define SCXPOL_POOL__QUIESCENT(pol)
#endif

#ifndef SCXPOL_POOL_OPS_ENABLE
#define SCXPOL_POOL__ENABLE(pol)							\
void SCXPOL_OPS(pol##_enable, struct task_struct *p)					\
{											\
	scxpol_pool_enable(p);								\
}
#else
#define SCXPOL_POOL__ENABLE(pol)
#endif

#ifndef SCXPOL_POOL_OPS_INIT_TASK
#define SCXPOL_POOL__INIT_TASK(pol)							\
s32 SCXPOL_OPS_SLEEPABLE(pol##_init_task, struct task_struct *p,			\
			 struct scx_init_task_args *args)				\
{											\
	return scxpol_task_init(p);							\
}
#else
#define SCXPOL_POOL__INIT_TASK(pol)
#endif

#ifndef SCXPOL_POOL_OPS_INIT
#define SCXPOL_POOL__INIT(pol)								\
s32 SCXPOL_OPS_SLEEPABLE(pol##_init)							\
{											\
	return scxpol_pool_init(NULL);							\
}
#else
#define SCXPOL_POOL__INIT(pol)
#endif

#ifndef SCXPOL_POOL_OPS_EXIT
#define SCXPOL_POOL__EXIT(pol)								\
void SCXPOL_OPS(pol##_exit, struct scx_exit_info *ei)					\
{											\
	scxpol_sched_record_exit(ei);								\
}
#else
#define SCXPOL_POOL__EXIT(pol)
#endif

#ifndef SCXPOL_POOL_OPS_CPU_ONLINE
#define SCXPOL_POOL__CPU_ONLINE(pol)							\
void SCXPOL_OPS(pol##_cpu_online, s32 cpu)						\
{											\
	scxpol_sched_cpu_online(cpu);							\
}
#else
#define SCXPOL_POOL__CPU_ONLINE(pol)
#endif

#ifndef SCXPOL_POOL_OPS_CPU_OFFLINE
#define SCXPOL_POOL__CPU_OFFLINE(pol)							\
void SCXPOL_OPS(pol##_cpu_offline, s32 cpu)						\
{											\
	scxpol_sched_cpu_offline(cpu);							\
}
#else
#define SCXPOL_POOL__CPU_OFFLINE(pol)
#endif

#ifdef SCXPOL_HINT_BPF_H
#ifndef SCXPOL_POOL_OPS_EXIT_TASK
#define SCXPOL_POOL__EXIT_TASK(pol)							\
void SCXPOL_OPS(pol##_exit_task, struct task_struct *p, struct scx_exit_task_args *args) \
{											\
	scxpol_hint_task_exit(p);							\
}
#else
#define SCXPOL_POOL__EXIT_TASK(pol)
#endif
#ifndef SCXPOL_POOL_OPS_CGROUP_EXIT
#define SCXPOL_POOL__CGROUP_EXIT(pol)							\
void SCXPOL_OPS(pol##_cgroup_exit, struct cgroup *cgrp)				\
{											\
	scxpol_hint_cgroup_exit(cgrp);							\
}
#else
#define SCXPOL_POOL__CGROUP_EXIT(pol)
#endif
#define SCXPOL_POOL__HINT_OPS(pol)							\
	.exit_task = (void *)pol##_exit_task, .cgroup_exit = (void *)pol##_cgroup_exit,
#else
#define SCXPOL_POOL__EXIT_TASK(pol)
#define SCXPOL_POOL__CGROUP_EXIT(pol)
#define SCXPOL_POOL__HINT_OPS(pol)
#endif

/*
 * The default callbacks the policy does not provide, and its struct_ops
 * map NAME_ops: SCXPOL_POOL_OPS_DEFINE(twopool); or with members of its
 * own, SCXPOL_POOL_OPS_DEFINE(ads, .tick = (void *)ads_tick).
 */
#define SCXPOL_POOL_OPS_DEFINE(pol, ...)						\
	SCXPOL_POOL__SELECT_CPU(pol)							\
	SCXPOL_POOL__ENQUEUE(pol)							\
	SCXPOL_POOL__DISPATCH(pol)							\
	SCXPOL_POOL__RUNNING(pol)							\
	SCXPOL_POOL__STOPPING(pol)							\
	SCXPOL_POOL__QUIESCENT(pol)							\
	SCXPOL_POOL__ENABLE(pol)							\
	SCXPOL_POOL__INIT_TASK(pol)							\
	SCXPOL_POOL__INIT(pol)								\
	SCXPOL_POOL__EXIT(pol)								\
	SCXPOL_POOL__CPU_ONLINE(pol)							\
	SCXPOL_POOL__CPU_OFFLINE(pol)							\
	SCXPOL_POOL__EXIT_TASK(pol)							\
	SCXPOL_POOL__CGROUP_EXIT(pol)							\
	SCXPOL_OPS_DEFINE(pol##_ops,							\
		.select_cpu = (void *)pol##_select_cpu,				\
		.enqueue = (void *)pol##_enqueue,					\
		.dispatch = (void *)pol##_dispatch,					\
		.running = (void *)pol##_running,					\
		.stopping = (void *)pol##_stopping,					\
		.quiescent = (void *)pol##_quiescent,					\
		.enable = (void *)pol##_enable,					\
		.init_task = (void *)pol##_init_task,					\
		.init = (void *)pol##_init,						\
		.exit = (void *)pol##_exit,						\
		.cpu_online = (void *)pol##_cpu_online,				\
		.cpu_offline = (void *)pol##_cpu_offline,				\
		SCXPOL_POOL__HINT_OPS(pol)						\
		.name = #pol, ##__VA_ARGS__)

#endif
