// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Hints: counting the entries of the pinned maps, and pruning those of
 * tasks and cgroups that are gone (<scxpol/hint.h>).
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "hint_client.h"
#include "internal.h"
#include "scxpol/sched.h"

static int cmp_key(const void *a, const void *b, void *ksz)
{
	return memcmp(a, b, *(const size_t *)ksz);
}

/* All keys of hash map @m (@ksz bytes each) into a new array; count in *@n. */
static int map_keys(struct scxpol_hint_client *c, int m, size_t ksz, void **out, size_t *n)
{
	size_t cap = 64, cnt = 0, i, j;
	unsigned char *keys = malloc(cap * ksz), *tmp;
	__u64 cur, next;
	void *prev = NULL;

	if (!keys)
		return scxpol_err(ENOMEM, "out of memory");
	while (!bpf_map_get_next_key(c->fd[m], prev, &next)) {
		if (cnt == cap) {
			tmp = realloc(keys, cap * 2 * ksz);
			if (!tmp) {
				free(keys);
				return scxpol_err(ENOMEM, "out of memory");
			}
			keys = tmp;
			cap *= 2;
		}
		memcpy(keys + cnt * ksz, &next, ksz);
		cnt++;
		memcpy(&cur, &next, sizeof(cur));
		prev = &cur;
	}
	if (errno != ENOENT) {
		int e = errno;

		free(keys);
		return scxpol_err(e, "cannot walk %s/%s: %s", c->root, scxpol_hint_maps[m].name, strerror(e));
	}
	/* the BPF side deletes entries of exiting tasks: the walk then restarts at the first key */
	qsort_r(keys, cnt, ksz, cmp_key, &ksz);
	for (i = j = 0; i < cnt; i++)
		if (!j || memcmp(keys + (j - 1) * ksz, keys + i * ksz, ksz))
			memmove(keys + j++ * ksz, keys + i * ksz, ksz);
	*out = keys;
	*n = j;
	return 0;
}

int scxpol_hint_count(struct scxpol_hint_client *c, struct scxpol_hint_counts *out)
{
	SCXPOL_NONNULL(c, "hint client");
	SCXPOL_NONNULL(out, "output");
	static const int hashes[] = { M_CGRP, M_TGID, M_TID };
	unsigned int *cnt[] = { &out->cgroups, &out->tgids, &out->tids };
	size_t n, i;
	void *keys;
	int r;

	scxpol_err_clear();
	memset(out, 0, sizeof(*out));
	for (i = 0; i < ARRAY_SIZE(hashes); i++) {
		r = map_keys(c, hashes[i], scxpol_hint_maps[hashes[i]].key_size, &keys, &n);
		if (r)
			return r;
		free(keys);
		*cnt[i] = (unsigned int)n;
	}
	r = scxpol_hint__map_slots(c);
	if (r)
		return r;
	for (i = 0; i < c->max_entries[M_SLOTS]; i++)
		if (__atomic_load_n(&c->slots[i].tid, __ATOMIC_RELAXED))
			out->threads++;
	out->max_cgroups = c->max_entries[M_CGRP];
	out->max_tgids = c->max_entries[M_TGID];
	out->max_tids = c->max_entries[M_TID];
	out->nr_slots = c->max_entries[M_SLOTS];
	return 0;
}

struct idset {
	__u64 *ids;
	size_t n, cap;
};

