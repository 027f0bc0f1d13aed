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
#include <limits.h>
#include <linux/futex.h>
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scxpol/cli.h>


#include "workload.h"

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

/*
 * The unit of CPU work: @iters rounds of xorshift, kept from being
 * optimised out. One copy, at one address, in one 128-byte block (so
 * never across a page): the calibration, the requests and the hogs run
 * the same instructions. QEMU's TCG runs a loop that straddles a page
 * boundary many times slower, so a copy inlined elsewhere would not do
 * the calibrated work in an emulated guest.
 */
__attribute__((noinline, aligned(128))) static void burn(uint64_t iters)
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

/* Record a setup failure for the parent to report; only the first one's message is kept. */
void wl_setup_failed(struct shared *sh, const char *msg)
{
	uint32_t none = FAIL_NONE;

	if (!atomic_compare_exchange_strong(&sh->failed, &none, FAIL_CLAIMED))
		return;
	snprintf(sh->error, sizeof(sh->error), "%s", msg);
	atomic_store(&sh->failed, FAIL_REPORTED);
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

	wl_thread_init(h->o, h->sh, WL_HOG, h->idx);
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
	if (wl_process_init(o, WL_BACKGROUND, err, sizeof(err))) {
		/* for the parent to report, unless it failed itself (then it has) */
		wl_setup_failed(sh, err);
		return 1;
	}
	for (i = 0; i < o->hogs; i++) {
		hogs[i] = (struct hog){ .o = o, .sh = sh, .iters = iters, .idx = i };
		r = pthread_create(&th[i], NULL, hog_main, &hogs[i]);
		if (r) {
			/* the parent reports it at once, and the hogs started stop waiting */
			snprintf(err, sizeof(err), "cannot start hog thread %u: %s", i, strerror(r));
			wl_setup_failed(sh, err);
			call_off(sh);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	wl_process_exit(o);
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
	wl_assign_hooks(w);
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
		wl_assign_hooks(w);
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

	wl_thread_init(wl->o, wl->sh, WL_WORKER, w->idx);
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
			wl_request_hooks(w, true);
			burn(wl->req_iters);
			wl_request_hooks(w, false);
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

	wl_thread_init(o, wl->sh, WL_DISPATCH, 0);
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
	sigset_t intr;
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
	/*
	 * SIGINT ends the window early (below). Blocked here, before any
	 * thread or the background process exists, so every thread inherits
	 * the mask and only the wait for the window's end takes it.
	 */
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	pthread_sigmask(SIG_BLOCK, &intr, NULL);

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
	r = wl_process_init(o, WL_CRITICAL, err, sizeof(err));
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
		uint64_t end = wl.t0 + (uint64_t)(o->duration * 1e9), t;

		while ((t = now_ns()) < end) {
			struct timespec ts = { (time_t)((end - t) / NSEC), (long)((end - t) % NSEC) };

			if (sigtimedwait(&intr, NULL, &ts) == SIGINT)
				break;
		}
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
	wl_process_exit(o);
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

int main(int argc, char **argv)
{
	/* static: the background process is forked with it and exits without freeing */
	static struct results res;
	struct opts o = { 0 };
	int r;

	if (wl_parse_args(argc, argv, &o))
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
	if (wl_cgroup2_check(&o))
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
