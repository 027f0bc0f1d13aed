// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats snapshots on the host: the JSON a snapshot is written as (exact
 * text, escapes, every counter name, to a file; valid JSON by a checker of
 * its own), snapshots refused rather than written wrong, parsing back and
 * its errors, and a snapshot whose size is not this library's refused.
 * Reading live counters needs a loaded policy: the VM suite hintstats.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/abi/pool.h>
#include <scxpol/stats.h>

#include "internal.h"
#include "stats_fixture.h"

static void fill(struct scxpol_stats *st)
{
	*st = (struct scxpol_stats)SCXPOL_STATS_INIT;
	snprintf(st->policy, sizeof(st->policy), "ads");
	st->restarts = 2;
	st->time_ns = 123456789;
	snprintf(st->v[0].name, SCXPOL_STAT_NAME_LEN, "enqueue");
	st->v[0].value = 42;
	snprintf(st->v[1].name, SCXPOL_STAT_NAME_LEN, "hint_reject");
	st->v[1].value = INT64_MAX;
	snprintf(st->v[2].name, SCXPOL_STAT_NAME_LEN, "my_counter");
	st->v[2].value = 0;
	st->nr = 3;
	snprintf(st->pools[0].name, SCXPOL_POOL_NAME_LEN, "lc");
	snprintf(st->pools[0].cpus, SCXPOL_POOL_CPUS_LEN, "0-3,8");
	st->pools[0].flags = SCXPOL_POOL_BORROW | SCXPOL_POOL_STEAL;
	st->pools[0].nr_cpus = 5;
	st->pools[0].queued = 7;
	snprintf(st->pools[1].name, SCXPOL_POOL_NAME_LEN, "bg");
	snprintf(st->pools[1].cpus, SCXPOL_POOL_CPUS_LEN, "4-7");
	st->pools[1].nr_cpus = 4;
	st->nr_pools = 2;
}

static const char known_json[] =
	"{\"policy\":\"ads\",\"restarts\":2,\"time_ns\":123456789,"
	"\"counters\":{\"enqueue\":42,\"hint_reject\":9223372036854775807,\"my_counter\":0},"
	"\"pools\":[{\"name\":\"lc\",\"cpus\":\"0-3,8\",\"flags\":6,\"nr_cpus\":5,\"queued\":7},"
	"{\"name\":\"bg\",\"cpus\":\"4-7\",\"flags\":0,\"nr_cpus\":4,\"queued\":0}]}";

static void test_json_exact(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char buf[1024];

	(void)state;
	fill(&st);
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), (int)strlen(known_json));
	assert_string_equal(buf, known_json);
	assert_true(valid_json(buf));

	/* one byte short of the NUL: -ENOSPC and an empty buffer */
	assert_int_equal(scxpol_stats_json(&st, buf, strlen(known_json)), -ENOSPC);
	assert_string_equal(buf, "");
}

