// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Dynamically sized CPU bitmaps and the kernel's CPU list text form. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scxpol/cpuset.h"

struct scxpol_cpuset {
	unsigned int capacity;
	size_t nr_words;
	/* Bits at and past capacity are always zero (count, equal rely on it). */
	uint64_t words[];
};

static size_t words_for(unsigned int capacity)
{
	return ((size_t)capacity + 63) / 64;
}

struct scxpol_cpuset *scxpol_cpuset_new(unsigned int capacity)
{
	struct scxpol_cpuset *s;
	size_t n = words_for(capacity);

	if (capacity > SCXPOL_CPUSET_MAX_CAPACITY)
		return scxpol_err_ptr(EINVAL, "cpu set capacity %u is too large (at most %u)",
				      capacity, SCXPOL_CPUSET_MAX_CAPACITY);
	s = calloc(1, sizeof(*s) + n * sizeof(uint64_t));
	if (!s)
		return scxpol_err_ptr(ENOMEM, "out of memory for a cpu set of %u CPUs", capacity);
	s->capacity = capacity;
	s->nr_words = n;
	return s;
}

struct scxpol_cpuset *scxpol_cpuset_dup(const struct scxpol_cpuset *s)
{
	struct scxpol_cpuset *d;

	if (!s)
		return scxpol_err_ptr(EINVAL, "cannot copy a NULL cpu set");
	d = scxpol_cpuset_new(s->capacity);
	if (d)
		memcpy(d->words, s->words, s->nr_words * sizeof(uint64_t));
	return d;
}

void scxpol_cpuset_free(struct scxpol_cpuset *s)
{
	free(s);
}

unsigned int scxpol_cpuset_capacity(const struct scxpol_cpuset *s)
{
	return s ? s->capacity : 0;
}

static int check_cpu(const struct scxpol_cpuset *s, unsigned int cpu)
{
	if (!s)
		return scxpol_err(EINVAL, "cpu set is NULL");
	if (cpu >= s->capacity)
		return scxpol_err(ERANGE, "CPU %u is out of range for a cpu set of %u CPUs", cpu,
				  s->capacity);
	return 0;
}

int scxpol_cpuset_set(struct scxpol_cpuset *s, unsigned int cpu)
{
	int r = check_cpu(s, cpu);

	if (!r)
		s->words[cpu / 64] |= 1ULL << (cpu % 64);
	return r;
}

int scxpol_cpuset_clear(struct scxpol_cpuset *s, unsigned int cpu)
{
	int r = check_cpu(s, cpu);

	if (!r)
		s->words[cpu / 64] &= ~(1ULL << (cpu % 64));
	return r;
}

bool scxpol_cpuset_test(const struct scxpol_cpuset *s, unsigned int cpu)
{
	return s && cpu < s->capacity && (s->words[cpu / 64] >> (cpu % 64) & 1);
}

unsigned int scxpol_cpuset_count(const struct scxpol_cpuset *s)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; s && i < s->nr_words; i++)
		n += (unsigned int)__builtin_popcountll(s->words[i]);
	return n;
}

int scxpol_cpuset_next(const struct scxpol_cpuset *s, int cpu)
{
	unsigned int c;
	uint64_t w;
	size_t i;

	if (!s)
		return -1;
	if (cpu < -1)
		cpu = -1;
	c = (unsigned int)cpu + 1;
	if (c >= s->capacity)
		return -1;
	i = c / 64;
	w = s->words[i] & (~0ULL << (c % 64));
	for (;;) {
		if (w)
			return (int)(i * 64 + (size_t)__builtin_ctzll(w));
		if (++i >= s->nr_words)
			return -1;
		w = s->words[i];
	}
}

static uint64_t word_at(const struct scxpol_cpuset *s, size_t i)
{
	return i < s->nr_words ? s->words[i] : 0;
}

bool scxpol_cpuset_equal(const struct scxpol_cpuset *a, const struct scxpol_cpuset *b)
{
	size_t i, n;

	if (!a || !b)
		return scxpol_cpuset_count(a) == 0 && scxpol_cpuset_count(b) == 0;
	n = a->nr_words > b->nr_words ? a->nr_words : b->nr_words;
	for (i = 0; i < n; i++)
		if (word_at(a, i) != word_at(b, i))
			return false;
	return true;
}

