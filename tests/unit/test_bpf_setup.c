// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The userspace side of pools up to the kernel: scxpol_pool_setup() sizes
 * the maps of a real policy object (testpol) before load, and the calls
 * that need a loaded object fail with messages that say what to do.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/libbpf.h>

#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/topology.h>

#include "fake_sysfs.h"
#include "minimal.bpf.skel.h"
#include "testpol.bpf.skel.h"

SCXPOL_SKEL_DEFINE(minimal_bpf);
SCXPOL_SKEL_DEFINE(testpol_bpf);

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

struct hook {
	unsigned int max_pools;
	int ret;
	/* scxpol_pool_require(): its return, and the order of the two calls */
	unsigned int req;
	int req_ret;
	bool req_first;
};

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct hook *h = ctx;

	(void)skel;
	if (h->req && h->req_first)
		h->req_ret = scxpol_pool_require(s, h->req);
	h->ret = scxpol_pool_setup(s, h->max_pools);
	if (h->req && !h->req_first)
		h->req_ret = scxpol_pool_require(s, h->req);
	return 0;
}

static struct scxpol_sched *open_testpol(struct hook *h)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(testpol_bpf), .configure = configure,
		    .ctx = h);
	struct scxpol_sched *s;

	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	return s;
}

static unsigned int max_entries(struct scxpol_sched *s, const char *map)
{
	struct bpf_map *m = bpf_object__find_map_by_name(scxpol_sched_object(s), map);

	assert_non_null(m);
	return bpf_map__max_entries(m);
}

static void test_setup_sizes_maps(void **state)
{
	/* CI machines may have 2 CPUs: a pool per CPU */
	unsigned int n = (unsigned int)libbpf_num_possible_cpus(), p = n;
	struct hook h = { .max_pools = p };
	struct scxpol_sched *s = open_testpol(&h);
	struct testpol_bpf *t = scxpol_sched_skel(s);

	(void)state;
	assert_int_equal(h.ret, 0);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.max_pools, p);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.nr_cpus, n);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.max_llcs, n);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.nr_words, (n + 63) / 64);
	assert_int_equal(max_entries(s, "scxpol_pool_slots"), 2 * p);
	assert_int_equal(max_entries(s, "scxpol_pool_llcs"), 2 * p * n);
	assert_int_equal(max_entries(s, "scxpol_pool_cpus"), 2 * n);
	assert_int_equal(max_entries(s, "scxpol_pool_curr"), n);
	assert_int_equal(max_entries(s, "scxpol_pool_order"), 2 * p * p);
	assert_int_equal(max_entries(s, "scxpol_pool_clock"), p + 1);
	assert_int_equal(max_entries(s, "scxpol_pool_queued"), p + 1);
	assert_int_equal(max_entries(s, "scxpol_pool_pending"), p + 1);
	assert_int_equal(max_entries(s, "scxpol_pool_stage"), p);
	assert_int_equal(max_entries(s, "scxpol_pool_stage_mask"), p * ((n + 63) / 64));
	assert_int_equal(max_entries(s, "scxpol_pool_stage_cpu"), n);
	assert_int_equal(max_entries(s, "scxpol_pool_stage_order"), p * p);
	scxpol_sched_close(s);
}

static void test_setup_rejects_bad_max_pools(void **state)
{
	struct hook h = { .max_pools = 0 };
	struct scxpol_sched *s = open_testpol(&h);
	char want[256];
	int n = libbpf_num_possible_cpus();

	(void)state;
	assert_int_equal(h.ret, -EINVAL);
	snprintf(want, sizeof(want), "testpol: scxpol_pool_setup: max_pools 0: want 1..%d (a pool "
		 "needs a CPU; this machine has %d possible CPUs)", n, n);
	assert_string_equal(scxpol_last_error(), want);
	scxpol_sched_close(s);
	h.max_pools = (unsigned int)n + 1;
	s = open_testpol(&h);
	assert_int_equal(h.ret, -EINVAL);
	scxpol_sched_close(s);
}

struct planner {
	unsigned int calls;
	int ret;	/* the hook's return */
	bool no_plan;	/* 0 without a plan */
};

static struct scxpol_pool_plan *plan_hook(struct scxpol_sched *s, const struct scxpol_topo *topo,
					  void *ctx)
{
	struct planner *p = ctx;

	(void)s;
	p->calls++;
	if (p->ret || p->no_plan) {
		errno = -p->ret;
		return NULL;
	}
	return scxpol_pool_plan_split(topo, "a", "b", 1, SCXPOL_POOL_EXCLUSIVE);
}

/*
 * The plan hook runs at the open, over the topology of sysfs_root; the
 * library sizes the pool maps for its plan and keeps it
 * (scxpol_pool_plan_current()). A failed hook, or one that made no plan,
 * fails the open with a message.
 */
