// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Dispatch queues and the kfuncs that fill and drain them, after
 * kernel/sched/ext.c: dispatch_enqueue(), find_dsq_for_dispatch(),
 * dispatch_to_local_dsq(), consume_dispatch_q(), scx_bpf_dsq_insert*(),
 * scx_bpf_dsq_move*(), the DSQ iterator. The messages of the errors are
 * the kernel's.
 *
 * A DSQ keeps its tasks in a list in dispatch order; a vtime DSQ also in a
 * treap keyed by (vtime, insertion number), so an insert costs O(log n)
 * and tasks of equal vtime leave in insertion order, as the kernel's
 * rbtree has them. Custom DSQs are found by id in a hash table (idtab.h).
 */
#include <stdlib.h>

#include "idtab.h"
#include "kernel.h"

static u64 mix64(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

void sim_dsq_init(struct scxpol_sim_dsq *d, u64 id, s32 cpu)
{
	memset(d, 0, sizeof(*d));
	d->id = id;
	d->cpu = cpu;
}

void sim_dsqs_free(void)
{
	idtab_free(&sim_k.dsqs, free);
}

struct scxpol_sim_dsq *sim_dsq_find(u64 id)
{
	return idtab_find(&sim_k.dsqs, id);
}

s32 scx_bpf_create_dsq(u64 id, s32 node)
{
	struct scxpol_sim_dsq *d;

	(void)node;
	if (id & SCX_DSQ_FLAG_BUILTIN)
		return -EINVAL;
	if (sim_dsq_find(id))
		return -EEXIST;
	d = malloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	sim_dsq_init(d, id, -1);
	if (idtab_add(&sim_k.dsqs, id, d)) {
		free(d);
		return -ENOMEM;
	}
	return 0;
}

/* --- the vtime treap --------------------------------------------------------- */
static bool priq_less(const struct task_struct *a, const struct task_struct *b)
{
	s64 d = (s64)(a->scx.dsq_vtime - b->scx.dsq_vtime);

	return d < 0 || (d == 0 && a->scx.dsq_seq < b->scx.dsq_seq);
}

static struct task_struct *priq_merge(struct task_struct *a, struct task_struct *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->scx.priq_prio > b->scx.priq_prio) {
		a->scx.priq_right = priq_merge(a->scx.priq_right, b);
		return a;
	}
	b->scx.priq_left = priq_merge(a, b->scx.priq_left);
	return b;
}

/* Split @t into the tasks before @p (*@l) and after it (*@r). */
static void priq_split(struct task_struct *t, const struct task_struct *p, struct task_struct **l,
		       struct task_struct **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (priq_less(t, p)) {
		priq_split(t->scx.priq_right, p, &t->scx.priq_right, r);
		*l = t;
	} else {
		priq_split(t->scx.priq_left, p, l, &t->scx.priq_left);
		*r = t;
	}
}

static struct task_struct *priq_erase(struct task_struct *t, struct task_struct *p)
{
	if (!t)
		sim_die("task %d is not in its DSQ's vtime order", p->pid);
	if (t == p)
		return priq_merge(p->scx.priq_left, p->scx.priq_right);
	if (priq_less(p, t))
		t->scx.priq_left = priq_erase(t->scx.priq_left, p);
	else
		t->scx.priq_right = priq_erase(t->scx.priq_right, p);
	return t;
}

/* --- lists ------------------------------------------------------------------- */
static void list_insert_after(struct scxpol_sim_dsq *d, struct task_struct *prev,
			      struct task_struct *p)
{
	struct task_struct *next = prev ? prev->scx.dsq_next : d->first;

	p->scx.dsq_prev = prev;
	p->scx.dsq_next = next;
	if (prev)
		prev->scx.dsq_next = p;
	else
		d->first = p;
	if (next)
		next->scx.dsq_prev = p;
	else
		d->last = p;
}

void sim_dsq_add(struct scxpol_sim_dsq *d, struct task_struct *p, bool priq, bool head)
{
	struct task_struct *l, *r, *prev;

	if (p->scx.dsq)
		sim_die("task %s[%d] queued twice", p->comm, p->pid);
	p->scx.dsq = d;
	p->scx.dsq_seq = ++d->seq;
	p->scx.priq_prio = mix64(p->scx.dsq_seq ^ (uintptr_t)d->id);
	p->scx.priq_left = p->scx.priq_right = NULL;
	if (priq) {
		priq_split(d->root, p, &l, &r);
		/* the last task before @p: the rightmost of l */
		for (prev = l; prev && prev->scx.priq_right; prev = prev->scx.priq_right)
			;
		d->root = priq_merge(priq_merge(l, p), r);
		list_insert_after(d, prev, p);
	} else {
		list_insert_after(d, head ? NULL : d->last, p);
	}
	d->priq = priq;
	d->nr++;
}

