// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Hints: the policy-side setup, and the client of the pinned hint maps: open, set, get, clear. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/pidfd.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hint_client.h"
#include "internal.h"
#include "scxpol/hint.h"
#include "scxpol/sched.h"

/* sanity caps on map sizes */
#define MAX_SLOTS (1U << 20)
#define MAX_ENTRIES (1U << 24)

const struct hint_map_def scxpol_hint_maps[M_NR] = {
	[M_CGRP] = { "scxpol_hint_cgrp", BPF_MAP_TYPE_HASH, sizeof(__u64),
		     sizeof(struct scxpol_hint), 0, "max_cgroups" },
	[M_TGID] = { "scxpol_hint_tgid", BPF_MAP_TYPE_HASH, sizeof(__u32),
		     sizeof(struct scxpol_hint_task), 0, "max_tgids" },
	[M_TID] = { "scxpol_hint_tid", BPF_MAP_TYPE_HASH, sizeof(__u32),
		    sizeof(struct scxpol_hint_task), 0, "max_tids" },
	[M_SLOTS] = { "scxpol_hint_slots", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
		      sizeof(struct scxpol_hint_slot), BPF_F_MMAPABLE, "nr_slots" },
	[M_SLOT_IDX] = { "scxpol_hint_slot_idx", BPF_MAP_TYPE_HASH, sizeof(__u32),
			 sizeof(__u32), 0, "nr_slots" },
	[M_GEN] = { "scxpol_hint_gen", BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(__u64),
		    BPF_F_MMAPABLE, NULL },
	[M_META] = { "scxpol_hint_meta", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
		     sizeof(struct scxpol_hint_meta), BPF_F_RDONLY_PROG, NULL },
};

size_t scxpol_hint__mmap_len(__u32 value_size, __u32 max_entries)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* array elements are 8-byte aligned */
	size_t len = (size_t)((value_size + 7) & ~7U) * max_entries;

	return (len + page - 1) / page * page;
}
void scxpol_owner_name(const struct stat *st, char *buf, size_t len)
{
	char ubuf[1024], gbuf[1024], u[64], g[64];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	if (!getpwuid_r(st->st_uid, &pw, ubuf, sizeof(ubuf), &pwp) && pwp)
		snprintf(u, sizeof(u), "%s", pw.pw_name);
	else
		snprintf(u, sizeof(u), "%u", (unsigned int)st->st_uid);
	if (!getgrgid_r(st->st_gid, &gr, gbuf, sizeof(gbuf), &grp) && grp)
		snprintf(g, sizeof(g), "%s", gr.gr_name);
	else
		snprintf(g, sizeof(g), "%u", (unsigned int)st->st_gid);
	snprintf(buf, len, "%s:%s", u, g);
}

/*
 * Why @path cannot be opened: the mode and owner of the pin, or of the
 * first directory on the way the caller cannot search.
 */
static void access_hint(const char *path, char *buf, size_t len)
{
	char dir[PATH_MAX + 32], who[160], *slash;
	struct stat st;

	if (!stat(path, &st)) {
		scxpol_owner_name(&st, who, sizeof(who));
		snprintf(buf, len, "maps are mode %04o owned by %s", (unsigned int)(st.st_mode & 07777),
			 who);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) || !access(dir, X_OK))
			continue;
		scxpol_owner_name(&st, who, sizeof(who));
		snprintf(buf, len, "directory %s is mode %04o owned by %s", dir,
			 (unsigned int)(st.st_mode & 07777), who);
		return;
	}
	snprintf(buf, len, "not accessible to uid %u", (unsigned int)getuid());
}

/*
 * Check that the map behind @fd has the layout @d and, if @want, @want
 * entries; with @obj_map (the policy's map, to be replaced by the pin) also
 * its flags, which libbpf compares exactly before reusing a pin.
 */
