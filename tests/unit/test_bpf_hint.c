// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/hint.bpf.h on the host fake kernel: precedence, field
 * merging, validation against the meta limits, the per-task cache, thread
 * slots, hints of earlier tasks with the same id, and the cleanup
 * callbacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fake_hint.h"
#include <scxpol/common.bpf.h>
#include <scxpol/hint.bpf.h>

/* root (1) > a (10) > b (20) > c (30) */
static struct fake_cgroup root, a, b, c;
static struct signal_struct sig;
/* p: thread 100 of process 99, whose leader is leader */
static struct task_struct p, leader;
static struct pid p_pid = { .ino = 1100 }, leader_pid = { .ino = 1099 };

/* The identity of the task that has id @id: p's, the leader's, or none. */
static u64 ino_of(u64 id)
{
	return id == 100 ? p_pid.ino : id == 99 ? leader_pid.ino : 0;
}

static struct scxpol_hint_meta *meta(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&scxpol_hint_meta, &zero);
}

static u64 *gen(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&scxpol_hint_gen, &zero);
}

/* What userspace does after a write. */
static void bump(void)
{
	(*gen())++;
}

/* A task hint for @key set for the task of identity @ino. */
static void put_task(void *map, u32 key, u64 ino, s32 pool, u32 class, u32 imp, u32 flags)
{
	struct scxpol_hint_task ht = {
		.hint = { .pool = pool, .class_id = class, .importance = imp, .flags = flags },
		.pid_ino = ino,
	};

	if (map == &scxpol_hint_tgid)
		assert_int_equal(bpf_map_update_elem(&scxpol_hint_tgid, &key, &ht, BPF_ANY), 0);
	else
		assert_int_equal(bpf_map_update_elem(&scxpol_hint_tid, &key, &ht, BPF_ANY), 0);
	bump();
}

/* A hint for @key: of the cgroup, or of the task that has the id now. */
static void put(void *map, u64 key, s32 pool, u32 class, u32 imp, u32 flags)
{
	struct scxpol_hint h = { .pool = pool, .class_id = class, .importance = imp, .flags = flags };

	if (map != &scxpol_hint_cgrp) {
		put_task(map, (u32)key, ino_of(key), pool, class, imp, flags);
		return;
	}
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_cgrp, &key, &h, BPF_ANY), 0);
	bump();
}

static u64 stat(enum scxpol_stat s)
{
	return fake_percpu_sum(&scxpol_stats, s);
}

static int setup(void **state)
{
	struct scxpol_hint_meta *m;

	(void)state;
	fake_reset(4);
	fake_cgroup_init(&root, 1, NULL);
	fake_cgroup_init(&a, 10, &root);
	fake_cgroup_init(&b, 20, &a);
	fake_cgroup_init(&c, 30, &b);
	fake_task_init(&p, 100, "worker");
	fake_task_init(&leader, 99, "leader");
	p.tgid = 99;
	p.signal = leader.signal = &sig;
	p.group_leader = &leader;
	fake_task_hash(&p, &p_pid);
	fake_task_hash(&leader, &leader_pid);
	sig.live.counter = 2;
	fake_task_set_cgroup(&p, &c);
	assert_int_equal(scxpol_task_init(&p), 0);
	m = meta();
	m->nr_pools = 4;
	m->nr_classes = 3;
	m->max_importance = 7;
	m->nr_slots = SCXPOL_HINT_MAX_SLOTS;
	*gen() = 1;
	return 0;
}

static void test_no_hint_is_a_miss(void **state)
{
	struct scxpol_hint h;

	(void)state;
	assert_false(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, 0);
	assert_int_equal(h.pool, SCXPOL_HINT_POOL_NONE);
	assert_int_equal(h.class_id, 0);
	assert_int_equal(stat(SCXPOL_STAT_HINT_MISS), 1);
	assert_int_equal(stat(SCXPOL_STAT_HINT_HIT), 0);
}

static void test_precedence_tid_tgid_cgroup(void **state)
{
	struct scxpol_hint h;

	(void)state;
	put(&scxpol_hint_cgrp, 30, 0, 0, 0, SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_tgid, 99, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_tid, 100, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 2);

	assert_int_equal(bpf_map_delete_elem(&scxpol_hint_tid, &(u32){ 100 }), 0);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 1);

	assert_int_equal(bpf_map_delete_elem(&scxpol_hint_tgid, &(u32){ 99 }), 0);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 0);
	assert_int_equal(h.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(stat(SCXPOL_STAT_HINT_HIT), 3);
}

