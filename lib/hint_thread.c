// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Hints: thread slots, a thread's importance in shared memory (<scxpol/hint.h>). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "hint_client.h"
#include "internal.h"

int scxpol_hint__map_slots(struct scxpol_hint_client *c)
{
	size_t len = scxpol_hint__mmap_len(sizeof(struct scxpol_hint_slot), c->max_entries[M_SLOTS]);
	void *p;
	int r = 0;

	pthread_mutex_lock(&c->lock);
	if (!c->slots) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd[M_SLOTS], 0);
		if (p == MAP_FAILED) {
			r = scxpol_err(errno, "cannot map %s/%s: %s", c->root, scxpol_hint_maps[M_SLOTS].name,
				       strerror(errno));
		} else {
			c->slots = p;
			c->slots_len = len;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

bool scxpol_hint__slot_release(struct scxpol_hint_slot *s, __u32 tid, __u64 ino)
{
	__u32 expect = tid;

	if (__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) != tid ||
	    __atomic_load_n(&s->pid_ino, __ATOMIC_ACQUIRE) != ino)
		return false;
	__atomic_store_n(&s->importance, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_RELAXED);
	return __atomic_compare_exchange_n(&s->tid, &expect, 0, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

struct scxpol_hint_thread *scxpol_hint_thread_register(struct scxpol_hint_client *c)
{
	SCXPOL_NONNULL_PTR(c, "hint client");
	__u32 tid = (__u32)gettid(), n = c->max_entries[M_SLOTS], i, idx;
	struct scxpol_hint_thread *t;
	struct scxpol_hint_slot *s = NULL;
	__u64 ino;
	int r;

	scxpol_err_clear();
	if (!scxpol_hint__in_init_ns("/proc/self/ns/pid", PROC_PID_INIT_INO))
		return scxpol_err_ptr(EOPNOTSUPP, "thread %u: registering a thread needs the initial "
				      "PID namespace (the policy sees tids of that namespace)", tid);
	r = scxpol_hint__task_ino(M_TID, (pid_t)tid, &ino);
	if (r)
		return scxpol_err_ptr(r == -EINVAL ? EOPNOTSUPP : -r, "thread %u: a slot names its "
				      "thread by its pidfd's inode: %s", tid,
				      scxpol_hint__ino_err(r));
	r = scxpol_hint__map_slots(c);
	if (r)
		return errno = -r, NULL;
	if (!bpf_map_lookup_elem(c->fd[M_SLOT_IDX], &tid, &idx) && idx < n &&
	    __atomic_load_n(&c->slots[idx].tid, __ATOMIC_ACQUIRE) == tid) {
		__u64 owner = __atomic_load_n(&c->slots[idx].pid_ino, __ATOMIC_ACQUIRE);

		if (owner == ino)
			return scxpol_err_ptr(EEXIST, "thread %u is registered already (slot %u); "
					      "unregister it first", tid, idx);
		/* left by an earlier thread with this tid, which is gone */
		scxpol_hint__slot_release(&c->slots[idx], tid, owner);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return scxpol_err_ptr(ENOMEM, "out of memory");
	/* claim a free slot; start where this tid hashes to, so threads rarely collide */
	for (i = 0; i < n; i++) {
		__u32 expect = 0;

		idx = (tid + i) % n;
		if (__atomic_compare_exchange_n(&c->slots[idx].tid, &expect, tid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			s = &c->slots[idx];
			break;
		}
	}
	if (!s) {
		free(t);
		return scxpol_err_ptr(ENOSPC, "thread %u: all %u hint slots of policy '%s' are "
				      "taken (raise its nr_slots, or prune dead threads)", tid, n,
				      c->policy);
	}
	__atomic_store_n(&s->pid_ino, ino, __ATOMIC_RELEASE);
	__atomic_store_n(&s->importance, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_RELAXED);
	if (bpf_map_update_elem(c->fd[M_SLOT_IDX], &tid, &idx, BPF_ANY)) {
		r = errno;
		scxpol_hint__slot_release(s, tid, ino);
		free(t);
		if (r == E2BIG || r == ENOMEM)
			return scxpol_err_ptr(ENOSPC, "thread %u: %s/%s is full (%u entries; stale "
					      "entries of dead threads: scxpol_hint_prune)", tid,
					      c->root, scxpol_hint_maps[M_SLOT_IDX].name,
					      c->max_entries[M_SLOT_IDX]);
		return scxpol_err_ptr(r, "thread %u: cannot write %s/%s: %s", tid, c->root,
				      scxpol_hint_maps[M_SLOT_IDX].name, strerror(r));
	}
	scxpol_hint__bump(c->gen);
	t->c = c;
	t->slot = s;
	t->tid = tid;
	t->idx = idx;
	t->pid_ino = ino;
	__atomic_fetch_add(&c->nr_threads, 1, __ATOMIC_RELAXED);
	return t;
}

void scxpol_hint_thread_set_importance(struct scxpol_hint_thread *t, unsigned int importance)
{
	if (!t)
		return;
	__atomic_store_n(&t->slot->importance, importance, __ATOMIC_RELEASE);
	__atomic_fetch_add(&t->slot->seq, 1, __ATOMIC_RELAXED);
}

int scxpol_hint_thread_unregister(struct scxpol_hint_thread *t)
{
	struct scxpol_hint_client *c;
	__u32 idx;
	int r = 0;

	if (!t)
		return 0;
	scxpol_err_clear();
	c = t->c;
	if (!bpf_map_lookup_elem(c->fd[M_SLOT_IDX], &t->tid, &idx) && idx == t->idx)
		bpf_map_delete_elem(c->fd[M_SLOT_IDX], &t->tid);
	if (!scxpol_hint__slot_release(t->slot, t->tid, t->pid_ino))
		r = scxpol_err(ESRCH, "thread %u: slot %u was released already (the thread "
			       "exited and the policy or a pruner freed it)", t->tid, t->idx);
	scxpol_hint__bump(c->gen);
	__atomic_fetch_sub(&c->nr_threads, 1, __ATOMIC_RELAXED);
	free(t);
	return r;
}

