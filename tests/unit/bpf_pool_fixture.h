/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the tests of bpf-lib/scxpol/pool.bpf.h on the host fake kernel
 * (test_bpf_pool*.c) share: the fake topologies they set up (setup_smt8(),
 * setup_llc3(), setup_4()), plans staged and committed as
 * scxpol_pool_publish() does, their tasks, and the pool callbacks called
 * as a policy wires them. pool.bpf.h defines global functions: each file
 * that includes it is an executable of its own, and these helpers are
 * static inline.
 */
#ifndef BPF_POOL_FIXTURE_H
#define BPF_POOL_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "host_fake.h"
#include <scxpol/common.bpf.h>
#include <scxpol/pool.bpf.h>

#define MS 1000000ULL
#define SLICE (5 * MS)
#define SOFT SCXPOL_POOL_SOFT
#define STEAL SCXPOL_POOL_STEAL

static u32 llc_of[FAKE_MAX_CPUS];

/* What scxpol_pool_setup() does before load, on @nr_cpus fake CPUs. */
static inline void setup_pools(u32 nr_cpus, u32 max_pools)
{
	fake_reset(nr_cpus);
	fake_set_clock(1000 * MS);
	memset(llc_of, 0, sizeof(llc_of));
	scxpol_pool_conf.max_pools = max_pools;
	scxpol_pool_conf.nr_cpus = nr_cpus;
	scxpol_pool_conf.max_llcs = nr_cpus;
	scxpol_pool_conf.nr_words = (nr_cpus + 63) / 64;
	FAKE_MAP_RESIZE(&scxpol_pool_slots, 2 * max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_llcs, 2 * max_pools * nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_cpus, 2 * nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_curr, nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_order, 2 * max_pools * max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_clock, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_queued, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_pending, max_pools + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_stage, max_pools);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_mask, max_pools * scxpol_pool_conf.nr_words);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_cpu, nr_cpus);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_order, max_pools * max_pools);
}

