// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Hints: pins of an older layout (SCXPOL_HINT_LAYOUT in <scxpol/abi/hint.h>).
 * Before the load, a pinned map whose shape is a known older one moves into
 * <pin root>/layout-N/ (bpffs allows no dot in a name), where it stays if
 * the load fails (the next start resumes from there); libbpf creates and
 * pins the new map; after the load the entries that can be carried go into
 * it and the old pin is removed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hint_client.h"
#include "internal.h"
#include "scxpol/sched.h"

enum carry {
	CARRY_TASK,   /* struct scxpol_hint -> struct scxpol_hint_task of the live task */
	CARRY_SLOTS,  /* registered threads keep writing the old slot they mapped: none */
	CARRY_LOADER, /* the limits: the loader writes them anew */
};

/*
 * A map's shape in an older layout: the last layout it had it in, and what
 * becomes of its entries. A layout change adds rows here. @with: a map
 * whose entries point into this one, moved aside (and emptied) with it.
 */
static const struct old_shape {
	int map;
	unsigned int layout;
	__u32 type, key_size, value_size, flags; /* flags: of CHECKED_FLAGS */
	enum carry carry;
	int with;
} old_shapes[] = {
	/* layout 1: task hints and slots without pid_ino; limits and generation in one map */
	{ M_TGID, 1, BPF_MAP_TYPE_HASH, 4, 16, 0, CARRY_TASK, -1 },
	{ M_TID, 1, BPF_MAP_TYPE_HASH, 4, 16, 0, CARRY_TASK, -1 },
	{ M_SLOTS, 1, BPF_MAP_TYPE_ARRAY, 4, 16, BPF_F_MMAPABLE, CARRY_SLOTS, M_SLOT_IDX },
	{ M_META, 1, BPF_MAP_TYPE_ARRAY, 4, 24, BPF_F_MMAPABLE, CARRY_LOADER, -1 },
};

static void side_path(char *buf, size_t len, const char *root, unsigned int layout, int m)
{
	snprintf(buf, len, "%s/layout-%u%s%s", root, layout, m < 0 ? "" : "/",
		 m < 0 ? "" : scxpol_hint_maps[m].name);
}

/* The row of old_shapes for map @m whose shape is @info's, or NULL. */
static const struct old_shape *shape_of(int m, const struct bpf_map_info *info)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(old_shapes); i++) {
		const struct old_shape *o = &old_shapes[i];

		if (o->map == m && o->type == info->type && o->key_size == info->key_size &&
		    o->value_size == info->value_size &&
		    o->flags == (info->map_flags & CHECKED_FLAGS))
			return o;
	}
	return NULL;
}

/*
 * The row of old_shapes that map @m goes aside with: of layout @layout, or
 * (@layout 0) of the layout @move[] moves its map aside for now; or NULL.
 */
static const struct old_shape *owner_of(int m, unsigned int layout, const unsigned int *move)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(old_shapes); i++) {
		const struct old_shape *o = &old_shapes[i];

		if (o->with == m && (layout ? o->layout == layout : move[o->map] == o->layout))
			return o;
	}
	return NULL;
}

static int map_info(int fd, const char *path, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, len);
	if (bpf_map_get_info_by_fd(fd, info, &len))
		return scxpol_err(errno, "cannot query map %s: %s", path, strerror(errno));
	return 0;
}

/* The layout under @root in whose side directory map @m has a pin (0: none); its size. */
static unsigned int aside_of(const char *root, int m, __u32 *max_entries)
{
	struct bpf_map_info info;
	char path[PATH_MAX];
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(old_shapes); i++) {
		const struct old_shape *o = &old_shapes[i];

		if (o->map != m && o->with != m)
			continue;
		side_path(path, sizeof(path), root, o->layout, m);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		if (map_info(fd, path, &info))
			info.max_entries = 0;
		close(fd);
		*max_entries = info.max_entries;
		return o->layout;
	}
	return 0;
}

