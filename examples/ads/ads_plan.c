// SPDX-License-Identifier: GPL-2.0
/* ads's pools (ads_plan.h). */
#include <errno.h>

#include "ads_plan.h"

int ads_plan_split(const struct scxpol_topo *topo, unsigned int n, struct scxpol_pool_plan **out)
{
	struct scxpol_pool_plan *tmp = NULL, *p;
	int r;

	r = scxpol_pool_plan_split(topo, "lc", "bg", n, 0, &tmp);
	if (r)
		return r;
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
