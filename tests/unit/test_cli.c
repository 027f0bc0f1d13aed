// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A loader's command line on the host: every refused option value and its
 * message, groups by number and by name, scxpol_cli_parse() with a
 * program's own options and the common ones (values, exit statuses,
 * messages, usage text), and the error paths of scxpol_cli_run() (running
 * needs sched_ext: the VM suites run the loaders).
 */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxpol/cli.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>

#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(minimal_bpf);

static unsigned int logged;

static void count_log(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
	logged++;
}

static int setup(void **state)
{
	(void)state;
	scxpol_log_set(count_log, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

/* A struct scxpol_cli printing into memory, read back with take(). */
struct streams {
	char *out_buf, *err_buf;
	size_t out_len, err_len;
	FILE *out, *err;
};

static void open_streams(struct streams *st)
{
	memset(st, 0, sizeof(*st));
	st->out = open_memstream(&st->out_buf, &st->out_len);
	st->err = open_memstream(&st->err_buf, &st->err_len);
	assert_non_null(st->out);
	assert_non_null(st->err);
}

static void expect_streams(struct streams *st, const char *out, const char *err)
{
	fclose(st->out);
	fclose(st->err);
	assert_string_equal(st->out_buf, out);
	assert_string_equal(st->err_buf, err);
	free(st->out_buf);
	free(st->err_buf);
}

static void uint_refused(const char *arg, unsigned long long lo, unsigned long long hi, int err,
			 const char *msg)
{
	unsigned long long v = 77;

	logged = 0;
	assert_int_equal(scxpol_cli_parse_uint("--domains", arg, lo, hi, &v), -err);
	assert_string_equal(scxpol_last_error(), msg);
	assert_int_equal(v, 77);
	/* the program reports it: the library does not log it too */
	assert_int_equal(logged, 0);
}

static void test_parse_uint(void **state)
{
	unsigned long long v;

	(void)state;
	assert_int_equal(scxpol_cli_parse_uint("--n", "1", 1, 1024, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(scxpol_cli_parse_uint("--n", "1024", 1, 1024, &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(scxpol_cli_parse_uint("--n", "0", 0, 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(scxpol_cli_parse_uint("--n", "007", 0, 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(scxpol_cli_parse_uint("--seed", "18446744073709551615", 0, UINT64_MAX,
					       &v), 0);
	assert_true(v == UINT64_MAX);

	uint_refused("0", 1, 1024, ERANGE, "--domains '0': want a whole number in 1..1024");
	uint_refused("1025", 1, 1024, ERANGE, "--domains '1025': want a whole number in 1..1024");
	uint_refused("18446744073709551616", 0, UINT64_MAX, ERANGE,
		     "--domains '18446744073709551616': want a whole number in "
		     "0..18446744073709551615");
	uint_refused("x", 1, 1000000, EINVAL, "--domains 'x': want a whole number in 1..1000000");
	uint_refused("", 1, 2, EINVAL, "--domains '': want a whole number in 1..2");
	/* strtoull() would wrap "-1" around to the largest number */
	uint_refused("-1", 0, UINT64_MAX, EINVAL,
		     "--domains '-1': want a whole number in 0..18446744073709551615");
	uint_refused("+1", 0, 5, EINVAL, "--domains '+1': want a whole number in 0..5");
	uint_refused(" 1", 0, 5, EINVAL, "--domains ' 1': want a whole number in 0..5");
	uint_refused("1 ", 0, 5, EINVAL, "--domains '1 ': want a whole number in 0..5");
	uint_refused("1x", 0, 5, EINVAL, "--domains '1x': want a whole number in 0..5");
	uint_refused("1.5", 0, 5, EINVAL, "--domains '1.5': want a whole number in 0..5");
	uint_refused("0x10", 0, 100, EINVAL, "--domains '0x10': want a whole number in 0..100");
}

static void list_refused(const char *arg, char sep, unsigned int max, int err, const char *msg)
{
	unsigned long long v[4];

	logged = 0;
	assert_int_equal(scxpol_cli_parse_uint_list("--pid", arg, sep, 1, 100, v, max), -err);
	assert_string_equal(scxpol_last_error(), msg);
	assert_int_equal(logged, 0);
}

static void test_parse_uint_list(void **state)
{
	unsigned long long v[4] = { 0 };

	(void)state;
	assert_int_equal(scxpol_cli_parse_uint_list("--pid", "7", ',', 1, 100, v, 4), 1);
	assert_int_equal(v[0], 7);
	assert_int_equal(scxpol_cli_parse_uint_list("--pid", "1,100,007,5", ',', 1, 100, v, 4), 4);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 100);
	assert_int_equal(v[2], 7);
	assert_int_equal(v[3], 5);
	assert_int_equal(scxpol_cli_parse_uint_list("--minutes", "2-9", '-', 1, 100, v, 2), 2);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 9);

	list_refused("1,2,3", ',', 2, E2BIG, "--pid '1,2,3': more than 2 items");
	list_refused("", ',', 4, EINVAL, "--pid '': item 1 '': want a whole number in 1..100");
	list_refused("1,,2", ',', 4, EINVAL, "--pid '1,,2': item 2 '': want a whole number in 1..100");
	list_refused("1,", ',', 4, EINVAL, "--pid '1,': item 2 '': want a whole number in 1..100");
	list_refused("1, 2", ',', 4, EINVAL,
		     "--pid '1, 2': item 2 ' 2': want a whole number in 1..100");
	list_refused("1,x", ',', 4, EINVAL, "--pid '1,x': item 2 'x': want a whole number in 1..100");
	list_refused("1,-1", ',', 4, EINVAL,
		     "--pid '1,-1': item 2 '-1': want a whole number in 1..100");
	list_refused("0", ',', 4, ERANGE, "--pid '0': item 1 '0': want a whole number in 1..100");
	list_refused("1,101", ',', 4, ERANGE,
		     "--pid '1,101': item 2 '101': want a whole number in 1..100");
	/* leading zeros are no limit, as in one number; more digits than 64 bits hold are */
	assert_int_equal(scxpol_cli_parse_uint_list("--pid", "2,000000000000000000000000000000000001",
						    ',', 1, 100, v, 4), 2);
	assert_int_equal(v[1], 1);
	list_refused("1,100000000000000000000000000000000000", ',', 4, ERANGE,
		     "--pid '1,100000000000000000000000000000000000': item 2 "
		     "'100000000000000000000000000000000000': want a whole number in 1..100");
	list_refused("1,2x", ',', 4, EINVAL, "--pid '1,2x': item 2 '2x': want a whole number in 1..100");
	list_refused("1-2", '1', 4, EINVAL, "--pid: the separator '1' is a digit");
	/* a separator other than the one asked for is part of an item */
	list_refused("1-2", ',', 4, EINVAL, "--pid '1-2': item 1 '1-2': want a whole number in 1..100");
}

static void double_refused(const char *arg, double lo, double hi, int err, const char *msg)
{
	double v = 7;

	logged = 0;
	assert_int_equal(scxpol_cli_parse_double("--iat-alpha", arg, lo, hi, &v), -err);
	assert_string_equal(scxpol_last_error(), msg);
	assert_true(v == 7);
	assert_int_equal(logged, 0);
}

static void test_parse_double(void **state)
{
	double v;

	(void)state;
	assert_int_equal(scxpol_cli_parse_double("--x", "0.5", 0, 1, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(scxpol_cli_parse_double("--x", "1", 0, 1, &v), 0);
	assert_true(v == 1);
	assert_int_equal(scxpol_cli_parse_double("--x", "1e-3", 0, 1, &v), 0);
	assert_true(v == 1e-3);
	assert_int_equal(scxpol_cli_parse_double("--x", "-2.5", -3, 0, &v), 0);
	assert_true(v == -2.5);

	/* the lower bound is out, the upper one in */
	double_refused("0", 0, 1, ERANGE, "--iat-alpha '0': want a number in (0, 1]");
	double_refused("1.0001", 0, 1, ERANGE, "--iat-alpha '1.0001': want a number in (0, 1]");
	double_refused("-1", 0, 1e6, ERANGE, "--iat-alpha '-1': want a number in (0, 1e+06]");
	double_refused("inf", 0, 1e6, ERANGE, "--iat-alpha 'inf': want a number in (0, 1e+06]");
	double_refused("1e400", 0, 1e6, ERANGE, "--iat-alpha '1e400': want a number in (0, 1e+06]");
	double_refused("nan", 0, 1, EINVAL, "--iat-alpha 'nan': want a number in (0, 1]");
	double_refused("abc", 0, 1, EINVAL, "--iat-alpha 'abc': want a number in (0, 1]");
	double_refused("", 0, 1, EINVAL, "--iat-alpha '': want a number in (0, 1]");
	double_refused(" 0.5", 0, 1, EINVAL, "--iat-alpha ' 0.5': want a number in (0, 1]");
	double_refused("0.5x", 0, 1, EINVAL, "--iat-alpha '0.5x': want a number in (0, 1]");
}

/* A group of this system other than root, with a name that is not a number. */
static void other_group(char *name, size_t len, gid_t *gid)
{
	struct group *g;

	name[0] = '\0';
	setgrent();
	while ((g = getgrent())) {
		if (g->gr_gid && strspn(g->gr_name, "0123456789") != strlen(g->gr_name)) {
			snprintf(name, len, "%s", g->gr_name);
			*gid = g->gr_gid;
			break;
		}
	}
	endgrent();
	assert_true(name[0]);
}

static void group_refused(const char *arg, const char *msg)
{
	int gid = 77;

	logged = 0;
	assert_int_equal(scxpol_cli_parse_group("--pin-group", arg, &gid), -ENOENT);
	assert_string_equal(scxpol_last_error(), msg);
	assert_int_equal(gid, 77);
	assert_int_equal(logged, 0);
}

static void test_parse_group(void **state)
{
	char name[256];
	gid_t want = 0;
	int gid;

	(void)state;
	/* numbers are taken as they are, whether or not a group has them */
	assert_int_equal(scxpol_cli_parse_group("--pin-group", "4242", &gid), 0);
	assert_int_equal(gid, 4242);
	assert_int_equal(scxpol_cli_parse_group("--pin-group", "0", &gid), 0);
	assert_int_equal(gid, 0);
	assert_int_equal(scxpol_cli_parse_group("--pin-group", "2147483647", &gid), 0);
	assert_int_equal(gid, 2147483647);
	/* names */
	assert_int_equal(scxpol_cli_parse_group("--pin-group", "root", &gid), 0);
	assert_int_equal(gid, 0);
	other_group(name, sizeof(name), &want);
	assert_int_equal(scxpol_cli_parse_group("--pin-group", name, &gid), 0);
	assert_int_equal(gid, (int)want);

	group_refused("no-such-group", "--pin-group 'no-such-group': no such group");
	group_refused("", "--pin-group '': no such group");
	/* not a number a gid can be, so a name, and no group has it */
	group_refused("2147483648", "--pin-group '2147483648': no such group");
	group_refused("-1", "--pin-group '-1': no such group");
}

static void usage_fn(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f, "usage: mypol [options]\n"
		   "  -s SLICE_US          time slice\n");
	scxpol_cli_usage(c, f);
	fprintf(f, "Notes.\n");
}

#define ALL_FLAGS \
	(SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET | SCXPOL_CLI_HINTS)
#define USAGE_ALL                                                                    \
	"usage: mypol [options]\n"                                                   \
	"  -s SLICE_US          time slice\n"                                        \
	"  --stats-socket PATH  stats socket (default /run/scxpol/mypol.sock)\n"     \
	"  --pin-group G        group (name or number) that may write the pinned\n"  \
	"                       maps and read the stats socket (mode 0660)\n"        \
	"  --load-only          load through the verifier, then exit\n"              \
	"  --verifier-stats     print each program's verified instructions\n"       \
	"  --max-restarts N     give up after N restarts (CPU hotplug, or the kernel\n" \
	"                       asks); 0: none (default: no limit)\n"      \
	"  --timeout-ms MS      the kernel watchdog's timeout: a task not run for MS ms\n" \
	"                       ejects the policy (1..30000; default the policy's)\n" \
	"  --hint-prune SECS    remove the hints of gone tasks and cgroups at attach\n" \
	"                       and every SECS s (default 60); 0: never\n"                   \
	"  -v, --verbose        verbose (library and libbpf messages)\n"             \
	"  -h, --help           this text\n"                                         \
	"Notes.\n"
/* the library's usage: its synopsis and the lines a program offers */
#define USAGE_VH                                                                     \
	"  -v, --verbose        verbose (library and libbpf messages)\n"             \
	"  -h, --help           this text\n"
#define USAGE_LOAD                                                                   \
	"  --load-only          load through the verifier, then exit\n"              \
	"  --verifier-stats     print each program's verified instructions\n"        \
	"  --max-restarts N     give up after N restarts (CPU hotplug, or the kernel\n" \
	"                       asks); 0: none (default: no limit)\n"                \
	"  --timeout-ms MS      the kernel watchdog's timeout: a task not run for MS ms\n" \
	"                       ejects the policy (1..30000; default the policy's)\n" \
	USAGE_VH

/* The program's own options: -s/--slice-us, --version, and --fast (a flag entry). */
struct mypol {
	unsigned long long slice;
	unsigned int calls;	/* of the option callback */
};

static int fast;

static const struct option mypol_opts[] = {
	{ "slice-us", required_argument, NULL, 's' },
	{ "version", no_argument, NULL, 'V' },
	{ "fast", no_argument, &fast, 1 },
	{ 0 },
};

static int mypol_option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct mypol *m = c->ctx;

	m->calls++;
	switch (opt) {
	case 's':
		if (scxpol_cli_parse_uint("-s", arg, 1, 1000000, &m->slice))
			return scxpol_cli_usage_error(c);
		return SCXPOL_CLI_CONTINUE;
	case 'V':
		/* an exit status from the program's callback: 0 ends the parse too */
		fprintf(c->out, "mypol 1.0\n");
		return 0;
	}
	return 99; /* a value the program does not know: fails the test */
}

/* One parse: a struct scxpol_cli printing into memory, with mypol's options. */
struct parse {
	struct scxpol_cli cli;
	struct scxpol_cli_args a;
	struct mypol m;
	struct streams st;
};

/*
 * Parse @args (argv, NULL-terminated; copied: getopt_long() permutes it)
 * as @prog offering @flags, with @usage; the status. The log goes back to
 * count_log() after it (-v sets the library's own).
 */
static int parse(struct parse *p, const char *prog, unsigned int flags, scxpol_cli_usage_fn usage,
		 char *const *args)
{
	char *argv[24];
	int argc = 0, r;

	memset(p, 0, sizeof(*p));
	open_streams(&p->st);
	p->cli = (struct scxpol_cli){ .sz = sizeof(p->cli), .prog = prog, .flags = flags,
				      .usage = usage, .out = p->st.out, .err = p->st.err,
				      .options = mypol_opts, .shortopts = "s:",
				      .option = mypol_option, .ctx = &p->m };
	while (args[argc] && argc < 23) {
		argv[argc] = args[argc];
		argc++;
	}
	argv[argc] = NULL;
	fast = 0;
	p->a.sz = sizeof(p->a);
	r = scxpol_cli_parse(&p->cli, &p->a, argc, argv);
	scxpol_log_set(count_log, SCXPOL_LOG_DEBUG, NULL);
	return r;
}

static void test_values(void **state)
{
	char *all[] = { "mypol", "-s", "5", "--pin-group", "4242", "--verifier-stats",
			"--load-only", "--stats-socket", "/tmp/x.sock", "--fast", "-v",
			"--max-restarts", "3", "--hint-prune", "5", "--timeout-ms", "4000", NULL };
	char *no_restart[] = { "mypol", "--max-restarts", "0", "--hint-prune", "0", NULL };
	char *none[] = { "mypol", NULL };
	struct parse p;

	(void)state;
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, usage_fn, all), SCXPOL_CLI_CONTINUE);
	assert_int_equal(p.m.slice, 5);
	assert_int_equal(p.m.calls, 1);
	assert_int_equal(fast, 1);
	assert_int_equal(p.a.pin_gid, 4242);
	assert_int_equal(p.a.pin_mode, 0660);
	assert_true(p.a.verifier_stats);
	assert_true(p.a.load_only);
	assert_true(p.a.verbose);
	assert_string_equal(p.a.stats_socket, "/tmp/x.sock");
	assert_int_equal(p.a.max_restarts, 3);
	assert_false(p.a.no_restart);
	assert_int_equal(p.a.hint_prune_ms, 5000);
	assert_false(p.a.no_hint_prune);
	assert_int_equal(p.a.timeout_ms, 4000);
	expect_streams(&p.st, "", "");

	/* --max-restarts 0: scxpol_sched_run()'s no_restart (its max_restarts 0 is "no limit") */
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, no_restart), SCXPOL_CLI_CONTINUE);
	assert_true(p.a.no_restart);
	assert_int_equal(p.a.max_restarts, 0);
	/* --hint-prune 0: no_hint_prune (its hint_prune_ms 0 is "every 60 s") */
	assert_true(p.a.no_hint_prune);
	assert_int_equal(p.a.hint_prune_ms, 0);
	expect_streams(&p.st, "", "");

	/* nothing given: all zero, which scxpol_sched_opts reads as the loader's group */
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, none), SCXPOL_CLI_CONTINUE);
	assert_int_equal(p.a.pin_gid, 0);
	assert_int_equal(p.a.pin_mode, 0);
	assert_false(p.a.verifier_stats || p.a.load_only || p.a.verbose ||
		     p.a.no_restart || p.a.no_hint_prune);
	assert_int_equal(p.a.max_restarts, 0);
	assert_int_equal(p.a.hint_prune_ms, 0);
	assert_null(p.a.stats_socket);
	assert_int_equal(p.m.calls, 0);
	assert_int_equal(fast, 0);
	expect_streams(&p.st, "", "");
}

static void test_pin_group_by_name(void **state)
{
	char *args[] = { "mypol", "--pin-group", "root", NULL };
	struct parse p;

	(void)state;
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, args), SCXPOL_CLI_CONTINUE);
	assert_int_equal(p.a.pin_gid, 0);
	assert_int_equal(p.a.pin_mode, 0660);
	expect_streams(&p.st, "", "");
}

