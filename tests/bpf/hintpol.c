// SPDX-License-Identifier: GPL-2.0
/*
 * hintpol: loader of the hint test policy (hintpol.bpf.c). Sets the hint
 * limits (classes = CPUs), reports the hints it finds pinned, serves stats
 * on a socket, and runs until SIGINT/SIGTERM. SIGUSR1 asks for a restart
 * (as the kernel does for a CPU hotplug), SIGUSR2 publishes the --resize plan;
 * --restart-at-load N has the first N loads ask for one at once, and
 * --offline-event CPU the first load record a hotplug event.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include <scxpol/cli.h>
#include <scxpol/hint.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#include "hintpol.bpf.skel.h"

SCXPOL_SKEL_DEFINE(hintpol_bpf);

static const struct scxpol_stat_desc user_descs[] = {
	{ "importance_sum", "importance", "importance summed over enqueues of important tasks" },
	{ "class_placed", "tasks", "enqueues onto the CPU of the hint's class" },
};

struct opts {
	struct scxpol_hint_limits lim;
	unsigned int nr_cpus;
	const char *plan_text, *resize_text; /* --pool-plan, --resize */
	struct scxpol_pool_plan *plan; /* --pool-plan, or NULL */
	struct scxpol_pool_plan *resize; /* --resize, or NULL */
	unsigned int restart_loads; /* --restart-at-load: loads left that ask */
	int offline_event;	    /* --offline-event: the CPU, or -1; the first load only */
};

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct hintpol_bpf *h = skel;
	struct opts *o = ctx;

	h->rodata->nr_cpus = o->nr_cpus;
	/* the first dispatch after the attach asks for the restart */
	if (o->restart_loads) {
		o->restart_loads--;
		h->bss->restart_req = 1;
	}
	if (o->offline_event >= 0) {
		h->bss->offline_event = (unsigned int)o->offline_event + 1;
		o->offline_event = -1;
	}
	if (o->plan) {
		int r = scxpol_pool_setup(s, scxpol_pool_plan_nr_pools(o->plan));

		if (r)
			return r;
	}
	return scxpol_hint_setup(s, &o->lim);
}

/* What the pins held when this loader found them: hints survive restarts. */
static int loaded(struct scxpol_sched *s, void *skel, void *ctx)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, co, .pin_root = scxpol_sched_pin_root(s));
	struct scxpol_hint_client *c;
	struct scxpol_hint_counts n;
	struct opts *o = ctx;
	int r;

	(void)skel;
	if (o->plan) {
		r = scxpol_pool_publish(s, o->plan);
		if (r)
			return r;
	}
	c = scxpol_hint_client_open(scxpol_sched_name(s), &co);
	if (!c)
		return -errno;
	r = scxpol_hint_count(c, &n);
	if (!r) {
		printf("hintpol: pinned hints: cgroups=%u tgids=%u tids=%u threads=%u slots=%u\n",
		       n.cgroups, n.tgids, n.tids, n.threads, n.nr_slots);
		fflush(stdout);
	}
	scxpol_hint_client_close(c);
	return r;
}

static volatile sig_atomic_t restart_wanted, resize_wanted;

static void on_usr1(int sig)
{
	(void)sig;
	restart_wanted = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	resize_wanted = 1;
}

/*
 * Pass a SIGUSR1 on to the BPF side, which exits asking for a restart; on
 * SIGUSR2 publish the --resize plan.
 */
static int periodic(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct hintpol_bpf *h = skel;
	struct opts *o = ctx;
	int r;

	if (restart_wanted) {
		restart_wanted = 0;
		h->bss->restart_req = 1;
	}
	if (resize_wanted && o->resize) {
		resize_wanted = 0;
		r = scxpol_pool_publish(s, o->resize);
		if (r)
			return r;
		printf("hintpol: resized to %u pools\n", scxpol_pool_plan_nr_pools(o->resize));
		fflush(stdout);
	}
	return 0;
}

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f, "usage: hintpol [options]\n"
		   "  --pools N            pool hints accepted: 0..N-1 (default 2)\n"
		   "  --pool-plan PLAN     publish pools \"NAME=CPUS ...\" (shown by the stats;\n"
		   "                       pool hints then accept its pools)\n"
		   "  --resize PLAN        publish PLAN on SIGUSR2 (needs --pool-plan; at most\n"
		   "                       as many pools)\n"
		   "  --max-importance N   importance accepted: 0..N (default 7)\n"
		   "  --slots N            thread slots (default: pinned size or 1024)\n"
		   "  --restart-at-load N  the first N loads ask for a restart at once\n"
		   "  --offline-event CPU  the first load records CPU going offline (as\n"
		   "                       ops.cpu_offline does) while it stays online\n");
	scxpol_cli_usage(c, f);
	fprintf(f, "SIGUSR1 makes the BPF side ask for a restart, as the kernel does for a\n"
		   "CPU hotplug when a policy has no ops.cpu_online/offline.\n");
}

