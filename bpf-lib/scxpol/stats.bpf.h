/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Stats counters, BPF side: one per-CPU u64 per counter, so the hot paths
 * increment without atomics or cache-line bouncing. Userspace sums the CPUs
 * (scxpol_stats_read() in include/scxpol/stats.h).
 *
 * Slots 0 .. SCXPOL_STAT_NR-1 are the library's counters (enum scxpol_stat,
 * names in SCXPOL_STAT_NAMES), up to SCXPOL_STAT_LIB_SLOTS reserved for
 * them; the SCXPOL_STAT_USER_NR slots from SCXPOL_STAT_USER_BASE on are the
 * policy's own, bumped with scxpol_stat_user_inc()/_add() and named from
 * userspace (scxpol_stats_opts.user_names).
 */
#ifndef SCXPOL_STATS_BPF_H
#define SCXPOL_STATS_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/abi/stats.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCXPOL_STAT_TOTAL);
	__type(key, u32);
	__type(value, u64);
} scxpol_stats SEC(".maps");

/* Add @n to counter @idx on this CPU; out-of-range indexes are ignored. */
static __always_inline void scxpol_stat_add(enum scxpol_stat idx, u64 n)
{
	u32 key = idx;
	u64 *v;

	if (key >= SCXPOL_STAT_TOTAL)
		return;
	v = bpf_map_lookup_elem(&scxpol_stats, &key);
	/* per-CPU and BPF programs do not migrate: a plain add is exact */
	if (v)
		*v += n;
}

/* Count one event of @idx on this CPU. */
static __always_inline void scxpol_stat_inc(enum scxpol_stat idx)
{
	scxpol_stat_add(idx, 1);
}

/* Add @n to the policy's own counter @user (0 .. SCXPOL_STAT_USER_NR-1). */
static __always_inline void scxpol_stat_user_add(u32 user, u64 n)
{
	if (user >= SCXPOL_STAT_USER_NR)
		return;
	scxpol_stat_add((enum scxpol_stat)(SCXPOL_STAT_USER_BASE + user), n);
}

/* Count one event of the policy's own counter @user. */
static __always_inline void scxpol_stat_user_inc(u32 user)
{
	scxpol_stat_user_add(user, 1);
}

#endif
