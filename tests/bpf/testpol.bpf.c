// SPDX-License-Identifier: GPL-2.0
/*
 * testpol: the test policy of the bpflib VM suite. It wires every helper of
 * bpf-lib/scxpol (pools, dispatch order, stealing, lending, vtime with
 * Algorithm 1 and busy-poll detection, the task context, compat, DSQs,
 * stats, the exit record, the hotplug callbacks) the way a real policy
 * would, and places tasks in pools through two tables its loader fills:
 * tgid -> pool and comm -> pool.
 * Tasks in neither table go to the shared queue, or to the --rest pool.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/dsq.bpf.h>
#include <scxpol/pool.bpf.h>
#include <scxpol/sched.bpf.h>
#include <scxpol/stats.bpf.h>
#include <scxpol/task.bpf.h>
#include <scxpol/vtime.bpf.h>

char _license[] SEC("license") = "GPL";

const volatile u64 slice_ns = 5000000;
/* Algorithm 1 resetting every reset_every enqueues; 0: the FAIR rule */
const volatile u32 reset_every;
const volatile u32 busy_poll_after;
/*
 * --lose-wakes: lose every wakeup of a task in a pool, as a stale idle mask
 * does (pool.bpf.h, the watch): select_cpu places it on lose_wake_cpu
 * without inserting it, enqueue queues it on its pool and wakes no CPU.
 * -1: off.
 */
const volatile s32 lose_wake_cpu = -1;
/* --rest: the pool of tasks in neither table */
const volatile s32 rest_pool = SCXPOL_POOL_SHARED;
/*
 * --kick-enqueue: every enqueue also kicks the task's CPU (a plain kick,
 * which the kernel never skips the way it skips an idle kick of a busy
 * CPU), so every enqueue made on a CPU, even one on its way down, kicks
 * from that CPU (scxpol_pool_kick()).
 */
const volatile bool kick_enqueue;
/*
 * --error-comm, --stall-comm: the two ways the kernel ejects a policy that
 * no other test takes. A task named error_comm makes enqueue call
 * scx_bpf_error(); one named stall_comm is queued on a DSQ no CPU
 * consumes, so the watchdog finds it runnable and not run (the library's
 * --timeout-ms shortens the wait). Empty: off.
 */
const volatile char error_comm[16];
const volatile char stall_comm[16];
#define TESTPOL_STALL_DSQ SCXPOL_DSQ_USER(0)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, s32);
} testpol_tgid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, char[16]);
	__type(value, s32);
} testpol_comm SEC(".maps");

/* The pool the loader's tables give @p, else rest_pool. */
static __always_inline s32 testpol_pool_of(struct task_struct *p)
{
	char comm[16];
	u32 tgid = p->tgid;
	s32 *pool;

	pool = bpf_map_lookup_elem(&testpol_tgid, &tgid);
	if (pool)
		return *pool;
	__builtin_memcpy(comm, p->comm, sizeof(comm));
	pool = bpf_map_lookup_elem(&testpol_comm, comm);
	return pool ? *pool : rest_pool;
}

/* Whether @p's comm is @want (a --error-comm or --stall-comm name; "" never matches). */
static __always_inline bool testpol_comm_is(const struct task_struct *p, const volatile char *want)
{
	int i;

	if (!want[0])
		return false;
#pragma unroll
	for (i = 0; i < 16; i++) {
		if (p->comm[i] != want[i])
			return false;
		if (!want[i])
			break;
	}
	return true;
}

s32 SCXPOL_OPS(testpol_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct scxpol_pool_view v;
	s32 pool = testpol_pool_of(p);

	/* no direct insert: enqueue must see them */
	if (testpol_comm_is(p, error_comm) || testpol_comm_is(p, stall_comm))
		return prev_cpu;
	scxpol_pool_view(&v);
	if (lose_wake_cpu >= 0 && pool >= 0) {
		scxpol_pool_assign(&v, p, scxpol_task_ctx(p), pool, slice_ns);
		return lose_wake_cpu;
	}
	return scxpol_pool_select_cpu(&v, p, scxpol_task_ctx(p), pool, prev_cpu, wake_flags,
				      slice_ns, NULL);
}

