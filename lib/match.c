// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Classification rules: cgroup and comm patterns -> values, written to a loaded policy. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/*
 * Write rule @key (@ksz bytes) = @value into @map of loaded policy @s,
 * deleting @old (a cgroup id the rule held before; 0: none) first, then
 * bump the rule generation: tasks' cached matches are keyed by it, read
 * before the rules. @what names the rule in messages ("cgroup rule \"...\"").
 */
static int rule_write(struct scxpol_sched *s, struct bpf_map *map, const void *key, size_t ksz,
		      __u64 old, int value, const char *what)
{
	/* the meta's one entry: one page */
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	struct scxpol_match_meta *meta = NULL;
	struct bpf_map *meta_map;
	__s32 v = value;
	int r;

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
	r = old ? bpf_map__delete_elem(map, &old, sizeof(old), 0) : 0;
	if (r == -ENOENT)
		r = 0;
	if (!r)
		r = bpf_map__update_elem(map, key, ksz, &v, sizeof(v), BPF_ANY);
	if (meta && !r)
		__atomic_fetch_add(&meta->gen, 1, __ATOMIC_SEQ_CST);
	if (meta)
		munmap(meta, len);
	if (r == -E2BIG || r == -ENOSPC)
		return scxpol_err(ENOSPC, "%s: %s: the rule map '%s' is full (%u rules)",
				  scxpol_sched_name(s), what, bpf_map__name(map),
				  bpf_map__max_entries(map));
	if (r)
		return scxpol_err(-r, "%s: %s: cannot write '%s': %s", scxpol_sched_name(s), what,
				  bpf_map__name(map), strerror(-r));
	return 0;
}

/*
 * The cgroup rules a policy added (scxpol_match_add()), by path, so that
 * scxpol_match_refresh() can follow a directory created again: the match
 * module's state in the scheduler handle, over restarts (the loaded hook
 * adds the rules again).
 */
struct scxpol_match_cgroup_rule {
	char *path;
	unsigned long long id; /* the cgroup the map holds the rule for */
	int value;
	bool gone;             /* the directory was missing at the last refresh */
};
struct scxpol_match_cgroups {
	pthread_mutex_t lock;
	struct scxpol_match_cgroup_rule *v;
	size_t n;
	uint64_t next_refresh; /* the run loop's next refresh, ms */
};

/* Remember cgroup rule @path = @value (the cgroup @id) for scxpol_match_refresh(). */
static int remember_cgroup(struct scxpol_match_cgroups *m, const char *path,
			   unsigned long long id, int value)
{
	struct scxpol_match_cgroup_rule *v;
	size_t i;

	for (i = 0; i < m->n && strcmp(m->v[i].path, path); i++)
		;
	if (i == m->n) {
		v = realloc(m->v, (m->n + 1) * sizeof(*v));
		if (!v)
			return scxpol_err(ENOMEM, "out of memory");
		m->v = v;
		m->v[i].path = strdup(path);
		if (!m->v[i].path)
			return scxpol_err(ENOMEM, "out of memory");
		m->n++;
	}
	m->v[i].id = id;
	m->v[i].value = value;
	m->v[i].gone = false;
	return 0;
}

int scxpol_match_add(struct scxpol_sched *s, enum scxpol_match_kind kind, const char *pattern,
		     int value)
{
	struct scxpol_match_cgroups *m;
	struct scxpol_match_comm_key key;
	char what[SCXPOL_MATCH_COMM_LEN + PATH_MAX];
	unsigned long long id;
	struct bpf_map *map;
	__u64 cgid;
	int r;

	SCXPOL_NONNULL(s, "policy");
	r = scxpol_match_check(kind, pattern);
	if (r)
		return r;
	map = rule_map(s, kind == SCXPOL_MATCH_CGROUP ? "scxpol_match_cgroups" :
							 "scxpol_match_comms");
	if (!map)
		return -errno;
	snprintf(what, sizeof(what), "%s rule \"%s\"",
		 kind == SCXPOL_MATCH_CGROUP ? "cgroup" : "comm", pattern);
	if (kind == SCXPOL_MATCH_COMM) {
		scxpol_match_comm_pattern(pattern, &key);
		return rule_write(s, map, &key, sizeof(key), 0, value, what);
	}
	r = scxpol_cgroup_id(pattern, &id);
	if (r)
		return r; /* removed since scxpol_match_check() */
	cgid = id;
	m = scxpol_sched__mod_state(s, SCXPOL_MOD_MATCH);
	pthread_mutex_lock(&m->lock);
	r = rule_write(s, map, &cgid, sizeof(cgid), 0, value, what);
	if (!r)
		r = remember_cgroup(m, pattern, id, value);
	pthread_mutex_unlock(&m->lock);
	return r;
}

