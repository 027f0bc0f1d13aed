/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FaaS traces: the Azure Functions 2019 per-minute counts, or a simple
 * per-invocation CSV, read into one in-memory form: invocations sorted by
 * arrival, each naming its function, plus one record per function.
 *
 * Times are microseconds from the start of the trace. Parsers read line by
 * line (the real Azure files are 100+ MB) and reject malformed input with
 * "FILE:LINE:COLUMN: what is wrong" in the caller's error buffer; fields
 * are plain (no CSV quoting: neither format uses it), lines may end in
 * "\r\n".
 *
 * Simple format: header "function,arrival_ms,duration_ms" with an optional
 * fourth column "kind" (cpu|io|poll|mt, default cpu); one row per
 * invocation; times are decimal milliseconds (fractions allowed, kept to the
 * microsecond). Rows need not be sorted.
 *
 * Azure 2019 format: invocations_per_function_md.anon.dNN.csv
 * (HashOwner,HashApp,HashFunction,Trigger,1..K per-minute counts; K is 1440
 * in the real files) joined on the (owner, app, function) hash triple with
 * function_durations_percentiles.anon.dNN.csv. Expansion:
 *   - arrivals: minute m of the range starts at (m - first) * minute_ms; its
 *     n invocations arrive at n uniform random offsets within that minute,
 *     sorted. n sorted uniform points are what a Poisson process produces
 *     when conditioned on n arrivals, so this is Poisson arrivals at the
 *     minute's observed rate without changing the observed count.
 *   - durations: drawn from the function's piecewise-linear inverse CDF
 *     through (0, p0) (1, p1) (25, p25) (50, p50) (75, p75) (99, p99)
 *     (100, p100), times duration_scale.
 *   - kind: the trace does not say, so it is derived from a 64-bit FNV-1a
 *     hash of HashFunction: hash % 100 against the cumulative kind_mix
 *     percentages (default 55 cpu, 25 io, 10 poll, 10 mt). The same
 *     function always gets the same kind.
 *   - randomness: one splitmix64 stream per function, seeded with
 *     seed ^ FNV-1a(owner/app/function), so a function's invocations do not
 *     depend on which other functions were kept.
 * Only functions with at least one invocation in the minute range are kept;
 * they need a durations row (missing: error naming it, or skipped and
 * counted with skip_missing). Also errors: minute columns other than
 * exactly "1".."K" (K <= 1440), counts that are not whole numbers, a
 * function listed twice in either file, percentiles that decrease, and an
 * expansion past max_inv invocations (the message says where).
 */
#ifndef FAAS_TRACE_H
#define FAAS_TRACE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAAS_ERR_LEN 512

enum faas_kind {
	FAAS_KIND_CPU,	/* one CPU burst */
	FAAS_KIND_IO,	/* ~1 ms compute, sleep, repeat */
	FAAS_KIND_POLL, /* busy-polling runtime, never sleeps */
	FAAS_KIND_MT,	/* multithreaded compute */
	FAAS_NR_KINDS,
};

struct faas_func {
	char *name;	   /* simple: the function column; azure: "owner/app/function" */
	char *trigger;	   /* azure: the Trigger column; simple: "" */
	enum faas_kind kind; /* azure: derived (see above); simple: first row's kind */
	uint64_t count;	   /* invocations in the trace */
};

struct faas_invocation {
	uint32_t func;	     /* index into faas_trace.funcs */
	enum faas_kind kind;
	uint64_t arrival_us; /* from the start of the trace */
	uint64_t duration_us; /* CPU work the invocation needs */
};

struct faas_trace {
	struct faas_func *funcs;
	uint32_t nr_funcs;
	struct faas_invocation *inv; /* sorted by arrival; ties in file order */
	uint64_t nr_inv;
	uint64_t skipped_funcs;	     /* azure skip_missing: functions left out */
	uint64_t skipped_inv;	     /* ... and their invocations */
};

