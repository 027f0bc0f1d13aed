// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Classification rules on the host: the LPM-trie keys comm patterns become,
 * every refused pattern and its message, cgroup paths that are not cgroup2
 * directories, and adding rules to a policy that lacks the maps or is not
 * loaded. (Lookups are the BPF side's: test_bpf_match.c covers them on the
 * fake kernel, the VM suite "ads" on real ones.)
 */
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

#include <scxpol/match.h>
#include <scxpol/pool.h> /* the ads skeleton names struct scxpol_pool_conf */
#include <scxpol/skel.h>

#include "internal.h"
#include "ads.bpf.skel.h"
#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(ads_bpf);
SCXPOL_SKEL_DEFINE(minimal_bpf);

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static void expect_key(const char *pattern, const char *bytes, unsigned int bits)
{
	struct scxpol_match_comm_key key;

	memset(&key, 0xa5, sizeof(key));
	assert_int_equal(scxpol_match_comm_pattern(pattern, &key), 0);
	assert_int_equal(key.prefixlen, bits);
	/* the rest of the key is zero: the kernel compares whole bytes */
	assert_memory_equal(key.comm, bytes, sizeof(key.comm));
}

static void test_comm_keys(void **state)
{
	char want[SCXPOL_MATCH_COMM_LEN];

	(void)state;
	memset(want, 0, sizeof(want));
	memcpy(want, "lc-", 3);
	expect_key("lc-*", want, 24);
	/* an exact name covers its NUL: "bg-hog2" does not match */
	memset(want, 0, sizeof(want));
	memcpy(want, "bg-hog", 6);
	expect_key("bg-hog", want, 56);
	memcpy(want, "fifteen-chars-x", 15);
	expect_key("fifteen-chars-x", want, 128);
	expect_key("fifteen-chars-x*", want, 120);
	assert_int_equal(scxpol_match_check(SCXPOL_MATCH_COMM, "x"), 0);
}

static void expect_refused(enum scxpol_match_kind kind, const char *pattern, int err,
			   const char *msg)
{
	assert_int_equal(scxpol_match_check(kind, pattern), -err);
	assert_string_equal(scxpol_last_error(), msg);
}

static void test_bad_patterns(void **state)
{
	char path[64];
	FILE *f;

	(void)state;
	expect_refused(SCXPOL_MATCH_COMM, "a*b", EINVAL,
		       "comm pattern \"a*b\": '*' only as the last character (a prefix)");
	expect_refused(SCXPOL_MATCH_COMM, "**", EINVAL,
		       "comm pattern \"**\": '*' only as the last character (a prefix)");
	expect_refused(SCXPOL_MATCH_COMM, "*", EINVAL,
		       "comm pattern \"*\": matches every thread (give a prefix before the '*')");
	expect_refused(SCXPOL_MATCH_COMM, "", EINVAL, "comm pattern is empty");
	expect_refused(SCXPOL_MATCH_COMM, NULL, EINVAL, "comm pattern is empty");
	expect_refused(SCXPOL_MATCH_COMM, "sixteen-chars-xy", EINVAL,
		       "comm pattern \"sixteen-chars-xy\": longer than 15 characters (the "
		       "kernel's comm limit)");
	expect_refused(SCXPOL_MATCH_COMM, "sixteen-chars-xy*", EINVAL,
		       "comm pattern \"sixteen-chars-xy*\": longer than 15 characters (the "
		       "kernel's comm limit)");
	expect_refused(SCXPOL_MATCH_CGROUP, "/nonexistent/cgroup", ENOENT,
		       "cgroup '/nonexistent/cgroup': No such file or directory");
	expect_refused(SCXPOL_MATCH_CGROUP, NULL, EINVAL, "cgroup path is NULL");
	snprintf(path, sizeof(path), "/tmp/test_match.%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(scxpol_match_check(SCXPOL_MATCH_CGROUP, path), -ENOTDIR);
	unlink(path);
	/* a directory, but not on cgroup2 */
	assert_int_equal(scxpol_match_check(SCXPOL_MATCH_CGROUP, "/"), -EINVAL);
	assert_string_equal(scxpol_last_error(), "cgroup '/': not on a cgroup2 file system");
	expect_refused((enum scxpol_match_kind)7, "x", EINVAL,
		       "match rule kind 7: want SCXPOL_MATCH_CGROUP or SCXPOL_MATCH_COMM");
}

static void test_add_needs_maps_and_load(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, mo, .skel = SCXPOL_SKEL(minimal_bpf));
	SCXPOL_OPTS(scxpol_sched_opts, ao, .skel = SCXPOL_SKEL(ads_bpf));
	struct scxpol_sched *s;

	(void)state;
	assert_int_equal(scxpol_match_add(NULL, SCXPOL_MATCH_COMM, "x", 1), -EINVAL);
	s = scxpol_sched_open(&mo);
	assert_non_null(s);
	assert_int_equal(scxpol_match_add(s, SCXPOL_MATCH_COMM, "lc-*", 1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "minimal: the BPF object has no "
			    "'scxpol_match_comms' map; include <scxpol/match.bpf.h>");
	/* the pattern is checked first */
	assert_int_equal(scxpol_match_add(s, SCXPOL_MATCH_COMM, "a*b", 1), -EINVAL);
	assert_non_null(strstr(scxpol_last_error(), "'*' only as the last character"));
	scxpol_sched_close(s);
	s = scxpol_sched_open(&ao);
	assert_non_null(s);
	assert_int_equal(scxpol_match_add(s, SCXPOL_MATCH_COMM, "lc-*", 1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "ads: not loaded: add rules from the loaded hook");
	scxpol_sched_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_keys),
		cmocka_unit_test(test_bad_patterns),
		cmocka_unit_test(test_add_needs_maps_and_load),
	};

	scxpol_log_set(quiet, SCXPOL_LOG_ERROR, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
