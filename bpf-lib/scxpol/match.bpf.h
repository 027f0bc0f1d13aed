/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Classification rules, BPF side: the value (a class, a pool...) the
 * loader's configuration gives a task by its cgroup or by its comm. The
 * loader writes the rules with scxpol_match_add() (<scxpol/match.h>) from
 * its loaded hook; the maps are not pinned, so a restarted loader starts
 * from its configuration again (hints, <scxpol/hint.bpf.h>, are what
 * outlives a restart).
 *
 *   cgroup rules  a cgroup and every cgroup below it: the rule of the
 *                 task's cgroup or of its nearest ancestor with one wins
 *   comm rules    an exact comm or a prefix: the longest matching rule wins
 *
 * Cost per lookup: one hash lookup per level of the task's cgroup up to
 * the root (at most SCXPOL_MATCH_CGROUP_DEPTH), one LPM-trie lookup for
 * the comm. No task context: a comm changes at any time (prctl), and the
 * lookups are cheaper than keeping a cache honest.
 */
#ifndef SCXPOL_MATCH_BPF_H
#define SCXPOL_MATCH_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/abi/match.h>

#ifndef SCXPOL_MATCH_MAX_CGROUPS
#define SCXPOL_MATCH_MAX_CGROUPS 1024
#endif
#ifndef SCXPOL_MATCH_MAX_COMMS
#define SCXPOL_MATCH_MAX_COMMS 256
#endif
/* A task's cgroup and at most this many levels above it are searched. */
#define SCXPOL_MATCH_CGROUP_DEPTH 16

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCXPOL_MATCH_MAX_CGROUPS);
	__type(key, u64);
	__type(value, s32);
} scxpol_match_cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SCXPOL_MATCH_MAX_COMMS);
	__type(key, struct scxpol_match_comm_key);
	__type(value, s32);
} scxpol_match_comms SEC(".maps");

/*
 * The value of the cgroup rule that applies to @p into *@value: its
 * cgroup2 cgroup's, else the nearest ancestor's. False when none does.
 * (Single-level BPF_CORE_READ()s: probe reads, valid in any callback.)
 */
static __always_inline bool scxpol_match_cgroup(struct task_struct *p, s32 *value)
{
	struct css_set *cset = BPF_CORE_READ(p, cgroups);
	struct cgroup *cgrp = BPF_CORE_READ(cset, dfl_cgrp);
	int i;

	for (i = 0; i < SCXPOL_MATCH_CGROUP_DEPTH && cgrp; i++) {
		struct kernfs_node *kn = BPF_CORE_READ(cgrp, kn);
		struct cgroup_subsys_state *parent;
		u64 id = BPF_CORE_READ(kn, id);
		s32 *v = bpf_map_lookup_elem(&scxpol_match_cgroups, &id);

		if (v) {
			*value = *v;
			return true;
		}
		/* a cgroup's own css is its first member: the parent css is the parent cgroup */
		parent = BPF_CORE_READ(cgrp, self.parent);
		cgrp = parent ? BPF_CORE_READ(parent, cgroup) : NULL;
	}
	return false;
}

/* The value of the longest comm rule matching @p into *@value; false when none does. */
static __always_inline bool scxpol_match_comm(struct task_struct *p, s32 *value)
{
	struct scxpol_match_comm_key key = { .prefixlen = 8 * SCXPOL_MATCH_COMM_LEN };
	s32 *v;

	__builtin_memcpy(key.comm, p->comm, sizeof(key.comm));
	v = bpf_map_lookup_elem(&scxpol_match_comms, &key);
	if (!v)
		return false;
	*value = *v;
	return true;
}

#endif
