// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats, the JSON side: a snapshot's JSON form both ways, the requests the
 * socket server answers (lib/stats_socket.c frames them) and the client's
 * fetches of a snapshot and of the counters' descriptors. The JSON itself is jansson's: written compact, in
 * insertion order; read with duplicate members refused and a parse error
 * placed by line and column. jansson's integers are signed 64-bit, so a
 * number above INT64_MAX is refused both ways, not cut.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "scxpol/stats.h"

#define MAX_RESPONSE (1U << 20)

static const char *const requests[] = { "list", "stats", "stats_meta" };

/*
 * Bytes in the valid UTF-8 sequence at @s (at most @n bytes), or 0: JSON
 * text is UTF-8 (RFC 8259), and jansson refuses to write a string that is
 * not.
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

/*
 * Message text @s as a JSON string, each byte outside a valid UTF-8
 * sequence as U+FFFD: a name cut short by "%.40s" may end inside a
 * character, and jansson's parse errors quote the raw bytes they stopped
 * at. NULL when out of memory.
 */
static json_t *message_json(const char *s)
{
	size_t len = strlen(s), i, n, o = 0;
	char *clean = malloc(len * 3 + 1);
	json_t *v;

	if (!clean)
		return NULL;
	for (i = 0; i < len; i += n) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (n) {
			memcpy(clean + o, s + i, n);
			o += n;
		} else {
			memcpy(clean + o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		}
	}
	v = json_stringn(clean, o);
	free(clean);
	return v;
}

/* @v as one line of JSON (malloc'd, NUL-terminated), dropping @v; NULL when out of memory. */
static char *json_line(json_t *v)
{
	size_t n = v ? json_dumpb(v, NULL, 0, JSON_COMPACT) : 0;
	char *buf = n ? malloc(n + 1) : NULL;

	if (buf) {
		json_dumpb(v, buf, n, JSON_COMPACT);
		buf[n] = '\0';
	}
	json_decref(v);
	return buf;
}

/* ---- Snapshots out ----------------------------------------------------------- */

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

/* Number field @what of a snapshot: one jansson can write (and read back). */
static int check_number(uint64_t v, const char *what)
{
	if (v > INT64_MAX)
		return scxpol_err(ERANGE, "stats snapshot: %s is %llu, more than %lld, the largest "
				  "integer the JSON library (jansson) handles", what,
				  (unsigned long long)v, (long long)INT64_MAX);
	return 0;
}

/*
 * A snapshot filled by hand is written only if scxpol_stats_parse() reads
 * it back the same: every counter and pool within its array, counter
 * names non-empty and each used once (a JSON member given twice is
 * refused), all text UTF-8, all numbers at most INT64_MAX.
 */
static int check_snapshot(const struct scxpol_stats *st)
{
	char what[96];
	unsigned int i, j;
	int r;

	r = scxpol_stats_check_sz(st);
	if (r)
		return r;
	r = check_text(st->policy, sizeof(st->policy), "policy");
	if (!r)
		r = check_number(st->time_ns, "time_ns");
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
		snprintf(what, sizeof(what), "counter '%s'", st->v[i].name);
		r = check_number(st->v[i].value, what);
		if (r)
			return r;
	}
	if (st->nr_pools > SCXPOL_STATS_MAX_POOLS)
		return scxpol_err(EINVAL, "stats snapshot: nr_pools is %u, more than its %d pool "
				  "slots", st->nr_pools, SCXPOL_STATS_MAX_POOLS);
	for (i = 0; i < st->nr_pools; i++) {
		snprintf(what, sizeof(what), "pool %u's name", i);
		r = check_text(st->pools[i].name, SCXPOL_POOL_NAME_LEN, what);
		if (r)
			return r;
		snprintf(what, sizeof(what), "pool %u's cpus", i);
		r = check_text(st->pools[i].cpus, SCXPOL_POOL_CPUS_LEN, what);
		if (r)
			return r;
	}
	return 0;
}

