// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The simulator's engine on cases with answers computed by hand: small
 * policies written here in C against <scxpol/sim/host.h> (the kfuncs a
 * BPF policy calls), tasks with fixed bursts, and a trace of every context
 * switch. Covers the sched_ext core's rules (slice refill when nothing
 * else runs, slices ending at the tick, wakeups of idle CPUs), the
 * watchdog with the kernel's message, and the errors a policy that breaks
 * a rule gets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/sim.h>
#include <scxpol/sim/host.h>

#define MS 1000000ULL

/* --- policies ---------------------------------------------------------------------- */
static u64 fifo_slice = 5 * MS;

/* One global FIFO; the kernel's default CPU selection. */
static void fifo_enqueue(struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, fifo_slice, enq_flags);
}

static struct sched_ext_ops fifo_ops = {
	.enqueue = (void *)fifo_enqueue,
	.name = "fifo",
};

/* Tasks named "stuck" go to a DSQ nothing ever takes from. */
#define STUCK_DSQ 42

static s32 stall_init(void)
{
	return scx_bpf_create_dsq(STUCK_DSQ, -1);
}

static void stall_enqueue(struct task_struct *p, u64 enq_flags)
{
	u64 dsq = strcmp(p->comm, "stuck") ? SCX_DSQ_GLOBAL : STUCK_DSQ;

	scx_bpf_dsq_insert(p, dsq, fifo_slice, enq_flags);
}

/* No direct dispatch: the default selection would run "stuck" on an idle CPU. */
static s32 keep_prev(struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	(void)p;
	(void)wake_flags;
	return prev_cpu;
}

static struct sched_ext_ops stall_ops = {
	.select_cpu = (void *)keep_prev,
	.enqueue = (void *)stall_enqueue,
	.init = (void *)stall_init,
	.timeout_ms = 1000,
	.name = "stall",
};

/* Breaks one rule, chosen by the test. */
enum violation { INSERT_NOT_ALLOWED, NO_SUCH_DSQ, BAD_SELECTED_CPU };
static enum violation violation;

static s32 bad_select_cpu(struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	(void)prev_cpu;
	(void)wake_flags;
	switch (violation) {
	case INSERT_NOT_ALLOWED:
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | 1, fifo_slice, 0);
		return 1;
	case NO_SUCH_DSQ:
		scx_bpf_dsq_insert(p, 0x1234, fifo_slice, 0);
		return 0;
	case BAD_SELECTED_CPU:
		return 99;
	}
	return 0;
}

static struct sched_ext_ops bad_ops = {
	.select_cpu = (void *)bad_select_cpu,
	.enqueue = (void *)fifo_enqueue,
	.name = "bad",
};

/*
 * One global FIFO that watches what the kernel calls current: in
 * ops.enqueue (as_current: queued by its own CPU as it stops running it)
 * and in ops.running (after_prev: the task switched away from).
 */
static struct {
	unsigned int enqueues, as_current, running_flag, runnings, after_prev, after_idle;
	struct task_struct *last_stopped;
} seen;

static void watch_enqueue(struct task_struct *p, u64 enq_flags)
{
	seen.enqueues++;
	if (bpf_get_current_task_btf() == p) {
		seen.as_current++;
		seen.running_flag += scx_bpf_task_running(p);
		seen.last_stopped = p;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, fifo_slice, enq_flags);
}

static void watch_running(struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	(void)p;
	seen.runnings++;
	seen.after_idle += cur->pid == 0;
	seen.after_prev += cur == seen.last_stopped;
}

static struct sched_ext_ops watch_ops = {
	.enqueue = (void *)watch_enqueue,
	.running = (void *)watch_running,
	.name = "watch",
};

/* Kicks the CPU a task runs on, to preempt, whenever that CPU queues it. */
static void selfkick_enqueue(struct task_struct *p, u64 enq_flags)
{
	if (bpf_get_current_task_btf() == p)
		scx_bpf_kick_cpu(scx_bpf_task_cpu(p), SCX_KICK_PREEMPT);
	scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, fifo_slice, enq_flags);
}

static struct sched_ext_ops selfkick_ops = {
	.enqueue = (void *)selfkick_enqueue,
	.name = "selfkick",
};

/* --- tasks ---------------------------------------------------------------------------- */
/* A task that runs @run, sleeps @sleep, forever; it records its waits. */
struct cycler {
	u64 run, sleep;
	u64 woke_at;	/* when it became runnable last */
	u64 waits[64];	/* the first ones: from runnable to its burst's first instruction */
	unsigned int nr_waits;
	unsigned int runs;
};

