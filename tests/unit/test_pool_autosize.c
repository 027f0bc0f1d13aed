// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Pool autosizing fed synthetic demand sequences over fake topologies:
 * growth above util_hi, shrinking below util_lo, the hold, the bounds,
 * no flapping, LLC-compact moves, growth for overflow (queueing) and the
 * floor it leaves, and every error.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/pool.h>

#include "fake_sysfs.h"

/* 2 LLCs x 4 cores x 2 threads: cores 0-1, 2-3, ...; LLCs 0-7 and 8-15. */
static const struct fake_topo two_llc = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 4,
					  .threads = 2 };

static struct scxpol_topo *topo;

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static int setup(void **state)
{
	char *root = fake_sysfs(&two_llc);
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);

	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_ERROR, NULL);
	topo = scxpol_topo_load(&o);
	fake_free(root);
	return topo ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	scxpol_topo_free(topo);
	return 0;
}

/* "lc" with the first @lc CPUs of the topology order, "bg" with the rest. */
static struct scxpol_pool_plan *split(unsigned int lc)
{
	struct scxpol_pool_plan *p = scxpol_pool_plan_split(topo, "lc", "bg", lc, SCXPOL_POOL_SOFT);

	assert_non_null(p);
	return p;
}

static struct scxpol_pool_autosize *sizer(unsigned int lc, double lo, double hi, unsigned int hold,
					  unsigned int min, unsigned int max)
{
	SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .util_lo = lo, .util_hi = hi, .hold = hold,
		    .min_cpus = min, .max_cpus = max);
	struct scxpol_pool_plan *p = split(lc);
	struct scxpol_pool_autosize *a = scxpol_pool_autosize_new(p, 0, 1, &o);

	/* the sizer works on its own copy */
	scxpol_pool_plan_free(p);
	if (!a)
		fail_msg("autosize_new: %s", scxpol_last_error());
	return a;
}

/*
 * Feed @n demands; after each, the pool must have want[i] CPUs, and the
 * update must have said "changed" exactly when the size changed.
 */
static void feed(struct scxpol_pool_autosize *a, const double *demand, const unsigned int *want,
		 size_t n)
{
	unsigned int before;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		before = scxpol_pool_autosize_nr_cpus(a);
		r = scxpol_pool_autosize_update(a, demand[i]);
		if (r < 0)
			fail_msg("step %zu (demand %g): %s", i, demand[i], scxpol_last_error());
		if (scxpol_pool_autosize_nr_cpus(a) != want[i])
			fail_msg("step %zu (demand %g): %u CPUs, want %u", i, demand[i],
				 scxpol_pool_autosize_nr_cpus(a), want[i]);
		assert_int_equal(r, want[i] != before);
	}
}

static const char *cpus_of(const struct scxpol_pool_autosize *a, unsigned int pool, char *buf,
			   size_t len)
{
	assert_true(scxpol_cpuset_format(scxpol_pool_plan_cpus(scxpol_pool_autosize_plan(a), pool),
					 buf, len) >= 0);
	return buf;
}

#define FEED(a, d, w)                                                    \
	do {                                                             \
		_Static_assert(sizeof(d) / sizeof(d[0]) == sizeof(w) / sizeof(w[0]), \
			       "one expected size per demand");          \
		feed(a, d, w, sizeof(d) / sizeof(d[0]));                 \
	} while (0)

/* util 1.5 > 0.8 for 3 intervals: grow to ceil(3 / 0.8) = 4 CPUs, the next core. */
static void test_grows_above_hi(void **state)
{
	static const double d[] = { 3.0, 3.0, 3.0, 3.0, 3.0 };
	static const unsigned int w[] = { 2, 2, 4, 4, 4 };
	struct scxpol_pool_autosize *a = sizer(2, 0.5, 0.8, 3, 0, 0);
	char buf[64];

	(void)state;
	FEED(a, d, w);
	assert_string_equal(cpus_of(a, 0, buf, sizeof(buf)), "0-3");
	assert_string_equal(cpus_of(a, 1, buf, sizeof(buf)), "4-15");
	scxpol_pool_autosize_free(a);
}