static void test_fields_merge_across_levels(void **state)
{
	struct scxpol_hint h;

	(void)state;
	/* each source supplies one field; a nearer one wins per field */
	put(&scxpol_hint_tid, 100, 0, 0, 5, SCXPOL_HINT_F_IMPORTANCE);
	put(&scxpol_hint_tgid, 99, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_cgrp, 10, 3, 1, 1, SCXPOL_HINT_F_ALL);
	put(&scxpol_hint_cgrp, 20, 1, 0, 0, SCXPOL_HINT_F_POOL);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, SCXPOL_HINT_F_ALL);
	assert_int_equal(h.importance, 5);
	assert_int_equal(h.class_id, 2);
	assert_int_equal(h.pool, 1);
}

static void test_ancestors_nearest_first(void **state)
{
	struct scxpol_hint h;

	(void)state;
	put(&scxpol_hint_cgrp, 1, 0, 0, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 0);
	put(&scxpol_hint_cgrp, 10, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 1);
	put(&scxpol_hint_cgrp, 30, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 2);
}

static void test_depth_is_bounded(void **state)
{
	struct fake_cgroup chain[SCXPOL_HINT_CGROUP_DEPTH + 1];
	struct scxpol_hint h;
	int i;

	(void)state;
	/* chain[0] is the top; the task sits in the last one */
	fake_cgroup_init(&chain[0], 1000, &root);
	for (i = 1; i <= SCXPOL_HINT_CGROUP_DEPTH; i++)
		fake_cgroup_init(&chain[i], 1000 + (u64)i, &chain[i - 1]);
	fake_task_set_cgroup(&p, &chain[SCXPOL_HINT_CGROUP_DEPTH]);
	/* SCXPOL_HINT_CGROUP_DEPTH + 1 levels up: not searched */
	put(&scxpol_hint_cgrp, 1000, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	assert_false(scxpol_hint_lookup(&p, &h));
	/* the outermost level searched */
	put(&scxpol_hint_cgrp, 1001, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 2);
}

static void test_out_of_range_fields_are_rejected(void **state)
{
	struct scxpol_hint h;

	(void)state;
	/* tid: class 3 >= nr_classes 3, importance 8 > 7: both refused */
	put(&scxpol_hint_tid, 100, 0, 3, 8, SCXPOL_HINT_F_CLASS | SCXPOL_HINT_F_IMPORTANCE);
	/* tgid: pool 4 >= nr_pools; class 1 valid and now the nearest */
	put(&scxpol_hint_tgid, 99, 4, 1, 0, SCXPOL_HINT_F_POOL | SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_cgrp, 30, -7, 0, 0, SCXPOL_HINT_F_POOL);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(h.class_id, 1);
	assert_int_equal(h.pool, SCXPOL_HINT_POOL_NONE);
	assert_int_equal(h.importance, 0);
	assert_int_equal(stat(SCXPOL_STAT_HINT_REJECT), 4);

	/* SCXPOL_HINT_POOL_NONE is a valid explicit "no pool" */
	put(&scxpol_hint_cgrp, 30, SCXPOL_HINT_POOL_NONE, 0, 0, SCXPOL_HINT_F_POOL);
	put(&scxpol_hint_cgrp, 20, 2, 0, 0, SCXPOL_HINT_F_POOL);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_true(h.flags & SCXPOL_HINT_F_POOL);
	assert_int_equal(h.pool, SCXPOL_HINT_POOL_NONE);
}

static void test_limits_follow_meta(void **state)
{
	struct scxpol_hint h;

	(void)state;
	put(&scxpol_hint_tid, 100, 0, 5, 0, SCXPOL_HINT_F_CLASS);
	assert_false(scxpol_hint_lookup(&p, &h));
	assert_int_equal(stat(SCXPOL_STAT_HINT_REJECT), 1);
	/* the policy publishes wider limits (and bumps gen) */
	meta()->nr_classes = 6;
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 5);
}

static void test_cache_follows_gen_and_cgroup(void **state)
{
	struct scxpol_hint h;

	(void)state;
	put(&scxpol_hint_tid, 100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 1);
	/* a write without a gen bump is not seen: the cached hint is used */
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_tid, &(u32){ 100 },
					     &((struct scxpol_hint_task){
						     .hint = { .class_id = 2,
							       .flags = SCXPOL_HINT_F_CLASS },
						     .pid_ino = p_pid.ino }),
					     BPF_ANY), 0);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 1);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 2);

	/* moving to another cgroup resolves again without a bump */
	assert_int_equal(bpf_map_delete_elem(&scxpol_hint_tid, &(u32){ 100 }), 0);
	bump();
	put(&scxpol_hint_cgrp, 20, 0, 0, 3, SCXPOL_HINT_F_IMPORTANCE);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 3);
	fake_task_set_cgroup(&p, &a);
	assert_false(scxpol_hint_lookup(&p, &h));
	fake_task_set_cgroup(&p, &b);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 3);

	/*
	 * an exec by a non-leader thread gives it the leader's tid (and the
	 * old tid's entries go without a bump): it resolves again
	 */
	put(&scxpol_hint_tid, 99, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, SCXPOL_HINT_F_IMPORTANCE);
	put(&scxpol_hint_tid, 100, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 2);
	p.pid = 99;
	p.thread_pid = &leader_pid;
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.class_id, 1);
	p.pid = 100;
	p.thread_pid = &p_pid;

	/* without a task context nothing is cached and the maps are read each time */
	assert_true(scxpol_hint_lookup_ctx(NULL, &p, &h));
	assert_int_equal(h.importance, 3);
}

