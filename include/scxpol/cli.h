/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The command line of a policy loader: option values checked with
 * messages naming the option, the options every loader shares, the
 * getopt_long() loop, and the sequence of main() once the policy is open.
 *
 * A loader describes its own options and handles each in a callback; the
 * library runs the loop, with the common options merged in:
 *
 *   static int option(const struct scxpol_cli *c, int opt, const char *arg)
 *   {
 *           struct opts *o = c->ctx;
 *
 *           switch (opt) {
 *           case 's':
 *                   if (scxpol_cli_parse_uint("--slice-us", arg, 1, 1000000,
 *                                             &o->slice_us))
 *                           return scxpol_cli_usage_error(c);
 *                   break;
 *           }
 *           return SCXPOL_CLI_CONTINUE;
 *   }
 *
 *   static const struct option longopts[] = {
 *           { "slice-us", required_argument, NULL, 's' },
 *           { 0 },
 *   };
 *   SCXPOL_OPTS(scxpol_cli, cli, .prog = "mypol", .usage = usage,
 *               .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_STATS_SOCKET,
 *               .options = longopts, .shortopts = "s:", .option = option,
 *               .ctx = &o);
 *
 *   SCXPOL_OPTS(scxpol_cli_args, args);
 *
 *   r = scxpol_cli_parse(&cli, &args, argc, argv);
 *   if (r != SCXPOL_CLI_CONTINUE)
 *           return r;
 *   ... s = scxpol_sched_open(&opts);   (pin_mode, pin_gid from args)
 *   r = scxpol_cli_run(s, &cli, &args, NULL);
 *   scxpol_sched_close(s);
 *   return r;
 *
 * One convention throughout: a function or callback that may end the
 * program returns SCXPOL_CLI_CONTINUE (-1) for "go on", or else the exit
 * status: 0 success (and --help), 1 an error while running, 2 bad usage.
 * Unlike the rest of the library, these functions print: to the streams
 * the program gives in struct scxpol_cli (stdout and stderr by default),
 * since talking to the user is what they are for.
 */
#ifndef SCXPOL_CLI_H
#define SCXPOL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <scxpol/common.h>
#include <scxpol/sched.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_sched;
struct scxpol_run_opts;
struct scxpol_stats_opts;

/* ---- Option values ---- */

/*
 * The parsers below record a message naming @opt and @arg on failure
 * (scxpol_last_error()), without logging it: reporting bad usage is the
 * program's part (scxpol_cli_usage_error()).
 */

/*
 * scxpol_cli_parse_uint - @arg as a whole number in @lo..@hi into *@out:
 * decimal digits only (no sign, no space). 0; -EINVAL for anything else,
 * -ERANGE for a number outside @lo..@hi; the message is "<@opt> '<@arg>':
 * want a whole number in <@lo>..<@hi>".
 */
SCXPOL_API int scxpol_cli_parse_uint(const char *opt, const char *arg, unsigned long long lo,
				     unsigned long long hi, unsigned long long *out);

/*
 * scxpol_cli_parse_uint_list - @arg as up to @max whole numbers in
 * @lo..@hi separated by @sep (",": "3,5,8"), each read as
 * scxpol_cli_parse_uint() reads one, into @out[0..]. An empty item ("",
 * "1,,2", a trailing @sep) is refused like any other that is no number.
 * The number of items (1..@max); -EINVAL for a bad item, -ERANGE for one
 * outside @lo..@hi, -E2BIG for more than @max; the message is "<@opt>
 * '<@arg>': item <n> '<item>': want a whole number in <@lo>..<@hi>" or
 * "<@opt> '<@arg>': more than <@max> items". A failed parse may have
 * written @out up to the bad item.
 */
SCXPOL_API int scxpol_cli_parse_uint_list(const char *opt, const char *arg, char sep,
					  unsigned long long lo, unsigned long long hi,
					  unsigned long long *out, unsigned int max);

/*
 * scxpol_cli_parse_double - @arg as a number greater than @lo and at most
 * @hi into *@out (a decimal number as strtod() reads it: no hex, no leading
 * space, no NaN).
 * 0; -EINVAL for anything else, -ERANGE outside the range; the message is
 * "<@opt> '<@arg>': want a number in (<@lo>, <@hi>]".
 */
SCXPOL_API int scxpol_cli_parse_double(const char *opt, const char *arg, double lo, double hi,
				       double *out);

/*
 * scxpol_cli_parse_group - @arg as a group into *@gid: a number
 * (0..2147483647, taken as it is, like chown(1) does) or else the name of
 * a group of the system's group database. 0; -ENOENT with "<@opt>
 * '<@arg>': no such group"; the lookup's errno when the database cannot
 * be read.
 */