int scxpol_hint__layout_find(const char *root, int m, int fd, unsigned int move[M_NR],
			     bool *carry, __u32 *max_entries)
{
	const struct old_shape *o;
	struct bpf_map_info info;
	char path[PATH_MAX], side[PATH_MAX];
	unsigned int aside;
	__u32 side_max = 0;
	int r;

	aside = aside_of(root, m, &side_max);
	if (fd < 0) {
		if (!aside)
			return 0;
		/* an earlier start moved it, and its load failed: resume */
		*carry = true;
		*max_entries = side_max;
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", root, scxpol_hint_maps[m].name);
	r = map_info(fd, path, &info);
	if (r)
		return r;
	/* or pointing into a map that moves now: it goes too */
	o = shape_of(m, &info);
	if (!o)
		o = owner_of(m, 0, move);
	if (!o) {
		/* current (or unknown: the caller's check says so); an earlier load carries now */
		*carry |= aside != 0;
		return 0;
	}
	if (aside) {
		side_path(side, sizeof(side), root, aside, m);
		return scxpol_err(EEXIST, "%s is of hint layout %u and %s exists too (an upgrade "
				  "was interrupted, and an older build started since?): remove the "
				  "one whose hints are not to be kept", path, o->layout, side);
	}
	move[m] = o->layout;
	*carry = true;
	*max_entries = info.max_entries;
	return 1;
}

int scxpol_hint__layout_move(const char *root, const char *who, const unsigned int move[M_NR])
{
	char from[PATH_MAX], to[PATH_MAX];
	int m, r;

	for (m = 0; m < M_NR && !move[m]; m++)
		;
	if (m == M_NR)
		return 0;
	/* as the load would, before changing anything in it */
	r = scxpol_privdir_check("pin directory", "the pins", root);
	if (r)
		return r;
	for (m = 0; m < M_NR; m++) {
		if (!move[m])
			continue;
		snprintf(from, sizeof(from), "%s/%s", root, scxpol_hint_maps[m].name);
		side_path(to, sizeof(to), root, move[m], -1);
		if (mkdir(to, 0700) && errno != EEXIST)
			return scxpol_err(errno, "cannot create %s for the pins of hint layout %u: %s",
					  to, move[m], strerror(errno));
		side_path(to, sizeof(to), root, move[m], m);
		if (rename(from, to))
			return scxpol_err(errno, "cannot move %s to %s: %s", from, to,
					  strerror(errno));
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: %s is of layout %u (this libscxpol's is %u): "
			   "moved to %s until the load, which replaces it", who,
			   scxpol_hint_maps[m].name, move[m], SCXPOL_HINT_LAYOUT, to);
	}
	return 0;
}

/* Entries of hash map @fd (keys of @ksz <= 8 bytes) into *@n. */
static int count_keys(int fd, size_t ksz, const char *path, unsigned int *n)
{
	__u64 cur = 0, next = 0;
	void *prev = NULL;

	*n = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		(*n)++;
		memcpy(&cur, &next, ksz);
		prev = &cur;
	}
	if (errno != ENOENT)
		return scxpol_err(errno, "cannot walk %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The tgid or tid hints of @old into @new, each for the live task that has
 * its id now (*@kept), or dropped if none has (*@dropped). An entry for the
 * id that a writer put into @new since wins (*@newer).
 */
static int carry_tasks(int m, int old, int new, const char *path, unsigned int *kept,
		       unsigned int *dropped, unsigned int *newer)
{
	struct scxpol_hint_task t;
	__u32 key, cur = 0, *prev = NULL;
	int r;

	while (!bpf_map_get_next_key(old, prev, &key)) {
		cur = key;
		prev = &cur;
		if (bpf_map_lookup_elem(old, &key, &t.hint)) {
			if (errno == ENOENT)
				continue;
			return scxpol_err(errno, "cannot read %s: %s", path, strerror(errno));
		}
		r = scxpol_hint__task_ino(m, (pid_t)key, &t.pid_ino);
		/* no such task, or (a tgid) the id is a thread's now */
		if (r == -ESRCH || (r == -EINVAL && m == M_TGID)) {
			(*dropped)++;
			continue;
		}
		if (r)
			return scxpol_err(-r, "%s: cannot name the task of %s %u: %s", path,
					  m == M_TGID ? "tgid" : "tid", key, scxpol_hint__ino_err(r));
		if (!bpf_map_update_elem(new, &key, &t, BPF_NOEXIST)) {
			(*kept)++;
		} else if (errno == EEXIST) {
			(*newer)++;
		} else {
			r = errno;
			return scxpol_err(r, "cannot write %s %u into %s: %s%s", m == M_TGID ? "tgid" :
					  "tid", key, scxpol_hint_maps[m].name, strerror(r),
					  r == E2BIG || r == ENOMEM ? " (the map is full: raise the "
					  "policy's limit)" : "");
		}
	}
	if (errno != ENOENT)
		return scxpol_err(errno, "cannot walk %s: %s", path, strerror(errno));
	return 0;
}

/* The registered threads in the slots of @fd: 16-byte slots, the tid first. */
static int count_slots(int fd, const char *path, __u32 nr, unsigned int *n)
{
	__u32 i, slot[4];

	*n = 0;
	for (i = 0; i < nr; i++) {
		if (bpf_map_lookup_elem(fd, &i, slot))
			return scxpol_err(errno, "cannot read %s: %s", path, strerror(errno));
		*n += slot[0] != 0;
	}
	return 0;
}

/* Carry map @m's pin aside of layout @layout at @path into @new; log what became of it. */
static int carry_one(const char *who, int m, unsigned int layout, const char *path, int new)
{
	const struct old_shape *o, *owner = NULL;
	unsigned int kept = 0, dropped = 0, newer = 0;
	struct bpf_map_info info;
	int fd, r;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return scxpol_err(errno, "cannot open %s: %s", path, strerror(errno));
	r = map_info(fd, path, &info);
	o = r ? NULL : shape_of(m, &info);
	if (!r && (!o || o->layout != layout)) {
		owner = owner_of(m, layout, NULL);
		if (!owner)
			r = scxpol_err(EEXIST, "%s: map type %u, key %u bytes, value %u bytes, flags "
				       "0x%x: not the shape of %s in hint layout %u; remove it",
				       path, info.type, info.key_size, info.value_size,
				       info.map_flags, scxpol_hint_maps[m].name, layout);
	}
	if (!r && owner)
		r = count_keys(fd, info.key_size, path, &dropped);
	else if (!r && o->carry == CARRY_TASK)
		r = carry_tasks(m, fd, new, path, &kept, &dropped, &newer);
	else if (!r && o->carry == CARRY_SLOTS)
		r = count_slots(fd, path, info.max_entries, &dropped);
	close(fd);
	if (r)
		return r;
	if (owner)
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: %s of layout %u: 0 kept, %u dropped (they "
			   "indexed the old %s)", who, scxpol_hint_maps[m].name, layout, dropped,
			   scxpol_hint_maps[owner->map].name);
	else if (o->carry == CARRY_TASK)
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: %s of layout %u: %u kept, %u dropped (no "
			   "live %s has the id), %u replaced by newer ones; layout %u could not tell "
			   "a reused id, so a kept hint is now the live %s's that has the id",
			   who, scxpol_hint_maps[m].name, layout, kept, dropped,
			   m == M_TGID ? "process" : "thread", newer, layout,
			   m == M_TGID ? "process" : "thread");
	else if (o->carry == CARRY_SLOTS)
		scxpol_log(dropped ? SCXPOL_LOG_WARN : SCXPOL_LOG_INFO, "%s: hints: %s of layout %u: "
			   "0 kept, %u dropped (registered threads: each keeps writing the old "
			   "slot it mapped, and must register again)", who,
			   scxpol_hint_maps[m].name, layout, dropped);
	else
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: %s of layout %u: 0 kept, 0 dropped (the "
			   "loader wrote the limits anew)", who, scxpol_hint_maps[m].name, layout);
	if (unlink(path))
		return scxpol_err(errno, "cannot remove %s, carried over: %s", path, strerror(errno));
	return 0;
}

int scxpol_hint__layout_carry(const char *root, const char *who, const int fd[M_NR])
{
	char path[PATH_MAX];
	unsigned int layout;
	__u32 max;
	size_t i;
	int m, r;

	for (m = 0; m < M_NR; m++) {
		layout = aside_of(root, m, &max);
		if (!layout)
			continue;
		side_path(path, sizeof(path), root, layout, m);
		r = carry_one(who, m, layout, path, fd[m]);
		if (r)
			return r;
	}
	for (i = 0; i < ARRAY_SIZE(old_shapes); i++) {
		side_path(path, sizeof(path), root, old_shapes[i].layout, -1);
		if (rmdir(path) && errno != ENOENT)
			return scxpol_err(errno, "cannot remove %s, whose hints were carried over: "
					  "%s", path, strerror(errno));
	}
	return 0;
}
