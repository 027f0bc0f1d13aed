/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A small fake kernel under which the headers of bpf-lib/scxpol compile as host C
 * (-DSCXPOL_HOST_TEST), so their logic is unit-tested with cmocka. It is a
 * fake for testing the helpers, not a kernel: just enough state to make the
 * kfuncs the helpers call behave deterministically.
 *
 *   CPUs      fake_reset(n) makes CPUs 0..n-1, all idle, each its own core;
 *             fake_set_core() groups SMT siblings. The CPU a callback runs
 *             on is fake_set_cpu() (bpf_get_smp_processor_id()); all are
 *             online until fake_set_online().
 *   Idle      scx_bpf_pick_idle_cpu() takes the lowest idle CPU of the mask,
 *             preferring CPUs whose whole core is idle when a core has more
 *             than one CPU (what the kernel does, minus its round-robin);
 *             SCX_PICK_IDLE_CORE takes only those.
 *   DSQs      really queue: FIFO, or by vtime if the first insert was a
 *             vtime insert; SCX_DSQ_LOCAL is the local DSQ of the task's CPU
 *             (scx_bpf_task_cpu()); SCX_DSQ_LOCAL_ON checks the task's
 *             allowed CPUs as Linux 6.12 does; SCX_DSQ_GLOBAL is one FIFO.
 *             move_to_local() moves the first task that may run on the
 *             current CPU, like the kernel.
 *   Kicks     are recorded (fake_kick_*()).
 *   Clock     fake_set_clock() sets scx_bpf_now() and bpf_ktime_get_ns().
 *   Maps      the libbpf map definition syntax compiles unchanged; ARRAY,
 *             PERCPU_ARRAY, HASH, LPM_TRIE and TASK_STORAGE are backed by
 *             zeroed host memory sized from the definition (FAKE_MAP_RESIZE()
 *             plays bpf_map__set_max_entries()).
 *   Errors    scxpol_error()/scxpol_exit() and what the kernel would call
 *             the policy's error are recorded (fake_nr_errors()); a test
 *             that provokes one takes it (fake_take_errors()), and
 *             fake_teardown() fails a test that left any.
 *   Cpumasks  bpf_cpumask_create/release are reference counted;
 *             fake_cpumasks_live() catches leaks;
 *             fake_cpumask_fail_after() makes them run out (-ENOMEM paths).
 */
#ifndef SCXPOL_HOST_FAKE_H
#define SCXPOL_HOST_FAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/bpf.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define FAKE_MAX_CPUS 256

