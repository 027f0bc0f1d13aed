/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Virtual time: weighted fair ordering for vtime DSQs.
 *
 * A task's vtime (p->scx.dsq_vtime) grows by the time it runs scaled by
 * 100 / weight (weight 100 = nice 0). Each pool/domain has a clock, the
 * highest vtime of a task that started running there; it only moves forward
 * and is safe to advance from any CPU.
 *
 * Lag: a waking task may be at most one slice behind the clock (it gets a
 * bounded boost for having slept), and a task that is re-enqueued without
 * having slept (preempted, yielded, slice expired) is put no earlier than the
 * clock. A task ahead of the clock keeps its lead across sleeps, so short
 * sleeps do not wash away a penalty, up to a bound (scxpol_vtime_max_lead()).
 *
 * Rules (struct scxpol_vclock.rule):
 *  SCXPOL_VTIME_FAIR  the weighted charge above.
 *  SCXPOL_VTIME_ALG1  Algorithm 1 of "Serverless platform driven CPU
 *                     load balancing": on every enqueue vtime grows by the
 *                     last stint's runtime divided by how often the task
 *                     slept since the last reset; every reset_every-th
 *                     enqueue it is reset to the clock. Short, sleepy
 *                     workers move ahead; busy pollers fall behind.
 *  SCXPOL_VTIME_ALG1_NOW  Algorithm 1 line by line: the same growth, but
 *                     every reset_every-th enqueue (the first too) sets
 *                     vtime to the current time (scxpol_now()), not to
 *                     the clock, and no lag rule applies (no floor, no
 *                     lead cap in <scxpol/pool.bpf.h>): vtimes are times,
 *                     comparable across clocks. A task that has not been
 *                     reset lately, because it ran little per sleep, sorts
 *                     ahead of one reset just now: under overload the
 *                     older work goes first.
 *
 * Head of the queue: a task enqueued with SCXPOL_ENQ_HEAD goes ahead of
 * every task queued without it (heads among themselves by vtime): a vtime
 * DSQ ignores the kernel's SCX_ENQ_HEAD, so the enqueue helpers return the
 * task's vtime minus SCXPOL_VTIME_HEAD_LAG instead (wrap-safe, as the
 * kernel's vtime order is), and scxpol_vtime_running() gives the lag back
 * when the task starts: it keeps its fairness account, so a task that is
 * always put at the head is still charged for what it runs.
 *
 * Busy-poll signal: a task that used its whole slice without sleeping for
 * busy_poll_after consecutive stints is flagged; scxpol_vtime_busy_poll()
 * tells the policy, which may de-prioritise it.
 *
 * Callbacks to wire (see examples/minimal): init_task -> scxpol_task_init,
 * enable -> scxpol_vtime_enable, enqueue -> scxpol_vtime_enqueue,
 * running -> scxpol_vtime_running, stopping -> scxpol_vtime_stopping,
 * quiescent -> scxpol_vtime_quiescent (Algorithm 1 and busy-poll only).
 * Each has a _ctx variant taking the task context the callback already
 * looked up (one task-storage lookup per callback); pools use those
 * (<scxpol/pool.bpf.h> keeps one clock per pool).
 */
#ifndef SCXPOL_VTIME_BPF_H
#define SCXPOL_VTIME_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/compat.bpf.h>
#include <scxpol/task.bpf.h>

enum scxpol_vtime_rule {
	SCXPOL_VTIME_FAIR = 0,
	SCXPOL_VTIME_ALG1 = 1,
	SCXPOL_VTIME_ALG1_NOW = 2,
};

/* How far behind the clock a SCXPOL_ENQ_HEAD enqueue puts a task. */
#define SCXPOL_VTIME_HEAD_LAG (1ULL << 62)

struct scxpol_vclock {
	u64 now;              /* the clock */
	u32 rule;             /* enum scxpol_vtime_rule */
	u32 reset_every;      /* Algorithm 1's n (0 = never reset) */
	u32 busy_poll_after;  /* full-slice stints before the busy-poll flag (0 = off) */
};

/* The shortest slice scxpol_vtime_slice() gives: the policy's slice / SCXPOL_VTIME_SLICE_DIV. */
#ifndef SCXPOL_VTIME_SLICE_DIV
#define SCXPOL_VTIME_SLICE_DIV 16
#endif

