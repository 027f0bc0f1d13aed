// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The simulated kernel's CPUs, idle tracking, default CPU selection, kicks,
 * BPF timers, clock and errors: the kfuncs of kernel/sched/ext.c and
 * ext_idle.c that are not about DSQs (dsq.c) or cpumasks (cpumask.c).
 * Idle tracking is the kernel's: a CPU's bit is set when it goes idle and
 * cleared when it is claimed (scx_bpf_test_and_clear_cpu_idle(), picks) or
 * runs a task; the SMT mask holds the CPUs of wholly idle cores.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

struct sim_kernel sim_k;

void sim_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "scxpol-sim: internal error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

void sim_kernel_reset(u32 n)
{
	u32 c;

	if (!n || n > SCXPOL_SIM_MAX_CPUS)
		sim_die("a machine of %u CPUs: want 1..%d", n, SCXPOL_SIM_MAX_CPUS);
	sim_maps_free();
	sim_cpumasks_free();
	sim_dsqs_free();
	memset(&sim_k, 0, sizeof(sim_k));
	sim_k.nr_cpus = n;
	sim_k.cpumask_creates_left = -1;
	sim_k.pick_lowest = true;
	sim_dsq_init(&sim_k.global, SCX_DSQ_GLOBAL, -1);
	for (c = 0; c < n; c++) {
		struct sim_cpu *cpu = &sim_k.cpus[c];

		cpu->core = cpu->llc = (s32)c;
		cpu->node = 0;
		cpu->online = true;
		sim_dsq_init(&cpu->local, SCX_DSQ_LOCAL_ON | c, (s32)c);
		cpu->idle.pid = 0;
		snprintf(cpu->idle.comm, sizeof(cpu->idle.comm), "swapper/%u", c);
		cpu->idle.cpu = (s32)c;
		cpu->idle.cpus_ptr = &cpu->idle.cpus_mask;
		sim_mask_set(&cpu->idle.cpus_mask, c);
		cpu->idle.nr_cpus_allowed = 1;
		cpu->idle.scx.weight = 100;
		sim_mask_set(&sim_k.online, c);
		sim_mask_set(&sim_k.possible, c);
		sim_mask_set(&sim_k.idle, c);
	}
	sim_kernel_topology_done();
}

void sim_kernel_topology_done(void)
{
	u32 a, b, n = sim_k.nr_cpus < SCXPOL_SIM_MAX_CPUS ? sim_k.nr_cpus : SCXPOL_SIM_MAX_CPUS;

	sim_k.smt_active = sim_k.multi_llc = sim_k.multi_node = false;
	for (a = 0; a < n; a++) {
		struct sim_cpu *ca = &sim_k.cpus[a];

		memset(&ca->smt, 0, sizeof(struct cpumask));
		memset(&ca->llc_span, 0, sizeof(struct cpumask));
		memset(&ca->node_span, 0, sizeof(struct cpumask));
		for (b = 0; b < n; b++) {
			struct sim_cpu *cb = &sim_k.cpus[b];

			if (ca->core == cb->core) {
				sim_mask_set(&ca->smt, b);
				sim_k.smt_active |= a != b;
			}
			if (ca->llc == cb->llc)
				sim_mask_set(&ca->llc_span, b);
			else
				sim_k.multi_llc = true;
			if (ca->node == cb->node)
				sim_mask_set(&ca->node_span, b);
			else
				sim_k.multi_node = true;
		}
	}
	memset(&sim_k.idle_smt, 0, sizeof(sim_k.idle_smt));
	for (a = 0; a < n; a++)
		if (sim_mask_test(&sim_k.idle, a))
			sim_cpu_set_idle((s32)a, true);
}

static bool smt_subset_idle(s32 cpu)
{
	const struct cpumask *smt = &sim_k.cpus[cpu].smt;
	u32 w;

	for (w = 0; w < SIM_MASK_WORDS(sim_k.nr_cpus); w++)
		if (smt->bits[w] & ~sim_k.idle.bits[w])
			return false;
	return true;
}

static void smt_assign(s32 cpu, bool set)
{
	const struct cpumask *smt = &sim_k.cpus[cpu].smt;
	u32 w;

	for (w = 0; w < SIM_MASK_WORDS(sim_k.nr_cpus); w++)
		if (set)
			sim_k.idle_smt.bits[w] |= smt->bits[w];
		else
			sim_k.idle_smt.bits[w] &= ~smt->bits[w];
}