/* --- BPF C syntax as host no-ops ----------------------------------------- */
#define SEC(name)
#define __ksym
#define __weak __attribute__((weak))
#define __kptr
#define __arg_trusted
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define BPF_PROG(name, args...) name(args)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
/* A weak kfunc the fake does not define has address 0: "not in this kernel". */
#define bpf_ksym_exists(sym) (!!(sym))
#define bpf_for(i, start, end) for ((i) = (start); (i) < (__typeof__(i))(end); (i)++)
/* libbpf's open-coded iterator loop, as bpf_helpers.h defines it */
#define bpf_for_each(type, cur, args...)                                           \
	for (struct bpf_iter_##type ___it __attribute__((cleanup(bpf_iter_##type##_destroy))), \
	     *___p __attribute__((unused)) = (bpf_iter_##type##_new(&___it, ##args), (void *)0); \
	     ((cur) = bpf_iter_##type##_next(&___it));)
#define bpf_kptr_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define bpf_core_field_exists(f) 1
#define bpf_core_enum_value_exists(t, v) 1
#define bpf_core_enum_value(t, v) (v)
#define BPF_CORE_READ(src, a) ((src)->a)

/* libbpf's map definition macros (bpf_helpers.h), unchanged. */
#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __array(name, val) __typeof__(val) *name[]
#define LIBBPF_PIN_BY_NAME 1

/* --- kernel types the helpers touch -------------------------------------- */
struct cpumask {
	unsigned long bits[FAKE_MAX_CPUS / (8 * sizeof(unsigned long))];
};
typedef struct cpumask cpumask_t;

struct bpf_cpumask {
	struct cpumask cpumask; /* first, as in the kernel: casts work */
	int usage;
};

struct sched_ext_entity {
	u64 dsq_vtime;
	u64 slice;
	u32 weight;
	u32 flags;
};

/* A task's cgroup and the cgroup tree (task.bpf.h, hint.bpf.h, match.bpf.h). */
struct cgroup;

struct kernfs_node {
	u64 id;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
	unsigned int flags; /* CSS_ONLINE = 1 << 1 */
};

struct cgroup {
	struct cgroup_subsys_state self; /* first, as in the kernel */
	struct kernfs_node *kn;
	int level;
};

struct css_set {
	struct cgroup *dfl_cgrp;
};

struct task_struct {
	s32 pid;
	s32 tgid;
	char comm[16];
	int nr_cpus_allowed;
	const cpumask_t *cpus_ptr;
	cpumask_t cpus_mask;
	struct sched_ext_entity scx;
	unsigned int flags;           /* PF_* (hint.bpf.h: PF_EXITING) */
	struct css_set *cgroups;      /* task.bpf.h: scxpol_task_cgroup() */
	struct signal_struct *signal; /* hint.bpf.h: live threads */
	struct pid *thread_pid;       /* hint.bpf.h: identity; NULL once unhashed */
	struct task_struct *group_leader;
	/* fake only */
	s32 fake_cpu;     /* scx_bpf_task_cpu() */
	u64 fake_dsq;     /* DSQ it is queued on, 0 if none */
};

#define CLOCK_MONOTONIC 1

/* A DSQ iterator: the fake walks a snapshot position of its queue. */
struct bpf_iter_scx_dsq {
	u64 dsq_id;
	int pos;
	bool valid;
};
struct scx_exit_info;
struct scx_init_task_args;

enum scx_dsq_id_flags {
	SCX_DSQ_FLAG_BUILTIN = 1ULL << 63,
	SCX_DSQ_FLAG_LOCAL_ON = 1ULL << 62,
	SCX_DSQ_INVALID = SCX_DSQ_FLAG_BUILTIN | 0,
	SCX_DSQ_GLOBAL = SCX_DSQ_FLAG_BUILTIN | 1,
	SCX_DSQ_LOCAL = SCX_DSQ_FLAG_BUILTIN | 2,
	SCX_DSQ_LOCAL_ON = SCX_DSQ_FLAG_BUILTIN | SCX_DSQ_FLAG_LOCAL_ON,
	SCX_DSQ_LOCAL_CPU_MASK = 0xffffffffULL,
};

/* The values of Linux 7.x (compat.bpf.h reads them by name). */
enum scx_enq_flags {
	SCX_ENQ_WAKEUP = 1ULL,
	SCX_ENQ_HEAD = 1ULL << 16,
	SCX_ENQ_CPU_SELECTED = 1ULL << 20,
	SCX_ENQ_PREEMPT = 1ULL << 32,
	SCX_ENQ_REENQ = 1ULL << 40,
	SCX_ENQ_LAST = 1ULL << 41,
};
enum scx_deq_flags { SCX_DEQ_SLEEP = 1ULL };
enum scx_kick_flags { SCX_KICK_IDLE = 1, SCX_KICK_PREEMPT = 2, SCX_KICK_WAIT = 4 };
enum scx_pick_idle_cpu_flags { SCX_PICK_IDLE_CORE = 1 };
enum scx_wake_flags { SCX_WAKE_FORK = 4, SCX_WAKE_TTWU = 8, SCX_WAKE_SYNC = 16 };
enum scx_ent_flags { SCX_TASK_QUEUED = 1 };
enum scx_public_consts { SCX_SLICE_DFL = 20000000ULL };

#define scxpol_kenum(t, v) ((u64)(v))

/* --- kfuncs and helpers (fake_kernel.c); weak like the BPF declarations --- */
__weak s32 scx_bpf_create_dsq(u64 dsq_id, s32 node);
__weak s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
				  bool *is_idle);
__weak s32 scx_bpf_dsq_nr_queued(u64 dsq_id);
__weak void scx_bpf_kick_cpu(s32 cpu, u64 flags);
__weak s32 scx_bpf_pick_idle_cpu(const cpumask_t *cpus_allowed, u64 flags);
__weak bool scx_bpf_test_and_clear_cpu_idle(s32 cpu);
__weak const struct cpumask *scx_bpf_get_idle_cpumask(void);
__weak const struct cpumask *scx_bpf_get_idle_smtmask(void);
__weak void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask);
__weak const struct cpumask *scx_bpf_get_online_cpumask(void);
__weak void scx_bpf_put_cpumask(const struct cpumask *cpumask);
__weak u32 scx_bpf_nr_cpu_ids(void);
__weak s32 scx_bpf_task_cpu(const struct task_struct *p);
__weak u64 scx_bpf_now(void);
__weak void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags);
__weak void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
				     u64 enq_flags);
