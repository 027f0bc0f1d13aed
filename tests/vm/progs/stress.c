// SPDX-License-Identifier: GPL-2.0
/*
 * stress: stress workloads for VM tests; every worker reports what it did.
 *
 *   stress hogs SECS       4 x N threads burning CPU
 *   stress forks SECS      2 x N processes, each forking short-lived children
 *                          one after the other and reaping them
 *   stress affinity SECS   N threads moving themselves to random non-empty
 *                          subsets of the CPUs (sched_setaffinity), and one
 *                          thread pinned to each CPU, burning CPU
 *   stress mix SECS        all at once: N hogs, N/2 forkers, N/2 movers, N pinned
 *                          (3 x N workers: under emulation more would make a
 *                          loader's restart the bulk of a hotplug test)
 *
 * N is the number of CPUs in stress's affinity mask at start (the online
 * CPUs). Every worker runs until the deadline, then finishes. stress prints
 * "started workers=W pids=PID,PID..." (this process and its forkers) once
 * all are running, then at the end one line per group:
 *
 *   hogs workers=W finished=F iters=TOTAL min=M max=X
 *   forks workers=W finished=F children=TOTAL min=M max=X failed=C retries=R
 *   affinity workers=W finished=F changes=TOTAL min=M max=X einval=E violations=V transient=T
 *   pinned workers=W finished=F iters=TOTAL min=M max=X violations=V transient=T
 *
 * min/max are per worker. failed: children that did not exit 0; retries:
 * fork() calls refused for lack of resources (retried); einval: moves
 * refused because no CPU of the subset was online (CPU hotplug); violations:
 * times a thread kept running on a CPU outside its affinity mask (the mask
 * itself, not sched_getaffinity()'s active part of it) for 100 ms while
 * the mask held an active CPU; transient: times it was outside only until
 * the kernel moved it (the kernel narrows masks itself on CPU hotplug).
 *
 * SIGUSR1 prints "snapshot n=K t=SECS min_delta=D stalled=S runnable=R
 * stranded=X ext=IN/ALL [first=GROUP/I]": D is the least progress any worker
 * made since the previous snapshot (or the start), S how many workers made
 * none (the first of them is GROUP/I); R how many workers are runnable, X how
 * many of those stayed on an offline CPU for 1 s (/proc/TID/stat field 39);
 * IN of ALL workers are in the ext class (/proc/TID/sched). SIGUSR2 moves the
 * deadline to now.
 *
 * Exit status 0 only if every worker finished within the grace period after
 * the deadline, made progress (a starved worker shows zero), no child failed
 * and no thread ran outside its mask; otherwise 1, with the reasons on
 * stderr. Threads and processes are named stress-hog, stress-fork,
 * stress-child, stress-aff and stress-pin (as ps and the kernel log show).
 */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum kind { HOG, FORKER, MOVER, PINNED, NR_KINDS };

static const char *const group_name[NR_KINDS] = { "hogs", "forks", "affinity", "pinned" };
static const char *const unit_name[NR_KINDS] = { "iters", "children", "changes", "iters" };
static const char *const comm_name[NR_KINDS] = { "stress-hog", "stress-fork", "stress-aff",
						 "stress-pin" };

/* One per worker, in memory shared with the forker processes (which write
 * only their own counters). */
struct worker {
	_Atomic uint64_t done;		/* iterations, children or moves */
	_Atomic uint64_t failed;	/* forkers: children that did not exit 0 */
	_Atomic uint64_t retries;	/* forkers: fork() refused for resources */
	_Atomic uint64_t einval;	/* movers: no CPU of the subset online */
	_Atomic uint64_t violations;	/* movers, pinned: ran outside the mask */
	_Atomic uint64_t transient;	/* movers, pinned: briefly outside it */
	_Atomic int finished;
	_Atomic int tid;		/* the worker's thread or process */
	enum kind kind;
	int cpu;			/* pinned: its CPU */
} __attribute__((aligned(64)));

/* The main process's own view of each worker. */
struct handle {
	pid_t pid;			/* forkers: the process, 0 once reaped */
	pthread_t thread;
	uint64_t snap;			/* done at the previous snapshot */
};

struct shared {
	_Atomic uint64_t end_ns;
	struct worker w[];
};

