/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * scxpol-workload's parts: the run (workload.c), the classifiers that make
 * a thread's class visible to the scheduler (classify.c) and the command
 * line (options.c) share these types.
 */
#ifndef SCXPOL_WORKLOAD_H
#define SCXPOL_WORKLOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define COMM_LEN 16
#define MAX_THREADS 4096
#define BACKLOG_CAP 65536
#define MAX_STAGES 3
#define MAX_RATES 16
#define NSEC 1000000000ULL
/* --hint classes, the ads policy's (<scxpol/abi/hint.h>) */
#define WL_HINT_CLASS_CRITICAL 1
#define WL_HINT_CLASS_BACKGROUND 0

enum wl_class { WL_WORKER, WL_DISPATCH, WL_HOG, WL_NR_CLASSES };
/* The processes: the critical one (dispatcher + workers) and the background one. */
enum wl_side { WL_CRITICAL, WL_BACKGROUND, WL_NR_SIDES };

/* The options that name each class's comm and each side's cgroup (options.c). */
extern const char *const wl_class_opt[WL_NR_CLASSES];
extern const char *const wl_side_opt[WL_NR_SIDES];

struct opts {
	unsigned int workers;
	unsigned int concurrency; /* closed loop: requests in flight */
	double rate;              /* open loop: requests/s (the first step's); 0 = closed loop */
	double rates[MAX_RATES];  /* --rate-steps: the open loop's rates, in turn */
	unsigned int nr_rates;    /* of them; 1 without --rate-steps */
	double step_s;            /* --step-s: how long each rate lasts */
	unsigned int stages;      /* --stages: hand-offs per request */
	double work_us;           /* CPU work per request */
	unsigned int hogs;
	unsigned int hogs_per_cpu; /* --hogs-per-cpu: 0 = not given */
	double hog_unit_us;       /* CPU work per background unit */
	double duration;
	double iters_per_us;      /* 0: calibrate */
	const char *comm[WL_NR_CLASSES];
	const char *cgroup[WL_NR_SIDES]; /* below CGROUP_ROOT; NULL: stay */
	const char *hint_policy;  /* --hint: the policy whose pinned hint maps to write */
	unsigned int important_every; /* --important-every: 0 = never */
	bool calibrate_only;
	unsigned int calibrate_threads; /* --calibrate-threads: 0 = 1 */
};

/* Shared between the two processes (MAP_SHARED). */
enum { RUN_WAIT, RUN_GO, RUN_ABORT };
/* failed: a message is complete only once FAIL_REPORTED (the other process reads it) */
enum { FAIL_NONE, FAIL_CLAIMED, FAIL_REPORTED };

struct shared {
	_Atomic uint32_t start;    /* futex: RUN_GO once the measurement starts */
	_Atomic uint32_t stop;     /* 1 once it ends */
	_Atomic uint32_t ready;    /* threads set up, both processes */
	_Atomic uint32_t failed;   /* FAIL_*: the setup failed (the first failure's) */
	char error[512];           /* its message */
	_Atomic uint64_t units[];  /* background units done, per hog */
};

enum { W_IDLE, W_POSTED, W_STOP };

struct worker {
	struct wl *wl;
	unsigned int idx;
	unsigned int stage;     /* its pipeline stage: idx % stages */
	pthread_t th;
	_Atomic uint32_t state; /* futex word: W_* */
	uint64_t due_ns;        /* when the request was due (its latency starts here) */
	uint64_t post_ns;       /* when the dispatcher woke this worker */
	uint64_t done;          /* requests completed in the window */
	uint64_t unfinished;    /* requests due in the window, completed after it (or never) */
	uint64_t important;     /* of done, those flagged important (--important-every) */
	bool flagged;           /* the current request is flagged (until counted) */
	struct worker *next_idle;
	struct lat_hist req, wake;
};

struct wl {
	const struct opts *o;
	struct shared *sh;
	uint64_t req_iters, hog_iters;
	pthread_mutex_t lock;   /* the stages' idle workers and backlogs, stopping */
	struct stage {
		struct worker *idle; /* stack of sleeping workers */
		uint64_t *backlog;   /* due times of requests no worker could take */
		size_t bl_head, bl_len;
	} stage[MAX_STAGES];
	uint64_t dropped;       /* due in the window, refused: backlog full */
	uint64_t unposted;      /* due in the window, never posted (the run stopped first) */
	bool stopping;
	_Atomic uint32_t completions; /* futex: the closed-loop dispatcher waits here */
	_Atomic uint32_t disp_waiting;
	_Atomic int64_t outstanding;
	uint64_t t0;
	_Atomic uint64_t t_end; /* UINT64_MAX until the window closes */
	struct worker *workers;
};

/* classify.c */
int wl_process_init(const struct opts *o, enum wl_side side, char *err, size_t len);
void wl_process_exit(const struct opts *o);
void wl_thread_init(const struct opts *o, struct shared *sh, enum wl_class cls, unsigned int idx);
void wl_assign_hooks(struct worker *w);
void wl_request_hooks(struct worker *w, bool begin);
int wl_cgroup2_check(const struct opts *o);

/* options.c */
int wl_parse_args(int argc, char **argv, struct opts *o);

/* workload.c */
void wl_setup_failed(struct shared *sh, const char *msg);

#endif
