// SPDX-License-Identifier: GPL-2.0
/*
 * testpol: loader of the bpflib test policy (testpol.bpf.c). Publishes a
 * pool plan, places tasks in pools by tgid or comm, switches to a second
 * plan on SIGUSR1 (a resize while attached; a refused one leaves the running
 * plan in place), prints the stats counters and the published pools on
 * SIGUSR2 and at exit.
 *
 *   testpol --pools "d0=0-1 d1=2-3" --flags steal --pid 1234=d1 --comm spin=d0
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include <scxpol/cli.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#include "testpol.bpf.skel.h"

SCXPOL_SKEL_DEFINE(testpol_bpf);

#define MAX_PLACE 64
#define MAX_PFLAGS 16

struct place {
	char key[16];  /* comm, or the tgid in decimal */
	char pool[16]; /* pool name or index */
	bool is_pid;
};

struct pool_flags {
	char pool[16];
	unsigned int flags;
};

struct opts {
	const char *pools, *resize_text;	/* --pools, --resize */
	unsigned int flags;			/* --flags */
	struct scxpol_pool_plan *plan, *resize;
	struct pool_flags pflags[MAX_PFLAGS];
	unsigned int nr_pflags;
	unsigned long long slice_us;
	unsigned int alg1, busy_poll;
	int lose_wake_cpu;			/* --lose-wakes; -1: off */
	const char *rest;			/* --rest */
	bool kick_enqueue;			/* --kick-enqueue */
	const char *error_comm, *stall_comm;	/* --error-comm, --stall-comm */
	bool require_cover;			/* --require-cover */
	struct place place[MAX_PLACE];
	unsigned int nr_place;
};

static volatile sig_atomic_t want_resize, want_stats;

static void on_usr(int sig)
{
	if (sig == SIGUSR1)
		want_resize = 1;
	else
		want_stats = 1;
}

/* The index in @o->plan of pool @name (a name or an index), for @what; -EINVAL if none. */
static int pool_index(const struct opts *o, const char *what, const char *name)
{
	int pool = scxpol_pool_plan_find(o->plan, name);
	char *end;

	if (pool >= 0)
		return pool;
	pool = (int)strtol(name, &end, 10);
	if (*end || end == name || pool < 0 ||
	    (unsigned int)pool >= scxpol_pool_plan_nr_pools(o->plan)) {
		fprintf(stderr, "testpol: %s=%s: no such pool\n", what, name);
		return -EINVAL;
	}
	return pool;
}

/* --error-comm, --stall-comm: @name (NULL: off) into the 16-byte comm @out */
static int set_comm(const char *opt, const char *name, char *out)
{
	if (!name)
		return 0;
	if (!*name || strlen(name) > 15) {
		fprintf(stderr, "testpol: %s '%s': want a task name of 1 to 15 characters\n",
			opt, name);
		return -1;
	}
	memcpy(out, name, strlen(name) + 1);
	return 0;
}

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct testpol_bpf *t = skel;
	struct opts *o = ctx;
	unsigned int max = scxpol_pool_plan_nr_pools(o->plan);

	if (o->resize && scxpol_pool_plan_nr_pools(o->resize) > max)
		max = scxpol_pool_plan_nr_pools(o->resize);
	t->rodata->slice_ns = o->slice_us * 1000;
	t->rodata->reset_every = o->alg1;
	t->rodata->busy_poll_after = o->busy_poll;
	if (o->lose_wake_cpu >= libbpf_num_possible_cpus()) {
		fprintf(stderr, "testpol: --lose-wakes %d: no such CPU (%d possible)\n",
			o->lose_wake_cpu, libbpf_num_possible_cpus());
		return -EINVAL;
	}
	t->rodata->lose_wake_cpu = o->lose_wake_cpu;
	t->rodata->kick_enqueue = o->kick_enqueue;
	if (set_comm("--error-comm", o->error_comm, (char *)t->rodata->error_comm) ||
	    set_comm("--stall-comm", o->stall_comm, (char *)t->rodata->stall_comm))
		return -EINVAL;
	if (o->rest) {
		int rest = pool_index(o, "--rest", o->rest);

		if (rest < 0)
			return rest;
		t->rodata->rest_pool = rest;
	}
	if (o->require_cover) {
		int r = scxpol_pool_require(s, SCXPOL_POOL_REQ_COVER);

		if (r)
			return r;
	}
	return scxpol_pool_setup(s, max);
}