static int check_map(int fd, const struct hint_map_def *d, const char *path, __u32 want,
		     const struct bpf_map *obj_map, __u32 *max_entries, int mismatch_err)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	int dir_len = (int)(strrchr(path, '/') - path);

	memset(&info, 0, sizeof(info));
	if (bpf_map_get_info_by_fd(fd, &info, &len))
		return scxpol_err(errno, "cannot query map %s: %s", path, strerror(errno));
	if (info.type != d->type || info.key_size != d->key_size ||
	    info.value_size != d->value_size || (info.map_flags & CHECKED_FLAGS) != d->flags)
		return scxpol_err(mismatch_err, "%s: map type %u, key %u bytes, value %u bytes, flags "
				  "0x%x; this libscxpol expects type %u, key %u, value %u%s%s "
				  "(<scxpol/abi/hint.h> of %s and of this program differ)%s%.*s%s",
				  path, info.type, info.key_size, info.value_size, info.map_flags,
				  d->type, d->key_size, d->value_size,
				  d->flags & BPF_F_MMAPABLE ? ", BPF_F_MMAPABLE" : "",
				  d->flags & BPF_F_RDONLY_PROG ? ", BPF_F_RDONLY_PROG" : "",
				  obj_map ? "the pin's build" : "the policy",
				  obj_map ? ": remove the pins (rm -r " : "", obj_map ? dir_len : 0, path,
				  obj_map ? ") to start afresh" : "");
	if (want && info.max_entries != want)
		return scxpol_err(mismatch_err, "%s is pinned with %u entries, the policy asks for %u "
				  "(%s): pinned hint maps keep their entries across restarts and "
				  "cannot be resized in place; remove the pins (rm -r %.*s) to start "
				  "afresh, or leave %s at 0 to keep the pinned size",
				  path, info.max_entries, want, d->limit, dir_len, path, d->limit);
	/* otherwise the load would fail with a bare EINVAL from libbpf */
	if (obj_map && (info.map_flags != bpf_map__map_flags(obj_map) ||
			info.map_extra != bpf_map__map_extra(obj_map)))
		return scxpol_err(mismatch_err, "%s is pinned with flags 0x%x, map_extra 0x%llx; "
				  "the policy's map has flags 0x%x, map_extra 0x%llx (a pin from "
				  "another build?): libbpf reuses a pin only if they are equal; "
				  "remove the pins (rm -r %.*s) to start afresh", path,
				  info.map_flags, (unsigned long long)info.map_extra,
				  bpf_map__map_flags(obj_map),
				  (unsigned long long)bpf_map__map_extra(obj_map), dir_len, path);
	if (max_entries)
		*max_entries = info.max_entries;
	return 0;
}

void scxpol_hint__bump(__u64 *gen)
{
	/* after the write it announces: BPF reads gen before the maps */
	__atomic_fetch_add(gen, 1, __ATOMIC_SEQ_CST);
}

/* ---- Policy side ------------------------------------------------------- */

static __u32 limit_of(const struct scxpol_hint_limits *lim, int m)
{
	switch (m) {
	case M_CGRP:
		return OPTS_GET(lim, max_cgroups, 0);
	case M_TGID:
		return OPTS_GET(lim, max_tgids, 0);
	case M_TID:
		return OPTS_GET(lim, max_tids, 0);
	case M_SLOTS:
	case M_SLOT_IDX:
		return OPTS_GET(lim, nr_slots, 0);
	default:
		return 0;
	}
}

/*
 * Write @m into the loaded object's scxpol_hint_meta (@old: its content
 * before; NULL: write anyway) and bump the generation: cached hints were
 * checked against the old limits. The loader's own descriptors: the pins
 * give the group that writes hints no write access to the limits.
 */
static int write_meta(struct scxpol_sched *s, const struct scxpol_hint_meta *m,
		      const struct scxpol_hint_meta *old)
{
	struct bpf_object *obj = scxpol_sched_object(s);
	struct bpf_map *meta = bpf_object__find_map_by_name(obj, scxpol_hint_maps[M_META].name);
	struct bpf_map *gen = bpf_object__find_map_by_name(obj, scxpol_hint_maps[M_GEN].name);
	size_t len = scxpol_hint__mmap_len(sizeof(__u64), 1);
	__u32 zero = 0;
	__u64 *g;

	if (old && !memcmp(old, m, sizeof(*m)))
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(meta), &zero, m, BPF_ANY))
		return scxpol_err(errno, "%s: cannot write %s: %s", scxpol_sched_name(s),
				  scxpol_hint_maps[M_META].name, strerror(errno));
	g = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(gen), 0);
	if (g == MAP_FAILED)
		return scxpol_err(errno, "%s: cannot map %s: %s", scxpol_sched_name(s),
				  scxpol_hint_maps[M_GEN].name, strerror(errno));
	scxpol_hint__bump(g);
	munmap(g, len);
	return 0;
}

/*
 * The hint module's state in the scheduler handle: what the last
 * scxpol_hint_setup() asked (the configure hook calls it again at each
 * open), done after each load; and the run loop's pruning.
 */
struct hint_state {
	bool set;                       /* limits to publish, hints to prune */
	struct scxpol_hint_limits lim;
	bool carry;                     /* pins of an older layout to carry over */
	bool prune, warned;             /* prune this attach; warned of a failure */
	unsigned int prune_ms;
	uint64_t next_prune;
};

