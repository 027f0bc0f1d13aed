/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Scheduler lifecycle: open, configure, load, attach, run, detach, restart.
 *
 * A policy is a BPF skeleton with one struct_ops map (struct sched_ext_ops).
 * The library owns the sequence around it:
 *
 *   open skeleton -> plan hook -> configure hook -> load (verifier) ->
 *   publish the plan -> loaded hook ->
 *   attach -> run loop (signals, periodic hook, exit detection) -> detach ->
 *   exit reason -> restart from "open" when the kernel asks for it, or
 *   after a CPU hotplug event, keeping pinned maps.
 *
 * The BPF side must call scxpol_sched_record_exit() from its ops.exit
 * callback (bpf-lib/scxpol/sched.bpf.h); that is how the library learns
 * why the scheduler stopped. Its ops.cpu_online/ops.cpu_offline should call
 * scxpol_sched_cpu_online()/_offline(): the policy then stays loaded
 * through a hotplug event and the run loop restarts it once the event has
 * completed, instead of the kernel unloading it in the middle of it.
 */
#ifndef SCXPOL_SCHED_H
#define SCXPOL_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scxpol/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bpf_object;
struct bpf_object_open_opts;
struct scxpol_sched;
struct scxpol_skel; /* <scxpol/skel.h> */

/*
 * A policy hook. @skel is the current skeleton (a new one after a restart
 * or a refused BPF load): set rodata in the configure hook, which runs at
 * every open.
 */
typedef int (*scxpol_sched_hook)(struct scxpol_sched *s, void *skel, void *ctx);

struct scxpol_pool_plan; /* <scxpol/pool.h> */
struct scxpol_topo;      /* <scxpol/topology.h> */

/*
 * The plan hook: a new pool plan for @topo, the CPUs as they are at this
 * open, which the library then owns (made as the plan constructors make
 * one: scxpol_pool_plan_split() ...). NULL with errno set on failure; the
 * open fails with it (EINVAL when errno is 0).
 */
typedef struct scxpol_pool_plan *(*scxpol_sched_plan_fn)(struct scxpol_sched *s,
							  const struct scxpol_topo *topo,
							  void *ctx);

struct scxpol_sched_opts {
	size_t sz;
	/* Skeleton glue (SCXPOL_SKEL(name)); required. */
	const struct scxpol_skel *skel;
	/*
	 * Name of the struct_ops map; NULL picks the object's only struct_ops
	 * map. The policy's name (pin directory, messages) is the ops' name
	 * field as the BPF side set it.
	 */
	const char *ops_map;
	/* After open, before load: set rodata, size maps. May be NULL. */
	scxpol_sched_hook configure;
	/* After load, before attach: fill maps, publish pools. May be NULL. */
	scxpol_sched_hook loaded;
	void *ctx;
	/*
	 * Directory for maps the BPF side declares with
	 * __uint(pinning, LIBBPF_PIN_BY_NAME). NULL: /sys/fs/bpf/scxpol/<name>.
	 * It and each directory above it must be a directory owned by root or
	 * the loader's user, writable by no one else unless sticky (else the
	 * load is -EPERM or -ENOTDIR, naming it): whoever can write there can
	 * replace the pins.
	 */
	const char *pin_root;
	/*
	 * Mode of pinned map files (default 0600) and their group (0 or -1:
	 * the loader's effective group, root's for a loader run by root), set
	 * at every load: pins reused from an earlier run lose the group it
	 * gave them.
	 */
	unsigned int pin_mode;
	int pin_gid;
	/* Root of sysfs paths (tests use fake trees); NULL means "". */
	const char *sysfs_root;
	/* Kernel BTF for CO-RE and struct_ops; NULL: the running kernel's. */
	const char *btf_path;
	/*
	 * A policy of <scxpol/pool.bpf.h>: plans its pools at every open (the
	 * first, and each restart, after a CPU hotplug too), before the
	 * configure hook, over the topology read then (with sysfs_root). The
	 * library sizes the pool maps for the plan's pools
	 * (scxpol_pool_setup(); the configure hook may size them larger),
	 * publishes the plan after the load, before the loaded hook, and
	 * keeps it until the next plan or the close:
	 * scxpol_pool_plan_current(). May be NULL: the hooks do it all.
	 */
	scxpol_sched_plan_fn plan;
};
#define scxpol_sched_opts__last_field plan

/*
 * scxpol_sched_open - open the skeleton and run the configure hook.
 * Returns NULL with errno set and scxpol_last_error() describing why.
 */