/*
 * The slice for a task of @weight where weight 100 gets @slice: shorter in
 * proportion below weight 100, down to @slice / SCXPOL_VTIME_SLICE_DIV. A
 * full stint then charges a low-weight task about one @slice of vtime, at
 * most 100 / SCXPOL_VTIME_SLICE_DIV of them (weight 1, nice 19), where the
 * whole slice would charge it 100: a lead over the clock that N busy tasks
 * per CPU take N times as long to catch up with, past the kernel's
 * watchdog timeout (which ejects the scheduler) at a few dozen.
 */
static __always_inline u64 scxpol_vtime_slice(u64 slice, u32 weight)
{
	u64 s = slice * weight / 100;

	if (weight >= 100)
		return slice;
	return s > slice / SCXPOL_VTIME_SLICE_DIV ? s : slice / SCXPOL_VTIME_SLICE_DIV;
}

/* Weighted charge of @runtime_ns for a task of @weight (100 = nice 0). */
static __always_inline u64 scxpol_vtime_scale(u64 runtime_ns, u32 weight)
{
	return runtime_ns * 100 / (weight ? weight : 100);
}

/* How far ahead of its clock a task is queued at most, in stints of its slice (scxpol_vtime_max_lead()). */
#ifndef SCXPOL_VTIME_MAX_LEAD_SLICES
#define SCXPOL_VTIME_MAX_LEAD_SLICES 2
#endif

/*
 * The furthest ahead of its clock a task of @weight given @slice (its own:
 * scxpol_vtime_slice()) is queued: SCXPOL_VTIME_MAX_LEAD_SLICES stints'
 * charge. A task that ran alone for many slices (the clock follows only
 * tasks that start) or a light task's short runs, each charged up to 100
 * times, would otherwise carry a lead that N busy tasks per CPU take N
 * times as long to catch up with: past the kernel's watchdog timeout.
 */
static __always_inline u64 scxpol_vtime_max_lead(u64 slice, u32 weight)
{
	return scxpol_vtime_scale(slice, weight) * SCXPOL_VTIME_MAX_LEAD_SLICES;
}

/* The clock's current value (vtime, ns scaled by weight). */
static __always_inline u64 scxpol_vclock_read(const struct scxpol_vclock *c)
{
	return READ_ONCE(c->now);
}

/* Move @c forward to @vtime if it is ahead; never backward. */
static __always_inline void scxpol_vclock_advance(struct scxpol_vclock *c, u64 vtime)
{
	u64 cur = READ_ONCE(c->now);
	int i;

	/* A lost race means someone else advanced it: retry a few times only. */
	for (i = 0; i < 8 && scxpol_time_before(cur, vtime); i++) {
		u64 old = __sync_val_compare_and_swap(&c->now, cur, vtime);

		if (old == cur)
			break;
		cur = old;
	}
}

/* A task joining the scheduler (ops.enable) starts at the clock. */
static __always_inline void scxpol_vtime_enable(struct scxpol_vclock *c, struct task_struct *p)
{
	scxpol_task_set_vtime(p, scxpol_vclock_read(c));
}

/*
 * Algorithm 1's count of enqueues (a keep counts too: scxpol_vtime_kept_ctx()):
 * whether this one is the n-th, which resets the sleep count.
 */
static __always_inline bool scxpol_vtime__alg1_reset(struct scxpol_vclock *c,
						     struct scxpol_task_ctx *t)
{
	bool reset = c->reset_every && t->nr_enqueues % c->reset_every == 0;

	if (reset)
		t->nr_sleeps = 0;
	t->nr_enqueues++;
	return reset;
}

/*
 * The vtime to insert @p with (ops.enqueue), applying the lag rules and the
 * clock's rule, or the head of the queue with SCXPOL_ENQ_HEAD in
 * @enq_flags. @slice is the slice @p will get. Also stores the lag-ruled
 * vtime in p->scx.dsq_vtime. @t is @p's context (scxpol_task_ctx(); may be NULL, then
 * only the lag rules apply): the _ctx variants let a callback that already
 * looked it up avoid a second lookup.
 */