/* Write @lim into the loaded object's meta map and bump the generation. */
static int publish_limits(struct scxpol_sched *s, const struct scxpol_hint_limits *lim)
{
	struct bpf_map *slots = bpf_object__find_map_by_name(scxpol_sched_object(s),
							     scxpol_hint_maps[M_SLOTS].name);
	struct scxpol_hint_meta m = {
		.nr_pools = OPTS_GET(lim, nr_pools, 0),
		.nr_classes = OPTS_GET(lim, nr_classes, 0),
		.max_importance = OPTS_GET(lim, max_importance, 0),
		.nr_slots = bpf_map__max_entries(slots),
	};
	int r = write_meta(s, &m, NULL);

	if (r)
		return r;
	scxpol_log(SCXPOL_LOG_INFO, "%s: hints: %u pools, %u classes, importance <= %u, %u slots",
		   scxpol_sched_name(s), m.nr_pools, m.nr_classes, m.max_importance, m.nr_slots);
	return 0;
}

int scxpol_hint_pools_published(struct scxpol_sched *s, unsigned int nr_pools)
{
	struct bpf_object *obj = scxpol_sched_object(s);
	struct bpf_map *map =
		obj ? bpf_object__find_map_by_name(obj, scxpol_hint_maps[M_META].name) : NULL;
	struct scxpol_hint_meta old, m;
	__u32 zero = 0;
	int r;

	if (!map || bpf_map__fd(map) < 0)
		return 0; /* the policy does not use hints */
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, &old))
		return scxpol_err(errno, "%s: cannot read %s: %s", scxpol_sched_name(s),
				  scxpol_hint_maps[M_META].name, strerror(errno));
	m = old;
	m.nr_pools = nr_pools;
	r = write_meta(s, &m, &old);
	if (!r && old.nr_pools != nr_pools)
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: pools 0..%d now (were 0..%d)",
			   scxpol_sched_name(s), (int)nr_pools - 1, (int)old.nr_pools - 1);
	return r;
}

/* After the load: the entries of pins of an older layout into the new maps. */
static int carry_layout(struct scxpol_sched *s)
{
	struct bpf_object *obj = scxpol_sched_object(s);
	int i, fd[M_NR];

	for (i = 0; i < M_NR; i++)
		fd[i] = bpf_map__fd(bpf_object__find_map_by_name(obj, scxpol_hint_maps[i].name));
	/* no policy runs yet: no task has cached a hint, no generation to bump */
	return scxpol_hint__layout_carry(scxpol_sched_pin_root(s), scxpol_sched_name(s), fd);
}

int scxpol_hint_setup(struct scxpol_sched *s, const struct scxpol_hint_limits *lim)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_object *obj = scxpol_sched_object(s);
	struct bpf_map *maps[M_NR];
	const char *root = scxpol_sched_pin_root(s);
	unsigned int move[M_NR] = { 0 };
	struct scxpol_hint_limits copy;
	struct hint_state *st;
	bool loaded, carry = false;
	char path[PATH_MAX];
	int i, r;

	if (!lim)
		return scxpol_err(EINVAL, "scxpol_hint_setup: limits are NULL");
	if (!OPTS_VALID(lim, scxpol_hint_limits))
		return -EINVAL;
	if (!obj)
		return scxpol_err(EINVAL, "scxpol_hint_setup: the scheduler has no BPF object open");
	for (i = 0; i < M_NR; i++) {
		maps[i] = bpf_object__find_map_by_name(obj, scxpol_hint_maps[i].name);
		if (!maps[i])
			return scxpol_err(EINVAL, "%s: the BPF object has no map '%s'; include "
					  "<scxpol/hint.bpf.h> in the policy", scxpol_sched_name(s),
					  scxpol_hint_maps[i].name);
	}
	if (OPTS_GET(lim, nr_slots, 0) > MAX_SLOTS)
		return scxpol_err(EINVAL, "hint limits: nr_slots %u is more than %u",
				  OPTS_GET(lim, nr_slots, 0), MAX_SLOTS);
	for (i = M_CGRP; i <= M_TID; i++)
		if (limit_of(lim, i) > MAX_ENTRIES)
			return scxpol_err(EINVAL, "hint limits: %s %u is more than %u", scxpol_hint_maps[i].limit,
					  limit_of(lim, i), MAX_ENTRIES);

	loaded = bpf_map__fd(maps[M_META]) >= 0;
	for (i = 0; i < M_NR; i++) {
		__u32 want = limit_of(lim, i), pinned = 0;
		int fd;

		if (loaded) {
			if (want && bpf_map__max_entries(maps[i]) != want)
				return scxpol_err(EINVAL, "%s: %s was loaded with %u entries, the "
						  "limits ask for %u (%s); call scxpol_hint_setup() "
						  "from the configure hook to size it",
						  scxpol_sched_name(s), scxpol_hint_maps[i].name,
						  bpf_map__max_entries(maps[i]), want, scxpol_hint_maps[i].limit);
			continue;
		}
		/* a pinned map is reused as is: check it now, with a useful message */
		snprintf(path, sizeof(path), "%s/%s", root, scxpol_hint_maps[i].name);
		fd = bpf_obj_get(path);
		if (fd < 0 && errno != ENOENT)
			return scxpol_err(errno, "cannot open %s: %s", path, strerror(errno));
		/* one of an older layout is replaced: of the size it had, unless asked */
		r = scxpol_hint__layout_find(root, i, fd, move, &carry, &pinned);
		if (!r && fd >= 0)
			r = check_map(fd, &scxpol_hint_maps[i], path, want, maps[i], &pinned, EEXIST);
		if (fd >= 0)
			close(fd);
		if (r < 0)
			return r;
		if (pinned && (!want || !r))
			want = pinned;
		if (want) {
			r = bpf_map__set_max_entries(maps[i], want);
			if (r)
				return scxpol_err(-r, "%s: cannot size %s to %u: %s", scxpol_sched_name(s),
						  scxpol_hint_maps[i].name, want, strerror(-r));
		}
	}
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, lim, lim->sz < sizeof(copy) ? lim->sz : sizeof(copy));
	copy.sz = sizeof(copy);
	if (loaded)
		return publish_limits(s, &copy);
	r = scxpol_hint__layout_move(root, scxpol_sched_name(s), move);
	if (r)
		return r;
	st = scxpol_sched__mod_state(s, SCXPOL_MOD_HINT);
	st->set = true;
	st->lim = copy;
	st->carry = carry;
	return 0;
}

