// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats: counter snapshots, their JSON form, the requests the socket server
 * answers (lib/stats_socket.c) and the client's fetch of a snapshot.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/abi/pool.h"
#include "scxpol/pool.h"
#include "scxpol/sched.h"
#include "scxpol/stats.h"

#define STATS_MAP "scxpol_stats"
/* <scxpol/abi/pool.h>: the pool configuration's section; max_pools 0 = no pools */
#define POOL_CONF_SECTION ".rodata.scxpol_pool"
#define MAX_RESPONSE (1U << 20)

static const char *const lib_names[SCXPOL_STAT_NR] = { SCXPOL_STAT_NAMES };
_Static_assert(SCXPOL_STAT_NR <= SCXPOL_STAT_LIB_SLOTS, "library counters fit their slots");

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- Reading ----------------------------------------------------------------- */

static bool good_name(const char *n)
{
	size_t i, len = strlen(n);

	if (!len || len >= SCXPOL_STAT_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
			return false;
	return true;
}

int scxpol_stats_check_user_names(const struct scxpol_stats_opts *o, char *err, size_t len)
{
	const char *const *names = OPTS_GET(o, user_names, NULL);
	unsigned int nr = OPTS_GET(o, nr_user, 0), i, j;

	if (nr > SCXPOL_STAT_USER_NR) {
		snprintf(err, len, "stats opts: nr_user %u is more than %u", nr, SCXPOL_STAT_USER_NR);
		return -EINVAL;
	}
	if (nr && !names) {
		snprintf(err, len, "stats opts: nr_user is %u but user_names is NULL", nr);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (!names[i])
			continue;
		if (!good_name(names[i])) {
			snprintf(err, len, "stats user counter %u: name '%.64s' is not 1..%d "
				 "characters of [a-z0-9_]", i, names[i], SCXPOL_STAT_NAME_LEN - 1);
			return -EINVAL;
		}
		for (j = 0; j < SCXPOL_STAT_NR; j++)
			if (!strcmp(names[i], lib_names[j]))
				goto dup;
		for (j = 0; j < i; j++)
			if (names[j] && !strcmp(names[i], names[j]))
				goto dup;
	}
	return 0;
dup:
	snprintf(err, len, "stats user counter %u: name '%s' is taken by another counter", i,
		 names[i]);
	return -EINVAL;
}

int scxpol_stats_check_object(struct bpf_object *obj, const char *policy)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, STATS_MAP);
	__u32 n;

	if (!map)
		return 0;
	n = bpf_map__max_entries(map);
	if (n != SCXPOL_STAT_TOTAL || bpf_map__value_size(map) != sizeof(__u64))
		return scxpol_err(EPROTO, "%s: its '" STATS_MAP "' map has %u slots of %u bytes, "
				  "this libscxpol's have %u of 8 (%u library, then %u policy "
				  "counters): the BPF object was built against another version of "
				  "<scxpol/abi/stats.h>; rebuild it against this library's", policy,
				  n, bpf_map__value_size(map), SCXPOL_STAT_TOTAL,
				  SCXPOL_STAT_LIB_SLOTS, SCXPOL_STAT_USER_NR);
	return 0;
}

/* Whether the policy in @obj has set its pools up (scxpol_pool_setup()). */
static bool uses_pools(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, POOL_CONF_SECTION);
	const struct scxpol_pool_conf *conf;
	size_t sz = 0;

	if (!map)
		return false;
	conf = bpf_map__initial_value(map, &sz);
	return conf && sz == sizeof(*conf) && conf->max_pools;
}

/* The default pools of a snapshot: what scxpol_pool_read() reports. */
static int read_pools(struct scxpol_sched *s, struct scxpol_stats_pool *out, unsigned int max,
		      char *err, size_t len)
{
	struct scxpol_pool_stat *ps = calloc(max, sizeof(*ps));
	unsigned int i;
	int n;

	_Static_assert(SCXPOL_STAT_NAME_LEN >= SCXPOL_POOL_NAME_LEN, "pool names fit");
	_Static_assert(SCXPOL_STATS_POOL_CPUS_LEN >= SCXPOL_POOL_CPUS_LEN, "CPU lists fit");
	if (!ps) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	n = scxpol_pool_read(s, NULL, ps, max, NULL);
	if (n < 0)
		snprintf(err, len, "%s", scxpol_last_error());
	for (i = 0; n > 0 && i < (unsigned int)n && i < max; i++) {
		snprintf(out[i].name, sizeof(out[i].name), "%s", ps[i].name);
		snprintf(out[i].cpus, sizeof(out[i].cpus), "%s", ps[i].cpus);
		out[i].nr_cpus = ps[i].nr_cpus;
		out[i].queued = ps[i].queued;
	}
	free(ps);
	return n;
}