/* util 0.25 < 0.5: shrink to max(floor(1 / 0.5), ceil(1 / 0.8)) = 2 CPUs. */
static void test_shrinks_below_lo(void **state)
{
	static const double d[] = { 1.0, 1.0, 1.0, 1.0 };
	static const unsigned int w[] = { 6, 6, 2, 2 };
	struct scxpol_pool_autosize *a = sizer(6, 0.5, 0.8, 3, 0, 0);
	char buf[64];

	(void)state;
	FEED(a, d, w);
	assert_string_equal(cpus_of(a, 0, buf, sizeof(buf)), "0-1");
	scxpol_pool_autosize_free(a);
}

/*
 * The hold: N - 1 intervals above the band then one inside it change
 * nothing, and the count starts again; the size is the one the highest
 * demand of the streak asks for (5.0 / 0.8 -> 7). Then four intervals of
 * util 2 / 7 < 0.5 shrink it to max(floor(2 / 0.5), ceil(2 / 0.8)) = 4.
 */
static void test_holds_n_intervals(void **state)
{
	static const double d[] = { 4.0, 4.0, 4.0, 1.4, 4.0, 4.0, 4.0, 5.0, 2.0, 2.0, 2.0, 2.0 };
	static const unsigned int w[] = { 2, 2, 2, 2, 2, 2, 2, 7, 7, 7, 7, 4 };
	struct scxpol_pool_autosize *a = sizer(2, 0.5, 0.8, 4, 0, 0);

	(void)state;
	FEED(a, d, w);
	scxpol_pool_autosize_free(a);
}

/* Shrinking to floor(demand / util_lo) when that is above ceil(demand / util_hi). */
static void test_shrink_stops_at_util_lo(void **state)
{
	static const double d[] = { 2.0, 2.0, 2.0, 2.0 };
	static const unsigned int w[] = { 12, 12, 4, 4 };
	struct scxpol_pool_autosize *a = sizer(12, 0.5, 0.9, 3, 0, 0);

	(void)state;
	/* ceil(2 / 0.9) = 3, floor(2 / 0.5) = 4: util 0.5, inside the band */
	FEED(a, d, w);
	scxpol_pool_autosize_free(a);
}

/* min_cpus and max_cpus clamp both directions; the default max leaves the donor one CPU. */
static void test_bounds(void **state)
{
	static const double up[] = { 100, 100, 100, 100 };
	static const unsigned int wup[] = { 6, 6, 6, 6 };
	static const double down[] = { 0, 0, 0 };
	static const unsigned int wdown[] = { 3, 3, 3 };
	static const double all[] = { 100, 100 };
	static const unsigned int wall[] = { 2, 15 };
	struct scxpol_pool_autosize *a = sizer(4, 0.5, 0.8, 1, 3, 6);
	char buf[64];

	(void)state;
	FEED(a, up, wup);
	FEED(a, down, wdown);
	scxpol_pool_autosize_free(a);
	a = sizer(2, 0.5, 0.8, 2, 0, 0);
	FEED(a, all, wall);
	assert_string_equal(cpus_of(a, 1, buf, sizeof(buf)), "15");
	scxpol_pool_autosize_free(a);
}

/* A demand wandering inside the band never moves a CPU. */
static void test_no_flap_inside_band(void **state)
{
	struct scxpol_pool_autosize *a = sizer(4, 0.5, 0.8, 1, 0, 0);
	int i;

	(void)state;
	/* util between 0.5 and 0.8 on 4 CPUs: demand 2.0 .. 3.2 */
	for (i = 0; i < 1000; i++) {
		double d = 2.0 + 1.2 * ((i * 37) % 100) / 100.0;

		assert_int_equal(scxpol_pool_autosize_update(a, d), 0);
	}
	assert_int_equal(scxpol_pool_autosize_nr_cpus(a), 4);
	scxpol_pool_autosize_free(a);
}

/* Crossing the band edges alternately, each for less than the hold, moves nothing. */
static void test_no_flap_across_band(void **state)
{
	struct scxpol_pool_autosize *a = sizer(4, 0.5, 0.8, 2, 0, 0);
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		assert_int_equal(scxpol_pool_autosize_update(a, i % 2 ? 4.0 : 1.0), 0);
	assert_int_equal(scxpol_pool_autosize_nr_cpus(a), 4);
	scxpol_pool_autosize_free(a);
}

