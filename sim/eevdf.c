// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A model of EEVDF, the kernel's fair class (kernel/sched/fair.c, 6.6+),
 * as the reference a policy is compared with. A model, not the kernel:
 *
 *   run queue   one per CPU, its tasks (the running one too) in deadline
 *               order. vruntime grows by run time x 1024 / weight; V is the
 *               weighted average vruntime of the queue; a task is eligible
 *               when its vruntime is not after V. The next task is the
 *               eligible one with the earliest deadline, except that the
 *               running task keeps the CPU until its slice is used
 *               (RUN_TO_PARITY) while it is eligible.
 *   slices      base slice 0.75 ms x (1 + log2(min(CPUs, 8))); a task that
 *               used its slice gets a new deadline (vruntime + slice x
 *               1024 / weight) and the CPU reschedules; checked at ticks.
 *   sleep/wake  lag (V - vruntime, bounded by twice the slice) is kept
 *               across a sleep and a migration, and a waking task is placed
 *               at V - lag (scaled as place_entity() does); a new task gets
 *               half a slice to its first deadline.
 *   preemption  a wakeup preempts the running task when the woken one is
 *               what the pick would choose now.
 *   placement   a waking task goes to its previous CPU if idle, else the
 *               waker's with SCX_WAKE_SYNC when that runs only the waker,
 *               else an idle CPU of the previous CPU's LLC (a wholly idle
 *               core first), else its previous CPU; a new task to an idle
 *               CPU, else the least loaded.
 *   balancing   a CPU going idle pulls a waiting task from another CPU
 *               (its LLC first, then any); every balance period, CPUs with
 *               two or more tasks more than the least loaded give one.
 * Not modelled: PELT load and utilisation (balancing counts tasks), NUMA
 * balancing, cgroup (group) scheduling, the wake_affine weight heuristics,
 * SIS_UTIL's scan limits, misfit and asymmetric capacity, bandwidth.
 */
#include <stdlib.h>

#include "engine.h"

#define NICE_0 1024ULL

static struct ecpu *rq_of(struct engine *e, s32 cpu)
{
	return &e->cpus[cpu];
}

static struct scxpol_sim_task *curr_task(s32 cpu)
{
	struct task_struct *p = sim_k.cpus[cpu].curr;

	return p ? task_of(p) : NULL;
}

static u64 delta_fair(u64 delta, const struct eevdf_se *se)
{
	return se->weight == NICE_0 ? delta : delta * NICE_0 / se->weight;
}

static s64 key(const struct ecpu *rq, const struct eevdf_se *se)
{
	return (s64)(se->vruntime - rq->min_vruntime);
}

/* The running task of @rq's CPU if it is runnable (it is not in the treap). */
static struct scxpol_sim_task *rq_curr(s32 cpu)
{
	struct scxpol_sim_task *t = curr_task(cpu);

	return t && t->se.on_rq ? t : NULL;
}

/* The sums of avg_vruntime() and eligible(): the waiting tasks and the running one. */
static void sums(const struct ecpu *rq, s32 cpu, s64 *avg, s64 *load)
{
	struct scxpol_sim_task *curr = rq_curr(cpu);

	*avg = rq->avg_vruntime;
	*load = (s64)rq->avg_load;
	if (curr) {
		*avg += key(rq, &curr->se) * (s64)curr->se.weight;
		*load += curr->se.weight;
	}
}

/* V: the weighted average vruntime of the queue. */
static u64 avg_vruntime(const struct ecpu *rq, s32 cpu)
{
	s64 avg, load;

	sums(rq, cpu, &avg, &load);
	if (load) {
		/* round towards the left, as the kernel does */
		if (avg < 0)
			avg -= load - 1;
		avg /= load;
	}
	return rq->min_vruntime + (u64)avg;
}

/* vruntime_eligible(): @vruntime is not after V. */
static bool eligible_v(const struct ecpu *rq, s32 cpu, u64 vruntime)
{
	s64 avg, load;

	sums(rq, cpu, &avg, &load);
	return avg >= (s64)(vruntime - rq->min_vruntime) * load;
}

/* --- the treap of waiting tasks: by deadline, each node its subtree's least vruntime --- */
static bool se_before(const struct scxpol_sim_task *a, const struct scxpol_sim_task *b)
{
	s64 d = (s64)(a->se.deadline - b->se.deadline);

	return d < 0 || (d == 0 && a->se.seq < b->se.seq);
}

