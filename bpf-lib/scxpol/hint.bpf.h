/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Hints, BPF side: what a control plane or the application told the policy
 * about a task's cgroup, process or thread (layouts and precedence in
 * <scxpol/abi/hint.h>; the userspace client is <scxpol/hint.h>).
 *
 * The maps are pinned by name, so the hints outlive a restart of the policy
 * process; call scxpol_hint_setup() from the loader's configure hook to size
 * them and publish the limits (scxpol_hint_meta, which only the loader
 * writes) values are checked against.
 *
 * Hot path: scxpol_hint_lookup() caches the resolved hint in the task
 * context, keyed by the generation (scxpol_hint_gen: writers bump it after
 * every write, the loader after changing the limits), the task's cgroup
 * and its tid, so a task pays for the tid/tgid/cgroup hash lookups only
 * when something changed. A registered thread's slot is read on every
 * lookup: the thread flips its importance without a syscall.
 *
 * Values are never trusted: a field out of range of the meta limits is
 * ignored (the next source in precedence order may supply it) and counted
 * in SCXPOL_STAT_HINT_REJECT.
 *
 * Callbacks to wire: exit_task -> scxpol_hint_task_exit, cgroup_exit ->
 * scxpol_hint_cgroup_exit, so entries of dead tasks and removed cgroups go
 * away with them; scxpol_hint_prune() (userspace) catches what died while no
 * policy was loaded. The kernel calls cgroup_exit only for cgroups with the
 * cpu controller enabled (those it keeps a task group for): the hint of a
 * removed cgroup without it also waits for scxpol_hint_prune().
 *
 * It defines global functions (doc/conventions.md): include it in one
 * .bpf.c of a BPF object.
 */
#ifndef SCXPOL_HINT_BPF_H
#define SCXPOL_HINT_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/abi/hint.h>
#include <scxpol/stats.bpf.h>
#include <scxpol/task.bpf.h>

/* Default sizes; scxpol_hint_limits overrides them at load. */
#ifndef SCXPOL_HINT_MAX_CGROUPS
#define SCXPOL_HINT_MAX_CGROUPS 16384
#endif
#ifndef SCXPOL_HINT_MAX_TGIDS
#define SCXPOL_HINT_MAX_TGIDS 16384
#endif
#ifndef SCXPOL_HINT_MAX_TIDS
#define SCXPOL_HINT_MAX_TIDS 65536
#endif
#ifndef SCXPOL_HINT_MAX_SLOTS
#define SCXPOL_HINT_MAX_SLOTS 1024
#endif
/* At most this many cgroups are searched: the task's own, then its ancestors. */
#define SCXPOL_HINT_CGROUP_DEPTH 16

/* A stable kernel constant (include/linux/cgroup-defs.h). */
#define SCXPOL_CSS_ONLINE (1 << 1)

/*
 * The hash maps are not preallocated: an update then swaps in a new
 * element and frees the old one after an RCU grace period, so a reader
 * never sees a value half rewritten by userspace. Only userspace inserts.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SCXPOL_HINT_MAX_CGROUPS);
	__type(key, u64);
	__type(value, struct scxpol_hint);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_cgrp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SCXPOL_HINT_MAX_TGIDS);
	__type(key, u32);
	__type(value, struct scxpol_hint_task);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_tgid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SCXPOL_HINT_MAX_TIDS);
	__type(key, u32);
	__type(value, struct scxpol_hint_task);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_tid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SCXPOL_HINT_MAX_SLOTS);
	__type(key, u32);
	__type(value, struct scxpol_hint_slot);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SCXPOL_HINT_MAX_SLOTS);
	__type(key, u32);
	__type(value, u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_slot_idx SEC(".maps");

/* mmap-able so that writers bump the generation atomically without a syscall. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_gen SEC(".maps");

/*
 * The limits: read-only for programs (BPF_F_RDONLY_PROG), which makes the
 * loader pin them without write access for the group that may write hints
 * (scxpol_sched_opts.pin_mode): a hint writer cannot raise them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_hint_meta);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scxpol_hint_meta SEC(".maps");

int scxpol_hint_merge(struct scxpol_hint *out, const struct scxpol_hint *h,
		      const struct scxpol_hint_meta *m);

/*
 * Take from @h the fields @out does not have yet, each only if it is in
 * range of @m; count the fields refused. A global function
 * (doc/conventions.md): inlined 18 times with three branches each, the
 * resolve loop's paths would multiply past the verifier's limits.
 */
