/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the libFuzzer targets share. CHECK() aborts naming the condition
 * that failed, so libFuzzer saves the input as a crash. The library's log
 * is silenced (fuzz_quiet_log()): bad input is the point, and a message
 * per rejected input would drown libFuzzer's own output.
 */
#ifndef SCXPOL_FUZZ_H
#define SCXPOL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond) do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef SCXPOL_COMMON_H
static inline void fuzz_quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static inline void fuzz_quiet_log(void)
{
	scxpol_log_set(fuzz_quiet, SCXPOL_LOG_ERROR, NULL);
}

/* LLVMFuzzerInitialize() of a target that needs nothing else. */
#define FUZZ_INITIALIZE_QUIET()                                  \
	int LLVMFuzzerInitialize(int *argc, char ***argv)        \
	{                                                        \
		(void)argc;                                      \
		(void)argv;                                      \
		fuzz_quiet_log();                                \
		return 0;                                        \
	}
#endif

#endif
