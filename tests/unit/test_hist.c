// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The tools' log-linear histogram: bucket mapping and percentile math. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tools/lat/hist.h"

static struct lat_hist *new_hist(void)
{
	struct lat_hist *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	return h;
}

static void test_exact_buckets(void **state)
{
	__u64 v;

	(void)state;
	/* below 2 * LAT_HIST_SUB every value has its own bucket */
	for (v = 0; v < 32; v++) {
		assert_int_equal(lat_hist_bucket(v), v);
		assert_int_equal(lat_hist_bucket_lo((__u32)v), v);
		assert_int_equal(lat_hist_bucket_width((__u32)v), 1);
	}
}

static void test_log_linear_buckets(void **state)
{
	(void)state;
	/* [32, 64): 16 buckets of width 2 */
	assert_int_equal(lat_hist_bucket(32), 32);
	assert_int_equal(lat_hist_bucket(33), 32);
	assert_int_equal(lat_hist_bucket(34), 33);
	assert_int_equal(lat_hist_bucket(63), 47);
	assert_int_equal(lat_hist_bucket(64), 48);
	/* [1024, 2048): width 64, buckets 112..127 */
	assert_int_equal(lat_hist_bucket(1023), 111);
	assert_int_equal(lat_hist_bucket(1024), 112);
	assert_int_equal(lat_hist_bucket(1087), 112);
	assert_int_equal(lat_hist_bucket(1088), 113);
	assert_int_equal(lat_hist_bucket(2047), 127);
	assert_int_equal(lat_hist_bucket(2048), 128);
	assert_int_equal(lat_hist_bucket_lo(112), 1024);
	assert_int_equal(lat_hist_bucket_width(112), 64);
	assert_int_equal(lat_hist_bucket_lo(113), 1088);
	/* 1 ms and 10 s land where the formula says */
	assert_int_equal(lat_hist_bucket(1000000), (19 - 3) * 16 + (1000000 >> 15) - 16);
	assert_int_equal(lat_hist_bucket(10000000000ULL),
			 (33 - 3) * 16 + (10000000000ULL >> 29) - 16);
}

static void test_edge_buckets(void **state)
{
	(void)state;
	/* the last in-range value is in the last bucket... */
	assert_int_equal(lat_hist_bucket((1ULL << LAT_HIST_MAX_SHIFT) - 1), LAT_HIST_NR - 1);
	assert_int_equal(LAT_HIST_NR, 512);
	assert_int_equal(lat_hist_bucket_lo(LAT_HIST_NR - 1), 31ULL << 30);
	assert_int_equal(lat_hist_bucket_width(LAT_HIST_NR - 1), 1ULL << 30);
	/* ...and so is everything past the range */
	assert_int_equal(lat_hist_bucket(1ULL << LAT_HIST_MAX_SHIFT), LAT_HIST_NR - 1);
	assert_int_equal(lat_hist_bucket(UINT64_MAX), LAT_HIST_NR - 1);
}

static void test_buckets_tile_the_range(void **state)
{
	__u32 b;

	(void)state;
	/* contiguous, each value maps back to its bucket, width <= lo / 16 */
	for (b = 0; b + 1 < LAT_HIST_NR; b++) {
		__u64 lo = lat_hist_bucket_lo(b), w = lat_hist_bucket_width(b);

		assert_int_equal(lo + w, lat_hist_bucket_lo(b + 1));
		assert_int_equal(lat_hist_bucket(lo), b);
		assert_int_equal(lat_hist_bucket(lo + w - 1), b);
		if (b >= 32)
			assert_true(w * 16 <= lo);
	}
}

static void test_percentiles_exact_values(void **state)
{
	struct lat_hist *h = new_hist();

	(void)state;
	lat_hist_add(h, 5);
	lat_hist_add(h, 5);
	lat_hist_add(h, 7);
	lat_hist_add(h, 9);
	assert_int_equal(lat_hist_count(h), 4);
	assert_int_equal(lat_hist_percentile(h, 25), 5);
	assert_int_equal(lat_hist_percentile(h, 50), 5);  /* rank 2 */
	assert_int_equal(lat_hist_percentile(h, 50.1), 7); /* rank 3 */
	assert_int_equal(lat_hist_percentile(h, 75), 7);
	assert_int_equal(lat_hist_percentile(h, 99), 9);
	assert_int_equal(lat_hist_percentile(h, 100), 9);
	assert_int_equal(lat_hist_percentile(h, 250), 9); /* clamped to 100 */
	assert_int_equal(lat_hist_percentile(h, 0), 0);
	free(h);
}

