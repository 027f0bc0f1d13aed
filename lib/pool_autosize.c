// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Pool autosizing: grow and shrink one pool of a plan from its measured load. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "scxpol/pool.h"

/* Slack for demand / util landing on an integer in floating point (1.6 / 0.8). */
#define EPS 1e-9
/* Intervals (x hold) a growth for overflow keeps the pool from shrinking below it. */
#define OVERFLOW_FLOOR_HOLDS 8

struct scxpol_pool_autosize {
	struct scxpol_pool_plan *plan;
	unsigned int pool, donor;
	double util_lo, util_hi, overflow_hi;
	unsigned int hold, min_cpus, max_cpus;
	int dir;             /* direction the last intervals asked for: +1, -1, 0 */
	unsigned int streak; /* consecutive intervals asking for dir */
	double peak;         /* highest demand of the streak */
	bool overflowed;     /* an interval of the (growing) streak overflowed */
	unsigned int floor;  /* the size a growth for overflow reached ... */
	unsigned int floor_left; /* ... and the intervals it still holds the pool at it */
};

static unsigned int pool_cpus(const struct scxpol_pool_plan *p, unsigned int pool)
{
	return scxpol_cpuset_count(scxpol_pool_plan_cpus(p, pool));
}

struct scxpol_pool_autosize *scxpol_pool_autosize_new(const struct scxpol_pool_plan *plan,
						      unsigned int pool, unsigned int donor,
						      const struct scxpol_pool_autosize_opts *opts)
{
	struct scxpol_pool_autosize *a;
	unsigned int nr, n, total;
	double lo, hi;
	int err;

	if (!plan)
		return scxpol_err_ptr(EINVAL, "scxpol_pool_autosize_new: plan is NULL");
	if (!OPTS_VALID(opts, scxpol_pool_autosize_opts))
		return errno = EINVAL, NULL;
	nr = scxpol_pool_plan_nr_pools(plan);
	if (pool >= nr || donor >= nr)
		return scxpol_err_ptr(EINVAL, "autosize: no pool %u (the plan has %u)",
				      pool >= nr ? pool : donor, nr);
	if (pool == donor)
		return scxpol_err_ptr(EINVAL, "autosize: pool \"%s\" cannot be its own donor",
				      scxpol_pool_plan_name(plan, pool));
	lo = OPTS_GET(opts, util_lo, 0) ?: 0.5;
	hi = OPTS_GET(opts, util_hi, 0) ?: 0.8;
	if (!(lo > 0 && lo < hi && hi <= 1))
		return scxpol_err_ptr(EINVAL, "autosize: utilisation band %g..%g: want "
				      "0 < util_lo < util_hi <= 1", lo, hi);
	if (OPTS_GET(opts, reserved, 0))
		return scxpol_err_ptr(EINVAL, "scxpol_pool_autosize_opts: reserved is %u: want 0",
				      OPTS_GET(opts, reserved, 0));
	if (!(OPTS_GET(opts, overflow_hi, 0) >= 0 && OPTS_GET(opts, overflow_hi, 0) <= 1))
		return scxpol_err_ptr(EINVAL, "autosize: overflow_hi %g: want 0..1 (0: off)",
				      OPTS_GET(opts, overflow_hi, 0));
	n = pool_cpus(plan, pool);
	total = n + pool_cpus(plan, donor);
	a = calloc(1, sizeof(*a));
	if (!a)
		return scxpol_err_ptr(ENOMEM, "out of memory");
	a->pool = pool;
	a->donor = donor;
	a->util_lo = lo;
	a->util_hi = hi;
	a->overflow_hi = OPTS_GET(opts, overflow_hi, 0);
	a->hold = OPTS_GET(opts, hold, 0) ?: 3;
	a->min_cpus = OPTS_GET(opts, min_cpus, 0) ?: 1;
	a->max_cpus = OPTS_GET(opts, max_cpus, 0) ?: total - 1;
	if (a->max_cpus > total - 1 || a->min_cpus > a->max_cpus) {
		err = scxpol_err(EINVAL, "autosize: bounds %u..%u CPUs: want 1 <= min_cpus <= max_cpus "
			   "<= %u (pools \"%s\" and \"%s\" have %u CPUs; the donor keeps one)",
			   a->min_cpus, a->max_cpus, total - 1, scxpol_pool_plan_name(plan, pool),
			   scxpol_pool_plan_name(plan, donor), total);
		goto fail;
	}
	if (n < a->min_cpus || n > a->max_cpus) {
		err = scxpol_err(EINVAL, "autosize: pool \"%s\" has %u CPUs, outside its bounds %u..%u",
			   scxpol_pool_plan_name(plan, pool), n, a->min_cpus, a->max_cpus);
		goto fail;
	}
	a->plan = scxpol_pool_plan_dup(plan);
	if (a->plan)
		return a;
	err = -errno;
fail:
	free(a);
	errno = -err;
	return NULL;
}

