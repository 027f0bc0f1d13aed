/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU pools (scheduling domains), userspace side.
 *
 * A plan is a list of named, non-overlapping pools of online CPUs, built
 * over a topology: by hand (scxpol_pool_plan_add), from a command-line
 * string (scxpol_pool_plan_parse), or by the topology-aware builders
 * (domains, split) and resized with scxpol_pool_plan_move. CPUs in no pool
 * are allowed (they serve the shared queue) unless the policy requires
 * otherwise (scxpol_pool_require()). Pool flags (what a pool may do with
 * other pools' CPUs) are SCXPOL_POOL_* from <scxpol/abi/pool.h>, whose
 * comment defines them.
 *
 * Topology-aware builders walk the online CPUs in "topology order": by
 * node, then LLC, then core (dense indices, see <scxpol/topology.h>), the
 * SMT siblings of a core next to each other in increasing CPU order. With
 * CPUs numbered 0,1 = core 0, 2,3 = core 1, ... that is just 0, 1, 2, ...;
 * with siblings numbered c and c + 8 it is 0, 8, 1, 9, ...
 *
 * A plan refers to its topology: keep the topology alive until the plan
 * (and its copies) are freed.
 */
#ifndef SCXPOL_POOL_H
#define SCXPOL_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include <scxpol/abi/pool.h>
#include <scxpol/common.h>
#include <scxpol/cpuset.h>
#include <scxpol/topology.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Plans ------------------------------------------------------------- */

struct scxpol_pool_plan;

/*
 * scxpol_pool_plan_new - an empty plan over @t's online CPUs. NULL + errno
 * (EINVAL for a NULL topology, ENOMEM).
 */
SCXPOL_API struct scxpol_pool_plan *scxpol_pool_plan_new(const struct scxpol_topo *t);

/* scxpol_pool_plan_free - free @p. NULL is a no-op. */
SCXPOL_API void scxpol_pool_plan_free(struct scxpol_pool_plan *p);

/* scxpol_pool_plan_dup - an independent copy of @p. NULL + errno on failure. */
SCXPOL_API struct scxpol_pool_plan *scxpol_pool_plan_dup(const struct scxpol_pool_plan *p);

/*
 * scxpol_pool_plan_add - add pool @name with @flags holding @cpus (copied).
 * Returns the new pool's index (pools are numbered in the order added), or
 * a negative errno with a message:
 *   -EINVAL  name NULL or empty, longer than SCXPOL_POOL_NAME_LEN - 1
 *            characters, or with a character other than [A-Za-z0-9_.-];
 *            flags outside SCXPOL_POOL_FLAGS_ALL; an empty set
 *            (`pool "lc" has no CPUs`); a CPU the machine does not have or
 *            that is offline (`pool "lc": CPU 9 is offline`); CPUs of
 *            another pool (`pool "bg" overlaps pool "lc" on CPUs 2-3`)
 *   -EEXIST  a pool with that name exists
 */
SCXPOL_API int scxpol_pool_plan_add(struct scxpol_pool_plan *p, const char *name, unsigned int flags,
				    const struct scxpol_cpuset *cpus);

/*
 * scxpol_pool_plan_domains - @n exclusive-by-default domains "d0".."d<n-1>"
 * (all with @flags) covering every online CPU, as consecutive runs of the
 * topology order. Sizes: with N online CPUs each domain gets N / n or
 * N / n + 1 CPUs (exactly N % n of them get the extra CPU). Which ones get
 * it is chosen to cut, first, as few SMT cores and then as few LLCs as
 * possible between neighbouring domains; among equally good choices the
 * earlier domains are the larger ones. So on 8 CPUs in 4 two-thread cores
 * n = 2 gives 0-3 and 4-7, n = 3 gives 0-2, 3-5, 6-7 (a core split is
 * unavoidable), and on one LLC of 4 CPUs plus one of 5, n = 2 gives the
 * 4 CPUs and the 5 CPUs rather than cutting the second LLC.
 * NULL + errno: EINVAL for @n == 0, @n larger than the number of online
 * CPUs, or bad flags.
 */
SCXPOL_API struct scxpol_pool_plan *scxpol_pool_plan_domains(const struct scxpol_topo *t,
							     unsigned int n, unsigned int flags);

/*
 * scxpol_pool_plan_split - two pools with @flags: @first takes the first
 * @first_cpus online CPUs of the topology order (a core's SMT siblings
 * together, filling one LLC, then one node, before the next; a count that
 * is not a multiple of the core size cuts the last core), @second all
 * other online CPUs.
 * NULL + errno: EINVAL when @first_cpus is 0 or not less than the number
 * of online CPUs (both pools need a CPU), or a name _add() refuses;
 * EEXIST when the two names are the same.
 */
SCXPOL_API struct scxpol_pool_plan *scxpol_pool_plan_split(const struct scxpol_topo *t,
							   const char *first, const char *second,
							   unsigned int first_cpus,
							   unsigned int flags);

/*
 * scxpol_pool_plan_move - move @k CPUs from pool @from to pool @to, keeping
 * both compact. CPUs of @from are taken, as whole SMT cores where possible
 * (the part of a core @from holds counts as a unit), in this order:
 *   1. nearest to @to first: LLC distance 0 (an LLC where @to has CPUs),
 *      then 1 (an LLC on a node where @to has CPUs), then 2;
 *   2. at equal distance, cores whose other CPUs are all in @to (this
 *      mends a split core), then cores wholly in @from, then cores
 *      @from shares with a third pool;
 *   3. then the core closest to @to's CPUs in the topology order, then
 *      the lower CPU.
 * A core is only cut when no remaining core at the current distance fits
 * in what is left to move; its lowest CPUs move then.
 * Returns 0, or -EINVAL: @k == 0, an index out of range, @from == @to, or
 * @k >= the CPUs of @from (a pool cannot become empty).
 */
SCXPOL_API int scxpol_pool_plan_move(struct scxpol_pool_plan *p, unsigned int from, unsigned int to,
				     unsigned int k);

/* scxpol_pool_plan_nr_pools - number of pools in @p. */
SCXPOL_API unsigned int scxpol_pool_plan_nr_pools(const struct scxpol_pool_plan *p);

/* Name, flags and CPUs of pool @pool; NULL / 0 / NULL when out of range. */
SCXPOL_API const char *scxpol_pool_plan_name(const struct scxpol_pool_plan *p, unsigned int pool);
SCXPOL_API unsigned int scxpol_pool_plan_flags(const struct scxpol_pool_plan *p, unsigned int pool);
SCXPOL_API const struct scxpol_cpuset *scxpol_pool_plan_cpus(const struct scxpol_pool_plan *p,
							     unsigned int pool);

/*
 * scxpol_pool_plan_find - index of the pool called @name, or -ENOENT
 * (`no pool "x" in the plan`); -EINVAL for a NULL plan or name.
 */
SCXPOL_API int scxpol_pool_plan_find(const struct scxpol_pool_plan *p, const char *name);

/* scxpol_pool_plan_cpu_pool - index of the pool holding @cpu, or -1. */
SCXPOL_API int scxpol_pool_plan_cpu_pool(const struct scxpol_pool_plan *p, unsigned int cpu);

/* scxpol_pool_plan_topo - the topology @p was built over. */
SCXPOL_API const struct scxpol_topo *scxpol_pool_plan_topo(const struct scxpol_pool_plan *p);

/*
 * scxpol_pool_plan_format - write @p as "lc=0-1 bg=2-3" (pools in index
 * order, separated by one space; an empty plan is ""). Flags are not
 * written. Returns the length without the NUL, or -ENOSPC (@buf set to ""
 * when @len > 0).
 */
SCXPOL_API int scxpol_pool_plan_format(const struct scxpol_pool_plan *p, char *buf, size_t len);

/*
 * scxpol_pool_plan_parse - the inverse of _format, for command lines:
 * "NAME=CPUS NAME=CPUS ..." separated by spaces or tabs, each pool getting
 * @flags and the same checks as _add(); "" is an empty plan. Errors quote
 * the text and the column: `pool plan "lc 0-1": expected NAME=CPUS at
 * column 1`, `pool plan "lc=0-x": cpu list "0-x": bad character 'x' at
 * column 3`, `pool plan "a=0-1 b=1": pool "b" overlaps pool "a" on CPU 1`.
 * The plan, or NULL + errno.
 */
SCXPOL_API struct scxpol_pool_plan *scxpol_pool_plan_parse(const struct scxpol_topo *t,
							   const char *text, unsigned int flags);

/* ---- Publishing to the BPF side (lib/pool_publish.c) ------------------- */
/*
 * A policy that uses pools includes <scxpol/pool.bpf.h> on its BPF side and
 * <scxpol/pool.h> before its skeleton (the skeleton names struct
 * scxpol_pool_conf). Its loader calls scxpol_pool_setup() from the
 * configure hook, and scxpol_pool_publish() after load: from the loaded
 * hook for the first plan, and at any time while attached (e.g. from the
 * periodic hook) to resize; or it has a plan hook (struct
 * scxpol_sched_opts), and the library does both for the first plan. Publishing is atomic for the BPF callbacks:
 * each sees the old table or the new one, never a mix.
 */

struct scxpol_sched;

/*
 * scxpol_pool_setup - size the BPF side's pool maps for the machine's
 * possible CPUs and at most @max_pools pools (1 .. number of possible CPUs:
 * a pool needs a CPU). Call from the configure hook (before load). Returns
 * 0, or -EINVAL (@max_pools out of range), -ENOENT (the policy does not
 * include <scxpol/pool.bpf.h>: the message names the missing map), or an
 * error from libbpf; the message says which.
 */
SCXPOL_API int scxpol_pool_setup(struct scxpol_sched *s, unsigned int max_pools);

/*
 * scxpol_pool_require - have the BPF side reject every plan that does not
 * also meet @req (SCXPOL_POOL_REQ_* of <scxpol/abi/pool.h>; 0: nothing
 * more), counting it in SCXPOL_STAT_POOL_REJECT like any rejected plan.
 * With SCXPOL_POOL_REQ_COVER a plan must put every CPU online in its
 * topology in a pool: scxpol_pool_publish() then fails with -EINVAL and
 * `testpol: pool plan rejected: online CPUs 6-7 are in no pool; the policy
 * requires every online CPU in a pool`. Call from the configure hook,
 * before or after scxpol_pool_setup(); a restart's reopen starts from 0
 * again. Returns 0, or -EINVAL (unknown bits, the policy already loaded,
 * no object open) or -ENOENT (no <scxpol/pool.bpf.h>), with a message.
 */
SCXPOL_API int scxpol_pool_require(struct scxpol_sched *s, unsigned int req);

/*
 * scxpol_pool_publish - publish @plan to the loaded policy: per pool its
 * name, flags and CPUs, per CPU its pool, LLC and node, and per pool the
 * other pools ordered by topological distance (nearest LLC first, then
 * the nearest pool index, the lower one on a tie: the neighbours expanding
 * on each side; the order work stealing and lending follow). The BPF side
 * validates the plan before applying any of it; a rejected plan leaves the
 * published one in place and counts SCXPOL_STAT_POOL_REJECT. One publisher
 * at a time: two threads publishing to one policy at once must take a lock
 * of their own (their staged tables would interleave). Returns 0, or a negative errno
 * with a message naming the problem: -EINVAL before load or without
 * scxpol_pool_setup(), -E2BIG for more pools than setup allowed, -ERANGE
 * for a CPU the maps were not sized for, or the BPF side's verdict, e.g.
 * `testpol: pool plan rejected: pools "a" (0) and "b" (1) both contain
 * CPU 3`.
 */
SCXPOL_API int scxpol_pool_publish(struct scxpol_sched *s, const struct scxpol_pool_plan *plan);

/*
 * scxpol_pool_plan_current - the plan the plan hook of @s made at its last
 * open (struct scxpol_sched_opts), published at the load that followed;
 * valid until the next open (a restart) or the close. NULL without a
 * plan hook.
 */
SCXPOL_API const struct scxpol_pool_plan *scxpol_pool_plan_current(const struct scxpol_sched *s);

/* One published pool, as scxpol_pool_read() reports it. */
#define SCXPOL_POOL_CPUS_LEN 256
struct scxpol_pool_stat {
	char name[SCXPOL_POOL_NAME_LEN];
	char cpus[SCXPOL_POOL_CPUS_LEN]; /* CPU list, "0-3,8"; cut with "..." if longer */
	unsigned int flags;   /* SCXPOL_POOL_* */
	unsigned int nr_cpus; /* CPUs in the pool */
	unsigned int queued;  /* tasks waiting on its queue */
};

/*
 * scxpol_pool_read - what the BPF side has published: stores the
 * generation (0: nothing published yet; +1 per accepted plan) in *@gen
 * (if not NULL) and the first @n pools in @out, and returns the number of
 * pools. With @shared_queued non-NULL, also the depth of the shared queue.
 * It reads through scxpol_sched_object(s): from a thread other than the
 * one running the policy, call it where the object is locked against a
 * restart, as in a scxpol_stats_pools_fn (<scxpol/stats.h>). -EINVAL when
 * the policy is not loaded or was not set up; -EAGAIN when a new plan was
 * published during each of 8 reads (never a mix of two tables).
 */
SCXPOL_API int scxpol_pool_read(struct scxpol_sched *s, unsigned long long *gen,
				struct scxpol_pool_stat *out, size_t n, unsigned int *shared_queued);

/* ---- Autosizing (lib/pool_autosize.c) ---------------------------------- */
/*
 * Sizes one pool of a plan from its load, taking CPUs from and giving
 * them back to a second pool, the donor. Every interval the caller feeds
 * the pool's demand: the CPU time its tasks ran during the interval, in
 * CPUs (ns run / ns elapsed; where they ran does not matter). Its
 * utilisation is demand / its CPUs, and the pool is resized so that it
 * stays within [util_lo, util_hi]:
 *   above util_hi  grow to ceil(demand / util_hi) CPUs;
 *   below util_lo  shrink to max(floor(demand / util_lo),
 *                  ceil(demand / util_hi)) CPUs: never so far that the
 *                  same demand would make it grow back;
 * both clamped to [min_cpus, max_cpus]. Hysteresis: the pool changes only
 * after `hold` consecutive intervals all asked for the same direction, and
 * then to the size the highest demand of those intervals asks for; an
 * interval inside the band, or asking for the other direction, starts the
 * count again. So a demand that stays inside the band, or wanders across
 * it for fewer than `hold` intervals, never moves a CPU.
 * Queueing (overflow_hi, with scxpol_pool_autosize_update_overflow()):
 * utilisation says how much CPU time the pool's tasks use, not whether
 * they found a CPU of the pool free when they woke. Their overflow is the
 * part of the demand they ran on other pools' CPUs because the pool's were
 * busy: when it is above overflow_hi x demand, the interval asks to grow
 * (by one CPU at least, whatever the utilisation), and the pool does not
 * shrink below the size such a growth reached for 8 x hold intervals after
 * it; an interval may ask to shrink only while the overflow stays at most
 * a quarter of that.
 * CPUs move with scxpol_pool_plan_move(): nearest LLC first, whole cores,
 * so the pool grows and shrinks LLC-compact.
 */
struct scxpol_pool_autosize;

struct scxpol_pool_autosize_opts {
	size_t sz;
	/* Utilisation band, 0 < util_lo < util_hi <= 1 (0: defaults 0.5, 0.8). */
	double util_lo;
	double util_hi;
	/* Consecutive intervals a direction must persist (0: the default, 3). */
	unsigned int hold;
	/*
	 * Bounds of the pool's size: default 1 and all CPUs of the pool and
	 * the donor but one (the donor keeps a CPU).
	 */
	unsigned int min_cpus;
	unsigned int max_cpus;
	/* 0: padding made a field, so an initialiser zeroes it (checked) */
	unsigned int reserved;
	/*
	 * Overflow share of the demand above which the pool grows, in
	 * (0, 1] (0: overflow is not looked at).
	 */
	double overflow_hi;
};
#define scxpol_pool_autosize_opts__last_field overflow_hi

/*
 * scxpol_pool_autosize_new - size pool @pool of a copy of @plan, with pool
 * @donor giving and taking the CPUs. The copy refers to @plan's topology,
 * which must outlive it. NULL + errno: EINVAL for a pool index out of
 * range, @pool == @donor, a band outside 0 < util_lo < util_hi <= 1,
 * bounds outside 1 .. (CPUs of both pools - 1) or min > max, an
 * overflow_hi outside 0..1, or a
 * pool whose size is outside the bounds already (the message gives the
 * numbers); ENOMEM.
 */
SCXPOL_API struct scxpol_pool_autosize *
scxpol_pool_autosize_new(const struct scxpol_pool_plan *plan, unsigned int pool,
			 unsigned int donor, const struct scxpol_pool_autosize_opts *opts);

/* scxpol_pool_autosize_free - free @a. NULL is a no-op. */
SCXPOL_API void scxpol_pool_autosize_free(struct scxpol_pool_autosize *a);

/*
 * scxpol_pool_autosize_update - feed one interval's @demand (CPUs, >= 0).
 * Returns 1 when the plan changed (publish scxpol_pool_autosize_plan()),
 * 0 when it did not, -EINVAL for a demand outside 0 .. 1e12 (or NaN), or
 * an error of scxpol_pool_plan_move() (the plan is then unchanged).
 */
SCXPOL_API int scxpol_pool_autosize_update(struct scxpol_pool_autosize *a, double demand);

/*
 * scxpol_pool_autosize_update_overflow - feed one interval's @demand and
 * the part of it, @overflow (CPUs, 0 .. @demand), that ran on other pools'
 * CPUs because the pool's were busy (see overflow_hi above). Returns as
 * scxpol_pool_autosize_update(), which is this with @overflow 0; -EINVAL
 * also for an @overflow outside 0 .. @demand.
 */
SCXPOL_API int scxpol_pool_autosize_update_overflow(struct scxpol_pool_autosize *a, double demand,
						    double overflow);

/* scxpol_pool_autosize_plan - the current plan (valid until the next update or free). */
SCXPOL_API const struct scxpol_pool_plan *
scxpol_pool_autosize_plan(const struct scxpol_pool_autosize *a);

/* scxpol_pool_autosize_nr_cpus - the sized pool's current number of CPUs. */
SCXPOL_API unsigned int scxpol_pool_autosize_nr_cpus(const struct scxpol_pool_autosize *a);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_POOL_H */
