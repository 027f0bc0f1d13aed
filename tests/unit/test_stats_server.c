// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The stats server and its clients over a real socket: the answers and the
 * client calls, several requests on a connection, oversized, slow and too
 * many clients, idle clients evicted, how a request may end, a response
 * that just fits, out of file descriptors, and a server that does not
 * accept.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include <scxpol/stats.h>

#include "stats_fixture.h"

static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Everything the server sends until it closes the connection. */
static void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n = -1;

	while (off + 1 < len && (n = recv(fd, buf + off, len - 1 - off, 0)) > 0)
		off += (size_t)n;
	assert_true(n == 0); /* closed by the server, not a timeout */
	buf[off] = '\0';
}

/* A request and its response on the open connection @fd. */
static void ask(int fd, char *buf, size_t len)
{
	ssize_t n;

	assert_int_equal(send(fd, "{\"req\":\"list\"}\n", 15, 0), 15);
	n = recv(fd, buf, len - 1, 0);
	assert_true(n > 0 && buf[n - 1] == '\n');
	buf[n] = '\0';
	assert_true(!strncmp(buf, "{\"errno\":0,", 11));
}

static void test_server(void **state)
{
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = udescs, .nr_user = 3);
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv, *srv2;
	char path[256], resp[4096], buf[8192];
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	struct scxpol_stat_desc *meta;
	struct stat sb;
	int fd, fd2, fd3, i, n;

	(void)state;
	snprintf(path, sizeof(path), "%s/run/minimal.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .stats = &so, .max_clients = 2,
		    .timeout_ms = 300);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_string_equal(scxpol_stats_server_path(srv), path);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);

	/* a second server on the same path is refused */
	srv2 = scxpol_stats_server_start(s, &vo);
	assert_null(srv2);
	assert_int_equal(errno, EADDRINUSE);
	snprintf(buf, sizeof(buf), "a stats server already answers on %s (is the policy running "
		 "twice?)", path);
	assert_string_equal(scxpol_last_error(), buf);

	assert_true(scxpol_stats_request(path, "{\"req\":\"bogus\"}", resp, sizeof(resp)) > 0);
	assert_string_equal(resp, "{\"errno\":22,\"resp\":null,\"error\":\"unknown request "
				  "\\\"bogus\\\"; known: list, stats, stats_meta\"}");
	assert_int_equal(scxpol_stats_fetch(path, &st), -ENODATA);
	snprintf(buf, sizeof(buf), "%s: the server answered errno 61: policy 'minimal' is not "
		 "loaded (restarting?)", path);
	assert_string_equal(scxpol_last_error(), buf);

	/* the descriptors over the socket: the library's, then the named user counters */
	n = scxpol_stats_fetch_meta(path, &meta);
	assert_int_equal(n, SCXPOL_STAT_NR + 2);
	for (i = 0; i < SCXPOL_STAT_NR; i++) {
		assert_string_equal(meta[i].name, lib_names[i]);
		assert_string_equal(meta[i].unit, lib_units[i]);
		assert_string_equal(meta[i].desc, lib_descs[i]);
	}
	assert_string_equal(meta[i].name, "importance_sum");
	assert_string_equal(meta[i].unit, "importance");
	assert_string_equal(meta[i].desc, udescs[0].desc);
	assert_string_equal(meta[i + 1].name, "class_placed");
	assert_string_equal(meta[i + 1].unit, "");
	assert_string_equal(meta[i + 1].desc, "");
	free(meta);

	/* several requests on one connection, blank lines skipped */
	fd = raw_connect(path);
	snprintf(buf, sizeof(buf), "{\"req\":\"x\"}\n\n  \n{\"req\":\"y\"}\n");
	assert_int_equal(send(fd, buf, strlen(buf), 0), (ssize_t)strlen(buf));
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":22,\"resp\":null,\"error\":\"unknown request \\\"x\\\"; "
				 "known: list, stats, stats_meta\"}\n{\"errno\":22,\"resp\":null,\"error\":\"unknown "
				 "request \\\"y\\\"; known: list, stats, stats_meta\"}\n");
	close(fd);

	/* an oversized request: an error, then the connection is closed */
	fd = raw_connect(path);
	memset(buf, 'x', SCXPOL_STATS_MAX_LINE + 100);
	assert_int_equal(send(fd, buf, SCXPOL_STATS_MAX_LINE + 100, 0), SCXPOL_STATS_MAX_LINE + 100);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":7,\"resp\":null,\"error\":\"request longer than 4096 "
				 "bytes\"}\n");
	close(fd);

	/* a slow client (half a request) is dropped after the timeout */
	fd = raw_connect(path);
	assert_int_equal(send(fd, "{\"req\":", 7, 0), 7);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "");
	close(fd);

	/*
	 * max_clients 2, both in the middle of a request: a third is answered
	 * EBUSY and closed; then served again. On a server that does not drop
	 * idle clients soon: with the 300 ms above, a loaded machine could
	 * delay the third past the first two's timeout, and it would then be
	 * served instead. (The server reads its clients before it accepts.)
	 */
	scxpol_stats_server_stop(srv);
	vo.timeout_ms = 60000;
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	fd = raw_connect(path);
	fd2 = raw_connect(path);
	/* an answer: accepted; then the halves, sent before the third connects, are read first */
	ask(fd, buf, sizeof(buf));
	ask(fd2, buf, sizeof(buf));
	assert_int_equal(send(fd, "{\"req\":", 7, 0), 7);
	assert_int_equal(send(fd2, "{\"req\":", 7, 0), 7);
	fd3 = raw_connect(path);
	read_all(fd3, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":16,\"resp\":null,\"error\":\"too many clients (2); try "
				 "again later\"}\n");
	close(fd3);
	close(fd);
	close(fd2);
	/* up to 5 s for the server to see the two leave (it usually takes a few ms) */
	for (i = 0; i < 250; i++) {
		if (scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)) > 0 &&
		    !strncmp(resp, "{\"errno\":0,", 11))
			break;
		usleep(20000);
	}
	assert_true(i < 250);

	/* a response larger than the caller's buffer */
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, 64), -EMSGSIZE);

	scxpol_stats_server_stop(srv);
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)), -ENOENT);
	snprintf(buf, sizeof(buf), "cannot connect to %s: No such file or directory (is the policy "
		 "running with its stats server?)", path);
	assert_string_equal(scxpol_last_error(), buf);
	scxpol_sched_close(s);
}

