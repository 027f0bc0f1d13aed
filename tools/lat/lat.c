// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-lat: per-group run-queue delay, run bursts and preemptions, traced
 * from the scheduler tracepoints (lat.bpf.c). Scheduler-independent: it
 * measures EEVDF and any sched_ext policy the same way.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include <scxpol/cli.h>
#include <scxpol/skel.h>

#include "hist.h"
#include "lat.h"
#include "lat.bpf.skel.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
/* the initial PID namespace's inode number, fixed (the kernel's proc_ns.h) */
#define PROC_PID_INIT_INO 0xEFFFFFFCU
#define MAX_PIDS 1024

struct opts {
	enum lat_group_by by;
	unsigned int comm_len;
	const char *filter_comm;
	char filter_cgroup[PATH_MAX]; /* below CGROUP_ROOT, starting with '/' */
	__u32 pids[MAX_PIDS];
	unsigned int nr_pids;
	double duration;              /* 0: until a signal */
	unsigned int max_groups;
	bool json, verbose, verifier_stats, load_only;
};

struct group {
	struct lat_key key;
	char name[PATH_MAX];
	struct lat_group g;
	struct lat_hist rq; /* wake + requeue */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scxpol-lat [--by cgroup|comm|comm:N] [--filter-comm PREFIX]\n"
		"                  [--filter-cgroup PATH] [--pid PID[,PID...]]\n"
		"                  [--duration SECS] [--json] [--max-groups N] [-v]\n"
		"                  [--verifier-stats] [--load-only]\n"
		"Run-queue delay (runnable -> running), run bursts and preemptions per group,\n"
		"from sched_waking/sched_wakeup/sched_switch; works under any scheduler.\n"
		"Wakeups are also split by their target CPU: onto a CPU running its idle\n"
		"task (IDLE%%, and that delay's p50/p99: no queueing behind other tasks,\n"
		"only idle exit, IPI and, in an emulator, the wait for that vCPU), onto\n"
		"another CPU than the waker's (REMOTE%%, which needs an IPI, and the p99 of\n"
		"those and of the local ones), and activated by the target from\n"
		"an IPI (QUEUED%%: the kernel's wake list; the wake delay starts after that\n"
		"IPI; JSON \"waking\" starts at sched_waking and includes it).\n"
		"  --by cgroup|comm|comm:N  group by cgroup (v2), by comm, or by the first N\n"
		"                           characters of comm (default comm)\n"
		"  --filter-comm PREFIX     only tasks whose comm starts with PREFIX\n"
		"  --filter-cgroup PATH     only tasks in cgroup PATH (under " CGROUP_ROOT ")\n"
		"                           or its descendants\n"
		"  --pid PID[,PID...]       only these threads, or processes (all their threads)\n"
		"  --duration SECS          stop after SECS (default: at SIGINT or SIGTERM)\n"
		"  --json                   print one JSON object instead of the table\n"
		"  --max-groups N           size of the group table (default 256)\n"
		"  -v                       libbpf's debug messages\n"
		"  --verifier-stats         print each program's verified instructions\n"
		"  --load-only              load through the verifier, then exit\n"
		"Exit status: 0, 1 on an error (also a --pid or --filter-cgroup with nothing\n"
		"to trace), 2 for bad usage.\n");
}

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int parse_by(const char *arg, struct opts *o)
{
	unsigned long long n;

	if (!strcmp(arg, "cgroup")) {
		o->by = LAT_BY_CGROUP;
		return 0;
	}
	if (!strcmp(arg, "comm")) {
		o->by = LAT_BY_COMM;
		o->comm_len = LAT_COMM_LEN;
		return 0;
	}
	if (!strncmp(arg, "comm:", 5) &&
	    !scxpol_cli_parse_uint("--by", arg + 5, 1, LAT_COMM_LEN - 1, &n)) {
		o->by = LAT_BY_COMM;
		o->comm_len = (unsigned int)n;
		return 0;
	}
	fprintf(stderr, "scxpol-lat: --by '%s': want cgroup, comm or comm:N (N = 1..%d)\n",
		arg, LAT_COMM_LEN - 1);
	return -EINVAL;
}