static int idset_add(struct idset *s, __u64 id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		__u64 *p = realloc(s->ids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->ids = p;
		s->cap = cap;
	}
	s->ids[s->n++] = id;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Add the inode numbers of directory @fd and every directory below it. */
static int walk_cgroups(int fd, const char *path, struct idset *live, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (fstat(fd, &st)) {
		r = errno;
		close(fd);
		return scxpol_err(r, "cannot read cgroup %s: %s", path, strerror(r));
	}
	if (idset_add(live, st.st_ino)) {
		close(fd);
		return scxpol_err(ENOMEM, "out of memory");
	}
	if (depth > 256) {
		close(fd);
		return scxpol_err(ELOOP, "cgroup %s: the tree is deeper than 256 levels", path);
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return scxpol_err(errno, "cannot list cgroup %s: %s", path, strerror(errno));
	}
	while (!r && (de = readdir(d))) {
		char sub[PATH_MAX];
		int cfd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (cfd < 0) {
			if (errno == ENOENT) /* removed while we walk */
				continue;
			r = scxpol_err(errno, "cannot open cgroup %s: %s", sub, strerror(errno));
			break;
		}
		r = walk_cgroups(cfd, sub, live, depth + 1);
	}
	closedir(d);
	return r;
}

/* Field @f (@n bytes) of a mountinfo line into @out, decoding its \ooo escapes. */
static int mountinfo_unescape(const char *f, size_t n, char *out, size_t len)
{
	size_t i, o = 0;

	if (!len)
		return -ENAMETOOLONG;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)f[i];

		if (c == '\\' && i + 3 < n && f[i + 1] >= '0' && f[i + 1] <= '3' &&
		    f[i + 2] >= '0' && f[i + 2] <= '7' && f[i + 3] >= '0' && f[i + 3] <= '7') {
			c = (unsigned char)((f[i + 1] - '0') << 6 | (f[i + 2] - '0') << 3 |
					    (f[i + 3] - '0'));
			i += 3;
			if (!c)
				return -EINVAL;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

int scxpol_mountinfo_cgroup2(const char *line, char *mnt, size_t len)
{
	/* id parent major:minor root mount-point options [optional...] - type source opts */
	const char *p = line, *root = NULL, *point = NULL;
	size_t root_len = 0, point_len = 0;
	bool dash = false;
	int field = 0;

	while (*p && *p != '\n') {
		const char *start = p;
		size_t n;

		while (*p && *p != ' ' && *p != '\n')
			p++;
		n = (size_t)(p - start);
		if (field == 3) {
			root = start;
			root_len = n;
		} else if (field == 4) {
			point = start;
			point_len = n;
		} else if (field >= 6 && dash) {
			if (n != 7 || memcmp(start, "cgroup2", 7) || root_len != 1 || *root != '/')
				return 0;
			return mountinfo_unescape(point, point_len, mnt, len) ?: 1;
		} else if (field >= 6 && n == 1 && *start == '-') {
			dash = true;
		}
		field++;
		/* one space ends a field: an empty field is still one */
		if (*p == ' ')
			p++;
	}
	return 0;
}

/* Mount point of the cgroup2 hierarchy's root into @buf. */
static int cgroup2_root(char *buf, size_t len)
{
	char line[PATH_MAX * 2];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return scxpol_err(errno, "cannot read /proc/self/mountinfo: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		found = scxpol_mountinfo_cgroup2(line, buf, len);
		if (found < 0) {
			fclose(f);
			return scxpol_err(-found, "/proc/self/mountinfo: cannot use the cgroup2 mount "
					  "point in line '%.200s': %s", line, strerror(-found));
		}
	}
	fclose(f);
	if (!found)
		return scxpol_err(ENOENT, "no cgroup2 file system mounted at its root (see "
				  "/proc/self/mountinfo): cannot tell which cgroups exist");
	return 0;
}

static int prune_cgroups(struct scxpol_hint_client *c, unsigned int *removed)
{
	struct idset live = { 0 };
	char root[PATH_MAX];
	__u64 *keys;
	size_t n, i;
	void *k;
	int r, fd;

	/* keys first: a cgroup created after the walk cannot be in the snapshot */
	r = map_keys(c, M_CGRP, sizeof(__u64), &k, &n);
	if (r || !n) {
		if (!r)
			free(k);
		return r;
	}
	keys = k;
	r = cgroup2_root(root, sizeof(root));
	if (r)
		goto out;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = scxpol_err(errno, "cannot open %s: %s", root, strerror(errno));
		goto out;
	}
	r = walk_cgroups(fd, root, &live, 0);
	if (r)
		goto out;
	qsort(live.ids, live.n, sizeof(*live.ids), cmp_u64);
	for (i = 0; i < n; i++) {
		if (bsearch(&keys[i], live.ids, live.n, sizeof(*live.ids), cmp_u64))
			continue;
		if (!bpf_map_delete_elem(c->fd[M_CGRP], &keys[i]))
			(*removed)++;
	}
out:
	free(live.ids);
	free(keys);
	return r;
}

/* Whether task @tid exists (kill(0): /proc may hide it). */
static bool task_alive(pid_t tid)
{
	/* not /proc, which hidepid= hides other users' tasks in; EPERM: it exists */
	return !kill(tid, 0) || errno == EPERM;
}

/*
 * Whether an entry for task @id set for the task of identity @ino is stale:
 * no such task now, or another one has the id (for a process: or it is a
 * thread's now). 1, 0, or a negative errno when it cannot tell.
 */
static int task_stale(int m, pid_t id, __u64 ino)
{
	__u64 now;
	int r = scxpol_hint__task_ino(m, id, &now);

	if (r == -ESRCH || (r == -EINVAL && m == M_TGID))
		return 1;
	return r ? r : now != ino;
}

/* The error of telling the tasks of map @m apart (task_stale()'s @r), with a message. */
static int stale_err(const struct scxpol_hint_client *c, int m, int r)
{
	return scxpol_err(-r, "cannot tell the tasks of %s/%s from earlier ones with their ids: "
			  "%s", c->root, scxpol_hint_maps[m].name, scxpol_hint__ino_err(r));
}

static int prune_tasks(struct scxpol_hint_client *c, int m, unsigned int *removed)
{
	struct scxpol_hint_task t, now;
	__u32 *keys;
	size_t n, i;
	void *k;
	int r, err = 0;

	r = map_keys(c, m, sizeof(__u32), &k, &n);
	if (r)
		return r;
	keys = k;
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(c->fd[m], &keys[i], &t))
			continue; /* gone meanwhile */
		r = task_stale(m, (pid_t)keys[i], t.pid_ino);
		if (r < 0 && !err)
			err = r;
		/* not if written again meanwhile, for the task that has the id now */
		if (r > 0 && !bpf_map_lookup_elem(c->fd[m], &keys[i], &now) &&
		    now.pid_ino == t.pid_ino && !bpf_map_delete_elem(c->fd[m], &keys[i]))
			(*removed)++;
	}
	free(keys);
	return err ? stale_err(c, m, err) : 0;
}