/* Once resized for a demand, the same demand never resizes again (either way). */
static void test_stable_after_resize(void **state)
{
	static const double demands[] = { 0.3, 0.8, 0.85, 1.0, 1.6, 2.4, 3.99, 4.0, 6.5, 11.9 };
	size_t k;
	int i, changes;

	(void)state;
	for (k = 0; k < sizeof(demands) / sizeof(demands[0]); k++) {
		struct scxpol_pool_autosize *a = sizer(8, 0.6, 0.8, 1, 0, 0);

		changes = 0;
		for (i = 0; i < 50; i++) {
			int r = scxpol_pool_autosize_update(a, demands[k]);

			assert_true(r >= 0);
			changes += r;
		}
		if (changes > 1)
			fail_msg("demand %g: %d resizes, want at most 1", demands[k], changes);
		scxpol_pool_autosize_free(a);
	}
}

/*
 * LLC-compact: grown past LLC 0 (0-7) into LLC 1, the pool takes the rest
 * of LLC 0 first, then the lowest CPU of LLC 1; shrinking, it gives that
 * CPU back first and ends on LLC 0 alone.
 */
static void test_llc_compact(void **state)
{
	static const double up[] = { 7.2 };
	static const unsigned int wup[] = { 9 };
	static const double down[] = { 4.0 };
	static const unsigned int wdown[] = { 8 };
	struct scxpol_pool_autosize *a = sizer(6, 0.5, 0.8, 1, 0, 0);
	char buf[64];

	(void)state;
	/* 7.2 / 0.8 = 9 (the rounding slack keeps it from becoming 10) */
	FEED(a, up, wup);
	assert_string_equal(cpus_of(a, 0, buf, sizeof(buf)), "0-8");
	/* util 4 / 9 < 0.5: shrink to floor(4 / 0.5) = 8 */
	FEED(a, down, wdown);
	assert_string_equal(cpus_of(a, 0, buf, sizeof(buf)), "0-7");
	assert_string_equal(cpus_of(a, 1, buf, sizeof(buf)), "8-15");
	scxpol_pool_autosize_free(a);
}

/*
 * A narrow band near 0 is allowed (0 < util_lo < util_hi <= 1): a demand
 * asking for more CPUs than an integer holds grows the pool to max_cpus.
 */
static void test_huge_target_is_clamped(void **state)
{
	struct scxpol_pool_autosize *a = sizer(4, 1e-10, 1e-9, 1, 0, 0);

	(void)state;
	assert_int_equal(scxpol_pool_autosize_update(a, 1e12), 1);
	assert_int_equal(scxpol_pool_autosize_nr_cpus(a), 15);
	scxpol_pool_autosize_free(a);
}

/*
 * A demand the caller could not measure (a counter that went backwards
 * gives a negative one, an empty interval 0 / 0) is refused and is no
 * interval: the hold counts on across it.
 */
static void test_refused_demand_is_no_interval(void **state)
{
	struct scxpol_pool_autosize *a = sizer(2, 0.5, 0.8, 2, 0, 0);

	(void)state;
	assert_int_equal(scxpol_pool_autosize_update(a, 3.0), 0);
	assert_int_equal(scxpol_pool_autosize_update(a, -0.5), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update(a, NAN), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update(a, 3.0), 1);
	assert_int_equal(scxpol_pool_autosize_nr_cpus(a), 4);
	scxpol_pool_autosize_free(a);
}

static void expect_new_fails(const struct scxpol_pool_plan *p, unsigned int pool,
			     unsigned int donor, const struct scxpol_pool_autosize_opts *o,
			     const char *msg)
{
	errno = 0;
	assert_null(scxpol_pool_autosize_new(p, pool, donor, o));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), msg);
}

/*
 * Feed @n demands and overflows; after each, the pool must have want[i]
 * CPUs, and the update must have said "changed" exactly when it changed.
 */
static void feed_overflow(struct scxpol_pool_autosize *a, const double *demand,
			  const double *overflow, const unsigned int *want, size_t n)
{
	unsigned int before;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		before = scxpol_pool_autosize_nr_cpus(a);
		r = scxpol_pool_autosize_update_overflow(a, demand[i], overflow[i]);
		if (r < 0)
			fail_msg("step %zu: %s", i, scxpol_last_error());
		if (scxpol_pool_autosize_nr_cpus(a) != want[i])
			fail_msg("step %zu (demand %g, overflow %g): %u CPUs, want %u", i, demand[i],
				 overflow[i], scxpol_pool_autosize_nr_cpus(a), want[i]);
		assert_int_equal(r, want[i] != before);
	}
}

