// SPDX-License-Identifier: GPL-2.0
/*
 * scxpol-sim's YAML input (spec.h). libyaml loads the document; this walks
 * it, and every value it refuses is reported with its file, line and
 * column (libyaml's marks) and the field's path.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <scxpol/cpuset.h>

#include "spec.h"

struct ctx {
	yaml_document_t doc;
	const char *path;
	char *err;
	size_t errlen;
	const yaml_node_t *shape;	/* the machine's first cpus, smt, llcs or nodes */
};

static int bad(struct ctx *x, const yaml_node_t *n, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct ctx *x, const yaml_node_t *n, const char *field, const char *fmt, ...)
{
	char msg[SPEC_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%zu:%zu: %s: %s", x->path, n->start_mark.line + 1,
		 n->start_mark.column + 1, field, msg);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* --- values ---------------------------------------------------------------------- */
int spec_parse_duration(const char *t, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	double v;
	char *end;
	size_t i;

	if (!t || !*t)
		return -EINVAL;
	v = strtod(t, &end);
	if (end == t || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v * units[i].ns > 1e18)
				return -EINVAL;
			*ns = (uint64_t)llround(v * units[i].ns);
			return 0;
		}
	return -EINVAL;
}

int spec_parse_dist(const char *t, struct dist *d)
{
	static const struct {
		const char *name;
		enum dist_kind kind;
		int nargs;
	} kinds[] = { { "exp:", DIST_EXP, 1 }, { "uniform:", DIST_UNIFORM, 2 },
		      { "lognormal:", DIST_LOGNORMAL, 2 } };
	char buf[128], *colon;
	uint64_t a, b;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!t || strlen(t) >= sizeof(buf))
		return -EINVAL;
	if (!spec_parse_duration(t, &a)) {
		d->kind = DIST_FIXED;
		d->a = (double)a;
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].name);
		char *end;

		if (strncmp(t, kinds[i].name, n))
			continue;
		snprintf(buf, sizeof(buf), "%s", t + n);
		colon = strchr(buf, ':');
		if ((kinds[i].nargs == 2) != (colon != NULL))
			return -EINVAL;
		if (colon)
			*colon = '\0';
		if (spec_parse_duration(buf, &a))
			return -EINVAL;
		d->kind = kinds[i].kind;
		d->a = (double)a;
		if (kinds[i].kind == DIST_UNIFORM) {
			if (spec_parse_duration(colon + 1, &b) || b < a)
				return -EINVAL;
			d->b = (double)b;
		} else if (kinds[i].kind == DIST_LOGNORMAL) {
			d->b = strtod(colon + 1, &end);
			if (end == colon + 1 || *end || !(d->b >= 0 && d->b <= 5))
				return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static int get_uint(struct ctx *x, yaml_node_t *n, const char *f, unsigned long long lo,
		    unsigned long long hi, unsigned long long *out)
{
	const char *s = scalar(n);
	char *end;

	if (!s || s[0] < '0' || s[0] > '9')
		return bad(x, n, f, "\"%s\": want a whole number %llu..%llu", s ? s : "(a list or map)",
			   lo, hi);
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (*end || errno || *out < lo || *out > hi)
		return bad(x, n, f, "\"%s\": want a whole number %llu..%llu", s, lo, hi);
	return 0;
}

static int get_u32(struct ctx *x, yaml_node_t *n, const char *f, unsigned int lo, unsigned int hi,
		   unsigned int *out)
{
	unsigned long long v;
	int r = get_uint(x, n, f, lo, hi, &v);

	if (!r)
		*out = (unsigned int)v;
	return r;
}

/* "N" or "Nx" (N per CPU: sets @bit in *@per_cpu). */
static int get_count(struct ctx *x, yaml_node_t *n, const char *f, unsigned int hi,
		     unsigned int *out, unsigned int *per_cpu, unsigned int bit)
{
	const char *s = scalar(n);
	unsigned long long v;
	char *end;

	errno = 0;
	v = s ? strtoull(s, &end, 10) : 0;
	if (!s || s[0] < '0' || s[0] > '9' || errno || !v || v > hi ||
	    (*end && strcmp(end, "x")))
		return bad(x, n, f, "\"%s\": want a count 1..%u, or Nx: N per CPU",
			   s ? s : "(a list or map)", hi);
	*out = (unsigned int)v;
	if (*end)
		*per_cpu |= bit;
	return 0;
}

static int get_double(struct ctx *x, yaml_node_t *n, const char *f, double lo, double hi,
		      double *out)
{
	const char *s = scalar(n);
	char *end;

	if (!s)
		return bad(x, n, f, "want a number %g..%g", lo, hi);
	*out = strtod(s, &end);
	if (end == s || *end || !isfinite(*out) || *out < lo || *out > hi)
		return bad(x, n, f, "\"%s\": want a number %g..%g", s, lo, hi);
	return 0;
}

static int get_duration(struct ctx *x, yaml_node_t *n, const char *f, uint64_t *ns)
{
	const char *s = scalar(n);

	if (!s || spec_parse_duration(s, ns))
		return bad(x, n, f, "\"%s\": want a duration such as 250us, 3ms or 1.5s",
			   s ? s : "(a list or map)");
	return 0;
}

static int get_dist(struct ctx *x, yaml_node_t *n, const char *f, struct dist *d)
{
	const char *s = scalar(n);

	if (!s || spec_parse_dist(s, d))
		return bad(x, n, f, "\"%s\": want a duration (1ms) or a distribution: exp:MEAN, "
			   "uniform:LO:HI, lognormal:MEDIAN:SIGMA", s ? s : "(a list or map)");
	return 0;
}

static int get_bool(struct ctx *x, yaml_node_t *n, const char *f, bool *out)
{
	const char *s = scalar(n);

	if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
		*out = true;
	else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
		*out = false;
	else
		return bad(x, n, f, "\"%s\": want true or false", s ? s : "(a list or map)");
	return 0;
}

static int get_str(struct ctx *x, yaml_node_t *n, const char *f, char *out, size_t len,
		   const char *allowed)
{
	const char *s = scalar(n);
	size_t i;

	if (!s || !*s || strlen(s) >= len)
		return bad(x, n, f, "want a text of 1..%zu characters", len - 1);
	for (i = 0; allowed && s[i]; i++)
		if (!strchr(allowed, s[i]))
			return bad(x, n, f, "\"%s\": character '%c' at column %zu: want only [%s]", s,
				   s[i], i + 1, allowed);
	snprintf(out, len, "%s", s);
	return 0;
}

/* A path relative to the spec file's directory. */
static int get_file(struct ctx *x, yaml_node_t *n, const char *f, char *out, size_t len)
{
	const char *s = scalar(n), *slash = strrchr(x->path, '/');
	int w;

	if (!s || !*s)
		return bad(x, n, f, "want a file name");
	if (s[0] == '/' || !slash)
		w = snprintf(out, len, "%s", s);
	else
		w = snprintf(out, len, "%.*s/%s", (int)(slash - x->path), x->path, s);
	if (w < 0 || (size_t)w >= len)
		return bad(x, n, f, "the path is longer than %zu characters", len - 1);
	return 0;
}

/* "1000" or "1000@0s,4000@5s" (rates per second from times on); "250x...": per CPU. */
static int get_steps(struct ctx *x, yaml_node_t *n, const char *f, struct steps *st,
		     unsigned int *per_cpu)
{
	const char *s = scalar(n), *p;
	char part[64], *at, *end;

	memset(st, 0, sizeof(*st));
	if (!s)
		return bad(x, n, f, "want a rate (1000) or steps (1000@0s,4000@5s)");
	for (p = s; *p; p += *p == ',') {
		size_t k = strcspn(p, ",");

		if (st->n == SPEC_MAX_STEPS || k >= sizeof(part))
			return bad(x, n, f, "\"%s\": at most %d steps", s, SPEC_MAX_STEPS);
		memcpy(part, p, k);
		part[k] = '\0';
		p += k;
		at = strchr(part, '@');
		if (at)
			*at = '\0';
		st->rate[st->n] = strtod(part, &end);
		if (*end == 'x' && end > part) {
			*per_cpu |= COMP_X_RATE;
			end++;
		}
		if (end == part || *end || !(st->rate[st->n] >= 0 && st->rate[st->n] <= 1e7))
			return bad(x, n, f, "\"%s\": step %u: want a rate 0..1e7 per second (Nx: "
				   "per CPU)", s, st->n + 1);
		if ((!at && st->n) || (at && spec_parse_duration(at + 1, &st->at[st->n])) ||
		    (st->n && st->at[st->n] <= st->at[st->n - 1]) || (!st->n && st->at[0]))
			return bad(x, n, f, "\"%s\": step %u: want RATE@TIME, times rising from 0s", s,
				   st->n + 1);
		st->n++;
	}
	if (!st->n)
		return bad(x, n, f, "want a rate (1000) or steps (1000@0s,4000@5s)");
	return 0;
}

/* --- maps ------------------------------------------------------------------------ */
typedef int (*field_fn)(struct ctx *x, yaml_node_t *v, const char *key, const char *f,
			void *out);

/* Walk map @n, calling @fn for each key; keys not in @known are errors. */
static int walk(struct ctx *x, yaml_node_t *n, const char *where, const char *const *known,
		field_fn fn, void *out)
{
	yaml_node_pair_t *pr;
	char f[128];
	int r;

	if (n->type != YAML_MAPPING_NODE)
		return bad(x, n, where, "want a map of fields");
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&x->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&x->doc, pr->value);
		const char *key = scalar(k);
		size_t i;

		if (!key)
			return bad(x, k, where, "a key must be a name");
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		snprintf(f, sizeof(f), "%s%s%s", where, *where ? "." : "", key);
		if (!known[i])
			return bad(x, k, f, "unknown field");
		r = fn(x, v, key, f, out);
		if (r)
			return r;
	}
	return 0;
}

