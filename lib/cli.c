// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The command line of a policy loader: option values, common options, main()'s run. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/cli.h"
#include "scxpol/pool.h"
#include "scxpol/sched.h"
#include "scxpol/stats.h"
#include "scxpol/topology.h"

/* the BPF side's counters (<scxpol/stats.bpf.h>): a policy with stats has this map */
#define STATS_MAP "scxpol_stats"

/*
 * getopt_long() values of the common long options, above any character
 * and any value a program picks for its own options below 0x10000.
 */
enum {
	OPT_VERIFIER_STATS = 0x10000,
	OPT_LOAD_ONLY,
	OPT_PIN_GROUP,
	OPT_STATS_SOCKET,
	OPT_MAX_RESTARTS,
	OPT_HINT_PRUNE,
	OPT_TIMEOUT_MS,
};

/* The common options: all of them, those a program does not offer refused by common_option(). */
static const struct option common_opts[] = {
	{ "verifier-stats", no_argument, NULL, OPT_VERIFIER_STATS },
	{ "load-only", no_argument, NULL, OPT_LOAD_ONLY },
	{ "pin-group", required_argument, NULL, OPT_PIN_GROUP },
	{ "stats-socket", required_argument, NULL, OPT_STATS_SOCKET },
	{ "max-restarts", required_argument, NULL, OPT_MAX_RESTARTS },
	{ "hint-prune", required_argument, NULL, OPT_HINT_PRUNE },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT_MS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
};

#define NR_COMMON (sizeof(common_opts) / sizeof(common_opts[0]))

#define COMMON_SHORTOPTS "vh"

/* An option of the program's own declared with optional_argument, given without one. */
static int no_value(const char *opt)
{
	return scxpol_err_quiet(EINVAL, "%s needs a value", opt ? opt : "an option");
}

/*
 * The @len characters at @arg as decimal digits only: strtoull() would take
 * a sign ("-1" wraps around) and space.
 */
