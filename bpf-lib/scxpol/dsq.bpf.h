/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Dispatch queues: an id namespace so the library's and the policy's DSQs
 * never collide, creation, and queue-depth queries. Insertion and moving are
 * in <scxpol/compat.bpf.h> (their kfuncs were renamed between kernels).
 *
 * A custom DSQ id is 63 bits (bit 63 marks the kernel's built-in DSQs). The
 * library splits them into kinds in bits 56..62 and an index in bits 0..55:
 *
 *   SCXPOL_DSQ_SHARED          the shared fallback queue
 *   SCXPOL_DSQ_POOL(pool)      one per CPU pool / scheduling domain
 *   SCXPOL_DSQ_POOL_LLC(p, l)  one per (pool, LLC)
 *   SCXPOL_DSQ_LLC(llc)        one per LLC
 *   SCXPOL_DSQ_CPU(cpu)        one per CPU
 *   SCXPOL_DSQ_USER(n)         free for the policy's own queues
 *   SCXPOL_DSQ_CPU_SHARED(cpu) a second one per CPU
 */
#ifndef SCXPOL_DSQ_BPF_H
#define SCXPOL_DSQ_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/abi/dsq.h>

/*
 * Create DSQ @dsq_id on NUMA node @node (-1: any). From ops.init (or another
 * sleepable context). Reports an error through scxpol_error() on failure, so
 * the scheduler does not start half-configured, and returns it.
 */
static __always_inline s32 scxpol_dsq_create(u64 dsq_id, s32 node)
{
	s32 ret = scx_bpf_create_dsq(dsq_id, node);

	if (ret)
		scxpol_error("scxpol: cannot create DSQ %llx: %d", dsq_id, ret);
	return ret;
}

/* Number of tasks queued on @dsq_id (0 for a DSQ that does not exist). */
static __always_inline u32 scxpol_dsq_depth(u64 dsq_id)
{
	s32 n = scx_bpf_dsq_nr_queued(dsq_id);

	return n > 0 ? (u32)n : 0;
}

#endif