__noinline int scxpol_hint_merge(struct scxpol_hint *out, const struct scxpol_hint *h,
				 const struct scxpol_hint_meta *m)
{
	u32 want;

	if (!out || !h || !m)
		return 0;
	want = READ_ONCE(h->flags) & ~out->flags;
	if (want & SCXPOL_HINT_F_POOL) {
		s32 pool = READ_ONCE(h->pool);

		if (pool == SCXPOL_HINT_POOL_NONE || (pool >= 0 && (u32)pool < m->nr_pools)) {
			out->pool = pool;
			out->flags |= SCXPOL_HINT_F_POOL;
		} else {
			scxpol_stat_inc(SCXPOL_STAT_HINT_REJECT);
		}
	}
	if (want & SCXPOL_HINT_F_CLASS) {
		u32 class = READ_ONCE(h->class_id);

		if (class < m->nr_classes) {
			out->class_id = class;
			out->flags |= SCXPOL_HINT_F_CLASS;
		} else {
			scxpol_stat_inc(SCXPOL_STAT_HINT_REJECT);
		}
	}
	if (want & SCXPOL_HINT_F_IMPORTANCE) {
		u32 imp = READ_ONCE(h->importance);

		if (imp <= m->max_importance) {
			out->importance = imp;
			out->flags |= SCXPOL_HINT_F_IMPORTANCE;
		} else {
			scxpol_stat_inc(SCXPOL_STAT_HINT_REJECT);
		}
	}
	return 0;
}

/*
 * @p's identity (struct scxpol_hint_task.pid_ino): the inode number of its
 * struct pid in pidfs, what fstat() of a pidfd for it gives; unique for the
 * boot, unlike the pid. 0 once the task is unhashed at its exit.
 */
static __always_inline u64 scxpol_hint__pid_ino(struct task_struct *p)
{
	struct pid *pid = p->thread_pid;

	return pid ? pid->ino : 0;
}

/* Whether @h is the hint of the task @ino names; counts an earlier task's in hint_stale. */
static __always_inline bool scxpol_hint__owned(const struct scxpol_hint_task *h, u64 ino)
{
	if (h->pid_ino == ino)
		return true;
	scxpol_stat_inc(SCXPOL_STAT_HINT_STALE);
	return false;
}

/*
 * Resolve @p's hint from the maps into @out (zeroed by the caller): tid,
 * then tgid, then its cgroup and the cgroup's ancestors, field by field.
 * A tid or tgid hint set for an earlier task that had the id is ignored.
 * Returns its registered slot or -1. A global function
 * (doc/conventions.md): a loop, when the task's cached hint is stale.
 */
s32 scxpol_hint__resolve(struct task_struct *p, const struct scxpol_hint_meta *m,
			 struct scxpol_hint *out);