/* feed_overflow() to a fresh sizer of @lc CPUs, band 0.5..0.8, hold 3, @overflow_hi. */
static void run_overflow(unsigned int lc, double overflow_hi, const double *demand,
			 const double *overflow, const unsigned int *want, size_t n)
{
	SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .util_lo = 0.5, .util_hi = 0.8, .hold = 3,
		    .overflow_hi = overflow_hi);
	struct scxpol_pool_plan *p = split(lc);
	struct scxpol_pool_autosize *a = scxpol_pool_autosize_new(p, 0, 1, &o);

	scxpol_pool_plan_free(p);
	if (!a)
		fail_msg("autosize_new: %s", scxpol_last_error());
	feed_overflow(a, demand, overflow, want, n);
	scxpol_pool_autosize_free(a);
}

/*
 * Utilisation 0.6, inside the band, but a third of the demand overflowed
 * (> 0.2) for 3 intervals: the pool grows by a CPU, though the
 * utilisation would keep it. An overflow of 0.2 exactly, or one interval
 * less, does not.
 */
static void test_overflow_grows_inside_band(void **state)
{
	static const double d[] = { 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2 };
	static const double o[] = { 0.24, 0.24, 0.24, 0.4, 0.4, 0, 0.4, 0.4 };
	static const unsigned int w[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	static const double d2[] = { 1.2, 1.2, 1.2, 1.2 };
	static const double o2[] = { 0.4, 0.4, 0.4, 0.4 };
	static const unsigned int w2[] = { 2, 2, 3, 3 };

	(void)state;
	run_overflow(2, 0.2, d, o, w, 8);
	run_overflow(2, 0.2, d2, o2, w2, 4);
}

/*
 * Off (overflow_hi 0): all of the demand overflowing moves nothing inside
 * the band, and a utilisation below it (0.25) shrinks the pool whatever
 * the overflow.
 */
static void test_overflow_off(void **state)
{
	static const double d[] = { 1.2, 1.2, 1.2, 1.2, 0.5, 0.5, 0.5 };
	static const double o[] = { 1.2, 1.2, 1.2, 1.2, 0.5, 0.5, 0.5 };
	static const unsigned int w[] = { 2, 2, 2, 2, 2, 2, 1 };

	(void)state;
	run_overflow(2, 0, d, o, w, 7);
}

/*
 * Below the band (util 0.125 on 4 CPUs), the pool shrinks only while the
 * overflow is at most a quarter of overflow_hi: 0.1 of the demand (over
 * 0.05, under 0.2) holds it; none lets it shrink to ceil(0.5 / 0.8) = 1.
 */
static void test_overflow_blocks_shrink(void **state)
{
	static const double d[] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };
	static const double o[] = { 0.05, 0.05, 0.05, 0.05, 0, 0, 0 };
	static const unsigned int w[] = { 4, 4, 4, 4, 4, 4, 1 };

	(void)state;
	run_overflow(4, 0.2, d, o, w, 7);
}

/*
 * After a growth for overflow (2 -> 3 CPUs), a calm, low demand does not
 * shrink the pool below 3 for 8 x hold = 24 intervals, that growth's
 * included (its streaks of 3 find the floor); the first streak that ends
 * after them shrinks it to what the utilisation asks (ceil(0.4 / 0.8) = 1).
 */
static void test_overflow_floor(void **state)
{
	double d[40], o[40];
	unsigned int w[40];
	size_t i;

	(void)state;
	for (i = 0; i < 40; i++) {
		d[i] = i < 3 ? 1.2 : 0.4;
		o[i] = i < 3 ? 0.4 : 0;
		/* grown at interval 2, held through interval 25; the streak 24..26 shrinks */
		w[i] = i < 2 ? 2 : i < 26 ? 3 : 1;
	}
	run_overflow(2, 0.2, d, o, w, 40);
}

