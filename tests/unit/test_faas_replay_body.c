// SPDX-License-Identifier: GPL-2.0
/*
 * The trace replay's bodies, run and spawned on the host: each kind runs
 * and reports, a poll body waits for its event rather than its CPU time, a
 * spawned body is asleep until released, is in its cgroup before that
 * (born there, or forked and moved where clone3 cannot place it, and
 * reaped when the move fails), and leaves a real-time parent's class to
 * run.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../examples/faas/replay.h"
#include "faas_replay_fixture.h"

/*
 * A child that could not refuse clone3 (status 77): under valgrind, which
 * runs no seccomp filter (scripts/check sets SCXPOL_VALGRIND), the test
 * is left to the plain run; anywhere else it fails.
 */
static bool no_seccomp_under_valgrind(int status)
{
	if (status != 77 || !getenv("SCXPOL_VALGRIND"))
		return false;
	print_message("# valgrind runs no seccomp filter: this test runs without valgrind\n");
	return true;
}

static void test_body_direct(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 3, .io_sleep_ratio = 1 };
	struct faas_body_report rep;
	int k;

	(void)state;
	for (k = 0; k < FAAS_NR_KINDS; k++) {
		memset(&rep, 0, sizeof(rep));
		assert_int_equal(faas_body_run(k, 3000, &cfg, &rep), 0);
		assert_int_equal(rep.status, 0);
		assert_true(rep.end_ns > rep.start_ns);
		assert_true(rep.first_cpu >= 0);
		assert_true(faas_cpuset_has(&rep.cpus, rep.first_cpu));
		assert_true(rep.cgroup[0] == '/');
	}
	assert_int_equal(faas_body_run((enum faas_kind)7, 1000, &cfg, &rep), -EINVAL);
	assert_int_equal(rep.status, EINVAL);

	cfg.io_sleep_ratio = 0;
	assert_int_equal(faas_body_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "io sleep ratio 0: want 1..100");
	cfg.io_sleep_ratio = 1;
	cfg.mt_threads = 1;
	assert_int_equal(faas_body_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "mt threads 1: want 2..4");
	assert_true(sizeof(struct faas_body_report) <= 4096); /* PIPE_BUF: atomic writes */
}

static volatile int spin_stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A poll body waits for its event D after its start, not for D of its own
 * CPU time: sharing its CPU with a spinner, it still ends at about D
 * (after at most a slice of the spinner's) and burns only its share.
 */
static void test_body_poll_waits_for_its_event(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 2 };
	struct faas_body_report rep;
	cpu_set_t one, old;
	pthread_t th;
	uint64_t cpu0, cpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	/* the spinner inherits the single CPU */
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	spin_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, spin, NULL), 0);
	cpu0 = thread_cpu_ns();
	assert_int_equal(faas_body_run(FAAS_KIND_POLL, 50000, &cfg, &rep), 0);
	cpu = thread_cpu_ns() - cpu0;
	spin_stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	print_message("# poll body of 50 ms next to a spinner: %.1f ms wall, %.1f ms CPU\n",
		      (double)(rep.end_ns - rep.start_ns) / 1e6, (double)cpu / 1e6);
	assert_true(rep.end_ns - rep.start_ns >= 50000000ULL);
	/*
	 * The old body spun until 50 ms of CPU (about 100 ms of wall time
	 * here): the CPU bound tells it apart whatever the host's load. No
	 * upper wall bound: on a host busy with VMs the spinner's CPU is
	 * shared with them too, and wall time says nothing about the body.
	 */
	assert_true(cpu < 40000000ULL);
}

