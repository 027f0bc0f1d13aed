// SPDX-License-Identifier: GPL-2.0
/* minimal: load the minimal policy and run it until SIGINT/SIGTERM or exit. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/skel.h>

#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(minimal_bpf);

struct opts {
	unsigned long long slice_us;
};

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct minimal_bpf *m = skel;
	const struct opts *o = ctx;

	(void)s;
	m->rodata->slice_ns = o->slice_us * 1000;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: minimal [-s SLICE_US] [-v] [--verifier-stats] [--load-only]\n"
		   "  -s SLICE_US        time slice in microseconds (default 5000)\n"
		   "  -v                 verbose (library and libbpf messages)\n"
		   "  --verifier-stats   print each program's verified instructions\n"
		   "  --load-only        load through the verifier, then exit\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verifier-stats", no_argument, NULL, 'V' },
		{ "load-only", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o = { .slice_us = 5000 };
	bool stats = false, load_only = false;
	struct scxpol_sched *s;
	char *end;
	int c, r;

	/* lifecycle events (attach, exit, restart) are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	while ((c = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			o.slice_us = strtoull(optarg, &end, 10);
			if (errno || *end || !o.slice_us || o.slice_us > 1000000) {
				fprintf(stderr, "minimal: -s '%s': want 1..1000000 microseconds\n", optarg);
				return 2;
			}
			break;
		case 'v':
			scxpol_log_set(NULL, SCXPOL_LOG_DEBUG, NULL);
			break;
		case 'V':
			stats = true;
			break;
		case 'L':
			load_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(minimal_bpf),
		    .configure = configure, .ctx = &o);
	s = scxpol_sched_open(&sopts);
	if (!s) {
		fprintf(stderr, "error: %s\n", scxpol_last_error());
		return 1;
	}
	r = scxpol_sched_load(s);
	if (!r && stats)
		r = scxpol_sched_print_prog_stats(s, stdout);
	if (!r && !load_only) {
		r = scxpol_sched_attach(s);
		if (!r) {
			printf("minimal: attached (slice %llu us); SIGINT or SIGTERM detaches\n",
			       o.slice_us);
			fflush(stdout);
			r = scxpol_sched_run(s, NULL);
			scxpol_sched_print_exit(s, stdout);
		}
	}
	if (r)
		fprintf(stderr, "error: %s\n", scxpol_last_error());
	scxpol_sched_close(s);
	return r ? 1 : 0;
}