static void cycle(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		  enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct cycler *c = ctx;

	switch (why) {
	case SCXPOL_SIM_START:
	case SCXPOL_SIM_WOKEN:
		c->woke_at = scxpol_sim_now(s);
		a->act = SCXPOL_SIM_RUN;
		a->ns = c->run;
		return;
	case SCXPOL_SIM_DONE:
		if (c->nr_waits < 64)
			c->waits[c->nr_waits++] = scxpol_sim_task_burst_start(t) - c->woke_at;
		c->runs++;
		a->act = c->sleep ? SCXPOL_SIM_SLEEP : SCXPOL_SIM_RUN;
		a->ns = c->sleep ? c->sleep : c->run;
		if (!c->sleep)
			c->woke_at = scxpol_sim_now(s);
		return;
	}
}

/* The context switches of a run. */
struct trace {
	struct scxpol_sim_switch sw[256];
	unsigned int n;
	unsigned int bad_cpu; /* switches onto a CPU outside the task's affinity */
	const unsigned long *allowed[8]; /* by pid - 100 */
};

static void record(void *ctx, const struct scxpol_sim_switch *sw)
{
	struct trace *tr = ctx;
	int pid;

	if (sw->next) {
		pid = scxpol_sim_task_pid(sw->next) - 100;
		if (pid >= 0 && pid < 8 && tr->allowed[pid] &&
		    !((tr->allowed[pid][0] >> sw->cpu) & 1))
			tr->bad_cpu++;
	}
	if (tr->n < 256)
		tr->sw[tr->n++] = *sw;
}

static struct scxpol_sim *machine(unsigned int cpus, const struct sched_ext_ops *ops,
				  struct trace *tr)
{
	struct scxpol_sim_opts o = { .sz = sizeof(o), .nr_cpus = cpus, .ops = ops,
				     .trace = record, .trace_ctx = tr };
	struct scxpol_sim *s = scxpol_sim_new(&o);

	assert_non_null(s);
	return s;
}

static struct scxpol_sim_task *spawn(struct scxpol_sim *s, const char *comm,
				     const unsigned long *cpus, struct cycler *c)
{
	struct scxpol_sim_task_opts o = { .sz = sizeof(o), .comm = comm, .cpus = cpus,
					  .cpu = -1, .behave = cycle, .ctx = c };
	struct scxpol_sim_task *t = scxpol_sim_task_new(s, &o);

	assert_non_null(t);
	return t;
}

static void test_fifo_hog_and_sleeper(void **state)
{
	struct cycler hog = { .run = 100 * MS }, sleeper = { .run = 1 * MS, .sleep = 10 * MS };
	struct trace tr = { 0 };
	struct scxpol_sim *s = machine(1, &fifo_ops, &tr);
	unsigned int i;

	(void)state;
	spawn(s, "hog", NULL, &hog);
	spawn(s, "sleeper", NULL, &sleeper);
	assert_int_equal(scxpol_sim_run(s, 200 * MS), 0);
	/*
	 * FIFO, a 5 ms slice: the sleeper waits for the hog's first slice
	 * (5 ms). After each of its runs the hog gets 5 ms, then, alone, the
	 * kernel's 20 ms refill: the sleeper, back after 10 ms, waits
	 * 5 + 20 - 10 = 15 ms, every 26 ms.
	 */
	assert_true(sleeper.nr_waits >= 7);
	assert_int_equal(sleeper.waits[0], 5 * MS);
	for (i = 1; i < sleeper.nr_waits; i++)
		assert_int_equal(sleeper.waits[i], 15 * MS);
	scxpol_sim_free(s);
}

/*
 * EEVDF, one CPU, a hog and a task that runs 1 ms every 10 ms: lag is
 * earned only while runnable, so the sleeper gets no credit for its sleep.
 * Running 1 ms while the hog waits, it leaves with a lag of -0.5 ms (V is
 * the mean of the two). It comes back at V + 1 ms (the lag scaled for the
 * weight it joins), V of now: the hog is charged first (update_curr() in
 * enqueue_entity()), not at its last tick. It is eligible, and runs,
 * once the hog has run 1 ms more. So from its third run on it waits 1 ms
 * every time; placed at a stale V, it would never wait.
 */