static __always_inline u64 scxpol_vtime_enqueue_ctx(struct scxpol_vclock *c, struct task_struct *p,
						    struct scxpol_task_ctx *t, u64 enq_flags, u64 slice)
{
	u64 now = scxpol_vclock_read(c);
	u64 vtime = p->scx.dsq_vtime;
	u64 floor;

	if (t) {
		t->slice = slice;
		if (c->rule != SCXPOL_VTIME_FAIR) {
			u32 sleeps = t->nr_sleeps;

			if (scxpol_vtime__alg1_reset(c, t))
				vtime = c->rule == SCXPOL_VTIME_ALG1_NOW ? scxpol_now() : now;
			else
				vtime += t->last_runtime / (sleeps + 1);
		}
	} else if (c->rule == SCXPOL_VTIME_ALG1_NOW) {
		vtime = scxpol_now();
	}
	/* ALG1_NOW: no lag rule */
	floor = (enq_flags & SCXPOL_ENQ_WAKEUP) ? now - slice : now;
	if (c->rule != SCXPOL_VTIME_ALG1_NOW && scxpol_time_before(vtime, floor))
		vtime = floor;
	/* ALG1's growth is its demotion of busy pollers: left unbounded */
	if (c->rule == SCXPOL_VTIME_FAIR &&
	    scxpol_time_before(now + scxpol_vtime_max_lead(slice, p->scx.weight), vtime))
		vtime = now + scxpol_vtime_max_lead(slice, p->scx.weight);
	scxpol_task_set_vtime(p, vtime);
	if (enq_flags & SCXPOL_ENQ_HEAD)
		return vtime - SCXPOL_VTIME_HEAD_LAG;
	return vtime;
}

/* scxpol_vtime_enqueue_ctx(), looking up @p's context itself. */
static __always_inline u64 scxpol_vtime_enqueue(struct scxpol_vclock *c, struct task_struct *p,
						u64 enq_flags, u64 slice)
{
	return scxpol_vtime_enqueue_ctx(c, p, scxpol_task_ctx(p), enq_flags, slice);
}

/*
 * @p starts running (ops.running): remember when, and advance the clock. A
 * task inserted at the head (SCXPOL_ENQ_HEAD) gets its own vtime back. A
 * task flagged as a busy poller does not advance the clock: a policy that
 * demotes it puts it later than its due, and the clock would drag every
 * other task's floor up to it, undoing the demotion.
 */
static __always_inline void scxpol_vtime_running_ctx(struct scxpol_vclock *c, struct task_struct *p,
						     struct scxpol_task_ctx *t)
{
	if (scxpol_time_before(p->scx.dsq_vtime + SCXPOL_VTIME_HEAD_LAG / 2, scxpol_vclock_read(c)))
		scxpol_task_set_vtime(p, p->scx.dsq_vtime + SCXPOL_VTIME_HEAD_LAG);
	if (t)
		t->run_start = scxpol_now();
	if (!t || !(t->flags & SCXPOL_TASKF_BUSY_POLL))
		scxpol_vclock_advance(c, p->scx.dsq_vtime);
}

/* scxpol_vtime_running_ctx(), looking up @p's context itself. */
static __always_inline void scxpol_vtime_running(struct scxpol_vclock *c, struct task_struct *p)
{
	scxpol_vtime_running_ctx(c, p, scxpol_task_ctx(p));
}

/*
 * @p stops running (ops.stopping): charge the time it ran. Under the FAIR
 * rule the charge goes into its vtime now; under ALG1 it is applied at the
 * next enqueue, divided by its sleep frequency. Detects busy polling.
 */
static __always_inline void scxpol_vtime_stopping_ctx(struct scxpol_vclock *c, struct task_struct *p,
						      struct scxpol_task_ctx *t, bool runnable)
{
	u64 ran;

