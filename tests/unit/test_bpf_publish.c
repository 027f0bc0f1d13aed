// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * From a plan to the BPF side: lib/pool_publish.c lays a plan out for the
 * staging maps (scxpol_pool_stage_plan()), and the commit program of
 * bpf-lib/scxpol/pool.bpf.h, running on the host fake kernel, publishes it.
 * Covers the per-pool order lists (nearest LLC first, then the nearest
 * index) that stealing follows, and staging errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "host_fake.h"
#include <scxpol/common.bpf.h>
#include <scxpol/pool.bpf.h>
#include <scxpol/pool.h>

#include "fake_sysfs.h"
#include "internal.h"

static char *root;
static struct scxpol_topo *topo;

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

/* 2 nodes x 2 LLCs x 1 core x 2 threads: LLCs {0,1} {2,3} | {4,5} {6,7}. */
static int setup(void **state)
{
	const struct fake_topo ft = { .nodes = 2, .llcs_per_node = 2, .cores_per_llc = 1,
				      .threads = 2 };
	SCXPOL_OPTS(scxpol_topo_opts, o);

	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	root = fake_sysfs(&ft);
	o.root = root;
	topo = scxpol_topo_load(&o);
	assert_non_null(topo);
	assert_int_equal(scxpol_topo_nr_llcs(topo), 4);
	/* the fake kernel and the maps, as scxpol_pool_setup() sizes them */
	fake_reset(8);
	scxpol_pool_conf.max_pools = 4;
	scxpol_pool_conf.nr_cpus = 8;
	scxpol_pool_conf.max_llcs = 8;
	scxpol_pool_conf.nr_words = 1;
	scxpol_pool_conf.require = 0;
	FAKE_MAP_RESIZE(&scxpol_pool_slots, 2 * 4);
	FAKE_MAP_RESIZE(&scxpol_pool_llcs, 2 * 4 * 8);
	FAKE_MAP_RESIZE(&scxpol_pool_cpus, 2 * 8);
	FAKE_MAP_RESIZE(&scxpol_pool_curr, 8);
	FAKE_MAP_RESIZE(&scxpol_pool_order, 2 * 4 * 4);
	FAKE_MAP_RESIZE(&scxpol_pool_clock, 4 + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_queued, 4 + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_pending, 4 + 1);
	FAKE_MAP_RESIZE(&scxpol_pool_stage, 4);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_mask, 4);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_cpu, 8);
	FAKE_MAP_RESIZE(&scxpol_pool_stage_order, 4 * 4);
	assert_int_equal(scxpol_pool_init(NULL), 0);
	return 0;
}

static int teardown(void **state)
{
	scxpol_topo_free(topo);
	fake_free(root);
	return fake_teardown(state);
}

/* What scxpol_pool_publish() does, with the fake maps for libbpf's. */
static int publish(const struct scxpol_pool_plan *plan, struct scxpol_pool_commit_args *a)
{
	struct scxpol_pool_conf conf = scxpol_pool_conf;
	struct scxpol_pool_staged st;
	u32 p, k, key;
	int r;

	r = scxpol_pool_stage_plan(plan, &conf, &st);
	if (r)
		return r;
	for (p = 0; p < st.nr_pools; p++) {
		bpf_map_update_elem(&scxpol_pool_stage, &p, &st.descs[p], 0);
		for (k = 0; k < conf.nr_words; k++) {
			key = p * conf.nr_words + k;
			bpf_map_update_elem(&scxpol_pool_stage_mask, &key, &st.masks[key], 0);
		}
		for (k = 0; k < st.descs[p].nr_order; k++) {
			key = p * conf.max_pools + k;
			bpf_map_update_elem(&scxpol_pool_stage_order, &key, &st.order[key], 0);
		}
	}
	for (k = 0; k < conf.nr_cpus; k++)
		bpf_map_update_elem(&scxpol_pool_stage_cpu, &k, &st.cpus[k], 0);
	memset(a, 0, sizeof(*a));
	a->nr_pools = st.nr_pools;
	scxpol_pool_staged_free(&st);
	return scxpol_pool_commit(a);
}

