/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Layout shared by the BPF side (bpf-lib/scxpol/sched.bpf.h) and userspace
 * (lib/sched.c) for the scheduler's exit record. Only fixed-width types:
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
struct scxpol_exit_record {
	__s64 exit_code;
	char reason[SCXPOL_EXIT_REASON_LEN];
	char msg[SCXPOL_EXIT_MSG_LEN];
	__s32 kind; /* enum scx_exit_kind; 0 while the scheduler runs */
	__s32 exit_cpu; /* -1 where the kernel does not say */
};

#endif
