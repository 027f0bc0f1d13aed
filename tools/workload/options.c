// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-workload's command line: usage, the option parsers (each error
 * names its option) and the defaults that depend on the CPU count.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scxpol/cli.h>

#include "workload.h"

const char *const wl_class_opt[WL_NR_CLASSES] = { "--worker-comm", "--dispatch-comm",
						  "--hog-comm" };
const char *const wl_side_opt[WL_NR_SIDES] = { "--worker-cgroup", "--hog-cgroup" };

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
		"  --duration SECS      measurement window (default 10); a SIGINT ends it\n"
		"                       early, and the results cover the shorter window\n"
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
			"comm limit)\n", wl_class_opt[cls], arg, COMM_LEN - 1);
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
			wl_side_opt[side], arg, CGROUP_ROOT);
		return -EINVAL;
	}
	for (q = p; *q;) {
		size_t n = strcspn(q, "/");

		if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.')) {
			fprintf(stderr, "scxpol-workload: %s '%s': '.' and '..' are not allowed\n",
				wl_side_opt[side], arg);
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

int wl_parse_args(int argc, char **argv, struct opts *o)
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
