// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The library modules every scheduler handle runs, in the order of enum
 * scxpol_sched_mod (lib/internal.h): the one place that names them, so
 * that lib/sched.c knows the steps and none of the modules.
 */
#include "internal.h"

const struct scxpol_sched_module *const scxpol_sched_modules[SCXPOL_MOD_NR] = {
	[SCXPOL_MOD_HINT] = &scxpol_hint_module,
	[SCXPOL_MOD_POOL] = &scxpol_pool_module,
	[SCXPOL_MOD_MATCH] = &scxpol_match_module,
	[SCXPOL_MOD_STATS] = &scxpol_stats_module,
};
