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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scxpol/abi/sched.h>
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
	assert_string_equal(scxpol_sched_exit_kind_name(0), "NONE");
	assert_string_equal(scxpol_sched_exit_kind_name(64), "UNREG");
	assert_string_equal(scxpol_sched_exit_kind_name(66), "UNREG_KERN");
	assert_string_equal(scxpol_sched_exit_kind_name(1026), "ERROR_STALL");
	assert_string_equal(scxpol_sched_exit_kind_name(1099), "ERROR(unknown)");
	assert_string_equal(scxpol_sched_exit_kind_name(7), "UNKNOWN");
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

/*
 * minimal's skeleton with a load that does not go to the kernel (the host
 * has no sched_ext): only the exit record map is created, for real, so the
 * library's bookkeeping around load and attach can run. Needs root (BPF
 * maps); the tests skip without it.
 */
static int fake_load(void *skel)
{
	struct bpf_map *map = bpf_object__find_map_by_name(((struct minimal_bpf *)skel)->obj,
							   "scxpol_exit");
	int fd, r;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "scxpol_exit", sizeof(__u32),
			    sizeof(struct scxpol_sched_exit_record), 1, NULL);
	if (fd < 0)
		return -errno;
	r = bpf_map__reuse_fd(map, fd);
	close(fd);
	return r;
}

static const struct scxpol_skel fake_minimal = {
	.open = minimal_bpf__scxpol_open,
	.load = fake_load,
	.destroy = minimal_bpf__scxpol_destroy,
	.object = minimal_bpf__scxpol_object,
};

/* Open @o and load it with fake_load(); skip the test if BPF maps are not allowed. */
static struct scxpol_sched *open_fake(const struct scxpol_sched_opts *o, int want)
{
	struct scxpol_sched *s;
	int r;

	write_file("/sys/kernel/sched_ext/state", "disabled\n");
	s = scxpol_sched_open(o);
	assert_non_null(s);
	r = scxpol_sched_load(s);
	if (r == -EPERM) {
		scxpol_sched_close(s);
		skip();
	}
	assert_int_equal(r, want);
	return s;
}

static int count_opens(struct scxpol_sched *s, void *skel, void *ctx)
{
	(void)s;
	(void)skel;
	++*(int *)ctx;
	return 0;
}

static int loaded_fails(struct scxpol_sched *s, void *skel, void *ctx)
{
	(void)s;
	(void)skel;
	++*(int *)ctx;
	return scxpol_err(EIO, "cannot publish the pools");
}

/*
 * A refused BPF load (here: the host kernel has no sched_ext_ops) can be
 * retried: libbpf takes an object's load once, so the retry opens the
 * object again and fails the same way, not with libbpf's "load can't be
 * attempted twice" (-EINVAL).
 */
static void test_failed_bpf_load_retried(void **state)
{
	int opens = 0;
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = SCXPOL_SKEL(minimal_bpf), .sysfs_root = root,
		    .configure = count_opens, .ctx = &opens);
	struct scxpol_sched *s;
	char first[512];
	int r;

	(void)state;
	write_file("/sys/kernel/sched_ext/state", "disabled\n");
	s = scxpol_sched_open(&o);
	assert_non_null(s);
	r = scxpol_sched_load(s);
	if (r == 0 || r == -EPERM) {
		scxpol_sched_close(s);
		skip(); /* a host kernel with sched_ext, or BPF not allowed */
	}
	snprintf(first, sizeof(first), "%s", scxpol_last_error());
	assert_int_equal(scxpol_sched_load(s), r);
	assert_string_equal(scxpol_last_error(), first);
	assert_int_equal(opens, 2);
	scxpol_sched_close(s);
}

/* A loaded hook that failed is not forgotten: later loads and attaches fail too. */
static void test_failed_loaded_hook_sticks(void **state)
{
	int calls = 0;
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = &fake_minimal, .sysfs_root = root,
		    .loaded = loaded_fails, .ctx = &calls);
	const char *want = "minimal: an earlier scxpol_sched_load() failed after the BPF load, "
			   "so the policy is not set up: cannot publish the pools; close it and "
			   "open it again";
	struct scxpol_sched *s;

	(void)state;
	s = open_fake(&o, -EIO);
	assert_string_equal(scxpol_last_error(), "cannot publish the pools");
	assert_int_equal(scxpol_sched_load(s), -EIO);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(scxpol_sched_attach(s), -EIO);
	assert_string_equal(scxpol_last_error(), want);
	assert_int_equal(calls, 1);
	scxpol_sched_close(s);
}

static int loaded_silent(struct scxpol_sched *s, void *skel, void *ctx)
{
	(void)s;
	(void)skel;
	return *(int *)ctx;
}

/* A hook that fails without a message: the error names the hook. */
static void test_silent_hook_named(void **state)
{
	int ret = -EBUSY;
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = &fake_minimal, .sysfs_root = root,
		    .loaded = loaded_silent, .ctx = &ret);
	struct scxpol_sched *s;

	(void)state;
	s = open_fake(&o, -EBUSY);
	assert_string_equal(scxpol_last_error(), "minimal: the loaded hook failed: Device or "
			    "resource busy (it set no message)");
	scxpol_sched_close(s);
	ret = 1; /* not an errno: EINVAL */
	s = open_fake(&o, -EINVAL);
	assert_string_equal(scxpol_last_error(), "minimal: the loaded hook failed: Invalid "
			    "argument (it set no message)");
	scxpol_sched_close(s);
}

