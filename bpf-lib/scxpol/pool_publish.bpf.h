/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Publication, BPF side: the syscall programs userspace runs
 * (scxpol_pool_publish(), scxpol_pool_read()) to validate a staged plan and
 * build it into the inactive half of the table, and to read queue depths.
 * Part of <scxpol/pool.bpf.h>, the header to include.
 */
#ifndef SCXPOL_POOL_PUBLISH_BPF_H
#define SCXPOL_POOL_PUBLISH_BPF_H

#include <scxpol/pool_watch.bpf.h>

/* --- publication (userspace runs these with bpf_prog_test_run_opts) ------ */

static __always_inline int scxpol_pool__reject(struct scxpol_pool_commit_args *a, int err,
					       u32 reason, s32 pool, s32 cpu, s32 other)
{
	a->err = -err;
	a->reason = reason;
	a->pool = pool;
	a->cpu = cpu;
	a->other = other;
	if (reason != SCXPOL_POOL_REJ_NOMEM)
		scxpol_stat_inc(SCXPOL_STAT_POOL_REJECT);
	return -err;
}

/* Check the staged plan of @nr_pools pools; fill each pool's nr_cpus. */
static __always_inline int scxpol_pool__validate(struct scxpol_pool_commit_args *a, u32 nr_pools)
{
	u32 max_pools = scxpol_pool_conf.max_pools, nr_words = scxpol_pool_conf.nr_words;
	u32 nr_ids = scx_bpf_nr_cpu_ids();
	bool cover = scxpol_pool_conf.require & SCXPOL_POOL_REQ_COVER;
	struct scxpol_pool_cpu *sc;
	struct scxpol_pool_desc *d;
	u32 p, k, key, cpu, q, nr_bare = 0;
	s32 owner, bare = -1;
	u64 *w;
	u32 *qp;

	bpf_for(p, 0, nr_pools) {
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (!d)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p, -1, -1);
		if (d->flags & ~SCXPOL_POOL_FLAGS_ALL)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_FLAGS, p, -1, d->flags);
		if (d->nr_order > nr_pools - 1)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_ORDER, p, -1,
						   d->nr_order);
		d->nr_cpus = 0;
		bpf_for(k, 0, d->nr_order) {
			key = p * max_pools + k;
			qp = bpf_map_lookup_elem(&scxpol_pool_stage_order, &key);
			if (!qp)
				return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p,
							   -1, -1);
			q = *qp;
			if (q >= nr_pools || q == p)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_ORDER, p, -1, q);
		}
	}
	bpf_for(cpu, 0, nr_words * 64) {
		owner = -1;
		bpf_for(p, 0, nr_pools) {
			key = p * nr_words + cpu / 64;
			w = bpf_map_lookup_elem(&scxpol_pool_stage_mask, &key);
			if (!w || !((*w >> (cpu & 63)) & 1))
				continue;
			if (owner >= 0)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_OVERLAP, owner,
							   cpu, p);
			owner = p;
		}
		sc = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);
		if (owner < 0) {
			if (sc && sc->pool != -1)
				return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_CPU_TABLE,
							   -1, cpu, sc->pool);
			if (cover && sc && (sc->flags & SCXPOL_POOL_CPU_ONLINE)) {
				if (bare < 0)
					bare = (s32)cpu;
				nr_bare++;
			}
			continue;
		}
		if (cpu >= nr_ids || !sc)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_CPU_RANGE, owner, cpu,
						   nr_ids);
		if (sc->pool != owner)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_CPU_TABLE, owner, cpu,
						   sc->pool);
		if (sc->llc >= scxpol_pool_conf.max_llcs)
			return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_LLC_RANGE, owner, cpu,
						   sc->llc);
		key = (u32)owner;
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &key);
		if (d)
			d->nr_cpus++;
	}
	bpf_for(p, 0, nr_pools) {
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (d && !d->nr_cpus)
			return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_EMPTY, p, -1, -1);
	}
	if (bare >= 0)
		return scxpol_pool__reject(a, EINVAL, SCXPOL_POOL_REJ_UNCOVERED, -1, bare,
					   (s32)nr_bare);
	return 0;
}