/* Pool @pool's published order list as "1,2,3". */
static const char *order_of(const struct scxpol_pool_view *v, u32 pool)
{
	static char buf[64];
	u32 k, key, n = scxpol_pool__slot(v, (s32)pool)->desc.nr_order;
	size_t o = 0;

	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		key = (pool * scxpol_pool_conf.max_pools + k) * 2 + v->half;
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%u", k ? "," : "",
				      *(u32 *)bpf_map_lookup_elem(&scxpol_pool_order, &key));
	}
	return buf;
}

static void test_domains_published_with_order_by_distance(void **state)
{
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_plan *plan;
	struct scxpol_pool_view v;

	(void)state;
	assert_non_null(plan = scxpol_pool_plan_domains(topo, 4, SCXPOL_POOL_STEAL));
	assert_int_equal(publish(plan, &a), 0);
	scxpol_pool_view(&v);
	assert_int_equal(v.gen, 1);
	assert_int_equal(v.nr_pools, 4);
	assert_int_equal(scxpol_pool_of_cpu(&v, 5), 2);
	assert_int_equal(scxpol_pool_cpu_info(&v, 5)->llc, 2);
	assert_int_equal(scxpol_pool_cpu_info(&v, 5)->node, 1);
	assert_string_equal(scxpol_pool__slot(&v, 3)->desc.name, "d3");
	assert_int_equal(scxpol_pool_nr_cpus(&v, 3), 2);
	assert_int_equal(scxpol_pool_flags(&v, 3), SCXPOL_POOL_STEAL);
	/* the other LLC of the node, then the other node's, the nearer index first */
	assert_string_equal(order_of(&v, 0), "1,2,3");
	assert_string_equal(order_of(&v, 1), "0,2,3");
	assert_string_equal(order_of(&v, 2), "3,1,0");
	assert_string_equal(order_of(&v, 3), "2,1,0");
	scxpol_pool_plan_free(plan);
}

static void test_stealing_takes_the_same_node_first(void **state)
{
	struct task_struct t1, t3, t0;
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_plan *plan;
	struct scxpol_pool_view v;
	s32 c;

	(void)state;
	assert_non_null(plan = scxpol_pool_plan_domains(topo, 4, SCXPOL_POOL_STEAL));
	assert_int_equal(publish(plan, &a), 0);
	for (c = 0; c < 8; c++)
		fake_set_idle(c, false);
	scxpol_pool_view(&v);
	fake_task_init(&t0, 10, "t0");
	fake_task_init(&t1, 11, "t1");
	fake_task_init(&t3, 13, "t3");
	scxpol_pool_enqueue(&v, &t0, NULL, 0, 0, 1000000);
	scxpol_pool_enqueue(&v, &t1, NULL, 1, 0, 1000000);
	scxpol_pool_enqueue(&v, &t3, NULL, 3, 0, 1000000);
	/* CPU 4 (d2, node 1): d3 before d1 and d0 (of the other node, d1 is nearer) */
	fake_set_cpu(4);
	assert_int_equal(scxpol_pool_dispatch(&v, 4), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(4, 0), &t3);
	assert_int_equal(scxpol_pool_dispatch(&v, 4), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(4, 1), &t1);
	/* CPU 2 (d1, node 0): its own pool first, then d0 */
	fake_set_cpu(2);
	assert_int_equal(scxpol_pool_dispatch(&v, 2), SCXPOL_POOL_SRC_STEAL);
	assert_ptr_equal(fake_local_at(2, 0), &t0);
	assert_int_equal(scxpol_pool_dispatch(&v, 2), SCXPOL_POOL_SRC_NONE);
	scxpol_pool_plan_free(plan);
}

