/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trace replay tests (test_faas_replay*.c) share: the group
 * fixture (a private directory, the bodies' calibration, a cgroup2 mount
 * to create cgroups in), a small trace and the options that replay it, the
 * cleanup after each test, and clone3 refused as container runtimes do.
 */
#ifndef FAAS_REPLAY_FIXTURE_H
#define FAAS_REPLAY_FIXTURE_H

#include <stdbool.h>

#include "../../examples/faas/replay.h"

/*
 * cmocka group fixture: setup() silences the log, makes the directory
 * tmpdir, calibrates the bodies (ipu) and finds a cgroup2 mount where this
 * process may create cgroups (cg_mount; "" if there is none); teardown()
 * removes tmpdir. err: the error-message buffer the tests pass to calls.
 */
extern char err[FAAS_ERR_LEN], tmpdir[256], cg_mount[1024];
extern double ipu;
int setup(void **state);
int teardown(void **state);

/* Each test's teardown: kill the bodies and remove the cgroups a failed test left. */
int kill_children(void **state);
/* Fail if a body is left behind. */
void assert_no_children(void);

/* Functions a (cpu), b (io), c (poll), d (mt), and 8 invocations of them. */
extern struct faas_func funcs[];
extern struct faas_invocation invs[];
/* Options to replay those on 2 domains of capacity 1. */
struct faas_replay_opts base_opts(void);

/* Make clone3 fail with @errnum (seccomp); 0, or the errno that kept the filter out. */
int refuse_clone3(int errnum);
/* A SIGALRM handler that does nothing: the signal only interrupts. */
void on_alarm(int sig);

/*
 * With SCXPOL_TEST_NO_CLONE3 set (the _no_clone3 runs of
 * tests/unit/meson.build), refuse clone3 to the whole test, so bodies take
 * the fork-and-move path. True when that cannot be done here: it has
 * printed a TAP plan that skips every test.
 */
bool no_clone3_run_skipped(void);

/* main(): the cmocka array @tests with setup() and teardown(), after no_clone3_run_skipped(). */
#define run_replay_tests(tests) \
	(no_clone3_run_skipped() ? 0 : cmocka_run_group_tests(tests, setup, teardown))

#endif
