// SPDX-License-Identifier: GPL-2.0
/* minimal: load the minimal policy and run it until SIGINT/SIGTERM or exit. */
#include <stdio.h>

#include <scxpol/cli.h>
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

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f, "usage: minimal [-s SLICE_US] [options]\n"
		   "  -s SLICE_US          time slice in microseconds (default 5000)\n");
	scxpol_cli_usage(c, f);
}

static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;

	(void)opt; /* -s, the only one */
	if (scxpol_cli_parse_uint("-s", arg, 1, 1000000, &o->slice_us))
		return scxpol_cli_usage_error(c);
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	struct opts o = { .slice_us = 5000 };
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "minimal", .usage = usage, .flags = SCXPOL_CLI_LOAD,
		    .shortopts = "s:", .option = option, .ctx = &o);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct scxpol_sched *s;
	int r;

	/* lifecycle events (attach, exit, restart) are worth an operator's eye */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(minimal_bpf),
		    .configure = configure, .ctx = &o);
	s = scxpol_sched_open(&sopts);
	r = scxpol_cli_run(s, &cli, &common, NULL);
	scxpol_sched_close(s);
	return r;
}
