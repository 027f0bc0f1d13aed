// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Logging, last-error buffer and small file helpers shared by the library. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "internal.h"

static scxpol_log_fn log_fn;
static void *log_ctx;
static enum scxpol_log_level log_max = SCXPOL_LOG_WARN;
static _Thread_local char last_error[512];

static void default_log(enum scxpol_log_level level, const char *msg, void *ctx)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	(void)ctx;
	fprintf(stderr, "libscxpol: %s: %s\n", names[level], msg);
}

void scxpol_log_set(scxpol_log_fn fn, enum scxpol_log_level max_level, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
	log_max = max_level;
}

char *scxpol_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
	char *msg = buf;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(buf, len, fmt, ap);
	if (n >= 0 && (size_t)n >= len) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, copy);
		else
			msg = buf; /* out of memory: the cut message beats none */
	}
	va_end(copy);
	return msg;
}

static void vlog(enum scxpol_log_level level, const char *fmt, va_list ap)
{
	char buf[1024], *msg;
	size_t n;

	if (level > log_max)
		return;
	msg = scxpol_vfmt(buf, sizeof(buf), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	(log_fn ? log_fn : default_log)(level, msg, log_ctx);
	if (msg != buf)
		free(msg);
}

void scxpol_log(enum scxpol_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static void set_error(const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(last_error, sizeof(last_error), fmt, copy);
	va_end(copy);
	vlog(SCXPOL_LOG_WARN, fmt, ap);
}

int scxpol_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(fmt, ap);
	va_end(ap);
	return -err;
}

void *scxpol_err_ptr(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(fmt, ap);
	va_end(ap);
	errno = err;
	return NULL;
}

int scxpol_err_quiet(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -err;
}

const char *scxpol_err_quote(const char *text, char *out, size_t len)
{
	size_t o = 0, i;

	for (i = 0; text[i] && o + 8 < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (i == 64) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

void scxpol_err_clear(void)
{
	last_error[0] = '\0';
}

const char *scxpol_last_error(void)
{
	return last_error;
}

const char *scxpol_version(void)
{
	return SCXPOL_STR(SCXPOL_VERSION_MAJOR) "." SCXPOL_STR(SCXPOL_VERSION_MINOR);
}

/* Open <root><path> read-only: the fd, or a negative errno. */
static int open_file(const char *root, const char *path)
{
	char full[4096];
	int r, fd;

	r = snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	if (r < 0 || (size_t)r >= sizeof(full))
		return -ENAMETOOLONG;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * read() until end of file or @len bytes: sysfs (bin attributes, seq files)
 * and procfs hand out at most a page per read(), so a short read is not the
 * end of the file.
 */
static ssize_t read_upto(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		ssize_t r = read(fd, buf + n, len - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

/* Drop trailing newlines and spaces from the @n bytes read, NUL-terminate. */
static int trim(char *buf, size_t n)
{
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int scxpol_read_file(const char *root, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open_file(root, path);
	if (fd < 0)
		return fd;
	n = read_upto(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	return trim(buf, (size_t)n);
}

int scxpol_read_file_all(const char *root, const char *path, char **buf, size_t *cap, size_t max)
{
	size_t n = 0;
	ssize_t r;
	char *nb;
	int fd;

	fd = open_file(root, path);
	if (fd < 0)
		return fd;
	for (;;) {
		r = read_upto(fd, *buf + n, *cap - 1 - n);
		if (r < 0)
			break;
		n += (size_t)r;
		/* room left: read_upto() stopped at the end of the file */
		if (n < *cap - 1)
			break;
		r = -EFBIG;
		if (*cap >= max)
			break;
		r = -ENOMEM;
		nb = realloc(*buf, *cap * 2);
		if (!nb)
			break;
		*buf = nb;
		*cap *= 2;
	}
	close(fd);
	if (r < 0)
		return (int)r;
	return trim(*buf, n);
}

bool scxpol_opts_valid(const void *opts, size_t known_sz, const char *type)
{
	const unsigned char *p = opts;
	size_t sz = *(const size_t *)opts, i;

	if (sz < sizeof(size_t))
		return scxpol_err(EINVAL, "%s: sz is %zu; set it to sizeof(struct %s)",
				  type, sz, type), false;
	for (i = known_sz; i < sz; i++)
		if (p[i])
			return scxpol_err(EINVAL, "%s: caller's struct has non-zero fields this "
					  "libscxpol (%s) does not know (byte %zu)",
					  type, scxpol_version(), i), false;
	return true;
}

/* scxpol_cgroup_id() with @err for its message: logged or not. */
static int cgroup_id(const char *path, unsigned long long *id,
		     int (*err)(int, const char *, ...))
{
	struct statfs sfs;
	struct stat st;

	if (!path)
		return err(EINVAL, "cgroup path is NULL");
	if (stat(path, &st))
		return err(errno, "cgroup '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err(ENOTDIR, "cgroup '%s': not a directory", path);
	if (statfs(path, &sfs))
		return err(errno, "cgroup '%s': %s", path, strerror(errno));
	if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		return err(EINVAL, "cgroup '%s': not on a cgroup2 file system", path);
	*id = st.st_ino;
	return 0;
}

int scxpol_cgroup_id(const char *path, unsigned long long *id)
{
	return cgroup_id(path, id, scxpol_err);
}

int scxpol_cgroup_id_quiet(const char *path, unsigned long long *id)
{
	return cgroup_id(path, id, scxpol_err_quiet);
}
