// SPDX-License-Identifier: GPL-2.0
/*
 * faas-replay: replay a FaaS trace in real time as processes in cgroups,
 * assigning each invocation a scheduling domain by IAT consistent hashing,
 * and report latency, worker duration, cost and core reuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scxpol/cli.h>
#include <scxpol/pool.h>
#include <scxpol/topology.h>

#include "funcs.h"
#include "iat.h"
#include "replay.h"
#include "trace.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f,
		"usage: faas-replay --trace FILE [options]\n"
		"Trace:\n"
		"  --trace FILE         simple CSV (function,arrival_ms,duration_ms[,kind]) or,\n"
		"                       with --format azure, invocations_per_function_md.anon.dNN.csv\n"
		"  --format F           trace format: simple (default) or azure\n"
		"  --durations FILE     azure: function_durations_percentiles.anon.dNN.csv\n"
		"  --minutes A[-B]      azure: minute range to replay (default: all)\n"
		"  --minute-ms N        azure: a trace minute lasts N ms (default 60000)\n"
		"  --max-functions N    azure: the first N functions with invocations\n"
		"  --duration-scale X   multiply durations by X (default 1)\n"
		"  --skip-missing       azure: skip and count functions without durations\n"
		"                       (default: such a function is an error)\n"
		"  --kind-mix C,I,P,M   azure: percent of functions per kind cpu,io,poll,mt\n"
		"                       (default 55,25,10,10)\n"
		"  --seed N             azure: expansion seed (default 1)\n"
		"Domains (IAT consistent hashing):\n"
		"  --domains N          N exclusive domains over the online CPUs (default 1)\n"
		"  --plan \"d0=0-1 d1=2-3\" the domains as a pool plan instead\n"
		"  --capacity N|Nx      concurrent invocations per domain: N, or N per CPU\n"
		"                       of the domain (default 1x: its CPUs); an mt one\n"
		"                       counts as --mt-threads\n"
		"  --bucket-ms X        IAT bucket size (default 100)\n"
		"  --iat-alpha X        EWMA weight of the newest IAT, (0,1] (default 0.5;\n"
		"                       1 = the last IAT)\n"
		"  --home-scan          scan all domains from the bucket's home domain\n"
		"                       (default: from domain 0, as the paper)\n"
		"  --overflow shared|hold  an invocation no domain has capacity for runs at\n"
		"                       once on the shared queue (default), or waits until\n"
		"                       a domain has, in arrival order (the paper's\n"
		"                       control plane: its requests wait in a FIFO queue\n"
		"                       until they are given CPUs)\n"
		"Replay:\n"
		"  --time-scale X       multiply arrival times by X (default 1)\n"
		"  --cgroup-root DIR    run invocation I in cgroup DIR/inv-I (cgroup v2;\n"
		"                       created and removed)\n"
		"  --sink none|pinned[:POLICY]  where assignments go: nowhere (EEVDF runs),\n"
		"                       or cgroup hints of loaded POLICY (default faas),\n"
		"                       which must have the replay's domains (their\n"
		"                       CPUs, as its stats server reports them)\n"
		"  --pin-root DIR       pinned: the policy's pin directory\n"
		"  --policy-socket PATH pinned: the policy's stats socket (default\n"
		"                       /run/scxpol/POLICY.sock)\n"
		"  --body-class other|ext  the class each body works in: SCHED_OTHER\n"
		"                       (default), or SCHED_EXT, for a policy that runs only\n"
		"                       SCHED_EXT tasks (faas --switch partial, --paper);\n"
		"                       the control plane itself stays in its own class\n"
		"  --mt-threads N       threads of an mt body, 2..4 (default 2)\n"
		"  --io-sleep-ratio N   io bodies sleep N ms per ms of work (default 2)\n"
		"  --out FILE           per-invocation results (CSV), put in place when\n"
		"                       the replay has run (a failed one leaves FILE as\n"
		"                       it was)\n"
		"  --iters-per-us X     the bodies' work loop speed (default: calibrate at\n"
		"                       start); to give runs under different schedulers\n"
		"                       the same work, calibrate once with --calibrate\n"
		"  --calibrate          print iters_per_us=X and exit\n");
	scxpol_cli_usage(c, f);
	fprintf(f,
		"Prints a summary table and one JSON line. Exit status: 0 when every\n"
		"invocation completed, 1 on any failure, 2 for bad usage.\n"
		"Under load, run it in the real-time class (chrt -f 1 faas-replay ...) so\n"
		"that releases never wait behind invocations; the bodies it forks switch\n"
		"back to SCHED_OTHER before they wait for their release.\n");
}

struct domains {
	unsigned int n;
	unsigned int *capacity;
	struct scxpol_cpuset **cpus; /* the CPUs of each domain */
	char desc[1024];
};