/*
 * Group 0 is pin_gid's "the loader's group": a loader running with another
 * group refuses --pin-group root rather than give the pins its own group.
 */
static void test_pin_group_root_needs_root_group(void **state)
{
	char *args[] = { "mypol", "--pin-group", "0", NULL };
	struct parse p;
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (setegid(4242))
			_exit(3);
		if (parse(&p, "mypol", ALL_FLAGS, NULL, args) != 2)
			_exit(1);
		fclose(p.st.out);
		fclose(p.st.err);
		_exit(strcmp(p.st.err_buf, "mypol: --pin-group '0': group 0 is given only as the "
				"loader's own group, and it runs with group 4242\n") ? 2 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A second parse starts over (getopt's optind), with operands moved after the options. */
static void test_parse_twice(void **state)
{
	char *first[] = { "mypol", "-s", "7", NULL };
	char *second[] = { "mypol", "--slice-us", "9", "-v", NULL };
	char *permuted[] = { "mypol", "extra", "-s", "3", NULL };
	struct parse p;

	(void)state;
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, first), SCXPOL_CLI_CONTINUE);
	assert_int_equal(p.m.slice, 7);
	expect_streams(&p.st, "", "");
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, second), SCXPOL_CLI_CONTINUE);
	assert_int_equal(p.m.slice, 9);
	assert_true(p.a.verbose);
	expect_streams(&p.st, "", "");
	/* the options are read wherever they are; the operand is still refused */
	assert_int_equal(parse(&p, "mypol", ALL_FLAGS, NULL, permuted), 2);
	assert_int_equal(p.m.slice, 3);
	expect_streams(&p.st, "", "mypol: unexpected argument 'extra' (see --help)\n");
}

