// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Lifecycle API on the host: everything that does not need sched_ext. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/libbpf.h>
#include <scxpol/skel.h>

#include "internal.h"
#include "minimal.bpf.skel.h"

SCXPOL_SKEL_DEFINE(minimal_bpf);

static char root[256];

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static void write_file(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/scxpol-sched-test.XXXXXX");
	assert_non_null(mkdtemp(root));
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* What a log callback saw: every message, in order. */
static char *seen[64];
static int nr_seen;

static void collect(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)c;
	if (nr_seen < 64)
		seen[nr_seen++] = strdup(m);
}

static void forget(void)
{
	while (nr_seen)
		free(seen[--nr_seen]);
}

/* Call libbpf's print function (the library's, once a scheduler is open). */
static void libbpf_says(libbpf_print_fn_t fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(LIBBPF_WARN, fmt, ap);
	va_end(ap);
}

/*
 * libbpf hands over a rejected program's whole verifier log in one
 * message, and its last line says why: every line reaches the log
 * callback, as its own message; and a long message of the library's own is
 * not cut either.
 */
static void test_log_keeps_long_messages(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = root);
	char log[6000], big[5000];
	struct scxpol_sched *s;
	libbpf_print_fn_t fn;
	int i, n = 0;

	(void)state;
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	fn = libbpf_set_print(NULL);
	assert_non_null(fn);
	libbpf_set_print(fn);
	n += snprintf(log + n, sizeof(log) - (size_t)n, "-- BEGIN PROG LOAD LOG --\n");
	for (i = 0; i < 50; i++)
		n += snprintf(log + n, sizeof(log) - (size_t)n,
			      "%d: (79) r8 = *(u64 *)(r1 +8)          ; R1=ctx() R8=scalar()\n", i);
	snprintf(log + n, sizeof(log) - (size_t)n, "R2 invalid mem access 'scalar'\n");
	scxpol_log_set(collect, SCXPOL_LOG_DEBUG, NULL);
	libbpf_says(fn, "libbpf: prog 'x': BPF program load failed: %s\n", "Permission denied");
	libbpf_says(fn, "%s", log);
	assert_int_equal(nr_seen, 53);
	assert_string_equal(seen[0], "libbpf: prog 'x': BPF program load failed: Permission denied");
	assert_string_equal(seen[1], "libbpf: -- BEGIN PROG LOAD LOG --");
	assert_string_equal(seen[51], "libbpf: 49: (79) r8 = *(u64 *)(r1 +8)          ; R1=ctx() R8=scalar()");
	assert_string_equal(seen[52], "libbpf: R2 invalid mem access 'scalar'");
	forget();
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	scxpol_log(SCXPOL_LOG_WARN, "%s!", big);
	assert_int_equal(nr_seen, 1);
	assert_int_equal(strlen(seen[0]), sizeof(big));
	assert_int_equal(seen[0][sizeof(big) - 1], '!');
	forget();
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	scxpol_sched_close(s);
}

static void test_open_reads_policy_name(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = root);
	struct scxpol_sched *s;

	(void)state;
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	assert_string_equal(scxpol_sched_name(s), "minimal");
	assert_string_equal(scxpol_sched_pin_root(s), "/sys/fs/bpf/scxpol/minimal");
	assert_non_null(scxpol_sched_skel(s));
	assert_false(scxpol_sched_exited(s));
	scxpol_sched_close(s);
}

static void test_load_refuses_without_sched_ext(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = root);
	struct scxpol_sched *s;

	(void)state;
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	assert_int_equal(scxpol_sched_load(s), -EOPNOTSUPP);
	assert_non_null(strstr(scxpol_last_error(), "this kernel has no sched_ext"));
	assert_non_null(strstr(scxpol_last_error(), "CONFIG_SCHED_CLASS_EXT"));
	scxpol_sched_close(s);
}

static void test_state_reads_sysfs(void **state)
{
	char st[32], ops[64];

	(void)state;
	write_file("/sys/kernel/sched_ext/state", "enabled\n");
	write_file("/sys/kernel/sched_ext/root/ops", "other\n");
	assert_int_equal(scxpol_sched_state(root, st, sizeof(st), ops, sizeof(ops)), 0);
	assert_string_equal(st, "enabled");
	assert_string_equal(ops, "other");
}

static void test_opts_validation(void **state)
{
	struct {
		struct scxpol_sched_opts o;
		char future[16];
	} big;
	struct scxpol_sched_opts small = { .sz = 0 };

	(void)state;
	assert_null(scxpol_sched_open(NULL));
	assert_int_equal(errno, EINVAL);

	assert_null(scxpol_sched_open(&small));
	assert_non_null(strstr(scxpol_last_error(), "set it to sizeof"));

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.skel = SCXPOL_SKEL(minimal_bpf);
	big.future[3] = 1;
	assert_null(scxpol_sched_open(&big.o));
	assert_non_null(strstr(scxpol_last_error(), "does not know"));

	SCXPOL_OPTS(scxpol_sched_opts, noskel);
	assert_null(scxpol_sched_open(&noskel));
	assert_non_null(strstr(scxpol_last_error(), "opts.skel is NULL"));
}

static void test_bad_ops_map_name(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .ops_map = "nope");

	(void)state;
	assert_null(scxpol_sched_open(&o));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(scxpol_last_error(), "struct_ops map 'nope' not found in the BPF object");
}

static void test_exit_kind_names(void **state)
{
	(void)state;
	assert_string_equal(scxpol_exit_kind_name(0), "NONE");
	assert_string_equal(scxpol_exit_kind_name(64), "UNREG");
	assert_string_equal(scxpol_exit_kind_name(66), "UNREG_KERN");
	assert_string_equal(scxpol_exit_kind_name(1026), "ERROR_STALL");
	assert_string_equal(scxpol_exit_kind_name(1099), "ERROR(unknown)");
	assert_string_equal(scxpol_exit_kind_name(7), "UNKNOWN");
}

static int configure_fails(struct scxpol_sched *s, void *skel, void *ctx)
{
	(void)s;
	(void)skel;
	(void)ctx;
	return -ERANGE;
}

static void test_configure_error_propagates(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf),
		    .configure = configure_fails);

	(void)state;
	assert_null(scxpol_sched_open(&o));
	assert_int_equal(errno, ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_reads_policy_name),
		cmocka_unit_test(test_log_keeps_long_messages),
		cmocka_unit_test(test_load_refuses_without_sched_ext),
		cmocka_unit_test(test_state_reads_sysfs),
		cmocka_unit_test(test_opts_validation),
		cmocka_unit_test(test_bad_ops_map_name),
		cmocka_unit_test(test_exit_kind_names),
		cmocka_unit_test(test_configure_error_propagates),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
