/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The scheduler handle and what its files share: lib/sched.c (lifecycle),
 * lib/sched_pins.c (pin directory), lib/sched_run.c (run loop),
 * lib/sched_progstats.c (program stats). Not installed.
 */
#ifndef SCXPOL_SCHED_INTERNAL_H
#define SCXPOL_SCHED_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "internal.h"
#include "scxpol/abi/sched.h"
#include "scxpol/sched.h"

struct bpf_link;
struct bpf_map;
struct bpf_object;

struct scxpol_sched {
	struct scxpol_sched_opts opts;
	void *skel;
	struct bpf_object *obj;
	struct bpf_map *ops_map;
	struct bpf_link *ops_link;
	struct bpf_link **links;
	size_t nr_links;
	bool loaded;
	/*
	 * A step after the BPF load failed (pin permissions, an extension, the
	 * loaded hook): the object is loaded but not set up. Its error and
	 * message, returned again by later loads and attaches.
	 */
	int load_err;
	char load_msg[512];
	char name[128];
	char pin_root[PATH_MAX];
	char sysfs_root[PATH_MAX];
	char btf_path[PATH_MAX];
	struct scxpol_sched_exit_record exit;
	bool have_exit;
	unsigned int restarts;
	/* scxpol_sched_set_timeout()'s, 0: none; what the object had before it */
	unsigned int timeout_ms, timeout_bpf;
	/* the last run ended on a restart no_restart refused: what asked for it */
	bool restart_refused;
	char refused_why[SCXPOL_EXIT_MSG_LEN + 64];
	/* the hotplug record's events when the policy was last attached */
	__u64 hotplug_seen;
	volatile sig_atomic_t stop;
	/* the first signal that set stop and its sender, logged by the run loop
	 * (lock-free atomics: the handler may run on another thread) */
	atomic_int stop_sig, stop_pid;
	int wake_fd[2];
	/* held while the object is freed or marked loaded (other threads read it) */
	pthread_mutex_t obj_lock;
	/* where scxpol_sched_print_prog_stats() printed: run counts go there at detach */
	FILE *prog_stats_f;
	/* each library module's state (lib/internal.h: struct scxpol_sched_module) */
	void *mod[SCXPOL_MOD_NR];
};

/* lib/sched.c */
SCXPOL_HIDDEN int scxpol_sched__open_object(struct scxpol_sched *s);
SCXPOL_HIDDEN void scxpol_sched__close_object(struct scxpol_sched *s);
SCXPOL_HIDDEN bool scxpol_sched__read_hotplug(struct scxpol_sched *s,
					      struct scxpol_hotplug_record *rec);

/* lib/sched_pins.c */
SCXPOL_HIDDEN int scxpol_sched__setup_pins(struct scxpol_sched *s);
SCXPOL_HIDDEN int scxpol_sched__make_pin_dir(struct scxpol_sched *s);
SCXPOL_HIDDEN int scxpol_sched__fix_pin_perms(struct scxpol_sched *s);

/* lib/sched_progstats.c */
SCXPOL_HIDDEN void scxpol_sched__print_run_stats(struct scxpol_sched *s, FILE *f);

#endif
