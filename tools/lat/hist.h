/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Log-linear latency histogram of the measuring tools (scxpol-lat's BPF side
 * and userspace, scxpol-workload). The layout and the bucket mapping are
 * compiled both as BPF C and as host C: fixed-width types only.
 *
 * Values are nanoseconds. 0..15 have a bucket each; above that, every power
 * of two [2^k, 2^(k+1)) is split into LAT_HIST_SUB equal sub-buckets, so a
 * bucket is at most 1/16 of its lower bound wide and a percentile reported
 * as the bucket's midpoint is within 3.2% of the true value. The range ends
 * at 2^35 ns (34.4 s); larger values are counted in the last bucket and in
 * ->overflow, and percentiles that land there report ->max.
 */
#ifndef SCXPOL_TOOLS_HIST_H
#define SCXPOL_TOOLS_HIST_H

#ifndef __bpf__
#include <stdio.h>

#include <linux/types.h>
#endif

#define LAT_HIST_SUB_BITS 4
#define LAT_HIST_SUB (1U << LAT_HIST_SUB_BITS)
#define LAT_HIST_MAX_SHIFT 35
#define LAT_HIST_NR ((LAT_HIST_MAX_SHIFT - LAT_HIST_SUB_BITS + 1) * LAT_HIST_SUB)

struct lat_hist {
	__u64 sum;      /* of all values, for the mean */
	__u64 max;      /* largest value seen */
	__u64 overflow; /* values >= 2^LAT_HIST_MAX_SHIFT */
	__u64 bucket[LAT_HIST_NR];
};

/* floor(log2(v)) for v > 0, without a loop or clz (BPF has neither). */
static inline __u32 lat_hist_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffULL) << 5;
	v >>= s;
	r |= s;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (__u32)(v >> 1);
}

/* Bucket index of value @v (ns); values past the range map to the last. */
static inline __u32 lat_hist_bucket(__u64 v)
{
	__u32 k;

	if (v < 2 * LAT_HIST_SUB)
		return (__u32)v;
	k = lat_hist_log2(v);
	if (k >= LAT_HIST_MAX_SHIFT)
		return LAT_HIST_NR - 1;
	return (k - LAT_HIST_SUB_BITS + 1) * LAT_HIST_SUB +
	       (__u32)((v >> (k - LAT_HIST_SUB_BITS)) - LAT_HIST_SUB);
}

#ifndef __bpf__
/* Percentiles and counts of one histogram, in ns (the tools' output unit). */
struct lat_summary {
	__u64 count;
	__u64 mean;
	__u64 p50, p90, p99, p999;
	__u64 max;
	__u64 overflow;
};

/* Smallest value that falls into bucket @b. */
__u64 lat_hist_bucket_lo(__u32 b);

/* Width of bucket @b (1 for the exact buckets). */
__u64 lat_hist_bucket_width(__u32 b);

/* Record one value (single writer; the BPF side uses atomics instead). */
void lat_hist_add(struct lat_hist *h, __u64 v);

/* Add every count of @src to @dst. */
void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src);

/* Number of values recorded. */
__u64 lat_hist_count(const struct lat_hist *h);

/*
 * The @pct-th percentile (0 < pct <= 100): the value of the rank
 * ceil(pct/100 * count) sample, reported as its bucket's midpoint (the exact
 * value for buckets of width 1), never above ->max. 0 for an empty histogram.
 */
__u64 lat_hist_percentile(const struct lat_hist *h, double pct);

/* Fill @s from @h (mean rounded down; all zero for an empty histogram). */
void lat_hist_summarize(const struct lat_hist *h, struct lat_summary *s);

/*
 * Write @s as a JSON object:
 * {"count":N,"mean_ns":N,"p50_ns":N,"p90_ns":N,"p99_ns":N,"p999_ns":N,
 *  "max_ns":N,"overflow":N}
 */
void lat_summary_json(FILE *f, const struct lat_summary *s);
#endif

#endif
