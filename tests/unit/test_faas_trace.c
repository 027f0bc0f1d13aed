// SPDX-License-Identifier: GPL-2.0
/* FaaS trace parsers: good files, every malformed kind, hostile input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../examples/faas/trace.h"

static char data[512], tmpdir[256], tmpfile_[300], err[FAAS_ERR_LEN];

static const char *data_file(const char *name)
{
	static char path[4][1024];
	static int n;

	n = (n + 1) % 4;
	snprintf(path[n], sizeof(path[n]), "%s/faas/%s", data, name);
	return path[n];
}

/* Write @len bytes of @text to the scratch file and return its path. */
static const char *scratch(const char *text, size_t len)
{
	FILE *f = fopen(tmpfile_, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	return tmpfile_;
}

#define SCRATCH(s) scratch((s), sizeof(s) - 1)

/* Load @text as a simple trace; expect failure with "<file>:<want>". */
static void expect_simple_error(const char *text, size_t len, const char *want)
{
	struct faas_trace *t = (void *)1;
	char full[FAAS_ERR_LEN];

	assert_int_not_equal(faas_trace_load_simple(scratch(text, len), &t, err, sizeof(err)), 0);
	assert_null(t);
	snprintf(full, sizeof(full), "%s%s", tmpfile_, want);
	assert_string_equal(err, full);
}

#define SIMPLE_ERR(s, want) expect_simple_error((s), sizeof(s) - 1, (want))

static int setup(void **state)
{
	const char *d = getenv("SCXPOL_TEST_DATA");

	(void)state;
	assert_non_null(d);
	snprintf(data, sizeof(data), "%s", d);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/scxpol-faas-trace.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(tmpfile_, sizeof(tmpfile_), "%s/t.csv", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(tmpfile_);
	rmdir(tmpdir);
	return 0;
}

static void test_parse_ms(void **state)
{
	uint64_t us;

	(void)state;
	assert_int_equal(faas_parse_ms("0", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(faas_parse_ms("12", &us), 0);
	assert_int_equal(us, 12000);
	assert_int_equal(faas_parse_ms("1.5", &us), 0);
	assert_int_equal(us, 1500);
	assert_int_equal(faas_parse_ms("0.0004", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(faas_parse_ms("0.0005", &us), 0);
	assert_int_equal(us, 1);
	assert_int_equal(faas_parse_ms("007.250", &us), 0);
	assert_int_equal(us, 7250);
	assert_int_equal(faas_parse_ms("9007199254740.992", &us), 0);
	assert_int_equal(us, 1ULL << 53);
	assert_int_equal(faas_parse_ms("9007199254740.993", &us), -ERANGE);
	assert_int_equal(faas_parse_ms("99999999999999999999", &us), -ERANGE);
	assert_int_equal(faas_parse_ms("-1", &us), -EDOM);
	assert_int_equal(faas_parse_ms("-x", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("1.", &us), -EINVAL);
	assert_int_equal(faas_parse_ms(".5", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("1e3", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("+1", &us), -EINVAL);
	assert_int_equal(faas_parse_ms(" 1", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("1 ", &us), -EINVAL);
	assert_int_equal(faas_parse_ms("0x10", &us), -EINVAL);
}

static void test_kinds(void **state)
{
	static const unsigned int all_mt[FAAS_NR_KINDS] = { 0, 0, 0, 100 };

	(void)state;
	assert_string_equal(faas_kind_name(FAAS_KIND_POLL), "poll");
	assert_int_equal(faas_kind_parse("mt"), FAAS_KIND_MT);
	assert_int_equal(faas_kind_parse("MT"), -1);
	assert_int_equal(faas_kind_parse(""), -1);
	/* FNV-1a("f1") % 100 == 4, FNV-1a("f4") % 100 == 59 */
	assert_int_equal(faas_azure_kind("f1", NULL), FAAS_KIND_CPU);
	assert_int_equal(faas_azure_kind("f4", NULL), FAAS_KIND_IO);
	assert_int_equal(faas_azure_kind("f1", (const unsigned int[]){ 4, 1, 0, 95 }), FAAS_KIND_IO);
	assert_int_equal(faas_azure_kind("f1", (const unsigned int[]){ 5, 0, 0, 95 }), FAAS_KIND_CPU);
	assert_int_equal(faas_azure_kind("f1", all_mt), FAAS_KIND_MT);
}

static void test_simple_good(void **state)
{
	struct faas_trace *t;

	(void)state;
	assert_int_equal(faas_trace_load_simple(data_file("simple-good.csv"), &t, err, sizeof(err)), 0);
	assert_int_equal(t->nr_inv, 6);
	assert_int_equal(t->nr_funcs, 4);
	/* functions in order of first appearance */
	assert_string_equal(t->funcs[0].name, "web");
	assert_string_equal(t->funcs[1].name, "db");
	assert_string_equal(t->funcs[2].name, "poller");
	assert_string_equal(t->funcs[3].name, "batch");
	assert_int_equal(t->funcs[0].count, 3);
	assert_int_equal(t->funcs[3].kind, FAAS_KIND_MT);
	/* sorted by arrival; equal arrivals keep file order */
	assert_int_equal(t->inv[0].func, 1);
	assert_int_equal(t->inv[0].arrival_us, 0);
	assert_int_equal(t->inv[0].duration_us, 35500);
	assert_int_equal(t->inv[0].kind, FAAS_KIND_IO); /* its line ends in \r\n */
	assert_int_equal(t->inv[1].arrival_us, 50250);
	assert_int_equal(t->inv[2].func, 2);
	assert_int_equal(t->inv[2].duration_us, 10001);
	assert_int_equal(t->inv[3].func, 3);
	assert_int_equal(t->inv[3].arrival_us, 75000);
	assert_int_equal(t->inv[5].arrival_us, 3000000);
	assert_int_equal(t->inv[5].duration_us, 18500);

	faas_trace_scale_durations(t, 0.5);
	assert_int_equal(t->inv[0].duration_us, 17750);
	assert_int_equal(t->inv[2].duration_us, 5001); /* 5000.5 rounds up */
	faas_trace_free(t);
}

static void test_simple_without_kind(void **state)
{
	struct faas_trace *t;

	(void)state;
	assert_int_equal(faas_trace_load_simple(SCRATCH("function,arrival_ms,duration_ms\nf,1,2\n"
							"g,0,3"), /* no final newline */
						&t, err, sizeof(err)), 0);
	assert_int_equal(t->nr_inv, 2);
	assert_int_equal(t->inv[0].func, 1);
	assert_int_equal(t->inv[0].kind, FAAS_KIND_CPU);
	assert_int_equal(t->inv[1].duration_us, 2000);
	faas_trace_free(t);
}

static void test_simple_committed_errors(void **state)
{
	struct faas_trace *t;
	char want[FAAS_ERR_LEN];
	const char *p;

	(void)state;
	p = data_file("simple-bad-number.csv");
	assert_int_equal(faas_trace_load_simple(p, &t, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3:8: duration_ms \"abc\" is not a number", p);
	assert_string_equal(err, want);

	p = data_file("simple-bad-header.csv");
	assert_int_equal(faas_trace_load_simple(p, &t, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:1:10: header column 2 is \"arrival\", want \"arrival_ms\"", p);
	assert_string_equal(err, want);

	p = data_file("no-such-file.csv");
	assert_int_equal(faas_trace_load_simple(p, &t, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	assert_string_equal(err, want);

	p = data_file(".");
	assert_int_equal(faas_trace_load_simple(p, &t, err, sizeof(err)), -EISDIR);
	snprintf(want, sizeof(want), "%s: read error after line 0: Is a directory", p);
	assert_string_equal(err, want);
}

static void test_simple_errors(void **state)
{
	(void)state;
	SIMPLE_ERR("", ": empty file (want a header \"function,arrival_ms,duration_ms[,kind]\")");
	SIMPLE_ERR("function,arrival_ms\n",
		   ":1: header has 2 columns, want \"function,arrival_ms,duration_ms[,kind]\"");
	SIMPLE_ERR("function,arrival_ms,duration_ms,kind,x\n",
		   ":1: header has 5 columns, want \"function,arrival_ms,duration_ms[,kind]\"");
	SIMPLE_ERR("function,arrival_ms,duration_ms,knd\n",
		   ":1:33: header column 4 is \"knd\", want \"kind\"");
	SIMPLE_ERR("function,arrival_ms,duration_ms\n", ": no invocations");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,-5,1\n",
		   ":2:3: arrival_ms \"-5\" is negative");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,99999999999999999999\n",
		   ":2:5: duration_ms \"99999999999999999999\" is too large");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,2,3\n",
		   ":2:7: 4 columns, want 3 (as the header)");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1\n",
		   ":2:4: 2 columns, want 3 (as the header)");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,\n", ":2:5: duration_ms is empty");
	SIMPLE_ERR("function,arrival_ms,duration_ms\n,1,2\n", ":2:1: function is empty");
	SIMPLE_ERR("function,arrival_ms,duration_ms,kind\nf,1,2,gpu\n",
		   ":2:7: kind \"gpu\" is not one of cpu, io, poll, mt");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,2\0\n", ":2:6: NUL byte");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,2\n\nf,2,3\n", ":3:1: empty line");
	SIMPLE_ERR("function,arrival_ms,duration_ms\n\"f\",1,2\n",
		   ":2:1: quoted fields are not supported");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1e3,2\n",
		   ":2:3: arrival_ms \"1e3\" is not a number");
	/* hostile bytes are escaped and long values cut in messages */
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,\x1b[31m\n",
		   ":2:5: duration_ms \"\\x1b[31m\" is not a number");
	SIMPLE_ERR("function,arrival_ms,duration_ms\nf,1,"
		   "abcdefghijabcdefghijabcdefghijabcdefghij0123456789\n",
		   ":2:5: duration_ms \"abcdefghijabcdefghijabcdefghijabcdefghij...\" is not a number");
}

static void test_simple_overlong_line(void **state)
{
	size_t n = (1U << 20) + 100, h = strlen("function,arrival_ms,duration_ms\nf,1,");
	char *text = malloc(n);

	(void)state;
	assert_non_null(text);
	memcpy(text, "function,arrival_ms,duration_ms\nf,1,", h);
	memset(text + h, '7', n - h - 1);
	text[n - 1] = '\n';
	expect_simple_error(text, n, ":2: line longer than 1048576 bytes");
	free(text);
}

static struct faas_trace *azure(const char *inv, const char *dur,
				const struct faas_azure_opts *o, int want)
{
	struct faas_trace *t = NULL;

	assert_int_equal(faas_trace_load_azure(data_file(inv), data_file(dur), o, &t, err,
					       sizeof(err)), want);
	return t;
}

static void test_azure_good(void **state)
{
	struct faas_azure_opts o = { .minute_us = 1000000, .seed = 7 };
	struct faas_trace *t;
	uint64_t i, f2 = 0;

	(void)state;
	t = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	/* f1 2+3+1, f2 6 x 1, f3 none, f4 4 */
	assert_int_equal(t->nr_inv, 16);
	assert_int_equal(t->nr_funcs, 3);
	assert_string_equal(t->funcs[0].name, "o1/a1/f1");
	assert_string_equal(t->funcs[0].trigger, "http");
	assert_string_equal(t->funcs[1].name, "o1/a1/f2");
	assert_string_equal(t->funcs[2].name, "o2/a3/f4");
	assert_int_equal(t->funcs[0].count, 6);
	assert_int_equal(t->funcs[1].count, 6);
	assert_int_equal(t->funcs[2].count, 4);
	assert_int_equal(t->funcs[2].kind, faas_azure_kind("f4", NULL));
	assert_true(t->inv[0].arrival_us < 1000000);
	assert_true(t->inv[15].arrival_us >= 5000000 && t->inv[15].arrival_us < 6000000);
	for (i = 0; i < t->nr_inv; i++) {
		const struct faas_invocation *v = &t->inv[i];

		if (i)
			assert_true(v->arrival_us >= t->inv[i - 1].arrival_us);
		assert_int_equal(v->kind, t->funcs[v->func].kind);
		switch (v->func) {
		case 0: /* percentiles 10 .. 500 ms */
			assert_true(v->duration_us >= 10000 && v->duration_us <= 500000);
			break;
		case 1: /* every percentile is 5 ms, and one per minute */
			assert_int_equal(v->duration_us, 5000);
			assert_int_equal(v->arrival_us / 1000000, f2++);
			break;
		default: /* 1 .. 40 ms, all in minute 2 */
			assert_true(v->duration_us >= 1000 && v->duration_us <= 40000);
			assert_int_equal(v->arrival_us / 1000000, 1);
		}
	}
	assert_int_equal(f2, 6);
	faas_trace_free(t);
}

static void test_azure_options(void **state)
{
	struct faas_azure_opts o = { .minute_us = 1000000, .first_minute = 2, .last_minute = 3 };
	struct faas_trace *t, *u;
	uint64_t i;

	(void)state;
	/* minutes 2-3: f1 3, f2 2, f4 4; minute 2 starts the replay */
	t = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	assert_int_equal(t->nr_inv, 9);
	assert_int_equal(t->funcs[0].count, 3);
	for (i = 0; i < t->nr_inv; i++) {
		if (t->inv[i].func == 0)
			assert_int_equal(t->inv[i].arrival_us / 1000000, 1);
		assert_true(t->inv[i].arrival_us < 2000000);
	}
	faas_trace_free(t);

	/* the same seed gives the same trace, another seed another one */
	o = (struct faas_azure_opts){ .seed = 1 };
	t = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	u = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	assert_memory_equal(t->inv, u->inv, t->nr_inv * sizeof(*t->inv));
	faas_trace_free(u);
	o.seed = 2;
	u = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	assert_int_equal(u->nr_inv, t->nr_inv);
	assert_memory_not_equal(t->inv, u->inv, t->nr_inv * sizeof(*t->inv));
	faas_trace_free(u);
	faas_trace_free(t);

	/* max functions, duration scale, kind mix */
	o = (struct faas_azure_opts){ .max_funcs = 2, .duration_scale = 2,
				      .kind_mix = { 0, 100, 0, 0 } };
	t = azure("azure-inv.csv", "azure-dur.csv", &o, 0);
	assert_int_equal(t->nr_funcs, 2);
	assert_int_equal(t->nr_inv, 12);
	for (i = 0; i < t->nr_inv; i++) {
		assert_int_equal(t->inv[i].kind, FAAS_KIND_IO);
		if (t->inv[i].func == 1)
			assert_int_equal(t->inv[i].duration_us, 10000);
	}
	faas_trace_free(t);
}

static void test_azure_missing_function(void **state)
{
	struct faas_azure_opts o = { .skip_missing = true };
	struct faas_trace *t;
	char want[FAAS_ERR_LEN];

	(void)state;
	assert_null(azure("azure-inv.csv", "azure-dur-missing.csv", NULL, -ENOENT));
	snprintf(want, sizeof(want), "%s:5:1: function o2/a3/f4 is not in %s",
		 data_file("azure-inv.csv"), data_file("azure-dur-missing.csv"));
	assert_string_equal(err, want);

	t = azure("azure-inv.csv", "azure-dur-missing.csv", &o, 0);
	assert_int_equal(t->nr_funcs, 2);
	assert_int_equal(t->nr_inv, 12);
	assert_int_equal(t->skipped_funcs, 1);
	assert_int_equal(t->skipped_inv, 4);
	faas_trace_free(t);
}

static void test_azure_committed_errors(void **state)
{
	struct faas_azure_opts o = { .max_inv = 10 };
	char want[FAAS_ERR_LEN];

	(void)state;
	assert_null(azure("azure-inv-bad-minutes.csv", "azure-dur.csv", NULL, -EINVAL));
	snprintf(want, sizeof(want), "%s:1:44: minute column \"4\" out of sequence, want \"3\"",
		 data_file("azure-inv-bad-minutes.csv"));
	assert_string_equal(err, want);

	assert_null(azure("azure-inv.csv", "azure-dur-bad-percentile.csv", NULL, -EINVAL));
	snprintf(want, sizeof(want),
		 "%s:4:25: percentile_Average_50 (5) is below percentile_Average_25 (10)",
		 data_file("azure-dur-bad-percentile.csv"));
	assert_string_equal(err, want);

	/* f1 has 6, f2's fifth minute is the eleventh invocation */
	assert_null(azure("azure-inv.csv", "azure-dur.csv", &o, -E2BIG));
	snprintf(want, sizeof(want), "%s:3:24: the trace expands to more than 10 invocations; "
		 "narrow the minute range or the number of functions", data_file("azure-inv.csv"));
	assert_string_equal(err, want);

	o = (struct faas_azure_opts){ .first_minute = 2, .last_minute = 9 };
	assert_null(azure("azure-inv.csv", "azure-dur.csv", &o, -EINVAL));
	snprintf(want, sizeof(want), "minute range 2-9: %s has minutes 1-6", data_file("azure-inv.csv"));
	assert_string_equal(err, want);

	o = (struct faas_azure_opts){ .kind_mix = { 50, 40, 0, 0 } };
	assert_null(azure("azure-inv.csv", "azure-dur.csv", &o, -EINVAL));
	assert_string_equal(err, "kind mix sums to 90%, want 100%");
	/* an unsigned sum would wrap back to 100 */
	o = (struct faas_azure_opts){ .kind_mix = { 4294967295U, 101, 0, 0 } };
	assert_null(azure("azure-inv.csv", "azure-dur.csv", &o, -EINVAL));
	assert_string_equal(err, "kind mix: cpu 4294967295%, want 0..100%");
}

/* The command line's --kind-mix and --minutes: the library's whole numbers, no wrapping. */
static void test_kind_mix_and_minutes_options(void **state)
{
	static const char *const bad_mix[] = {
		"4294967396,0,0,0", "4294967295,101,0,0", "101,0,0,0", "50,50,0,1", "0,0,0,0",
		"55,25,10", "55,25,10,10,0", "55,25,10,10,", ",55,25,10,10", "55,,35,10",
		"55,25,10,+10", "55,25,10, 10", "-5,105,0,0", "0x37,25,10,10", "55,25,10,10 ", "",
	};
	static const char *const bad_minutes[] = {
		"0", "1441", "1-1441", "4294967297", "1-4294967298", "18446744073709551617",
		" 1-+2", "+1", "-1", "1-", "1--2", "1-2-3", "3-2", "0-2", "1 ", "0x10", "1.5", "",
	};
	unsigned int mix[FAAS_NR_KINDS] = { 1, 2, 3, 4 }, first = 7, last = 9;
	char want[256];
	size_t i;

	(void)state;
	assert_int_equal(faas_parse_kind_mix("--kind-mix", "55,25,10,10", mix, err, sizeof(err)),
			 0);
	assert_int_equal(mix[0], 55);
	assert_int_equal(mix[1], 25);
	assert_int_equal(mix[2], 10);
	assert_int_equal(mix[3], 10);
	assert_int_equal(faas_parse_kind_mix("--kind-mix", "0,100,0,0", mix, err, sizeof(err)), 0);
	assert_int_equal(mix[0], 0);
	assert_int_equal(mix[1], 100);
	for (i = 0; i < sizeof(bad_mix) / sizeof(bad_mix[0]); i++) {
		assert_int_equal(faas_parse_kind_mix("--kind-mix", bad_mix[i], mix, err,
						     sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "--kind-mix '%s': want four percentages cpu,io,poll,mt, "
			 "each 0..100, summing to 100", bad_mix[i]);
		assert_string_equal(err, want);
		assert_int_equal(mix[1], 100); /* untouched */
	}
	assert_int_equal(faas_kind_mix_check(mix, err, sizeof(err)), 0);
	assert_int_equal(faas_kind_mix_check((unsigned int[]){ 0, 0, 0, 0 }, err, sizeof(err)), 0);
	assert_int_equal(faas_kind_mix_check((unsigned int[]){ 0, 0, 0, 101 }, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "kind mix: mt 101%, want 0..100%");

	assert_int_equal(faas_parse_minutes("--minutes", "5", &first, &last, err, sizeof(err)), 0);
	assert_int_equal(first, 5);
	assert_int_equal(last, 5);
	assert_int_equal(faas_parse_minutes("--minutes", "1-1440", &first, &last, err,
					    sizeof(err)), 0);
	assert_int_equal(first, 1);
	assert_int_equal(last, 1440);
	assert_int_equal(faas_parse_minutes("--minutes", "7-7", &first, &last, err, sizeof(err)),
			 0);
	assert_int_equal(first, 7);
	assert_int_equal(last, 7);
	for (i = 0; i < sizeof(bad_minutes) / sizeof(bad_minutes[0]); i++) {
		assert_int_equal(faas_parse_minutes("--minutes", bad_minutes[i], &first, &last, err,
						    sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want),
			 "--minutes '%s': want A or A-B with 1 <= A <= B <= 1440", bad_minutes[i]);
		assert_string_equal(err, want);
		assert_int_equal(first, 7);
		assert_int_equal(last, 7);
	}
}

/* Write an Azure pair into the scratch directory; return the error. */
static int azure_text(const char *inv, const char *dur, const struct faas_azure_opts *o)
{
	char ipath[300], dpath[300];
	struct faas_trace *t = NULL;
	FILE *f;
	int r;

	snprintf(ipath, sizeof(ipath), "%s/inv.csv", tmpdir);
	snprintf(dpath, sizeof(dpath), "%s/dur.csv", tmpdir);
	f = fopen(ipath, "w");
	assert_non_null(f);
	fputs(inv, f);
	fclose(f);
	f = fopen(dpath, "w");
	assert_non_null(f);
	fputs(dur, f);
	fclose(f);
	r = faas_trace_load_azure(ipath, dpath, o, &t, err, sizeof(err));
	if (!r)
		faas_trace_free(t);
	else
		assert_null(t);
	unlink(ipath);
	unlink(dpath);
	return r;
}

#define DUR_HEAD "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum," \
		 "percentile_Average_0,percentile_Average_1,percentile_Average_25," \
		 "percentile_Average_50,percentile_Average_75,percentile_Average_99," \
		 "percentile_Average_100\n"
#define DUR_F1 "o,a,f1,1,1,1,1,1,1,1,1,1,1,1\n"
#define INV_HEAD "HashOwner,HashApp,HashFunction,Trigger,1,2,3\n"

/* The error message with the scratch directory's path taken out. */
static const char *rel(void)
{
	static char buf[FAAS_ERR_LEN];
	size_t n = strlen(tmpdir);
	const char *s = err;
	size_t o = 0;

	while (*s && o + 1 < sizeof(buf)) {
		if (!strncmp(s, tmpdir, n)) {
			s += n + 1;
			continue;
		}
		buf[o++] = *s++;
	}
	buf[o] = '\0';
	return buf;
}

static void test_azure_errors(void **state)
{
	(void)state;
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n", DUR_HEAD DUR_F1, NULL), 0);

	assert_int_equal(azure_text("", DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv: empty file (want the Azure invocations header)");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n", "", NULL), -EINVAL);
	assert_string_equal(rel(), "dur.csv: empty file (want the Azure durations header)");
	assert_int_equal(azure_text(INV_HEAD, DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv: no invocations in minutes 1-3");
	assert_int_equal(azure_text("HashOwner,HashApp,HashFunction,Trigger\n", DUR_HEAD, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:1:39: header has no minute columns (want 1,2,...)");
	assert_int_equal(azure_text("HashOwner,HashApp,HashFunc,Trigger,1\n", DUR_HEAD, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:1:19: header column 3 is \"HashFunc\", want \"HashFunction\"");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,-1,0\n", DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:2:15: minute 2 count \"-1\" is negative");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,1.5,0\n", DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:2:15: minute 2 count \"1.5\" is not a whole number");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,99999999999999999,0\n", DUR_HEAD DUR_F1, NULL),
			 -ERANGE);
	assert_string_equal(rel(), "inv.csv:2:15: minute 2 count \"99999999999999999\" is too large");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,1\n", DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:2:16: 6 columns, want 7 (as the header)");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,,1,1,1\n", DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:2:8: Trigger is empty");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\no,a,f1,timer,0,0,1\n",
				    DUR_HEAD DUR_F1, NULL), -EINVAL);
	assert_string_equal(rel(), "inv.csv:3:1: function o/a/f1 appears twice (first at line 2)");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n", DUR_HEAD DUR_F1 DUR_F1, NULL),
			 -EINVAL);
	assert_string_equal(rel(), "dur.csv:3:1: function o/a/f1 appears twice (first at line 2)");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n",
				    DUR_HEAD "o,a,f1,1,1,1,1,1,1,1,x,1,1,1\n", NULL), -EINVAL);
	assert_string_equal(rel(), "dur.csv:2:22: percentile_Average_50 \"x\" is not a number");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n",
				    DUR_HEAD "o,a,f1,1,-1,1,1,1,1,1,1,1,1,1\n", NULL), -EINVAL);
	assert_string_equal(rel(), "dur.csv:2:10: Count \"-1\" is negative");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n",
				    "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum\n",
				    NULL), -EINVAL);
	assert_string_equal(rel(), "dur.csv:1:61: header ends before column 8 \"percentile_Average_0\" "
			    "(want \"HashOwner,HashApp,HashFunction,Average,...\")");
	assert_int_equal(azure_text(INV_HEAD "o,a,f1,http,1,0,0\n",
				    "HashOwner,HashApp,HashFunction,Average,Count,Minimum,Maximum,"
				    "percentile_Average_0,percentile_Average_1,percentile_Average_25,"
				    "percentile_Average_50,percentile_Average_75,percentile_Average_99,"
				    "percentile_Average_100,extra\n", NULL), -EINVAL);
	assert_string_equal(rel(), "dur.csv:1:215: header has 15 columns, want 14");
}

/* Both formats of a committed synthetic trace describe the same workload. */
static void test_synthetic_traces(void **state)
{
	static const char *const levels[] = { "under", "medium", "over" };
	struct faas_azure_opts o = { .first_minute = 1, .last_minute = 15, .minute_us = 1000000 };
	char dir[1024], inv[1200], dur[1200], simple[1200];
	struct faas_trace *a, *s;
	unsigned int i, k;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/../../../examples/faas/traces", data);
	for (i = 0; i < 3; i++) {
		unsigned int ka[FAAS_NR_KINDS] = { 0 }, ks[FAAS_NR_KINDS] = { 0 };

		snprintf(simple, sizeof(simple), "%s/%s.csv", dir, levels[i]);
		snprintf(inv, sizeof(inv), "%s/azure/invocations_per_function_md.anon.%s.csv", dir,
			 levels[i]);
		snprintf(dur, sizeof(dur), "%s/azure/function_durations_percentiles.anon.%s.csv", dir,
			 levels[i]);
		assert_int_equal(faas_trace_load_simple(simple, &s, err, sizeof(err)), 0);
		assert_int_equal(faas_trace_load_azure(inv, dur, &o, &a, err, sizeof(err)), 0);
		assert_int_equal(a->nr_inv, s->nr_inv);
		assert_int_equal(a->nr_funcs, s->nr_funcs);
		for (k = 0; k < a->nr_inv; k++) {
			ka[a->inv[k].kind]++;
			ks[s->inv[k].kind]++;
		}
		/* the generator picked hashes that derive each function's kind */
		assert_memory_equal(ka, ks, sizeof(ka));
		assert_true(s->inv[s->nr_inv - 1].arrival_us < 15000000);
		faas_trace_free(a);
		faas_trace_free(s);
	}
}

/* Mutated and random input: an error with a position, never a crash. */
static void test_hostile_input(void **state)
{
	static const char good[] = "function,arrival_ms,duration_ms,kind\nweb,100,20,cpu\n"
				   "db,0,35.5,io\nweb,50.25,20,cpu\n";
	static const char junk[] = ",\n\r\"-.0123456789e\0xkcpuiomtpoll";
	uint64_t rng = 12345;
	char buf[256];
	int i, j, ok = 0;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct faas_trace *t = NULL;
		size_t len = sizeof(good) - 1;
		int r;

		memcpy(buf, good, len);
		for (j = 0; j < 1 + i % 4; j++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			if (!len)
				break;
			if ((rng >> 60) < 4)
				len = (size_t)(rng >> 33) % len; /* truncate */
			else
				buf[(rng >> 33) % len] = junk[(rng >> 20) % (sizeof(junk) - 1)];
		}
		r = faas_trace_load_simple(scratch(buf, len), &t, err, sizeof(err));
		if (!r) {
			ok++;
			assert_true(t->nr_inv >= 1);
			faas_trace_free(t);
			continue;
		}
		assert_null(t);
		assert_int_equal(strncmp(err, tmpfile_, strlen(tmpfile_)), 0);
		assert_true(err[strlen(tmpfile_)] == ':');
	}
	/* some mutations (in names, digits) still parse */
	assert_true(ok > 0 && ok < 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ms),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_simple_good),
		cmocka_unit_test(test_simple_without_kind),
		cmocka_unit_test(test_simple_committed_errors),
		cmocka_unit_test(test_simple_errors),
		cmocka_unit_test(test_simple_overlong_line),
		cmocka_unit_test(test_azure_good),
		cmocka_unit_test(test_azure_options),
		cmocka_unit_test(test_azure_missing_function),
		cmocka_unit_test(test_azure_committed_errors),
		cmocka_unit_test(test_azure_errors),
		cmocka_unit_test(test_kind_mix_and_minutes_options),
		cmocka_unit_test(test_synthetic_traces),
		cmocka_unit_test(test_hostile_input),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
