// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The fake kernel's CPUs, idle tracking, DSQs, kicks, clock, cpumasks and
 * error reporting. Semantics follow kernel/sched/ext.c and
 * kernel/bpf/cpumask.c where the helpers depend on them; see host_fake.h
 * for where the fake simplifies.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_fake.h"
#include "fake_internal.h"

#define MAX_DSQS 256
#define MAX_KICKS 1024

struct fake_dsq {
	u64 id;
	bool vtime;    /* ordered by vtime (first insert was a vtime insert) */
	int nr, cap;
	struct task_struct **q;
};

struct live_mask {
	struct bpf_cpumask *m;
	struct live_mask *next;
};

static u32 nr_cpus;
static s32 cur_cpu;
static s32 core_of[FAKE_MAX_CPUS];
static bool idle[FAKE_MAX_CPUS];
static bool offline[FAKE_MAX_CPUS];
static struct cpumask online_snapshot;
/* scx_bpf_dsq_move_to_local() calls, each a DSQ lookup in the kernel */
static unsigned int nr_moves;
static u64 now_ns;
static struct fake_dsq dsqs[MAX_DSQS];
static int nr_dsqs;
static struct fake_dsq locals[FAKE_MAX_CPUS];
static struct fake_dsq global_dsq = { .id = SCX_DSQ_GLOBAL };
static struct fake_kick kicks[MAX_KICKS];

#define MAX_TIMERS 8
static struct fake_timer {
	const struct bpf_timer *t;
	void *map;
	void *cb;
	u64 ns;
} timers[MAX_TIMERS];
static int nr_timers;
static unsigned int nr_kicks;
static struct fake_insert last_insert;
static unsigned int nr_inserts;
static unsigned int nr_errors;
static char first_error[512], last_error[512];
static struct live_mask *live;
static int nr_live;
static int creates_left = -1; /* fake_cpumask_fail_after(); -1: never fail */

void fake_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "host fake: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

static void check_cpu(s32 cpu)
{
	if (cpu < 0 || (u32)cpu >= nr_cpus)
		fake_die("CPU %d out of range (fake has %u)", cpu, nr_cpus);
}

static void dsq_free(struct fake_dsq *d)
{
	free(d->q);
	memset(d, 0, sizeof(*d));
}

void fake_reset(u32 n)
{
	int i;

	if (!n || n > FAKE_MAX_CPUS)
		fake_die("fake_reset(%u): want 1..%d CPUs", n, FAKE_MAX_CPUS);
	fake_maps_reset();
	nr_cpus = n;
	cur_cpu = 0;
	nr_moves = 0;
	for (i = 0; i < FAKE_MAX_CPUS; i++) {
		core_of[i] = i;
		idle[i] = (u32)i < n;
		offline[i] = false;
		dsq_free(&locals[i]);
	}
	for (i = 0; i < nr_dsqs; i++)
		dsq_free(&dsqs[i]);
	nr_dsqs = 0;
	dsq_free(&global_dsq);
	global_dsq.id = SCX_DSQ_GLOBAL;
	now_ns = 0;
	nr_kicks = 0;
	nr_timers = 0;
	nr_inserts = 0;
	memset(&last_insert, 0, sizeof(last_insert));
	fake_take_errors();
	while (live) {
		struct live_mask *l = live;

		live = l->next;
		free(l->m);
		free(l);
	}
	nr_live = 0;
	creates_left = -1;
}

void fake_set_core(s32 cpu, s32 core)
{
	check_cpu(cpu);
	core_of[cpu] = core;
}

void fake_set_idle(s32 cpu, bool v)
{
	check_cpu(cpu);
	idle[cpu] = v;
}

bool fake_cpu_idle(s32 cpu)
{
	check_cpu(cpu);
	return idle[cpu];
}

void fake_set_online(s32 cpu, bool v)
{
	check_cpu(cpu);
	offline[cpu] = !v;
}

void fake_set_cpu(s32 cpu)
{
	check_cpu(cpu);
	cur_cpu = cpu;
}

void fake_set_clock(u64 ns)
{
	now_ns = ns;
}

