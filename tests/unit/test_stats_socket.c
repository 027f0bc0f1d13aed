// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Where the stats server puts its socket: a stale one taken over, the
 * socket's mode and group, other files and sockets left alone, its
 * directory and lock file checked (another user could take the path), one
 * server per path even when two start at once, paths refused, and the
 * socket path of a policy's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxpol/stats.h>

#include "internal.h"
#include "stats_fixture.h"

/*
 * setup(), and dir searchable by every user: test_server_private_dir's
 * lock file held by uid 65534 (hold_lock_as_nobody()) is in it.
 */
static int setup_searchable(void **state)
{
	setup(state);
	assert_int_equal(chmod(dir, 0711), 0);
	return 0;
}

static void test_server_stale_socket_and_mode(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[256], resp[4096], want[512];
	struct stat sb;
	int fd;

	(void)state;
	/* a socket nobody listens on any more (the policy was killed) */
	snprintf(path, sizeof(path), "%s/stale.sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ECONNREFUSED);
	snprintf(want, sizeof(want), "cannot connect to %s: Connection refused (a stale socket: the "
		 "policy is not running)", path);
	assert_string_equal(scxpol_last_error(), want);
	/* what is not a socket is not called a stale one; "" would be an abstract socket */
	assert_int_equal(scxpol_stats_request(dir, "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -ENOTSOCK);
	snprintf(want, sizeof(want), "cannot connect to %s: it is not a socket", dir);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(scxpol_stats_request("", "{\"req\":\"list\"}", resp, sizeof(resp)),
			 -EINVAL);
	assert_string_equal(scxpol_last_error(), "the stats socket path is empty");

	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0660, .gid = 4242);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0660);
	assert_int_equal(sb.st_gid, 4242);
	assert_true(scxpol_stats_request(path, "{\"req\":\"list\"}", resp, sizeof(resp)) > 0);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * What answers no stream connection is taken over only when it is a socket
 * nobody listens on (a killed loader's): a file, or a live socket of
 * another kind (a datagram socket as /dev/log), is someone else's.
 */
/* scxpol_stats_server_start() on @path must fail with @err and the message @fmt. */
#define expect_refused(s, path, err, fmt, ...)                                          \
	do {                                                                             \
		char want_[1024];                                                        \
		SCXPOL_OPTS(scxpol_stats_server_opts, vo_, .path = (path));              \
		assert_null(scxpol_stats_server_start((s), &vo_));                       \
		assert_int_equal(errno, (err));                                          \
		snprintf(want_, sizeof(want_), fmt, ##__VA_ARGS__);                      \
		assert_string_equal(scxpol_last_error(), want_);                         \
	} while (0)

/* A child of uid 65534 holding an flock() on @path until it is killed. */
static pid_t hold_lock_as_nobody(const char *path)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd;

		close(p[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(1);
		fd = open(path, O_RDONLY);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

/*
 * The socket's directory is checked as the pin directory is, and the lock
 * file must be this user's: another user who could write there, or who
 * made the lock file first, could hold the lock (no server ever starts) or
 * put a link where the socket goes. Needs root (chown, setresuid).
 */
static void test_server_private_dir(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char d[200], other[200], path[256], lock[300];
	static const struct {
		const char *name, *what, *who;
		mode_t mode;
		uid_t uid;
	} bad[] = {
		{ "grp", "is writable by its group (mode 0770)", "they", 0770, 0 },
		{ "theirs", "belongs to uid 65534, not to root or this user", "its owner", 0755,
		  65534 },
		/* sticky is no shelter for the socket's own directory */
		{ "sticky", "is writable by everyone (mode 1777)", "they", 01777, 0 },
	};
	struct dirent *de;
	struct stat sb;
	unsigned int n;
	pid_t holder;
	size_t i;
	DIR *dd;
	int fd;

	(void)state;
	if (geteuid())
		skip();
	/* a directory its group may write to, another user's, a sticky one */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(d, sizeof(d), "%s/%s", dir, bad[i].name);
		assert_int_equal(mkdir(d, 0700), 0);
		assert_int_equal(chmod(d, bad[i].mode), 0);
		assert_int_equal(chown(d, bad[i].uid, bad[i].uid), 0);
		snprintf(path, sizeof(path), "%s/x.sock", d);
		expect_refused(s, path, EPERM, "stats socket directory %s: %s %s: %s could replace "
			       "the socket", d, d, bad[i].what, bad[i].who);
	}

	/* a link for the directory, even to a good one */
	snprintf(d, sizeof(d), "%s/good", dir);
	assert_int_equal(mkdir(d, 0711), 0);
	snprintf(other, sizeof(other), "%s/link", dir);
	assert_int_equal(symlink(d, other), 0);
	snprintf(path, sizeof(path), "%s/x.sock", other);
	expect_refused(s, path, ENOTDIR, "stats socket directory %s: %s is not a directory (a "
		       "symbolic link?)", other, other);

	/* a lock file another user made first, and holds */
	snprintf(path, sizeof(path), "%s/x.sock", d);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	fd = open(lock, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(lock, 65534, 65534), 0);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is owned by uid 65534, "
		       "not a file of this user's (uid 0): another user may hold the lock; remove "
		       "it", path, lock);
	holder = hold_lock_as_nobody(lock);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is owned by uid 65534, "
		       "not a file of this user's (uid 0): another user may hold the lock; remove "
		       "it", path, lock);
	kill(holder, SIGKILL);
	assert_int_equal(waitpid(holder, NULL, 0), holder);
	/* a link there, to a file of ours: not followed */
	assert_int_equal(unlink(lock), 0);
	snprintf(other, sizeof(other), "%s/mine", dir);
	fd = open(other, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(other, lock), 0);
	expect_refused(s, path, ELOOP, "stats socket %s: cannot open its lock file %s: Too many "
		       "levels of symbolic links", path, lock);
	/* or a hard link */
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(link(other, lock), 0);
	expect_refused(s, path, EPERM, "stats socket %s: its lock file %s is a file with other "
		       "links, uid 0, not a file of this user's (uid 0): another user may hold the "
		       "lock; remove it", path, lock);
	/* a link where the socket goes */
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(symlink(other, path), 0);
	expect_refused(s, path, EEXIST, "stats socket %s: the path exists and is not a socket; "
		       "remove it or give another path", path);
	assert_int_equal(unlink(path), 0);

	/* our own lock file of another umask is made ours alone; nothing else is left */
	fd = open(lock, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path, .mode = 0640, .gid = 4242);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	assert_int_equal(lstat(lock, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(sb.st_gid, 4242);
	dd = opendir(d);
	assert_non_null(dd);
	for (n = 0; (de = readdir(dd));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dd);
	assert_int_equal(n, 2);
	scxpol_stats_server_stop(srv);
	assert_int_equal(lstat(path, &sb), -1);
	scxpol_sched_close(s);
}

static void test_server_spares_other_files(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_sched *s = open_minimal();
	char path[256], want[512], buf[16];
	struct stat sb, now;
	FILE *f;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/precious.sock", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("data\n", f);
	fclose(f);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EEXIST);
	snprintf(want, sizeof(want), "stats socket %s: the path exists and is not a socket; "
		 "remove it or give another path", path);
	assert_string_equal(scxpol_last_error(), want);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "data\n");
	/* and nothing made beside it */
	snprintf(want, sizeof(want), "%s.lock", path);
	assert_int_equal(stat(want, &sb), -1);

	snprintf(path, sizeof(path), "%s/dgram.sock", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(stat(path, &sb), 0);
	vo.path = path;
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EPROTOTYPE);
	snprintf(want, sizeof(want), "stats socket %s: the path is a socket that cannot be "
		 "checked for a running stats server (Protocol wrong type for socket); remove it "
		 "or give another path", path);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(stat(path, &now), 0);
	assert_true(now.st_ino == sb.st_ino);
	close(fd);
	scxpol_sched_close(s);
}

/* Two servers started at once on one path: the start of each, on its own thread. */
struct racer {
	struct scxpol_sched *s;
	const struct scxpol_stats_server_opts *vo;
	pthread_barrier_t *go;
	struct scxpol_stats_server *srv;
	int err;
};

static void *race_start(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	r->srv = scxpol_stats_server_start(r->s, r->vo);
	r->err = r->srv ? 0 : errno;
	return NULL;
}

/*
 * One server per path, also when two start at the same moment (each found
 * no server before the other renamed its socket into place, and the later
 * rename took the path from the earlier). <path>.lock decides, and a lock
 * held by another server refuses the start though no socket is there yet.
 */
static void test_server_one_per_path(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	struct racer r[2];
	pthread_barrier_t go;
	pthread_t th[2];
	char path[256], lock[300], want[512];
	struct stat sb;
	int i, k, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/race.sock", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	for (i = 0; i < 200; i++) {
		assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
		for (k = 0; k < 2; k++) {
			r[k] = (struct racer){ .s = s, .vo = &vo, .go = &go };
			assert_int_equal(pthread_create(&th[k], NULL, race_start, &r[k]), 0);
		}
		for (k = 0; k < 2; k++)
			assert_int_equal(pthread_join(th[k], NULL), 0);
		pthread_barrier_destroy(&go);
		/* exactly one started, and the other says why */
		assert_true(!r[0].srv != !r[1].srv);
		assert_int_equal(r[0].err + r[1].err, EADDRINUSE);
		scxpol_stats_server_stop(r[0].srv ? r[0].srv : r[1].srv);
		assert_int_equal(stat(path, &sb), -1);
	}

	/* the lock of a server starting elsewhere, before its socket exists */
	fd = open(lock, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EADDRINUSE);
	snprintf(want, sizeof(want), "a stats server already answers on %s (is the policy running "
		 "twice?)", path);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(stat(path, &sb), -1);
	close(fd);
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_stats_server_stop(srv);
	scxpol_sched_close(s);
}

/*
 * Socket paths the server cannot use are refused naming them, and the
 * longest it takes does not depend on its process id: the socket is made
 * under a temporary name (the path, '.', the pid, '.', a sequence number)
 * that must fit sun_path too.
 */
static void test_server_bad_paths(void **state)
{
	struct scxpol_sched *s = open_minimal();
	struct scxpol_stats_server *srv;
	char path[300], want[600];
	size_t n;

	(void)state;
	SCXPOL_OPTS(scxpol_stats_server_opts, vo, .path = path);
	snprintf(path, sizeof(path), "%s/no/such/dir/x.sock", dir);
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "stats socket %s: cannot create its directory %s/no/such/dir: "
		 "No such file or directory", path, dir);
	assert_string_equal(scxpol_last_error(), want);

	/* "" (--stats-socket '') is no path in the working directory */
	vo.path = "";
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(), "the stats socket path is empty");
	vo.path = path;

	/* a timeout poll() cannot take is refused, not turned into no timeout */
	vo.timeout_ms = 2147483648u;
	assert_null(scxpol_stats_server_start(s, &vo));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "stats server: timeout_ms 2147483648 is over 2147483647 (about 24 days)");
	vo.timeout_ms = 0;

	/* 107 bytes, a Unix socket's: the longest; one more is refused */
	n = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	memset(path + n, 'p', 107 - n);
	path[107] = '\0';
	srv = scxpol_stats_server_start(s, &vo);
	assert_non_null(srv);
	scxpol_stats_server_stop(srv);
	for (n = 108; n <= 288; n += 180) {
		memset(path + 107, 'p', n - 107);
		path[n] = '\0';
		assert_null(scxpol_stats_server_start(s, &vo));
		assert_int_equal(errno, ENAMETOOLONG);
		snprintf(want, sizeof(want), "stats socket path '%s' is longer than a Unix "
			 "socket's 107 bytes", path);
		assert_string_equal(scxpol_last_error(), want);
	}
	scxpol_sched_close(s);
}

static void test_socket_path(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(scxpol_stats_socket_path("ads", buf, sizeof(buf)), 20);
	assert_string_equal(buf, "/run/scxpol/ads.sock");
	assert_int_equal(scxpol_stats_socket_path("a/b", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(scxpol_last_error(), "policy name 'a/b': want a policy's name, without '/'");
	assert_int_equal(scxpol_stats_socket_path("ads", buf, 10), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_stale_socket_and_mode),
		cmocka_unit_test(test_server_spares_other_files),
		cmocka_unit_test(test_server_private_dir),
		cmocka_unit_test(test_server_one_per_path),
		cmocka_unit_test(test_server_bad_paths),
		cmocka_unit_test(test_socket_path),
	};

	return cmocka_run_group_tests(tests, setup_searchable, teardown);
}
