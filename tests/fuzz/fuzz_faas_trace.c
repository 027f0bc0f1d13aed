// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the FaaS trace parsers of examples/faas/trace.c, both
 * formats.
 *
 * Input: one option byte, then the file(s).
 *   bit 0  Azure 2019 format: the rest is the invocations file, a NUL
 *          byte, and the durations file (no NUL: the durations file is
 *          empty); else the rest is a simple-format trace
 *   bit 1  azure: skip functions missing from the durations file
 *   bit 2-3 azure minute range: all, 1-1, 2-3, 5-1440 (simple: bit 2
 *          scales the durations by 1/4 after loading)
 *   bit 4  azure: at most 2 functions
 *   bit 5  azure: kind mix 25,25,25,25
 *   bit 6  azure: durations x 0.5
 *   bit 7  azure: a minute lasts 1 ms (else 60 s)
 * The files go to a private temporary directory (tmpfs when there is one).
 * Expansion is capped at 20000 invocations so that every input runs fast.
 * A loaded trace must be well formed (sorted, indices in range, counts
 * adding up, times within the minute range); a failure must come with a
 * message that names one of the files (or the option at fault).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#include "fuzz.h"

#define MAX_INV 20000
#define MAX_US (1ULL << 53)

static char dir[128], inv_path[192], dur_path[192];

static void cleanup(void)
{
	unlink(inv_path);
	unlink(dur_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/scxpol-fuzz-faas.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	CHECK(mkdtemp(dir));
	snprintf(inv_path, sizeof(inv_path), "%s/inv.csv", dir);
	snprintf(dur_path, sizeof(dur_path), "%s/dur.csv", dir);
	atexit(cleanup);
	return 0;
}

static void put(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* Invariants of any loaded trace; @span_us bounds the arrivals. */
static void check_trace(const struct faas_trace *t, uint64_t span_us, uint64_t max_inv)
{
	uint64_t i, total = 0;
	uint32_t f;

	CHECK(t->nr_inv >= 1 && t->nr_inv <= max_inv);
	CHECK(t->nr_funcs >= 1 && t->nr_funcs <= t->nr_inv);
	for (f = 0; f < t->nr_funcs; f++) {
		CHECK(t->funcs[f].name && t->funcs[f].name[0]);
		CHECK(t->funcs[f].trigger);
		CHECK((unsigned int)t->funcs[f].kind < FAAS_NR_KINDS);
		CHECK(t->funcs[f].count >= 1);
		total += t->funcs[f].count;
	}
	CHECK(total == t->nr_inv);
	for (i = 0; i < t->nr_inv; i++) {
		const struct faas_invocation *v = &t->inv[i];

		CHECK(v->func < t->nr_funcs);
		CHECK((unsigned int)v->kind < FAAS_NR_KINDS);
		CHECK(v->arrival_us < span_us);
		CHECK(v->duration_us <= MAX_US);
		if (i)
			CHECK(t->inv[i - 1].arrival_us <= v->arrival_us);
	}
}

static void check_error(int r, const char *err)
{
	CHECK(r < 0);
	CHECK(err[0]);
	CHECK(strstr(err, inv_path) || strstr(err, dur_path) || !strncmp(err, "minute range ", 13));
}

static void fuzz_simple(uint8_t opt, const uint8_t *data, size_t size)
{
	struct faas_trace *t = NULL;
	char err[FAAS_ERR_LEN] = "";
	uint64_t i, *before;
	int r;

	put(inv_path, data, size);
	r = faas_trace_load_simple(inv_path, &t, err, sizeof(err));
	if (r) {
		CHECK(!t);
		check_error(r, err);
		return;
	}
	check_trace(t, MAX_US + 1, UINT64_MAX);
	CHECK(!t->skipped_funcs && !t->skipped_inv);
	if (opt & 4) {
		before = malloc(t->nr_inv * sizeof(*before));
		CHECK(before);
		for (i = 0; i < t->nr_inv; i++)
			before[i] = t->inv[i].duration_us;
		faas_trace_scale_durations(t, 0.25);
		for (i = 0; i < t->nr_inv; i++)
			CHECK(t->inv[i].duration_us <= before[i] / 4 + 1);
		free(before);
	}
	faas_trace_free(t);
}

static void fuzz_azure(uint8_t opt, const uint8_t *data, size_t size)
{
	static const struct { unsigned int first, last; } ranges[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 3 }, { 5, 1440 },
	};
	struct faas_azure_opts o = { .max_inv = MAX_INV, .seed = opt };
	const uint8_t *nul = memchr(data, 0, size);
	size_t n_inv = nul ? (size_t)(nul - data) : size;
	struct faas_trace *t = NULL;
	char err[FAAS_ERR_LEN] = "";
	unsigned int span;
	int r, k;

	put(inv_path, data, n_inv);
	put(dur_path, nul ? nul + 1 : data, nul ? size - n_inv - 1 : 0);
	o.skip_missing = opt & 2;
	o.first_minute = ranges[(opt >> 2) & 3].first;
	o.last_minute = ranges[(opt >> 2) & 3].last;
	if (opt & 16)
		o.max_funcs = 2;
	if (opt & 32)
		for (k = 0; k < FAAS_NR_KINDS; k++)
			o.kind_mix[k] = 25;
	if (opt & 64)
		o.duration_scale = 0.5;
	o.minute_us = opt & 128 ? 1000 : 60000000;
	r = faas_trace_load_azure(inv_path, dur_path, &o, &t, err, sizeof(err));
	if (r) {
		CHECK(!t);
		check_error(r, err);
		return;
	}
	span = o.last_minute ? o.last_minute - o.first_minute + 1 : 1440;
	check_trace(t, span * o.minute_us, MAX_INV);
	if (o.max_funcs)
		CHECK(t->nr_funcs <= o.max_funcs);
	if (!o.skip_missing)
		CHECK(!t->skipped_funcs && !t->skipped_inv);
	faas_trace_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_azure(data[0], data + 1, size - 1);
	else
		fuzz_simple(data[0], data + 1, size - 1);
	return 0;
}