/* the numeric options: a number in 0..@max into *@out */
static int parse_limit(const char *opt, const char *arg, unsigned int max, unsigned int *out)
{
	unsigned long long v;

	if (scxpol_cli_parse_uint(opt, arg, 0, max, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct opts *o = c->ctx;

	switch (opt) {
	case 'p':
		if (parse_limit("--pools", arg, 1024, &o->lim.nr_pools))
			return scxpol_cli_usage_error(c);
		break;
	case 'i':
		if (parse_limit("--max-importance", arg, 1000000, &o->lim.max_importance))
			return scxpol_cli_usage_error(c);
		break;
	case 's':
		if (parse_limit("--slots", arg, 1U << 20, &o->lim.nr_slots))
			return scxpol_cli_usage_error(c);
		break;
	case 'P':
		o->plan_text = arg;
		break;
	case 'R':
		o->resize_text = arg;
		break;
	case 'r':
		if (parse_limit("--restart-at-load", arg, 1000, &o->restart_loads))
			return scxpol_cli_usage_error(c);
		break;
	case 'o': {
		unsigned int cpu;

		/* (the possible CPUs are counted after the options) */
		if (parse_limit("--offline-event", arg, 65535, &cpu))
			return scxpol_cli_usage_error(c);
		o->offline_event = (int)cpu;
		break;
	}
	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pools", required_argument, NULL, 'p' },
		{ "pool-plan", required_argument, NULL, 'P' },
		{ "resize", required_argument, NULL, 'R' },
		{ "max-importance", required_argument, NULL, 'i' },
		{ "slots", required_argument, NULL, 's' },
		{ "restart-at-load", required_argument, NULL, 'r' },
		{ "offline-event", required_argument, NULL, 'o' },
		{ 0 },
	};
	struct opts o = { .lim = { .sz = sizeof(o.lim), .nr_pools = 2, .max_importance = 7 },
			  .offline_event = -1 };
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = user_descs, .nr_user = 2);
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "hintpol", .usage = usage, .stats = &so,
		    .flags = SCXPOL_CLI_LOAD | SCXPOL_CLI_PIN_GROUP | SCXPOL_CLI_STATS_SOCKET |
			 SCXPOL_CLI_HINTS,
		    .options = longopts, .option = option, .ctx = &o);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct sigaction sa1 = { .sa_handler = on_usr1 }, sa2 = { .sa_handler = on_usr2 };
	struct scxpol_topo *topo = NULL;
	struct scxpol_sched *s;
	int r, ncpu;

	/* restarts are worth a line in the log */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "hintpol: cannot count CPUs: %s\n", strerror(-ncpu));
		return 1;
	}
	o.nr_cpus = (unsigned int)ncpu;
	o.lim.nr_classes = o.nr_cpus;
	if (o.offline_event >= ncpu) {
		fprintf(stderr, "hintpol: --offline-event %d: there are %d possible CPUs\n",
			o.offline_event, ncpu);
		return 2;
	}
	if (o.plan_text) {
		topo = scxpol_topo_load(NULL);
		if (topo)
			o.plan = scxpol_pool_plan_parse(topo, o.plan_text, SCXPOL_POOL_EXCLUSIVE);
		if (!o.plan) {
			fprintf(stderr, "hintpol: %s\n", scxpol_last_error());
			scxpol_topo_free(topo);
			return 2;
		}
		o.lim.nr_pools = scxpol_pool_plan_nr_pools(o.plan);
	}
	if (o.resize_text) {
		if (!o.plan) {
			fprintf(stderr, "hintpol: --resize needs --pool-plan\n");
			return 2;
		}
		o.resize = scxpol_pool_plan_parse(topo, o.resize_text, SCXPOL_POOL_EXCLUSIVE);
		if (!o.resize) {
			fprintf(stderr, "hintpol: --resize: %s\n", scxpol_last_error());
			scxpol_pool_plan_free(o.plan);
			scxpol_topo_free(topo);
			return 2;
		}
	}

	sigemptyset(&sa1.sa_mask);
	sigaction(SIGUSR1, &sa1, NULL);
	sigemptyset(&sa2.sa_mask);
	sigaction(SIGUSR2, &sa2, NULL);
	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(hintpol_bpf),
		    .configure = configure, .loaded = loaded, .ctx = &o,
		    .pin_mode = common.pin_mode, .pin_gid = common.pin_gid);
	SCXPOL_OPTS(scxpol_run_opts, ro, .interval_ms = 100, .periodic = periodic, .ctx = &o);
	s = scxpol_sched_open(&sopts);
	r = scxpol_cli_run(s, &cli, &common, &ro);
	scxpol_sched_close(s);
	scxpol_pool_plan_free(o.plan);
	scxpol_pool_plan_free(o.resize);
	scxpol_topo_free(topo);
	return r;
}