/* --- the hint module (lib/internal.h) ------------------------------------ */

/* after the load: the limits, then the entries of older pins */
static int hint_loaded(struct scxpol_sched *s, void *state)
{
	struct hint_state *st = state;
	int r = st->set ? publish_limits(s, &st->lim) : 0;

	return !r && st->carry ? carry_layout(s) : r;
}

/* prune at once (what died while no policy ran), then every hint_prune_ms */
static void hint_attached(struct scxpol_sched *s, void *state, const struct scxpol_run_opts *ro,
			  uint64_t now)
{
	struct hint_state *st = state;

	(void)s;
	st->prune = st->set && !OPTS_GET(ro, no_hint_prune, false);
	st->prune_ms = OPTS_GET(ro, hint_prune_ms, 0) ?: 60000;
	st->next_prune = now;
	st->warned = false;
}

/*
 * Remove the hints of gone tasks and cgroups. A failure is logged once per
 * attach and does not stop the policy: it only leaves the maps to fill up.
 */
static int hint_tick(struct scxpol_sched *s, void *state, uint64_t now)
{
	struct hint_state *st = state;
	unsigned int removed = 0;
	int r;

	if (!st->prune || now < st->next_prune)
		return 0;
	st->next_prune = now + st->prune_ms;
	r = scxpol_hint_prune_policy(s, &removed);
	if (removed)
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: pruned %u entries of gone tasks and cgroups",
			   scxpol_sched_name(s), removed);
	if (r < 0 && !st->warned) {
		scxpol_log(SCXPOL_LOG_WARN, "%s: hints: cannot prune the hints of gone tasks and "
			   "cgroups (said once per attach): %s", scxpol_sched_name(s), scxpol_last_error());
		st->warned = true;
	}
	scxpol_err_clear();
	return 0;
}

const struct scxpol_sched_module scxpol_hint_module = {
	.name = "hint",
	.state_size = sizeof(struct hint_state),
	.loaded = hint_loaded,
	.attached = hint_attached,
	.tick = hint_tick,
};

/* ---- Clients --------------------------------------------------------------- */

