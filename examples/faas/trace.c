// SPDX-License-Identifier: GPL-2.0
/* FaaS trace parsers: simple per-invocation CSV and Azure Functions 2019. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cli.h>

#include "trace.h"

#define MAX_LINE (1U << 20)	/* a real Azure line is ~8 KB */
#define MAX_US (1ULL << 53)	/* 285 years: anything above is garbage */
#define DEFAULT_MAX_INV 10000000ULL

static const char *const kind_names[FAAS_NR_KINDS] = { "cpu", "io", "poll", "mt" };
static const unsigned int default_mix[FAAS_NR_KINDS] = { 55, 25, 10, 10 };

int faas_errf(char *err, size_t len, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

const char *faas_kind_name(enum faas_kind k)
{
	return (unsigned int)k < FAAS_NR_KINDS ? kind_names[k] : "?";
}

int faas_kind_parse(const char *s)
{
	int k;

	for (k = 0; k < FAAS_NR_KINDS; k++)
		if (!strcmp(s, kind_names[k]))
			return k;
	return -1;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

enum faas_kind faas_azure_kind(const char *hash_function, const unsigned int *mix)
{
	unsigned int x = (unsigned int)(fnv1a(FNV_INIT, hash_function) % 100), acc = 0;
	int k;

	if (!mix)
		mix = default_mix;
	for (k = 0; k < FAAS_NR_KINDS; k++) {
		acc += mix[k];
		if (x < acc)
			return k;
	}
	return FAAS_KIND_CPU;
}

/* splitmix64: small, fast, and the same sequence everywhere */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

int faas_parse_ms(const char *s, uint64_t *us)
{
	uint64_t ip = 0, frac = 0;
	int nfrac = 0;
	const char *p = s;

	if (*p == '-')
		return p[1] >= '0' && p[1] <= '9' ? -EDOM : -EINVAL;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		ip = ip * 10 + (uint64_t)(*p - '0');
		if (ip > MAX_US / 1000)
			return -ERANGE;
	}
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
static int parse_count(const char *s, uint64_t *v)
{
	const char *p = s;

	*v = 0;
	if (*p == '-')
		return p[1] >= '0' && p[1] <= '9' ? -EDOM : -EINVAL;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (uint64_t)(*p - '0');
		if (*v > MAX_US)
			return -ERANGE;
	}
	return *p ? -EINVAL : 0;
}

/* --- line reader and field splitter --------------------------------------- */

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

/* Printable, bounded copy of a field for messages. */
static const char *quote(char *dst, size_t len, const char *s)
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

static int rd_open(struct reader *r, const char *path, char *err, size_t errlen)
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

static void rd_close(struct reader *r)
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

static int rd_err(struct reader *r, size_t col, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rd_err(struct reader *r, size_t col, int errnum, const char *fmt, ...)
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
static int rd_line(struct reader *r)
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
			return rd_err(r, n + 1, EINVAL, "NUL byte");
		if (n + 2 > r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 4096;
			char *b;

			if (cap > MAX_LINE)
				return rd_err(r, 0, E2BIG, "line longer than %u bytes", MAX_LINE);
			b = realloc(r->buf, cap);
			if (!b)
				return rd_err(r, 0, ENOMEM, "out of memory");
			r->buf = b;
			r->cap = cap;
		}
		r->buf[n++] = (char)c;
	}
	if (ferror(r->f))
		return rd_err(r, 0, errno ? errno : EIO, "read error: %s", strerror(errno ? errno : EIO));
	if (n && r->buf[n - 1] == '\r')
		n--;
	if (!n)
		return rd_err(r, 1, EINVAL, "empty line");
	r->buf[n] = '\0';
	r->end_col = n + 1;
	r->nr_fields = 0;
	for (i = 0;; i++) {
		if (r->nr_fields == r->cap_fields) {
			size_t cap = r->cap_fields ? r->cap_fields * 2 : 64;
			const char **f = realloc(r->field, cap * sizeof(*f));
			size_t *col;

			if (!f)
				return rd_err(r, 0, ENOMEM, "out of memory");
			r->field = f;
			col = realloc(r->col, cap * sizeof(*col));
			if (!col)
				return rd_err(r, 0, ENOMEM, "out of memory");
			r->col = col;
			r->cap_fields = cap;
		}
		r->field[r->nr_fields] = r->buf + i;
		r->col[r->nr_fields++] = i + 1;
		for (; i < n && r->buf[i] != ','; i++)
			if (r->buf[i] == '"')
				return rd_err(r, i + 1, EINVAL,
					      "quoted fields are not supported");
		if (i >= n)
			break;
		r->buf[i] = '\0';
	}
	return 1;
}

