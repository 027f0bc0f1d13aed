/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ads's pools and counters, for its loader (ads.c) and the simulator's
 * (sim/tool).
 *
 * Pool flags: lc LENDs (bg work borrows its idle CPUs and is preempted
 * when lc work comes back) and STEALs (an idle lc CPU pulls bg work); bg
 * BORROWs and STEALs, but does not LEND: a lending pool takes its CPUs
 * back from borrowers, and bg work must never preempt lc work. An idle bg
 * CPU still runs lc work, by stealing it.
 */
#ifndef ADS_PLAN_H
#define ADS_PLAN_H

#include <getopt.h>

#include <scxpol/pool.h>
#include <scxpol/stats.h>

#define ADS_LC_FLAGS (SCXPOL_POOL_LEND | SCXPOL_POOL_STEAL)
#define ADS_BG_FLAGS (SCXPOL_POOL_BORROW | SCXPOL_POOL_STEAL)

/*
 * ads's options (getopt_long()), the same letters in both loaders: c m g
 * (lc CPUs, comm, cgroup), l u o (utilisation low, high, overflow high),
 * P (spill), H (hold), i (interval), N (no resize), W (wake affine), s b I
 * (lc, bg, important slices).
 */
extern const struct option ads_options[];

/* ads's own counters (enum ads_stat of ads.h), described. */
extern const struct scxpol_stat_desc ads_stat_descs[];

/*
 * ads_plan_split - the plan "lc" = the first @n CPUs of @topo's order,
 * "bg" = the rest, with their flags, into *@out. 0 or a negative errno
 * (the library's message).
 */
int ads_plan_split(const struct scxpol_topo *topo, unsigned int n, struct scxpol_pool_plan **out);

#endif