/* raw_connect() as user @uid (the server learns it with SO_PEERCRED). */
static int connect_as(const char *path, uid_t uid)
{
	int fd;

	assert_int_equal(seteuid(uid), 0);
	fd = raw_connect(path);
	assert_int_equal(seteuid(0), 0);
	return fd;
}

/*
 * Clients that ask every few seconds hold their slots for good unless the
 * server takes one back: with all 4 taken by clients between requests, a
 * new one gets the slot of the user holding the most (uid 65534's 3), the
 * one idle longest; the next, with 2 each, the oldest of all. Needs root
 * (seteuid).
 */
static void test_server_evicts_idle(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], buf[8192];
	int nobody[3], mine, fresh, fresh2, i;

	(void)state;
	if (geteuid())
		skip();
	assert_int_equal(chmod(dir, 0711), 0);
	snprintf(path, sizeof(path), "%s/slots.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0666, .max_clients = 4,
		    .timeout_ms = 60000);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	for (i = 0; i < 3; i++) {
		nobody[i] = connect_as(path, 65534);
		ask(nobody[i], buf, sizeof(buf));
		usleep(2000); /* idle times apart, in ms */
	}
	mine = raw_connect(path);
	ask(mine, buf, sizeof(buf));
	usleep(2000);

	/* full: the new client is served, nobody's oldest is closed */
	fresh = raw_connect(path);
	ask(fresh, buf, sizeof(buf));
	read_all(nobody[0], buf, sizeof(buf));
	assert_string_equal(buf, "");
	ask(mine, buf, sizeof(buf));
	ask(nobody[1], buf, sizeof(buf));
	usleep(2000);

	/* 2 each now: the one idle longest goes, whoever's it is (nobody[2]) */
	fresh2 = raw_connect(path);
	ask(fresh2, buf, sizeof(buf));
	read_all(nobody[2], buf, sizeof(buf));
	assert_string_equal(buf, "");
	ask(nobody[1], buf, sizeof(buf));
	ask(mine, buf, sizeof(buf));
	ask(fresh, buf, sizeof(buf));
	for (i = 0; i < 3; i++)
		close(nobody[i]);
	close(mine);
	close(fresh);
	close(fresh2);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * Every request gets an answer: a line of NUL bytes is no blank line, and
 * what a client sends before its EOF is its last request, newline or not
 * (printf '{"req":"list"}' | nc -U PATH).
 */
