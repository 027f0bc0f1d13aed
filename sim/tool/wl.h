/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scxpol-sim's workloads: each component of the spec becomes tasks with
 * behaviours on the simulated machine (wl_rr.c: request/response, hogs,
 * schbench; wl_tasks.c: distributions and burst traces; wl_faas.c: FaaS
 * traces with the control plane), and says what it measured.
 *
 * Every component counts what happens in the measurement window (after
 * the warm-up): its tasks in the engine's metrics group named after it,
 * its own numbers (requests, units, invocations) in its report.
 */
#ifndef SIM_WL_H
#define SIM_WL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scxpol/sim.h>

#include "spec.h"

/* What the policy's loader offers a workload (loaders.c). */
struct wl_policy {
	/* the faas control plane's domains (0: no domain-aware policy) and their CPUs */
	unsigned int nr_domains;
	const unsigned int *domain_cpus;
	/* write cgroup @cgroup's domain hint (-1: none); NULL without a policy to tell */
	int (*assign)(void *ctx, unsigned long long cgroup, int domain);
	void *ctx;
};

struct wl_env {
	struct scxpol_sim *sim;
	const struct spec *spec;
	const struct comp *comp;
	unsigned int index;	/* the component's place in the spec */
	struct scxpol_sim_rng rng;
	unsigned int group;	/* its metrics group */
	unsigned long long cgroup; /* its cgroup's id (0: the root) */
	uint64_t t0, t_end;	/* the measurement window */
	const struct wl_policy *policy;
	char err[SPEC_ERR_LEN];
};

struct wl {
	const struct wl_kind *kind;
	struct wl_env env;
	void *state;
};

/* The numbers scripts/bench's metrics come from (NAN: not measured by this component). */
struct wl_metrics {
	double requests, req_per_s, req_p99_ns, wake_p99_ns, unserved; /* rr, schbench */
	double units_per_s;					  /* hogs */
	double e2e_p50_ms, e2e_p99_ms, e2e_p999_ms, cost_ms, util;	  /* faas */
	double cdf[100][2];	/* faas: the e2e latency CDF (ms, fraction) */
	unsigned int nr_cdf;
};

struct wl_kind {
	/* create the tasks and events; 0 or -errno with env.err set */
	int (*start)(struct wl *w);
	/* the window starts now: forget what was counted before */
	void (*window)(struct wl *w);
	/* its numbers, as JSON members ("\"requests\":12,..."), and the bench's metrics */
	void (*report)(struct wl *w, FILE *f);
	/* add what it measures to @m (fields it does not measure stay as they are) */
	void (*metrics)(struct wl *w, struct wl_metrics *m);
	/* a finite workload: whether all of it ran (NULL: it runs as long as the run) */
	bool (*done)(struct wl *w);
	void (*free)(struct wl *w);
};

extern const struct wl_kind wl_rr, wl_hogs, wl_schbench, wl_tasks, wl_trace, wl_faas;

/* A sample of @d, ns. */
uint64_t wl_sample(const struct dist *d, struct scxpol_sim_rng *r);

/* Create a task of component @w: comm "<name>-<role><index>", in its group and cgroup. */
struct scxpol_sim_task *wl_task(struct wl *w, const char *role, unsigned int index,
				scxpol_sim_behave_fn behave, void *ctx);

/* Record the component's first failure: "SPEC:LINE: workload NAME: what" in env.err. */
void wl_fail(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write a latency summary as a JSON object. */
void wl_lat_json(FILE *f, const struct scxpol_sim_lat *l);

#endif
