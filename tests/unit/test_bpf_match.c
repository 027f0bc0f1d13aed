// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/match.bpf.h on the host fake kernel: cgroup rules (nearest
 * ancestor), comm rules (longest prefix), cgroup before comm, and the
 * per-task cache of scxpol_match_ctx(): what invalidates it (a rule
 * generation bump, a cgroup move, a comm change) and what does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fake_hint.h"
#include <scxpol/common.bpf.h>
#include <scxpol/match.bpf.h>

/* root (1) > a (10) > b (20); root > other (30) */
static struct fake_cgroup root, a, b, other;
static struct task_struct p;

/* What scxpol_match_add() does after a write. */
static void bump(void)
{
	u32 zero = 0;
	struct scxpol_match_meta *m = bpf_map_lookup_elem(&scxpol_match_meta, &zero);

	assert_non_null(m);
	m->gen++;
}

/* Rule writes without the bump: what a cached task must not see yet. */
static void put_cgroup_quiet(u64 id, s32 value)
{
	assert_int_equal(bpf_map_update_elem(&scxpol_match_cgroups, &id, &value, BPF_ANY), 0);
}

static void put_cgroup(u64 id, s32 value)
{
	put_cgroup_quiet(id, value);
	bump();
}

/* A comm rule as scxpol_match_comm_pattern() builds it: "lc-*" or "bg-hog". */
static struct scxpol_match_comm_key comm_key(const char *pattern)
{
	struct scxpol_match_comm_key key;
	size_t len = strlen(pattern);
	bool prefix = pattern[len - 1] == '*';

	memset(&key, 0, sizeof(key));
	memcpy(key.comm, pattern, prefix ? len - 1 : len);
	key.prefixlen = 8 * (u32)(prefix ? len - 1 : len + 1);
	return key;
}

static void put_comm(const char *pattern, s32 value)
{
	struct scxpol_match_comm_key key = comm_key(pattern);

	assert_int_equal(bpf_map_update_elem(&scxpol_match_comms, &key, &value, BPF_ANY), 0);
	bump();
}

/* What prctl(PR_SET_NAME) does: a NUL-padded copy (strscpy_pad). */
static void rename_task(const char *comm)
{
	memset(p.comm, 0, sizeof(p.comm));
	memcpy(p.comm, comm, strnlen(comm, sizeof(p.comm) - 1));
}

static enum scxpol_match_by match(s32 *value)
{
	*value = -7;
	return scxpol_match_ctx(scxpol_task_ctx(&p), &p, value);
}

static int setup(void **state)
{
	(void)state;
	fake_reset(4);
	fake_cgroup_init(&root, 1, NULL);
	fake_cgroup_init(&a, 10, &root);
	fake_cgroup_init(&b, 20, &a);
	fake_cgroup_init(&other, 30, &root);
	fake_task_init(&p, 100, "worker");
	fake_task_set_cgroup(&p, &b);
	assert_int_equal(scxpol_task_init(&p), 0);
	return 0;
}

static void test_no_rule(void **state)
{
	s32 v;

	(void)state;
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_NONE);
	assert_int_equal(v, -7); /* untouched */
	assert_false(scxpol_match_cgroup(&p, &v));
	assert_false(scxpol_match_comm(&p, &v));
}

static void test_nearest_cgroup_rule_wins(void **state)
{
	s32 v;

	(void)state;
	put_cgroup(10, 1);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 1);
	put_cgroup(20, 2);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 2);
	assert_true(scxpol_match_cgroup(&p, &v));
	assert_int_equal(v, 2);
}

static void test_longest_comm_rule_wins(void **state)
{
	s32 v;

	(void)state;
	put_comm("wor*", 1);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 1);
	put_comm("worker", 2);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 2);
	/* an exact rule covers the NUL: not "worker2" */
	rename_task("worker2");
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 1);
	assert_true(scxpol_match_comm(&p, &v));
	assert_int_equal(v, 1);
}

static void test_cgroup_before_comm(void **state)
{
	s32 v;

	(void)state;
	put_comm("worker", 2);
	put_cgroup(1, 5);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 5);
}

/* Rules written without a bump are not seen by a task that has a cached match... */
static void test_cache_until_rule_gen_changes(void **state)
{
	s32 v;

	(void)state;
	put_cgroup(10, 1);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	put_cgroup_quiet(20, 2);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 1); /* cached */
	bump();
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 2);

	/* a cached "no rule" too */
	rename_task("idle");
	assert_int_equal(bpf_map_delete_elem(&scxpol_match_cgroups, &(u64){ 10 }), 0);
	assert_int_equal(bpf_map_delete_elem(&scxpol_match_cgroups, &(u64){ 20 }), 0);
	bump();
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_NONE);
	put_cgroup_quiet(20, 3);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_NONE);
	bump();
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 3);
}

/* ... but one that moved to another cgroup is, at its next lookup. */
static void test_cgroup_move_invalidates(void **state)
{
	s32 v;

	(void)state;
	put_comm("worker", 2);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	put_cgroup_quiet(30, 4);
	fake_task_set_cgroup(&p, &other);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 4);
	fake_task_set_cgroup(&p, &b);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 2);
}

/* And so is one that renamed itself, whichever byte changed. */
static void test_comm_change_invalidates(void **state)
{
	s32 v;

	(void)state;
	put_comm("lc-*", 1);
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_NONE);
	rename_task("lc-worker");
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 1);
	/* the last byte of a 15-character comm: the cache compares all 16 */
	put_comm("lc-worker-12345", 2);
	rename_task("lc-worker-12346");
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 1);
	rename_task("lc-worker-12345");
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 2);
	rename_task("bg");
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_NONE);
}

/* Without a task context nothing is cached. */
static void test_no_ctx_no_cache(void **state)
{
	s32 v = -7;

	(void)state;
	put_cgroup(10, 1);
	assert_int_equal(scxpol_match_ctx(NULL, &p, &v), SCXPOL_MATCH_BY_CGROUP);
	put_cgroup_quiet(20, 2);
	assert_int_equal(scxpol_match_ctx(NULL, &p, &v), SCXPOL_MATCH_BY_CGROUP);
	assert_int_equal(v, 2);
}

/* A task in no cgroup2 cgroup (NULL css_set) has only its comm rules. */
static void test_no_cgroup(void **state)
{
	s32 v;

	(void)state;
	put_cgroup(1, 5);
	put_comm("worker", 2);
	p.cgroups = NULL;
	assert_int_equal(match(&v), SCXPOL_MATCH_BY_COMM);
	assert_int_equal(v, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_rule, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_nearest_cgroup_rule_wins, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_longest_comm_rule_wins, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_before_comm, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cache_until_rule_gen_changes, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_move_invalidates, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_comm_change_invalidates, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_ctx_no_cache, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_cgroup, setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
