// SPDX-License-Identifier: GPL-2.0
/*
 * faas: the scheduler of "Serverless platform driven CPU load balancing"
 * (Algorithms 1 and 2), driven by a FaaS control plane.
 *
 * The CPUs are split into exclusive scheduling domains: consecutive runs of
 * the topology order, aligned to cores and LLCs where the sizes allow. The
 * loader plans them and publishes them (<scxpol/pool.h>), requiring every
 * online CPU in a domain (a table that leaves one out is rejected and
 * counted); every domain has one queue ordered by virtual time, and there
 * is one shared queue.
 *
 * The control plane decides which domain each function invocation runs in
 * and writes it as a hint on the invocation's cgroup (the pinned cgroup ->
 * hint map of <scxpol/hint.h>; faas-replay --sink pinned does it). A task
 * whose cgroup, or an ancestor of it, has a domain hint runs only on that
 * domain's CPUs: on an idle one if there is one, else queued on the
 * domain's queue. Every other task (the rest of the system, invocations
 * the control plane left to the shared queue) goes to the shared queue.
 * Like the paper's, an assignment takes effect at the task's next
 * scheduling cycle (wakeup or slice expiry): a task already waiting in a
 * queue runs from there once more. So a control plane hints a cgroup
 * before it wakes the invocation's tasks.
 *
 * The queues are ordered by Algorithm 1: at every enqueue a task's vtime
 * grows by the CPU time of its last stint divided by how often it slept
 * since the last reset, and every reset_every-th enqueue it is reset to
 * the domain's clock (with vtime_now: to the current time). Short workers
 * that sleep often move ahead; tasks that burn their slices fall behind.
 *
 * A CPU with nothing to run takes work (Algorithm 2) from its domain's
 * queue (a task whose slice ran out keeps the CPU while it is still ahead
 * of that queue), then the shared queue, then, with stealing on, from the
 * other domains' queues, nearest first, so an idle domain helps an
 * overloaded one instead of idling. (With stealing on, a waking task whose
 * domain has no idle CPU and nothing queued goes straight to an idle CPU
 * of another domain: the steal without the detour through the queue.)
 *
 * With busy-poll de-prioritisation on, a task that used its whole slice
 * without sleeping busy_poll_after times in a row (a busy-polling runtime)
 * is queued one slice later than Algorithm 1 puts it: behind the workers.
 *
 * The paper's own choices, each a switch of the loader (faas_conf.h):
 * only tasks set to SCHED_EXT run here, the control plane's function
 * bodies, everything else stays in the fair class, which runs first
 * (SCX_OPS_SWITCH_PARTIAL, set by the loader); vtime_now: Algorithm 1 line
 * by line, the reset to the current time and no lag floor or lead cap
 * (SCXPOL_VTIME_ALG1_NOW); dispatch_paper: Algorithm 2's order, the domain,
 * the shared queue, then stealing, with no keeping of a task whose slice
 * ran out and no every-SCXPOL_POOL_SHARED_EVERY-th turn of the shared
 * queue first (scxpol_pool_dispatch_every()). Stealing follows the pools'
 * order lists: the neighbours expanding on each side within an LLC.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/hint.bpf.h>
#include <scxpol/pool.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/stats.bpf.h>
#include <scxpol/task.bpf.h>
#include <scxpol/vtime.bpf.h>

char _license[] SEC("license") = "GPL";

const volatile u64 slice_ns = 5000000;
const volatile u32 reset_every = 8;	/* Algorithm 1's n; 0: never reset */
const volatile u32 busy_poll_after;	/* 0: no busy-poll de-prioritisation */
const volatile bool vtime_now;		/* Algorithm 1's reset to the current time */
const volatile bool dispatch_paper;	/* Algorithm 2's dispatch order */

_Static_assert(SCXPOL_HINT_POOL_NONE == SCXPOL_POOL_SHARED, "no domain hint: the shared queue");

/* The domain @p's cgroup is hinted to, or the shared queue. */
static __always_inline s32 faas_domain(struct task_struct *p, struct scxpol_task_ctx *t)
{
	struct scxpol_hint h;

	scxpol_hint_lookup_ctx(t, p, &h);
	return h.pool;
}

s32 SCXPOL_OPS(faas_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	return scxpol_pool_select_cpu(&v, p, t, faas_domain(p, t), prev_cpu, wake_flags, slice_ns,
				      NULL);
}

void SCXPOL_OPS(faas_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scxpol_task_ctx *t = scxpol_task_ctx(p);
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_enqueue(&v, p, t, faas_domain(p, t), enq_flags, slice_ns);
}

void SCXPOL_OPS(faas_dispatch, s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	/* one call site: the dispatch is inlined once, whichever order runs */
	scxpol_pool_dispatch_every(&v, cpu, dispatch_paper ? NULL : prev,
				   dispatch_paper ? 0 : SCXPOL_POOL_SHARED_EVERY);
}

void SCXPOL_OPS(faas_running, struct task_struct *p)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_running(&v, p, scxpol_task_ctx(p));
}

void SCXPOL_OPS(faas_stopping, struct task_struct *p, bool runnable)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_stopping(&v, p, scxpol_task_ctx(p), runnable);
}

void SCXPOL_OPS(faas_quiescent, struct task_struct *p, u64 deq_flags)
{
	scxpol_pool_quiescent(scxpol_task_ctx(p), deq_flags);
}

void SCXPOL_OPS(faas_enable, struct task_struct *p)
{
	scxpol_pool_enable(p);
}

s32 SCXPOL_OPS_SLEEPABLE(faas_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return scxpol_task_init(p);
}

void SCXPOL_OPS(faas_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	scxpol_hint_task_exit(p);
}

void SCXPOL_OPS(faas_cgroup_exit, struct cgroup *cgrp)
{
	scxpol_hint_cgroup_exit(cgrp);
}

s32 SCXPOL_OPS_SLEEPABLE(faas_init)
{
	struct scxpol_vclock rule = {
		.rule = vtime_now ? SCXPOL_VTIME_ALG1_NOW : SCXPOL_VTIME_ALG1,
		.reset_every = reset_every,
		.busy_poll_after = busy_poll_after,
	};

	return scxpol_pool_init(&rule);
}

void SCXPOL_OPS(faas_exit, struct scx_exit_info *ei)
{
	scxpol_sched_record_exit(ei);
}

/* Stay loaded through CPU hotplug: the loader restarts the policy after it. */
void SCXPOL_OPS(faas_cpu_online, s32 cpu)
{
	scxpol_sched_cpu_online(cpu);
}

void SCXPOL_OPS(faas_cpu_offline, s32 cpu)
{
	scxpol_sched_cpu_offline(cpu);
}

SCXPOL_OPS_DEFINE(faas_ops,
	.select_cpu = (void *)faas_select_cpu,
	.enqueue = (void *)faas_enqueue,
	.dispatch = (void *)faas_dispatch,
	.running = (void *)faas_running,
	.stopping = (void *)faas_stopping,
	.quiescent = (void *)faas_quiescent,
	.enable = (void *)faas_enable,
	.init_task = (void *)faas_init_task,
	.exit_task = (void *)faas_exit_task,
	.cgroup_exit = (void *)faas_cgroup_exit,
	.init = (void *)faas_init,
	.exit = (void *)faas_exit,
	.cpu_online = (void *)faas_cpu_online,
	.cpu_offline = (void *)faas_cpu_offline,
	.name = "faas");
