/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * DSQ id namespace, shared by the BPF side and userspace (for stats and
 * debugging output). See bpf-lib/scxpol/dsq.bpf.h.
 */
#ifndef SCXPOL_ABI_DSQ_H
#define SCXPOL_ABI_DSQ_H

#define SCXPOL_DSQ_KIND_SHIFT 56
#define SCXPOL_DSQ_INDEX_MASK ((1ULL << SCXPOL_DSQ_KIND_SHIFT) - 1)

enum scxpol_dsq_kind {
	SCXPOL_DSQ_KIND_SHARED = 1,
	SCXPOL_DSQ_KIND_POOL = 2,
	SCXPOL_DSQ_KIND_POOL_LLC = 3,
	SCXPOL_DSQ_KIND_LLC = 4,
	SCXPOL_DSQ_KIND_CPU = 5,
	SCXPOL_DSQ_KIND_USER = 6,
	SCXPOL_DSQ_KIND_CPU_SHARED = 7,
};

/* The DSQ id of @index of @kind (enum scxpol_dsq_kind); @index is cut to 56 bits. */
#define SCXPOL_DSQ_ID(kind, index) \
	(((unsigned long long)(kind) << SCXPOL_DSQ_KIND_SHIFT) | \
	 ((unsigned long long)(index) & SCXPOL_DSQ_INDEX_MASK))
/*
 * The ids of each kind: the shared queue, a pool's queue, a (pool, LLC)
 * queue, an LLC's, a CPU's, the policy's own queues (@n: any index), and a
 * CPU's second queue (the pool helpers keep the tasks pinned to a CPU on
 * two: those of the CPU's pool, and those in no pool or another).
 * LLC ids are below 2^24 in any kernel; a (pool, LLC) id gives the pool
 * the bits above.
 */
#define SCXPOL_DSQ_SHARED SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_SHARED, 0)
#define SCXPOL_DSQ_POOL(pool) SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_POOL, (pool))
#define SCXPOL_DSQ_POOL_LLC(pool, llc) \
	SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_POOL_LLC, ((unsigned long long)(pool) << 24) | ((llc) & 0xffffff))
#define SCXPOL_DSQ_LLC(llc) SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_LLC, (llc))
#define SCXPOL_DSQ_CPU(cpu) SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_CPU, (cpu))
#define SCXPOL_DSQ_USER(n) SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_USER, (n))
#define SCXPOL_DSQ_CPU_SHARED(cpu) SCXPOL_DSQ_ID(SCXPOL_DSQ_KIND_CPU_SHARED, (cpu))

/* The kind and the index of DSQ id @id (for stats and debugging output). */
#define SCXPOL_DSQ_KIND(id) ((unsigned int)(((id) >> SCXPOL_DSQ_KIND_SHIFT) & 0x7f))
#define SCXPOL_DSQ_INDEX(id) ((id) & SCXPOL_DSQ_INDEX_MASK)

#endif
