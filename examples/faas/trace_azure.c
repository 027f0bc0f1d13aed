// SPDX-License-Identifier: GPL-2.0
/*
 * The Azure Functions 2019 trace: the kind a function gets, the minute
 * range option, and the parser that joins the invocations and durations
 * files and expands per-minute counts into invocations (trace.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cli.h>

#include "trace_int.h"

#define DEFAULT_MAX_INV 10000000ULL

static const unsigned int default_mix[FAAS_NR_KINDS] = { 55, 25, 10, 10 };

enum faas_kind faas_azure_kind(const char *hash_function, const unsigned int *mix)
{
	unsigned int x = (unsigned int)(trace_fnv1a(FNV_INIT, hash_function) % 100), acc = 0;
	int k;

	if (!mix)
		mix = default_mix;
	for (k = 0; k < FAAS_NR_KINDS; k++) {
		acc += mix[k];
		if (x < acc)
			return k;
	}
	return FAAS_KIND_CPU;
}

/* splitmix64: small, fast, and the same sequence everywhere */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* --- Azure 2019 format -------------------------------------------------------- */

static const char *const dur_header[] = {
	"HashOwner", "HashApp", "HashFunction", "Average", "Count", "Minimum", "Maximum",
	"percentile_Average_0", "percentile_Average_1", "percentile_Average_25",
	"percentile_Average_50", "percentile_Average_75", "percentile_Average_99",
	"percentile_Average_100",
};
#define DUR_COLS 14
#define DUR_PCT0 7
#define NR_PCT 7
static const double pct_at[NR_PCT] = { 0, 1, 25, 50, 75, 99, 100 };

static const char *const inv_header[] = { "HashOwner", "HashApp", "HashFunction", "Trigger" };
#define INV_FIXED 4
#define MAX_MINUTES 1440

struct dur_row {
	char *key; /* owner \n app \n function */
	uint64_t pct[NR_PCT];
	unsigned long line;
};

struct durations {
	struct dur_row *rows;
	size_t n, cap;
	struct strmap map;
};

static void durations_free(struct durations *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->rows[i].key);
	free(d->rows);
	trace_strmap_free(&d->map);
}

/* "owner\napp\nfunction": newlines cannot occur inside a field. */
static char *triple_key(struct reader *r)
{
	size_t a = strlen(r->field[0]), b = strlen(r->field[1]), c = strlen(r->field[2]);
	char *k = malloc(a + b + c + 3);

	if (k)
		sprintf(k, "%s\n%s\n%s", r->field[0], r->field[1], r->field[2]);
	return k;
}

/* "owner/app/function" of the current row, each part quoted for messages. */
static const char *triple_name(struct reader *r, char *dst, size_t len)
{
	char a[64], b[64], c[64];

	snprintf(dst, len, "%s/%s/%s", trace_quote(a, sizeof(a), r->field[0]),
		 trace_quote(b, sizeof(b), r->field[1]), trace_quote(c, sizeof(c), r->field[2]));
	return dst;
}