static void fix(struct scxpol_sim_task *t)
{
	u64 m = t->se.vruntime;

	if (t->se.left && (s64)(t->se.left->se.min_vruntime - m) < 0)
		m = t->se.left->se.min_vruntime;
	if (t->se.right && (s64)(t->se.right->se.min_vruntime - m) < 0)
		m = t->se.right->se.min_vruntime;
	t->se.min_vruntime = m;
}

static struct scxpol_sim_task *merge(struct scxpol_sim_task *a, struct scxpol_sim_task *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->se.prio > b->se.prio) {
		a->se.right = merge(a->se.right, b);
		fix(a);
		return a;
	}
	b->se.left = merge(a, b->se.left);
	fix(b);
	return b;
}

static void split(struct scxpol_sim_task *t, const struct scxpol_sim_task *k,
		  struct scxpol_sim_task **l, struct scxpol_sim_task **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (se_before(t, k)) {
		split(t->se.right, k, &t->se.right, r);
		fix(t);
		*l = t;
	} else {
		split(t->se.left, k, l, &t->se.left);
		fix(t);
		*r = t;
	}
}

static struct scxpol_sim_task *erase(struct scxpol_sim_task *t, struct scxpol_sim_task *x)
{
	if (t == x)
		return merge(x->se.left, x->se.right);
	if (!t)
		sim_die("%s[%d] is not on its EEVDF queue", x->p.comm, x->p.pid);
	if (se_before(x, t))
		t->se.left = erase(t->se.left, x);
	else
		t->se.right = erase(t->se.right, x);
	fix(t);
	return t;
}

static void tree_add(struct ecpu *rq, struct scxpol_sim_task *t)
{
	struct scxpol_sim_task *l, *r;
	u64 x = ++rq->rq_seq;

	t->se.seq = x;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	t->se.prio = x ^ (x >> 33);
	t->se.left = t->se.right = NULL;
	t->se.min_vruntime = t->se.vruntime;
	split(rq->rq_root, t, &l, &r);
	rq->rq_root = merge(merge(l, t), r);
	rq->avg_vruntime += key(rq, &t->se) * (s64)t->se.weight;
	rq->avg_load += t->se.weight;
}

static void tree_del(struct ecpu *rq, struct scxpol_sim_task *t)
{
	rq->rq_root = erase(rq->rq_root, t);
	rq->avg_vruntime -= key(rq, &t->se) * (s64)t->se.weight;
	rq->avg_load -= t->se.weight;
}

/*
 * The base the keys are taken from: the kernel follows the queue's least
 * vruntime; here it moves when the running task's key grows large (the
 * products of keys and weights must stay within 63 bits).
 */
static void rebase(struct ecpu *rq, u64 min)
{
	if (rq->rq_root && (s64)(rq->rq_root->se.min_vruntime - min) < 0)
		min = rq->rq_root->se.min_vruntime;
	rq->avg_vruntime -= (s64)rq->avg_load * (s64)(min - rq->min_vruntime);
	rq->min_vruntime = min;
}

static void overload_update(struct engine *e, s32 cpu)
{
	if (rq_of(e, cpu)->rq_nr >= 2)
		sim_mask_set(&e->overloaded, (u32)cpu);
	else
		sim_mask_clear(&e->overloaded, (u32)cpu);
}

static bool update_curr(struct engine *e, s32 cpu);

/*
 * update_curr() first, as enqueue_entity() and dequeue_entity() do: V and
 * the lags are of now, not of when the running task was last charged (a
 * hog's ticks are skipped while nothing else waits).
 */
static void charge_curr(struct engine *e, s32 cpu)
{
	if (update_curr(e, cpu))
		engine_resched(e, cpu);
}

/* A task becomes runnable on @cpu: placed at V - lag, waiting unless it is the running one. */
static void enqueue_entity(struct engine *e, s32 cpu, struct scxpol_sim_task *t, bool initial)
{
	struct ecpu *rq = rq_of(e, cpu);
	struct eevdf_se *se = &t->se;
	u64 vslice = delta_fair(se->slice, se), v;
	s64 lag = 0, avg, load;

	if (se->on_rq)
		sim_die("%s[%d] enqueued twice", t->p.comm, t->p.pid);
	charge_curr(e, cpu);

	if (!rq->rq_nr) {
		/* an empty queue starts at the task's own vruntime */
		rq->min_vruntime = se->vruntime;
		rq->avg_vruntime = 0;
		rq->avg_load = 0;
	}
	v = avg_vruntime(rq, cpu);
	sums(rq, cpu, &avg, &load);
	/* place_entity(): the lag it left with, scaled for the weight it joins */
	if (load) {
		lag = se->vlag;
		lag = lag * (load + se->weight) / load;
	}
	se->vruntime = v - (u64)lag;
	if (initial)
		vslice /= 2;
	se->deadline = se->vruntime + vslice;
	if ((s64)(se->vruntime - rq->min_vruntime) < 0)
		rebase(rq, se->vruntime);
	tree_add(rq, t);
	rq->rq_nr++;
	se->on_rq = true;
	t->p.cpu = cpu;
	/* not idle any more, even before it switches to the task */
	sim_cpu_set_idle(cpu, false);
	overload_update(e, cpu);
}