void scxpol_pool_autosize_free(struct scxpol_pool_autosize *a)
{
	if (!a)
		return;
	scxpol_pool_plan_free(a->plan);
	free(a);
}

/* Rounding of x >= 0 without libm. */
static double ceil_pos(double x)
{
	double t = x > 0 ? (double)(unsigned long long)x : 0;

	return t < x ? t + 1 : t;
}

static double floor_pos(double x)
{
	return (double)(unsigned long long)x;
}

/*
 * @x capped at max_cpus before rounding: with a band near 0 (util_hi 1e-9)
 * demand / util overflows the integer conversion.
 */
static double cap(const struct scxpol_pool_autosize *a, double x)
{
	return x < a->max_cpus ? x : a->max_cpus;
}

/* The size @demand asks for in direction @dir, within the bounds. */
static unsigned int target(const struct scxpol_pool_autosize *a, int dir, double demand)
{
	double t = ceil_pos(cap(a, demand / a->util_hi - EPS));

	if (dir < 0 && floor_pos(cap(a, demand / a->util_lo + EPS)) > t)
		t = floor_pos(cap(a, demand / a->util_lo + EPS));
	if (t < a->min_cpus)
		return a->min_cpus;
	if (t > a->max_cpus)
		return a->max_cpus;
	return (unsigned int)t;
}

int scxpol_pool_autosize_update_overflow(struct scxpol_pool_autosize *a, double demand,
					 double overflow)
{
	SCXPOL_NONNULL(a, "autosizer");
	unsigned int n = pool_cpus(a->plan, a->pool), want;
	bool over, calm;
	double util;
	int dir, r;

	/* NaN and infinity have no size */
	if (!(demand >= 0) || demand > 1e12)
		return scxpol_err(EINVAL, "autosize: demand %g of pool \"%s\": want a number of "
				  "CPUs in 0..1e12", demand, scxpol_pool_plan_name(a->plan, a->pool));
	if (!(overflow >= 0) || overflow > demand * (1 + EPS) + EPS)
		return scxpol_err(EINVAL, "autosize: overflow %g of pool \"%s\": want 0..%g (its "
				  "demand)", overflow, scxpol_pool_plan_name(a->plan, a->pool),
				  demand);
	util = demand / n;
	over = a->overflow_hi > 0 && overflow > a->overflow_hi * demand;
	calm = !a->overflow_hi || overflow <= a->overflow_hi * demand / 4;
	if (a->floor_left)
		a->floor_left--;
	dir = util > a->util_hi || over ? 1 : util < a->util_lo && calm ? -1 : 0;
	if (dir != a->dir) {
		a->dir = dir;
		a->streak = 0;
		a->peak = 0;
		a->overflowed = false;
	}
	if (!dir)
		return 0;
	a->streak++;
	if (demand > a->peak)
		a->peak = demand;
	a->overflowed |= over;
	if (a->streak < a->hold)
		return 0;
	want = target(a, dir, a->peak);
	if (a->overflowed) {
		/* a CPU more than the utilisation asks for, held for a while */
		if (want <= n && n < a->max_cpus)
			want = n + 1;
		a->floor = want;
		a->floor_left = OVERFLOW_FLOOR_HOLDS * a->hold;
	} else if (dir < 0 && a->floor_left && want < a->floor) {
		want = a->floor < n ? a->floor : n;
	}
	a->dir = 0;
	a->streak = 0;
	a->peak = 0;
	a->overflowed = false;
	/* the bounds may leave nothing to do (grown to max_cpus already) */
	if (want == n)
		return 0;
	if (want > n)
		r = scxpol_pool_plan_move(a->plan, a->donor, a->pool, want - n);
	else
		r = scxpol_pool_plan_move(a->plan, a->pool, a->donor, n - want);
	return r ? r : 1;
}

int scxpol_pool_autosize_update(struct scxpol_pool_autosize *a, double demand)
{
	SCXPOL_NONNULL(a, "autosizer");
	return scxpol_pool_autosize_update_overflow(a, demand, 0);
}

const struct scxpol_pool_plan *scxpol_pool_autosize_plan(const struct scxpol_pool_autosize *a)
{
	return a ? a->plan : NULL;
}

unsigned int scxpol_pool_autosize_nr_cpus(const struct scxpol_pool_autosize *a)
{
	return a ? pool_cpus(a->plan, a->pool) : 0;
}