void sim_dsq_remove(struct task_struct *p)
{
	struct scxpol_sim_dsq *d = p->scx.dsq;

	if (!d)
		return;
	if (d->priq)
		d->root = priq_erase(d->root, p);
	if (p->scx.dsq_prev)
		p->scx.dsq_prev->scx.dsq_next = p->scx.dsq_next;
	else
		d->first = p->scx.dsq_next;
	if (p->scx.dsq_next)
		p->scx.dsq_next->scx.dsq_prev = p->scx.dsq_prev;
	else
		d->last = p->scx.dsq_prev;
	p->scx.dsq_prev = p->scx.dsq_next = NULL;
	p->scx.dsq = NULL;
	d->nr--;
	if (!d->nr)
		d->priq = false;
}

/* --- the kernel's dispatch paths ------------------------------------------------ */
static bool is_local(const struct scxpol_sim_dsq *d)
{
	return d->cpu >= 0;
}

static bool cpu_valid(s32 cpu, const char *where)
{
	if (cpu >= 0 && (u32)cpu < sim_k.nr_cpus)
		return true;
	sim_error(SCX_EXIT_ERROR, "invalid CPU %d%s%s", cpu, where ? " " : "", where ? where : "");
	return false;
}

struct scxpol_sim_dsq *sim_dsq_for_dispatch(u64 dsq_id, struct task_struct *p, s32 local_cpu)
{
	struct scxpol_sim_dsq *d;

	if (dsq_id == SCX_DSQ_LOCAL)
		return &sim_k.cpus[local_cpu].local;
	if ((dsq_id & SCX_DSQ_LOCAL_ON) == SCX_DSQ_LOCAL_ON) {
		s32 cpu = (s32)(dsq_id & SCX_DSQ_LOCAL_CPU_MASK);

		if (!cpu_valid(cpu, "in SCX_DSQ_LOCAL_ON dispatch verdict"))
			return &sim_k.global;
		return &sim_k.cpus[cpu].local;
	}
	if (dsq_id == SCX_DSQ_GLOBAL)
		return &sim_k.global;
	d = sim_dsq_find(dsq_id);
	if (d)
		return d;
	sim_error(SCX_EXIT_ERROR, "non-existent DSQ 0x%llx for %s[%d]", (unsigned long long)dsq_id,
		  p->comm, p->pid);
	return &sim_k.global;
}

void sim_dispatch_enqueue(struct scxpol_sim_dsq *d, struct task_struct *p, u64 enq_flags,
			  bool priq)
{
	struct task_struct *curr;
	bool preempt = false;
	s32 cpu;

	if (priq && (d->id & SCX_DSQ_FLAG_BUILTIN || is_local(d))) {
		sim_error(SCX_EXIT_ERROR, "cannot use vtime ordering for built-in DSQs");
		priq = false;
	}
	if (priq && d->nr && !d->priq)
		sim_error(SCX_EXIT_ERROR, "DSQ ID 0x%016llx already had FIFO-enqueued tasks",
			  (unsigned long long)d->id);
	if (!priq && d->priq)
		sim_error(SCX_EXIT_ERROR, "DSQ ID 0x%016llx already had PRIQ-enqueued tasks",
			  (unsigned long long)d->id);
	sim_dsq_add(d, p, priq && (!d->nr || d->priq),
		    (enq_flags & (SCX_ENQ_HEAD | SCX_ENQ_PREEMPT)) != 0);
	p->scx.ddsp_dsq_id = SCX_DSQ_INVALID;
	p->scx.ddsp_enq_flags = 0;
	p->scx.ops_state = 0;
	if (!is_local(d))
		return;
	cpu = d->cpu;
	p->cpu = cpu;
	if (!sim_k.engine)
		return;
	curr = sim_k.cpus[cpu].curr;
	if ((enq_flags & SCX_ENQ_PREEMPT) && curr && p != curr) {
		curr->scx.slice = 0;
		preempt = true;
	}
	if (preempt || !curr)
		engine_resched(sim_k.engine, cpu);
}

