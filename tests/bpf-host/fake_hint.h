/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Helpers to build the cgroup tree bpf-lib/scxpol/hint.bpf.h and
 * match.bpf.h read (its structures are in <scxpol/sim/host.h>). Include
 * before <scxpol/hint.bpf.h> or <scxpol/match.bpf.h>.
 */
#ifndef SCXPOL_FAKE_HINT_H
#define SCXPOL_FAKE_HINT_H

#include "host_fake.h"

/* A cgroup and what a task in it points at. */
struct fake_cgroup {
	struct cgroup cgrp;
	struct kernfs_node kn;
	struct css_set cset;
};

/* @c: an online cgroup with id @id below @parent (NULL: the root). */
void fake_cgroup_init(struct fake_cgroup *c, u64 id, struct fake_cgroup *parent);
/* Mark @c removed (rmdir): offline, as cgroup_destroy_locked() leaves it. */
void fake_cgroup_offline(struct fake_cgroup *c);
/* Put @p in @c (its cgroup2 membership). */
void fake_task_set_cgroup(struct task_struct *p, struct fake_cgroup *c);

/*
 * Give @p the struct pid @pid (its identity) and make bpf_task_from_pid()
 * find it by its pid, as a live task; fake_task_unhash() undoes both, as
 * release_task() does at exit (thread_pid NULL), which frees the pid for
 * another task. bpf_task_release() must balance bpf_task_from_pid():
 * fake_tasks_held() counts what is held.
 */
void fake_task_hash(struct task_struct *p, struct pid *pid);
void fake_task_unhash(struct task_struct *p);
int fake_tasks_held(void);

#endif