static void free_domains(struct domains *d)
{
	for (unsigned int i = 0; d->cpus && i < d->n; i++)
		scxpol_cpuset_free(d->cpus[i]);
	free(d->cpus);
	free(d->capacity);
}

/*
 * Domains from the library's pool plan: exclusive CPU sets. 0, or the exit
 * status after the message: 2 for a plan or a number of domains the CPUs
 * do not allow, 1 for anything else.
 */
static int make_domains(unsigned int n, const char *plan_text, unsigned long long capacity,
			bool per_cpu, struct domains *d)
{
	struct scxpol_pool_plan *plan = NULL;
	struct scxpol_topo *topo;
	size_t off;
	unsigned int i;
	int r;

	topo = scxpol_topo_load(NULL);
	if (!topo) {
		fprintf(stderr, "faas-replay: topology: %s\n", scxpol_last_error());
		return 1;
	}
	if (plan_text)
		plan = scxpol_pool_plan_parse(topo, plan_text, SCXPOL_POOL_EXCLUSIVE);
	else
		plan = scxpol_pool_plan_domains(topo, n, SCXPOL_POOL_EXCLUSIVE);
	if (!plan) {
		fprintf(stderr, "faas-replay: %s: %s\n", plan_text ? "--plan" : "--domains",
			scxpol_last_error());
		scxpol_topo_free(topo);
		return 2;
	}
	d->n = scxpol_pool_plan_nr_pools(plan);
	if (!d->n) {
		fprintf(stderr, "faas-replay: --plan '%s' has no domains\n", plan_text);
		r = 2;
		goto out;
	}
	d->capacity = calloc(d->n, sizeof(*d->capacity));
	d->cpus = calloc(d->n, sizeof(*d->cpus));
	for (i = 0; d->cpus && i < d->n; i++)
		if (!(d->cpus[i] = scxpol_cpuset_dup(scxpol_pool_plan_cpus(plan, i))))
			break;
	if (!d->capacity || !d->cpus || i < d->n) {
		fprintf(stderr, "faas-replay: out of memory\n");
		r = 1;
		goto out;
	}
	r = scxpol_pool_plan_format(plan, d->desc, sizeof(d->desc));
	off = r < 0 ? 0 : (size_t)r;
	r = 0;
	if (off + 16 < sizeof(d->desc))
		off += (size_t)snprintf(d->desc + off, sizeof(d->desc) - off, ", capacity");
	for (i = 0; i < d->n; i++) {
		unsigned int cpus = scxpol_cpuset_count(scxpol_pool_plan_cpus(plan, i));

		d->capacity[i] = per_cpu ? (unsigned int)capacity * cpus : (unsigned int)capacity;
		if (off + 16 < sizeof(d->desc))
			off += (size_t)snprintf(d->desc + off, sizeof(d->desc) - off, " %u",
						d->capacity[i]);
	}
out:
	scxpol_pool_plan_free(plan);
	scxpol_topo_free(topo);
	return r;
}

enum {
	O_TRACE = 256, O_FORMAT, O_DURATIONS, O_MINUTES, O_MINUTE_MS, O_MAX_FUNCS, O_DUR_SCALE,
	O_SKIP_MISSING, O_KIND_MIX, O_SEED, O_DOMAINS, O_PLAN, O_CAPACITY, O_BUCKET, O_ALPHA,
	O_HOME_SCAN, O_TIME_SCALE, O_CGROUP_ROOT, O_SINK, O_PIN_ROOT, O_MT_THREADS, O_IO_RATIO,
	O_OUT, O_ITERS, O_CALIBRATE, O_OVERFLOW, O_POLICY_SOCKET, O_BODY_CLASS,
};

