// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats over a Unix socket: the server thread that answers request lines
 * (lib/stats_json.c's scxpol_stats_respond() builds the answers) and the
 * client's request.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "scxpol/sched.h"
#include "scxpol/stats.h"

#define SOCK_BASE "/run/scxpol"
#define CLIENT_TIMEOUT_S 5

/* ---- Server ------------------------------------------------------------------ */

struct client {
	int fd;
	struct scxpol_stats_frame in;
	char *out;
	size_t out_len, out_off;
	uint64_t deadline; /* ms */
	uint64_t last;     /* ms: accepted, or its last request answered */
	uid_t uid;         /* of the peer (SO_PEERCRED) */
	bool closing, shut;
};

struct scxpol_stats_server {
	struct scxpol_sched *s;
	struct scxpol_stats_opts stats;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char leaf[NAME_MAX + 1]; /* its name in its directory */
	int dir_fd;              /* its directory (private: lib/privdir.c) */
	dev_t dev;
	ino_t ino;
	int listen_fd;
	int lock_fd; /* flock()ed <path>.lock, held while the server lives */
	int wake[2];
	pthread_t thread;
	bool running;
	unsigned int max_clients, timeout_ms;
	struct client *clients;
	unsigned int nr_clients;
	uint64_t accept_after; /* ms; accept failed for want of resources: not before */
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void client_close(struct scxpol_stats_server *srv, unsigned int i)
{
	struct client *c = &srv->clients[i];

	close(c->fd);
	free(c->out);
	memmove(c, c + 1, (srv->nr_clients - i - 1) * sizeof(*c));
	srv->nr_clients--;
}

/* Queue @resp (malloc'd, may be NULL for out of memory) and a newline. */
static void client_queue(struct client *c, char *resp)
{
	size_t n;

	if (!resp) {
		c->closing = true;
		return;
	}
	n = strlen(resp);
	resp[n] = '\n'; /* the response has room: its NUL */
	c->out = resp;
	c->out_len = n + 1;
	c->out_off = 0;
}

/* Send what is queued; false if the client is gone. */
static bool client_flush(struct client *c)
{
	while (c->out && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return true;
}

char *scxpol_stats_frame_room(struct scxpol_stats_frame *f, size_t *room)
{
	/* the line handed out last goes first */
	memmove(f->in, f->in + f->used, f->len - f->used);
	f->len -= f->used;
	f->used = 0;
	*room = sizeof(f->in) - f->len;
	return f->in + f->len;
}

int scxpol_stats_frame_next(struct scxpol_stats_frame *f, const char **line, size_t *n)
{
	size_t room, len, i;
	char *nl;

	for (;;) {
		scxpol_stats_frame_room(f, &room);
		nl = memchr(f->in, '\n', f->len);
		if (!nl && !room) {
			f->len = 0;
			return -E2BIG;
		}
		/* at the client's EOF, what it sent last is a request without its newline */
		if (!nl && (!f->eof || !f->len))
			return 0;
		len = nl ? (size_t)(nl - f->in) : f->len;
		f->used = len + (nl ? 1 : 0);
		/* not strchr(): it would take a NUL byte for white space */
		for (i = 0; i < len && (f->in[i] == ' ' || f->in[i] == '\t' || f->in[i] == '\r'); i++)
			;
		if (i < len) {
			*line = f->in;
			*n = len;
			return 1;
		}
	}
}

/*
 * Answer the complete lines in @c's buffer, one at a time: the next only
 * once the previous response is sent, so a client that does not read
 * holds one response at most. False if the client is gone.
 */
static bool client_process(struct scxpol_stats_server *srv, struct client *c)
{
	for (;;) {
		const char *line;
		size_t len;
		int r;

		if (!client_flush(c))
			return false;
		if (c->out || c->closing)
			return true;
		r = scxpol_stats_frame_next(&c->in, &line, &len);
		if (r == -E2BIG) {
			char msg[64];

			snprintf(msg, sizeof(msg), "request longer than %d bytes",
				 SCXPOL_STATS_MAX_LINE);
			client_queue(c, scxpol_stats_error_response(E2BIG, msg));
			c->closing = true;
			continue;
		}
		if (!r)
			return true;
		client_queue(c, scxpol_stats_respond(srv->s, &srv->stats, line, len));
		c->last = mono_ms();
		c->deadline = c->last + srv->timeout_ms;
	}
}

/*
 * The client whose slot a new one takes when all are taken, or -1: one
 * between requests (nothing queued, nothing half received), of the user
 * who holds the most slots, the one idle the longest. A client that asks
 * every few seconds would otherwise keep its slot for ever, and a user
 * with max_clients of them lock everyone out; this way a user's clients
 * lose slots before anyone else's do.
 */
static int evictable(const struct scxpol_stats_server *srv)
{
	unsigned int i, j, held, best_held = 0;
	int best = -1;

	for (i = 0; i < srv->nr_clients; i++) {
		const struct client *c = &srv->clients[i];

		if (c->out || c->in.len || c->closing)
			continue;
		for (j = held = 0; j < srv->nr_clients; j++)
			held += srv->clients[j].uid == c->uid;
		if (best < 0 || held > best_held ||
		    (held == best_held && c->last < srv->clients[best].last)) {
			best = (int)i;
			best_held = held;
		}
	}
	return best;
}

static void accept_clients(struct scxpol_stats_server *srv)
{
	for (;;) {
		int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cred;
		socklen_t cred_len = sizeof(cred);
		struct client *c;
		int victim;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			       errno == ENOMEM)) {
			/*
			 * The client stays in the backlog and the socket readable:
			 * polling it again at once would spin on a CPU of the host
			 * the policy schedules.
			 */
			if (!srv->accept_after)
				scxpol_log(SCXPOL_LOG_WARN, "stats server %s: cannot accept a client: "
					   "%s; trying again every second", srv->path,
					   strerror(errno));
			srv->accept_after = mono_ms() + 1000;
			return;
		}
		if (fd < 0)
			return;
		srv->accept_after = 0;
		if (srv->nr_clients == srv->max_clients && (victim = evictable(srv)) >= 0) {
			scxpol_log(SCXPOL_LOG_DEBUG, "stats server %s: all %u slots taken: closing "
				   "a client of uid %u idle for %llu ms", srv->path, srv->max_clients,
				   (unsigned int)srv->clients[victim].uid,
				   (unsigned long long)(mono_ms() - srv->clients[victim].last));
			client_close(srv, (unsigned int)victim);
		}
		if (srv->nr_clients == srv->max_clients) {
			char msg[96], *resp;

			snprintf(msg, sizeof(msg), "too many clients (%u); try again later",
				 srv->max_clients);
			resp = scxpol_stats_error_response(EBUSY, msg);
			if (resp) {
				size_t n = strlen(resp);

				resp[n] = '\n';
				if (send(fd, resp, n + 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
					/* it will see the connection close */
				}
				free(resp);
			}
			close(fd);
			continue;
		}
		c = &srv->clients[srv->nr_clients++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		/* a peer it cannot tell is nobody's: it shares one user's share */
		c->uid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) ? (uid_t)-1
										  : cred.uid;
		c->last = mono_ms();
		c->deadline = c->last + srv->timeout_ms;
	}
}

static void *server_main(void *arg)
{
	struct scxpol_stats_server *srv = arg;
	struct pollfd *pfd;

	pfd = calloc(srv->max_clients + 2, sizeof(*pfd));
	if (!pfd) {
		scxpol_log(SCXPOL_LOG_ERROR, "stats server %s: out of memory", srv->path);
		return NULL;
	}
	for (;;) {
		uint64_t now = mono_ms(), next = UINT64_MAX;
		unsigned int i, n = srv->nr_clients;
		int timeout;

		pfd[0] = (struct pollfd){ .fd = srv->wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = srv->listen_fd,
					  .events = now >= srv->accept_after ? POLLIN : 0 };
		if (now < srv->accept_after)
			next = srv->accept_after;
		for (i = 0; i < n; i++) {
			struct client *c = &srv->clients[i];

			pfd[i + 2] = (struct pollfd){ .fd = c->fd,
						      .events = c->out ? POLLOUT : POLLIN };
			if (c->deadline < next)
				next = c->deadline;
		}
		timeout = next == UINT64_MAX ? -1 : next <= now ? 0 : (int)(next - now);
		if (poll(pfd, n + 2, timeout) < 0 && errno != EINTR) {
			scxpol_log(SCXPOL_LOG_ERROR, "stats server %s: poll: %s", srv->path,
				   strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		now = mono_ms();
		/* walk backwards: closing a client moves the ones after it */
		for (i = n; i-- > 0;) {
			struct client *c = &srv->clients[i];
			short re = pfd[i + 2].revents;
			bool gone = false;

			if (re & POLLOUT) {
				gone = !client_flush(c);
				if (!gone && !c->out)
					c->deadline = now + srv->timeout_ms;
			}
			if (!gone && (re & (POLLIN | POLLHUP | POLLERR)) && !c->out) {
				size_t room;
				char *p = scxpol_stats_frame_room(&c->in, &room);
				ssize_t r = recv(c->fd, p, room, MSG_DONTWAIT);

				/* once closing, what the client still sends is dropped */
				if (r > 0 && !c->closing)
					c->in.len += (size_t)r;
				else if (r == 0)
					c->in.eof = true;
				else if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
					 errno != EINTR)
					gone = true;
			}
			if (!gone)
				gone = !client_process(srv, c);
			/*
			 * Closing: end our side after the last response and wait for
			 * the client's EOF; closing with its input unread would reset
			 * the connection and could lose the response.
			 */
			if (!gone && c->closing && !c->out && !c->shut) {
				shutdown(c->fd, SHUT_WR);
				c->shut = true;
			}
			if (gone || (!c->out && c->in.eof) || now >= c->deadline)
				client_close(srv, i);
		}
		if (pfd[1].revents & POLLIN)
			accept_clients(srv);
	}
	while (srv->nr_clients)
		client_close(srv, srv->nr_clients - 1);
	free(pfd);
	return NULL;
}

int scxpol_stats_socket_path(const char *policy, char *buf, size_t len)
{
	int n;

	if (!policy || !policy[0] || strchr(policy, '/') || !strcmp(policy, ".") ||
	    !strcmp(policy, ".."))
		return scxpol_err(EINVAL, "policy name '%s': want a policy's name, without '/'",
				  policy ? policy : "(null)");
	n = snprintf(buf, len, SOCK_BASE "/%s.sock", policy);
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return scxpol_err(ENAMETOOLONG, "policy name '%s' is too long for a socket path",
				  policy);
	return n;
}

/* "the socket is mode 0600 owned by root:root" for @path. */
static void sock_owner(const char *path, char *buf, size_t len)
{
	char who[160];
	struct stat st;

	if (stat(path, &st)) {
		snprintf(buf, len, "its directory is not accessible to uid %u", (unsigned int)getuid());
		return;
	}
	scxpol_owner_name(&st, who, sizeof(who));
	snprintf(buf, len, "the socket is mode %04o owned by %s", (unsigned int)(st.st_mode & 07777),
		 who);
}

/* Connect to the Unix socket @path; an fd or a negative errno with a message. */
static int sock_connect(const char *path, bool quiet)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	struct stat st;
	char why[256];
	int fd, e;

	/* "" would name an abstract socket */
	if (!path[0])
		return quiet ? -EINVAL : scxpol_err(EINVAL, "the stats socket path is empty");
	if (strlen(path) >= sizeof(sa.sun_path))
		return quiet ? -ENAMETOOLONG
			     : scxpol_err(ENAMETOOLONG, "socket path '%s' is longer than %zu bytes",
					  path, sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return quiet ? -errno : scxpol_err(errno, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	e = errno;
	close(fd);
	if (quiet)
		return -e;
	/* a file or directory gives ECONNREFUSED, or EROFS on a read-only mount */
	if (!stat(path, &st) && !S_ISSOCK(st.st_mode))
		return scxpol_err(ENOTSOCK, "cannot connect to %s: it is not a socket", path);
	switch (e) {
	case ENOENT:
		return scxpol_err(e, "cannot connect to %s: %s (is the policy running with its "
				  "stats server?)", path, strerror(e));
	case EACCES:
	case EPERM:
		sock_owner(path, why, sizeof(why));
		return scxpol_err(e, "cannot connect to %s: %s (%s; ask for group access via the "
				  "policy's stats socket group)", path, strerror(e), why);
	case ECONNREFUSED:
		return scxpol_err(e, "cannot connect to %s: %s (a stale socket: the policy is not "
				  "running)", path, strerror(e));
	case EAGAIN:
		/* connect() waited SO_SNDTIMEO with the server's queue full */
		return scxpol_err(ETIMEDOUT, "cannot connect to %s: the server accepted no "
				  "connection in %d s (is the policy's stats server stuck?)", path,
				  CLIENT_TIMEOUT_S);
	default:
		return scxpol_err(e, "cannot connect to %s: %s", path, strerror(e));
	}
}

/*
 * Open the socket's directory into srv->dir_fd, after checking that it is
 * private (lib/privdir.c): another user who could write there could make
 * the lock file first, or put a link where the socket goes.
 */
static int open_dir(struct scxpol_stats_server *srv)
{
	static const char kind[] = "stats socket directory", what[] = "the socket";
	char dir[sizeof(srv->path)], *slash;
	int r;

	snprintf(dir, sizeof(dir), "%s", srv->path);
	slash = strrchr(dir, '/');
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (slash == dir) {
		dir[1] = '\0';
	} else {
		*slash = '\0';
		/* traversable, not listable: the socket's own mode decides who connects */
		if (mkdir(dir, 0711) && errno != EEXIST)
			return scxpol_err(errno, "stats socket %s: cannot create its directory %s: %s",
					  srv->path, dir, strerror(errno));
	}
	snprintf(srv->leaf, sizeof(srv->leaf), "%s", slash ? slash + 1 : srv->path);
	r = scxpol_privdir_check(kind, what, dir);
	if (r)
		return r;
	srv->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (srv->dir_fd < 0)
		return scxpol_err(errno, "%s %s: %s", kind, dir, strerror(errno));
	/* the one checked above, unless replaced since: what we work in is */
	return scxpol_privdir_check_fd(kind, what, dir, srv->dir_fd);
}

/*
 * Take <path>.lock. Two servers starting at once would both find no server
 * and the second rename would take the first's path: the lock lets one
 * through. The kernel drops it with a killed loader. The file stays: one
 * removed while a starter has it open would let two hold a lock each. It
 * must be ours and readable by no one else: whoever can open it can hold
 * the lock and keep every server from starting.
 */
static int take_lock(struct scxpol_stats_server *srv)
{
	char name[NAME_MAX + 1];
	struct stat st;

	if (snprintf(name, sizeof(name), "%s.lock", srv->leaf) >= (int)sizeof(name))
		return scxpol_err(ENAMETOOLONG, "stats socket %s: its name is too long for a lock "
				  "file beside it", srv->path);
	srv->lock_fd = openat(srv->dir_fd, name, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (srv->lock_fd < 0)
		return scxpol_err(errno, "stats socket %s: cannot open its lock file %s.lock: %s",
				  srv->path, srv->path, strerror(errno));
	if (fstat(srv->lock_fd, &st))
		return scxpol_err(errno, "stats socket %s: %s.lock: %s", srv->path, srv->path,
				  strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != geteuid())
		return scxpol_err(EPERM, "stats socket %s: its lock file %s.lock is %s%s%u, not a "
				  "file of this user's (uid %u): another user may hold the lock; "
				  "remove it", srv->path, srv->path,
				  S_ISREG(st.st_mode) ? "" : "not a regular file, ",
				  st.st_nlink != 1 ? "a file with other links, uid " : "owned by uid ",
				  (unsigned int)st.st_uid, (unsigned int)geteuid());
	/* an older file of ours, made with another umask */
	if ((st.st_mode & 077) && fchmod(srv->lock_fd, 0600))
		return scxpol_err(errno, "stats socket %s: chmod 0600 %s.lock: %s", srv->path,
				  srv->path, strerror(errno));
	if (flock(srv->lock_fd, LOCK_EX | LOCK_NB))
		return errno == EWOULDBLOCK
			       ? scxpol_err(EADDRINUSE, "a stats server already answers on %s (is "
					    "the policy running twice?)", srv->path)
			       : scxpol_err(errno, "stats socket %s: cannot lock %s.lock: %s",
					    srv->path, srv->path, strerror(errno));
	return 0;
}

/*
 * Bind @srv's socket in a new directory of its own (mode 0700, in the
 * socket's directory), where no one else can reach it: its mode and group
 * are set there, then it is renamed into place, so it never has a wrong
 * mode or owner. bind() names the directory by its descriptor
 * (/proc/self/fd/N), so no path is looked up twice.
 */
static int bind_private(struct scxpol_stats_server *srv, unsigned int mode, int gid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static unsigned int seq;
	char tmp[NAME_MAX + 1];
	struct stat st;
	int fd, tfd, e = 0;

	if (snprintf(tmp, sizeof(tmp), ".%s.%d.%u", srv->leaf, (int)getpid(),
		     __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED)) >= (int)sizeof(tmp))
		return scxpol_err(ENAMETOOLONG, "stats socket %s: its name is too long for a "
				  "temporary directory beside it", srv->path);
	if (mkdirat(srv->dir_fd, tmp, 0700))
		return scxpol_err(errno, "stats socket %s: cannot make a directory beside it: %s",
				  srv->path, strerror(errno));
	tfd = openat(srv->dir_fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/s", tfd);
	if (tfd < 0 || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64))
		e = errno;
	else if (fchmodat(tfd, "s", mode, 0) ||
		 (gid > 0 && fchownat(tfd, "s", (uid_t)-1, (gid_t)gid, AT_SYMLINK_NOFOLLOW)) ||
		 renameat(tfd, "s", srv->dir_fd, srv->leaf) ||
		 fstatat(srv->dir_fd, srv->leaf, &st, AT_SYMLINK_NOFOLLOW))
		e = errno;
	if (tfd >= 0) {
		unlinkat(tfd, "s", 0);
		close(tfd);
	}
	unlinkat(srv->dir_fd, tmp, AT_REMOVEDIR);
	if (e) {
		if (fd >= 0)
			close(fd);
		return scxpol_err(e, "cannot set up stats socket %s (mode %04o, group %d): %s%s",
				  srv->path, mode, gid, strerror(e),
				  e == ENOENT ? " (is /proc mounted?)" : "");
	}
	srv->dev = st.st_dev;
	srv->ino = st.st_ino;
	srv->listen_fd = fd;
	return 0;
}

/* Bind @srv's socket at its path, unless another server answers there. */
static int server_bind(struct scxpol_stats_server *srv, unsigned int mode, int gid)
{
	struct stat st;
	int fd, r;

	r = open_dir(srv);
	if (r)
		return r;
	/* (before a lock file is made next to it) */
	if (!fstatat(srv->dir_fd, srv->leaf, &st, AT_SYMLINK_NOFOLLOW) && !S_ISSOCK(st.st_mode))
		return scxpol_err(EEXIST, "stats socket %s: the path exists and is not a socket; "
				  "remove it or give another path", srv->path);
	r = take_lock(srv);
	if (r)
		return r;
	/* (a server of a library without the lock) */
	fd = sock_connect(srv->path, true);
	if (fd >= 0) {
		close(fd);
		return scxpol_err(EADDRINUSE, "a stats server already answers on %s (is the policy "
				  "running twice?)", srv->path);
	}
	/*
	 * The rename replaces what is there: only a socket nobody listens on
	 * (a killed loader's) is ours to take over. A file (refused above), or
	 * a socket that refuses otherwise (a datagram socket, a live server's
	 * full backlog), is someone else's.
	 */
	if (fd != -ENOENT && fd != -ECONNREFUSED)
		return scxpol_err(-fd, "stats socket %s: the path is a socket that cannot be "
				  "checked for a running stats server (%s); remove it or give "
				  "another path", srv->path, strerror(-fd));
	return bind_private(srv, mode, gid);
}

static void server_free(struct scxpol_stats_server *srv)
{
	struct stat st;

	if (srv->listen_fd >= 0) {
		close(srv->listen_fd);
		/* only our socket: a newer server may have replaced it */
		if (!fstatat(srv->dir_fd, srv->leaf, &st, AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == srv->dev && st.st_ino == srv->ino)
			unlinkat(srv->dir_fd, srv->leaf, 0);
	}
	/* after the unlink: a server that starts next finds no socket of ours */
	if (srv->lock_fd >= 0)
		close(srv->lock_fd);
	if (srv->dir_fd >= 0)
		close(srv->dir_fd);
	if (srv->wake[0] >= 0)
		close(srv->wake[0]);
	if (srv->wake[1] >= 0)
		close(srv->wake[1]);
	free(srv->clients);
	free(srv);
}

struct scxpol_stats_server *scxpol_stats_server_start(struct scxpol_sched *s,
						      const struct scxpol_stats_server_opts *opts)
{
	SCXPOL_NONNULL_PTR(s, "scheduler");
	const struct scxpol_stats_opts *so = OPTS_GET(opts, stats, NULL);
	const char *path = OPTS_GET(opts, path, NULL);
	struct scxpol_stats_server *srv;
	sigset_t all, old;
	char err[256];
	int r;

	scxpol_err_clear();
	if (!s)
		return scxpol_err_ptr(EINVAL, "stats server: the scheduler is NULL");
	if (!OPTS_VALID(opts, scxpol_stats_server_opts) || !OPTS_VALID(so, scxpol_stats_opts))
		return errno = EINVAL, NULL;
	if (scxpol_stats_check_user_descs(so, err, sizeof(err)))
		return scxpol_err_ptr(EINVAL, "%s", err);
	/* poll() takes an int: a longer wait would turn into none at all */
	if (OPTS_GET(opts, timeout_ms, 0) > INT_MAX)
		return scxpol_err_ptr(EINVAL, "stats server: timeout_ms %u is over %d (about 24 days)",
				      OPTS_GET(opts, timeout_ms, 0), INT_MAX);
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return scxpol_err_ptr(ENOMEM, "out of memory");
	srv->s = s;
	srv->listen_fd = srv->lock_fd = srv->dir_fd = srv->wake[0] = srv->wake[1] = -1;
	srv->stats.sz = sizeof(srv->stats);
	if (so)
		memcpy(&srv->stats, so, so->sz < sizeof(srv->stats) ? so->sz : sizeof(srv->stats));
	srv->stats.sz = sizeof(srv->stats);
	srv->max_clients = OPTS_GET(opts, max_clients, 0) ?: 16;
	srv->timeout_ms = OPTS_GET(opts, timeout_ms, 0) ?: 5000;
	srv->clients = calloc(srv->max_clients, sizeof(*srv->clients));
	if (!srv->clients) {
		r = scxpol_err(ENOMEM, "out of memory");
		goto fail;
	}
	if (path && !path[0]) {
		/* "" would bind its temporary name, ".PID.SEQ", in the working directory */
		r = scxpol_err(EINVAL, "the stats socket path is empty");
		goto fail;
	} else if (path) {
		snprintf(srv->path, sizeof(srv->path), "%s", path);
	} else {
		r = scxpol_stats_socket_path(scxpol_sched_name(s), srv->path, sizeof(srv->path));
		if (r < 0)
			goto fail;
	}
	if (strlen(path ?: srv->path) >= sizeof(srv->path)) {
		r = scxpol_err(ENAMETOOLONG, "stats socket path '%s' is longer than a Unix "
			       "socket's %zu bytes", path ?: srv->path, sizeof(srv->path) - 1);
		goto fail;
	}
	r = server_bind(srv, OPTS_GET(opts, mode, 0) ?: 0600, OPTS_GET(opts, gid, -1));
	if (r)
		goto fail;
	if (pipe2(srv->wake, O_CLOEXEC | O_NONBLOCK)) {
		r = scxpol_err(errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	/* signals stay with the policy's threads: the run loop handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&srv->thread, NULL, server_main, srv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		r = scxpol_err(r, "cannot start the stats server thread: %s", strerror(r));
		goto fail;
	}
	srv->running = true;
	scxpol_log(SCXPOL_LOG_INFO, "%s: stats server on %s", scxpol_sched_name(s), srv->path);
	return srv;
fail:
	server_free(srv);
	errno = -r;
	return NULL;
}

void scxpol_stats_server_stop(struct scxpol_stats_server *srv)
{
	char c = 1;

	if (!srv)
		return;
	if (srv->running) {
		if (write(srv->wake[1], &c, 1) < 0) {
			/* the pipe is full: the thread wakes anyway */
		}
		pthread_join(srv->thread, NULL);
	}
	server_free(srv);
}

const char *scxpol_stats_server_path(const struct scxpol_stats_server *srv)
{
	return srv ? srv->path : NULL;
}

/* ---- Clients ----------------------------------------------------------------- */

int scxpol_stats_request(const char *path, const char *req, char *resp, size_t len)
{
	SCXPOL_NONNULL(path, "socket path");
	SCXPOL_NONNULL(req, "request");
	SCXPOL_NONNULL(resp, "response buffer");
	size_t off = 0, n;
	int fd, r;

	scxpol_err_clear();
	if (!path || !req || !resp || !len)
		return scxpol_err(EINVAL, "scxpol_stats_request: NULL path, request or buffer");
	n = strlen(req);
	if (n > SCXPOL_STATS_MAX_LINE || memchr(req, '\n', n))
		return scxpol_err(EINVAL, "stats request: want one line of at most %d bytes",
				  SCXPOL_STATS_MAX_LINE);
	fd = sock_connect(path, false);
	if (fd < 0)
		return fd;
	while (off <= n) {
		const char *p = off < n ? req + off : "\n";
		ssize_t w = send(fd, p, off < n ? n - off : 1, MSG_NOSIGNAL);

		if (w < 0) {
			r = errno == EAGAIN ? ETIMEDOUT : errno;
			close(fd);
			return scxpol_err(r, "%s: cannot send the request: %s", path, strerror(r));
		}
		off += (size_t)w;
	}
	off = 0;
	for (;;) {
		ssize_t got;
		char *nl;

		/* the newline's byte becomes the NUL: a response of len - 1 bytes fits */
		if (off >= len) {
			close(fd);
			return scxpol_err(EMSGSIZE, "%s: the response is longer than %zu bytes", path,
					  len - 1);
		}
		got = recv(fd, resp + off, len - off, 0);
		if (got < 0) {
			r = errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno;
			close(fd);
			return scxpol_err(r, "%s: no response: %s", path,
					  r == ETIMEDOUT ? "timed out after 5 s" : strerror(r));
		}
		if (!got) {
			close(fd);
			return scxpol_err(EPROTO, "%s: the server closed the connection without a "
					  "complete response", path);
		}
		nl = memchr(resp + off, '\n', (size_t)got);
		off += (size_t)got;
		if (nl) {
			*nl = '\0';
			close(fd);
			return (int)(nl - resp);
		}
	}
}
