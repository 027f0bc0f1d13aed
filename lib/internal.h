/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Library-internal helpers; not installed. */
#ifndef SCXPOL_INTERNAL_H
#define SCXPOL_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "scxpol/common.h"

#define SCXPOL_HIDDEN __attribute__((visibility("hidden")))
#define SCXPOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SCXPOL_STR_(x) #x
#define SCXPOL_STR(x) SCXPOL_STR_(x)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Log a message at @level through the user's callback. */
SCXPOL_HIDDEN void scxpol_log(enum scxpol_log_level level, const char *fmt, ...)
	SCXPOL_PRINTF(2, 3);

/*
 * Record a failure: format the message into the thread's last-error buffer,
 * log it at WARN, and return -@err (so callers write `return scxpol_err(...)`).
 * @err is a positive errno value.
 */
SCXPOL_HIDDEN int scxpol_err(int err, const char *fmt, ...) SCXPOL_PRINTF(2, 3);

/* Like scxpol_err() but for functions returning pointers: sets errno, NULL. */
SCXPOL_HIDDEN void *scxpol_err_ptr(int err, const char *fmt, ...) SCXPOL_PRINTF(2, 3);

/* Forget the last error (successful calls that want a clean slate). */
SCXPOL_HIDDEN void scxpol_err_clear(void);

/*
 * Read a small text file (sysfs, procfs) relative to @root ("" or NULL for
 * "/") into @buf, NUL-terminated, trailing newline removed. Returns the
 * length or a negative errno; does not record an error message.
 */
SCXPOL_HIDDEN int scxpol_read_file(const char *root, const char *path,
				   char *buf, size_t len);

/*
 * Options structs: callers set ->sz to the size they were built with. A
 * larger struct from a newer caller is accepted only if the bytes this
 * library does not know are zero.
 */
SCXPOL_HIDDEN bool scxpol_opts_valid(const void *opts, size_t known_sz, const char *type);
#define OPTS_VALID(opts, type) \
	(!(opts) || scxpol_opts_valid((opts), sizeof(struct type), #type))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
#define OPTS_GET(opts, field, dfl) (OPTS_HAS(opts, field) ? (opts)->field : (dfl))

#endif