/* Column of field @i, or the end of the line when the line is shorter. */
static size_t rd_col(const struct reader *r, size_t i)
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
		return rd_err(r, r->col[i], EINVAL, "%s is empty", what);
	e = parse(s, v);
	if (e == -EDOM)
		return rd_err(r, r->col[i], EINVAL, "%s \"%s\" is negative", what,
			      quote(q, sizeof(q), s));
	if (e == -ERANGE)
		return rd_err(r, r->col[i], ERANGE, "%s \"%s\" is too large", what,
			      quote(q, sizeof(q), s));
	if (e)
		return rd_err(r, r->col[i], EINVAL, "%s \"%s\" is not %s", what,
			      quote(q, sizeof(q), s), kind);
	return 0;
}

/* Field @i as milliseconds, in microseconds. */
static int field_ms(struct reader *r, size_t i, const char *what, uint64_t *us)
{
	return field_num(r, i, what, "a number", faas_parse_ms, us);
}

static int field_count(struct reader *r, size_t i, const char *what, uint64_t *v)
{
	return field_num(r, i, what, "a whole number", parse_count, v);
}

static int field_nonempty(struct reader *r, size_t i, const char *what)
{
	return *r->field[i] ? 0 : rd_err(r, r->col[i], EINVAL, "%s is empty", what);
}

/* The row has exactly @want fields. */
static int rd_want_fields(struct reader *r, size_t want)
{
	if (r->nr_fields == want)
		return 0;
	return rd_err(r, rd_col(r, want), EINVAL, "%zu columns, want %zu (as the header)",
		      r->nr_fields, want);
}

/* Header fields @from.. are exactly @names. */
static int rd_want_header(struct reader *r, const char *const *names, size_t n,
			  const char *all)
{
	char q[64];
	size_t i;

	for (i = 0; i < n; i++) {
		if (i >= r->nr_fields)
			return rd_err(r, r->end_col, EINVAL, "header ends before column %zu \"%s\" (want \"%s\")",
				      i + 1, names[i], all);
		if (strcmp(r->field[i], names[i]))
			return rd_err(r, r->col[i], EINVAL, "header column %zu is \"%s\", want \"%s\"",
				      i + 1, quote(q, sizeof(q), r->field[i]), names[i]);
	}
	return 0;
}

/* --- string -> index map (open addressing, grows at 1/2 load) ------------- */

struct strmap {
	char **key;
	uint32_t *val;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	return fnv1a(FNV_INIT, s);
}

static void strmap_free(struct strmap *m)
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
		strmap_free(&nm);
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
	strmap_free(m);
	*m = nm;
	return 0;
}

/* The value of @k, or -1. */
static int64_t strmap_get(const struct strmap *m, const char *k)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = strmap_slot(m, k);
	return m->key[i] ? (int64_t)m->val[i] : -1;
}

/* Insert @k (owned by the caller, must outlive the map); @k must be new. */
static int strmap_put(struct strmap *m, char *k, uint32_t v)
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

struct builder {
	struct faas_trace *t;
	size_t cap_funcs;
	uint64_t cap_inv;
};