static void test_resize_by_moving_cpus(void **state)
{
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_plan *plan;
	struct scxpol_pool_view v;

	(void)state;
	assert_non_null(plan = scxpol_pool_plan_split(topo, "lc", "bg", 2, SCXPOL_POOL_SOFT));
	assert_int_equal(publish(plan, &a), 0);
	scxpol_pool_view(&v);
	assert_int_equal(scxpol_pool_of_cpu(&v, 2), 1);
	assert_int_equal(scxpol_pool_nr_cpus(&v, 0), 2);
	/* grow lc by the nearest two CPUs of bg */
	assert_int_equal(scxpol_pool_plan_move(plan, 1, 0, 2), 0);
	assert_int_equal(publish(plan, &a), 0);
	assert_int_equal(a.gen, 2);
	scxpol_pool_view(&v);
	assert_int_equal(scxpol_pool_of_cpu(&v, 2), 0);
	assert_int_equal(scxpol_pool_of_cpu(&v, 3), 0);
	assert_int_equal(scxpol_pool_nr_cpus(&v, 0), 4);
	assert_int_equal(scxpol_pool_nr_cpus(&v, 1), 4);
	assert_int_equal(fake_nr_kicks(), 2);
	assert_int_equal(fake_kick_at(0)->cpu, 2);
	assert_int_equal(fake_kick_at(1)->cpu, 3);
	scxpol_pool_plan_free(plan);
}

/* The plan @text ("a=0-3 b=4-7"), soft pools. */
static struct scxpol_pool_plan *plan_of(const char *text)
{
	struct scxpol_pool_plan *plan = NULL;

	assert_non_null(plan = scxpol_pool_plan_parse(topo, text, SCXPOL_POOL_SOFT));
	return plan;
}

/*
 * A commit that runs out of cpumasks half way leaves nothing behind for
 * the next one, which builds the same half for the same generation: its
 * per-LLC masks hold the CPUs of the published plan only.
 */
static void test_failed_commit_leaves_no_llc_masks(void **state)
{
	struct scxpol_pool_plan *p1 = plan_of("a=0-3 b=4-7"), *p2 = plan_of("a=0-1 b=2-7");
	struct scxpol_pool_commit_args a;
	struct scxpol_pool_view v;
	const struct cpumask *m;
	u32 nr;

	(void)state;
	assert_int_equal(publish(p1, &a), 0);
	/* 2 pool masks, lend, steal, (a, LLC 0), (b, LLC 1); (b, LLC 2) fails */
	fake_cpumask_fail_after(6);
	assert_int_equal(publish(p2, &a), -ENOMEM);
	assert_int_equal(a.reason, SCXPOL_POOL_REJ_NOMEM);
	scxpol_pool_view(&v);
	assert_int_equal(v.gen, 1);
	fake_cpumask_fail_after(-1);
	assert_int_equal(publish(p1, &a), 0);
	scxpol_pool_view(&v);
	assert_int_equal(v.gen, 2);
	/* b has no CPU in LLC 1 (CPUs 2-3) in this plan */
	assert_null(scxpol_pool__llc(&v, 1, 1, &nr));
	m = scxpol_pool__llc(&v, 0, 0, &nr);
	assert_non_null(m);
	assert_int_equal(nr, 2);
	assert_true(fake_mask_test(m, 0) && fake_mask_test(m, 1));
	scxpol_pool_plan_free(p2);
	scxpol_pool_plan_free(p1);
}

/*
 * SCXPOL_POOL_REQ_COVER: a plan leaving online CPUs in no pool is rejected
 * (the first and how many) and counted; CPUs offline in the plan's
 * topology need no pool.
 */