/*
 * 0 if --pid @id has a task left to trace: the thread @id, or a thread of
 * process @id; -ENOENT: no such id; -ESRCH: it exited (a zombie, not reaped
 * yet); another -errno: cannot tell. A process whose main thread exited
 * while its other threads run is a zombie with threads left.
 */
static int pid_state(__u32 id)
{
	char path[40], line[256], state = 0;
	unsigned long tgid = 0, threads = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", id);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &state);
		else if (!strncmp(line, "Tgid:", 5))
			tgid = strtoul(line + 5, NULL, 10);
		else if (!strncmp(line, "Threads:", 8))
			threads = strtoul(line + 8, NULL, 10);
	}
	fclose(f);
	if (state != 'Z' && state != 'X')
		return 0;
	return tgid == id && threads > 1 ? 0 : -ESRCH;
}

/*
 * @id has nothing to trace: say so, naming it; else a typo or a process
 * already gone would trace nothing, and exit 0.
 */
static bool pid_missing(const char *arg, __u32 id)
{
	int r = pid_state(id);

	if (!r)
		return false;
	if (r == -ENOENT)
		fprintf(stderr, "scxpol-lat: --pid '%s': no process or thread %u\n", arg, id);
	else if (r == -ESRCH)
		fprintf(stderr, "scxpol-lat: --pid '%s': %u has exited (a zombie)\n", arg, id);
	else
		fprintf(stderr, "scxpol-lat: --pid '%s': cannot check /proc/%u: %s\n", arg, id,
			strerror(-r));
	return true;
}

/*
 * The BPF side compares the kernel's ids (those of the initial PID
 * namespace); /proc's pid 1 is the init of the namespace /proc shows: if
 * that is another one, the ids given are not those, and would select
 * other tasks or none. Unreadable (no ptrace access to pid 1): assume it is.
 */
