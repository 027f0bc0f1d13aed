// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Percentile math of the tools' log-linear histogram (see hist.h). */
#include "hist.h"

__u64 lat_hist_bucket_lo(__u32 b)
{
	__u32 k;

	if (b < 2 * LAT_HIST_SUB)
		return b;
	k = b / LAT_HIST_SUB + LAT_HIST_SUB_BITS - 1;
	return (__u64)(LAT_HIST_SUB + b % LAT_HIST_SUB) << (k - LAT_HIST_SUB_BITS);
}

__u64 lat_hist_bucket_width(__u32 b)
{
	if (b < 2 * LAT_HIST_SUB)
		return 1;
	return 1ULL << (b / LAT_HIST_SUB - 1);
}

void lat_hist_add(struct lat_hist *h, __u64 v)
{
	h->bucket[lat_hist_bucket(v)]++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (v >> LAT_HIST_MAX_SHIFT)
		h->overflow++;
}

void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	__u32 i;

	for (i = 0; i < LAT_HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	dst->sum += src->sum;
	dst->overflow += src->overflow;
	if (src->max > dst->max)
		dst->max = src->max;
}

__u64 lat_hist_count(const struct lat_hist *h)
{
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < LAT_HIST_NR; i++)
		n += h->bucket[i];
	return n;
}

__u64 lat_hist_percentile(const struct lat_hist *h, double pct)
{
	__u64 count = lat_hist_count(h), rank, seen = 0, v;
	double x;
	__u32 i;

	if (!count || !(pct > 0))
		return 0;
	if (pct > 100)
		pct = 100;
	/* ceil(); the factor absorbs rounding such as 99.9 * 1000 / 100 = 999.0000000000001 */
	x = pct * (double)count / 100.0 * (1 - 1e-12);
	rank = (__u64)x;
	if ((double)rank < x)
		rank++;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < LAT_HIST_NR; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	if (i == LAT_HIST_NR - 1 && h->overflow)
		return h->max;
	v = lat_hist_bucket_lo(i) + lat_hist_bucket_width(i) / 2;
	/* the bucket holding the maximum reports at most the maximum */
	return h->max && v > h->max ? h->max : v;
}

void lat_hist_summarize(const struct lat_hist *h, struct lat_summary *s)
{
	s->count = lat_hist_count(h);
	s->mean = s->count ? h->sum / s->count : 0;
	s->p50 = lat_hist_percentile(h, 50);
	s->p90 = lat_hist_percentile(h, 90);
	s->p99 = lat_hist_percentile(h, 99);
	s->p999 = lat_hist_percentile(h, 99.9);
	s->max = s->count ? h->max : 0;
	s->overflow = h->overflow;
}

void lat_summary_json(FILE *f, const struct lat_summary *s)
{
	fprintf(f, "{\"count\":%llu,\"mean_ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,"
		   "\"p99_ns\":%llu,\"p999_ns\":%llu,\"max_ns\":%llu,\"overflow\":%llu}",
		(unsigned long long)s->count, (unsigned long long)s->mean,
		(unsigned long long)s->p50, (unsigned long long)s->p90,
		(unsigned long long)s->p99, (unsigned long long)s->p999,
		(unsigned long long)s->max, (unsigned long long)s->overflow);
}
