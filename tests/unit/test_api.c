// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The API's manners (include/scxpol/common.h). A NULL handle or required
 * pointer passed to a public function is refused with -EINVAL (or NULL and
 * errno EINVAL) and a message naming the function and the argument, not
 * dereferenced; accessors of a NULL handle give NULL or 0, and void
 * functions do nothing. Options structs have no tail padding, where a
 * newer caller's field could hide from the size check, and each one's
 * TYPE__last_field is its last field.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <scxpol/cli.h>
#include <scxpol/hint.h>
#include <scxpol/match.h>
#include <scxpol/pool.h>
#include <scxpol/sched.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#define END(type, field) (offsetof(struct type, field) + sizeof(((struct type *)0)->field))
/* the last field is TYPE__last_field and nothing follows it */
#define LAST(type) _Static_assert(sizeof(struct type) == END(type, type##__last_field), #type)
/* the last field is TYPE__last_field, then 'reserved' in place of tail padding */
#define LAST_RESERVED(type)                                                                  \
	_Static_assert(offsetof(struct type, reserved) == END(type, type##__last_field) &&   \
		       sizeof(struct type) == END(type, reserved), #type)
LAST(scxpol_cli);
LAST(scxpol_cli_args);
LAST(scxpol_run_opts);
LAST_RESERVED(scxpol_hint_limits);
LAST(scxpol_hint_client_opts);
LAST(scxpol_pool_autosize_opts);
LAST(scxpol_sched_opts);
LAST_RESERVED(scxpol_stats);
LAST(scxpol_stats_opts);
LAST(scxpol_stats_server_opts);
LAST(scxpol_topo_opts);

static void expect(int r, const char *msg)
{
	assert_int_equal(r, -EINVAL);
	assert_string_equal(scxpol_last_error(), msg);
}

static void expect_ptr(const void *p, const char *msg)
{
	assert_null(p);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), msg);
}

static void test_sched(void **state)
{
	struct scxpol_sched_exit ei;
	char buf[64];

	(void)state;
	expect(scxpol_sched_load(NULL), "scxpol_sched_load: scheduler is NULL");
	expect(scxpol_sched_attach(NULL), "scxpol_sched_attach: scheduler is NULL");
	expect(scxpol_sched_detach(NULL), "scxpol_sched_detach: scheduler is NULL");
	expect(scxpol_sched_exit_info(NULL, &ei), "scxpol_sched_exit_info: scheduler is NULL");
	expect(scxpol_sched_prog_stats(NULL, NULL, 0), "scxpol_sched_prog_stats: scheduler is NULL");
	expect(scxpol_sched_run(NULL, NULL), "scxpol_sched_run: scheduler is NULL");
	expect(scxpol_sched_print_prog_stats(NULL, stdout),
	       "scxpol_sched_print_prog_stats: scheduler is NULL");
	expect(scxpol_sched_print_exit(NULL, stdout), "scxpol_sched_print_exit: scheduler is NULL");
	expect(scxpol_sched_state(NULL, NULL, 0, buf, sizeof(buf)),
	       "scxpol_sched_state: state buffer is NULL");
	assert_null(scxpol_sched_name(NULL));
	assert_null(scxpol_sched_pin_root(NULL));
	assert_null(scxpol_sched_skel(NULL));
	assert_null(scxpol_sched_object(NULL));
	assert_int_equal(scxpol_sched_restarts(NULL), 0);
	assert_false(scxpol_sched_exited(NULL));
	scxpol_sched_stop(NULL);
	scxpol_sched_close(NULL);
}

static void test_pool(void **state)
{
	unsigned long long gen;

	(void)state;
	expect(scxpol_pool_setup(NULL, 2), "scxpol_pool_setup: scheduler is NULL");
	expect(scxpol_pool_require(NULL, 0), "scxpol_pool_require: scheduler is NULL");
	expect(scxpol_pool_publish(NULL, NULL), "scxpol_pool_publish: scheduler is NULL");
	expect(scxpol_pool_read(NULL, &gen, NULL, 0, NULL), "scxpol_pool_read: scheduler is NULL");
	expect(scxpol_pool_plan_find(NULL, "lc"), "scxpol_pool_plan_find: plan is NULL");
	expect(scxpol_pool_autosize_update(NULL, 1.0), "scxpol_pool_autosize_update: autosizer is NULL");
	assert_null(scxpol_pool_autosize_plan(NULL));
	assert_int_equal(scxpol_pool_autosize_nr_cpus(NULL), 0);
}

