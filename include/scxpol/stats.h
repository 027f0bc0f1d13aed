/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Stats, userspace side: read the per-CPU counters of <scxpol/stats.bpf.h>,
 * turn them into JSON, and serve them on a Unix socket; plus the client
 * calls tools such as scxpol-stat use.
 *
 * Counters are described where they are declared (SCXPOL_STAT_TABLE in
 * <scxpol/abi/stats.h>: name, unit, description); their names are stable.
 * A policy describes its own counters (the SCXPOL_STAT_USER_NR slots from
 * SCXPOL_STAT_USER_BASE on) with scxpol_stats_opts.user_descs.
 *
 * The stats server is a thread of the policy process serving a Unix
 * socket, /run/scxpol/<policy>.sock by default. Protocol: one JSON request
 * per line (the last before the client's EOF may lack its newline), one
 * JSON response per line:
 *   {"req":"stats"} -> {"errno":0,"resp":SNAPSHOT}
 *   {"req":"stats_meta"} -> {"errno":0,"resp":{"counters":[
 *                            {"name":"enqueue","unit":"tasks","desc":"..."},...]}}
 *   {"req":"list"}  -> {"errno":0,"resp":{"requests":["list","stats","stats_meta"],
 *                                         "counters":["enqueue",...]}}
 *   anything else   -> {"errno":22,"resp":null,"error":"unknown request ..."}
 * SNAPSHOT is what scxpol_stats_json() writes:
 *   {"policy":"p","restarts":0,"time_ns":N,"counters":{"enqueue":N,...},
 *    "pools":[{"name":"lc","cpus":"0-3","flags":0,"nr_cpus":4,"queued":N},...]}
 * ("flags" may be missing: it reads as 0).
 * Requests are at most SCXPOL_STATS_MAX_LINE bytes; a client that sends no
 * complete request for timeout_ms, or does not read its response, is
 * dropped.
 */
#ifndef SCXPOL_STATS_H
#define SCXPOL_STATS_H

#include <stdint.h>
#include <stdio.h>

#include <scxpol/abi/stats.h>
#include <scxpol/common.h>
#include <scxpol/pool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_sched;
struct scxpol_stats_server;

#define SCXPOL_STAT_NAME_LEN 32     /* counter names, with the NUL */
#define SCXPOL_STATS_MAX_POOLS 64
#define SCXPOL_STATS_MAX_LINE 4096  /* longest request the server reads */

/* What a counter is: its stable name, the unit of one count, a line for a reader. */
struct scxpol_stat_desc {
	const char *name;
	const char *unit;
	const char *desc;
};

struct scxpol_stat_value {
	char name[SCXPOL_STAT_NAME_LEN];
	uint64_t value;
};

/*
 * A snapshot of a policy's stats. Set sz to sizeof(struct scxpol_stats)
 * before handing one to the library (SCXPOL_STATS_INIT, or
 * scxpol_stats_new()); every function taking one refuses another sz with
 * -EINVAL, so that a caller built against another layout is told rather
 * than overrun. The functions filling one keep sz and zero the rest.
 */
struct scxpol_stats {
	size_t sz;
	char policy[128];
	unsigned int restarts;  /* restarts of the policy (scxpol_sched_restarts) */
	uint64_t time_ns;       /* CLOCK_MONOTONIC when read */
	unsigned int nr;        /* counters in v[]: the library's, then the described user ones */
	/* room for every slot: a snapshot of a newer library's server fits */
	struct scxpol_stat_value v[SCXPOL_STAT_TOTAL];
	unsigned int nr_pools;
	struct scxpol_pool_stat pools[SCXPOL_STATS_MAX_POOLS];
	/* zero: room for fields a later version adds without changing sz */
	unsigned int reserved[31];
};
#define scxpol_stats__last_field pools
#define SCXPOL_STATS_INIT { .sz = sizeof(struct scxpol_stats) }

/*
 * Fills @out with up to @max pools of the policy and returns how many, or a
 * negative errno. Runs with @s's object locked against a restart: it may
 * use scxpol_sched_object(s) but must not call other scxpol_sched_*()
 * functions that act on the scheduler.
 */
typedef int (*scxpol_stats_pools_fn)(struct scxpol_sched *s, struct scxpol_pool_stat *out,
				     unsigned int max, void *ctx);

struct scxpol_stats_opts {
	size_t sz;
	/*
	 * The policy's counters: user_descs[i] describes counter
	 * SCXPOL_STAT_USER_BASE + i (scxpol_stat_user_inc(i) on the BPF side), for
	 * i < nr_user <= SCXPOL_STAT_USER_NR. Entries with a NULL name are not
	 * reported. Names are 1..31 characters of [a-z0-9_], unlike any other
	 * counter; unit and desc may be NULL (served as "").
	 */
	const struct scxpol_stat_desc *user_descs;
	unsigned int nr_user;
	/*
	 * Pool sizes and queue depths for the snapshot. NULL: what
	 * scxpol_pool_read() reports when the policy has set pools up
	 * (<scxpol/pool.h>), else none.
	 */
	scxpol_stats_pools_fn pools;
	void *pools_ctx;
};
#define scxpol_stats_opts__last_field pools_ctx

/*
 * scxpol_stats_read - snapshot @s's counters (each summed over the CPUs)
 * into @out: the library's counters, in enum scxpol_stat order, then the
 * named user counters, then the pools (see scxpol_stats_opts.pools).
 * -ENODATA when no object is loaded;
 * -ENOENT when the policy lacks the scxpol_stats map (include
 * <scxpol/stats.bpf.h>); -EINVAL for bad user names or @out's sz.
 */
SCXPOL_API int scxpol_stats_read(struct scxpol_sched *s, const struct scxpol_stats_opts *opts,
				 struct scxpol_stats *out);

/*
 * scxpol_stats_new - a zeroed snapshot with its sz set (it is large: 20 KB
 * and more), to free(); NULL + errno ENOMEM.
 */
SCXPOL_API struct scxpol_stats *scxpol_stats_new(void);

/* scxpol_stats_find - the counter called @name in @st, or NULL (also for a bad sz). */
SCXPOL_API const struct scxpol_stat_value *scxpol_stats_find(const struct scxpol_stats *st,
							     const char *name);

/*
 * scxpol_stats_json - @st as one line of JSON (no newline) into @buf.
 * Returns the length without the NUL, or -ENOSPC (@buf set to "" when @len
 * > 0). A snapshot scxpol_stats_parse() would not read back the same is
 * -EINVAL, with the field named in scxpol_last_error(): sz, nr or nr_pools
 * beyond the arrays, a counter name empty or given to two counters, text
 * that is not NUL-terminated in its array or not UTF-8; -ERANGE for a
 * number (a counter, time_ns) above INT64_MAX, the
 * largest integer of the JSON library (jansson).
 */
SCXPOL_API int scxpol_stats_json(const struct scxpol_stats *st, char *buf, size_t len);

/*
 * scxpol_stats_json_file - the same JSON and a newline to @f. 0 or -errno
 * (-EINVAL as scxpol_stats_json(), with nothing written).
 */
SCXPOL_API int scxpol_stats_json_file(const struct scxpol_stats *st, FILE *f);

/*
 * scxpol_stats_parse - the inverse: parse a snapshot in @json into @out.
 * -EINVAL with the line and column of the problem for malformed input
 * (text that is not UTF-8, a member name given twice in an object, a
 * number above INT64_MAX included), or naming the member that is missing
 * or of the wrong type; -EINVAL for @out's sz.
 */
SCXPOL_API int scxpol_stats_parse(const char *json, struct scxpol_stats *out);

/* ---- Server ---------------------------------------------------------------- */

struct scxpol_stats_server_opts {
	size_t sz;
	/* Socket path; NULL: /run/scxpol/<policy>.sock (the directory is created). */
	const char *path;
	/* Mode of the socket (default 0600) and its group (0 or -1: keep). */
	unsigned int mode;
	int gid;
	/* User counters and pools of the snapshots; copied, the descriptors are not. */
	const struct scxpol_stats_opts *stats;
	/*
	 * Clients served at once (default 16). When all are taken, a new
	 * client takes the slot of one between requests: of the user (peer
	 * uid) holding the most slots, the one idle the longest, which is
	 * closed. If none is between requests, the new client is answered
	 * EBUSY and closed.
	 */
	unsigned int max_clients;
	/* Drop a client idle or not reading for this long (default 5000 ms; at most INT_MAX). */
	unsigned int timeout_ms;
};
#define scxpol_stats_server_opts__last_field timeout_ms

/*
 * scxpol_stats_server_start - serve @s's stats on a Unix socket from a new
 * thread. It reads the current object on every request, so it keeps
 * working across restarts (answering ENODATA while none is loaded). Stop it
 * before scxpol_sched_close(). The socket's directory must be private as
 * the pin directory is: it and the directories above it owned by root or
 * this user and writable by no one else (those above may be sticky), the
 * directory itself no symbolic link. The socket gets its mode and group
 * in a directory of its own before it is renamed into place. A socket
 * nobody listens on (a killed loader's) is replaced. The server holds an
 * flock() on <path>.lock (a file left in place, which must be this
 * user's), so that of two starting at once one fails. NULL + errno:
 * EADDRINUSE (a server already answers on the path, or holds its lock),
 * EEXIST (the path is not a socket), EPERM or ENOTDIR (the directory is
 * not private, or the lock file is another user's), the error of
 * connecting to a socket that is neither (one of another type),
 * ENAMETOOLONG (a path longer than 107 bytes, a Unix socket's), errors
 * creating the socket.
 */
SCXPOL_API struct scxpol_stats_server *
scxpol_stats_server_start(struct scxpol_sched *s, const struct scxpol_stats_server_opts *opts);

/* scxpol_stats_server_stop - stop the thread, remove the socket, free. NULL is a no-op. */
SCXPOL_API void scxpol_stats_server_stop(struct scxpol_stats_server *srv);

/* scxpol_stats_server_path - the socket's path. */
SCXPOL_API const char *scxpol_stats_server_path(const struct scxpol_stats_server *srv);

/* ---- Clients --------------------------------------------------------------- */

/*
 * scxpol_stats_socket_path - the default socket path of policy @policy
 * ("/run/scxpol/<policy>.sock") into @buf. Length, or -EINVAL for a bad
 * name, -ENAMETOOLONG.
 */
SCXPOL_API int scxpol_stats_socket_path(const char *policy, char *buf, size_t len);

/*
 * scxpol_stats_request - send one request line @req (without newline) to
 * the server at @path and store the response line (without newline) in
 * @resp. Returns its length. Errors say what to do: -ENOENT (no server: is
 * the policy running?), -EACCES (the socket's mode and owner), -ECONNREFUSED
 * (a stale socket), -ETIMEDOUT (5 s without an answer, or without the
 * server accepting the connection), -EMSGSIZE (the response does not fit
 * in @len).
 */
SCXPOL_API int scxpol_stats_request(const char *path, const char *req, char *resp, size_t len);

/*
 * scxpol_stats_fetch - {"req":"stats"} to the server at @path, parsed into
 * @out. Errors of scxpol_stats_request(), the server's errno with its
 * message, or -EPROTO for a response that is not a snapshot; -EINVAL for
 * @out's sz.
 */
SCXPOL_API int scxpol_stats_fetch(const char *path, struct scxpol_stats *out);

/*
 * scxpol_stats_fetch_meta - {"req":"stats_meta"} to the server at @path:
 * every counter the server reports, the library's then the policy's, in
 * snapshot order. Returns how many and stores them in *@descs, one
 * allocation (the strings inside it) to free(); errors as
 * scxpol_stats_fetch(), with -EPROTO for a response that is not a list of
 * descriptors.
 */
SCXPOL_API int scxpol_stats_fetch_meta(const char *path, struct scxpol_stat_desc **descs);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_STATS_H */