/* Command lines that end the program: its exit status and what it printed. */
static const struct {
	const char *prog;
	unsigned int flags;
	scxpol_cli_usage_fn usage;
	char *argv[8];
	int status;
	const char *out, *err;
} endings[] = {
	/* -h ends the parse: --load-only and the operand after it are not seen */
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "-s", "1", "-h", "--load-only", "x" }, 0,
	  USAGE_ALL, "" },
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "--help" }, 0, USAGE_ALL, "" },
	/* the callback's exit status, 0 too */
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "--version", "extra" }, 0, "mypol 1.0\n", "" },
	/* getopt's '?' (its message goes to stderr only): unknown, missing argument */
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "--nope" }, 2, "", USAGE_ALL },
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "-x" }, 2, "", USAGE_ALL },
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "--pin-group" }, 2, "", USAGE_ALL },
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "-s" }, 2, "", USAGE_ALL },
	/* bad values, of the program's and of the common options */
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "-s", "0" }, 2, "",
	  "mypol: -s '0': want a whole number in 1..1000000\n" },
	{ "faas", ALL_FLAGS, NULL, { "faas", "--pin-group", "no-such-group" }, 2, "",
	  "faas: --pin-group 'no-such-group': no such group\n" },
	{ "ads", ALL_FLAGS, NULL, { "ads", "--timeout-ms", "0" }, 2, "",
	  "ads: --timeout-ms '0': want a whole number in 1..30000\n" },
	{ "ads", ALL_FLAGS, NULL, { "ads", "--timeout-ms", "30001" }, 2, "",
	  "ads: --timeout-ms '30001': want a whole number in 1..30000\n" },
	{ "faas-replay", 0, NULL, { "faas-replay", "--timeout-ms", "5" }, 2, "",
	  "faas-replay: unrecognized option '--timeout-ms'\nusage: faas-replay [options]\n" USAGE_VH },
	{ "ads", ALL_FLAGS, NULL, { "ads", "--max-restarts", "-1" }, 2, "",
	  "ads: --max-restarts '-1': want a whole number in 0..4294967295\n" },
	{ "ads", ALL_FLAGS, NULL, { "ads", "--max-restarts", "4294967296" }, 2, "",
	  "ads: --max-restarts '4294967296': want a whole number in 0..4294967295\n" },
	/* seconds, whose ms must fit the run's unsigned int */
	{ "faas", ALL_FLAGS, NULL, { "faas", "--hint-prune", "4294968" }, 2, "",
	  "faas: --hint-prune '4294968': want a whole number in 0..4294967\n" },
	{ "faas", ALL_FLAGS, NULL, { "faas", "--hint-prune", "1s" }, 2, "",
	  "faas: --hint-prune '1s': want a whole number in 0..4294967\n" },
	{ "mypol", ALL_FLAGS, usage_fn, { "mypol", "-v", "extra", "more" }, 2, "",
	  "mypol: unexpected argument 'extra' (see --help)\n" },
	/* common options the program does not offer */
	{ "minimal", SCXPOL_CLI_LOAD, NULL, { "minimal", "--pin-group", "4242" }, 2, "",
	  "minimal: unrecognized option '--pin-group'\nusage: minimal [options]\n" USAGE_LOAD },
	{ "minimal", SCXPOL_CLI_LOAD, NULL, { "minimal", "--stats-socket", "/x" }, 2, "",
	  "minimal: unrecognized option '--stats-socket'\nusage: minimal [options]\n" USAGE_LOAD },
	{ "minimal", SCXPOL_CLI_LOAD, NULL, { "minimal", "--hint-prune", "1" }, 2, "",
	  "minimal: unrecognized option '--hint-prune'\nusage: minimal [options]\n" USAGE_LOAD },
	{ "faas-replay", 0, NULL, { "faas-replay", "--load-only" }, 2, "",
	  "faas-replay: unrecognized option '--load-only'\nusage: faas-replay [options]\n" USAGE_VH },
	{ "faas-replay", 0, NULL, { "faas-replay", "--verifier-stats" }, 2, "",
	  "faas-replay: unrecognized option '--verifier-stats'\nusage: faas-replay [options]\n"
	  USAGE_VH },
	{ "faas-replay", 0, NULL, { "faas-replay", "--max-restarts", "1" }, 2, "",
	  "faas-replay: unrecognized option '--max-restarts'\nusage: faas-replay [options]\n"
	  USAGE_VH },
};