SCXPOL_API int scxpol_cli_parse_group(const char *opt, const char *arg, int *gid);

/* ---- Common options ---- */

/* What a program offers besides -v and -h (struct scxpol_cli.flags). */
enum scxpol_cli_flags {
	/*
	 * --verifier-stats, --load-only, --max-restarts, --timeout-ms: the
	 * program loads a policy
	 */
	SCXPOL_CLI_LOAD = 1 << 0,
	/* --pin-group: the policy pins maps (hints) others may write */
	SCXPOL_CLI_PIN_GROUP = 1 << 1,
	/* --stats-socket: the policy has stats (<scxpol/stats.h>) */
	SCXPOL_CLI_STATS_SOCKET = 1 << 2,
	/* --hint-prune: the policy has hints (<scxpol/hint.h>) */
	SCXPOL_CLI_HINTS = 1 << 3,
};

struct scxpol_cli;

/*
 * Prints the program's usage to @f: its synopsis and its own options,
 * with scxpol_cli_usage(@c, @f) where the common options' lines go.
 */
typedef void (*scxpol_cli_usage_fn)(const struct scxpol_cli *c, FILE *f);

/*
 * Handles @opt, one of the program's own options (the val of its struct
 * option, or the character of its short option), with @arg its argument
 * (NULL for none): stores it (@c's ctx is the program's) and returns
 * SCXPOL_CLI_CONTINUE, or ends the parse with the exit status returned
 * (scxpol_cli_usage_error() for a bad value). Note that 0 is not "go on":
 * it ends the program with success.
 */
typedef int (*scxpol_cli_option_fn)(const struct scxpol_cli *c, int opt, const char *arg);

struct scxpol_cli {
	size_t sz;
	/* ---- set by the program ---- */
	/*
	 * Its name, before its messages ("faas"). Name a loader after its
	 * policy: the usage text gives /run/scxpol/<prog>.sock as the default
	 * stats socket.
	 */
	const char *prog;
	unsigned int flags;	/* enum scxpol_cli_flags */
	/* NULL: "usage: <prog> [options]" and the common options' lines */
	scxpol_cli_usage_fn usage;
	/* Counter names and pools of the stats server; NULL: the library's counters. */
	const struct scxpol_stats_opts *stats;
	/* Where messages go; NULL: stdout and stderr. */
	FILE *out;
	FILE *err;
	/* ---- its own options; NULL when it has none ---- */
	/*
	 * Its long options, ended by { 0 }, without the common ones (the
	 * library adds them). A val is any value but 0, '?', ':', 'v', 'h'
	 * and those from 0x10000 up, the library's; an entry with a flag is
	 * stored by getopt_long() without a call of @option.
	 */
	const struct option *options;
	/* Its short options, in getopt()'s syntax ("s:"), without -v and -h. */
	const char *shortopts;
	/* Called with each of its options, in command line order. */
	scxpol_cli_option_fn option;
	void *ctx;	/* the program's, for @option */
};
#define scxpol_cli__last_field ctx

/*
 * The common options as scxpol_cli_parse() read them (it zeroes the rest):
 * zero when an option is not given. The program's own options are its
 * option callback's to store.
 */
struct scxpol_cli_args {
	size_t sz;
	bool verbose;			/* -v, --verbose */
	bool verifier_stats;		/* --verifier-stats */
	bool load_only;			/* --load-only */
	/*
	 * --pin-group G: G's gid and mode 0660, for scxpol_sched_opts'
	 * pin_gid and pin_mode; scxpol_cli_run() gives the stats socket the
	 * same. Group 0 (root) is refused unless the loader runs with group
	 * 0: pin_gid 0 means the loader's group.
	 */
	int pin_gid;
	unsigned int pin_mode;
	const char *stats_socket;	/* --stats-socket PATH */
	/*
	 * --max-restarts N: scxpol_cli_run() gives scxpol_sched_run() N as
	 * max_restarts, or no_restart for N = 0.
	 */
	bool no_restart;
	unsigned int max_restarts;
	/*
	 * --hint-prune SECS: scxpol_cli_run() gives scxpol_sched_run() SECS
	 * (in ms) as hint_prune_ms, or no_hint_prune for 0.
	 */
	bool no_hint_prune;
	unsigned int hint_prune_ms;
	/* --timeout-ms MS: scxpol_cli_run() calls scxpol_sched_set_timeout(MS); 0: not given */
	unsigned long long timeout_ms;
};
#define scxpol_cli_args__last_field timeout_ms

/* "Go on": any other return of the functions below is an exit status. */
#define SCXPOL_CLI_CONTINUE (-1)