/* Fill the tgid and comm tables with the pools' indices in @o->plan. */
static int place_tasks(struct scxpol_sched *s, struct testpol_bpf *t, struct opts *o)
{
	unsigned int i;

	(void)s;
	for (i = 0; i < o->nr_place; i++) {
		struct place *pl = &o->place[i];
		int pool = pool_index(o, pl->key, pl->pool);
		int r;

		if (pool < 0)
			return pool;
		if (pl->is_pid) {
			__u32 tgid = (__u32)strtoul(pl->key, NULL, 10);

			r = bpf_map__update_elem(t->maps.testpol_tgid, &tgid, sizeof(tgid), &pool,
						 sizeof(pool), BPF_ANY);
		} else {
			r = bpf_map__update_elem(t->maps.testpol_comm, pl->key, sizeof(pl->key), &pool,
						 sizeof(pool), BPF_ANY);
		}
		if (r) {
			fprintf(stderr, "testpol: cannot place %s in pool %d: %s\n", pl->key, pool,
				strerror(-r));
			return r;
		}
	}
	return 0;
}

static int loaded(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct opts *o = ctx;
	char text[512];
	int r;

	r = scxpol_pool_publish(s, o->plan);
	if (!r)
		r = place_tasks(s, skel, o);
	if (r)
		return r;
	scxpol_pool_plan_format(o->plan, text, sizeof(text));
	printf("testpol: pools %s\n", text);
	fflush(stdout);
	return 0;
}

static int stats_pools(struct scxpol_sched *s, struct scxpol_pool_stat *out, unsigned int max,
		       void *ctx)
{
	(void)ctx;
	return scxpol_pool_read(s, NULL, out, max, NULL);
}

/* "testpol: stats a=1 b=2 ..." and one line per published pool. */
static int print_stats(struct scxpol_sched *s)
{
	SCXPOL_OPTS(scxpol_stats_opts, so, .pools = stats_pools);
	struct scxpol_stats *st = scxpol_stats_new();
	unsigned long long gen = 0;
	unsigned int i;
	int r;

	if (!st)
		return -ENOMEM;
	r = scxpol_stats_read(s, &so, st);
	if (!r)
		r = scxpol_pool_read(s, &gen, NULL, 0, NULL);
	if (r >= 0) {
		printf("testpol: stats");
		for (i = 0; i < st->nr; i++)
			printf(" %s=%llu", st->v[i].name, (unsigned long long)st->v[i].value);
		printf("\n");
		printf("testpol: generation %llu\n", gen);
		for (i = 0; i < st->nr_pools; i++)
			printf("testpol: pool %s cpus=%s nr_cpus=%u queued=%llu\n", st->pools[i].name,
			       st->pools[i].cpus, st->pools[i].nr_cpus,
			       (unsigned long long)st->pools[i].queued);
		fflush(stdout);
		r = 0;
	}
	free(st);
	return r;
}

static int periodic(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct opts *o = ctx;
	unsigned long long gen;
	char text[512];
	int r;

	(void)skel;
	if (want_resize && o->resize) {
		want_resize = 0;
		r = scxpol_pool_publish(s, o->resize);
		/* the BPF side's verdict leaves the running plan; other errors end the run */
		if (r && strstr(scxpol_last_error(), ": pool plan rejected: ")) {
			printf("testpol: resize refused: %s\n", scxpol_last_error());
			fflush(stdout);
			return 0;
		}
		if (r)
			return r;
		r = scxpol_pool_read(s, &gen, NULL, 0, NULL);
		if (r < 0)
			return r;
		scxpol_pool_plan_format(o->resize, text, sizeof(text));
		printf("testpol: resized to generation %llu: %s\n", gen, text);
		fflush(stdout);
	}
	if (want_stats) {
		want_stats = 0;
		return print_stats(s);
	}
	return 0;
}

static int parse_flags(const char *opt, const char *arg, unsigned int *out)
{
	static const struct {
		const char *name;
		unsigned int flags;
	} names[] = {
		{ "exclusive", SCXPOL_POOL_EXCLUSIVE }, { "soft", SCXPOL_POOL_SOFT },
		{ "steal", SCXPOL_POOL_STEAL },		{ "lend", SCXPOL_POOL_LEND },
		{ "borrow", SCXPOL_POOL_BORROW },
	};
	char buf[128], *tok, *save = NULL;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", arg);
	*out = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			fprintf(stderr, "testpol: %s '%s': unknown flag '%s' (want exclusive, soft, "
					"steal, lend, borrow, comma-separated)\n", opt, arg, tok);
			return -1;
		}
		*out |= names[i].flags;
	}
	return 0;
}