/* 8 CPUs: SMT cores {0,1} {2,3} {4,5} {6,7}; LLC 0 = 0-3, LLC 1 = 4-7. */
static inline int setup_smt8(void **state)
{
	s32 c;

	(void)state;
	setup_pools(8, 4);
	for (c = 0; c < 8; c++) {
		fake_set_core(c, c / 2);
		llc_of[c] = (u32)c / 4;
	}
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

/* 6 CPUs, no SMT; LLCs 0-1, 2-3, 4-5. */
static inline int setup_llc3(void **state)
{
	s32 c;

	(void)state;
	setup_pools(6, 4);
	for (c = 0; c < 6; c++)
		llc_of[c] = (u32)c / 2;
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

static inline int setup_4(void **state)
{
	(void)state;
	setup_pools(4, 4);
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

struct tpool {
	const char *name;
	u32 flags;
	const char *cpus;  /* "0-2,5" */
	const char *order; /* "2,1": other pools, nearest first */
};

/* Next number of a list like "0-2,5", ranges expanded; false at the end. */
static inline bool list_next(const char **s, int *lo, int *hi, int *cur)
{
	char *end;

	if (*cur < *hi) {
		(*cur)++;
		return true;
	}
	if (!**s)
		return false;
	*lo = (int)strtol(*s, &end, 10);
	*hi = *lo;
	if (*end == '-')
		*hi = (int)strtol(end + 1, &end, 10);
	*s = *end == ',' ? end + 1 : end;
	*cur = *lo;
	return true;
}

#define for_list(v, text) \
	for (const char *_s = (text); _s; _s = NULL) \
		for (int _lo = 0, _hi = -1, v = 0; list_next(&_s, &_lo, &_hi, &v);)

/* Stage @n pools the way scxpol_pool_publish() does. */
static inline void stage(const struct tpool *tp, u32 n)
{
	u32 nr_words = scxpol_pool_conf.nr_words, max = scxpol_pool_conf.max_pools, p, i;
	struct scxpol_pool_cpu none = { .pool = -1 };
	struct scxpol_pool_desc zd = { 0 };
	u64 zw = 0;

	for (p = 0; p < max; p++) {
		bpf_map_update_elem(&scxpol_pool_stage, &p, &zd, 0);
		for (i = 0; i < nr_words; i++) {
			u32 key = p * nr_words + i;

			bpf_map_update_elem(&scxpol_pool_stage_mask, &key, &zw, 0);
		}
	}
	for (i = 0; i < scxpol_pool_conf.nr_cpus; i++)
		bpf_map_update_elem(&scxpol_pool_stage_cpu, &i, &none, 0);
	for (p = 0; p < n; p++) {
		struct scxpol_pool_desc *d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		u32 k = 0;

		snprintf(d->name, sizeof(d->name), "%s", tp[p].name);
		d->flags = tp[p].flags;
		for_list(cpu, tp[p].cpus) {
			u32 key = p * nr_words + (u32)cpu / 64;
			u64 *w = bpf_map_lookup_elem(&scxpol_pool_stage_mask, &key);
			struct scxpol_pool_cpu *c = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);

			*w |= 1ULL << (cpu % 64);
			if (c) {
				c->pool = (s32)p;
				c->llc = llc_of[cpu];
			}
		}
		for_list(q, tp[p].order ? tp[p].order : "") {
			u32 key = p * max + k++;

			bpf_map_update_elem(&scxpol_pool_stage_order, &key, &q, 0);
		}
		d->nr_order = k;
	}
}

/* Run the commit program for @nr_pools staged pools. */
static inline int commit(u32 nr_pools, struct scxpol_pool_commit_args *a)
{
	memset(a, 0, sizeof(*a));
	a->nr_pools = nr_pools;
	return scxpol_pool_commit(a);
}

static inline int publish(const struct tpool *tp, u32 n, struct scxpol_pool_commit_args *a)
{
	stage(tp, n);
	return commit(n, a);
}

static inline void publish_ok(const struct tpool *tp, u32 n)
{
	struct scxpol_pool_commit_args a;

	assert_int_equal(publish(tp, n, &a), 0);
	assert_int_equal(a.err, 0);
}

static inline struct scxpol_pool_view view(void)
{
	struct scxpol_pool_view v;

	scxpol_pool_view(&v);
	return v;
}

/* @m as a CPU list, "" for NULL. */
static inline const char *mask_str(const struct cpumask *m)
{
	static char buf[8][256];
	static int next;
	char *b = buf[next++ % 8];
	u32 c, n = scx_bpf_nr_cpu_ids();
	size_t o = 0;

	b[0] = '\0';
	if (!m)
		return b;
	for (c = 0; c < n; c++) {
		u32 e = c;

		if (!bpf_cpumask_test_cpu(c, m))
			continue;
		while (e + 1 < n && bpf_cpumask_test_cpu(e + 1, m))
			e++;
		o += (size_t)snprintf(b + o, 256 - o, e == c ? "%s%u" : "%s%u-%u", o ? "," : "", c, e);
		c = e;
	}
	return b;
}

static inline u64 stat(enum scxpol_stat s)
{
	return fake_percpu_sum(&scxpol_stats, s);
}

static struct task_struct tasks[32];

static inline struct task_struct *task(int i, s32 cpu)
{
	struct task_struct *p = &tasks[i];

	fake_task_init(p, 100 + i, "t");
	p->cpu = cpu;
	assert_int_equal(scxpol_task_init(p), 0);
	return p;
}

/* The policy callbacks, as a policy wires them; select_cpu() sets last_direct. */
static bool last_direct;

static inline s32 select_cpu(struct task_struct *p, s32 pool, s32 prev)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(prev);
	last_direct = true;
	return scxpol_pool_select_cpu(&v, p, scxpol_task_ctx(p), pool, prev, 0, SLICE, &last_direct);
}

static inline void enqueue(struct task_struct *p, s32 pool, u64 flags)
{
	struct scxpol_pool_view v = view();

	scxpol_pool_enqueue(&v, p, scxpol_task_ctx(p), pool, flags, SLICE);
}

static inline int dispatch(s32 cpu)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(cpu);
	return scxpol_pool_dispatch_prev(&v, cpu, NULL);
}

static inline void running(struct task_struct *p)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(p->cpu);
	scxpol_pool_running(&v, p, scxpol_task_ctx(p));
}

static inline void stopping(struct task_struct *p, bool runnable)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(p->cpu);
	scxpol_pool_stopping(&v, p, scxpol_task_ctx(p), runnable);
}

static inline void busy(const char *cpus)
{
	for_list(c, cpus)
		fake_set_idle(c, false);
}

/* @p was dispatched to @cpu and runs there (ops.running), still runnable. */
static inline struct task_struct *run_on(struct task_struct *p, s32 cpu, s32 pool)
{
	enqueue(p, pool, 0);
	assert_int_equal(dispatch(cpu), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_pop(cpu), p);
	running(p);
	p->scx.flags |= SCX_TASK_QUEUED;
	return p;
}

/* run_on(), then @ns pass and @p's slice runs out. */
static inline struct task_struct *slice_out_after(struct task_struct *p, s32 cpu, s32 pool, u64 ns)
{
	run_on(p, cpu, pool);
	fake_advance(ns);
	p->scx.slice = 0;
	return p;
}

static inline int dispatch_prev(s32 cpu, struct task_struct *prev)
{
	struct scxpol_pool_view v = view();

	fake_set_cpu(cpu);
	return scxpol_pool_dispatch_prev(&v, cpu, prev);
}

#endif