/*
 * scxpol_cli_parse - the command line @argc, @argv: the program's own
 * options (to @c's option, in order) and the common ones (stored in @a;
 * -v also logs everything: scxpol_log_set(NULL, SCXPOL_LOG_DEBUG, NULL)).
 * SCXPOL_CLI_CONTINUE when main() goes on; else the program exits with
 * the status returned, which is
 *   - 0 after -h, --help (the usage to @c's out; nothing after it is read),
 *     or 1 if it could not be written ("<prog>: cannot write the output:
 *     <error>" to @c's err, as scxpol_cli_finish());
 *   - @c's option's return when it is not SCXPOL_CLI_CONTINUE;
 *   - 2 after getopt_long()'s complaint (unknown option, missing
 *     argument: its message goes to stderr, and only when @c's err is
 *     stderr), or a common option @c's flags do not offer ("<prog>:
 *     unrecognized option '<name>'"), each followed by the usage on @c's
 *     err; a bad --pin-group, --max-restarts, --hint-prune or --timeout-ms ("<prog>:
 *     <message>"); an operand ("<prog>: unexpected argument '<first>'
 *     (see --help)"); or a mistake of the program: own options that
 *     redefine a common one, own options without @c's option, a @c or
 *     @a too small (its sz). An @a whose sz ends before max_restarts,
 *     hint_prune_ms or timeout_ms (a program built before it) is not
 *     offered --max-restarts, --hint-prune or --timeout-ms, and @c may
 *     have an own option of that name.
 * Starts getopt_long() over (optind), so it may be called again.
 */
SCXPOL_API int scxpol_cli_parse(const struct scxpol_cli *c, struct scxpol_cli_args *a, int argc,
				char **argv);

/*
 * scxpol_cli_usage - the lines of the common options @c offers to @f, two
 * spaces in, descriptions at column 23 (as the program's own lines should
 * be), from --stats-socket to -h.
 */
SCXPOL_API void scxpol_cli_usage(const struct scxpol_cli *c, FILE *f);

/*
 * scxpol_cli_usage_error - for a bad value of the program's own option
 * (the scxpol_cli_parse_*() above record its message): print "<prog>:
 * <scxpol_last_error()>" to @c's err and return 2.
 */
SCXPOL_API int scxpol_cli_usage_error(const struct scxpol_cli *c);

/*
 * scxpol_cli_finish - the exit status of a program that wrote to @out
 * (NULL: stdout): @status, or 1 when @out could not be written (a full
 * disk, a closed pipe), saying "<prog>: cannot write the output: <error>"
 * on stderr. Output lost must not end in success. Flushes @out.
 */
SCXPOL_API int scxpol_cli_finish(const char *prog, FILE *out, int status);

/*
 * scxpol_cli_check_plan - the options against the machine before the
 * policy is opened: run @plan, the loader's plan hook (struct
 * scxpol_sched_opts), once with @ctx over the topology as it is now, with
 * NULL for its scheduler, and free its plan. SCXPOL_CLI_CONTINUE; 2 when
 * the hook failed (it says why: it knows the options); 1 when the topology
 * cannot be read ("<prog>: topology: <message>" to @c's err).
 */
SCXPOL_API int scxpol_cli_check_plan(const struct scxpol_cli *c, scxpol_sched_plan_fn plan,
				     void *ctx);

/* ---- Running ---- */

/*
 * scxpol_cli_run - the rest of a loader's main() once @s is open, with
 * the common options @a that scxpol_cli_parse() read: load;
 * with --verifier-stats print the verifier's counts (and the run counts
 * at detach, see scxpol_sched_print_prog_stats()); with --load-only stop
 * there. Else start the stats server when the policy has stats (the
 * scxpol_stats map; at --stats-socket, with --pin-group's group and mode,
 * counters named by @c's stats), attach, print "<policy>: attached[; stats
 * on <path>]; SIGINT or SIGTERM detaches", run with @ro
 * (scxpol_sched_run(); --max-restarts replaces @ro's max_restarts and
 * no_restart, --hint-prune its hint_prune_ms and no_hint_prune), stop the
 * server, print "<policy>: restarts <n>" if there were any and the exit
 * line (scxpol_sched_print_exit()).
 * Returns the exit status: 0, or 1 after printing "error: <message>" to
 * @c's err. @s may be NULL: then the failure of the scxpol_sched_open()
 * that returned it is the error printed. The caller closes @s.
 */
SCXPOL_API int scxpol_cli_run(struct scxpol_sched *s, const struct scxpol_cli *c,
			      const struct scxpol_cli_args *a, const struct scxpol_run_opts *ro);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_CLI_H */