static int load_durations(const char *path, struct durations *d, char *err, size_t errlen)
{
	struct reader r;
	int e, i;

	e = trace_rd_open(&r, path, err, errlen);
	if (e)
		return e;
	e = trace_rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL, "%s: empty file (want the Azure durations header)",
			      path);
	if (e < 0)
		goto out;
	e = trace_rd_want_header(&r, dur_header, DUR_COLS, "HashOwner,HashApp,HashFunction,Average,...");
	if (!e && r.nr_fields != DUR_COLS)
		e = trace_rd_err(&r, trace_rd_col(&r, DUR_COLS), EINVAL, "header has %zu columns, want %d",
				 r.nr_fields, DUR_COLS);
	if (e)
		goto out;
	while ((e = trace_rd_line(&r)) > 0) {
		struct dur_row row = { .line = r.line };
		char q[3 * 64 + 3];
		uint64_t v;
		int64_t prev;

		e = trace_rd_want_fields(&r, DUR_COLS);
		for (i = 0; !e && i < 3; i++)
			e = trace_field_nonempty(&r, (size_t)i, dur_header[i]);
		/* validated though unused: a broken row means a broken file */
		for (i = 3; !e && i < DUR_PCT0; i++)
			e = i == 4 ? trace_field_count(&r, 4, dur_header[4], &v)
				   : trace_field_ms(&r, (size_t)i, dur_header[i], &v);
		for (i = 0; !e && i < NR_PCT; i++) {
			e = trace_field_ms(&r, DUR_PCT0 + (size_t)i, dur_header[DUR_PCT0 + i], &row.pct[i]);
			if (!e && i && row.pct[i] < row.pct[i - 1])
				e = trace_rd_err(&r, r.col[DUR_PCT0 + i], EINVAL,
						 "%s (%s) is below %s (%s)", dur_header[DUR_PCT0 + i],
						 r.field[DUR_PCT0 + i], dur_header[DUR_PCT0 + i - 1],
						 r.field[DUR_PCT0 + i - 1]);
		}
		if (e)
			goto out;
		row.key = triple_key(&r);
		if (!row.key) {
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		prev = trace_strmap_get(&d->map, row.key);
		if (prev >= 0) {
			free(row.key);
			e = trace_rd_err(&r, 1, EINVAL, "function %s appears twice (first at line %lu)",
					 triple_name(&r, q, sizeof(q)), d->rows[prev].line);
			goto out;
		}
		if (d->n == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 256;
			struct dur_row *rows = realloc(d->rows, cap * sizeof(*rows));

			if (!rows) {
				free(row.key);
				e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
				goto out;
			}
			d->rows = rows;
			d->cap = cap;
		}
		d->rows[d->n] = row;
		if (d->n >= UINT32_MAX || trace_strmap_put(&d->map, row.key, (uint32_t)d->n)) {
			free(row.key);
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		d->n++;
	}
out:
	trace_rd_close(&r);
	return e;
}

/* Piecewise-linear inverse CDF through the percentile points. */
static uint64_t draw_duration(const uint64_t *pct, double scale, uint64_t *rng)
{
	double x = rng_unit(rng) * 100.0, v;
	int i;

	for (i = 0; i < NR_PCT - 2 && x >= pct_at[i + 1]; i++)
		;
	v = (double)pct[i] + ((double)pct[i + 1] - (double)pct[i]) * (x - pct_at[i]) /
				     (pct_at[i + 1] - pct_at[i]);
	return (uint64_t)(v * scale + 0.5);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int faas_parse_minutes(const char *opt, const char *arg, unsigned int *first,
		       unsigned int *last, char *err, size_t errlen)
{
	unsigned long long v[2];
	int n = scxpol_cli_parse_uint_list(opt, arg, '-', 1, MAX_MINUTES, v, 2);

	if (n < 0 || v[0] > v[n - 1])
		return faas_errf(err, errlen, EINVAL,
				 "%s '%s': want A or A-B with 1 <= A <= B <= %d", opt, arg,
				 MAX_MINUTES);
	*first = (unsigned int)v[0];
	*last = (unsigned int)v[n - 1];
	return 0;
}

int faas_trace_load_azure(const char *invocations, const char *durations,
			  const struct faas_azure_opts *opts, struct faas_trace **out,
			  char *err, size_t errlen)
{
	struct faas_azure_opts o = { 0 };
	struct durations d = { 0 };
	struct strmap seen = { 0 };
	char **seen_keys = NULL;
	size_t nr_seen = 0, cap_seen = 0;
	struct builder b = { 0 };
	uint64_t *offs = NULL, total = 0;
	size_t cap_offs = 0;
	unsigned int nr_minutes, m;
	const unsigned int *mix = NULL;
	struct reader r = { 0 };
	int e, k;

	*out = NULL;
	if (opts)
		o = *opts;
	if (!o.minute_us)
		o.minute_us = 60000000ULL;
	if (o.duration_scale == 0)
		o.duration_scale = 1;
	if (o.duration_scale < 0 || o.duration_scale > 1e6)
		return faas_errf(err, errlen, EINVAL, "duration scale %g: want a number in (0, 1e6]",
				 o.duration_scale);
	if (!o.max_inv)
		o.max_inv = DEFAULT_MAX_INV;
	e = faas_kind_mix_check(o.kind_mix, err, errlen);
	if (e)
		return e;
	for (k = 0; k < FAAS_NR_KINDS; k++)
		if (o.kind_mix[k])
			mix = o.kind_mix;

	e = load_durations(durations, &d, err, errlen);
	if (e)
		goto out;
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		e = faas_errf(err, errlen, ENOMEM, "out of memory");
		goto out;
	}

	e = trace_rd_open(&r, invocations, err, errlen);
	if (e)
		goto out;
	e = trace_rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL,
			      "%s: empty file (want the Azure invocations header)", invocations);
	if (e < 0)
		goto out;
	e = trace_rd_want_header(&r, inv_header, INV_FIXED, "HashOwner,HashApp,HashFunction,Trigger,1,2,...");
	if (e)
		goto out;
	if (r.nr_fields == INV_FIXED) {
		e = trace_rd_err(&r, r.end_col, EINVAL, "header has no minute columns (want 1,2,...)");
		goto out;
	}
	nr_minutes = (unsigned int)(r.nr_fields - INV_FIXED);
	if (nr_minutes > MAX_MINUTES) {
		e = trace_rd_err(&r, r.col[INV_FIXED + MAX_MINUTES], EINVAL,
				 "more than %d minute columns", MAX_MINUTES);
		goto out;
	}
	for (m = 0; m < nr_minutes; m++) {
		char want[16], q[64];

		snprintf(want, sizeof(want), "%u", m + 1);
		if (strcmp(r.field[INV_FIXED + m], want)) {
			e = trace_rd_err(&r, r.col[INV_FIXED + m], EINVAL,
					 "minute column \"%s\" out of sequence, want \"%s\"",
					 trace_quote(q, sizeof(q), r.field[INV_FIXED + m]), want);
			goto out;
		}
	}
	if (!o.first_minute)
		o.first_minute = 1;
	if (!o.last_minute)
		o.last_minute = nr_minutes;
	if (o.first_minute > o.last_minute || o.last_minute > nr_minutes) {
		e = faas_errf(err, errlen, EINVAL, "minute range %u-%u: %s has minutes 1-%u",
			      o.first_minute, o.last_minute, invocations, nr_minutes);
		goto out;
	}
	if (o.minute_us > MAX_US / MAX_MINUTES) {
		e = faas_errf(err, errlen, ERANGE, "minute length %llu us is too large",
			      (unsigned long long)o.minute_us);
		goto out;
	}

	while ((e = trace_rd_line(&r)) > 0) {
		uint64_t counts[MAX_MINUTES], sum = 0, rng;
		char *key, *name, q[3 * 64 + 3];
		struct dur_row *dr;
		int64_t di;
		int fi;

		e = trace_rd_want_fields(&r, INV_FIXED + nr_minutes);
		for (k = 0; !e && k < INV_FIXED; k++)
			e = trace_field_nonempty(&r, (size_t)k, inv_header[k]);
		for (m = 0; !e && m < nr_minutes; m++) {
			char what[32];

			/* the common case without the message's snprintf: 1440 per line */
			if (trace_parse_count(r.field[INV_FIXED + m], &counts[m])) {
				snprintf(what, sizeof(what), "minute %u count", m + 1);
				e = trace_field_count(&r, INV_FIXED + m, what, &counts[m]);
				continue;
			}
			if (m + 1 < o.first_minute || m + 1 > o.last_minute)
				continue;
			if (counts[m] > o.max_inv - sum - total)
				e = trace_rd_err(&r, r.col[INV_FIXED + m], E2BIG,
						 "the trace expands to more than %llu invocations; "
						 "narrow the minute range or the number of functions",
						 (unsigned long long)o.max_inv);
			else
				sum += counts[m];
		}
		if (e)
			goto out;
		if (nr_seen == cap_seen) {
			size_t cap = cap_seen ? cap_seen * 2 : 256;
			char **p = reallocarray(seen_keys, cap, sizeof(*p));

			if (!p) {
				e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
				goto out;
			}
			seen_keys = p;
			cap_seen = cap;
		}
		key = triple_key(&r);
		if (!key) {
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		di = trace_strmap_get(&seen, key);
		if (di >= 0) {
			free(key);
			e = trace_rd_err(&r, 1, EINVAL, "function %s appears twice (first at line %lld)",
					 triple_name(&r, q, sizeof(q)), (long long)di);
			goto out;
		}
		seen_keys[nr_seen++] = key;
		if (trace_strmap_put(&seen, key, (uint32_t)r.line)) {
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		if (!sum)
			continue;
		di = trace_strmap_get(&d.map, key);
		if (di < 0) {
			if (o.skip_missing) {
				b.t->skipped_funcs++;
				b.t->skipped_inv += sum;
				continue;
			}
			e = trace_rd_err(&r, 1, ENOENT, "function %s is not in %s",
					 triple_name(&r, q, sizeof(q)), durations);
			goto out;
		}
		dr = &d.rows[di];
		/* the name is the key with '/' between the hashes */
		name = strdup(key);
		if (!name) {
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		for (k = 0; name[k]; k++)
			if (name[k] == '\n')
				name[k] = '/';
		fi = trace_add_func(&b, name, r.field[3], faas_azure_kind(r.field[2], mix));
		rng = o.seed ^ trace_fnv1a(FNV_INIT, name);
		free(name);
		if (fi < 0) {
			e = trace_rd_err(&r, 0, -fi, "%s", strerror(-fi));
			goto out;
		}
		total += sum;
		for (m = o.first_minute; m <= o.last_minute; m++) {
			uint64_t c = counts[m - 1], base = (m - o.first_minute) * o.minute_us, i;

			if (!c)
				continue;
			if (c > cap_offs) {
				uint64_t *p = reallocarray(offs, c, sizeof(*offs));

				if (!p) {
					e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
					goto out;
				}
				offs = p;
				cap_offs = c;
			}
			for (i = 0; i < c; i++)
				offs[i] = (uint64_t)(rng_unit(&rng) * (double)o.minute_us);
			qsort(offs, c, sizeof(*offs), cmp_u64);
			for (i = 0; i < c; i++) {
				struct faas_invocation *inv = trace_add_inv(&b);

				if (!inv) {
					e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
					goto out;
				}
				inv->func = (uint32_t)fi;
				inv->kind = b.t->funcs[fi].kind;
				inv->arrival_us = base + offs[i];
				inv->duration_us = draw_duration(dr->pct, o.duration_scale, &rng);
			}
		}
		if (o.max_funcs && b.t->nr_funcs >= o.max_funcs)
			break; /* the rest of the file is not needed */
	}
	if (e)
		goto out;
	if (!b.t->nr_inv) {
		e = faas_errf(err, errlen, EINVAL, "%s: no invocations in minutes %u-%u%s",
			      invocations, o.first_minute, o.last_minute,
			      b.t->skipped_funcs ? " (all functions with invocations were skipped)" : "");
		goto out;
	}
	e = trace_finish(&b, invocations, err, errlen);
out:
	trace_rd_close(&r);
	durations_free(&d);
	trace_strmap_free(&seen);
	while (nr_seen)
		free(seen_keys[--nr_seen]);
	free(seen_keys);
	free(offs);
	if (e) {
		faas_trace_free(b.t);
		return e;
	}
	*out = b.t;
	return 0;
}