int scxpol_match_refresh(struct scxpol_sched *s)
{
	struct scxpol_match_cgroups *m;
	char what[PATH_MAX + 32];
	struct scxpol_match_cgroup_rule *c;
	struct bpf_map *map = NULL;
	unsigned long long id;
	int moved = 0, r = 0;
	__u64 cgid;
	size_t i;

	SCXPOL_NONNULL(s, "policy");
	m = scxpol_sched__mod_state(s, SCXPOL_MOD_MATCH);
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->n; i++) {
		c = &m->v[i];
		/*
		 * A missing directory is no error (the service may be between its
		 * runs), nor one that is no cgroup2 directory for now: one rule must
		 * not stop the others from following theirs, or the policy's run.
		 */
		r = scxpol_cgroup_id_quiet(c->path, &id);
		if (r) {
			if (!c->gone && r == -ENOENT)
				scxpol_log(SCXPOL_LOG_INFO, "%s: cgroup rule \"%s\": the directory is "
					   "gone; the rule applies again once it is created",
					   scxpol_sched_name(s), c->path);
			else if (!c->gone)
				scxpol_log(SCXPOL_LOG_WARN, "%s: cgroup rule \"%s\": %s; the rule "
					   "applies again once it is a cgroup2 directory",
					   scxpol_sched_name(s), c->path, scxpol_last_error());
			c->gone = true;
			r = 0;
			scxpol_err_clear(); /* no error of the refresh's */
			continue;
		}
		if (id == c->id) {
			c->gone = false;
			continue;
		}
		if (!map)
			map = rule_map(s, "scxpol_match_cgroups");
		if (!map) {
			r = -errno;
			break;
		}
		snprintf(what, sizeof(what), "cgroup rule \"%s\"", c->path);
		cgid = id;
		r = rule_write(s, map, &cgid, sizeof(cgid), c->id, c->value, what);
		if (r)
			break;
		scxpol_log(SCXPOL_LOG_INFO, "%s: cgroup rule \"%s\" follows the cgroup created "
			   "there again (id %llu, was %llu)", scxpol_sched_name(s), c->path, id,
			   c->id);
		c->id = id;
		c->gone = false;
		moved++;
	}
	pthread_mutex_unlock(&m->lock);
	return r < 0 ? r : moved;
}

/* --- the match module (lib/internal.h) ----------------------------------- */

static int match_init(void *state)
{
	struct scxpol_match_cgroups *m = state;

	return -pthread_mutex_init(&m->lock, NULL);
}

/* the rules follow their directories every second, the first a second in */
static void match_attached(struct scxpol_sched *s, void *state, const struct scxpol_run_opts *ro,
			   uint64_t now)
{
	struct scxpol_match_cgroups *m = state;

	(void)s;
	(void)ro;
	m->next_refresh = now + 1000;
}

static int match_tick(struct scxpol_sched *s, void *state, uint64_t now)
{
	struct scxpol_match_cgroups *m = state;
	int r;

	if (now < m->next_refresh)
		return 0;
	m->next_refresh = now + 1000;
	r = scxpol_match_refresh(s);
	return r < 0 ? r : 0;
}

static void match_fini(void *state)
{
	struct scxpol_match_cgroups *m = state;
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	pthread_mutex_destroy(&m->lock);
}

const struct scxpol_sched_module scxpol_match_module = {
	.name = "match",
	.state_size = sizeof(struct scxpol_match_cgroups),
	.init = match_init,
	.attached = match_attached,
	.tick = match_tick,
	.fini = match_fini,
};
