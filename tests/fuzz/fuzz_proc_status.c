// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the /proc/PID/status reader the hint client names a
 * task's process with (scxpol_proc_status_tgid()).
 *
 * Input: 4 bytes of a tgid (little-endian), then text used twice: as a
 * whole status file, whose verdict must match a reference reading written
 * out here (the first line that starts with "Tgid:", blanks, then only
 * digits of a number in 1..INT_MAX up to the line's end), and as a task
 * name the kernel escapes into a status file with that tgid, which must
 * read back as the tgid whatever the name holds.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "fuzz.h"

FUZZ_INITIALIZE_QUIET()

static int reference(const char *text, long long *out)
{
	const char *line = text;

	for (;;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		if (n >= 5 && !memcmp(line, "Tgid:", 5)) {
			size_t i = 5, digits = 0;
			long long v = 0;

			while (i < n && (line[i] == ' ' || line[i] == '\t'))
				i++;
			for (; i < n && line[i] >= '0' && line[i] <= '9'; i++, digits++) {
				v = v * 10 + (line[i] - '0');
				if (v > INT_MAX)
					return -EINVAL;
			}
			if (!digits || i != n || !v)
				return -EINVAL;
			*out = v;
			return 0;
		}
		if (!end)
			return -EINVAL;
		line = end + 1;
	}
}

/* The kernel's escaping of a name in status (proc_task_name(): "\n" and "\\" escaped). */
static void escape(const char *s, char *out)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\\') {
			*out++ = '\\';
			*out++ = *s == '\n' ? 'n' : '\\';
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t want;
	long long ref = 0;
	char *text, *esc, *status;
	pid_t tgid = 0;
	int r;

	if (size < 4)
		return 0;
	want = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	       (uint32_t)data[3] << 24;
	want = want % (uint32_t)INT_MAX + 1;
	text = strndup((const char *)data + 4, size - 4);
	CHECK(text);

	r = scxpol_proc_status_tgid(text, &tgid);
	CHECK(r == 0 || r == -EINVAL);
	CHECK(r == reference(text, &ref));
	if (!r)
		CHECK(tgid == ref && tgid > 0);

	esc = malloc(2 * strlen(text) + 1);
	CHECK(esc);
	escape(text, esc);
	status = malloc(strlen(esc) + 256);
	CHECK(status);
	sprintf(status, "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%u\nNgid:\t0\n"
		"Pid:\t%u\nPPid:\t1\n", esc, want, want);
	tgid = 0;
	CHECK(scxpol_proc_status_tgid(status, &tgid) == 0);
	CHECK(tgid == (pid_t)want);
	free(status);
	free(esc);
	free(text);
	return 0;
}