/* The kernel's update_builtin_idle(). */
void sim_cpu_set_idle(s32 cpu, bool idle)
{
	if (idle)
		sim_mask_set(&sim_k.idle, (u32)cpu);
	else
		sim_mask_clear(&sim_k.idle, (u32)cpu);
	if (!sim_k.smt_active)
		return;
	if (!idle)
		smt_assign(cpu, false);
	else if (smt_subset_idle(cpu))
		smt_assign(cpu, true);
}

/* --- clock and context ---------------------------------------------------------- */
u64 scx_bpf_now(void)
{
	return sim_k.now;
}

u64 bpf_ktime_get_ns(void)
{
	return sim_k.now;
}

u32 bpf_get_smp_processor_id(void)
{
	return (u32)sim_k.cur_cpu;
}

struct task_struct *bpf_get_current_task_btf(void)
{
	struct sim_cpu *c = &sim_k.cpus[sim_k.cur_cpu];

	return c->curr ? c->curr : c->switching ? c->switching : &c->idle;
}

u32 scx_bpf_nr_cpu_ids(void)
{
	return sim_k.nr_cpus;
}

s32 scx_bpf_task_cpu(const struct task_struct *p)
{
	return p->cpu;
}

void sim_task_hash(struct task_struct *p)
{
	int i, free_slot = -1;

	for (i = 0; i < SIM_MAX_HASHED; i++) {
		if (sim_k.hashed[i] == p)
			return;
		if (!sim_k.hashed[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		sim_die("more than %d hashed tasks in detached mode", SIM_MAX_HASHED);
	sim_k.hashed[free_slot] = p;
}

void sim_task_unhash(struct task_struct *p)
{
	int i;

	for (i = 0; i < SIM_MAX_HASHED; i++)
		if (sim_k.hashed[i] == p)
			sim_k.hashed[i] = NULL;
}

struct task_struct *bpf_task_from_pid(s32 pid)
{
	struct task_struct *p = NULL;
	int i;

	if (sim_k.engine)
		p = engine_task_by_pid(sim_k.engine, pid);
	else
		for (i = 0; i < SIM_MAX_HASHED && !p; i++)
			if (sim_k.hashed[i] && sim_k.hashed[i]->pid == pid)
				p = sim_k.hashed[i];
	if (p)
		sim_k.tasks_held++;
	return p;
}

void bpf_task_release(struct task_struct *p)
{
	if (!p || sim_k.tasks_held <= 0)
		sim_die("bpf_task_release() of a task bpf_task_from_pid() did not hold");
	sim_k.tasks_held--;
}

bool scx_bpf_task_running(const struct task_struct *p)
{
	struct sim_cpu *c;

	if (p->cpu < 0 || (u32)p->cpu >= sim_k.nr_cpus)
		return false;
	c = &sim_k.cpus[p->cpu];
	return c->curr == p || c->switching == p;
}

long bpf_probe_read_kernel_str(void *dst, u32 size, const void *src)
{
	size_t n;

	if (!size)
		return -EINVAL;
	n = src ? strnlen(src, size - 1) : 0;
	memcpy(dst, src ? src : "", n);
	((char *)dst)[n] = '\0';
	return (long)n + 1;
}

/* --- idle CPUs ------------------------------------------------------------------- */
bool scx_bpf_test_and_clear_cpu_idle(s32 cpu)
{
	bool was;

	if (cpu < 0 || (u32)cpu >= sim_k.nr_cpus)
		return false;
	/* the core is not wholly idle any more, whether @cpu can be claimed or not */
	if (sim_k.smt_active)
		smt_assign(cpu, false);
	was = sim_mask_test(&sim_k.idle, (u32)cpu);
	sim_mask_clear(&sim_k.idle, (u32)cpu);
	return was;
}

/* The kernel's scx_pick_idle_cpu(): wholly idle cores first under SMT. */
s32 scx_bpf_pick_idle_cpu(const cpumask_t *allowed, u64 flags)
{
	u32 cpu;

	for (;;) {
		if (sim_k.smt_active) {
			cpu = bpf_cpumask_any_and_distribute(&sim_k.idle_smt, allowed);
			if (cpu < sim_k.nr_cpus)
				goto found;
			if (flags & SCX_PICK_IDLE_CORE)
				return -EBUSY;
		}
		cpu = bpf_cpumask_any_and_distribute(&sim_k.idle, allowed);
		if (cpu >= sim_k.nr_cpus)
			return -EBUSY;
found:
		if (scx_bpf_test_and_clear_cpu_idle((s32)cpu))
			return (s32)cpu;
	}
}

s32 scx_bpf_pick_any_cpu(const cpumask_t *allowed, u64 flags)
{
	s32 cpu = scx_bpf_pick_idle_cpu(allowed, flags);

	if (cpu >= 0)
		return cpu;
	cpu = (s32)bpf_cpumask_any_and_distribute(allowed, &sim_k.online);
	return (u32)cpu < sim_k.nr_cpus ? cpu : -EBUSY;
}

/* pick_idle_cpu_in_node() over @span & @allowed. */
static s32 pick_in(const struct cpumask *span, const struct cpumask *allowed, u64 flags)
{
	struct cpumask m;
	u32 w;

	for (w = 0; w < SIM_MASK_WORDS(SCXPOL_SIM_MAX_CPUS); w++)
		m.bits[w] = span->bits[w] & allowed->bits[w];
	return scx_bpf_pick_idle_cpu(&m, flags);
}

/*
 * The kernel's scx_select_cpu_dfl() (ext_idle.c, 6.13+): with SCX_WAKE_SYNC
 * the waker's CPU or an idle @prev_cpu sharing its LLC; under SMT, @prev_cpu
 * if its core is wholly idle, then a wholly idle core in @prev_cpu's LLC, its
 * node, anywhere; then @prev_cpu if idle, an idle CPU in its LLC, its node,
 * anywhere. The LLC and node steps only on a machine with more than one.
 * Detached (unit tests): @prev_cpu if idle, else the first idle CPU.
 */
static s32 select_dfl(struct task_struct *p, s32 prev, u64 wake_flags)
{
	const struct cpumask *allowed = p->cpus_ptr;
	const struct cpumask *llc = &sim_k.cpus[prev].llc_span, *node = &sim_k.cpus[prev].node_span;
	bool multi_llc = sim_k.multi_llc, multi_node = sim_k.multi_node;
	struct sim_cpu *waker;
	s32 cpu;

	if (wake_flags & SCX_WAKE_SYNC) {
		cpu = sim_k.cur_cpu;
		waker = &sim_k.cpus[cpu];
		if (waker->llc == sim_k.cpus[prev].llc && sim_mask_test(allowed, (u32)prev) &&
		    scx_bpf_test_and_clear_cpu_idle(prev))
			return prev;
		if (!(waker->curr && (waker->curr->flags & SIM_PF_EXITING)) && !waker->local.nr &&
		    sim_mask_weight(&sim_k.idle) && sim_mask_test(allowed, (u32)cpu))
			return cpu;
	}
	if (sim_k.smt_active) {
		if (sim_mask_test(allowed, (u32)prev) && sim_mask_test(&sim_k.idle_smt, (u32)prev) &&
		    scx_bpf_test_and_clear_cpu_idle(prev))
			return prev;
		if (multi_llc && (cpu = pick_in(llc, allowed, SCX_PICK_IDLE_CORE)) >= 0)
			return cpu;
		if (multi_node && (cpu = pick_in(node, allowed, SCX_PICK_IDLE_CORE)) >= 0)
			return cpu;
		if ((cpu = scx_bpf_pick_idle_cpu(allowed, SCX_PICK_IDLE_CORE)) >= 0)
			return cpu;
	}
	if (sim_mask_test(allowed, (u32)prev) && scx_bpf_test_and_clear_cpu_idle(prev))
		return prev;
	if (multi_llc && (cpu = pick_in(llc, allowed, 0)) >= 0)
		return cpu;
	if (multi_node && (cpu = pick_in(node, allowed, 0)) >= 0)
		return cpu;
	return scx_bpf_pick_idle_cpu(allowed, 0);
}

s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags, bool *is_idle)
{
	s32 cpu;

	*is_idle = false;
	if (prev_cpu < 0 || (u32)prev_cpu >= sim_k.nr_cpus) {
		sim_error(SCX_EXIT_ERROR, "invalid CPU %d", prev_cpu);
		return prev_cpu;
	}
	if (!sim_k.engine) {
		if (sim_mask_test(p->cpus_ptr, (u32)prev_cpu) &&
		    scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
			*is_idle = true;
			return prev_cpu;
		}
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	} else {
		cpu = select_dfl(p, prev_cpu, wake_flags);
	}
	if (cpu < 0)
		return prev_cpu;
	*is_idle = true;
	return cpu;
}

const struct cpumask *scx_bpf_get_idle_cpumask(void)
{
	return &sim_k.idle;
}

const struct cpumask *scx_bpf_get_idle_smtmask(void)
{
	return sim_k.smt_active ? &sim_k.idle_smt : &sim_k.idle;
}

void scx_bpf_put_idle_cpumask(const struct cpumask *m)
{
	(void)m;
}

const struct cpumask *scx_bpf_get_online_cpumask(void)
{
	return &sim_k.online;
}

void scx_bpf_put_cpumask(const struct cpumask *m)
{
	(void)m;
}

/* --- kicks ------------------------------------------------------------------------- */
void scx_bpf_kick_cpu(s32 cpu, u64 flags)
{
	if (cpu < 0 || (u32)cpu >= sim_k.nr_cpus) {
		sim_error(SCX_EXIT_ERROR, "invalid CPU %d", cpu);
		return;
	}
	if (sim_k.engine) {
		engine_kick(sim_k.engine, cpu, flags);
		return;
	}
	if (sim_k.nr_kicks == SIM_MAX_KICKS)
		sim_die("more than %d kicks recorded", SIM_MAX_KICKS);
	sim_k.kicks[sim_k.nr_kicks].cpu = cpu;
	sim_k.kicks[sim_k.nr_kicks++].flags = flags;
}

/* --- BPF timers --------------------------------------------------------------------- */
struct sim_timer *sim_timer_find(const struct bpf_timer *t)
{
	u32 i;

	for (i = 0; i < sim_k.nr_timers; i++)
		if (sim_k.timers[i].t == t)
			return &sim_k.timers[i];
	return NULL;
}

long bpf_timer_init(struct bpf_timer *t, void *map, u64 flags)
{
	struct sim_timer *tm = sim_timer_find(t);

	(void)flags;
	if (tm)
		return -EBUSY;
	if (sim_k.nr_timers == SIM_MAX_TIMERS)
		sim_die("more than %d BPF timers", SIM_MAX_TIMERS);
	tm = &sim_k.timers[sim_k.nr_timers++];
	memset(tm, 0, sizeof(*tm));
	tm->t = t;
	tm->map = map;
	return 0;
}

long scxpol_sim_timer_set_callback(struct bpf_timer *t, void *cb)
{
	struct sim_timer *tm = sim_timer_find(t);

	if (!tm)
		return -EINVAL;
	tm->cb = cb;
	return 0;
}

long bpf_timer_start(struct bpf_timer *t, u64 ns, u64 flags)
{
	struct sim_timer *tm = sim_timer_find(t);

	(void)flags;
	if (!tm || !tm->cb)
		return -EINVAL;
	tm->ns = ns;
	tm->cpu = sim_k.cur_cpu;
	if (sim_k.engine)
		engine_timer_start(sim_k.engine, tm, ns);
	return 0;
}

/* --- errors ------------------------------------------------------------------------- */
static void verror(s32 kind, s64 code, const char *fmt, va_list ap)
{
	vsnprintf(sim_k.last_error, sizeof(sim_k.last_error), fmt, ap);
	if (!sim_k.nr_errors++)
		memcpy(sim_k.first_error, sim_k.last_error, sizeof(sim_k.first_error));
	if (sim_k.engine)
		engine_exit(sim_k.engine, kind, code, sim_k.last_error);
}

void sim_error(s32 kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(kind, 0, fmt, ap);
	va_end(ap);
}

void scxpol_sim_bpf_exit(bool is_error, s64 code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(is_error ? SCX_EXIT_ERROR_BPF : SCX_EXIT_UNREG_BPF, code, fmt, ap);
	va_end(ap);
}
