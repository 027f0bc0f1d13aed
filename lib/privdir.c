// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Private directories: where the library puts files that others must not
 * replace (pinned maps, the stats socket and its lock). A directory is
 * private when it and every directory above it are owned by root or by
 * this process's user and writable by no one else; a directory above it
 * may be writable by all if sticky (/tmp, a bpffs mounted without mode=).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * One directory of the path, @path (@st its lstat() or fstat()). Not
 * sticky_ok for the directory itself: in a sticky directory anyone may
 * still create the files first.
 */
static int check_level(const char *kind, const char *what, const char *dir, const char *path,
		       const struct stat *st, bool sticky_ok)
{
	if (!S_ISDIR(st->st_mode))
		return scxpol_err(ENOTDIR, "%s %s: %s is not a directory (a symbolic link?)", kind,
				  dir, path);
	if (st->st_uid && st->st_uid != geteuid())
		return scxpol_err(EPERM, "%s %s: %s belongs to uid %u, not to root or this user: "
				  "its owner could replace %s", kind, dir, path,
				  (unsigned int)st->st_uid, what);
	if ((st->st_mode & 022) && !(sticky_ok && (st->st_mode & S_ISVTX)))
		return scxpol_err(EPERM, "%s %s: %s is writable by %s (mode %04o): they could "
				  "replace %s", kind, dir, path,
				  (st->st_mode & 002) ? "everyone" : "its group",
				  (unsigned int)(st->st_mode & 07777), what);
	return 0;
}

static int check_path_level(const char *kind, const char *what, const char *dir, const char *path,
			    bool sticky_ok)
{
	struct stat st;

	if (lstat(path, &st))
		return scxpol_err(errno, "%s %s: %s: %s", kind, dir, path, strerror(errno));
	return check_level(kind, what, dir, path, &st, sticky_ok);
}

int scxpol_privdir_check(const char *kind, const char *what, const char *dir)
{
	char given[PATH_MAX], parent[PATH_MAX], leaf[NAME_MAX + 1];
	char path[PATH_MAX + NAME_MAX + 2], *slash;
	size_t len = strlen(dir);
	int r;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(given))
		return scxpol_err(ENAMETOOLONG, "%s path too long: %s", kind, dir);
	memcpy(given, dir, len);
	given[len] = '\0';
	/* "/" itself, "name" (in the working directory), or "above/name" */
	slash = strrchr(given, '/');
	if (snprintf(leaf, sizeof(leaf), "%s", slash ? slash + 1 : given) >= (int)sizeof(leaf))
		return scxpol_err(ENAMETOOLONG, "%s %s: its name is too long", kind, dir);
	if (!slash)
		snprintf(given, sizeof(given), ".");
	else if (slash == given)
		given[1] = '\0';
	else
		*slash = '\0';
	if (!realpath(given, parent))
		return scxpol_err(errno, "%s %s: %s: %s", kind, dir, given, strerror(errno));
	snprintf(path, sizeof(path), "%s/%s", strcmp(parent, "/") ? parent : "", leaf);
	r = check_path_level(kind, what, dir, leaf[0] ? path : "/", false);
	while (!r && strcmp(parent, "/")) {
		r = check_path_level(kind, what, dir, parent, true);
		slash = strrchr(parent, '/');
		slash[slash == parent] = '\0';
	}
	return r ? r : check_path_level(kind, what, dir, "/", true);
}

int scxpol_privdir_check_fd(const char *kind, const char *what, const char *dir, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return scxpol_err(errno, "%s %s: %s", kind, dir, strerror(errno));
	return check_level(kind, what, dir, dir, &st, false);
}
