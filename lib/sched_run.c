// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The run loop (scxpol_sched_run()): attach, wait for a stop, the exit or
 * a CPU hotplug event, run the periodic work, detach, and restart when
 * asked, waiting for hotplug to settle and backing off quick restarts.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched_internal.h"
#include "scxpol/cpuset.h"
#include "scxpol/topology.h"

#define EXIT_KIND_UNREG 64 /* SCX_EXIT_UNREG: the loader's own detach */

static struct scxpol_sched *volatile running;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct scxpol_sched *s = running;

	int pid = 0;

	(void)uc;
	if (!s)
		return;
	/* si_pid names a sender only for kill(), sigqueue() and tgkill() */
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL))
		pid = si->si_pid;
	/* the first signal stopped the run: a later ^C does not rename its sender */
	if (!atomic_load_explicit(&s->stop_sig, memory_order_acquire)) {
		atomic_store_explicit(&s->stop_pid, pid, memory_order_relaxed);
		atomic_store_explicit(&s->stop_sig, sig, memory_order_release);
	}
	scxpol_sched_stop(s);
}

/* A scheduler stopped by a signal says who sent it: an unexpected detach
 * is otherwise hard to trace back to the script or service that did it. */
static void log_stop_signal(struct scxpol_sched *s)
{
	int signo = atomic_load_explicit(&s->stop_sig, memory_order_acquire);
	int pid = atomic_load_explicit(&s->stop_pid, memory_order_relaxed);
	const char *sig = signo == SIGINT ? "SIGINT" : "SIGTERM";
	char path[64], comm[32] = "";

	if (pid <= 0) {
		/* a terminal's ^C, or the kernel */
		scxpol_log(SCXPOL_LOG_INFO, "%s: stopping on %s (no sending process)", s->name, sig);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (scxpol_read_file(NULL, path, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	scxpol_log(SCXPOL_LOG_INFO, "%s: stopping on %s from pid %d (%s)", s->name, sig, pid,
		   comm[0] ? comm : "exited since");
}

void scxpol_sched_stop(struct scxpol_sched *s)
{
	int saved = errno;
	char c = 1;

	if (!s)
		return;
	s->stop = 1;
	if (write(s->wake_fd[1], &c, 1) < 0) {
		/* the pipe is full: the loop wakes anyway */
	}
	errno = saved;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep up to @ms, woken early by a stop request (scxpol_sched_stop()'s byte). */
static void wait_wake(struct scxpol_sched *s, int ms)
{
	struct pollfd pfd = { .fd = s->wake_fd[0], .events = POLLIN };
	char buf[16];

	if (poll(&pfd, 1, ms) > 0 && read(s->wake_fd[0], buf, sizeof(buf)) < 0) {
		/* nothing to drain */
	}
}

/*
 * A restart asked less than RESTART_QUICK_MS after the attach waits before
 * the reload, RESTART_DELAY_MS doubled for each such restart in a row up to
 * RESTART_DELAY_MAX_MS: a policy that asks again at once (from its init, or
 * in a burst of hotplug events) would run the verifier in a tight loop.
 */
#define RESTART_QUICK_MS 2000
#define RESTART_DELAY_MS 100
#define RESTART_DELAY_MAX_MS 5000

/* The wait before the @quick-th quick restart in a row (0: none). */
static unsigned int restart_delay(unsigned int quick)
{
	unsigned int ms = quick ? RESTART_DELAY_MS : 0;

	while (quick-- > 1 && ms < RESTART_DELAY_MAX_MS)
		ms *= 2;
	return ms < RESTART_DELAY_MAX_MS ? ms : RESTART_DELAY_MAX_MS;
}

/* Wait @ms unless a stop is asked; whether one was. */
static bool backoff(struct scxpol_sched *s, unsigned int ms)
{
	uint64_t end = now_ms() + ms, t;

	while (!s->stop && (t = now_ms()) < end)
		wait_wake(s, (int)(end - t));
	return s->stop;
}

int scxpol_sched_hotplug_busy(const char *root, int cpu, bool online)
{
	struct scxpol_cpuset *present = NULL;
	char path[96], state[32], target[32], list[4096];
	int r, c = -1;

	if (cpu >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		r = scxpol_read_file(root, path, state, sizeof(state));
		if (r >= 0 && strcmp(state, "0") && strcmp(state, "1"))
			return scxpol_err(EINVAL, "%s%s: '%s', not 0 or 1", root ? root : "", path,
					  state);
		if (r >= 0 && (state[0] == '1') != online)
			return 1;
		if (r < 0 && r != -ENOENT)
			return scxpol_err(-r, "%s%s: %s", root ? root : "", path, strerror(-r));
	}
	r = scxpol_read_file(root, "/sys/devices/system/cpu/present", list, sizeof(list));
	if (r < 0)
		return scxpol_err(-r, "%s/sys/devices/system/cpu/present: %s", root ? root : "",
				  strerror(-r));
	present = scxpol_cpuset_parse(list, SCXPOL_TOPO_MAX_CPUS);
	if (!present) {
		r = -errno;
		snprintf(list, sizeof(list), "%s", scxpol_last_error());
		return scxpol_err(-r, "%s/sys/devices/system/cpu/present: %s", root ? root : "",
				  list);
	}
	r = 0;
	while ((c = scxpol_cpuset_next(present, c)) >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/hotplug/state", c);
		if (scxpol_read_file(root, path, state, sizeof(state)) < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/hotplug/target", c);
		if (scxpol_read_file(root, path, target, sizeof(target)) >= 0 &&
		    strcmp(state, target)) {
			r = 1;
			break;
		}
	}
	scxpol_cpuset_free(present);
	return r;
}

/*
 * How long a restart waits for a hotplug event to complete. Taking a CPU
 * down goes on after ops.cpu_offline (its tasks are pushed off, then it
 * dies); unloading the policy while it does is what the callbacks avoid
 * (<scxpol/sched.bpf.h>). An event that starts after the wait ended and
 * before the detach completed can still overlap it.
 */
#define HOTPLUG_SETTLE_MS 10000
#define HOTPLUG_POLL_MS 20

/*
 * Wait until no CPU hotplug operation is under way
 * (scxpol_sched_hotplug_busy()) on two polls in a row, in which @rec (if
 * not NULL) stayed the same: no new event, and a copy whose stores were
 * all seen, whose CPU then got where it was going. Up to
 * HOTPLUG_SETTLE_MS, then a warning; false if a stop or the scheduler's
 * exit (if @rec: the policy's hotplug event is being waited for) came first.
 */
static bool hotplug_settle(struct scxpol_sched *s, struct scxpol_hotplug_record *rec)
{
	uint64_t end = now_ms() + HOTPLUG_SETTLE_MS;
	struct scxpol_hotplug_record prev = { 0 };
	bool quiet = false, warned = false;
	int r;

	if (rec)
		prev = *rec;
	for (;;) {
		wait_wake(s, HOTPLUG_POLL_MS);
		if (s->stop || (rec && scxpol_sched_exited(s)))
			return false;
		if (rec)
			scxpol_sched__read_hotplug(s, rec);
		r = scxpol_sched_hotplug_busy(s->sysfs_root, rec ? rec->cpu : -1,
					      rec && rec->online);
		if (r < 0 && !warned) {
			scxpol_log(SCXPOL_LOG_WARN, "%s: cannot tell whether a CPU hotplug "
				   "operation is under way: %s", s->name, scxpol_last_error());
			warned = true;
		}
		if (r > 0 || (rec && memcmp(rec, &prev, sizeof(prev))))
			quiet = false;
		else if (quiet)
			return true;
		else
			quiet = true;
		if (rec)
			prev = *rec;
		if (now_ms() >= end) {
			if (rec)
				scxpol_log(SCXPOL_LOG_WARN, "%s: cpu %d is not %s %d ms after "
					   "its hotplug event; going on", s->name, rec->cpu,
					   rec->online ? "online" : "offline", HOTPLUG_SETTLE_MS);
			else
				scxpol_log(SCXPOL_LOG_WARN, "%s: a CPU hotplug operation is still "
					   "under way after %d ms; going on", s->name,
					   HOTPLUG_SETTLE_MS);
			return true;
		}
	}
}

/*
 * Wait until a stop request, the scheduler's exit or a CPU hotplug event
 * the policy recorded (then, once it completed, *@hotplug says which);
 * run the periodic hook every interval and the modules' ticks.
 */
static int wait_attached(struct scxpol_sched *s, const struct scxpol_run_opts *ro,
			 struct scxpol_hotplug_record *hotplug)
{
	unsigned int interval = OPTS_GET(ro, interval_ms, 0) ?: 1000;
	scxpol_sched_hook periodic = OPTS_GET(ro, periodic, NULL);
	void *ctx = OPTS_GET(ro, ctx, NULL);
	uint64_t next = now_ms() + interval;
	/* Exit is polled more often than the hook runs: it ends the wait. */
	int poll_ms = interval < 100 ? (int)interval : 100;
	struct scxpol_hotplug_record hp;
	int i;

	memset(hotplug, 0, sizeof(*hotplug));
	for (i = 0; i < SCXPOL_MOD_NR; i++)
		if (scxpol_sched_modules[i]->attached)
			scxpol_sched_modules[i]->attached(s, s->mod[i], ro, now_ms());
	while (!s->stop) {
		uint64_t t;
		int r = 0;

		wait_wake(s, poll_ms);
		if (s->stop || scxpol_sched_exited(s))
			break;
		if (scxpol_sched__read_hotplug(s, &hp) && hp.events != s->hotplug_seen) {
			if (hotplug_settle(s, &hp))
				*hotplug = hp;
			break;
		}
		t = now_ms();
		for (i = 0; !r && i < SCXPOL_MOD_NR; i++)
			if (scxpol_sched_modules[i]->tick)
				r = scxpol_sched_modules[i]->tick(s, s->mod[i], t);
		if (r < 0)
			return r;
		if (periodic && t >= next) {
			next = t + interval;
			scxpol_err_clear();
			r = periodic(s, s->skel, ctx);
			if (r)
				return scxpol_sched__hook_failed(s, "periodic", r);
		}
	}
	return 0;
}

int scxpol_sched_run(struct scxpol_sched *s, const struct scxpol_run_opts *ro)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	struct sigaction old_int, old_term;
	sigset_t stop_sigs, old_mask;
	unsigned int max_restarts, quick = 0, delay;
	uint64_t attached_at, ended_at;
	bool logged = false, asked;
	int r = 0;

	scxpol_err_clear();
	if (!OPTS_VALID(ro, scxpol_run_opts))
		return -EINVAL;
	max_restarts = OPTS_GET(ro, max_restarts, 0);
	s->restart_refused = false;
	/* s->stop is not cleared here: a stop asked as the run starts must not be lost */
	atomic_store(&s->stop_sig, 0);
	atomic_store(&s->stop_pid, 0);
	running = s;
	/* neither interrupts the other's handler halfway */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* a caller may hold them from its attach on: one sent since is taken now */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &stop_sigs, &old_mask);

	for (;;) {
		struct scxpol_hotplug_record hp;
		struct scxpol_sched_exit ei;
		const char *why;
		char hp_why[64];

		/* stopped before an attach: none just to detach (the caller's is undone below) */
		if (s->stop && !s->ops_link)
			break;
		r = scxpol_sched_attach(s);
		if (r)
			break;
		attached_at = now_ms();
		r = wait_attached(s, ro, &hp);
		/* (what the detach takes under a slow host does not count) */
		ended_at = now_ms();
		if (!logged && atomic_load(&s->stop_sig)) {
			log_stop_signal(s);
			logged = true;
		}
		scxpol_sched_detach(s);
		if (r)
			break;
		if (scxpol_sched_exit_info(s, &ei)) {
			r = scxpol_err(EPROTO, "%s: detached without an exit record", s->name);
			break;
		}
		scxpol_log(SCXPOL_LOG_DEBUG, "%s: exit %s (%s)%s%s", s->name, ei.kind_name,
			   ei.reason, ei.msg[0] ? ": " : "", ei.msg);
		/*
		 * The policy's hotplug callbacks: the kernel left it loaded, the
		 * library restarts it (if it was the library's detach that ended it).
		 */
		hp.events = ei.kind == EXIT_KIND_UNREG ? hp.events : 0;
		why = ei.msg;
		if (hp.events) {
			snprintf(hp_why, sizeof(hp_why), "cpu %d went %s", hp.cpu,
				 hp.online ? "online" : "offline");
			why = hp_why;
		}
		asked = (ei.restart || hp.events) && !s->stop;
		s->restart_refused = asked && OPTS_GET(ro, no_restart, false);
		if (s->restart_refused)
			snprintf(s->refused_why, sizeof(s->refused_why), "%s asked for a restart: %s",
				 hp.events ? "a CPU hotplug" : "the kernel", why);
		if (asked && !s->restart_refused) {
			if (max_restarts && s->restarts >= max_restarts) {
				r = scxpol_err(ELOOP, "%s: %s restart #%u, over max_restarts (%u): %s",
					       s->name, hp.events ? "hotplug asked for" :
					       "kernel asked for", s->restarts + 1, max_restarts, why);
				break;
			}
			quick = ended_at - attached_at < RESTART_QUICK_MS ? quick + 1 : 0;
			delay = restart_delay(quick);
			if (delay)
				scxpol_log(SCXPOL_LOG_INFO, "%s: restarting (#%u) in %u ms (quick "
					   "restart %u in a row: asked within %u ms of the attach): %s",
					   s->name, s->restarts + 1, delay, quick, RESTART_QUICK_MS, why);
			else
				scxpol_log(SCXPOL_LOG_INFO, "%s: restarting (#%u): %s", s->name,
					   s->restarts + 1, why);
			/* a stop during the wait: no restart to count or reload */
			if (delay && backoff(s, delay))
				break;
			/* the new plan reads the topology: not halfway through an event */
			if (!hotplug_settle(s, NULL))
				break;
			s->restarts++;
			scxpol_sched__close_object(s);
			r = scxpol_sched__open_object(s);
			/* a stop during the open: no attach just to detach */
			if (r || s->stop)
				break;
			continue;
		}
		if (ei.kind >= 1024)
			r = scxpol_err(ECANCELED, "%s: scheduler stopped on error %s: %s%s%s", s->name,
				       ei.kind_name, ei.reason, ei.msg[0] ? ": " : "", ei.msg);
		break;
	}

	/* a signal during the detach or a restart ended the run too */
	if (!logged && atomic_load(&s->stop_sig))
		log_stop_signal(s);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	running = NULL;
	s->stop = 0; /* spent: a later run runs */
	return r;
}
