// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * bpf-lib/scxpol/pool.bpf.h on the host fake kernel, the watch (the timer
 * behind lost races): the pending counts that let dispatch skip empty
 * queues, and their repair; a CPU woken for a lost wakeup, not for a kick
 * still on its way; a stranded head rescued; the kicks of a dying CPU sent
 * from a live one; and no look after the scheduler exited.
 */
#include "bpf_pool_fixture.h"

static struct scxpol_pool_watch *watch(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&scxpol_pool_watch, &zero);
}

/* The watch's timer fires: returns the kicks it made, as "cpu,cpu". */
static const char *fire(void)
{
	static char buf[64];
	struct scxpol_pool_watch *w = watch();
	unsigned int i;
	size_t o = 0;

	fake_clear_kicks();
	fake_timer_clear(&w->timer);
	assert_int_equal(scxpol_pool__watch_fn(&scxpol_pool_watch, NULL, w), 0);
	buf[0] = '\0';
	for (i = 0; i < fake_nr_kicks(); i++) {
		assert_int_equal(fake_kick_at(i)->flags, SCXPOL_KICK_IDLE);
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", i ? "," : "",
				      fake_kick_at(i)->cpu);
	}
	return buf;
}

static void test_init_starts_the_watch(void **state)
{
	struct scxpol_pool_watch *w = watch();

	(void)state;
	assert_ptr_equal(fake_timer_cb(&w->timer), (void *)scxpol_pool__watch_fn);
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
	/* the same object attached again: its timer is already set up */
	fake_timer_clear(&w->timer);
	assert_int_equal(scxpol_pool__watch_start(), 0);
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
	/* nothing queued: it looks again, waking no one */
	assert_string_equal(fire(), "");
	assert_int_equal(fake_timer_ns(&w->timer), SCXPOL_POOL_WATCH_NS);
}

/*
 * The pending counts (scxpol_pool__pending_add()): a task queued by
 * scxpol_pool_enqueue() counts on its queue until it runs, is dequeued or
 * is enqueued again, and a dispatch that finds every count at 0 looks at
 * no queue. Each case can fail: a count that stayed up would make the
 * last dispatch look at the queues, one dropped early would skip a task.
 */
static void test_pending_counts_skip_empty_queues(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_STEAL, "0-1", "1" },
				      { "d1", SCXPOL_POOL_STEAL, "2-3", "0" } };
	struct task_struct *p = task(0, 0), *q = task(1, 0);
	u32 d0 = 0, shared = scxpol_pool_conf.max_pools;
	unsigned int moves;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	enqueue(p, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	assert_int_equal(scxpol_task_ctx(p)->pending, d0 + 1);
	/* taken by another domain's CPU (a steal): counted until it runs */
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_STEAL);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	/* enqueued again from there without having run (the kernel re-enqueues): still one */
	assert_ptr_equal(fake_local_pop(2), p);
	enqueue(p, 0, 0);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 1);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_STEAL);
	running(fake_local_pop(2));
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d0), 0);
	assert_int_equal(scxpol_task_ctx(p)->pending, 0);
	/* dequeued from the shared queue (a property change): ops.quiescent drops it */
	enqueue(q, SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &shared), 1);
	scxpol_pool_quiescent(scxpol_task_ctx(q), 0);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &shared), 0);
	/* every count 0: a dispatch moves from no queue (q is still on the fake's shared queue) */
	moves = fake_nr_moves();
	assert_int_equal(dispatch(0), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_nr_moves(), moves);
	assert_int_equal(fake_nr_errors(), 0);
}

/*
 * A task a policy put on a pool's queue itself, past scxpol_pool_enqueue(),
 * has no count: dispatch skips it until the watch finds it there, marks
 * the count (pending_repair) and wakes a CPU, which then takes it. A look
 * that finds the queue empty takes the mark off again.
 */
static void test_watch_repairs_an_uncounted_queue(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", "1" }, { "d1", 0, "2-3", "0" } };
	struct task_struct *p = task(0, 0);
	u32 d1 = 1;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	scxpol_dsq_insert_vtime(p, SCXPOL_DSQ_POOL(1), SLICE, 0, 0);
	fake_set_idle(2, true);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	assert_string_equal(fire(), "2");
	assert_int_equal(stat(SCXPOL_STAT_PENDING_REPAIR), 1);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d1), SCXPOL_POOL__REPAIRED);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(2, 0), p);
	/* a count already up is left alone */
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_PENDING_REPAIR), 1);
	/* the next look finds the queue empty and takes the mark off: a counted task stays counted */
	scxpol_pool__pending_add(NULL, SCXPOL_DSQ_POOL(1));
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_NONE);
	assert_int_equal(*(s64 *)bpf_map_lookup_elem(&scxpol_pool_pending, &d1), 1);
}