static int add_func(struct builder *b, const char *name, const char *trigger,
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

static struct faas_invocation *add_inv(struct builder *b)
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

static int finish(struct builder *b, const char *path, char *err, size_t errlen)
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

/* --- simple format -------------------------------------------------------- */

static const char *const simple_header[] = { "function", "arrival_ms", "duration_ms", "kind" };
#define SIMPLE_HEADER "function,arrival_ms,duration_ms[,kind]"

int faas_trace_load_simple(const char *path, struct faas_trace **out, char *err, size_t errlen)
{
	struct builder b = { 0 };
	struct strmap names = { 0 };
	struct reader r;
	size_t ncol;
	int e;

	*out = NULL;
	e = rd_open(&r, path, err, errlen);
	if (e)
		return e;
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		e = faas_errf(err, errlen, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	e = rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL, "%s: empty file (want a header \"%s\")", path,
			      SIMPLE_HEADER);
	if (e < 0)
		goto out;
	ncol = r.nr_fields;
	if (ncol != 3 && ncol != 4) {
		e = rd_err(&r, 0, EINVAL, "header has %zu columns, want \"%s\"", ncol, SIMPLE_HEADER);
		goto out;
	}
	e = rd_want_header(&r, simple_header, ncol, SIMPLE_HEADER);
	if (e)
		goto out;
	while ((e = rd_line(&r)) > 0) {
		struct faas_invocation *inv;
		uint64_t arrival, duration;
		int kind = FAAS_KIND_CPU;
		int64_t fi;

		e = rd_want_fields(&r, ncol);
		if (!e)
			e = field_nonempty(&r, 0, "function");
		if (!e)
			e = field_ms(&r, 1, "arrival_ms", &arrival);
		if (!e)
			e = field_ms(&r, 2, "duration_ms", &duration);
		if (e)
			goto out;
		if (ncol == 4) {
			char q[64];

			kind = faas_kind_parse(r.field[3]);
			if (kind < 0) {
				e = rd_err(&r, r.col[3], EINVAL,
					   "kind \"%s\" is not one of cpu, io, poll, mt",
					   quote(q, sizeof(q), r.field[3]));
				goto out;
			}
		}
		fi = strmap_get(&names, r.field[0]);
		if (fi < 0) {
			fi = add_func(&b, r.field[0], "", kind);
			if (fi < 0 || strmap_put(&names, b.t->funcs[fi].name, (uint32_t)fi)) {
				e = rd_err(&r, 0, fi == -E2BIG ? E2BIG : ENOMEM, "%s",
					   fi == -E2BIG ? "too many functions" : "out of memory");
				goto out;
			}
		}
		inv = add_inv(&b);
		if (!inv) {
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		inv->func = (uint32_t)fi;
		inv->kind = kind;
		inv->arrival_us = arrival;
		inv->duration_us = duration;
	}
	if (!e)
		e = finish(&b, path, err, errlen);
out:
	rd_close(&r);
	strmap_free(&names);
	if (e) {
		faas_trace_free(b.t);
		return e;
	}
	*out = b.t;
	return 0;
}

/* --- Azure 2019 format -------------------------------------------------------- */

static const char *const dur_header[] = {
	"HashOwner", "HashApp", "HashFunction", "Average", "Count", "Minimum", "Maximum",
	"percentile_Average_0", "percentile_Average_1", "percentile_Average_25",
	"percentile_Average_50", "percentile_Average_75", "percentile_Average_99",
	"percentile_Average_100",
};
#define DUR_COLS 14
#define DUR_PCT0 7
#define NR_PCT 7
static const double pct_at[NR_PCT] = { 0, 1, 25, 50, 75, 99, 100 };

static const char *const inv_header[] = { "HashOwner", "HashApp", "HashFunction", "Trigger" };
#define INV_FIXED 4
#define MAX_MINUTES 1440

struct dur_row {
	char *key; /* owner \n app \n function */
	uint64_t pct[NR_PCT];
	unsigned long line;
};

struct durations {
	struct dur_row *rows;
	size_t n, cap;
	struct strmap map;
};

static void durations_free(struct durations *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->rows[i].key);
	free(d->rows);
	strmap_free(&d->map);
}

/* "owner\napp\nfunction": newlines cannot occur inside a field. */
static char *triple_key(struct reader *r)
{
	size_t a = strlen(r->field[0]), b = strlen(r->field[1]), c = strlen(r->field[2]);
	char *k = malloc(a + b + c + 3);

	if (k)
		sprintf(k, "%s\n%s\n%s", r->field[0], r->field[1], r->field[2]);
	return k;
}

/* "owner/app/function" of the current row, each part quoted for messages. */
static const char *triple_name(struct reader *r, char *dst, size_t len)
{
	char a[64], b[64], c[64];

	snprintf(dst, len, "%s/%s/%s", quote(a, sizeof(a), r->field[0]),
		 quote(b, sizeof(b), r->field[1]), quote(c, sizeof(c), r->field[2]));
	return dst;
}

static int load_durations(const char *path, struct durations *d, char *err, size_t errlen)
{
	struct reader r;
	int e, i;

	e = rd_open(&r, path, err, errlen);
	if (e)
		return e;
	e = rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL, "%s: empty file (want the Azure durations header)",
			      path);
	if (e < 0)
		goto out;
	e = rd_want_header(&r, dur_header, DUR_COLS, "HashOwner,HashApp,HashFunction,Average,...");
	if (!e && r.nr_fields != DUR_COLS)
		e = rd_err(&r, rd_col(&r, DUR_COLS), EINVAL, "header has %zu columns, want %d",
			   r.nr_fields, DUR_COLS);
	if (e)
		goto out;
	while ((e = rd_line(&r)) > 0) {
		struct dur_row row = { .line = r.line };
		char q[3 * 64 + 3];
		uint64_t v;
		int64_t prev;

		e = rd_want_fields(&r, DUR_COLS);
		for (i = 0; !e && i < 3; i++)
			e = field_nonempty(&r, (size_t)i, dur_header[i]);
		/* validated though unused: a broken row means a broken file */
		for (i = 3; !e && i < DUR_PCT0; i++)
			e = i == 4 ? field_count(&r, 4, dur_header[4], &v)
				   : field_ms(&r, (size_t)i, dur_header[i], &v);
		for (i = 0; !e && i < NR_PCT; i++) {
			e = field_ms(&r, DUR_PCT0 + (size_t)i, dur_header[DUR_PCT0 + i], &row.pct[i]);
			if (!e && i && row.pct[i] < row.pct[i - 1])
				e = rd_err(&r, r.col[DUR_PCT0 + i], EINVAL,
					   "%s (%s) is below %s (%s)", dur_header[DUR_PCT0 + i],
					   r.field[DUR_PCT0 + i], dur_header[DUR_PCT0 + i - 1],
					   r.field[DUR_PCT0 + i - 1]);
		}
		if (e)
			goto out;
		row.key = triple_key(&r);
		if (!row.key) {
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		prev = strmap_get(&d->map, row.key);
		if (prev >= 0) {
			free(row.key);
			e = rd_err(&r, 1, EINVAL, "function %s appears twice (first at line %lu)",
				   triple_name(&r, q, sizeof(q)), d->rows[prev].line);
			goto out;
		}
		if (d->n == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 256;
			struct dur_row *rows = realloc(d->rows, cap * sizeof(*rows));

			if (!rows) {
				free(row.key);
				e = rd_err(&r, 0, ENOMEM, "out of memory");
				goto out;
			}
			d->rows = rows;
			d->cap = cap;
		}
		d->rows[d->n] = row;
		if (d->n >= UINT32_MAX || strmap_put(&d->map, row.key, (uint32_t)d->n)) {
			free(row.key);
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		d->n++;
	}
out:
	rd_close(&r);
	return e;
}

/* Piecewise-linear inverse CDF through the percentile points. */
static uint64_t draw_duration(const uint64_t *pct, double scale, uint64_t *rng)
{
	double x = rng_unit(rng) * 100.0, v;
	int i;

	for (i = 0; i < NR_PCT - 2 && x >= pct_at[i + 1]; i++)
		;
	v = (double)pct[i] + ((double)pct[i + 1] - (double)pct[i]) * (x - pct_at[i]) /
				     (pct_at[i + 1] - pct_at[i]);
	return (uint64_t)(v * scale + 0.5);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int faas_kind_mix_check(const unsigned int *mix, char *err, size_t errlen)
{
	unsigned int sum = 0;
	int k;

	for (k = 0; k < FAAS_NR_KINDS; k++) {
		if (mix[k] > 100)
			return faas_errf(err, errlen, EINVAL, "kind mix: %s %u%%, want 0..100%%",
					 kind_names[k], mix[k]);
		sum += mix[k];
	}
	if (sum && sum != 100)
		return faas_errf(err, errlen, EINVAL, "kind mix sums to %u%%, want 100%%", sum);
	return 0;
}

int faas_parse_kind_mix(const char *opt, const char *arg, unsigned int *mix, char *err,
			size_t errlen)
{
	unsigned long long v[FAAS_NR_KINDS];
	unsigned int m[FAAS_NR_KINDS];
	int k;

	if (scxpol_cli_parse_uint_list(opt, arg, ',', 0, 100, v, FAAS_NR_KINDS) == FAAS_NR_KINDS) {
		for (k = 0; k < FAAS_NR_KINDS; k++)
			m[k] = (unsigned int)v[k];
		/* all 0 is the default to faas_kind_mix_check(), not a mix given */
		if (m[0] + m[1] + m[2] + m[3] &&
		    !faas_kind_mix_check(m, err, errlen)) {
			memcpy(mix, m, sizeof(m));
			return 0;
		}
	}
	return faas_errf(err, errlen, EINVAL, "%s '%s': want four percentages cpu,io,poll,mt, "
			 "each 0..100, summing to 100", opt, arg);
}

int faas_parse_minutes(const char *opt, const char *arg, unsigned int *first,
		       unsigned int *last, char *err, size_t errlen)
{
	unsigned long long v[2];
	int n = scxpol_cli_parse_uint_list(opt, arg, '-', 1, MAX_MINUTES, v, 2);

	if (n < 0 || v[0] > v[n - 1])
		return faas_errf(err, errlen, EINVAL,
				 "%s '%s': want A or A-B with 1 <= A <= B <= %d", opt, arg,
				 MAX_MINUTES);
	*first = (unsigned int)v[0];
	*last = (unsigned int)v[n - 1];
	return 0;
}

int faas_trace_load_azure(const char *invocations, const char *durations,
			  const struct faas_azure_opts *opts, struct faas_trace **out,
			  char *err, size_t errlen)
{
	struct faas_azure_opts o = { 0 };
	struct durations d = { 0 };
	struct strmap seen = { 0 };
	char **seen_keys = NULL;
	size_t nr_seen = 0, cap_seen = 0;
	struct builder b = { 0 };
	uint64_t *offs = NULL, total = 0;
	size_t cap_offs = 0;
	unsigned int nr_minutes, m;
	const unsigned int *mix = NULL;
	struct reader r = { 0 };
	int e, k;

	*out = NULL;
	if (opts)
		o = *opts;
	if (!o.minute_us)
		o.minute_us = 60000000ULL;
	if (o.duration_scale == 0)
		o.duration_scale = 1;
	if (o.duration_scale < 0 || o.duration_scale > 1e6)
		return faas_errf(err, errlen, EINVAL, "duration scale %g: want a number in (0, 1e6]",
				 o.duration_scale);
	if (!o.max_inv)
		o.max_inv = DEFAULT_MAX_INV;
	e = faas_kind_mix_check(o.kind_mix, err, errlen);
	if (e)
		return e;
	for (k = 0; k < FAAS_NR_KINDS; k++)
		if (o.kind_mix[k])
			mix = o.kind_mix;

	e = load_durations(durations, &d, err, errlen);
	if (e)
		goto out;
	b.t = calloc(1, sizeof(*b.t));
	if (!b.t) {
		e = faas_errf(err, errlen, ENOMEM, "out of memory");
		goto out;
	}

	e = rd_open(&r, invocations, err, errlen);
	if (e)
		goto out;
	e = rd_line(&r);
	if (!e)
		e = faas_errf(err, errlen, EINVAL,
			      "%s: empty file (want the Azure invocations header)", invocations);
	if (e < 0)
		goto out;
	e = rd_want_header(&r, inv_header, INV_FIXED, "HashOwner,HashApp,HashFunction,Trigger,1,2,...");
	if (e)
		goto out;
	if (r.nr_fields == INV_FIXED) {
		e = rd_err(&r, r.end_col, EINVAL, "header has no minute columns (want 1,2,...)");
		goto out;
	}
	nr_minutes = (unsigned int)(r.nr_fields - INV_FIXED);
	if (nr_minutes > MAX_MINUTES) {
		e = rd_err(&r, r.col[INV_FIXED + MAX_MINUTES], EINVAL,
			   "more than %d minute columns", MAX_MINUTES);
		goto out;
	}
	for (m = 0; m < nr_minutes; m++) {
		char want[16], q[64];

		snprintf(want, sizeof(want), "%u", m + 1);
		if (strcmp(r.field[INV_FIXED + m], want)) {
			e = rd_err(&r, r.col[INV_FIXED + m], EINVAL,
				   "minute column \"%s\" out of sequence, want \"%s\"",
				   quote(q, sizeof(q), r.field[INV_FIXED + m]), want);
			goto out;
		}
	}
	if (!o.first_minute)
		o.first_minute = 1;
	if (!o.last_minute)
		o.last_minute = nr_minutes;
	if (o.first_minute > o.last_minute || o.last_minute > nr_minutes) {
		e = faas_errf(err, errlen, EINVAL, "minute range %u-%u: %s has minutes 1-%u",
			      o.first_minute, o.last_minute, invocations, nr_minutes);
		goto out;
	}
	if (o.minute_us > MAX_US / MAX_MINUTES) {
		e = faas_errf(err, errlen, ERANGE, "minute length %llu us is too large",
			      (unsigned long long)o.minute_us);
		goto out;
	}

	while ((e = rd_line(&r)) > 0) {
		uint64_t counts[MAX_MINUTES], sum = 0, rng;
		char *key, *name, q[3 * 64 + 3];
		struct dur_row *dr;
		int64_t di;
		int fi;

		e = rd_want_fields(&r, INV_FIXED + nr_minutes);
		for (k = 0; !e && k < INV_FIXED; k++)
			e = field_nonempty(&r, (size_t)k, inv_header[k]);
		for (m = 0; !e && m < nr_minutes; m++) {
			char what[32];

			/* the common case without the message's snprintf: 1440 per line */
			if (parse_count(r.field[INV_FIXED + m], &counts[m])) {
				snprintf(what, sizeof(what), "minute %u count", m + 1);
				e = field_count(&r, INV_FIXED + m, what, &counts[m]);
				continue;
			}
			if (m + 1 < o.first_minute || m + 1 > o.last_minute)
				continue;
			if (counts[m] > o.max_inv - sum - total)
				e = rd_err(&r, r.col[INV_FIXED + m], E2BIG,
					   "the trace expands to more than %llu invocations; "
					   "narrow the minute range or the number of functions",
					   (unsigned long long)o.max_inv);
			else
				sum += counts[m];
		}
		if (e)
			goto out;
		if (nr_seen == cap_seen) {
			size_t cap = cap_seen ? cap_seen * 2 : 256;
			char **p = reallocarray(seen_keys, cap, sizeof(*p));

			if (!p) {
				e = rd_err(&r, 0, ENOMEM, "out of memory");
				goto out;
			}
			seen_keys = p;
			cap_seen = cap;
		}
		key = triple_key(&r);
		if (!key) {
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		di = strmap_get(&seen, key);
		if (di >= 0) {
			free(key);
			e = rd_err(&r, 1, EINVAL, "function %s appears twice (first at line %lld)",
				   triple_name(&r, q, sizeof(q)), (long long)di);
			goto out;
		}
		seen_keys[nr_seen++] = key;
		if (strmap_put(&seen, key, (uint32_t)r.line)) {
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		if (!sum)
			continue;
		di = strmap_get(&d.map, key);
		if (di < 0) {
			if (o.skip_missing) {
				b.t->skipped_funcs++;
				b.t->skipped_inv += sum;
				continue;
			}
			e = rd_err(&r, 1, ENOENT, "function %s is not in %s",
				   triple_name(&r, q, sizeof(q)), durations);
			goto out;
		}
		dr = &d.rows[di];
		/* the name is the key with '/' between the hashes */
		name = strdup(key);
		if (!name) {
			e = rd_err(&r, 0, ENOMEM, "out of memory");
			goto out;
		}
		for (k = 0; name[k]; k++)
			if (name[k] == '\n')
				name[k] = '/';
		fi = add_func(&b, name, r.field[3], faas_azure_kind(r.field[2], mix));
		rng = o.seed ^ fnv1a(FNV_INIT, name);
		free(name);
		if (fi < 0) {
			e = rd_err(&r, 0, -fi, "%s", strerror(-fi));
			goto out;
		}
		total += sum;
		for (m = o.first_minute; m <= o.last_minute; m++) {
			uint64_t c = counts[m - 1], base = (m - o.first_minute) * o.minute_us, i;

			if (!c)
				continue;
			if (c > cap_offs) {
				uint64_t *p = reallocarray(offs, c, sizeof(*offs));

				if (!p) {
					e = rd_err(&r, 0, ENOMEM, "out of memory");
					goto out;
				}
				offs = p;
				cap_offs = c;
			}
			for (i = 0; i < c; i++)
				offs[i] = (uint64_t)(rng_unit(&rng) * (double)o.minute_us);
			qsort(offs, c, sizeof(*offs), cmp_u64);
			for (i = 0; i < c; i++) {
				struct faas_invocation *inv = add_inv(&b);

				if (!inv) {
					e = rd_err(&r, 0, ENOMEM, "out of memory");
					goto out;
				}
				inv->func = (uint32_t)fi;
				inv->kind = b.t->funcs[fi].kind;
				inv->arrival_us = base + offs[i];
				inv->duration_us = draw_duration(dr->pct, o.duration_scale, &rng);
			}
		}
		if (o.max_funcs && b.t->nr_funcs >= o.max_funcs)
			break; /* the rest of the file is not needed */
	}
	if (e)
		goto out;
	if (!b.t->nr_inv) {
		e = faas_errf(err, errlen, EINVAL, "%s: no invocations in minutes %u-%u%s",
			      invocations, o.first_minute, o.last_minute,
			      b.t->skipped_funcs ? " (all functions with invocations were skipped)" : "");
		goto out;
	}
	e = finish(&b, invocations, err, errlen);
out:
	rd_close(&r);
	durations_free(&d);
	strmap_free(&seen);
	while (nr_seen)
		free(seen_keys[--nr_seen]);
	free(seen_keys);
	free(offs);
	if (e) {
		faas_trace_free(b.t);
		return e;
	}
	*out = b.t;
	return 0;
}
