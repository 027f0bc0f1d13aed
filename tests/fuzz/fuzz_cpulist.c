// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the CPU list parser and the set operations.
 *
 * Input: 2 bytes of capacity (little endian, modulo 2049), then the list
 * text (cut at the first NUL). A parsed set must format back to a list that
 * parses to the same set, and the bit operations must agree with each other.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cpuset.h>

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

static void check_set(const struct scxpol_cpuset *s)
{
	unsigned int cap = scxpol_cpuset_capacity(s), n = 0, c;
	struct scxpol_cpuset *again, *copy;
	const uint64_t *w;
	size_t nw, len = 16 + 12 * (size_t)cap;
	char *buf = malloc(len);
	int cpu, prev = -1, r;

	CHECK(buf);
	scxpol_cpuset_for_each(cpu, s) {
		CHECK(cpu > prev && (unsigned int)cpu < cap);
		CHECK(scxpol_cpuset_test(s, (unsigned int)cpu));
		prev = cpu;
		n++;
	}
	CHECK(n == scxpol_cpuset_count(s));
	w = scxpol_cpuset_words(s, &nw);
	CHECK(nw == (cap + 63) / 64);
	if (cap % 64)
		CHECK((w[nw - 1] >> (cap % 64)) == 0);
	for (c = 0, n = 0; c < cap; c++)
		n += scxpol_cpuset_test(s, c);
	CHECK(n == scxpol_cpuset_count(s));

	r = scxpol_cpuset_format(s, buf, len);
	CHECK(r >= 0 && (size_t)r == strlen(buf));
	if (r > 0)
		CHECK(scxpol_cpuset_format(s, buf + len / 2, (size_t)r) == -ENOSPC);
	r = scxpol_cpuset_format(s, buf, len);
	CHECK((again = scxpol_cpuset_parse(buf, cap)));
	CHECK(scxpol_cpuset_equal(s, again));

	/* Algebra: s | s == s, s & ~s == {}, s & again == s. */
	copy = scxpol_cpuset_dup(s);
	CHECK(copy);
	scxpol_cpuset_or(copy, again);
	CHECK(scxpol_cpuset_equal(copy, s));
	scxpol_cpuset_and(copy, again);
	CHECK(scxpol_cpuset_equal(copy, s));
	CHECK(scxpol_cpuset_subset(s, copy));
	CHECK(scxpol_cpuset_intersects(s, copy) == (scxpol_cpuset_count(s) > 0));
	scxpol_cpuset_andnot(copy, again);
	CHECK(scxpol_cpuset_count(copy) == 0);
	scxpol_cpuset_free(copy);
	scxpol_cpuset_free(again);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scxpol_cpuset *s = NULL;
	unsigned int cap;
	char *text;
	int r;

	if (size < 2)
		return 0;
	cap = (unsigned int)(data[0] | data[1] << 8) % 2049;
	text = strndup((const char *)data + 2, size - 2);
	CHECK(text);
	s = scxpol_cpuset_parse(text, cap);
	r = s ? 0 : -errno;
	if (r) {
		CHECK(r == -EINVAL || r == -ERANGE);
		CHECK(!strncmp(scxpol_last_error(), "cpu list \"", 10));
	} else {
		CHECK(s && scxpol_cpuset_capacity(s) == cap);
		check_set(s);
		scxpol_cpuset_free(s);
	}
	free(text);
	return 0;
}
