/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Classification rules, userspace side: tell a loaded policy which value
 * (a class, a pool...) tasks get by their cgroup or their comm. The BPF
 * side looks the rules up with <scxpol/match.bpf.h>; layouts are in
 * <scxpol/abi/match.h>.
 *
 * Rules are configuration, not state: the maps are not pinned, and a
 * loader adds its rules from its loaded hook after every load (a restart
 * included). What an application says about itself at run time belongs
 * in hints (<scxpol/hint.h>), which are pinned and outlive restarts.
 */
#ifndef SCXPOL_MATCH_H
#define SCXPOL_MATCH_H

#include <scxpol/abi/match.h>
#include <scxpol/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_sched;

enum scxpol_match_kind {
	/*
	 * A cgroup2 directory, e.g. "/sys/fs/cgroup/ads": the rule covers it
	 * and every cgroup below it (a path prefix, component by component),
	 * including cgroups created later. Where rules nest, the nearest
	 * cgroup's wins. The directory must exist when the rule is added
	 * (rules hold its id); one removed and created again (a new cgroup:
	 * a restarted service's) is followed by scxpol_match_refresh().
	 */
	SCXPOL_MATCH_CGROUP,
	/*
	 * A thread name: exact ("bg-hog") or a prefix written as a glob
	 * with one '*' at the end ("lc-*"); at most 15 characters besides
	 * the '*'. Where patterns overlap the longest wins ("lc-worker"
	 * over "lc-*", "lc-" exactly over "lc-*").
	 */
	SCXPOL_MATCH_COMM,
};

/*
 * scxpol_match_check - check a rule's @pattern without a policy, e.g.
 * while parsing a command line. 0, or a negative errno with a message
 * naming the pattern: -EINVAL (`comm pattern "a*b": '*' only as the last
 * character (a prefix)`, `comm pattern "...": longer than 15 characters`,
 * an empty pattern, an unknown kind), or for a cgroup what stat()/statfs()
 * say: -ENOENT, -ENOTDIR, -EINVAL (not on cgroup2).
 */
SCXPOL_API int scxpol_match_check(enum scxpol_match_kind kind, const char *pattern);

/*
 * scxpol_match_add - in loaded policy @s (its loaded hook, or later while
 * attached), give tasks matching @pattern of @kind the value @value.
 * Adding a pattern again replaces its value. Tasks the BPF side already
 * classified (and cached) follow it from their next lookup: the rule
 * generation is bumped after the write. Errors: those of
 * scxpol_match_check(); -EINVAL when @s is not loaded or its BPF side
 * lacks the rule maps (include <scxpol/match.bpf.h>); -ENOSPC when the
 * map is full (SCXPOL_MATCH_MAX_CGROUPS / _COMMS in match.bpf.h); mmap()'s
 * errno when the rule generation cannot be mapped.
 */
SCXPOL_API int scxpol_match_add(struct scxpol_sched *s, enum scxpol_match_kind kind,
				const char *pattern, int value);

/*
 * scxpol_match_refresh - let the cgroup rules of loaded policy @s follow
 * their directories: a rule whose directory was removed and created again
 * (a new cgroup, with a new id) moves to the new cgroup, logged at info
 * level; one whose directory is missing waits for it (logged once, at
 * info level), and so does one whose path is for now no cgroup2
 * directory (logged once, a warning with scxpol_match_check()'s reason):
 * neither stops the other rules or the run. scxpol_sched_run() calls it
 * every second (at most that long after a new directory appears its tasks
 * follow the rule); a loader with its own loop calls it itself. Safe to
 * call from another thread than the one that adds rules. Returns the
 * number of rules that moved, or a negative errno with a message naming
 * the rule when its map cannot be written (scxpol_match_add()'s errors).
 */
SCXPOL_API int scxpol_match_refresh(struct scxpol_sched *s);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_MATCH_H */