static bool pid_ns_foreign(void)
{
	struct stat st;

	if (stat("/proc/1/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO)
		return false;
	fprintf(stderr, "scxpol-lat: --pid: /proc shows a PID namespace other than the "
		"initial one, whose ids the filter compares; run in the initial one\n");
	return true;
}

/*
 * --pid: ids separated by commas (scxpol_cli_parse_uint_list()), checked
 * to be live processes or threads of this PID namespace.
 */
static int parse_pids(const char *arg, struct opts *o)
{
	unsigned long long v[MAX_PIDS];
	int n, i;

	n = scxpol_cli_parse_uint_list("--pid", arg, ',', 1, INT_MAX, v,
				       MAX_PIDS - o->nr_pids);
	if (n == -E2BIG) {
		fprintf(stderr, "scxpol-lat: --pid: more than %d ids in all\n", MAX_PIDS);
		return n;
	}
	if (n < 0) {
		fprintf(stderr, "scxpol-lat: %s\n", scxpol_last_error());
		return n;
	}
	/* after the syntax of every id: a bad one is reported first */
	if (pid_ns_foreign())
		return -ESRCH;
	for (i = 0; i < n; i++) {
		if (pid_missing(arg, (__u32)v[i]))
			return -ESRCH;
		o->pids[o->nr_pids++] = (__u32)v[i];
	}
	return 0;
}

/*
 * --filter-cgroup: accept "/a/b", "a/b" or "/sys/fs/cgroup/a/b", stored as
 * "/a/b" (or "/" for the root): empty parts and a trailing '/' are dropped,
 * '.' and '..' refused, so that its depth (the least level of the filter's
 * cgroup) is the number of its parts.
 */
static int parse_cgroup(const char *arg, struct opts *o)
{
	const char *rel = arg, *q;
	size_t len = 0, n;

	if (!strncmp(rel, CGROUP_ROOT, strlen(CGROUP_ROOT)) &&
	    (!rel[strlen(CGROUP_ROOT)] || rel[strlen(CGROUP_ROOT)] == '/'))
		rel += strlen(CGROUP_ROOT);
	for (q = rel; *q; q += n) {
		while (*q == '/')
			q++;
		n = strcspn(q, "/");
		if (!n)
			break;
		if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.')) {
			fprintf(stderr, "scxpol-lat: --filter-cgroup '%s': '.' and '..' are not "
				"allowed\n", arg);
			return -EINVAL;
		}
		if (len + 1 + n >= sizeof(o->filter_cgroup)) {
			fprintf(stderr, "scxpol-lat: --filter-cgroup '%s': path too long\n", arg);
			return -ENAMETOOLONG;
		}
		o->filter_cgroup[len++] = '/';
		memcpy(o->filter_cgroup + len, q, n);
		len += n;
	}
	if (!len)
		o->filter_cgroup[len++] = '/';
	o->filter_cgroup[len] = '\0';
	return 0;
}

/*
 * Id (inode) and depth of the cgroup at @path below CGROUP_ROOT. The depth
 * is its level only if CGROUP_ROOT is the real root: in a cgroup namespace
 * it is less, so the BPF side takes it as the least level.
 */
static int cgroup_lookup(const char *path, __u64 *id, int *level)
{
	char full[PATH_MAX + sizeof(CGROUP_ROOT)];
	struct statfs sfs;
	struct stat st;
	const char *p;

	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "scxpol-lat: --filter-cgroup: %s is not a cgroup2 mount\n",
			CGROUP_ROOT);
		return -ENOENT;
	}
	snprintf(full, sizeof(full), "%s%s", CGROUP_ROOT, strcmp(path, "/") ? path : "");
	if (stat(full, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "scxpol-lat: --filter-cgroup '%s': %s: %s\n", path, full,
			errno ? strerror(errno) : "not a directory");
		return -ENOENT;
	}
	*id = st.st_ino;
	/* parse_cgroup() left one '/' before each part */
	*level = 0;
	for (p = path; *p; p++)
		if (*p == '/' && p[1])
			(*level)++;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "filter-comm", required_argument, NULL, 'c' },
		{ "filter-cgroup", required_argument, NULL, 'g' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-groups", required_argument, NULL, 'm' },
		{ "verifier-stats", no_argument, NULL, 'V' },
		{ "load-only", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long n;
	int c, r;

	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			r = parse_by(optarg, o);
			if (r)
				return r;
			break;
		case 'c':
			if (!optarg[0] || strlen(optarg) >= LAT_COMM_LEN) {
				fprintf(stderr, "scxpol-lat: --filter-comm '%s': want 1..%d characters "
					"(a comm is at most %d)\n", optarg, LAT_COMM_LEN - 1,
					LAT_COMM_LEN - 1);
				return -EINVAL;
			}
			o->filter_comm = optarg;
			break;
		case 'g':
			r = parse_cgroup(optarg, o);
			if (r)
				return r;
			break;
		case 'p':
			r = parse_pids(optarg, o);
			if (r)
				return r;
			break;
		case 'd':
			if (scxpol_cli_parse_double("--duration", optarg, 0, 1e6, &o->duration)) {
				fprintf(stderr, "scxpol-lat: %s\n", scxpol_last_error());
				return -EINVAL;
			}
			break;
		case 'j':
			o->json = true;
			break;
		case 'm':
			if (scxpol_cli_parse_uint("--max-groups", optarg, 1, 65536, &n)) {
				fprintf(stderr, "scxpol-lat: %s\n", scxpol_last_error());
				return -EINVAL;
			}
			o->max_groups = (unsigned int)n;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'V':
			o->verifier_stats = true;
			break;
		case 'L':
			o->load_only = true;
			break;
		case 'h':
			usage(stdout);
			exit(scxpol_cli_finish("scxpol-lat", NULL, 0));
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scxpol-lat: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* "fair" without a sched_ext scheduler, else the attached ops' name. */
static void scheduler_name(char *buf, size_t len)
{
	char state[64], ops[128];

	if (scxpol_sched_state(NULL, state, sizeof(state), ops, sizeof(ops)) ||
	    !strcmp(state, "disabled"))
		snprintf(buf, len, "fair");
	else if (!strcmp(state, "enabled"))
		snprintf(buf, len, "%s", ops[0] ? ops : "sched_ext");
	else
		snprintf(buf, len, "sched_ext:%s", state);
}

static int print_verifier_stats(struct lat_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int r;

		r = bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len);
		if (r) {
			fprintf(stderr, "scxpol-lat: cannot read program info of %s: %s\n",
				bpf_program__name(prog), strerror(-r));
			return r;
		}
		printf("scxpol-lat: verifier: %s %u insns\n", bpf_program__name(prog),
		       info.verified_insns);
	}
	return 0;
}