bool scxpol_cpuset_intersects(const struct scxpol_cpuset *a, const struct scxpol_cpuset *b)
{
	size_t i;

	for (i = 0; a && b && i < a->nr_words && i < b->nr_words; i++)
		if (a->words[i] & b->words[i])
			return true;
	return false;
}

bool scxpol_cpuset_subset(const struct scxpol_cpuset *a, const struct scxpol_cpuset *b)
{
	size_t i;

	for (i = 0; a && i < a->nr_words; i++)
		if (a->words[i] & ~(b ? word_at(b, i) : 0))
			return false;
	return true;
}

/* Clear the bits at and past the capacity in the last word. */
static void trim(struct scxpol_cpuset *s)
{
	if (s->capacity % 64)
		s->words[s->nr_words - 1] &= ~0ULL >> (64 - s->capacity % 64);
}

void scxpol_cpuset_or(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src)
{
	size_t i;

	if (!dst || !src)
		return;
	for (i = 0; i < dst->nr_words; i++)
		dst->words[i] |= word_at(src, i);
	trim(dst);
}

void scxpol_cpuset_and(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src)
{
	size_t i;

	if (!dst)
		return;
	for (i = 0; i < dst->nr_words; i++)
		dst->words[i] &= src ? word_at(src, i) : 0;
}

void scxpol_cpuset_andnot(struct scxpol_cpuset *dst, const struct scxpol_cpuset *src)
{
	size_t i;

	if (!dst || !src)
		return;
	for (i = 0; i < dst->nr_words; i++)
		dst->words[i] &= ~word_at(src, i);
}

/* One character for a message: 'x' or '\x01'. */
static const char *quote_char(char c, char *out, size_t len)
{
	unsigned char u = (unsigned char)c;

	if (u >= 0x20 && u < 0x7f && u != '\'' && u != '\\')
		snprintf(out, len, "'%c'", c);
	else
		snprintf(out, len, "'\\x%02x'", u);
	return out;
}

struct list_parser {
	const char *list;
	size_t pos;
	unsigned int capacity;
};

static int parse_error(const struct list_parser *p, int err, const char *fmt, ...)
	SCXPOL_PRINTF(3, 4);

