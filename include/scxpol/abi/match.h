/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Classification rules (cgroup -> value, comm -> value), shared by the BPF
 * side (bpf-lib/scxpol/match.bpf.h) and userspace (include/scxpol/match.h).
 *
 * Maps, not pinned (the loader writes its rules after every load):
 *   scxpol_match_cgroups  HASH      cgroup id (u64) -> __s32 value; the
 *                                   rule covers the cgroup and every cgroup
 *                                   below it
 *   scxpol_match_comms    LPM_TRIE  struct scxpol_match_comm_key -> __s32
 *   scxpol_match_meta     ARRAY[1] (mmap-able) of struct scxpol_match_meta
 * A comm rule is a key whose data is the comm or prefix and whose
 * prefixlen counts its bits: "lc-" (a prefix) is 24 bits, the exact comm
 * "bg-hog" is 56, its terminating NUL included. Lookups use the task's
 * comm (NUL-padded by the kernel) with prefixlen 128: the longest rule wins.
 *
 * Writers: write the rule, then add 1 to meta.gen with an atomic add on the
 * mmap-ed meta: the BPF side caches a task's match keyed by gen (a
 * read-modify-write through the map could lose a concurrent writer's bump).
 */
#ifndef SCXPOL_ABI_MATCH_H
#define SCXPOL_ABI_MATCH_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCXPOL_MATCH_COMM_LEN 16 /* the kernel's TASK_COMM_LEN */

struct scxpol_match_comm_key {
	__u32 prefixlen; /* bits of comm that must match */
	char comm[SCXPOL_MATCH_COMM_LEN];
};

struct scxpol_match_meta {
	__u64 gen; /* bumped by userspace after every rule write */
};

#endif
