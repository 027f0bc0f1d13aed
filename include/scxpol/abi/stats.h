/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Stats counters shared by the BPF side (bpf-lib/scxpol/stats.bpf.h) and
 * userspace (include/scxpol/stats.h). The names are stable: tools and
 * dashboards key on them. New counters are appended, never renumbered.
 *
 * The per-CPU array map `scxpol_stats` has SCXPOL_STAT_LIB_SLOTS slots for
 * the library's counters (SCXPOL_STAT_NR of them in use) followed by
 * SCXPOL_STAT_USER_NR counters a policy may use for its own purposes (named
 * from userspace, see scxpol_stats_opts.user_names). The reserved slots
 * keep the policy's counters at SCXPOL_STAT_USER_BASE whatever counters the
 * library adds: a policy's BPF object and the library it runs with may come
 * from different versions of this header as long as the map's size is the
 * same (the library refuses, naming both sizes, an object whose is not).
 */
#ifndef SCXPOL_ABI_STATS_H
#define SCXPOL_ABI_STATS_H

enum scxpol_stat {
	SCXPOL_STAT_ENQUEUE,            /* tasks enqueued (ops.enqueue) */
	SCXPOL_STAT_DIRECT,             /* inserted straight into an idle CPU's local DSQ */
	SCXPOL_STAT_DISPATCH_POOL,      /* dispatched from the CPU's own pool/domain queue */
	SCXPOL_STAT_DISPATCH_SHARED,    /* dispatched from the shared fallback queue */
	SCXPOL_STAT_DISPATCH_STEAL,     /* dispatched after stealing from another domain */
	SCXPOL_STAT_DISPATCH_BORROW,    /* a lending pool's idle CPU ran another pool's task */
	SCXPOL_STAT_DISPATCH_NONE,      /* dispatch found nothing to run */
	SCXPOL_STAT_BORROW_IDLE,        /* select_cpu placed a task on another pool's idle CPU */
	SCXPOL_STAT_RECLAIM,            /* a borrowed CPU was preempted back for its own pool */
	SCXPOL_STAT_HINT_HIT,           /* a hint applied to a task */
	SCXPOL_STAT_HINT_MISS,          /* no hint for a task */
	SCXPOL_STAT_HINT_REJECT,        /* a hint ignored for out-of-range values */
	SCXPOL_STAT_BUSY_POLL_DEMOTE,   /* a busy-polling task de-prioritised */
	SCXPOL_STAT_POOL_COMMIT,        /* pool tables published by userspace */
	SCXPOL_STAT_POOL_REJECT,        /* a pool publication rejected (bad input) */
	SCXPOL_STAT_IMPORTANT,          /* tasks run as "important" (hint) */
	SCXPOL_STAT_DISPATCH_PINNED,    /* dispatched from the CPU's queue of tasks pinned to it */
	SCXPOL_STAT_KTHREAD_LOCAL,      /* a kernel thread bound to one CPU queued first there */
	SCXPOL_STAT_WATCH_KICK,         /* the pool watch woke an idle CPU for a queue left waiting */
	SCXPOL_STAT_PENDING_REPAIR,     /* the pool watch found a task a queue's count missed */
	SCXPOL_STAT_STEAL_IDLE,         /* select_cpu placed a task where a steal would have run it */
	SCXPOL_STAT_HINT_STALE,         /* a hint ignored: set for an earlier task with the same id */
	SCXPOL_STAT_NR,
};

#define SCXPOL_STAT_LIB_SLOTS 48
#define SCXPOL_STAT_USER_BASE SCXPOL_STAT_LIB_SLOTS
#define SCXPOL_STAT_USER_NR 16
#define SCXPOL_STAT_TOTAL (SCXPOL_STAT_LIB_SLOTS + SCXPOL_STAT_USER_NR)

/* Stable names, index = enum scxpol_stat. */
#define SCXPOL_STAT_NAMES                                                     \
	"enqueue", "direct", "dispatch_pool", "dispatch_shared", "dispatch_steal", \
	"dispatch_borrow", "dispatch_none", "borrow_idle", "reclaim", "hint_hit", \
	"hint_miss", "hint_reject", "busy_poll_demote", "pool_commit",        \
	"pool_reject", "important", "dispatch_pinned", "kthread_local", "watch_kick", \
	"pending_repair", "steal_idle", "hint_stale"

#endif
