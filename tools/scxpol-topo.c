// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-topo: print the CPU topology libscxpol sees (cores, LLCs, NUMA
 * nodes, LLC distances) and, optionally, a pool plan built over it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cli.h>
#include <scxpol/pool.h>

static const char usage[] =
	"usage: scxpol-topo [--root DIR] [--plan PLAN]...\n"
	"\n"
	"Print the CPUs, cores (SMT siblings), last-level caches and NUMA nodes\n"
	"read from sysfs, with each LLC's distance to the others (0 same LLC,\n"
	"1 same node, 2 other node).\n"
	"\n"
	"  --root DIR   read DIR/sys/devices/system/... instead of /sys (fake trees)\n"
	"  --plan PLAN  also build and print a pool plan; PLAN is one of\n"
	"                 domains:N   N equal domains aligned to LLCs and cores\n"
	"                 split:N     pool \"first\" with N CPUs, \"second\" the rest\n"
	"                 NAME=CPUS NAME=CPUS ...   a plan to check, e.g. \"lc=0-1 bg=2-3\"\n"
	"  -h, --help   this text\n"
	"Exit status: 0, 1 when the topology cannot be read or a plan not built over\n"
	"it, 2 for bad usage (a count that is no number, an empty plan).\n";

static char *list_buf;
static size_t list_len;

static const char *list(const struct scxpol_cpuset *s)
{
	if (scxpol_cpuset_format(s, list_buf, list_len) < 0)
		return "?";
	return list_buf;
}

static void print_topo(const struct scxpol_topo *t)
{
	unsigned int i, j, nr_llcs = scxpol_topo_nr_llcs(t);
	const struct scxpol_topo_cpu *c;

	printf("cpus: %u possible (0-%u), %u online: %s\n", scxpol_topo_nr_cpus(t),
	       scxpol_topo_nr_cpus(t) - 1, scxpol_cpuset_count(scxpol_topo_online(t)),
	       list(scxpol_topo_online(t)));
	printf("nodes: %u\n", scxpol_topo_nr_nodes(t));
	for (i = 0; i < scxpol_topo_nr_nodes(t); i++)
		printf("  node %u (node%d): %s\n", i, scxpol_topo_node_id(t, i),
		       list(scxpol_topo_node_cpus(t, i)));
	printf("llcs: %u\n", nr_llcs);
	for (i = 0; i < nr_llcs; i++) {
		const struct scxpol_cpuset *s = scxpol_topo_llc_cpus(t, i);

		printf("  llc %u: %s (node", i, list(s));
		/* The nodes it spans, usually one; CPU order need not follow them. */
		for (j = 0; j < scxpol_topo_nr_nodes(t); j++)
			if (scxpol_cpuset_intersects(s, scxpol_topo_node_cpus(t, j)))
				printf(" %u", j);
		printf(")\n");
	}
	printf("cores: %u\n", scxpol_topo_nr_cores(t));
	for (i = 0; i < scxpol_topo_nr_cores(t); i++) {
		const struct scxpol_cpuset *s = scxpol_topo_core_cpus(t, i);

		c = scxpol_topo_cpu(t, (unsigned int)scxpol_cpuset_next(s, -1));
		printf("  core %u: %s (llc %d, node %d)\n", i, list(s), c->llc, c->node);
	}
	if (nr_llcs < 2 || nr_llcs > 32)
		return;
	printf("llc distances:\n     ");
	for (j = 0; j < nr_llcs; j++)
		printf(" %2u", j);
	printf("\n");
	for (i = 0; i < nr_llcs; i++) {
		printf("  %2u:", i);
		for (j = 0; j < nr_llcs; j++)
			printf(" %2u", scxpol_topo_llc_distance(t, i, j));
		printf("\n");
	}
}

/* A --plan, checked while the options are read: its form and count. */
struct plan {
	const char *spec;
	enum { PLAN_TEXT, PLAN_DOMAINS, PLAN_SPLIT } kind;
	unsigned int n;
};

/*
 * @spec as a plan into *@p, before the topology is read: a count read as
 * every number of the library's command lines (scxpol_cli_parse_uint()), a
 * plan of NAME=CPUS with at least one pool. -EINVAL after saying why.
 */
