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
 * the comm. Hot path: scxpol_match_ctx() caches the result in the task
 * context, keyed by all it depends on: the rule generation (userspace
 * bumps it after every rule write), the task's cgroup (a move) and its
 * comm (a prctl or an exec; the 16 bytes are compared), so a task pays for
 * the lookups only after one of them changed, and sees the change at its
 * next placement (a running task: its next wakeup or enqueue, see
 * <scxpol/pool.bpf.h>).
 *
 * It defines a global function (doc/conventions.md): include it in one
 * .bpf.c of a BPF object.
 */
#ifndef SCXPOL_MATCH_BPF_H
#define SCXPOL_MATCH_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/task.bpf.h>
#include <scxpol/abi/match.h>

#ifndef SCXPOL_MATCH_MAX_CGROUPS
#define SCXPOL_MATCH_MAX_CGROUPS 1024
#endif
#ifndef SCXPOL_MATCH_MAX_COMMS
#define SCXPOL_MATCH_MAX_COMMS 256
#endif
/* At most this many cgroups are searched: the task's own, then its ancestors. */
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

/* mmap-able so that writers bump gen atomically without a syscall. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_match_meta);
} scxpol_match_meta SEC(".maps");

/* Which kind of rule gave a task its value (scxpol_match_ctx()). */
enum scxpol_match_by {
	SCXPOL_MATCH_BY_NONE,   /* no rule applies */
	SCXPOL_MATCH_BY_CGROUP, /* a cgroup rule */
	SCXPOL_MATCH_BY_COMM,   /* a comm rule */
};

/* scxpol_match_cgroup() for a task in @cgrp. */
static __always_inline bool scxpol_match__cgroup(struct cgroup *cgrp, s32 *value)
{
	int i;

	for (i = 0; i < SCXPOL_MATCH_CGROUP_DEPTH && cgrp; i++) {
		u64 id = scxpol_cgrp_id(cgrp);
		struct cgroup_subsys_state *parent;
		s32 *v = bpf_map_lookup_elem(&scxpol_match_cgroups, &id);

		if (v) {
			*value = *v;
			return true;
		}
		/* a cgroup's own css is its first member: the parent css is the parent cgroup */
		parent = cgrp->self.parent;
		cgrp = parent ? parent->cgroup : NULL;
	}
	return false;
}

/* scxpol_match_comm() for a task whose comm is @comm (16 bytes). */
static __always_inline bool scxpol_match__comm(const void *comm, s32 *value)
{
	struct scxpol_match_comm_key key = { .prefixlen = 8 * SCXPOL_MATCH_COMM_LEN };
	s32 *v;

	__builtin_memcpy(key.comm, comm, sizeof(key.comm));
	v = bpf_map_lookup_elem(&scxpol_match_comms, &key);
	if (!v)
		return false;
	*value = *v;
	return true;
}

/*
 * The value of the cgroup rule that applies to @p into *@value: its
 * cgroup2 cgroup's, else the nearest ancestor's. False when none does.
 * Not cached: see scxpol_match_ctx().
 */
static __always_inline bool scxpol_match_cgroup(struct task_struct *p, s32 *value)
{
	return scxpol_match__cgroup(scxpol_task_cgroup(p), value);
}

/*
 * The value of the longest comm rule matching @p into *@value; false when
 * none does. Not cached: see scxpol_match_ctx().
 */
static __always_inline bool scxpol_match_comm(struct task_struct *p, s32 *value)
{
	return scxpol_match__comm(p->comm, value);
}

/*
 * scxpol_match_cgroup() for scxpol_match_ctx(). A global function
 * (doc/conventions.md): a loop, when the task's cached match is stale.
 */
int scxpol_match__cgroup_of(struct task_struct *p, s32 *value);

__noinline int scxpol_match__cgroup_of(struct task_struct *p __arg_trusted, s32 *value)
{
	return value && scxpol_match__cgroup(scxpol_task_cgroup(p), value);
}

/*
 * The rule that applies to @p, with @t its task context (NULL: no
 * caching): its cgroup rule (scxpol_match_cgroup()), else its comm rule
 * (scxpol_match_comm()). Stores its value in *@value and returns which
 * kind it was; SCXPOL_MATCH_BY_NONE (0, *@value untouched) when no rule
 * applies. Cached in @t (see above): as cheap as a few loads while
 * nothing it depends on changed.
 */
static __always_inline enum scxpol_match_by scxpol_match_ctx(struct scxpol_task_ctx *t,
							      struct task_struct *p, s32 *value)
{
	enum scxpol_match_by by = SCXPOL_MATCH_BY_NONE;
	struct scxpol_match_meta *m;
	u64 gen, cgid, comm[2];
	struct cgroup *cgrp;
	u32 zero = 0;
	s32 v = 0;

	m = bpf_map_lookup_elem(&scxpol_match_meta, &zero);
	if (!m) /* never (one entry), but the verifier needs the check */
		return SCXPOL_MATCH_BY_NONE;
	/* gen before the maps: a rule written meanwhile bumps it again after */
	gen = READ_ONCE(m->gen);
	cgrp = scxpol_task_cgroup(p);
	cgid = scxpol_cgrp_id(cgrp);
	/* one copy, the lookup's key and the cache's: a rename may race with us */
	__builtin_memcpy(comm, p->comm, sizeof(comm));
	if (t && t->match_gen == gen + 1 && t->match_cgid == cgid &&
	    t->match_comm[0] == comm[0] && t->match_comm[1] == comm[1]) {
		by = t->match_by;
		v = t->match_value;
	} else {
		if (scxpol_match__cgroup_of(p, &v))
			by = SCXPOL_MATCH_BY_CGROUP;
		else if (scxpol_match__comm(comm, &v))
			by = SCXPOL_MATCH_BY_COMM;
		if (t) {
			t->match_by = by;
			t->match_value = v;
			t->match_cgid = cgid;
			t->match_comm[0] = comm[0];
			t->match_comm[1] = comm[1];
			t->match_gen = gen + 1;
		}
	}
	if (by != SCXPOL_MATCH_BY_NONE)
		*value = v;
	return by;
}

#endif
