/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU pools / scheduling domains, shared by the BPF side
 * (bpf-lib/scxpol/pool.bpf.h) and userspace (include/scxpol/pool.h).
 *
 * A pool is a named set of CPUs with its own queue(s). Pools never overlap.
 * What a pool may do with other pools' CPUs is set by its flags:
 *   LEND    its idle CPUs may run other pools' tasks; they are taken back
 *           (the borrower is preempted) as soon as its own work arrives
 *   BORROW  its tasks may run on idle CPUs of pools that LEND
 *   STEAL   its idle CPUs pull queued work from other STEAL pools' queues
 *           when its own queue and the shared queue are empty, nearest
 *           first (Algorithm 2 of the serverless paper); a waking task of
 *           it that finds no idle CPU of its own, and nothing queued, runs
 *           on an idle CPU of a STEAL pool at once
 * A soft pool LENDs and BORROWs; an exclusive domain does none of these.
 */
#ifndef SCXPOL_ABI_POOL_H
#define SCXPOL_ABI_POOL_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCXPOL_POOL_NAME_LEN 16

#define SCXPOL_POOL_LEND (1U << 0)
#define SCXPOL_POOL_BORROW (1U << 1)
#define SCXPOL_POOL_STEAL (1U << 2)
#define SCXPOL_POOL_SOFT (SCXPOL_POOL_LEND | SCXPOL_POOL_BORROW)
#define SCXPOL_POOL_EXCLUSIVE 0U
#define SCXPOL_POOL_FLAGS_ALL (SCXPOL_POOL_LEND | SCXPOL_POOL_BORROW | SCXPOL_POOL_STEAL)

/*
 * Publishing (lib/pool_publish.c -> bpf-lib/scxpol/pool.bpf.h).
 *
 * Sizes are fixed at load by scxpol_pool_setup() in the read-only section
 * ".rodata.scxpol_pool" (one struct scxpol_pool_conf). Userspace writes a
 * plan into the staging maps, then runs the SEC("syscall") program
 * scxpol_pool_commit, which validates it and builds the inactive half of a
 * double-buffered table, then bumps the generation; readers use half
 * (gen & 1). Staging maps:
 *   scxpol_pool_stage        [max_pools]              struct scxpol_pool_desc
 *   scxpol_pool_stage_mask   [max_pools * nr_words]   __u64 CPU bitmap words
 *   scxpol_pool_stage_cpu    [nr_cpus]                struct scxpol_pool_cpu
 *   scxpol_pool_stage_order  [max_pools * max_pools]  __u32 other pools, nearest first
 * Published (read back by scxpol_pool_read()):
 *   scxpol_pool_state        [1]   starts with struct scxpol_pool_state
 *   scxpol_pool_slots        [2 * max_pools], pool p of half h at p * 2 + h:
 *                            starts with struct scxpol_pool_desc
 *   scxpol_pool_queued       [max_pools + 1] __u32, filled by the
 *                            scxpol_pool_query program; the last is the
 *                            shared queue
 */
struct scxpol_pool_conf {
	__u32 max_pools; /* pools the maps and DSQs are sized for (0: not set up) */
	__u32 nr_cpus;   /* possible CPUs the per-CPU tables are sized for */
	__u32 max_llcs;  /* LLC indices are below this */
	__u32 nr_words;  /* __u64 words of a staged CPU bitmap */
	__u32 require;   /* SCXPOL_POOL_REQ_*: what every plan must also satisfy */
};

/*
 * What a policy may require of every plan on top of the checks all plans
 * pass (scxpol_pool_require()); a plan that fails one is rejected.
 *   COVER  every CPU online in the plan's topology is in a pool: for a
 *          policy whose work all belongs to pools (exclusive domains),
 *          where a CPU in no pool would run none of it
 */
#define SCXPOL_POOL_REQ_COVER (1U << 0)
#define SCXPOL_POOL_REQ_ALL SCXPOL_POOL_REQ_COVER

struct scxpol_pool_desc {
	char name[SCXPOL_POOL_NAME_LEN];
	__u32 flags;    /* SCXPOL_POOL_* */
	__u32 nr_cpus;  /* computed by the commit (staged value ignored) */
	__u32 nr_order; /* entries in its order list: other pools, nearest first */
	__u32 pad;
};

struct scxpol_pool_cpu {
	__s32 pool; /* -1: in no pool */
	__u32 llc;  /* dense LLC index (< max_llcs) */
	__u32 node; /* dense NUMA node index */
	__u32 flags; /* SCXPOL_POOL_CPU_* */
};

/* online in the plan's topology (when it was planned; not the CPU's state now) */
#define SCXPOL_POOL_CPU_ONLINE (1U << 0)

struct scxpol_pool_state {
	__u64 gen;         /* published generation; 0 = nothing published */
	__u32 nr_pools[2]; /* pools in each half */
};

/* Why the commit program rejected a plan (scxpol_pool_commit_args.reason). */
enum scxpol_pool_reject {
	SCXPOL_POOL_REJ_NONE,
	SCXPOL_POOL_REJ_NR_POOLS,  /* nr_pools 0 or above max_pools (.other = nr_pools) */
	SCXPOL_POOL_REJ_FLAGS,     /* .pool has unknown flags (.other = flags) */
	SCXPOL_POOL_REJ_OVERLAP,   /* .cpu is in .pool and in .other */
	SCXPOL_POOL_REJ_CPU_RANGE, /* .pool has .cpu >= nr_cpu_ids (.other = nr_cpu_ids) */
	SCXPOL_POOL_REJ_CPU_TABLE, /* per-CPU entry of .cpu says .other, bitmap says .pool */
	SCXPOL_POOL_REJ_LLC_RANGE, /* .cpu of .pool has LLC .other >= max_llcs */
	SCXPOL_POOL_REJ_EMPTY,     /* .pool has no CPU */
	SCXPOL_POOL_REJ_ORDER,     /* .pool's order list names .other (itself or out of range) */
	SCXPOL_POOL_REJ_NOMEM,     /* no memory for a cpumask (not the plan's fault) */
	SCXPOL_POOL_REJ_NOT_SETUP, /* maps not sized: scxpol_pool_setup() was not called */
	SCXPOL_POOL_REJ_UNCOVERED, /* online .cpu is in no pool, and the policy requires
				    * SCXPOL_POOL_REQ_COVER (.other = online CPUs in none) */
};

/* Context of scxpol_pool_commit (bpf_prog_test_run_opts ctx_in, copied back). */
struct scxpol_pool_commit_args {
	__u32 nr_pools; /* in: pools staged */
	__s32 err;      /* out: 0 or -errno (also the program's return value) */
	__u32 reason;   /* out: enum scxpol_pool_reject */
	__s32 pool;     /* out: the pool at fault, or -1 */
	__s32 cpu;      /* out: the CPU at fault, or -1 */
	__s32 other;    /* out: see enum scxpol_pool_reject */
	__u64 gen;      /* out: the generation now published */
};

/* Context of scxpol_pool_query. */
struct scxpol_pool_query_args {
	__u64 gen;      /* out: published generation */
	__u32 nr_pools; /* out: pools in it */
	__u32 pad;
};

#endif
