// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* CPU sets: bit operations, CPU list parsing and formatting, every error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/cpuset.h>

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static int setup(void **state)
{
	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

static struct scxpol_cpuset *parse(const char *list, unsigned int capacity)
{
	struct scxpol_cpuset *s = scxpol_cpuset_parse(list, capacity);

	assert_non_null(s);
	return s;
}

/* The set as a string (static buffer). */
static const char *fmt(const struct scxpol_cpuset *s)
{
	static char buf[4096];

	assert_true(scxpol_cpuset_format(s, buf, sizeof(buf)) >= 0);
	return buf;
}

static void test_set_test_clear_count(void **state)
{
	struct scxpol_cpuset *s = scxpol_cpuset_new(130);

	(void)state;
	assert_non_null(s);
	assert_int_equal(scxpol_cpuset_capacity(s), 130);
	assert_int_equal(scxpol_cpuset_count(s), 0);
	assert_int_equal(scxpol_cpuset_set(s, 0), 0);
	assert_int_equal(scxpol_cpuset_set(s, 63), 0);
	assert_int_equal(scxpol_cpuset_set(s, 64), 0);
	assert_int_equal(scxpol_cpuset_set(s, 129), 0);
	assert_int_equal(scxpol_cpuset_set(s, 64), 0);
	assert_int_equal(scxpol_cpuset_count(s), 4);
	assert_true(scxpol_cpuset_test(s, 63));
	assert_true(scxpol_cpuset_test(s, 129));
	assert_false(scxpol_cpuset_test(s, 1));
	assert_false(scxpol_cpuset_test(s, 130));
	assert_false(scxpol_cpuset_test(s, 100000));
	assert_int_equal(scxpol_cpuset_clear(s, 63), 0);
	assert_false(scxpol_cpuset_test(s, 63));
	assert_int_equal(scxpol_cpuset_count(s), 3);
	assert_string_equal(fmt(s), "0,64,129");
	scxpol_cpuset_free(s);
}

static void test_set_past_capacity(void **state)
{
	struct scxpol_cpuset *s = scxpol_cpuset_new(8);

	(void)state;
	assert_int_equal(scxpol_cpuset_set(s, 8), -ERANGE);
	assert_string_equal(scxpol_last_error(), "CPU 8 is out of range for a cpu set of 8 CPUs");
	assert_int_equal(scxpol_cpuset_clear(s, 300), -ERANGE);
	assert_string_equal(scxpol_last_error(), "CPU 300 is out of range for a cpu set of 8 CPUs");
	assert_int_equal(scxpol_cpuset_count(s), 0);
	assert_int_equal(scxpol_cpuset_set(NULL, 0), -EINVAL);
	assert_string_equal(scxpol_last_error(), "cpu set is NULL");
	scxpol_cpuset_free(s);

	assert_null(scxpol_cpuset_new(SCXPOL_CPUSET_MAX_CAPACITY + 1U));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "cpu set capacity 2147483648 is too large (at most 2147483647)");
}

static void test_next_and_for_each(void **state)
{
	struct scxpol_cpuset *s = parse("1,63-64,127-128,199", 200);
	int cpu, seen[8], n = 0;

	(void)state;
	assert_int_equal(scxpol_cpuset_next(s, -1), 1);
	assert_int_equal(scxpol_cpuset_next(s, -5), 1);
	assert_int_equal(scxpol_cpuset_next(s, 1), 63);
	assert_int_equal(scxpol_cpuset_next(s, 64), 127);
	assert_int_equal(scxpol_cpuset_next(s, 128), 199);
	assert_int_equal(scxpol_cpuset_next(s, 199), -1);
	assert_int_equal(scxpol_cpuset_next(s, 5000), -1);
	scxpol_cpuset_for_each(cpu, s) {
		assert_true(n < 8);
		seen[n++] = cpu;
	}
	assert_int_equal(n, 6);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[2], 64);
	assert_int_equal(seen[5], 199);
	scxpol_cpuset_free(s);

	s = scxpol_cpuset_new(0);
	assert_non_null(s);
	assert_int_equal(scxpol_cpuset_next(s, -1), -1);
	scxpol_cpuset_free(s);
}

