/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Layout shared by scxpol-lat's BPF side (lat.bpf.c) and its userspace
 * (lat.c). Compiled both as BPF C and as host C: fixed-width types only.
 */
#ifndef SCXPOL_TOOLS_LAT_H
#define SCXPOL_TOOLS_LAT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "hist.h"

#define LAT_COMM_LEN 16

/* What tasks are grouped by (rodata group_by). */
enum lat_group_by {
	LAT_BY_CGROUP = 1, /* the task's cgroup (v2) id */
	LAT_BY_COMM = 2,   /* the first comm_len characters of the task's comm */
};

/* Key of the lat_groups map: one of the two fields is set, the other zero. */
struct lat_key {
	__u64 cgid;
	char comm[LAT_COMM_LEN];
};

/* Value of the lat_groups map: what one group's tasks went through. */
struct lat_group {
	__u64 preempt; /* switched out while still runnable (preempted or yielded) */
	__u64 sleep;   /* switched out to sleep (blocked) */
	/* run-queue delay after a wakeup: sched_wakeup(_new) -> sched_switch in */
	struct lat_hist wake;
	/* run-queue delay after a preemption: switched out runnable -> back in */
	struct lat_hist requeue;
	/* run bursts: switched in -> switched out */
	struct lat_hist burst;
};

#endif
