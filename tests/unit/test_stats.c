// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats on the host: the JSON snapshot (exact text, and valid JSON for every
 * counter name), request parsing, the server's answers over a real socket
 * (bad, oversized and slow clients, too many clients) and the client calls.
 * Reading live counters needs a loaded policy: the VM suite hintstats.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include <scxpol/abi/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>

#include "internal.h"
#include "hintpol.bpf.skel.h"
#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(hintpol_bpf);
SCXPOL_SKEL_DEFINE(minimal_bpf);

static const char *const lib_names[] = { SCXPOL_STAT_NAMES };
#define LIB_UNIT_(id, name, unit, desc) unit,
static const char *const lib_units[] = { SCXPOL_STAT_TABLE(LIB_UNIT_) };
#define LIB_DESC_(id, name, unit, desc) desc,
static const char *const lib_descs[] = { SCXPOL_STAT_TABLE(LIB_DESC_) };
static char dir[128];

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/scxpol-stats-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* --- an independent strict JSON checker (RFC 8259), for the output ------- */

static const char *jv(const char *s, int depth);

static const char *jws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *jstr(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20)
			return NULL;
		/* UTF-8 by its lead byte: C0, C1 and F5.. never start a character */
		if (c >= 0x80) {
			int i, more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;

			if (c < 0xc2 || c > 0xf4)
				return NULL;
			for (i = 1; i <= more; i++)
				if (((unsigned char)s[i] & 0xc0) != 0x80)
					return NULL;
			s += more;
		}
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 4;
			} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
				return NULL;
			}
		}
		s++;
	}
	return s + 1;
}

static const char *jv(const char *s, int depth)
{
	s = jws(s);
	if (depth > 64)
		return NULL;
	if (*s == '"')
		return jstr(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = jws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = jstr(jws(s));
				if (!s)
					return NULL;
				s = jws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = jv(s, depth + 1);
			if (!s)
				return NULL;
			s = jws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return NULL;
	return s;
}

static bool valid_json(const char *s)
{
	s = jv(s, 0);
	return s && !*jws(s);
}

/* ASCII @s as a JSON string, quoted, into @out. */
static void json_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	out[o++] = '"';
	for (; *s && o + 3 < len; s++) {
		if (*s == '"' || *s == '\\')
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o++] = '"';
	out[o] = '\0';
}

/* --- snapshots -------------------------------------------------------------- */

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

/* --- requests --------------------------------------------------------------- */

static int req(const char *line, char *out, char *err)
{
	return scxpol_stats_parse_request(line, strlen(line), out, 64, err, 256);
}

