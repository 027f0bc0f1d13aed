// SPDX-License-Identifier: GPL-2.0
/*
 * probe: workloads for VM tests that report what they observed.
 *
 *   probe spin SECS [NAME]       burn CPU; prints iters= and cpus= (CPUs seen);
 *                                with NAME, SIGUSR1 renames it NAME (prctl);
 *                                SIGINT ends it early (it still reports)
 *   probe sleepwake SECS US      sleep US, do a little work, repeat;
 *                                prints wakeups= and cpus=
 *   probe cpus SECS              like spin, but prints only cpus=
 *   probe worker SECS WORK_US SLEEP_US
 *                                burn WORK_US of CPU, sleep SLEEP_US, repeat;
 *                                prints cycles=, cpu_ms= and cpus=
 * spin and worker also print cpu_ms=, the CPU time the process got, and
 * wait_ms=, the time it was runnable but waited for a CPU (schedstat).
 *
 * cpus= is the set of CPUs sched_getcpu() returned, as a CPU list; it is how
 * tests observe where a policy placed a task. The samples start after a
 * first sleep (first_wakeup()), once the policy has placed the task under
 * the name its exec gave it.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 1024

static unsigned char seen[MAX_CPUS];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time this process got, in ms. */
static unsigned long long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
}

/* Time this (single-threaded) process waited on a run queue, in ms. */
static unsigned long long wait_ms(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	if (f)
		fclose(f);
	return wait / 1000000;
}

/* Burn @us of this process's CPU time. */
static void burn_cpu(double us)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + us / 1e6;
	do {
		volatile uint64_t x = 0;

		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

static void note_cpu(void)
{
	int c = sched_getcpu();

	if (c >= 0 && c < MAX_CPUS)
		seen[c] = 1;
}

static void print_cpus(void)
{
	const char *sep = "";
	int i, j;

	printf(" cpus=");
	for (i = 0; i < MAX_CPUS; i++) {
		if (!seen[i])
			continue;
		for (j = i; j + 1 < MAX_CPUS && seen[j + 1]; j++)
			;
		if (j == i)
			printf("%s%d", sep, i);
		else
			printf("%s%d-%d", sep, i, j);
		sep = ",";
		i = j;
	}
	printf("\n");
}

/*
 * Sleep once before the first sample. A policy sees the name an exec gives
 * (a comm rule's key) at the task's next scheduling event: the kernel calls
 * no sched_ext callback at an exec (select_task_rq_scx() returns the task's
 * CPU for WF_EXEC without calling ops.select_cpu), so until the task first
 * sleeps it can run where its parent's fork placed it by the parent's name
 * (at the end of a slice the kernel may keep it running there without
 * calling ops.enqueue). A wakeup always goes through ops.select_cpu and
 * ops.enqueue, under the new name.
 */
static void first_wakeup(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* SIGINT: a spin ends now (a test that needs the load only while it measures) */
static volatile sig_atomic_t stop_spin;

static void on_int(int sig)
{
	(void)sig;
	stop_spin = 1;
}

static uint64_t spin(double secs)
{
	double end = now() + secs;
	volatile uint64_t x = 0;
	uint64_t iters = 0;

	while (!stop_spin && now() < end) {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		iters++;
		note_cpu();
	}
	return iters;
}

static const char *rename_to;

/* SIGUSR1: what a thread renaming itself does (a comm rule may now name it). */
static void on_usr1(int sig)
{
	(void)sig;
	prctl(PR_SET_NAME, rename_to, 0, 0, 0);
}

static double arg_double(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0) {
		fprintf(stderr, "probe: %s '%s' is not a non-negative number\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "spin")) {
		struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
		struct sigaction si = { .sa_handler = on_int, .sa_flags = SA_RESTART };
		uint64_t n;

		/* (a background job of a script starts with SIGINT ignored) */
		sigaction(SIGINT, &si, NULL);
		if (argc == 4) {
			rename_to = argv[3];
			sigaction(SIGUSR1, &sa, NULL);
		}
		first_wakeup();
		n = spin(arg_double(argv[2], "SECS"));

		printf("spin iters=%llu cpu_ms=%llu wait_ms=%llu", (unsigned long long)n, cpu_ms(),
		       wait_ms());
		print_cpus();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "cpus")) {
		first_wakeup();
		spin(arg_double(argv[2], "SECS"));
		printf("cpus");
		print_cpus();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "sleepwake")) {
		double end = now() + arg_double(argv[2], "SECS");
		double us = arg_double(argv[3], "US");
		struct timespec ts = { (time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1000) };
		uint64_t wakeups = 0;

		while (now() < end) {
			nanosleep(&ts, NULL);
			wakeups++;
			note_cpu();
			spin(0.0001);
		}
		printf("sleepwake wakeups=%llu", (unsigned long long)wakeups);
		print_cpus();
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "worker")) {
		double end = now() + arg_double(argv[2], "SECS");
		double work = arg_double(argv[3], "WORK_US"), us = arg_double(argv[4], "SLEEP_US");
		struct timespec ts = { (time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1000) };
		uint64_t cycles = 0;

		first_wakeup();
		while (now() < end) {
			burn_cpu(work);
			note_cpu();
			nanosleep(&ts, NULL);
			cycles++;
		}
		printf("worker cycles=%llu cpu_ms=%llu wait_ms=%llu", (unsigned long long)cycles, cpu_ms(),
		       wait_ms());
		print_cpus();
		return 0;
	}
	fprintf(stderr, "usage: probe spin SECS [NAME] | probe cpus SECS | probe sleepwake SECS US | "
			"probe worker SECS WORK_US SLEEP_US\n");
	return 2;
}