/* A task stops being runnable on @cpu (it sleeps, or migrates): its lag is kept. */
static void dequeue_entity(struct engine *e, s32 cpu, struct scxpol_sim_task *t)
{
	struct ecpu *rq = rq_of(e, cpu);
	struct eevdf_se *se = &t->se;
	s64 lag, limit = (s64)delta_fair(2 * se->slice > e->o.tick_ns ? 2 * se->slice :
								  e->o.tick_ns, se);

	charge_curr(e, cpu);
	lag = (s64)(avg_vruntime(rq, cpu) - se->vruntime);
	/* update_entity_lag() */
	se->vlag = lag < -limit ? -limit : lag > limit ? limit : lag;
	if (t != curr_task(cpu))
		tree_del(rq, t);
	rq->rq_nr--;
	se->on_rq = false;
	overload_update(e, cpu);
}

/* update_curr_fair(): charge the running task; true when it used its slice. */
static bool update_curr(struct engine *e, s32 cpu)
{
	struct scxpol_sim_task *t = rq_curr(cpu);
	struct ecpu *rq = rq_of(e, cpu);
	struct eevdf_se *se;
	u64 delta = sim_k.now - rq->exec_start;

	account_curr(e, cpu);
	rq->exec_start = sim_k.now;
	if (!t)
		return false;
	se = &t->se;
	se->vruntime += delta_fair(delta, se);
	if (key(rq, se) > (1LL << 40))
		rebase(rq, se->vruntime);
	if ((s64)(se->vruntime - se->deadline) < 0)
		return false;
	/* update_deadline(): a new slice */
	se->deadline = se->vruntime + delta_fair(se->slice, se);
	return rq->rq_nr > 1;
}

/* pick_eevdf(): the eligible task with the earliest deadline (the running one may stay). */
static struct scxpol_sim_task *pick(struct engine *e, s32 cpu)
{
	struct ecpu *rq = rq_of(e, cpu);
	struct scxpol_sim_task *curr = rq_curr(cpu), *node = rq->rq_root, *best = NULL;

	if (rq->rq_nr == 1)
		return curr ? curr : rq->rq_root;
	if (curr && !eligible_v(rq, cpu, curr->se.vruntime))
		curr = NULL;
	/* RUN_TO_PARITY: its deadline is unchanged since it was picked */
	if (curr && curr->se.vlag == (s64)curr->se.deadline)
		return curr;
	while (node) {
		struct scxpol_sim_task *left = node->se.left;

		/* an eligible task on the left has an earlier deadline */
		if (left && eligible_v(rq, cpu, left->se.min_vruntime)) {
			node = left;
			continue;
		}
		if (eligible_v(rq, cpu, node->se.vruntime)) {
			best = node;
			break;
		}
		node = node->se.right;
	}
	if (!best || (curr && (s64)(curr->se.deadline - best->se.deadline) < 0))
		best = curr;
	/* nothing eligible (rounding): the earliest deadline */
	if (!best) {
		for (best = rq->rq_root; best && best->se.left; best = best->se.left)
			;
	}
	return best;
}

/* Idle: nothing runs and nothing waits (the idle mask says it). */
static bool cpu_idle(s32 cpu)
{
	return sim_mask_test(&sim_k.idle, (u32)cpu);
}

/* An idle CPU of @span that @t may use, a wholly idle core first, after @after; -1 if none. */
static s32 idle_in(const struct cpumask *span, const struct scxpol_sim_task *t, s32 after)
{
	struct cpumask m;
	u32 w, c;

	for (w = 0; w < SIM_MASK_WORDS(sim_k.nr_cpus); w++)
		m.bits[w] = span->bits[w] & t->p.cpus_ptr->bits[w];
	if (sim_k.smt_active) {
		c = sim_mask_next_and_wrap(&sim_k.idle_smt, &m, (u32)after);
		if (c < sim_k.nr_cpus)
			return (s32)c;
	}
	c = sim_mask_next_and_wrap(&sim_k.idle, &m, (u32)after);
	return c < sim_k.nr_cpus ? (s32)c : -1;
}

