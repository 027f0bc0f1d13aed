/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libscxpol: common conventions shared by every userspace API.
 *
 * Errors: functions return 0 (or a non-negative count) on success and a
 * negative errno on failure; pointer-returning functions return NULL and set
 * errno. Every failure also leaves a human-readable message, naming the
 * offending input, in a thread-local buffer read with scxpol_last_error(),
 * and passes it to the log callback at SCXPOL_LOG_WARN, except those a
 * caller handles as a matter of course (a command-line value it reports
 * itself, a buffer too small, no exit record yet). A NULL handle or
 * required pointer is refused with -EINVAL ("FUNC: WHAT is NULL");
 * accessors of a NULL handle return NULL or 0, and its close or stop does
 * nothing.
 *
 * Options: every struct scxpol_*_opts starts with `size_t sz`, set to
 * sizeof(the struct) by the caller (use SCXPOL_OPTS()), so that the library
 * can grow the struct without breaking callers built against older headers.
 */
#ifndef SCXPOL_COMMON_H
#define SCXPOL_COMMON_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCXPOL_API __attribute__((visibility("default")))

#define SCXPOL_VERSION_MAJOR 0
#define SCXPOL_VERSION_MINOR 1

/* Declare and zero-initialise an opts struct with its size field set. */
#define SCXPOL_OPTS(type, name, ...) \
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

enum scxpol_log_level {
	SCXPOL_LOG_ERROR,
	SCXPOL_LOG_WARN,
	SCXPOL_LOG_INFO,
	SCXPOL_LOG_DEBUG,
};

typedef void (*scxpol_log_fn)(enum scxpol_log_level level, const char *msg,
			      void *ctx);

/*
 * scxpol_log_set - route the library's log (and libbpf's, once a scheduler
 * is opened) to @fn. @fn receives one line without a trailing newline.
 * NULL restores the default, which prints WARN and ERROR to stderr.
 * Messages above @max_level are dropped before formatting.
 */
SCXPOL_API void scxpol_log_set(scxpol_log_fn fn, enum scxpol_log_level max_level,
			       void *ctx);

/*
 * scxpol_last_error - the message of the most recent failure in this thread,
 * or "" if none. Valid until the next library call in the same thread.
 */
SCXPOL_API const char *scxpol_last_error(void);

/* scxpol_version - library version as "MAJOR.MINOR". */
SCXPOL_API const char *scxpol_version(void);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_COMMON_H */
