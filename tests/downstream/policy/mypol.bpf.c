// SPDX-License-Identifier: GPL-2.0
/* mypol: a FIFO policy built outside the libscxpol tree. */
#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/dsq.bpf.h>
#include <scxpol/sched.bpf.h>

char _license[] SEC("license") = "GPL";

void SCXPOL_OPS(mypol_enqueue, struct task_struct *p, u64 enq_flags)
{
	scxpol_dsq_insert(p, SCXPOL_DSQ_SHARED, 5000000, enq_flags);
}

void SCXPOL_OPS(mypol_dispatch, s32 cpu, struct task_struct *prev)
{
	scxpol_dsq_move_to_local(SCXPOL_DSQ_SHARED);
}

s32 SCXPOL_OPS_SLEEPABLE(mypol_init)
{
	return scxpol_dsq_create(SCXPOL_DSQ_SHARED, -1);
}

void SCXPOL_OPS(mypol_exit, struct scx_exit_info *ei)
{
	scxpol_sched_record_exit(ei);
}

SCXPOL_OPS_DEFINE(mypol_ops,
	.enqueue = (void *)mypol_enqueue,
	.dispatch = (void *)mypol_dispatch,
	.init = (void *)mypol_init,
	.exit = (void *)mypol_exit,
	.name = "mypol");