static void test_json_escapes_policy(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char buf[512];

	(void)state;
	snprintf(st.policy, sizeof(st.policy), "a\"b\\c\n\x01");
	assert_true(scxpol_stats_json(&st, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "{\"policy\":\"a\\\"b\\\\c\\n\\u0001\",\"restarts\":0,"
				 "\"time_ns\":0,\"counters\":{},\"pools\":[]}");
	assert_true(valid_json(buf));
}

static void test_json_every_counter_name(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT, back = SCXPOL_STATS_INIT;
	char buf[8192], want[64];
	unsigned int i;

	(void)state;
	snprintf(st.policy, sizeof(st.policy), "all");
	for (i = 0; i < SCXPOL_STAT_NR; i++) {
		snprintf(st.v[i].name, SCXPOL_STAT_NAME_LEN, "%s", lib_names[i]);
		st.v[i].value = 1000 + i;
	}
	/* a newer library's counters in the reserved slots: its snapshots fit too */
	for (; i < SCXPOL_STAT_LIB_SLOTS; i++) {
		snprintf(st.v[i].name, SCXPOL_STAT_NAME_LEN, "newer_%u", i);
		st.v[i].value = i;
	}
	for (i = 0; i < SCXPOL_STAT_USER_NR; i++) {
		snprintf(st.v[SCXPOL_STAT_USER_BASE + i].name, SCXPOL_STAT_NAME_LEN, "user_%u", i);
		st.v[SCXPOL_STAT_USER_BASE + i].value = i;
	}
	st.nr = SCXPOL_STAT_TOTAL;
	assert_true(scxpol_stats_json(&st, buf, sizeof(buf)) > 0);
	assert_true(valid_json(buf));
	for (i = 0; i < SCXPOL_STAT_NR; i++) {
		snprintf(want, sizeof(want), "\"%s\":%u", lib_names[i], 1000 + i);
		assert_non_null(strstr(buf, want));
	}
	/* and back */
	assert_int_equal(scxpol_stats_parse(buf, &back), 0);
	assert_int_equal(back.nr, SCXPOL_STAT_TOTAL);
	assert_memory_equal(back.v, st.v, sizeof(st.v));
	assert_non_null(scxpol_stats_find(&back, "hint_reject"));
	assert_int_equal(scxpol_stats_find(&back, "hint_reject")->value, 1000 + SCXPOL_STAT_HINT_REJECT);
	assert_null(scxpol_stats_find(&back, "nope"));
}

static void test_json_file(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char path[256], line[1024];
	FILE *f;

	(void)state;
	fill(&st);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	f = fopen(path, "w+");
	assert_non_null(f);
	assert_int_equal(scxpol_stats_json_file(&st, f), 0);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(strlen(line), strlen(known_json) + 1);
	assert_int_equal(line[strlen(known_json)], '\n');
	assert_memory_equal(line, known_json, strlen(known_json));
}

static void test_json_refuses_bad_snapshots(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT, back = SCXPOL_STATS_INIT;
	char buf[2048];
	FILE *f;

	(void)state;
	/* UTF-8 text is written as it is and read back the same */
	fill(&st);
	snprintf(st.policy, sizeof(st.policy), "caf\xc3\xa9");
	assert_true(scxpol_stats_json(&st, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"policy\":\"caf\xc3\xa9\""));
	assert_true(valid_json(buf));
	assert_int_equal(scxpol_stats_parse(buf, &back), 0);
	assert_string_equal(back.policy, "caf\xc3\xa9");

	/* Latin-1: no strict reader would take the line */
	snprintf(st.policy, sizeof(st.policy), "caf\xe9");
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: policy is not UTF-8 (byte 0xe9 "
			    "at offset 3)");
	assert_string_equal(buf, "");
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(scxpol_stats_json_file(&st, f), -EINVAL);
	assert_int_equal(ftell(f), 0);
	fclose(f);

	fill(&st);
	memset(st.pools[1].name, 'x', SCXPOL_POOL_NAME_LEN);
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: pool 1's name has no NUL within "
			    "its 16 bytes");
	fill(&st);
	snprintf(st.pools[0].cpus, SCXPOL_POOL_CPUS_LEN, "0-3\xed\xa0\x80");
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: pool 0's cpus is not UTF-8 (byte "
			    "0xed at offset 3)");

	/* what scxpol_stats_parse() would refuse */
	fill(&st);
	st.v[1].name[0] = '\0';
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: counter 1's name is empty");
	fill(&st);
	snprintf(st.v[2].name, SCXPOL_STAT_NAME_LEN, "enqueue");
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: counters 0 and 2 are both named "
			    "'enqueue'");

	/* counts beyond the arrays: refused, not cut short */
	fill(&st);
	st.nr = SCXPOL_STAT_TOTAL + 1;
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	snprintf(buf, sizeof(buf), "stats snapshot: nr is %d, more than its %d counter slots",
		 SCXPOL_STAT_TOTAL + 1, SCXPOL_STAT_TOTAL);
	assert_string_equal(scxpol_last_error(), buf);
	fill(&st);
	st.nr_pools = SCXPOL_STATS_MAX_POOLS + 1;
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: nr_pools is 65, more than its 64 "
			    "pool slots");

	/* numbers beyond jansson's signed 64-bit integers: refused, not cut */
	fill(&st);
	st.v[1].value = (uint64_t)INT64_MAX + 1;
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -ERANGE);
	assert_string_equal(scxpol_last_error(), "stats snapshot: counter 'hint_reject' is "
			    "9223372036854775808, more than 9223372036854775807, the largest integer "
			    "the JSON library (jansson) handles");
	assert_string_equal(buf, "");
	fill(&st);
	st.time_ns = UINT64_MAX;
	assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -ERANGE);
}