static int digits(const char *arg, size_t len, unsigned long long *v)
{
	char *end;

	if (!len || !isdigit((unsigned char)arg[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (end != arg + len)
		return -EINVAL;
	return errno ? -ERANGE : 0;
}

int scxpol_cli_parse_uint(const char *opt, const char *arg, unsigned long long lo,
			  unsigned long long hi, unsigned long long *out)
{
	unsigned long long v;
	int r;

	if (!arg)
		return no_value(opt);

	r = digits(arg, strlen(arg), &v);
	if (!r && (v < lo || v > hi))
		r = -ERANGE;
	if (r)
		return scxpol_err_quiet(-r, "%s '%s': want a whole number in %llu..%llu", opt, arg,
					lo, hi);
	*out = v;
	return 0;
}

int scxpol_cli_parse_uint_list(const char *opt, const char *arg, char sep,
			       unsigned long long lo, unsigned long long hi,
			       unsigned long long *out, unsigned int max)
{
	const char seps[2] = { sep, '\0' };
	unsigned int n = 0;
	const char *p;
	size_t len;
	int r;

	if (!arg)
		return no_value(opt);
	/* digits() reads up to the first non-digit, which must be the separator */
	if (isdigit((unsigned char)sep))
		return scxpol_err_quiet(EINVAL, "%s: the separator '%c' is a digit", opt, sep);
	for (p = arg;; p += len + 1, n++) {
		len = strcspn(p, seps);
		if (n == max)
			return scxpol_err_quiet(E2BIG, "%s '%s': more than %u items", opt, arg, max);
		r = digits(p, len, &out[n]);
		if (!r && (out[n] < lo || out[n] > hi))
			r = -ERANGE;
		if (r)
			return scxpol_err_quiet(-r, "%s '%s': item %u '%.*s': want a whole number in "
						"%llu..%llu", opt, arg, n + 1, (int)len, p, lo, hi);
		if (!p[len])
			return (int)n + 1;
	}
}

int scxpol_cli_parse_double(const char *opt, const char *arg, double lo, double hi,
			    double *out)
{
	double v;
	char *end;

	if (!arg)
		return no_value(opt);
	v = strtod(arg, &end);
	/* decimal only, as the whole numbers: strtod() also reads hex ("0x1p-1") */
	if (end == arg || *end || isspace((unsigned char)arg[0]) || isnan(v) || strpbrk(arg, "xX"))
		return scxpol_err_quiet(EINVAL, "%s '%s': want a number in (%g, %g]", opt, arg, lo,
					hi);
	/* an overflow is HUGE_VAL, out of any finite range */
	if (!(v > lo && v <= hi))
		return scxpol_err_quiet(ERANGE, "%s '%s': want a number in (%g, %g]", opt, arg, lo,
					hi);
	*out = v;
	return 0;
}

int scxpol_cli_parse_group(const char *opt, const char *arg, int *gid)
{
	struct group gr, *g = NULL;
	unsigned long long v;
	char *buf = NULL;
	size_t len = 1024;
	int r;

	if (!arg)
		return no_value(opt);

	if (!digits(arg, strlen(arg), &v) && v <= 0x7fffffff) {
		*gid = (int)v;
		return 0;
	}
	/* the entry of a group with many members is large: grow until it fits */
	for (;;) {
		char *n = realloc(buf, len);

		if (!n) {
			free(buf);
			return scxpol_err_quiet(ENOMEM, "%s '%s': out of memory", opt, arg);
		}
		buf = n;
		r = getgrnam_r(arg, &gr, buf, len, &g);
		if (r != ERANGE || len >= (1 << 24))
			break;
		len *= 2;
	}
	if (!r && g)
		*gid = (int)g->gr_gid;
	free(buf);
	/* glibc answers "not found" as success without an entry, or with one of these */
	if ((!r && !g) || r == ENOENT || r == ESRCH || r == EBADF || r == EPERM)
		return scxpol_err_quiet(ENOENT, "%s '%s': no such group", opt, arg);
	if (r)
		return scxpol_err_quiet(r, "%s '%s': cannot read the group database: %s", opt, arg,
					strerror(r));
	return 0;
}

static FILE *out_of(const struct scxpol_cli *c)
{
	return OPTS_GET(c, out, NULL) ?: stdout;
}

static FILE *err_of(const struct scxpol_cli *c)
{
	return OPTS_GET(c, err, NULL) ?: stderr;
}

static const char *prog_of(const struct scxpol_cli *c)
{
	return OPTS_GET(c, prog, NULL) ?: "scxpol";
}

/* scxpol_cli_finish() with its message to @err */
static int finish(const char *prog, FILE *out, FILE *err, int status)
{
	int e = fflush(out) ? errno : 0;

	if (!e && !ferror(out))
		return status;
	/* a write that failed before left the error flag, and errno may say anything by now */
	fprintf(err, "%s: cannot write the output: %s\n", prog,
		e ? strerror(e) : "an earlier write failed");
	return 1;
}

/* One option's line(s): "  NAME" padded to column 23, then its text. */
static void usage_line(FILE *f, const char *name, const char *text)
{
	fprintf(f, "  %-20s %s\n", name, text);
}

void scxpol_cli_usage(const struct scxpol_cli *c, FILE *f)
{
	unsigned int flags = OPTS_GET(c, flags, 0);
	char path[256], text[300];

	if (flags & SCXPOL_CLI_STATS_SOCKET) {
		if (scxpol_stats_socket_path(prog_of(c), path, sizeof(path)) < 0)
			snprintf(path, sizeof(path), "/run/scxpol/<policy>.sock");
		snprintf(text, sizeof(text), "stats socket (default %s)", path);
		usage_line(f, "--stats-socket PATH", text);
	}
	if (flags & SCXPOL_CLI_PIN_GROUP)
		usage_line(f, "--pin-group G", "group (name or number) that may write the pinned\n"
			   "                       maps and read the stats socket (mode 0660)");
	if (flags & SCXPOL_CLI_LOAD) {
		usage_line(f, "--load-only", "load through the verifier, then exit");
		usage_line(f, "--verifier-stats", "print each program's verified instructions");
		usage_line(f, "--max-restarts N", "give up after N restarts (CPU hotplug, "
			   "or the kernel\n                       asks); 0: none (default: no "
			   "limit)");
		usage_line(f, "--timeout-ms MS", "the kernel watchdog's timeout: a task "
			   "not run for MS ms\n                       ejects the policy "
			   "(1..30000; default the policy's)");
	}
	if (flags & SCXPOL_CLI_HINTS)
		usage_line(f, "--hint-prune SECS", "remove the hints of gone tasks and cgroups "
			   "at attach\n                       and every SECS s (default 60); 0: never");
	usage_line(f, "-v, --verbose", "verbose (library and libbpf messages)");
	usage_line(f, "-h, --help", "this text");
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	scxpol_cli_usage_fn fn = OPTS_GET(c, usage, NULL);

	if (fn) {
		fn(c, f);
	} else {
		fprintf(f, "usage: %s [options]\n", prog_of(c));
		scxpol_cli_usage(c, f);
	}
}

/* A getopt_long() result of the library's: a common option, or '?' */
static bool is_common(int opt)
{
	return opt == 'v' || opt == 'h' || opt == '?' || opt >= OPT_VERIFIER_STATS;
}

/* What struct scxpol_cli.flags must have for the common option @opt. */
static unsigned int needs(int opt)
{
	switch (opt) {
	case OPT_VERIFIER_STATS:
	case OPT_LOAD_ONLY:
	case OPT_MAX_RESTARTS:
	case OPT_TIMEOUT_MS:
		return SCXPOL_CLI_LOAD;
	case OPT_PIN_GROUP:
		return SCXPOL_CLI_PIN_GROUP;
	case OPT_STATS_SOCKET:
		return SCXPOL_CLI_STATS_SOCKET;
	case OPT_HINT_PRUNE:
		return SCXPOL_CLI_HINTS;
	}
	return 0;
}

/* An option the program does not offer: as getopt_long() says of unknown ones. */
static int refuse(const struct scxpol_cli *c, int opt)
{
	size_t i;

	for (i = 0; common_opts[i].val != opt; i++)
		;
	fprintf(err_of(c), "%s: unrecognized option '--%s'\n", prog_of(c), common_opts[i].name);
	usage(c, err_of(c));
	return 2;
}

/* The common option @opt, stored in @a: SCXPOL_CLI_CONTINUE or the exit status. */
static int common_option(const struct scxpol_cli *c, struct scxpol_cli_args *a, int opt,
			 const char *arg)
{
	unsigned long long n;
	int gid;

	if ((c->flags & needs(opt)) != needs(opt))
		return refuse(c, opt);
	switch (opt) {
	case 'v':
		a->verbose = true;
		scxpol_log_set(NULL, SCXPOL_LOG_DEBUG, NULL);
		return SCXPOL_CLI_CONTINUE;
	case 'h':
		usage(c, out_of(c));
		return finish(prog_of(c), out_of(c), err_of(c), 0);
	case OPT_VERIFIER_STATS:
		a->verifier_stats = true;
		return SCXPOL_CLI_CONTINUE;
	case OPT_LOAD_ONLY:
		a->load_only = true;
		return SCXPOL_CLI_CONTINUE;
	case OPT_PIN_GROUP:
		if (scxpol_cli_parse_group("--pin-group", arg, &gid))
			return scxpol_cli_usage_error(c);
		/* pin_gid 0 is "the loader's group": that is group 0 only for a loader in it */
		if (!gid && getegid()) {
			scxpol_err_quiet(EINVAL, "--pin-group '%s': group 0 is given only as the "
					 "loader's own group, and it runs with group %u", arg,
					 (unsigned int)getegid());
			return scxpol_cli_usage_error(c);
		}
		a->pin_gid = gid;
		a->pin_mode = 0660;
		return SCXPOL_CLI_CONTINUE;
	case OPT_STATS_SOCKET:
		a->stats_socket = arg;
		return SCXPOL_CLI_CONTINUE;
	case OPT_MAX_RESTARTS:
		if (scxpol_cli_parse_uint("--max-restarts", arg, 0, UINT_MAX, &n))
			return scxpol_cli_usage_error(c);
		a->max_restarts = (unsigned int)n;
		a->no_restart = !n;
		return SCXPOL_CLI_CONTINUE;
	case OPT_HINT_PRUNE:
		if (scxpol_cli_parse_uint("--hint-prune", arg, 0, UINT_MAX / 1000, &n))
			return scxpol_cli_usage_error(c);
		a->hint_prune_ms = (unsigned int)n * 1000;
		a->no_hint_prune = !n;
		return SCXPOL_CLI_CONTINUE;
	case OPT_TIMEOUT_MS:
		if (scxpol_cli_parse_uint("--timeout-ms", arg, 1, 30000, &a->timeout_ms))
			return scxpol_cli_usage_error(c);
		return SCXPOL_CLI_CONTINUE;
	}
	/* '?': getopt_long() has said what is wrong */
	usage(c, err_of(c));
	return 2;
}

/* A mistake of the program (not of its user): "<prog>: struct scxpol_cli: <what>" and 2. */
__attribute__((format(printf, 2, 3)))
static int misuse(const struct scxpol_cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(err_of(c), "%s: struct scxpol_cli: ", prog_of(c));
	va_start(ap, fmt);
	vfprintf(err_of(c), fmt, ap);
	va_end(ap);
	fputc('\n', err_of(c));
	return 2;
}

/* The program's own options redefine no common one, and have a callback: else 2. */
static int check_own(const struct scxpol_cli *c, size_t nr_own)
{
	const char *p;
	size_t i, k;

	for (p = c->shortopts ? c->shortopts : ""; *p; p++)
		if (*p == 'v' || *p == 'h')
			return misuse(c, "own option -%c is a common option", *p);
	for (i = 0; i < nr_own; i++) {
		for (k = 0; k < NR_COMMON; k++)
			if (!strcmp(c->options[i].name, common_opts[k].name))
				return misuse(c, "own option --%s is a common option",
					      c->options[i].name);
		if (!c->options[i].flag && is_common(c->options[i].val))
			return misuse(c, "own option --%s has the value %d of a common option",
				      c->options[i].name, c->options[i].val);
	}
	if ((nr_own || (c->shortopts && *c->shortopts)) && !c->option)
		return misuse(c, "own options without an option callback");
	return 0;
}

/* The getopt_long() loop over the merged tables @longopts and @shortopts. */
static int parse_loop(const struct scxpol_cli *c, struct scxpol_cli_args *a, int argc,
		      char **argv, const struct option *longopts, const char *shortopts)
{
	int opt, r = SCXPOL_CLI_CONTINUE;

	optind = 0; /* glibc: start over, whatever a previous parse left */
	/* getopt_long()'s messages go to stderr: not into another stream */
	opterr = err_of(c) == stderr;
	while (r == SCXPOL_CLI_CONTINUE &&
	       (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (!opt)
			continue; /* an own option with a flag: stored */
		r = is_common(opt) ? common_option(c, a, opt, optarg) : c->option(c, opt, optarg);
	}
	if (r == SCXPOL_CLI_CONTINUE && optind < argc) {
		fprintf(err_of(c), "%s: unexpected argument '%s' (see --help)\n", prog_of(c),
			argv[optind]);
		r = 2;
	}
	return r;
}

int scxpol_cli_parse(const struct scxpol_cli *c, struct scxpol_cli_args *a, int argc,
		     char **argv)
{
	struct option *longopts;
	char *shortopts;
	size_t nr_own = 0, i;
	int r;

	if (!c)
		scxpol_err(EINVAL, "scxpol_cli_parse: the struct scxpol_cli is NULL");
	if (!c || !OPTS_VALID(c, scxpol_cli))
		return scxpol_cli_usage_error(c);
	if (!OPTS_HAS(c, ctx))
		return misuse(c, "sz %zu is too small; set it to sizeof(struct scxpol_cli)", c->sz);
	if (!a) {
		scxpol_err(EINVAL, "scxpol_cli_parse: the struct scxpol_cli_args is NULL");
		return scxpol_cli_usage_error(c);
	}
	if (!OPTS_VALID(a, scxpol_cli_args))
		return scxpol_cli_usage_error(c);
	/* it writes the option values, so the struct must have them all */
	if (!OPTS_HAS(a, timeout_ms))
		return misuse(c, "sz %zu of struct scxpol_cli_args is too small; set it to "
			      "sizeof(struct scxpol_cli_args)", a->sz);
	memset((char *)a + sizeof(a->sz), 0, sizeof(*a) - sizeof(a->sz));
	while (c->options && c->options[nr_own].name)
		nr_own++;
	r = check_own(c, nr_own);
	if (r)
		return r;
	longopts = calloc(nr_own + NR_COMMON + 1, sizeof(*longopts));
	r = asprintf(&shortopts, "%s" COMMON_SHORTOPTS, c->shortopts ? c->shortopts : "");
	if (!longopts || r < 0) {
		free(longopts);
		if (r >= 0)
			free(shortopts);
		fprintf(err_of(c), "%s: out of memory\n", prog_of(c));
		return 1;
	}
	if (nr_own)
		memcpy(longopts, c->options, nr_own * sizeof(*longopts));
	for (i = 0; i < NR_COMMON; i++)
		longopts[nr_own++] = common_opts[i];
	r = parse_loop(c, a, argc, argv, longopts, shortopts);
	free(longopts);
	free(shortopts);
	return r;
}

int scxpol_cli_usage_error(const struct scxpol_cli *c)
{
	fprintf(err_of(c), "%s: %s\n", prog_of(c), scxpol_last_error());
	return 2;
}

int scxpol_cli_check_plan(const struct scxpol_cli *c, scxpol_sched_plan_fn plan, void *ctx)
{
	struct scxpol_pool_plan *p;
	struct scxpol_topo *topo;

	if (!c || !plan) {
		scxpol_err(EINVAL, "scxpol_cli_check_plan: %s is NULL",
			   c ? "the plan hook" : "the struct scxpol_cli");
		return 2;
	}
	topo = scxpol_topo_load(NULL);
	if (!topo) {
		fprintf(err_of(c), "%s: topology: %s\n", prog_of(c), scxpol_last_error());
		return 1;
	}
	p = plan(NULL, topo, ctx);
	scxpol_pool_plan_free(p);
	scxpol_topo_free(topo);
	return p ? SCXPOL_CLI_CONTINUE : 2;
}

int scxpol_cli_finish(const char *prog, FILE *out, int status)
{
	return finish(prog ? prog : "?", out ? out : stdout, stderr, status);
}

/* Attach and run @s with its stats served; 0 or a negative errno with a message. */
static int attach_and_run(struct scxpol_sched *s, const struct scxpol_cli *c,
			  const struct scxpol_cli_args *a, const struct scxpol_run_opts *ro, FILE *out)
{
	SCXPOL_OPTS(scxpol_stats_server_opts, so, .path = OPTS_GET(a, stats_socket, NULL),
		    .mode = OPTS_GET(a, pin_mode, 0), .gid = OPTS_GET(a, pin_gid, 0),
		    .stats = OPTS_GET(c, stats, NULL));
	struct scxpol_stats_server *srv = NULL;
	const char *name = scxpol_sched_name(s);
	sigset_t stop_sigs, old_mask;
	int r;

	if (bpf_object__find_map_by_name(scxpol_sched_object(s), STATS_MAP)) {
		srv = scxpol_stats_server_start(s, &so);
		if (!srv)
			return -errno;
	}
	/*
	 * Held until scxpol_sched_run() handles them: a script that sends
	 * SIGINT on reading "attached" must get an orderly detach, not a
	 * process killed with the scheduler attached until its links close.
	 */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old_mask);
	r = scxpol_sched_attach(s);
	if (!r) {
		fprintf(out, "%s: attached%s%s; SIGINT or SIGTERM detaches\n", name,
			srv ? "; stats on " : "", srv ? scxpol_stats_server_path(srv) : "");
		fflush(out);
		r = scxpol_sched_run(s, ro);
		/* not restarted: an error, as for a restart over a limit of 1 or more */
		if (!r && OPTS_GET(a, no_restart, false) && scxpol_sched_restart_refused(s))
			r = scxpol_err(ELOOP, "%s: %s (--max-restarts is 0)", name,
				       scxpol_sched_restart_refused(s));
		if (scxpol_sched_restarts(s))
			fprintf(out, "%s: restarts %u\n", name, scxpol_sched_restarts(s));
		scxpol_sched_print_exit(s, out);
		fflush(out);
	}
	scxpol_stats_server_stop(srv);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	return r;
}

/* The program's run options @ro, with --max-restarts's and --hint-prune's values when given. */
static void run_opts_of(const struct scxpol_cli_args *a, const struct scxpol_run_opts *ro,
			struct scxpol_run_opts *out)
{
	memset(out, 0, sizeof(*out));
	/* a larger @ro passed OPTS_VALID(): what this library does not know is zero */
	if (ro)
		memcpy(out, ro, ro->sz < sizeof(*out) ? ro->sz : sizeof(*out));
	out->sz = sizeof(*out);
	if (OPTS_GET(a, no_restart, false) || OPTS_GET(a, max_restarts, 0)) {
		out->no_restart = a->no_restart;
		out->max_restarts = a->max_restarts;
	}
	if (OPTS_GET(a, no_hint_prune, false) || OPTS_GET(a, hint_prune_ms, 0)) {
		out->no_hint_prune = a->no_hint_prune;
		out->hint_prune_ms = a->hint_prune_ms;
	}
}

int scxpol_cli_run(struct scxpol_sched *s, const struct scxpol_cli *c,
		   const struct scxpol_cli_args *a, const struct scxpol_run_opts *ro)
{
	SCXPOL_OPTS(scxpol_cli_args, none);
	struct scxpol_run_opts run;
	FILE *out = out_of(c);
	int r;

	if (!a)
		a = &none; /* no common option given */
	if (!s)
		r = -EINVAL; /* the open's message is the last error */
	else if (!OPTS_VALID(c, scxpol_cli) || !OPTS_VALID(a, scxpol_cli_args))
		r = -EINVAL;
	/* before anything is loaded or attached, not when the run starts */
	else if (!OPTS_VALID(ro, scxpol_run_opts))
		r = -EINVAL;
	else if (OPTS_GET(a, timeout_ms, 0))
		r = scxpol_sched_set_timeout(s, (unsigned int)a->timeout_ms);
	else
		r = 0;
	if (!r)
		r = scxpol_sched_load(s);
	if (!r && OPTS_GET(a, verifier_stats, false)) {
		r = scxpol_sched_print_prog_stats(s, out);
		fflush(out);
	}
	if (!r && !OPTS_GET(a, load_only, false)) {
		run_opts_of(a, ro, &run);
		r = attach_and_run(s, c, a, &run, out);
	}
	if (!r)
		return 0;
	fflush(out);
	fprintf(err_of(c), "error: %s\n", scxpol_last_error());
	return 1;
}