/* The command line's values. */
struct args {
	struct faas_azure_opts az;
	struct faas_replay_opts ro;
	const char *trace_path, *durations, *plan_text, *out_path, *sink_arg, *pin_root;
	const char *policy_socket;
	unsigned long long nr_domains, capacity;
	bool capacity_per_cpu; /* --capacity Nx */
	bool azure, seed_set, calibrate_only, domains_set;
	char err[FAAS_ERR_LEN]; /* an option's message */
};

/* The options of the trace (the first part of the usage). */
static int trace_option(const struct scxpol_cli *c, struct args *a, int opt, const char *arg)
{
	unsigned long long v;

	switch (opt) {
	case O_TRACE:
		a->trace_path = arg;
		break;
	case O_FORMAT:
		if (strcmp(arg, "simple") && strcmp(arg, "azure")) {
			fprintf(stderr, "faas-replay: --format '%s': want simple or azure\n", arg);
			return 2;
		}
		a->azure = !strcmp(arg, "azure");
		break;
	case O_DURATIONS:
		a->durations = arg;
		break;
	case O_MINUTES:
		if (faas_parse_minutes("--minutes", arg, &a->az.first_minute, &a->az.last_minute,
				       a->err, sizeof(a->err))) {
			fprintf(stderr, "faas-replay: %s\n", a->err);
			return 2;
		}
		break;
	case O_MINUTE_MS:
		if (scxpol_cli_parse_uint("--minute-ms", arg, 1, 3600000, &v))
			return scxpol_cli_usage_error(c);
		a->az.minute_us = v * 1000;
		break;
	case O_MAX_FUNCS:
		if (scxpol_cli_parse_uint("--max-functions", arg, 1, UINT32_MAX, &v))
			return scxpol_cli_usage_error(c);
		a->az.max_funcs = (uint32_t)v;
		break;
	case O_DUR_SCALE:
		if (scxpol_cli_parse_double("--duration-scale", arg, 0, 1e6, &a->az.duration_scale))
			return scxpol_cli_usage_error(c);
		break;
	case O_SKIP_MISSING:
		a->az.skip_missing = true;
		break;
	case O_KIND_MIX:
		if (faas_parse_kind_mix("--kind-mix", arg, a->az.kind_mix, a->err,
					sizeof(a->err))) {
			fprintf(stderr, "faas-replay: %s\n", a->err);
			return 2;
		}
		break;
	case O_SEED:
		if (scxpol_cli_parse_uint("--seed", arg, 0, UINT64_MAX, &v))
			return scxpol_cli_usage_error(c);
		a->az.seed = v;
		a->seed_set = true;
		break;
	}
	return SCXPOL_CLI_CONTINUE;
}

