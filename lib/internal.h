/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Library-internal helpers; not installed. */
#ifndef SCXPOL_INTERNAL_H
#define SCXPOL_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scxpol/common.h"
#include "scxpol/sched.h"
#include "scxpol/stats.h"

#define SCXPOL_HIDDEN __attribute__((visibility("hidden")))
#define SCXPOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SCXPOL_STR_(x) #x
#define SCXPOL_STR(x) SCXPOL_STR_(x)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Format @fmt into @buf (@len bytes), or, if the text does not fit, into a
 * new heap buffer the caller frees (msg != buf): a verifier log, which
 * libbpf hands over whole and whose end says why a program was rejected,
 * must not be cut. Falls back to the cut text in @buf if out of memory.
 */
SCXPOL_HIDDEN char *scxpol_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
	SCXPOL_PRINTF(3, 0);

/* Log a message at @level through the user's callback. */
SCXPOL_HIDDEN void scxpol_log(enum scxpol_log_level level, const char *fmt, ...)
	SCXPOL_PRINTF(2, 3);

/*
 * Record a failure: format the message into the thread's last-error buffer,
 * log it at WARN, and return -@err (so callers write `return scxpol_err(...)`).
 * @err is a positive errno value.
 */
SCXPOL_HIDDEN int scxpol_err(int err, const char *fmt, ...) SCXPOL_PRINTF(2, 3);

/* Like scxpol_err() but for functions returning pointers: sets errno, NULL. */
SCXPOL_HIDDEN void *scxpol_err_ptr(int err, const char *fmt, ...) SCXPOL_PRINTF(2, 3);

/*
 * A public function's first lines: refuse a NULL handle or required
 * pointer with -EINVAL ("FUNC: WHAT is NULL") instead of crashing; _PTR
 * for functions that return a pointer (NULL and errno).
 */
#define SCXPOL_NONNULL(arg, what)                                                  \
	do {                                                                       \
		if (!(arg))                                                        \
			return scxpol_err(EINVAL, "%s: %s is NULL", __func__, what); \
	} while (0)
#define SCXPOL_NONNULL_PTR(arg, what)                                                  \
	do {                                                                           \
		if (!(arg))                                                            \
			return scxpol_err_ptr(EINVAL, "%s: %s is NULL", __func__, what); \
	} while (0)

/* Forget the last error (successful calls that want a clean slate). */
SCXPOL_HIDDEN void scxpol_err_clear(void);

/*
 * Like scxpol_err() without the log line: for failures the caller reports
 * itself (command line values, lib/cli.c), which would otherwise show twice.
 */
SCXPOL_HIDDEN int scxpol_err_quiet(int err, const char *fmt, ...) SCXPOL_PRINTF(2, 3);

/*
 * @text quoted for a message into @out (@len >= 9; 300 holds any): at most
 * 64 characters, non-printable bytes, '"' and '\\' as \xNN, "..." when cut.
 */
SCXPOL_HIDDEN const char *scxpol_err_quote(const char *text, char *out, size_t len);

/*
 * @s as a CPU list for a message into @buf (@len >= 4), cut with "..." when
 * longer (scxpol_cpuset_format() would fail instead and record an error).
 */
struct scxpol_cpuset;
SCXPOL_HIDDEN const char *scxpol_cpuset_str(const struct scxpol_cpuset *s, char *buf, size_t len);

/*
 * Read a small text file (sysfs, procfs) relative to @root ("" or NULL for
 * "/") into @buf, NUL-terminated, trailing newline removed; a file longer
 * than @len - 1 bytes is cut. Returns the length or a negative errno; does
 * not record an error message.
 */
SCXPOL_HIDDEN int scxpol_read_file(const char *root, const char *path,
				   char *buf, size_t len);

/*
 * Like scxpol_read_file(), all of the file: *@buf (malloc()ed, *@cap bytes)
 * is doubled while the file does not fit, up to @max bytes (-EFBIG beyond).
 */
SCXPOL_HIDDEN int scxpol_read_file_all(const char *root, const char *path, char **buf,
				       size_t *cap, size_t max);

/*
 * Private directories (lib/privdir.c). check: @dir and every directory
 * above it (links above it resolved, @dir itself no link) are owned by
 * root or this user and writable by no one else, those above it unless
 * sticky; else a negative errno (-EPERM, -ENOTDIR, ...) with a message
 * "<@kind> <@dir>: <directory> belongs to uid N ...: its owner could
 * replace <@what>". check_fd: the same for the directory open as @fd
 * (named @dir), not those above it: for the one a caller then works in.
 */
SCXPOL_HIDDEN int scxpol_privdir_check(const char *kind, const char *what, const char *dir);
SCXPOL_HIDDEN int scxpol_privdir_check_fd(const char *kind, const char *what, const char *dir,
					  int fd);

