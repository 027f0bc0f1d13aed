// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The pin directory of a policy's maps: where they are pinned, the
 * directory made before the load, and the mode and group of the
 * directory and pins after it (opts.pin_mode, opts.pin_gid).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched_internal.h"

static int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static unsigned int pin_mode(const struct scxpol_sched *s)
{
	return s->opts.pin_mode ? s->opts.pin_mode : 0600;
}

/* Point every map pinned BY_NAME at <pin_root>/<map name>. */
int scxpol_sched__setup_pins(struct scxpol_sched *s)
{
	struct bpf_map *map;
	char path[PATH_MAX];
	int r;

	bpf_object__for_each_map(map, s->obj) {
		if (!bpf_map__pin_path(map))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", s->pin_root, bpf_map__name(map)) >=
		    (int)sizeof(path))
			return scxpol_err(ENAMETOOLONG, "pin path too long: %s", s->pin_root);
		r = bpf_map__set_pin_path(map, path);
		if (r)
			return scxpol_err(-r, "cannot set pin path %s: %s", path, strerror(-r));
	}
	return 0;
}

/*
 * Before the load, if a map is pinned: make the pin directory and check
 * that no one but root or this user could replace the pins in it.
 */
int scxpol_sched__make_pin_dir(struct scxpol_sched *s)
{
	struct bpf_map *map;
	int r;

	bpf_object__for_each_map(map, s->obj) {
		if (!bpf_map__pin_path(map))
			continue;
		/*
		 * Parents traversable (not listable), so that a group
		 * given access with pin_gid can reach the pins;
		 * scxpol_sched__fix_pin_perms() sets the pin directory's own mode.
		 */
		r = mkdir_p(s->pin_root, 0711);
		if (r)
			return scxpol_err(-r, "cannot create pin directory %s: %s",
					  s->pin_root, strerror(-r));
		r = scxpol_privdir_check("pin directory", "the pins", s->pin_root);
		if (r)
			return r;
		break;
	}
	return 0;
}

unsigned int scxpol_pin_dir_mode(unsigned int mode)
{
	/*
	 * The owner may do anything; group and other only search (x) where the
	 * files grant them access: write permission on the directory would let
	 * them unlink or replace the pinned maps, read would let them list it.
	 */
	return 0700 | ((mode & 070) ? 010 : 0) | ((mode & 07) ? 01 : 0);
}

/*
 * After load: apply mode and group to the pin directory and files. A map
 * the programs may only read (BPF_F_RDONLY_PROG: limits, configuration)
 * is the loader's to write: its pin gets no write access for group and
 * others, who may read it.
 */
int scxpol_sched__fix_pin_perms(struct scxpol_sched *s)
{
	unsigned int mode = pin_mode(s), fmode;
	unsigned int dmode = scxpol_pin_dir_mode(mode);
	/* always set: a group an earlier run gave the reused pins is taken back */
	gid_t gid = s->opts.pin_gid > 0 ? (gid_t)s->opts.pin_gid : getegid();
	struct bpf_map *map;
	bool any = false;

	bpf_object__for_each_map(map, s->obj) {
		const char *path = bpf_map__pin_path(map);

		if (!path || !bpf_map__is_pinned(map))
			continue;
		any = true;
		fmode = bpf_map__map_flags(map) & BPF_F_RDONLY_PROG ? mode & ~022U : mode;
		if (chmod(path, fmode))
			return scxpol_err(errno, "chmod %o %s: %s", fmode, path, strerror(errno));
		if (chown(path, (uid_t)-1, gid))
			return scxpol_err(errno, "chown :%u %s: %s", gid, path, strerror(errno));
	}
	if (!any)
		return 0;
	if (chmod(s->pin_root, dmode))
		return scxpol_err(errno, "chmod %o %s: %s", dmode, s->pin_root, strerror(errno));
	if (chown(s->pin_root, (uid_t)-1, gid))
		return scxpol_err(errno, "chown :%u %s: %s", gid, s->pin_root, strerror(errno));
	return 0;
}
