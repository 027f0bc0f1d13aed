/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU pools / scheduling domains, shared by the BPF side
 * (bpf-lib/scxpol/pool.bpf.h) and userspace (include/scxpol/pool.h).
 *
 * A pool is a named set of CPUs with its own queue(s). Pools never overlap.
 * What a pool may do with other pools' CPUs is set by its flags:
 *   LEND    its idle CPUs may run other pools' tasks; they are taken back
 *           (the borrower is preempted) as soon as its own work arrives
 *   BORROW  its tasks may run on idle CPUs of pools that LEND
 *   STEAL   its idle CPUs pull queued work from other pools' queues when
 *           its own queue and the shared queue are empty, nearest first
 *           (Algorithm 2 of the serverless paper)
 * A soft pool LENDs and BORROWs; an exclusive domain does none of these.
 */
#ifndef SCXPOL_ABI_POOL_H
#define SCXPOL_ABI_POOL_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCXPOL_POOL_NAME_LEN 16

#define SCXPOL_POOL_LEND (1U << 0)
#define SCXPOL_POOL_BORROW (1U << 1)
#define SCXPOL_POOL_STEAL (1U << 2)
#define SCXPOL_POOL_SOFT (SCXPOL_POOL_LEND | SCXPOL_POOL_BORROW)
#define SCXPOL_POOL_EXCLUSIVE 0U
#define SCXPOL_POOL_FLAGS_ALL (SCXPOL_POOL_LEND | SCXPOL_POOL_BORROW | SCXPOL_POOL_STEAL)

#endif