static const char *const machine_keys[] = { "cpus", "smt", "llcs", "nodes", "sysfs", "tick",
					    "ctxsw", "ipi", "idle_exit", NULL };

static int machine_field(struct ctx *x, yaml_node_t *v, const char *k, const char *f, void *out)
{
	struct spec *s = out;

	if (!x->shape && (!strcmp(k, "cpus") || !strcmp(k, "smt") || !strcmp(k, "llcs") ||
			  !strcmp(k, "nodes")))
		x->shape = v;
	if (!strcmp(k, "sysfs")) {
		snprintf(s->sysfs_where, sizeof(s->sysfs_where), "%s:%zu:%zu: %s", x->path,
			 v->start_mark.line + 1, v->start_mark.column + 1, f);
		return get_file(x, v, f, s->sysfs, sizeof(s->sysfs));
	}
	if (!strcmp(k, "cpus"))
		return get_u32(x, v, f, 1, SPEC_MAX_CPUS, &s->cpus);
	if (!strcmp(k, "smt"))
		return get_u32(x, v, f, 1, 8, &s->smt);
	if (!strcmp(k, "llcs"))
		return get_u32(x, v, f, 1, 512, &s->llcs);
	if (!strcmp(k, "nodes"))
		return get_u32(x, v, f, 1, 64, &s->nodes);
	if (!strcmp(k, "tick"))
		return get_duration(x, v, f, &s->tick_ns);
	if (!strcmp(k, "ctxsw"))
		return get_duration(x, v, f, &s->ctxsw_ns);
	if (!strcmp(k, "ipi"))
		return get_duration(x, v, f, &s->ipi_ns);
	return get_duration(x, v, f, &s->idle_exit_ns);
}

