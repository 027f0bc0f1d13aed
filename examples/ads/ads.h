/* SPDX-License-Identifier: GPL-2.0 */
/* ads: what the policy (ads.bpf.c) and its loader (ads.c) agree on. */
#ifndef ADS_H
#define ADS_H

/* Classes: the value of a class hint or of a loader rule. */
enum ads_class {
	ADS_BG,
	ADS_LC,
	ADS_NR_CLASSES,
};

/* Pools, in the order the loader publishes them. */
enum ads_pool {
	ADS_POOL_LC,
	ADS_POOL_BG,
	ADS_NR_POOLS,
};

/* The policy's own counters (SCXPOL_STAT_USER slots), named in ads_plan.c. */
enum ads_stat {
	ADS_STAT_LC_RUNTIME_NS, /* CPU time of lc-pool tasks: the loader's demand */
	ADS_STAT_BG_RUNTIME_NS, /* CPU time of bg-pool tasks */
	ADS_STAT_CLASS_HINT,    /* placements decided by a class hint */
	ADS_STAT_CLASS_CGROUP,  /* ... by a cgroup rule */
	ADS_STAT_CLASS_COMM,    /* ... by a comm rule */
	ADS_STAT_CLASS_DEFAULT, /* ... by nothing: background */
	ADS_STAT_HEAD,          /* important tasks queued at the head */
	ADS_STAT_WAKE_AFFINE,   /* lc wake-ups queued behind their lc waker */
	ADS_STAT_LC_SPILL_NS,   /* CPU time of lc-pool tasks on other pools' CPUs: its overflow */
	ADS_STAT_LC_BUSY,       /* lc tasks queued with no CPU woken for them: the pool was busy */
	ADS_STAT_LC_PREEMPT_BG, /* ... and a CPU running bg work was preempted for them */
	ADS_NR_STATS,
};

#endif