void fake_advance(u64 ns)
{
	now_ns += ns;
}

u64 fake_clock(void)
{
	return now_ns;
}

u64 scx_bpf_now(void)
{
	return now_ns;
}

u64 bpf_ktime_get_ns(void)
{
	return now_ns;
}

u32 bpf_get_smp_processor_id(void)
{
	return (u32)cur_cpu;
}

u32 scx_bpf_nr_cpu_ids(void)
{
	return nr_cpus;
}

/* --- cpumasks ---------------------------------------------------------------- */
#define BITS (8 * sizeof(unsigned long))

void fake_mask_set(struct cpumask *m, s32 cpu)
{
	if (cpu >= 0 && cpu < FAKE_MAX_CPUS)
		m->bits[cpu / BITS] |= 1UL << (cpu % BITS);
}

bool fake_mask_test(const struct cpumask *m, s32 cpu)
{
	return cpu >= 0 && cpu < FAKE_MAX_CPUS && (m->bits[cpu / BITS] >> (cpu % BITS)) & 1;
}

static void mask_clear_cpu(struct cpumask *m, s32 cpu)
{
	m->bits[cpu / BITS] &= ~(1UL << (cpu % BITS));
}

void fake_cpumask_fail_after(int n)
{
	creates_left = n;
}

struct bpf_cpumask *bpf_cpumask_create(void)
{
	struct live_mask *l;

	if (!creates_left)
		return NULL;
	if (creates_left > 0)
		creates_left--;
	l = calloc(1, sizeof(*l));
	if (!l || !(l->m = calloc(1, sizeof(*l->m))))
		abort();
	l->m->usage = 1;
	l->next = live;
	live = l;
	nr_live++;
	return l->m;
}

struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *m)
{
	m->usage++;
	return m;
}

void bpf_cpumask_release(struct bpf_cpumask *m)
{
	struct live_mask **pp, *l;

	if (m->usage <= 0)
		fake_die("bpf_cpumask_release of a freed cpumask");
	if (--m->usage)
		return;
	for (pp = &live; (l = *pp); pp = &l->next)
		if (l->m == m) {
			*pp = l->next;
			free(l->m);
			free(l);
			nr_live--;
			return;
		}
	fake_die("bpf_cpumask_release of an unknown cpumask");
}

int fake_cpumasks_live(void)
{
	return nr_live;
}

u32 bpf_cpumask_first(const struct cpumask *m)
{
	u32 c;

	for (c = 0; c < nr_cpus; c++)
		if (fake_mask_test(m, (s32)c))
			return c;
	return nr_cpus;
}

u32 bpf_cpumask_first_and(const struct cpumask *a, const struct cpumask *b)
{
	u32 c;

	for (c = 0; c < nr_cpus; c++)
		if (fake_mask_test(a, (s32)c) && fake_mask_test(b, (s32)c))
			return c;
	return nr_cpus;
}

/* The kernel rotates the start; the fake always takes the lowest. */
u32 bpf_cpumask_any_and_distribute(const struct cpumask *a, const struct cpumask *b)
{
	return bpf_cpumask_first_and(a, b);
}

void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *m)
{
	if (cpu < nr_cpus)
		fake_mask_set(&m->cpumask, (s32)cpu);
}

void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *m)
{
	if (cpu < nr_cpus)
		mask_clear_cpu(&m->cpumask, (s32)cpu);
}

bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *m)
{
	return cpu < nr_cpus && fake_mask_test(m, (s32)cpu);
}

void bpf_cpumask_clear(struct bpf_cpumask *m)
{
	memset(&m->cpumask, 0, sizeof(m->cpumask));
}

bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	bool any = false;
	size_t i;

	for (i = 0; i < sizeof(a->bits) / sizeof(a->bits[0]); i++) {
		dst->cpumask.bits[i] = a->bits[i] & b->bits[i];
		any |= dst->cpumask.bits[i] != 0;
	}
	return any;
}

void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	size_t i;

	for (i = 0; i < sizeof(a->bits) / sizeof(a->bits[0]); i++)
		dst->cpumask.bits[i] = a->bits[i] | b->bits[i];
}

