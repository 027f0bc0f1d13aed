// SPDX-License-Identifier: GPL-2.0
/*
 * What both trace formats share (trace_int.h): the line reader and field
 * splitter with its FILE:LINE:COL field checks, the number parsers, a
 * string -> index map, and building, sorting and freeing a faas_trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define MAX_LINE (1U << 20)	/* a real Azure line is ~8 KB */

uint64_t trace_fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The digits at *@pp as a whole number <= @max, *@pp moved past them:
 * -EINVAL (no digit), -EDOM (negative) or -ERANGE.
 */
static int parse_whole(const char **pp, uint64_t max, uint64_t *v)
{
	const char *p = *pp;

	*v = 0;
	if (*p == '-')
		return p[1] >= '0' && p[1] <= '9' ? -EDOM : -EINVAL;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (uint64_t)(*p - '0');
		if (*v > max)
			return -ERANGE;
	}
	*pp = p;
	return 0;
}

int faas_parse_ms(const char *s, uint64_t *us)
{
	uint64_t ip, frac = 0;
	int nfrac = 0, r;
	const char *p = s;

	r = parse_whole(&p, MAX_US / 1000, &ip);
	if (r)
		return r;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
			if (nfrac < 3)
				frac = frac * 10 + (uint64_t)(*p - '0');
			else if (nfrac == 3 && *p >= '5')
				frac++; /* round to the microsecond */
		}
		for (; nfrac < 3; nfrac++)
			frac *= 10;
	}
	if (*p)
		return -EINVAL;
	*us = ip * 1000 + frac;
	if (*us > MAX_US)
		return -ERANGE;
	return 0;
}

/* A whole number <= MAX_US: -EINVAL, -EDOM (negative) or -ERANGE. */
int trace_parse_count(const char *s, uint64_t *v)
{
	const char *p = s;
	int r = parse_whole(&p, MAX_US, v);

	if (r)
		return r;
	return *p ? -EINVAL : 0;
}

/* --- line reader and field splitter --------------------------------------- */

/* Printable, bounded copy of a field for messages. */
const char *trace_quote(char *dst, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '"')
			dst[n++] = (char)c;
		else
			n += (size_t)snprintf(dst + n, len - n, "\\x%02x", c);
		if (n >= 40 && s[1]) {
			snprintf(dst + n, len - n, "...");
			return dst;
		}
	}
	dst[n] = '\0';
	return dst;
}

int trace_rd_open(struct reader *r, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->err = err;
	r->errlen = errlen;
	r->f = fopen(path, "re");
	if (!r->f)
		return faas_errf(err, errlen, errno, "%s: %s", path, strerror(errno));
	return 0;
}

void trace_rd_close(struct reader *r)
{
	if (r->f)
		fclose(r->f);
	free(r->buf);
	free(r->field);
	free(r->col);
	r->f = NULL;
	r->buf = NULL;
	r->field = NULL;
	r->col = NULL;
}