static void test_percentiles_midpoints(void **state)
{
	struct lat_hist *h = new_hist();
	struct lat_summary s;
	__u64 v;

	(void)state;
	for (v = 1; v <= 1000; v++)
		lat_hist_add(h, v);
	lat_hist_summarize(h, &s);
	assert_int_equal(s.count, 1000);
	assert_int_equal(s.mean, 500);  /* 500500 / 1000, rounded down */
	assert_int_equal(s.p50, 504);   /* 500 is in [496, 512): midpoint */
	assert_int_equal(s.p90, 912);   /* 900 is in [896, 928) */
	assert_int_equal(s.p99, 976);   /* 990 is in [960, 992) */
	assert_int_equal(s.p999, 1000); /* 999 is in [992, 1024): midpoint 1008 > max */
	assert_int_equal(s.max, 1000);
	assert_int_equal(s.overflow, 0);
	free(h);
}

static void test_p999_rank_rounding(void **state)
{
	struct lat_hist *h = new_hist();
	int i;

	(void)state;
	/*
	 * 99.9% of 41000 is rank 40959 exactly, though 99.9 * 41000 / 100 is
	 * 40959.00000000001 in floating point: the rank must not become 40960.
	 */
	for (i = 0; i < 40959; i++)
		lat_hist_add(h, 10);
	for (i = 0; i < 41; i++)
		lat_hist_add(h, 20);
	assert_int_equal(lat_hist_percentile(h, 99.9), 10);
	assert_int_equal(lat_hist_percentile(h, 99.91), 20);
	free(h);
}

static void test_overflow(void **state)
{
	struct lat_hist *h = new_hist();
	struct lat_summary s;

	(void)state;
	lat_hist_add(h, 20);
	lat_hist_add(h, 1ULL << 36);
	lat_hist_summarize(h, &s);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.overflow, 1);
	assert_int_equal(h->bucket[LAT_HIST_NR - 1], 1);
	assert_int_equal(s.p50, 20);
	/* a percentile in the overflow bucket reports the maximum */
	assert_int_equal(s.p99, 1ULL << 36);
	assert_int_equal(s.max, 1ULL << 36);
	free(h);
}

static void test_empty(void **state)
{
	struct lat_hist *h = new_hist();
	struct lat_summary s;

	(void)state;
	lat_hist_summarize(h, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.mean, 0);
	assert_int_equal(s.p50, 0);
	assert_int_equal(s.p999, 0);
	assert_int_equal(s.max, 0);
	free(h);
}

static void test_merge(void **state)
{
	struct lat_hist *a = new_hist(), *b = new_hist(), *all = new_hist();
	__u64 v;

	(void)state;
	for (v = 0; v < 5000; v += 7) {
		lat_hist_add(v % 2 ? a : b, v * 1000);
		lat_hist_add(all, v * 1000);
	}
	lat_hist_add(a, 1ULL << 40);
	lat_hist_add(all, 1ULL << 40);
	lat_hist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	free(a);
	free(b);
	free(all);
}

static void test_summary_json(void **state)
{
	struct lat_summary s = { .count = 3, .mean = 20, .p50 = 10, .p90 = 30, .p99 = 31,
				 .p999 = 32, .max = 33, .overflow = 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	lat_summary_json(f, &s);
	fclose(f);
	assert_string_equal(buf, "{\"count\":3,\"mean_ns\":20,\"p50_ns\":10,\"p90_ns\":30,"
				 "\"p99_ns\":31,\"p999_ns\":32,\"max_ns\":33,\"overflow\":0}");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_buckets),
		cmocka_unit_test(test_log_linear_buckets),
		cmocka_unit_test(test_edge_buckets),
		cmocka_unit_test(test_buckets_tile_the_range),
		cmocka_unit_test(test_percentiles_exact_values),
		cmocka_unit_test(test_percentiles_midpoints),
		cmocka_unit_test(test_p999_rank_rounding),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_summary_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