/* The options of the domains and of the replay. */
static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct args *a = c->ctx;
	unsigned long long v;
	double x;

	switch (opt) {
	case O_DOMAINS:
		if (scxpol_cli_parse_uint("--domains", arg, 1, FAAS_IAT_MAX_DOMAINS,
					  &a->nr_domains))
			return scxpol_cli_usage_error(c);
		a->domains_set = true;
		break;
	case O_PLAN:
		a->plan_text = arg;
		break;
	case O_CAPACITY: {
		size_t len = strlen(arg);
		char n[24];

		/* N or Nx: N as the library reads whole numbers */
		a->capacity_per_cpu = len && arg[len - 1] == 'x';
		len -= a->capacity_per_cpu;
		snprintf(n, sizeof(n), "%.*s", (int)len, arg);
		if (len >= sizeof(n) ||
		    scxpol_cli_parse_uint("--capacity", n, 1, a->capacity_per_cpu ? 1000 : 1000000,
					  &a->capacity)) {
			fprintf(stderr, "faas-replay: --capacity '%s': want N in 1..1000000, or Nx "
					"(N per CPU) with N in 1..1000\n", arg);
			return 2;
		}
		break;
	}
	case O_OVERFLOW:
		if (!strcmp(arg, "shared")) {
			a->ro.overflow = FAAS_OVERFLOW_SHARED;
		} else if (!strcmp(arg, "hold")) {
			a->ro.overflow = FAAS_OVERFLOW_HOLD;
		} else {
			fprintf(stderr, "faas-replay: --overflow '%s': want shared or hold\n", arg);
			return 2;
		}
		break;
	case O_BUCKET:
		if (scxpol_cli_parse_double("--bucket-ms", arg, 0, 86400000, &x))
			return scxpol_cli_usage_error(c);
		a->ro.bucket_us = (uint64_t)(x * 1000 + 0.5);
		if (!a->ro.bucket_us) {
			fprintf(stderr, "faas-replay: --bucket-ms '%s': want at least 0.001\n", arg);
			return 2;
		}
		break;
	case O_ALPHA:
		if (scxpol_cli_parse_double("--iat-alpha", arg, 0, 1, &a->ro.iat_alpha))
			return scxpol_cli_usage_error(c);
		break;
	case O_HOME_SCAN:
		a->ro.home_scan = true;
		break;
	case O_TIME_SCALE:
		if (scxpol_cli_parse_double("--time-scale", arg, 0, 1e6, &a->ro.time_scale))
			return scxpol_cli_usage_error(c);
		break;
	case O_CGROUP_ROOT:
		a->ro.cgroup_root = arg;
		break;
	case O_SINK:
		a->sink_arg = arg;
		break;
	case O_PIN_ROOT:
		a->pin_root = arg;
		break;
	case O_POLICY_SOCKET:
		a->policy_socket = arg;
		break;
	case O_BODY_CLASS:
		if (strcmp(arg, "other") && strcmp(arg, "ext")) {
			fprintf(stderr, "faas-replay: --body-class '%s': want other or ext\n", arg);
			return 2;
		}
		a->ro.body_ext = !strcmp(arg, "ext");
		break;
	case O_MT_THREADS:
		if (scxpol_cli_parse_uint("--mt-threads", arg, 2, 4, &v))
			return scxpol_cli_usage_error(c);
		a->ro.body.mt_threads = (unsigned int)v;
		break;
	case O_IO_RATIO:
		if (scxpol_cli_parse_uint("--io-sleep-ratio", arg, 1, 100, &v))
			return scxpol_cli_usage_error(c);
		a->ro.body.io_sleep_ratio = (unsigned int)v;
		break;
	case O_OUT:
		a->out_path = arg;
		break;
	case O_ITERS:
		if (scxpol_cli_parse_double("--iters-per-us", arg, 0, 1e9,
					    &a->ro.body.iters_per_us))
			return scxpol_cli_usage_error(c);
		break;
	case O_CALIBRATE:
		a->calibrate_only = true;
		break;
	default:
		return trace_option(c, a, opt, arg);
	}
	return SCXPOL_CLI_CONTINUE;
}

/*
 * --out: a temporary file beside @path (@tmp), renamed to @path once the
 * results are in, so a replay that fails or is stopped leaves an earlier
 * @path whole. Opened before the replay: a bad path costs no run.
 */