struct faas_azure_opts {
	unsigned int first_minute; /* 1-based, inclusive; 0 means 1 */
	unsigned int last_minute;  /* inclusive; 0 means the file's last */
	uint64_t minute_us;	   /* a trace minute lasts this long; 0 means 60 s */
	double duration_scale;	   /* multiplies durations; 0 means 1 */
	uint32_t max_funcs;	   /* keep the first N functions (file order) with
				    * invocations in the range; 0: all */
	uint64_t max_inv;	   /* refuse to expand to more; 0: 10 million */
	uint64_t seed;
	bool skip_missing;	   /* skip functions without durations (counted) */
	unsigned int kind_mix[FAAS_NR_KINDS]; /* percent per kind; all 0: default */
};

/* faas_kind_name - "cpu", "io", "poll" or "mt". */
const char *faas_kind_name(enum faas_kind k);

/* faas_kind_parse - kind from its name; -1 if @s is not one. */
int faas_kind_parse(const char *s);

/*
 * faas_azure_kind - the kind the Azure expansion gives function @hash_function
 * under @mix (percentages per kind summing to 100; NULL: the default).
 */
enum faas_kind faas_azure_kind(const char *hash_function, const unsigned int *mix);

/*
 * faas_kind_mix_check - 0 when @mix (FAAS_NR_KINDS percentages, as in
 * struct faas_azure_opts) is all 0 (the default) or each is at most 100
 * and they sum to 100; else -EINVAL with the reason in @err.
 */
int faas_kind_mix_check(const unsigned int *mix, char *err, size_t errlen);

/*
 * faas_parse_kind_mix - @arg, the value of option @opt, as "C,I,P,M": the
 * percent of functions per kind cpu,io,poll,mt, each a whole number 0..100
 * as scxpol_cli_parse_uint() reads it (decimal digits only), summing to
 * 100, into @mix (FAAS_NR_KINDS values). 0, or -EINVAL with "<@opt>
 * '<@arg>': want ..." in @err (and @mix untouched).
 */
int faas_parse_kind_mix(const char *opt, const char *arg, unsigned int *mix, char *err,
			size_t errlen);

/*
 * faas_parse_minutes - @arg, the value of option @opt, as a minute range
 * "A" or "A-B" with 1 <= A <= B <= 1440, each a whole number as
 * scxpol_cli_parse_uint() reads it, into *@first and *@last (both A for
 * "A"). 0, or -EINVAL with "<@opt> '<@arg>': want ..." in @err.
 */
int faas_parse_minutes(const char *opt, const char *arg, unsigned int *first,
		       unsigned int *last, char *err, size_t errlen);

/*
 * faas_trace_load_simple - read a simple per-invocation CSV. Returns 0 and
 * sets *@out, or a negative errno with the reason ("FILE:LINE:COL: ...") in
 * @err.
 */
int faas_trace_load_simple(const char *path, struct faas_trace **out, char *err,
			   size_t errlen);

/*
 * faas_trace_load_azure - read an Azure 2019 invocations file and its
 * durations file and expand them as described above. Returns 0 and sets
 * *@out, or a negative errno with the reason in @err. @opts may be NULL.
 */
int faas_trace_load_azure(const char *invocations, const char *durations,
			  const struct faas_azure_opts *opts, struct faas_trace **out,
			  char *err, size_t errlen);

/*
 * faas_trace_scale_durations - multiply every duration by @scale (> 0;
 * results are rounded to the microsecond and capped at 2^53 us).
 */
void faas_trace_scale_durations(struct faas_trace *t, double scale);

/* faas_trace_free - free a trace (NULL is fine). */
void faas_trace_free(struct faas_trace *t);

/*
 * faas_errf - format a message into @err (@len bytes) and return -@errnum:
 * the error convention of the faas modules (`return faas_errf(...)`).
 */
int faas_errf(char *err, size_t len, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * faas_parse_ms - parse a decimal millisecond value ("12", "0.25") into
 * microseconds (sub-microsecond digits are rounded). Returns 0, or -EINVAL
 * (not a number), -ERANGE (too large: > 2^53 us) or -EDOM (negative).
 */
int faas_parse_ms(const char *s, uint64_t *us);

#endif
