/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The kernel as BPF C compiled for the host sees it (-DSCXPOL_HOST_TEST):
 * <scxpol/common.bpf.h> includes this header instead of vmlinux.h and
 * libbpf's, so the headers of bpf-lib/scxpol and whole policies compile as
 * host C, unchanged. The kfuncs and helpers declared here are implemented
 * by libscxpol-sim (sim/kernel.c, sim/cpumask.c, sim/dsq.c, sim/maps.c):
 * the simulator runs the policies against them, and the unit tests of the
 * helpers drive them by hand (tests/bpf-host/host_fake.h).
 *
 * Types follow the kernel's names and the fields the helpers touch; the
 * enum values are those of Linux 7.x. The kfunc set is that of 6.13 to
 * 7.0: scx_bpf_dsq_insert*() and friends, no scx_bpf_dsq_peek() (7.1) and
 * no scx_bpf_task_set_slice()/_dsq_vtime() (6.19), so the library takes
 * its iterate-the-queue and store-to-p->scx paths.
 */
#ifndef SCXPOL_SIM_HOST_H
#define SCXPOL_SIM_HOST_H

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

/* CPUs a simulated machine may have: every cpumask has room for this many. */
#define SCXPOL_SIM_MAX_CPUS 512
/* Task-storage maps one policy may define. */
#define SCXPOL_SIM_MAX_TASK_STOR 4

/* --- BPF C syntax as host no-ops ----------------------------------------- */
#define SEC(name)
#define __ksym
/* (what libscxpol-sim defines of these, it exports) */
#define __weak __attribute__((weak, visibility("default")))
#define SCXPOL_SIM_HOST_API __attribute__((visibility("default")))
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
/* A weak kfunc the simulator does not define has address 0: "not in this kernel". */
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

/* --- kernel types the helpers and policies touch ----------------------------- */
struct cpumask {
	unsigned long bits[SCXPOL_SIM_MAX_CPUS / (8 * sizeof(unsigned long))];
};
typedef struct cpumask cpumask_t;

struct bpf_cpumask {
	struct cpumask cpumask; /* first, as in the kernel: casts work */
	int usage;
};

/*
 * The sched_ext part of a task (the kernel's struct sched_ext_entity): the
 * fields policies read and write, then what the simulated core keeps about
 * the task's place in a DSQ.
 */