/* Slot @idx registered by the task that has tid @tid now. */
static void set_slot(u32 idx, u32 tid, u32 imp)
{
	struct scxpol_hint_slot *s = bpf_map_lookup_elem(&scxpol_hint_slots, &idx);

	assert_non_null(s);
	s->tid = tid;
	s->importance = imp;
	s->pid_ino = ino_of(tid);
}

static void test_slot_importance_overrides(void **state)
{
	struct scxpol_hint h;
	u32 tid = 100, idx = 5;

	(void)state;
	put(&scxpol_hint_tid, 100, 0, 1, 2, SCXPOL_HINT_F_CLASS | SCXPOL_HINT_F_IMPORTANCE);
	set_slot(5, 100, 6);
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 6);
	assert_int_equal(h.class_id, 1);

	/* the thread flips it: seen at once, no gen bump needed */
	set_slot(5, 100, 0);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 0);
	assert_true(h.flags & SCXPOL_HINT_F_IMPORTANCE);

	/* out of range: ignored, the map hint's importance stays */
	set_slot(5, 100, 8);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 2);
	assert_int_equal(stat(SCXPOL_STAT_HINT_REJECT), 1);

	/* the slot went to another thread: ignored */
	set_slot(5, 555, 7);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.importance, 2);
}

static void test_task_exit_keeps_live_tasks(void **state)
{
	struct scxpol_hint h;
	u32 tid = 100, idx = 3;

	(void)state;
	put(&scxpol_hint_tid, 100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	p.tgid = 100;
	p.group_leader = &p;
	put(&scxpol_hint_tgid, 100, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	set_slot(3, 100, 4);
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	/* the scheduler is unloaded: exit_task for a live task */
	scxpol_hint_task_exit(&p);
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_tid, &tid));
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_tgid, &tid));
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid));
	assert_true(scxpol_hint_lookup(&p, &h));
}

static void test_task_exit_removes_dead_tasks(void **state)
{
	struct scxpol_hint_slot *s;
	u32 tid = 100, idx = 3;

	(void)state;
	p.tgid = 100;
	p.group_leader = &p;
	put(&scxpol_hint_tid, 100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_tgid, 100, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	set_slot(3, 100, 4);
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	p.flags |= SCXPOL_PF_EXITING;
	/* the leader exits while another thread lives (an exec): the process stays */
	scxpol_hint_task_exit(&p);
	assert_null(bpf_map_lookup_elem(&scxpol_hint_tid, &tid));
	assert_null(bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid));
	s = bpf_map_lookup_elem(&scxpol_hint_slots, &idx);
	assert_int_equal(s->tid, 0);
	assert_int_equal(s->importance, 0);
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_tgid, &tid));
	/* the last thread gone */
	sig.live.counter = 0;
	scxpol_hint_task_exit(&p);
	assert_null(bpf_map_lookup_elem(&scxpol_hint_tgid, &tid));
}

static void test_task_exit_leaves_reclaimed_slot(void **state)
{
	struct scxpol_hint_slot *s;
	u32 tid = 100, idx = 3;

	(void)state;
	/* a pruner freed the slot and another thread claimed it */
	set_slot(3, 777, 5);
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	p.flags |= SCXPOL_PF_EXITING;
	scxpol_hint_task_exit(&p);
	s = bpf_map_lookup_elem(&scxpol_hint_slots, &idx);
	assert_int_equal(s->tid, 777);
	assert_int_equal(s->importance, 5);
	assert_null(bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid));
}

/*
 * Ids are reused: a hint set for an earlier task with p's tid or p's
 * process's tgid (it died while no policy ran, or between the writer's
 * look and its write) is not p's. Ignored and counted; p's own applies.
 */
