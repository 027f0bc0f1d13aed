// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* What the stats tests share (stats_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxpol/skel.h>
#include <scxpol/stats.h>

#include "internal.h"
#include "minimal.bpf.skel.h"
#include "stats_fixture.h"

SCXPOL_SKEL_DEFINE(minimal_bpf);

const char *const lib_names[] = { SCXPOL_STAT_NAMES };
#define LIB_UNIT_(id, name, unit, desc) unit,
const char *const lib_units[] = { SCXPOL_STAT_TABLE(LIB_UNIT_) };
#define LIB_DESC_(id, name, unit, desc) desc,
const char *const lib_descs[] = { SCXPOL_STAT_TABLE(LIB_DESC_) };
char dir[128];

void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/scxpol-stats-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* --- an independent strict JSON checker (RFC 8259), for the output ------- */

static const char *jv(const char *s, int depth);

static const char *jws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *jstr(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20)
			return NULL;
		/* UTF-8 by its lead byte: C0, C1 and F5.. never start a character */
		if (c >= 0x80) {
			int i, more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;

			if (c < 0xc2 || c > 0xf4)
				return NULL;
			for (i = 1; i <= more; i++)
				if (((unsigned char)s[i] & 0xc0) != 0x80)
					return NULL;
			s += more;
		}
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 4;
			} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
				return NULL;
			}
		}
		s++;
	}
	return s + 1;
}

static const char *jv(const char *s, int depth)
{
	s = jws(s);
	if (depth > 64)
		return NULL;
	if (*s == '"')
		return jstr(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = jws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = jstr(jws(s));
				if (!s)
					return NULL;
				s = jws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = jv(s, depth + 1);
			if (!s)
				return NULL;
			s = jws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return NULL;
	return s;
}

bool valid_json(const char *s)
{
	s = jv(s, 0);
	return s && !*jws(s);
}

struct scxpol_sched *open_minimal(void)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = dir);
	struct scxpol_sched *s = scxpol_sched_open(&o);

	assert_non_null(s);
	return s;
}

const struct scxpol_stat_desc udescs[] = {
	{ "importance_sum", "importance", "importance summed over \"important\" enqueues" },
	{ NULL, "tasks", "not reported: no name" },
	{ "class_placed", NULL, NULL },
};