__weak bool scx_bpf_dsq_move_to_local(u64 dsq_id);
__weak bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
			     u64 enq_flags);
__weak int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id, u64 flags);
__weak struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it);
__weak void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it);
/* Linux 6.12 names: not in the fake (address 0), as on a 7.x kernel. */
__weak void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags);
__weak void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
				   u64 enq_flags);
__weak bool scx_bpf_consume(u64 dsq_id);
__weak bool scx_bpf_dispatch_from_dsq(struct bpf_iter_scx_dsq *it, struct task_struct *p,
				      u64 dsq_id, u64 enq_flags);
/* Linux 7.1+: not in the fake either (the library iterates the DSQ instead). */
__weak struct task_struct *scx_bpf_dsq_peek(u64 dsq_id);
/* Linux 6.19+: not in the fake: the library stores to p->scx as on 6.12. */
__weak bool scx_bpf_task_set_slice(struct task_struct *p, u64 slice);
__weak bool scx_bpf_task_set_dsq_vtime(struct task_struct *p, u64 vtime);

__weak struct bpf_cpumask *bpf_cpumask_create(void);
__weak struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask);
__weak void bpf_cpumask_release(struct bpf_cpumask *cpumask);
__weak u32 bpf_cpumask_first(const struct cpumask *cpumask);
__weak u32 bpf_cpumask_first_and(const struct cpumask *a, const struct cpumask *b);
__weak void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *cpumask);
__weak void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *cpumask);
__weak bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask);
__weak void bpf_cpumask_clear(struct bpf_cpumask *cpumask);
__weak bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a,
			    const struct cpumask *b);
__weak void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a,
			   const struct cpumask *b);
__weak bool bpf_cpumask_empty(const struct cpumask *cpumask);
__weak bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b);
__weak u32 bpf_cpumask_weight(const struct cpumask *cpumask);
__weak u32 bpf_cpumask_any_and_distribute(const struct cpumask *a, const struct cpumask *b);
__weak void bpf_rcu_read_lock(void);
/* fake_hint.c: the tasks fake_task_hash() made findable */
__weak struct task_struct *bpf_task_from_pid(s32 pid);
__weak void bpf_task_release(struct task_struct *p);
__weak void bpf_rcu_read_unlock(void);

__weak long bpf_timer_init(struct bpf_timer *timer, void *map, u64 flags);
long fake_timer_set_callback(struct bpf_timer *timer, void *cb);
#define bpf_timer_set_callback(t, cb) fake_timer_set_callback((t), (void *)(cb))
__weak long bpf_timer_start(struct bpf_timer *timer, u64 nsecs, u64 flags);

__weak u64 bpf_ktime_get_ns(void);
__weak u32 bpf_get_smp_processor_id(void);

static __always_inline const struct cpumask *scxpol_cast_mask(struct bpf_cpumask *m)
{
	return (const struct cpumask *)m;
}