static void test_plan_hook(void **state)
{
	struct fake_topo ft = { .llcs_per_node = 1, .cores_per_llc = 2, .threads = 1 };
	char *root = fake_sysfs(&ft);
	struct planner p = { 0 };
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(testpol_bpf), .sysfs_root = root,
		    .plan = plan_hook, .ctx = &p);
	const struct scxpol_pool_plan *plan;
	struct scxpol_sched *s;
	struct testpol_bpf *t;

	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	assert_int_equal(p.calls, 1);
	plan = scxpol_pool_plan_current(s);
	assert_non_null(plan);
	assert_int_equal(scxpol_pool_plan_nr_pools(plan), 2);
	assert_int_equal(scxpol_cpuset_count(scxpol_pool_plan_cpus(plan, 1)), 1);
	/* the fake tree's 2 CPUs, not the host's */
	assert_int_equal(scxpol_cpuset_count(scxpol_topo_online(scxpol_pool_plan_topo(plan))), 2);
	t = scxpol_sched_skel(s);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.max_pools, 2);
	scxpol_sched_close(s);

	p.ret = -ENOSPC;
	assert_null(scxpol_sched_open(&o));
	assert_int_equal(errno, ENOSPC);
	assert_string_equal(scxpol_last_error(), "testpol: the plan hook failed: No space left "
			    "on device (it set no message)");
	p.ret = 0;
	p.no_plan = true;
	assert_null(scxpol_sched_open(&o));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), "testpol: the plan hook returned NULL without "
			    "setting errno");
	assert_int_equal(p.calls, 3);
	fake_free(root);
}

static void test_require(void **state)
{
	struct hook before = { .max_pools = 1, .req = SCXPOL_POOL_REQ_COVER, .req_first = true };
	struct hook after = { .max_pools = 1, .req = SCXPOL_POOL_REQ_COVER };
	struct hook bad = { .max_pools = 1, .req = 0x6 };
	struct scxpol_sched *s;
	struct testpol_bpf *t;

	(void)state;
	/* either order: setup keeps what was required */
	s = open_testpol(&before);
	t = scxpol_sched_skel(s);
	assert_int_equal(before.req_ret, 0);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.require, SCXPOL_POOL_REQ_COVER);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.max_pools, 1);
	scxpol_sched_close(s);
	s = open_testpol(&after);
	t = scxpol_sched_skel(s);
	assert_int_equal(after.req_ret, 0);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.require, SCXPOL_POOL_REQ_COVER);
	/* and 0 takes it back */
	assert_int_equal(scxpol_pool_require(s, 0), 0);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.require, 0);
	scxpol_sched_close(s);
	s = open_testpol(&bad);
	t = scxpol_sched_skel(s);
	assert_int_equal(bad.req_ret, -EINVAL);
	assert_int_equal(t->rodata_scxpol_pool->scxpol_pool_conf.require, 0);
	assert_int_equal(scxpol_pool_require(s, 0x6), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "testpol: scxpol_pool_require: unknown requirements 0x6");
	scxpol_sched_close(s);
}

static void test_policy_without_pools(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf));
	struct scxpol_sched *s;

	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	assert_int_equal(scxpol_pool_setup(s, 2), -ENOENT);
	assert_string_equal(scxpol_last_error(),
			    "minimal: the BPF object has no section '.rodata.scxpol_pool': the policy "
			    "must include <scxpol/pool.bpf.h> to use pools");
	assert_int_equal(scxpol_pool_require(s, SCXPOL_POOL_REQ_COVER), -ENOENT);
	assert_string_equal(scxpol_last_error(),
			    "minimal: the BPF object has no section '.rodata.scxpol_pool': the policy "
			    "must include <scxpol/pool.bpf.h> to use pools");
	scxpol_sched_close(s);
}

static void test_publish_needs_setup_and_load(void **state)
{
	struct hook h = { .max_pools = 1 };
	struct scxpol_pool_plan *plan;
	struct scxpol_topo *t;
	struct scxpol_sched *s;
	unsigned long long gen;

	(void)state;
	t = scxpol_topo_load(NULL);
	assert_non_null(t);
	plan = scxpol_pool_plan_new(t);
	assert_non_null(plan);
	assert_true(scxpol_pool_plan_add(plan, "all", 0, scxpol_topo_online(t)) >= 0);
	/* sized but not loaded */
	s = open_testpol(&h);
	assert_int_equal(scxpol_pool_publish(s, plan), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "testpol: the policy is not loaded: publish pools after "
			    "scxpol_sched_load() (e.g. from the loaded hook)");
	assert_int_equal(scxpol_pool_publish(s, NULL), -EINVAL);
	assert_string_equal(scxpol_last_error(), "testpol: scxpol_pool_publish: plan is NULL");
	assert_int_equal(scxpol_pool_read(s, &gen, NULL, 0, NULL), -EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "testpol: the policy is not loaded: publish pools after "
			    "scxpol_sched_load() (e.g. from the loaded hook)");
	scxpol_sched_close(s);
	/* not sized: the configure hook did not call scxpol_pool_setup() */
	{
		SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(testpol_bpf));

		s = scxpol_sched_open(&o);
		assert_non_null(s);
		assert_int_equal(scxpol_pool_publish(s, plan), -EINVAL);
		assert_string_equal(scxpol_last_error(),
				    "testpol: scxpol_pool_publish: the pool maps are not sized; "
				    "call scxpol_pool_setup() from the configure hook");
		scxpol_sched_close(s);
	}
	scxpol_pool_plan_free(plan);
	scxpol_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_sizes_maps),
		cmocka_unit_test(test_setup_rejects_bad_max_pools),
		cmocka_unit_test(test_require),
		cmocka_unit_test(test_plan_hook),
		cmocka_unit_test(test_policy_without_pools),
		cmocka_unit_test(test_publish_needs_setup_and_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