/*
 * Wait for --duration or SIGINT/SIGTERM (blocked, so none is lost). The
 * deadline is absolute: sigtimedwait() returns EINTR after a stop and
 * continue (Ctrl-Z, fg), and waiting the whole duration again would
 * stretch the trace.
 */
static void wait_done(double duration)
{
	struct timespec ts, deadline, now;
	sigset_t set;
	long long left;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (!(duration > 0)) {
		while (sigwaitinfo(&set, NULL) < 0 && errno == EINTR)
			;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)duration;
	deadline.tv_nsec += (long)((duration - (double)(time_t)duration) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long long)(deadline.tv_sec - now.tv_sec) * 1000000000LL +
		       (deadline.tv_nsec - now.tv_nsec);
		if (left <= 0)
			return;
		ts.tv_sec = (time_t)(left / 1000000000LL);
		ts.tv_nsec = (long)(left % 1000000000LL);
		if (sigtimedwait(&set, NULL, &ts) >= 0 || errno != EINTR)
			return;
	}
}

/* cgroup id -> path resolution by one walk of the cgroup tree. */
static struct group *walk_groups;
static size_t walk_nr;

static int walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t i;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	for (i = 0; i < walk_nr; i++) {
		if (walk_groups[i].key.cgid != st->st_ino)
			continue;
		path += strlen(CGROUP_ROOT);
		snprintf(walk_groups[i].name, sizeof(walk_groups[i].name), "%s", *path ? path : "/");
	}
	return 0;
}

static void resolve_cgroups(struct group *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(g[i].name, sizeof(g[i].name), "cgroup-id:%llu",
			 (unsigned long long)g[i].key.cgid);
	walk_groups = g;
	walk_nr = n;
	nftw(CGROUP_ROOT, walk_cb, 16, FTW_PHYS | FTW_MOUNT);
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->name, ((const struct group *)b)->name);
}

static int read_groups(struct lat_bpf *skel, const struct opts *o, struct group **out,
		       size_t *nr)
{
	int fd = bpf_map__fd(skel->maps.lat_groups);
	struct lat_key key, next, *prev = NULL;
	struct group *g = NULL, *ng;
	size_t n = 0, i;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		ng = realloc(g, (n + 1) * sizeof(*g));
		if (!ng) {
			free(g);
			fprintf(stderr, "scxpol-lat: out of memory\n");
			return -ENOMEM;
		}
		g = ng;
		memset(&g[n], 0, sizeof(g[n]));
		g[n].key = next;
		if (bpf_map_lookup_elem(fd, &next, &g[n].g) == 0)
			n++;
		key = next;
		prev = &key;
	}
	for (i = 0; i < n; i++) {
		lat_hist_merge(&g[i].rq, &g[i].g.wake);
		lat_hist_merge(&g[i].rq, &g[i].g.requeue);
		if (o->by == LAT_BY_COMM)
			snprintf(g[i].name, sizeof(g[i].name), "%.*s", LAT_COMM_LEN,
				 g[i].key.comm);
	}
	if (o->by == LAT_BY_CGROUP)
		resolve_cgroups(g, n);
	qsort(g, n, sizeof(*g), cmp_group);
	*out = g;
	*nr = n;
	return 0;
}

