/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libscxpol BPF side: the base every policy includes first.
 *
 * Provides the kernel types (vmlinux.h), libbpf's BPF headers, declarations
 * of the kfuncs the library and policies use, and the small macros policies
 * are written with. Kfuncs whose name or signature changed between kernels
 * are NOT declared for direct use: call the scxpol_* wrappers in
 * <scxpol/compat.bpf.h> instead.
 *
 * Built with -DSCXPOL_HOST_TEST, the same headers, and whole policies,
 * compile as host C against the simulated kernel of libscxpol-sim
 * (<scxpol/sim/host.h>): the helpers' logic is unit-tested that way, and
 * scxpol-sim runs policies on simulated machines.
 */
#ifndef SCXPOL_COMMON_BPF_H
#define SCXPOL_COMMON_BPF_H

#ifdef SCXPOL_HOST_TEST
#include <scxpol/sim/host.h>
#else
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef ENOMEM
#define ENOENT 2
#define ENOMEM 12
#define EINVAL 22
#define ERANGE 34
#endif
/* One load or store the compiler keeps whole, for fields others write concurrently. */
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* Kfuncs stable across the supported kernels (6.12 .. 7.x). */
s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym;
s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
			   bool *is_idle) __ksym;
s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym;
void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym;
s32 scx_bpf_pick_idle_cpu(const cpumask_t *cpus_allowed, u64 flags) __ksym;
s32 scx_bpf_pick_any_cpu(const cpumask_t *cpus_allowed, u64 flags) __ksym;
bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) __ksym;
const struct cpumask *scx_bpf_get_idle_cpumask(void) __ksym;
const struct cpumask *scx_bpf_get_idle_smtmask(void) __ksym;
void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask) __ksym;
const struct cpumask *scx_bpf_get_online_cpumask(void) __ksym;
void scx_bpf_put_cpumask(const struct cpumask *cpumask) __ksym;
u32 scx_bpf_nr_cpu_ids(void) __ksym;
s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;
bool scx_bpf_task_running(const struct task_struct *p) __ksym;
struct cgroup *scx_bpf_task_cgroup(struct task_struct *p) __ksym;
u32 scx_bpf_reenqueue_local(void) __ksym;
void scx_bpf_error_bstr(char *fmt, unsigned long long *data, u32 data__sz) __ksym;
void scx_bpf_exit_bstr(s64 exit_code, char *fmt, unsigned long long *data,
		       u32 data__sz) __ksym;
int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id, u64 flags) __ksym __weak;
struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it) __ksym __weak;
void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it) __ksym __weak;

/* Generic BPF kfuncs. */
struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask) __ksym;
void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
u32 bpf_cpumask_first(const struct cpumask *cpumask) __ksym;
u32 bpf_cpumask_first_and(const struct cpumask *a, const struct cpumask *b) __ksym;
void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym;
void bpf_cpumask_clear(struct bpf_cpumask *cpumask) __ksym;
bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a,
		     const struct cpumask *b) __ksym;
void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a,
		    const struct cpumask *b) __ksym;
void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src) __ksym;
bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b) __ksym;
u32 bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;
u32 bpf_cpumask_any_and_distribute(const struct cpumask *a, const struct cpumask *b) __ksym;
void bpf_rcu_read_lock(void) __ksym;
void bpf_rcu_read_unlock(void) __ksym;
struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
void bpf_task_release(struct task_struct *p) __ksym;
struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;

/* The pointer a kfunc wants for a struct bpf_cpumask. */
static __always_inline const struct cpumask *scxpol_cast_mask(struct bpf_cpumask *m)
{
	return (const struct cpumask *)m;
}

/* Pack printf-style arguments into the u64 array the *_bstr kfuncs take. */
#define ___SCXPOL_BSTR(args...)                                              \
	unsigned long long ___param[___bpf_narg(args)];                      \
	_Pragma("GCC diagnostic push")                                       \
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")               \
	___bpf_fill(___param, args);                                         \
	_Pragma("GCC diagnostic pop")

/* Abort the scheduler with an error message; the kernel reverts to the fair class. */
#define scxpol_error(fmt, args...)                                           \
	({                                                                   \
		static char ___fmt[] = fmt;                                  \
		___SCXPOL_BSTR(args);                                        \
		scx_bpf_error_bstr(___fmt, ___param, sizeof(___param));      \
	})

/* Unregister the scheduler with @code (e.g. SCXPOL_ECODE_ACT_RESTART). */
#define scxpol_exit(code, fmt, args...)                                      \
	({                                                                   \
		static char ___fmt[] = fmt;                                  \
		___SCXPOL_BSTR(args);                                        \
		scx_bpf_exit_bstr((code), ___fmt, ___param, sizeof(___param)); \
	})

#endif /* !SCXPOL_HOST_TEST */

/*
 * For the library's few global functions, which the verifier checks once
 * on its own rather than on each path of each caller (doc/conventions.md).
 */
#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif

/* task_struct.flags bits, stable (include/linux/sched.h) */
#define SCXPOL_PF_EXITING 0x00000004
#define SCXPOL_PF_KTHREAD 0x00200000

/* Define a sched_ext_ops callback: `void SCXPOL_OPS(my_enqueue, struct task_struct *p, u64 f)`. */
#define SCXPOL_OPS(name, args...) SEC("struct_ops/" #name) BPF_PROG(name, ##args)
/* The same for callbacks that may sleep (init, init_task, cgroup_init...). */
#define SCXPOL_OPS_SLEEPABLE(name, args...) SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)
/* Built for the host: the pointer scxpol-sim finds the policy's struct_ops by. */
#ifdef SCXPOL_HOST_TEST
#define SCXPOL__OPS_PTR(var) ; struct sched_ext_ops *const scxpol_sim_ops = &var
#else
#define SCXPOL__OPS_PTR(var)
#endif
/* Define the policy's struct_ops map: SCXPOL_OPS_DEFINE(my_ops, .enqueue = ..., .name = "my"); */
#define SCXPOL_OPS_DEFINE(var, ...) \
	SEC(".struct_ops.link") struct sched_ext_ops var = { __VA_ARGS__ } SCXPOL__OPS_PTR(var)

/* The smaller and the larger of @a and @b (each is evaluated twice). */
#define SCXPOL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SCXPOL_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Is vtime @a before @b? Wrap-safe (vtimes are u64 and may wrap). */
static __always_inline bool scxpol_time_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

#endif
