// SPDX-License-Identifier: GPL-2.0
/*
 * faas's configuration (examples/faas/faas_conf.c): the two designs, one
 * switch per difference, and the messages for bad values and bad
 * combinations.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/common.h>
#include <scxpol/pool.h>
#include <scxpol/topology.h>

#include "../../examples/faas/faas_conf.h"
#include "fake_sysfs.h"

static char err[512];

/* faas_conf_option() with the option named @name (no dashes). */
static int opt(struct faas_conf *c, const char *name, const char *arg)
{
	const struct option *o;

	for (o = faas_conf_options; o->name; o++)
		if (!strcmp(o->name, name))
			return faas_conf_option(c, o->val, arg, err, sizeof(err));
	fail_msg("no option --%s", name);
	return -1;
}

/* @c after the options @argv (name, value or NULL, ...; NULL-ended) and finish. */
static int conf(struct faas_conf *c, ...)
{
	const char *name;
	va_list ap;
	int r = 0;

	faas_conf_init(c);
	err[0] = 0;
	va_start(ap, c);
	while (!r && (name = va_arg(ap, const char *))) {
		const char *arg = va_arg(ap, const char *);

		r = opt(c, name, arg);
	}
	va_end(ap);
	return r ? r : faas_conf_finish(c, err, sizeof(err));
}

static void test_project_is_the_default(void **state)
{
	struct faas_conf c;

	(void)state;
	assert_int_equal(conf(&c, NULL), 0);
	assert_false(c.partial);
	assert_false(c.vtime_now);
	assert_false(c.dispatch_paper);
	assert_false(c.steal);
	assert_int_equal(c.slice_us, 5000);
	assert_int_equal(c.reset_every, 8);
	faas_conf_format(&c, err, sizeof(err));
	assert_string_equal(err, "project: switch all, vtime reset to the domain's clock every 8 "
				 "enqueues, slice 5000 us, dispatch project, stealing off, "
				 "busy-poll off");
}

static void test_paper_sets_each_difference(void **state)
{
	struct faas_conf c;

	(void)state;
	assert_int_equal(conf(&c, "paper", NULL, NULL), 0);
	assert_true(c.partial);
	assert_true(c.vtime_now);
	assert_true(c.dispatch_paper);
	assert_true(c.steal);
	assert_int_equal(c.slice_us, 3000);
	faas_conf_format(&c, err, sizeof(err));
	assert_string_equal(err, "paper: switch partial (SCHED_EXT tasks only), vtime reset to the "
				 "current time every 8 enqueues, slice 3000 us, dispatch paper, "
				 "stealing on, busy-poll off");
}

/* One difference switched back, given before or after --paper: the rest stays the paper's. */
static void test_explicit_switch_wins_over_paper(void **state)
{
	struct faas_conf c;

	(void)state;
	assert_int_equal(conf(&c, "switch", "all", "paper", NULL, NULL), 0);
	assert_false(c.partial);
	assert_true(c.vtime_now && c.dispatch_paper && c.steal && c.slice_us == 3000);
	assert_int_equal(conf(&c, "paper", NULL, "vtime-reset", "clock", NULL), 0);
	assert_false(c.vtime_now);
	assert_true(c.partial && c.dispatch_paper && c.steal);
	assert_int_equal(conf(&c, "paper", NULL, "slice-us", "5000", NULL), 0);
	assert_int_equal(c.slice_us, 5000);
	assert_int_equal(conf(&c, "paper", NULL, "dispatch", "project", NULL), 0);
	assert_false(c.dispatch_paper);
	assert_int_equal(conf(&c, "paper", NULL, "no-steal", NULL, NULL), 0);
	assert_false(c.steal);
	assert_true(c.partial && c.vtime_now && c.dispatch_paper);
	/* and the project's design takes them one at a time too */
	assert_int_equal(conf(&c, "switch", "partial", NULL), 0);
	assert_true(c.partial);
	assert_false(c.vtime_now || c.dispatch_paper || c.steal);
}