static void test_eevdf_sleeper_earns_no_lag_asleep(void **state)
{
	struct cycler hog = { .run = 1000 * MS }, sleeper = { .run = 1 * MS, .sleep = 10 * MS };
	struct scxpol_sim_opts so = { .sz = sizeof(so), .nr_cpus = 1,
				      .sched = SCXPOL_SIM_SCHED_EEVDF };
	struct scxpol_sim *s = scxpol_sim_new(&so);
	unsigned int i;

	(void)state;
	assert_non_null(s);
	spawn(s, "hog", NULL, &hog);
	spawn(s, "sleeper", NULL, &sleeper);
	assert_int_equal(scxpol_sim_run(s, 900 * MS), 0);
	scxpol_sim_free(s);
	assert_int_equal(sleeper.nr_waits, 64);
	for (i = 2; i < sleeper.nr_waits; i++)
		assert_int_equal(sleeper.waits[i], 1 * MS);
}

/* Switches on CPU 0 at these times, alternating between the two hogs. */
static void check_round_robin(const struct trace *tr, u64 period, unsigned int n)
{
	unsigned int i;

	assert_true(tr->n >= n);
	assert_int_equal(tr->sw[0].at_ns, 0);
	assert_null(tr->sw[0].prev);
	for (i = 1; i < n; i++) {
		assert_int_equal(tr->sw[i].at_ns, i * period);
		assert_true(tr->sw[i].preempted);
		assert_ptr_equal(tr->sw[i].prev, tr->sw[i - 1].next);
		assert_ptr_not_equal(tr->sw[i].next, tr->sw[i].prev);
	}
}

/* One CPU, two hogs "a" and "b" under @ops, which takes @slice as its slice. */
static struct scxpol_sim *two_hogs(const struct sched_ext_ops *ops, u64 slice, struct trace *tr)
{
	static struct cycler a, b;
	struct scxpol_sim *s;

	a = b = (struct cycler){ .run = 1000 * MS };
	fifo_slice = slice;
	s = machine(1, ops, tr);
	spawn(s, "a", NULL, &a);
	spawn(s, "b", NULL, &b);
	return s;
}

static void test_slices_end_at_the_tick(void **state)
{
	struct trace tr = { 0 };
	struct scxpol_sim *s;

	(void)state;
	/* a 3 ms slice ends at the 3 ms tick ... */
	s = two_hogs(&fifo_ops, 3 * MS, &tr);
	assert_int_equal(scxpol_sim_run(s, 30 * MS), 0);
	check_round_robin(&tr, 3 * MS, 10);
	scxpol_sim_free(s);
	/* ... one of 3.5 ms at the next one, 4 ms */
	memset(&tr, 0, sizeof(tr));
	s = two_hogs(&fifo_ops, 3500000, &tr);
	assert_int_equal(scxpol_sim_run(s, 40 * MS), 0);
	check_round_robin(&tr, 4 * MS, 10);
	scxpol_sim_free(s);
	fifo_slice = 5 * MS;
}

static void test_affinity_never_violated(void **state)
{
	static const unsigned long masks[6] = { 0x1, 0x6, 0x8, 0x9, 0x4, 0xf };
	struct cycler c[6];
	struct trace tr = { 0 };
	struct scxpol_sim *s = machine(4, &fifo_ops, &tr);
	char comm[16];
	unsigned int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		c[i] = (struct cycler){ .run = (i + 1) * MS, .sleep = (i % 3) * MS };
		tr.allowed[i] = &masks[i];
		snprintf(comm, sizeof(comm), "t%u", i);
		spawn(s, comm, &masks[i], &c[i]);
	}
	assert_int_equal(scxpol_sim_run(s, 1000 * MS), 0);
	assert_int_equal(tr.bad_cpu, 0);
	for (i = 0; i < 6; i++)
		assert_true(c[i].runs > 10);
	scxpol_sim_free(s);
}

static void test_watchdog_catches_a_task_never_dispatched(void **state)
{
	struct cycler stuck = { .run = MS, .sleep = MS }, ok = { .run = MS, .sleep = MS };
	struct trace tr = { 0 };
	struct scxpol_sim *s = machine(2, &stall_ops, &tr);
	const struct scxpol_sim_exit *x;

	(void)state;
	spawn(s, "stuck", NULL, &stuck);
	spawn(s, "ok", NULL, &ok);
	/* timeout 1 s, checked every 0.5 s: at 1.0 s it has waited 1.0 s, not more */
	assert_int_equal(scxpol_sim_run(s, 3000 * MS), -ECANCELED);
	x = scxpol_sim_exit_info(s);
	assert_int_equal(x->kind, SCX_EXIT_ERROR_STALL);
	assert_int_equal(x->at_ns, 1500 * MS);
	assert_string_equal(x->reason, "runnable task stall");
	assert_string_equal(x->msg, "stuck[100] failed to run for 1.500s");
	assert_string_equal(scxpol_sim_last_error(),
			    "sched_ext: BPF scheduler \"stall\" disabled (runnable task stall): "
			    "stuck[100] failed to run for 1.500s");
	assert_int_equal(stuck.runs, 0);
	assert_true(ok.runs > 500);
	scxpol_sim_free(s);
}