/* Read the counters and pools of the locked object @obj; message into @err. */
static int read_locked(struct scxpol_sched *s, struct bpf_object *obj,
		       const struct scxpol_stats_opts *o, struct scxpol_stats *out, char *err,
		       size_t len)
{
	const char *const *names = OPTS_GET(o, user_names, NULL);
	unsigned int nr_user = OPTS_GET(o, nr_user, 0);
	scxpol_stats_pools_fn pools = OPTS_GET(o, pools, NULL);
	struct bpf_map *map;
	int ncpu, cpu, r;
	__u32 key;
	__u64 *vals;

	map = bpf_object__find_map_by_name(obj, STATS_MAP);
	if (!map) {
		snprintf(err, len, "%s: the BPF object has no '" STATS_MAP "' map (include "
			 "<scxpol/stats.bpf.h>)", scxpol_sched_name(s));
		return -ENOENT;
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		snprintf(err, len, "cannot count the possible CPUs: %s", strerror(-ncpu));
		return ncpu ? ncpu : -EINVAL;
	}
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	out->nr = 0;
	for (key = 0; key < SCXPOL_STAT_TOTAL; key++) {
		const char *name;
		__u64 sum = 0;

		if (key < SCXPOL_STAT_NR)
			name = lib_names[key];
		else if (key >= SCXPOL_STAT_USER_BASE && key - SCXPOL_STAT_USER_BASE < nr_user &&
			 names[key - SCXPOL_STAT_USER_BASE])
			name = names[key - SCXPOL_STAT_USER_BASE];
		else
			continue;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), vals, (size_t)ncpu * sizeof(*vals),
					 0)) {
			r = -errno;
			snprintf(err, len, "%s: cannot read " STATS_MAP "[%u]: %s",
				 scxpol_sched_name(s), key, strerror(errno));
			free(vals);
			return r;
		}
		for (cpu = 0; cpu < ncpu; cpu++)
			sum += vals[cpu];
		snprintf(out->v[out->nr].name, sizeof(out->v[out->nr].name), "%s", name);
		out->v[out->nr++].value = sum;
	}
	free(vals);
	out->nr_pools = 0;
	if (pools) {
		r = pools(s, out->pools, SCXPOL_STATS_MAX_POOLS, OPTS_GET(o, pools_ctx, NULL));
		if (r < 0)
			snprintf(err, len, "%s: reading the pools failed: %s", scxpol_sched_name(s),
				 strerror(-r));
	} else if (uses_pools(obj)) {
		r = read_pools(s, out->pools, SCXPOL_STATS_MAX_POOLS, err, len);
	} else {
		r = 0;
	}
	if (r < 0)
		return r;
	out->nr_pools = (unsigned int)r < SCXPOL_STATS_MAX_POOLS ? (unsigned int)r
								 : SCXPOL_STATS_MAX_POOLS;
	return 0;
}

/* scxpol_stats_read() without touching the caller's last error; message into @err. */
static int stats_read(struct scxpol_sched *s, const struct scxpol_stats_opts *o,
		      struct scxpol_stats *out, char *err, size_t len)
{
	struct bpf_object *obj;
	int r;

	r = scxpol_stats_check_user_names(o, err, len);
	if (r)
		return r;
	memset(out, 0, sizeof(*out));
	obj = scxpol_sched_lock(s);
	snprintf(out->policy, sizeof(out->policy), "%s", scxpol_sched_name(s));
	if (!obj) {
		snprintf(err, len, "policy '%s' is not loaded (restarting?)", scxpol_sched_name(s));
		scxpol_sched_unlock(s);
		return -ENODATA;
	}
	out->restarts = scxpol_sched_restarts(s);
	out->time_ns = mono_ns();
	r = read_locked(s, obj, o, out, err, len);
	scxpol_sched_unlock(s);
	return r;
}

int scxpol_stats_read(struct scxpol_sched *s, const struct scxpol_stats_opts *opts,
		      struct scxpol_stats *out)
{
	SCXPOL_NONNULL(s, "scheduler");
	SCXPOL_NONNULL(out, "output");
	char err[256];
	int r;

	scxpol_err_clear();
	if (!OPTS_VALID(opts, scxpol_stats_opts))
		return -EINVAL;
	r = stats_read(s, opts, out, err, sizeof(err));
	return r ? scxpol_err(-r, "%s", err) : 0;
}

const struct scxpol_stat_value *scxpol_stats_find(const struct scxpol_stats *st, const char *name)
{
	unsigned int i;

	for (i = 0; i < st->nr && i < SCXPOL_STAT_TOTAL; i++)
		if (!strcmp(st->v[i].name, name))
			return &st->v[i];
	return NULL;
}

/* ---- JSON out ---------------------------------------------------------------- */

/* Writes into buf[len]; pos counts what the whole text needs. */
/*
 * Bytes in the valid UTF-8 sequence at @s (at most @n bytes, or up to a
 * NUL), or 0: JSON text is UTF-8 (RFC 8259), and a byte outside a valid
 * sequence (a Latin-1 name, a name cut inside a character) would make
 * every strict reader refuse the whole line.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1fU;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0fU;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07U;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fU);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

struct jw {
	char *buf;
	size_t len, pos;
};

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (w->pos + n < w->len)
		memcpy(w->buf + w->pos, s, n);
	w->pos += n;
}

static void jw_lit(struct jw *w, const char *s)
{
	jw_raw(w, s, strlen(s));
}

static void jw_str(struct jw *w, const char *s)
{
	char esc[8];

	jw_raw(w, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jw_raw(w, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			jw_raw(w, esc, 6);
		} else {
			/*
			 * Snapshots are checked before they are written (check_snapshot());
			 * what is left is message text, where a name cut short by "%.40s"
			 * may end inside a character: that byte becomes U+FFFD.
			 */
			size_t n = utf8_seq((const unsigned char *)s, 4);

			if (n)
				jw_raw(w, s, n);
			else
				jw_lit(w, "\\ufffd");
			s += n ? n - 1 : 0;
		}
	}
	jw_raw(w, "\"", 1);
}

