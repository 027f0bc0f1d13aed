/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scxpol-sim's input: a YAML file saying what machine to simulate, for how
 * long, and what runs on it (doc/sim.md has the reference). Read with
 * libyaml; an error names the file, the line, the column and the field:
 *   ads.yaml:12:14: workload[1].rate: "10k": want a number of requests/s
 */
#ifndef SIM_SPEC_H
#define SIM_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#define SPEC_ERR_LEN 512
#define SPEC_MAX_COMPONENTS 32
#define SPEC_MAX_STEPS 32
#define SPEC_MAX_POLICIES 16
#define SPEC_MAX_CPUS 512	/* what a component's affinity (cpus[8]) holds */

/* A duration or a distribution of durations, ns. */
enum dist_kind { DIST_FIXED, DIST_EXP, DIST_UNIFORM, DIST_LOGNORMAL };
struct dist {
	enum dist_kind kind;
	double a, b;	/* fixed/exp: a = value/mean; uniform: [a, b]; lognormal: median a, sigma b */
};

/* A rate that steps: rate[i] per second from at[i] on (at[0] = 0). */
struct steps {
	unsigned int n;
	double rate[SPEC_MAX_STEPS];
	uint64_t at[SPEC_MAX_STEPS];
};

enum comp_kind { COMP_RR, COMP_HOGS, COMP_SCHBENCH, COMP_TASKS, COMP_TRACE, COMP_FAAS };

/* What a component has in common: its tasks' names, class, place. */
struct comp_common {
	char name[16];		/* comm prefix ("lc" -> "lc-worker-3") and metrics group */
	char cgroup[32];	/* cgroup its tasks are in, "" for the root */
	int nice;
	unsigned long cpus[8];	/* affinity; all zero: every CPU */
	bool has_cpus;
	unsigned int line;	/* where it is in the file, for messages */
	/* "Nx": per CPU of the machine (spec_resolve()); COMP_X_* */
	unsigned int per_cpu;
};

#define COMP_X_COUNT 1	/* workers, count, messages */
#define COMP_X_RATE 2	/* rr's rate, each step */
#define COMP_X_CONCURRENCY 4
#define COMP_X_DISPATCHERS 8

struct comp_rr {
	unsigned int workers, dispatchers, stages, concurrency;
	struct steps rate;	/* open loop; concurrency 0 */
	struct dist work;	/* per request and stage */
	struct dist dispatch;	/* the dispatcher's CPU per request */
	unsigned int backlog;	/* requests that may wait for a worker; more are dropped */
};

struct comp_hogs {
	unsigned int count;
	struct dist unit;
};

struct comp_schbench {
	unsigned int messages, workers;
	struct dist work, think;
};

struct comp_tasks {
	unsigned int count;
	struct dist run, sleep;
};

struct comp_trace {
	char file[256];
};

struct comp_faas {
	char trace[256];	/* simple per-invocation CSV */
	char invocations[256], durations[256]; /* or Azure 2019 */
	unsigned int first_minute, last_minute;
	double minute_s, duration_scale, time_scale;
	unsigned int max_funcs;
	double capacity;	/* per domain: x its CPUs (capacity_x) or invocations */
	bool capacity_x;
	bool hold;		/* overflow: hold (else the shared queue) */
	unsigned int domains;	/* the control plane's, without a faas policy (EEVDF) */
	uint64_t bucket_us;
	double alpha;
	bool home_scan;
	unsigned int mt_threads, io_sleep_ratio;
};

struct comp {
	enum comp_kind kind;
	struct comp_common c;
	union {
		struct comp_rr rr;
		struct comp_hogs hogs;
		struct comp_schbench sb;
		struct comp_tasks tasks;
		struct comp_trace trace;
		struct comp_faas faas;
	} u;
};

struct spec {
	char path[256];
	/*
	 * machine: a shape (cpus, smt, llcs, nodes), or a sysfs tree's root
	 * ("" none): where it was given, for messages ("FILE:LINE:COL:
	 * machine.sysfs" or "--sysfs DIR"); main.c reads it into the shape
	 */
	unsigned int cpus, smt, llcs, nodes;
	char sysfs[256];
	char sysfs_where[512];
	uint64_t tick_ns, ctxsw_ns, ipi_ns, idle_exit_ns;
	/* run */
	uint64_t duration_ns, warmup_ns, seed;
	char policies[SPEC_MAX_POLICIES][256];
	unsigned int nr_policies;
	struct comp comps[SPEC_MAX_COMPONENTS];
	unsigned int nr_comps;
};

/* Read @path into @s. 0, or -errno with "FILE:LINE:COL: FIELD: what" in @err. */
int spec_load(const char *path, struct spec *s, char *err, size_t errlen);

/* Check the machine's shape (after command-line overrides). 0 or -EINVAL with @err. */
int spec_check_machine(const struct spec *s, char *err, size_t errlen);

/* Multiply the per-CPU ("Nx") counts and rates by the machine's CPUs. 0 or -EINVAL with @err. */
int spec_resolve(struct spec *s, char *err, size_t errlen);

/* Parse a duration "250us", "3ms", "1.5s", "20ns" into ns. 0 or -EINVAL. */
int spec_parse_duration(const char *text, uint64_t *ns);

/* Parse a distribution "1ms", "exp:1ms", "uniform:1ms:5ms", "lognormal:1ms:0.5". */
int spec_parse_dist(const char *text, struct dist *d);

#endif