/* --pool-flags NAME=FLAGS */
static int parse_pool_flags(struct opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct pool_flags *pf = &o->pflags[o->nr_pflags];
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !len || len >= sizeof(pf->pool) || o->nr_pflags == MAX_PFLAGS) {
		fprintf(stderr, "testpol: --pool-flags '%s': want NAME=FLAGS (at most %d)\n", arg,
			MAX_PFLAGS);
		return -1;
	}
	memset(pf, 0, sizeof(*pf));
	memcpy(pf->pool, arg, len);
	if (parse_flags("--pool-flags", eq + 1, &pf->flags))
		return -1;
	o->nr_pflags++;
	return 0;
}

/* Rebuild *@plan with the --pool-flags overrides. */
static int apply_pool_flags(const struct scxpol_topo *t, struct opts *o,
			    struct scxpol_pool_plan **plan)
{
	struct scxpol_pool_plan *np;
	unsigned int i, k;

	for (k = 0; k < o->nr_pflags; k++)
		if (scxpol_pool_plan_find(*plan, o->pflags[k].pool) < 0)
			return -1;
	if (!o->nr_pflags)
		return 0;
	np = scxpol_pool_plan_new(t);
	if (!np)
		return -1;
	for (i = 0; i < scxpol_pool_plan_nr_pools(*plan); i++) {
		const char *name = scxpol_pool_plan_name(*plan, i);
		unsigned int flags = scxpol_pool_plan_flags(*plan, i);

		for (k = 0; k < o->nr_pflags; k++)
			if (!strcmp(o->pflags[k].pool, name))
				flags = o->pflags[k].flags;
		if (scxpol_pool_plan_add(np, name, flags, scxpol_pool_plan_cpus(*plan, i)) < 0) {
			scxpol_pool_plan_free(np);
			return -1;
		}
	}
	scxpol_pool_plan_free(*plan);
	*plan = np;
	return 0;
}

static int parse_place(struct opts *o, const char *opt, const char *arg, bool is_pid)
{
	const char *eq = strchr(arg, '=');
	struct place *pl = &o->place[o->nr_place];
	size_t klen = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !klen || klen >= sizeof(pl->key) || !eq[1] || strlen(eq + 1) >= sizeof(pl->pool) ||
	    o->nr_place == MAX_PLACE) {
		fprintf(stderr, "testpol: %s '%s': want %s=POOL (at most %d)\n", opt, arg,
			is_pid ? "PID" : "COMM", MAX_PLACE);
		return -1;
	}
	memset(pl, 0, sizeof(*pl));
	memcpy(pl->key, arg, klen);
	snprintf(pl->pool, sizeof(pl->pool), "%s", eq + 1);
	pl->is_pid = is_pid;
	o->nr_place++;
	return 0;
}

/* The --pools plan (default: one pool "all") and the --resize plan, with the --pool-flags. */
static int make_plans(const struct scxpol_topo *topo, struct opts *o)
{
	const char *pools = o->pools, *resize = o->resize_text;
	unsigned int flags = o->flags;

	if (!pools) {
		o->plan = scxpol_pool_plan_new(topo);
		if (!o->plan ||
		    scxpol_pool_plan_add(o->plan, "all", flags, scxpol_topo_online(topo)) < 0)
			return -1;
	} else if (!(o->plan = scxpol_pool_plan_parse(topo, pools, flags))) {
		return -1;
	}
	if (resize && !(o->resize = scxpol_pool_plan_parse(topo, resize, flags)))
		return -1;
	if (apply_pool_flags(topo, o, &o->plan) ||
	    (o->resize && apply_pool_flags(topo, o, &o->resize)))
		return -1;
	return 0;
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f, "usage: testpol --pools PLAN [options]\n"
		   "  --pools PLAN         pools, \"NAME=CPUS NAME=CPUS...\" (default: all online\n"
		   "                       CPUs in one pool \"all\")\n"
		   "  --flags FLAGS        flags of every pool: exclusive (default), soft, steal,\n"
		   "                       lend, borrow; comma-separated\n"
		   "  --pool-flags NAME=FLAGS\n"
		   "                       flags of pool NAME, overriding --flags\n"
		   "  --resize PLAN        publish PLAN on SIGUSR1 (same flags); if the policy\n"
		   "                       rejects it, say why and keep the running plan\n"
		   "  --require-cover      every plan must put every online CPU in a pool\n"
		   "  --pid PID=POOL       tasks of process PID go to POOL (name or index)\n"
		   "  --comm COMM=POOL     tasks named COMM go to POOL\n"
		   "  --rest POOL          tasks placed by neither go to POOL (default: the shared\n"
		   "                       queue)\n"
		   "  --alg1 N             vtime by Algorithm 1, reset every N enqueues\n"
		   "  --busy-poll N        demote tasks after N full-slice stints without sleeping\n"
		   "  --lose-wakes CPU     lose every wakeup of a task in a pool, the way a stale\n"
		   "                       idle mask does: place it on CPU without inserting it,\n"
		   "                       queue it on its pool and wake no CPU for it (tests the\n"
		   "                       library's watch)\n"
		   "  --kick-enqueue       every enqueue also kicks the task's CPU (tests kicks\n"
		   "                       made on a CPU going offline)\n"
		   "  --error-comm COMM    enqueueing a task named COMM calls scx_bpf_error()\n"
		   "  --stall-comm COMM    tasks named COMM are queued where no CPU takes them:\n"
		   "                       the watchdog ejects the policy (see --timeout-ms)\n"
		   "  -s SLICE_US          time slice in microseconds (default 5000)\n");
	scxpol_cli_usage(c, f);
	fprintf(f, "SIGUSR2 prints the stats counters and pools; they are printed at exit too.\n");
}