static void jw_u64(struct jw *w, uint64_t v)
{
	char num[24];

	jw_raw(w, num, (size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)v));
}

static void jw_snapshot(struct jw *w, const struct scxpol_stats *st)
{
	unsigned int i;

	jw_lit(w, "{\"policy\":");
	jw_str(w, st->policy);
	jw_lit(w, ",\"restarts\":");
	jw_u64(w, st->restarts);
	jw_lit(w, ",\"time_ns\":");
	jw_u64(w, st->time_ns);
	jw_lit(w, ",\"counters\":{");
	for (i = 0; i < st->nr; i++) {
		if (i)
			jw_raw(w, ",", 1);
		jw_str(w, st->v[i].name);
		jw_raw(w, ":", 1);
		jw_u64(w, st->v[i].value);
	}
	jw_lit(w, "},\"pools\":[");
	for (i = 0; i < st->nr_pools; i++) {
		const struct scxpol_stats_pool *p = &st->pools[i];

		jw_lit(w, i ? ",{\"name\":" : "{\"name\":");
		jw_str(w, p->name);
		jw_lit(w, ",\"cpus\":");
		jw_str(w, p->cpus);
		jw_lit(w, ",\"nr_cpus\":");
		jw_u64(w, p->nr_cpus);
		jw_lit(w, ",\"queued\":");
		jw_u64(w, p->queued);
		jw_raw(w, "}", 1);
	}
	jw_lit(w, "]}");
}

/* Text field @what of a snapshot: NUL-terminated within its @max bytes, UTF-8. */
static int check_text(const char *s, size_t max, const char *what)
{
	size_t len = strnlen(s, max), i, n;

	if (len == max)
		return scxpol_err(EINVAL, "stats snapshot: %s has no NUL within its %zu bytes",
				  what, max);
	for (i = 0; i < len; i += n) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (!n)
			return scxpol_err(EINVAL, "stats snapshot: %s is not UTF-8 (byte 0x%02x at "
					  "offset %zu)", what, (unsigned char)s[i], i);
	}
	return 0;
}

/*
 * A snapshot filled by hand is written only if scxpol_stats_parse() reads
 * it back the same: every counter and pool within its array, counter
 * names non-empty and each used once (a JSON member given twice is
 * refused), all text UTF-8.
 */
static int check_snapshot(const struct scxpol_stats *st)
{
	char what[64];
	unsigned int i, j;
	int r;

	r = check_text(st->policy, sizeof(st->policy), "policy");
	if (r)
		return r;
	if (st->nr > SCXPOL_STAT_TOTAL)
		return scxpol_err(EINVAL, "stats snapshot: nr is %u, more than its %d counter slots",
				  st->nr, SCXPOL_STAT_TOTAL);
	for (i = 0; i < st->nr; i++) {
		snprintf(what, sizeof(what), "counter %u's name", i);
		r = check_text(st->v[i].name, SCXPOL_STAT_NAME_LEN, what);
		if (r)
			return r;
		if (!st->v[i].name[0])
			return scxpol_err(EINVAL, "stats snapshot: counter %u's name is empty", i);
		for (j = 0; j < i; j++)
			if (!strcmp(st->v[j].name, st->v[i].name))
				return scxpol_err(EINVAL, "stats snapshot: counters %u and %u are both "
						  "named '%s'", j, i, st->v[i].name);
	}
	if (st->nr_pools > SCXPOL_STATS_MAX_POOLS)
		return scxpol_err(EINVAL, "stats snapshot: nr_pools is %u, more than its %d pool "
				  "slots", st->nr_pools, SCXPOL_STATS_MAX_POOLS);
	for (i = 0; i < st->nr_pools; i++) {
		snprintf(what, sizeof(what), "pool %u's name", i);
		r = check_text(st->pools[i].name, SCXPOL_STAT_NAME_LEN, what);
		if (r)
			return r;
		snprintf(what, sizeof(what), "pool %u's cpus", i);
		r = check_text(st->pools[i].cpus, SCXPOL_STATS_POOL_CPUS_LEN, what);
		if (r)
			return r;
	}
	return 0;
}

/* Terminate: the length, or -ENOSPC with the buffer emptied. */
static int jw_end(struct jw *w)
{
	if (w->pos >= w->len) {
		if (w->len)
			w->buf[0] = '\0';
		return scxpol_err_quiet(ENOSPC, "stats JSON needs %zu bytes, the buffer has %zu",
					w->pos + 1, w->len);
	}
	w->buf[w->pos] = '\0';
	return (int)w->pos;
}

int scxpol_stats_json(const struct scxpol_stats *st, char *buf, size_t len)
{
	SCXPOL_NONNULL(st, "snapshot");
	SCXPOL_NONNULL(buf, "buffer");
	struct jw w = { .buf = buf, .len = len };
	int r = check_snapshot(st);

	if (r) {
		if (len)
			buf[0] = '\0';
		return r;
	}
	jw_snapshot(&w, st);
	return jw_end(&w);
}