static const char *const kinds[] = { "rr", "hogs", "schbench", "tasks", "trace", "faas", NULL };

static const char *const comp_keys[] = {
	"kind", "name", "cgroup", "nice", "cpus",
	/* rr */ "workers", "dispatchers", "stages", "rate", "concurrency", "work", "dispatch", "backlog",
	/* hogs */ "count", "unit",
	/* schbench */ "messages", "think",
	/* tasks */ "run", "sleep",
	/* trace */ "file",
	/* faas */ "trace", "invocations", "durations", "minutes", "minute", "duration_scale",
	"time_scale", "max_funcs", "capacity", "overflow", "domains", "bucket", "alpha",
	"home_scan", "mt_threads", "io_sleep_ratio", NULL
};

/* Which kinds a field belongs to (bits of enum comp_kind); common fields: all. */
static unsigned int field_kinds(const char *k)
{
	static const struct {
		const char *key;
		unsigned int kinds;
	} t[] = {
		{ "workers", 1 << COMP_RR | 1 << COMP_SCHBENCH }, { "stages", 1 << COMP_RR },
		{ "dispatchers", 1 << COMP_RR },
		{ "rate", 1 << COMP_RR }, { "concurrency", 1 << COMP_RR },
		{ "work", 1 << COMP_RR | 1 << COMP_SCHBENCH }, { "dispatch", 1 << COMP_RR },
		{ "backlog", 1 << COMP_RR }, { "count", 1 << COMP_HOGS | 1 << COMP_TASKS },
		{ "unit", 1 << COMP_HOGS }, { "messages", 1 << COMP_SCHBENCH },
		{ "think", 1 << COMP_SCHBENCH }, { "run", 1 << COMP_TASKS },
		{ "sleep", 1 << COMP_TASKS }, { "file", 1 << COMP_TRACE },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].key, k))
			return t[i].kinds;
	if (!strcmp(k, "kind") || !strcmp(k, "name") || !strcmp(k, "cgroup") ||
	    !strcmp(k, "nice") || !strcmp(k, "cpus"))
		return ~0U;
	return 1 << COMP_FAAS;
}