static void test_parse_utf8_and_members(void **state)
{
	static const char *const bad_utf8[] = {
		"{\"policy\":\"caf\xe9\"}",          /* Latin-1 */
		"{\"policy\":\"caf\xc0\xaf\"}",      /* overlong '/' */
		"{\"policy\":\"caf\xed\xa0\x80\"}",  /* a UTF-16 surrogate */
		"{\"policy\":\"caf\xf4\x90\x80\x80\"}", /* beyond U+10FFFF */
		"{\"policy\":\"caf\xc3",              /* cut at the end of the text */
	};
	struct scxpol_stats back = SCXPOL_STATS_INIT;
	const size_t nr = 100000;
	size_t i, n, at;
	char *big, want[128];

	(void)state;
	for (i = 0; i < sizeof(bad_utf8) / sizeof(bad_utf8[0]); i++) {
		assert_int_equal(scxpol_stats_parse(bad_utf8[i], &back), -EINVAL);
		snprintf(want, sizeof(want), "stats snapshot: bad JSON at line 1, column 14: unable "
			 "to decode byte 0x%02x near '\"caf'", (unsigned char)bad_utf8[i][14]);
		assert_string_equal(scxpol_last_error(), want);
	}

	/* the first second name in the text is the one named, where it ends */
	assert_int_equal(scxpol_stats_parse("{\"a\":1,\"b\":2,\"b\":3,\"a\":4}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 1, column 16: "
			    "duplicate object key near '\"b\"'");

	/* a name given twice among 10^5 members, far apart */
	big = malloc(nr * 12 + 64);
	assert_non_null(big);
	n = (size_t)sprintf(big, "{");
	for (i = 0; i < nr; i++)
		n += (size_t)sprintf(big + n, "\"k%06zu\":0,", i);
	at = n;
	sprintf(big + n, "\"k000000\":1}");
	assert_int_equal(scxpol_stats_parse(big, &back), -EINVAL);
	snprintf(want, sizeof(want), "stats snapshot: bad JSON at line 1, column %zu: duplicate "
		 "object key near '\"k000000\"'", at + 9);
	assert_string_equal(scxpol_last_error(), want);
	free(big);
}

static void test_parse_roundtrip_and_errors(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT, back = SCXPOL_STATS_INIT;

	(void)state;
	fill(&st);
	assert_int_equal(scxpol_stats_parse(known_json, &back), 0);
	assert_string_equal(back.policy, "ads");
	assert_int_equal(back.restarts, 2);
	assert_int_equal(back.nr, 3);
	assert_true(back.v[1].value == INT64_MAX);
	assert_int_equal(back.nr_pools, 2);
	assert_string_equal(back.pools[0].cpus, "0-3,8");
	assert_int_equal(back.pools[0].flags, SCXPOL_POOL_BORROW | SCXPOL_POOL_STEAL);
	assert_int_equal(back.pools[1].nr_cpus, 4);
	assert_int_equal(back.sz, sizeof(back));

	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 1, column 14: "
			    "string or '}' expected near end of file");
	/* a counter given twice: refused, not read as the first one twice */
	assert_int_equal(scxpol_stats_parse("{\"counters\":{\"a\":1,\"a\":2}}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 1, column 22: "
			    "duplicate object key near '\"a\"'");
	assert_int_equal(scxpol_stats_parse("{\"policy\":1}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"policy\" is a number, not a string");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":-1}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"restarts\" is a negative or "
			    "fractional number, not an unsigned integer");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":0,\"time_ns\":"
					    "18446744073709551616}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 1, column 57: "
			    "too big integer near '18446744073709551616'");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":0,\"time_ns\":1,"
					    "\"counters\":[]}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"counters\" is an array, not an object");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":0,\"time_ns\":1,"
					    "\"counters\":{\"x\":1.5},\"pools\":[]}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"x\" is a negative or fractional "
			    "number, not an unsigned integer");
	/* members kept in an unsigned int: too large is an error, not cut to 32 bits */
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":4294967297,"
					    "\"time_ns\":1,\"counters\":{},\"pools\":[]}", &back),
			 -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"restarts\" is 4294967297, more "
			    "than 4294967295");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":4294967295,"
					    "\"time_ns\":1,\"counters\":{},\"pools\":[{\"name\":"
					    "\"p\",\"cpus\":\"0\",\"nr_cpus\":4294967296,"
					    "\"queued\":0}]}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"nr_cpus\" is 4294967296, more "
			    "than 4294967295");
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":4294967295,"
					    "\"time_ns\":1,\"counters\":{},\"pools\":[{\"name\":"
					    "\"p\",\"cpus\":\"0\",\"nr_cpus\":4294967295,"
					    "\"queued\":0}]}", &back), 0);
	assert_int_equal(back.restarts, 4294967295U);
	assert_int_equal(back.pools[0].nr_cpus, 4294967295U);
	/* a pool without "flags" (snapshots from before the pools had them): 0 */
	assert_int_equal(back.pools[0].flags, 0);
	assert_int_equal(scxpol_stats_parse("{\"policy\":\"a\",\"restarts\":0,\"time_ns\":1,"
					    "\"counters\":{},\"pools\":[{\"name\":\"p\",\"cpus\":"
					    "\"0\",\"flags\":-1,\"nr_cpus\":1,\"queued\":0}]}",
					    &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: \"flags\" is a negative or "
			    "fractional number, not an unsigned integer");
	assert_int_equal(scxpol_stats_parse("{} x", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 1, column 4: end of file "
			    "expected near 'x'");
	/* text over several lines (as jq prints it): the line, and the column in it */
	assert_int_equal(scxpol_stats_parse("{\n  \"policy\": x\n}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 2, column 13: "
			    "invalid token near 'x'");
	assert_int_equal(scxpol_stats_parse("{\n  \"a\": 1,\n  \"a\": 2\n}", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 3, column 5: "
			    "duplicate object key near '\"a\"'");
	assert_int_equal(scxpol_stats_parse("{\r\n\"policy\": \"a\",\n", &back), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats snapshot: bad JSON at line 3, column 0: "
			    "string or '}' expected near end of file");
}

/* A snapshot whose sz is not this library's is refused by every call taking one. */
static void test_wrong_sz(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT, *heap;
	char buf[1024], want[256];
	size_t sizes[] = { 0, sizeof(st) - 8, sizeof(st) + 8 };
	unsigned int i;

	(void)state;
	fill(&st);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		st.sz = sizes[i];
		snprintf(want, sizeof(want), "stats snapshot: sz is %zu, not %zu, the size of this "
			 "libscxpol's struct scxpol_stats (set it with SCXPOL_STATS_INIT or "
			 "scxpol_stats_new())", sizes[i], sizeof(st));
		assert_int_equal(scxpol_stats_json(&st, buf, sizeof(buf)), -EINVAL);
		assert_string_equal(scxpol_last_error(), want);
		assert_int_equal(scxpol_stats_json_file(&st, stdout), -EINVAL);
		assert_int_equal(scxpol_stats_parse(known_json, &st), -EINVAL);
		assert_string_equal(scxpol_last_error(), want);
		/* nothing written into what the caller says is smaller */
		assert_string_equal(st.policy, "ads");
		assert_null(scxpol_stats_find(&st, "enqueue"));
		assert_string_equal(scxpol_last_error(), want);
		assert_int_equal(scxpol_stats_fetch("/nonexistent", &st), -EINVAL);
		assert_string_equal(scxpol_last_error(), want);
	}
	heap = scxpol_stats_new();
	assert_non_null(heap);
	assert_int_equal(heap->sz, sizeof(*heap));
	assert_int_equal(scxpol_stats_parse(known_json, heap), 0);
	assert_int_equal(heap->sz, sizeof(*heap));
	assert_int_equal(scxpol_stats_json(heap, buf, sizeof(buf)), (int)strlen(known_json));
	free(heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_json_escapes_policy),
		cmocka_unit_test(test_json_every_counter_name),
		cmocka_unit_test(test_json_file),
		cmocka_unit_test(test_json_refuses_bad_snapshots),
		cmocka_unit_test(test_parse_utf8_and_members),
		cmocka_unit_test(test_parse_roundtrip_and_errors),
		cmocka_unit_test(test_wrong_sz),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
