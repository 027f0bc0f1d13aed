// SPDX-License-Identifier: GPL-2.0
/* ads's pools and counters (ads_plan.h). */
#include <errno.h>

#include "ads.h"
#include "ads_plan.h"

const struct option ads_options[] = {
	{ "lc-cpus", required_argument, NULL, 'c' },
	{ "lc-comm", required_argument, NULL, 'm' },
	{ "lc-cgroup", required_argument, NULL, 'g' },
	{ "util-lo", required_argument, NULL, 'l' },
	{ "util-hi", required_argument, NULL, 'u' },
	{ "overflow-hi", required_argument, NULL, 'o' },
	{ "spill", no_argument, NULL, 'P' },
	{ "hold", required_argument, NULL, 'H' },
	{ "interval-ms", required_argument, NULL, 'i' },
	{ "no-resize", no_argument, NULL, 'N' },
	{ "wake-affine", no_argument, NULL, 'W' },
	{ "lc-slice-us", required_argument, NULL, 's' },
	{ "bg-slice-us", required_argument, NULL, 'b' },
	{ "important-slice-us", required_argument, NULL, 'I' },
	{ 0 },
};

#define ADS_STAT_DESC_(id, name, unit, desc) { #name, unit, desc },
const struct scxpol_stat_desc ads_stat_descs[ADS_NR_STATS] = { ADS_STAT_TABLE(ADS_STAT_DESC_) };
#undef ADS_STAT_DESC_

int ads_plan_split(const struct scxpol_topo *topo, unsigned int n, struct scxpol_pool_plan **out)
{
	struct scxpol_pool_plan *tmp, *p;
	int r;

	tmp = scxpol_pool_plan_split(topo, "lc", "bg", n, 0);
	if (!tmp)
		return -errno;
	p = scxpol_pool_plan_new(topo);
	r = p ? 0 : -errno;
	if (!r)
		r = scxpol_pool_plan_add(p, "lc", ADS_LC_FLAGS, scxpol_pool_plan_cpus(tmp, 0));
	if (r >= 0)
		r = scxpol_pool_plan_add(p, "bg", ADS_BG_FLAGS, scxpol_pool_plan_cpus(tmp, 1));
	scxpol_pool_plan_free(tmp);
	if (r < 0) {
		scxpol_pool_plan_free(p);
		return r;
	}
	*out = p;
	return 0;
}