bool bpf_cpumask_empty(const struct cpumask *m)
{
	return bpf_cpumask_first(m) >= nr_cpus;
}

bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	return bpf_cpumask_first_and(a, b) < nr_cpus;
}

u32 bpf_cpumask_weight(const struct cpumask *m)
{
	u32 c, n = 0;

	for (c = 0; c < nr_cpus; c++)
		n += fake_mask_test(m, (s32)c);
	return n;
}

/* The kernel's RCU read section needs no work in a single-threaded fake. */
void bpf_rcu_read_lock(void)
{
}

void bpf_rcu_read_unlock(void)
{
}

/* --- idle CPUs ------------------------------------------------------------------ */
static bool smt_active(void)
{
	u32 a, b;

	for (a = 0; a < nr_cpus; a++)
		for (b = a + 1; b < nr_cpus; b++)
			if (core_of[a] == core_of[b])
				return true;
	return false;
}

static bool core_idle(s32 cpu)
{
	u32 c;

	for (c = 0; c < nr_cpus; c++)
		if (core_of[c] == core_of[cpu] && !idle[c])
			return false;
	return true;
}

bool scx_bpf_test_and_clear_cpu_idle(s32 cpu)
{
	bool was;

	if (cpu < 0 || (u32)cpu >= nr_cpus)
		return false;
	was = idle[cpu];
	idle[cpu] = false;
	return was;
}

/* kernel/sched/ext.c scx_pick_idle_cpu(): whole idle cores first under SMT. */
s32 scx_bpf_pick_idle_cpu(const cpumask_t *mask, u64 flags)
{
	u32 c;

	if (smt_active()) {
		for (c = 0; c < nr_cpus; c++)
			if (fake_mask_test(mask, (s32)c) && idle[c] && core_idle((s32)c)) {
				idle[c] = false;
				return (s32)c;
			}
		if (flags & SCX_PICK_IDLE_CORE)
			return -EBUSY;
	}
	for (c = 0; c < nr_cpus; c++)
		if (fake_mask_test(mask, (s32)c) && idle[c]) {
			idle[c] = false;
			return (s32)c;
		}
	return -EBUSY;
}

/* Simplified: prev if idle, else the first idle CPU @p may use. */
s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags, bool *is_idle)
{
	s32 cpu;

	(void)wake_flags;
	*is_idle = false;
	if (fake_mask_test(p->cpus_ptr, prev_cpu) && scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
		*is_idle = true;
		return prev_cpu;
	}
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	return prev_cpu;
}

static struct cpumask idle_snapshot;

const struct cpumask *scx_bpf_get_idle_cpumask(void)
{
	u32 c;

	memset(&idle_snapshot, 0, sizeof(idle_snapshot));
	for (c = 0; c < nr_cpus; c++)
		if (idle[c])
			fake_mask_set(&idle_snapshot, (s32)c);
	return &idle_snapshot;
}

const struct cpumask *scx_bpf_get_idle_smtmask(void)
{
	u32 c;

	memset(&idle_snapshot, 0, sizeof(idle_snapshot));
	for (c = 0; c < nr_cpus; c++)
		if (idle[c] && core_idle((s32)c))
			fake_mask_set(&idle_snapshot, (s32)c);
	return &idle_snapshot;
}

void scx_bpf_put_idle_cpumask(const struct cpumask *m)
{
	(void)m;
}

const struct cpumask *scx_bpf_get_online_cpumask(void)
{
	u32 c;

	memset(&online_snapshot, 0, sizeof(online_snapshot));
	for (c = 0; c < nr_cpus; c++)
		if (!offline[c])
			fake_mask_set(&online_snapshot, (s32)c);
	return &online_snapshot;
}

void scx_bpf_put_cpumask(const struct cpumask *m)
{
	(void)m;
}

void scx_bpf_kick_cpu(s32 cpu, u64 flags)
{
	if (cpu < 0 || (u32)cpu >= nr_cpus) {
		fake_record_error(false, 0, "invalid CPU %d", cpu);
		return;
	}
	if (nr_kicks == MAX_KICKS)
		fake_die("too many kicks");
	kicks[nr_kicks].cpu = cpu;
	kicks[nr_kicks++].flags = flags;
}