static void test_endings(void **state)
{
	struct parse p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		print_message("# %s %s\n", endings[i].argv[0], endings[i].argv[1]);
		assert_int_equal(parse(&p, endings[i].prog, endings[i].flags, endings[i].usage,
				       endings[i].argv), endings[i].status);
		/* nothing refused is stored */
		assert_false(p.a.load_only || p.a.verifier_stats);
		assert_int_equal(p.a.pin_mode, 0);
		assert_null(p.a.stats_socket);
		expect_streams(&p.st, endings[i].out, endings[i].err);
	}
}

/* Help that cannot be written (stdout on a full disk) is status 1, not 0. */
static void test_help_unwritable(void **state)
{
	char *argv[] = { "mypol", "--help", NULL };
	struct streams st;
	struct scxpol_cli c;
	SCXPOL_OPTS(scxpol_cli_args, a);
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(full);
	open_streams(&st);
	c = (struct scxpol_cli){ .sz = sizeof(c), .prog = "mypol", .flags = ALL_FLAGS,
				 .usage = usage_fn, .out = full, .err = st.err };
	assert_int_equal(scxpol_cli_parse(&c, &a, 2, argv), 1);
	scxpol_log_set(count_log, SCXPOL_LOG_DEBUG, NULL);
	fclose(full);
	expect_streams(&st, "", "mypol: cannot write the output: No space left on device\n");
}