static void test_server_line_ends(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], buf[4096];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/ends.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	fd = raw_connect(path);
	assert_int_equal(send(fd, "\0\n{\"req\":\"x\"}", 13, 0), 13);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"errno\":22,\"resp\":null,\"error\":\"bad JSON: a NUL byte at "
				 "offset 0\"}\n{\"errno\":22,\"resp\":null,\"error\":\"unknown "
				 "request \\\"x\\\"; known: list, stats, stats_meta\"}\n");
	close(fd);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/* A response fits a buffer of its length and the NUL; one byte less is -EMSGSIZE. */
static void test_request_exact_fit(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], resp[4096], small[4096];
	int n;

	(void)state;
	snprintf(path, sizeof(path), "%s/fit.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	n = scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp));
	assert_true(n > 0);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", small, (size_t)n + 1), n);
	assert_string_equal(small, resp);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", small, (size_t)n),
			 -EMSGSIZE);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

static char accept_warning[256];
static unsigned int nr_accept_warnings;

static void catch_accept_warning(enum scxpol_log_level l, const char *m, void *c)
{
	(void)c;
	if (l == SCXPOL_LOG_WARN && strstr(m, "cannot accept")) {
		snprintf(accept_warning, sizeof(accept_warning), "%s", m);
		nr_accept_warnings++;
	}
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Out of file descriptors (the loader's, which the server shares), a
 * client waiting in the backlog cannot be accepted: the server says so
 * once and tries again later, instead of polling its always-ready socket
 * in a loop that takes a CPU from the host it schedules. The client is
 * served once descriptors are free again.
 */
static void test_server_out_of_fds(void **state)
{
	struct scxpol_sched *s;
	struct scxpol_stats_server *srv;
	char path[256], want[512], buf[4096];
	struct rlimit old, low;
	int fill[1024], nr = 0, fd;
	double cpu;

	(void)state;
	/*
	 * valgrind checks descriptors against a limit of its own, not the
	 * kernel's (and cmocka's skip() reads as a failure to meson's TAP)
	 */
	if (RUNNING_ON_VALGRIND)
		return;
	s = open_minimal();
	snprintf(path, sizeof(path), "%s/fds.sock", dir);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_log_set(catch_accept_warning, SCXPOL_LOG_DEBUG, NULL);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 128;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (nr < 1024 && (fill[nr] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		nr++;
	assert_int_equal(errno, EMFILE);
	assert_true(nr > 0);
	close(fill[--nr]);
	fd = raw_connect(path); /* the last descriptor */
	assert_int_equal(send(fd, "{\"req\":\"list\"}\n", 15, 0), 15);
	cpu = cpu_seconds();
	sleep(2);
	/* a loop takes about a second of CPU a second; one try a second, next to none */
	cpu = cpu_seconds() - cpu;
	while (nr)
		close(fill[--nr]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_true(recv(fd, buf, sizeof(buf), 0) > 0);
	assert_true(!strncmp(buf, "{\"errno\":0,", 11));
	close(fd);
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	snprintf(want, sizeof(want), "stats server %s: cannot accept a client: Too many open "
		 "files; trying again every second", path);
	assert_string_equal(accept_warning, want);
	assert_int_equal(nr_accept_warnings, 1);
	assert_true(cpu < 0.2);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * A server that does not accept (its thread stuck, its queue full): the
 * client gives up after its 5 s like for an answer that does not come,
 * -ETIMEDOUT saying so, not connect()'s "Resource temporarily unavailable".
 */
static void test_request_server_not_accepting(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[256], resp[256], want[512];
	int fd, queued;

	(void)state;
	snprintf(path, sizeof(path), "%s/stuck.sock", dir);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 0), 0);
	queued = raw_connect(path); /* a backlog of 0 holds one */
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ETIMEDOUT);
	snprintf(want, sizeof(want), "cannot connect to %s: the server accepted no connection in "
		 "5 s (is the policy's stats server stuck?)", path);
	assert_string_equal(scxpol_last_error(), want);
	close(queued);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_server_evicts_idle),
		cmocka_unit_test(test_server_line_ends),
		cmocka_unit_test(test_request_exact_fit),
		cmocka_unit_test(test_server_out_of_fds),
		cmocka_unit_test(test_request_server_not_accepting),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