static struct fake_timer *fake_timer(const struct bpf_timer *t, bool create)
{
	int i;

	for (i = 0; i < nr_timers; i++)
		if (timers[i].t == t)
			return &timers[i];
	if (!create)
		return NULL;
	if (nr_timers == MAX_TIMERS)
		fake_die("too many timers");
	timers[nr_timers].t = t;
	return &timers[nr_timers++];
}

long bpf_timer_init(struct bpf_timer *t, void *map, u64 flags)
{
	struct fake_timer *f = fake_timer(t, true);

	(void)flags;
	if (f->map)
		return -EBUSY;
	f->map = map;
	return 0;
}

long fake_timer_set_callback(struct bpf_timer *t, void *cb)
{
	struct fake_timer *f = fake_timer(t, false);

	if (!f || !f->map)
		return -EINVAL;
	f->cb = cb;
	return 0;
}

long bpf_timer_start(struct bpf_timer *t, u64 ns, u64 flags)
{
	struct fake_timer *f = fake_timer(t, false);

	(void)flags;
	if (!f || !f->cb)
		return -EINVAL;
	f->ns = ns;
	return 0;
}

u64 fake_timer_ns(const struct bpf_timer *t)
{
	struct fake_timer *f = fake_timer(t, false);

	return f ? f->ns : 0;
}

void *fake_timer_cb(const struct bpf_timer *t)
{
	struct fake_timer *f = fake_timer(t, false);

	return f ? f->cb : NULL;
}

void fake_timer_clear(const struct bpf_timer *t)
{
	struct fake_timer *f = fake_timer(t, false);

	if (f)
		f->ns = 0;
}

unsigned int fake_nr_kicks(void)
{
	return nr_kicks;
}

const struct fake_kick *fake_kick_at(unsigned int i)
{
	return i < nr_kicks ? &kicks[i] : NULL;
}

void fake_clear_kicks(void)
{
	nr_kicks = 0;
}

/* --- tasks --------------------------------------------------------------------- */
void fake_task_init(struct task_struct *p, s32 pid, const char *comm)
{
	u32 c;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tgid = pid;
	p->group_leader = p;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	for (c = 0; c < nr_cpus; c++)
		fake_mask_set(&p->cpus_mask, (s32)c);
	p->cpus_ptr = &p->cpus_mask;
	p->nr_cpus_allowed = (int)nr_cpus;
	p->scx.weight = 100;
}

void fake_task_allow(struct task_struct *p, const s32 *cpus, int n)
{
	int i;

	memset(&p->cpus_mask, 0, sizeof(p->cpus_mask));
	for (i = 0; i < n; i++) {
		check_cpu(cpus[i]);
		fake_mask_set(&p->cpus_mask, cpus[i]);
	}
	p->nr_cpus_allowed = n;
}

s32 scx_bpf_task_cpu(const struct task_struct *p)
{
	return p->fake_cpu;
}

/* --- DSQs ---------------------------------------------------------------------- */
static struct fake_dsq *find_dsq(u64 id)
{
	int i;

	if (id == SCX_DSQ_GLOBAL)
		return &global_dsq;
	for (i = 0; i < nr_dsqs; i++)
		if (dsqs[i].id == id)
			return &dsqs[i];
	return NULL;
}

/*
 * An insert into SCX_DSQ_LOCAL_ON | @cpu, as Linux 6.12 finishes it
 * (dispatch_to_local_dsq(), task_can_run_on_remote_rq()): a task that
 * already sits on @cpu goes there unchecked; otherwise a CPU outside the
 * task's cpus_ptr is the policy's error (the kernel ejects it with "...
 * verdict target cpu N not allowed ...") and the task goes to the global
 * DSQ; an allowed CPU that is offline is no error, the task goes to the
 * global DSQ too.
 */