/*
 * An enqueue found d1's CPUs busy, so it woke none, and then CPU 3 went
 * idle (the race of a CPU that has just found nothing to dispatch): once
 * the task has waited a whole watch period, the watch wakes CPU 3, which
 * takes it; before, the task may be on its way to a CPU kicked for it. A
 * BORROW pool whose CPUs are busy gets an idle CPU of a LEND pool; the
 * shared queue any idle CPU the task may run on; a queue whose CPUs are
 * all busy, or idle but not allowed to the task, nothing.
 */
static void test_watch_wakes_a_cpu_for_a_lost_wakeup(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_LEND, "0-1", "1" },
				      { "d1", SCXPOL_POOL_BORROW, "2-3", "0" } };
	const s32 only1[] = { 1 };
	struct task_struct *p = task(0, 2), *q = task(1, 2), *r = task(2, 0), *s = task(3, 2);

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	fake_clear_kicks();
	enqueue(p, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(3, true);
	assert_string_equal(fire(), "");
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "3");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);
	assert_int_equal(watch()->rescue, 0);
	assert_int_equal(fake_timer_ns(&watch()->timer), SCXPOL_POOL_WATCH_NS);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(3, 0), p);

	/* every CPU busy: the queue waits for them, no kick */
	fake_set_idle(3, false);
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	/* d1 busy, d0's CPU 1 idle: d1 borrows it */
	fake_set_idle(1, true);
	assert_string_equal(fire(), "1");
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_BORROW);
	assert_ptr_equal(fake_local_at(1, 0), q);

	/* the shared queue: an idle CPU the task may run on, not just any */
	fake_task_allow(r, only1, 1);
	r->nr_cpus_allowed = 2; /* not pinned: it queues on the shared queue */
	enqueue(r, SCXPOL_POOL_SHARED, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_SHARED), 1);
	fake_set_idle(0, true);
	fake_set_idle(1, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "1");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 3);
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_SHARED);
	assert_ptr_equal(fake_local_at(1, 1), r);

	/* d1's head may run on CPUs 0 and 2, both busy: idle CPU 3 would pass it by */
	fake_set_idle(0, false);
	fake_set_idle(1, false);
	fake_task_allow(s, (const s32[]){ 0, 2 }, 2);
	enqueue(s, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(3, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 3);
}

/*
 * The enqueue kicked idle CPU 3, which does not answer for a watch period
 * (the host does not run it), while CPU 2 went idle just after the
 * enqueue looked: the task is on its way to CPU 3, so the watch kicks no
 * one, until CPU 3 has been silent for SCXPOL_POOL_KICK_LATE_NS. A CPU
 * that dispatched has answered; one kicked and then gone offline never
 * will, so the watch does not wait for it; nor for a kick to a CPU that
 * would not take the head.
 */
static void test_watch_leaves_a_late_kick_alone(void **state)
{
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_LEND, "0-1", "1" },
				      { "d1", SCXPOL_POOL_BORROW, "2-3", "0" } };
	struct task_struct *p = task(0, 2), *q = task(1, 2), *r = task(2, 2), *s = task(3, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0-2");
	fake_clear_kicks();
	enqueue(p, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 3);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_idle(2, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	fake_advance(SCXPOL_POOL_KICK_LATE_NS - 2 * SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	fake_advance(2 * SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "2");
	/* waiting past SCXPOL_POOL_STARVE_NS made it stranded: the rescue's */
	assert_int_equal(stat(SCXPOL_STAT_WATCH_RESCUE), 1);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	assert_int_equal(dispatch(2), SCXPOL_POOL_SRC_POOL);
	assert_ptr_equal(fake_local_at(2, 0), p);

	/* CPU 3 answers at last (finds nothing); kicked again, it goes offline */
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_NONE);
	fake_set_idle(3, true);
	enqueue(q, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	fake_set_online(3, false);
	fake_set_cpu(0); /* the watch's timer runs on a live CPU */
	fake_set_idle(1, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "1");
	assert_int_equal(dispatch(1), SCXPOL_POOL_SRC_BORROW);
	assert_ptr_equal(fake_local_at(1, 0), q);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);

	/* a kick on its way to d1's CPU 2 is not one for d0's head: d0 borrows no CPU */
	fake_set_online(3, true);
	busy("0-3");
	fake_set_idle(2, true);
	enqueue(r, 1, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(1)), 1);
	enqueue(s, 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	fake_set_idle(0, true);
	fake_advance(SCXPOL_POOL_WATCH_NS);
	assert_string_equal(fire(), "0");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 2);
}

/*
 * d0's CPUs never dispatch again (they are going offline) and d1's CPU 3
 * is idle: once the head of d0's queue has waited SCXPOL_POOL_STARVE_NS,
 * the watch wakes CPU 3 and raises the rescue flag, and CPU 3, about to go
 * idle, takes the task instead. Before that, CPU 3 leaves it alone.
 */