static void test_bad_values_name_the_option(void **state)
{
	struct faas_conf c;

	(void)state;
	assert_int_equal(conf(&c, "switch", "some", NULL), -EINVAL);
	assert_string_equal(err, "--switch 'some': want all or partial");
	assert_int_equal(conf(&c, "vtime-reset", "clocks", NULL), -EINVAL);
	assert_string_equal(err, "--vtime-reset 'clocks': want clock or now");
	assert_int_equal(conf(&c, "dispatch", "", NULL), -EINVAL);
	assert_string_equal(err, "--dispatch '': want project or paper");
	assert_int_equal(conf(&c, "domains", "0", NULL), -EINVAL);
	assert_string_equal(err, "--domains '0': want a whole number in 1..1024");
	assert_int_equal(conf(&c, "slice-us", "3ms", NULL), -EINVAL);
	assert_string_equal(err, "--slice-us '3ms': want a whole number in 1..1000000");
	/* not one of faas_conf's: the caller's */
	faas_conf_init(&c);
	assert_int_equal(faas_conf_option(&c, 'x', NULL, err, sizeof(err)), 1);
}

static void test_contradictions_are_refused(void **state)
{
	struct faas_conf c;

	(void)state;
	assert_int_equal(conf(&c, "steal", NULL, "no-steal", NULL, NULL), -EINVAL);
	assert_string_equal(err, "--steal and --no-steal: give one");
	assert_int_equal(conf(&c, "paper", NULL, "no-steal", NULL, "steal", NULL, NULL), -EINVAL);
	assert_string_equal(err, "--steal and --no-steal: give one");
}

/* The plan over a 4-CPU machine (2 cores x 2 threads, one LLC: the test VM's). */
static void test_plan_names_the_domain_count(void **state)
{
	const struct fake_topo vm = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 2,
				      .threads = 2 };
	char *root = fake_sysfs(&vm);
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);
	struct scxpol_pool_plan *plan = NULL;
	struct scxpol_topo *topo;
	struct faas_conf c;

	(void)state;
	topo = scxpol_topo_load(&o);
	assert_non_null(topo);
	assert_int_equal(conf(&c, "paper", NULL, "domains", "5", NULL), 0);
	assert_true(faas_conf_plan(&c, topo, &plan, err, sizeof(err)) < 0);
	assert_null(plan);
	assert_string_equal(err, "--domains 5: domains: 5 domains need at least 5 CPUs, 4 are "
				 "online");
	/* the paper's design: stealing domains */
	assert_int_equal(conf(&c, "paper", NULL, "domains", "2", NULL), 0);
	assert_int_equal(faas_conf_plan(&c, topo, &plan, err, sizeof(err)), 0);
	assert_int_equal(scxpol_pool_plan_nr_pools(plan), 2);
	assert_true(scxpol_pool_plan_flags(plan, 0) & SCXPOL_POOL_STEAL);
	assert_true(scxpol_pool_plan_flags(plan, 1) & SCXPOL_POOL_STEAL);
	scxpol_pool_plan_free(plan);
	/* the project's: exclusive ones; one per LLC without --domains */
	assert_int_equal(conf(&c, NULL), 0);
	assert_int_equal(faas_conf_plan(&c, topo, &plan, err, sizeof(err)), 0);
	assert_int_equal(scxpol_pool_plan_nr_pools(plan), 1);
	assert_false(scxpol_pool_plan_flags(plan, 0) & SCXPOL_POOL_STEAL);
	scxpol_pool_plan_free(plan);
	scxpol_topo_free(topo);
	fake_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_project_is_the_default),
		cmocka_unit_test(test_paper_sets_each_difference),
		cmocka_unit_test(test_explicit_switch_wins_over_paper),
		cmocka_unit_test(test_bad_values_name_the_option),
		cmocka_unit_test(test_contradictions_are_refused),
		cmocka_unit_test(test_plan_names_the_domain_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
