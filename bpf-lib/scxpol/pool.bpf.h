/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU pools / scheduling domains, BPF side: the published pool table, idle
 * CPU selection inside a pool, queueing on a pool's vtime queue, the
 * dispatch order with work stealing, and lending/borrowing between soft
 * pools. Flags and layouts: <scxpol/abi/pool.h>; userspace builds plans with
 * <scxpol/pool.h> and publishes them with scxpol_pool_publish().
 *
 * The table. Userspace sizes the maps at load (scxpol_pool_setup(): the
 * number of possible CPUs and the policy's maximum pool count; no
 * compile-time CPU limit), stages a plan in the scxpol_pool_stage* maps and
 * runs the scxpol_pool_commit program below. The commit validates the plan
 * (rejecting it untouched, with a reason, and counting
 * SCXPOL_STAT_POOL_REJECT) and builds its cpumasks into the inactive half of
 * a double buffer, then bumps the generation. A callback takes one
 * snapshot with scxpol_pool_view() and reads only that half, so a resize is
 * atomic for it. (Userspace waits for an RCU grace period before each
 * commit, so no callback still reads the half being rebuilt.)
 *
 * Per pool: flags, a bpf_cpumask, one per (pool, LLC), an order list (the
 * other pools, nearest first), a vtime clock (struct scxpol_vclock, not
 * double-buffered: it carries over resizes) and a DSQ, SCXPOL_DSQ_POOL(i).
 * Per CPU: its pool, LLC and node (O(1) lookup), and the pool and vtime of
 * the task it runs (wakeup preemption). Plus the CPUs of all
 * lending pools, of all stealing pools, and the CPUs now running a borrowed
 * task.
 *
 * Callbacks to wire, or to leave to <scxpol/pool_ops.bpf.h>'s defaults
 * (each does one scxpol_task_ctx() lookup, of the task or, in dispatch, of
 * the previous task, and one scxpol_pool_view()):
 *   init       scxpol_pool_init()
 *   init_task  scxpol_task_init()
 *   enable     scxpol_pool_enable()
 *   select_cpu scxpol_pool_select_cpu()
 *   enqueue    scxpol_pool_enqueue()
 *   dispatch   scxpol_pool_dispatch_prev()
 *   running    scxpol_pool_running()
 *   stopping   scxpol_pool_stopping()
 *   quiescent  scxpol_pool_quiescent()
 * The policy decides which pool a task belongs to (a hint, a cgroup, its
 * comm...) and passes it in; -1 (SCXPOL_POOL_SHARED) means the shared
 * fallback queue, which every CPU serves after its own pool. It does so in
 * ops.select_cpu and ops.enqueue only: a task whose pool changes while it
 * runs (a rename, an exec) runs on where it was placed until its next
 * wakeup, or until a slice end at which another task takes its CPU (the
 * dispatch may keep it by its last placement, and the kernel keeps a
 * task alone on its CPU without calling ops.enqueue). A policy
 * that kicks CPUs itself does it with scxpol_pool_kick(), and one that
 * queues tasks on the pools' queues or the shared queue does it with
 * scxpol_pool_enqueue(): dispatch trusts its counts (scxpol_pool__pending_add()).
 *
 * It defines programs and global functions (doc/conventions.md): include
 * it in one .bpf.c of a BPF object.
 */
#ifndef SCXPOL_POOL_BPF_H
#define SCXPOL_POOL_BPF_H

#include <scxpol/pool_table.bpf.h>
#include <scxpol/pool_kick.bpf.h>
#include <scxpol/pool_enqueue.bpf.h>
#include <scxpol/pool_dispatch.bpf.h>
#include <scxpol/pool_watch.bpf.h>
#include <scxpol/pool_publish.bpf.h>

#endif
