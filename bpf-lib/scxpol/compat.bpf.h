/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * One set of names for kernel interfaces that changed between the kernels
 * libscxpol supports. Policies call these, never the versioned kfuncs.
 *
 * Kfuncs: both generations are declared __weak; bpf_ksym_exists() is a
 * load-time constant, so the verifier sees only the branch the running
 * kernel has and prunes the other.
 *   6.12                          6.13 and later
 *   scx_bpf_dispatch              scx_bpf_dsq_insert
 *   scx_bpf_dispatch_vtime        scx_bpf_dsq_insert_vtime
 *   scx_bpf_consume               scx_bpf_dsq_move_to_local
 *   scx_bpf_dispatch_from_dsq     scx_bpf_dsq_move
 *   bpf_ktime_get_ns()            scx_bpf_now (6.14)
 *   (none: iterate the DSQ)       scx_bpf_dsq_peek (7.1)
 *   p->scx.slice = ...            scx_bpf_task_set_slice (6.19)
 *   p->scx.dsq_vtime = ...        scx_bpf_task_set_dsq_vtime (6.19)
 *
 * Enum values: some changed between kernels (SCX_ENQ_HEAD is 1 << 4 on 6.12
 * and 1 << 16 on 7.x), so they are read through CO-RE relocations against
 * the running kernel's BTF. Use SCXPOL_ENQ_* and friends, never the raw
 * SCX_ENQ_* constants from vmlinux.h.
 */
#ifndef SCXPOL_COMPAT_BPF_H
#define SCXPOL_COMPAT_BPF_H

#include <scxpol/common.bpf.h>

#ifndef SCXPOL_HOST_TEST
void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags) __ksym __weak;
void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
			      u64 enq_flags) __ksym __weak;
bool scx_bpf_dsq_move_to_local(u64 dsq_id) __ksym __weak;
bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
		      u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
			    u64 enq_flags) __ksym __weak;
bool scx_bpf_consume(u64 dsq_id) __ksym __weak;
bool scx_bpf_dispatch_from_dsq(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
			       u64 enq_flags) __ksym __weak;
u64 scx_bpf_now(void) __ksym __weak;
struct task_struct *scx_bpf_dsq_peek(u64 dsq_id) __ksym __weak;
bool scx_bpf_task_set_slice(struct task_struct *p, u64 slice) __ksym __weak;
bool scx_bpf_task_set_dsq_vtime(struct task_struct *p, u64 vtime) __ksym __weak;

/* Value of enumerator @v of enum @t in the running kernel; 0 if it has none. */
#define scxpol_kenum(t, v) \
	(bpf_core_enum_value_exists(enum t, v) ? bpf_core_enum_value(enum t, v) : 0)
#endif /* !SCXPOL_HOST_TEST: the host fake declares the kfuncs and scxpol_kenum() */

#define SCXPOL_ENQ_WAKEUP scxpol_kenum(scx_enq_flags, SCX_ENQ_WAKEUP)
#define SCXPOL_ENQ_HEAD scxpol_kenum(scx_enq_flags, SCX_ENQ_HEAD)
#define SCXPOL_ENQ_PREEMPT scxpol_kenum(scx_enq_flags, SCX_ENQ_PREEMPT)
#define SCXPOL_ENQ_REENQ scxpol_kenum(scx_enq_flags, SCX_ENQ_REENQ)
#define SCXPOL_ENQ_LAST scxpol_kenum(scx_enq_flags, SCX_ENQ_LAST)
#define SCXPOL_ENQ_CPU_SELECTED scxpol_kenum(scx_enq_flags, SCX_ENQ_CPU_SELECTED)
#define SCXPOL_KICK_IDLE scxpol_kenum(scx_kick_flags, SCX_KICK_IDLE)
#define SCXPOL_KICK_PREEMPT scxpol_kenum(scx_kick_flags, SCX_KICK_PREEMPT)
#define SCXPOL_PICK_IDLE_CORE scxpol_kenum(scx_pick_idle_cpu_flags, SCX_PICK_IDLE_CORE)
#define SCXPOL_DEQ_SLEEP scxpol_kenum(scx_deq_flags, SCX_DEQ_SLEEP)
#define SCXPOL_WAKE_FORK scxpol_kenum(scx_wake_flags, SCX_WAKE_FORK)
#define SCXPOL_WAKE_TTWU scxpol_kenum(scx_wake_flags, SCX_WAKE_TTWU)
#define SCXPOL_WAKE_SYNC scxpol_kenum(scx_wake_flags, SCX_WAKE_SYNC)
#define SCXPOL_SLICE_DFL scxpol_kenum(scx_public_consts, SCX_SLICE_DFL)

/* Insert @p into @dsq_id (FIFO, or a built-in/local DSQ) with @slice ns. */
static __always_inline void scxpol_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice,
					      u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert))
		scx_bpf_dsq_insert(p, dsq_id, slice, enq_flags);
	else
		scx_bpf_dispatch(p, dsq_id, slice, enq_flags);
}

/* Insert @p into the vtime-ordered DSQ @dsq_id at position @vtime. */
static __always_inline void scxpol_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
						    u64 vtime, u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime))
		scx_bpf_dsq_insert_vtime(p, dsq_id, slice, vtime, enq_flags);
	else
		scx_bpf_dispatch_vtime(p, dsq_id, slice, vtime, enq_flags);
}

/* From ops.dispatch: move the first task of @dsq_id to this CPU's local DSQ. */
static __always_inline bool scxpol_dsq_move_to_local(u64 dsq_id)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local))
		return scx_bpf_dsq_move_to_local(dsq_id);
	return scx_bpf_consume(dsq_id);
}

/* Move @p, found by iterating a DSQ with @it, to @dsq_id (e.g. a CPU's local DSQ). */
static __always_inline bool scxpol_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					    u64 dsq_id, u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move))
		return scx_bpf_dsq_move(it, p, dsq_id, enq_flags);
	return scx_bpf_dispatch_from_dsq(it, p, dsq_id, enq_flags);
}

/* The scheduler's clock in ns (rq clock where the kernel offers it). */
static __always_inline u64 scxpol_now(void)
{
	if (bpf_ksym_exists(scx_bpf_now))
		return scx_bpf_now();
	return bpf_ktime_get_ns();
}

/*
 * Set @p's remaining slice to @slice ns. Kernels with the kfunc (6.19+)
 * log "writing directly to p->scx.slice/dsq_vtime is deprecated" for every
 * program that stores to the field; on those the store is dead code the
 * verifier never sees.
 */
static __always_inline void scxpol_task_set_slice(struct task_struct *p, u64 slice)
{
	if (bpf_ksym_exists(scx_bpf_task_set_slice))
		scx_bpf_task_set_slice(p, slice);
	else
		p->scx.slice = slice;
}

/* Set @p's vtime (p->scx.dsq_vtime) to @vtime, the same way. */
static __always_inline void scxpol_task_set_vtime(struct task_struct *p, u64 vtime)
{
	if (bpf_ksym_exists(scx_bpf_task_set_dsq_vtime))
		scx_bpf_task_set_dsq_vtime(p, vtime);
	else
		p->scx.dsq_vtime = vtime;
}

#endif