static struct shared *sh;
static struct handle *hd;
static int nr_workers;
static cpu_set_t base;
static int base_cpus[CPU_SETSIZE], nr_base;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool running(void)
{
	return now_ns() < atomic_load_explicit(&sh->end_ns, memory_order_relaxed);
}

static void burn(int loops)
{
	volatile uint64_t x = 0;

	for (int i = 0; i < loops; i++)
		x += (uint64_t)i;
}

static void name_self(const char *comm)
{
	prctl(PR_SET_NAME, comm, 0, 0, 0);
}

/* A worker starts: name it, and publish its task id for the snapshots. */
static void worker_start(struct worker *w)
{
	name_self(comm_name[w->kind]);
	atomic_store(&w->tid, (int)gettid());
}

static void bump(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* Read up to @len - 1 bytes of @path into @buf; false if it cannot. */
static bool read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

/* Whether @cpu is in CPU list @list ("0-2,5"). */
static bool in_cpulist(const char *list, int cpu)
{
	char *end;

	while (*list >= '0' && *list <= '9') {
		long lo = strtol(list, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*end != ',')
			break;
		list = end + 1;
	}
	return false;
}

/*
 * Whether this thread runs outside its affinity mask; *cpu is where, and
 * @allowed (of @len bytes) the mask as the kernel shows it when it is outside.
 * sched_getaffinity() leaves out the CPUs not active, and a CPU going offline
 * stops being active well before the kernel moves its tasks off (under
 * emulation, for longer than the 100 ms check_placement() allows); so a CPU
 * outside that answer is checked against the mask itself, which
 * /proc/thread-self/status shows as Cpus_allowed_list.
 */
static bool outside_mask(struct worker *w, int *cpu, char *allowed, size_t len)
{
	char buf[4096], *list;
	cpu_set_t cur;

	*cpu = sched_getcpu();
	if (sched_getaffinity(0, sizeof(cur), &cur)) {
		fprintf(stderr, "stress: %s: sched_getaffinity: %s\n", comm_name[w->kind],
			strerror(errno));
		exit(1);
	}
	if (*cpu >= 0 && CPU_ISSET(*cpu, &cur))
		return false;
	/*
	 * No CPU of the mask active: a setaffinity() that raced with the
	 * deactivation of the mask's CPUs returned 0 but could not move the
	 * thread (__migrate_task() refuses an inactive CPU), and no scheduler
	 * can place it inside the mask until one is active again.
	 */
	if (!CPU_COUNT(&cur))
		return false;
	if (!read_text("/proc/thread-self/status", buf, sizeof(buf)) ||
	    !(list = strstr(buf, "\nCpus_allowed_list:"))) {
		fprintf(stderr, "stress: %s: no Cpus_allowed_list in /proc/thread-self/status\n",
			comm_name[w->kind]);
		exit(1);
	}
	list += strlen("\nCpus_allowed_list:");
	list += strspn(list, " \t");
	snprintf(allowed, len, "%.*s", (int)strcspn(list, "\n"), list);
	return *cpu < 0 || !in_cpulist(list, *cpu);
}

/*
 * The CPU this thread runs on must be in its affinity mask. The kernel may
 * narrow the mask while the thread runs (cpuset on CPU hotplug; a mover's own
 * sched_setaffinity() returns only once it moved): the thread is then moved
 * within moments. Outside the mask for 100 ms of running is a violation;
 * back inside before that, a transient.
 */
static void check_placement(struct worker *w)
{
	uint64_t until;
	char first_allowed[256], allowed[256];
	int cpu, first;

	if (!outside_mask(w, &first, first_allowed, sizeof(first_allowed)))
		return;
	until = now_ns() + 100000000ull;
	while (now_ns() < until) {
		if (!outside_mask(w, &cpu, allowed, sizeof(allowed))) {
			bump(&w->transient);
			return;
		}
	}
	/* the masks say whether the thread's own setaffinity or the kernel (hotplug) moved it */
	if (!atomic_fetch_add(&w->violations, 1))
		fprintf(stderr, "stress: %s ran on CPU %d, outside its affinity mask, for 100 ms "
			"(first seen on CPU %d; Cpus_allowed_list then '%s', at the end '%s')\n",
			comm_name[w->kind], cpu, first, first_allowed, allowed);
}

static void *hog(void *arg)
{
	struct worker *w = arg;

	worker_start(w);
	while (running()) {
		burn(10000);
		bump(&w->done);
		if (w->kind == PINNED)
			check_placement(w);
	}
	atomic_store(&w->finished, 1);
	return NULL;
}

/* xorshift64*: a per-thread stream for the random subsets */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void *mover(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = now_ns() ^ ((uint64_t)(w - sh->w) << 32) ^ 0x9e3779b97f4a7c15ull;
	cpu_set_t set;

	worker_start(w);
	while (running()) {
		CPU_ZERO(&set);
		for (int i = 0; i < nr_base; i++)
			if (rnd(&seed) & 1)
				CPU_SET(base_cpus[i], &set);
		if (!CPU_COUNT(&set))
			CPU_SET(base_cpus[rnd(&seed) % (uint64_t)nr_base], &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			if (errno != EINVAL) {
				fprintf(stderr, "stress: sched_setaffinity: %s\n", strerror(errno));
				exit(1);
			}
			bump(&w->einval);
			continue;
		}
		bump(&w->done);
		burn(2000);
		check_placement(w);
	}
	atomic_store(&w->finished, 1);
	return NULL;
}

/* A forker process: fork a child, let it burn a little and exit, reap it. */
static void forker(struct worker *w)
{
	const struct timespec backoff = { 0, 1000000 };

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	worker_start(w);
	while (running()) {
		pid_t c = fork();
		int st;

		if (c == 0) {
			name_self("stress-child");
			burn(1000);
			_exit(0);
		}
		if (c < 0) {
			if (errno != EAGAIN && errno != ENOMEM) {
				fprintf(stderr, "stress: fork: %s\n", strerror(errno));
				_exit(1);
			}
			bump(&w->retries);
			nanosleep(&backoff, NULL);
			continue;
		}
		while (waitpid(c, &st, 0) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "stress: waitpid %d: %s\n", c, strerror(errno));
				_exit(1);
			}
		}
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			bump(&w->done);
		else
			bump(&w->failed);
	}
	atomic_store(&w->finished, 1);
	_exit(0);
}

