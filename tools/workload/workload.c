// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-workload: a latency-critical request path and CPU-bound background
 * work competing for the same CPUs (schbench-like, shaped after an ads
 * serving host).
 *
 * Critical process: a dispatcher thread posts requests to sleeping worker
 * threads, either at a fixed rate (open loop; a request that finds every
 * worker busy waits in a backlog and its latency counts from when it was
 * due) or keeping N requests in flight (closed loop). A worker wakes, does a
 * fixed amount of CPU work, records
 *   wakeup latency   posted -> worker running   (userspace view)
 *   request latency  due    -> work done
 * and sleeps again. The latencies are of the requests done by the end of
 * the measurement window. The others due in it are counted, not lost:
 * "dropped" (refused, the backlog full) and "unfinished" (in a worker's
 * hands, in the backlog, or not yet posted by a late dispatcher), so an
 * overload that leaves a backlog shows: the latencies leave out its
 * longest ones (and stderr says so).
 *
 * A pipeline (--stages N): the workers form N stages, and a request goes
 * from the dispatcher to a worker of the first stage, which does its work
 * and hands it to a sleeping worker of the next stage (or queues it there),
 * and so on: N wakeups per request. Every stage records its wakeup
 * latency; the last one the request latency. With --rate-steps the open
 * loop's rate changes every --step-s seconds, cycling through the list
 * (load that steps up and down).
 *
 * Background process: hog threads doing CPU work units in a loop. The two
 * classes are separate processes so each can be placed in its own cgroup
 * (cgroup v2 moves whole processes).
 *
 * Work is a calibrated number of loop iterations, so a unit is the same
 * amount of work under every scheduler: calibrate once (--calibrate) and
 * pass the result (--iters-per-us) to runs that are compared.
 *
 * A policy tells the classes apart by comm, by cgroup, or (--hint) by the
 * class hints the threads publish themselves through libscxpol's hint
 * client, like an application that knows its threads: dispatcher and
 * workers class 1 (critical), hogs class 0 (background). With
 * --important-every N each worker also registers a hint slot, and every
 * Nth request is flagged important through the slot of the worker that
 * gets it, as it gets it (by the dispatcher before it wakes the worker, or
 * by the worker taking it from the backlog); the worker clears the flag
 * when the request is done. The scheduler sees the flag from the wake-up on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include <scxpol/cli.h>
#include <scxpol/hint.h>

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

static const char *const class_opt[WL_NR_CLASSES] = { "--worker-comm", "--dispatch-comm",
						      "--hog-comm" };
static const char *const side_opt[WL_NR_SIDES] = { "--worker-cgroup", "--hog-cgroup" };

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

/*
 * Classifiers make a thread's class visible to the scheduler. process_init
 * runs once in each process before its threads exist (they inherit what it
 * sets), thread_init once in each new thread, request_assign when a
 * request goes to a worker (in the dispatcher before it wakes the worker,
 * or in the worker taking it from the backlog), request_begin/request_end
 * in the worker around every request it serves, thread_exit when a thread that ran thread_init ends,
 * process_exit once in each process after its threads ended. comm naming
 * and cgroup placement are the built-in ones; hints (--hint: the library's
 * hint client publishes each thread's class, and a registered worker's
 * importance is raised for the requests flagged important) are off unless
 * asked for.
 */
struct classifier {
	const char *name;
	bool (*enabled)(const struct opts *o);
	int (*process_init)(const struct opts *o, enum wl_side side, char *err, size_t len);
	int (*thread_init)(const struct opts *o, enum wl_class cls, unsigned int idx, char *err,
			   size_t len);
	void (*request_assign)(struct worker *w);
	void (*request_begin)(struct worker *w);
	void (*request_end)(struct worker *w);
	void (*thread_exit)(const struct opts *o);
	void (*process_exit)(const struct opts *o);
};

static int futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return (int)syscall(SYS_futex, uaddr, op, val, ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void futex_wait(_Atomic uint32_t *w, uint32_t val, bool shared)
{
	futex(w, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, val, NULL);
}

/* Wait while *w == val, at most until CLOCK_MONOTONIC @deadline_ns. */
static void futex_wait_until(_Atomic uint32_t *w, uint32_t val, uint64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / NSEC), (long)(deadline_ns % NSEC) };

	futex(w, FUTEX_WAIT_BITSET_PRIVATE, val, &ts);
}

