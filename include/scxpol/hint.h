/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Hints, userspace side: tell a running policy about a cgroup, a process or
 * a thread (struct scxpol_hint and the precedence rules are in
 * <scxpol/abi/hint.h>; the BPF side is <scxpol/hint.bpf.h>).
 *
 * Two kinds of users:
 *  - the policy's loader calls scxpol_hint_setup() from its configure hook:
 *    it sizes the hint maps and publishes the limits hints are checked
 *    against;
 *  - anyone else (a control plane, the application itself) opens a client
 *    on the maps the policy pinned, /sys/fs/bpf/scxpol/<policy>/ by default,
 *    and needs write access to them (the loader's pin_mode / pin_gid), and
 *    read access to the limits, which only the loader writes.
 *
 * Hints live in pinned maps: they survive restarts of the policy process.
 * Every write bumps the generation, which makes the BPF side resolve
 * the affected tasks' hints again. Ids are those of the initial PID and
 * cgroup namespaces (what the kernel's task_struct holds). A process's or
 * thread's hint names its task, not only its id (pids are reused): by the
 * inode number of a pidfd for it, which needs pidfs (Linux 6.9 or later).
 *
 * A client is safe to share between threads. The calls return 0 or a
 * negative errno; pointer-returning ones NULL with errno set; each failure
 * leaves a message naming the input in scxpol_last_error().
 */
#ifndef SCXPOL_HINT_H
#define SCXPOL_HINT_H

#include <stdint.h>
#include <sys/types.h>

#include <scxpol/abi/hint.h>
#include <scxpol/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_sched;
struct scxpol_hint_client;
struct scxpol_hint_thread;

/* ---- Policy side --------------------------------------------------------- */

struct scxpol_hint_limits {
	size_t sz;
	/*
	 * Valid values: pool < nr_pools (or SCXPOL_HINT_POOL_NONE), class <
	 * nr_classes, importance <= max_importance. A policy that publishes
	 * pools (scxpol_pool_publish()) has nr_pools follow each published
	 * plan: after a resize to fewer pools, a hint naming a pool that is
	 * gone is refused by clients and ignored (and counted in hint_reject)
	 * by the BPF side, whose cached hints are resolved again.
	 */
	unsigned int nr_pools;
	unsigned int nr_classes;
	unsigned int max_importance;
	/*
	 * Map sizes; 0 keeps the size of the pinned map if there is one,
	 * else the BPF side's default (SCXPOL_HINT_MAX_* in hint.bpf.h).
	 * nr_slots is the number of threads that can register at once.
	 */
	unsigned int nr_slots;
	unsigned int max_cgroups;
	unsigned int max_tgids;
	unsigned int max_tids;
	/* 0: tail padding made a field, so an initialiser zeroes it (opts checks) */
	unsigned int reserved;
};
#define scxpol_hint_limits__last_field max_tids

/*
 * scxpol_hint_setup - from the configure hook: size the hint maps of @s's
 * BPF object and, once it is loaded, write @lim into scxpol_hint_meta and
 * bump the generation (hints already in pinned maps are kept). Called after
 * load, it writes the limits at once (the sizes must then match the maps).
 * Errors: -EINVAL for a NULL or bad @lim, or when the object has no hint
 * maps (include <scxpol/hint.bpf.h>); -EEXIST when a map is already pinned
 * with another size or layout (the message names the pin and says how to
 * start afresh); errors of reading the pins.
 */
SCXPOL_API int scxpol_hint_setup(struct scxpol_sched *s, const struct scxpol_hint_limits *lim);

/* ---- Clients --------------------------------------------------------------- */

struct scxpol_hint_client_opts {
	size_t sz;
	/* Directory of the policy's pinned maps; NULL: /sys/fs/bpf/scxpol/<policy>. */
	const char *pin_root;
};
#define scxpol_hint_client_opts__last_field pin_root

/*
 * scxpol_hint_client_open - open the hint maps policy @policy pinned.
 * NULL + errno: EINVAL (bad name: empty, '/', "." or ".."), ENOENT (the
 * policy never pinned its maps there: is it loaded?), EACCES (the message
 * gives the pins' mode and owner), EPROTO (a map does not have the layout
 * of this library's <scxpol/abi/hint.h>).
 */
SCXPOL_API struct scxpol_hint_client *
scxpol_hint_client_open(const char *policy, const struct scxpol_hint_client_opts *opts);

/*
 * scxpol_hint_client_close - close @c. Threads registered through @c must
 * be unregistered first. NULL is a no-op.
 */
SCXPOL_API void scxpol_hint_client_close(struct scxpol_hint_client *c);

/*
 * What a hint is for, and what its id is. A cgroup's hint covers the tasks
 * in it and in its descendants unless a nearer cgroup has the field; a
 * process's covers all its threads; a thread's only that thread (the
 * precedence between them: <scxpol/abi/hint.h>).
 *
 * A process's or thread's hint is that task's: a later task given the same
 * id does not inherit it, also when this one exits before the write lands
 * (the BPF side ignores the entry, counted in hint_stale; the prune removes
 * it). Task ids are those of the initial PID namespace: a task hint call
 * from another (a container's) is -EOPNOTSUPP, since its numbers name
 * other tasks of the host's.
 */
enum scxpol_hint_kind {
	SCXPOL_HINT_CGROUP, /* id: the cgroup2 directory's inode (scxpol_hint_cgroup_id()) */
	SCXPOL_HINT_TGID,   /* id: a process id */
	SCXPOL_HINT_TID,    /* id: a thread id */
};

/*
 * scxpol_hint_cgroup_id - the id of cgroup2 directory @path (e.g.
 * "/sys/fs/cgroup/faas/fn1") into *@id. -ENOENT, -ENOTDIR, or -EINVAL
 * when @path is not on cgroup2.
 */
SCXPOL_API int scxpol_hint_cgroup_id(const char *path, uint64_t *id);

/*
 * scxpol_hint_set - set the hint of @id of @kind. @h->flags says which
 * fields are set; the values must be within the policy's limits.
 * -EINVAL: an unknown kind, an id that cannot be one of @kind (0, a task
 * id above INT_MAX), no or unknown flags, a value out of range (the
 * message gives the accepted range); -ENOSPC: the map is full (prune, or
 * raise the policy's max_*). For tasks: -ESRCH when no such process or
 * thread exists (a thread's id as a process's included); -EOPNOTSUPP
 * without pidfs or outside the initial PID namespace; -ENOSYS without
 * pidfd_open().
 */
SCXPOL_API int scxpol_hint_set(struct scxpol_hint_client *c, enum scxpol_hint_kind kind,
			       uint64_t id, const struct scxpol_hint *h);

/*
 * scxpol_hint_get - the hint of @id of @kind into @out; -ENOENT if none,
 * also when a task's entry was set for a task that is gone.
 */
SCXPOL_API int scxpol_hint_get(struct scxpol_hint_client *c, enum scxpol_hint_kind kind,
			       uint64_t id, struct scxpol_hint *out);

/* scxpol_hint_clear - remove the hint of @id of @kind; -ENOENT if it had none. */
SCXPOL_API int scxpol_hint_clear(struct scxpol_hint_client *c, enum scxpol_hint_kind kind,
				 uint64_t id);

/*
 * scxpol_hint_prune - remove the entries of tasks and cgroups that no
 * longer exist (the BPF side removes them when they die while a policy is
 * loaded; this catches the rest): cgroup hints whose cgroup is not in the
 * cgroup2 tree, tgid and tid hints of gone processes and threads (also
 * when a new task has their id now), and thread registrations of gone
 * threads. *@removed (may be NULL) gets the
 * number of entries removed. -EOPNOTSUPP when the caller is not in the
 * initial PID and cgroup namespaces (it would see other ids). A kind that
 * cannot be checked (the cgroup tree unreadable) does not stop the others:
 * the first such error is returned, *@removed counts what the rest removed.
 */
SCXPOL_API int scxpol_hint_prune(struct scxpol_hint_client *c, unsigned int *removed);

struct scxpol_hint_counts {
	unsigned int cgroups, tgids, tids; /* hints per map */
	unsigned int threads;              /* registered threads (slots in use) */
	unsigned int max_cgroups, max_tgids, max_tids, nr_slots; /* map sizes */
};

/* scxpol_hint_count - how many entries each hint map holds, and its size. */
SCXPOL_API int scxpol_hint_count(struct scxpol_hint_client *c, struct scxpol_hint_counts *out);

/*
 * scxpol_hint_get_meta - the limits the policy published into @out.
 */
SCXPOL_API int scxpol_hint_get_meta(struct scxpol_hint_client *c, struct scxpol_hint_meta *out);

/* ---- Per-thread importance (application side) ------------------------------ */

/*
 * scxpol_hint_thread_register - give the calling thread a slot in the
 * shared, mmap-ed slot array, so it can change its importance without a
 * syscall. Safe against threads and processes registering at the same time
 * (a slot is claimed with a compare-and-swap on its owner). The slot's
 * importance starts at 0 and overrides the importance of the thread's map
 * hints; the slot names this thread (as a SCXPOL_HINT_TID hint does), so
 * a later thread given its tid does not inherit it. NULL + errno: ENOSPC (every slot taken),
 * EEXIST (the thread is registered already), EOPNOTSUPP (not in the
 * initial PID namespace, or no pidfs), ENOSYS (no pidfd_open()).
 */
SCXPOL_API struct scxpol_hint_thread *scxpol_hint_thread_register(struct scxpol_hint_client *c);

/*
 * scxpol_hint_thread_set_importance - set the registered thread's
 * importance: one store into shared memory, no syscall. The policy ignores
 * (and counts in hint_reject) values above its max_importance.
 */
SCXPOL_API void scxpol_hint_thread_set_importance(struct scxpol_hint_thread *t,
						  unsigned int importance);

/*
 * scxpol_hint_thread_unregister - release the thread's slot and free @t
 * (from any thread). -ESRCH if the slot had been released already (the
 * thread exited and the policy or a pruner freed it); @t is freed anyway.
 */
SCXPOL_API int scxpol_hint_thread_unregister(struct scxpol_hint_thread *t);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_HINT_H */