static void test_hint(void **state)
{
	struct scxpol_hint h = { 0 };
	struct scxpol_hint_meta m;
	struct scxpol_hint_counts n;
	SCXPOL_OPTS(scxpol_hint_limits, lim);

	(void)state;
	expect(scxpol_hint_setup(NULL, &lim), "scxpol_hint_setup: scheduler is NULL");
	expect(scxpol_hint_set(NULL, SCXPOL_HINT_CGROUP, 1, &h),
	       "scxpol_hint_set: hint client is NULL");
	expect(scxpol_hint_get(NULL, SCXPOL_HINT_TGID, 1, &h),
	       "scxpol_hint_get: hint client is NULL");
	expect(scxpol_hint_clear(NULL, SCXPOL_HINT_TID, 1),
	       "scxpol_hint_clear: hint client is NULL");
	expect(scxpol_hint_cgroup_id("/", NULL), "scxpol_hint_cgroup_id: output id is NULL");
	expect(scxpol_hint_get_meta(NULL, &m), "scxpol_hint_get_meta: hint client is NULL");
	expect(scxpol_hint_count(NULL, &n), "scxpol_hint_count: hint client is NULL");
	expect(scxpol_hint_prune(NULL, NULL), "scxpol_hint_prune: hint client is NULL");
	errno = 0;
	expect_ptr(scxpol_hint_thread_register(NULL), "scxpol_hint_thread_register: hint client is NULL");
	scxpol_hint_thread_set_importance(NULL, 1);
	assert_int_equal(scxpol_hint_thread_unregister(NULL), 0);
}

static void test_stats(void **state)
{
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char buf[64];

	(void)state;
	expect(scxpol_stats_read(NULL, NULL, &st), "scxpol_stats_read: scheduler is NULL");
	expect(scxpol_stats_json(NULL, buf, sizeof(buf)), "scxpol_stats_json: snapshot is NULL");
	expect(scxpol_stats_json_file(&st, NULL), "scxpol_stats_json_file: stream is NULL");
	expect(scxpol_stats_parse("{}", NULL), "scxpol_stats_parse: output is NULL");
	expect(scxpol_stats_request(NULL, "stats", buf, sizeof(buf)),
	       "scxpol_stats_request: socket path is NULL");
	expect(scxpol_stats_fetch("/nonexistent", NULL), "scxpol_stats_fetch: output is NULL");
	expect(scxpol_stats_fetch_meta(NULL, NULL), "scxpol_stats_fetch_meta: socket path is NULL");
	errno = 0;
	expect_ptr(scxpol_stats_server_start(NULL, NULL),
		   "scxpol_stats_server_start: scheduler is NULL");
	assert_null(scxpol_stats_server_path(NULL));
	/* a buffer too small says how large it must be */
	assert_int_equal(scxpol_stats_json(&st, buf, 16), -ENOSPC);
	assert_non_null(strstr(scxpol_last_error(), "stats JSON needs "));
	assert_non_null(strstr(scxpol_last_error(), " bytes, the buffer has 16"));
}

static void test_match(void **state)
{
	(void)state;
	expect(scxpol_match_add(NULL, SCXPOL_MATCH_COMM, "x", 1), "scxpol_match_add: policy is NULL");
	expect(scxpol_match_refresh(NULL), "scxpol_match_refresh: policy is NULL");
}

static void test_cli(void **state)
{
	unsigned long long u;
	double d;
	int gid;

	(void)state;
	/* a program's own option with an optional argument, given none */
	assert_int_equal(scxpol_cli_parse_uint("--slice-us", NULL, 1, 10, &u), -EINVAL);
	assert_string_equal(scxpol_last_error(), "--slice-us needs a value");
	assert_int_equal(scxpol_cli_parse_double("--util", NULL, 0, 1, &d), -EINVAL);
	assert_string_equal(scxpol_last_error(), "--util needs a value");
	assert_int_equal(scxpol_cli_parse_uint_list("--pid", NULL, ',', 1, 10, &u, 1), -EINVAL);
	assert_string_equal(scxpol_last_error(), "--pid needs a value");
	assert_int_equal(scxpol_cli_parse_group("--pin-group", NULL, &gid), -EINVAL);
	assert_string_equal(scxpol_last_error(), "--pin-group needs a value");
	/* numbers are decimal, as the whole numbers are */
	assert_int_equal(scxpol_cli_parse_double("--util", "0x1p-1", 0, 1, &d), -EINVAL);
	assert_string_equal(scxpol_last_error(), "--util '0x1p-1': want a number in (0, 1]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