/* scxpol_error()/scxpol_exit(): recorded, formatted like printf. */
void fake_record_error(bool is_exit, s64 code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define scxpol_error(fmt, args...) fake_record_error(false, 0, fmt, ##args)
#define scxpol_exit(code, fmt, args...) fake_record_error(true, (code), fmt, ##args)

/* --- maps ------------------------------------------------------------------ */
/*
 * A map is found by its definition's address; its shape comes from the
 * definition's member types, as libbpf reads it from BTF.
 */
void *fake_map_lookup(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key);
long fake_map_update(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key,
		     const void *val, u64 flags);
long fake_map_delete(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key);
void *fake_task_storage(void *def, u32 val_sz, struct task_struct *p, bool create);
void fake_map_set_max(void *def, u32 max);
u32 fake_map_max(void *def, u32 dfl);

#define FAKE_MAP_SHAPE(m) \
	(void *)(m), (u32)(sizeof(*(m)->type) / sizeof(int)), (u32)sizeof(*(m)->key), \
	(u32)sizeof(*(m)->value), (u32)(sizeof(*(m)->max_entries) / sizeof(int))
#define bpf_map_lookup_elem(m, k) fake_map_lookup(FAKE_MAP_SHAPE(m), (k))
#define bpf_map_update_elem(m, k, v, f) fake_map_update(FAKE_MAP_SHAPE(m), (k), (v), (f))
#define bpf_map_delete_elem(m, k) fake_map_delete(FAKE_MAP_SHAPE(m), (k))
#define bpf_task_storage_get(m, p, init, flags) \
	fake_task_storage((void *)(m), (u32)sizeof(*(m)->value), (p), \
			  ((flags) & BPF_LOCAL_STORAGE_GET_F_CREATE) != 0)
/* What bpf_map__set_max_entries() does before load. */
#define FAKE_MAP_RESIZE(m, n) fake_map_set_max((void *)(m), (n))

/* --- test control (fake_kernel.c) ----------------------------------------- */
struct fake_kick {
	s32 cpu;
	u64 flags;
};

struct fake_insert {
	struct task_struct *p;
	u64 dsq_id;
	u64 slice;
	u64 vtime;
	u64 enq_flags;
	bool vtime_insert;
};

/* Forget all state: @nr_cpus idle CPUs, one core each, clock 0, CPU 0 current. */
void fake_reset(u32 nr_cpus);
/* Put @cpu in core @core (SMT siblings share a core). */
void fake_set_core(s32 cpu, s32 core);
void fake_set_idle(s32 cpu, bool idle);
bool fake_cpu_idle(s32 cpu);
/* Take @cpu out of (false) or back into the online mask; all are online after fake_reset(). */
void fake_set_online(s32 cpu, bool online);
void fake_set_cpu(s32 cpu);
void fake_set_clock(u64 ns);
void fake_advance(u64 ns);
u64 fake_clock(void);

/* A task with weight 100 allowed on every CPU, on CPU 0. */
void fake_task_init(struct task_struct *p, s32 pid, const char *comm);
/* Restrict @p to the CPUs in @cpus[0..n-1]. */
void fake_task_allow(struct task_struct *p, const s32 *cpus, int n);

/* DSQ contents: count, the @i-th task in dispatch order, or NULL. */
int fake_dsq_count(u64 dsq_id);
struct task_struct *fake_dsq_at(u64 dsq_id, int i);
bool fake_dsq_exists(u64 dsq_id);
int fake_local_count(s32 cpu);
struct task_struct *fake_local_at(s32 cpu, int i);
/* Take the first task of @cpu's local DSQ (it starts running there). */
struct task_struct *fake_local_pop(s32 cpu);
/* Calls of scx_bpf_dsq_move_to_local() since the reset. */
unsigned int fake_nr_moves(void);

unsigned int fake_nr_kicks(void);
const struct fake_kick *fake_kick_at(unsigned int i);
void fake_clear_kicks(void);
const struct fake_insert *fake_last_insert(void);
unsigned int fake_nr_inserts(void);

/*
 * BPF timers (struct bpf_timer of <linux/bpf.h>) are recorded, not run: the
 * delay of @t's last bpf_timer_start() (0: never started since
 * fake_reset() or fake_timer_clear()) and its callback; a test runs the
 * callback itself.
 */
u64 fake_timer_ns(const struct bpf_timer *t);
void *fake_timer_cb(const struct bpf_timer *t);
void fake_timer_clear(const struct bpf_timer *t);

unsigned int fake_nr_errors(void);
const char *fake_last_error(void);
/* Forget the errors recorded so far; returns how many there were. */
unsigned int fake_take_errors(void);
/* A cmocka teardown: prints the errors left and fails (-1) if there are any. */
int fake_teardown(void **state);

int fake_cpumasks_live(void);
/* bpf_cpumask_create() returns NULL after @n more masks (-1: never; fake_reset() sets -1). */
void fake_cpumask_fail_after(int n);
/* Sum of a PERCPU_ARRAY u64 slot over all CPUs (stats counters). */
u64 fake_percpu_sum(void *def, u32 key);

/* Helpers for tests building masks. */
void fake_mask_set(struct cpumask *m, s32 cpu);
bool fake_mask_test(const struct cpumask *m, s32 cpu);

#endif