/* Whether @p may move to @cpu's local DSQ; @enforce: if not, that is the policy's error. */
static bool can_run_on(struct task_struct *p, s32 cpu, bool enforce)
{
	if (!sim_mask_test(p->cpus_ptr, (u32)cpu)) {
		if (enforce)
			sim_error(SCX_EXIT_ERROR,
				  "SCX_DSQ_LOCAL[_ON] target CPU %d not allowed for %s[%d]", cpu,
				  p->comm, p->pid);
		return false;
	}
	return sim_k.cpus[cpu].online;
}

void sim_dispatch_to_local(struct scxpol_sim_dsq *d, struct task_struct *p, u64 enq_flags)
{
	if (p->cpu != d->cpu && !can_run_on(p, d->cpu, true)) {
		sim_dispatch_enqueue(&sim_k.global, p, enq_flags, false);
		return;
	}
	sim_dispatch_enqueue(d, p, enq_flags, false);
}

bool sim_consume(struct scxpol_sim_dsq *d, s32 cpu)
{
	struct task_struct *p;

	for (p = d->first; p; p = p->scx.dsq_next)
		if (p->cpu == cpu || can_run_on(p, cpu, false)) {
			sim_dsq_remove(p);
			sim_dsq_add(&sim_k.cpus[cpu].local, p, false, false);
			p->cpu = cpu;
			return true;
		}
	return false;
}

/* --- kfuncs ---------------------------------------------------------------------- */
/* The kernel's scx_kf_allowed() for the insert and move kfuncs. */
static bool allowed(const char *kfunc, bool enqueue_ok)
{
	if (!sim_k.engine)
		return true;
	if (sim_k.op == SIM_OP_DISPATCH ||
	    (enqueue_ok && (sim_k.op == SIM_OP_ENQUEUE || sim_k.op == SIM_OP_SELECT_CPU)))
		return true;
	sim_error(SCX_EXIT_ERROR, "%s called from an operation that does not allow it", kfunc);
	return false;
}

/* Detached (unit tests): the insert takes effect at once, as the fake did. */
static void insert_now(struct task_struct *p, u64 id, u64 enq_flags, bool priq)
{
	s32 cpu = p->cpu;
	struct scxpol_sim_dsq *d;

	d = sim_dsq_for_dispatch(id, p, id == SCX_DSQ_LOCAL ? cpu : sim_k.cur_cpu);
	if (p->scx.dsq)
		sim_die("task %d inserted while queued on DSQ 0x%llx", p->pid,
			(unsigned long long)p->scx.dsq->id);
	if (is_local(d) && !priq)
		sim_dispatch_to_local(d, p, enq_flags);
	else
		sim_dispatch_enqueue(d, p, enq_flags, priq);
}

static void insert(struct task_struct *p, u64 id, u64 slice, u64 vtime, u64 enq_flags,
		   bool priq)
{
	sim_k.nr_inserts++;
	sim_k.last_insert = (struct sim_insert){ p, id, slice, vtime, enq_flags, priq };
	if (!allowed(priq ? "scx_bpf_dsq_insert_vtime()" : "scx_bpf_dsq_insert()", true))
		return;
	if (!p) {
		sim_error(SCX_EXIT_ERROR, "called with NULL task");
		return;
	}
	if (enq_flags & (SCX_ENQ_CLEAR_OPSS | SCX_ENQ_DSQ_PRIQ)) {
		sim_error(SCX_EXIT_ERROR, "invalid enq_flags 0x%llx", (unsigned long long)enq_flags);
		return;
	}
	p->scx.slice = slice ? slice : (p->scx.slice ? p->scx.slice : 1);
	if (priq)
		p->scx.dsq_vtime = vtime;
	if (!sim_k.engine || sim_k.op == SIM_OP_NONE) {
		insert_now(p, id, enq_flags, priq);
		return;
	}
	if (sim_k.op != SIM_OP_DISPATCH) {
		/* mark_direct_dispatch() */
		if (p != sim_k.ddsp_task) {
			if (!sim_k.ddsp_task)
				sim_error(SCX_EXIT_ERROR, "%s[%d] already direct-dispatched", p->comm,
					  p->pid);
			else
				sim_error(SCX_EXIT_ERROR,
					  "scheduling for %s[%d] but trying to direct-dispatch %s[%d]",
					  sim_k.ddsp_task->comm, sim_k.ddsp_task->pid, p->comm,
					  p->pid);
			return;
		}
		sim_k.ddsp_task = NULL;
		p->scx.ddsp_dsq_id = id;
		p->scx.ddsp_enq_flags = enq_flags | (priq ? SCX_ENQ_DSQ_PRIQ : 0);
		return;
	}
	if (sim_k.dsp_cursor >= SIM_DSP_MAX_BATCH) {
		sim_error(SCX_EXIT_ERROR, "dispatch buffer overflow");
		return;
	}
	sim_k.dsp_buf[sim_k.dsp_cursor++] = sim_k.last_insert;
}