static void test_cover_required(void **state)
{
	const struct fake_topo ft = { .nodes = 2, .llcs_per_node = 2, .cores_per_llc = 1,
				      .threads = 2, .offline = "6-7" };
	SCXPOL_OPTS(scxpol_topo_opts, o);
	struct scxpol_pool_plan *gap, *gap1, *full, *small;
	struct scxpol_pool_conf conf;
	struct scxpol_pool_commit_args a;
	struct scxpol_topo *t6;
	struct scxpol_pool_view v;
	char *root6;

	(void)state;
	assert_non_null(gap = scxpol_pool_plan_parse(topo, "a=0-3 b=4-5", 0));
	assert_non_null(full = scxpol_pool_plan_parse(topo, "a=0-3 b=4-7", 0));
	/* not required: CPUs in no pool are fine */
	assert_int_equal(publish(gap, &a), 0);
	scxpol_pool_conf.require = SCXPOL_POOL_REQ_COVER;
	assert_int_equal(publish(gap, &a), -EINVAL);
	assert_int_equal(a.reason, SCXPOL_POOL_REJ_UNCOVERED);
	assert_int_equal(a.pool, -1);
	assert_int_equal(a.cpu, 6);
	assert_int_equal(a.other, 2);
	assert_int_equal(fake_percpu_sum(&scxpol_stats, SCXPOL_STAT_POOL_REJECT), 1);
	conf = scxpol_pool_conf;
	assert_int_equal(scxpol_pool_explain("testpol", gap, &conf, &a), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "testpol: pool plan rejected: online CPUs 6-7 are in no pool; the policy "
			    "requires every online CPU in a pool");
	scxpol_pool_view(&v);
	assert_int_equal(v.gen, 1);
	assert_int_equal(scxpol_pool_of_cpu(&v, 6), -1);
	assert_non_null(gap1 = scxpol_pool_plan_parse(topo, "a=0-3 b=4-6", 0));
	assert_int_equal(publish(gap1, &a), -EINVAL);
	assert_int_equal(a.cpu, 7);
	assert_int_equal(a.other, 1);
	assert_int_equal(scxpol_pool_explain("testpol", gap1, &conf, &a), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "testpol: pool plan rejected: online CPU 7 is in no pool; the policy "
			    "requires every online CPU in a pool");
	assert_int_equal(fake_percpu_sum(&scxpol_stats, SCXPOL_STAT_POOL_REJECT), 2);
	assert_int_equal(publish(full, &a), 0);
	scxpol_pool_view(&v);
	assert_int_equal(v.gen, 2);
	assert_int_equal(scxpol_pool_of_cpu(&v, 6), 1);
	/* with 6-7 offline the same pools cover every online CPU */
	root6 = fake_sysfs(&ft);
	o.root = root6;
	t6 = scxpol_topo_load(&o);
	assert_non_null(t6);
	assert_non_null(small = scxpol_pool_plan_parse(t6, "a=0-3 b=4-5", 0));
	assert_int_equal(publish(small, &a), 0);
	assert_int_equal(fake_percpu_sum(&scxpol_stats, SCXPOL_STAT_POOL_REJECT), 2);
	scxpol_pool_conf.require = 0;
	scxpol_pool_plan_free(small);
	scxpol_topo_free(t6);
	fake_free(root6);
	scxpol_pool_plan_free(full);
	scxpol_pool_plan_free(gap1);
	scxpol_pool_plan_free(gap);
}

static void test_staging_errors(void **state)
{
	struct scxpol_pool_conf small = { .max_pools = 2, .nr_cpus = 8, .max_llcs = 8,
					  .nr_words = 1 };
	struct scxpol_pool_conf few = { .max_pools = 4, .nr_cpus = 4, .max_llcs = 4,
					.nr_words = 1 };
	struct scxpol_pool_plan *plan, *empty;
	struct scxpol_pool_staged st;

	(void)state;
	assert_non_null(plan = scxpol_pool_plan_domains(topo, 4, 0));
	assert_int_equal(scxpol_pool_stage_plan(plan, &small, &st), -E2BIG);
	assert_string_equal(scxpol_last_error(),
			    "pool plan has 4 pools; scxpol_pool_setup() sized the policy for 2");
	assert_int_equal(scxpol_pool_stage_plan(plan, &few, &st), -ERANGE);
	assert_string_equal(scxpol_last_error(), "pool \"d2\": CPU 4 is beyond the 4 possible "
			    "CPUs the policy was set up for");
	empty = scxpol_pool_plan_new(topo);
	assert_non_null(empty);
	assert_int_equal(scxpol_pool_stage_plan(empty, &small, &st), -EINVAL);
	assert_string_equal(scxpol_last_error(), "pool plan is empty: publish at least one pool");
	scxpol_pool_plan_free(empty);
	scxpol_pool_plan_free(plan);
}