/* Put a new empty cpumask into slot @ms (dropping the old one), stamped @gen. */
static __always_inline int scxpol_pool__fresh(struct scxpol_pool_mask *ms, u64 gen)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (!m)
		return -ENOMEM;
	m = bpf_kptr_xchg(&ms->cpus, m);
	if (m)
		bpf_cpumask_release(m);
	ms->gen = gen;
	ms->nr_cpus = 0;
	return 0;
}

/* Set @cpu in the cpumask of slot @ms (if any); in an RCU read section. */
static __always_inline void scxpol_pool__set(struct scxpol_pool_mask *ms, u32 cpu)
{
	struct bpf_cpumask *m = ms->cpus;

	if (m) {
		bpf_cpumask_set_cpu(cpu, m);
		ms->nr_cpus++;
	}
}

/* Build the validated plan into half @h for generation @gen. */
static __always_inline int scxpol_pool__build(struct scxpol_pool_commit_args *a, u32 nr_pools,
					      u64 gen, u32 h)
{
	u32 max_pools = scxpol_pool_conf.max_pools, max_llcs = scxpol_pool_conf.max_llcs;
	struct scxpol_pool_mask *ms, *lend, *steal;
	struct scxpol_pool_cpu *sc, *dc;
	struct scxpol_pool_desc *d;
	struct scxpol_pool_slot *s;
	struct bpf_cpumask *m;
	u32 p, k, cpu, key, src, flags;
	u32 *qp, *dq;

	bpf_for(p, 0, max_pools) {
		key = p * 2 + h;
		s = bpf_map_lookup_elem(&scxpol_pool_slots, &key);
		d = bpf_map_lookup_elem(&scxpol_pool_stage, &p);
		if (!s || !d)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, p, -1, -1);
		m = NULL;
		if (p < nr_pools) {
			s->desc = *d;
			m = bpf_cpumask_create();
			if (!m)
				return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, p, -1, -1);
		} else {
			__builtin_memset(&s->desc, 0, sizeof(s->desc));
		}
		m = bpf_kptr_xchg(&s->cpus, m);
		if (m)
			bpf_cpumask_release(m);
		if (p >= nr_pools)
			continue;
		bpf_for(k, 0, s->desc.nr_order) {
			src = p * max_pools + k;
			key = src * 2 + h;
			qp = bpf_map_lookup_elem(&scxpol_pool_stage_order, &src);
			dq = bpf_map_lookup_elem(&scxpol_pool_order, &key);
			if (qp && dq)
				*dq = *qp;
		}
	}
	key = SCXPOL_POOL__LEND + h;
	lend = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	key = SCXPOL_POOL__STEAL + h;
	steal = bpf_map_lookup_elem(&scxpol_pool_masks, &key);
	if (!lend || !steal)
		return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, -1, -1);
	if (scxpol_pool__fresh(lend, gen) || scxpol_pool__fresh(steal, gen))
		return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, -1, -1, -1);
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		sc = bpf_map_lookup_elem(&scxpol_pool_stage_cpu, &cpu);
		key = cpu * 2 + h;
		dc = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		if (!sc || !dc)
			return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, cpu, -1);
		*dc = *sc;
		if (sc->pool < 0)
			continue;
		key = ((u32)sc->pool * max_llcs + sc->llc) * 2 + h;
		ms = bpf_map_lookup_elem(&scxpol_pool_llcs, &key);
		if (ms && ms->gen != gen && scxpol_pool__fresh(ms, gen))
			return scxpol_pool__reject(a, ENOMEM, SCXPOL_POOL_REJ_NOMEM, sc->pool, cpu, -1);
		key = (u32)sc->pool * 2 + h;
		s = bpf_map_lookup_elem(&scxpol_pool_slots, &key);
		if (!s)
			continue;
		flags = s->desc.flags;
		bpf_rcu_read_lock();
		m = s->cpus;
		if (m)
			bpf_cpumask_set_cpu(cpu, m);
		if (ms)
			scxpol_pool__set(ms, cpu);
		if (flags & SCXPOL_POOL_LEND)
			scxpol_pool__set(lend, cpu);
		if (flags & SCXPOL_POOL_STEAL)
			scxpol_pool__set(steal, cpu);
		bpf_rcu_read_unlock();
	}
	return 0;
}

