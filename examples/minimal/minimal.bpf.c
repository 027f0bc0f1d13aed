// SPDX-License-Identifier: GPL-2.0
/*
 * minimal: the smallest complete libscxpol policy.
 *
 * One global queue ordered by weighted virtual time. A task's vtime grows by
 * the time it runs divided by its weight, so every task gets CPU time in
 * proportion to its weight; a task that slept comes back at most one slice
 * behind the others, which lets interactive tasks run soon after waking.
 * A light task (below nice 0) runs shorter turns and is queued at most two
 * of them ahead of the others, so even nice 19 waits a bounded time.
 * A waking task that finds an idle CPU goes straight to it.
 *
 * It is also the reference the benchmarks compare richer policies against.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/dsq.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/vtime.bpf.h>

char _license[] SEC("license") = "GPL";

const volatile u64 slice_ns = 5000000;

static struct scxpol_vclock vclock;

s32 SCXPOL_OPS(minimal_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);

	if (idle)
		scxpol_dsq_insert(p, SCX_DSQ_LOCAL, scxpol_vtime_slice(slice_ns, p->scx.weight), 0);
	return cpu;
}

void SCXPOL_OPS(minimal_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 slice = scxpol_vtime_slice(slice_ns, p->scx.weight);
	u64 vtime = scxpol_vtime_enqueue(&vclock, p, enq_flags, slice);

	scxpol_dsq_insert_vtime(p, SCXPOL_DSQ_SHARED, slice, vtime, enq_flags);
}

void SCXPOL_OPS(minimal_dispatch, s32 cpu, struct task_struct *prev)
{
	scxpol_dsq_move_to_local(SCXPOL_DSQ_SHARED);
}

void SCXPOL_OPS(minimal_running, struct task_struct *p)
{
	scxpol_vtime_running(&vclock, p);
}

void SCXPOL_OPS(minimal_stopping, struct task_struct *p, bool runnable)
{
	scxpol_vtime_stopping(&vclock, p, runnable);
}

void SCXPOL_OPS(minimal_enable, struct task_struct *p)
{
	scxpol_vtime_enable(&vclock, p);
}

s32 SCXPOL_OPS_SLEEPABLE(minimal_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return scxpol_task_init(p);
}

s32 SCXPOL_OPS_SLEEPABLE(minimal_init)
{
	return scxpol_dsq_create(SCXPOL_DSQ_SHARED, -1);
}

void SCXPOL_OPS(minimal_exit, struct scx_exit_info *ei)
{
	scxpol_sched_record_exit(ei);
}

/* Stay loaded through CPU hotplug: the loader restarts the policy after it. */
void SCXPOL_OPS(minimal_cpu_online, s32 cpu)
{
	scxpol_sched_cpu_online(cpu);
}

void SCXPOL_OPS(minimal_cpu_offline, s32 cpu)
{
	scxpol_sched_cpu_offline(cpu);
}

SCXPOL_OPS_DEFINE(minimal_ops,
	.select_cpu = (void *)minimal_select_cpu,
	.enqueue = (void *)minimal_enqueue,
	.dispatch = (void *)minimal_dispatch,
	.running = (void *)minimal_running,
	.stopping = (void *)minimal_stopping,
	.enable = (void *)minimal_enable,
	.init_task = (void *)minimal_init_task,
	.init = (void *)minimal_init,
	.exit = (void *)minimal_exit,
	.cpu_online = (void *)minimal_cpu_online,
	.cpu_offline = (void *)minimal_cpu_offline,
	.name = "minimal");