struct scxpol_hint_client *scxpol_hint_client_open(const char *policy,
						   const struct scxpol_hint_client_opts *opts)
{
	LIBBPF_OPTS(bpf_obj_get_opts, ro, .file_flags = BPF_F_RDONLY);
	struct scxpol_hint_client *c;
	const char *root;
	char path[PATH_MAX + 32], why[PATH_MAX + 512];
	struct stat st;
	int i, r;

	scxpol_err_clear();
	if (!policy || !policy[0] || strchr(policy, '/') || !strcmp(policy, ".") ||
	    !strcmp(policy, "..") || strlen(policy) > NAME_MAX)
		return scxpol_err_ptr(EINVAL, "policy name '%s': want a policy's name (ops.name), "
				      "without '/'", policy ? policy : "(null)");
	if (!OPTS_VALID(opts, scxpol_hint_client_opts))
		return errno = EINVAL, NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return scxpol_err_ptr(ENOMEM, "out of memory");
	for (i = 0; i < M_NR; i++)
		c->fd[i] = -1;
	c->gen = MAP_FAILED;
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->policy, sizeof(c->policy), "%s", policy);
	root = OPTS_GET(opts, pin_root, NULL);
	if (root)
		snprintf(c->root, sizeof(c->root), "%s", root);
	else
		snprintf(c->root, sizeof(c->root), SCXPOL_PIN_BASE "/%s", policy);

	if (stat(c->root, &st) && errno == ENOENT) {
		r = scxpol_err(ENOENT, "no hint maps for policy '%s': %s does not exist (is the "
			       "policy loaded, and bpffs mounted on /sys/fs/bpf?)", policy, c->root);
		goto fail;
	}
	for (i = 0; i < M_NR; i++) {
		snprintf(path, sizeof(path), "%s/%s", c->root, scxpol_hint_maps[i].name);
		/* the limits are the loader's: read-only to the group that writes hints */
		c->fd[i] = bpf_obj_get_opts(path, i == M_META ? &ro : NULL);
		if (c->fd[i] < 0) {
			int e = errno;

			if (e == EACCES || e == EPERM) {
				access_hint(path, why, sizeof(why));
				r = scxpol_err(e, "cannot open %s: %s (%s; ask for group access via "
					       "the policy's --pin-group, i.e. scxpol_sched_opts.pin_gid)",
					       path, strerror(e), why);
			} else if (e == ENOENT) {
				r = scxpol_err(e, "cannot open %s: %s (policy '%s' does not use "
					       "hints: its BPF side lacks <scxpol/hint.bpf.h>)", path,
					       strerror(e), policy);
			} else {
				r = scxpol_err(e, "cannot open %s: %s", path, strerror(e));
			}
			goto fail;
		}
		r = check_map(c->fd[i], &scxpol_hint_maps[i], path, 0, NULL, &c->max_entries[i], EPROTO);
		if (r)
			goto fail;
	}
	c->gen = mmap(NULL, scxpol_hint__mmap_len(sizeof(*c->gen), 1), PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd[M_GEN], 0);
	if (c->gen == MAP_FAILED) {
		r = scxpol_err(errno, "cannot map %s/%s: %s", c->root, scxpol_hint_maps[M_GEN].name,
			       strerror(errno));
		goto fail;
	}
	return c;
fail:
	scxpol_hint_client_close(c);
	errno = -r;
	return NULL;
}

