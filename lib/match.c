// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Classification rules: cgroup and comm patterns -> values, written to a loaded policy. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/match.h"
#include "scxpol/sched.h"

int scxpol_match_comm_pattern(const char *pattern, struct scxpol_match_comm_key *key)
{
	size_t len;
	bool prefix;

	if (!pattern || !pattern[0])
		return scxpol_err(EINVAL, "comm pattern is empty");
	len = strlen(pattern);
	prefix = pattern[len - 1] == '*';
	if (prefix)
		len--;
	if (memchr(pattern, '*', len))
		return scxpol_err(EINVAL, "comm pattern \"%s\": '*' only as the last character "
				  "(a prefix)", pattern);
	if (!len)
		return scxpol_err(EINVAL, "comm pattern \"%s\": matches every thread (give a "
				  "prefix before the '*')", pattern);
	if (len > SCXPOL_MATCH_COMM_LEN - 1)
		return scxpol_err(EINVAL, "comm pattern \"%s\": longer than %d characters (the "
				  "kernel's comm limit)", pattern, SCXPOL_MATCH_COMM_LEN - 1);
	memset(key, 0, sizeof(*key));
	memcpy(key->comm, pattern, len);
	/* an exact name includes its terminating NUL: nothing may follow it */
	key->prefixlen = 8 * (unsigned int)(prefix ? len : len + 1);
	return 0;
}

int scxpol_match_check(enum scxpol_match_kind kind, const char *pattern)
{
	struct scxpol_match_comm_key key;
	unsigned long long id;

	switch (kind) {
	case SCXPOL_MATCH_CGROUP:
		return scxpol_cgroup_id(pattern, &id);
	case SCXPOL_MATCH_COMM:
		return scxpol_match_comm_pattern(pattern, &key);
	}
	return scxpol_err(EINVAL, "match rule kind %d: want SCXPOL_MATCH_CGROUP or "
			  "SCXPOL_MATCH_COMM", (int)kind);
}

/* Map @name of loaded policy @s, or NULL with a message. */
static struct bpf_map *rule_map(struct scxpol_sched *s, const char *name)
{
	struct bpf_object *obj = scxpol_sched_object(s);
	struct bpf_map *map = obj ? bpf_object__find_map_by_name(obj, name) : NULL;

	if (!obj)
		return scxpol_err_ptr(EINVAL, "%s: no BPF object to add rules to",
				      scxpol_sched_name(s));
	if (!map)
		return scxpol_err_ptr(EINVAL, "%s: the BPF object has no '%s' map; include "
				      "<scxpol/match.bpf.h>", scxpol_sched_name(s), name);
	if (bpf_map__fd(map) < 0)
		return scxpol_err_ptr(EINVAL, "%s: not loaded: add rules from the loaded hook",
				      scxpol_sched_name(s));
	return map;
}

int scxpol_match_add(struct scxpol_sched *s, enum scxpol_match_kind kind, const char *pattern,
		     int value)
{
	/* the meta's one entry: one page */
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	struct scxpol_match_meta *meta = NULL;
	struct scxpol_match_comm_key key;
	struct bpf_map *map, *meta_map;
	unsigned long long id;
	__s32 v = value;
	__u64 cgid;
	int r;

	if (!s)
		return scxpol_err(EINVAL, "scxpol_match_add: policy is NULL");
	r = scxpol_match_check(kind, pattern);
	if (r)
		return r;
	map = rule_map(s, kind == SCXPOL_MATCH_CGROUP ? "scxpol_match_cgroups" :
							 "scxpol_match_comms");
	if (!map)
		return -errno;
	/*
	 * An object built before match.bpf.h cached matches has no meta: it
	 * looks the rules up every time, and the write alone is complete.
	 * Mapped before the write: a rule must not go unannounced.
	 */
	meta_map = bpf_object__find_map_by_name(scxpol_sched_object(s), "scxpol_match_meta");
	if (meta_map)
		meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(meta_map), 0);
	if (meta == MAP_FAILED)
		return scxpol_err(errno, "%s: cannot map %s: %s", scxpol_sched_name(s),
				  bpf_map__name(meta_map), strerror(errno));
	if (kind == SCXPOL_MATCH_CGROUP) {
		scxpol_cgroup_id(pattern, &id);
		cgid = id;
		r = bpf_map__update_elem(map, &cgid, sizeof(cgid), &v, sizeof(v), BPF_ANY);
	} else {
		scxpol_match_comm_pattern(pattern, &key);
		r = bpf_map__update_elem(map, &key, sizeof(key), &v, sizeof(v), BPF_ANY);
	}
	/* after the write: tasks' cached matches are keyed by gen, read before the rules */
	if (meta && !r)
		__atomic_fetch_add(&meta->gen, 1, __ATOMIC_SEQ_CST);
	if (meta)
		munmap(meta, len);
	if (r == -E2BIG || r == -ENOSPC)
		return scxpol_err(ENOSPC, "%s: %s rule \"%s\": the rule map '%s' is full (%u "
				  "rules)", scxpol_sched_name(s),
				  kind == SCXPOL_MATCH_CGROUP ? "cgroup" : "comm", pattern,
				  bpf_map__name(map), bpf_map__max_entries(map));
	if (r)
		return scxpol_err(-r, "%s: %s rule \"%s\": cannot write '%s': %s",
				  scxpol_sched_name(s), kind == SCXPOL_MATCH_CGROUP ? "cgroup" : "comm",
				  pattern, bpf_map__name(map), strerror(-r));
	return 0;
}