static int faas_field(struct ctx *x, yaml_node_t *v, const char *k, const char *f,
		      struct comp_faas *fa)
{
	const char *s = scalar(v);
	uint64_t ns;
	int r;

	if (!strcmp(k, "trace"))
		return get_file(x, v, f, fa->trace, sizeof(fa->trace));
	if (!strcmp(k, "invocations"))
		return get_file(x, v, f, fa->invocations, sizeof(fa->invocations));
	if (!strcmp(k, "durations"))
		return get_file(x, v, f, fa->durations, sizeof(fa->durations));
	if (!strcmp(k, "minutes")) {
		if (!s || sscanf(s, "%u-%u", &fa->first_minute, &fa->last_minute) != 2 ||
		    !fa->first_minute || fa->first_minute > fa->last_minute || fa->last_minute > 1440)
			return bad(x, v, f, "\"%s\": want a minute range A-B, 1 <= A <= B <= 1440",
				   s ? s : "");
		return 0;
	}
	if (!strcmp(k, "minute"))
		return get_double(x, v, f, 0.001, 60, &fa->minute_s);
	if (!strcmp(k, "duration_scale"))
		return get_double(x, v, f, 1e-6, 1e6, &fa->duration_scale);
	if (!strcmp(k, "time_scale"))
		return get_double(x, v, f, 1e-6, 1e6, &fa->time_scale);
	if (!strcmp(k, "max_funcs"))
		return get_u32(x, v, f, 1, 1U << 30, &fa->max_funcs);
	if (!strcmp(k, "capacity")) {
		size_t n = s ? strlen(s) : 0;
		char num[32];

		fa->capacity_x = n && s[n - 1] == 'x';
		if (!n || n >= sizeof(num))
			return bad(x, v, f, "want N (invocations per domain) or Nx (x its CPUs)");
		snprintf(num, sizeof(num), "%.*s", (int)(n - fa->capacity_x), s);
		fa->capacity = strtod(num, NULL);
		if (!(fa->capacity > 0 && fa->capacity <= 1e6))
			return bad(x, v, f, "\"%s\": want N (invocations per domain) or Nx (x its "
				   "CPUs), N > 0", s);
		return 0;
	}
	if (!strcmp(k, "overflow")) {
		if (!s || (strcmp(s, "hold") && strcmp(s, "shared")))
			return bad(x, v, f, "\"%s\": want shared or hold", s ? s : "");
		fa->hold = !strcmp(s, "hold");
		return 0;
	}
	if (!strcmp(k, "domains"))
		return get_u32(x, v, f, 1, 1024, &fa->domains);
	if (!strcmp(k, "bucket")) {
		r = get_duration(x, v, f, &ns);
		fa->bucket_us = ns / 1000;
		if (!r && !fa->bucket_us)
			return bad(x, v, f, "want at least 1us");
		return r;
	}
	if (!strcmp(k, "alpha"))
		return get_double(x, v, f, 1e-6, 1, &fa->alpha);
	if (!strcmp(k, "home_scan"))
		return get_bool(x, v, f, &fa->home_scan);
	if (!strcmp(k, "mt_threads"))
		return get_u32(x, v, f, 2, 4, &fa->mt_threads);
	return get_u32(x, v, f, 1, 100, &fa->io_sleep_ratio);
}