/* scxpol_cli_finish(): the status when the output was written, else 1 and why */
static void test_finish(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *ok = open_memstream(&buf, &len), *full = fopen("/dev/full", "w");
	int fd = dup(2), pipefd[2];

	(void)state;
	assert_non_null(ok);
	assert_non_null(full);
	fputs("fine\n", ok);
	assert_int_equal(scxpol_cli_finish("mytool", ok, 0), 0);
	assert_int_equal(scxpol_cli_finish("mytool", ok, 3), 3);
	assert_string_equal(buf, "fine\n");
	fclose(ok);
	free(buf);

	/* the message goes to stderr: catch it in a pipe */
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(dup2(pipefd[1], 2), 2);
	fputs("lost\n", full);
	assert_int_equal(scxpol_cli_finish("mytool", full, 0), 1);
	fclose(full);
	/* unbuffered: the write failed already, the flush has nothing to say */
	full = fopen("/dev/full", "w");
	assert_non_null(full);
	setvbuf(full, NULL, _IONBF, 0);
	assert_true(fputs("lost\n", full) == EOF);
	errno = 0;
	assert_int_equal(scxpol_cli_finish(NULL, full, 0), 1);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
	close(pipefd[1]);
	{
		char got[256];
		ssize_t n = read(pipefd[0], got, sizeof(got) - 1);

		assert_true(n > 0);
		got[n] = '\0';
		assert_string_equal(got, "mytool: cannot write the output: No space left on device\n"
					 "?: cannot write the output: an earlier write failed\n");
	}
	close(pipefd[0]);
	fclose(full);
}

