// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include <scxpol/skel.h>

#include "mypol.bpf.skel.h"

SCXPOL_SKEL_DEFINE(mypol_bpf);

int main(int argc, char **argv)
{
	SCXPOL_OPTS(scxpol_sched_opts, opts, .skel = SCXPOL_SKEL(mypol_bpf));
	struct scxpol_sched *s = scxpol_sched_open(&opts);
	int r;

	if (!s) {
		fprintf(stderr, "mypol: %s\n", scxpol_last_error());
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--load-only"))
		r = scxpol_sched_load(s);
	else if (!(r = scxpol_sched_run(s, NULL)))
		scxpol_sched_print_exit(s, stdout);
	if (r)
		fprintf(stderr, "mypol: %s\n", scxpol_last_error());
	scxpol_sched_close(s);
	return r ? 1 : 0;
}
