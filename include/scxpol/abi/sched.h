/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Layout shared by the BPF side (bpf-lib/scxpol/sched.bpf.h) and userspace
 * (lib/sched.c) for the scheduler's exit record and its CPU hotplug
 * events (checked at attach: 1 entry of this size). Only fixed-width types:
 * this header is compiled both as BPF C and as host C.
 */
#ifndef SCXPOL_ABI_SCHED_H
#define SCXPOL_ABI_SCHED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCXPOL_EXIT_REASON_LEN 128
#define SCXPOL_EXIT_MSG_LEN 1024

/* Exit codes the kernel uses to ask userspace to restart (stable ABI). */
#define SCXPOL_ECODE_RSN_HOTPLUG (1ULL << 32)
#define SCXPOL_ECODE_ACT_RESTART (1ULL << 48)

/*
 * Written once by ops.exit; `kind` is stored last, so a non-zero kind means
 * the rest of the record is complete.
 */
struct scxpol_sched_exit_record {
	__s64 exit_code;
	char reason[SCXPOL_EXIT_REASON_LEN];
	char msg[SCXPOL_EXIT_MSG_LEN];
	__s32 kind; /* enum scx_exit_kind; 0 while the scheduler runs */
	__s32 exit_cpu; /* -1 where the kernel does not say */
};

/*
 * CPU hotplug events a policy's ops.cpu_online/ops.cpu_offline recorded
 * (scxpol_sched_cpu_online()/_offline() in <scxpol/sched.bpf.h>).
 * scxpol_sched_run() restarts the policy once the last event's CPU has got
 * where it was going. @cpu and @online are written first, @events last;
 * userspace takes a copy as whole once the next poll's is the same.
 */
struct scxpol_hotplug_record {
	__u64 events;  /* since the load */
	__s32 cpu;     /* the last event's CPU */
	__u32 online;  /* 1: that CPU came online; 0: it went offline */
};

#endif
