// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the stats server's request line (what any client of the
 * socket sends) and the response the server builds for it.
 *
 * Input: the request line, as the server hands it over (no newline, any
 * bytes). The parser either returns a request name that fits its buffer,
 * or -EINVAL/-E2BIG with a message. For requests other than "stats" (which
 * reads a loaded scheduler) the response must be one JSON object: the
 * server's own parser accepts it as JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/stats.h>

#include "internal.h"

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

/* Whether @text parses as JSON (the request parser's verdict on its syntax). */
static int is_json(const char *text)
{
	char req[8], err[256] = "";

	scxpol_stats_parse_request(text, strlen(text), req, sizeof(req), err, sizeof(err));
	return strncmp(err, "bad JSON", 8) != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct scxpol_stat_desc user[] = { { "user_counter", "events", "a test" } };
	SCXPOL_OPTS(scxpol_stats_opts, so, .user_descs = user, .nr_user = 1);
	char req[64], err[256], *resp;
	int r;

	err[0] = '\0';
	r = scxpol_stats_parse_request((const char *)data, size, req, sizeof(req), err,
				       sizeof(err));
	if (r) {
		CHECK(r == -EINVAL || r == -E2BIG);
		CHECK(err[0] && strlen(err) < sizeof(err));
		CHECK((r == -E2BIG) == (size > SCXPOL_STATS_MAX_LINE));
	} else {
		CHECK(size <= SCXPOL_STATS_MAX_LINE);
		CHECK(strlen(req) < sizeof(req));
	}
	if (!r && !strcmp(req, "stats"))
		return 0;
	/* no scheduler: only "stats" touches it */
	resp = scxpol_stats_respond(NULL, &so, (const char *)data, size);
	CHECK(resp);
	CHECK(!strncmp(resp, "{\"errno\":", 9) && resp[strlen(resp) - 1] == '}');
	CHECK(!strchr(resp, '\n'));
	CHECK(is_json(resp));
	if (!r && !strcmp(req, "list"))
		CHECK(!strncmp(resp, "{\"errno\":0,", 11) && strstr(resp, "\"user_counter\""));
	else if (!r && !strcmp(req, "stats_meta"))
		CHECK(!strncmp(resp, "{\"errno\":0,", 11) && strstr(resp, "\"a test\""));
	else
		CHECK(strncmp(resp, "{\"errno\":0,", 11));
	free(resp);
	return 0;
}