	if (!t || !t->run_start)
		return;
	ran = scxpol_now() - t->run_start;
	t->last_runtime = scxpol_vtime_scale(ran, p->scx.weight);
	if (c->rule == SCXPOL_VTIME_FAIR)
		scxpol_task_set_vtime(p, p->scx.dsq_vtime + t->last_runtime);
	/*
	 * Still runnable with the slice used up: it did not sleep. A stint
	 * kept running across slices (nothing else wanted the CPU) counts
	 * each slice.
	 */
	if (runnable && t->slice && ran >= t->slice) {
		u64 n = t->full_slices + ran / t->slice;

		t->full_slices = n < 0xffffffff ? (u32)n : 0xffffffff;
	} else if (!runnable) {
		t->full_slices = 0;
	}
	if (c->busy_poll_after && t->full_slices >= c->busy_poll_after)
		t->flags |= SCXPOL_TASKF_BUSY_POLL;
	else
		t->flags &= ~SCXPOL_TASKF_BUSY_POLL;
}

/* scxpol_vtime_stopping_ctx(), looking up @p's context itself. */
static __always_inline void scxpol_vtime_stopping(struct scxpol_vclock *c, struct task_struct *p,
						  bool runnable)
{
	scxpol_vtime_stopping_ctx(c, p, scxpol_task_ctx(p), runnable);
}

/*
 * The vtime @p, still running, would be queued at if it were re-enqueued
 * now without having slept: its vtime plus the charge of the current stint
 * under the clock's rule, no earlier than the clock. What ops.dispatch
 * compares a still-runnable previous task with (the kernel re-enqueues it
 * only after dispatch).
 */
static __always_inline u64 scxpol_vtime_requeue_ctx(struct scxpol_vclock *c, struct task_struct *p,
						    struct scxpol_task_ctx *t)
{
	u64 now = scxpol_vclock_read(c), vtime = p->scx.dsq_vtime, charge = 0;

	if (t && t->run_start)
		charge = scxpol_vtime_scale(scxpol_now() - t->run_start, p->scx.weight);
	if (t && c->rule != SCXPOL_VTIME_FAIR)
		charge /= t->nr_sleeps + 1;
	vtime += charge;
	/* ALG1_NOW: what its enqueue would do, a reset to the current time included */
	if (c->rule == SCXPOL_VTIME_ALG1_NOW)
		return !t || (c->reset_every && t->nr_enqueues % c->reset_every == 0) ? scxpol_now()
										      : vtime;
	return scxpol_time_before(vtime, now) ? now : vtime;
}

/*
 * A task whose slice ran out goes on running without being queued again
 * (kept: scxpol_pool_dispatch_prev()). Under ALG1 that counts as an
 * enqueue for the reset: else a task that slept often before (on idle
 * CPUs, placed without ops.enqueue), then kept stint after stint, would
 * keep its charge divided by all those sleeps, and the CPU for as long as
 * it runs, while the tasks queued behind it starve.
 */
static __always_inline void scxpol_vtime_kept_ctx(struct scxpol_vclock *c,
						  struct scxpol_task_ctx *t)
{
	if (t && c->rule != SCXPOL_VTIME_FAIR)
		scxpol_vtime__alg1_reset(c, t);
}

/* @p goes to sleep (ops.quiescent with SCX_DEQ_SLEEP): count it (short of nr_sleeps + 1 wrapping). */
static __always_inline void scxpol_vtime_quiescent_ctx(struct scxpol_task_ctx *t, u64 deq_flags)
{
	if (t && (deq_flags & SCXPOL_DEQ_SLEEP) && t->nr_sleeps < 0xfffffffe)
		t->nr_sleeps++;
}

/* scxpol_vtime_quiescent_ctx(), looking up @p's context itself. */
static __always_inline void scxpol_vtime_quiescent(struct task_struct *p, u64 deq_flags)
{
	if (deq_flags & SCXPOL_DEQ_SLEEP)
		scxpol_vtime_quiescent_ctx(scxpol_task_ctx(p), deq_flags);
}

/* Whether @p is flagged as a busy poller (see busy_poll_after). */
static __always_inline bool scxpol_vtime_busy_poll_ctx(const struct scxpol_task_ctx *t)
{
	return t && (t->flags & SCXPOL_TASKF_BUSY_POLL);
}

/* scxpol_vtime_busy_poll_ctx(), looking up @p's context itself. */
static __always_inline bool scxpol_vtime_busy_poll(struct task_struct *p)
{
	return scxpol_vtime_busy_poll_ctx(scxpol_task_ctx(p));
}

#endif
