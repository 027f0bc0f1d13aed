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
/* --filter-cgroup: how much deeper than its path a cgroup namespace's root may be */
#define LAT_CG_NS_MAX 32
/* CPUs whose idle time while traced tasks wait is summed (lat.bpf.c) */
#define LAT_MAX_CPUS 1024

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
	__u64 exit;    /* switched out for the last time (the task exited) */
	/* run-queue delay after a wakeup: sched_wakeup(_new) -> sched_switch in */
	struct lat_hist wake;
	/* run-queue delay after a preemption: switched out runnable -> back in */
	struct lat_hist requeue;
	/* run bursts: switched in -> switched out */
	struct lat_hist burst;
	/*
	 * The wakeups of ->wake by target CPU (task_cpu() at sched_wakeup):
	 * onto a CPU that was running its idle task; onto another CPU than
	 * the waker's (the CPU of sched_waking, or of sched_wakeup_new), which
	 * needs an IPI; onto the waker's own CPU (->wake_remote's complement).
	 */
	struct lat_hist wake_idle;
	struct lat_hist wake_remote;
	struct lat_hist wake_local;
	/*
	 * Wakeups that sched_wakeup reported on another CPU than sched_waking:
	 * queued on the target's wake list and activated there from an IPI
	 * (TTWU_QUEUE), so their ->wake delay starts after that IPI.
	 */
	__u64 wake_queued;
	/*
	 * The same wakeups from sched_waking (try_to_wake_up() starting on the
	 * waker's CPU; sched_wakeup_new for a new task) -> switched in: the
	 * IPI included whichever way the kernel activated the task. All of
	 * them, and those onto an idle CPU.
	 */
	struct lat_hist waking;
	struct lat_hist waking_idle;
};

#endif