static int parse_error(const struct list_parser *p, int err, const char *fmt, ...)
{
	char what[256], q[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return scxpol_err(err, "cpu list \"%s\": %s", scxpol_err_quote(p->list, q, sizeof(q)),
			  what);
}

/* A CPU number at p->pos: digits that fit in an unsigned int. */
static int parse_number(struct list_parser *p, unsigned int *out)
{
	size_t start = p->pos;
	unsigned long long v = 0;
	char c = p->list[p->pos], qc[16];

	if (!c)
		return parse_error(p, EINVAL, "expected a CPU number at column %zu", start + 1);
	if (c < '0' || c > '9')
		return parse_error(p, EINVAL, "bad character %s at column %zu",
				   quote_char(c, qc, sizeof(qc)), start + 1);
	for (; (c = p->list[p->pos]) >= '0' && c <= '9'; p->pos++) {
		v = v * 10 + (unsigned long long)(c - '0');
		if (v > UINT_MAX)
			return parse_error(p, ERANGE, "number at column %zu is too large",
					   start + 1);
	}
	*out = (unsigned int)v;
	return 0;
}

static int out_of_range(const struct list_parser *p, unsigned int cpu, size_t col)
{
	if (!p->capacity)
		return parse_error(p, ERANGE,
				   "CPU %u at column %zu is out of range (the set holds no CPUs)",
				   cpu, col);
	return parse_error(p, ERANGE,
			   "CPU %u at column %zu is out of range (the set holds CPUs 0-%u)", cpu,
			   col, p->capacity - 1);
}

struct scxpol_cpuset *scxpol_cpuset_parse(const char *list, unsigned int capacity)
{
	struct list_parser p = { .list = list, .capacity = capacity };
	struct scxpol_cpuset *s;
	unsigned int a, b, c;
	char qc[16];
	size_t col, bcol;
	int r;

	if (!list)
		return scxpol_err_ptr(EINVAL, "scxpol_cpuset_parse: list is NULL");
	s = scxpol_cpuset_new(capacity);
	if (!s)
		return NULL;
	while (list[p.pos]) {
		col = bcol = p.pos + 1;
		r = parse_number(&p, &a);
		if (r)
			goto fail;
		b = a;
		if (list[p.pos] == '-') {
			bcol = ++p.pos + 1;
			r = parse_number(&p, &b);
			if (r)
				goto fail;
			if (b < a) {
				r = parse_error(&p, EINVAL, "reversed range %u-%u at column %zu",
						a, b, col);
				goto fail;
			}
		}
		if (b >= capacity) {
			r = a >= capacity ? out_of_range(&p, a, col) : out_of_range(&p, b, bcol);
			goto fail;
		}
		/* b < capacity <= INT_MAX: c cannot wrap. */
		for (c = a; c <= b; c++) {
			/* Whole words at a time for long ranges. */
			if (c % 64 == 0 && b - c >= 63) {
				s->words[c / 64] = ~0ULL;
				c += 63;
			} else {
				s->words[c / 64] |= 1ULL << (c % 64);
			}
		}
		if (!list[p.pos])
			break;
		if (list[p.pos] != ',') {
			r = parse_error(&p, EINVAL, "bad character %s at column %zu",
					quote_char(list[p.pos], qc, sizeof(qc)), p.pos + 1);
			goto fail;
		}
		p.pos++;
		if (!list[p.pos]) {
			r = parse_error(&p, EINVAL, "expected a CPU number at column %zu", p.pos + 1);
			goto fail;
		}
	}
	return s;
fail:
	scxpol_cpuset_free(s);
	errno = -r;
	return NULL;
}

/*
 * @s as a CPU list into @buf (@len bytes), runs as ranges; returns the
 * length the whole list needs without its NUL. With @cut a list too long
 * ends in "..." (@len >= 4); without, what does not fit is left out (the
 * caller sees the length).
 */
static size_t format_list(const struct scxpol_cpuset *s, char *buf, size_t len, bool cut)
{
	size_t o = 0;
	int a, b, n;
	char tmp[32];

	if (len)
		buf[0] = '\0';
	for (a = scxpol_cpuset_next(s, -1); a >= 0; a = scxpol_cpuset_next(s, b)) {
		for (b = a; scxpol_cpuset_test(s, (unsigned int)b + 1); b++)
			;
		n = a == b ? snprintf(tmp, sizeof(tmp), "%s%d", o ? "," : "", a)
			   : snprintf(tmp, sizeof(tmp), "%s%d-%d", o ? "," : "", a, b);
		if (cut && o + (size_t)n + 4 > len) {
			snprintf(buf + o, len - o, "...");
			return o + 3;
		}
		if (o + (size_t)n < len)
			memcpy(buf + o, tmp, (size_t)n + 1);
		o += (size_t)n;
	}
	return o;
}

int scxpol_cpuset_format(const struct scxpol_cpuset *s, char *buf, size_t len)
{
	size_t o;

	if (!s || (!buf && len))
		return scxpol_err(EINVAL, "scxpol_cpuset_format: %s is NULL", s ? "buf" : "set");
	o = format_list(s, buf, len, false);
	if (o >= len || o > INT_MAX) {
		if (len)
			buf[0] = '\0';
		return scxpol_err(ENOSPC, "cpu list of %u CPUs needs %zu bytes, the buffer has %zu",
				  scxpol_cpuset_count(s), o + 1, len);
	}
	return (int)o;
}

const char *scxpol_cpuset_str(const struct scxpol_cpuset *s, char *buf, size_t len)
{
	format_list(s, buf, len, true);
	return buf;
}

const uint64_t *scxpol_cpuset_words(const struct scxpol_cpuset *s, size_t *nr_words)
{
	if (nr_words)
		*nr_words = s ? s->nr_words : 0;
	return s ? s->words : NULL;
}