int scxpol_stats_json_file(const struct scxpol_stats *st, FILE *f)
{
	SCXPOL_NONNULL(st, "snapshot");
	SCXPOL_NONNULL(f, "stream");
	struct jw w = { 0 };
	int r = check_snapshot(st);

	if (r)
		return r;
	jw_snapshot(&w, st);
	w.len = w.pos + 1;
	w.buf = malloc(w.len);
	if (!w.buf)
		return scxpol_err(ENOMEM, "out of memory");
	w.pos = 0;
	jw_snapshot(&w, st);
	jw_end(&w);
	if (fprintf(f, "%s\n", w.buf) < 0) {
		free(w.buf);
		return scxpol_err(EIO, "cannot write the stats JSON: %s", strerror(errno));
	}
	free(w.buf);
	return 0;
}

/* ---- JSON in ----------------------------------------------------------------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	int type;
	bool is_uint;  /* J_NUM: a non-negative integer that fits in u64 */
	uint64_t u;
	int key;       /* offset in strs of the member name, -1 outside objects */
	size_t at;     /* the member name's byte in the input, for messages */
	int str;       /* J_STR: offset in strs */
	int child;     /* first element/member, -1 none */
	int next;      /* next sibling, -1 none */
};

struct jdoc {
	const char *in;
	size_t len, pos;
	struct jnode *n;
	int nr, cap;
	char *strs;    /* decoded strings, NUL-terminated; never longer than the input */
	size_t spos;
	int depth;
	char err[160];
};

#define JSON_MAX_DEPTH 32

/* "column C" of byte @pos, or "line L, column C" in text of several lines. */
static void jat(const struct jdoc *d, size_t pos, char *buf, size_t len)
{
	size_t i, line = 1, start = 0;

	for (i = 0; i < pos && i < d->len; i++)
		if (d->in[i] == '\n') {
			line++;
			start = i + 1;
		}
	if (line > 1)
		snprintf(buf, len, "line %zu, column %zu", line, pos - start + 1);
	else
		snprintf(buf, len, "column %zu", pos + 1);
}

static int jerr(struct jdoc *d, const char *what)
{
	char at[64];

	jat(d, d->pos, at, sizeof(at));
	snprintf(d->err, sizeof(d->err), "bad JSON at %s: %s%s", at, what,
		 d->pos >= d->len ? " (the text ends there)" : "");
	return -1;
}

static void jws(struct jdoc *d)
{
	/* not strchr(): it would take a NUL byte for white space */
	while (d->pos < d->len && (d->in[d->pos] == ' ' || d->in[d->pos] == '\t' ||
				   d->in[d->pos] == '\r' || d->in[d->pos] == '\n'))
		d->pos++;
}

static int jnew(struct jdoc *d, int type)
{
	if (d->nr == d->cap) {
		int cap = d->cap ? d->cap * 2 : 32;
		struct jnode *n = realloc(d->n, (size_t)cap * sizeof(*n));

		if (!n) {
			snprintf(d->err, sizeof(d->err), "out of memory");
			return -1;
		}
		d->n = n;
		d->cap = cap;
	}
	memset(&d->n[d->nr], 0, sizeof(d->n[d->nr]));
	d->n[d->nr].type = type;
	d->n[d->nr].key = d->n[d->nr].str = -1;
	d->n[d->nr].child = d->n[d->nr].next = -1;
	return d->nr++;
}

static void jput_utf8(struct jdoc *d, unsigned int cp)
{
	char *o = d->strs + d->spos;

	if (cp < 0x80) {
		o[0] = (char)cp;
		d->spos += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		d->spos += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		d->spos += 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		d->spos += 4;
	}
}

static int jhex4(struct jdoc *d, unsigned int *cp)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++, d->pos++) {
		char c = d->pos < d->len ? d->in[d->pos] : '\0';

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return jerr(d, "expected 4 hex digits after \\u");
	}
	*cp = v;
	return 0;
}