/* The checked snapshot @st as a JSON object; NULL when out of memory. */
static json_t *snapshot_json(const struct scxpol_stats *st)
{
	json_t *o, *counters, *pools;
	unsigned int i;

	o = json_pack("{s:s, s:I, s:I, s:{}, s:[]}", "policy", st->policy, "restarts",
		      (json_int_t)st->restarts, "time_ns", (json_int_t)st->time_ns, "counters",
		      "pools");
	if (!o)
		return NULL;
	counters = json_object_get(o, "counters");
	pools = json_object_get(o, "pools");
	for (i = 0; i < st->nr; i++)
		if (json_object_set_new(counters, st->v[i].name,
					json_integer((json_int_t)st->v[i].value)))
			goto fail;
	for (i = 0; i < st->nr_pools; i++) {
		const struct scxpol_pool_stat *p = &st->pools[i];

		if (json_array_append_new(pools, json_pack("{s:s, s:s, s:I, s:I, s:I}", "name",
							   p->name, "cpus", p->cpus, "flags",
							   (json_int_t)p->flags, "nr_cpus",
							   (json_int_t)p->nr_cpus, "queued",
							   (json_int_t)p->queued)))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

int scxpol_stats_json(const struct scxpol_stats *st, char *buf, size_t len)
{
	SCXPOL_NONNULL(st, "snapshot");
	SCXPOL_NONNULL(buf, "buffer");
	json_t *o;
	size_t n;
	int r;

	if (len)
		buf[0] = '\0';
	r = check_snapshot(st);
	if (r)
		return r;
	o = snapshot_json(st);
	n = o ? json_dumpb(o, buf, len, JSON_COMPACT) : 0;
	json_decref(o);
	if (!n)
		return scxpol_err(ENOMEM, "out of memory");
	if (n >= len || n > INT_MAX) {
		if (len)
			buf[0] = '\0';
		return scxpol_err_quiet(ENOSPC, "stats JSON needs %zu bytes, the buffer has %zu",
					n + 1, len);
	}
	buf[n] = '\0';
	return (int)n;
}

int scxpol_stats_json_file(const struct scxpol_stats *st, FILE *f)
{
	SCXPOL_NONNULL(st, "snapshot");
	SCXPOL_NONNULL(f, "stream");
	char *text;
	int r = check_snapshot(st);

	if (r)
		return r;
	text = json_line(snapshot_json(st));
	if (!text)
		return scxpol_err(ENOMEM, "out of memory");
	r = fprintf(f, "%s\n", text) < 0 ? scxpol_err(EIO, "cannot write the stats JSON: %s",
						      strerror(errno))
					 : 0;
	free(text);
	return r;
}

/* ---- JSON in ----------------------------------------------------------------- */

/*
 * @len bytes of @in as one JSON value, or NULL with "bad JSON at line L,
 * column C: what" in @err. jansson reads a NUL byte as the end of the
 * text; one is said to be a NUL instead.
 */
static json_t *parse_json(const char *in, size_t len, char *err, size_t err_len)
{
	const char *nul = memchr(in, '\0', len);
	json_error_t e;
	json_t *v;

	if (nul) {
		snprintf(err, err_len, "bad JSON: a NUL byte at offset %zu", (size_t)(nul - in));
		return NULL;
	}
	v = json_loadb(in, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
	if (!v && e.line > 0)
		snprintf(err, err_len, "bad JSON at line %d, column %d: %s", e.line, e.column,
			 e.text);
	else if (!v)
		snprintf(err, err_len, "bad JSON: %s", e.text);
	return v;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Member @name of object @obj, or NULL with a message into @err. */
static const json_t *member(const json_t *obj, const char *name, char *err, size_t len)
{
	const json_t *m = json_object_get(obj, name);

	if (!m)
		snprintf(err, len, "no \"%s\" member", name);
	return m;
}

/* Member @name of object @obj as an unsigned integer; message into @err on failure. */
static int get_u64(const json_t *obj, const char *name, uint64_t *v, char *err, size_t len)
{
	const json_t *m = member(obj, name, err, len);

	if (!m)
		return -EINVAL;
	if (!json_is_integer(m) || json_integer_value(m) < 0) {
		snprintf(err, len, "\"%s\" is %s, not an unsigned integer", name,
			 json_is_number(m) ? "a negative or fractional number" : type_name(m));
		return -EINVAL;
	}
	*v = (uint64_t)json_integer_value(m);
	return 0;
}

/* get_u64() for a member stored in an unsigned int: larger values are errors, not cut. */
static int get_uint(const json_t *obj, const char *name, unsigned int *v, char *err, size_t len)
{
	uint64_t u;
	int r = get_u64(obj, name, &u, err, len);

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
static int get_str(const json_t *obj, const char *name, char *out, size_t max, char *err,
		   size_t len)
{
	const json_t *m = member(obj, name, err, len);

	if (!m)
		return -EINVAL;
	if (!json_is_string(m)) {
		snprintf(err, len, "\"%s\" is %s, not a string", name, type_name(m));
		return -EINVAL;
	}
	if (json_string_length(m) >= max) {
		snprintf(err, len, "\"%s\" is longer than %zu bytes", name, max - 1);
		return -EINVAL;
	}
	snprintf(out, max, "%s", json_string_value(m));
	return 0;
}

/* @obj as a snapshot. */
static int parse_snapshot(const json_t *obj, struct scxpol_stats *out, char *err, size_t len)
{
	const json_t *c, *v;
	const char *name;
	uint64_t u;
	size_t i;
	int r;

	scxpol_stats_clear(out);
	if (!json_is_object(obj)) {
		snprintf(err, len, "the snapshot is %s, not an object", type_name(obj));
		return -EINVAL;
	}
	r = get_str(obj, "policy", out->policy, sizeof(out->policy), err, len);
	if (!r)
		r = get_uint(obj, "restarts", &out->restarts, err, len);
	if (!r)
		r = get_u64(obj, "time_ns", &out->time_ns, err, len);
	if (r)
		return r;
	c = json_object_get(obj, "counters");
	if (!json_is_object(c)) {
		snprintf(err, len, "\"counters\" is %s, not an object", c ? type_name(c) : "missing");
		return -EINVAL;
	}
	json_object_foreach((json_t *)c, name, v) {
		if (out->nr == SCXPOL_STAT_TOTAL) {
			snprintf(err, len, "more than %d counters", SCXPOL_STAT_TOTAL);
			return -EINVAL;
		}
		if (strlen(name) >= SCXPOL_STAT_NAME_LEN || !name[0]) {
			snprintf(err, len, "counter name '%.40s' is not 1..%d bytes", name,
				 SCXPOL_STAT_NAME_LEN - 1);
			return -EINVAL;
		}
		r = get_u64(c, name, &u, err, len);
		if (r)
			return r;
		snprintf(out->v[out->nr].name, SCXPOL_STAT_NAME_LEN, "%s", name);
		out->v[out->nr++].value = u;
	}
	c = json_object_get(obj, "pools");
	if (!json_is_array(c)) {
		snprintf(err, len, "\"pools\" is %s, not an array", c ? type_name(c) : "missing");
		return -EINVAL;
	}
	json_array_foreach(c, i, v) {
		struct scxpol_pool_stat *p = &out->pools[out->nr_pools];

		if (out->nr_pools == SCXPOL_STATS_MAX_POOLS) {
			snprintf(err, len, "more than %d pools", SCXPOL_STATS_MAX_POOLS);
			return -EINVAL;
		}
		if (!json_is_object(v)) {
			snprintf(err, len, "pool %zu is %s, not an object", i, type_name(v));
			return -EINVAL;
		}
		r = get_str(v, "name", p->name, sizeof(p->name), err, len);
		if (!r)
			r = get_str(v, "cpus", p->cpus, sizeof(p->cpus), err, len);
		/* written since the pool type has flags: older snapshots lack it */
		if (!r && json_object_get(v, "flags"))
			r = get_uint(v, "flags", &p->flags, err, len);
		if (!r)
			r = get_uint(v, "nr_cpus", &p->nr_cpus, err, len);
		if (!r)
			r = get_uint(v, "queued", &p->queued, err, len);
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
	char err[256];
	json_t *v;
	int r;

	scxpol_err_clear();
	r = scxpol_stats_check_sz(out);
	if (r)
		return r;
	v = parse_json(json, strlen(json), err, sizeof(err));
	r = v ? parse_snapshot(v, out, err, sizeof(err)) : -EINVAL;
	json_decref(v);
	return r ? scxpol_err(-r, "stats snapshot: %s", err) : 0;
}

/* ---- Requests ---------------------------------------------------------------- */

int scxpol_stats_parse_request(const char *line, size_t len, char *req, size_t req_len,
			       char *err, size_t err_len)
{
	const json_t *m;
	json_t *v;
	int r = -EINVAL;

	if (len > SCXPOL_STATS_MAX_LINE) {
		snprintf(err, err_len, "request longer than %d bytes", SCXPOL_STATS_MAX_LINE);
		return -E2BIG;
	}
	v = parse_json(line, len, err, err_len);
	if (!v)
		return -EINVAL;
	m = json_object_get(v, "req");
	if (!json_is_object(v))
		snprintf(err, err_len, "the request is %s, not an object like {\"req\":\"stats\"}",
			 type_name(v));
	else if (!m)
		snprintf(err, err_len, "the request has no \"req\" member (try {\"req\":\"list\"})");
	else if (!json_is_string(m))
		snprintf(err, err_len, "\"req\" is %s, not a string", type_name(m));
	else if (json_string_length(m) >= req_len)
		snprintf(err, err_len, "unknown request (a \"req\" of %zu bytes)",
			 json_string_length(m));
	else
		r = 0;
	if (!r)
		snprintf(req, req_len, "%s", json_string_value(m));
	json_decref(v);
	return r;
}

/*
 * The response line {"errno":@err,"resp":@resp} ("resp":null for a NULL
 * @resp), with "error":@msg after it when @msg; takes @resp. NULL when out
 * of memory.
 */
static char *response(int err, json_t *resp, const char *msg)
{
	json_t *o = json_pack("{s:i}", "errno", err);

	if (json_object_set_new(o, "resp", resp ? resp : json_null()) ||
	    (msg && json_object_set_new(o, "error", message_json(msg)))) {
		json_decref(o);
		return NULL;
	}
	return json_line(o);
}

char *scxpol_stats_error_response(int err, const char *msg)
{
	return response(err, NULL, msg);
}

/* The user counters of @o that are reported: (*@user)[i] for i < the return, named ones only. */
static unsigned int user_descs(const struct scxpol_stats_opts *o,
			       const struct scxpol_stat_desc **user)
{
	*user = OPTS_GET(o, user_descs, NULL);
	return *user ? OPTS_GET(o, nr_user, 0) : 0;
}

/* The "list" response's body: the requests and every counter's name. */
static json_t *list_json(const struct scxpol_stats_opts *o)
{
	const struct scxpol_stat_desc *user;
	unsigned int nr_user = user_descs(o, &user), i;
	json_t *l = json_pack("{s:[s, s, s], s:[]}", "requests", requests[0], requests[1],
			      requests[2], "counters"), *c;

	_Static_assert(ARRAY_SIZE(requests) == 3, "the list names every request");
	if (!l)
		return NULL;
	c = json_object_get(l, "counters");
	for (i = 0; i < SCXPOL_STAT_NR; i++)
		if (json_array_append_new(c, json_string(scxpol_stats_lib_descs[i].name)))
			goto fail;
	for (i = 0; i < nr_user; i++)
		if (user[i].name && json_array_append_new(c, json_string(user[i].name)))
			goto fail;
	return l;
fail:
	json_decref(l);
	return NULL;
}

/* One counter's descriptor as {"name":..,"unit":..,"desc":..}; NULL unit or desc as "". */
static json_t *desc_json(const struct scxpol_stat_desc *d)
{
	json_t *unit = message_json(d->unit ? d->unit : ""), *desc = message_json(d->desc ? d->desc : "");

	if (!unit || !desc) {
		json_decref(unit);
		json_decref(desc);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:o}", "name", d->name, "unit", unit, "desc", desc);
}

/* The "stats_meta" response's body: every counter's descriptor, in snapshot order. */
static json_t *meta_json(const struct scxpol_stats_opts *o)
{
	const struct scxpol_stat_desc *user;
	unsigned int nr_user = user_descs(o, &user), i;
	json_t *m = json_pack("{s:[]}", "counters"), *c;

	if (!m)
		return NULL;
	c = json_object_get(m, "counters");
	for (i = 0; i < SCXPOL_STAT_NR; i++)
		if (json_array_append_new(c, desc_json(&scxpol_stats_lib_descs[i])))
			goto fail;
	for (i = 0; i < nr_user; i++)
		if (user[i].name && json_array_append_new(c, desc_json(&user[i])))
			goto fail;
	return m;
fail:
	json_decref(m);
	return NULL;
}

char *scxpol_stats_respond(struct scxpol_sched *s, const struct scxpol_stats_opts *o,
			   const char *line, size_t len)
{
	struct scxpol_stats *st;
	char req[64], quoted[6 * sizeof(req) + 3], err[512];
	json_t *body;
	size_t n;
	int r;

	r = scxpol_stats_parse_request(line, len, req, sizeof(req), err, sizeof(err));
	if (r)
		return scxpol_stats_error_response(-r, err);
	if (!strcmp(req, "list")) {
		body = list_json(o);
	} else if (!strcmp(req, "stats_meta")) {
		body = meta_json(o);
	} else if (!strcmp(req, "stats")) {
		st = malloc(sizeof(*st));
		if (!st)
			return scxpol_stats_error_response(ENOMEM, "out of memory");
		r = scxpol_stats_read_msg(s, o, st, err, sizeof(err));
		if (!r) {
			r = check_snapshot(st);
			if (r)
				snprintf(err, sizeof(err), "%s", scxpol_last_error());
		}
		body = r ? NULL : snapshot_json(st);
		free(st);
		if (r)
			return scxpol_stats_error_response(-r, err);
	} else {
		/* the name quoted as a JSON string: whatever bytes it holds read back */
		body = json_string(req);
		n = body ? json_dumpb(body, quoted, sizeof(quoted) - 1, JSON_ENCODE_ANY) : 0;
		json_decref(body);
		quoted[n < sizeof(quoted) ? n : 0] = '\0';
		snprintf(err, sizeof(err), "unknown request %s; known: %s, %s, %s", quoted,
			 requests[0], requests[1], requests[2]);
		return scxpol_stats_error_response(EINVAL, err);
	}
	return body ? response(0, body, NULL) : NULL;
}

/* ---- Clients ----------------------------------------------------------------- */

/*
 * Send @req to the server at @path and parse the answer into *@v: returns
 * its "resp" member (a reference into *@v, which the caller drops), or NULL
 * with the error in *@r and scxpol_last_error().
 */
static const json_t *ask(const char *path, const char *req, json_t **v, int *r)
{
	char *resp, err[256], msg[256];
	const json_t *body = NULL;
	uint64_t e;

	*v = NULL;
	resp = malloc(MAX_RESPONSE);
	if (!resp) {
		*r = scxpol_err(ENOMEM, "out of memory");
		return NULL;
	}
	*r = scxpol_stats_request(path, req, resp, MAX_RESPONSE);
	if (*r < 0)
		goto out;
	*v = parse_json(resp, (size_t)*r, err, sizeof(err));
	if (!*v) {
		*r = scxpol_err(EPROTO, "%s: the response is not JSON: %s", path, err);
		goto out;
	}
	if (!json_is_object(*v) || get_u64(*v, "errno", &e, err, sizeof(err))) {
		*r = scxpol_err(EPROTO, "%s: the response is not {\"errno\":N,...}", path);
		goto out;
	}
	if (e) {
		if (get_str(*v, "error", msg, sizeof(msg), err, sizeof(err)))
			snprintf(msg, sizeof(msg), "(no message)");
		*r = scxpol_err(e < 4096 ? (int)e : EPROTO, "%s: the server answered errno %llu: %s",
				path, (unsigned long long)e, msg);
		goto out;
	}
	body = json_object_get(*v, "resp");
	if (!body)
		*r = scxpol_err(EPROTO, "%s: the response has no \"resp\"", path);
out:
	free(resp);
	return body;
}

int scxpol_stats_fetch(const char *path, struct scxpol_stats *out)
{
	SCXPOL_NONNULL(path, "socket path");
	SCXPOL_NONNULL(out, "output");
	const json_t *body;
	char err[256];
	json_t *v;
	int r = scxpol_stats_check_sz(out);

	if (r)
		return r;
	body = ask(path, "{\"req\":\"stats\"}", &v, &r);
	if (body) {
		r = parse_snapshot(body, out, err, sizeof(err));
		if (r)
			r = scxpol_err(EPROTO, "%s: the response is not a stats snapshot: %s", path,
				       err);
	}
	json_decref(v);
	return r;
}

/*
 * The "stats_meta" body @m as descriptors, one allocation: the array then
 * the strings. Returns how many, or -EINVAL with the reason in @err.
 */
static int parse_meta(const json_t *m, struct scxpol_stat_desc **descs, char *err, size_t len)
{
	static const char *const fields[] = { "name", "unit", "desc" };
	const json_t *c = json_is_object(m) ? json_object_get(m, "counters") : NULL, *d, *f;
	struct scxpol_stat_desc *out;
	size_t i, k, n, bytes;
	char *p;

	if (!json_is_array(c)) {
		snprintf(err, len, "\"counters\" is %s, not an array", c ? type_name(c) : "missing");
		return -EINVAL;
	}
	n = json_array_size(c);
	if (n > SCXPOL_STAT_TOTAL) {
		snprintf(err, len, "more than %d counters", SCXPOL_STAT_TOTAL);
		return -EINVAL;
	}
	bytes = (n ? n : 1) * sizeof(*out);
	json_array_foreach(c, i, d) {
		for (k = 0; k < ARRAY_SIZE(fields); k++) {
			f = json_is_object(d) ? json_object_get(d, fields[k]) : NULL;
			if (!json_is_string(f)) {
				snprintf(err, len, "counter %zu's \"%s\" is %s, not a string", i,
					 fields[k], f ? type_name(f) : "missing");
				return -EINVAL;
			}
			bytes += json_string_length(f) + 1;
		}
	}
	out = malloc(bytes);
	if (!out) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	p = (char *)(out + (n ? n : 1));
	json_array_foreach(c, i, d) {
		const char **dst[] = { &out[i].name, &out[i].unit, &out[i].desc };

		for (k = 0; k < ARRAY_SIZE(fields); k++) {
			f = json_object_get(d, fields[k]);
			*dst[k] = p;
			memcpy(p, json_string_value(f), json_string_length(f) + 1);
			p += json_string_length(f) + 1;
		}
	}
	*descs = out;
	return (int)n;
}

int scxpol_stats_fetch_meta(const char *path, struct scxpol_stat_desc **descs)
{
	SCXPOL_NONNULL(path, "socket path");
	SCXPOL_NONNULL(descs, "output");
	const json_t *body;
	char err[256];
	json_t *v;
	int r;

	*descs = NULL;
	body = ask(path, "{\"req\":\"stats_meta\"}", &v, &r);
	if (body) {
		r = parse_meta(body, descs, err, sizeof(err));
		if (r < 0)
			r = scxpol_err(r == -ENOMEM ? ENOMEM : EPROTO, "%s: the response is not a "
				       "list of counter descriptors: %s", path, err);
	}
	json_decref(v);
	return r;
}
