// SPDX-License-Identifier: GPL-2.0
/*
 * What the trace replay reports (no bodies run): its summary's percentiles,
 * means, cost and reuse, a CSV row with its CPU list, and the busy and
 * total time of /proc/stat's cpu line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../examples/faas/replay.h"
#include "faas_replay_fixture.h"

static void test_summary(void **state)
{
	static struct faas_inv_result res[1000];
	static struct faas_invocation inv[1000];
	struct faas_trace t = { .funcs = funcs, .nr_funcs = 1, .inv = inv, .nr_inv = 1000 };
	struct faas_replay r = { .trace = &t, .res = res, .nr = 1000, .completed = 1000,
				 .util = 0.25, .run_ns = 2500000000ULL };
	struct faas_summary s;
	int i;

	(void)state;
	r.iat.shared = 7;
	for (i = 0; i < 1000; i++) {
		/* e2e = i + 1 ms, in reverse order; worker = 1 ms */
		res[i] = (struct faas_inv_result){ .done = true, .arrival_ns = 0,
						   .start_ns = (uint64_t)(999 - i) * 1000000,
						   .end_ns = (uint64_t)(1000 - i) * 1000000,
						   .reuse = i == 0 ? -1 : i % 4 == 0 };
	}
	assert_int_equal(faas_replay_summarize(&r, &s), 0);
	assert_int_equal(s.count, 1000);
	assert_true(s.p50_ms == 500.0);
	assert_true(s.p99_ms == 990.0);
	assert_true(s.p999_ms == 999.0);
	assert_true(s.mean_e2e_ms == 500.5);
	assert_true(s.mean_worker_ms == 1.0);
	assert_true(s.cost_ms == 500.5 * 0.25);
	assert_int_equal(s.reuse_of, 999);
	assert_int_equal(s.reuse, 249);
	assert_int_equal(s.shared, 7);
	assert_true(s.run_s == 2.5);
}

static void test_csv_cpu_list(void **state)
{
	static struct faas_invocation inv[1] = { { .func = 0, .kind = FAAS_KIND_CPU } };
	struct faas_trace t = { .funcs = funcs, .nr_funcs = 1, .inv = inv, .nr_inv = 1 };
	struct faas_inv_result res = { .done = true, .domain = 1, .cgroup_id = 77,
				       .cgroup = (char *)"/faas/inv-0", .arrival_ns = 1000000,
				       .released_ns = 1250000, .start_ns = 1500000, .end_ns = 4000000, .first_cpu = 5,
				       .reuse = -1, .sched_class = "ext" };
	struct faas_replay r = { .trace = &t, .res = &res, .nr = 1, .completed = 1 };
	char path[300], line[512];
	FILE *f;

	(void)state;
	faas_cpuset_set(&res.cpus, 0);
	faas_cpuset_set(&res.cpus, 1);
	faas_cpuset_set(&res.cpus, 2);
	faas_cpuset_set(&res.cpus, 5);
	faas_cpuset_set(&res.cpus, 1023);
	faas_cpuset_set(&res.cpus, 1024); /* out of range: ignored */
	assert_int_equal(faas_cpuset_count(&res.cpus), 5);
	snprintf(path, sizeof(path), "%s/one.csv", tmpdir);
	f = fopen(path, "w+");
	assert_non_null(f);
	assert_int_equal(faas_replay_write_csv(&r, f), 0);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "0,a,cpu,1,77,/faas/inv-0,1.000,1.250,1.500,4.000,3.000,2.500,5,"
			    "0-2;5;1023,-,ext\n");
	fclose(f);
}

static void test_cpu_stat(void **state)
{
	struct faas_cpu_stat st;
	char path[300], want[400];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/stat", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	fputs("cpu  100 2 30 1000 40 5 6 7 50 1\ncpu0 1 2 3 4\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.busy, 150);
	assert_int_equal(st.total, 1190);

	f = fopen(path, "w");
	fputs("cpu  1 2 3\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: the cpu line has 3 numbers, want >= 4", path);
	assert_string_equal(err, want);

	f = fopen(path, "w");
	fputs("cpu  1 2 x 4\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: field 4 of the cpu line is not a number", path);
	assert_string_equal(err, want);

	f = fopen(path, "w");
	fputs("intr 1 2 3\n", f);
	fclose(f);
	assert_int_equal(faas_cpu_stat_read(path, &st, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: the first line is not the \"cpu\" total line", path);
	assert_string_equal(err, want);

	assert_int_equal(faas_cpu_stat_read("/proc/stat", &st, err, sizeof(err)), 0);
	assert_true(st.total >= st.busy && st.total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_summary, kill_children),
		cmocka_unit_test_teardown(test_csv_cpu_list, kill_children),
		cmocka_unit_test_teardown(test_cpu_stat, kill_children),
	};

	return run_replay_tests(tests);
}
