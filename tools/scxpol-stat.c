// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * scxpol-stat: show a running policy's stats, read from its stats server
 * (see <scxpol/stats.h>): a table refreshed every interval with per-second
 * rates, one JSON snapshot, what each counter is, or the answer to one raw
 * request.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <scxpol/cli.h>
#include <scxpol/stats.h>

#define SOCK_DIR "/run/scxpol"

static void usage(const struct scxpol_cli *c, FILE *f)
{
	fprintf(f, "usage: scxpol-stat [--policy NAME | --socket PATH]\n"
		   "                   [--json | --meta | --request JSON] [--interval SECS] [--count N]\n"
		   "  -p, --policy NAME    the policy's server, " SOCK_DIR "/NAME.sock\n"
		   "  -s, --socket PATH    the server at PATH\n"
		   "                       (neither: the only socket in " SOCK_DIR " a server\n"
		   "                       listens on)\n"
		   "  -j, --json           print one snapshot as JSON and exit\n"
		   "  -m, --meta           print each counter's name, unit and description\n"
		   "  -r, --request JSON   send one request line, print the response\n"
		   "  -i, --interval SECS  refresh the table every SECS (default 1)\n"
		   "  -n, --count N        stop after N tables (default: until interrupted)\n"
		   "                       (after the first, a failed read is retried: the\n"
		   "                       policy may be restarting)\n");
	scxpol_cli_usage(c, f);
}

/*
 * Nobody listens on socket @path: a killed policy's, left behind (its
 * next start takes it over). Non-blocking: a live server with a full
 * backlog answers EAGAIN, not a wait.
 */
static bool stale_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
	close(fd);
	return r == ECONNREFUSED;
}

/* @name less ".sock" to the list @list of @len bytes, while it fits. */
static void list_add(char *list, size_t len, const char *name)
{
	size_t have = strlen(list), l = strlen(name) - 5;

	if (have + l + 3 < len)
		snprintf(list + have, len - have, "%s%.*s", have ? ", " : "", (int)l, name);
}

/* The only *.sock in SOCK_DIR that a server listens on into @buf. */
static int only_socket(char *buf, size_t len)
{
	char names[1024] = "", stale[1024] = "", path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(SOCK_DIR);

	if (!d) {
		fprintf(stderr, "scxpol-stat: no policy serves stats here (%s: %s); give --policy "
			"or --socket\n", SOCK_DIR, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".sock"))
			continue;
		snprintf(path, sizeof(path), SOCK_DIR "/%s", de->d_name);
		if (stale_socket(path)) {
			list_add(stale, sizeof(stale), de->d_name);
			continue;
		}
		if (!n++)
			snprintf(buf, len, "%s", path);
		list_add(names, sizeof(names), de->d_name);
	}
	closedir(d);
	if (n == 1)
		return 0;
	if (n)
		fprintf(stderr, "scxpol-stat: %d policies serve stats (%s); pick one with "
			"--policy\n", n, names);
	else if (stale[0])
		fprintf(stderr, "scxpol-stat: no policy serves stats here (in %s, nobody listens "
			"on the sockets of %s: stopped without removing them)\n", SOCK_DIR, stale);
	else
		fprintf(stderr, "scxpol-stat: no policy serves stats here (no socket in %s)\n",
			SOCK_DIR);
	return -1;
}

static void print_table(const struct scxpol_stats *st, const struct scxpol_stats *prev)
{
	double dt = prev ? (double)(st->time_ns - prev->time_ns) / 1e9 : 0;
	bool rates = prev && dt > 0 && prev->restarts == st->restarts;
	unsigned int i;

	printf("%s  restarts %u\n", st->policy, st->restarts);
	printf("%-24s %20s %14s\n", "COUNTER", "TOTAL", "/s");
	for (i = 0; i < st->nr; i++) {
		const struct scxpol_stat_value *old = prev ? scxpol_stats_find(prev, st->v[i].name)
							   : NULL;

		if (rates && old && old->value <= st->v[i].value)
			printf("%-24s %20llu %14.1f\n", st->v[i].name,
			       (unsigned long long)st->v[i].value,
			       (double)(st->v[i].value - old->value) / dt);
		else
			printf("%-24s %20llu %14s\n", st->v[i].name,
			       (unsigned long long)st->v[i].value, "-");
	}
	if (st->nr_pools) {
		printf("\n%-16s %-24s %8s %10s\n", "POOL", "CPUS", "NR_CPUS", "QUEUED");
		for (i = 0; i < st->nr_pools; i++)
			printf("%-16s %-24s %8u %10u\n", st->pools[i].name, st->pools[i].cpus,
			       st->pools[i].nr_cpus, st->pools[i].queued);
	}
}

/* The counters the server at @path reports, one a line: name, unit, description. */
static int print_meta(const char *path)
{
	struct scxpol_stat_desc *d;
	int n = scxpol_stats_fetch_meta(path, &d), i;

	if (n < 0) {
		fprintf(stderr, "scxpol-stat: %s\n", scxpol_last_error());
		return 1;
	}
	printf("%-24s %-12s %s\n", "COUNTER", "UNIT", "DESCRIPTION");
	for (i = 0; i < n; i++)
		printf("%-24s %-12s %s\n", d[i].name, d[i].unit, d[i].desc);
	free(d);
	return scxpol_cli_finish("scxpol-stat", NULL, 0);
}