SCXPOL_API struct scxpol_sched *scxpol_sched_open(const struct scxpol_sched_opts *opts);

/*
 * scxpol_sched_load - check that the kernel can run the policy (sched_ext
 * present, every ops callback known to the kernel), load it through the
 * verifier, then run the loaded hook. -EOPNOTSUPP: no sched_ext or a missing
 * callback; other errors come from libbpf or the hook. After an error of
 * the BPF load itself (a pin in the way, the verifier) a later load opens
 * the object again and retries. An error after the verifier (pin
 * permissions, the loaded hook) is final for this handle: later loads and
 * attaches return it again; close the handle and open anew.
 */
SCXPOL_API int scxpol_sched_load(struct scxpol_sched *s);

/*
 * scxpol_sched_attach - register the struct_ops with the kernel and attach
 * the object's other auto-attach programs. -EBUSY when another sched_ext
 * scheduler is attached (the message names it).
 */
SCXPOL_API int scxpol_sched_attach(struct scxpol_sched *s);

/*
 * scxpol_sched_detach - unregister (if attached) and record the exit reason.
 * Safe to call more than once.
 */
SCXPOL_API int scxpol_sched_detach(struct scxpol_sched *s);

/* scxpol_sched_close - detach if needed and free everything. NULL is a no-op. */
SCXPOL_API void scxpol_sched_close(struct scxpol_sched *s);

/*
 * The current skeleton and its BPF object: another after a restart; NULL
 * after a refused BPF load, until the next load opens the object again.
 */
SCXPOL_API void *scxpol_sched_skel(const struct scxpol_sched *s);
SCXPOL_API struct bpf_object *scxpol_sched_object(const struct scxpol_sched *s);

/* The policy name (ops.name), e.g. "minimal". */
SCXPOL_API const char *scxpol_sched_name(const struct scxpol_sched *s);

/* Directory where this policy's maps are pinned. */
SCXPOL_API const char *scxpol_sched_pin_root(const struct scxpol_sched *s);

/* Whether the BPF side has recorded an exit (the scheduler stopped). */
SCXPOL_API bool scxpol_sched_exited(struct scxpol_sched *s);

/*
 * scxpol_sched_set_timeout - the kernel watchdog's timeout for this policy
 * (ops.timeout_ms): a runnable task no CPU runs for @ms ejects the policy
 * with ERROR_STALL. 1..30000 (the kernel's limit, and its default when
 * the BPF side sets none); 0 goes back to what the BPF side and the
 * configure hook set. Before the load; kept across the restarts of
 * scxpol_sched_run(). -EINVAL out of range, -EBUSY once loaded, -ENOENT
 * if the struct_ops has no timeout_ms field.
 */
SCXPOL_API int scxpol_sched_set_timeout(struct scxpol_sched *s, unsigned int ms);

/* How many times scxpol_sched_run() restarted the policy. */
SCXPOL_API unsigned int scxpol_sched_restarts(const struct scxpol_sched *s);

struct scxpol_sched_exit {
	int kind;               /* enum scx_exit_kind value, 0 = still running */
	const char *kind_name;  /* "UNREG", "ERROR_STALL", ... */
	int64_t exit_code;
	bool restart;           /* kernel asked userspace to restart */
	const char *reason;     /* kernel's reason, e.g. "unregistered from user space" */
	const char *msg;        /* policy's or kernel's message; may be "" */
};

/*
 * scxpol_sched_exit_info - why the scheduler stopped. Strings stay valid
 * until the next load, attach or close (an attach starts a new run and
 * forgets the previous run's exit). -ENODATA while it has not stopped.
 */
SCXPOL_API int scxpol_sched_exit_info(struct scxpol_sched *s, struct scxpol_sched_exit *out);

/* Name of an exit kind ("NONE", "DONE", "UNREG", "ERROR_STALL", ...). */
SCXPOL_API const char *scxpol_sched_exit_kind_name(int kind);

struct scxpol_run_opts {
	size_t sz;
	/* Period of the periodic hook in ms (default 1000). */
	unsigned int interval_ms;
	/* Called every interval while attached (not while a CPU hotplug
	 * event's restart waits for it to complete); an error stops the run. */
	scxpol_sched_hook periodic;
	void *ctx;
	/* Restart when the kernel asks, or after hotplug; on by default. */
	bool no_restart;
	/* Give up after this many restarts (0: no limit). */
	unsigned int max_restarts;
	/*
	 * A policy with hints (scxpol_hint_setup()) gets the hints of gone
	 * tasks and cgroups removed (scxpol_hint_prune()) once attached and
	 * then every this many ms (0: 60000), unless no_hint_prune. Its BPF
	 * side removes them as they die, but only while a policy is loaded,
	 * and a removed cgroup's only with the cpu controller on it (the
	 * kernel runs ops.cgroup_exit for no other): without the prune, the
	 * maps fill up, and the hint of a thread that died while no policy
	 * ran would apply to a new thread given its id.
	 */
	bool no_hint_prune;
	unsigned int hint_prune_ms;
};
#define scxpol_run_opts__last_field hint_prune_ms

