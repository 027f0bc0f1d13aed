// SPDX-License-Identifier: GPL-2.0
/*
 * A policy that breaks a sched_ext rule: every task goes to a DSQ it never
 * created. The kernel ends such a policy at the first enqueue with
 * "non-existent DSQ 0x1234 for COMM[PID]"; so must the simulator
 * (tests/unit/sim-check). Built for the simulator only.
 */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>

char _license[] SEC("license") = "GPL";

s32 SCXPOL_OPS(nodsq_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	return prev_cpu;
}

void SCXPOL_OPS(nodsq_enqueue, struct task_struct *p, u64 enq_flags)
{
	scxpol_dsq_insert(p, 0x1234, 5000000, enq_flags);
}

SCXPOL_OPS_DEFINE(nodsq_ops,
	.select_cpu = (void *)nodsq_select_cpu,
	.enqueue = (void *)nodsq_enqueue,
	.name = "nodsq");
