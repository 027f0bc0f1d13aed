/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace replay: start every invocation of a trace at its arrival time (on
 * the replay's clock: trace time x time_scale), as a real process in its
 * own cgroup, with the domain the IAT policy (iat.h) picked, and measure
 * what happened.
 *
 * Per invocation, in order:
 *   1. prewarm, up to 250 ms before its arrival (and at most 64 ahead; the
 *      first ones before time 0), like a platform's warm container: the
 *      cgroup <cgroup_root>/inv-<id> is created (with a cgroup root), and
 *      the body is forked into it, blocked (funcs.h).
 *   2. at its arrival, faas_iat_assign() picks a domain (or the shared
 *      queue) from the scheduled arrival; IATs are on the replay's clock.
 *      It needs 1 unit of a domain's capacity, an mt one body.mt_threads.
 *      With FAAS_OVERFLOW_HOLD, one left to the shared queue (or arriving
 *      while others are held) is held instead, until faas_iat_retry()
 *      finds it a domain, oldest first: steps 3 and 4 wait for that. One
 *      that needs more than any domain's capacity is never held.
 *   3. for a domain >= 0 and a sink: once the body is asleep on its go
 *      pipe (faas_body_asleep(); a body not yet asleep could start working
 *      from a run queue chosen before its hint, and later arrivals go
 *      ahead while it is pending), sink->assign(cgroup id, domain). An
 *      invocation on the shared queue has no hint, which is what sends its
 *      tasks to the shared queue.
 *   4. the body is released and runs (released - arrival shows the wait),
 *      in SCHED_OTHER, or with body_ext in SCHED_EXT: the control plane
 *      puts each function body, and nothing else, in the class of a policy
 *      that switches only SCHED_EXT tasks (faas --switch partial).
 * On completion (its report read) the domain is released; once its process
 * is reaped (so its exit, too, ran in its domain) sink->clear(cgroup id) is
 * called if assign was and it counts as completed. The cgroups are removed
 * when every invocation has completed (replay_inv.c says why). Any failure (a body that crashed or failed, a sink error, a
 * cgroup that cannot be created) stops the replay: remaining bodies are
 * killed, their cgroups removed, and faas_replay_run() fails. A replay that
 * returns 0 completed every invocation.
 *
 * Measurements (times relative to the replay's start):
 *   arrival: the scheduled arrival; released: when the replay let the
 *   body run (released - arrival is the replay's own lag, plus the wait
 *   of a held invocation); start: the
 *   body's first instruction after release (start - released is its wakeup
 *   latency); end: when the body finished.
 *   e2e latency = end - arrival; worker duration = end - start.
 *   core reuse: the invocation's first CPU is one its function's previous
 *   invocation (by arrival) ran on; undefined for a function's first.
 *   CPU utilisation: busy / total jiffies of the "cpu" line of /proc/stat
 *   between start and end of the replay (busy = user + nice + system +
 *   irq + softirq + steal; total = busy + idle + iowait). CPU time: the
 *   busy jiffies in seconds, and of them the replay process's own
 *   (getrusage RUSAGE_SELF: the control plane, forks included) and its
 *   reaped children's (the bodies); the rest is other tasks' and the
 *   kernel's (cgroup removal, the policy, ...).
 *   invocation cost = mean e2e latency x CPU utilisation (ms): the paper's
 *   latency x cpu_utilization, with the utilisation of the whole run.
 *   Percentiles are nearest-rank: the ceil(p/100 * n)-th smallest.
 */
#ifndef FAAS_REPLAY_H
#define FAAS_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "funcs.h"
#include "iat.h"
#include "trace.h"

/*
 * Where domain assignments go: the policy's cgroup -> domain hint map (a
 * loader plugs its hint client in here). Both return 0 or a negative errno.
 */
struct faas_sink {
	const char *name;
	void *ctx;
	int (*assign)(void *ctx, uint64_t cgroup_id, int domain);
	int (*clear)(void *ctx, uint64_t cgroup_id);
	/* optional: describe the sink's last failure (NULL: strerror) */
	const char *(*last_error)(void *ctx);
};

/*
 * faas_sink_hint_open - the "pinned" sink: assignments become cgroup hints
 * {.pool = domain, .flags = SCXPOL_HINT_F_POOL} through the library's hint
 * client, on the maps policy @policy pinned (under @pin_root; NULL: the
 * library's default), for a replay of the @nr_domains domains of CPUs
 * @cpus. The running policy's stats server (at @stats_path; NULL: its
 * default path) must report the same domains, in order. NULL with the
 * reason in @err (errno EINVAL: the policy has other domains, so the
 * replay's domain d would not be the policy's). (sink_hint.c)
 */
struct scxpol_cpuset;

struct faas_sink *faas_sink_hint_open(const char *policy, const char *pin_root,
				      const char *stats_path, unsigned int nr_domains,
				      struct scxpol_cpuset *const *cpus, char *err, size_t errlen);

/* faas_sink_hint_close - close a sink from faas_sink_hint_open() (NULL is fine). */
void faas_sink_hint_close(struct faas_sink *s);

/* What happens to an invocation no domain has capacity for (iat.h). */
enum faas_overflow {
	/* it runs at once, on the shared queue */
	FAAS_OVERFLOW_SHARED,
	/*
	 * the control plane holds it, released in arrival order as domains
	 * free capacity: under overload invocations run about first come,
	 * first served, at the domains' capacity, instead of all at once (the
	 * paper's control plane, whose requests wait in a FIFO queue until a
	 * monitor thread gives them CPUs)
	 */
	FAAS_OVERFLOW_HOLD,
};

struct faas_replay_opts {
	const struct faas_trace *trace;
	unsigned int nr_domains;
	const unsigned int *capacity; /* per domain: CPUs or concurrent invocations (step 2) */
	uint64_t bucket_us;	      /* IAT bucket size */
	double iat_alpha;	      /* IAT EWMA weight (iat.h) */
	bool home_scan;		      /* iat.h */
	enum faas_overflow overflow;
	double time_scale;	      /* arrivals x this; 0 means 1 */
	const char *cgroup_root;      /* NULL: bodies stay in the replay's cgroup */
	const struct faas_sink *sink; /* NULL: none (plain EEVDF runs) */
	bool body_ext;		      /* bodies work in SCHED_EXT (needs a sink) */
	struct faas_body_cfg body;
	const char *proc_stat;	      /* NULL: /proc/stat */
	volatile sig_atomic_t *stop;  /* set (by a signal handler) to abort */
};

struct faas_inv_result {
	int domain;	     /* FAAS_DOMAIN_SHARED: the shared queue */
	uint64_t cgroup_id;  /* 0 without a cgroup root */
	char *cgroup;	     /* the cgroup the body reported being in */
	uint64_t arrival_ns; /* scheduled */
	uint64_t released_ns; /* the replay let the body run */
	uint64_t start_ns;
	uint64_t end_ns;
	int first_cpu;
	struct faas_cpuset cpus;
	int reuse;	     /* 1, 0, or -1: the function's first invocation */
	char sched_class[8]; /* the body's class when it started (funcs.h) */
	bool done;
};

struct faas_replay {
	const struct faas_trace *trace;
	struct faas_inv_result *res; /* one per trace invocation, same order */
	uint64_t nr, completed;
	unsigned int nr_domains;
	struct faas_iat_stats iat;
	uint64_t t0_ns;		     /* CLOCK_MONOTONIC of the replay's time 0 */
	uint64_t run_ns;	     /* time 0 .. last completion */
	double util;		     /* CPU utilisation over the run, 0..1 */
	double busy_cpu_s;	     /* busy CPU time of all CPUs over the run */
	double cp_cpu_s;	     /* of it, the replay's own (the control plane) */
	double bodies_cpu_s;	     /* of it, the bodies' (reaped children) */
};

struct faas_summary {
	uint64_t count, completed;
	uint64_t shared;	  /* ran on the shared queue */
	uint64_t held;		  /* waited in the control plane for a domain */
	double p50_ms, p99_ms, p999_ms, mean_e2e_ms, mean_worker_ms;
	double util, cost_ms;
	double busy_cpu_s, cp_cpu_s, bodies_cpu_s; /* see struct faas_replay */
	uint64_t reuse, reuse_of; /* invocations that reused a core, of those that could */
	double run_s;
};

struct faas_cpu_stat {
	uint64_t busy, total;
};

/*
 * faas_replay_run - replay @o->trace. Returns 0 with every invocation
 * completed and the results in *@out, or a negative errno with the reason
 * in @err (and nothing left running or in the cgroup root).
 */
int faas_replay_run(const struct faas_replay_opts *o, struct faas_replay **out, char *err,
		    size_t errlen);

/* faas_replay_free - free results (NULL is fine). */
void faas_replay_free(struct faas_replay *r);

/*
 * faas_replay_write_csv - one row per invocation: id, function, kind,
 * domain (-1: shared queue), cgroup_id, cgroup, arrival_ms, released_ms,
 * start_ms, end_ms, e2e_ms, worker_ms, first_cpu, cpus (a CPU list with ';'
 * between ranges), core_reuse (1, 0, or "-"), class (the body's scheduling
 * class when it started: ext, fair, rt, ...). Returns 0 or -EIO.
 */
int faas_replay_write_csv(const struct faas_replay *r, FILE *f);

/* faas_replay_summarize - the summary of completed invocations; 0 or -ENOMEM. */
int faas_replay_summarize(const struct faas_replay *r, struct faas_summary *s);

/* faas_summary_print - a table for people, then the summary as one JSON line. */
void faas_summary_print(const struct faas_summary *s, FILE *f);

/* faas_summary_json - just the JSON line. */
void faas_summary_json(const struct faas_summary *s, FILE *f);

/*
 * faas_cpu_stat_read - busy and total jiffies from the "cpu" line of @path
 * (a /proc/stat). Returns 0 or a negative errno with the reason in @err.
 */
int faas_cpu_stat_read(const char *path, struct faas_cpu_stat *st, char *err, size_t errlen);

#endif
