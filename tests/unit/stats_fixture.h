/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the stats tests (test_stats*.c) share: a private directory for the
 * whole group and the log silenced, the library's own counters, a strict
 * JSON checker of the library's output, and the minimal policy opened.
 */
#ifndef STATS_FIXTURE_H
#define STATS_FIXTURE_H

#include <stdbool.h>

#include <scxpol/common.h>
#include <scxpol/sched.h>
#include <scxpol/stats.h>

/*
 * cmocka group fixture: setup() silences the log (quiet()) and makes the
 * directory dir, teardown() removes it with what the tests left there.
 */
extern char dir[128];
int setup(void **state);
int teardown(void **state);
void quiet(enum scxpol_log_level l, const char *m, void *c);

/* The name, unit and description of each of the library's SCXPOL_STAT_NR counters. */
extern const char *const lib_names[], *const lib_units[], *const lib_descs[];

/* @s is one JSON value (RFC 8259) and nothing else: checked without jansson. */
bool valid_json(const char *s);

/* The minimal policy opened (not loaded) on dir as its sysfs; the test fails if it cannot. */
struct scxpol_sched *open_minimal(void);

/* User counters: a named one, one without a name (not reported), one without unit and desc. */
extern const struct scxpol_stat_desc udescs[3];

#endif
