// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the command-line parsers of <scxpol/cli.h>: a loader's
 * whole command line through scxpol_cli_parse(), with own options that use
 * scxpol_cli_parse_uint(), _uint_list(), _double() and _group().
 *
 * Input: one byte of enum scxpol_cli_flags (which common options the
 * program offers), then the arguments, separated by NUL bytes (at most
 * 32). The parse returns "go on" or an exit status of 0 (help, on the out
 * stream), 1, or 2 (a message on the err stream); a second parse of the
 * same arguments gives the same result (getopt_long() starts over); the
 * own parsers' values are in range or their message names the option.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cli.h>

#include "internal.h"

#include "fuzz.h"

#define MAX_ARGS 32
#define LIST_MAX 4

FUZZ_INITIALIZE_QUIET()

struct own {
	unsigned long long num, list[LIST_MAX];
	int nr_list, gid;
	double ratio;
};

/* The own parsers' verdicts: in range when they succeed, a message naming the option if not. */
static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct own *o = c->ctx;
	int r, i;

	scxpol_err_clear();
	switch (opt) {
	case 'n':
		r = scxpol_cli_parse_uint("--num", arg, 3, 1000, &o->num);
		CHECK(r ? (r == -EINVAL || r == -ERANGE) : (o->num >= 3 && o->num <= 1000));
		if (r)
			CHECK(!strncmp(scxpol_last_error(), "--num '", 7));
		break;
	case 'l':
		r = scxpol_cli_parse_uint_list("--list", arg, ',', 0, 99, o->list, LIST_MAX);
		CHECK(r > 0 || r == -EINVAL || r == -ERANGE || r == -E2BIG);
		if (r > 0) {
			CHECK(r <= LIST_MAX);
			for (i = 0; i < r; i++)
				CHECK(o->list[i] <= 99);
			o->nr_list = r;
		}
		if (r < 0)
			CHECK(!strncmp(scxpol_last_error(), "--list '", 8));
		r = r < 0 ? r : 0;
		break;
	case 'r':
		r = scxpol_cli_parse_double("--ratio", arg, 0.0, 1.0, &o->ratio);
		CHECK(r ? (r == -EINVAL || r == -ERANGE) : (o->ratio > 0.0 && o->ratio <= 1.0));
		if (r)
			CHECK(!strncmp(scxpol_last_error(), "--ratio '", 9));
		break;
	case 'g':
		r = scxpol_cli_parse_group("--group", arg, &o->gid);
		CHECK(r ? r < 0 : o->gid >= 0);
		if (r)
			CHECK(!strncmp(scxpol_last_error(), "--group '", 9));
		break;
	default:
		CHECK(0);
	}
	return r ? scxpol_cli_usage_error(c) : SCXPOL_CLI_CONTINUE;
}

struct result {
	int r;
	struct own o;
	struct scxpol_cli_args args; /* zeroed padding included: compared whole */
};

static void parse(unsigned int flags, int argc, char **argv, struct result *res)
{
	static const struct option longopts[] = {
		{ "num", required_argument, NULL, 'n' },
		{ "list", required_argument, NULL, 'l' },
		{ "ratio", required_argument, NULL, 'r' },
		{ "group", required_argument, NULL, 'g' },
		{ 0 },
	};
	char *out_text = NULL, *err_text = NULL;
	size_t out_len = 0, err_len = 0;
	FILE *out = open_memstream(&out_text, &out_len);
	FILE *err = open_memstream(&err_text, &err_len);
	char **copy = malloc(((size_t)argc + 1) * sizeof(*copy));

	CHECK(out && err && copy);
	/* getopt_long() reorders the arguments: each parse gets the original order */
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	memset(res, 0, sizeof(*res));
	SCXPOL_OPTS(scxpol_cli, c, .prog = "fuzz", .flags = flags, .out = out, .err = err,
		    .options = longopts, .shortopts = "n:l:r:g:", .option = option, .ctx = &res->o);
	struct scxpol_cli_args *a = &res->args;

	a->sz = sizeof(*a);
	res->r = scxpol_cli_parse(&c, a, argc, copy);
	fuzz_quiet_log(); /* -v turned the log on */
	fflush(out);
	fflush(err);
	CHECK(res->r == SCXPOL_CLI_CONTINUE || res->r == 0 || res->r == 1 || res->r == 2);
	if (res->r == 0)
		CHECK(out_len && strstr(out_text, "usage: fuzz"));
	if (res->r == 2)
		CHECK(err_len > 0);
	if (res->r == SCXPOL_CLI_CONTINUE) {
		CHECK(!err_len);
		CHECK((flags & SCXPOL_CLI_LOAD) || (!a->verifier_stats && !a->load_only &&
						    !a->no_restart && !a->max_restarts));
		CHECK((flags & SCXPOL_CLI_PIN_GROUP) || (!a->pin_gid && !a->pin_mode));
		CHECK((flags & SCXPOL_CLI_STATS_SOCKET) || !a->stats_socket);
		CHECK((flags & SCXPOL_CLI_HINTS) || (!a->no_hint_prune && !a->hint_prune_ms));
		CHECK(a->pin_mode == 0660 || (!a->pin_mode && !a->pin_gid));
		CHECK(a->no_restart ? !a->max_restarts : 1);
		CHECK(a->no_hint_prune ? !a->hint_prune_ms : a->hint_prune_ms % 1000 == 0);
	}
	fclose(out);
	fclose(err);
	free(out_text);
	free(err_text);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 2];
	struct result a, b;
	unsigned int flags;
	size_t pos;
	int argc = 1;

	if (!size)
		return 0;
	flags = data[0] & (SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET |
			   SCXPOL_CLI_HINTS);
	buf = malloc(size + 1);
	CHECK(buf);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[0] = (char *)"fuzz";
	for (pos = 0; pos < size - 1 && argc <= MAX_ARGS; argc++) {
		argv[argc] = buf + pos;
		pos += strlen(buf + pos) + 1;
	}
	argv[argc] = NULL;
	parse(flags, argc, argv, &a);
	parse(flags, argc, argv, &b);
	CHECK(a.r == b.r);
	if (a.r == SCXPOL_CLI_CONTINUE) {
		CHECK(!memcmp(&a.args, &b.args, sizeof(a.args)));
		CHECK(a.o.num == b.o.num && a.o.nr_list == b.o.nr_list && a.o.gid == b.o.gid);
		CHECK(a.o.ratio == b.o.ratio || (isnan(a.o.ratio) && isnan(b.o.ratio)));
	}
	free(buf);
	return 0;
}