/*
 * Totals over all groups: events lost, by cause (a dropped event may leave
 * a wakeup without its sleep, or the reverse, in some group's counts), and
 * the idle CPU time while traced tasks waited (lat.bpf.c).
 */
struct totals {
	__u64 idle_waiting_ns;
	__u64 group_full; /* the group table was full */
	__u64 no_storage; /* the task had no storage and none could be made */
	__u64 recursion;  /* the kernel skipped a program already running on that
			   * CPU (a wakeup from an interrupt during another one) */
};

static int read_totals(struct lat_bpf *skel, struct totals *d)
{
	struct bpf_program *prog;

	d->group_full = skel->bss->nr_group_full;
	d->idle_waiting_ns = skel->bss->idle_waiting_ns;
	d->no_storage = skel->bss->nr_no_storage;
	d->recursion = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int r;

		r = bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len);
		if (r) {
			fprintf(stderr, "scxpol-lat: %s: reading its recursion misses: %s\n",
				bpf_program__name(prog), strerror(-r));
			return r;
		}
		d->recursion += info.recursion_misses;
	}
	return 0;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_json(const struct opts *o, const struct group *g, size_t n, double secs,
		       const char *sched_start, const char *sched_end, const struct totals *d)
{
	struct lat_summary s;
	size_t i;

	printf("{\"duration_s\":%.3f,\"by\":\"%s\",\"comm_len\":%u,\"idle_waiting_ns\":%llu,"
	       "\"scheduler\":{\"start\":", secs, o->by == LAT_BY_CGROUP ? "cgroup" : "comm",
	       o->by == LAT_BY_COMM ? o->comm_len : 0, (unsigned long long)d->idle_waiting_ns);
	json_string(stdout, sched_start);
	printf(",\"end\":");
	json_string(stdout, sched_end);
	printf("},\"dropped\":{\"group_table_full\":%llu,\"no_task_storage\":%llu,"
	       "\"recursion\":%llu},\"groups\":[",
	       (unsigned long long)d->group_full, (unsigned long long)d->no_storage,
	       (unsigned long long)d->recursion);
	for (i = 0; i < n; i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_string(stdout, g[i].name);
		if (o->by == LAT_BY_CGROUP)
			printf(",\"cgroup_id\":%llu", (unsigned long long)g[i].key.cgid);
		printf(",\"rqdelay\":");
		lat_hist_summarize(&g[i].rq, &s);
		lat_summary_json(stdout, &s);
		printf(",\"wake\":");
		lat_hist_summarize(&g[i].g.wake, &s);
		lat_summary_json(stdout, &s);
		printf(",\"wake_idle\":");
		lat_hist_summarize(&g[i].g.wake_idle, &s);
		lat_summary_json(stdout, &s);
		printf(",\"wake_remote\":");
		lat_hist_summarize(&g[i].g.wake_remote, &s);
		lat_summary_json(stdout, &s);
		printf(",\"wake_local\":");
		lat_hist_summarize(&g[i].g.wake_local, &s);
		lat_summary_json(stdout, &s);
		printf(",\"wake_queued\":%llu,\"waking\":", (unsigned long long)g[i].g.wake_queued);
		lat_hist_summarize(&g[i].g.waking, &s);
		lat_summary_json(stdout, &s);
		printf(",\"waking_idle\":");
		lat_hist_summarize(&g[i].g.waking_idle, &s);
		lat_summary_json(stdout, &s);
		printf(",\"requeue\":");
		lat_hist_summarize(&g[i].g.requeue, &s);
		lat_summary_json(stdout, &s);
		printf(",\"burst\":");
		lat_hist_summarize(&g[i].g.burst, &s);
		lat_summary_json(stdout, &s);
		printf(",\"preempt\":%llu,\"sleep\":%llu,\"exit\":%llu}",
		       (unsigned long long)g[i].g.preempt, (unsigned long long)g[i].g.sleep,
		       (unsigned long long)g[i].g.exit);
	}
	printf("]}\n");
}