static int comp_field(struct ctx *x, yaml_node_t *v, const char *k, const char *f, void *out)
{
	struct comp *c = out;
	struct scxpol_cpuset *set;
	const char *s = scalar(v);
	int cpu;

	if (!strcmp(k, "kind"))
		return 0; /* read first, by the caller */
	if (!(field_kinds(k) & (1U << c->kind)))
		return bad(x, v, f, "not a field of a %s component", kinds[c->kind]);
	if (!strcmp(k, "name"))
		return get_str(x, v, f, c->c.name, 8, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!strcmp(k, "cgroup"))
		return get_str(x, v, f, c->c.cgroup, sizeof(c->c.cgroup),
			       "abcdefghijklmnopqrstuvwxyz0123456789_-.");
	if (!strcmp(k, "nice")) {
		char *end;
		long nv = s ? strtol(s, &end, 10) : 99;

		if (!s || !*s || *end || nv < -20 || nv > 19)
			return bad(x, v, f, "\"%s\": want a nice level -20..19", s ? s : "");
		c->c.nice = (int)nv;
		return 0;
	}
	if (!strcmp(k, "cpus")) {
		if (!s || !(set = scxpol_cpuset_parse(s, 512)))
			return bad(x, v, f, "\"%s\": want a CPU list such as 0-3,8",
				   s ? s : "(a list or map)");
		scxpol_cpuset_for_each(cpu, set)
			c->c.cpus[cpu / 64] |= 1UL << (cpu % 64);
		scxpol_cpuset_free(set);
		c->c.has_cpus = true;
		return 0;
	}
	switch (c->kind) {
	case COMP_RR:
		if (!strcmp(k, "workers"))
			return get_count(x, v, f, 4096, &c->u.rr.workers, &c->c.per_cpu,
					 COMP_X_COUNT);
		if (!strcmp(k, "dispatchers"))
			return get_count(x, v, f, 1024, &c->u.rr.dispatchers, &c->c.per_cpu,
					 COMP_X_DISPATCHERS);
		if (!strcmp(k, "stages"))
			return get_u32(x, v, f, 1, 8, &c->u.rr.stages);
		if (!strcmp(k, "rate"))
			return get_steps(x, v, f, &c->u.rr.rate, &c->c.per_cpu);
		if (!strcmp(k, "concurrency"))
			return get_count(x, v, f, 1 << 20, &c->u.rr.concurrency, &c->c.per_cpu,
					 COMP_X_CONCURRENCY);
		if (!strcmp(k, "work"))
			return get_dist(x, v, f, &c->u.rr.work);
		if (!strcmp(k, "dispatch"))
			return get_dist(x, v, f, &c->u.rr.dispatch);
		return get_u32(x, v, f, 1, 1 << 24, &c->u.rr.backlog);
	case COMP_HOGS:
		if (!strcmp(k, "count"))
			return get_count(x, v, f, 65536, &c->u.hogs.count, &c->c.per_cpu,
					 COMP_X_COUNT);
		return get_dist(x, v, f, &c->u.hogs.unit);
	case COMP_SCHBENCH:
		if (!strcmp(k, "messages"))
			return get_count(x, v, f, 1024, &c->u.sb.messages, &c->c.per_cpu,
					 COMP_X_COUNT);
		if (!strcmp(k, "workers"))
			return get_u32(x, v, f, 1, 1024, &c->u.sb.workers);
		if (!strcmp(k, "work"))
			return get_dist(x, v, f, &c->u.sb.work);
		return get_dist(x, v, f, &c->u.sb.think);
	case COMP_TASKS:
		if (!strcmp(k, "count"))
			return get_count(x, v, f, 65536, &c->u.tasks.count, &c->c.per_cpu,
					 COMP_X_COUNT);
		if (!strcmp(k, "run"))
			return get_dist(x, v, f, &c->u.tasks.run);
		return get_dist(x, v, f, &c->u.tasks.sleep);
	case COMP_TRACE:
		return get_file(x, v, f, c->u.trace.file, sizeof(c->u.trace.file));
	case COMP_FAAS:
		return faas_field(x, v, k, f, &c->u.faas);
	}
	return 0;
}