static int parse_plan(const char *spec, struct plan *p)
{
	unsigned long long n = 0;
	const char *count = NULL;

	p->spec = spec;
	p->kind = PLAN_TEXT;
	if (!strncmp(spec, "domains:", 8)) {
		p->kind = PLAN_DOMAINS;
		count = spec + 8;
	} else if (!strncmp(spec, "split:", 6)) {
		p->kind = PLAN_SPLIT;
		count = spec + 6;
	}
	if (count && scxpol_cli_parse_uint("--plan", count, 0, UINT32_MAX, &n)) {
		fprintf(stderr, "scxpol-topo: --plan %s: \"%s\" is not a number\n", spec, count);
		return -EINVAL;
	}
	if (!count && !spec[strspn(spec, " \t\n")]) {
		fprintf(stderr, "scxpol-topo: --plan '%s' has no pools\n", spec);
		return -EINVAL;
	}
	p->n = (unsigned int)n;
	return 0;
}

static int print_plan(const struct scxpol_topo *t, const struct plan *pa)
{
	const char *spec = pa->spec;
	struct scxpol_pool_plan *p = NULL;
	unsigned int i;
	char *text;
	size_t len;

	if (pa->kind == PLAN_DOMAINS)
		p = scxpol_pool_plan_domains(t, pa->n, SCXPOL_POOL_EXCLUSIVE);
	else if (pa->kind == PLAN_SPLIT)
		p = scxpol_pool_plan_split(t, "first", "second", pa->n, SCXPOL_POOL_EXCLUSIVE);
	else
		p = scxpol_pool_plan_parse(t, spec, SCXPOL_POOL_EXCLUSIVE);
	if (!p) {
		fprintf(stderr, "scxpol-topo: --plan %s: %s\n", spec, scxpol_last_error());
		return -errno;
	}
	len = 32 + 16 * (size_t)scxpol_topo_nr_cpus(t) + 16 * scxpol_pool_plan_nr_pools(p);
	text = malloc(len);
	if (!text || scxpol_pool_plan_format(p, text, len) < 0) {
		fprintf(stderr, "scxpol-topo: --plan %s: cannot format the plan\n", spec);
		free(text);
		scxpol_pool_plan_free(p);
		return -ENOMEM;
	}
	printf("plan %s: %s\n", spec, text);
	for (i = 0; i < scxpol_pool_plan_nr_pools(p); i++) {
		const struct scxpol_cpuset *s = scxpol_pool_plan_cpus(p, i);

		printf("  %s: %u CPUs: %s\n", scxpol_pool_plan_name(p, i), scxpol_cpuset_count(s),
		       list(s));
	}
	free(text);
	scxpol_pool_plan_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "plan", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	SCXPOL_OPTS(scxpol_topo_opts, to);
	struct plan plans[16];
	unsigned int nr_plans = 0, i;
	struct scxpol_topo *t;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			to.root = optarg;
			break;
		case 'p':
			if (nr_plans == sizeof(plans) / sizeof(plans[0])) {
				fprintf(stderr, "scxpol-topo: at most %u --plan options\n", nr_plans);
				return 2;
			}
			if (parse_plan(optarg, &plans[nr_plans]))
				return 2;
			nr_plans++;
			break;
		case 'h':
			fputs(usage, stdout);
			return scxpol_cli_finish("scxpol-topo", NULL, 0);
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scxpol-topo: unexpected argument '%s'\n%s", argv[optind], usage);
		return 2;
	}
	/* Errors are printed below with their context; keep the log quiet. */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	t = scxpol_topo_load(&to);
	if (!t) {
		fprintf(stderr, "scxpol-topo: %s\n", scxpol_last_error());
		return 1;
	}
	list_len = 64 + 16 * (size_t)scxpol_topo_nr_cpus(t);
	list_buf = malloc(list_len);
	if (!list_buf) {
		fprintf(stderr, "scxpol-topo: out of memory\n");
		scxpol_topo_free(t);
		return 1;
	}
	print_topo(t);
	for (i = 0; i < nr_plans; i++)
		if (print_plan(t, &plans[i]))
			status = 1;
	free(list_buf);
	scxpol_topo_free(t);
	return scxpol_cli_finish("scxpol-topo", NULL, status);
}