static void check_violation(enum violation v, const char *msg)
{
	static const unsigned long cpus_0_2 = 0x5;
	struct cycler c = { .run = MS, .sleep = MS };
	struct trace tr = { 0 };
	struct scxpol_sim *s;
	char want[256];

	violation = v;
	s = machine(4, &bad_ops, &tr);
	spawn(s, "pinned", &cpus_0_2, &c);
	assert_int_equal(scxpol_sim_run(s, 100 * MS), -ECANCELED);
	assert_int_equal(scxpol_sim_exit_info(s)->kind, SCX_EXIT_ERROR);
	assert_string_equal(scxpol_sim_exit_info(s)->msg, msg);
	snprintf(want, sizeof(want), "sched_ext: BPF scheduler \"bad\" disabled (runtime error): %s",
		 msg);
	assert_string_equal(scxpol_sim_last_error(), want);
	scxpol_sim_free(s);
}

static void test_rule_violations_stop_the_run(void **state)
{
	(void)state;
	check_violation(INSERT_NOT_ALLOWED, "SCX_DSQ_LOCAL[_ON] target CPU 1 not allowed for pinned[100]");
	check_violation(NO_SUCH_DSQ, "non-existent DSQ 0x1234 for pinned[100]");
	check_violation(BAD_SELECTED_CPU, "invalid CPU 99 from ops.select_cpu()");
}

/*
 * The kernel's current task while a CPU switches: the task switched away
 * from, through put_prev_task_scx() (its ops.enqueue when its slice ran
 * out, where it still counts as running) and the next task's ops.running.
 * Two hogs on one CPU, 3 ms slices, 29 ms: slices end at 3, 6, ... 27 ms.
 */
static void test_current_while_switching(void **state)
{
	struct trace tr = { 0 };
	struct scxpol_sim *s;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	s = two_hogs(&watch_ops, 3 * MS, &tr);
	assert_int_equal(scxpol_sim_run(s, 29 * MS), 0);
	check_round_robin(&tr, 3 * MS, 10);
	/* two wakeups at 0 (current: CPU 0's idle task), nine re-queues */
	assert_int_equal(seen.enqueues, 11);
	assert_int_equal(seen.as_current, 9);
	assert_int_equal(seen.running_flag, 9);
	/* the first run comes from idle, each later one right after the other hog's slice */
	assert_int_equal(seen.runnings, 10);
	assert_int_equal(seen.after_idle, 1);
	assert_int_equal(seen.after_prev, 9);
	scxpol_sim_free(s);
	fifo_slice = 5 * MS;
}

/*
 * A policy that preempts the CPU that queues a task, from that queueing:
 * each switch preempts the next task at once. The kernel would spend
 * real time in the loop (a context switch and an IPI per turn); here
 * callbacks take none, so the run ends at the first slice's end, 3 ms,
 * with the policy unloaded and why.
 */
static void test_self_kick_loop_ends_the_run(void **state)
{
	struct trace tr = { 0 };
	struct scxpol_sim *s;

	(void)state;
	s = two_hogs(&selfkick_ops, 3 * MS, &tr);
	assert_int_equal(scxpol_sim_run(s, 100 * MS), -ELOOP);
	assert_int_equal(scxpol_sim_exit_info(s)->kind, SCX_EXIT_UNREG);
	assert_int_equal(scxpol_sim_exit_info(s)->at_ns, 3 * MS);
	assert_string_equal(scxpol_sim_last_error(),
			    "scheduling does not settle: CPU 0 scheduled again 4 times in one "
			    "instant, without time passing (a policy that kicks a CPU from that "
			    "CPU's own scheduling, every time, livelocks it)");
	scxpol_sim_free(s);
	fifo_slice = 5 * MS;
}

/*
 * A behaviour that, at the end of its burst, removes its own cgroup and
 * creates a task (as a FaaS completion releases a held invocation): the
 * scheduling waits for the step's end, the parent exits at 1 ms, the child
 * runs from then on the one CPU.
 */
static struct cycler child = { .run = 2 * MS, .sleep = 10 * MS };