static FILE *out_open(const char *path, char *tmp, size_t tmplen)
{
	struct stat st;
	mode_t mask;
	FILE *f;
	int fd;

	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "faas-replay: --out '%s': not a regular file\n", path);
		return NULL;
	}
	if ((size_t)snprintf(tmp, tmplen, "%s.XXXXXX", path) >= tmplen) {
		fprintf(stderr, "faas-replay: --out '%s': path too long\n", path);
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "faas-replay: --out '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	/* the mode a plain create gives (mkostemp()'s is 0600) */
	mask = umask(0);
	umask(mask);
	f = fchmod(fd, 0666 & ~mask) ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "faas-replay: --out '%s': %s\n", path, strerror(errno));
		close(fd);
		unlink(tmp);
	}
	return f;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, O_TRACE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "durations", required_argument, NULL, O_DURATIONS },
		{ "minutes", required_argument, NULL, O_MINUTES },
		{ "minute-ms", required_argument, NULL, O_MINUTE_MS },
		{ "max-functions", required_argument, NULL, O_MAX_FUNCS },
		{ "duration-scale", required_argument, NULL, O_DUR_SCALE },
		{ "skip-missing", no_argument, NULL, O_SKIP_MISSING },
		{ "kind-mix", required_argument, NULL, O_KIND_MIX },
		{ "seed", required_argument, NULL, O_SEED },
		{ "domains", required_argument, NULL, O_DOMAINS },
		{ "plan", required_argument, NULL, O_PLAN },
		{ "capacity", required_argument, NULL, O_CAPACITY },
		{ "bucket-ms", required_argument, NULL, O_BUCKET },
		{ "iat-alpha", required_argument, NULL, O_ALPHA },
		{ "home-scan", no_argument, NULL, O_HOME_SCAN },
		{ "overflow", required_argument, NULL, O_OVERFLOW },
		{ "time-scale", required_argument, NULL, O_TIME_SCALE },
		{ "cgroup-root", required_argument, NULL, O_CGROUP_ROOT },
		{ "sink", required_argument, NULL, O_SINK },
		{ "pin-root", required_argument, NULL, O_PIN_ROOT },
		{ "policy-socket", required_argument, NULL, O_POLICY_SOCKET },
		{ "body-class", required_argument, NULL, O_BODY_CLASS },
		{ "mt-threads", required_argument, NULL, O_MT_THREADS },
		{ "io-sleep-ratio", required_argument, NULL, O_IO_RATIO },
		{ "out", required_argument, NULL, O_OUT },
		{ "iters-per-us", required_argument, NULL, O_ITERS },
		{ "calibrate", no_argument, NULL, O_CALIBRATE },
		{ 0 },
	};
	struct args a = {
		.az = { .seed = 1 },
		.ro = {
			.bucket_us = 100000,
			.iat_alpha = 0.5,
			.body = { .mt_threads = 2, .io_sleep_ratio = 2 },
			.stop = &stop,
		},
		.sink_arg = "none",
		.nr_domains = 1,
		.capacity = 1,
		.capacity_per_cpu = true,
	};
	/* a replay loads no policy: of the common options, -v and -h */
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "faas-replay", .usage = usage, .options = longopts,
		    .option = option, .ctx = &a);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct sigaction sa = { .sa_handler = on_signal };
	struct faas_sink *sink = NULL;
	struct faas_replay *res = NULL;
	struct faas_trace *trace = NULL;
	struct domains dom = { 0 };
	FILE *csv = NULL;
	char csv_tmp[4096];
	struct faas_summary sum;
	struct rlimit nofile;
	char err[FAAS_ERR_LEN];
	double x;
	int r, ret = 1;

	/* failures come back in scxpol_last_error(), printed below: no log twice */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	if (a.calibrate_only) {
		if (faas_calibrate(&x, err, sizeof(err))) {
			fprintf(stderr, "faas-replay: %s\n", err);
			return 1;
		}
		printf("iters_per_us=%.3f\n", x);
		return 0;
	}
	if (!a.trace_path) {
		fprintf(stderr, "faas-replay: --trace FILE is required (see --help)\n");
		return 2;
	}
	if (a.azure != !!a.durations) {
		fprintf(stderr, "faas-replay: %s\n", a.azure ? "--format azure needs --durations FILE"
							  : "--durations is for --format azure");
		return 2;
	}
	if (!a.azure && (a.az.first_minute || a.az.minute_us || a.az.max_funcs ||
			 a.az.skip_missing || a.seed_set || a.az.kind_mix[0] + a.az.kind_mix[1] +
			 a.az.kind_mix[2] + a.az.kind_mix[3])) {
		fprintf(stderr, "faas-replay: --minutes, --minute-ms, --max-functions, --skip-missing, "
				"--kind-mix and --seed are for --format azure\n");
		return 2;
	}
	if (a.plan_text && a.domains_set) {
		fprintf(stderr, "faas-replay: give --domains or --plan, not both\n");
		return 2;
	}
	if (strcmp(a.sink_arg, "none") && strcmp(a.sink_arg, "pinned") &&
	    strncmp(a.sink_arg, "pinned:", 7)) {
		fprintf(stderr, "faas-replay: --sink '%s': want none, pinned or pinned:POLICY\n",
			a.sink_arg);
		return 2;
	}
	if (!strcmp(a.sink_arg, "none") && (a.pin_root || a.policy_socket)) {
		fprintf(stderr, "faas-replay: --pin-root and --policy-socket are for --sink "
				"pinned\n");
		return 2;
	}
	if (a.ro.body_ext && !strcmp(a.sink_arg, "none")) {
		fprintf(stderr, "faas-replay: --body-class ext needs --sink pinned: bodies in "
				"SCHED_EXT are for a policy that runs them in the domains the "
				"control plane assigns\n");
		return 2;
	}
	if (strcmp(a.sink_arg, "none") && !a.ro.cgroup_root) {
		fprintf(stderr, "faas-replay: --sink %s needs --cgroup-root: domains are assigned "
				"per cgroup\n", a.sink_arg);
		return 2;
	}
	if (a.ro.cgroup_root &&
	    faas_cgroup_root_check("--cgroup-root", a.ro.cgroup_root, err, sizeof(err))) {
		fprintf(stderr, "faas-replay: %s\n", err);
		return 2;
	}
	r = make_domains((unsigned int)a.nr_domains, a.plan_text, a.capacity, a.capacity_per_cpu,
			 &dom);
	if (r) {
		ret = r;
		goto out;
	}
	/* the last check of the command line: no results of a long replay lost */
	if (a.out_path) {
		csv = out_open(a.out_path, csv_tmp, sizeof(csv_tmp));
		if (!csv) {
			ret = 2;
			goto out;
		}
	}
	/* every held invocation keeps its prewarmed body's go pipe open */
	if (a.ro.overflow == FAAS_OVERFLOW_HOLD && !getrlimit(RLIMIT_NOFILE, &nofile) &&
	    nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &nofile))
			fprintf(stderr, "faas-replay: warning: cannot raise the open file limit to "
					"%llu: %s\n", (unsigned long long)nofile.rlim_max,
				strerror(errno));
	}
	if (a.azure)
		r = faas_trace_load_azure(a.trace_path, a.durations, &a.az, &trace, err,
					  sizeof(err));
	else
		r = faas_trace_load_simple(a.trace_path, &trace, err, sizeof(err));
	if (r) {
		fprintf(stderr, "faas-replay: %s\n", err);
		goto out;
	}
	if (!a.azure && a.az.duration_scale)
		faas_trace_scale_durations(trace, a.az.duration_scale);
	if (trace->skipped_funcs)
		fprintf(stderr, "faas-replay: warning: skipped %llu functions (%llu invocations) "
				"missing from %s\n", (unsigned long long)trace->skipped_funcs,
			(unsigned long long)trace->skipped_inv, a.durations);
	if (strcmp(a.sink_arg, "none")) {
		sink = faas_sink_hint_open(a.sink_arg[6] ? a.sink_arg + 7 : "faas", a.pin_root,
					   a.policy_socket, dom.n, dom.cpus, err, sizeof(err));
		if (!sink) {
			fprintf(stderr, "faas-replay: %s\n", err);
			goto out;
		}
	}
	r = a.ro.body.iters_per_us > 0 ? 0
				       : faas_calibrate(&a.ro.body.iters_per_us, err, sizeof(err));
	if (r) {
		fprintf(stderr, "faas-replay: %s\n", err);
		goto out;
	}
	printf("faas-replay: %llu invocations of %u functions; domains %s; calibration %.1f "
	       "iterations/us\n", (unsigned long long)trace->nr_inv, trace->nr_funcs, dom.desc,
	       a.ro.body.iters_per_us);
	fflush(stdout);

	/* a stopped replay kills its bodies and removes their hints and cgroups */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	a.ro.trace = trace;
	a.ro.nr_domains = dom.n;
	a.ro.capacity = dom.capacity;
	a.ro.sink = sink;
	r = faas_replay_run(&a.ro, &res, err, sizeof(err));
	if (r) {
		fprintf(stderr, "faas-replay: %s\n", err);
		goto out;
	}
	if (csv) {
		r = faas_replay_write_csv(res, csv);
		r = fclose(csv) || r;
		csv = NULL;
		if (r || rename(csv_tmp, a.out_path)) {
			fprintf(stderr, "faas-replay: --out '%s': %s\n", a.out_path,
				r ? "write error" : strerror(errno));
			unlink(csv_tmp);
			goto out;
		}
	}
	if (faas_replay_summarize(res, &sum)) {
		fprintf(stderr, "faas-replay: out of memory for the summary of %llu invocations\n",
			(unsigned long long)res->nr);
		goto out;
	}
	faas_summary_print(&sum, stdout);
	ret = sum.completed == sum.count ? 0 : 1;
out:
	if (csv) {
		fclose(csv);
		unlink(csv_tmp);
	}
	faas_replay_free(res);
	faas_sink_hint_close(sink);
	faas_trace_free(trace);
	free_domains(&dom);
	return ret;
}