/* Defaults of a component, before its fields. */
static void comp_defaults(struct comp *c)
{
	static const char *const names[] = { "lc", "bg", "sb", "task", "trace", "inv" };

	snprintf(c->c.name, sizeof(c->c.name), "%s", names[c->kind]);
	switch (c->kind) {
	case COMP_RR:
		c->u.rr.workers = 4;
		c->u.rr.dispatchers = 1;
		c->u.rr.stages = 1;
		c->u.rr.work = (struct dist){ DIST_FIXED, 1e6, 0 };
		c->u.rr.dispatch = (struct dist){ DIST_FIXED, 2e3, 0 };
		c->u.rr.backlog = 65536;
		break;
	case COMP_HOGS:
		c->u.hogs.count = 1;
		c->u.hogs.unit = (struct dist){ DIST_FIXED, 1e6, 0 };
		break;
	case COMP_SCHBENCH:
		c->u.sb.messages = 1;
		c->u.sb.workers = 4;
		c->u.sb.work = (struct dist){ DIST_FIXED, 30e3, 0 };
		c->u.sb.think = (struct dist){ DIST_FIXED, 0, 0 };
		break;
	case COMP_TASKS:
		c->u.tasks.count = 1;
		c->u.tasks.run = (struct dist){ DIST_FIXED, 1e6, 0 };
		c->u.tasks.sleep = (struct dist){ DIST_FIXED, 1e6, 0 };
		break;
	case COMP_TRACE:
		break;
	case COMP_FAAS:
		c->u.faas.capacity = 1;
		c->u.faas.capacity_x = true;
		/* faas-replay's defaults */
		c->u.faas.bucket_us = 100000;
		c->u.faas.alpha = 0.5;
		c->u.faas.mt_threads = 2;
		c->u.faas.io_sleep_ratio = 2;
		c->u.faas.duration_scale = 1;
		c->u.faas.time_scale = 1;
		c->u.faas.minute_s = 60;
		break;
	}
}