/* The command line's values. */
struct args {
	const char *policy, *sock, *request;
	unsigned long long count;
	double interval;
	bool json, meta;
	const char *table_opt;	/* --interval or --count, given */
};

static int option(const struct scxpol_cli *c, int opt, const char *arg)
{
	struct args *a = c->ctx;

	switch (opt) {
	case 'p':
		a->policy = arg;
		break;
	case 's':
		a->sock = arg;
		break;
	case 'j':
		a->json = true;
		break;
	case 'm':
		a->meta = true;
		break;
	case 'r':
		a->request = arg;
		break;
	case 'i':
		if (scxpol_cli_parse_double("--interval", arg, 0, 3600, &a->interval))
			return scxpol_cli_usage_error(c);
		a->table_opt = "--interval";
		break;
	case 'n':
		if (scxpol_cli_parse_uint("--count", arg, 1, LLONG_MAX, &a->count))
			return scxpol_cli_usage_error(c);
		a->table_opt = "--count";
		break;
	}
	return SCXPOL_CLI_CONTINUE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "meta", no_argument, NULL, 'm' },
		{ "request", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct args a = { .interval = 1 };
	SCXPOL_OPTS(scxpol_cli, cli, .prog = "scxpol-stat", .usage = usage, .options = longopts,
		    .shortopts = "p:s:jmr:i:n:", .option = option, .ctx = &a);
	SCXPOL_OPTS(scxpol_cli_args, common);
	struct scxpol_stats *st, *prev;
	unsigned long long n;
	bool tty = isatty(STDOUT_FILENO);
	char path[256];
	int r;

	/* failures are reported once, below, with the library's message */
	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	r = scxpol_cli_parse(&cli, &common, argc, argv);
	if (r != SCXPOL_CLI_CONTINUE)
		return r;
	if (a.policy && a.sock) {
		fprintf(stderr, "scxpol-stat: give --policy or --socket, not both\n");
		return 2;
	}
	if (a.json + a.meta + !!a.request > 1) {
		fprintf(stderr, "scxpol-stat: give one of --json, --meta and --request\n");
		return 2;
	}
	if ((a.json || a.meta || a.request) && a.table_opt) {
		fprintf(stderr, "scxpol-stat: %s is for the table, not for %s\n", a.table_opt,
			a.json ? "--json" : a.meta ? "--meta" : "--request");
		return 2;
	}
	if (a.sock) {
		snprintf(path, sizeof(path), "%s", a.sock);
	} else if (a.policy) {
		if (scxpol_stats_socket_path(a.policy, path, sizeof(path)) < 0) {
			fprintf(stderr, "scxpol-stat: %s\n", scxpol_last_error());
			return 2;
		}
		if (access(path, F_OK) && errno == ENOENT) {
			fprintf(stderr, "scxpol-stat: no policy '%s' serves stats (%s does not exist)\n",
				a.policy, path);
			return 1;
		}
	} else if (only_socket(path, sizeof(path))) {
		return 1;
	}

	if (a.request) {
		char resp[1 << 16];

		if (scxpol_stats_request(path, a.request, resp, sizeof(resp)) < 0) {
			fprintf(stderr, "scxpol-stat: %s\n", scxpol_last_error());
			return 1;
		}
		printf("%s\n", resp);
		return scxpol_cli_finish("scxpol-stat", NULL, 0);
	}
	if (a.meta)
		return print_meta(path);
	st = scxpol_stats_new();
	prev = scxpol_stats_new();
	if (!st || !prev) {
		fprintf(stderr, "scxpol-stat: out of memory\n");
		free(st);
		free(prev);
		return 1;
	}
	for (n = 0; !a.count || n < a.count; n++) {
		if (n) {
			struct timespec ts = {
				.tv_sec = (time_t)a.interval,
				.tv_nsec = (long)((a.interval - (double)(time_t)a.interval) * 1e9),
			};

			*prev = *st;
			nanosleep(&ts, NULL);
		}
		r = scxpol_stats_fetch(path, st);
		if (r && n) {
			/* the policy or its loader restarting: the table goes on once it is back */
			fprintf(stderr, "scxpol-stat: %s; trying again\n", scxpol_last_error());
			*st = *prev;
			n--;
			continue;
		}
		if (r) {
			fprintf(stderr, "scxpol-stat: %s\n", scxpol_last_error());
			free(st);
			free(prev);
			return 1;
		}
		if (a.json) {
			r = scxpol_stats_json_file(st, stdout);
			free(st);
			free(prev);
			if (r)
				fprintf(stderr, "scxpol-stat: %s\n", scxpol_last_error());
			return r ? 1 : scxpol_cli_finish("scxpol-stat", NULL, 0);
		}
		if (tty)
			printf("\033[H\033[2J");
		else if (n)
			printf("\n");
		print_table(st, n ? prev : NULL);
		if (scxpol_cli_finish("scxpol-stat", NULL, 0)) {
			free(st);
			free(prev);
			return 1;
		}
	}
	free(st);
	free(prev);
	return 0;
}
