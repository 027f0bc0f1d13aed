// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-workload's classifiers: comm names, cgroup placement and (--hint)
 * class and importance hints through libscxpol's hint client, each run at
 * the points of a process's, a thread's and a request's life below.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <scxpol/hint.h>

#include "workload.h"

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
		snprintf(err, len, "%s '%s': cannot name the thread: %s", wl_class_opt[cls],
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
			snprintf(err, len, "%s '%s': cannot create %s: %s", wl_side_opt[side],
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
		snprintf(err, len, "%s '%s': cannot open %s: %s", wl_side_opt[side], o->cgroup[side],
			 path, strerror(errno));
		return r;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	n = write(fd, pid, strlen(pid));
	if (n < 0) {
		r = -errno;
		snprintf(err, len, "%s '%s': cannot move process %s into it: %s", wl_side_opt[side],
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
int wl_process_init(const struct opts *o, enum wl_side side, char *err, size_t len)
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

void wl_process_exit(const struct opts *o)
{
	for_each_classifier(c, o) {
		if (c->process_exit)
			c->process_exit(o);
	}
}

/* Runs the classifiers' thread_exit when a thread set up by wl_thread_init() ends. */
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

/* Set up the calling thread's class; a failure stops the whole run. */
void wl_thread_init(const struct opts *o, struct shared *sh, enum wl_class cls,
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
			wl_setup_failed(sh, err);
	}
	atomic_fetch_add(&sh->ready, 1);
}

/* A request goes to @w (before it runs it). */
void wl_assign_hooks(struct worker *w)
{
	for_each_classifier(c, w->wl->o) {
		if (c->request_assign)
			c->request_assign(w);
	}
}

void wl_request_hooks(struct worker *w, bool begin)
{
	for_each_classifier(c, w->wl->o) {
		if (begin && c->request_begin)
			c->request_begin(w);
		else if (!begin && c->request_end)
			c->request_end(w);
	}
}

int wl_cgroup2_check(const struct opts *o)
{
	struct statfs sfs;

	if (!cgroup_enabled(o))
		return 0;
	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "scxpol-workload: %s: %s is not a cgroup2 mount\n",
			o->cgroup[WL_CRITICAL] ? wl_side_opt[WL_CRITICAL] : wl_side_opt[WL_BACKGROUND],
			CGROUP_ROOT);
		return -ENOENT;
	}
	return 0;
}