static int component(struct ctx *x, yaml_node_t *n, unsigned int i, struct comp *c)
{
	yaml_node_pair_t *pr;
	char where[32];
	int r, k;

	snprintf(where, sizeof(where), "workload[%u]", i);
	if (n->type != YAML_MAPPING_NODE)
		return bad(x, n, where, "want a map with a kind (%s, %s, %s, %s, %s or %s)", kinds[0],
			   kinds[1], kinds[2], kinds[3], kinds[4], kinds[5]);
	memset(c, 0, sizeof(*c));
	c->c.line = (unsigned int)n->start_mark.line + 1;
	for (pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = yaml_document_get_node(&x->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&x->doc, pr->value);
		const char *s = scalar(v);

		if (!scalar(key) || strcmp(scalar(key), "kind"))
			continue;
		for (k = 0; kinds[k] && (!s || strcmp(kinds[k], s)); k++)
			;
		if (!kinds[k])
			return bad(x, v, "kind", "\"%s\": want %s, %s, %s, %s, %s or %s",
				   s ? s : "", kinds[0], kinds[1], kinds[2], kinds[3], kinds[4],
				   kinds[5]);
		c->kind = (enum comp_kind)k;
		comp_defaults(c);
		r = walk(x, n, where, comp_keys, comp_field, c);
		if (r)
			return r;
		break;
	}
	if (pr == n->data.mapping.pairs.top)
		return bad(x, n, where, "no kind (%s, %s, %s, %s, %s or %s)", kinds[0], kinds[1],
			   kinds[2], kinds[3], kinds[4], kinds[5]);
	if (c->kind == COMP_RR && !c->u.rr.concurrency && !c->u.rr.rate.n)
		return bad(x, n, where, "an rr component wants a rate (open loop) or a "
			   "concurrency (closed loop)");
	if (c->kind == COMP_RR && c->u.rr.concurrency && c->u.rr.rate.n)
		return bad(x, n, where, "rate and concurrency: one or the other");
	if (c->kind == COMP_TRACE && !c->u.trace.file[0])
		return bad(x, n, where, "a trace component wants a file");
	if (c->kind == COMP_FAAS && !c->u.faas.trace[0] == !c->u.faas.invocations[0])
		return bad(x, n, where, "a faas component wants a trace (per-invocation CSV) or "
			   "invocations and durations (Azure 2019), not both");
	if (c->kind == COMP_FAAS && !c->u.faas.invocations[0] != !c->u.faas.durations[0])
		return bad(x, n, where, "Azure 2019: invocations and durations go together");
	return 0;
}

static const char *const top_keys[] = { "machine", "duration", "warmup", "seed", "policies",
					"workload", NULL };

static int top_field(struct ctx *x, yaml_node_t *v, const char *k, const char *f, void *out)
{
	struct spec *s = out;
	yaml_node_item_t *it;
	unsigned int i = 0;
	int r;

	if (!strcmp(k, "machine")) {
		r = walk(x, v, "machine", machine_keys, machine_field, s);
		if (!r && x->shape && s->sysfs[0])
			return bad(x, x->shape, "machine", "sysfs, or cpus, smt, llcs and nodes: "
				   "not both");
		return r;
	}
	if (!strcmp(k, "duration"))
		return get_duration(x, v, f, &s->duration_ns);
	if (!strcmp(k, "warmup"))
		return get_duration(x, v, f, &s->warmup_ns);
	if (!strcmp(k, "seed"))
		return get_uint(x, v, f, 0, ~0ULL, (unsigned long long *)&s->seed);
	if (v->type != YAML_SEQUENCE_NODE)
		return bad(x, v, f, "want a list");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = yaml_document_get_node(&x->doc, *it);
		char where[32];

		snprintf(where, sizeof(where), "%s[%u]", k, i);
		if (!strcmp(k, "policies")) {
			if (i == SPEC_MAX_POLICIES)
				return bad(x, n, where, "at most %d policies", SPEC_MAX_POLICIES);
			r = get_str(x, n, where, s->policies[i], sizeof(s->policies[i]), NULL);
			s->nr_policies = i + 1;
		} else {
			if (i == SPEC_MAX_COMPONENTS)
				return bad(x, n, where, "at most %d components", SPEC_MAX_COMPONENTS);
			r = component(x, n, i, &s->comps[i]);
			s->nr_comps = i + 1;
		}
		if (r)
			return r;
	}
	return 0;
}

