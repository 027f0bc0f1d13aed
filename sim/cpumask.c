// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The bpf_cpumask kfuncs (kernel/bpf/cpumask.c): reference-counted masks
 * with room for SCXPOL_SIM_MAX_CPUS CPUs, of which the machine's nr_cpus
 * count. Scans go a word at a time, so a mask operation costs nr_cpus / 64
 * steps.
 */
#include <stdlib.h>

#include "kernel.h"

struct live_mask {
	struct bpf_cpumask m; /* first: the kfuncs hand out its address */
	struct live_mask *prev, *next;
};

static struct live_mask *live;

static u32 words(void)
{
	return SIM_MASK_WORDS(sim_k.nr_cpus);
}

u32 sim_mask_next_and(const struct cpumask *a, const struct cpumask *b, u32 from)
{
	u32 n = sim_k.nr_cpus, w;
	unsigned long bits;

	if (from >= n)
		return n;
	w = from / SIM_BITS;
	bits = a->bits[w] & (b ? b->bits[w] : ~0UL);
	bits &= ~0UL << (from % SIM_BITS);
	for (;;) {
		if (bits) {
			u32 cpu = w * SIM_BITS + (u32)__builtin_ctzl(bits);

			return cpu < n ? cpu : n;
		}
		if (++w >= words())
			return n;
		bits = a->bits[w] & (b ? b->bits[w] : ~0UL);
	}
}

u32 sim_mask_next_and_wrap(const struct cpumask *a, const struct cpumask *b, u32 prev)
{
	u32 n = sim_k.nr_cpus, cpu = sim_mask_next_and(a, b, prev + 1);

	if (cpu < n)
		return cpu;
	cpu = sim_mask_next_and(a, b, 0);
	return cpu <= prev ? cpu : n;
}

u32 sim_mask_weight(const struct cpumask *m)
{
	u32 w, c = 0;

	for (w = 0; w < words(); w++)
		c += (u32)__builtin_popcountl(m->bits[w]);
	return c;
}

struct bpf_cpumask *bpf_cpumask_create(void)
{
	struct live_mask *l;

	if (!sim_k.cpumask_creates_left)
		return NULL;
	if (sim_k.cpumask_creates_left > 0)
		sim_k.cpumask_creates_left--;
	l = calloc(1, sizeof(*l));
	if (!l)
		sim_die("out of memory for a cpumask");
	l->m.usage = 1;
	l->next = live;
	if (live)
		live->prev = l;
	live = l;
	sim_k.cpumasks_live++;
	return &l->m;
}

struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *m)
{
	m->usage++;
	return m;
}

static void unlink_free(struct live_mask *l)
{
	if (l->prev)
		l->prev->next = l->next;
	else
		live = l->next;
	if (l->next)
		l->next->prev = l->prev;
	free(l);
	sim_k.cpumasks_live--;
}

void bpf_cpumask_release(struct bpf_cpumask *m)
{
	if (m->usage <= 0)
		sim_die("bpf_cpumask_release of a freed cpumask");
	if (--m->usage)
		return;
	unlink_free((struct live_mask *)m);
}

/* Every cpumask is freed with the kernel (sim_kernel_reset()), as a map drops its kptrs. */
void sim_cpumasks_free(void)
{
	while (live)
		unlink_free(live);
}

u32 bpf_cpumask_first(const struct cpumask *m)
{
	return sim_mask_next_and(m, NULL, 0);
}

u32 bpf_cpumask_first_and(const struct cpumask *a, const struct cpumask *b)
{
	return sim_mask_next_and(a, b, 0);
}

/*
 * The kernel's cpumask_any_and_distribute(): the next CPU of both masks
 * after the one this CPU returned last time, wrapping around. Detached
 * (the unit tests), the lowest one.
 */
u32 bpf_cpumask_any_and_distribute(const struct cpumask *a, const struct cpumask *b)
{
	struct sim_cpu *c = &sim_k.cpus[sim_k.cur_cpu];
	u32 cpu;

	if (sim_k.pick_lowest)
		return sim_mask_next_and(a, b, 0);
	cpu = sim_mask_next_and_wrap(a, b, c->distribute_prev);
	if (cpu < sim_k.nr_cpus)
		c->distribute_prev = cpu;
	return cpu;
}

void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *m)
{
	if (cpu < sim_k.nr_cpus)
		sim_mask_set(&m->cpumask, cpu);
}

void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *m)
{
	if (cpu < sim_k.nr_cpus)
		sim_mask_clear(&m->cpumask, cpu);
}

bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *m)
{
	return cpu < sim_k.nr_cpus && sim_mask_test(m, cpu);
}

void bpf_cpumask_clear(struct bpf_cpumask *m)
{
	memset(&m->cpumask, 0, sizeof(m->cpumask));
}

bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	unsigned long any = 0;
	u32 w;

	for (w = 0; w < SIM_MASK_WORDS(SCXPOL_SIM_MAX_CPUS); w++) {
		dst->cpumask.bits[w] = a->bits[w] & b->bits[w];
		any |= w < words() ? dst->cpumask.bits[w] : 0;
	}
	return any != 0;
}

void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	u32 w;

	for (w = 0; w < SIM_MASK_WORDS(SCXPOL_SIM_MAX_CPUS); w++)
		dst->cpumask.bits[w] = a->bits[w] | b->bits[w];
}

void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src)
{
	dst->cpumask = *src;
}

bool bpf_cpumask_empty(const struct cpumask *m)
{
	return bpf_cpumask_first(m) >= sim_k.nr_cpus;
}

bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	return sim_mask_next_and(a, b, 0) < sim_k.nr_cpus;
}

u32 bpf_cpumask_weight(const struct cpumask *m)
{
	return sim_mask_weight(m);
}

/* The kernel's RCU read section needs no work in a single-threaded simulator. */
void bpf_rcu_read_lock(void)
{
}

void bpf_rcu_read_unlock(void)
{
}