/* A string at d->pos (the opening quote); its offset in strs, or -1. */
static int jstring(struct jdoc *d)
{
	int start = (int)d->spos;

	d->pos++;
	for (;;) {
		unsigned char c;

		if (d->pos >= d->len)
			return jerr(d, "unterminated string");
		c = (unsigned char)d->in[d->pos];
		if (c == '"') {
			d->pos++;
			d->strs[d->spos++] = '\0';
			return start;
		}
		if (c < 0x20)
			return jerr(d, "control character in a string");
		if (c != '\\') {
			size_t n = utf8_seq((const unsigned char *)d->in + d->pos, d->len - d->pos);

			if (!n)
				return jerr(d, "a string that is not UTF-8");
			memcpy(d->strs + d->spos, d->in + d->pos, n);
			d->spos += n;
			d->pos += n;
			continue;
		}
		d->pos++;
		c = d->pos < d->len ? (unsigned char)d->in[d->pos] : 0;
		switch (c) {
		case '"': case '\\': case '/':
			d->strs[d->spos++] = (char)c;
			break;
		case 'b': d->strs[d->spos++] = '\b'; break;
		case 'f': d->strs[d->spos++] = '\f'; break;
		case 'n': d->strs[d->spos++] = '\n'; break;
		case 'r': d->strs[d->spos++] = '\r'; break;
		case 't': d->strs[d->spos++] = '\t'; break;
		case 'u': {
			unsigned int cp, lo;

			d->pos++;
			if (jhex4(d, &cp))
				return -1;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return jerr(d, "unpaired low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (d->pos + 1 >= d->len || d->in[d->pos] != '\\' ||
				    d->in[d->pos + 1] != 'u')
					return jerr(d, "unpaired high surrogate");
				d->pos += 2;
				if (jhex4(d, &lo))
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return jerr(d, "bad low surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (!cp)
				return jerr(d, "\\u0000 in a string");
			jput_utf8(d, cp);
			continue;
		}
		default:
			return jerr(d, "bad escape in a string");
		}
		d->pos++;
	}
}

static int jnumber(struct jdoc *d, int node)
{
	size_t start = d->pos;
	bool is_uint = true;
	uint64_t v = 0;

	if (d->in[d->pos] == '-') {
		is_uint = false;
		d->pos++;
	}
	if (d->pos >= d->len || d->in[d->pos] < '0' || d->in[d->pos] > '9')
		return jerr(d, "expected a digit");
	if (d->in[d->pos] == '0' && d->pos + 1 < d->len && d->in[d->pos + 1] >= '0' &&
	    d->in[d->pos + 1] <= '9')
		return jerr(d, "leading zero in a number");
	while (d->pos < d->len && d->in[d->pos] >= '0' && d->in[d->pos] <= '9') {
		unsigned int digit = (unsigned int)(d->in[d->pos] - '0');

		if (v > (UINT64_MAX - digit) / 10)
			is_uint = false;
		v = v * 10 + digit;
		d->pos++;
	}
	if (d->pos < d->len && d->in[d->pos] == '.') {
		is_uint = false;
		d->pos++;
		if (d->pos >= d->len || d->in[d->pos] < '0' || d->in[d->pos] > '9')
			return jerr(d, "expected a digit after '.'");
		while (d->pos < d->len && d->in[d->pos] >= '0' && d->in[d->pos] <= '9')
			d->pos++;
	}
	if (d->pos < d->len && (d->in[d->pos] == 'e' || d->in[d->pos] == 'E')) {
		is_uint = false;
		d->pos++;
		if (d->pos < d->len && (d->in[d->pos] == '+' || d->in[d->pos] == '-'))
			d->pos++;
		if (d->pos >= d->len || d->in[d->pos] < '0' || d->in[d->pos] > '9')
			return jerr(d, "expected a digit in the exponent");
		while (d->pos < d->len && d->in[d->pos] >= '0' && d->in[d->pos] <= '9')
			d->pos++;
	}
	(void)start;
	d->n[node].is_uint = is_uint;
	d->n[node].u = is_uint ? v : 0;
	return 0;
}

static int jvalue(struct jdoc *d);

/* Members or elements up to @close; @obj says whether they have keys. */
struct jkey {
	const char *name;
	size_t at;
};

static int jkey_cmp(const void *a, const void *b)
{
	const struct jkey *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->at > y->at) - (x->at < y->at);
}

/*
 * Object @node's members, each name once: a lookup finds the first, and a
 * second would be read as the first. Sorted, not compared pairwise: a
 * 1 MiB response can hold 10^5 members.
 */
static int jdup(struct jdoc *d, int node)
{
	struct jkey *k;
	size_t nr = 0, i, dup = SIZE_MAX;
	char where[64];
	int c;

	for (c = d->n[node].child; c >= 0; c = d->n[c].next)
		nr++;
	if (nr < 2)
		return 0;
	k = malloc(nr * sizeof(*k));
	if (!k) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return -1;
	}
	for (i = 0, c = d->n[node].child; c >= 0; c = d->n[c].next, i++)
		k[i] = (struct jkey){ d->strs + d->n[c].key, d->n[c].at };
	qsort(k, nr, sizeof(*k), jkey_cmp);
	/* the second name of a pair, the first such in the text */
	for (i = 1; i < nr; i++)
		if (!strcmp(k[i - 1].name, k[i].name) && (dup == SIZE_MAX || k[i].at < k[dup].at))
			dup = i;
	if (dup != SIZE_MAX) {
		jat(d, k[dup].at, where, sizeof(where));
		snprintf(d->err, sizeof(d->err), "bad JSON at %s: member \"%.40s\" given twice",
			 where, k[dup].name);
	}
	free(k);
	return dup == SIZE_MAX ? 0 : -1;
}