int trace_rd_err(struct reader *r, size_t col, int errnum, const char *fmt, ...)
{
	char msg[FAAS_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (col)
		return faas_errf(r->err, r->errlen, errnum, "%s:%lu:%zu: %s", r->path, r->line,
				 col, msg);
	return faas_errf(r->err, r->errlen, errnum, "%s:%lu: %s", r->path, r->line, msg);
}

/*
 * Read the next line and split it at commas. Returns 1, 0 at end of file,
 * or a negative errno (NUL byte, overlong line, read error, blank line).
 */
int trace_rd_line(struct reader *r)
{
	size_t n = 0, i;
	int c;

	errno = 0;
	c = getc_unlocked(r->f);
	if (c == EOF)
		return ferror(r->f) ? faas_errf(r->err, r->errlen, errno ? errno : EIO,
						"%s: read error after line %lu: %s", r->path,
						r->line, strerror(errno ? errno : EIO)) : 0;
	r->line++;
	for (; c != EOF && c != '\n'; c = getc_unlocked(r->f)) {
		if (!c)
			return trace_rd_err(r, n + 1, EINVAL, "NUL byte");
		if (n + 2 > r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 4096;
			char *b;

			if (cap > MAX_LINE)
				return trace_rd_err(r, 0, E2BIG, "line longer than %u bytes", MAX_LINE);
			b = realloc(r->buf, cap);
			if (!b)
				return trace_rd_err(r, 0, ENOMEM, "out of memory");
			r->buf = b;
			r->cap = cap;
		}
		r->buf[n++] = (char)c;
	}
	if (ferror(r->f))
		return trace_rd_err(r, 0, errno ? errno : EIO, "read error: %s", strerror(errno ? errno : EIO));
	if (n && r->buf[n - 1] == '\r')
		n--;
	if (!n)
		return trace_rd_err(r, 1, EINVAL, "empty line");
	r->buf[n] = '\0';
	r->end_col = n + 1;
	r->nr_fields = 0;
	for (i = 0;; i++) {
		if (r->nr_fields == r->cap_fields) {
			size_t cap = r->cap_fields ? r->cap_fields * 2 : 64;
			const char **f = realloc(r->field, cap * sizeof(*f));
			size_t *col;

			if (!f)
				return trace_rd_err(r, 0, ENOMEM, "out of memory");
			r->field = f;
			col = realloc(r->col, cap * sizeof(*col));
			if (!col)
				return trace_rd_err(r, 0, ENOMEM, "out of memory");
			r->col = col;
			r->cap_fields = cap;
		}
		r->field[r->nr_fields] = r->buf + i;
		r->col[r->nr_fields++] = i + 1;
		for (; i < n && r->buf[i] != ','; i++)
			if (r->buf[i] == '"')
				return trace_rd_err(r, i + 1, EINVAL,
						    "quoted fields are not supported");
		if (i >= n)
			break;
		r->buf[i] = '\0';
	}
	return 1;
}

/* Column of field @i, or the end of the line when the line is shorter. */
size_t trace_rd_col(const struct reader *r, size_t i)
{
	return i < r->nr_fields ? r->col[i] : r->end_col;
}

/*
 * Parse field @i with @parse (0, -EDOM for a negative number, -ERANGE for
 * a too large one, anything else: not what @kind names); @what names the
 * column in messages.
 */
static int field_num(struct reader *r, size_t i, const char *what, const char *kind,
		     int (*parse)(const char *, uint64_t *), uint64_t *v)
{
	const char *s = r->field[i];
	char q[64];
	int e;

	if (!*s)
		return trace_rd_err(r, r->col[i], EINVAL, "%s is empty", what);
	e = parse(s, v);
	if (e == -EDOM)
		return trace_rd_err(r, r->col[i], EINVAL, "%s \"%s\" is negative", what,
				    trace_quote(q, sizeof(q), s));
	if (e == -ERANGE)
		return trace_rd_err(r, r->col[i], ERANGE, "%s \"%s\" is too large", what,
				    trace_quote(q, sizeof(q), s));
	if (e)
		return trace_rd_err(r, r->col[i], EINVAL, "%s \"%s\" is not %s", what,
				    trace_quote(q, sizeof(q), s), kind);
	return 0;
}

/* Field @i as milliseconds, in microseconds. */
int trace_field_ms(struct reader *r, size_t i, const char *what, uint64_t *us)
{
	return field_num(r, i, what, "a number", faas_parse_ms, us);
}

int trace_field_count(struct reader *r, size_t i, const char *what, uint64_t *v)
{
	return field_num(r, i, what, "a whole number", trace_parse_count, v);
}

int trace_field_nonempty(struct reader *r, size_t i, const char *what)
{
	return *r->field[i] ? 0 : trace_rd_err(r, r->col[i], EINVAL, "%s is empty", what);
}

/* The row has exactly @want fields. */
int trace_rd_want_fields(struct reader *r, size_t want)
{
	if (r->nr_fields == want)
		return 0;
	return trace_rd_err(r, trace_rd_col(r, want), EINVAL, "%zu columns, want %zu (as the header)",
			    r->nr_fields, want);
}

/* Header fields @from.. are exactly @names. */
int trace_rd_want_header(struct reader *r, const char *const *names, size_t n,
			 const char *all)
{
	char q[64];
	size_t i;

	for (i = 0; i < n; i++) {
		if (i >= r->nr_fields)
			return trace_rd_err(r, r->end_col, EINVAL, "header ends before column %zu \"%s\" (want \"%s\")",
					    i + 1, names[i], all);
		if (strcmp(r->field[i], names[i]))
			return trace_rd_err(r, r->col[i], EINVAL, "header column %zu is \"%s\", want \"%s\"",
					    i + 1, trace_quote(q, sizeof(q), r->field[i]), names[i]);
	}
	return 0;
}

/* --- string -> index map (open addressing, grows at 1/2 load) ------------- */

static uint64_t hash_str(const char *s)
{
	return trace_fnv1a(FNV_INIT, s);
}

void trace_strmap_free(struct strmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* Slot of @k: its own, or the empty one where it would go. */
static size_t strmap_slot(const struct strmap *m, const char *k)
{
	size_t i = (size_t)hash_str(k) & (m->cap - 1);

	while (m->key[i] && strcmp(m->key[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int strmap_grow(struct strmap *m)
{
	struct strmap nm = { .cap = m->cap ? m->cap * 2 : 64 };
	size_t i, j;

	nm.key = calloc(nm.cap, sizeof(*nm.key));
	nm.val = calloc(nm.cap, sizeof(*nm.val));
	if (!nm.key || !nm.val) {
		trace_strmap_free(&nm);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		j = strmap_slot(&nm, m->key[i]);
		nm.key[j] = m->key[i];
		nm.val[j] = m->val[i];
	}
	nm.n = m->n;
	trace_strmap_free(m);
	*m = nm;
	return 0;
}

/* The value of @k, or -1. */
int64_t trace_strmap_get(const struct strmap *m, const char *k)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = strmap_slot(m, k);
	return m->key[i] ? (int64_t)m->val[i] : -1;
}

/* Insert @k (owned by the caller, must outlive the map); @k must be new. */
int trace_strmap_put(struct strmap *m, char *k, uint32_t v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
		return -ENOMEM;
	i = strmap_slot(m, k);
	m->key[i] = k;
	m->val[i] = v;
	m->n++;
	return 0;
}

/* --- trace building ----------------------------------------------------------- */

int trace_add_func(struct builder *b, const char *name, const char *trigger,
		   enum faas_kind kind)
{
	struct faas_trace *t = b->t;
	struct faas_func *f;

	if (t->nr_funcs == UINT32_MAX)
		return -E2BIG;
	if (t->nr_funcs == b->cap_funcs) {
		size_t cap = b->cap_funcs ? b->cap_funcs * 2 : 64;

		f = realloc(t->funcs, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		t->funcs = f;
		b->cap_funcs = cap;
	}
	f = &t->funcs[t->nr_funcs];
	f->name = strdup(name);
	f->trigger = strdup(trigger);
	f->kind = kind;
	f->count = 0;
	if (!f->name || !f->trigger) {
		free(f->name);
		free(f->trigger);
		return -ENOMEM;
	}
	return (int)t->nr_funcs++;
}

struct faas_invocation *trace_add_inv(struct builder *b)
{
	struct faas_trace *t = b->t;

	if (t->nr_inv == b->cap_inv) {
		uint64_t cap = b->cap_inv ? b->cap_inv * 2 : 1024;
		struct faas_invocation *inv;

		if (cap > SIZE_MAX / sizeof(*inv))
			return NULL;
		inv = realloc(t->inv, (size_t)cap * sizeof(*inv));
		if (!inv)
			return NULL;
		t->inv = inv;
		b->cap_inv = cap;
	}
	return &t->inv[t->nr_inv++];
}

/* Stable merge sort by arrival (qsort is not stable; ties keep input order). */
static void sort_inv(struct faas_invocation *a, struct faas_invocation *tmp, uint64_t n)
{
	uint64_t mid = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	sort_inv(a, tmp, mid);
	sort_inv(a + mid, tmp, n - mid);
	if (a[mid - 1].arrival_us <= a[mid].arrival_us)
		return;
	j = mid;
	while (i < mid && j < n)
		tmp[k++] = a[j].arrival_us < a[i].arrival_us ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	memcpy(a, tmp, (size_t)k * sizeof(*a));
}

int trace_finish(struct builder *b, const char *path, char *err, size_t errlen)
{
	struct faas_trace *t = b->t;
	struct faas_invocation *tmp;
	uint64_t i;

	if (!t->nr_inv)
		return faas_errf(err, errlen, EINVAL, "%s: no invocations", path);
	tmp = malloc((size_t)t->nr_inv * sizeof(*tmp));
	if (!tmp)
		return faas_errf(err, errlen, ENOMEM, "%s: out of memory sorting %llu invocations",
				 path, (unsigned long long)t->nr_inv);
	sort_inv(t->inv, tmp, t->nr_inv);
	free(tmp);
	for (i = 0; i < t->nr_inv; i++)
		t->funcs[t->inv[i].func].count++;
	return 0;
}

void faas_trace_scale_durations(struct faas_trace *t, double scale)
{
	uint64_t i;

	for (i = 0; i < t->nr_inv; i++) {
		double d = (double)t->inv[i].duration_us * scale + 0.5;

		t->inv[i].duration_us = d >= (double)MAX_US ? MAX_US : (uint64_t)d;
	}
}

void faas_trace_free(struct faas_trace *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_funcs; i++) {
		free(t->funcs[i].name);
		free(t->funcs[i].trigger);
	}
	free(t->funcs);
	free(t->inv);
	free(t);
}