static void parent(struct scxpol_sim *s, struct scxpol_sim_task *t, void *ctx,
		   enum scxpol_sim_why why, struct scxpol_sim_action *a)
{
	struct scxpol_sim_task_opts o = { .sz = sizeof(o), .comm = "child", .cpu = -1,
					  .behave = cycle, .ctx = &child };

	(void)t;
	(void)ctx;
	if (why != SCXPOL_SIM_DONE) {
		a->act = SCXPOL_SIM_RUN;
		a->ns = 1 * MS;
		return;
	}
	assert_int_equal(scxpol_sim_cgroup_remove(s, 2), 0);
	assert_non_null(scxpol_sim_task_new(s, &o));
	a->act = SCXPOL_SIM_EXIT;
}

static void check_spawn_inside_a_step(enum scxpol_sim_sched sched)
{
	struct trace tr = { 0 };
	struct scxpol_sim_opts so = { .sz = sizeof(so), .nr_cpus = 1, .sched = sched,
				      .ops = &fifo_ops, .trace = record, .trace_ctx = &tr };
	struct scxpol_sim_task_opts o = { .sz = sizeof(o), .comm = "parent", .cpu = -1,
					  .cgroup = 2, .behave = parent };
	struct scxpol_sim *s = scxpol_sim_new(&so);

	assert_non_null(s);
	memset(&child, 0, sizeof(child));
	child.run = 2 * MS;
	child.sleep = 10 * MS;
	assert_int_equal(scxpol_sim_cgroup_new(s, 2, 0), 0);
	assert_non_null(scxpol_sim_task_new(s, &o));
	assert_int_equal(scxpol_sim_run(s, 20 * MS), 0);
	/* parent 0..1 ms, child 1..3 ms, then 13..15 ms */
	assert_int_equal(child.runs, 2);
	assert_int_equal(child.waits[0], 0);
	assert_int_equal(child.waits[1], 0);
	assert_true(tr.n >= 2);
	assert_int_equal(tr.sw[1].at_ns, 1 * MS);
	scxpol_sim_free(s);
}

static void test_spawn_inside_a_step(void **state)
{
	(void)state;
	check_spawn_inside_a_step(SCXPOL_SIM_SCHED_EXT);
	check_spawn_inside_a_step(SCXPOL_SIM_SCHED_EEVDF);
}

/* The switches of a busy 4-CPU run, as (time, CPU, prev pid, next pid). */
static unsigned int run_trace(u64 *out, unsigned int max)
{
	static const unsigned long masks[3] = { 0x3, 0xc, 0xf };
	struct cycler c[8];
	struct trace tr = { 0 };
	struct scxpol_sim *s = machine(4, &fifo_ops, &tr);
	unsigned int i, n;

	for (i = 0; i < 8; i++) {
		c[i] = (struct cycler){ .run = (1 + i % 4) * MS / 2, .sleep = (i % 3) * MS / 3 };
		spawn(s, "t", &masks[i % 3], &c[i]);
	}
	assert_int_equal(scxpol_sim_run(s, 200 * MS), 0);
	n = tr.n < max / 4 ? tr.n : max / 4;
	for (i = 0; i < n; i++) {
		out[4 * i] = tr.sw[i].at_ns;
		out[4 * i + 1] = tr.sw[i].cpu;
		out[4 * i + 2] = tr.sw[i].prev ? (u64)scxpol_sim_task_pid(tr.sw[i].prev) : 0;
		out[4 * i + 3] = tr.sw[i].next ? (u64)scxpol_sim_task_pid(tr.sw[i].next) : 0;
	}
	scxpol_sim_free(s);
	return n;
}

static void test_same_inputs_same_run(void **state)
{
	static u64 a[1024], b[1024];
	unsigned int na, nb;

	(void)state;
	na = run_trace(a, 1024);
	nb = run_trace(b, 1024);
	assert_int_equal(na, 256);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_hog_and_sleeper),
		cmocka_unit_test(test_slices_end_at_the_tick),
		cmocka_unit_test(test_eevdf_sleeper_earns_no_lag_asleep),
		cmocka_unit_test(test_affinity_never_violated),
		cmocka_unit_test(test_watchdog_catches_a_task_never_dispatched),
		cmocka_unit_test(test_rule_violations_stop_the_run),
		cmocka_unit_test(test_current_while_switching),
		cmocka_unit_test(test_self_kick_loop_ends_the_run),
		cmocka_unit_test(test_same_inputs_same_run),
		cmocka_unit_test(test_spawn_inside_a_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
