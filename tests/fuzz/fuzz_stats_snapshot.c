// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the stats snapshot parser (what scxpol-stat and other
 * clients do with a server's response) and the JSON writer.
 *
 * Input: the snapshot text (cut at the first NUL). A snapshot that parses
 * must write back as JSON that parses to the same snapshot, and the text
 * written must be exactly what fits: -ENOSPC one byte short.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/stats.h>

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

static void check_same(const struct scxpol_stats *a, const struct scxpol_stats *b)
{
	unsigned int i;

	CHECK(!strcmp(a->policy, b->policy));
	CHECK(a->restarts == b->restarts && a->time_ns == b->time_ns);
	CHECK(a->nr == b->nr && a->nr_pools == b->nr_pools);
	for (i = 0; i < a->nr; i++) {
		CHECK(!strcmp(a->v[i].name, b->v[i].name));
		CHECK(a->v[i].value == b->v[i].value);
	}
	for (i = 0; i < a->nr_pools; i++) {
		CHECK(!strcmp(a->pools[i].name, b->pools[i].name));
		CHECK(!strcmp(a->pools[i].cpus, b->pools[i].cpus));
		CHECK(a->pools[i].flags == b->pools[i].flags);
		CHECK(a->pools[i].nr_cpus == b->pools[i].nr_cpus);
		CHECK(a->pools[i].queued == b->pools[i].queued);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scxpol_stats st = SCXPOL_STATS_INIT, again = SCXPOL_STATS_INIT;
	char *text = strndup((const char *)data, size), *buf;
	size_t len = 1 << 20;
	int r;

	CHECK(text);
	r = scxpol_stats_parse(text, &st);
	if (r) {
		CHECK(r == -EINVAL);
		CHECK(!strncmp(scxpol_last_error(), "stats snapshot: ", 16));
		free(text);
		return 0;
	}
	buf = malloc(len);
	CHECK(buf);
	r = scxpol_stats_json(&st, buf, len);
	CHECK(r > 0 && (size_t)r == strlen(buf));
	CHECK(scxpol_stats_parse(buf, &again) == 0);
	check_same(&st, &again);
	/* exactly r + 1 bytes are needed */
	CHECK(scxpol_stats_json(&st, buf, (size_t)r + 1) == r);
	CHECK(scxpol_stats_json(&st, buf, (size_t)r) == -ENOSPC && buf[0] == '\0');
	free(buf);
	free(text);
	return 0;
}