/* --alg1, --busy-poll, --lose-wakes: a number in 0..1000000 into *@out */
static int parse_count(const char *opt, const char *arg, unsigned int *out)
{
	unsigned long long v;

	if (scxpol_cli_parse_uint(opt, arg, 0, 1000000, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;
	unsigned int cpu;

	switch (opt) {
	case 'p':
		o->pools = arg;
		break;
	case 'f':
		if (parse_flags("--flags", arg, &o->flags))
			return 2;
		break;
	case 'F':
		if (parse_pool_flags(o, arg))
			return 2;
		break;
	case 'r':
		o->resize_text = arg;
		break;
	case 'C':
		o->require_cover = true;
		break;
	case 'P':
	case 'c':
		if (parse_place(o, opt == 'P' ? "--pid" : "--comm", arg, opt == 'P'))
			return 2;
		break;
	case 'a':
		if (parse_count("--alg1", arg, &o->alg1))
			return scxpol_cli_usage_error(c);
		break;
	case 'b':
		if (parse_count("--busy-poll", arg, &o->busy_poll))
			return scxpol_cli_usage_error(c);
		break;
	case 's':
		if (scxpol_cli_parse_uint("-s", arg, 1, 1000000, &o->slice_us))
			return scxpol_cli_usage_error(c);
		break;
	case 'R':
		o->rest = arg;
		break;
	case 'L':
		if (parse_count("--lose-wakes", arg, &cpu))
			return scxpol_cli_usage_error(c);
		o->lose_wake_cpu = (int)cpu;
		break;
	case 'K':
		o->kick_enqueue = true;
		break;
	case 'E':
		o->error_comm = arg;
		break;
	case 'S':
		o->stall_comm = arg;
		break;

	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pools", required_argument, NULL, 'p' },
		{ "flags", required_argument, NULL, 'f' },
		{ "pool-flags", required_argument, NULL, 'F' },
		{ "resize", required_argument, NULL, 'r' },
		{ "require-cover", no_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'P' },
		{ "comm", required_argument, NULL, 'c' },
		{ "alg1", required_argument, NULL, 'a' },
		{ "busy-poll", required_argument, NULL, 'b' },
		{ "lose-wakes", required_argument, NULL, 'L' },
		{ "rest", required_argument, NULL, 'R' },
		{ "kick-enqueue", no_argument, NULL, 'K' },
		{ "error-comm", required_argument, NULL, 'E' },
		{ "stall-comm", required_argument, NULL, 'S' },
		{ 0 },
	};
	struct opts o = { .slice_us = 5000, .lose_wake_cpu = -1 };
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "testpol", .usage = usage,
		    .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_STATS_SOCKET, .options = longopts,
		    .shortopts = "s:", .option = option, .ctx = &o);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct sigaction sa = { .sa_handler = on_usr };
	struct scxpol_topo *topo = NULL;
	struct scxpol_sched *s = NULL;
	int r;

	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;

	topo = scxpol_topo_load(NULL);
	if (!topo || make_plans(topo, &o)) {
		fprintf(stderr, "testpol: %s\n", scxpol_last_error());
		r = 1;
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(testpol_bpf),
		    .configure = configure, .loaded = loaded, .ctx = &o);
	SCXPOL_OPTS(scxpol_run_opts, ro, .interval_ms = 100, .periodic = periodic, .ctx = &o);
	s = scxpol_sched_open(&sopts);
	r = scxpol_cli_run(s, &cli, &common, &ro);
	/* the scheduler ran: its last counters */
	if (s && scxpol_sched_exited(s) && print_stats(s))
		fprintf(stderr, "testpol: %s\n", scxpol_last_error());
	scxpol_sched_close(s);
out:
	scxpol_pool_plan_free(o.plan);
	scxpol_pool_plan_free(o.resize);
	scxpol_topo_free(topo);
	return r;
}