static int jcontainer(struct jdoc *d, int node, bool obj)
{
	char close = obj ? '}' : ']';
	int last = -1;

	if (++d->depth > JSON_MAX_DEPTH)
		return jerr(d, "nested too deeply");
	d->pos++;
	jws(d);
	if (d->pos < d->len && d->in[d->pos] == close) {
		d->pos++;
		d->depth--;
		return 0;
	}
	for (;;) {
		int key = -1, child;
		size_t at = 0;

		jws(d);
		if (obj) {
			if (d->pos >= d->len || d->in[d->pos] != '"')
				return jerr(d, "expected a member name");
			at = d->pos;
			key = jstring(d);
			if (key < 0)
				return -1;
			jws(d);
			if (d->pos >= d->len || d->in[d->pos] != ':')
				return jerr(d, "expected ':'");
			d->pos++;
		}
		child = jvalue(d);
		if (child < 0)
			return -1;
		d->n[child].key = key;
		d->n[child].at = at;
		if (last < 0)
			d->n[node].child = child;
		else
			d->n[last].next = child;
		last = child;
		jws(d);
		if (d->pos < d->len && d->in[d->pos] == ',') {
			d->pos++;
			continue;
		}
		if (d->pos < d->len && d->in[d->pos] == close) {
			d->pos++;
			d->depth--;
			return obj ? jdup(d, node) : 0;
		}
		return jerr(d, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

/* A value at d->pos; its node index, or -1. */
static int jvalue(struct jdoc *d)
{
	static const struct { const char *lit; int type; bool b; } lits[] = {
		{ "true", J_BOOL, true }, { "false", J_BOOL, false }, { "null", J_NULL, false },
	};
	int node;
	size_t i;
	char c, at[64];

	jws(d);
	if (d->pos >= d->len)
		return jerr(d, "expected a value");
	c = d->in[d->pos];
	if (c == '{' || c == '[') {
		node = jnew(d, c == '{' ? J_OBJ : J_ARR);
		if (node < 0 || jcontainer(d, node, c == '{'))
			return -1;
		return node;
	}
	if (c == '"') {
		node = jnew(d, J_STR);
		if (node < 0)
			return -1;
		d->n[node].str = jstring(d);
		return d->n[node].str < 0 ? -1 : node;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		node = jnew(d, J_NUM);
		if (node < 0 || jnumber(d, node))
			return -1;
		return node;
	}
	for (i = 0; i < ARRAY_SIZE(lits); i++) {
		size_t n = strlen(lits[i].lit);

		if (d->len - d->pos >= n && !memcmp(d->in + d->pos, lits[i].lit, n)) {
			node = jnew(d, lits[i].type);
			if (node < 0)
				return -1;
			d->n[node].u = lits[i].b;
			d->pos += n;
			return node;
		}
	}
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		return jerr(d, "unexpected byte");
	jat(d, d->pos, at, sizeof(at));
	snprintf(d->err, sizeof(d->err), "bad JSON at %s: unexpected '%c'", at, c);
	return -1;
}

/* Parse @len bytes of @in as one JSON value; 0, or -1 with d->err set. */
static int jparse(struct jdoc *d, const char *in, size_t len)
{
	memset(d, 0, sizeof(*d));
	d->in = in;
	d->len = len;
	d->strs = malloc(len + 1);
	if (!d->strs) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return -1;
	}
	if (jvalue(d) < 0)
		return -1;
	jws(d);
	if (d->pos < d->len)
		return jerr(d, "text after the value");
	return 0;
}

static void jfree(struct jdoc *d)
{
	free(d->n);
	free(d->strs);
}

/* Member @name of object node @obj, or -1. */
static int jget(const struct jdoc *d, int obj, const char *name)
{
	int c;

	for (c = d->n[obj].child; c >= 0; c = d->n[c].next)
		if (!strcmp(d->strs + d->n[c].key, name))
			return c;
	return -1;
}

static const char *const jtype_names[] = { "null", "a boolean", "a number", "a string",
					   "an array", "an object" };

/* Member @name of @obj as an unsigned integer; message into err on failure. */
static int jget_u64(const struct jdoc *d, int obj, const char *name, uint64_t *v, char *err,
		    size_t len)
{
	int c = jget(d, obj, name);

	if (c < 0) {
		snprintf(err, len, "no \"%s\" member", name);
		return -EINVAL;
	}
	if (d->n[c].type != J_NUM || !d->n[c].is_uint) {
		snprintf(err, len, "\"%s\" is %s, not an unsigned integer", name,
			 d->n[c].type == J_NUM ? "a negative, fractional or huge number"
					       : jtype_names[d->n[c].type]);
		return -EINVAL;
	}
	*v = d->n[c].u;
	return 0;
}

/* jget_u64() for a member stored in an unsigned int: larger values are errors, not cut. */
static int jget_uint(const struct jdoc *d, int obj, const char *name, unsigned int *v, char *err,
		     size_t len)
{
	uint64_t u;
	int r = jget_u64(d, obj, name, &u, err, len);

	if (r)
		return r;
	if (u > UINT_MAX) {
		snprintf(err, len, "\"%s\" is %llu, more than %u", name, (unsigned long long)u,
			 UINT_MAX);
		return -EINVAL;
	}
	*v = (unsigned int)u;
	return 0;
}

/* Member @name of @obj as a string of at most @max - 1 bytes. */
static int jget_str(const struct jdoc *d, int obj, const char *name, char *out, size_t max,
		    char *err, size_t len)
{
	int c = jget(d, obj, name);

	if (c < 0) {
		snprintf(err, len, "no \"%s\" member", name);
		return -EINVAL;
	}
	if (d->n[c].type != J_STR) {
		snprintf(err, len, "\"%s\" is %s, not a string", name, jtype_names[d->n[c].type]);
		return -EINVAL;
	}
	if (strlen(d->strs + d->n[c].str) >= max) {
		snprintf(err, len, "\"%s\" is longer than %zu bytes", name, max - 1);
		return -EINVAL;
	}
	snprintf(out, max, "%s", d->strs + d->n[c].str);
	return 0;
}

/* Object node @obj of @d as a snapshot. */
static int parse_snapshot(const struct jdoc *d, int obj, struct scxpol_stats *out, char *err,
			  size_t len)
{
	uint64_t v;
	int c, i, r;

	memset(out, 0, sizeof(*out));
	if (d->n[obj].type != J_OBJ) {
		snprintf(err, len, "the snapshot is %s, not an object", jtype_names[d->n[obj].type]);
		return -EINVAL;
	}
	r = jget_str(d, obj, "policy", out->policy, sizeof(out->policy), err, len);
	if (!r)
		r = jget_uint(d, obj, "restarts", &out->restarts, err, len);
	if (r)
		return r;
	r = jget_u64(d, obj, "time_ns", &out->time_ns, err, len);
	if (r)
		return r;
	c = jget(d, obj, "counters");
	if (c < 0 || d->n[c].type != J_OBJ) {
		snprintf(err, len, "\"counters\" is %s, not an object",
			 c < 0 ? "missing" : jtype_names[d->n[c].type]);
		return -EINVAL;
	}
	for (i = d->n[c].child; i >= 0; i = d->n[i].next) {
		const char *name = d->strs + d->n[i].key;

		if (out->nr == SCXPOL_STAT_TOTAL) {
			snprintf(err, len, "more than %d counters", SCXPOL_STAT_TOTAL);
			return -EINVAL;
		}
		if (strlen(name) >= SCXPOL_STAT_NAME_LEN || !name[0]) {
			snprintf(err, len, "counter name '%.40s' is not 1..%d bytes", name,
				 SCXPOL_STAT_NAME_LEN - 1);
			return -EINVAL;
		}
		r = jget_u64(d, c, name, &v, err, len);
		if (r)
			return r;
		snprintf(out->v[out->nr].name, SCXPOL_STAT_NAME_LEN, "%s", name);
		out->v[out->nr++].value = v;
	}
	c = jget(d, obj, "pools");
	if (c < 0 || d->n[c].type != J_ARR) {
		snprintf(err, len, "\"pools\" is %s, not an array",
			 c < 0 ? "missing" : jtype_names[d->n[c].type]);
		return -EINVAL;
	}
	for (i = d->n[c].child; i >= 0; i = d->n[i].next) {
		struct scxpol_stats_pool *p = &out->pools[out->nr_pools];

		if (out->nr_pools == SCXPOL_STATS_MAX_POOLS) {
			snprintf(err, len, "more than %d pools", SCXPOL_STATS_MAX_POOLS);
			return -EINVAL;
		}
		if (d->n[i].type != J_OBJ) {
			snprintf(err, len, "pool %u is %s, not an object", out->nr_pools,
				 jtype_names[d->n[i].type]);
			return -EINVAL;
		}
		r = jget_str(d, i, "name", p->name, sizeof(p->name), err, len);
		if (!r)
			r = jget_str(d, i, "cpus", p->cpus, sizeof(p->cpus), err, len);
		if (!r)
			r = jget_uint(d, i, "nr_cpus", &p->nr_cpus, err, len);
		if (!r)
			r = jget_u64(d, i, "queued", &p->queued, err, len);
		if (r)
			return r;
		out->nr_pools++;
	}
	return 0;
}

int scxpol_stats_parse(const char *json, struct scxpol_stats *out)
{
	SCXPOL_NONNULL(json, "JSON text");
	SCXPOL_NONNULL(out, "output");
	struct jdoc d;
	char err[192];
	int r;

	scxpol_err_clear();
	if (!json)
		return scxpol_err(EINVAL, "stats snapshot: the text is NULL");
	if (jparse(&d, json, strlen(json))) {
		r = scxpol_err(EINVAL, "stats snapshot: %s", d.err);
	} else {
		r = parse_snapshot(&d, 0, out, err, sizeof(err));
		if (r)
			r = scxpol_err(-r, "stats snapshot: %s", err);
	}
	jfree(&d);
	return r;
}

/* ---- Requests ---------------------------------------------------------------- */

static const char *const requests[] = { "list", "stats" };

int scxpol_stats_parse_request(const char *line, size_t len, char *req, size_t req_len,
			       char *err, size_t err_len)
{
	struct jdoc d;
	int c, r = -EINVAL;

	if (len > SCXPOL_STATS_MAX_LINE) {
		snprintf(err, err_len, "request longer than %d bytes", SCXPOL_STATS_MAX_LINE);
		return -E2BIG;
	}
	if (jparse(&d, line, len)) {
		snprintf(err, err_len, "%s", d.err);
		goto out;
	}
	if (d.n[0].type != J_OBJ) {
		snprintf(err, err_len, "the request is %s, not an object like {\"req\":\"stats\"}",
			 jtype_names[d.n[0].type]);
		goto out;
	}
	c = jget(&d, 0, "req");
	if (c < 0) {
		snprintf(err, err_len, "the request has no \"req\" member (try {\"req\":\"list\"})");
		goto out;
	}
	if (d.n[c].type != J_STR) {
		snprintf(err, err_len, "\"req\" is %s, not a string", jtype_names[d.n[c].type]);
		goto out;
	}
	if (strlen(d.strs + d.n[c].str) >= req_len) {
		snprintf(err, err_len, "unknown request (a \"req\" of %zu bytes)",
			 strlen(d.strs + d.n[c].str));
		goto out;
	}
	snprintf(req, req_len, "%s", d.strs + d.n[c].str);
	r = 0;
out:
	jfree(&d);
	return r;
}

char *scxpol_stats_error_response(int err, const char *msg)
{
	struct jw w = { 0 };
	int pass;

	for (pass = 0; pass < 2; pass++) {
		w.pos = 0;
		jw_lit(&w, "{\"errno\":");
		jw_u64(&w, (uint64_t)err);
		jw_lit(&w, ",\"resp\":null,\"error\":");
		jw_str(&w, msg);
		jw_raw(&w, "}", 1);
		if (pass)
			break;
		w.len = w.pos + 1;
		w.buf = malloc(w.len);
		if (!w.buf)
			return NULL;
	}
	jw_end(&w);
	return w.buf;
}

char *scxpol_stats_respond(struct scxpol_sched *s, const struct scxpol_stats_opts *o,
			   const char *line, size_t len)
{
	const char *const *names = OPTS_GET(o, user_names, NULL);
	unsigned int nr_user = OPTS_GET(o, nr_user, 0);
	struct scxpol_stats *st = NULL;
	char req[64], err[256];
	struct jw w = { 0 };
	unsigned int i;
	int r, pass;

	r = scxpol_stats_parse_request(line, len, req, sizeof(req), err, sizeof(err));
	if (r)
		return scxpol_stats_error_response(-r, err);
	if (!strcmp(req, "stats")) {
		st = malloc(sizeof(*st));
		if (!st)
			return scxpol_stats_error_response(ENOMEM, "out of memory");
		r = stats_read(s, o, st, err, sizeof(err));
		if (r) {
			free(st);
			return scxpol_stats_error_response(-r, err);
		}
	} else if (strcmp(req, "list")) {
		struct jw m = { .buf = err, .len = sizeof(err) };

		jw_lit(&m, "unknown request ");
		jw_str(&m, req);
		jw_lit(&m, "; known:");
		for (i = 0; i < ARRAY_SIZE(requests); i++) {
			jw_lit(&m, i ? ", " : " ");
			jw_lit(&m, requests[i]);
		}
		jw_end(&m);
		return scxpol_stats_error_response(EINVAL, err);
	}
	for (pass = 0; pass < 2; pass++) {
		w.pos = 0;
		jw_lit(&w, "{\"errno\":0,\"resp\":");
		if (st) {
			jw_snapshot(&w, st);
		} else {
			jw_lit(&w, "{\"requests\":[");
			for (i = 0; i < ARRAY_SIZE(requests); i++) {
				if (i)
					jw_raw(&w, ",", 1);
				jw_str(&w, requests[i]);
			}
			jw_lit(&w, "],\"counters\":[");
			for (i = 0; i < SCXPOL_STAT_NR; i++) {
				if (i)
					jw_raw(&w, ",", 1);
				jw_str(&w, lib_names[i]);
			}
			for (i = 0; i < nr_user && names; i++) {
				if (!names[i])
					continue;
				jw_raw(&w, ",", 1);
				jw_str(&w, names[i]);
			}
			jw_raw(&w, "]}", 2);
		}
		jw_raw(&w, "}", 1);
		if (pass)
			break;
		w.len = w.pos + 1;
		w.buf = malloc(w.len);
		if (!w.buf) {
			free(st);
			return NULL;
		}
	}
	jw_end(&w);
	free(st);
	return w.buf;
}

/* ---- Clients ----------------------------------------------------------------- */

int scxpol_stats_fetch(const char *path, struct scxpol_stats *out)
{
	SCXPOL_NONNULL(path, "socket path");
	SCXPOL_NONNULL(out, "output");
	char *resp, err[192], msg[256];
	uint64_t e;
	struct jdoc d;
	int r, c;

	resp = malloc(MAX_RESPONSE);
	if (!resp)
		return scxpol_err(ENOMEM, "out of memory");
	r = scxpol_stats_request(path, "{\"req\":\"stats\"}", resp, MAX_RESPONSE);
	if (r < 0) {
		free(resp);
		return r;
	}
	if (jparse(&d, resp, (size_t)r)) {
		r = scxpol_err(EPROTO, "%s: the response is not JSON: %s", path, d.err);
		goto out;
	}
	if (d.n[0].type != J_OBJ || jget_u64(&d, 0, "errno", &e, err, sizeof(err))) {
		r = scxpol_err(EPROTO, "%s: the response is not {\"errno\":N,...}", path);
		goto out;
	}
	if (e) {
		if (jget_str(&d, 0, "error", msg, sizeof(msg), err, sizeof(err)))
			snprintf(msg, sizeof(msg), "(no message)");
		r = scxpol_err(e < 4096 ? (int)e : EPROTO, "%s: the server answered errno %llu: %s",
			       path, (unsigned long long)e, msg);
		goto out;
	}
	c = jget(&d, 0, "resp");
	if (c < 0) {
		r = scxpol_err(EPROTO, "%s: the response has no \"resp\"", path);
		goto out;
	}
	r = parse_snapshot(&d, c, out, err, sizeof(err));
	if (r)
		r = scxpol_err(EPROTO, "%s: the response is not a stats snapshot: %s", path, err);
out:
	jfree(&d);
	free(resp);
	return r;
}
