// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The discrete-event engine: the run loop, the CPUs' running state,
 * tasks and their behaviours, cgroups (heap.c: the event heap; metrics.c:
 * what scxpol-lat would measure). What a scheduler does at each point is the scheduler class's
 * (ext.c: a sched_ext policy; eevdf.c: the EEVDF model).
 *
 * Determinism: events are ordered by (time, insertion number); work
 * deferred within an event (kicks, a CPU's resched) is done in the order
 * it was asked for, right after the event, as the kernel's irq_work and
 * need_resched would. Nothing is ordered by an address.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "engine.h"
#include "idtab.h"

struct engine *sim_engine;
static __thread char last_err[512];

const char *scxpol_sim_last_error(void)
{
	return last_err;
}

int engine_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	return -err;
}

/* --- randomness ------------------------------------------------------------------ */
static u64 splitmix(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void scxpol_sim_rng_seed(struct scxpol_sim_rng *r, uint64_t seed, uint64_t stream)
{
	u64 x = seed ^ (stream * 0xd1342543de82ef95ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t scxpol_sim_rng_next(struct scxpol_sim_rng *r)
{
	u64 res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

double scxpol_sim_rng_unit(struct scxpol_sim_rng *r)
{
	return (double)(scxpol_sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* --- the hooks of the simulated kernel (kernel.h) --------------------------------------- */
/* How often @cpu is on the deferred list. */
static u32 turns(const struct engine *e, s32 cpu)
{
	u32 i, n = 0;

	for (i = 0; i < e->nr_deferred; i++)
		n += e->deferred[i] == cpu;
	return n;
}

void defer_cpu(struct engine *e, s32 cpu)
{
	struct ecpu *c = &e->cpus[cpu];

	if (c->queued || e->stuck)
		return;
	if (e->nr_deferred == 4 * e->o.nr_cpus) {
		/*
		 * Callbacks take no time here: a policy that makes a CPU
		 * schedule again from that CPU's own scheduling (a kick of
		 * itself, every time) would run forever at this instant. The
		 * kernel would spend real time in that loop; the simulation
		 * cannot advance, and unloads the policy as its user would.
		 */
		char msg[SIM_MSG_LEN];

		snprintf(msg, sizeof(msg),
			 "scheduling does not settle: CPU %d scheduled again %u times in one "
			 "instant, without time passing (a policy that kicks a CPU from that "
			 "CPU's own scheduling, every time, livelocks it)", cpu, turns(e, cpu));
		engine_exit(e, SCX_EXIT_UNREG, 0, msg);
		e->stuck = true;
		return;
	}
	c->queued = true;
	e->deferred[e->nr_deferred++] = cpu;
}

void engine_resched(struct engine *e, s32 cpu)
{
	struct ecpu *c = &e->cpus[cpu];
	u64 at;

	if (cpu == sim_k.cur_cpu) {
		c->need_resched = true;
		defer_cpu(e, cpu);
		return;
	}
	at = sim_k.now + e->o.ipi_ns + (sim_k.cpus[cpu].curr ? 0 : e->o.idle_exit_ns);
	if (!c->ev_resched.idx || c->ev_resched.at > at)
		ev_arm(e, &c->ev_resched, at);
}

void engine_kick(struct engine *e, s32 cpu, u64 flags)
{
	struct ecpu *c = &e->cpus[sim_k.cur_cpu];

	if (flags & SCX_KICK_IDLE) {
		sim_mask_set(&c->kick_idle, (u32)cpu);
	} else {
		sim_mask_set(&c->kick, (u32)cpu);
		if (flags & SCX_KICK_PREEMPT)
			sim_mask_set(&c->kick_preempt, (u32)cpu);
	}
	c->has_kicks = true;
	defer_cpu(e, sim_k.cur_cpu);
}

void engine_timer_start(struct engine *e, struct sim_timer *tm, u64 ns)
{
	tm->ev.kind = EV_TIMER;
	ev_arm(e, &tm->ev, sim_k.now + ns);
}

void engine_exit(struct engine *e, s32 kind, s64 code, const char *msg)
{
	static const struct {
		s32 kind;
		const char *reason;
	} reasons[] = {
		{ SCX_EXIT_UNREG, "unregistered from user space" },
		{ SCX_EXIT_UNREG_BPF, "unregistered from BPF" },
		{ SCX_EXIT_ERROR, "runtime error" },
		{ SCX_EXIT_ERROR_BPF, "scx_bpf_error" },
		{ SCX_EXIT_ERROR_STALL, "runnable task stall" },
	};
	size_t i;

	/* the first exit wins, as in scx_exit() */
	if (e->exiting)
		return;
	e->exiting = true;
	e->exit.kind = kind;
	e->exit.code = code;
	e->exit.reason = "<UNKNOWN>";
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].kind == kind)
			e->exit.reason = reasons[i].reason;
	snprintf(e->exit_msg, sizeof(e->exit_msg), "%s", msg);
	e->exit.msg = e->exit_msg;
	e->exit.at_ns = sim_k.now;
}

/* --- CPUs and tasks' running state --------------------------------------------------------- */
static struct scxpol_sim_task *curr_of(s32 cpu)
{
	struct task_struct *p = sim_k.cpus[cpu].curr;

	return p ? task_of(p) : NULL;
}

void account_curr(struct engine *e, s32 cpu)
{
	struct scxpol_sim_task *t = curr_of(cpu);
	u64 done;

	(void)e;
	if (!t || sim_k.now <= t->work_start)
		return;
	done = sim_k.now - t->work_start;
	t->remaining -= done < t->remaining ? done : t->remaining;
	t->work_start = sim_k.now;
}

static struct group *group_of(struct engine *e, const struct scxpol_sim_task *t)
{
	return &e->groups[t->group];
}

void mark_queued(struct engine *e, struct scxpol_sim_task *t, bool woken)
{
	(void)e;
	t->queued_at = sim_k.now;
	t->woken = woken;
}

static void trace(struct engine *e, s32 cpu, const struct scxpol_sim_task *prev,
		  const struct scxpol_sim_task *next, bool preempted)
{
	struct scxpol_sim_switch sw = { sim_k.now, (unsigned int)cpu, prev, next, preempted };

	if (e->o.trace)
		e->o.trace(e->o.trace_ctx, &sw);
}

void switch_in(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool ctxsw)
{
	struct group *g = group_of(e, t);
	u64 delay = sim_k.now - t->queued_at;

	if (!sim_mask_test(t->p.cpus_ptr, (u32)cpu))
		sim_die("%s[%d] switched in on CPU %d outside its affinity", t->p.comm, t->p.pid,
			cpu);
	trace(e, cpu, e->cpus[cpu].last, t, e->cpus[cpu].last_preempted);
	e->cpus[cpu].last = NULL;
	sim_k.cpus[cpu].curr = &t->p;
	t->p.cpu = cpu;
	t->state = T_RUNNING;
	lat_hist_add(&g->rq, delay);
	if (t->woken) {
		lat_hist_add(&g->wake, delay);
		if (t->wake_idle)
			lat_hist_add(&g->wake_idle, delay);
		t->woken = false;
	}
	t->switched_in = sim_k.now;
	t->work_start = sim_k.now + (ctxsw ? e->o.ctxsw_ns : 0);
	if (!t->burst_begun) {
		t->burst_start = t->work_start;
		t->burst_begun = true;
	}
	e->cpus[cpu].exec_start = sim_k.now;
	e->st.switches++;
	ev_arm(e, &e->cpus[cpu].ev_burst, t->work_start + t->remaining);
}

void switch_out(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool preempted)
{
	struct group *g = group_of(e, t);
	u64 ran = sim_k.now - t->switched_in;

	account_curr(e, cpu);
	ev_cancel(e, &e->cpus[cpu].ev_burst);
	lat_hist_add(&g->burst, ran);
	/* CPU time since the counts were reset */
	g->cpu_ns += sim_k.now - (t->switched_in > e->stats_since ? t->switched_in : e->stats_since);
	sim_k.cpus[cpu].curr = NULL;
	e->cpus[cpu].last = t;
	e->cpus[cpu].last_preempted = preempted;
	if (preempted) {
		g->preempt++;
		t->state = T_RUNNABLE;
		mark_queued(e, t, false);
	}
}

void cpu_idle_enter(struct engine *e, s32 cpu)
{
	trace(e, cpu, e->cpus[cpu].last, NULL, e->cpus[cpu].last_preempted);
	e->cpus[cpu].last = NULL;
	e->cpus[cpu].idle_since = sim_k.now;
}

void cpu_idle_leave(struct engine *e, s32 cpu)
{
	struct ecpu *c = &e->cpus[cpu];

	if (c->idle_since != (u64)-1)
		e->st.idle_ns += sim_k.now - c->idle_since;
	c->idle_since = (u64)-1;
}

/* --- behaviours ---------------------------------------------------------------------------- */
static const struct sched_class *klass(const struct engine *e)
{
	return e->o.sched == SCXPOL_SIM_SCHED_EEVDF ? &eevdf_class : &sched_ext_class;
}

static void ask(struct engine *e, struct scxpol_sim_task *t, enum scxpol_sim_why why,
		struct scxpol_sim_action *a)
{
	a->act = SCXPOL_SIM_BLOCK;
	a->ns = 0;
	if (t->behave)
		t->behave((struct scxpol_sim *)e, t, t->ctx, why, a);
	if (why == SCXPOL_SIM_WOKEN && a->act != SCXPOL_SIM_RUN)
		sim_die("%s[%d]: a woken task's behaviour must RUN", t->p.comm, t->p.pid);
	if (why == SCXPOL_SIM_START && a->act == SCXPOL_SIM_EXIT)
		sim_die("%s[%d]: a new task's behaviour may not EXIT at once", t->p.comm, t->p.pid);
}

/* Wake @t now from @waker_cpu's context: its behaviour picks the burst, the scheduler a CPU. */
static void do_wake(struct engine *e, struct scxpol_sim_task *t, s32 waker_cpu, u64 wake_flags)
{
	struct scxpol_sim_action a;
	struct group *g = group_of(e, t);

	ev_cancel(e, &t->ev_wake);
	sim_k.cur_cpu = waker_cpu;
	ask(e, t, SCXPOL_SIM_WOKEN, &a);
	t->remaining = a.ns;
	t->burst_begun = false;
	t->state = T_RUNNABLE;
	mark_queued(e, t, true);
	klass(e)->wake(e, t, waker_cpu, wake_flags);
	g->wakeups++;
	if (t->wake_idle)
		g->wakeups_idle++;
	if (t->p.cpu != waker_cpu)
		g->wakeups_remote++;
}

struct task_struct *engine_task_by_pid(struct engine *e, s32 pid)
{
	u32 i;

	for (i = e->nr_tasks; i-- > 0;)
		if (e->tasks[i]->p.pid == pid && e->tasks[i]->state != T_DEAD)
			return &e->tasks[i]->p;
	return NULL;
}

/* After a behaviour's SLEEP, BLOCK or EXIT of @t, which runs on its CPU. */
static void stop_running(struct engine *e, struct scxpol_sim_task *t,
			 const struct scxpol_sim_action *a)
{
	bool exiting = a->act == SCXPOL_SIM_EXIT;

	if (exiting)
		t->p.flags |= SIM_PF_EXITING;
	klass(e)->block(e, t, exiting);
	t->state = exiting ? T_DEAD : T_BLOCKED;
	if (a->act == SCXPOL_SIM_SLEEP)
		ev_arm(e, &t->ev_wake, sim_k.now + a->ns);
	e->cpus[t->p.cpu].need_resched = true;
	defer_cpu(e, t->p.cpu);
}

static void burst_done(struct engine *e, s32 cpu)
{
	struct scxpol_sim_task *t = curr_of(cpu);
	struct scxpol_sim_action a;

	sim_k.cur_cpu = cpu;
	account_curr(e, cpu);
	ask(e, t, SCXPOL_SIM_DONE, &a);
	if (t != curr_of(cpu))
		sim_die("%s[%d] stopped running in its own behaviour", t->p.comm, t->p.pid);
	if (a.act == SCXPOL_SIM_RUN) {
		t->remaining = a.ns;
		t->burst_start = sim_k.now;
		ev_arm(e, &e->cpus[cpu].ev_burst, sim_k.now + a.ns);
		return;
	}
	stop_running(e, t, &a);
}

void engine_rearm_tick(struct engine *e, s32 cpu)
{
	u64 at = klass(e)->next_tick(e, cpu);

	if (at)
		ev_arm(e, &e->cpus[cpu].ev_tick, at);
	else
		ev_cancel(e, &e->cpus[cpu].ev_tick);
}

/*
 * The deferred work of the event: kicks the CPUs sent, then their
 * scheduling. Once per event: the library's calls from inside an event (a
 * behaviour creating a task or removing a cgroup, say) leave theirs to it,
 * as the kernel schedules on the way out, never in the middle of a task's
 * step (the task would stop running in its own behaviour).
 */
static void drain(struct engine *e)
{
	u32 i;

	if (e->in_event)
		return;
	e->in_event = true;
	for (i = 0; i < e->nr_deferred && !e->exiting; i++) {
		s32 cpu = e->deferred[i];
		struct ecpu *c = &e->cpus[cpu];

		c->queued = false;
		if (c->has_kicks) {
			c->has_kicks = false;
			klass(e)->kicks(e, cpu);
		}
		if (c->need_resched) {
			c->need_resched = false;
			ev_cancel(e, &c->ev_resched);
			klass(e)->schedule(e, cpu);
			engine_rearm_tick(e, cpu);
		}
	}
	for (; i < e->nr_deferred; i++)
		e->cpus[e->deferred[i]].queued = false;
	e->nr_deferred = 0;
	e->in_event = false;
}

static void handle(struct engine *e, struct sim_event *ev)
{
	struct user_event *u;
	struct ecpu *c;
	s32 cpu;

	switch (ev->kind) {
	case EV_RESCHED:
		c = container_of(ev, struct ecpu, ev_resched);
		cpu = (s32)(c - e->cpus);
		klass(e)->schedule(e, cpu);
		engine_rearm_tick(e, cpu);
		break;
	case EV_BURST:
		c = container_of(ev, struct ecpu, ev_burst);
		burst_done(e, (s32)(c - e->cpus));
		break;
	case EV_TICK:
		c = container_of(ev, struct ecpu, ev_tick);
		cpu = (s32)(c - e->cpus);
		klass(e)->tick(e, cpu);
		engine_rearm_tick(e, cpu);
		break;
	case EV_WAKE: {
		struct scxpol_sim_task *t = container_of(ev, struct scxpol_sim_task, ev_wake);

		do_wake(e, t, t->p.cpu, SCX_WAKE_TTWU);
		break;
	}
	case EV_TIMER:
		ext_timer(e, container_of(ev, struct sim_timer, ev));
		break;
	case EV_WATCHDOG:
		ext_watchdog(e);
		break;
	case EV_BALANCE:
		eevdf_balance(e);
		break;
	case EV_USER:
		u = container_of(ev, struct user_event, ev);
		u->fn((struct scxpol_sim *)e, u->ctx);
		u->next_free = e->free_user;
		e->free_user = u;
		break;
	}
}

int scxpol_sim_run(struct scxpol_sim *s, uint64_t until)
{
	struct engine *e = (struct engine *)s;
	struct sim_event *ev;

	while (!e->exiting) {
		if (!e->nr_heap || e->heap[0]->at > until) {
			if (sim_k.now < until)
				sim_k.now = until;
			return 0;
		}
		ev = ev_pop(e);
		sim_k.now = ev->at;
		e->st.events++;
		e->in_event = true;
		handle(e, ev);
		e->in_event = false;
		drain(e);
	}
	if (e->attached)
		klass(e)->detach(e);
	e->attached = false;
	if (e->stuck)
		return engine_fail(ELOOP, "%s", e->exit_msg);
	return engine_fail(ECANCELED, "sched_ext: BPF scheduler \"%s\" disabled (%s)%s%s",
		    e->ops ? e->ops->name : "?", e->exit.reason, e->exit.msg[0] ? ": " : "",
		    e->exit.msg);
}

const struct scxpol_sim_exit *scxpol_sim_exit_info(const struct scxpol_sim *s)
{
	return &((const struct engine *)s)->exit;
}

int scxpol_sim_at(struct scxpol_sim *s, uint64_t at, scxpol_sim_event_fn fn, void *ctx)
{
	struct engine *e = (struct engine *)s;
	struct user_event *u;
	u32 i;

	if (!fn || at < sim_k.now)
		return engine_fail(EINVAL, "scxpol_sim_at: %s", !fn ? "no function" : "a time in the past");
	if (!e->free_user) {
		struct user_event **b = realloc(e->user_blocks,
						(e->nr_user_blocks + 1) * sizeof(*b));

		if (!b)
			return engine_fail(ENOMEM, "out of memory for events");
		e->user_blocks = b;
		b[e->nr_user_blocks] = calloc(256, sizeof(**b));
		if (!b[e->nr_user_blocks])
			return engine_fail(ENOMEM, "out of memory for events");
		for (i = 0; i < 256; i++) {
			b[e->nr_user_blocks][i].next_free = e->free_user;
			e->free_user = &b[e->nr_user_blocks][i];
		}
		e->nr_user_blocks++;
	}
	u = e->free_user;
	e->free_user = u->next_free;
	u->fn = fn;
	u->ctx = ctx;
	u->ev.kind = EV_USER;
	ev_arm(e, &u->ev, at);
	return 0;
}

/* --- creation -------------------------------------------------------------------------------- */
/* sched_prio_to_weight[] of kernel/sched/core.c, nice -20 .. 19 */
static const u32 prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
	1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
	110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

static int add_cgroup(struct engine *e, unsigned long long id, struct sim_cgroup *parent)
{
	struct sim_cgroup *c = calloc(1, sizeof(*c)), **a;

	if (!c)
		return engine_fail(ENOMEM, "out of memory for a cgroup");
	if (e->nr_cgroups == e->cgroups_cap) {
		e->cgroups_cap = e->cgroups_cap ? 2 * e->cgroups_cap : 64;
		a = realloc(e->cgroups, e->cgroups_cap * sizeof(*a));
		if (!a) {
			free(c);
			return engine_fail(ENOMEM, "out of memory for a cgroup");
		}
		e->cgroups = a;
	}
	c->id = id;
	c->kn.id = id;
	c->cgrp.kn = &c->kn;
	c->cgrp.self.cgroup = &c->cgrp;
	c->cgrp.self.parent = parent ? &parent->cgrp.self : NULL;
	c->cgrp.self.flags = 1U << 1; /* CSS_ONLINE */
	c->cgrp.level = parent ? parent->cgrp.level + 1 : 0;
	c->cset.dfl_cgrp = &c->cgrp;
	if (idtab_add(&e->cgroup_ids, id, c)) {
		free(c);
		return engine_fail(ENOMEM, "out of memory for a cgroup");
	}
	e->cgroups[e->nr_cgroups++] = c;
	return 0;
}

int scxpol_sim_cgroup_new(struct scxpol_sim *s, unsigned long long id, unsigned long long parent)
{
	struct engine *e = (struct engine *)s;
	struct sim_cgroup *pc = idtab_find(&e->cgroup_ids, parent ? parent : 1);

	if (id <= 1)
		return engine_fail(EINVAL, "cgroup id %llu: want 2 or more (1 is the root)", id);
	if (idtab_find(&e->cgroup_ids, id))
		return engine_fail(EEXIST, "cgroup %llu exists", id);
	if (!pc)
		return engine_fail(ENOENT, "cgroup %llu: no parent cgroup %llu", id, parent);
	return add_cgroup(e, id, pc);
}

int scxpol_sim_cgroup_remove(struct scxpol_sim *s, unsigned long long id)
{
	struct engine *e = (struct engine *)s;
	struct sim_cgroup *c = id > 1 ? idtab_find(&e->cgroup_ids, id) : NULL;

	if (!c)
		return engine_fail(ENOENT, "no cgroup %llu to remove", id);
	if (!(c->cgrp.self.flags & (1U << 1)))
		return engine_fail(ENOENT, "cgroup %llu was removed already", id);
	c->cgrp.self.flags &= ~(1U << 1);
	klass(e)->cgroup_exit(e, c);
	drain(e);
	return 0;
}

struct scxpol_sim_task *scxpol_sim_task_new(struct scxpol_sim *s,
					    const struct scxpol_sim_task_opts *o)
{
	struct engine *e = (struct engine *)s;
	struct scxpol_sim_action a;
	struct scxpol_sim_task *t, **ta;
	struct sim_cgroup *cg;
	struct task_struct *p;
	u32 c;
	int r;

	if (!o || !o->comm || o->nice < -20 || o->nice > 19 || o->group >= e->nr_groups) {
		errno = -engine_fail(EINVAL, "scxpol_sim_task_new: %s", !o || !o->comm ? "no comm" :
			      o->nice < -20 || o->nice > 19 ? "nice outside -20..19" :
			      "no such metrics group");
		return NULL;
	}
	cg = idtab_find(&e->cgroup_ids, o->cgroup ? o->cgroup : 1);
	if (!cg) {
		errno = -engine_fail(ENOENT, "task %s: no cgroup %llu", o->comm, o->cgroup);
		return NULL;
	}
	if (e->nr_tasks == e->tasks_cap) {
		u32 cap = e->tasks_cap ? 2 * e->tasks_cap : 64;

		ta = realloc(e->tasks, cap * sizeof(*ta));
		if (!ta) {
			errno = -engine_fail(ENOMEM, "out of memory for a task");
			return NULL;
		}
		e->tasks = ta;
		e->tasks_cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = -engine_fail(ENOMEM, "out of memory for a task");
		return NULL;
	}
	p = &t->p;
	p->pid = o->pid ? o->pid : e->next_pid++;
	p->tgid = o->tgid ? o->tgid : p->pid;
	snprintf(p->comm, sizeof(p->comm), "%s", o->comm);
	for (c = 0; c < e->o.nr_cpus; c++)
		if (!o->cpus || (o->cpus[c / SIM_BITS] >> (c % SIM_BITS)) & 1)
			sim_mask_set(&p->cpus_mask, c);
	p->cpus_ptr = &p->cpus_mask;
	p->nr_cpus_allowed = (int)sim_mask_weight(&p->cpus_mask);
	p->cpu = o->cpu >= 0 && (u32)o->cpu < e->o.nr_cpus ? o->cpu :
		 (s32)((u32)p->pid % e->o.nr_cpus);
	if (!p->nr_cpus_allowed) {
		free(t);
		errno = -engine_fail(EINVAL, "task %s: no CPU of the machine in its affinity", o->comm);
		return NULL;
	}
	if (!sim_mask_test(p->cpus_ptr, (u32)p->cpu))
		p->cpu = (s32)sim_mask_next_and(p->cpus_ptr, NULL, 0);
	p->flags = o->kthread ? 0x00200000 : 0;
	p->cgroups = &cg->cset;
	t->sig.live.counter = 1;
	p->signal = &t->sig;
	t->spid.ino = ++e->next_ino;
	p->thread_pid = &t->spid;
	p->group_leader = p->tgid == p->pid ? p : engine_task_by_pid(e, p->tgid);
	if (!p->group_leader)
		p->group_leader = p;
	p->scx.weight = (prio_to_weight[o->nice + 20] * 100 + 512) / 1024;
	p->scx.ddsp_dsq_id = SCX_DSQ_INVALID;
	t->se.weight = prio_to_weight[o->nice + 20];
	t->group = o->group;
	t->behave = o->behave;
	t->ctx = o->ctx;
	t->state = T_BLOCKED;
	t->ev_wake.kind = EV_WAKE;
	e->tasks[e->nr_tasks++] = t;
	e->groups[t->group].tasks++;
	e->st.tasks++;
	sim_k.cur_cpu = p->cpu;
	r = klass(e)->task_init(e, t, sim_k.now > 0);
	if (r) {
		drain(e);
		t->state = T_DEAD;
		errno = -r;
		return NULL;
	}
	ask(e, t, SCXPOL_SIM_START, &a);
	if (a.act == SCXPOL_SIM_RUN) {
		t->remaining = a.ns;
		t->state = T_RUNNABLE;
		mark_queued(e, t, true);
		klass(e)->wake(e, t, p->cpu, SCX_WAKE_FORK);
	} else if (a.act == SCXPOL_SIM_SLEEP) {
		ev_arm(e, &t->ev_wake, sim_k.now + a.ns);
	}
	drain(e);
	return t;
}

int scxpol_sim_wake(struct scxpol_sim *s, struct scxpol_sim_task *t, struct scxpol_sim_task *waker,
		    bool sync)
{
	struct engine *e = (struct engine *)s;
	s32 cpu = waker ? waker->p.cpu : t->p.cpu;

	if (t->state == T_RUNNABLE || t->state == T_RUNNING)
		return 1;
	if (t->state != T_BLOCKED)
		return engine_fail(EINVAL, "%s[%d] has exited: nothing wakes it", t->p.comm, t->p.pid);
	if (waker && waker->state != T_RUNNING)
		return engine_fail(EINVAL, "%s[%d] wakes %s[%d] but is not running", waker->p.comm,
			    waker->p.pid, t->p.comm, t->p.pid);
	do_wake(e, t, cpu, SCX_WAKE_TTWU | (sync ? SCX_WAKE_SYNC : 0));
	drain(e);
	return 0;
}

int scxpol_sim_task_pid(const struct scxpol_sim_task *t)
{
	return t->p.pid;
}

int scxpol_sim_task_cpu(const struct scxpol_sim_task *t)
{
	return t->p.cpu;
}

const char *scxpol_sim_task_comm(const struct scxpol_sim_task *t)
{
	return t->p.comm;
}

uint64_t scxpol_sim_task_burst_start(const struct scxpol_sim_task *t)
{
	return t->burst_start;
}

struct task_struct *scxpol_sim_task_struct(struct scxpol_sim_task *t)
{
	return &t->p;
}

/* --- the simulation ------------------------------------------------------------------------- */
static int check_topology(const struct scxpol_sim_opts *o)
{
	unsigned int c;

	for (c = 0; c < o->nr_cpus; c++)
		if ((o->core && o->core[c] < 0) || (o->llc && o->llc[c] < 0) ||
		    (o->node && o->node[c] < 0))
			return engine_fail(EINVAL, "CPU %u: a negative core, LLC or node", c);
	return 0;
}

struct scxpol_sim *scxpol_sim_new(const struct scxpol_sim_opts *opts)
{
	struct engine *e;
	unsigned int c;
	int r;

	if (sim_engine) {
		errno = -engine_fail(EBUSY, "one simulation at a time: free the other first");
		return NULL;
	}
	if (!opts || opts->sz < sizeof(size_t) || !opts->nr_cpus ||
	    opts->nr_cpus > SCXPOL_SIM_MAX_CPUS) {
		errno = -engine_fail(EINVAL, "a machine of %u CPUs: want 1..%d", opts ? opts->nr_cpus : 0,
			      SCXPOL_SIM_MAX_CPUS);
		return NULL;
	}
	if (opts->sched == SCXPOL_SIM_SCHED_EXT && !opts->ops) {
		errno = -engine_fail(EINVAL, "a sched_ext simulation needs the policy's ops");
		return NULL;
	}
	r = check_topology(opts);
	if (r) {
		errno = -r;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->cpus = calloc(opts->nr_cpus, sizeof(*e->cpus))) ||
	    !(e->deferred = calloc(4 * opts->nr_cpus, sizeof(*e->deferred)))) {
		if (e)
			free(e->cpus);
		free(e);
		errno = -engine_fail(ENOMEM, "out of memory for the machine");
		return NULL;
	}
	memcpy(&e->o, opts, opts->sz < sizeof(e->o) ? opts->sz : sizeof(e->o));
	e->o.sz = sizeof(e->o);
	if (!e->o.tick_ns)
		e->o.tick_ns = 1000000;
	e->ops = opts->sched == SCXPOL_SIM_SCHED_EXT ? opts->ops : NULL;
	e->next_pid = 100;
	sim_kernel_reset(opts->nr_cpus);
	for (c = 0; c < opts->nr_cpus; c++) {
		sim_k.cpus[c].core = opts->core ? opts->core[c] : (s32)c;
		sim_k.cpus[c].llc = opts->llc ? opts->llc[c] : 0;
		sim_k.cpus[c].node = opts->node ? opts->node[c] : 0;
		e->cpus[c].ev_resched.kind = EV_RESCHED;
		e->cpus[c].ev_burst.kind = EV_BURST;
		e->cpus[c].ev_tick.kind = EV_TICK;
		e->cpus[c].idle_since = 0;
	}
	sim_kernel_topology_done();
	sim_k.pick_lowest = false;
	sim_k.engine = e;
	sim_engine = e;
	scxpol_sim_group((struct scxpol_sim *)e, "other");
	e->ev_watchdog.kind = EV_WATCHDOG;
	e->ev_balance.kind = EV_BALANCE;
	if (e->o.configure) {
		r = e->o.configure(e->o.configure_ctx);
		if (r) {
			scxpol_sim_free((struct scxpol_sim *)e);
			errno = -r;
			return NULL;
		}
	}
	if (add_cgroup(e, 1, NULL) || klass(e)->attach(e)) {
		errno = EINVAL;
		if (e->exiting)
			engine_fail(EINVAL, "sched_ext: %s: %s", e->ops->name, e->exit.msg);
		scxpol_sim_free((struct scxpol_sim *)e);
		return NULL;
	}
	e->attached = true;
	drain(e);
	return (struct scxpol_sim *)e;
}

static void free_task(void *p)
{
	free(p);
}

void scxpol_sim_free(struct scxpol_sim *s)
{
	struct engine *e = (struct engine *)s;
	u32 i;

	if (!e)
		return;
	if (e->attached)
		klass(e)->detach(e);
	for (i = 0; i < e->nr_tasks; i++)
		free_task(e->tasks[i]);
	free(e->tasks);
	for (i = 0; i < e->nr_cgroups; i++)
		free(e->cgroups[i]);
	free(e->cgroups);
	idtab_free(&e->cgroup_ids, NULL);
	for (i = 0; i < e->nr_user_blocks; i++)
		free(e->user_blocks[i]);
	free(e->user_blocks);
	free(e->groups);
	free(e->heap);
	free(e->deferred);
	free(e->cpus);
	free(e);
	sim_k.engine = NULL;
	sim_kernel_reset(1);
	sim_engine = NULL;
}

uint64_t scxpol_sim_now(const struct scxpol_sim *s)
{
	(void)s;
	return sim_k.now;
}

unsigned int scxpol_sim_nr_cpus(const struct scxpol_sim *s)
{
	return ((const struct engine *)s)->o.nr_cpus;
}
