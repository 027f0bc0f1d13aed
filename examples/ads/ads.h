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

/*
 * The policy's own counters (SCXPOL_STAT_USER slots), X(ID, name, unit,
 * description) as SCXPOL_STAT_TABLE; ads_plan.c serves the descriptors.
 */
#define ADS_STAT_TABLE(X) \
	X(LC_RUNTIME_NS, lc_runtime_ns, "ns", "CPU time of lc-pool tasks: the loader's demand") \
	X(BG_RUNTIME_NS, bg_runtime_ns, "ns", "CPU time of bg-pool tasks") \
	X(CLASS_HINT, class_hint, "tasks", "placements decided by a class hint") \
	X(CLASS_CGROUP, class_cgroup, "tasks", "placements decided by a cgroup rule") \
	X(CLASS_COMM, class_comm, "tasks", "placements decided by a comm rule") \
	X(CLASS_DEFAULT, class_default, "tasks", "placements decided by nothing: background") \
	X(HEAD, important_head, "tasks", "important tasks queued at the head") \
	X(WAKE_AFFINE, wake_affine, "tasks", "lc wake-ups queued behind their lc waker") \
	X(LC_SPILL_NS, lc_spill_ns, "ns", "CPU time of lc-pool tasks on other pools' CPUs: its overflow") \
	X(LC_BUSY, lc_busy, "tasks", "lc tasks queued with no CPU woken for them: the pool was busy") \
	X(LC_PREEMPT_BG, lc_preempt_bg, "preemptions", "CPUs running bg work preempted for lc tasks")

#define ADS_STAT_ENUM_(id, name, unit, desc) ADS_STAT_##id,
enum ads_stat {
	ADS_STAT_TABLE(ADS_STAT_ENUM_)
	ADS_NR_STATS,
};
#undef ADS_STAT_ENUM_

#endif
