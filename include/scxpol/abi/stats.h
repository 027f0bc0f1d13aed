/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Stats counters shared by the BPF side (bpf-lib/scxpol/stats.bpf.h) and
 * userspace (include/scxpol/stats.h). The names are stable: tools and
 * dashboards key on them. New counters are appended, never renumbered.
 *
 * The per-CPU array map `scxpol_stats` has SCXPOL_STAT_LIB_SLOTS slots for
 * the library's counters (SCXPOL_STAT_NR of them in use) followed by
 * SCXPOL_STAT_USER_NR counters a policy may use for its own purposes (described
 * from userspace, see scxpol_stats_opts.user_descs). The reserved slots
 * keep the policy's counters at SCXPOL_STAT_USER_BASE whatever counters the
 * library adds: a policy's BPF object and the library it runs with may come
 * from different versions of this header as long as the map's size is the
 * same (the library refuses, naming both sizes, an object whose is not).
 */
#ifndef SCXPOL_ABI_STATS_H
#define SCXPOL_ABI_STATS_H

/*
 * The library's counters, in slot order: X(ID, name, unit, description).
 * SCXPOL_STAT_<ID> is the slot (enum scxpol_stat), "name" the stable name
 * snapshots and tools key on, unit what one count is, and description a
 * line for a reader (served by the "stats_meta" request, see
 * <scxpol/stats.h>). Append only.
 */
#define SCXPOL_STAT_TABLE(X) \
	X(ENQUEUE, enqueue, "tasks", "tasks enqueued (ops.enqueue)") \
	X(DIRECT, direct, "tasks", "inserted straight into an idle CPU's local DSQ") \
	X(DISPATCH_POOL, dispatch_pool, "tasks", "dispatched from the CPU's own pool/domain queue") \
	X(DISPATCH_SHARED, dispatch_shared, "tasks", "dispatched from the shared fallback queue") \
	X(DISPATCH_STEAL, dispatch_steal, "tasks", "dispatched after stealing from another domain") \
	X(DISPATCH_BORROW, dispatch_borrow, "tasks", "a lending pool's idle CPU ran another pool's task") \
	X(DISPATCH_NONE, dispatch_none, "dispatches", "dispatch found nothing to run") \
	X(BORROW_IDLE, borrow_idle, "tasks", "select_cpu placed a task on another pool's idle CPU") \
	X(RECLAIM, reclaim, "preemptions", "a borrowed CPU was preempted back for its own pool") \
	X(HINT_HIT, hint_hit, "tasks", "a hint applied to a task") \
	X(HINT_MISS, hint_miss, "tasks", "no hint for a task") \
	X(HINT_REJECT, hint_reject, "hints", "a hint ignored for out-of-range values") \
	X(BUSY_POLL_DEMOTE, busy_poll_demote, "tasks", "a busy-polling task de-prioritised") \
	X(POOL_COMMIT, pool_commit, "plans", "pool tables published by userspace") \
	X(POOL_REJECT, pool_reject, "plans", "a pool publication rejected (bad input)") \
	X(IMPORTANT, important, "tasks", "tasks run as \"important\" (hint)") \
	X(DISPATCH_PINNED, dispatch_pinned, "tasks", "dispatched from the CPU's queue of tasks pinned to it") \
	X(KTHREAD_LOCAL, kthread_local, "tasks", "a kernel thread bound to one CPU queued first there") \
	X(WATCH_KICK, watch_kick, "kicks", "the pool watch woke an idle CPU for a queue left waiting") \
	X(PENDING_REPAIR, pending_repair, "repairs", "the pool watch found a task a queue's count missed") \
	X(STEAL_IDLE, steal_idle, "tasks", "select_cpu placed a task where a steal would have run it") \
	X(HINT_STALE, hint_stale, "hints", "a hint ignored: set for an earlier task with the same id") \
	X(WATCH_RESCUE, watch_rescue, "kicks", "the pool watch woke an idle CPU for a task stranded in its pool")

/* One enumerator of SCXPOL_STAT_TABLE, for the enum below. */
#define SCXPOL_STAT_ENUM_(id, name, unit, desc) SCXPOL_STAT_##id,
enum scxpol_stat {
	SCXPOL_STAT_TABLE(SCXPOL_STAT_ENUM_)
	SCXPOL_STAT_NR,
};

#define SCXPOL_STAT_LIB_SLOTS 48
#define SCXPOL_STAT_USER_BASE SCXPOL_STAT_LIB_SLOTS
#define SCXPOL_STAT_USER_NR 16
#define SCXPOL_STAT_TOTAL (SCXPOL_STAT_LIB_SLOTS + SCXPOL_STAT_USER_NR)

/* One name of SCXPOL_STAT_TABLE, for SCXPOL_STAT_NAMES. */
#define SCXPOL_STAT_NAME_(id, name, unit, desc) #name,
/* Stable names, index = enum scxpol_stat: { SCXPOL_STAT_NAMES }. */
#define SCXPOL_STAT_NAMES SCXPOL_STAT_TABLE(SCXPOL_STAT_NAME_)

#endif
