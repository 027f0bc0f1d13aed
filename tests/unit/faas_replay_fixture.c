// SPDX-License-Identifier: GPL-2.0
/* What the trace replay tests share (faas_replay_fixture.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <scxpol/common.h>

#include "../../examples/faas/replay.h"
#include "faas_replay_fixture.h"

char err[FAAS_ERR_LEN], tmpdir[256], cg_mount[1024];
double ipu;

struct faas_func funcs[] = {
	{ .name = "a", .trigger = "", .kind = FAAS_KIND_CPU },
	{ .name = "b", .trigger = "", .kind = FAAS_KIND_IO },
	{ .name = "c", .trigger = "", .kind = FAAS_KIND_POLL },
	{ .name = "d", .trigger = "", .kind = FAAS_KIND_MT },
};

/* a: cpu x3, b: io x2, c: poll, d: mt x2 */
struct faas_invocation invs[] = {
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 0, .duration_us = 5000 },
	{ .func = 1, .kind = FAAS_KIND_IO, .arrival_us = 2000, .duration_us = 6000 },
	{ .func = 3, .kind = FAAS_KIND_MT, .arrival_us = 4000, .duration_us = 5000 },
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 10000, .duration_us = 5000 },
	{ .func = 2, .kind = FAAS_KIND_POLL, .arrival_us = 12000, .duration_us = 5000 },
	{ .func = 1, .kind = FAAS_KIND_IO, .arrival_us = 30000, .duration_us = 6000 },
	{ .func = 0, .kind = FAAS_KIND_CPU, .arrival_us = 40000, .duration_us = 5000 },
	{ .func = 3, .kind = FAAS_KIND_MT, .arrival_us = 41000, .duration_us = 5000 },
};

static struct faas_trace trace = {
	.funcs = funcs, .nr_funcs = 4, .inv = invs, .nr_inv = 8,
};

static const unsigned int cap11[] = { 1, 1 };

struct faas_replay_opts base_opts(void)
{
	return (struct faas_replay_opts){
		.trace = &trace,
		.nr_domains = 2,
		.capacity = cap11,
		.bucket_us = 10000,
		.iat_alpha = 1,
		.body = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 2 },
	};
}

/* A cgroup2 mount where this process may create cgroups, or "". */
static void find_cgroup2(void)
{
	char line[4096], mnt[1024], probe[1200];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	cg_mount[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - cgroup2 ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1)
			continue;
		snprintf(probe, sizeof(probe), "%s/scxpol-faas-probe.%d", mnt, (int)getpid());
		if (!mkdir(probe, 0755)) {
			rmdir(probe);
			snprintf(cg_mount, sizeof(cg_mount), "%s", mnt);
			break;
		}
	}
	fclose(f);
}

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

/*
 * Make clone3 fail with @errnum: ENOSYS as container runtimes' seccomp
 * profiles do (Docker's among them), E2BIG as Linux 5.3 to 5.6 do for the
 * cgroup field they do not know. Bodies then take the fork-and-move path.
 * Returns 0, or the errno that kept the filter out (then clone3 may work).
 */
int refuse_clone3(int errnum)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (__u32)errnum),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return errno;
	return 0;
}

int setup(void **state)
{
	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/scxpol-faas-replay.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	assert_int_equal(faas_calibrate(&ipu, err, sizeof(err)), 0);
	find_cgroup2();
	return 0;
}

int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s/bpf", tmpdir);
	umount(cmd); /* test_sink_hint_domains' bpffs, if it failed before its umount */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* rmdir @path and the cgroups in it, if they are there */
static void remove_cgroup_tree(const char *path)
{
	char sub[2048];
	struct dirent *e;
	DIR *d = opendir(path);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			remove_cgroup_tree(sub);
		}
	closedir(d);
	rmdir(path);
}

/* A test that failed half-way leaves its bodies and cgroups to no later test. */
int kill_children(void **state)
{
	char file[1100], buf[4096], *p, *end;
	ssize_t n;
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "/proc/self/task/%d/children", (int)getpid());
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
	}
	if (cg_mount[0]) {
		snprintf(file, sizeof(file), "%s/scxpol-faas-test.%d", cg_mount, (int)getpid());
		remove_cgroup_tree(file);
		snprintf(file, sizeof(file), "%s/scxpol-faas-spawn.%d", cg_mount, (int)getpid());
		remove_cgroup_tree(file);
	}
	return 0;
}

/* No body may be left behind, whatever the outcome. */
void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

void on_alarm(int sig)
{
	(void)sig;
}

bool no_clone3_run_skipped(void)
{
	int r;

	if (!getenv("SCXPOL_TEST_NO_CLONE3"))
		return false;
	r = refuse_clone3(ENOSYS);
	/* clone3 with no arguments: EINVAL if it exists, ENOSYS if refused */
	if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS) {
		printf("1..0 # SKIP cannot refuse clone3 here: seccomp: %s\n", strerror(r));
		return true;
	}
	return false;
}