__noinline s32 scxpol_hint__resolve(struct task_struct *p __arg_trusted,
				    const struct scxpol_hint_meta *m, struct scxpol_hint *out)
{
	u32 tid = p->pid, tgid = p->tgid;
	struct scxpol_hint_task *ht;
	struct scxpol_hint *h;
	struct cgroup *cgrp;
	u32 *idx;
	int i;

	if (!m || !out)
		return -1;
	ht = bpf_map_lookup_elem(&scxpol_hint_tid, &tid);
	if (ht && scxpol_hint__owned(ht, scxpol_hint__pid_ino(p)))
		scxpol_hint_merge(out, &ht->hint, m);
	ht = bpf_map_lookup_elem(&scxpol_hint_tgid, &tgid);
	if (ht && scxpol_hint__owned(ht, scxpol_hint__pid_ino(p->group_leader)))
		scxpol_hint_merge(out, &ht->hint, m);
	cgrp = scxpol_task_cgroup(p);
	for (i = 0; i < SCXPOL_HINT_CGROUP_DEPTH && cgrp; i++) {
		u64 id = scxpol_cgrp_id(cgrp);
		struct cgroup_subsys_state *parent;

		h = bpf_map_lookup_elem(&scxpol_hint_cgrp, &id);
		if (h)
			scxpol_hint_merge(out, h, m);
		/* a cgroup's own css is its first member: the parent css is the parent cgroup */
		parent = cgrp->self.parent;
		cgrp = parent ? parent->cgroup : NULL;
	}
	idx = bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid);
	return idx ? (s32)*idx : -1;
}

/*
 * The hint that applies to @p, with @t its task context (NULL: no caching),
 * for callbacks that already hold the context. Fills @out (fields without
 * their SCXPOL_HINT_F_* flag are pool -1, class 0, importance 0) and returns
 * whether any field is set. Counts one hint_hit or hint_miss per call.
 */
static __always_inline bool scxpol_hint_lookup_ctx(struct scxpol_task_ctx *t, struct task_struct *p,
						   struct scxpol_hint *out)
{
	struct scxpol_hint_meta *lim, m;
	struct scxpol_hint_slot *sl;
	u32 zero = 0, key;
	s32 slot = -1;
	u64 *genp, gen, cgid;

	/* zeroed, not pool = -1 yet: keeps the verifier's states mergeable */
	__builtin_memset(out, 0, sizeof(*out));
	genp = bpf_map_lookup_elem(&scxpol_hint_gen, &zero);
	lim = bpf_map_lookup_elem(&scxpol_hint_meta, &zero);
	if (!genp || !lim) {
		out->pool = SCXPOL_HINT_POOL_NONE;
		scxpol_stat_inc(SCXPOL_STAT_HINT_MISS);
		return false;
	}
	/* gen before the maps: a write racing with us bumps it again after */
	gen = READ_ONCE(*genp);
	/* a copy: read-only map memory cannot be passed to global functions */
	m = *lim;
	cgid = scxpol_cgrp_id(scxpol_task_cgroup(p));
	/* its tid too: an exec by a non-leader thread gives it the leader's */
	if (t && t->hint_gen == gen + 1 && t->hint_cgid == cgid && t->hint_tid == (u32)p->pid) {
		out->pool = t->hint_pool;
		out->class_id = t->hint_class;
		out->importance = t->hint_importance;
		out->flags = t->hint_flags;
		slot = t->hint_slot;
	} else {
		slot = scxpol_hint__resolve(p, &m, out);
		if (!(out->flags & SCXPOL_HINT_F_POOL))
			out->pool = SCXPOL_HINT_POOL_NONE;
		if (t) {
			t->hint_pool = out->pool;
			t->hint_class = out->class_id;
			t->hint_importance = out->importance;
			t->hint_flags = out->flags;
			t->hint_slot = slot;
			t->hint_cgid = cgid;
			t->hint_tid = (u32)p->pid;
			t->hint_gen = gen + 1;
		}
	}
	if (slot >= 0) {
		key = (u32)slot;
		sl = bpf_map_lookup_elem(&scxpol_hint_slots, &key);
		/* the slot may have been released and claimed by another thread */
		if (sl && READ_ONCE(sl->tid) == (u32)p->pid &&
		    READ_ONCE(sl->pid_ino) != scxpol_hint__pid_ino(p)) {
			/* or left by an earlier task with this tid */
			scxpol_stat_inc(SCXPOL_STAT_HINT_STALE);
		} else if (sl && READ_ONCE(sl->tid) == (u32)p->pid) {
			u32 imp = READ_ONCE(sl->importance);

			if (imp <= m.max_importance) {
				out->importance = imp;
				out->flags |= SCXPOL_HINT_F_IMPORTANCE;
			} else {
				scxpol_stat_inc(SCXPOL_STAT_HINT_REJECT);
			}
		}
	}
	scxpol_stat_inc(out->flags ? SCXPOL_STAT_HINT_HIT : SCXPOL_STAT_HINT_MISS);
	return out->flags != 0;
}

