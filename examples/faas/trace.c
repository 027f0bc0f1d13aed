// SPDX-License-Identifier: GPL-2.0
/*
 * FaaS traces: faas_errf(), the function kinds (names, the kind mix option)
 * and the simple per-invocation CSV parser. The Azure 2019 parser is
 * trace_azure.c; what both parsers use, trace_rows.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cli.h>

#include "trace_int.h"

static const char *const kind_names[FAAS_NR_KINDS] = { "cpu", "io", "poll", "mt" };

int faas_errf(char *err, size_t len, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

const char *faas_kind_name(enum faas_kind k)
{
	return (unsigned int)k < FAAS_NR_KINDS ? kind_names[k] : "?";
}

int faas_kind_parse(const char *s)
{
	int k;

	for (k = 0; k < FAAS_NR_KINDS; k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return -1;
}

int faas_kind_mix_check(const unsigned int *mix, char *err, size_t errlen)
{
	unsigned int sum = 0;
	int k;

	for (k = 0; k < FAAS_NR_KINDS; k++) {
		if (mix[k] > 100)
			return faas_errf(err, errlen, EINVAL, "kind mix: %s %u%%, want 0..100%%",
					 kind_names[k], mix[k]);
		sum += mix[k];
	}
	if (sum && sum != 100)
		return faas_errf(err, errlen, EINVAL, "kind mix sums to %u%%, want 100%%", sum);
	return 0;
}

int faas_parse_kind_mix(const char *opt, const char *arg, unsigned int *mix, char *err,
			size_t errlen)
{
	unsigned long long v[FAAS_NR_KINDS];
	unsigned int m[FAAS_NR_KINDS];
	int k;

	if (scxpol_cli_parse_uint_list(opt, arg, ',', 0, 100, v, FAAS_NR_KINDS) == FAAS_NR_KINDS) {
		for (k = 0; k < FAAS_NR_KINDS; k++)
			m[k] = (unsigned int)v[k];
		/* all 0 is the default to faas_kind_mix_check(), not a mix given */
		if (m[0] + m[1] + m[2] + m[3] &&
		    !faas_kind_mix_check(m, err, errlen)) {
			memcpy(mix, m, sizeof(m));
			return 0;
		}
	}
	return faas_errf(err, errlen, EINVAL, "%s '%s': want four percentages cpu,io,poll,mt, "
			 "each 0..100, summing to 100", opt, arg);
}

/* --- simple format -------------------------------------------------------- */

static const char *const simple_header[] = { "function", "arrival_ms", "duration_ms", "kind" };
#define SIMPLE_HEADER "function,arrival_ms,duration_ms[,kind]"

int faas_trace_load_simple(const char *path, struct faas_trace **out, char *err, size_t errlen)
{
	struct builder b = { 0 };
	struct strmap names = { 0 };
	struct reader r;
	size_t ncol;
	int e;

	*out = NULL;
	e = trace_rd_open(&r, path, err, errlen);
	if (e)
		return e;
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		e = faas_errf(err, errlen, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	e = trace_rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL, "%s: empty file (want a header \"%s\")", path,
			      SIMPLE_HEADER);
	if (e < 0)
		goto out;
	ncol = r.nr_fields;
	if (ncol != 3 && ncol != 4) {
		e = trace_rd_err(&r, 0, EINVAL, "header has %zu columns, want \"%s\"", ncol, SIMPLE_HEADER);
		goto out;
	}
	e = trace_rd_want_header(&r, simple_header, ncol, SIMPLE_HEADER);
	if (e)
		goto out;
	while ((e = trace_rd_line(&r)) > 0) {
		struct faas_invocation *inv;
		uint64_t arrival, duration;
		int kind = FAAS_KIND_CPU;
		int64_t fi;

		e = trace_rd_want_fields(&r, ncol);
		if (!e)
			e = trace_field_nonempty(&r, 0, "function");
		if (!e)
			e = trace_field_ms(&r, 1, "arrival_ms", &arrival);
		if (!e)
			e = trace_field_ms(&r, 2, "duration_ms", &duration);
		if (e)
			goto out;
		if (ncol == 4) {
			char q[64];

			kind = faas_kind_parse(r.field[3]);
			if (kind < 0) {
				e = trace_rd_err(&r, r.col[3], EINVAL,
						 "kind \"%s\" is not one of cpu, io, poll, mt",
						 trace_quote(q, sizeof(q), r.field[3]));
				goto out;
			}
		}
		fi = trace_strmap_get(&names, r.field[0]);
		if (fi < 0) {
			fi = trace_add_func(&b, r.field[0], "", kind);
			if (fi < 0 || trace_strmap_put(&names, b.t->funcs[fi].name, (uint32_t)fi)) {
				e = trace_rd_err(&r, 0, fi == -E2BIG ? E2BIG : ENOMEM, "%s",
						 fi == -E2BIG ? "too many functions" : "out of memory");
				goto out;
			}
		}
		inv = trace_add_inv(&b);
		if (!inv) {
			e = trace_rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		inv->func = (uint32_t)fi;
		inv->kind = kind;
		inv->arrival_us = arrival;
		inv->duration_us = duration;
	}
	if (!e)
		e = trace_finish(&b, path, err, errlen);
out:
	trace_rd_close(&r);
	trace_strmap_free(&names);
	if (e) {
		faas_trace_free(b.t);
		return e;
	}
	*out = b.t;
	return 0;
}