/* Mistakes of the program: 2 and a message naming the struct. */
static void test_misuse(void **state)
{
	static const struct option own_verbose[] = {
		{ "verbose", no_argument, NULL, 'x' },
		{ 0 },
	};
	static const struct option own_value[] = {
		{ "slow", no_argument, NULL, 0x10000 },
		{ 0 },
	};
	char *args[] = { "mypol", "-s", "5", NULL };
	char want[512];
	struct parse p;
	SCXPOL_OPTS(scxpol_cli_args, a);
	struct scxpol_cli_args old_args = { .sz = offsetof(struct scxpol_cli_args, timeout_ms) };

	(void)state;
	/* a struct from before the own options */
	open_streams(&p.st);
	SCXPOL_OPTS(scxpol_cli, old, .prog = "mypol", .out = p.st.out, .err = p.st.err);
	old.sz = offsetof(struct scxpol_cli, options);
	assert_int_equal(scxpol_cli_parse(&old, &a, 3, args), 2);
	/* the values' struct must hold every value; there must be one */
	old.sz = sizeof(old);
	assert_int_equal(scxpol_cli_parse(&old, &old_args, 3, args), 2);
	assert_int_equal(scxpol_cli_parse(&old, NULL, 3, args), 2);
	snprintf(want, sizeof(want), "mypol: struct scxpol_cli: sz %zu is too small; set it to "
		 "sizeof(struct scxpol_cli)\n"
		 "mypol: struct scxpol_cli: sz %zu of struct scxpol_cli_args is too small; set it "
		 "to sizeof(struct scxpol_cli_args)\n"
		 "mypol: scxpol_cli_parse: the struct scxpol_cli_args is NULL\n",
		 offsetof(struct scxpol_cli, options), offsetof(struct scxpol_cli_args, timeout_ms));
	expect_streams(&p.st, "", want);

	/* own options that redefine a common one, or without a callback */
	open_streams(&p.st);
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "mypol", .out = p.st.out, .err = p.st.err,
		    .option = mypol_option, .ctx = &p.m, .shortopts = "s:v");
	assert_int_equal(scxpol_cli_parse(&cli, &a, 3, args), 2);
	cli.shortopts = NULL;
	cli.options = own_verbose;
	assert_int_equal(scxpol_cli_parse(&cli, &a, 3, args), 2);
	cli.options = own_value;
	assert_int_equal(scxpol_cli_parse(&cli, &a, 3, args), 2);
	cli.options = mypol_opts;
	cli.option = NULL;
	assert_int_equal(scxpol_cli_parse(&cli, &a, 3, args), 2);
	expect_streams(&p.st, "",
		       "mypol: struct scxpol_cli: own option -v is a common option\n"
		       "mypol: struct scxpol_cli: own option --verbose is a common option\n"
		       "mypol: struct scxpol_cli: own option --slow has the value 65536 of a common "
		       "option\n"
		       "mypol: struct scxpol_cli: own options without an option callback\n");
}