/* State letter and CPU (fields 3 and 39 of /proc/TID/stat) of task @tid. */
static bool task_state(int tid, char *state, int *cpu)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	if (!read_text(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')) || !p[1])
		return false;
	p += 2;
	*state = *p;
	for (int field = 3; field < 39; field++) {
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
	*cpu = atoi(p);
	return true;
}

static bool cpu_online(int cpu)
{
	char path[64], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* no online file: a CPU that cannot go offline (CPU 0) */
	return !read_text(path, buf, sizeof(buf)) || buf[0] == '1';
}

/* Whether task @tid is in the ext class (ext.enabled in /proc/TID/sched):
 * 1 or 0; -1 if the kernel does not say. */
static int task_in_ext(int tid)
{
	char path[64], buf[8192], *p;

	snprintf(path, sizeof(path), "/proc/%d/sched", tid);
	if (!read_text(path, buf, sizeof(buf)) || !(p = strstr(buf, "\next.enabled ")))
		return -1;
	p = strchr(p, ':');
	return p ? atoi(p + 1) != 0 : -1;
}

/* Runnable on an offline CPU. A waking task shows R with its old CPU for an
 * instant: only one that stays so for 1 s counts. */
static bool stranded(int tid)
{
	const struct timespec step = { 0, 200000000 };
	char st;
	int cpu;

	for (int i = 0; i < 5; i++) {
		if (!task_state(tid, &st, &cpu) || st != 'R' || cpu_online(cpu))
			return false;
		nanosleep(&step, NULL);
	}
	return true;
}

static void snapshot(unsigned int n, uint64_t start)
{
	int stalled = 0, first = -1, runnable = 0, nr_stranded = 0, ext = 0, ext_known = 0;
	uint64_t min = UINT64_MAX;

	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];
		uint64_t d = atomic_load(&w->done), delta = d - hd[i].snap;
		int tid = atomic_load(&w->tid), in, cpu;
		char st;

		hd[i].snap = d;
		if (delta < min)
			min = delta;
		if (!delta && !stalled++)
			first = i;
		if (tid > 0 && task_state(tid, &st, &cpu) && st == 'R') {
			runnable++;
			if (!cpu_online(cpu) && stranded(tid) && !nr_stranded++)
				fprintf(stderr, "stress: %s task %d runnable on offline CPU %d for 1 s\n",
					comm_name[w->kind], tid, cpu);
		}
		in = tid > 0 ? task_in_ext(tid) : -1;
		if (in >= 0) {
			ext_known++;
			ext += in;
		}
	}
	printf("snapshot n=%u t=%.1f min_delta=%llu stalled=%d runnable=%d stranded=%d ext=%d/%d",
	       n, (double)(now_ns() - start) / 1e9, (unsigned long long)min, stalled, runnable,
	       nr_stranded, ext, ext_known);
	if (first >= 0) {
		int idx = 0;

		for (int i = 0; i < first; i++)
			idx += sh->w[i].kind == sh->w[first].kind;
		printf(" first=%s/%d", group_name[sh->w[first].kind], idx);
	}
	printf("\n");
	fflush(stdout);
}