void SCXPOL_OPS(testpol_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scxpol_pool_view v;
	s32 pool = testpol_pool_of(p);

	if (testpol_comm_is(p, error_comm)) {
		scxpol_error("testpol: %s[%d] enqueued: the error --error-comm asks for",
			      p->comm, p->pid);
		return;
	}
	if (testpol_comm_is(p, stall_comm)) {
		scxpol_dsq_insert(p, TESTPOL_STALL_DSQ, slice_ns, enq_flags);
		return;
	}
	scxpol_pool_view(&v);
	if (lose_wake_cpu >= 0 && pool >= 0 && p->nr_cpus_allowed == scx_bpf_nr_cpu_ids()) {
		scxpol_pool_assign(&v, p, scxpol_task_ctx(p), pool, slice_ns);
		scxpol_dsq_insert_vtime(p, scxpol_pool_dsq(pool), slice_ns, p->scx.dsq_vtime,
					enq_flags);
		return;
	}
	scxpol_pool_enqueue(&v, p, scxpol_task_ctx(p), pool, enq_flags, slice_ns);
	if (kick_enqueue)
		scxpol_pool_kick(scx_bpf_task_cpu(p), 0);
}

void SCXPOL_OPS(testpol_dispatch, s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_dispatch_prev(&v, cpu, prev);
}

void SCXPOL_OPS(testpol_running, struct task_struct *p)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_running(&v, p, scxpol_task_ctx(p));
}

void SCXPOL_OPS(testpol_stopping, struct task_struct *p, bool runnable)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	scxpol_pool_stopping(&v, p, scxpol_task_ctx(p), runnable);
}

void SCXPOL_OPS(testpol_quiescent, struct task_struct *p, u64 deq_flags)
{
	scxpol_pool_quiescent(scxpol_task_ctx(p), deq_flags);
}

void SCXPOL_OPS(testpol_enable, struct task_struct *p)
{
	scxpol_pool_enable(p);
}

s32 SCXPOL_OPS_SLEEPABLE(testpol_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return scxpol_task_init(p);
}

s32 SCXPOL_OPS_SLEEPABLE(testpol_init)
{
	struct scxpol_vclock rule = {
		.rule = reset_every ? SCXPOL_VTIME_ALG1 : SCXPOL_VTIME_FAIR,
		.reset_every = reset_every,
		.busy_poll_after = busy_poll_after,
	};

	s32 ret = scxpol_dsq_create(TESTPOL_STALL_DSQ, -1);

	return ret ? ret : scxpol_pool_init(&rule);
}

void SCXPOL_OPS(testpol_cpu_online, s32 cpu)
{
	scxpol_sched_cpu_online(cpu);
}

void SCXPOL_OPS(testpol_cpu_offline, s32 cpu)
{
	scxpol_sched_cpu_offline(cpu);
}

void SCXPOL_OPS(testpol_exit, struct scx_exit_info *ei)
{
	scxpol_sched_record_exit(ei);
}

SCXPOL_OPS_DEFINE(testpol_ops,
	.select_cpu = (void *)testpol_select_cpu,
	.enqueue = (void *)testpol_enqueue,
	.dispatch = (void *)testpol_dispatch,
	.running = (void *)testpol_running,
	.stopping = (void *)testpol_stopping,
	.quiescent = (void *)testpol_quiescent,
	.enable = (void *)testpol_enable,
	.init_task = (void *)testpol_init_task,
	.cpu_online = (void *)testpol_cpu_online,
	.cpu_offline = (void *)testpol_cpu_offline,
	.init = (void *)testpol_init,
	.exit = (void *)testpol_exit,
	.name = "testpol");