static double us(__u64 ns)
{
	return (double)ns / 1000.0;
}

/* @n as a percentage of @of (0 when @of is 0) */
static double pct(__u64 n, __u64 of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

static void print_table(const struct opts *o, const struct group *g, size_t n, double secs,
			const char *sched_start, const char *sched_end, const struct totals *d)
{
	struct lat_summary rq, b, idle, rem, loc;
	size_t i;

	printf("scxpol-lat: %.1f s, by %s, scheduler %s", secs,
	       o->by == LAT_BY_CGROUP ? "cgroup" : "comm", sched_start);
	if (strcmp(sched_start, sched_end))
		printf(" (at the end: %s)", sched_end);
	printf("; times in us\n");
	printf("%-24s %8s %8s %9s %9s %9s %9s %9s  %8s %9s %9s %9s  %8s %8s  %6s %9s %9s"
	       "  %7s %9s %9s  %7s\n",
	       "GROUP", "WAKEUPS", "DELAYS", "p50", "p90", "p99", "p99.9", "max", "BURSTS", "mean",
	       "p50", "p99", "PREEMPT", "SLEEP", "IDLE%", "p50", "p99", "REMOTE%", "p99",
	       "local-p99", "QUEUED%");
	for (i = 0; i < n; i++) {
		__u64 wakes = lat_hist_count(&g[i].g.wake);

		lat_hist_summarize(&g[i].rq, &rq);
		lat_hist_summarize(&g[i].g.burst, &b);
		lat_hist_summarize(&g[i].g.wake_idle, &idle);
		lat_hist_summarize(&g[i].g.wake_remote, &rem);
		lat_hist_summarize(&g[i].g.wake_local, &loc);
		printf("%-24.24s %8llu %8llu %9.1f %9.1f %9.1f %9.1f %9.1f  %8llu %9.1f %9.1f %9.1f"
		       "  %8llu %8llu  %6.1f %9.1f %9.1f  %7.1f %9.1f %9.1f  %7.1f\n",
		       g[i].name, (unsigned long long)wakes,
		       (unsigned long long)rq.count, us(rq.p50), us(rq.p90), us(rq.p99),
		       us(rq.p999), us(rq.max), (unsigned long long)b.count, us(b.mean),
		       us(b.p50), us(b.p99), (unsigned long long)g[i].g.preempt,
		       (unsigned long long)g[i].g.sleep, pct(idle.count, wakes), us(idle.p50),
		       us(idle.p99), pct(rem.count, wakes), us(rem.p99), us(loc.p99),
		       pct(g[i].g.wake_queued, wakes));
	}
	printf("IDLE%%: wakeups onto a CPU running its idle task, p50/p99 their delay; REMOTE%%: "
	       "onto another CPU than the waker's, p99 their delay, local-p99 the others'; "
	       "QUEUED%%: activated by the target from an IPI (wake list)\n");
	printf("idle CPU time while traced tasks waited: %.1f ms\n",
	       (double)d->idle_waiting_ns / 1e6);
	if (d->group_full || d->no_storage || d->recursion)
		printf("dropped events: %llu (group table full; raise --max-groups), %llu (no task "
		       "storage), %llu (a program already running on that CPU)\n",
		       (unsigned long long)d->group_full, (unsigned long long)d->no_storage,
		       (unsigned long long)d->recursion);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct opts o = { .by = LAT_BY_COMM, .comm_len = LAT_COMM_LEN, .max_groups = 256 };
	char sched_start[160], sched_end[160];
	struct totals tot;
	struct lat_bpf *skel = NULL;
	struct group *groups = NULL;
	size_t nr = 0, i;
	__u64 cg_id = 0;
	int cg_level = -1, r;
	double start, secs;
	sigset_t set;

	r = parse_args(argc, argv, &o);
	if (r)
		return r == -ESRCH ? 1 : 2; /* an id without a task is like a missing cgroup */
	if (o.filter_cgroup[0] && cgroup_lookup(o.filter_cgroup, &cg_id, &cg_level))
		return 1;
	/* "no sched_ext" is an answer here ("fair"), not a warning */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	verbose = o.verbose;
	libbpf_set_print(libbpf_print);

	skel = lat_bpf__open();
	if (!skel) {
		fprintf(stderr, "scxpol-lat: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->group_by = o.by;
	skel->rodata->comm_len = o.comm_len;
	if (o.filter_comm) {
		memcpy((void *)skel->rodata->filter_comm, o.filter_comm, strlen(o.filter_comm));
		skel->rodata->filter_comm_len = (__u32)strlen(o.filter_comm);
	}
	skel->rodata->filter_cg_level = cg_level;
	skel->rodata->filter_cg_id = cg_id;
	skel->rodata->filter_pids = o.nr_pids > 0;
	r = bpf_map__set_max_entries(skel->maps.lat_groups, o.max_groups);
	if (!r)
		r = lat_bpf__load(skel);
	if (r) {
		fprintf(stderr, "scxpol-lat: loading the BPF programs failed: %s (libbpf's "
			"message above has the verifier's log)\n", strerror(-r));
		goto out;
	}
	if (o.verifier_stats) {
		r = print_verifier_stats(skel);
		if (r)
			goto out;
	}
	if (o.load_only)
		goto out;
	for (i = 0; i < o.nr_pids; i++) {
		__u8 one = 1;

		r = bpf_map_update_elem(bpf_map__fd(skel->maps.lat_pids), &o.pids[i], &one, BPF_ANY);
		if (r) {
			fprintf(stderr, "scxpol-lat: cannot add pid %u to the filter: %s\n",
				o.pids[i], strerror(-r));
			goto out;
		}
	}

	/* block the stop signals before attaching: none may be lost in between */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	scheduler_name(sched_start, sizeof(sched_start));
	r = lat_bpf__attach(skel);
	if (r) {
		fprintf(stderr, "scxpol-lat: attaching to sched_waking/sched_wakeup/sched_switch failed: %s\n",
			strerror(-r));
		goto out;
	}
	/* one that exited since parse_pids() checked it leaves nothing to trace */
	for (i = 0; i < o.nr_pids; i++) {
		int st = pid_state(o.pids[i]);

		if (st == -ENOENT || st == -ESRCH) {
			fprintf(stderr, "scxpol-lat: --pid: %u exited before tracing started\n",
				o.pids[i]);
			r = -ESRCH;
			goto out;
		}
	}
	start = now_s();
	fprintf(stderr, "scxpol-lat: tracing by %s under %s (%s)\n",
		o.by == LAT_BY_CGROUP ? "cgroup" : "comm", sched_start,
		o.duration > 0 ? "until --duration ends or SIGINT" : "SIGINT or SIGTERM stops");
	wait_done(o.duration);
	lat_bpf__detach(skel);
	secs = now_s() - start;
	scheduler_name(sched_end, sizeof(sched_end));

	r = read_groups(skel, &o, &groups, &nr);
	if (r)
		goto out;
	r = read_totals(skel, &tot);
	if (r)
		goto out;
	if (o.json)
		print_json(&o, groups, nr, secs, sched_start, sched_end, &tot);
	else
		print_table(&o, groups, nr, secs, sched_start, sched_end, &tot);
out:
	free(groups);
	lat_bpf__destroy(skel);
	return scxpol_cli_finish("scxpol-lat", NULL, r ? 1 : 0);
}