struct scxpol_sim_dsq;
struct sched_ext_entity {
	u64 dsq_vtime;
	u64 slice;
	u32 weight;
	u32 flags;          /* SCX_TASK_* */
	/* the simulated core's (kernel/sched/ext.c keeps the same) */
	struct scxpol_sim_dsq *dsq; /* DSQ it is queued on, NULL if none */
	struct task_struct *dsq_prev, *dsq_next; /* its place in the DSQ's order */
	struct task_struct *priq_left, *priq_right; /* vtime DSQ treap */
	u64 dsq_seq;        /* insertion number (ties in a vtime DSQ) */
	u64 priq_prio;      /* its treap priority in a vtime DSQ */
	u64 ddsp_dsq_id;    /* direct dispatch verdict, SCX_DSQ_INVALID if none */
	u64 ddsp_enq_flags;
	u64 runnable_at;    /* when it last became runnable after running (watchdog) */
	u32 ops_state;      /* 1: the policy holds it (ops.enqueue queued it nowhere) */
	s32 selected_cpu;
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

typedef struct {
	int counter;
} atomic_t;

/* A process's live threads (hint.bpf.h). */
struct signal_struct {
	atomic_t live;
};

/* What hint.bpf.h reads of a task's struct pid: its pidfs inode number. */
struct pid {
	u64 ino;
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
	s32 cpu;                      /* scx_bpf_task_cpu() */
	void *stor[SCXPOL_SIM_MAX_TASK_STOR]; /* task-storage values (sim/maps.c) */
	u64 stor_gen;                 /* the maps' generation they belong to */
};

#define CLOCK_MONOTONIC 1

/* A DSQ iterator: the DSQ, the next task to visit, the DSQ's insertions when it began. */
struct bpf_iter_scx_dsq {
	u64 dsq_id;
	struct task_struct *next;
	u64 seq;
	bool valid;
};

/* What ops.exit is told (the fields scxpol_sched_record_exit() copies). */
struct scx_exit_info {
	s32 kind;        /* enum scx_exit_kind */
	s64 exit_code;
	const char *reason;
	char *msg;
	s32 exit_cpu;    /* 6.18+; -1 when the exit was not on a CPU's behalf */
};

struct scx_init_task_args {
	bool fork;
	struct cgroup *cgroup;
};

struct scx_exit_task_args {
	bool cancelled;
};

/*
 * A policy's struct_ops map. Callbacks are stored as the policies assign
 * them ((void *)fn); the simulator calls each through its kernel prototype.
 */
struct sched_ext_ops {
	void *select_cpu, *enqueue, *dequeue, *dispatch, *tick, *runnable, *running, *stopping,
		*quiescent, *yield, *core_sched_before, *set_weight, *set_cpumask, *update_idle,
		*cpu_acquire, *cpu_release, *init_task, *exit_task, *enable, *disable, *dump,
		*dump_cpu, *dump_task, *cgroup_init, *cgroup_exit, *cgroup_prep_move,
		*cgroup_move, *cgroup_cancel_move, *cgroup_set_weight, *cpu_online, *cpu_offline,
		*init, *exit;
	u32 dispatch_max_batch;
	u64 flags;       /* SCX_OPS_* */
	u32 timeout_ms;  /* watchdog timeout; 0: the kernel's 30 s */
	u32 exit_dump_len;
	u64 hotplug_seq;
	char name[128];
};

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
	/* the core's own, never passed to a policy */
	SCX_ENQ_CLEAR_OPSS = 1ULL << 56,
	SCX_ENQ_DSQ_PRIQ = 1ULL << 57,
};
enum scx_deq_flags { SCX_DEQ_SLEEP = 1ULL };
enum scx_kick_flags { SCX_KICK_IDLE = 1, SCX_KICK_PREEMPT = 2, SCX_KICK_WAIT = 4 };
enum scx_pick_idle_cpu_flags { SCX_PICK_IDLE_CORE = 1 };
enum scx_wake_flags { SCX_WAKE_FORK = 4, SCX_WAKE_TTWU = 8, SCX_WAKE_SYNC = 16 };
enum scx_ent_flags { SCX_TASK_QUEUED = 1 };
enum scx_public_consts { SCX_SLICE_DFL = 20000000ULL };
#define SCX_SLICE_INF UINT64_MAX
enum scx_ops_flags {
	SCX_OPS_KEEP_BUILTIN_IDLE = 1ULL << 0,
	SCX_OPS_ENQ_LAST = 1ULL << 1,
	SCX_OPS_ENQ_EXITING = 1ULL << 2,
	SCX_OPS_SWITCH_PARTIAL = 1ULL << 3,
};
enum scx_exit_kind {
	SCX_EXIT_NONE,
	SCX_EXIT_DONE,
	SCX_EXIT_UNREG = 64,
	SCX_EXIT_UNREG_BPF,
	SCX_EXIT_UNREG_KERN,
	SCX_EXIT_SYSRQ,
	SCX_EXIT_ERROR = 1024,
	SCX_EXIT_ERROR_BPF,
	SCX_EXIT_ERROR_STALL,
};

#define scxpol_kenum(t, v) ((u64)(v))

/* --- kfuncs and helpers; weak like the BPF declarations --------------------- */
__weak s32 scx_bpf_create_dsq(u64 dsq_id, s32 node);
__weak s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
				  bool *is_idle);
__weak s32 scx_bpf_dsq_nr_queued(u64 dsq_id);
__weak void scx_bpf_kick_cpu(s32 cpu, u64 flags);
__weak s32 scx_bpf_pick_idle_cpu(const cpumask_t *cpus_allowed, u64 flags);
__weak s32 scx_bpf_pick_any_cpu(const cpumask_t *cpus_allowed, u64 flags);
__weak bool scx_bpf_test_and_clear_cpu_idle(s32 cpu);
__weak const struct cpumask *scx_bpf_get_idle_cpumask(void);
__weak const struct cpumask *scx_bpf_get_idle_smtmask(void);
__weak void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask);
__weak const struct cpumask *scx_bpf_get_online_cpumask(void);
__weak void scx_bpf_put_cpumask(const struct cpumask *cpumask);
__weak u32 scx_bpf_nr_cpu_ids(void);
__weak s32 scx_bpf_task_cpu(const struct task_struct *p);
__weak bool scx_bpf_task_running(const struct task_struct *p);
__weak u32 scx_bpf_reenqueue_local(void);
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
/* Linux 6.12 names: not in the simulator (address 0), as on a 7.x kernel. */
__weak void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags);
__weak void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
				   u64 enq_flags);
__weak bool scx_bpf_consume(u64 dsq_id);
__weak bool scx_bpf_dispatch_from_dsq(struct bpf_iter_scx_dsq *it, struct task_struct *p,
				      u64 dsq_id, u64 enq_flags);