static void test_staged_layout(void **state)
{
	struct scxpol_pool_conf conf = { .max_pools = 3, .nr_cpus = 8, .max_llcs = 8,
					 .nr_words = 1 };
	struct scxpol_pool_plan *plan;
	struct scxpol_pool_staged st;

	(void)state;
	assert_non_null(plan = scxpol_pool_plan_split(topo, "lc", "bg", 6, SCXPOL_POOL_SOFT));
	assert_int_equal(scxpol_pool_stage_plan(plan, &conf, &st), 0);
	assert_int_equal(st.nr_pools, 2);
	assert_string_equal(st.descs[0].name, "lc");
	assert_int_equal(st.descs[1].flags, SCXPOL_POOL_SOFT);
	assert_int_equal(st.masks[0], 0x3f);
	assert_int_equal(st.masks[1], 0xc0);
	assert_int_equal(st.cpus[6].pool, 1);
	assert_int_equal(st.cpus[6].llc, 3);
	assert_int_equal(st.cpus[6].node, 1);
	assert_int_equal(st.cpus[6].flags, SCXPOL_POOL_CPU_ONLINE);
	assert_int_equal(st.descs[0].nr_order, 1);
	assert_int_equal(st.order[0], 1);
	/* rows are max_pools apart */
	assert_int_equal(st.order[3], 0);
	scxpol_pool_staged_free(&st);
	scxpol_pool_plan_free(plan);
}

/*
 * Pools at one LLC distance (one LLC here): the serverless paper's victim
 * order, the neighbours expanding on each side, the lower one first.
 */
static void test_order_in_one_llc_expands_on_each_side(void **state)
{
	static const char *const want[8] = {
		"1,2,3,4,5,6,7", "0,2,3,4,5,6,7", "1,3,0,4,5,6,7", "2,4,1,5,0,6,7",
		"3,5,2,6,1,7,0", "4,6,3,7,2,1,0", "5,7,4,3,2,1,0", "6,5,4,3,2,1,0",
	};
	const struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4,
				      .threads = 2 };
	struct scxpol_pool_conf conf = { .max_pools = 8, .nr_cpus = 8, .max_llcs = 8,
					 .nr_words = 1 };
	SCXPOL_OPTS(scxpol_topo_opts, o);
	struct scxpol_pool_plan *plan;
	struct scxpol_pool_staged st;
	struct scxpol_topo *one;
	char got[64], *root1;
	u32 p, k;
	int n;

	(void)state;
	root1 = fake_sysfs(&ft);
	o.root = root1;
	one = scxpol_topo_load(&o);
	assert_non_null(one);
	assert_non_null(plan = scxpol_pool_plan_domains(one, 8, SCXPOL_POOL_STEAL));
	assert_int_equal(scxpol_pool_stage_plan(plan, &conf, &st), 0);
	for (p = 0; p < 8; p++) {
		assert_int_equal(st.descs[p].nr_order, 7);
		for (k = 0, n = 0; k < 7; k++)
			n += snprintf(got + n, sizeof(got) - (size_t)n, "%s%u", k ? "," : "",
				      st.order[p * 8 + k]);
		assert_string_equal(got, want[p]);
	}
	scxpol_pool_staged_free(&st);
	scxpol_pool_plan_free(plan);
	scxpol_topo_free(one);
	fake_free(root1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_domains_published_with_order_by_distance,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_stealing_takes_the_same_node_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resize_by_moving_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_commit_leaves_no_llc_masks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cover_required, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staging_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staged_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_in_one_llc_expands_on_each_side, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
