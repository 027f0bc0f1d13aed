/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scxpol-sim's output (report.c): per run the metrics scripts/bench
 * reports, under the same names, and ratios to the first policy and to
 * minimal; the whole as one JSON document, a table for people, an SVG plot.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "spec.h"
#include "wl.h"

/* scripts/bench's METRICS keys the simulator measures, plus the faas mode's. */
enum metric {
	M_RQ_P50, M_RQ_P99, M_RQ_P999, M_REQ_PER_S, M_BG_UNITS, M_REQ_P99, M_WAKE_P99,
	M_BG_RQ_P99, M_LC_PREEMPT, M_BG_BURST, M_IDLE_PCT, M_IDLE_P99, M_RQ_X_IDLE, M_REMOTE_PCT,
	M_CPU_IDLE_PCT, M_LC_CPU_PCT, M_BG_CPU_PCT, M_UNSERVED, M_REQUESTS,
	M_E2E_P50, M_E2E_P99, M_E2E_P999, M_COST, M_UTIL,
	M_NR,
};

struct run {
	char label[256];
	int status;		/* 0, or the run failed: err */
	char err[1024];
	double m[M_NR];		/* NAN: not measured */
	double cdf[100][2];	/* faas e2e CDF */
	unsigned int nr_cdf;
	char *json;		/* the run's object */
	/* not in the JSON: the speed (--bench): CPU time, simulated time */
	double wall_s, sim_s;
	unsigned long long events, callbacks;
};

void report_json(FILE *f, const struct spec *s, const struct run *runs, unsigned int n);
void report_table(FILE *f, const struct spec *s, const struct run *runs, unsigned int n);
/* 0, or -errno with the reason in @err. */
int report_svg(const char *path, const struct spec *s, const struct run *runs, unsigned int n,
	       char *err, size_t errlen);

#endif
