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
#include <scxpol/vtime.bpf.h>

/* faas's own; the library's defaults for the rest (pool_ops.bpf.h) */
#define SCXPOL_POOL_OPS_DISPATCH
#define SCXPOL_POOL_OPS_INIT
#include <scxpol/pool_ops.bpf.h>

char _license[] SEC("license") = "GPL";

const volatile u64 slice_ns = 5000000;
const volatile u32 reset_every = 8;	/* Algorithm 1's n; 0: never reset */
const volatile u32 busy_poll_after;	/* 0: no busy-poll de-prioritisation */
const volatile bool vtime_now;		/* Algorithm 1's reset to the current time */
const volatile bool dispatch_paper;	/* Algorithm 2's dispatch order */

_Static_assert(SCXPOL_HINT_POOL_NONE == SCXPOL_POOL_SHARED, "no domain hint: the shared queue");

/* The domain @p's cgroup is hinted to, or the shared queue; one slice for all. */
static __always_inline s32 faas_place(struct task_struct *p, struct scxpol_task_ctx *t, u64 *slice)
{
	struct scxpol_hint h;

	scxpol_hint_lookup_ctx(t, p, &h);
	*slice = slice_ns;
	return h.pool;
}

void SCXPOL_OPS(faas_dispatch, s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	/* one call site: the dispatch is inlined once, whichever order runs */
	scxpol_pool_dispatch_every(&v, cpu, dispatch_paper ? NULL : prev,
				   dispatch_paper ? 0 : SCXPOL_POOL_SHARED_EVERY);
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

SCXPOL_POOL_OPS_DEFINE(faas);