static void test_errors(void **state)
{
	struct scxpol_pool_plan *p = split(4);
	struct scxpol_pool_autosize *a;

	(void)state;
	expect_new_fails(p, 2, 1, NULL, "autosize: no pool 2 (the plan has 2)");
	expect_new_fails(p, 0, 7, NULL, "autosize: no pool 7 (the plan has 2)");
	expect_new_fails(p, 1, 1, NULL, "autosize: pool \"bg\" cannot be its own donor");
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .util_lo = 0.9, .util_hi = 0.8);
		expect_new_fails(p, 0, 1, &o, "autosize: utilisation band 0.9..0.8: want "
				 "0 < util_lo < util_hi <= 1");
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .util_lo = 0.5, .util_hi = 1.5);
		expect_new_fails(p, 0, 1, &o, "autosize: utilisation band 0.5..1.5: want "
				 "0 < util_lo < util_hi <= 1");
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .util_lo = -0.1);
		expect_new_fails(p, 0, 1, &o, "autosize: utilisation band -0.1..0.8: want "
				 "0 < util_lo < util_hi <= 1");
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .min_cpus = 5, .max_cpus = 3);
		expect_new_fails(p, 0, 1, &o, "autosize: bounds 5..3 CPUs: want 1 <= min_cpus <= "
				 "max_cpus <= 15 (pools \"lc\" and \"bg\" have 16 CPUs; the donor "
				 "keeps one)");
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .max_cpus = 16);
		expect_new_fails(p, 0, 1, &o, "autosize: bounds 1..16 CPUs: want 1 <= min_cpus <= "
				 "max_cpus <= 15 (pools \"lc\" and \"bg\" have 16 CPUs; the donor "
				 "keeps one)");
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .min_cpus = 6);
		expect_new_fails(p, 0, 1, &o, "autosize: pool \"lc\" has 4 CPUs, outside its "
				 "bounds 6..15");
	}
	{
		/* a newer caller's field in place of the padding: refused, not ignored */
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .reserved = 1);
		expect_new_fails(p, 0, 1, &o, "scxpol_pool_autosize_opts: reserved is 1: want 0");
	}
	{
		/* and one past the struct's end */
		struct {
			struct scxpol_pool_autosize_opts o;
			unsigned int newer;
		} big = { .o = { .sz = sizeof(big) }, .newer = 1 };
		char msg[160];

		snprintf(msg, sizeof(msg), "scxpol_pool_autosize_opts: caller's struct has non-zero "
			 "fields this libscxpol (%s) does not know (byte %zu)", scxpol_version(),
			 sizeof(big.o));
		expect_new_fails(p, 0, 1, &big.o, msg);
	}
	{
		SCXPOL_OPTS(scxpol_pool_autosize_opts, o, .overflow_hi = 1.5);
		expect_new_fails(p, 0, 1, &o, "autosize: overflow_hi 1.5: want 0..1 (0: off)");
	}
	a = scxpol_pool_autosize_new(p, 0, 1, NULL);
	assert_non_null(a);
	assert_int_equal(scxpol_pool_autosize_update(a, -1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "autosize: demand -1 of pool \"lc\": want a "
			    "number of CPUs in 0..1e12");
	assert_int_equal(scxpol_pool_autosize_update(a, NAN), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update(a, INFINITY), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update_overflow(a, 1.0, 1.5), -EINVAL);
	assert_string_equal(scxpol_last_error(), "autosize: overflow 1.5 of pool \"lc\": want "
			    "0..1 (its demand)");
	assert_int_equal(scxpol_pool_autosize_update_overflow(a, 1.0, -0.1), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update_overflow(a, 1.0, NAN), -EINVAL);
	assert_int_equal(scxpol_pool_autosize_update_overflow(NULL, 1.0, 0), -EINVAL);
	assert_string_equal(scxpol_last_error(), "scxpol_pool_autosize_update_overflow: autosizer "
			    "is NULL");
	assert_int_equal(scxpol_pool_autosize_nr_cpus(a), 4);
	scxpol_pool_autosize_free(a);
	scxpol_pool_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_above_hi),
		cmocka_unit_test(test_shrinks_below_lo),
		cmocka_unit_test(test_holds_n_intervals),
		cmocka_unit_test(test_shrink_stops_at_util_lo),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_no_flap_inside_band),
		cmocka_unit_test(test_no_flap_across_band),
		cmocka_unit_test(test_stable_after_resize),
		cmocka_unit_test(test_llc_compact),
		cmocka_unit_test(test_huge_target_is_clamped),
		cmocka_unit_test(test_refused_demand_is_no_interval),
		cmocka_unit_test(test_overflow_grows_inside_band),
		cmocka_unit_test(test_overflow_off),
		cmocka_unit_test(test_overflow_blocks_shrink),
		cmocka_unit_test(test_overflow_floor),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
