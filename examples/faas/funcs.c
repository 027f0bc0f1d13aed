// SPDX-License-Identifier: GPL-2.0
/* Function bodies (cpu, io, poll, mt) as forked processes in cgroups. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scxpol/match.h>

#include "funcs.h"

#define SAMPLE_US 20	 /* sample sched_getcpu() this often */
#define IO_BURST_US 1000 /* an io body computes at most this long at once */
#define POLL_SPINS 256	 /* flag checks between two clock reads */
#define MAX_MT_THREADS 4

static bool is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* Results of the compute loop land here so the compiler must compute them. */
static uint64_t work_sink;
/* The poll body's "event" flag: nothing sets it, its deadline stands in. */
static volatile int poll_flag;

void faas_cpuset_set(struct faas_cpuset *s, int cpu)
{
	uint64_t bit;

	if (cpu < 0 || cpu >= FAAS_MAX_CPUS)
		return;
	bit = 1ULL << (cpu % 64);
	/* read first: threads of an mt body share the set */
	if (!(__atomic_load_n(&s->bits[cpu / 64], __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(&s->bits[cpu / 64], bit, __ATOMIC_RELAXED);
}

int faas_cpuset_has(const struct faas_cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < FAAS_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned int faas_cpuset_count(const struct faas_cpuset *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAAS_MAX_CPUS / 64; i++)
		n += (unsigned int)__builtin_popcountll(s->bits[i]);
	return n;
}

static uint64_t ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t faas_now_ns(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

/*
 * The compute loop: a xorshift chain the compiler cannot shorten. One
 * copy, in one 128-byte block (never across a page), for the calibration
 * and the bodies alike: QEMU's TCG runs a loop that straddles a page
 * boundary many times slower, so an inlined copy placed differently
 * would not do the calibrated work in an emulated guest.
 */
__attribute__((noinline, aligned(128))) static uint64_t compute(uint64_t iters, uint64_t x)
{
	while (iters--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

int faas_calibrate(double *iters_per_us, char *err, size_t errlen)
{
	double best = 0;
	int run;

	for (run = 0; run < 5; run++) {
		uint64_t n = 1 << 16, t0, dt;

		/* grow until one run takes >= 10 ms of CPU time */
		for (;;) {
			t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
			__atomic_store_n(&work_sink, compute(n, n | 1), __ATOMIC_RELAXED);
			dt = ts_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
			if (dt >= 10000000 || n >= (1ULL << 40))
				break;
			n *= 2;
		}
		if (dt && (double)n * 1000.0 / (double)dt > best)
			best = (double)n * 1000.0 / (double)dt;
	}
	if (!(best > 0))
		return faas_errf(err, errlen, EIO, "calibration failed: the thread CPU clock did not advance");
	*iters_per_us = best;
	return 0;
}

int faas_body_check(const struct faas_body_cfg *cfg, char *err, size_t errlen)
{
	if (!(cfg->iters_per_us > 0))
		return faas_errf(err, errlen, EINVAL, "iterations per us %g: calibrate first",
				 cfg->iters_per_us);
	if (cfg->mt_threads < 2 || cfg->mt_threads > MAX_MT_THREADS)
		return faas_errf(err, errlen, EINVAL, "mt threads %u: want 2..%d", cfg->mt_threads,
				 MAX_MT_THREADS);
	if (cfg->io_sleep_ratio < 1 || cfg->io_sleep_ratio > 100)
		return faas_errf(err, errlen, EINVAL, "io sleep ratio %u: want 1..100",
				 cfg->io_sleep_ratio);
	return 0;
}

/* @us of work, sampling the CPU into @cpus as it goes. */
static void work_us(double us, double ipu, struct faas_cpuset *cpus)
{
	uint64_t left = (uint64_t)(us * ipu + 0.5), chunk = (uint64_t)(SAMPLE_US * ipu) + 1;
	uint64_t x = __atomic_load_n(&work_sink, __ATOMIC_RELAXED) | 1;

	faas_cpuset_set(cpus, sched_getcpu());
	while (left) {
		uint64_t n = left < chunk ? left : chunk;

		x = compute(n, x);
		left -= n;
		faas_cpuset_set(cpus, sched_getcpu());
	}
	__atomic_store_n(&work_sink, x, __ATOMIC_RELAXED);
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void body_io(uint64_t duration_us, const struct faas_body_cfg *cfg, struct faas_cpuset *cpus)
{
	double left = (double)duration_us / (1.0 + cfg->io_sleep_ratio);

	while (left > 0) {
		double burst = left < IO_BURST_US ? left : IO_BURST_US;

		work_us(burst, cfg->iters_per_us, cpus);
		left -= burst;
		sleep_us((uint64_t)(burst * cfg->io_sleep_ratio + 0.5));
	}
}

/*
 * Waits for an event that comes @duration_us after the start, whatever CPU
 * time it gets meanwhile (a reply to a request it sent): the CPU it burns
 * spinning is waste, which a scheduler that queues busy pollers behind
 * other work gives to that work; it ends once it runs after the event.
 */
static void body_poll(uint64_t start_ns, uint64_t duration_us, struct faas_cpuset *cpus)
{
	uint64_t until = start_ns + duration_us * 1000;
	int n;

	do {
		for (n = POLL_SPINS; n && !poll_flag; n--)
			;
		faas_cpuset_set(cpus, sched_getcpu());
	} while (!poll_flag && faas_now_ns() < until);
}

struct mt_arg {
	double us, ipu;
	struct faas_cpuset *cpus;
};

static void *mt_thread(void *arg)
{
	struct mt_arg *a = arg;

	work_us(a->us, a->ipu, a->cpus);
	return NULL;
}

static int body_mt(uint64_t duration_us, const struct faas_body_cfg *cfg, struct faas_cpuset *cpus)
{
	struct mt_arg a = { .us = (double)duration_us, .ipu = cfg->iters_per_us, .cpus = cpus };
	pthread_t th[MAX_MT_THREADS];
	unsigned int i, n;
	int r = 0;

	for (n = 0; n + 1 < cfg->mt_threads; n++) {
		r = pthread_create(&th[n], NULL, mt_thread, &a);
		if (r)
			break;
	}
	if (!r)
		mt_thread(&a);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return -r;
}

/* The "0::/path" line of /proc/self/cgroup, or "". */
static void read_cgroup(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[512];
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		n = strcspn(line + 3, "\n");
		if (n >= len)
			n = len - 1; /* truncated: cannot match any path the replay made */
		memcpy(buf, line + 3, n);
		buf[n] = '\0';
		break;
	}
	fclose(f);
}

void faas_sched_class(pid_t pid, char *buf, size_t len)
{
	char file[64], line[256];
	int policy, on_ext = 0;
	FILE *f;

	snprintf(file, sizeof(file), pid ? "/proc/%d/sched" : "/proc/self/sched", (int)pid);
	f = fopen(file, "re");
	while (f && fgets(line, sizeof(line), f))
		/* "ext.enabled                                  :                    1" */
		if (!strncmp(line, "ext.enabled", 11) && strchr(line, ':'))
			on_ext = atoi(strchr(line, ':') + 1) == 1;
	if (f)
		fclose(f);
	policy = sched_getscheduler(pid);
	snprintf(buf, len, "%s", on_ext ? "ext" : policy < 0 ? "?" : is_rt(policy) ? "rt" :
		 policy == SCHED_DEADLINE ? "dl" : "fair");
}

int faas_body_run(enum faas_kind kind, uint64_t duration_us, const struct faas_body_cfg *cfg,
		  struct faas_body_report *rep)
{
	int r = 0;

	/* (before its clock starts: reading it takes a moment) */
	faas_sched_class(0, rep->sched_class, sizeof(rep->sched_class));
	rep->start_ns = faas_now_ns();
	rep->first_cpu = sched_getcpu();
	memset(&rep->cpus, 0, sizeof(rep->cpus));
	faas_cpuset_set(&rep->cpus, rep->first_cpu);
	switch (kind) {
	case FAAS_KIND_CPU:
		work_us((double)duration_us, cfg->iters_per_us, &rep->cpus);
		break;
	case FAAS_KIND_IO:
		body_io(duration_us, cfg, &rep->cpus);
		break;
	case FAAS_KIND_POLL:
		body_poll(rep->start_ns, duration_us, &rep->cpus);
		break;
	case FAAS_KIND_MT:
		r = body_mt(duration_us, cfg, &rep->cpus);
		break;
	default:
		r = -EINVAL;
	}
	rep->end_ns = faas_now_ns();
	read_cgroup(rep->cgroup, sizeof(rep->cgroup));
	rep->status = -r;
	return r;
}

int faas_body_set_class(pid_t pid, bool ext, char *err, size_t errlen)
{
	struct sched_param sp = { .sched_priority = 0 };
	int policy = sched_getscheduler(pid);

	if (policy < 0)
		return faas_errf(err, errlen, errno, "body %d: sched_getscheduler: %s", (int)pid,
				 strerror(errno));
	if (ext && policy != FAAS_SCHED_EXT && sched_setscheduler(pid, FAAS_SCHED_EXT, &sp))
		return faas_errf(err, errlen, errno, "body %d: cannot set SCHED_EXT (%d): %s%s",
				 (int)pid, FAAS_SCHED_EXT, strerror(errno),
				 errno == EINVAL ? " (a kernel without sched_ext?)" : "");
	if (!ext && is_rt(policy) && sched_setscheduler(pid, SCHED_OTHER, &sp))
		return faas_errf(err, errlen, errno,
				 "body %d: cannot leave the real-time class: %s", (int)pid,
				 strerror(errno));
	return 0;
}

/* Close fds [@first, @last] (close_range() needs Linux 5.9). */
static void close_fds(unsigned int first, unsigned int last)
{
	unsigned int fd;

	if (first > last || !close_range(first, last, 0))
		return;
	for (fd = first; fd <= last && fd < 65536; fd++)
		close((int)fd);
}

/*
 * In a body: close every fd above stderr but @a and @b, so no body holds
 * another body's go pipe (closing it must cancel that body) or the reports'
 * read end.
 */
static void close_others(int a, int b)
{
	unsigned int lo = (unsigned int)(a < b ? a : b), hi = (unsigned int)(a < b ? b : a);

	if (lo > 3)
		close_fds(3, lo - 1);
	if (hi > lo + 1)
		close_fds(lo + 1 > 3 ? lo + 1 : 3, hi - 1);
	close_fds(hi + 1 > 3 ? hi + 1 : 3, ~0U);
}

/*
 * fork() into the cgroup directory @cg_fd (clone3 with CLONE_INTO_CGROUP),
 * or -1 with errno. The child is born there: moving it (cgroup.procs)
 * would take the global cgroup_threadgroup_rwsem for writing, which waits
 * for every task inside a fork or an exit to leave it, and on an
 * overloaded system such a task can wait for a CPU for a long time while
 * the control plane waits for it. Raw clone3 instead of glibc's fork: the
 * caller is single-threaded, so the child holds no lock of a thread that
 * is not there, and a body uses nothing tied to the cached thread id.
 */
static pid_t fork_into(int cg_fd)
{
	struct clone_args ca = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)cg_fd,
	};

	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

pid_t faas_body_spawn(uint64_t id, enum faas_kind kind, uint64_t duration_us,
		      const struct faas_body_cfg *cfg, const char *cgroup, int report_fd,
		      int *go_fd, char *err, size_t errlen)
{
	struct faas_body_report rep;
	struct sched_param rt = { .sched_priority = 0 };
	int go[2], r, cg_fd = -1, policy;
	bool move = false;
	ssize_t n;
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC))
		return faas_errf(err, errlen, errno, "invocation %llu: pipe: %s%s",
				 (unsigned long long)id, strerror(errno),
				 errno == EMFILE ? " (every body waiting for its release holds "
						   "one; raise the limit: ulimit -n)" : "");
	if (cgroup) {
		cg_fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cg_fd < 0) {
			r = errno;
			close(go[0]);
			close(go[1]);
			return faas_errf(err, errlen, r, "cannot open cgroup %s: %s", cgroup,
					 strerror(r));
		}
		pid = fork_into(cg_fd);
		/*
		 * before Linux 5.7: fork, then move. No clone3 (before 5.3, or a
		 * seccomp profile): ENOSYS; 5.3 to 5.6 refuse the cgroup field
		 * past the struct they know with E2BIG; EINVAL for the flag.
		 */
		move = pid < 0 && (errno == ENOSYS || errno == E2BIG || errno == EINVAL);
		r = errno;
		close(cg_fd); /* the child's copy goes with close_others() */
		errno = r;
	}
	if (!cgroup || move)
		pid = fork();
	if (pid < 0) {
		r = errno;
		close(go[0]);
		close(go[1]);
		return faas_errf(err, errlen, r, "invocation %llu: %s: %s", (unsigned long long)id,
				 cgroup && !move ? "clone3 into its cgroup" : "fork", strerror(r));
	}
	if (pid) {
		close(go[0]);
		*go_fd = go[1];
		if (move && (r = faas_cgroup_move(cgroup, pid, err, errlen))) {
			close(go[1]); /* it exits without running */
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				; /* not left a zombie by a signal */
			return r;
		}
		return pid;
	}

	/* child: nothing runs before the parent says go */
	/* the replay's handlers are not the body's */
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	close_others(go[0], report_fd);
	/* to come back after its work (see below); the parent takes it out */
	policy = sched_getscheduler(0);
	if (is_rt(policy) && sched_getparam(0, &rt))
		_exit(4);
	do
		n = read(go[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(3);
	close(go[0]);
	memset(&rep, 0, sizeof(rep));
	rep.id = id;
	r = faas_body_run(kind, duration_us, cfg, &rep);
	/*
	 * Its work is done: report and exit back in the real-time class. Both
	 * take locks the control plane's next fork or read waits for (the
	 * report pipe's mutex; the anon_vma roots, forked from the control
	 * plane, and the libraries' i_mmap locks, when its memory goes), and
	 * an overloaded system can keep a normal task holding one off the CPU
	 * for seconds. Best effort: only a delay if it fails.
	 */
	if (is_rt(policy))
		sched_setscheduler(0, policy, &rt);
	do
		n = write(report_fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	_exit(r || n != (ssize_t)sizeof(rep) ? 1 : 0);
}

int faas_cgroup_root_check(const char *what, const char *root, char *err, size_t errlen)
{
	const char *dir = root;
	char *copy = NULL;
	int r;

	/* the library's check of a cgroup2 directory (stat, then statfs) */
	r = scxpol_match_check(SCXPOL_MATCH_CGROUP, root);
	if (r == -ENOENT) {
		/* the replay creates it: then its parent must be one */
		copy = strdup(root);
		if (!copy)
			return faas_errf(err, errlen, ENOMEM, "out of memory");
		dir = dirname(copy);
		r = scxpol_match_check(SCXPOL_MATCH_CGROUP, dir);
		if (r)
			r = faas_errf(err, errlen, ENOENT, "%s '%s': no such directory, and its "
				      "parent '%s' is not a cgroup2 directory", what, root, dir);
	} else if (r == -EINVAL || r == -ENOTDIR) {
		r = faas_errf(err, errlen, -r, "%s '%s': not a cgroup2 directory", what, root);
	} else if (r) {
		r = faas_errf(err, errlen, -r, "%s '%s': %s", what, root, strerror(-r));
	}
	if (!r && access(dir, W_OK))
		r = faas_errf(err, errlen, errno, "%s '%s': cannot create cgroups in %s: %s", what,
			      root, dir, strerror(errno));
	free(copy);
	return r;
}

int faas_cgroup_create(const char *root, const char *name, char *path, size_t len,
		       uint64_t *id, char *err, size_t errlen)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	int mnt, r;

	if (snprintf(path, len, "%s/%s", root, name) >= (int)len)
		return faas_errf(err, errlen, ENAMETOOLONG, "cgroup path %s/%s is too long", root,
				 name);
	if (mkdir(path, 0755))
		return faas_errf(err, errlen, errno, "cannot create cgroup %s: %s", path,
				 strerror(errno));
	h.fh.handle_bytes = sizeof(uint64_t);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0) || h.fh.handle_bytes != sizeof(uint64_t)) {
		r = errno ? errno : EINVAL;
		rmdir(path);
		return faas_errf(err, errlen, r,
				 "cgroup %s: cannot read its id (is %s on cgroup v2?): %s", path,
				 root, strerror(r));
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

int faas_body_asleep(pid_t pid, char *err, size_t errlen)
{
	char file[64], buf[128];
	ssize_t n;
	int fd, r;

	snprintf(file, sizeof(file), "/proc/%d/wchan", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return faas_errf(err, errlen, errno, "cannot open %s: %s", file, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	r = errno;
	close(fd);
	if (n < 0)
		return faas_errf(err, errlen, r, "cannot read %s: %s", file, strerror(r));
	buf[n] = '\0';
	return n > 0 && strcmp(buf, "0") && strcmp(buf, "0\n");
}

int faas_cgroup_move(const char *path, pid_t pid, char *err, size_t errlen)
{
	char file[4096], num[32];
	int fd, n, r = 0;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return faas_errf(err, errlen, errno, "cannot open %s: %s", file, strerror(errno));
	n = snprintf(num, sizeof(num), "%d\n", (int)pid);
	if (write(fd, num, (size_t)n) != n)
		r = errno ? errno : EIO;
	close(fd);
	if (r)
		return faas_errf(err, errlen, r, "cannot move pid %d into %s: %s", (int)pid, path,
				 strerror(r));
	return 0;
}

int faas_cgroup_remove(const char *path, char *err, size_t errlen)
{
	int i;

	/* a reaped task can stay counted for a moment after it exits */
	for (i = 0; rmdir(path); i++) {
		if (errno != EBUSY || i == 200)
			return faas_errf(err, errlen, errno, "cannot remove cgroup %s: %s", path,
					 strerror(errno));
		sleep_us(1000);
	}
	return 0;
}