static int prune_slots(struct scxpol_hint_client *c, unsigned int *removed)
{
	__u32 *keys, n_slots = c->max_entries[M_SLOTS], i;
	size_t n, j;
	void *k;
	int r, err = 0;

	r = scxpol_hint__map_slots(c);
	if (r)
		return r;
	r = map_keys(c, M_SLOT_IDX, sizeof(__u32), &k, &n);
	if (r)
		return r;
	keys = k;
	for (j = 0; j < n; j++) {
		struct scxpol_hint_slot *sl = NULL;
		__u64 ino = 0;
		__u32 idx;

		if (bpf_map_lookup_elem(c->fd[M_SLOT_IDX], &keys[j], &idx))
			continue;
		if (idx < n_slots && __atomic_load_n(&c->slots[idx].tid, __ATOMIC_ACQUIRE) == keys[j]) {
			sl = &c->slots[idx];
			ino = __atomic_load_n(&sl->pid_ino, __ATOMIC_ACQUIRE);
		}
		/* an index entry whose slot went to another thread: only once its thread is gone */
		r = sl ? task_stale(M_TID, (pid_t)keys[j], ino)
		       : !task_alive((pid_t)keys[j]);
		if (r < 0 && !err)
			err = r;
		if (r <= 0)
			continue;
		if (sl)
			scxpol_hint__slot_release(sl, keys[j], ino);
		if (!bpf_map_delete_elem(c->fd[M_SLOT_IDX], &keys[j]))
			(*removed)++;
	}
	free(keys);
	/* slots of gone threads whose index entry is gone already */
	for (i = 0; i < n_slots; i++) {
		__u32 tid = __atomic_load_n(&c->slots[i].tid, __ATOMIC_ACQUIRE);
		__u64 ino = __atomic_load_n(&c->slots[i].pid_ino, __ATOMIC_ACQUIRE);

		if (!tid)
			continue;
		r = task_stale(M_TID, (pid_t)tid, ino);
		if (r < 0 && !err)
			err = r;
		if (r > 0 && scxpol_hint__slot_release(&c->slots[i], tid, ino))
			(*removed)++;
	}
	return err ? stale_err(c, M_SLOTS, err) : 0;
}

/* Note step result @r in *@first, with its message in @msg, unless an earlier step failed. */
static void note_first(int *first, int r, char *msg, size_t len)
{
	if (r && !*first) {
		*first = r;
		snprintf(msg, len, "%s", scxpol_last_error());
	}
}

int scxpol_hint_prune(struct scxpol_hint_client *c, unsigned int *removed)
{
	SCXPOL_NONNULL(c, "hint client");
	char msg[512] = "";
	unsigned int n = 0;
	int r = 0;

	scxpol_err_clear();
	if (!scxpol_hint__in_init_ns("/proc/self/ns/pid", PROC_PID_INIT_INO) ||
	    !scxpol_hint__in_init_ns("/proc/self/ns/cgroup", PROC_CGROUP_INIT_INO))
		return scxpol_err(EOPNOTSUPP, "hint prune needs the initial PID and cgroup "
				  "namespaces: from inside a container it would see other ids "
				  "and remove live entries");
	/* each kind on its own: an unreadable cgroup tree leaves dead tasks to prune */
	note_first(&r, prune_cgroups(c, &n), msg, sizeof(msg));
	note_first(&r, prune_tasks(c, M_TGID, &n), msg, sizeof(msg));
	note_first(&r, prune_tasks(c, M_TID, &n), msg, sizeof(msg));
	note_first(&r, prune_slots(c, &n), msg, sizeof(msg));
	if (n)
		scxpol_hint__bump(c->gen);
	if (removed)
		*removed = n;
	return r ? scxpol_err_quiet(-r, "%s", msg) : 0;
}

int scxpol_hint_prune_policy(struct scxpol_sched *s, unsigned int *removed)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, co, .pin_root = scxpol_sched_pin_root(s));
	struct scxpol_hint_client *c;
	int r;

	*removed = 0;
	c = scxpol_hint_client_open(scxpol_sched_name(s), &co);
	if (!c)
		return -errno;
	r = scxpol_hint_prune(c, removed);
	scxpol_hint_client_close(c);
	return r;
}