/* Run scxpol_cli_parse(@c, @args) with stderr in a file; its status, what stderr got in @buf. */
static int parse_to_stderr(struct scxpol_cli *c, char **args, char *buf, size_t len)
{
	SCXPOL_OPTS(scxpol_cli_args, a);
	FILE *f = tmpfile();
	int fd, r, argc = 0;
	size_t n;

	assert_non_null(f);
	while (args[argc])
		argc++;
	fflush(stderr);
	fd = dup(2);
	assert_true(fd >= 0 && dup2(fileno(f), 2) == 2);
	r = scxpol_cli_parse(c, &a, argc, args);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return r;
}

/* With stderr as the err stream (the default), getopt_long()'s messages are there too. */
static void test_getopt_messages(void **state)
{
	char *unknown[] = { "mypol", "--nope", NULL };
	char *missing[] = { "mypol", "--pin-group", NULL };
	struct streams st;
	char buf[1024];

	(void)state;
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "mypol", .flags = SCXPOL_CLI_LOAD);
	assert_int_equal(parse_to_stderr(&cli, unknown, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "mypol: unrecognized option '--nope'\n"
				 "usage: mypol [options]\n" USAGE_LOAD);
	assert_int_equal(parse_to_stderr(&cli, missing, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "mypol: option '--pin-group' requires an argument\n"
				 "usage: mypol [options]\n" USAGE_LOAD);
	/* no struct at all */
	assert_int_equal(parse_to_stderr(NULL, unknown, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "scxpol: scxpol_cli_parse: the struct scxpol_cli is NULL\n");
	/* another err stream: getopt_long() says nothing on stderr */
	open_streams(&st);
	cli.err = st.err;
	assert_int_equal(parse_to_stderr(&cli, unknown, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "");
	expect_streams(&st, "", "usage: mypol [options]\n" USAGE_LOAD);
}

static void test_run_errors(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, no_skel);
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf));
	char root[] = "/tmp/scxpol-cli-test.XXXXXX", want[512];
	struct {
		struct scxpol_run_opts ro;
		char newer;
	} bad_ro = { .ro.sz = sizeof(bad_ro), .newer = 1 };
	struct scxpol_sched *s;
	struct streams st;

	(void)state;
	/* the open failed: its message */
	open_streams(&st);
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "mypol", .flags = ALL_FLAGS, .out = st.out,
		    .err = st.err);
	SCXPOL_OPTS(scxpol_cli_args, args, .verifier_stats = true);
	s = scxpol_sched_open(&no_skel);
	assert_null(s);
	assert_int_equal(scxpol_cli_run(s, &cli, &args, NULL), 1);
	expect_streams(&st, "",
		       "error: scxpol_sched_open: opts.skel is NULL; use SCXPOL_SKEL(name)\n");

	/* the load failed: a kernel without sched_ext */
	assert_non_null(mkdtemp(root));
	o.sysfs_root = root;
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	/* run options this library does not know: refused before the load */
	open_streams(&st);
	cli.out = st.out;
	cli.err = st.err;
	assert_int_equal(scxpol_cli_run(s, &cli, &args, &bad_ro.ro), 1);
	snprintf(want, sizeof(want), "error: scxpol_run_opts: caller's struct has non-zero fields "
		 "this libscxpol (%s) does not know (byte %zu)\n", scxpol_version(),
		 sizeof(struct scxpol_run_opts));
	expect_streams(&st, "", want);
	open_streams(&st);
	cli.out = st.out;
	cli.err = st.err;
	assert_int_equal(scxpol_cli_run(s, &cli, &args, NULL), 1);
	scxpol_sched_close(s);
	snprintf(want, sizeof(want), "error: this kernel has no sched_ext (%s/sys/kernel/sched_ext "
		 "is missing; it needs CONFIG_SCHED_CLASS_EXT=y, Linux 6.12 or later)\n", root);
	expect_streams(&st, "", want);
	assert_int_equal(rmdir(root), 0);
}