static void test_dup_equal_across_capacities(void **state)
{
	struct scxpol_cpuset *a = parse("1,5", 8), *b = parse("1,5", 256), *c, *d;

	(void)state;
	assert_true(scxpol_cpuset_equal(a, b));
	assert_true(scxpol_cpuset_equal(b, a));
	scxpol_cpuset_set(b, 200);
	assert_false(scxpol_cpuset_equal(a, b));
	assert_false(scxpol_cpuset_equal(b, a));
	c = scxpol_cpuset_dup(b);
	assert_non_null(c);
	assert_int_equal(scxpol_cpuset_capacity(c), 256);
	assert_true(scxpol_cpuset_equal(b, c));
	/* A copy is independent. */
	scxpol_cpuset_clear(c, 5);
	assert_true(scxpol_cpuset_test(b, 5));
	d = scxpol_cpuset_new(0);
	assert_true(scxpol_cpuset_equal(d, NULL));
	assert_false(scxpol_cpuset_equal(a, d));
	scxpol_cpuset_free(a);
	scxpol_cpuset_free(b);
	scxpol_cpuset_free(c);
	scxpol_cpuset_free(d);
	assert_null(scxpol_cpuset_dup(NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_algebra(void **state)
{
	struct scxpol_cpuset *a = parse("0-3,70", 128), *b = parse("2-5,100", 128);
	struct scxpol_cpuset *small = parse("1,6", 8), *big = parse("0,7,9,200", 256);
	struct scxpol_cpuset *drop = parse("3,100", 128);

	(void)state;
	assert_true(scxpol_cpuset_intersects(a, b));
	assert_false(scxpol_cpuset_intersects(small, b));
	scxpol_cpuset_or(a, b);
	assert_string_equal(fmt(a), "0-5,70,100");
	scxpol_cpuset_and(a, b);
	assert_string_equal(fmt(a), "2-5,100");
	scxpol_cpuset_andnot(a, small);
	assert_string_equal(fmt(a), "2-5,100");
	scxpol_cpuset_andnot(a, drop);
	assert_string_equal(fmt(a), "2,4-5");
	assert_true(scxpol_cpuset_subset(a, b));
	assert_false(scxpol_cpuset_subset(b, a));

	/* or into a smaller set drops what it cannot hold; bits stay in range. */
	scxpol_cpuset_or(small, big);
	assert_string_equal(fmt(small), "0-1,6-7");
	assert_int_equal(scxpol_cpuset_count(small), 4);
	/* and with a smaller set clears what the smaller one cannot hold. */
	scxpol_cpuset_and(big, small);
	assert_string_equal(fmt(big), "0,7");
	scxpol_cpuset_free(a);
	scxpol_cpuset_free(b);
	scxpol_cpuset_free(small);
	scxpol_cpuset_free(big);
	scxpol_cpuset_free(drop);
}

static void test_words_layout(void **state)
{
	struct scxpol_cpuset *s = parse("0,63,64,129", 130), *full = parse("0-255", 256);
	struct scxpol_cpuset *odd = scxpol_cpuset_new(70);
	const uint64_t *w;
	size_t n;

	(void)state;
	w = scxpol_cpuset_words(s, &n);
	assert_int_equal(n, 3);
	assert_true(w[0] == (1ULL | 1ULL << 63));
	assert_true(w[1] == 1ULL);
	assert_true(w[2] == 2ULL);
	/* or from a bigger set never sets bits at or past the capacity. */
	scxpol_cpuset_or(odd, full);
	w = scxpol_cpuset_words(odd, &n);
	assert_int_equal(n, 2);
	assert_true(w[0] == ~0ULL);
	assert_true(w[1] == 0x3fULL);
	assert_int_equal(scxpol_cpuset_count(odd), 70);
	assert_string_equal(fmt(odd), "0-69");
	scxpol_cpuset_free(s);
	scxpol_cpuset_free(full);
	scxpol_cpuset_free(odd);
}

static void roundtrip(const char *list, unsigned int capacity, const char *canonical)
{
	struct scxpol_cpuset *s = parse(list, capacity), *again;

	assert_string_equal(fmt(s), canonical);
	again = parse(fmt(s), capacity);
	assert_true(scxpol_cpuset_equal(s, again));
	scxpol_cpuset_free(s);
	scxpol_cpuset_free(again);
}

static void test_parse_format_roundtrip(void **state)
{
	char big[2048];
	size_t o = 0;
	int i;

	(void)state;
	roundtrip("", 8, "");
	roundtrip("", 0, "");
	roundtrip("0", 1, "0");
	roundtrip("0-3,8,10-11", 16, "0-3,8,10-11");
	roundtrip("10,11", 16, "10-11");
	roundtrip("3,1-2,2,0", 8, "0-3");
	roundtrip("007", 8, "7");
	roundtrip("0-255", 256, "0-255");
	roundtrip("0-63", 64, "0-63");
	roundtrip("63-64", 65, "63-64");
	roundtrip("1-62,65-126,128-190", 256, "1-62,65-126,128-190");
	roundtrip("0-15,128-143", 256, "0-15,128-143");
	for (i = 0; i < 256; i += 2)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%s%d", i ? "," : "", i);
	roundtrip(big, 256, big);
}

static void test_parse_large_and_counts(void **state)
{
	struct scxpol_cpuset *s = parse("0-4095", 4096);

	(void)state;
	assert_int_equal(scxpol_cpuset_count(s), 4096);
	assert_int_equal(scxpol_cpuset_next(s, 4094), 4095);
	scxpol_cpuset_free(s);
	s = parse("5-70", 71);
	assert_int_equal(scxpol_cpuset_count(s), 66);
	assert_false(scxpol_cpuset_test(s, 4));
	assert_true(scxpol_cpuset_test(s, 70));
	scxpol_cpuset_free(s);
}

static void parse_fails(const char *list, unsigned int capacity, int err, const char *msg)
{
	errno = 0;
	assert_null(scxpol_cpuset_parse(list, capacity));
	assert_int_equal(errno, err);
	assert_string_equal(scxpol_last_error(), msg);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("0-3,x", 16, EINVAL, "cpu list \"0-3,x\": bad character 'x' at column 5");
	parse_fails("0-3,", 16, EINVAL, "cpu list \"0-3,\": expected a CPU number at column 5");
	parse_fails("0-", 16, EINVAL, "cpu list \"0-\": expected a CPU number at column 3");
	parse_fails(",1", 16, EINVAL, "cpu list \",1\": bad character ',' at column 1");
	parse_fails("1,,2", 16, EINVAL, "cpu list \"1,,2\": bad character ',' at column 3");
	parse_fails("-3", 16, EINVAL, "cpu list \"-3\": bad character '-' at column 1");
	parse_fails("0-3-5", 16, EINVAL, "cpu list \"0-3-5\": bad character '-' at column 4");
	parse_fails("1 2", 16, EINVAL, "cpu list \"1 2\": bad character ' ' at column 2");
	parse_fails(" 1", 16, EINVAL, "cpu list \" 1\": bad character ' ' at column 1");
	parse_fails("0-3\n", 16, EINVAL,
		    "cpu list \"0-3\\x0a\": bad character '\\x0a' at column 4");
	parse_fails("0-31:2/8", 32, EINVAL, "cpu list \"0-31:2/8\": bad character ':' at column 5");
	parse_fails("5-3", 16, EINVAL, "cpu list \"5-3\": reversed range 5-3 at column 1");
	parse_fails("0,9-8", 16, EINVAL, "cpu list \"0,9-8\": reversed range 9-8 at column 3");
	parse_fails("0-8", 8, ERANGE,
		    "cpu list \"0-8\": CPU 8 at column 3 is out of range (the set holds CPUs 0-7)");
	parse_fails("1,9-12", 8, ERANGE,
		    "cpu list \"1,9-12\": CPU 9 at column 3 is out of range (the set holds CPUs 0-7)");
	parse_fails("256", 256, ERANGE,
		    "cpu list \"256\": CPU 256 at column 1 is out of range (the set holds CPUs 0-255)");
	parse_fails("0", 0, ERANGE,
		    "cpu list \"0\": CPU 0 at column 1 is out of range (the set holds no CPUs)");
	parse_fails("99999999999", 8, ERANGE,
		    "cpu list \"99999999999\": number at column 1 is too large");
	parse_fails("1-4294967296", 8, ERANGE,
		    "cpu list \"1-4294967296\": number at column 3 is too large");
	parse_fails("4294967295", 8, ERANGE,
		    "cpu list \"4294967295\": CPU 4294967295 at column 1 is out of range "
		    "(the set holds CPUs 0-7)");
	parse_fails(NULL, 8, EINVAL, "scxpol_cpuset_parse: list is NULL");
}

static void test_parse_error_quotes_long_text(void **state)
{
	char list[200], want[300];
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		list[i] = '1';
	list[100] = 'y';
	list[101] = '\0';
	parse_fails(list, 8, ERANGE, "cpu list \"1111111111111111111111111111111111111111111111111111"
		    "111111111111...\": number at column 1 is too large");
	snprintf(list, sizeof(list), "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,z");
	snprintf(want, sizeof(want), "cpu list \"%.64s...\": bad character 'z' at column 65", list);
	parse_fails(list, 8, EINVAL, want);
}

static void test_format_buffer(void **state)
{
	struct scxpol_cpuset *s = parse("0-3,8", 16);
	char buf[6];

	(void)state;
	assert_int_equal(scxpol_cpuset_format(s, buf, 6), 5);
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(scxpol_cpuset_format(s, buf, 5), -ENOSPC);
	assert_string_equal(buf, "");
	assert_string_equal(scxpol_last_error(), "cpu list of 5 CPUs needs 6 bytes, the buffer has 5");
	assert_int_equal(scxpol_cpuset_format(s, NULL, 0), -ENOSPC);
	assert_string_equal(scxpol_last_error(), "cpu list of 5 CPUs needs 6 bytes, the buffer has 0");
	scxpol_cpuset_free(s);
	s = scxpol_cpuset_new(4);
	assert_int_equal(scxpol_cpuset_format(s, buf, 1), 0);
	assert_string_equal(buf, "");
	scxpol_cpuset_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_test_clear_count),
		cmocka_unit_test(test_set_past_capacity),
		cmocka_unit_test(test_next_and_for_each),
		cmocka_unit_test(test_dup_equal_across_capacities),
		cmocka_unit_test(test_algebra),
		cmocka_unit_test(test_words_layout),
		cmocka_unit_test(test_parse_format_roundtrip),
		cmocka_unit_test(test_parse_large_and_counts),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_error_quotes_long_text),
		cmocka_unit_test(test_format_buffer),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