/* Reaps the forkers that exited; true once every worker finished. */
static bool all_finished(void)
{
	bool all = true;

	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];
		int st;

		if (w->kind == FORKER && hd[i].pid > 0 &&
		    waitpid(hd[i].pid, &st, WNOHANG) == hd[i].pid) {
			hd[i].pid = 0;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				fprintf(stderr, "stress: forker %d exited with status 0x%x\n", i, st);
		}
		if (!atomic_load(&w->finished) || hd[i].pid > 0)
			all = false;
	}
	return all;
}

/* One line per group; returns the number of problems found (and printed). */
static int report(enum kind k)
{
	uint64_t total = 0, min = UINT64_MAX, max = 0, failed = 0, retries = 0, einval = 0,
		 violations = 0, transient = 0;
	int workers = 0, finished = 0, bad = 0, idx = 0;

	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];
		uint64_t d;

		if (w->kind != k)
			continue;
		d = atomic_load(&w->done);
		workers++;
		if (atomic_load(&w->finished) && !hd[i].pid) {
			finished++;
		} else {
			fprintf(stderr, "stress: %s worker %d did not finish (%s=%llu)\n",
				group_name[k], idx, unit_name[k], (unsigned long long)d);
			bad++;
		}
		if (!d) {
			fprintf(stderr, "stress: %s worker %d made no progress\n", group_name[k], idx);
			bad++;
		}
		total += d;
		min = d < min ? d : min;
		max = d > max ? d : max;
		failed += atomic_load(&w->failed);
		retries += atomic_load(&w->retries);
		einval += atomic_load(&w->einval);
		violations += atomic_load(&w->violations);
		transient += atomic_load(&w->transient);
		idx++;
	}
	if (!workers)
		return 0;
	printf("%s workers=%d finished=%d %s=%llu min=%llu max=%llu", group_name[k], workers,
	       finished, unit_name[k], (unsigned long long)total, (unsigned long long)min,
	       (unsigned long long)max);
	if (k == FORKER)
		printf(" failed=%llu retries=%llu", (unsigned long long)failed,
		       (unsigned long long)retries);
	if (k == MOVER)
		printf(" einval=%llu", (unsigned long long)einval);
	if (k == MOVER || k == PINNED)
		printf(" violations=%llu transient=%llu", (unsigned long long)violations,
		       (unsigned long long)transient);
	printf("\n");
	if (failed) {
		fprintf(stderr, "stress: %llu children did not exit 0\n", (unsigned long long)failed);
		bad++;
	}
	if (violations) {
		fprintf(stderr, "stress: %s ran outside their affinity mask %llu times\n",
			group_name[k], (unsigned long long)violations);
		bad++;
	}
	return bad;
}