static void test_request_parsing(void **state)
{
	char r[64], err[256], big[SCXPOL_STATS_MAX_LINE + 2];

	(void)state;
	assert_int_equal(req("{\"req\":\"stats\"}", r, err), 0);
	assert_string_equal(r, "stats");
	assert_int_equal(req(" { \"args\" : {\"a\":[1,true,null]} , \"req\" : \"li\\u0073t\" }\r", r, err), 0);
	assert_string_equal(r, "list");

	assert_int_equal(req("[\"stats\"]", r, err), -EINVAL);
	assert_string_equal(err, "the request is an array, not an object like {\"req\":\"stats\"}");
	assert_int_equal(req("{\"request\":\"stats\"}", r, err), -EINVAL);
	assert_string_equal(err, "the request has no \"req\" member (try {\"req\":\"list\"})");
	assert_int_equal(req("{\"req\":7}", r, err), -EINVAL);
	assert_string_equal(err, "\"req\" is a number, not a string");
	assert_int_equal(req("{\"req\":\"stats\"", r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 14: '}' expected near end of file");
	assert_int_equal(req("{\"req\":'stats'}", r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 8: invalid token near '''");
	assert_int_equal(req("{\"req\":\"a\\qb\"}", r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 11: invalid escape near '\"a\\q'");
	assert_int_equal(req("{\"req\":\"\\ud800\"}", r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 15: invalid Unicode '\\uD800' near "
			    "'\"\\ud800\"'");
	assert_int_equal(req("", r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 0: unexpected token near end of file");
	/* a NUL byte is not white space */
	assert_int_equal(scxpol_stats_parse_request("{\"req\":\"list\"}\0", 15, r, 64, err, 256),
			 -EINVAL);
	assert_string_equal(err, "bad JSON: a NUL byte at offset 14");
	assert_int_equal(scxpol_stats_parse_request("\0{\"req\":\"list\"}", 15, r, 64, err, 256),
			 -EINVAL);
	assert_string_equal(err, "bad JSON: a NUL byte at offset 0");

	memset(big, ' ', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "{\"req\":\"stats\"}", 15);
	/* exactly the limit is fine, one more byte is not */
	assert_int_equal(scxpol_stats_parse_request(big, SCXPOL_STATS_MAX_LINE, r, 64, err, 256), 0);
	assert_int_equal(scxpol_stats_parse_request(big, SCXPOL_STATS_MAX_LINE + 1, r, 64, err, 256),
			 -E2BIG);
	assert_string_equal(err, "request longer than 4096 bytes");

	/* nesting is bounded (by jansson's parser, at 2048 levels) */
	memset(big, '[', SCXPOL_STATS_MAX_LINE);
	big[SCXPOL_STATS_MAX_LINE] = '\0';
	assert_int_equal(req(big, r, err), -EINVAL);
	assert_string_equal(err, "bad JSON at line 1, column 2049: maximum parsing depth reached "
			    "near '['");
}

static struct scxpol_sched *open_minimal(void)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = dir);
	struct scxpol_sched *s = scxpol_sched_open(&o);

	assert_non_null(s);
	return s;
}

static const struct scxpol_stat_desc udescs[] = {
	{ "importance_sum", "importance", "importance summed over \"important\" enqueues" },
	{ NULL, "tasks", "not reported: no name" },
	{ "class_placed", NULL, NULL },
};

static void test_respond(void **state)
{
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = udescs, .nr_user = 3);
	struct scxpol_sched *s = open_minimal();
	char *r, want[8192], big[256];
	unsigned int i;
	size_t n;

	(void)state;
	r = scxpol_stats_respond(s, &so, "{\"req\":\"list\"}", 14);
	n = (size_t)snprintf(want, sizeof(want), "{\"errno\":0,\"resp\":{\"requests\":[\"list\","
			     "\"stats\",\"stats_meta\"],\"counters\":[");
	for (i = 0; i < SCXPOL_STAT_NR; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s\"%s\"", i ? "," : "",
				      lib_names[i]);
	snprintf(want + n, sizeof(want) - n, ",\"importance_sum\",\"class_placed\"]}}");
	assert_string_equal(r, want);
	assert_true(valid_json(r));
	free(r);

	/* every counter described, in snapshot order; a user counter's NULLs as "" */
	r = scxpol_stats_respond(s, &so, "{\"req\":\"stats_meta\"}", 20);
	n = (size_t)snprintf(want, sizeof(want), "{\"errno\":0,\"resp\":{\"counters\":[");
	for (i = 0; i < SCXPOL_STAT_NR; i++) {
		json_escape(lib_descs[i], big, sizeof(big));
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s{\"name\":\"%s\",\"unit\":"
				      "\"%s\",\"desc\":%s}", i ? "," : "", lib_names[i],
				      lib_units[i], big);
	}
	snprintf(want + n, sizeof(want) - n, ",{\"name\":\"importance_sum\",\"unit\":"
		 "\"importance\",\"desc\":\"importance summed over \\\"important\\\" "
		 "enqueues\"},{\"name\":\"class_placed\",\"unit\":\"\",\"desc\":\"\"}]}}");
	assert_string_equal(r, want);
	assert_true(valid_json(r));
	free(r);

	r = scxpol_stats_respond(s, &so, "{\"req\":\"stat\\\"s\"}", 17);
	assert_string_equal(r, "{\"errno\":22,\"resp\":null,\"error\":\"unknown request "
			       "\\\"stat\\\\\\\"s\\\"; known: list, stats, stats_meta\"}");
	assert_true(valid_json(r));
	free(r);

	/* the scheduler is open but not loaded: no counters to read */
	r = scxpol_stats_respond(s, &so, "{\"req\":\"stats\"}", 15);
	assert_string_equal(r, "{\"errno\":61,\"resp\":null,\"error\":\"policy 'minimal' is not "
			       "loaded (restarting?)\"}");
	free(r);

	/* a name given twice, too long for jansson's message to quote */
	snprintf(want, sizeof(want), "{\"req\":\"stats\",\"%s\xc3\xa9\":1,\"%s\xc3\xa9\":2}",
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	r = scxpol_stats_respond(s, &so, want, strlen(want));
	assert_string_equal(r, "{\"errno\":22,\"resp\":null,\"error\":\"bad JSON at line 1, "
			       "column 102: duplicate object key\"}");
	assert_true(valid_json(r));
	free(r);

	/* message text cut inside a character: the byte left over becomes U+FFFD */
	r = scxpol_stats_error_response(EINVAL, "policy 'caf\xc3\xa9' is not loaded, nor 'caf\xc3'");
	assert_string_equal(r, "{\"errno\":22,\"resp\":null,\"error\":\"policy 'caf\xc3\xa9' is not "
			       "loaded, nor 'caf\xef\xbf\xbd'\"}");
	assert_true(valid_json(r));
	free(r);

	r = scxpol_stats_respond(s, &so, "nope", 4);
	assert_string_equal(r, "{\"errno\":22,\"resp\":null,\"error\":\"bad JSON at line 1, "
			       "column 4: invalid token near 'nope'\"}");
	free(r);
	scxpol_sched_close(s);
}

static void test_read_checks(void **state)
{
	static const struct scxpol_stat_desc bad[] = { { "Has Space", "", "" } };
	static const struct scxpol_stat_desc dup[] = { { "enqueue", "tasks", "" } };
	static const struct scxpol_stat_desc dup2[] = { { "x", NULL, NULL }, { "x", NULL, NULL } };
	SCXPOL_OPTS(scxpol_stats_opts, o1, .user_descs = bad, .nr_user = 1);
	SCXPOL_OPTS(scxpol_stats_opts, o2, .user_descs = dup, .nr_user = 1);
	SCXPOL_OPTS(scxpol_stats_opts, o3, .user_descs = dup2, .nr_user = 2);
	SCXPOL_OPTS(scxpol_stats_opts, o4, .user_descs = NULL, .nr_user = 1);
	SCXPOL_OPTS(scxpol_stats_opts, o5, .user_descs = bad, .nr_user = SCXPOL_STAT_USER_NR + 1);
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats st = SCXPOL_STATS_INIT;

	(void)state;
	assert_int_equal(scxpol_stats_read(s, &o1, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats user counter 0: name 'Has Space' is not "
			    "1..31 characters of [a-z0-9_]");
	assert_int_equal(scxpol_stats_read(s, &o2, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats user counter 0: name 'enqueue' is taken by "
			    "another counter");
	assert_int_equal(scxpol_stats_read(s, &o3, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats user counter 1: name 'x' is taken by "
			    "another counter");
	assert_int_equal(scxpol_stats_read(s, &o4, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats opts: nr_user is 1 but user_descs is NULL");
	assert_int_equal(scxpol_stats_read(s, &o5, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "stats opts: nr_user 17 is more than 16");
	assert_int_equal(scxpol_stats_read(s, NULL, &st), -ENODATA);
	assert_string_equal(scxpol_last_error(), "policy 'minimal' is not loaded (restarting?)");
	st.sz = sizeof(st) - 1;
	assert_int_equal(scxpol_stats_read(s, NULL, &st), -EINVAL);
	assert_non_null(strstr(scxpol_last_error(), "stats snapshot: sz is "));
	scxpol_sched_close(s);
}

struct stats_layout {
	unsigned int slots, value_size;
};

/* What a policy built against headers with another stats layout looks like. */
static int resize_stats_map(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct bpf_map *map = bpf_object__find_map_by_name(scxpol_sched_object(s), "scxpol_stats");
	const struct stats_layout *l = ctx;

	(void)skel;
	return bpf_map__set_max_entries(map, l->slots) ?: bpf_map__set_value_size(map, l->value_size);
}

static void test_object_layout_checked(void **state)
{
	/* the right one; the layout before the library's slots were reserved; 4-byte values */
	struct stats_layout good = { SCXPOL_STAT_TOTAL, 8 },
			    bad[] = { { SCXPOL_STAT_NR + SCXPOL_STAT_USER_NR, 8 },
				      { SCXPOL_STAT_TOTAL, 4 } };
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(hintpol_bpf), .sysfs_root = dir,
		    .configure = resize_stats_map, .ctx = &good);
	struct scxpol_sched *s;
	char want[512];
	unsigned int i;

	(void)state;
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	scxpol_sched_close(s);
	for (i = 0; i < 2; i++) {
		o.ctx = &bad[i];
		assert_null(scxpol_sched_open(&o));
		assert_int_equal(errno, EPROTO);
		snprintf(want, sizeof(want), "hintpol: its 'scxpol_stats' map has %u slots of %u "
			 "bytes, this libscxpol's have 64 of 8 (48 library, then 16 policy counters): "
			 "the BPF object was built against another version of <scxpol/abi/stats.h>; "
			 "rebuild it against this library's", bad[i].slots, bad[i].value_size);
		assert_string_equal(scxpol_last_error(), want);
	}
}

/* --- the server over a socket -------------------------------------------------- */

static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Everything the server sends until it closes the connection. */
static void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n = -1;

	while (off + 1 < len && (n = recv(fd, buf + off, len - 1 - off, 0)) > 0)
		off += (size_t)n;
	assert_true(n == 0); /* closed by the server, not a timeout */
	buf[off] = '\0';
}

/* A request and its response on the open connection @fd. */
static void ask(int fd, char *buf, size_t len)
{
	ssize_t n;

	assert_int_equal(send(fd, "{\"req\":\"list\"}\n", 15, 0), 15);
	n = recv(fd, buf, len - 1, 0);
	assert_true(n > 0 && buf[n - 1] == '\n');
	buf[n] = '\0';
	assert_true(!strncmp(buf, "{\"errno\":0,", 11));
}

static void test_server(void **state)
{
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = udescs, .nr_user = 3);
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv, *srv2;
	char path[256], resp[4096], buf[8192];
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	struct scxpol_stat_desc *meta;
	struct stat sb;
	int fd, fd2, fd3, i, n;

	(void)state;
	snprintf(path, sizeof(path), "%s/run/minimal.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .stats = &so, .max_clients = 2,
		    .timeout_ms = 300);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_string_equal(scxpol_stats_server_path(srv), path);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);

	/* a second server on the same path is refused */
	srv2 = scxpol_stats_server_start(s, &vo);
	assert_null(srv2);
	assert_int_equal(errno, EADDRINUSE);
	snprintf(buf, sizeof(buf), "a stats server already answers on %s (is the policy running "
		 "twice?)", path);
	assert_string_equal(scxpol_last_error(), buf);

	assert_true(scxpol_stats_request(path, "{\"req\":\"bogus\"}", resp, sizeof(resp)) > 0);
	assert_string_equal(resp, "{\"errno\":22,\"resp\":null,\"error\":\"unknown request "
				  "\\\"bogus\\\"; known: list, stats, stats_meta\"}");
	assert_int_equal(scxpol_stats_fetch(path, &st), -ENODATA);
	snprintf(buf, sizeof(buf), "%s: the server answered errno 61: policy 'minimal' is not "
		 "loaded (restarting?)", path);
	assert_string_equal(scxpol_last_error(), buf);

	/* the descriptors over the socket: the library's, then the named user counters */
	n = scxpol_stats_fetch_meta(path, &meta);
	assert_int_equal(n, SCXPOL_STAT_NR + 2);
	for (i = 0; i < SCXPOL_STAT_NR; i++) {
		assert_string_equal(meta[i].name, lib_names[i]);
		assert_string_equal(meta[i].unit, lib_units[i]);
		assert_string_equal(meta[i].desc, lib_descs[i]);
	}
	assert_string_equal(meta[i].name, "importance_sum");
	assert_string_equal(meta[i].unit, "importance");
	assert_string_equal(meta[i].desc, udescs[0].desc);
	assert_string_equal(meta[i + 1].name, "class_placed");
	assert_string_equal(meta[i + 1].unit, "");
	assert_string_equal(meta[i + 1].desc, "");
	free(meta);

	/* several requests on one connection, blank lines skipped */
	fd = raw_connect(path);
	snprintf(buf, sizeof(buf), "{\"req\":\"x\"}\n\n  \n{\"req\":\"y\"}\n");
	assert_int_equal(send(fd, buf, strlen(buf), 0), (ssize_t)strlen(buf));
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":22,\"resp\":null,\"error\":\"unknown request \\\"x\\\"; "
				 "known: list, stats, stats_meta\"}\n{\"errno\":22,\"resp\":null,\"error\":\"unknown "
				 "request \\\"y\\\"; known: list, stats, stats_meta\"}\n");
	close(fd);

	/* an oversized request: an error, then the connection is closed */
	fd = raw_connect(path);
	memset(buf, 'x', SCXPOL_STATS_MAX_LINE + 100);
	assert_int_equal(send(fd, buf, SCXPOL_STATS_MAX_LINE + 100, 0), SCXPOL_STATS_MAX_LINE + 100);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":7,\"resp\":null,\"error\":\"request longer than 4096 "
				 "bytes\"}\n");
	close(fd);

	/* a slow client (half a request) is dropped after the timeout */
	fd = raw_connect(path);
	assert_int_equal(send(fd, "{\"req\":", 7, 0), 7);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "");
	close(fd);

	/*
	 * max_clients 2, both in the middle of a request: a third is answered
	 * EBUSY and closed; then served again. On a server that does not drop
	 * idle clients soon: with the 300 ms above, a loaded machine could
	 * delay the third past the first two's timeout, and it would then be
	 * served instead. (The server reads its clients before it accepts.)
	 */
	scxpol_stats_server_stop(srv);
	vo.timeout_ms = 60000;
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	fd = raw_connect(path);
	fd2 = raw_connect(path);
	/* an answer: accepted; then the halves, sent before the third connects, are read first */
	ask(fd, buf, sizeof(buf));
	ask(fd2, buf, sizeof(buf));
	assert_int_equal(send(fd, "{\"req\":", 7, 0), 7);
	assert_int_equal(send(fd2, "{\"req\":", 7, 0), 7);
	fd3 = raw_connect(path);
	read_all(fd3, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":16,\"resp\":null,\"error\":\"too many clients (2); try "
				 "again later\"}\n");
	close(fd3);
	close(fd);
	close(fd2);
	/* up to 5 s for the server to see the two leave (it usually takes a few ms) */
	for (i = 0; i < 250; i++) {
		if (scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)) > 0 &&
		    !strncmp(resp, "{\"errno\":0,", 11))
			break;
		usleep(20000);
	}
	assert_true(i < 250);

	/* a response larger than the caller's buffer */
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, 64), -EMSGSIZE);

	scxpol_stats_server_stop(srv);
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)), -ENOENT);
	snprintf(buf, sizeof(buf), "cannot connect to %s: No such file or directory (is the policy "
		 "running with its stats server?)", path);
	assert_string_equal(scxpol_last_error(), buf);
	scxpol_sched_close(s);
}

/* raw_connect() as user @uid (the server learns it with SO_PEERCRED). */
static int connect_as(const char *path, uid_t uid)
{
	int fd;

	assert_int_equal(seteuid(uid), 0);
	fd = raw_connect(path);
	assert_int_equal(seteuid(0), 0);
	return fd;
}

/*
 * Clients that ask every few seconds hold their slots for good unless the
 * server takes one back: with all 4 taken by clients between requests, a
 * new one gets the slot of the user holding the most (uid 65534's 3), the
 * one idle longest; the next, with 2 each, the oldest of all. Needs root
 * (seteuid).
 */
static void test_server_evicts_idle(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], buf[8192];
	int nobody[3], mine, fresh, fresh2, i;

	(void)state;
	if (geteuid())
		skip();
	assert_int_equal(chmod(dir, 0711), 0);
	snprintf(path, sizeof(path), "%s/slots.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0666, .max_clients = 4,
		    .timeout_ms = 60000);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	for (i = 0; i < 3; i++) {
		nobody[i] = connect_as(path, 65534);
		ask(nobody[i], buf, sizeof(buf));
		usleep(2000); /* idle times apart, in ms */
	}
	mine = raw_connect(path);
	ask(mine, buf, sizeof(buf));
	usleep(2000);

	/* full: the new client is served, nobody's oldest is closed */
	fresh = raw_connect(path);
	ask(fresh, buf, sizeof(buf));
	read_all(nobody[0], buf, sizeof(buf));
	assert_string_equal(buf, "");
	ask(mine, buf, sizeof(buf));
	ask(nobody[1], buf, sizeof(buf));
	usleep(2000);

	/* 2 each now: the one idle longest goes, whoever's it is (nobody[2]) */
	fresh2 = raw_connect(path);
	ask(fresh2, buf, sizeof(buf));
	read_all(nobody[2], buf, sizeof(buf));
	assert_string_equal(buf, "");
	ask(nobody[1], buf, sizeof(buf));
	ask(mine, buf, sizeof(buf));
	ask(fresh, buf, sizeof(buf));
	for (i = 0; i < 3; i++)
		close(nobody[i]);
	close(mine);
	close(fresh);
	close(fresh2);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

static void test_server_stale_socket_and_mode(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], resp[4096], want[512];
	struct stat sb;
	int fd;

	(void)state;
	/* a socket nobody listens on any more (the policy was killed) */
	snprintf(path, sizeof(path), "%s/stale.sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ECONNREFUSED);
	snprintf(want, sizeof(want), "cannot connect to %s: Connection refused (a stale socket: the "
		 "policy is not running)", path);
	assert_string_equal(scxpol_last_error(), want);
	/* what is not a socket is not called a stale one; "" would be an abstract socket */
	assert_int_equal(scxpol_stats_request(dir, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ENOTSOCK);
	snprintf(want, sizeof(want), "cannot connect to %s: it is not a socket", dir);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(scxpol_stats_request("", "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -EINVAL);
	assert_string_equal(scxpol_last_error(), "the stats socket path is empty");

	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0660, .gid = 4242);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0660);
	assert_int_equal(sb.st_gid, 4242);
	assert_true(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)) > 0);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * What answers no stream connection is taken over only when it is a socket
 * nobody listens on (a killed loader's): a file, or a live socket of
 * another kind (a datagram socket as /dev/log), is someone else's.
 */
/* scxpol_stats_server_start() on @path must fail with @err and the message @fmt. */
#define expect_refused(s, path, err, fmt, ...)                                          \
	do {                                                                             \
		char want_[1024];                                                        \
		SCXPOL_OPTS(scxpol_stats_server_opts, vo_, .path = (path));              \
		assert_null(scxpol_stats_server_start((s), &vo_));                       \
		assert_int_equal(errno, (err));                                          \
		snprintf(want_, sizeof(want_), fmt, ##__VA_ARGS__);                      \
		assert_string_equal(scxpol_last_error(), want_);                         \
	} while (0)

/* A child of uid 65534 holding an flock() on @path until it is killed. */
static pid_t hold_lock_as_nobody(const char *path)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd;

		close(p[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(1);
		fd = open(path, O_RDONLY);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

/*
 * The socket's directory is checked as the pin directory is, and the lock
 * file must be this user's: another user who could write there, or who
 * made the lock file first, could hold the lock (no server ever starts) or
 * put a link where the socket goes. Needs root (chown, setresuid).
 */
static void test_server_private_dir(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char d[200], other[200], path[256], lock[300];
	static const struct {
		const char *name, *what, *who;
		mode_t mode;
		uid_t uid;
	} bad[] = {
		{ "grp", "is writable by its group (mode 0770)", "they", 0770, 0 },
		{ "theirs", "belongs to uid 65534, not to root or this user", "its owner", 0755,
		  65534 },
		/* sticky is no shelter for the socket's own directory */
		{ "sticky", "is writable by everyone (mode 1777)", "they", 01777, 0 },
	};
	struct dirent *de;
	struct stat sb;
	unsigned int n;
	pid_t holder;
	size_t i;
	DIR *dd;
	int fd;

	(void)state;
	if (geteuid())
		skip();
	/* a directory its group may write to, another user's, a sticky one */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(d, sizeof(d), "%s/%s", dir, bad[i].name);
		assert_int_equal(mkdir(d, 0700), 0);
		assert_int_equal(chmod(d, bad[i].mode), 0);
		assert_int_equal(chown(d, bad[i].uid, bad[i].uid), 0);
		snprintf(path, sizeof(path), "%s/x.sock", d);
		expect_refused(s, path, EPERM, "stats socket directory %s: %s %s: %s could replace "
			       "the socket", d, d, bad[i].what, bad[i].who);
	}

	/* a link for the directory, even to a good one */
	snprintf(d, sizeof(d), "%s/good", dir);
	assert_int_equal(mkdir(d, 0711), 0);
	snprintf(other, sizeof(other), "%s/link", dir);
	assert_int_equal(symlink(d, other), 0);
	snprintf(path, sizeof(path), "%s/x.sock", other);
	expect_refused(s, path, ENOTDIR, "stats socket directory %s: %s is not a directory (a "
		       "symbolic link?)", other, other);

	/* a lock file another user made first, and holds */
	snprintf(path, sizeof(path), "%s/x.sock", d);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	fd = open(lock, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(lock, 65534, 65534), 0);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is owned by uid 65534, "
		       "not a file of this user's (uid 0): another user may hold the lock; remove "
		       "it", path, lock);
	holder = hold_lock_as_nobody(lock);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is owned by uid 65534, "
		       "not a file of this user's (uid 0): another user may hold the lock; remove "
		       "it", path, lock);
	kill(holder, SIGKILL);
	assert_int_equal(waitpid(holder, NULL, 0), holder);
	/* a link there, to a file of ours: not followed */
	assert_int_equal(unlink(lock), 0);
	snprintf(other, sizeof(other), "%s/mine", dir);
	fd = open(other, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(other, lock), 0);
	expect_refused(s, path, ELOOP, "stats socket %s: cannot open its lock file %s: Too many "
		       "levels of symbolic links", path, lock);
	/* or a hard link */
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(link(other, lock), 0);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is a file with other "
		       "links, uid 0, not a file of this user's (uid 0): another user may hold the "
		       "lock; remove it", path, lock);
	/* a link where the socket goes */
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(symlink(other, path), 0);
	expect_refused(s, path, EEXIST, "stats socket %s: the path exists and is not a socket; "
		       "remove it or give another path", path);
	assert_int_equal(unlink(path), 0);

	/* our own lock file of another umask is made ours alone; nothing else is left */
	fd = open(lock, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0640, .gid = 4242);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_int_equal(lstat(lock, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(sb.st_gid, 4242);
	dd = opendir(d);
	assert_non_null(dd);
	for (n = 0; (de = readdir(dd));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dd);
	assert_int_equal(n, 2);
	scxpol_stats_server_stop(srv);
	assert_int_equal(lstat(path, &sb), -1);
	scxpol_sched_close(s);
}

static void test_server_spares_other_files(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_sched *s = open_minimal();
	char path[256], want[512], buf[16];
	struct stat sb, now;
	FILE *f;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/precious.sock", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("data\n", f);
	fclose(f);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EEXIST);
	snprintf(want, sizeof(want), "stats socket %s: the path exists and is not a socket; "
		 "remove it or give another path", path);
	assert_string_equal(scxpol_last_error(), want);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "data\n");
	/* and nothing made beside it */
	snprintf(want, sizeof(want), "%s.lock", path);
	assert_int_equal(stat(want, &sb), -1);

	snprintf(path, sizeof(path), "%s/dgram.sock", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(stat(path, &sb), 0);
	vo.path = path;
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EPROTOTYPE);
	snprintf(want, sizeof(want), "stats socket %s: the path is a socket that cannot be "
		 "checked for a running stats server (Protocol wrong type for socket); remove it "
		 "or give another path", path);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(stat(path, &now), 0);
	assert_true(now.st_ino == sb.st_ino);
	close(fd);
	scxpol_sched_close(s);
}

/* Two servers started at once on one path: the start of each, on its own thread. */
struct racer {
	struct scxpol_sched *s;
	const struct scxpol_stats_server_opts *vo;
	pthread_barrier_t *go;
	struct scxpol_stats_server *srv;
	int err;
};

static void *race_start(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	r->srv = scxpol_stats_server_start(r->s, r->vo);
	r->err = r->srv ? 0 : errno;
	return NULL;
}

/*
 * One server per path, also when two start at the same moment (each found
 * no server before the other renamed its socket into place, and the later
 * rename took the path from the earlier). <path>.lock decides, and a lock
 * held by another server refuses the start though no socket is there yet.
 */
static void test_server_one_per_path(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	struct racer r[2];
	pthread_barrier_t go;
	pthread_t th[2];
	char path[256], lock[300], want[512];
	struct stat sb;
	int i, k, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/race.sock", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	for (i = 0; i < 200; i++) {
		assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
		for (k = 0; k < 2; k++) {
			r[k] = (struct racer){ .s = s, .vo = &vo, .go = &go };
			assert_int_equal(pthread_create(&th[k], NULL, race_start, &r[k]), 0);
		}
		for (k = 0; k < 2; k++)
			assert_int_equal(pthread_join(th[k], NULL), 0);
		pthread_barrier_destroy(&go);
		/* exactly one started, and the other says why */
		assert_true(!r[0].srv != !r[1].srv);
		assert_int_equal(r[0].err + r[1].err, EADDRINUSE);
		scxpol_stats_server_stop(r[0].srv ? r[0].srv : r[1].srv);
		assert_int_equal(stat(path, &sb), -1);
	}

	/* the lock of a server starting elsewhere, before its socket exists */
	fd = open(lock, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EADDRINUSE);
	snprintf(want, sizeof(want), "a stats server already answers on %s (is the policy running "
		 "twice?)", path);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(stat(path, &sb), -1);
	close(fd);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * Every request gets an answer: a line of NUL bytes is no blank line, and
 * what a client sends before its EOF is its last request, newline or not
 * (printf '{"req":"list"}' | nc -U PATH).
 */
static void test_server_line_ends(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], buf[4096];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/ends.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	fd = raw_connect(path);
	assert_int_equal(send(fd, "\0\n{\"req\":\"x\"}", 13, 0), 13);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":22,\"resp\":null,\"error\":\"bad JSON: a NUL byte at "
				 "offset 0\"}\n{\"errno\":22,\"resp\":null,\"error\":\"unknown "
				 "request \\\"x\\\"; known: list, stats, stats_meta\"}\n");
	close(fd);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/* A response fits a buffer of its length and the NUL; one byte less is -EMSGSIZE. */
static void test_request_exact_fit(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], resp[4096], small[4096];
	int n;

	(void)state;
	snprintf(path, sizeof(path), "%s/fit.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	n = scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp));
	assert_true(n > 0);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", small, (size_t)n + 1), n);
	assert_string_equal(small, resp);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", small, (size_t)n),
			 -EMSGSIZE);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

static char accept_warning[256];
static unsigned int nr_accept_warnings;

static void catch_accept_warning(enum scxpol_log_level l, const char *m, void *c)
{
	(void)c;
	if (l == SCXPOL_LOG_WARN && strstr(m, "cannot accept")) {
		snprintf(accept_warning, sizeof(accept_warning), "%s", m);
		nr_accept_warnings++;
	}
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Out of file descriptors (the loader's, which the server shares), a
 * client waiting in the backlog cannot be accepted: the server says so
 * once and tries again later, instead of polling its always-ready socket
 * in a loop that takes a CPU from the host it schedules. The client is
 * served once descriptors are free again.
 */
static void test_server_out_of_fds(void **state)
{
	struct scxpol_sched *s;
	struct scxpol_stats_server *srv;
	char path[256], want[512], buf[4096];
	struct rlimit old, low;
	int fill[1024], nr = 0, fd;
	double cpu;

	(void)state;
	/*
	 * valgrind checks descriptors against a limit of its own, not the
	 * kernel's (and cmocka's skip() reads as a failure to meson's TAP)
	 */
	if (RUNNING_ON_VALGRIND)
		return;
	s = open_minimal();
	snprintf(path, sizeof(path), "%s/fds.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_log_set(catch_accept_warning, SCXPOL_LOG_DEBUG, NULL);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 128;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (nr < 1024 && (fill[nr] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		nr++;
	assert_int_equal(errno, EMFILE);
	assert_true(nr > 0);
	close(fill[--nr]);
	fd = raw_connect(path); /* the last descriptor */
	assert_int_equal(send(fd, "{\"req\":\"list\"}\n", 15, 0), 15);
	cpu = cpu_seconds();
	sleep(2);
	/* a loop takes about a second of CPU a second; one try a second, next to none */
	cpu = cpu_seconds() - cpu;
	while (nr)
		close(fill[--nr]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_true(recv(fd, buf, sizeof(buf), 0) > 0);
	assert_true(!strncmp(buf, "{\"errno\":0,", 11));
	close(fd);
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	snprintf(want, sizeof(want), "stats server %s: cannot accept a client: Too many open "
		 "files; trying again every second", path);
	assert_string_equal(accept_warning, want);
	assert_int_equal(nr_accept_warnings, 1);
	assert_true(cpu < 0.2);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * Socket paths the server cannot use are refused naming them, and the
 * longest it takes does not depend on its process id: the socket is made
 * under a temporary name (the path, '.', the pid, '.', a sequence number)
 * that must fit sun_path too.
 */
static void test_server_bad_paths(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[300], want[600];
	size_t n;

	(void)state;
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	snprintf(path, sizeof(path), "%s/no/such/dir/x.sock", dir);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "stats socket %s: cannot create its directory %s/no/such/dir: "
		 "No such file or directory", path, dir);
	assert_string_equal(scxpol_last_error(), want);

	/* "" (--stats-socket '') is no path in the working directory */
	vo.path = "";
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), "the stats socket path is empty");
	vo.path = path;

	/* a timeout poll() cannot take is refused, not turned into no timeout */
	vo.timeout_ms = 2147483648u;
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "stats server: timeout_ms 2147483648 is over 2147483647 (about 24 days)");
	vo.timeout_ms = 0;

	/* 107 bytes, a Unix socket's: the longest; one more is refused */
	n = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	memset(path + n, 'p', 107 - n);
	path[107] = '\0';
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_stats_server_stop(srv);
	for (n = 108; n <= 288; n += 180) {
		memset(path + 107, 'p', n - 107);
		path[n] = '\0';
		assert_null(scxpol_stats_server_start(s, &vo));
		assert_int_equal(errno, ENAMETOOLONG);
		snprintf(want, sizeof(want), "stats socket path '%s' is longer than a Unix "
			 "socket's 107 bytes", path);
		assert_string_equal(scxpol_last_error(), want);
	}
	scxpol_sched_close(s);
}

/*
 * A server that does not accept (its thread stuck, its queue full): the
 * client gives up after its 5 s like for an answer that does not come,
 * -ETIMEDOUT saying so, not connect()'s "Resource temporarily unavailable".
 */
static void test_request_server_not_accepting(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[256], resp[256], want[512];
	int fd, queued;

	(void)state;
	snprintf(path, sizeof(path), "%s/stuck.sock", dir);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 0), 0);
	queued = raw_connect(path); /* a backlog of 0 holds one */
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ETIMEDOUT);
	snprintf(want, sizeof(want), "cannot connect to %s: the server accepted no connection in "
		 "5 s (is the policy's stats server stuck?)", path);
	assert_string_equal(scxpol_last_error(), want);
	close(queued);
	close(fd);
}

static void test_socket_path(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(scxpol_stats_socket_path("ads", buf, sizeof(buf)), 20);
	assert_string_equal(buf, "/run/scxpol/ads.sock");
	assert_int_equal(scxpol_stats_socket_path("a/b", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "policy name 'a/b': want a policy's name, without '/'");
	assert_int_equal(scxpol_stats_socket_path("ads", buf, 10), -ENAMETOOLONG);
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
		cmocka_unit_test(test_object_layout_checked),
		cmocka_unit_test(test_request_parsing),
		cmocka_unit_test(test_respond),
		cmocka_unit_test(test_read_checks),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_server_evicts_idle),
		cmocka_unit_test(test_server_stale_socket_and_mode),
		cmocka_unit_test(test_server_spares_other_files),
		cmocka_unit_test(test_server_private_dir),
		cmocka_unit_test(test_server_one_per_path),
		cmocka_unit_test(test_server_line_ends),
		cmocka_unit_test(test_request_exact_fit),
		cmocka_unit_test(test_server_out_of_fds),
		cmocka_unit_test(test_server_bad_paths),
		cmocka_unit_test(test_request_server_not_accepting),
		cmocka_unit_test(test_socket_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