/*
 * After a failed build of half @h for @gen: the next commit builds that
 * half for @gen again, and would take a per-LLC mask this one stamped
 * (holding its plan's CPUs) as rebuilt already.
 */
static __always_inline void scxpol_pool__unstamp(u64 gen, u32 h)
{
	struct scxpol_pool_mask *ms;
	u32 i, key;

	bpf_for(i, 0, scxpol_pool_conf.max_pools * scxpol_pool_conf.max_llcs) {
		key = i * 2 + h;
		ms = bpf_map_lookup_elem(&scxpol_pool_llcs, &key);
		if (ms && ms->gen == gen)
			ms->gen = 0;
	}
}

/*
 * Publish the staged plan of @a->nr_pools pools (see <scxpol/abi/pool.h>):
 * validate, build the inactive half, flip the generation, and kick the CPUs
 * whose pool changed so they pick from their new pool at once. Returns 0 or
 * a negative errno, with the reason in @a.
 */
int scxpol_pool_commit(struct scxpol_pool_commit_args *a);
SEC("syscall")
int scxpol_pool_commit(struct scxpol_pool_commit_args *a)
{
	struct scxpol_pool_cpu *was, *now;
	struct scxpol_pool_state *st;
	u32 zero = 0, nr_pools = a->nr_pools, h, cpu, key;
	u64 gen;
	int ret;

	a->err = 0;
	a->reason = SCXPOL_POOL_REJ_NONE;
	a->pool = -1;
	a->cpu = -1;
	a->other = -1;
	st = bpf_map_lookup_elem(&scxpol_pool_state, &zero);
	if (!st || !scxpol_pool_conf.max_pools)
		return scxpol_pool__reject(a, ENOENT, SCXPOL_POOL_REJ_NOT_SETUP, -1, -1, -1);
	if (!nr_pools || nr_pools > scxpol_pool_conf.max_pools)
		return scxpol_pool__reject(a, ERANGE, SCXPOL_POOL_REJ_NR_POOLS, -1, -1,
					   (s32)nr_pools);
	ret = scxpol_pool__validate(a, nr_pools);
	if (ret)
		return ret;
	gen = st->gen + 1;
	h = (u32)gen & 1;
	ret = scxpol_pool__build(a, nr_pools, gen, h);
	if (ret) {
		scxpol_pool__unstamp(gen, h);
		return ret;
	}
	st->nr_pools[h] = nr_pools;
	/* a full barrier: readers that see the new generation see its half */
	__sync_fetch_and_add(&st->gen, 1);
	a->gen = gen;
	scxpol_stat_inc(SCXPOL_STAT_POOL_COMMIT);
	if (gen == 1)
		return 0;
	bpf_for(cpu, 0, scxpol_pool_conf.nr_cpus) {
		key = cpu * 2 + (h ^ 1);
		was = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		key = cpu * 2 + h;
		now = bpf_map_lookup_elem(&scxpol_pool_cpus, &key);
		if (was && now && was->pool != now->pool && cpu < scx_bpf_nr_cpu_ids())
			scxpol_pool_kick((s32)cpu, SCXPOL_KICK_PREEMPT);
	}
	return 0;
}

/* Fill scxpol_pool_queued with every pool's queue depth (last: shared). */
int scxpol_pool_query(struct scxpol_pool_query_args *a);
SEC("syscall")
int scxpol_pool_query(struct scxpol_pool_query_args *a)
{
	struct scxpol_pool_state *st;
	u32 zero = 0, i;
	u32 *q;

	bpf_for(i, 0, scxpol_pool_conf.max_pools + 1) {
		q = bpf_map_lookup_elem(&scxpol_pool_queued, &i);
		if (q)
			*q = scxpol_pool_depth(i < scxpol_pool_conf.max_pools ? (s32)i :
							 SCXPOL_POOL_SHARED);
	}
	st = bpf_map_lookup_elem(&scxpol_pool_state, &zero);
	a->gen = st ? st->gen : 0;
	a->nr_pools = st && st->gen ? st->nr_pools[st->gen & 1] : 0;
	return 0;
}

#endif