/* A spawned body is asleep on its go pipe; a running process is not. */
static void test_body_asleep(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	int rep[2], go, i, r = 0, status;
	char want[128];
	pid_t pid, spin;

	(void)state;
	assert_int_equal(pipe(rep), 0);
	pid = faas_body_spawn(0, FAAS_KIND_CPU, 1000, &cfg, NULL, rep[1], &go, err, sizeof(err));
	assert_true(pid > 0);
	for (i = 0; i < 5000 && (r = faas_body_asleep(pid, err, sizeof(err))) == 0; i++)
		usleep(1000);
	assert_int_equal(r, 1);
	close(go); /* exits without running */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	close(rep[0]);
	close(rep[1]);

	spin = fork();
	assert_true(spin >= 0);
	if (!spin)
		for (;;)
			;
	/* it may be preempted for a moment, never asleep */
	for (i = 0; i < 20; i++)
		assert_int_equal(faas_body_asleep(spin, err, sizeof(err)), 0);
	kill(spin, SIGKILL);
	assert_int_equal(waitpid(spin, NULL, 0), spin);

	assert_int_equal(faas_body_asleep(spin, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "cannot open /proc/%d/wchan: %s", (int)spin, strerror(ENOENT));
	assert_string_equal(err, want);
	assert_no_children();
}

/*
 * A body spawned with a cgroup is in it before its release (born there by
 * clone3; where clone3 is refused, faas_body_spawn() moves it before it
 * returns), and an mt body, whose threads a raw clone3 child creates,
 * runs and reports from there.
 */
static void test_body_spawn_into_cgroup(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	char cg[1100], want[1200], file[64], line[1300], name[64];
	struct faas_body_report rep;
	int rp[2], go, status;
	uint64_t cgid;
	FILE *f;
	pid_t pid;

	(void)state;
	if (!cg_mount[0])
		skip(); /* the host gives this test no writable cgroup2 */
	snprintf(name, sizeof(name), "scxpol-faas-spawn.%d", (int)getpid());
	assert_int_equal(faas_cgroup_create(cg_mount, name, cg, sizeof(cg), &cgid, err,
					    sizeof(err)), 0);
	snprintf(want, sizeof(want), "0::%s\n", cg + strlen(cg_mount));
	assert_int_equal(pipe(rp), 0);
	pid = faas_body_spawn(9, FAAS_KIND_MT, 1000, &cfg, cg, rp[1], &go, err, sizeof(err));
	assert_true(pid > 0);
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "r");
	assert_non_null(f);
	/* the v2 line, which a hybrid hierarchy lists last */
	while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
		;
	fclose(f);
	assert_string_equal(line, want);
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	assert_int_equal(read(rp[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	assert_int_equal(rep.id, 9);
	assert_int_equal(rep.status, 0);
	assert_string_equal(rep.cgroup, cg + strlen(cg_mount));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(rp[0]);
	close(rp[1]);
	assert_int_equal(faas_cgroup_remove(cg, err, sizeof(err)), 0);
	assert_no_children();
}

/*
 * In a child where clone3 fails as on Linux 5.3 to 5.6 (E2BIG: they have
 * clone3, but not its cgroup field): spawn a body into @cg and run it.
 * Returns the child's exit status: 0 when the body ran in @cg, 77 when
 * no seccomp filter can be installed here.
 */
static int spawn_where_clone3_is_too_old(const char *cg)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct faas_body_report rep;
	int rp[2], go, status;
	pid_t pid;

	if (refuse_clone3(E2BIG))
		return 77;
	if (pipe(rp))
		return 2;
	pid = faas_body_spawn(4, FAAS_KIND_CPU, 1000, &cfg, cg, rp[1], &go, err, sizeof(err));
	if (pid < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (write(go, "g", 1) != 1 || read(rp[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 3;
	/* the report names the cgroup the body ran in */
	return strcmp(rep.cgroup, cg + strlen(cg_mount)) ? 4 : 0;
}

/*
 * @fn(@arg) in a child process, which keeps its seccomp filter and
 * signals to itself: its exit status.
 */
static int in_child(int (*fn)(const char *), const char *arg)
{
	int status;
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child)
		_exit(fn(arg));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Where clone3 cannot place a body in its cgroup (E2BIG), it is forked and moved. */
static void test_body_spawn_clone3_too_old(void **state)
{
	char cg[1100], name[64];
	uint64_t cgid;
	int status;

	(void)state;
	if (!cg_mount[0])
		skip();
	snprintf(name, sizeof(name), "scxpol-faas-spawn.%d", (int)getpid());
	assert_int_equal(faas_cgroup_create(cg_mount, name, cg, sizeof(cg), &cgid, err,
					    sizeof(err)), 0);
	status = in_child(spawn_where_clone3_is_too_old, cg);
	assert_int_equal(faas_cgroup_remove(cg, err, sizeof(err)), 0);
	if (no_seccomp_under_valgrind(status))
		return;
	assert_int_equal(status, 0);
	assert_no_children();
}

/*
 * In a child without clone3 (ENOSYS) and with SIGALRM every 20 us (no
 * SA_RESTART, as faas-replay's handlers): spawn bodies "into" @dir, no
 * cgroup, so the move fails and the body is sent away. Returns 0 when
 * each such body was reaped, 1 when one was left a zombie, 77 without
 * seccomp.
 */
static int spawn_move_fails_under_signals(const char *dir)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct itimerval every_20us = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	int rp[2], go, i, r = 0;

	if (refuse_clone3(ENOSYS))
		return 77;
	if (pipe(rp) || sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &every_20us, NULL))
		return 2;
	for (i = 0; i < 50 && !r; i++) {
		if (faas_body_spawn(6, FAAS_KIND_CPU, 1000, &cfg, dir, rp[1], &go, err,
				    sizeof(err)) >= 0)
			r = 3; /* moved into no cgroup? */
		else if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
			r = 1;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	return r;
}

/* A body whose move into its cgroup failed is reaped, whatever signals come meanwhile. */
static void test_body_spawn_move_fails(void **state)
{
	int status;

	(void)state;
	status = in_child(spawn_move_fails_under_signals, tmpdir);
	if (no_seccomp_under_valgrind(status))
		return;
	assert_int_equal(status, 0);
	assert_no_children();
}

/*
 * Spawned from a SCHED_FIFO process (chrt -f faas-replay), a body sleeps
 * on its go pipe in SCHED_FIFO (asleep without waiting for a CPU as a
 * normal task), runs in SCHED_OTHER once the parent took it out, and is
 * in SCHED_FIFO again once its work is done.
 */
static void test_body_leaves_rt(void **state)
{
	struct faas_body_cfg cfg = { .iters_per_us = ipu, .mt_threads = 2, .io_sleep_ratio = 1 };
	struct sched_param rt = { .sched_priority = 1 }, normal = { .sched_priority = 0 };
	struct faas_body_report rep;
	int rp[2], go, i, r = 0, status;
	pid_t pid;

	(void)state;
	if (sched_setscheduler(0, SCHED_FIFO, &rt)) {
		assert_true(errno == EPERM);
		skip(); /* no CAP_SYS_NICE here */
	}
	assert_int_equal(pipe(rp), 0);
	pid = faas_body_spawn(5, FAAS_KIND_CPU, 1000, &cfg, NULL, rp[1], &go, err, sizeof(err));
	assert_int_equal(sched_setscheduler(0, SCHED_OTHER, &normal), 0);
	assert_true(pid > 0);
	for (i = 0; i < 5000 && (r = faas_body_asleep(pid, err, sizeof(err))) == 0; i++)
		usleep(1000);
	assert_int_equal(r, 1);
	/* asleep on go in its real-time class; the parent takes it out */
	assert_int_equal(sched_getscheduler(pid), SCHED_FIFO);
	assert_int_equal(faas_body_set_class(pid, false, err, sizeof(err)), 0);
	assert_int_equal(sched_getscheduler(pid), SCHED_OTHER);
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	assert_int_equal(read(rp[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	assert_int_equal(rep.id, 5);
	assert_int_equal(rep.status, 0);
	/* it reports, and exits, back in its real-time class (a zombie keeps it) */
	assert_int_equal(sched_getscheduler(pid), SCHED_FIFO);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(rp[0]);
	close(rp[1]);
	assert_no_children();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_body_direct, kill_children),
		cmocka_unit_test_teardown(test_body_poll_waits_for_its_event, kill_children),
		cmocka_unit_test_teardown(test_body_asleep, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_into_cgroup, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_clone3_too_old, kill_children),
		cmocka_unit_test_teardown(test_body_spawn_move_fails, kill_children),
		cmocka_unit_test_teardown(test_body_leaves_rt, kill_children),
	};

	return run_replay_tests(tests);
}