int spec_check_machine(const struct spec *s, char *err, size_t errlen)
{
	unsigned int cores = s->cpus / s->smt;

	if (s->cpus % s->smt)
		snprintf(err, errlen, "%u CPUs are not whole cores of %u SMT threads", s->cpus,
			 s->smt);
	else if (cores % s->llcs)
		snprintf(err, errlen, "%u cores do not split into %u LLCs of equal size", cores,
			 s->llcs);
	else if (s->llcs % s->nodes)
		snprintf(err, errlen, "%u LLCs do not split into %u nodes of equal size", s->llcs,
			 s->nodes);
	else
		return 0;
	return -EINVAL;
}

int spec_resolve(struct spec *s, char *err, size_t errlen)
{
	static const unsigned int max_count[] = { [COMP_RR] = 4096, [COMP_HOGS] = 65536,
						  [COMP_SCHBENCH] = 1024, [COMP_TASKS] = 65536 };
	unsigned int i, k, *count;

	for (i = 0; i < s->nr_comps; i++) {
		struct comp *c = &s->comps[i];

		if (c->c.per_cpu & COMP_X_RATE)
			for (k = 0; k < c->u.rr.rate.n; k++)
				c->u.rr.rate.rate[k] *= s->cpus;
		if (c->c.per_cpu & COMP_X_CONCURRENCY)
			c->u.rr.concurrency *= s->cpus;
		if ((c->c.per_cpu & COMP_X_DISPATCHERS) && c->u.rr.dispatchers * s->cpus > 4096) {
			snprintf(err, errlen, "%s:%u: workload %s: %ux dispatchers on %u CPUs is more "
				 "than 4096", s->path, c->c.line, c->c.name, c->u.rr.dispatchers,
				 s->cpus);
			return -EINVAL;
		}
		if (c->c.per_cpu & COMP_X_DISPATCHERS)
			c->u.rr.dispatchers *= s->cpus;
		if (!(c->c.per_cpu & COMP_X_COUNT))
			continue;
		count = c->kind == COMP_RR ? &c->u.rr.workers : c->kind == COMP_HOGS ?
			&c->u.hogs.count : c->kind == COMP_SCHBENCH ? &c->u.sb.messages :
			&c->u.tasks.count;
		if ((unsigned long long)*count * s->cpus > max_count[c->kind]) {
			snprintf(err, errlen, "%s:%u: workload %s: %ux on %u CPUs is more than %u", s->path,
				 c->c.line, c->c.name, *count, s->cpus, max_count[c->kind]);
			return -EINVAL;
		}
		*count *= s->cpus;
	}
	return 0;
}

int spec_load(const char *path, struct spec *s, char *err, size_t errlen)
{
	struct ctx x = { .path = path, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_node_t *root;
	FILE *f;
	int r;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->cpus = 4;
	s->smt = s->llcs = s->nodes = 1;
	s->tick_ns = 1000000;
	s->ctxsw_ns = 2000;
	s->ipi_ns = 2000;
	s->idle_exit_ns = 5000;
	s->duration_ns = 10000000000ULL;
	s->seed = 1;
	f = fopen(path, "r");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &x.doc)) {
		snprintf(err, errlen, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1, parser.problem ? parser.problem : "bad YAML");
		yaml_parser_delete(&parser);
		fclose(f);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&x.doc);
	if (!root) {
		snprintf(err, errlen, "%s: empty: want a map with a workload", path);
		r = -EINVAL;
	} else {
		r = walk(&x, root, "", top_keys, top_field, s);
	}
	if (!r && !s->nr_comps) {
		snprintf(err, errlen, "%s: no workload", path);
		r = -EINVAL;
	}
	if (!r && !s->sysfs[0] && spec_check_machine(s, err, errlen) < 0)
		r = bad(&x, root, "machine", "%s", err);
	yaml_document_delete(&x.doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return r;
}