static void test_watch_rescues_a_stranded_head(void **state)
{
	/* not exclusive (those wait for their own CPUs); no LEND pool to borrow from */
	const struct tpool plan[] = { { "d0", SCXPOL_POOL_BORROW, "0-1", NULL },
				      { "d1", 0, "2-3", NULL } };
	struct task_struct *p = task(0, 0);

	(void)state;
	publish_ok(plan, 2);
	busy("0-2");
	enqueue(p, 0, 0);
	assert_string_equal(fire(), "");
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_NONE);
	fake_advance(SCXPOL_POOL_STARVE_NS + MS);
	assert_string_equal(fire(), "3");
	assert_int_equal(watch()->rescue, 1);
	/* the rescue is by design, not a lost wakeup */
	assert_int_equal(stat(SCXPOL_STAT_WATCH_RESCUE), 1);
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 0);
	assert_int_equal(dispatch(3), SCXPOL_POOL_SRC_RESCUE);
	assert_ptr_equal(fake_local_at(3, 0), p);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 0);
	/* nothing stranded any more: the flag goes down at the next look */
	assert_string_equal(fire(), "");
	assert_int_equal(watch()->rescue, 0);
}

/*
 * An enqueue made on a CPU going offline (out of the online mask, its
 * interrupts off until it dies) claims d0's idle CPU 1 but does not kick
 * it from there, where the kick's IRQ work would never run: the watch
 * kicks CPU 1 from a live CPU, once (scxpol_pool_kick()).
 */
static void test_watch_sends_the_kicks_of_a_dying_cpu(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };

	(void)state;
	publish_ok(plan, 2);
	busy("0");
	fake_clear_kicks();
	fake_set_cpu(3);
	fake_set_online(3, false);
	enqueue(task(0, 0), 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_dsq_count(SCXPOL_DSQ_POOL(0)), 1);
	assert_int_equal(fake_nr_kicks(), 0);
	assert_false(fake_cpu_idle(1));
	fake_set_cpu(0);
	assert_string_equal(fire(), "1");
	assert_int_equal(stat(SCXPOL_STAT_WATCH_KICK), 1);
	assert_string_equal(fire(), "");
	/* back online, it kicks for itself */
	fake_set_online(3, true);
	fake_set_cpu(3);
	fake_set_idle(1, true);
	enqueue(task(1, 0), 0, SCX_ENQ_WAKEUP);
	assert_int_equal(fake_nr_kicks(), 1);
	assert_int_equal(fake_kick_at(0)->cpu, 1);
	assert_string_equal(fire(), "");
	/* several left for one CPU: the watch sends the strongest, once */
	fake_set_online(3, false);
	fake_clear_kicks();
	scxpol_pool_kick(2, SCX_KICK_IDLE);
	scxpol_pool_kick(2, SCX_KICK_PREEMPT);
	scxpol_pool_kick(1, SCX_KICK_IDLE);
	scxpol_pool_kick(1, 0);
	scxpol_pool_kick(0, SCX_KICK_IDLE);
	assert_int_equal(fake_nr_kicks(), 0);
	fake_set_cpu(0);
	assert_int_equal(scxpol_pool__watch_fn(&scxpol_pool_watch, NULL, watch()), 0);
	assert_int_equal(fake_nr_kicks(), 3);
	assert_int_equal(fake_kick_at(0)->cpu, 0);
	assert_int_equal(fake_kick_at(0)->flags, SCX_KICK_IDLE);
	assert_int_equal(fake_kick_at(1)->cpu, 1);
	assert_int_equal(fake_kick_at(1)->flags, 0);
	assert_int_equal(fake_kick_at(2)->cpu, 2);
	assert_int_equal(fake_kick_at(2)->flags, SCX_KICK_PREEMPT);
	assert_string_equal(fire(), "");
}

/* Once the scheduler has exited, the watch neither kicks nor looks again. */
static void test_watch_stops_at_exit(void **state)
{
	const struct tpool plan[] = { { "d0", 0, "0-1", NULL }, { "d1", 0, "2-3", NULL } };
	struct scxpol_sched_exit_record *rec;
	u32 zero = 0;

	(void)state;
	publish_ok(plan, 2);
	busy("0-3");
	enqueue(task(0, 2), 1, 0);
	fake_set_idle(2, true);
	rec = bpf_map_lookup_elem(&scxpol_exit, &zero);
	rec->kind = 64; /* SCX_EXIT_UNREG */
	assert_string_equal(fire(), "");
	assert_int_equal(fake_timer_ns(&watch()->timer), 0);
	assert_true(fake_cpu_idle(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_starts_the_watch, setup_4, fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_wakes_a_cpu_for_a_lost_wakeup, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_leaves_a_late_kick_alone, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_rescues_a_stranded_head, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_sends_the_kicks_of_a_dying_cpu, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_pending_counts_skip_empty_queues, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_repairs_an_uncounted_queue, setup_4,
						fake_teardown),
		cmocka_unit_test_setup_teardown(test_watch_stops_at_exit, setup_4, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