void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags)
{
	insert(p, dsq_id, slice, 0, enq_flags, false);
}

void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
			      u64 enq_flags)
{
	insert(p, dsq_id, slice, vtime, enq_flags, true);
}

bool scx_bpf_dsq_move_to_local(u64 dsq_id)
{
	struct scxpol_sim_dsq *d;

	sim_k.nr_moves++;
	if (sim_k.engine && sim_k.op != SIM_OP_DISPATCH) {
		allowed("scx_bpf_dsq_move_to_local()", false);
		return false;
	}
	if (sim_k.engine)
		engine_flush_dispatch(sim_k.engine);
	d = sim_dsq_find(dsq_id);
	if (!d) {
		sim_error(SCX_EXIT_ERROR, "invalid DSQ ID 0x%016llx", (unsigned long long)dsq_id);
		return false;
	}
	if (!sim_consume(d, sim_k.cur_cpu))
		return false;
	sim_k.dsp_nr_tasks++;
	return true;
}

bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
		      u64 enq_flags)
{
	struct scxpol_sim_dsq *src = sim_dsq_find(it->dsq_id), *dst;

	/* @p must still be where the iteration found it, queued before it began */
	if (!it->valid || !src || p->scx.dsq != src || p->scx.dsq_seq > it->seq)
		return false;
	dst = sim_dsq_for_dispatch(dsq_id, p, sim_k.cur_cpu);
	sim_dsq_remove(p);
	if (is_local(dst))
		sim_dispatch_to_local(dst, p, enq_flags);
	else
		sim_dispatch_enqueue(dst, p, enq_flags, false);
	if (sim_k.op == SIM_OP_DISPATCH)
		sim_k.dsp_nr_tasks++;
	return true;
}

int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id, u64 flags)
{
	struct scxpol_sim_dsq *d = sim_dsq_find(dsq_id);

	it->dsq_id = dsq_id;
	it->valid = false;
	it->next = NULL;
	it->seq = 0;
	if (flags)
		return -EINVAL;
	if (!d)
		return -ENOENT;
	it->valid = true;
	it->next = d->first;
	it->seq = d->seq;
	return 0;
}

struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it)
{
	struct scxpol_sim_dsq *d;
	struct task_struct *p;

	if (!it->valid)
		return NULL;
	d = sim_dsq_find(it->dsq_id);
	/* tasks queued after the iteration began are not visited, as in the kernel */
	for (p = it->next; p && p->scx.dsq == d && p->scx.dsq_seq > it->seq; p = p->scx.dsq_next)
		;
	if (!p || p->scx.dsq != d) {
		it->next = NULL;
		return NULL;
	}
	it->next = p->scx.dsq_next;
	return p;
}

void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it)
{
	it->valid = false;
}

/* Only ops.cpu_release may (SCX_KF_CPU_RELEASE), which the simulator never calls. */
u32 scx_bpf_reenqueue_local(void)
{
	sim_error(SCX_EXIT_ERROR, "scx_bpf_reenqueue_local() called from an operation that does "
		  "not allow it");
	return 0;
}

s32 scx_bpf_dsq_nr_queued(u64 dsq_id)
{
	struct scxpol_sim_dsq *d;
	s32 cpu;

	if (dsq_id == SCX_DSQ_LOCAL)
		return (s32)sim_k.cpus[sim_k.cur_cpu].local.nr;
	if ((dsq_id & SCX_DSQ_LOCAL_ON) == SCX_DSQ_LOCAL_ON) {
		cpu = (s32)(dsq_id & SCX_DSQ_LOCAL_CPU_MASK);
		return cpu_valid(cpu, NULL) ? (s32)sim_k.cpus[cpu].local.nr : -ENOENT;
	}
	if (dsq_id == SCX_DSQ_GLOBAL)
		return (s32)sim_k.global.nr;
	d = sim_dsq_find(dsq_id);
	return d ? (s32)d->nr : -ENOENT;
}
