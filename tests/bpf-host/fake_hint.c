// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The cgroup tree of the fake kernel, for hint.bpf.h (see fake_hint.h). */
#include <stdlib.h>

#include "fake_hint.h"

#define FAKE_CSS_ONLINE (1U << 1)

void fake_cgroup_init(struct fake_cgroup *c, u64 id, struct fake_cgroup *parent)
{
	memset(c, 0, sizeof(*c));
	c->kn.id = id;
	c->cgrp.kn = &c->kn;
	c->cgrp.self.cgroup = &c->cgrp;
	c->cgrp.self.parent = parent ? &parent->cgrp.self : NULL;
	c->cgrp.self.flags = FAKE_CSS_ONLINE;
	c->cgrp.level = parent ? parent->cgrp.level + 1 : 0;
	c->cset.dfl_cgrp = &c->cgrp;
}

void fake_cgroup_offline(struct fake_cgroup *c)
{
	c->cgrp.self.flags &= ~FAKE_CSS_ONLINE;
}

void fake_task_set_cgroup(struct task_struct *p, struct fake_cgroup *c)
{
	p->cgroups = &c->cset;
}

void fake_task_hash(struct task_struct *p, struct pid *pid)
{
	p->thread_pid = pid;
	sim_task_hash(p);
}

void fake_task_unhash(struct task_struct *p)
{
	p->thread_pid = NULL;
	sim_task_unhash(p);
}

int fake_tasks_held(void)
{
	return sim_k.tasks_held;
}