/*
 * Mode of a pin directory whose map files have mode @mode: rwx for the
 * owner, search only for group and other where @mode gives them access.
 */
SCXPOL_HIDDEN unsigned int scxpol_pin_dir_mode(unsigned int mode);

/*
 * The id of cgroup2 directory @path (its inode number, what the kernel's
 * kernfs node id is) into *@id. 0, or a negative errno with a message:
 * -ENOENT and the like from stat(), -ENOTDIR, -EINVAL (not cgroup2).
 */
SCXPOL_HIDDEN int scxpol_cgroup_id(const char *path, unsigned long long *id);
/* The same, the message only in scxpol_last_error(), not logged. */
SCXPOL_HIDDEN int scxpol_cgroup_id_quiet(const char *path, unsigned long long *id);

/*
 * Classification rules (lib/match.c): the LPM-trie key of comm pattern
 * @pattern ("name" or "prefix*"), or a negative errno with a message.
 */
struct scxpol_match_comm_key;
SCXPOL_HIDDEN int scxpol_match_comm_pattern(const char *pattern,
					    struct scxpol_match_comm_key *key);

/*
 * Options structs: callers set ->sz to the size they were built with. A
 * larger struct from a newer caller is accepted only if the bytes this
 * library does not know are zero: all from the end of its last field
 * (TYPE__last_field, next to the struct), tail padding included, where a
 * newer caller's next field may sit with ->sz unchanged.
 */