static s32 select_cpu(struct engine *e, struct scxpol_sim_task *t, s32 waker, u64 wake_flags)
{
	s32 prev = t->p.cpu, target = prev, cpu;
	u32 c, best = sim_k.nr_cpus, best_nr = ~0U;

	if (wake_flags & SCX_WAKE_FORK) {
		for (c = 0; c < sim_k.nr_cpus; c++) {
			if (!sim_mask_test(t->p.cpus_ptr, c))
				continue;
			if (rq_of(e, (s32)c)->rq_nr + (sim_k.cpus[c].curr ? 1 : 0) < best_nr) {
				best = c;
				best_nr = rq_of(e, (s32)c)->rq_nr + (sim_k.cpus[c].curr ? 1 : 0);
			}
		}
		return (s32)best;
	}
	if ((wake_flags & SCX_WAKE_SYNC) && sim_mask_test(t->p.cpus_ptr, (u32)waker) &&
	    rq_of(e, waker)->rq_nr == 1 && !cpu_idle(prev))
		target = waker;
	if (sim_mask_test(t->p.cpus_ptr, (u32)target) && cpu_idle(target))
		return target;
	if (target != prev && sim_mask_test(t->p.cpus_ptr, (u32)prev) && cpu_idle(prev) &&
	    sim_k.cpus[prev].llc == sim_k.cpus[target].llc)
		return prev;
	cpu = idle_in(&sim_k.cpus[target].llc_span, t, target);
	if (cpu >= 0)
		return cpu;
	return sim_mask_test(t->p.cpus_ptr, (u32)target) ? target :
	       (s32)sim_mask_next_and(t->p.cpus_ptr, NULL, 0);
}

static void check_preempt(struct engine *e, s32 cpu, struct scxpol_sim_task *t)
{
	struct scxpol_sim_task *curr = curr_task(cpu);

	if (!curr) {
		engine_resched(e, cpu);
		return;
	}
	update_curr(e, cpu);
	if (pick(e, cpu) == t)
		engine_resched(e, cpu);
	else
		engine_rearm_tick(e, cpu);
}

static void eevdf_wake(struct engine *e, struct scxpol_sim_task *t, s32 waker, u64 wake_flags)
{
	s32 cpu = select_cpu(e, t, waker, wake_flags);

	if (!t->se.slice)
		t->se.slice = e->o.eevdf_slice_ns;
	t->wake_idle = !sim_k.cpus[cpu].curr;
	enqueue_entity(e, cpu, t, wake_flags & SCX_WAKE_FORK);
	sim_k.cur_cpu = waker;
	check_preempt(e, cpu, t);
}

static void eevdf_block(struct engine *e, struct scxpol_sim_task *t, bool exiting)
{
	s32 cpu = t->p.cpu;

	(void)exiting;
	dequeue_entity(e, cpu, t);
}

static void eevdf_task_dead(struct engine *e, struct scxpol_sim_task *t)
{
	(void)e;
	(void)t;
}

/* Move waiting task @t from @src's queue to @dst's (keeping its lag). */
static void migrate(struct engine *e, struct scxpol_sim_task *t, s32 src, s32 dst)
{
	dequeue_entity(e, src, t);
	enqueue_entity(e, dst, t, false);
	t->wake_idle = false;
}

/* A waiting task of @t's subtree that @dst may run, the latest deadline first; or NULL. */
static struct scxpol_sim_task *allowed_in(struct scxpol_sim_task *t, s32 dst)
{
	struct scxpol_sim_task *x;

	if (!t)
		return NULL;
	x = allowed_in(t->se.right, dst);
	if (x)
		return x;
	if (sim_mask_test(t->p.cpus_ptr, (u32)dst))
		return t;
	return allowed_in(t->se.left, dst);
}

/* A waiting task of @src that @dst may run (detach_tasks() takes the least urgent). */
static struct scxpol_sim_task *waiting_for(struct engine *e, s32 src, s32 dst)
{
	return allowed_in(rq_of(e, src)->rq_root, dst);
}

/* newidle_balance(): pull one waiting task, from @cpu's LLC first. */
static bool pull(struct engine *e, s32 cpu)
{
	const struct cpumask *spans[2] = { &sim_k.cpus[cpu].llc_span, NULL };
	struct scxpol_sim_task *t;
	u32 s, src;

	for (s = 0; s < 2; s++)
		for (src = sim_mask_next_and(&e->overloaded, spans[s], 0); src < sim_k.nr_cpus;
		     src = sim_mask_next_and(&e->overloaded, spans[s], src + 1)) {
			t = waiting_for(e, (s32)src, cpu);
			if (t) {
				migrate(e, t, (s32)src, cpu);
				return true;
			}
		}
	return false;
}

