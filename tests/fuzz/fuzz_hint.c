// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: what the hint client takes from outside before it
 * writes a map: a hint checked against the limits the policy published,
 * and the /proc/self/mountinfo line that tells the pruner where the cgroup2
 * hierarchy is mounted (mount points may hold any byte; the kernel escapes
 * space, tab, newline and backslash as \ooo).
 *
 * Input: 28 bytes of limits and hint (little-endian 32-bit words:
 * nr_pools, nr_classes, max_importance, pool, class, importance, flags),
 * then text used twice: as a raw mountinfo line, and as a mount point the
 * target escapes into a well-formed cgroup2 line, which must decode back
 * to the same text.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/hint.h>

#include "internal.h"

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

static uint32_t word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The rules of <scxpol/abi/hint.h>, written out independently. */
static bool valid(const struct scxpol_hint_meta *m, const struct scxpol_hint *h)
{
	if (!h->flags || (h->flags & ~SCXPOL_HINT_F_ALL))
		return false;
	if ((h->flags & SCXPOL_HINT_F_POOL) && h->pool != SCXPOL_HINT_POOL_NONE &&
	    (h->pool < 0 || (int64_t)h->pool >= (int64_t)m->nr_pools))
		return false;
	if ((h->flags & SCXPOL_HINT_F_CLASS) && h->class_id >= m->nr_classes)
		return false;
	if ((h->flags & SCXPOL_HINT_F_IMPORTANCE) && h->importance > m->max_importance)
		return false;
	return true;
}

static void check_hint(const uint8_t *data)
{
	struct scxpol_hint_meta m = { 0 };
	struct scxpol_hint h;
	int r;

	/* small limits half of the time, so that both sides of each bound are hit */
	m.nr_pools = word(data) % (data[0] & 1 ? 8 : UINT32_MAX);
	m.nr_classes = word(data + 4) % (data[4] & 1 ? 8 : UINT32_MAX);
	m.max_importance = word(data + 8) % (data[8] & 1 ? 8 : UINT32_MAX);
	h.pool = (int32_t)word(data + 12);
	h.class_id = word(data + 16);
	h.importance = word(data + 20);
	h.flags = word(data + 24);
	if (data[24] & 0x80) /* real callers set known flags */
		h.flags &= SCXPOL_HINT_F_ALL;
	scxpol_err_clear();
	r = scxpol_hint_check(&m, "fuzz", "tgid 1", &h);
	CHECK(r == 0 || r == -EINVAL);
	CHECK((r == 0) == valid(&m, &h));
	if (r)
		CHECK(!strncmp(scxpol_last_error(), "tgid 1: ", 8));
	else
		CHECK(!scxpol_last_error()[0]);
}

static void check_raw_line(const char *line, uint8_t small)
{
	char mnt[PATH_MAX], tiny[16];
	int r;

	r = scxpol_mountinfo_cgroup2(line, mnt, sizeof(mnt));
	CHECK(r == 1 || r == 0 || r == -ENAMETOOLONG || r == -EINVAL);
	if (r == 1)
		CHECK(strlen(mnt) < sizeof(mnt));
	/* short buffers: never written past */
	r = scxpol_mountinfo_cgroup2(line, tiny, small % sizeof(tiny));
	CHECK(r == 1 || r == 0 || r == -ENAMETOOLONG || r == -EINVAL);
	if (r == 1)
		CHECK(strlen(tiny) < small % sizeof(tiny));
}

/* The kernel's escaping of a mount point (seq_path's " \t\n\\"). */
static size_t escape(const char *s, char *out)
{
	size_t o = 0;

	for (; *s; s++) {
		if (strchr(" \t\n\\", *s)) {
			o += (size_t)sprintf(out + o, "\\%03o", (unsigned char)*s);
			continue;
		}
		out[o++] = *s;
	}
	out[o] = '\0';
	return o;
}

static void check_escaped(const char *point)
{
	static const char *const fmt[] = {
		/* the root of the hierarchy: found */
		"36 25 0:26 / %s rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
		/* no optional fields */
		"29 1 0:26 / %s rw - cgroup2 none rw",
		/* a subtree bind mount, and a cgroup v1 hierarchy: not it */
		"40 25 0:26 /sub %s rw shared:9 - cgroup2 cgroup2 rw\n",
		"41 25 0:27 / %s rw shared:10 master:2 - cgroup cgroup rw,cpu\n",
	};
	size_t len = strlen(point), i;
	char *esc = malloc(4 * len + 1), *line, mnt[PATH_MAX];
	int r;

	CHECK(esc);
	escape(point, esc);
	line = malloc(strlen(esc) + 128);
	CHECK(line);
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		sprintf(line, fmt[i], esc);
		r = scxpol_mountinfo_cgroup2(line, mnt, sizeof(mnt));
		if (i >= 2) {
			CHECK(r == 0);
		} else if (len >= sizeof(mnt)) {
			CHECK(r == -ENAMETOOLONG);
		} else {
			CHECK(r == 1);
			CHECK(!strcmp(mnt, point));
		}
	}
	free(line);
	free(esc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 28)
		return 0;
	check_hint(data);
	text = strndup((const char *)data + 28, size - 28);
	CHECK(text);
	check_raw_line(text, data[27]);
	check_escaped(text);
	free(text);
	return 0;
}
