/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the trace parsers (trace.c: the simple CSV, trace_azure.c: the
 * Azure 2019 files): the line reader, field checks, string map and trace
 * builder they share, defined in trace_rows.c.
 */
#ifndef FAAS_TRACE_INT_H
#define FAAS_TRACE_INT_H

#include <stdio.h>

#include "trace.h"

#define MAX_US (1ULL << 53)	/* 285 years: anything above is garbage */
#define FNV_INIT 0xcbf29ce484222325ULL

uint64_t trace_fnv1a(uint64_t h, const char *s);
int trace_parse_count(const char *s, uint64_t *v);

/* The line reader and field splitter: errors are "FILE:LINE:COL: ...". */
struct reader {
	FILE *f;
	const char *path;
	char *buf;
	size_t cap;
	unsigned long line;
	const char **field;	/* start of each field in buf */
	size_t *col;		/* its 1-based column */
	size_t nr_fields, cap_fields;
	size_t end_col;		/* column just past the line's last byte */
	char *err;
	size_t errlen;
};

const char *trace_quote(char *dst, size_t len, const char *s);
int trace_rd_open(struct reader *r, const char *path, char *err, size_t errlen);
void trace_rd_close(struct reader *r);
int trace_rd_err(struct reader *r, size_t col, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int trace_rd_line(struct reader *r);
size_t trace_rd_col(const struct reader *r, size_t i);
int trace_field_ms(struct reader *r, size_t i, const char *what, uint64_t *us);
int trace_field_count(struct reader *r, size_t i, const char *what, uint64_t *v);
int trace_field_nonempty(struct reader *r, size_t i, const char *what);
int trace_rd_want_fields(struct reader *r, size_t want);
int trace_rd_want_header(struct reader *r, const char *const *names, size_t n,
			 const char *all);

/* String -> index map; the keys belong to the caller. */
struct strmap {
	char **key;
	uint32_t *val;
	size_t cap, n;
};

void trace_strmap_free(struct strmap *m);
int64_t trace_strmap_get(const struct strmap *m, const char *k);
int trace_strmap_put(struct strmap *m, char *k, uint32_t v);

/* A trace being built: trace_finish() sorts it and counts per function. */
struct builder {
	struct faas_trace *t;
	size_t cap_funcs;
	uint64_t cap_inv;
};

int trace_add_func(struct builder *b, const char *name, const char *trigger,
		   enum faas_kind kind);
struct faas_invocation *trace_add_inv(struct builder *b);
int trace_finish(struct builder *b, const char *path, char *err, size_t errlen);

#endif
