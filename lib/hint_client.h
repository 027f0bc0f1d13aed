/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The hint client's internals, shared by lib/hint.c (policy side, client,
 * set/get/clear), lib/hint_thread.c (thread slots) and lib/hint_prune.c
 * (counting and pruning). Not installed.
 */
#ifndef SCXPOL_HINT_CLIENT_H
#define SCXPOL_HINT_CLIENT_H

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/bpf.h>
#include <linux/types.h>

#include "internal.h"
#include "scxpol/hint.h"

/* /proc/self/ns/{pid,cgroup} inode numbers of the initial namespaces */
#define PROC_PID_INIT_INO 0xEFFFFFFCU
#define PROC_CGROUP_INIT_INO 0xEFFFFFFBU
/* <linux/pidfd.h> and <linux/magic.h> of Linux 6.9, newer than some distributions' */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC 0x50494446
#endif

enum { M_CGRP, M_TGID, M_TID, M_SLOTS, M_SLOT_IDX, M_GEN, M_META, M_NR };

/* the map flags a hint map must have of these (the others are the build's) */
#define CHECKED_FLAGS (BPF_F_MMAPABLE | BPF_F_RDONLY_PROG)

/* What each hint map must be (<scxpol/abi/hint.h>). */
struct hint_map_def {
	const char *name;
	__u32 type, key_size, value_size;
	__u32 flags; /* of CHECKED_FLAGS */
	const char *limit; /* scxpol_hint_limits field sizing it */
};
SCXPOL_HIDDEN extern const struct hint_map_def scxpol_hint_maps[M_NR];

struct scxpol_hint_client {
	char policy[NAME_MAX + 1];
	char root[PATH_MAX];
	int fd[M_NR];
	__u32 max_entries[M_NR];
	__u64 *gen;                    /* mmap-ed scxpol_hint_gen */
	pthread_mutex_t lock;          /* mapping the slots */
	struct scxpol_hint_slot *slots; /* mmap-ed on first registration */
	size_t slots_len;
	unsigned int nr_threads;
};

struct scxpol_hint_thread {
	struct scxpol_hint_client *c;
	struct scxpol_hint_slot *slot;
	__u32 tid;
	__u32 idx;
	__u64 pid_ino; /* the thread's identity (struct scxpol_hint_task) */
};

/*
 * Pins of an older layout (lib/hint_layout.c). Map @m's pin under @root is
 * open as @fd (-1: none). 1: the pin is of a known older layout (or has to
 * go with one, as the slot index goes with the slots): @move[@m] is set
 * to that layout; or there is no pin and an earlier start moved one aside; its
 * size is in *@max_entries. 0: a pin of the current layout (to check), or
 * none. *@carry is set if entries are to be carried after the load. A
 * negative errno with a message: an old pin both in place and aside.
 */
SCXPOL_HIDDEN int scxpol_hint__layout_find(const char *root, int m, int fd,
					   unsigned int move[M_NR], bool *carry, __u32 *max_entries);
/* Move the pin of each map @move[] gives a layout aside under @root; with a message. */
SCXPOL_HIDDEN int scxpol_hint__layout_move(const char *root, const char *who,
					   const unsigned int move[M_NR]);
/*
 * After the load: carry the entries of the pins aside under @root into the
 * new maps (@fd, by M_*), log what became of them, remove the pins aside.
 * @who names the policy in messages.
 */
SCXPOL_HIDDEN int scxpol_hint__layout_carry(const char *root, const char *who, const int fd[M_NR]);

/* Bytes to mmap() for an array map of @max_entries values of @value_size. */
SCXPOL_HIDDEN size_t scxpol_hint__mmap_len(__u32 value_size, __u32 max_entries);
/* Add 1 to the generation @gen (mmap-ed), after the write it announces. */
SCXPOL_HIDDEN void scxpol_hint__bump(__u64 *gen);
/* Map @c's slot array once (under its lock); 0 or a negative errno with a message. */
SCXPOL_HIDDEN int scxpol_hint__map_slots(struct scxpol_hint_client *c);
/* Give slot @s back if thread @tid of identity @ino still owns it; whether this call did. */
SCXPOL_HIDDEN bool scxpol_hint__slot_release(struct scxpol_hint_slot *s, __u32 tid, __u64 ino);
/*
 * The identity of task @id (struct scxpol_hint_task.pid_ino) into *@ino:
 * the inode number of a pidfd for it, as a thread (@m M_TID) or a process
 * (M_TGID). 0, or without a message -ESRCH (no such task), -EINVAL (M_TGID:
 * a thread, not a process; or a kernel without PIDFD_THREAD), -EOPNOTSUPP
 * (no pidfs: Linux before 6.9), -ENOSYS (no pidfd_open()), another errno.
 */
SCXPOL_HIDDEN int scxpol_hint__task_ino(int m, pid_t id, __u64 *ino);
/* Why _task_ino() failed with @r (not -ESRCH), naming the call or kernel feature missing. */
SCXPOL_HIDDEN const char *scxpol_hint__ino_err(int r);
/* Whether this process is in the namespace whose /proc/self/ns/ file @ns has inode @ino. */
SCXPOL_HIDDEN bool scxpol_hint__in_init_ns(const char *ns, unsigned int ino);

#endif
