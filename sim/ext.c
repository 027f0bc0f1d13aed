// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The sched_ext core, after kernel/sched/ext.c (7.x): how and when the
 * policy's callbacks are called, and what the kernel does around them.
 *
 *   wakeup    select_task_rq_scx(): ops.select_cpu (a task allowed on more
 *             than one CPU; without the callback, the default selection
 *             with a direct dispatch to the local DSQ), the kernel's
 *             fallback to an allowed CPU, then enqueue_task_scx():
 *             ops.runnable, a direct dispatch or ops.enqueue
 *   schedule  balance_one(): keep a runnable previous task with slice
 *             left; else the local DSQ, the global DSQ, then ops.dispatch
 *             (its inserts buffered until it returns) up to 32 times while
 *             it produces tasks; keep the previous task if nothing came.
 *             Then put_prev_task_scx() (ops.stopping, and ops.enqueue for a
 *             task that is still runnable) and set_next_task_scx()
 *             (ops.running)
 *   sleep     ops.stopping(runnable = false), ops.quiescent(SCX_DEQ_SLEEP)
 *   tick      update_curr_scx() charges the slice, ops.tick, and a slice
 *             that ran out reschedules the CPU
 *   kicks     sent after the callback (the kernel's irq_work):
 *             SCX_KICK_IDLE wakes an idle CPU only, SCX_KICK_PREEMPT
 *             zeroes the running task's slice, others reschedule
 *   watchdog  every timeout / 2 (ops.timeout_ms, else 30 s), a task
 *             runnable for longer than the timeout since it last ran ends
 *             the scheduler: "%s[%d] failed to run for %u.%03us"
 * An error (a rule the policy broke, scx_bpf_error()) ends the run after
 * the current event, with the kernel's message; ops.exit gets the exit info.
 */
#include <stdlib.h>

#include "engine.h"

#define OP(e, name) ((e)->ops->name)
#define SCX_WATCHDOG_MAX_NS 30000000000ULL

typedef s32 (*select_cpu_fn)(struct task_struct *, s32, u64);
typedef void (*task_flags_fn)(struct task_struct *, u64);
typedef void (*dispatch_fn)(s32, struct task_struct *);
typedef void (*task_fn)(struct task_struct *);
typedef void (*stopping_fn)(struct task_struct *, bool);
typedef void (*update_idle_fn)(s32, bool);
typedef s32 (*init_task_fn)(struct task_struct *, struct scx_init_task_args *);
typedef void (*exit_task_fn)(struct task_struct *, struct scx_exit_task_args *);
typedef s32 (*init_fn)(void);
typedef void (*exit_fn)(struct scx_exit_info *);
typedef void (*cgroup_fn)(struct cgroup *);
typedef int (*timer_fn)(void *, int *, void *);

/* Enter a callback on @cpu as @op; kicks it sends are @cpu's. */
static void enter(struct engine *e, s32 cpu, enum sim_op op)
{
	sim_k.cur_cpu = cpu;
	sim_k.op = op;
	e->st.callbacks++;
}

static void leave(void)
{
	sim_k.op = SIM_OP_NONE;
}

static bool queued(const struct task_struct *p)
{
	return p->scx.flags & SCX_TASK_QUEUED;
}

/* The kernel's update_curr_scx(): charge @cpu's running task's slice. */
static void update_curr(struct engine *e, s32 cpu)
{
	struct task_struct *p = sim_k.cpus[cpu].curr;
	struct ecpu *c = &e->cpus[cpu];
	u64 delta = sim_k.now - c->exec_start;

	account_curr(e, cpu);
	c->exec_start = sim_k.now;
	if (!p || p->scx.slice == SCX_SLICE_INF)
		return;
	p->scx.slice -= delta < p->scx.slice ? delta : p->scx.slice;
}

static void set_task_runnable(struct task_struct *p)
{
	if (p->scx.runnable_at == (u64)-1)
		p->scx.runnable_at = sim_k.now;
}

/* direct_dispatch(): carry out the verdict select_cpu or enqueue gave for @p. */
static void direct_dispatch(struct task_struct *p, u64 enq_flags)
{
	u64 flags = p->scx.ddsp_enq_flags | enq_flags;
	bool priq = flags & SCX_ENQ_DSQ_PRIQ;
	struct scxpol_sim_dsq *d = sim_dsq_for_dispatch(p->scx.ddsp_dsq_id, p, p->cpu);

	flags &= ~(u64)SCX_ENQ_DSQ_PRIQ;
	if (d->cpu >= 0)
		sim_dispatch_to_local(d, p, flags);
	else
		sim_dispatch_enqueue(d, p, flags, priq);
}

/* do_enqueue_task() on @cpu's run queue; the callbacks run on the current CPU. */
static void do_enqueue(struct engine *e, s32 cpu, struct task_struct *p, u64 enq_flags)
{
	s32 here = sim_k.cur_cpu;

	if (p->scx.ddsp_dsq_id != SCX_DSQ_INVALID) {
		direct_dispatch(p, enq_flags);
		return;
	}
	if ((p->flags & SIM_PF_EXITING) && !(e->ops->flags & SCX_OPS_ENQ_EXITING)) {
		p->scx.slice = SCX_SLICE_DFL;
		sim_dispatch_enqueue(&sim_k.cpus[cpu].local, p, enq_flags, false);
		return;
	}
	if (!OP(e, enqueue)) {
		p->scx.slice = SCX_SLICE_DFL;
		sim_dispatch_enqueue(&sim_k.global, p, enq_flags, false);
		return;
	}
	p->scx.ops_state = 1;
	sim_k.ddsp_task = p;
	enter(e, here, SIM_OP_ENQUEUE);
	((task_flags_fn)OP(e, enqueue))(p, enq_flags);
	leave();
	sim_k.ddsp_task = NULL;
	if (p->scx.ddsp_dsq_id != SCX_DSQ_INVALID)
		direct_dispatch(p, enq_flags);
}

/* enqueue_task_scx() */
static void enqueue(struct engine *e, s32 cpu, struct task_struct *p, u64 enq_flags)
{
	set_task_runnable(p);
	p->scx.flags |= SCX_TASK_QUEUED;
	if (OP(e, runnable)) {
		enter(e, sim_k.cur_cpu, SIM_OP_OTHER);
		((task_flags_fn)OP(e, runnable))(p, enq_flags);
		leave();
	}
	do_enqueue(e, cpu, p, enq_flags);
}

/* The kernel's select_fallback_rq(), simplified: the first allowed online CPU. */
static s32 fallback_cpu(const struct task_struct *p)
{
	u32 cpu = sim_mask_next_and(p->cpus_ptr, &sim_k.online, 0);

	return cpu < sim_k.nr_cpus ? (s32)cpu : p->cpu;
}

static void ext_wake(struct engine *e, struct scxpol_sim_task *t, s32 waker, u64 wake_flags)
{
	struct task_struct *p = &t->p;
	s32 prev = p->cpu, cpu = prev;
	bool selected = false, idle = false;
	u64 enq_flags = wake_flags & SCX_WAKE_FORK ? 0 : SCX_ENQ_WAKEUP;

	sim_k.cur_cpu = waker;
	if (p->nr_cpus_allowed > 1) {
		if (OP(e, select_cpu)) {
			sim_k.ddsp_task = p;
			enter(e, waker, SIM_OP_SELECT_CPU);
			cpu = ((select_cpu_fn)OP(e, select_cpu))(p, prev, wake_flags);
			leave();
			sim_k.ddsp_task = NULL;
			p->scx.selected_cpu = cpu;
			selected = true;
			if (cpu < 0 || (u32)cpu >= sim_k.nr_cpus) {
				sim_error(SCX_EXIT_ERROR, "invalid CPU %d from ops.select_cpu()", cpu);
				cpu = prev;
			}
		} else {
			cpu = scx_bpf_select_cpu_dfl(p, prev, wake_flags, &idle);
			if (idle) {
				p->scx.slice = SCX_SLICE_DFL;
				p->scx.ddsp_dsq_id = SCX_DSQ_LOCAL;
			}
		}
	} else {
		cpu = (s32)sim_mask_next_and(p->cpus_ptr, NULL, 0);
	}
	if (!sim_mask_test(p->cpus_ptr, (u32)cpu) || !sim_k.cpus[cpu].online)
		cpu = fallback_cpu(p);
	p->cpu = cpu;
	t->wake_idle = !sim_k.cpus[cpu].curr;
	sim_k.cur_cpu = waker;
	enqueue(e, cpu, p, enq_flags | (selected ? SCX_ENQ_CPU_SELECTED : 0));
	/* wakeup_preempt(): a task of a class above idle's wakes an idle CPU */
	if (!sim_k.cpus[cpu].curr)
		engine_resched(e, cpu);
}

static void ext_block(struct engine *e, struct scxpol_sim_task *t, bool exiting)
{
	struct task_struct *p = &t->p;
	s32 cpu = p->cpu;

	(void)exiting;
	update_curr(e, cpu);
	if (OP(e, stopping)) {
		enter(e, cpu, SIM_OP_OTHER);
		((stopping_fn)OP(e, stopping))(p, false);
		leave();
	}
	if (OP(e, quiescent)) {
		enter(e, cpu, SIM_OP_OTHER);
		((task_flags_fn)OP(e, quiescent))(p, SCX_DEQ_SLEEP);
		leave();
	}
	p->scx.flags &= ~SCX_TASK_QUEUED;
}

static void ext_task_dead(struct engine *e, struct scxpol_sim_task *t)
{
	struct scx_exit_task_args args = { .cancelled = false };
	struct task_struct *p = &t->p;

	if (t->enabled && OP(e, disable)) {
		enter(e, p->cpu, SIM_OP_OTHER);
		((task_fn)OP(e, disable))(p);
		leave();
	}
	t->enabled = false;
	if (OP(e, exit_task)) {
		enter(e, p->cpu, SIM_OP_OTHER);
		((exit_task_fn)OP(e, exit_task))(p, &args);
		leave();
	}
	sim_task_storage_free(p);
}

void engine_flush_dispatch(struct engine *e)
{
	u32 i, n = sim_k.dsp_cursor;

	(void)e;
	sim_k.dsp_cursor = 0;
	for (i = 0; i < n; i++) {
		struct sim_insert *in = &sim_k.dsp_buf[i];
		struct task_struct *p = in->p;
		struct scxpol_sim_dsq *d;

		/* finish_dispatch(): only a task the policy still holds */
		if (p->scx.ops_state != 1 || !queued(p))
			continue;
		d = sim_dsq_for_dispatch(in->dsq_id, p, sim_k.cur_cpu);
		if (d->cpu >= 0)
			sim_dispatch_to_local(d, p, in->enq_flags);
		else
			sim_dispatch_enqueue(d, p, in->enq_flags, in->vtime_insert);
		sim_k.dsp_nr_tasks++;
	}
}

/* balance_one(): whether @cpu keeps running @prev (NULL: it was idle). */
static bool balance(struct engine *e, s32 cpu, struct task_struct *prev)
{
	struct scxpol_sim_dsq *local = &sim_k.cpus[cpu].local;
	bool prev_on_rq = prev && queued(prev);
	int loops = SIM_DSP_MAX_LOOPS;

	if (prev_on_rq && prev->scx.slice)
		return true;
	if (local->nr || sim_consume(&sim_k.global, cpu))
		return false;
	if (OP(e, dispatch) && sim_k.cpus[cpu].online) {
		e->cpus[cpu].in_balance = true;
		do {
			sim_k.dsp_nr_tasks = 0;
			enter(e, cpu, SIM_OP_DISPATCH);
			((dispatch_fn)OP(e, dispatch))(cpu, prev);
			engine_flush_dispatch(e);
			leave();
			if (e->exiting)
				break;
			if (prev_on_rq && prev->scx.slice) {
				e->cpus[cpu].in_balance = false;
				return true;
			}
			if (local->nr || sim_consume(&sim_k.global, cpu))
				break;
			if (!--loops) {
				engine_kick(e, cpu, 0);
				break;
			}
		} while (sim_k.dsp_nr_tasks);
		e->cpus[cpu].in_balance = false;
		if (local->nr)
			return false;
	}
	return prev_on_rq && !(e->ops->flags & SCX_OPS_ENQ_LAST);
}

/* put_prev_task_scx() */
static void put_prev(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool to_idle)
{
	struct task_struct *p = &t->p;

	if (!queued(p)) {
		switch_out(e, cpu, t, false);
		if (t->state == T_DEAD)
			ext_task_dead(e, t);
		return;
	}
	if (OP(e, stopping)) {
		enter(e, cpu, SIM_OP_OTHER);
		((stopping_fn)OP(e, stopping))(p, true);
		leave();
	}
	set_task_runnable(p);
	switch_out(e, cpu, t, true);
	sim_k.cur_cpu = cpu;
	do_enqueue(e, cpu, p, to_idle ? SCX_ENQ_LAST : 0);
}

/* set_next_task_scx() */
static void set_next(struct engine *e, s32 cpu, struct task_struct *p)
{
	sim_dsq_remove(p);
	if (OP(e, running) && queued(p)) {
		enter(e, cpu, SIM_OP_OTHER);
		((task_fn)OP(e, running))(p);
		leave();
	}
	p->scx.runnable_at = (u64)-1;
	switch_in(e, cpu, task_of(p), true);
}

static void update_idle(struct engine *e, s32 cpu, bool idle)
{
	if (OP(e, update_idle)) {
		enter(e, cpu, SIM_OP_OTHER);
		((update_idle_fn)OP(e, update_idle))(cpu, idle);
		leave();
	}
	sim_cpu_set_idle(cpu, idle);
}

static void ext_schedule(struct engine *e, s32 cpu)
{
	struct task_struct *prev = sim_k.cpus[cpu].curr, *next;

	sim_k.cur_cpu = cpu;
	if (prev)
		update_curr(e, cpu);
	if (balance(e, cpu, prev)) {
		if (!prev->scx.slice)
			prev->scx.slice = SCX_SLICE_DFL;
		return;
	}
	if (e->exiting)
		return;
	next = sim_k.cpus[cpu].local.first;
	if (prev) {
		sim_k.cpus[cpu].switching = prev;
		put_prev(e, cpu, task_of(prev), !next);
	}
	/* put_prev may have queued prev on this CPU's local DSQ */
	next = sim_k.cpus[cpu].local.first;
	if (next) {
		if (!prev) {
			cpu_idle_leave(e, cpu);
			update_idle(e, cpu, false);
		}
		set_next(e, cpu, next);
	} else {
		/* idle, and an idle CPU that stays idle refreshes its idle bit */
		if (prev)
			cpu_idle_enter(e, cpu);
		update_idle(e, cpu, true);
	}
	sim_k.cpus[cpu].switching = NULL;
}

static void ext_tick(struct engine *e, s32 cpu)
{
	struct task_struct *p = sim_k.cpus[cpu].curr;

	if (!p)
		return;
	sim_k.cur_cpu = cpu;
	update_curr(e, cpu);
	if (OP(e, tick)) {
		enter(e, cpu, SIM_OP_OTHER);
		((task_fn)OP(e, tick))(p);
		leave();
	}
	if (!p->scx.slice)
		engine_resched(e, cpu);
}

/*
 * The tick that matters: every tick with ops.tick; else the one at which
 * the running task's slice runs out (ticks are at multiples of tick_ns).
 */
static u64 ext_next_tick(struct engine *e, s32 cpu)
{
	struct task_struct *p = sim_k.cpus[cpu].curr;
	u64 tick = e->o.tick_ns, at;

	if (!p)
		return 0;
	if (OP(e, tick))
		return (sim_k.now / tick + 1) * tick;
	if (p->scx.slice == SCX_SLICE_INF)
		return 0;
	at = e->cpus[cpu].exec_start + p->scx.slice;
	at = (at + tick - 1) / tick * tick;
	return at > sim_k.now ? at : (sim_k.now / tick + 1) * tick;
}

/* kick_cpus_irq_workfn() on @cpu: send the kicks it queued. */
static void ext_kicks(struct engine *e, s32 cpu)
{
	struct ecpu *c = &e->cpus[cpu];
	struct cpumask kick = c->kick, idle = c->kick_idle, preempt = c->kick_preempt;
	u32 t;

	memset(&c->kick, 0, sizeof(c->kick));
	memset(&c->kick_idle, 0, sizeof(c->kick_idle));
	memset(&c->kick_preempt, 0, sizeof(c->kick_preempt));
	sim_k.cur_cpu = cpu;
	for (t = sim_mask_next_and(&kick, NULL, 0); t < sim_k.nr_cpus;
	     t = sim_mask_next_and(&kick, NULL, t + 1)) {
		struct task_struct *curr = sim_k.cpus[t].curr;

		if (!sim_k.cpus[t].online && (s32)t != cpu)
			continue;
		if (sim_mask_test(&preempt, t) && curr)
			curr->scx.slice = 0;
		engine_resched(e, (s32)t);
	}
	for (t = sim_mask_next_and(&idle, NULL, 0); t < sim_k.nr_cpus;
	     t = sim_mask_next_and(&idle, NULL, t + 1))
		if (!sim_k.cpus[t].curr && !e->cpus[t].in_balance &&
		    (sim_k.cpus[t].online || (s32)t == cpu))
			engine_resched(e, (s32)t);
}

static int ext_task_init(struct engine *e, struct scxpol_sim_task *t, bool fork)
{
	struct scx_init_task_args args = { .fork = fork, .cgroup = t->p.cgroups->dfl_cgrp };
	struct task_struct *p = &t->p;
	s32 r = 0;

	if (OP(e, init_task)) {
		enter(e, p->cpu, SIM_OP_OTHER);
		r = ((init_task_fn)OP(e, init_task))(p, &args);
		leave();
		if (r)
			return r < 0 ? r : -EPROTO;
	}
	p->scx.runnable_at = (u64)-1;
	p->scx.slice = SCX_SLICE_DFL;
	if (OP(e, enable)) {
		enter(e, p->cpu, SIM_OP_OTHER);
		((task_fn)OP(e, enable))(p);
		leave();
	}
	t->enabled = true;
	return 0;
}

static int ext_attach(struct engine *e)
{
	s32 r;

	if (e->ops->timeout_ms && (u64)e->ops->timeout_ms * 1000000 > SCX_WATCHDOG_MAX_NS) {
		sim_error(SCX_EXIT_ERROR, "timeout too long (%ums > %ums)", e->ops->timeout_ms,
			  (unsigned int)(SCX_WATCHDOG_MAX_NS / 1000000));
		return -EINVAL;
	}
	e->watchdog_ns = e->ops->timeout_ms ? (u64)e->ops->timeout_ms * 1000000 :
					      SCX_WATCHDOG_MAX_NS;
	if (OP(e, init)) {
		enter(e, 0, SIM_OP_OTHER);
		r = ((init_fn)OP(e, init))();
		leave();
		if (r && !e->exiting)
			sim_error(SCX_EXIT_ERROR, "ops.init() failed (%d)", r);
		if (e->exiting)
			return -EINVAL;
	}
	ev_arm(e, &e->ev_watchdog, sim_k.now + e->watchdog_ns / 2);
	return 0;
}

/* scx_disable(): the tasks leave the policy, then ops.exit gets the exit info. */
static void ext_detach(struct engine *e)
{
	struct scx_exit_info ei;
	u32 i;

	if (!e->exiting)
		engine_exit(e, SCX_EXIT_UNREG, 0, "");
	for (i = 0; i < e->nr_tasks; i++)
		if (e->tasks[i]->state != T_DEAD && e->tasks[i]->enabled &&
		    OP(e, disable)) {
			enter(e, e->tasks[i]->p.cpu, SIM_OP_OTHER);
			((task_fn)OP(e, disable))(&e->tasks[i]->p);
			leave();
		}
	memset(&ei, 0, sizeof(ei));
	ei.kind = e->exit.kind;
	ei.exit_code = e->exit.code;
	ei.reason = e->exit.reason;
	ei.msg = e->exit_msg;
	ei.exit_cpu = -1;
	if (OP(e, exit)) {
		enter(e, 0, SIM_OP_OTHER);
		((exit_fn)OP(e, exit))(&ei);
		leave();
	}
}

static void ext_cgroup_exit(struct engine *e, struct sim_cgroup *c)
{
	if (OP(e, cgroup_exit)) {
		enter(e, sim_k.cur_cpu, SIM_OP_OTHER);
		((cgroup_fn)OP(e, cgroup_exit))(&c->cgrp);
		leave();
	}
}

void ext_timer(struct engine *e, struct sim_timer *tm)
{
	void *value;
	u32 key;

	if (!sim_map_locate(tm->map, tm->t, &key, &value))
		sim_die("a BPF timer outside the map it was initialised with");
	enter(e, tm->cpu, SIM_OP_OTHER);
	((timer_fn)tm->cb)(tm->map, (int *)&key, value);
	leave();
}

/* check_rq_for_timeouts() over every runnable task, then again in timeout / 2. */
void ext_watchdog(struct engine *e)
{
	u32 i;

	for (i = 0; i < e->nr_tasks; i++) {
		struct task_struct *p = &e->tasks[i]->p;
		u64 ms;

		if (e->tasks[i]->state != T_RUNNABLE || p->scx.runnable_at == (u64)-1 ||
		    sim_k.now - p->scx.runnable_at <= e->watchdog_ns)
			continue;
		ms = (sim_k.now - p->scx.runnable_at) / 1000000;
		sim_error(SCX_EXIT_ERROR_STALL, "%s[%d] failed to run for %u.%03us", p->comm,
			  p->pid, (unsigned int)(ms / 1000), (unsigned int)(ms % 1000));
		return;
	}
	ev_arm(e, &e->ev_watchdog, sim_k.now + e->watchdog_ns / 2);
}

const struct sched_class sched_ext_class = {
	.attach = ext_attach,
	.detach = ext_detach,
	.task_init = ext_task_init,
	.wake = ext_wake,
	.block = ext_block,
	.task_dead = ext_task_dead,
	.schedule = ext_schedule,
	.tick = ext_tick,
	.next_tick = ext_next_tick,
	.kicks = ext_kicks,
	.cgroup_exit = ext_cgroup_exit,
};