static void usage(void)
{
	fprintf(stderr, "usage: stress hogs|forks|affinity|mix SECS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int count[NR_KINDS] = { 0 };
	uint64_t start, grace_ns;
	unsigned int snaps = 0;
	pthread_attr_t attr;
	sigset_t sigs;
	double secs;
	char *end;
	int n, bad = 0;

	if (argc != 3)
		usage();
	errno = 0;
	secs = strtod(argv[2], &end);
	if (errno || *end || end == argv[2] || !(secs > 0) || secs > 86400) {
		fprintf(stderr, "stress: SECS '%s' is not a number of seconds in (0, 86400]\n",
			argv[2]);
		return 2;
	}
	/* a test that dies (or times out) must not leave the load behind */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (sched_getaffinity(0, sizeof(base), &base)) {
		fprintf(stderr, "stress: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &base))
			base_cpus[nr_base++] = c;
	n = nr_base;
	if (!strcmp(argv[1], "hogs")) {
		count[HOG] = 4 * n;
	} else if (!strcmp(argv[1], "forks")) {
		count[FORKER] = 2 * n;
	} else if (!strcmp(argv[1], "affinity")) {
		count[MOVER] = n;
		count[PINNED] = n;
	} else if (!strcmp(argv[1], "mix")) {
		count[HOG] = n;
		count[FORKER] = (n + 1) / 2;
		count[MOVER] = (n + 1) / 2;
		count[PINNED] = n;
	} else {
		fprintf(stderr, "stress: unknown workload '%s'\n", argv[1]);
		usage();
	}
	for (int k = 0; k < NR_KINDS; k++)
		nr_workers += count[k];

	sh = mmap(NULL, sizeof(*sh) + (size_t)nr_workers * sizeof(struct worker),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	hd = calloc((size_t)nr_workers, sizeof(*hd));
	if (sh == MAP_FAILED || !hd) {
		fprintf(stderr, "stress: out of memory for %d workers\n", nr_workers);
		return 1;
	}
	for (int k = 0, i = 0; k < NR_KINDS; k++) {
		for (int j = 0; j < count[k]; j++, i++) {
			sh->w[i].kind = (enum kind)k;
			sh->w[i].cpu = base_cpus[j % nr_base];
		}
	}
	start = now_ns();
	atomic_store(&sh->end_ns, start + (uint64_t)(secs * 1e9));
	/* a starved worker needs long to notice the deadline; a healthy one
	 * finishes within a slice or a child's lifetime */
	grace_ns = (uint64_t)((10 + secs / 2) * 1e9);

	/* the signals are for the main thread alone; it waits for them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	fflush(stdout);

	/* forkers first, while this process has a single thread */
	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];

		if (w->kind != FORKER)
			continue;
		hd[i].pid = fork();
		if (hd[i].pid < 0) {
			fprintf(stderr, "stress: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!hd[i].pid)
			forker(w);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];
		cpu_set_t one;
		int r;

		if (w->kind == FORKER)
			continue;
		if (w->kind == PINNED) {
			CPU_ZERO(&one);
			CPU_SET(w->cpu, &one);
			pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		} else {
			pthread_attr_setaffinity_np(&attr, sizeof(base), &base);
		}
		r = pthread_create(&hd[i].thread, &attr, w->kind == MOVER ? mover : hog, w);
		if (r) {
			fprintf(stderr, "stress: pthread_create (%s): %s\n", comm_name[w->kind],
				strerror(r));
			return 1;
		}
	}
	pthread_attr_destroy(&attr);
	printf("started workers=%d pids=%d", nr_workers, getpid());
	for (int i = 0; i < nr_workers; i++)
		if (hd[i].pid > 0)
			printf(",%d", hd[i].pid);
	printf("\n");
	fflush(stdout);

	for (;;) {
		uint64_t t = now_ns(), e = atomic_load(&sh->end_ns);
		struct timespec ts = { 0, 20000000 };
		int sig;

		if (t >= e && (all_finished() || t >= e + grace_ns))
			break;
		sig = sigtimedwait(&sigs, NULL, &ts);
		if (sig == SIGUSR1)
			snapshot(++snaps, start);
		else if (sig == SIGUSR2 && now_ns() < e)
			atomic_store(&sh->end_ns, now_ns());
	}

	all_finished();	/* reap forkers that exited since the last look */
	for (int k = 0; k < NR_KINDS; k++)
		bad += report((enum kind)k);
	fflush(stdout);
	for (int i = 0; i < nr_workers; i++) {
		struct worker *w = &sh->w[i];

		if (hd[i].pid > 0) {
			kill(hd[i].pid, SIGKILL);
			waitpid(hd[i].pid, NULL, 0);
		} else if (w->kind != FORKER && atomic_load(&w->finished)) {
			pthread_join(hd[i].thread, NULL);
		}
	}
	return bad ? 1 : 0;
}
