/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The library's per-task context: one task-local storage entry holding what
 * the vtime, pool, hint and rule helpers remember about a task, so a
 * callback pays for one storage lookup, not one per helper.
 *
 * Create it in ops.init_task with scxpol_task_init(); other callbacks use
 * scxpol_task_ctx(), which returns NULL only if the kernel is out of memory.
 */
#ifndef SCXPOL_TASK_BPF_H
#define SCXPOL_TASK_BPF_H

#include <scxpol/common.bpf.h>

struct scxpol_task_ctx {
	u64 run_start;     /* clock when it last started running */
	u64 last_runtime;  /* ns it ran during its last stint on a CPU */
	u64 slice;         /* slice given at its last insert */
	u64 queued_at;     /* clock when it last went on a pool's queue */
	u32 nr_enqueues;   /* enqueues so far (Algorithm 1's counter) */
	u32 nr_sleeps;     /* sleeps since the last vtime reset */
	u32 full_slices;   /* consecutive stints that used the whole slice */
	s32 pool;          /* pool/domain it was last placed in, -1 none */
	u32 pool_gen;      /* pool table generation of that placement */
	u32 flags;         /* SCXPOL_TASKF_* */
	u32 pending;       /* 1 + the scxpol_pool_pending key it counts in; 0 none */
	u32 pad0;
	u64 hint_gen;      /* hint meta gen + 1 of the cached hint; 0 = none cached */
	u64 hint_cgid;     /* cgroup the cached hint was resolved in */
	s32 hint_pool;     /* cached hint fields (see hint.bpf.h) */
	u32 hint_class;
	u32 hint_importance;
	u32 hint_flags;    /* SCXPOL_HINT_F_* of the cached hint */
	s32 hint_slot;     /* registered thread's slot, -1 none */
	u32 hint_tid;      /* tid the cached hint was resolved for (an exec moves tids) */
	u64 match_gen;     /* rule meta gen + 1 of the cached match; 0 = none cached */
	u64 match_cgid;    /* cgroup the cached match was made in */
	u64 match_comm[2]; /* comm it was made with */
	s32 match_value;   /* cached match (see match.bpf.h) */
	u32 match_by;      /* enum scxpol_match_by of the cached match */
};

#define SCXPOL_TASKF_BUSY_POLL (1U << 0) /* demoted as a busy poller */
#define SCXPOL_TASKF_BORROWED (1U << 1)  /* runs on a CPU borrowed from another pool */

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scxpol_task_ctx);
} scxpol_task_stor SEC(".maps");

/*
 * A task's cgroup, as hints (<scxpol/hint.bpf.h>) and rules
 * (<scxpol/match.bpf.h>) key it. Kernel pointers are followed with plain
 * CO-RE loads, not BPF_CORE_READ(): the verifier turns a load through a
 * BTF pointer into one instruction with an exception-table entry (a fault
 * reads 0), where each bpf_probe_read_kernel() call costs about 90
 * instructions, and the hot-path cache checks follow several of them on
 * every call. Every pointer is NULL-checked: those behind __rcu fields may
 * be NULL.
 */

/* @p's cgroup on the cgroup2 hierarchy (NULL if it has none). */
static __always_inline struct cgroup *scxpol_task_cgroup(struct task_struct *p)
{
	struct css_set *cset = p->cgroups;

	return cset ? cset->dfl_cgrp : NULL;
}

/* The id of @cgrp: its cgroup2 directory's inode number (0 for NULL). */
static __always_inline u64 scxpol_cgrp_id(struct cgroup *cgrp)
{
	struct kernfs_node *kn = cgrp ? cgrp->kn : NULL;

	return kn ? kn->id : 0;
}

/* Create @p's context; from ops.init_task. Returns -ENOMEM on failure. */
static __always_inline s32 scxpol_task_init(struct task_struct *p)
{
	struct scxpol_task_ctx *c;

	c = bpf_task_storage_get(&scxpol_task_stor, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c)
		return -ENOMEM;
	c->pool = -1;
	return 0;
}

/*
 * @p's context, created on demand for a task ops.init_task did not see
 * (the idle tasks): with pool -1 as there, since pool 0 is a real pool.
 */
static __always_inline struct scxpol_task_ctx *scxpol_task_ctx(struct task_struct *p)
{
	struct scxpol_task_ctx *c = bpf_task_storage_get(&scxpol_task_stor, p, 0, 0);

	if (c)
		return c;
	c = bpf_task_storage_get(&scxpol_task_stor, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c)
		c->pool = -1;
	return c;
}

#endif
