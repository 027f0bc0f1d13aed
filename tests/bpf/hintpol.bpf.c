// SPDX-License-Identifier: GPL-2.0
/*
 * hintpol: a test policy that makes hints visible.
 *
 * A task whose hint has a class c (c < the number of CPUs, and the task
 * allowed there) runs only on CPU c, from that CPU's own queue; every other
 * task shares one vtime-ordered queue. Each enqueue of a task with a
 * non-zero importance counts SCXPOL_STAT_IMPORTANT and adds the importance
 * to the user counter "importance_sum". Pool hints are checked against the
 * limits but do not change placement; the loader may publish a pool plan
 * (--pool-plan), which only the stats report. On request (SIGUSR1 to the loader) it
 * asks the library to restart it, as the kernel does at a CPU hotplug for a
 * policy without ops.cpu_online/offline.
 * With --offline-event CPU, its first dispatch records CPU going offline,
 * as ops.cpu_offline does, while the CPU stays online.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/dsq.bpf.h>
#include <scxpol/hint.bpf.h>
#include <scxpol/pool.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/stats.bpf.h>
#include <scxpol/vtime.bpf.h>

char _license[] SEC("license") = "GPL";

#define HINTPOL_MAX_CPUS 64

/* user counters; names in hintpol.c */
enum { U_IMPORTANCE_SUM, U_CLASS_PLACED };

const volatile u64 slice_ns = 5000000;
const volatile u32 nr_cpus = 1;
/* set by the loader on SIGUSR1: ask for a restart, as the kernel does on hotplug */
volatile u32 restart_req;
/* set by the loader (--offline-event): 1 + the CPU to record going offline */
volatile u32 offline_event;

static struct scxpol_vclock vclock;

/* The CPU @p's class pins it to, or -1. */
static __always_inline s32 class_cpu(struct task_struct *p, const struct scxpol_hint *h)
{
	if (!(h->flags & SCXPOL_HINT_F_CLASS) || h->class_id >= nr_cpus ||
	    h->class_id >= HINTPOL_MAX_CPUS)
		return -1;
	if (!bpf_cpumask_test_cpu(h->class_id, p->cpus_ptr))
		return -1;
	return (s32)h->class_id;
}

s32 SCXPOL_OPS(hintpol_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool idle = false;

	/* no direct dispatch: every wakeup goes through enqueue and its hint */
	return scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);
}

void SCXPOL_OPS(hintpol_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_hint h;
	s32 cpu;

	scxpol_stat_inc(SCXPOL_STAT_ENQUEUE);
	scxpol_hint_lookup_ctx(t, p, &h);
	if ((h.flags & SCXPOL_HINT_F_IMPORTANCE) && h.importance) {
		scxpol_stat_inc(SCXPOL_STAT_IMPORTANT);
		scxpol_stat_user_add(U_IMPORTANCE_SUM, h.importance);
	}
	cpu = class_cpu(p, &h);
	if (cpu >= 0) {
		scxpol_stat_user_inc(U_CLASS_PLACED);
		scxpol_dsq_insert(p, SCXPOL_DSQ_USER(cpu), slice_ns, enq_flags);
		scxpol_pool_kick(cpu, SCXPOL_KICK_IDLE);
		return;
	}
	scxpol_dsq_insert_vtime(p, SCXPOL_DSQ_SHARED, slice_ns,
				scxpol_vtime_enqueue_ctx(&vclock, p, t, enq_flags, slice_ns),
				enq_flags);
}

void SCXPOL_OPS(hintpol_dispatch, s32 cpu, struct task_struct *prev)
{
	if (restart_req) {
		restart_req = 0;
		scxpol_exit(SCXPOL_ECODE_ACT_RESTART, "restart requested by the loader");
	}
	/* one CPU takes it: read and cleared at once, or two could record it, one as cpu -1 */
	if (offline_event) {
		u32 ev = __sync_lock_test_and_set(&offline_event, 0);

		if (ev)
			scxpol_sched_cpu_offline((s32)ev - 1);
	}
	if (cpu >= 0 && cpu < HINTPOL_MAX_CPUS && scxpol_dsq_move_to_local(SCXPOL_DSQ_USER(cpu)))
		scxpol_stat_inc(SCXPOL_STAT_DISPATCH_POOL);
	else if (scxpol_dsq_move_to_local(SCXPOL_DSQ_SHARED))
		scxpol_stat_inc(SCXPOL_STAT_DISPATCH_SHARED);
	else
		scxpol_stat_inc(SCXPOL_STAT_DISPATCH_NONE);
}

void SCXPOL_OPS(hintpol_running, struct task_struct *p)
{
	scxpol_vtime_running(&vclock, p);
}

void SCXPOL_OPS(hintpol_stopping, struct task_struct *p, bool runnable)
{
	scxpol_vtime_stopping(&vclock, p, runnable);
}

void SCXPOL_OPS(hintpol_enable, struct task_struct *p)
{
	scxpol_vtime_enable(&vclock, p);
}

s32 SCXPOL_OPS_SLEEPABLE(hintpol_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return scxpol_task_init(p);
}

void SCXPOL_OPS(hintpol_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	scxpol_hint_task_exit(p);
}

void SCXPOL_OPS(hintpol_cgroup_exit, struct cgroup *cgrp)
{
	scxpol_hint_cgroup_exit(cgrp);
}

s32 SCXPOL_OPS_SLEEPABLE(hintpol_init)
{
	u32 i;
	s32 r;

	/* the shared queue, and the pools' queues if the loader set pools up */
	r = scxpol_pool_init(&vclock);
	for (i = 0; !r && i < nr_cpus && i < HINTPOL_MAX_CPUS; i++)
		r = scxpol_dsq_create(SCXPOL_DSQ_USER(i), -1);
	return r;
}

void SCXPOL_OPS(hintpol_exit, struct scx_exit_info *ei)
{
	scxpol_sched_record_exit(ei);
}

SCXPOL_OPS_DEFINE(hintpol_ops,
	.select_cpu = (void *)hintpol_select_cpu,
	.enqueue = (void *)hintpol_enqueue,
	.dispatch = (void *)hintpol_dispatch,
	.running = (void *)hintpol_running,
	.stopping = (void *)hintpol_stopping,
	.enable = (void *)hintpol_enable,
	.init_task = (void *)hintpol_init_task,
	.exit_task = (void *)hintpol_exit_task,
	.cgroup_exit = (void *)hintpol_cgroup_exit,
	.init = (void *)hintpol_init,
	.exit = (void *)hintpol_exit,
	.name = "hintpol");