SCXPOL_HIDDEN bool scxpol_opts_valid(const void *opts, size_t known_sz, const char *type);
#define OPTS_VALID(opts, type) \
	(!(opts) || scxpol_opts_valid((opts), offsetofend(struct type, type##__last_field), #type))
#define offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
#define OPTS_GET(opts, field, dfl) (OPTS_HAS(opts, field) ? (opts)->field : (dfl))

/* Where policies pin their maps by default: <base>/<policy>/<map>. */
#define SCXPOL_PIN_BASE "/sys/fs/bpf/scxpol"

struct scxpol_sched;
struct bpf_object;

/*
 * A library module's part in every scheduler's life. lib/sched.c runs the
 * steps and knows no module; lib/sched_modules.c lists the modules, in the
 * order their steps run (enum scxpol_sched_mod). A NULL step is skipped.
 *   init:       at scxpol_sched_open(), on the module's zeroed state
 *   open:       at each open of the BPF object, before the configure hook
 *   configured: after the configure hook, before the load
 *   loaded:     right after the load, before the policy's loaded hook
 *   attached:   as the run loop starts to wait on an attached policy
 *   tick:       about every 100 ms of that wait
 * (@now: CLOCK_MONOTONIC, in ms)
 *   fini:       at scxpol_sched_close(), for what the state holds
 * A step's negative errno, with a message set, fails that open, load or
 * run. The state lives as long as the handle, over restarts.
 */
struct scxpol_run_opts;
struct scxpol_sched_module {
	const char *name;
	size_t state_size;
	int (*init)(void *state);
	int (*open)(struct scxpol_sched *s, void *state);
	int (*configured)(struct scxpol_sched *s, void *state);
	int (*loaded)(struct scxpol_sched *s, void *state);
	void (*attached)(struct scxpol_sched *s, void *state, const struct scxpol_run_opts *ro,
			 uint64_t now);
	int (*tick)(struct scxpol_sched *s, void *state, uint64_t now);
	void (*fini)(void *state);
};
enum scxpol_sched_mod {
	SCXPOL_MOD_HINT,  /* hint limits and older pins, before the pools name them */
	SCXPOL_MOD_POOL,  /* the plan hook's plan, published after the hint limits */
	SCXPOL_MOD_MATCH, /* cgroup rules that follow their directories */
	SCXPOL_MOD_STATS, /* the object's counters checked before the load */
	SCXPOL_MOD_NR,
};
SCXPOL_HIDDEN extern const struct scxpol_sched_module scxpol_hint_module;
SCXPOL_HIDDEN extern const struct scxpol_sched_module scxpol_pool_module;
SCXPOL_HIDDEN extern const struct scxpol_sched_module scxpol_match_module;
SCXPOL_HIDDEN extern const struct scxpol_sched_module scxpol_stats_module;
SCXPOL_HIDDEN extern const struct scxpol_sched_module *const scxpol_sched_modules[SCXPOL_MOD_NR];
/* module @m's state in @s (lib/sched.c) */
SCXPOL_HIDDEN void *scxpol_sched__mod_state(const struct scxpol_sched *s, enum scxpol_sched_mod m);
/* the options @s was opened with; their strings are the caller's */
SCXPOL_HIDDEN const struct scxpol_sched_opts *scxpol_sched__opts(const struct scxpol_sched *s);
/* the sysfs root @s reads the machine under ("" for /) */
SCXPOL_HIDDEN const char *scxpol_sched__sysfs_root(const struct scxpol_sched *s);
/*
 * An application hook's failure @r as a negative errno (a positive one is
 * -EINVAL), with a message naming @hook when the hook set none.
 */
SCXPOL_HIDDEN int scxpol_sched__hook_failed(const struct scxpol_sched *s, const char *hook, int r);

/*
 * For threads other than the one driving @s (the stats server): lock @s
 * against the object being replaced or freed (restart, close) and return
 * the loaded object, or NULL when none is loaded. Unlock in both cases.
 */
SCXPOL_HIDDEN struct bpf_object *scxpol_sched_lock(struct scxpol_sched *s);
/*
 * If the last scxpol_sched_run() ended on a restart refused by no_restart
 * (not a stop): what asked for it, "the kernel asked for a restart: MSG" or
 * "a CPU hotplug asked for a restart: cpu N went offline"; else NULL.
 */
SCXPOL_HIDDEN const char *scxpol_sched_restart_refused(const struct scxpol_sched *s);
SCXPOL_HIDDEN void scxpol_sched_unlock(struct scxpol_sched *s);
/*
 * Whether a CPU hotplug operation is under way under @root (NULL: /): @cpu
 * (if >= 0) is not yet @online or offline by its sysfs online file, or some
 * present CPU's hotplug/state is not its hotplug/target. 1: under way; 0:
 * none; a negative errno, with a message naming the file, when a file
 * cannot be read or makes no sense (a missing one counts as nothing to
 * wait for).
 */
SCXPOL_HIDDEN int scxpol_sched_hotplug_busy(const char *root, int cpu, bool online);

struct stat;
struct scxpol_stats_opts;

/* "user:group" (names, or numbers without one) of @st, for permission messages. */
SCXPOL_HIDDEN void scxpol_owner_name(const struct stat *st, char *buf, size_t len);

/*
 * Hint internals (lib/hint.c, lib/hint_prune.c), exposed for tests and fuzzing. hint_check:
 * 0 if @h is valid under the limits @m of policy @policy, else -EINVAL with
 * a message naming @what and the accepted range. mountinfo_cgroup2: 1 if
 * the /proc/self/mountinfo line @line mounts the root of the cgroup2
 * hierarchy, its mount point (escapes decoded) then in @mnt; 0 for any
 * other line; -ENAMETOOLONG when the mount point does not fit in @len
 * bytes, -EINVAL when it decodes to a NUL.
 */
struct scxpol_hint;
struct scxpol_hint_meta;
SCXPOL_HIDDEN int scxpol_hint_check(const struct scxpol_hint_meta *m, const char *policy,
				    const char *what, const struct scxpol_hint *h);
SCXPOL_HIDDEN int scxpol_mountinfo_cgroup2(const char *line, char *mnt, size_t len);
/*
 * The Tgid of a /proc/PID/status text @text (NUL-terminated) into *@tgid:
 * 0, or -EINVAL when no line is "Tgid:" and a number in 1..INT_MAX.
 */
SCXPOL_HIDDEN int scxpol_proc_status_tgid(const char *text, pid_t *tgid);

/*
 * After scxpol_pool_publish() committed a plan of @nr_pools pools: pool
 * hints of @s's policy are valid for those pools only from now on (the
 * meta's nr_pools follows the plan, and its generation is bumped when that
 * changes). 0 when the policy has no hint maps. Called by lib/pool_publish.c.
 */
SCXPOL_HIDDEN int scxpol_hint_pools_published(struct scxpol_sched *s, unsigned int nr_pools);

/*
 * scxpol_hint_prune() on the pinned hint maps of @s's policy (a client
 * opened on its pin root); *@removed gets the count. Called by
 * scxpol_sched_run() for a policy with hints (lib/sched_run.c).
 */
SCXPOL_HIDDEN int scxpol_hint_prune_policy(struct scxpol_sched *s, unsigned int *removed);


/* The library's counters, in enum scxpol_stat order (lib/stats.c). */
SCXPOL_HIDDEN extern const struct scxpol_stat_desc scxpol_stats_lib_descs[SCXPOL_STAT_NR];
/* -EINVAL, with a message, unless @st's sz is this library's (lib/stats.c). */
SCXPOL_HIDDEN int scxpol_stats_check_sz(const struct scxpol_stats *st);
/* Zero @st, its sz set. */
SCXPOL_HIDDEN void scxpol_stats_clear(struct scxpol_stats *st);
/*
 * scxpol_stats_read() without touching the caller's last error: the
 * message goes into @err (lib/stats.c; the "stats" request's answer).
 */
SCXPOL_HIDDEN int scxpol_stats_read_msg(struct scxpol_sched *s, const struct scxpol_stats_opts *o,
					struct scxpol_stats *out, char *err, size_t len);
/*
 * Stats internals (lib/stats_json.c), exposed for tests and for the
 * server (lib/stats_socket.c). parse_request: the "req" of one request
 * line into @req, or a negative errno with the reason in @err. respond:
 * the response line (malloc'd, no newline) to a request line; NULL when
 * out of memory. error_response: the response line of a request that
 * failed with errno @err, saying @msg; NULL when out of memory.
 */
SCXPOL_HIDDEN int scxpol_stats_parse_request(const char *line, size_t len, char *req,
					     size_t req_len, char *err, size_t err_len);
SCXPOL_HIDDEN char *scxpol_stats_respond(struct scxpol_sched *s,
					 const struct scxpol_stats_opts *o, const char *line,
					 size_t len);
SCXPOL_HIDDEN char *scxpol_stats_error_response(int err, const char *msg);
/*
 * The stats server's framing of one client's byte stream into request
 * lines (lib/stats_socket.c). frame_room: where the next recv() goes and
 * how much fits (*@room; 0 only when a line is over SCXPOL_STATS_MAX_LINE,
 * which frame_next then reports); add what it got to len, set eof at the
 * client's end. frame_next: 1 with the next request in *@line, *@n (no
 * newline; valid until the next call; at eof the last line needs none);
 * 0 when the buffer holds no complete one; -E2BIG (the buffer emptied)
 * for a line longer than SCXPOL_STATS_MAX_LINE bytes. Lines of only
 * spaces, tabs and CRs are skipped.
 */
struct scxpol_stats_frame {
	char in[SCXPOL_STATS_MAX_LINE + 1];
	size_t len;  /* bytes received and not yet dropped */
	size_t used; /* bytes of the line handed out last: dropped at the next call */
	bool eof;
};
SCXPOL_HIDDEN char *scxpol_stats_frame_room(struct scxpol_stats_frame *f, size_t *room);
SCXPOL_HIDDEN int scxpol_stats_frame_next(struct scxpol_stats_frame *f, const char **line,
					  size_t *n);
/* Check the user counter descriptors of @o; -EINVAL with a message into @err if bad. */
SCXPOL_HIDDEN int scxpol_stats_check_user_descs(const struct scxpol_stats_opts *o, char *err,
						size_t len);

/*
 * Pool publishing (lib/pool_publish.c): a plan laid out as the BPF side's
 * staging maps want it (<scxpol/abi/pool.h>), for limits @conf. Split from
 * the map writes so host tests can feed it to the BPF code.
 */
struct scxpol_pool_plan;
struct scxpol_pool_conf;
struct scxpol_pool_desc;
struct scxpol_pool_cpu;
struct scxpol_pool_staged {
	unsigned int nr_pools;
	struct scxpol_pool_desc *descs;  /* [nr_pools] */
	unsigned long long *masks;       /* [nr_pools * nr_words] CPU bitmap words */
	struct scxpol_pool_cpu *cpus;    /* [conf nr_cpus] */
	unsigned int *order;             /* [nr_pools * max_pools] */
};
/*
 * The pool limits scxpol_pool_setup() sets for @nr_cpus possible CPUs and
 * @max_pools pools (require 0), and the maps it sizes: the @i-th map's name
 * and entries for @c; false past the last. For a loader of a simulated
 * policy (scxpol-sim), which sizes the same maps by itself.
 */
struct scxpol_pool_conf;
SCXPOL_HIDDEN void scxpol_pool_conf_init(struct scxpol_pool_conf *c, unsigned int nr_cpus,
					 unsigned int max_pools);
SCXPOL_HIDDEN bool scxpol_pool_sized_map(unsigned int i, const struct scxpol_pool_conf *c,
					 const char **name, unsigned long long *entries);
SCXPOL_HIDDEN int scxpol_pool_stage_plan(const struct scxpol_pool_plan *plan,
					 const struct scxpol_pool_conf *conf,
					 struct scxpol_pool_staged *out);
SCXPOL_HIDDEN void scxpol_pool_staged_free(struct scxpol_pool_staged *st);
/*
 * The commit program's verdict @a on @plan as the error of policy @name:
 * sets the message naming the pools and CPUs, returns the negative errno.
 */
struct scxpol_pool_commit_args;
SCXPOL_HIDDEN int scxpol_pool_explain(const char *name, const struct scxpol_pool_plan *plan,
				      const struct scxpol_pool_conf *conf,
				      const struct scxpol_pool_commit_args *a);

#endif
