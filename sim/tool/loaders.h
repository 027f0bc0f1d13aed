/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the example loaders do for their policies, done for the simulated
 * machine (loaders.c): plan the pools with the library's plan code (and
 * ads's split), size the maps and write the rodata before ops.init,
 * publish the plan through the policy's own commit program, write rules
 * and hint limits, and, for ads, resize the lc pool every interval with
 * the library's autosizing. The options are the loaders' own names.
 */
#ifndef SIM_LOADERS_H
#define SIM_LOADERS_H

#include <stdio.h>

#include <scxpol/sim.h>

#include "wl.h"

#define LOADER_ERR_LEN 512

struct loader;

/* The machine a loader plans for: per CPU its core, LLC and node. */
struct machine {
	unsigned int cpus;
	int *core, *llc, *node;
};

/* A cgroup of the spec by name: its id, or 0 when there is no such cgroup. */
typedef unsigned long long (*cgroup_fn)(void *ctx, const char *name);

/*
 * loader_open - the policy of @text ("NAME [OPTIONS]": eevdf, minimal,
 * ads, faas, twopool, or a module's path ending in .so), its module
 * loaded from @policy_dir and configured for @m. 0, or a negative errno
 * with the reason in @err (the option and what is wrong with it).
 */
int loader_open(const char *text, const char *policy_dir, const struct machine *m,
		struct loader **out, char *err, size_t errlen);

/* The simulation's options for it: the scheduler, its ops, its configure hook. */
void loader_sim_opts(struct loader *l, struct scxpol_sim_opts *o);

/*
 * loader_loaded - after scxpol_sim_new() (and the spec's cgroups): publish
 * the plan, write the rules (cgroups named by @cg), start the periodic
 * work. 0 or a negative errno with @err.
 */
int loader_loaded(struct loader *l, struct scxpol_sim *s, cgroup_fn cg, void *cg_ctx, char *err,
		  size_t errlen);

/* What the workloads get from the policy (the faas control plane's domains). */
const struct wl_policy *loader_wl_policy(const struct loader *l);

/* The policy's name as given ("ads --lc-comm lc-*") and its module's ops name. */
const char *loader_label(const struct loader *l);

/*
 * JSON members: "plan":"lc=0-1 bg=2-3","resizes":N, with a sizer "resize_log":
 * [[seconds, lc CPUs, demand, overflow (CPUs)], ...] (the first 64), "stats":{...}
 * (the policy's counters).
 */
void loader_report(const struct loader *l, FILE *f);

void loader_close(struct loader *l);

#endif