void scxpol_hint_client_close(struct scxpol_hint_client *c)
{
	int i;

	if (!c)
		return;
	if (c->nr_threads)
		scxpol_log(SCXPOL_LOG_WARN, "hint client of '%s' closed with %u threads still "
			   "registered", c->policy, c->nr_threads);
	if (c->gen != MAP_FAILED)
		munmap(c->gen, scxpol_hint__mmap_len(sizeof(*c->gen), 1));
	if (c->slots)
		munmap(c->slots, c->slots_len);
	for (i = 0; i < M_NR; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int scxpol_hint_check(const struct scxpol_hint_meta *m, const char *policy, const char *what,
		      const struct scxpol_hint *h)
{
	if (!h)
		return scxpol_err(EINVAL, "%s: hint is NULL", what);
	if (!h->flags)
		return scxpol_err(EINVAL, "%s: the hint sets no field (flags 0); clear the hint "
				  "to remove it", what);
	if (h->flags & ~SCXPOL_HINT_F_ALL)
		return scxpol_err(EINVAL, "%s: unknown hint flags 0x%x", what,
				  h->flags & ~SCXPOL_HINT_F_ALL);
	if ((h->flags & SCXPOL_HINT_F_POOL) && h->pool != SCXPOL_HINT_POOL_NONE &&
	    (h->pool < 0 || (__u32)h->pool >= m->nr_pools)) {
		if (!m->nr_pools)
			return scxpol_err(EINVAL, "%s: pool %d out of range: policy '%s' has no "
					  "pools (only SCXPOL_HINT_POOL_NONE)", what, h->pool, policy);
		return scxpol_err(EINVAL, "%s: pool %d out of range: policy '%s' has pools 0..%u "
				  "(or SCXPOL_HINT_POOL_NONE)", what, h->pool, policy,
				  m->nr_pools - 1);
	}
	if ((h->flags & SCXPOL_HINT_F_CLASS) && h->class_id >= m->nr_classes) {
		if (!m->nr_classes)
			return scxpol_err(EINVAL, "%s: class %u out of range: policy '%s' accepts "
					  "no classes", what, h->class_id, policy);
		return scxpol_err(EINVAL, "%s: class %u out of range: policy '%s' accepts classes "
				  "0..%u", what, h->class_id, policy, m->nr_classes - 1);
	}
	if ((h->flags & SCXPOL_HINT_F_IMPORTANCE) && h->importance > m->max_importance)
		return scxpol_err(EINVAL, "%s: importance %u out of range: policy '%s' accepts "
				  "0..%u", what, h->importance, policy, m->max_importance);
	return 0;
}

/* Check @h against the policy's published limits; @what names the target. */
static int check_hint(struct scxpol_hint_client *c, const char *what, const struct scxpol_hint *h)
{
	struct scxpol_hint_meta m;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(c->fd[M_META], &zero, &m))
		return scxpol_err(errno, "%s: cannot read the limits in %s/%s: %s", what, c->root,
				  scxpol_hint_maps[M_META].name, strerror(errno));
	return scxpol_hint_check(&m, c->policy, what, h);
}

/* Write @h for @key into map @m; for a task map, with the task's identity @pid_ino. */
static int map_set(struct scxpol_hint_client *c, int m, const void *key, const char *what,
		   const struct scxpol_hint *h, __u64 pid_ino)
{
	struct scxpol_hint_task t;
	struct scxpol_hint v;
	const void *value = &v;
	int r;

	r = check_hint(c, what, h);
	if (r)
		return r;
	v = *h;
	/* fields without their flag are stored neutral */
	if (!(v.flags & SCXPOL_HINT_F_POOL))
		v.pool = SCXPOL_HINT_POOL_NONE;
	if (!(v.flags & SCXPOL_HINT_F_CLASS))
		v.class_id = 0;
	if (!(v.flags & SCXPOL_HINT_F_IMPORTANCE))
		v.importance = 0;
	if (m != M_CGRP) {
		t = (struct scxpol_hint_task){ .hint = v, .pid_ino = pid_ino };
		value = &t;
	}
	if (bpf_map_update_elem(c->fd[m], key, value, BPF_ANY)) {
		r = errno;
		if (r == E2BIG || r == ENOMEM)
			return scxpol_err(ENOSPC, "%s: %s/%s is full (%u entries): remove stale "
					  "hints (scxpol_hint_prune) or raise the policy's %s", what,
					  c->root, scxpol_hint_maps[m].name, c->max_entries[m], scxpol_hint_maps[m].limit);
		return scxpol_err(r, "%s: cannot write %s/%s: %s", what, c->root, scxpol_hint_maps[m].name,
				  strerror(r));
	}
	scxpol_hint__bump(c->gen);
	return 0;
}

static int map_get(struct scxpol_hint_client *c, int m, const void *key, const char *what,
		   struct scxpol_hint *out)
{
	if (!out)
		return scxpol_err(EINVAL, "%s: output hint is NULL", what);
	if (bpf_map_lookup_elem(c->fd[m], key, out)) {
		if (errno == ENOENT)
			return scxpol_err(ENOENT, "%s: no hint", what);
		return scxpol_err(errno, "%s: cannot read %s/%s: %s", what, c->root, scxpol_hint_maps[m].name,
				  strerror(errno));
	}
	return 0;
}

static int map_clear(struct scxpol_hint_client *c, int m, const void *key, const char *what)
{
	if (bpf_map_delete_elem(c->fd[m], key)) {
		if (errno == ENOENT)
			return scxpol_err(ENOENT, "%s: no hint to clear", what);
		return scxpol_err(errno, "%s: cannot delete from %s/%s: %s", what, c->root,
				  scxpol_hint_maps[m].name, strerror(errno));
	}
	scxpol_hint__bump(c->gen);
	return 0;
}

int scxpol_hint_cgroup_id(const char *path, uint64_t *id)
{
	SCXPOL_NONNULL(id, "output id");
	unsigned long long v;
	int r;

	scxpol_err_clear();
	r = scxpol_cgroup_id(path, &v);
	if (!r)
		*id = v;
	return r;
}

int scxpol_proc_status_tgid(const char *text, pid_t *tgid)
{
	const char *p = text;
	long long v = 0;

	/* a field line starts the text or follows a newline; the name field is escaped */
	while (strncmp(p, "Tgid:", 5)) {
		p = strchr(p, '\n');
		if (!p)
			return -EINVAL;
		p++;
	}
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -EINVAL;
	}
	if ((*p && *p != '\n') || !v)
		return -EINVAL;
	*tgid = (pid_t)v;
	return 0;
}