struct checked {
	int ret;
	unsigned int calls;
	bool had_sched, had_topo;
};

static struct scxpol_pool_plan *check_hook(struct scxpol_sched *s,
					   const struct scxpol_topo *topo, void *ctx)
{
	struct checked *c = ctx;

	c->calls++;
	c->had_sched = s != NULL;
	c->had_topo = topo != NULL;
	if (c->ret) {
		errno = -c->ret;
		return NULL;
	}
	return scxpol_pool_plan_new(topo);
}

/*
 * scxpol_cli_check_plan() runs the plan hook once, with no scheduler, over
 * the host's topology (which must load), and frees its plan: go on after a
 * plan, exit status 2 after a failed one; the hook says why, not the
 * library.
 */
static void test_check_plan(void **state)
{
	struct checked c = { 0 };
	struct streams st;

	(void)state;
	open_streams(&st);
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "mypol", .out = st.out, .err = st.err);
	assert_int_equal(scxpol_cli_check_plan(&cli, check_hook, &c), SCXPOL_CLI_CONTINUE);
	assert_int_equal(c.calls, 1);
	assert_false(c.had_sched);
	assert_true(c.had_topo);
	c.ret = -EINVAL;
	assert_int_equal(scxpol_cli_check_plan(&cli, check_hook, &c), 2);
	assert_int_equal(c.calls, 2);
	assert_int_equal(scxpol_cli_check_plan(&cli, NULL, &c), 2);
	assert_string_equal(scxpol_last_error(), "scxpol_cli_check_plan: the plan hook is NULL");
	expect_streams(&st, "", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_parse_uint_list),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_parse_group),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_pin_group_by_name),
		cmocka_unit_test(test_pin_group_root_needs_root_group),
		cmocka_unit_test(test_parse_twice),
		cmocka_unit_test(test_endings),
		cmocka_unit_test(test_help_unwritable),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_getopt_messages),
		cmocka_unit_test(test_check_plan),
		cmocka_unit_test(test_run_errors),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