static void eevdf_schedule(struct engine *e, s32 cpu)
{
	struct scxpol_sim_task *prev = curr_task(cpu), *next;
	struct ecpu *rq = rq_of(e, cpu);

	sim_k.cur_cpu = cpu;
	if (prev)
		update_curr(e, cpu);
	if (!rq->rq_nr)
		pull(e, cpu);
	next = rq->rq_nr ? pick(e, cpu) : NULL;
	if (next == prev && prev)
		return;
	if (prev) {
		/* put_prev_entity(): back to waiting if it is still runnable */
		if (prev->se.on_rq)
			tree_add(rq, prev);
		switch_out(e, cpu, prev, prev->se.on_rq);
	}
	if (!next) {
		if (prev)
			cpu_idle_enter(e, cpu);
		sim_cpu_set_idle(cpu, true);
		return;
	}
	if (!prev)
		cpu_idle_leave(e, cpu);
	/* set_next_entity(): out of the queue while it runs, and RUN_TO_PARITY's mark */
	tree_del(rq, next);
	next->se.vlag = (s64)next->se.deadline;
	switch_in(e, cpu, next, true);
}

static void eevdf_tick(struct engine *e, s32 cpu)
{
	if (curr_task(cpu) && update_curr(e, cpu))
		engine_resched(e, cpu);
}

/* Ticks matter only while another task waits. */
static u64 eevdf_next_tick(struct engine *e, s32 cpu)
{
	if (!curr_task(cpu) || rq_of(e, cpu)->rq_nr < 2)
		return 0;
	return (sim_k.now / e->o.tick_ns + 1) * e->o.tick_ns;
}

static void eevdf_kicks(struct engine *e, s32 cpu)
{
	(void)e;
	(void)cpu;
}

static int eevdf_task_init(struct engine *e, struct scxpol_sim_task *t, bool fork)
{
	(void)fork;
	t->se.slice = e->o.eevdf_slice_ns;
	return 0;
}

static void eevdf_cgroup_exit(struct engine *e, struct sim_cgroup *c)
{
	(void)e;
	(void)c;
}

static int cmp_load(const void *a, const void *b)
{
	const u32 *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : 1);
}

/*
 * The periodic balance: pair the most loaded CPUs with the least loaded,
 * moving one waiting task while they differ by two or more.
 */
void eevdf_balance(struct engine *e)
{
	u32 n = sim_k.nr_cpus, (*load)[2] = e->balance_scratch, i, j;
	struct scxpol_sim_task *t;

	for (i = 0; i < n; i++) {
		load[i][0] = rq_of(e, (s32)i)->rq_nr;
		load[i][1] = i;
	}
	qsort(load, n, sizeof(*load), cmp_load);
	for (i = 0, j = n - 1; i < j && load[i][0] >= load[j][0] + 2; i++, j--) {
		t = waiting_for(e, (s32)load[i][1], (s32)load[j][1]);
		if (!t)
			continue;
		sim_k.cur_cpu = (s32)load[j][1];
		migrate(e, t, (s32)load[i][1], (s32)load[j][1]);
		check_preempt(e, (s32)load[j][1], t);
	}
	ev_arm(e, &e->ev_balance, sim_k.now + e->o.eevdf_balance_ns);
}

static int eevdf_attach(struct engine *e)
{
	u32 n = e->o.nr_cpus < 8 ? e->o.nr_cpus : 8, log = 0;

	while (n >>= 1)
		log++;
	if (!e->o.eevdf_slice_ns)
		e->o.eevdf_slice_ns = 750000ULL * (1 + log);
	if (!e->o.eevdf_balance_ns)
		e->o.eevdf_balance_ns = 4000000;
	e->balance_scratch = calloc(e->o.nr_cpus, sizeof(u32[2]));
	if (!e->balance_scratch)
		return -ENOMEM;
	ev_arm(e, &e->ev_balance, e->o.eevdf_balance_ns);
	return 0;
}

static void eevdf_detach(struct engine *e)
{
	free(e->balance_scratch);
	e->balance_scratch = NULL;
}

const struct sched_class eevdf_class = {
	.attach = eevdf_attach,
	.detach = eevdf_detach,
	.task_init = eevdf_task_init,
	.wake = eevdf_wake,
	.block = eevdf_block,
	.task_dead = eevdf_task_dead,
	.schedule = eevdf_schedule,
	.tick = eevdf_tick,
	.next_tick = eevdf_next_tick,
	.kicks = eevdf_kicks,
	.cgroup_exit = eevdf_cgroup_exit,
};