/* The thread group of task @tid per /proc (0: no such task, or /proc hides it). */
static pid_t task_tgid(pid_t tid)
{
	char path[64], buf[4096];
	pid_t tgid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (scxpol_read_file(NULL, path, buf, sizeof(buf)) < 0 ||
	    scxpol_proc_status_tgid(buf, &tgid))
		return 0;
	return tgid;
}

int scxpol_hint__task_ino(int m, pid_t id, __u64 *ino)
{
	struct statfs sfs;
	struct stat st;
	int fd, r = 0;

	fd = pidfd_open(id, m == M_TID ? PIDFD_THREAD : 0);
	/* a thread's id as a process's: EINVAL before Linux 6.13 or so, ENOENT since */
	if (fd < 0 && m == M_TGID && errno == ENOENT)
		return -EINVAL;
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) || fstat(fd, &st))
		r = -errno;
	else if (sfs.f_type != PIDFS_MAGIC)
		r = -EOPNOTSUPP; /* an anonymous inode, the same for every task */
	else
		*ino = st.st_ino;
	close(fd);
	return r;
}

const char *scxpol_hint__ino_err(int r)
{
	switch (r) {
	case -ENOSYS:
		return "pidfd_open() is not offered (ENOSYS): it needs Linux 5.3 or later, and a "
		       "tool this process runs under may not know it (valgrind 3.19 does not)";
	case -EOPNOTSUPP:
		return "a pidfd's inode does not name its task without pidfs (Linux 6.9 or later)";
	case -EINVAL:
		return "pidfd_open() refused PIDFD_THREAD (Linux 6.9 or later)";
	default:
		return strerror(-r);
	}
}

bool scxpol_hint__in_init_ns(const char *ns, unsigned int ino)
{
	struct stat st;

	return !stat(ns, &st) && st.st_ino == ino;
}

/*
 * @what for @id of map @m; with @ino, after checking that the task exists,
 * its identity in *@ino.
 */
static int task_target(int m, pid_t id, __u64 *ino, char *what, size_t len)
{
	const char *kind = m == M_TGID ? "tgid" : "tid";
	struct stat st;
	pid_t tgid;
	int r;

	snprintf(what, len, "%s %d", kind, (int)id);
	if (id <= 0)
		return scxpol_err(EINVAL, "%s: not a %s", what, m == M_TGID ? "process id" : "thread id");
	/* in a container the same number is another task of the host's */
	if (stat("/proc/self/ns/pid", &st))
		return scxpol_err(errno, "%s: cannot tell this process's PID namespace "
				  "(/proc/self/ns/pid: %s)", what, strerror(errno));
	if (st.st_ino != PROC_PID_INIT_INO)
		return scxpol_err(EOPNOTSUPP, "%s: task hints need the initial PID namespace (the "
				  "policy sees ids of that namespace, this process is in another)",
				  what);
	if (!ino)
		return 0;
	/* what is written names this task: its id may be another's by the time it is read */
	r = scxpol_hint__task_ino(m, id, ino);
	if (r == -ESRCH)
		return scxpol_err(ESRCH, "%s: no such %s (ids are those of the initial PID "
				  "namespace)", what, m == M_TGID ? "process" : "thread");
	if (r == -EINVAL && m == M_TGID) {
		/* 0: /proc hides it (hidepid=) */
		tgid = task_tgid(id);
		if (tgid)
			return scxpol_err(ESRCH, "%s: a thread of process %d, not a process", what,
					  (int)tgid);
		return scxpol_err(ESRCH, "%s: a thread, not a process", what);
	}
	if (r)
		return scxpol_err(r == -EINVAL ? EOPNOTSUPP : -r, "%s: a hint names its task by its "
				  "pidfd's inode, as ids are reused: %s", what,
				  scxpol_hint__ino_err(r));
	return 0;
}

static int task_set(struct scxpol_hint_client *c, int m, pid_t id, const struct scxpol_hint *h)
{
	char what[64];
	__u32 key = (__u32)id;
	__u64 ino;
	int r;

	scxpol_err_clear();
	r = task_target(m, id, &ino, what, sizeof(what));
	return r ? r : map_set(c, m, &key, what, h, ino);
}

