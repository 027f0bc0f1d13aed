/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function bodies: what an invocation does once it runs, as a forked
 * process in its own cgroup v2 directory.
 *
 * Work is fixed, not wall time (except poll's): faas_calibrate() measures
 * once how many iterations of the compute loop one microsecond of CPU time
 * buys (thread CPU time, best of several runs, so preemption during
 * calibration does not skew it), and a body of duration D does D worth of
 * iterations. Under contention the same work takes longer, which is the
 * latency the replay measures. Per kind, for duration D:
 *   cpu   one burst of D of work
 *   io    bursts of at most 1 ms of work, each followed by a sleep of
 *         io_sleep_ratio times the burst: D / (1 + ratio) of work in all,
 *         so an uncontended run takes about D
 *   poll  a busy-polling runtime waiting for an event (a reply) that
 *         comes D after its start: spins on a flag and checks the clock
 *         every 256 spins until then; never sleeps. Its CPU time is what
 *         the scheduler lets it burn (at most D), and it ends at the first
 *         check after D, so contention delays it only by that wait
 *   mt    mt_threads threads (2..4), each doing D of work: an uncontended
 *         run takes about D on mt_threads CPUs
 * While working, every thread samples sched_getcpu() about every 20 us of
 * work; the report carries the first CPU and the set of CPUs seen.
 *
 * Process protocol (faas_body_spawn): the child is forked into its cgroup
 * blocked on a "go" pipe; the parent waits until it is asleep
 * (faas_body_asleep), tells the policy, then writes one byte. Only then does the body start its clock and work, so it never
 * does work outside its cgroup or before its domain is known. It ends by
 * writing one struct faas_body_report (smaller than PIPE_BUF, so atomic on
 * a pipe shared by all children) and exits 0; any failure exits non-zero.
 *
 * A control plane can run in the real-time class (chrt -f 1 faas-replay)
 * so that it is never queued behind the invocations it releases, whatever
 * the scheduler. Its bodies do not stay there: a child forked SCHED_FIFO
 * or SCHED_RR reaches its go pipe in that class, so it is asleep there at
 * once, not after a wait for a CPU behind the backlog as a normal task;
 * the parent then takes it out (faas_body_set_class(), before go), so it
 * works as a normal task of the scheduler under test. It goes back for
 * its report and exit, which hold locks the control plane's forks wait
 * for (exit status 4: it could not read its own class).
 */
#ifndef FAAS_FUNCS_H
#define FAAS_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace.h"

#define FAAS_MAX_CPUS 1024

/*
 * A fixed-size CPU set: it travels in the body's report through a pipe and
 * is shared by the threads of an mt body; results convert it to a
 * struct scxpol_cpuset for printing.
 */
struct faas_cpuset {
	uint64_t bits[FAAS_MAX_CPUS / 64];
};

struct faas_body_cfg {
	double iters_per_us;	     /* from faas_calibrate() */
	unsigned int mt_threads;     /* threads of an mt body, 2..4 */
	unsigned int io_sleep_ratio; /* io: sleep per unit of work, >= 1 */
};

struct faas_body_report {
	uint64_t id;	   /* the invocation */
	uint64_t start_ns; /* CLOCK_MONOTONIC when the body started */
	uint64_t end_ns;   /* ... and when it finished */
	int32_t first_cpu; /* CPU of the body's first instruction */
	int32_t status;	   /* 0, or the errno that failed the body */
	struct faas_cpuset cpus;
	char cgroup[256];  /* its cgroup v2 path (/proc/self/cgroup), truncated */
	char sched_class[8]; /* the class it started working in (faas_sched_class()) */
};

/* faas_cpuset_set/has/count - CPU set bit operations (CPUs >= FAAS_MAX_CPUS ignored). */
void faas_cpuset_set(struct faas_cpuset *s, int cpu);
int faas_cpuset_has(const struct faas_cpuset *s, int cpu);
unsigned int faas_cpuset_count(const struct faas_cpuset *s);

/*
 * faas_sched_class - the scheduling class task @pid (0: the caller) is in,
 * into @buf: "ext" when sched_ext runs it (ext.enabled of /proc/PID/sched),
 * else "rt", "fair" (SCHED_OTHER, BATCH, IDLE; also a SCHED_EXT task with
 * no sched_ext policy loaded), "dl" or "?" when it cannot be read.
 */
void faas_sched_class(pid_t pid, char *buf, size_t len);

/* faas_now_ns - CLOCK_MONOTONIC in nanoseconds. */
uint64_t faas_now_ns(void);

/*
 * faas_calibrate - measure the compute loop's iterations per microsecond
 * of CPU time into *@iters_per_us. Takes about 100 ms. Returns 0 or a
 * negative errno with the reason in @err.
 */
int faas_calibrate(double *iters_per_us, char *err, size_t errlen);

/*
 * faas_body_check - validate @cfg; 0, or -EINVAL with the reason in @err.
 */
int faas_body_check(const struct faas_body_cfg *cfg, char *err, size_t errlen);

/*
 * faas_body_run - run a body of @kind for @duration_us in the calling
 * process (the forked child calls this; tests call it directly) and fill
 * @rep (all but ->id). Returns 0 or a negative errno (also in ->status).
 */
int faas_body_run(enum faas_kind kind, uint64_t duration_us, const struct faas_body_cfg *cfg,
		  struct faas_body_report *rep);

/*
 * faas_body_spawn - fork a child that waits for the go byte, runs the body
 * of invocation @id and writes its report to @report_fd. With @cgroup (a
 * cgroup v2 directory, or NULL) the child starts in that cgroup (it is
 * moved there before Linux 5.7). Returns the child's pid and its go pipe's
 * write end in *@go_fd (write one byte to start it, close it to make it
 * exit without running: exit status 3), or a negative errno with the
 * reason in @err. Call only from a single-threaded process. A child in a
 * real-time class stays there until faas_body_set_class() (see above).
 */
pid_t faas_body_spawn(uint64_t id, enum faas_kind kind, uint64_t duration_us,
		      const struct faas_body_cfg *cfg, const char *cgroup, int report_fd,
		      int *go_fd, char *err, size_t errlen);

/* The sched_ext scheduling class's policy (uapi linux/sched.h; glibc 2.36 lacks it). */
#define FAAS_SCHED_EXT 7

/*
 * faas_body_set_class - move the spawned body @pid, waiting for go, into
 * the class it works in: with @ext SCHED_EXT (a policy that switches only
 * SCHED_EXT tasks, faas --switch partial, then runs it; without a loaded
 * policy it runs in the fair class), else from the real-time class it
 * inherited to SCHED_OTHER (nothing if it is not in one). Returns 0 or a
 * negative errno with the reason in @err.
 */
int faas_body_set_class(pid_t pid, bool ext, char *err, size_t errlen);

/*
 * faas_body_asleep - whether the spawned body @pid is asleep, off the run
 * queue (its /proc/PID/wchan names where it sleeps; it reads "0" while the
 * task is running or queued to run, on Linux 5.16 and later). Release a
 * body only then: its go byte then wakes it, and the scheduler places it
 * seeing its cgroup and hint. A body that has not blocked yet may still sit
 * in a run queue chosen when it had neither, and would start working there.
 * Returns 1 (asleep), 0 (not yet) or a negative errno with the reason in
 * @err.
 */
int faas_body_asleep(pid_t pid, char *err, size_t errlen);

/*
 * faas_cgroup_root_check - whether cgroups can be made in @root: it is a
 * cgroup2 directory, or does not exist and its parent is one (to create it
 * in), and that directory is writable. 0, or a negative errno with
 * "<@what> '<@root>': ..." in @err ("not a cgroup2 directory", ...).
 */
int faas_cgroup_root_check(const char *what, const char *root, char *err, size_t errlen);

/*
 * faas_cgroup_create - create cgroup directory @root/@name; its path goes
 * to @path (@len bytes) and its cgroup id (what BPF's
 * bpf_get_current_cgroup_id() returns for its tasks) to *@id. Returns 0 or
 * a negative errno with the reason in @err.
 */
int faas_cgroup_create(const char *root, const char *name, char *path, size_t len,
		       uint64_t *id, char *err, size_t errlen);

/* faas_cgroup_move - move process @pid into cgroup directory @path. */
int faas_cgroup_move(const char *path, pid_t pid, char *err, size_t errlen);

/*
 * faas_cgroup_remove - remove the (empty) cgroup directory @path, retrying
 * briefly while the kernel still counts an exited task in it.
 */
int faas_cgroup_remove(const char *path, char *err, size_t errlen);

#endif