static void test_earlier_tasks_hints_ignored(void **state)
{
	struct scxpol_hint h;
	u32 tid = 100, idx = 5;

	(void)state;
	put(&scxpol_hint_cgrp, 30, 0, 0, 0, SCXPOL_HINT_F_CLASS);
	put_task(&scxpol_hint_tid, 100, 555, 0, 2, 7, SCXPOL_HINT_F_CLASS | SCXPOL_HINT_F_IMPORTANCE);
	put_task(&scxpol_hint_tgid, 99, 556, 3, 1, 0, SCXPOL_HINT_F_CLASS | SCXPOL_HINT_F_POOL);
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, SCXPOL_HINT_F_CLASS);
	assert_int_equal(h.class_id, 0);
	assert_int_equal(stat(SCXPOL_STAT_HINT_STALE), 2);
	assert_int_equal(stat(SCXPOL_STAT_HINT_REJECT), 0);

	/* a slot an earlier thread with tid 100 registered */
	set_slot(5, 100, 6);
	((struct scxpol_hint_slot *)bpf_map_lookup_elem(&scxpol_hint_slots, &idx))->pid_ino = 555;
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_false(h.flags & SCXPOL_HINT_F_IMPORTANCE);
	assert_int_equal(stat(SCXPOL_STAT_HINT_STALE), 5);

	/* written again for p and its process: theirs */
	put(&scxpol_hint_tid, 100, 0, 2, 0, SCXPOL_HINT_F_CLASS);
	put(&scxpol_hint_tgid, 99, 3, 0, 0, SCXPOL_HINT_F_POOL);
	set_slot(5, 100, 6);
	bump();
	assert_true(scxpol_hint_lookup(&p, &h));
	assert_int_equal(h.flags, SCXPOL_HINT_F_ALL);
	assert_int_equal(h.class_id, 2);
	assert_int_equal(h.pool, 3);
	assert_int_equal(h.importance, 6);
	assert_int_equal(stat(SCXPOL_STAT_HINT_STALE), 5);
}

/*
 * The kernel runs ops.exit_task as late as the last reference to a task:
 * by then its id may be another task's, with a hint and a slot of its own.
 * exit_task leaves those, and takes its own (or an earlier task's).
 */
static void test_task_exit_spares_successor(void **state)
{
	static struct task_struct q;
	static struct pid q_pid = { .ino = 2100 };
	struct scxpol_hint_slot *s;
	u32 tid = 100, idx = 3;

	(void)state;
	p.tgid = 100;
	p.group_leader = &p;
	p.flags |= SCXPOL_PF_EXITING;
	sig.live.counter = 0;
	fake_task_unhash(&p);
	fake_task_init(&q, 100, "successor");
	q.group_leader = &q;
	fake_task_hash(&q, &q_pid);
	put_task(&scxpol_hint_tid, 100, 2100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	put_task(&scxpol_hint_tgid, 100, 2100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	set_slot(3, 100, 4);
	s = bpf_map_lookup_elem(&scxpol_hint_slots, &idx);
	s->pid_ino = 2100;
	assert_int_equal(bpf_map_update_elem(&scxpol_hint_slot_idx, &tid, &idx, BPF_ANY), 0);
	scxpol_hint_task_exit(&p);
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_tid, &tid));
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_tgid, &tid));
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid));
	assert_int_equal(s->tid, 100);
	assert_int_equal(s->importance, 4);
	assert_int_equal(fake_tasks_held(), 0);

	/* entries of p itself, or of a task before it, go */
	put_task(&scxpol_hint_tid, 100, 1100, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	put_task(&scxpol_hint_tgid, 100, 7, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	s->pid_ino = 1100;
	scxpol_hint_task_exit(&p);
	assert_null(bpf_map_lookup_elem(&scxpol_hint_tid, &tid));
	assert_null(bpf_map_lookup_elem(&scxpol_hint_tgid, &tid));
	assert_null(bpf_map_lookup_elem(&scxpol_hint_slot_idx, &tid));
	assert_int_equal(s->tid, 0);
	assert_int_equal(fake_tasks_held(), 0);
	fake_task_unhash(&q);
}

static void test_cgroup_exit(void **state)
{
	u64 id = 20;

	(void)state;
	put(&scxpol_hint_cgrp, 20, 0, 1, 0, SCXPOL_HINT_F_CLASS);
	/* the scheduler is unloaded: the cgroup lives on */
	scxpol_hint_cgroup_exit(&b.cgrp);
	assert_non_null(bpf_map_lookup_elem(&scxpol_hint_cgrp, &id));
	/* rmdir */
	fake_cgroup_offline(&b);
	scxpol_hint_cgroup_exit(&b.cgrp);
	assert_null(bpf_map_lookup_elem(&scxpol_hint_cgrp, &id));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_hint_is_a_miss, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_precedence_tid_tgid_cgroup, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_fields_merge_across_levels, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_ancestors_nearest_first, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_depth_is_bounded, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_out_of_range_fields_are_rejected, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_limits_follow_meta, setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cache_follows_gen_and_cgroup, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_slot_importance_overrides, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_task_exit_keeps_live_tasks, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_task_exit_removes_dead_tasks, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_task_exit_leaves_reclaimed_slot, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_earlier_tasks_hints_ignored, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_task_exit_spares_successor, setup,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_exit, setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