static void futex_wake(_Atomic uint32_t *w, int n, bool shared)
{
	futex(w, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, (uint32_t)n, NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

/* per thread: the work loops of different threads share nothing */
static _Thread_local volatile uint64_t burn_sink;

/* The unit of CPU work: @iters rounds of xorshift, kept from being optimised out. */
static void burn(uint64_t iters)
{
	uint64_t x = burn_sink | 1, i;

	for (i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	burn_sink = x;
}

/* Loop iterations per microsecond: the best of 5 rounds of >= 20 ms. */
static double calibrate_one(void)
{
	double best = 0;
	int round;

	for (round = 0; round < 5; round++) {
		uint64_t n = 1000, t, dt;

		for (;;) {
			t = now_ns();
			burn(n);
			dt = now_ns() - t;
			if (dt >= 20000000ULL)
				break;
			n *= 2;
		}
		if ((double)n * 1000.0 / (double)dt > best)
			best = (double)n * 1000.0 / (double)dt;
	}
	return best;
}

static void *calibrate_thread(void *arg)
{
	*(double *)arg = calibrate_one();
	return NULL;
}

/*
 * calibrate_one() in @n threads at once, their mean: the speed of one
 * thread while @n run (an emulator that runs every vCPU in one host
 * thread gives each of @n busy vCPUs 1 / @n of its speed). 0 if a thread
 * could not be started (errno set).
 */
static double calibrate(unsigned int n)
{
	pthread_t th[MAX_THREADS];
	double ipu[MAX_THREADS], sum = 0;
	unsigned int i, started;
	int r = 0;

	if (n <= 1)
		return calibrate_one();
	for (started = 0; started < n; started++) {
		r = pthread_create(&th[started], NULL, calibrate_thread, &ipu[started]);
		if (r)
			break;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		sum += ipu[i];
	}
	if (r) {
		errno = r;
		return 0;
	}
	return sum / n;
}

/* --- classifiers ----------------------------------------------------------- */

static bool comm_enabled(const struct opts *o)
{
	(void)o;
	return true;
}

static int comm_thread_init(const struct opts *o, enum wl_class cls, unsigned int idx,
			    char *err, size_t len)
{
	int r;

	(void)idx;
	r = pthread_setname_np(pthread_self(), o->comm[cls]);
	if (r)
		snprintf(err, len, "%s '%s': cannot name the thread: %s", class_opt[cls],
			 o->comm[cls], strerror(r));
	return -r;
}

static bool cgroup_enabled(const struct opts *o)
{
	return o->cgroup[WL_CRITICAL] || o->cgroup[WL_BACKGROUND];
}

/* Create CGROUP_ROOT/@rel (and its parents) and move this process into it. */
static int cgroup_process_init(const struct opts *o, enum wl_side side, char *err, size_t len)
{
	char path[PATH_MAX], pid[32];
	size_t i = strlen(CGROUP_ROOT);
	int fd, r = 0;
	ssize_t n;
	char c;

	if (!o->cgroup[side])
		return 0;
	snprintf(path, sizeof(path), "%s/%s", CGROUP_ROOT, o->cgroup[side]);
	/* mkdir -p, one component at a time */
	for (i++; ; i++) {
		if (path[i] != '/' && path[i])
			continue;
		c = path[i];
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			r = -errno;
			snprintf(err, len, "%s '%s': cannot create %s: %s", side_opt[side],
				 o->cgroup[side], path, strerror(errno));
			return r;
		}
		path[i] = c;
		if (!c)
			break;
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/cgroup.procs");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, len, "%s '%s': cannot open %s: %s", side_opt[side], o->cgroup[side],
			 path, strerror(errno));
		return r;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	n = write(fd, pid, strlen(pid));
	if (n < 0) {
		r = -errno;
		snprintf(err, len, "%s '%s': cannot move process %s into it: %s", side_opt[side],
			 o->cgroup[side], pid, strerror(errno));
	}
	close(fd);
	return r;
}

static bool hint_enabled(const struct opts *o)
{
	return o->hint_policy;
}

/*
 * Each process's client of the policy's hint maps; the workers' slots (by
 * worker index: the dispatcher writes them) and each thread's own.
 */
static struct scxpol_hint_client *hint_client;
static struct scxpol_hint_thread **hint_slots;
static _Thread_local struct scxpol_hint_thread *hint_slot;
static _Atomic uint64_t hint_assigned; /* requests handed to workers */

static int hint_process_init(const struct opts *o, enum wl_side side, char *err, size_t len)
{
	hint_client = scxpol_hint_client_open(o->hint_policy, NULL);
	if (!hint_client) {
		snprintf(err, len, "--hint '%s': %s", o->hint_policy, scxpol_last_error());
		return -errno;
	}
	if (side != WL_CRITICAL || !o->important_every)
		return 0;
	hint_slots = calloc(o->workers, sizeof(*hint_slots));
	if (!hint_slots) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Publish the thread's class as its tid hint; a worker registers a slot for importance. */
static int hint_thread_init(const struct opts *o, enum wl_class cls, unsigned int idx, char *err,
			    size_t len)
{
	struct scxpol_hint h = {
		.pool = SCXPOL_HINT_POOL_NONE,
		.class_id = cls == WL_HOG ? WL_HINT_CLASS_BACKGROUND : WL_HINT_CLASS_CRITICAL,
		.flags = SCXPOL_HINT_F_CLASS,
	};
	pid_t tid = gettid();
	int r;

	(void)idx;
	r = scxpol_hint_set(hint_client, SCXPOL_HINT_TID, (uint64_t)tid, &h);
	if (r) {
		snprintf(err, len, "--hint '%s': class hint of thread %d: %s", o->hint_policy,
			 (int)tid, scxpol_last_error());
		return r;
	}
	if (cls != WL_WORKER || !o->important_every)
		return 0;
	hint_slot = scxpol_hint_thread_register(hint_client);
	if (!hint_slot) {
		r = -errno;
		snprintf(err, len, "--important-every %u: cannot register thread %d: %s",
			 o->important_every, (int)tid, scxpol_last_error());
		return r;
	}
	hint_slots[idx] = hint_slot;
	return 0;
}

/* Flag every N-th request before the worker runs it (wakes up for it). */
static void hint_request_assign(struct worker *w)
{
	struct scxpol_hint_thread *slot = hint_slots ? hint_slots[w->idx] : NULL;

	if (!slot || (atomic_fetch_add(&hint_assigned, 1) + 1) % w->wl->o->important_every)
		return;
	w->flagged = true;
	scxpol_hint_thread_set_importance(slot, 1);
}

/* The worker counts the request (flagged stays set until then). */
static void hint_request_end(struct worker *w)
{
	if (w->flagged)
		scxpol_hint_thread_set_importance(hint_slot, 0);
}

/* Leave no hint behind (a loaded policy drops those of dead threads itself). */
static void hint_thread_exit(const struct opts *o)
{
	(void)o;
	if (hint_slot)
		scxpol_hint_thread_unregister(hint_slot);
	hint_slot = NULL;
	scxpol_hint_clear(hint_client, SCXPOL_HINT_TID, (uint64_t)gettid());
}

static void hint_process_exit(const struct opts *o)
{
	(void)o;
	free(hint_slots);
	hint_slots = NULL;
	scxpol_hint_client_close(hint_client);
	hint_client = NULL;
}

static const struct classifier classifiers[] = {
	{ .name = "comm", .enabled = comm_enabled, .thread_init = comm_thread_init },
	{ .name = "cgroup", .enabled = cgroup_enabled, .process_init = cgroup_process_init },
	{ .name = "hint", .enabled = hint_enabled, .process_init = hint_process_init,
	  .thread_init = hint_thread_init, .request_assign = hint_request_assign,
	  .request_end = hint_request_end, .thread_exit = hint_thread_exit,
	  .process_exit = hint_process_exit },
};

#define for_each_classifier(c, o)                                                  \
	for (const struct classifier *c = classifiers;                             \
	     c < classifiers + sizeof(classifiers) / sizeof(classifiers[0]); c++) \
		if (c->enabled(o))

/* The caller reports @err: both processes set up alike and may fail alike. */
static int process_init(const struct opts *o, enum wl_side side, char *err, size_t len)
{
	int r;

	for_each_classifier(c, o) {
		if (!c->process_init)
			continue;
		r = c->process_init(o, side, err, len);
		if (r)
			return r;
	}
	return 0;
}

static void process_exit(const struct opts *o)
{
	for_each_classifier(c, o) {
		if (c->process_exit)
			c->process_exit(o);
	}
}

/* Runs the classifiers' thread_exit when a thread set up by thread_init() ends. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *arg)
{
	const struct opts *o = arg;

	for_each_classifier(c, o) {
		if (c->thread_exit)
			c->thread_exit(o);
	}
}

static void exit_key_init(void)
{
	if (pthread_key_create(&exit_key, thread_exit))
		abort();
}

/* Record a setup failure for the parent to report; only the first one's message is kept. */
static void setup_failed(struct shared *sh, const char *msg)
{
	uint32_t none = FAIL_NONE;

	if (!atomic_compare_exchange_strong(&sh->failed, &none, FAIL_CLAIMED))
		return;
	snprintf(sh->error, sizeof(sh->error), "%s", msg);
	atomic_store(&sh->failed, FAIL_REPORTED);
}

/* Set up the calling thread's class; a failure stops the whole run. */
static void thread_init(const struct opts *o, struct shared *sh, enum wl_class cls,
			unsigned int idx)
{
	char err[512] = "";
	int r;

	pthread_once(&exit_key_once, exit_key_init);
	pthread_setspecific(exit_key, o);
	for_each_classifier(c, o) {
		if (!c->thread_init)
			continue;
		r = c->thread_init(o, cls, idx, err, sizeof(err));
		if (r)
			setup_failed(sh, err);
	}
	atomic_fetch_add(&sh->ready, 1);
}

/* A request goes to @w (before it runs it). */
static void assign_hooks(struct worker *w)
{
	for_each_classifier(c, w->wl->o) {
		if (c->request_assign)
			c->request_assign(w);
	}
}

static void request_hooks(struct worker *w, bool begin)
{
	for_each_classifier(c, w->wl->o) {
		if (begin && c->request_begin)
			c->request_begin(w);
		else if (!begin && c->request_end)
			c->request_end(w);
	}
}

/*
 * Park until the measurement starts; false if the run was called off. The
 * futex word itself says which, so a wake-up cannot be lost between the
 * check and the wait.
 */
static bool wait_start(struct shared *sh)
{
	uint32_t s;

	while ((s = atomic_load(&sh->start)) == RUN_WAIT)
		futex_wait(&sh->start, RUN_WAIT, true);
	return s == RUN_GO;
}

/* Call the run off if it has not started: the threads parked in wait_start() return. */
static void call_off(struct shared *sh)
{
	uint32_t s = RUN_WAIT;

	if (atomic_compare_exchange_strong(&sh->start, &s, RUN_ABORT))
		futex_wake(&sh->start, INT_MAX, true);
}

/* --- background process ------------------------------------------------------ */

struct hog {
	const struct opts *o;
	struct shared *sh;
	uint64_t iters;
	unsigned int idx;
};

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	uint64_t n = 0;

	thread_init(h->o, h->sh, WL_HOG, h->idx);
	if (!wait_start(h->sh))
		return NULL;
	while (!atomic_load_explicit(&h->sh->stop, memory_order_relaxed)) {
		burn(h->iters);
		atomic_store_explicit(&h->sh->units[h->idx], ++n, memory_order_relaxed);
	}
	return NULL;
}

static int background_main(const struct opts *o, struct shared *sh, uint64_t iters)
{
	struct hog *hogs = calloc(o->hogs, sizeof(*hogs));
	pthread_t *th = calloc(o->hogs, sizeof(*th));
	unsigned int i, started = 0;
	char err[512] = "";
	int r = 0;

	if (!hogs || !th) {
		fprintf(stderr, "scxpol-workload: out of memory\n");
		return 1;
	}
	if (process_init(o, WL_BACKGROUND, err, sizeof(err))) {
		/* for the parent to report, unless it failed itself (then it has) */
		setup_failed(sh, err);
		return 1;
	}
	for (i = 0; i < o->hogs; i++) {
		hogs[i] = (struct hog){ .o = o, .sh = sh, .iters = iters, .idx = i };
		r = pthread_create(&th[i], NULL, hog_main, &hogs[i]);
		if (r) {
			/* the parent reports it at once, and the hogs started stop waiting */
			snprintf(err, sizeof(err), "cannot start hog thread %u: %s", i, strerror(r));
			setup_failed(sh, err);
			call_off(sh);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	process_exit(o);
	free(hogs);
	free(th);
	return r ? 1 : 0;
}

/* --- critical process -------------------------------------------------------- */

/*
 * Hand a request due at @due to a sleeping worker of stage @k, or queue it
 * there (or drop it: backlog full); false if the run is stopping and
 * nothing was done.
 */
static bool post(struct wl *wl, unsigned int k, uint64_t due)
{
	struct stage *sg = &wl->stage[k];
	struct worker *w;

	pthread_mutex_lock(&wl->lock);
	if (wl->stopping) {
		pthread_mutex_unlock(&wl->lock);
		return false;
	}
	w = sg->idle;
	if (!w) {
		if (sg->bl_len < BACKLOG_CAP)
			sg->backlog[(sg->bl_head + sg->bl_len++) % BACKLOG_CAP] = due;
		else if (due <= atomic_load(&wl->t_end))
			wl->dropped++; /* like requests: only what was due in the window */
		pthread_mutex_unlock(&wl->lock);
		return true;
	}
	sg->idle = w->next_idle;
	pthread_mutex_unlock(&wl->lock);
	w->due_ns = due;
	assign_hooks(w);
	w->post_ns = now_ns();
	atomic_store(&w->state, W_POSTED);
	futex_wake(&w->state, 1, false);
	return true;
}

/*
 * After a request: take the next one from the backlog (true, *due set), or
 * go idle (false). A worker that finds the run stopping marks itself W_STOP.
 */
static bool next_request(struct wl *wl, struct worker *w, uint64_t *due)
{
	struct stage *sg = &wl->stage[w->stage];
	bool more = false;

	pthread_mutex_lock(&wl->lock);
	if (wl->stopping) {
		atomic_store(&w->state, W_STOP);
	} else if (sg->bl_len) {
		*due = sg->backlog[sg->bl_head];
		sg->bl_head = (sg->bl_head + 1) % BACKLOG_CAP;
		sg->bl_len--;
		more = true;
		assign_hooks(w);
	} else {
		atomic_store(&w->state, W_IDLE);
		w->next_idle = sg->idle;
		sg->idle = w;
	}
	pthread_mutex_unlock(&wl->lock);
	return more;
}

static void request_done(struct wl *wl)
{
	atomic_fetch_sub(&wl->outstanding, 1);
	atomic_fetch_add(&wl->completions, 1);
	if (atomic_exchange(&wl->disp_waiting, 0))
		futex_wake(&wl->completions, 1, false);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct wl *wl = w->wl;
	bool last = w->stage + 1 == wl->o->stages;
	uint64_t due, running, done, end;
	bool woken, more;
	uint32_t st;

	thread_init(wl->o, wl->sh, WL_WORKER, w->idx);
	if (!wait_start(wl->sh))
		return NULL;
	for (;;) {
		st = atomic_load(&w->state);
		if (st == W_IDLE) {
			futex_wait(&w->state, W_IDLE, false);
			continue;
		}
		if (st == W_STOP)
			break;
		running = now_ns();
		due = w->due_ns;
		woken = true;
		do {
			request_hooks(w, true);
			burn(wl->req_iters);
			request_hooks(w, false);
			done = now_ns();
			end = atomic_load(&wl->t_end);
			if (woken && done <= end)
				lat_hist_add(&w->wake, running - w->post_ns);
			/* only requests finished inside the window count */
			if (!last) {
				/* on to the next stage; a stop leaves it unfinished */
				if (!post(wl, w->stage + 1, due) && due <= end)
					w->unfinished++;
			} else if (done <= end) {
				lat_hist_add(&w->req, done - due);
				w->done++;
				/* counted like requests: those done after the window are not */
				if (w->flagged)
					w->important++;
			} else if (due <= end) {
				w->unfinished++;
			}
			w->flagged = false;
			/* idle (or on to the backlog) before the dispatcher may post again */
			more = next_request(wl, w, &due);
			if (last)
				request_done(wl);
			woken = false;
		} while (more);
	}
	return NULL;
}

/*
 * Open loop: the request after one due @due ns after t0 is due 1 / rate
 * later, at the rate of the step @due falls in; late or not.
 */
static double next_due(const struct opts *o, double due)
{
	unsigned int k = 0;

	if (o->nr_rates > 1)
		k = (unsigned int)(due / (o->step_s * 1e9)) % o->nr_rates;
	return due + 1e9 / o->rates[k];
}

static void *dispatch_main(void *arg)
{
	struct wl *wl = arg;
	const struct opts *o = wl->o;
	uint64_t due, end;
	double next = 0; /* open loop: when the next request is due, ns after t0 */
	uint32_t c;

	thread_init(o, wl->sh, WL_DISPATCH, 0);
	if (!wait_start(wl->sh))
		return NULL;
	while (!atomic_load(&wl->sh->stop)) {
		if (o->rate > 0) {
			due = wl->t0 + (uint64_t)next;
			if (now_ns() < due) {
				futex_wait_until(&wl->sh->stop, 0, due);
				continue;
			}
			if (!post(wl, 0, due))
				break;
			next = next_due(o, next);
			continue;
		}
		/* closed loop: keep o->concurrency requests in flight */
		c = atomic_load(&wl->completions);
		if (atomic_load(&wl->outstanding) >= (int64_t)o->concurrency) {
			atomic_store(&wl->disp_waiting, 1);
			if (atomic_load(&wl->outstanding) >= (int64_t)o->concurrency &&
			    !atomic_load(&wl->sh->stop))
				futex_wait(&wl->completions, c, false);
			atomic_store(&wl->disp_waiting, 0);
			continue;
		}
		atomic_fetch_add(&wl->outstanding, 1);
		due = now_ns();
		if (!post(wl, 0, due)) {
			if (due <= atomic_load(&wl->t_end))
				wl->unposted++;
			break;
		}
	}
	/*
	 * Stopped, so t_end is set (before stop). An open loop that fell
	 * behind has requests due in the window it never posted: they count.
	 */
	end = atomic_load(&wl->t_end);
	for (; o->rate > 0 && wl->t0 + (uint64_t)next <= end; next = next_due(o, next))
		wl->unposted++;
	return NULL;
}

/* --- the run ------------------------------------------------------------------- */

struct results {
	double secs;
	uint64_t requests, units, dropped, important;
	uint64_t unfinished; /* due in the window, not done by its end */
	struct lat_hist req, wake;
};

/* Wait until every thread of both processes is set up, or fail. */
static int wait_ready(struct shared *sh, unsigned int want, pid_t bg)
{
	unsigned int ready;
	int status, i;
	bool exited;

	for (i = 0; i < 30000; i++) {
		/* reaped before the check: a failure it reported and then exited on is seen */
		exited = bg > 0 && waitpid(bg, &status, WNOHANG) == bg;
		/*
		 * ready before failed: a thread reports its failure before it counts
		 * itself ready, so the last thread's failure cannot fall between
		 */
		ready = atomic_load(&sh->ready);
		if (atomic_load(&sh->failed) == FAIL_REPORTED) {
			fprintf(stderr, "scxpol-workload: %s\n", sh->error);
			return -EINVAL;
		}
		if (exited) {
			fprintf(stderr, "scxpol-workload: the background process exited during "
				"setup (status %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			return -ECHILD;
		}
		if (ready >= want)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "scxpol-workload: only %u of %u threads started within 30 s\n",
		atomic_load(&sh->ready), want);
	return -ETIMEDOUT;
}

static void stop_critical(struct wl *wl)
{
	struct worker *w;

	unsigned int k;

	pthread_mutex_lock(&wl->lock);
	wl->stopping = true;
	for (k = 0; k < wl->o->stages; k++) {
		for (w = wl->stage[k].idle; w; w = w->next_idle) {
			atomic_store(&w->state, W_STOP);
			futex_wake(&w->state, 1, false);
		}
		wl->stage[k].idle = NULL;
	}
	pthread_mutex_unlock(&wl->lock);
	futex_wake(&wl->sh->stop, INT_MAX, false);
	atomic_fetch_add(&wl->completions, 1);
	futex_wake(&wl->completions, INT_MAX, false);
}

/* Loop iterations for @us microseconds of work; at least one. */
static uint64_t iters(double us, double iters_per_us)
{
	uint64_t n = (uint64_t)(us * iters_per_us + 0.5);

	return n ? n : 1;
}

static int run(const struct opts *o, struct results *res)
{
	size_t sh_size = sizeof(struct shared) + o->hogs * sizeof(_Atomic uint64_t);
	unsigned int i, started = 0;
	struct shared *sh;
	pthread_t disp;
	char err[512] = "";
	pid_t bg = 0;
	struct wl wl;
	int r = 0, status;

	sh = mmap(NULL, sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "scxpol-workload: mmap: %s\n", strerror(errno));
		return -errno;
	}
	memset(&wl, 0, sizeof(wl));
	wl.o = o;
	wl.sh = sh;
	wl.req_iters = iters(o->work_us, o->iters_per_us);
	wl.hog_iters = iters(o->hog_unit_us, o->iters_per_us);
	atomic_store(&wl.t_end, UINT64_MAX);

	/* fork before any thread exists */
	if (o->hogs) {
		pid_t parent = getpid();

		fflush(NULL);
		bg = fork();
		if (bg < 0) {
			r = -errno;
			fprintf(stderr, "scxpol-workload: fork: %s\n", strerror(errno));
			goto out_unmap;
		}
		if (bg == 0) {
			/*
			 * The hogs burn CPU until the parent says stop: a parent
			 * killed (kill -9) takes them along. The signal follows
			 * this thread of the parent, which lives until it has
			 * reaped us; getppid() catches a death before the prctl.
			 */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL)) {
				fprintf(stderr, "scxpol-workload: prctl(PR_SET_PDEATHSIG): %s\n",
					strerror(errno));
				_exit(1);
			}
			if (getppid() != parent)
				_exit(1);
			_exit(background_main(o, sh, wl.hog_iters));
		}
	}
	wl.workers = calloc(o->workers, sizeof(*wl.workers));
	for (i = 0; i < o->stages; i++) {
		wl.stage[i].backlog = calloc(BACKLOG_CAP, sizeof(*wl.stage[i].backlog));
		if (!wl.stage[i].backlog)
			break;
	}
	if (!wl.workers || i < o->stages) {
		fprintf(stderr, "scxpol-workload: out of memory\n");
		r = -ENOMEM;
		goto out_stop;
	}
	pthread_mutex_init(&wl.lock, NULL);
	r = process_init(o, WL_CRITICAL, err, sizeof(err));
	if (r) {
		fprintf(stderr, "scxpol-workload: %s\n", err);
		goto out_stop;
	}
	for (i = 0; i < o->workers; i++) {
		struct worker *w = &wl.workers[i];

		w->wl = &wl;
		w->idx = i;
		atomic_store(&w->state, W_IDLE);
		w->stage = i % o->stages;
		w->next_idle = wl.stage[w->stage].idle;
		wl.stage[w->stage].idle = w;
		r = -pthread_create(&w->th, NULL, worker_main, w);
		if (r) {
			fprintf(stderr, "scxpol-workload: cannot start worker %u: %s\n", i,
				strerror(-r));
			goto out_stop;
		}
		started++;
	}
	r = -pthread_create(&disp, NULL, dispatch_main, &wl);
	if (r) {
		fprintf(stderr, "scxpol-workload: cannot start the dispatcher: %s\n", strerror(-r));
		goto out_stop;
	}
	started++;
	r = wait_ready(sh, o->workers + 1 + o->hogs, bg);
	if (r)
		goto out_stop;

	wl.t0 = now_ns();
	atomic_store(&sh->start, RUN_GO);
	futex_wake(&sh->start, INT_MAX, true);
	{
		uint64_t end = wl.t0 + (uint64_t)(o->duration * 1e9);
		struct timespec ts = { (time_t)(end / NSEC), (long)(end % NSEC) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	/* close the window: what is done now counts, nothing after */
	atomic_store(&wl.t_end, now_ns());
	for (i = 0; i < o->hogs; i++)
		res->units += atomic_load(&sh->units[i]);
	res->secs = (double)(atomic_load(&wl.t_end) - wl.t0) / 1e9;

out_stop:
	atomic_store(&sh->stop, 1);
	call_off(sh);
	if (wl.workers) {
		stop_critical(&wl);
		if (started > o->workers)
			pthread_join(disp, NULL);
		for (i = 0; i < started && i < o->workers; i++)
			pthread_join(wl.workers[i].th, NULL);
	}
	process_exit(o);
	if (bg > 0 && waitpid(bg, &status, 0) == bg && !r &&
	    (!WIFEXITED(status) || WEXITSTATUS(status))) {
		fprintf(stderr, "scxpol-workload: the background process failed\n");
		r = -ECHILD;
	}
	if (!r) {
		uint64_t end = atomic_load(&wl.t_end);
		size_t k;

		for (i = 0; i < o->workers; i++) {
			res->requests += wl.workers[i].done;
			res->unfinished += wl.workers[i].unfinished;
			res->important += wl.workers[i].important;
			lat_hist_merge(&res->req, &wl.workers[i].req);
			lat_hist_merge(&res->wake, &wl.workers[i].wake);
		}
		/* the backlogs no worker got to before the stop */
		for (i = 0; i < o->stages; i++)
			for (k = 0; k < wl.stage[i].bl_len; k++)
				if (wl.stage[i].backlog[(wl.stage[i].bl_head + k) % BACKLOG_CAP] <= end)
					res->unfinished++;
		res->unfinished += wl.unposted;
		res->dropped = wl.dropped;
	}
	free(wl.workers);
	for (i = 0; i < MAX_STAGES; i++)
		free(wl.stage[i].backlog);
out_unmap:
	munmap(sh, sh_size);
	return r;
}

/* --- output and options ---------------------------------------------------------- */

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void print_row(const char *what, const struct lat_summary *s, double secs, bool rate)
{
	printf("%-18s %10llu ", what, (unsigned long long)s->count);
	if (rate)
		printf("%10.1f", (double)s->count / secs);
	else
		printf("%10s", "-");
	printf(" %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", us(s->mean), us(s->p50), us(s->p90),
	       us(s->p99), us(s->p999), us(s->max));
}

static void print_results(const struct opts *o, const struct results *res)
{
	struct lat_summary req, wake;

	lat_hist_summarize(&res->req, &req);
	lat_hist_summarize(&res->wake, &wake);
	printf("scxpol-workload: %.1f s; %u workers '%s' + dispatcher '%s', ", res->secs,
	       o->workers, o->comm[WL_WORKER], o->comm[WL_DISPATCH]);
	if (o->nr_rates > 1) {
		printf("requests/s");
		for (unsigned int k = 0; k < o->nr_rates; k++)
			printf("%s%.1f", k ? " then " : " ", o->rates[k]);
		printf(", %g s each", o->step_s);
	} else if (o->rate > 0)
		printf("%.1f requests/s", o->rate);
	else
		printf("%u in flight", o->concurrency);
	printf(", %.0f us/request", o->work_us);
	if (o->stages > 1)
		printf(" per stage, %u stages", o->stages);
	printf("; %u hogs '%s', %.0f us/unit; %.1f iters/us\n", o->hogs, o->comm[WL_HOG],
	       o->hog_unit_us, o->iters_per_us);
	printf("%-18s %10s %10s %9s %9s %9s %9s %9s %9s\n", "(times in us)", "count", "per s",
	       "mean", "p50", "p90", "p99", "p99.9", "max");
	print_row("request latency", &req, res->secs, true);
	print_row("wakeup latency", &wake, res->secs, false);
	printf("%-18s %10llu %10.1f\n", "background units", (unsigned long long)res->units,
	       (double)res->units / res->secs);
	if (res->dropped)
		printf("dropped requests: %llu (backlog of %d full)\n",
		       (unsigned long long)res->dropped, BACKLOG_CAP);
	if (res->unfinished)
		printf("unfinished requests: %llu (due in the window, not done by its end; not in "
		       "the latencies)\n", (unsigned long long)res->unfinished);
	if (o->important_every)
		printf("important requests: %llu (every %u-th)\n",
		       (unsigned long long)res->important, o->important_every);

	printf("{\"duration_s\":%.3f,\"workers\":%u,\"stages\":%u,\"hogs\":%u,\"mode\":\"%s\","
	       "\"concurrency\":%u,\"rate\":%.3f,\"work_us\":%.3f,\"hog_unit_us\":%.3f,\"iters_per_us\":%.3f,"
	       "\"requests\":%llu,\"requests_per_s\":%.3f,\"request_latency\":",
	       res->secs, o->workers, o->stages, o->hogs, o->rate > 0 ? "open" : "closed",
	       o->rate > 0 ? 0 : o->concurrency, o->rate, o->work_us, o->hog_unit_us,
	       o->iters_per_us, (unsigned long long)res->requests,
	       (double)res->requests / res->secs);
	lat_summary_json(stdout, &req);
	printf(",\"wakeup_latency\":");
	lat_summary_json(stdout, &wake);
	printf(",\"bg_units\":%llu,\"bg_units_per_s\":%.3f,\"dropped\":%llu,"
	       "\"important\":%llu,\"unfinished\":%llu}\n", (unsigned long long)res->units,
	       (double)res->units / res->secs, (unsigned long long)res->dropped,
	       (unsigned long long)res->important, (unsigned long long)res->unfinished);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scxpol-workload [--workers N] [--concurrency N | --rate R |\n"
		"                       --rate-steps R1,R2... [--step-s S]] [--work-us US]\n"
		"                       [--stages N] [--hogs M | --hogs-per-cpu M]\n"
		"                       [--hog-unit-us US] [--duration SECS]\n"
		"                       [--worker-comm NAME] [--dispatch-comm NAME] [--hog-comm NAME]\n"
		"                       [--worker-cgroup PATH] [--hog-cgroup PATH]\n"
		"                       [--hint POLICY [--important-every N]]\n"
		"                       [--iters-per-us X] [--calibrate [--calibrate-threads N]]\n"
		"  --workers N          request worker threads (default: one per CPU)\n"
		"  --concurrency N      closed loop: N requests in flight (default: --workers)\n"
		"  --rate R             open loop: R requests/s, due at fixed intervals\n"
		"  --rate-steps R1,R2...\n"
		"                       open loop whose rate steps through R1, R2, ... (up to\n"
		"                       %d), each for --step-s S seconds (default 1), in turn\n"
		"  --work-us US         CPU work per request (per stage with --stages)\n"
		"                       (default 100)\n"
		"  --stages N           a pipeline: the workers form N stages (1..%d; worker i\n"
		"                       is in stage i mod N), each hands the request on to\n"
		"                       the next (default 1)\n"
		"  --hogs M             background threads (default: 2 x CPUs - workers)\n"
		"  --hogs-per-cpu M     M background threads per CPU\n"
		"  --hog-unit-us US     CPU work per background unit (default 1000)\n"
		"  --duration SECS      measurement window (default 10)\n"
		"  --worker-comm NAME   thread names (default lc-worker, lc-dispatch, bg-hog)\n"
		"  --dispatch-comm NAME\n"
		"  --hog-comm NAME\n"
		"  --worker-cgroup PATH put the critical process (dispatcher and workers) in\n"
		"                       cgroup PATH under " CGROUP_ROOT ", created if missing\n"
		"  --hog-cgroup PATH    the same for the background process\n"
		"  --hint POLICY        each thread sets its class as a hint of POLICY (its\n"
		"                       pinned maps): 1 critical, 0 background\n"
		"  --important-every N  with --hint, workers register a hint slot, and every\n"
		"                       N-th request is flagged important in the slot of its\n"
		"                       worker before it runs (cleared when done)\n"
		"  --iters-per-us X     work loop speed (default: calibrate at start)\n"
		"  --calibrate          print iters_per_us=X and exit\n"
		"  --calibrate-threads N\n"
		"                       calibrate in N threads at once, their mean speed: the\n"
		"                       speed of a thread while N threads run (default 1)\n"
		"Prints a table and, last, one JSON line. The latencies are of the requests\n"
		"done within the window; \"unfinished\" counts those due in it but not done\n"
		"by its end (in a worker's hands, queued, or not posted yet), \"dropped\" those\n"
		"refused with the backlog full. With --rate, more of those two than workers\n"
		"is an overload (a backlog at the end) whose longest latencies are left out:\n"
		"stderr warns of it. Exit status: 0, 1 on an error, 2 for bad usage.\n",
		MAX_RATES, MAX_STAGES);
}

/* The numbers are read as the library's command lines read them (<scxpol/cli.h>). */
static int parse_uint(const char *opt, const char *arg, unsigned int lo, unsigned int hi,
		      unsigned int *out)
{
	unsigned long long v;

	if (scxpol_cli_parse_uint(opt, arg, lo, hi, &v)) {
		fprintf(stderr, "scxpol-workload: %s\n", scxpol_last_error());
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/*
 * A number in @lo..@hi, @lo included (a --work-us of 0 is work-free
 * requests), which the library's range (lo, hi] cannot say: it checks the
 * number, this the least value.
 */
static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
	double v;

	if (scxpol_cli_parse_double(opt, arg, -HUGE_VAL, hi, &v) || v < lo) {
		fprintf(stderr, "scxpol-workload: %s '%s': want a number in %g..%g\n", opt, arg,
			lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* --rate-steps R1,R2,...: 2..MAX_RATES rates; the first is o->rate. */
static int parse_rates(const char *arg, struct opts *o)
{
	char buf[256], *tok, *save = NULL;
	unsigned int n = 0;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "scxpol-workload: --rate-steps '%.32s...': too long\n", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_RATES) {
			fprintf(stderr, "scxpol-workload: --rate-steps '%s': more than %d rates\n",
				arg, MAX_RATES);
			return -EINVAL;
		}
		if (parse_double("--rate-steps", tok, 0.001, 1e7, &o->rates[n]))
			return -EINVAL;
		n++;
	}
	if (n < 2) {
		fprintf(stderr, "scxpol-workload: --rate-steps '%s': want two rates or more, "
			"comma-separated (one rate: --rate)\n", arg);
		return -EINVAL;
	}
	o->nr_rates = n;
	o->rate = o->rates[0];
	return 0;
}

static int parse_comm(enum wl_class cls, const char *arg, struct opts *o)
{
	if (!arg[0] || strlen(arg) >= COMM_LEN) {
		fprintf(stderr, "scxpol-workload: %s '%s': want 1..%d characters (the kernel's "
			"comm limit)\n", class_opt[cls], arg, COMM_LEN - 1);
		return -EINVAL;
	}
	o->comm[cls] = arg;
	return 0;
}

/* A cgroup path below CGROUP_ROOT: "a/b" or "/a/b"; no "." or ".." parts. */
static int parse_cgroup(enum wl_side side, const char *arg, struct opts *o)
{
	const char *p = arg, *q;

	while (*p == '/')
		p++;
	if (!*p) {
		fprintf(stderr, "scxpol-workload: %s '%s': want a cgroup below %s\n",
			side_opt[side], arg, CGROUP_ROOT);
		return -EINVAL;
	}
	for (q = p; *q;) {
		size_t n = strcspn(q, "/");

		if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.')) {
			fprintf(stderr, "scxpol-workload: %s '%s': '.' and '..' are not allowed\n",
				side_opt[side], arg);
			return -EINVAL;
		}
		q += n;
		while (*q == '/')
			q++;
	}
	o->cgroup[side] = p;
	return 0;
}

static unsigned int nr_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	return (unsigned int)CPU_COUNT(&set);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "concurrency", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "rate-steps", required_argument, NULL, 'R' },
		{ "step-s", required_argument, NULL, 'S' },
		{ "stages", required_argument, NULL, 's' },
		{ "hogs-per-cpu", required_argument, NULL, 'p' },
		{ "work-us", required_argument, NULL, 'u' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "hog-unit-us", required_argument, NULL, 'U' },
		{ "duration", required_argument, NULL, 'd' },
		{ "worker-comm", required_argument, NULL, 'W' },
		{ "dispatch-comm", required_argument, NULL, 'D' },
		{ "hog-comm", required_argument, NULL, 'C' },
		{ "worker-cgroup", required_argument, NULL, 'g' },
		{ "hog-cgroup", required_argument, NULL, 'G' },
		{ "hint", required_argument, NULL, 'P' },
		{ "important-every", required_argument, NULL, 'E' },
		{ "iters-per-us", required_argument, NULL, 'i' },
		{ "calibrate", no_argument, NULL, 'c' },
		{ "calibrate-threads", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool have_conc = false, have_hogs = false, have_step = false, have_hogs_per_cpu = false;
	unsigned int have_rate = 0;
	unsigned int cpus = nr_cpus();
	int c, r = 0;

	o->workers = cpus;
	o->work_us = 100;
	o->step_s = 1;
	o->stages = 1;
	o->hog_unit_us = 1000;
	o->duration = 10;
	o->comm[WL_WORKER] = "lc-worker";
	o->comm[WL_DISPATCH] = "lc-dispatch";
	o->comm[WL_HOG] = "bg-hog";
	while (!r && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			r = parse_uint("--workers", optarg, 1, MAX_THREADS, &o->workers);
			break;
		case 'n':
			r = parse_uint("--concurrency", optarg, 1, MAX_THREADS, &o->concurrency);
			have_conc = true;
			break;
		case 'r':
			r = parse_double("--rate", optarg, 0.001, 1e7, &o->rate);
			o->rates[0] = o->rate;
			o->nr_rates = 1;
			have_rate++;
			break;
		case 'R':
			r = parse_rates(optarg, o);
			have_rate++;
			break;
		case 'S':
			r = parse_double("--step-s", optarg, 0.001, 1e6, &o->step_s);
			have_step = true;
			break;
		case 's':
			r = parse_uint("--stages", optarg, 1, MAX_STAGES, &o->stages);
			break;
		case 'p':
			r = parse_uint("--hogs-per-cpu", optarg, 0, 64, &o->hogs_per_cpu);
			have_hogs_per_cpu = true;
			break;
		case 'u':
			r = parse_double("--work-us", optarg, 0, 1e7, &o->work_us);
			break;
		case 'H':
			r = parse_uint("--hogs", optarg, 0, MAX_THREADS, &o->hogs);
			have_hogs = true;
			break;
		case 'U':
			r = parse_double("--hog-unit-us", optarg, 1, 1e7, &o->hog_unit_us);
			break;
		case 'd':
			r = parse_double("--duration", optarg, 0.01, 1e6, &o->duration);
			break;
		case 'W':
			r = parse_comm(WL_WORKER, optarg, o);
			break;
		case 'D':
			r = parse_comm(WL_DISPATCH, optarg, o);
			break;
		case 'C':
			r = parse_comm(WL_HOG, optarg, o);
			break;
		case 'g':
			r = parse_cgroup(WL_CRITICAL, optarg, o);
			break;
		case 'G':
			r = parse_cgroup(WL_BACKGROUND, optarg, o);
			break;
		case 'P':
			o->hint_policy = optarg;
			break;
		case 'E':
			r = parse_uint("--important-every", optarg, 1, 1000000,
				       &o->important_every);
			break;
		case 'i':
			r = parse_double("--iters-per-us", optarg, 1e-3, 1e9, &o->iters_per_us);
			break;
		case 'c':
			o->calibrate_only = true;
			break;
		case 'T':
			r = parse_uint("--calibrate-threads", optarg, 1, MAX_THREADS,
				       &o->calibrate_threads);
			break;
		case 'h':
			usage(stdout);
			exit(scxpol_cli_finish("scxpol-workload", NULL, 0));
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (r)
		return r;
	if (optind < argc) {
		fprintf(stderr, "scxpol-workload: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (o->important_every && !o->hint_policy) {
		fprintf(stderr, "scxpol-workload: --important-every %u: needs --hint POLICY (the "
			"flag is a hint)\n", o->important_every);
		return -EINVAL;
	}
	if (have_rate > 1) {
		fprintf(stderr, "scxpol-workload: --rate and --rate-steps: give one of them, once\n");
		return -EINVAL;
	}
	if (have_step && o->nr_rates < 2) {
		fprintf(stderr, "scxpol-workload: --step-s: needs --rate-steps with two rates or "
			"more\n");
		return -EINVAL;
	}
	if (have_hogs && have_hogs_per_cpu) {
		fprintf(stderr, "scxpol-workload: --hogs and --hogs-per-cpu exclude each other\n");
		return -EINVAL;
	}
	if (o->workers < o->stages) {
		fprintf(stderr, "scxpol-workload: --workers %u --stages %u: want a worker per stage "
			"at least\n", o->workers, o->stages);
		return -EINVAL;
	}
	if (have_conc && o->rate > 0) {
		fprintf(stderr, "scxpol-workload: --concurrency (closed loop) and --rate (open "
			"loop) exclude each other\n");
		return -EINVAL;
	}
	if (!have_conc)
		o->concurrency = o->workers;
	if (have_hogs_per_cpu)
		o->hogs = o->hogs_per_cpu * cpus;
	else if (!have_hogs)
		o->hogs = 2 * cpus > o->workers ? 2 * cpus - o->workers : 0;
	return 0;
}

static int cgroup2_check(const struct opts *o)
{
	struct statfs sfs;

	if (!cgroup_enabled(o))
		return 0;
	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "scxpol-workload: %s: %s is not a cgroup2 mount\n",
			o->cgroup[WL_CRITICAL] ? side_opt[WL_CRITICAL] : side_opt[WL_BACKGROUND],
			CGROUP_ROOT);
		return -ENOENT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* static: the background process is forked with it and exits without freeing */
	static struct results res;
	struct opts o = { 0 };
	int r;

	if (parse_args(argc, argv, &o))
		return 2;
	/* each library failure is reported here, naming the option: not twice */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	if (o.calibrate_threads && !o.calibrate_only) {
		fprintf(stderr, "scxpol-workload: --calibrate-threads: only with --calibrate\n");
		return 2;
	}
	if (o.calibrate_only) {
		double ipu = calibrate(o.calibrate_threads);

		if (!ipu) {
			fprintf(stderr, "scxpol-workload: --calibrate-threads %u: cannot start a "
				"thread: %s\n", o.calibrate_threads, strerror(errno));
			return scxpol_cli_finish("scxpol-workload", NULL, 1);
		}
		printf("iters_per_us=%.3f\n", ipu);
		return scxpol_cli_finish("scxpol-workload", NULL, 0);
	}
	if (cgroup2_check(&o))
		return 1;
	if (!o.iters_per_us)
		o.iters_per_us = calibrate(1);
	r = run(&o, &res);
	if (!r && o.rate > 0 && res.unfinished + res.dropped > o.workers)
		/* stderr, first: the latencies understate, whoever reads only the JSON */
		fprintf(stderr, "scxpol-workload: warning: %llu requests due in the window were "
			"not done by its end (%llu unfinished, %llu dropped): an overload; the "
			"latencies leave them out\n",
			(unsigned long long)(res.unfinished + res.dropped),
			(unsigned long long)res.unfinished, (unsigned long long)res.dropped);
	if (!r)
		print_results(&o, &res);
	return scxpol_cli_finish("scxpol-workload", NULL, r ? 1 : 0);
}
