// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats requests on the host, without a socket: a request line parsed,
 * the answers scxpol_stats_respond() gives for a policy opened but not
 * loaded (list, stats_meta, errors as valid JSON), scxpol_stats_read()'s
 * checks of its options, and a policy object whose counter map has another
 * layout than this library's refused at open.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/skel.h>
#include <scxpol/stats.h>

#include "internal.h"
#include "hintpol.bpf.skel.h"
#include "stats_fixture.h"

SCXPOL_SKEL_DEFINE(hintpol_bpf);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object_layout_checked),
		cmocka_unit_test(test_request_parsing),
		cmocka_unit_test(test_respond),
		cmocka_unit_test(test_read_checks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
