/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Hints: what userspace (a control plane, or the application itself) tells
 * the policy about a cgroup, a process or a thread. Shared by the BPF side
 * (bpf-lib/scxpol/hint.bpf.h) and userspace (include/scxpol/hint.h).
 *
 * Maps, pinned under /sys/fs/bpf/scxpol/<policy>/ so they outlive a restart
 * of the policy process:
 *   scxpol_hint_cgrp   HASH  cgroup id (u64) -> struct scxpol_hint
 *   scxpol_hint_tgid   HASH  tgid (u32)      -> struct scxpol_hint_task
 *   scxpol_hint_tid    HASH  tid (u32)       -> struct scxpol_hint_task
 *   scxpol_hint_slots  ARRAY (mmap-able) of struct scxpol_hint_slot: one per
 *                      registered thread, written by the thread itself
 *                      without a syscall
 *   scxpol_hint_slot_idx HASH tid (u32) -> slot index (u32)
 *   scxpol_hint_gen    ARRAY[1] (mmap-able) of a __u64: the generation,
 *                      bumped by writers
 *   scxpol_hint_meta   ARRAY[1] of struct scxpol_hint_meta: the limits,
 *                      written by the loader only (BPF_F_RDONLY_PROG, and
 *                      pinned without write access for group and others)
 * Precedence: tid > tgid > cgroup (the innermost cgroup with a hint, then
 * its ancestors), field by field: a field a nearer source leaves unset
 * comes from the next one. A slot's importance overrides the map hint's
 * importance.
 *
 * Writers: update the entry, then add 1 to the generation with an atomic
 * add on the mmap-ed scxpol_hint_gen (a read-modify-write through the map
 * could lose a bump to a concurrent writer, and the BPF side would keep a
 * stale cached hint). The limits are the loader's: a writer that could
 * raise them could make any thread important.
 * A thread claims a free slot by compare-and-swap of its tid from 0 to its
 * own, stores its pid_ino, then writes scxpol_hint_slot_idx; it releases
 * it by swapping its tid back to 0. Ids are those of the initial PID namespace; a cgroup's id is
 * the inode number of its cgroup2 directory.
 */
#ifndef SCXPOL_ABI_HINT_H
#define SCXPOL_ABI_HINT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/*
 * The layout of the pinned maps above, raised whenever a map's type, key,
 * value or flags change. 1: tgid/tid values were a struct scxpol_hint,
 * slots had no pid_ino, and scxpol_hint_meta (mmap-able, 24 bytes) held
 * the generation before the limits. A loader that finds maps of a known
 * older layout (lib/hint_layout.c lists their shapes) moves them to
 * <pins>/layout-N/ before its load, where a failed load leaves them, and
 * carries their entries over after it: cgroup hints as they are, task
 * hints to the live task with the id (one the old layout could not tell
 * from an earlier task of the id); the slots of registered threads and
 * the limits are not carried. doc/deploy.md, "Upgrades".
 */
#define SCXPOL_HINT_LAYOUT 2

#define SCXPOL_HINT_POOL_NONE (-1)

/* struct scxpol_hint.flags */
#define SCXPOL_HINT_F_POOL (1U << 0)       /* .pool is set */
#define SCXPOL_HINT_F_CLASS (1U << 1)      /* .class_id is set */
#define SCXPOL_HINT_F_IMPORTANCE (1U << 2) /* .importance is set */
#define SCXPOL_HINT_F_ALL (SCXPOL_HINT_F_POOL | SCXPOL_HINT_F_CLASS | SCXPOL_HINT_F_IMPORTANCE)

struct scxpol_hint {
	__s32 pool;       /* pool/domain index */
	__u32 class_id;   /* policy-defined class (e.g. ads: 0 background, 1 critical) */
	__u32 importance; /* 0 normal; larger is more important; <= max_importance */
	__u32 flags;      /* SCXPOL_HINT_F_*: which fields are meaningful */
};

/*
 * The value of scxpol_hint_tgid and scxpol_hint_tid: the hint, and the
 * task it is for. Ids are reused: a task that exits while no policy runs,
 * or between a writer's look at it and its write, would leave its hint to
 * the next task given its id. pid_ino names the task for the boot: the
 * inode number of its struct pid in pidfs (fstat() of a pidfd for it:
 * pidfd_open(tid, PIDFD_THREAD) for a tid, pidfd_open(tgid, 0) for a
 * tgid). The BPF side ignores an entry whose pid_ino is not the task's
 * (counted in hint_stale); the prune removes it.
 */
struct scxpol_hint_task {
	struct scxpol_hint hint;
	__u64 pid_ino;
};

/* A per-thread slot in the mmap-ed array; the thread writes importance. */
struct scxpol_hint_slot {
	__u32 tid;        /* owner; 0 = free */
	__u32 importance; /* current importance, flipped by the thread */
	__u32 seq;        /* bumped on every change (debugging, stats) */
	__u32 pad;
	__u64 pid_ino;    /* the owner's identity (struct scxpol_hint_task) */
};

/* Limits the BPF side validates hints against (set by the loader). */
struct scxpol_hint_meta {
	__u32 nr_pools;       /* pool values must be < nr_pools */
	__u32 nr_classes;     /* class values must be < nr_classes */
	__u32 max_importance; /* importance values must be <= this */
	__u32 nr_slots;       /* entries in scxpol_hint_slots */
};

#endif
