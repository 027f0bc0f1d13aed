// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The unit tests' hand on the simulated kernel (see host_fake.h). */
#include <stdio.h>

#include "host_fake.h"

static void check_cpu(s32 cpu)
{
	if (cpu < 0 || (u32)cpu >= sim_k.nr_cpus)
		sim_die("CPU %d out of range (the test set up %u)", cpu, sim_k.nr_cpus);
}

void fake_reset(u32 n)
{
	sim_kernel_reset(n);
}

void fake_set_core(s32 cpu, s32 core)
{
	check_cpu(cpu);
	sim_k.cpus[cpu].core = core;
	sim_kernel_topology_done();
}

void fake_set_idle(s32 cpu, bool v)
{
	check_cpu(cpu);
	sim_cpu_set_idle(cpu, v);
}

bool fake_cpu_idle(s32 cpu)
{
	check_cpu(cpu);
	return sim_mask_test(&sim_k.idle, (u32)cpu);
}

void fake_set_online(s32 cpu, bool v)
{
	check_cpu(cpu);
	sim_k.cpus[cpu].online = v;
	if (v)
		sim_mask_set(&sim_k.online, (u32)cpu);
	else
		sim_mask_clear(&sim_k.online, (u32)cpu);
}

void fake_set_cpu(s32 cpu)
{
	check_cpu(cpu);
	sim_k.cur_cpu = cpu;
}

void fake_set_curr(s32 cpu, struct task_struct *p)
{
	check_cpu(cpu);
	sim_k.cpus[cpu].curr = p;
}

void fake_set_clock(u64 ns)
{
	sim_k.now = ns;
}

void fake_advance(u64 ns)
{
	sim_k.now += ns;
}

u64 fake_clock(void)
{
	return sim_k.now;
}

void fake_task_init(struct task_struct *p, s32 pid, const char *comm)
{
	u32 c;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tgid = pid;
	p->group_leader = p;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	for (c = 0; c < sim_k.nr_cpus; c++)
		sim_mask_set(&p->cpus_mask, c);
	p->cpus_ptr = &p->cpus_mask;
	p->nr_cpus_allowed = (int)sim_k.nr_cpus;
	p->scx.weight = 100;
	p->scx.ddsp_dsq_id = SCX_DSQ_INVALID;
}

void fake_task_allow(struct task_struct *p, const s32 *cpus, int n)
{
	int i;

	memset(&p->cpus_mask, 0, sizeof(p->cpus_mask));
	for (i = 0; i < n; i++) {
		check_cpu(cpus[i]);
		sim_mask_set(&p->cpus_mask, (u32)cpus[i]);
	}
	p->nr_cpus_allowed = n;
}

static struct task_struct *nth(const struct scxpol_sim_dsq *d, int i)
{
	struct task_struct *p = d && i >= 0 ? d->first : NULL;

	while (p && i--)
		p = p->scx.dsq_next;
	return p;
}

/* A custom DSQ or the global one (which the kernel does not let a policy look up). */
static struct scxpol_sim_dsq *dsq_of(u64 dsq_id)
{
	return dsq_id == SCX_DSQ_GLOBAL ? &sim_k.global : sim_dsq_find(dsq_id);
}

int fake_dsq_count(u64 dsq_id)
{
	struct scxpol_sim_dsq *d = dsq_of(dsq_id);

	return d ? (int)d->nr : -1;
}

bool fake_dsq_exists(u64 dsq_id)
{
	return dsq_of(dsq_id) != NULL;
}

struct task_struct *fake_dsq_at(u64 dsq_id, int i)
{
	return nth(dsq_of(dsq_id), i);
}

int fake_local_count(s32 cpu)
{
	check_cpu(cpu);
	return (int)sim_k.cpus[cpu].local.nr;
}

struct task_struct *fake_local_at(s32 cpu, int i)
{
	check_cpu(cpu);
	return nth(&sim_k.cpus[cpu].local, i);
}

struct task_struct *fake_local_pop(s32 cpu)
{
	struct task_struct *p;

	check_cpu(cpu);
	p = sim_k.cpus[cpu].local.first;
	if (p)
		sim_dsq_remove(p);
	return p;
}

unsigned int fake_nr_moves(void)
{
	return sim_k.nr_moves;
}

unsigned int fake_nr_kicks(void)
{
	return sim_k.nr_kicks;
}

const struct fake_kick *fake_kick_at(unsigned int i)
{
	return i < sim_k.nr_kicks ? &sim_k.kicks[i] : NULL;
}

void fake_clear_kicks(void)
{
	sim_k.nr_kicks = 0;
}

const struct fake_insert *fake_last_insert(void)
{
	return sim_k.nr_inserts ? &sim_k.last_insert : NULL;
}

unsigned int fake_nr_inserts(void)
{
	return sim_k.nr_inserts;
}

u64 fake_timer_ns(const struct bpf_timer *t)
{
	struct sim_timer *tm = sim_timer_find(t);

	return tm ? tm->ns : 0;
}

void *fake_timer_cb(const struct bpf_timer *t)
{
	struct sim_timer *tm = sim_timer_find(t);

	return tm ? tm->cb : NULL;
}

void fake_timer_clear(const struct bpf_timer *t)
{
	struct sim_timer *tm = sim_timer_find(t);

	if (tm)
		tm->ns = 0;
}

unsigned int fake_nr_errors(void)
{
	return sim_k.nr_errors;
}

const char *fake_last_error(void)
{
	return sim_k.last_error;
}

unsigned int fake_take_errors(void)
{
	unsigned int n = sim_k.nr_errors;

	sim_k.nr_errors = 0;
	sim_k.first_error[0] = sim_k.last_error[0] = '\0';
	return n;
}

int fake_teardown(void **state)
{
	(void)state;
	if (!sim_k.nr_errors)
		return 0;
	fprintf(stderr, "host fake: %u unexpected error(s); first: %s; last: %s\n",
		sim_k.nr_errors, sim_k.first_error, sim_k.last_error);
	fake_take_errors();
	return -1;
}

int fake_cpumasks_live(void)
{
	return sim_k.cpumasks_live;
}

void fake_cpumask_fail_after(int n)
{
	sim_k.cpumask_creates_left = n;
}

u64 fake_percpu_sum(void *def, u32 key)
{
	return scxpol_sim_percpu_sum(def, key);
}

void fake_mask_set(struct cpumask *m, s32 cpu)
{
	if (cpu >= 0)
		sim_mask_set(m, (u32)cpu);
}

bool fake_mask_test(const struct cpumask *m, s32 cpu)
{
	return cpu >= 0 && sim_mask_test(m, (u32)cpu);
}