/* The hint that applies to @p (see scxpol_hint_lookup_ctx). */
static __always_inline bool scxpol_hint_lookup(struct task_struct *p, struct scxpol_hint *out)
{
	return scxpol_hint_lookup_ctx(scxpol_task_ctx(p), p, out);
}

/*
 * Whether id @id belongs to a live task other than @p whose identity is
 * @ino: then an entry for @id with @ino is that task's, set after @p's
 * exit had freed the id (the kernel runs ops.exit_task as late as the last
 * reference to @p, by when @p may be unhashed and its id reused).
 */
static __always_inline bool scxpol_hint__taken(struct task_struct *p, u32 id, u64 ino)
{
	struct task_struct *t = bpf_task_from_pid((s32)id);
	bool taken;

	if (!t)
		return false;
	taken = t != p && scxpol_hint__pid_ino(t) == ino;
	bpf_task_release(t);
	return taken;
}

/* Whether @ht, the entry of id @id, is to go with @p: no live task other than @p owns it. */
static __always_inline bool scxpol_hint__gone(struct task_struct *p, u32 id,
					      const struct scxpol_hint_task *ht)
{
	return ht && !scxpol_hint__taken(p, id, ht->pid_ino);
}

/*
 * From ops.exit_task: drop the hint of a task that died, its thread slot,
 * and, for the last thread of a process, the process's hint; but not an
 * entry a new task with the same id owns already. exit_task also runs for
 * every task when the scheduler is unloaded; live tasks keep their hints
 * then, so that a restarted policy finds them.
 */
static __always_inline void scxpol_hint_task_exit(struct task_struct *p)
{
	u32 tid = p->pid, tgid = p->tgid;
	struct scxpol_hint_slot *sl;
	struct signal_struct *sig;
	u32 *idx;

	if (!(p->flags & SCXPOL_PF_EXITING))
		return;
	if (scxpol_hint__gone(p, tid, bpf_map_lookup_elem(&scxpol_hint_tid, &tid)))
		bpf_map_delete_elem(&scxpol_hint_tid, &tid);
	idx = bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid);
	if (idx) {
		u32 key = *idx;

		sl = bpf_map_lookup_elem(&scxpol_hint_slots, &key);
		if (!sl || !scxpol_hint__taken(p, tid, READ_ONCE(sl->pid_ino))) {
			if (sl && READ_ONCE(sl->tid) == tid) {
				WRITE_ONCE(sl->importance, 0);
				/* only if still ours: a pruner may have freed it already */
				__sync_val_compare_and_swap(&sl->tid, tid, 0);
			}
			bpf_map_delete_elem(&scxpol_hint_slot_idx, &tid);
		}
	}
	/* the leader goes last; an exec by another thread leaves live > 0 */
	if (tid != tgid)
		return;
	sig = p->signal;
	if ((!sig || !sig->live.counter) &&
	    scxpol_hint__gone(p, tgid, bpf_map_lookup_elem(&scxpol_hint_tgid, &tgid)))
		bpf_map_delete_elem(&scxpol_hint_tgid, &tgid);
}

/*
 * From ops.cgroup_exit: drop the hint of a removed cgroup. Also called for
 * every cgroup when the scheduler is unloaded; those are still online and
 * keep their hints.
 */
static __always_inline void scxpol_hint_cgroup_exit(struct cgroup *cgrp)
{
	u64 id;

	if (cgrp->self.flags & SCXPOL_CSS_ONLINE)
		return;
	id = scxpol_cgrp_id(cgrp);
	bpf_map_delete_elem(&scxpol_hint_cgrp, &id);
}

#endif
