// SPDX-License-Identifier: GPL-2.0
/*
 * hintpol: loader of the hint test policy (hintpol.bpf.c). Sets the hint
 * limits (classes = CPUs), reports the hints it finds pinned, serves stats
 * on a socket, and runs until SIGINT/SIGTERM. SIGUSR1 asks for a restart
 * (as a CPU hotplug does), SIGUSR2 publishes the --resize plan.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include <scxpol/hint.h>
#include <scxpol/pool.h>
#include <scxpol/skel.h>
#include <scxpol/stats.h>
#include <scxpol/topology.h>

#include "hintpol.bpf.skel.h"

SCXPOL_SKEL_DEFINE(hintpol_bpf);

static const char *const user_names[] = { "importance_sum", "class_placed" };

struct opts {
	struct scxpol_hint_limits lim;
	unsigned int nr_cpus;
	struct scxpol_pool_plan *plan; /* --pool-plan, or NULL */
	struct scxpol_pool_plan *resize; /* --resize, or NULL */
};

static int configure(struct scxpol_sched *s, void *skel, void *ctx)
{
	struct hintpol_bpf *h = skel;
	struct opts *o = ctx;

	h->rodata->nr_cpus = o->nr_cpus;
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

static int parse_uint(const char *opt, const char *arg, unsigned long max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || end == arg || v > max) {
		fprintf(stderr, "hintpol: %s '%s': want 0..%lu\n", opt, arg, max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hintpol [options]\n"
		   "  --pools N           pool hints accepted: 0..N-1 (default 2)\n"
		   "  --pool-plan PLAN    publish pools \"NAME=CPUS ...\" (shown by the stats;\n"
		   "                      pool hints then accept its pools)\n"
		   "  --resize PLAN       publish PLAN on SIGUSR2 (needs --pool-plan; at most\n"
		   "                      as many pools)\n"
		   "  --max-importance N  importance accepted: 0..N (default 7)\n"
		   "  --slots N           thread slots (default: pinned size or 1024)\n"
		   "  --pin-mode MODE     mode of the pinned maps (default 0600)\n"
		   "  --pin-group GID     group of the pinned maps\n"
		   "  --socket PATH       stats socket (default /run/scxpol/hintpol.sock)\n"
		   "  --socket-mode MODE  mode of the socket (default 0600)\n"
		   "  --socket-group GID  group of the socket\n"
		   "  --load-only         load through the verifier, then exit\n"
		   "  --verifier-stats    print each program's verified instructions\n"
		   "  -v                  verbose\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pools", required_argument, NULL, 'p' },
		{ "pool-plan", required_argument, NULL, 'P' },
		{ "resize", required_argument, NULL, 'R' },
		{ "max-importance", required_argument, NULL, 'i' },
		{ "slots", required_argument, NULL, 's' },
		{ "pin-mode", required_argument, NULL, 'm' },
		{ "pin-group", required_argument, NULL, 'g' },
		{ "socket", required_argument, NULL, 'S' },
		{ "socket-mode", required_argument, NULL, 'M' },
		{ "socket-group", required_argument, NULL, 'G' },
		{ "load-only", no_argument, NULL, 'L' },
		{ "verifier-stats", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o = { .lim = { .sz = sizeof(o.lim), .nr_pools = 2, .max_importance = 7 } };
	unsigned int pin_mode = 0, pin_gid = 0, sock_mode = 0, sock_gid = 0;
	const char *sock = NULL, *plan = NULL, *resize = NULL;
	struct scxpol_topo *topo = NULL;
	bool load_only = false, vstats = false;
	struct scxpol_stats_server *srv = NULL;
	struct scxpol_sched *s;
	int c, r, ncpu;

	/* restarts are worth a line in the log */
	scxpol_log_set(NULL, SCXPOL_LOG_INFO, NULL);
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_uint("--pools", optarg, 1024, &o.lim.nr_pools))
				return 2;
			break;
		case 'i':
			if (parse_uint("--max-importance", optarg, 1000000, &o.lim.max_importance))
				return 2;
			break;
		case 's':
			if (parse_uint("--slots", optarg, 1U << 20, &o.lim.nr_slots))
				return 2;
			break;
		case 'm':
			if (parse_uint("--pin-mode", optarg, 0777, &pin_mode))
				return 2;
			break;
		case 'g':
			if (parse_uint("--pin-group", optarg, 1U << 30, &pin_gid))
				return 2;
			break;
		case 'S':
			sock = optarg;
			break;
		case 'P':
			plan = optarg;
			break;
		case 'R':
			resize = optarg;
			break;
		case 'M':
			if (parse_uint("--socket-mode", optarg, 0777, &sock_mode))
				return 2;
			break;
		case 'G':
			if (parse_uint("--socket-group", optarg, 1U << 30, &sock_gid))
				return 2;
			break;
		case 'L':
			load_only = true;
			break;
		case 'V':
			vstats = true;
			break;
		case 'v':
			scxpol_log_set(NULL, SCXPOL_LOG_DEBUG, NULL);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "hintpol: cannot count CPUs: %s\n", strerror(-ncpu));
		return 1;
	}
	o.nr_cpus = (unsigned int)ncpu;
	o.lim.nr_classes = o.nr_cpus;
	if (plan) {
		topo = scxpol_topo_load(NULL);
		if (!topo || scxpol_pool_plan_parse(topo, plan, SCXPOL_POOL_EXCLUSIVE, &o.plan)) {
			fprintf(stderr, "hintpol: %s\n", scxpol_last_error());
			scxpol_topo_free(topo);
			return 2;
		}
		o.lim.nr_pools = scxpol_pool_plan_nr_pools(o.plan);
	}
	if (resize) {
		if (!o.plan) {
			fprintf(stderr, "hintpol: --resize needs --pool-plan\n");
			return 2;
		}
		if (scxpol_pool_plan_parse(topo, resize, SCXPOL_POOL_EXCLUSIVE, &o.resize)) {
			fprintf(stderr, "hintpol: --resize: %s\n", scxpol_last_error());
			scxpol_pool_plan_free(o.plan);
			scxpol_topo_free(topo);
			return 2;
		}
	}

	SCXPOL_OPTS(scxpol_sched_opts, sopts, .skel = SCXPOL_SKEL(hintpol_bpf),
		    .configure = configure, .loaded = loaded, .ctx = &o, .pin_mode = pin_mode,
		    .pin_gid = (int)pin_gid);
	s = scxpol_sched_open(&sopts);
	if (!s) {
		fprintf(stderr, "hintpol: %s\n", scxpol_last_error());
		scxpol_pool_plan_free(o.plan);
		scxpol_pool_plan_free(o.resize);
		scxpol_topo_free(topo);
		return 1;
	}
	r = scxpol_sched_load(s);
	if (!r && vstats)
		r = scxpol_sched_print_prog_stats(s, stdout);
	if (!r && !load_only) {
		SCXPOL_OPTS(scxpol_stats_opts, so, .user_names = user_names, .nr_user = 2);
		SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = sock, .mode = sock_mode,
			    .gid = (int)sock_gid, .stats = &so);

		SCXPOL_OPTS(scxpol_run_opts, ro, .interval_ms = 100, .periodic = periodic, .ctx = &o);
		struct sigaction sa = { .sa_handler = on_usr1 };
		struct sigaction sa2 = { .sa_handler = on_usr2 };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		sigemptyset(&sa2.sa_mask);
		sigaction(SIGUSR2, &sa2, NULL);
		srv = scxpol_stats_server_start(s, &vo);
		r = srv ? scxpol_sched_attach(s) : -errno;
		if (!r) {
			printf("hintpol: attached; stats on %s\n", scxpol_stats_server_path(srv));
			fflush(stdout);
			r = scxpol_sched_run(s, &ro);
			printf("hintpol: restarts %u\n", scxpol_sched_restarts(s));
			scxpol_sched_print_exit(s, stdout);
		}
		scxpol_stats_server_stop(srv);
	}
	if (r)
		fprintf(stderr, "hintpol: %s\n", scxpol_last_error());
	scxpol_sched_close(s);
	scxpol_pool_plan_free(o.plan);
	scxpol_pool_plan_free(o.resize);
	scxpol_topo_free(topo);
	return r ? 1 : 0;
}
