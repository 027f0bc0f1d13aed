/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the replay (replay.c: the run, replay_inv.c: one invocation's
 * steps): the run's state and its timing constants, and the steps the run's
 * loop calls (replay_inv.c).
 */
#ifndef FAAS_REPLAY_INT_H
#define FAAS_REPLAY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay.h"

#define POLL_MAX_MS 10		   /* bounds how late an exited body is reaped */
#define PREPARE_AHEAD_NS 250000000ULL /* prepare bodies this long before arrival */
#define PREPARE_MAX 64		   /* ... but no more than this many at once */
#define ASLEEP_RETRY_NS 1000000ULL /* a body not asleep yet: look again this soon */
#define ASLEEP_MAX_NS 20000000000ULL /* ... failing this long after its arrival */
/*
 * Bodies that reported are reaped as they exit; all others are looked at
 * this often, to catch one that died without a report. Not every body at
 * every turn: waitpid() walks the list of children, and hundreds in
 * flight (an over-utilised trace) would make that the replay's bottleneck.
 */
#define REAP_SCAN_NS 100000000ULL

struct inv_state {
	pid_t pid;
	int go_fd;	  /* prepared and waiting: write a byte to start */
	int status;	  /* from waitpid */
	bool granted;	  /* holds an IAT grant */
	bool cgroup;	  /* its cgroup exists */
	bool hinted;	  /* sink->assign succeeded, clear pending */
	bool reported, exited;
};

struct run {
	const struct faas_replay_opts *o;
	struct faas_replay *r;
	struct faas_iat *iat;
	struct inv_state *st;
	uint64_t *flight;    /* ids forked and not yet reaped */
	size_t nr_flight;
	uint64_t next;	     /* next invocation to start */
	uint64_t next_prep;  /* ... to prepare: [next, next_prep) wait for go */
	uint64_t *pend;	     /* arrived, waiting for their bodies to fall asleep */
	size_t nr_pend;
	uint64_t *held;	     /* FAAS_OVERFLOW_HOLD: arrived, no domain yet, by arrival */
	size_t held_head, nr_held; /* held[held_head .. nr_held) wait */
	int64_t *last;	     /* core_reuse()'s, per function: taken before the run */
	uint64_t t0;
	uint64_t next_scan;  /* next replay_reap() that looks at every body */
	int rep_fd[2];
	char *err;
	size_t errlen;
};

int replay_fail(struct run *R, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int replay_start(struct run *R, uint64_t id);
int replay_release_held(struct run *R);
int replay_release_pending(struct run *R, uint64_t now);
int replay_reap(struct run *R, uint64_t now);
void replay_abort_all(struct run *R);
int replay_prepare_next(struct run *R, uint64_t now, int *r);
int replay_remove_cgroups(struct run *R);

#endif