static struct fake_dsq *resolve_local_on(u64 cpu, const struct task_struct *p)
{
	if (cpu >= nr_cpus) {
		fake_record_error(false, 0, "invalid CPU %llu in SCX_DSQ_LOCAL_ON",
				  (unsigned long long)cpu);
		return NULL;
	}
	if (!p || (u64)p->fake_cpu == cpu)
		return &locals[cpu];
	if (!fake_mask_test(p->cpus_ptr, (s32)cpu)) {
		fake_record_error(false, 0,
				  "SCX_DSQ_LOCAL[_ON] verdict target cpu %llu not allowed for %s[%d]",
				  (unsigned long long)cpu, p->comm, p->pid);
		return &global_dsq;
	}
	return offline[cpu] ? &global_dsq : &locals[cpu];
}

/* The DSQ @id names from the current context, or NULL (error recorded). */
static struct fake_dsq *resolve(u64 id, const struct task_struct *p)
{
	struct fake_dsq *d;

	if (id == SCX_DSQ_LOCAL)
		return &locals[p ? p->fake_cpu : cur_cpu];
	if ((id & SCX_DSQ_LOCAL_ON) == SCX_DSQ_LOCAL_ON)
		return resolve_local_on(id & SCX_DSQ_LOCAL_CPU_MASK, p);
	d = find_dsq(id);
	if (!d)
		fake_record_error(false, 0, "non-existent DSQ 0x%llx", (unsigned long long)id);
	return d;
}

s32 scx_bpf_create_dsq(u64 id, s32 node)
{
	(void)node;
	if (id & SCX_DSQ_FLAG_BUILTIN)
		return -EINVAL;
	if (find_dsq(id))
		return -EEXIST;
	if (nr_dsqs == MAX_DSQS)
		return -ENOMEM;
	dsqs[nr_dsqs].id = id;
	nr_dsqs++;
	return 0;
}

static void dsq_put(struct fake_dsq *d, int pos, struct task_struct *p)
{
	if (d->nr == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->q = realloc(d->q, (size_t)d->cap * sizeof(*d->q));
		if (!d->q)
			abort();
	}
	memmove(d->q + pos + 1, d->q + pos, (size_t)(d->nr - pos) * sizeof(*d->q));
	d->q[pos] = p;
	d->nr++;
}

static struct task_struct *dsq_take(struct fake_dsq *d, int pos)
{
	struct task_struct *p = d->q[pos];

	memmove(d->q + pos, d->q + pos + 1, (size_t)(d->nr - pos - 1) * sizeof(*d->q));
	d->nr--;
	p->fake_dsq = 0;
	return p;
}

static void insert(struct task_struct *p, u64 id, u64 slice, u64 vtime, u64 flags, bool by_vtime)
{
	struct fake_dsq *d;
	int pos;

	if (p->fake_dsq)
		fake_die("task %d inserted while queued on DSQ 0x%llx", p->pid,
			 (unsigned long long)p->fake_dsq);
	nr_inserts++;
	last_insert = (struct fake_insert){ p, id, slice, vtime, flags, by_vtime };
	d = resolve(id, p);
	if (!d)
		return;
	if (by_vtime && (id & SCX_DSQ_FLAG_BUILTIN)) {
		fake_record_error(false, 0, "cannot use vtime ordering for built-in DSQs");
		return;
	}
	if (d->nr && d->vtime != by_vtime) {
		fake_record_error(false, 0, "DSQ 0x%llx already has %s-ordered tasks",
				  (unsigned long long)id, d->vtime ? "vtime" : "FIFO");
		return;
	}
	d->vtime = by_vtime;
	p->scx.slice = slice;
	if (by_vtime) {
		p->scx.dsq_vtime = vtime;
		for (pos = 0; pos < d->nr; pos++)
			if ((s64)(vtime - d->q[pos]->scx.dsq_vtime) < 0)
				break;
	} else {
		pos = (flags & SCX_ENQ_HEAD) ? 0 : d->nr;
	}
	dsq_put(d, pos, p);
	p->fake_dsq = d->id ? d->id : SCX_DSQ_LOCAL_ON | (u64)(d - locals);
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

unsigned int fake_nr_moves(void)
{
	return nr_moves;
}

bool scx_bpf_dsq_move_to_local(u64 dsq_id)
{
	struct fake_dsq *d = find_dsq(dsq_id);
	int i;

	nr_moves++;
	if (!d) {
		fake_record_error(false, 0, "non-existent DSQ 0x%llx", (unsigned long long)dsq_id);
		return false;
	}
	for (i = 0; i < d->nr; i++)
		if (fake_mask_test(d->q[i]->cpus_ptr, cur_cpu)) {
			struct task_struct *p = dsq_take(d, i);

			p->fake_cpu = cur_cpu;
			dsq_put(&locals[cur_cpu], locals[cur_cpu].nr, p);
			p->fake_dsq = SCX_DSQ_LOCAL_ON | (u64)cur_cpu;
			return true;
		}
	return false;
}

/* Walks the queue in dispatch order; the fake does not let it change meanwhile. */
int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id, u64 flags)
{
	it->dsq_id = dsq_id;
	it->pos = 0;
	it->valid = !flags && find_dsq(dsq_id);
	return it->valid ? 0 : -EINVAL;
}

struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it)
{
	struct fake_dsq *d = it->valid ? find_dsq(it->dsq_id) : NULL;

	return d && it->pos < d->nr ? d->q[it->pos++] : NULL;
}

void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it)
{
	it->valid = false;
}

s32 scx_bpf_dsq_nr_queued(u64 dsq_id)
{
	struct fake_dsq *d;

	if (dsq_id == SCX_DSQ_LOCAL)
		return locals[cur_cpu].nr;
	if ((dsq_id & SCX_DSQ_LOCAL_ON) == SCX_DSQ_LOCAL_ON)
		return (dsq_id & SCX_DSQ_LOCAL_CPU_MASK) < nr_cpus ?
			       locals[dsq_id & SCX_DSQ_LOCAL_CPU_MASK].nr : -EINVAL;
	d = find_dsq(dsq_id);
	return d ? d->nr : -ENOENT;
}

int fake_dsq_count(u64 dsq_id)
{
	struct fake_dsq *d = find_dsq(dsq_id);

	return d ? d->nr : -1;
}

bool fake_dsq_exists(u64 dsq_id)
{
	return find_dsq(dsq_id) != NULL;
}

struct task_struct *fake_dsq_at(u64 dsq_id, int i)
{
	struct fake_dsq *d = find_dsq(dsq_id);

	return d && i >= 0 && i < d->nr ? d->q[i] : NULL;
}

int fake_local_count(s32 cpu)
{
	check_cpu(cpu);
	return locals[cpu].nr;
}

struct task_struct *fake_local_at(s32 cpu, int i)
{
	check_cpu(cpu);
	return i >= 0 && i < locals[cpu].nr ? locals[cpu].q[i] : NULL;
}

struct task_struct *fake_local_pop(s32 cpu)
{
	check_cpu(cpu);
	return locals[cpu].nr ? dsq_take(&locals[cpu], 0) : NULL;
}

const struct fake_insert *fake_last_insert(void)
{
	return nr_inserts ? &last_insert : NULL;
}

unsigned int fake_nr_inserts(void)
{
	return nr_inserts;
}

/* --- errors ---------------------------------------------------------------------- */
void fake_record_error(bool is_exit, s64 code, const char *fmt, ...)
{
	va_list ap;

	(void)is_exit;
	(void)code;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (!nr_errors++)
		memcpy(first_error, last_error, sizeof(first_error));
}

unsigned int fake_take_errors(void)
{
	unsigned int n = nr_errors;

	nr_errors = 0;
	first_error[0] = last_error[0] = '\0';
	return n;
}

int fake_teardown(void **state)
{
	(void)state;
	if (!nr_errors)
		return 0;
	fprintf(stderr, "host fake: %u unexpected error(s); first: %s; last: %s\n", nr_errors,
		first_error, last_error);
	fake_take_errors();
	return -1;
}

unsigned int fake_nr_errors(void)
{
	return nr_errors;
}

const char *fake_last_error(void)
{
	return last_error;
}