/* The hint of task @id: only one set for this task, not for an earlier one with its id. */
static int task_get(struct scxpol_hint_client *c, int m, pid_t id, struct scxpol_hint *out)
{
	struct scxpol_hint_task t;
	char what[64];
	__u32 key = (__u32)id;
	__u64 ino = 0;
	int r;

	scxpol_err_clear();
	r = task_target(m, id, NULL, what, sizeof(what));
	if (r)
		return r;
	if (!out)
		return scxpol_err(EINVAL, "%s: output hint is NULL", what);
	if (bpf_map_lookup_elem(c->fd[m], &key, &t)) {
		if (errno == ENOENT)
			return scxpol_err(ENOENT, "%s: no hint", what);
		return scxpol_err(errno, "%s: cannot read %s/%s: %s", what, c->root,
				  scxpol_hint_maps[m].name, strerror(errno));
	}
	r = scxpol_hint__task_ino(m, id, &ino);
	if (r && r != -ESRCH && !(r == -EINVAL && m == M_TGID))
		return task_target(m, id, &ino, what, sizeof(what));
	if (r || ino != t.pid_ino)
		return scxpol_err(ENOENT, "%s: no hint (the entry for this id is of a %s that is "
				  "gone; the prune removes it)", what,
				  m == M_TGID ? "process" : "thread");
	*out = t.hint;
	return 0;
}

static int task_clear(struct scxpol_hint_client *c, int m, pid_t id)
{
	char what[64];
	__u32 key = (__u32)id;
	int r;

	scxpol_err_clear();
	r = task_target(m, id, NULL, what, sizeof(what));
	return r ? r : map_clear(c, m, &key, what);
}

/*
 * Check @id of @kind and describe it in @what; task ids are checked further
 * by task_target().
 */
static int hint_target(enum scxpol_hint_kind kind, uint64_t id, char *what, size_t len)
{
	unsigned long long v = id;

	switch (kind) {
	case SCXPOL_HINT_CGROUP:
		snprintf(what, len, "cgroup id %llu", v);
		return v ? 0 : scxpol_err(EINVAL, "%s: not a cgroup id", what);
	case SCXPOL_HINT_TGID:
	case SCXPOL_HINT_TID:
		snprintf(what, len, "%s %lld", kind == SCXPOL_HINT_TGID ? "tgid" : "tid",
			 (long long)v);
		if (!v || v > INT_MAX)
			return scxpol_err(EINVAL, "%s: not a %s id", what,
					  kind == SCXPOL_HINT_TGID ? "process" : "thread");
		return 0;
	}
	snprintf(what, len, "hint kind %d", (int)kind);
	return scxpol_err(EINVAL, "%s: unknown (SCXPOL_HINT_CGROUP, _TGID or _TID)", what);
}

enum hint_op { OP_SET, OP_GET, OP_CLEAR };

/* @op on the hint of @id of @kind: @in is what a set writes, @out where a get reads into. */
static int hint_op(struct scxpol_hint_client *c, enum hint_op op, enum scxpol_hint_kind kind,
		   uint64_t id, const struct scxpol_hint *in, struct scxpol_hint *out)
{
	char what[64];
	__u64 key = id;
	int m, r;

	scxpol_err_clear();
	r = hint_target(kind, id, what, sizeof(what));
	if (r)
		return r;
	if (kind == SCXPOL_HINT_CGROUP)
		return op == OP_SET ? map_set(c, M_CGRP, &key, what, in, 0)
		       : op == OP_GET ? map_get(c, M_CGRP, &key, what, out)
				      : map_clear(c, M_CGRP, &key, what);
	m = kind == SCXPOL_HINT_TGID ? M_TGID : M_TID;
	return op == OP_SET ? task_set(c, m, (pid_t)id, in)
	       : op == OP_GET ? task_get(c, m, (pid_t)id, out)
			      : task_clear(c, m, (pid_t)id);
}

int scxpol_hint_set(struct scxpol_hint_client *c, enum scxpol_hint_kind kind, uint64_t id,
		    const struct scxpol_hint *h)
{
	SCXPOL_NONNULL(c, "hint client");
	return hint_op(c, OP_SET, kind, id, h, NULL);
}

int scxpol_hint_get(struct scxpol_hint_client *c, enum scxpol_hint_kind kind, uint64_t id,
		    struct scxpol_hint *out)
{
	SCXPOL_NONNULL(c, "hint client");
	return hint_op(c, OP_GET, kind, id, NULL, out);
}

int scxpol_hint_clear(struct scxpol_hint_client *c, enum scxpol_hint_kind kind, uint64_t id)
{
	SCXPOL_NONNULL(c, "hint client");
	return hint_op(c, OP_CLEAR, kind, id, NULL, NULL);
}

int scxpol_hint_get_meta(struct scxpol_hint_client *c, struct scxpol_hint_meta *out)
{
	SCXPOL_NONNULL(c, "hint client");
	SCXPOL_NONNULL(out, "output");
	__u32 zero = 0;

	scxpol_err_clear();
	if (bpf_map_lookup_elem(c->fd[M_META], &zero, out))
		return scxpol_err(errno, "cannot read %s/%s: %s", c->root, scxpol_hint_maps[M_META].name,
				  strerror(errno));
	return 0;
}