/* An attach starts a new run: the previous run's exit record is gone. */
static void test_attach_forgets_previous_exit(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = &fake_minimal, .sysfs_root = root);
	struct scxpol_sched_exit_record rec = { .kind = 64,
						.reason = "unregistered from user space" };
	struct scxpol_sched_exit ei;
	struct scxpol_sched *s;
	__u32 zero = 0;
	int fd;

	(void)state;
	s = open_fake(&o, 0);
	fd = bpf_map__fd(bpf_object__find_map_by_name(scxpol_sched_object(s), "scxpol_exit"));
	assert_int_equal(bpf_map_update_elem(fd, &zero, &rec, BPF_ANY), 0);
	assert_true(scxpol_sched_exited(s));
	/* the struct_ops itself cannot attach on the host (it was not loaded) */
	assert_true(scxpol_sched_attach(s) < 0);
	assert_non_null(strstr(scxpol_last_error(), "minimal: cannot attach struct_ops 'minimal_ops'"));
	assert_false(scxpol_sched_exited(s));
	assert_int_equal(scxpol_sched_exit_info(s, &ei), -ENODATA);
	memset(&rec, 0xff, sizeof(rec));
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, &rec), 0);
	assert_int_equal(rec.kind, 0);
	scxpol_sched_close(s);
}

/*
 * A stop asked before the run starts ends that run before its attach (on
 * the host an attach fails: a run that tried would return its error); the
 * stop is spent, and the next run attaches.
 */
static void test_stop_before_run(void **state)
{
	SCXPOL_OPTS(scxpol_sched_opts, o, .skel = &fake_minimal, .sysfs_root = root);
	struct scxpol_sched *s;

	(void)state;
	s = open_fake(&o, 0);
	scxpol_sched_stop(s);
	assert_int_equal(scxpol_sched_run(s, NULL), 0);
	assert_true(scxpol_sched_run(s, NULL) < 0);
	assert_non_null(strstr(scxpol_last_error(), "minimal: cannot attach struct_ops 'minimal_ops'"));
	scxpol_sched_close(s);
}

/* Pin directories: a group given the maps may reach them, not unlink or replace them. */
static void test_pin_dir_mode(void **state)
{
	(void)state;
	assert_int_equal(scxpol_pin_dir_mode(0600), 0700);
	assert_int_equal(scxpol_pin_dir_mode(0660), 0710);
	assert_int_equal(scxpol_pin_dir_mode(0640), 0710);
	assert_int_equal(scxpol_pin_dir_mode(0604), 0701);
	assert_int_equal(scxpol_pin_dir_mode(0666), 0711);
}

/*
 * When the run loop takes a CPU hotplug event as completed: the event's CPU
 * online file reads what the event said, and no CPU's hotplug state is
 * short of its target; unreadable or odd files are errors naming them.
 */
static void test_hotplug_busy(void **state)
{
	char path[512];

	(void)state;
	write_file("/sys/devices/system/cpu/present", "0-2\n");
	write_file("/sys/devices/system/cpu/cpu1/online", "1\n");
	/* cpu0: no online file, as on x86; cpu2: no hotplug directory */
	write_file("/sys/devices/system/cpu/cpu0/hotplug/state", "235\n");
	write_file("/sys/devices/system/cpu/cpu0/hotplug/target", "235\n");
	write_file("/sys/devices/system/cpu/cpu1/hotplug/state", "235\n");
	write_file("/sys/devices/system/cpu/cpu1/hotplug/target", "235\n");
	assert_int_equal(scxpol_sched_hotplug_busy(root, 1, true), 0);
	assert_int_equal(scxpol_sched_hotplug_busy(root, -1, false), 0);
	/* an offline event whose CPU is still online */
	assert_int_equal(scxpol_sched_hotplug_busy(root, 1, false), 1);
	/* a CPU without an online file has nothing to wait for */
	assert_int_equal(scxpol_sched_hotplug_busy(root, 0, false), 0);
	/* cpu1 on its way down: its online file changes only at the end */
	write_file("/sys/devices/system/cpu/cpu1/hotplug/target", "0\n");
	write_file("/sys/devices/system/cpu/cpu1/hotplug/state", "120\n");
	assert_int_equal(scxpol_sched_hotplug_busy(root, -1, false), 1);
	assert_int_equal(scxpol_sched_hotplug_busy(root, 0, false), 1);
	write_file("/sys/devices/system/cpu/cpu1/hotplug/state", "0\n");
	write_file("/sys/devices/system/cpu/cpu1/online", "0\n");
	assert_int_equal(scxpol_sched_hotplug_busy(root, 1, false), 0);
	assert_int_equal(scxpol_sched_hotplug_busy(root, 1, true), 1);

	write_file("/sys/devices/system/cpu/cpu1/online", "yes\n");
	assert_int_equal(scxpol_sched_hotplug_busy(root, 1, false), -EINVAL);
	assert_non_null(strstr(scxpol_last_error(), "/sys/devices/system/cpu/cpu1/online: 'yes', not 0 or 1"));
	write_file("/sys/devices/system/cpu/present", "0-x\n");
	assert_int_equal(scxpol_sched_hotplug_busy(root, -1, false), -EINVAL);
	assert_non_null(strstr(scxpol_last_error(), "/sys/devices/system/cpu/present: cpu list \"0-x\""));
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/present", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(scxpol_sched_hotplug_busy(root, -1, false), -ENOENT);
	assert_non_null(strstr(scxpol_last_error(), "/sys/devices/system/cpu/present: "));
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
		cmocka_unit_test(test_failed_bpf_load_retried),
		cmocka_unit_test(test_failed_loaded_hook_sticks),
		cmocka_unit_test(test_silent_hook_named),
		cmocka_unit_test(test_stop_before_run),
		cmocka_unit_test(test_attach_forgets_previous_exit),
		cmocka_unit_test(test_pin_dir_mode),
		cmocka_unit_test_setup_teardown(test_hotplug_busy, setup, teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
