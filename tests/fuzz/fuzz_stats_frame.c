// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the stats server's framing of a client's byte stream
 * into request lines (scxpol_stats_frame_room()/_next(), what the server
 * thread runs on every recv()).
 *
 * Input: 4 bytes seeding the sizes of the pieces the stream arrives in (a
 * socket delivers any split), then the stream. The lines the framer hands
 * out must be those of a plain split of the whole stream at its newlines:
 * lines of only spaces, tabs and CRs left out, a last line without a
 * newline counted at the end of the stream, and nothing after a line of
 * more than SCXPOL_STATS_MAX_LINE bytes, which it reports as -E2BIG.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

static bool blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* The next line the reference split expects at *@pos; false when there is none. */
static bool expect_next(const char *s, size_t size, size_t *pos, const char **line, size_t *n,
			bool *too_long)
{
	while (*pos < size) {
		const char *nl = memchr(s + *pos, '\n', size - *pos);
		size_t len = nl ? (size_t)(nl - (s + *pos)) : size - *pos;

		/* a line that fills the buffer without its newline */
		if (len > SCXPOL_STATS_MAX_LINE) {
			*too_long = true;
			return false;
		}
		*line = s + *pos;
		*n = len;
		*pos += len + (nl ? 1 : 0);
		if (!blank(*line, len))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scxpol_stats_frame f;
	const char *s = (const char *)data + 4, *line, *want;
	size_t fed = 0, pos = 0, n, want_n;
	uint32_t seed;
	bool too_long = false, done = false;
	int r;

	if (size < 4)
		return 0;
	seed = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	       (uint32_t)data[3] << 24;
	size -= 4;
	memset(&f, 0, sizeof(f));
	while (!done) {
		size_t room, piece;
		char *p = scxpol_stats_frame_room(&f, &room);

		CHECK(p >= f.in && p + room == f.in + sizeof(f.in));
		if (fed < size && room) {
			seed = seed * 1103515245U + 12345U;
			piece = 1 + (seed >> 8) % (seed & 1 ? 8 : room);
			if (piece > room)
				piece = room;
			if (piece > size - fed)
				piece = size - fed;
			memcpy(p, s + fed, piece);
			f.len += piece;
			fed += piece;
		} else if (fed == size) {
			f.eof = true;
		}
		for (;;) {
			r = scxpol_stats_frame_next(&f, &line, &n);
			if (r == 0)
				break;
			if (r == -E2BIG) {
				CHECK(!expect_next(s, size, &pos, &want, &want_n, &too_long));
				CHECK(too_long);
				CHECK(f.len == 0);
				done = true;
				break;
			}
			CHECK(r == 1);
			CHECK(n <= SCXPOL_STATS_MAX_LINE && !memchr(line, '\n', n) && !blank(line, n));
			CHECK(expect_next(s, size, &pos, &want, &want_n, &too_long));
			CHECK(n == want_n && !memcmp(line, want, n));
		}
		if (f.eof && !r)
			done = true;
	}
	if (!too_long)
		CHECK(!expect_next(s, size, &pos, &want, &want_n, &too_long) && !too_long);
	return 0;
}
