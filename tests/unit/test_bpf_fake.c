// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The fake kernel of tests/bpf-host where its rules stand in for the
 * kernel's: an insert into SCX_DSQ_LOCAL_ON as Linux 6.12 finishes it, and
 * the teardown that fails a test whose code made the kernel record an
 * error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host_fake.h"

static struct task_struct t;

/* 4 CPUs; the task on CPU 1, allowed on CPUs 1 and 2. */
static int setup(void **state)
{
	const s32 allowed[] = { 1, 2 };

	(void)state;
	fake_reset(4);
	fake_task_init(&t, 7, "worker");
	fake_task_allow(&t, allowed, 2);
	t.cpu = 1;
	return 0;
}

static void test_local_on_allowed_cpu(void **state)
{
	(void)state;
	scx_bpf_dsq_insert(&t, SCX_DSQ_LOCAL_ON | 2, 1000, 0);
	assert_int_equal(fake_nr_errors(), 0);
	assert_ptr_equal(fake_local_at(2, 0), &t);
	assert_int_equal(fake_dsq_count(SCX_DSQ_GLOBAL), 0);
}

/* The policy's error: the kernel ejects it; the task goes to the global DSQ. */
static void test_local_on_outside_allowed_cpus(void **state)
{
	(void)state;
	scx_bpf_dsq_insert(&t, SCX_DSQ_LOCAL_ON | 3, 1000, 0);
	assert_int_equal(fake_nr_errors(), 1);
	/* 7.x's wording (6.12: "verdict target cpu"), as doc/sim.md says */
	assert_string_equal(fake_last_error(),
			    "SCX_DSQ_LOCAL[_ON] target CPU 3 not allowed for worker[7]");
	assert_int_equal(fake_local_count(3), 0);
	assert_ptr_equal(fake_dsq_at(SCX_DSQ_GLOBAL, 0), &t);
	assert_int_equal(fake_take_errors(), 1);
}

/* The CPU the task sits on needs no check, as in the kernel. */
static void test_local_on_own_cpu(void **state)
{
	const s32 elsewhere[] = { 2 };

	(void)state;
	fake_task_allow(&t, elsewhere, 1);
	scx_bpf_dsq_insert(&t, SCX_DSQ_LOCAL_ON | 1, 1000, 0);
	assert_int_equal(fake_nr_errors(), 0);
	assert_ptr_equal(fake_local_at(1, 0), &t);
}

/* An allowed CPU gone offline is no error: the global DSQ takes the task. */
static void test_local_on_offline_cpu(void **state)
{
	(void)state;
	fake_set_online(2, false);
	scx_bpf_dsq_insert(&t, SCX_DSQ_LOCAL_ON | 2, 1000, 0);
	assert_int_equal(fake_nr_errors(), 0);
	assert_int_equal(fake_local_count(2), 0);
	assert_ptr_equal(fake_dsq_at(SCX_DSQ_GLOBAL, 0), &t);
}

/*
 * The global DSQ is the kernel's: it takes inserts, but Linux 6.12 consumes
 * it itself (balance), and move_to_local() from it is the policy's error.
 */
static void test_global_dsq_is_not_the_policys_to_move(void **state)
{
	(void)state;
	scx_bpf_dsq_insert(&t, SCX_DSQ_GLOBAL, 1000, 0);
	assert_ptr_equal(fake_dsq_at(SCX_DSQ_GLOBAL, 0), &t);
	fake_set_cpu(2);
	assert_false(scx_bpf_dsq_move_to_local(SCX_DSQ_GLOBAL));
	assert_string_equal(fake_last_error(), "invalid DSQ ID 0x8000000000000001");
	assert_int_equal(fake_take_errors(), 1);
	assert_int_equal(fake_local_count(2), 0);
}

static void test_teardown_fails_on_an_error_left(void **state)
{
	scx_bpf_kick_cpu(9, 0);
	assert_int_equal(fake_teardown(state), -1);
	assert_int_equal(fake_nr_errors(), 0);
	assert_int_equal(fake_teardown(state), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_local_on_allowed_cpu, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_local_on_outside_allowed_cpus, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_local_on_own_cpu, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_local_on_offline_cpu, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_global_dsq_is_not_the_policys_to_move, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_teardown_fails_on_an_error_left, setup,
						fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