/* Linux 7.1+: not in the simulator either (the library iterates the DSQ instead). */
__weak struct task_struct *scx_bpf_dsq_peek(u64 dsq_id);
/* Linux 6.19+: not in the simulator: the library stores to p->scx as on 6.12. */
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
__weak void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src);
__weak bool bpf_cpumask_empty(const struct cpumask *cpumask);
__weak bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b);
__weak u32 bpf_cpumask_weight(const struct cpumask *cpumask);
__weak u32 bpf_cpumask_any_and_distribute(const struct cpumask *a, const struct cpumask *b);
__weak void bpf_rcu_read_lock(void);
__weak void bpf_rcu_read_unlock(void);
/* The live task of id @pid, held until bpf_task_release(); NULL if none. */
__weak struct task_struct *bpf_task_from_pid(s32 pid);
__weak void bpf_task_release(struct task_struct *p);

__weak long bpf_timer_init(struct bpf_timer *timer, void *map, u64 flags);
SCXPOL_SIM_HOST_API long scxpol_sim_timer_set_callback(struct bpf_timer *timer, void *cb);
#define bpf_timer_set_callback(t, cb) scxpol_sim_timer_set_callback((t), (void *)(cb))
__weak long bpf_timer_start(struct bpf_timer *timer, u64 nsecs, u64 flags);

__weak u64 bpf_ktime_get_ns(void);
__weak u32 bpf_get_smp_processor_id(void);
__weak struct task_struct *bpf_get_current_task_btf(void);
__weak long bpf_probe_read_kernel_str(void *dst, u32 size, const void *unsafe_ptr);

static __always_inline const struct cpumask *scxpol_cast_mask(struct bpf_cpumask *m)
{
	return (const struct cpumask *)m;
}

/*
 * scxpol_error()/scxpol_exit(): scx_bpf_error()/scx_bpf_exit() (printf-like,
 * formatted on the host). An error ends the simulated scheduler as the
 * kernel's does; the unit tests' fake records it instead.
 */
SCXPOL_SIM_HOST_API void scxpol_sim_bpf_exit(bool is_error, s64 code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define scxpol_error(fmt, args...) scxpol_sim_bpf_exit(true, 0, fmt, ##args)
#define scxpol_exit(code, fmt, args...) scxpol_sim_bpf_exit(false, (code), fmt, ##args)

/* --- maps ------------------------------------------------------------------ */
/*
 * A map is found by its definition's address; its shape comes from the
 * definition's member types, as libbpf reads it from BTF.
 */
SCXPOL_SIM_HOST_API void *scxpol_sim_map_lookup(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max,
			    const void *key);
SCXPOL_SIM_HOST_API long scxpol_sim_map_update(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max,
			   const void *key, const void *val, u64 flags);
SCXPOL_SIM_HOST_API long scxpol_sim_map_delete(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max,
			   const void *key);
SCXPOL_SIM_HOST_API void *scxpol_sim_task_storage(void *def, u32 val_sz, struct task_struct *p, bool create);

#define SCXPOL_SIM_MAP_SHAPE(m) \
	(void *)(m), (u32)(sizeof(*(m)->type) / sizeof(int)), (u32)sizeof(*(m)->key), \
	(u32)sizeof(*(m)->value), (u32)(sizeof(*(m)->max_entries) / sizeof(int))
/*
 * What libbpf does from userspace, for the simulator's loaders and the unit
 * tests: set a map's max_entries before its first use (the kernel sizes it
 * at load), read it back (@dfl: not resized, not used yet), and the sum of
 * a PERCPU_ARRAY u64 entry over the CPUs (a stats counter).
 */
SCXPOL_SIM_HOST_API void scxpol_sim_map_resize(void *def, u32 max);
SCXPOL_SIM_HOST_API u32 scxpol_sim_map_max(void *def, u32 dfl);
SCXPOL_SIM_HOST_API u64 scxpol_sim_percpu_sum(void *def, u32 key);

#define bpf_map_lookup_elem(m, k) scxpol_sim_map_lookup(SCXPOL_SIM_MAP_SHAPE(m), (k))
#define bpf_map_update_elem(m, k, v, f) scxpol_sim_map_update(SCXPOL_SIM_MAP_SHAPE(m), (k), (v), (f))
#define bpf_map_delete_elem(m, k) scxpol_sim_map_delete(SCXPOL_SIM_MAP_SHAPE(m), (k))
#define bpf_task_storage_get(m, p, init, flags) \
	scxpol_sim_task_storage((void *)(m), (u32)sizeof(*(m)->value), (p), \
				((flags) & BPF_LOCAL_STORAGE_GET_F_CREATE) != 0)

#endif