/*
 * scxpol_sched_run - load and attach if needed, then wait for SIGINT,
 * SIGTERM or the scheduler's exit, calling scxpol_match_refresh() every
 * second, the periodic hook every interval and (a policy with hints)
 * scxpol_hint_prune() after each attach and every hint_prune_ms (a
 * failure is a warning, once per run: the policy goes on); detach; restart
 * when the kernel asks, or once a CPU hotplug event the policy recorded
 * (scxpol_sched_cpu_online()/_offline()) has completed: its CPU's
 * /sys/devices/system/cpu/cpuN/online says so, or 10 s passed (a warning).
 * A restart asked within 2 s of its attach waits 100 ms before the reload,
 * doubled for each such restart in a row up to 5 s (a stop ends the wait),
 * so that a policy asking again at once does not run the verifier in a
 * loop. Returns 0 after a signal or an orderly unregister, -ECANCELED when
 * the scheduler stopped on an error (exit info says why), or a negative
 * errno from load/attach/hooks. Signal handlers for SIGINT and
 * SIGTERM are installed, and the two unblocked, for the duration of the
 * call: a caller that attaches first and does something before this call
 * (prints that it attached) can block them from before its attach, and one
 * sent in between stops the run at once instead of killing the process.
 * The first such signal is logged at info level with its sender's pid and
 * name (for a kill(), sigqueue() or tgkill(); a terminal's ^C has none).
 */
SCXPOL_API int scxpol_sched_run(struct scxpol_sched *s, const struct scxpol_run_opts *opts);

/*
 * Ask a running scxpol_sched_run() to stop (async-signal-safe). One asked
 * before the run starts (by another thread, as it starts) ends that run at
 * once, returning 0: it does not attach, or detaches in order what the
 * caller attached.
 */
SCXPOL_API void scxpol_sched_stop(struct scxpol_sched *s);

struct scxpol_prog_stat {
	const char *name;        /* program name */
	uint32_t verified_insns; /* instructions the verifier processed */
	uint64_t run_cnt;        /* with kernel.bpf_stats_enabled=1 */
	uint64_t run_time_ns;
};

/*
 * scxpol_sched_prog_stats - per-program verifier work and run statistics of
 * the loaded object. Fills up to @n entries, returns how many programs there
 * are (call with n = 0 to size the array).
 */
SCXPOL_API int scxpol_sched_prog_stats(struct scxpol_sched *s, struct scxpol_prog_stat *out,
				       size_t n);

/*
 * scxpol_sched_print_prog_stats - one line per program to @f:
 * "<policy>: verifier: <prog> <insns> insns". Returns 0 or a negative errno.
 * Each later detach (the end of scxpol_sched_run(), a restart, close) then
 * prints to the same @f, if the kernel counted runs
 * (kernel.bpf_stats_enabled=1 while the scheduler ran), one line per
 * program: "<policy>: run: <prog> <callback> <runs> runs <ns> ns", where
 * <callback> is the sched_ext_ops member the program implements ("-" for
 * other programs) and <ns> the total time spent in it. @f must stay open
 * until scxpol_sched_close().
 */
SCXPOL_API int scxpol_sched_print_prog_stats(struct scxpol_sched *s, FILE *f);

/*
 * scxpol_sched_print_exit - "<policy>: exit <KIND> (<reason>)[: <msg>]" to @f.
 * -ENODATA if the scheduler has not stopped.
 */
SCXPOL_API int scxpol_sched_print_exit(struct scxpol_sched *s, FILE *f);

/*
 * scxpol_sched_state - read /sys/kernel/sched_ext/state and root/ops.
 * @state gets "enabled", "disabled", ...; @ops the attached ops' name or "".
 * -EOPNOTSUPP when the kernel has no sched_ext.
 */
SCXPOL_API int scxpol_sched_state(const char *sysfs_root, char *state, size_t state_len,
				  char *ops, size_t ops_len);

#ifdef __cplusplus
}
#endif
#endif
