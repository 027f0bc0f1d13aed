// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Topology loading from fake sysfs trees (and the host's real one). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxpol/topology.h>

#include "fake_sysfs.h"

static char *root;

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

static int setup(void **state)
{
	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	return 0;
}

static int teardown_tree(void **state)
{
	(void)state;
	fake_free(root);
	root = NULL;
	return 0;
}

static struct scxpol_topo *load_tree(void)
{
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);
	struct scxpol_topo *t = scxpol_topo_load(&o);

	if (!t)
		fail_msg("load failed: %s", scxpol_last_error());
	return t;
}

static struct scxpol_topo *load_fake(const struct fake_topo *ft)
{
	root = fake_sysfs(ft);
	return load_tree();
}

static const char *fmt(const struct scxpol_cpuset *s)
{
	static char buf[8][1024];
	static int i;

	i = (i + 1) % 8;
	assert_non_null(s);
	assert_true(scxpol_cpuset_format(s, buf[i], sizeof(buf[i])) >= 0);
	return buf[i];
}

static void assert_cpu(const struct scxpol_topo *t, unsigned int cpu, bool online, int core,
		       int llc, int node)
{
	const struct scxpol_topo_cpu *c = scxpol_topo_cpu(t, cpu);

	assert_non_null(c);
	assert_int_equal(c->cpu, cpu);
	assert_int_equal(c->online, online);
	assert_int_equal(c->core, core);
	assert_int_equal(c->llc, llc);
	assert_int_equal(c->node, node);
}

/* The message with the fake root replaced by "ROOT". */
static const char *error_text(void)
{
	static char buf[1024];
	const char *e = scxpol_last_error(), *p;
	size_t o = 0, rl = strlen(root);

	while ((p = strstr(e, root)) && o < sizeof(buf) - 8) {
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%.*sROOT", (int)(p - e), e);
		e = p + rl;
	}
	snprintf(buf + o, sizeof(buf) - o, "%s", e);
	return buf;
}

static void load_fails(int err, const char *msg)
{
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);

	assert_null(scxpol_topo_load(&o));
	assert_int_equal(errno, err);
	assert_string_equal(error_text(), msg);
}

static void test_smt_on(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4, .threads = 2 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cpus(t), 8);
	assert_string_equal(fmt(scxpol_topo_online(t)), "0-7");
	assert_int_equal(scxpol_topo_nr_cores(t), 4);
	assert_int_equal(scxpol_topo_nr_llcs(t), 1);
	assert_int_equal(scxpol_topo_nr_nodes(t), 1);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 0)), "0-1");
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 3)), "6-7");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 0)), "0-7");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 0)), "0-7");
	assert_int_equal(scxpol_topo_node_id(t, 0), 0);
	assert_cpu(t, 5, true, 2, 0, 0);
	assert_int_equal(scxpol_cpuset_capacity(scxpol_topo_core_cpus(t, 0)), 8);
	/* Out of range. */
	assert_null(scxpol_topo_cpu(t, 8));
	assert_null(scxpol_topo_core_cpus(t, 4));
	assert_null(scxpol_topo_llc_cpus(t, 1));
	assert_null(scxpol_topo_node_cpus(t, 1));
	assert_int_equal(scxpol_topo_node_id(t, 1), -1);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 0), 0);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), UINT_MAX);
	scxpol_topo_free(t);
}

static void test_smt_off(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4, .threads = 1 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cpus(t), 4);
	assert_int_equal(scxpol_topo_nr_cores(t), 4);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 2)), "2");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 0)), "0-3");
	assert_cpu(t, 3, true, 3, 0, 0);
	scxpol_topo_free(t);
}

static void test_smt_stride_numbering(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4, .threads = 2,
				.stride = true };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cores(t), 4);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 0)), "0,4");
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 3)), "3,7");
	assert_cpu(t, 5, true, 1, 0, 0);
	scxpol_topo_free(t);
}

static void check_two_llcs(struct scxpol_topo *t)
{
	assert_int_equal(scxpol_topo_nr_cpus(t), 8);
	assert_int_equal(scxpol_topo_nr_cores(t), 4);
	assert_int_equal(scxpol_topo_nr_llcs(t), 2);
	assert_int_equal(scxpol_topo_nr_nodes(t), 1);
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 0)), "0-3");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 1)), "4-7");
	assert_cpu(t, 4, true, 2, 1, 0);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 1, 0), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 1, 1), 0);
}

static void test_two_llcs(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	check_two_llcs(t);
	scxpol_topo_free(t);
}

static void test_missing_cache_ids(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2,
				.no_cache_id = true };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	check_two_llcs(t);
	scxpol_topo_free(t);
}

/*
 * No cache directory for any CPU, as in VMs whose hypervisor hides the cache
 * leaves (Firecracker) or arm64 without cache tables: each core is its LLC.
 */
static char logged[512];

static void keep_log(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)c;
	snprintf(logged, sizeof(logged), "%s", m);
}

static void test_no_cache_information(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2,
				.stride = true };
	struct scxpol_topo *t;
	unsigned int cpu;
	char rel[128];

	(void)state;
	root = fake_sysfs(&ft);
	for (cpu = 0; cpu < 8; cpu++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache", cpu);
		fake_remove(root, rel);
	}
	scxpol_log_set(keep_log, SCXPOL_LOG_WARN, NULL);
	t = load_tree();
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	/* Not a silent fallback. */
	assert_non_null(strstr(logged, "cpu0/cache: no such directory: the kernel lists no caches, "
				"each core is taken as its own last-level cache"));
	assert_int_equal(scxpol_topo_nr_cores(t), 4);
	assert_int_equal(scxpol_topo_nr_llcs(t), 4);
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 1)), "1,5");
	assert_cpu(t, 5, true, 1, 1, 0);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 3), 1);
	scxpol_topo_free(t);
	/* Not mixed with another CPU's caches. */
	fake_write(root, "sys/devices/system/cpu/cpu6/cache/index0/type", "Data");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu6/cache: cpu6 lists caches but cpu0, the "
		   "first online CPU, lists none (is one still coming online?)");
}

/*
 * Leaves whose type or level the firmware left unknown: sysfs hides that
 * file. Such a leaf is not ranked (here each would span every CPU), and
 * the LLCs are still the level-3 caches.
 */
static void test_hidden_cache_type_or_level(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2 };
	struct scxpol_topo *t;
	unsigned int cpu;
	char rel[128];

	(void)state;
	root = fake_sysfs(&ft);
	for (cpu = 0; cpu < 8; cpu++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/index4/shared_cpu_list",
			 cpu);
		fake_write(root, rel, "0-7");
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/index5/shared_cpu_list",
			 cpu);
		fake_write(root, rel, "0-7");
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/index5/type", cpu);
		fake_write(root, rel, "Unified");
	}
	t = load_tree();
	check_two_llcs(t);
	scxpol_topo_free(t);
}

static void test_old_kernel_thread_siblings(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 2,
				.old_kernel = true };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cores(t), 2);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 1)), "2-3");
	scxpol_topo_free(t);
}

static void test_two_nodes(void **state)
{
	struct fake_topo ft = { .nodes = 2, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 2 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_nodes(t), 2);
	assert_int_equal(scxpol_topo_nr_llcs(t), 2);
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 0)), "0-3");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 1)), "4-7");
	assert_int_equal(scxpol_topo_node_id(t, 1), 1);
	assert_cpu(t, 6, true, 3, 1, 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), 2);
	scxpol_topo_free(t);
}

/* Writes text into a FIFO one page at a time, pausing in between (as sysfs hands it out). */
struct paged_writer {
	char path[512];
	const char *text;
};

static void *write_pages(void *arg)
{
	struct paged_writer *w = arg;
	size_t off = 0, len = strlen(w->text);
	int fd = open(w->path, O_WRONLY);

	while (fd >= 0 && off < len) {
		size_t n = len - off < 4096 ? len - off : 4096;
		ssize_t r = write(fd, w->text + off, n);

		if (r <= 0)
			break; /* the reader is gone (SIGPIPE is ignored) */
		off += (size_t)r;
		usleep(20000);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * A CPU list longer than a page, as on big machines, arrives whole even
 * when each read() returns one page of it.
 */
static void test_cpulist_longer_than_a_page(void **state)
{
	struct fake_topo ft = { .nodes = 2, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 2 };
	SCXPOL_OPTS(scxpol_topo_opts, opts);
	static char list[12000];
	struct paged_writer w;
	struct scxpol_topo *t;
	pthread_t th;
	size_t n = 0;
	int fd;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	/* node1's CPUs 4-7, with cpu4 repeated to make the list three pages long */
	while (n < 10000)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "4,");
	snprintf(list + n, sizeof(list) - n, "5,6,7\n");
	root = fake_sysfs(&ft);
	snprintf(w.path, sizeof(w.path), "%s/sys/devices/system/node/node1/cpulist", root);
	w.text = list;
	assert_int_equal(unlink(w.path), 0);
	assert_int_equal(mkfifo(w.path, 0600), 0);
	assert_int_equal(pthread_create(&th, NULL, write_pages, &w), 0);
	opts.root = root;
	t = scxpol_topo_load(&opts);
	/* unblock the writer if the loader never opened the FIFO */
	fd = open(w.path, O_RDONLY | O_NONBLOCK);
	if (fd >= 0)
		close(fd);
	pthread_join(th, NULL);
	if (!t)
		fail_msg("load failed: %s", scxpol_last_error());
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 1)), "4-7");
	assert_cpu(t, 7, true, 3, 1, 1);
	scxpol_topo_free(t);
}

static void test_llc_spanning_two_nodes(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 4, .threads = 2 };
	struct scxpol_topo *t;

	(void)state;
	root = fake_sysfs(&ft);
	/* A VM with one LLC and two NUMA nodes (scx #981). */
	fake_write(root, "sys/devices/system/node/node0/cpulist", "0-3");
	fake_write(root, "sys/devices/system/node/node1/cpulist", "4-7");
	t = load_tree();
	assert_int_equal(scxpol_topo_nr_llcs(t), 1);
	assert_int_equal(scxpol_topo_nr_nodes(t), 2);
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 0)), "0-7");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 1)), "4-7");
	assert_cpu(t, 3, true, 1, 0, 0);
	assert_cpu(t, 5, true, 2, 0, 1);
	scxpol_topo_free(t);
}

static void test_llc_spanning_nodes_distance(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 3, .cores_per_llc = 2, .threads = 1 };
	struct scxpol_topo *t;

	(void)state;
	root = fake_sysfs(&ft);
	/* LLCs 0-1, 2-3, 4-5; the middle one spans both nodes. */
	fake_write(root, "sys/devices/system/node/node0/cpulist", "0-2");
	fake_write(root, "sys/devices/system/node/node1/cpulist", "3-5");
	t = load_tree();
	assert_int_equal(scxpol_topo_nr_llcs(t), 3);
	assert_int_equal(scxpol_topo_nr_nodes(t), 2);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 1, 2), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 2), 2);
	assert_int_equal(scxpol_topo_llc_distance(t, 2, 0), 2);
	scxpol_topo_free(t);
}

static void test_256_cpus(void **state)
{
	struct fake_topo ft = { .nodes = 4, .llcs_per_node = 2, .cores_per_llc = 16, .threads = 2 };
	struct scxpol_topo *t = load_fake(&ft);
	unsigned int i;

	(void)state;
	assert_int_equal(scxpol_topo_nr_cpus(t), 256);
	assert_string_equal(fmt(scxpol_topo_online(t)), "0-255");
	assert_int_equal(scxpol_topo_nr_cores(t), 128);
	assert_int_equal(scxpol_topo_nr_llcs(t), 8);
	assert_int_equal(scxpol_topo_nr_nodes(t), 4);
	assert_cpu(t, 255, true, 127, 7, 3);
	assert_cpu(t, 130, true, 65, 4, 2);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 127)), "254-255");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 7)), "224-255");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 2)), "128-191");
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 6, 7), 1);
	assert_int_equal(scxpol_topo_llc_distance(t, 1, 2), 2);
	for (i = 0; i < 128; i++)
		assert_int_equal(scxpol_cpuset_count(scxpol_topo_core_cpus(t, i)), 2);
	scxpol_topo_free(t);
}

static void test_256_cpus_stride(void **state)
{
	struct fake_topo ft = { .nodes = 4, .llcs_per_node = 2, .cores_per_llc = 16, .threads = 2,
				.stride = true, .no_cache_id = true };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cores(t), 128);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 0)), "0,128");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 1)), "16-31,144-159");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 3)), "96-127,224-255");
	assert_cpu(t, 200, true, 72, 4, 2);
	scxpol_topo_free(t);
}

static void test_offline_cpus(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2,
				.offline = "3,6-7", .offline_stale = "1", .extra_possible = 2 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_cpus(t), 10);
	assert_string_equal(fmt(scxpol_topo_online(t)), "0,2,4-5");
	assert_cpu(t, 1, false, -1, -1, -1);
	assert_cpu(t, 3, false, -1, -1, -1);
	assert_cpu(t, 9, false, -1, -1, -1);
	assert_cpu(t, 2, true, 1, 0, 0);
	assert_cpu(t, 5, true, 2, 1, 0);
	/* Cores {0}, {2}, {4,5}: core 3 (CPUs 6-7) has no online CPU. */
	assert_int_equal(scxpol_topo_nr_cores(t), 3);
	assert_string_equal(fmt(scxpol_topo_core_cpus(t, 0)), "0");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 0)), "0,2");
	assert_string_equal(fmt(scxpol_topo_llc_cpus(t, 1)), "4-5");
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 0)), "0,2,4-5");
	scxpol_topo_free(t);
}

static void test_no_node_directory(void **state)
{
	struct fake_topo ft = { .nodes = 0, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 1 };
	struct scxpol_topo *t = load_fake(&ft);

	(void)state;
	assert_int_equal(scxpol_topo_nr_nodes(t), 1);
	assert_int_equal(scxpol_topo_node_id(t, 0), 0);
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 0)), "0-3");
	assert_cpu(t, 3, true, 3, 1, 0);
	assert_int_equal(scxpol_topo_llc_distance(t, 0, 1), 1);
	scxpol_topo_free(t);
}

/* Found by fuzz_topology: a node directory with no nodeN in it. */
static void test_node_directory_without_nodes(void **state)
{
	struct fake_topo ft = { .nodes = 0, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 1 };
	struct scxpol_topo *t;

	(void)state;
	root = fake_sysfs(&ft);
	fake_write(root, "sys/devices/system/node/node", "0");
	fake_write(root, "sys/devices/system/node/nodeX/cpulist", "0-1");
	t = load_tree();
	assert_int_equal(scxpol_topo_nr_nodes(t), 1);
	assert_string_equal(fmt(scxpol_topo_node_cpus(t, 0)), "0-1");
	scxpol_topo_free(t);
}

static void test_sparse_and_memory_only_nodes(void **state)
{
	struct fake_topo ft = { .nodes = 2, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 1 };
	struct scxpol_topo *t;

	(void)state;
	root = fake_sysfs(&ft);
	/* Node ids 0 and 2 with CPUs, node 1 memory only (CXL), node 3 offline CPUs. */
	fake_remove(root, "sys/devices/system/node/node1");
	fake_write(root, "sys/devices/system/node/node1/cpulist", "%s", "");
	fake_write(root, "sys/devices/system/node/node2/cpulist", "2-3");
	fake_write(root, "sys/devices/system/node/node3/cpulist", "%s", "");
	fake_write(root, "sys/devices/system/node/possible", "0-3");
	t = load_tree();
	assert_int_equal(scxpol_topo_nr_nodes(t), 2);
	assert_int_equal(scxpol_topo_node_id(t, 0), 0);
	assert_int_equal(scxpol_topo_node_id(t, 1), 2);
	assert_cpu(t, 2, true, 2, 1, 1);
	scxpol_topo_free(t);
}

static void test_root_with_trailing_slash(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 1 };
	char slashed[512];
	struct scxpol_topo *t;

	(void)state;
	root = fake_sysfs(&ft);
	snprintf(slashed, sizeof(slashed), "%s//", root);
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = slashed);
	t = scxpol_topo_load(&o);
	assert_non_null(t);
	assert_int_equal(scxpol_topo_nr_cpus(t), 2);
	scxpol_topo_free(t);
	fake_remove(root, "sys/devices/system/cpu/online");
	assert_null(scxpol_topo_load(&o));
	assert_string_equal(error_text(),
			    "cannot read ROOT/sys/devices/system/cpu/online: No such file or directory");
}

static struct fake_topo small = { .nodes = 2, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 2 };

static void test_error_missing_possible(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_remove(root, "sys/devices/system/cpu/possible");
	load_fails(ENOENT, "cannot read ROOT/sys/devices/system/cpu/possible: No such file or directory");
}

static void test_error_bad_lists(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_write(root, "sys/devices/system/cpu/possible", "%s", "");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/possible: no CPUs listed");
	fake_write(root, "sys/devices/system/cpu/possible", "0-7");
	fake_write(root, "sys/devices/system/cpu/online", "0-3,x");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/online: cpu list \"0-3,x\": bad character 'x' "
		   "at column 5");
	fake_write(root, "sys/devices/system/cpu/online", "0-8");
	load_fails(ERANGE, "ROOT/sys/devices/system/cpu/online: cpu list \"0-8\": CPU 8 at column 3 "
		   "is out of range (the set holds CPUs 0-7)");
	fake_write(root, "sys/devices/system/cpu/possible", "0-70000");
	load_fails(ERANGE, "ROOT/sys/devices/system/cpu/possible: cpu list \"0-70000\": CPU 70000 at "
		   "column 3 is out of range (the set holds CPUs 0-65535)");
	fake_write(root, "sys/devices/system/cpu/possible", "0-7");
	fake_write(root, "sys/devices/system/cpu/online", "%s", "");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/online: no CPUs listed");
}

static void test_error_online_cpu_without_topology(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_remove(root, "sys/devices/system/cpu/cpu2/topology");
	load_fails(ENOENT, "cannot read ROOT/sys/devices/system/cpu/cpu2/topology/core_cpus_list (nor "
		   "thread_siblings_list): cpu2 is online but has no topology");
}

static void test_error_siblings_disagree(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_write(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1-2");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu1/topology/core_cpus_list: \"1-2\" "
		   "disagrees with cpu0's \"0-1\"");
	fake_write(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-1");
	fake_write(root, "sys/devices/system/cpu/cpu2/topology/core_cpus_list", "1-3");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu2/topology/core_cpus_list: \"1-3\" "
		   "disagrees with cpu0's \"0-1\"");
	fake_write(root, "sys/devices/system/cpu/cpu2/topology/core_cpus_list", "3");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu2/topology/core_cpus_list: \"3\" does not "
		   "include cpu2 itself");
}

/*
 * A list too long for the message (an LLC of every other CPU, as where
 * CPUs alternate between sockets) is cut with "...", not shown as "".
 */
static void test_error_quotes_long_lists(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 256, .threads = 1 };
	char list[1024];
	size_t o = 0;
	unsigned int cpu;

	(void)state;
	root = fake_sysfs(&ft);
	for (cpu = 1; cpu < 256; cpu += 2)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%u", o ? "," : "", cpu);
	fake_write(root, "sys/devices/system/cpu/cpu1/cache/index3/shared_cpu_list", "%s", list);
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu1/cache/index3/shared_cpu_list: \"1,3,5,7,"
		   "9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,43,45,47,49,51,53,55,57,59,61,"
		   "63,65,67,69,71,73,75,77,79,81,83,85,87,89,91,93,95,97,99,101,103,105,107,109,111,"
		   "113,115,117,119,121,123,125,127,129,131,133,135,137,139,141,143,145,147,149,151,"
		   "153...\" disagrees with cpu0's \"0-255\"");
}

static void test_error_cache(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_write(root, "sys/devices/system/cpu/cpu0/cache/index3/level", "three");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu0/cache/index3/level: expected a number, "
		   "found \"three\"");
	fake_write(root, "sys/devices/system/cpu/cpu0/cache/index3/level", "3");
	fake_write(root, "sys/devices/system/cpu/cpu0/cache/index2/type", "Trace");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu0/cache/index2/type: unknown cache type "
		   "\"Trace\" (expected Data, Instruction or Unified)");
	fake_write(root, "sys/devices/system/cpu/cpu0/cache/index2/type", "Unified");
	fake_write(root, "sys/devices/system/cpu/cpu5/cache/index3/shared_cpu_list", "4-5,7");
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu5/cache/index3/shared_cpu_list: \"4-5,7\" "
		   "disagrees with cpu4's \"4-7\"");
	fake_write(root, "sys/devices/system/cpu/cpu5/cache/index3/shared_cpu_list", "4-7");
	fake_remove(root, "sys/devices/system/cpu/cpu3/cache");
	load_fails(ENOENT, "cannot read ROOT/sys/devices/system/cpu/cpu3/cache: No such file or "
		   "directory (needed to find cpu3's last-level cache)");
	fake_write(root, "sys/devices/system/cpu/cpu3/cache/index1/type", "Instruction");
	load_fails(ENOENT, "ROOT/sys/devices/system/cpu/cpu3/cache: no data or unified cache listed "
		   "(index*/type), cannot tell which CPUs share cpu3's last-level cache");
}

static void test_error_siblings_in_two_llcs(void **state)
{
	struct fake_topo ft = { .nodes = 1, .llcs_per_node = 1, .cores_per_llc = 2, .threads = 2 };
	unsigned int cpu;
	char rel[128];

	(void)state;
	root = fake_sysfs(&ft);
	fake_write(root, "sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0");
	for (cpu = 1; cpu < 4; cpu++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/index3/shared_cpu_list", cpu);
		fake_write(root, rel, "1-3");
	}
	load_fails(EINVAL, "ROOT/sys/devices/system/cpu/cpu0/topology: SMT siblings 0-1 do not share "
		   "a last-level cache (cpu0's is \"0\", cpu1's \"1-3\")");
}

static void test_error_nodes(void **state)
{
	(void)state;
	root = fake_sysfs(&small);
	fake_write(root, "sys/devices/system/node/node1/cpulist", "3-7");
	load_fails(EINVAL, "ROOT/sys/devices/system/node/node1/cpulist: \"3-7\" lists cpu3, which "
		   "node0's cpulist also lists");
	fake_write(root, "sys/devices/system/node/node1/cpulist", "5-7");
	load_fails(EINVAL, "cpu4 is online but no ROOT/sys/devices/system/node/node*/cpulist lists it");
	fake_remove(root, "sys/devices/system/node/node1/cpulist");
	load_fails(ENOENT, "cannot read ROOT/sys/devices/system/node/node1/cpulist: No such file or "
		   "directory");
	fake_write(root, "sys/devices/system/node/node1/cpulist", "4-9");
	load_fails(ERANGE, "ROOT/sys/devices/system/node/node1/cpulist: cpu list \"4-9\": CPU 9 at "
		   "column 3 is out of range (the set holds CPUs 0-7)");
}

static void test_opts_validation(void **state)
{
	struct {
		struct scxpol_topo_opts o;
		char future[8];
	} big;
	struct scxpol_topo_opts bad = { .sz = 0 };

	(void)state;
	assert_null(scxpol_topo_load(&bad));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "scxpol_topo_opts: sz is 0; set it to sizeof(struct scxpol_topo_opts)");
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.future[1] = 1;
	assert_null(scxpol_topo_load(&big.o));
	assert_non_null(strstr(scxpol_last_error(), "does not know"));
}

/* Whatever the host has must load, and agree with the kernel's CPU count. */
static void test_host_sysfs(void **state)
{
	SCXPOL_OPTS(scxpol_topo_opts, slash, .root = "/");
	struct scxpol_topo *t = scxpol_topo_load(NULL), *t2;
	struct scxpol_cpuset *all;
	unsigned int i;
	int cpu;

	(void)state;
	if (!t)
		fail_msg("host topology: %s", scxpol_last_error());
	assert_int_equal(scxpol_cpuset_count(scxpol_topo_online(t)), sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(scxpol_topo_nr_cpus(t) >= (unsigned int)sysconf(_SC_NPROCESSORS_CONF));
	assert_true(scxpol_topo_nr_cores(t) >= 1);
	assert_true(scxpol_topo_nr_llcs(t) >= 1);
	assert_true(scxpol_topo_nr_nodes(t) >= 1);
	scxpol_cpuset_for_each(cpu, scxpol_topo_online(t)) {
		const struct scxpol_topo_cpu *c = scxpol_topo_cpu(t, (unsigned int)cpu);

		assert_true(c->online);
		assert_true(scxpol_cpuset_test(scxpol_topo_core_cpus(t, (unsigned int)c->core), (unsigned int)cpu));
		assert_true(scxpol_cpuset_test(scxpol_topo_llc_cpus(t, (unsigned int)c->llc), (unsigned int)cpu));
		assert_true(scxpol_cpuset_test(scxpol_topo_node_cpus(t, (unsigned int)c->node), (unsigned int)cpu));
	}
	/* The cores partition the online CPUs. */
	all = scxpol_cpuset_new(scxpol_topo_nr_cpus(t));
	for (i = 0; i < scxpol_topo_nr_cores(t); i++) {
		assert_false(scxpol_cpuset_intersects(all, scxpol_topo_core_cpus(t, i)));
		scxpol_cpuset_or(all, scxpol_topo_core_cpus(t, i));
	}
	assert_true(scxpol_cpuset_equal(all, scxpol_topo_online(t)));
	scxpol_cpuset_free(all);

	t2 = scxpol_topo_load(&slash);
	assert_non_null(t2);
	assert_int_equal(scxpol_topo_nr_cpus(t2), scxpol_topo_nr_cpus(t));
	assert_int_equal(scxpol_topo_nr_llcs(t2), scxpol_topo_nr_llcs(t));
	scxpol_topo_free(t2);
	scxpol_topo_free(t);
}

/* scxpol_topo_build() from a loaded topology's numbers: the same topology, in every getter. */
static void test_build_matches_load(void **state)
{
	const struct fake_topo ft = { .nodes = 2, .llcs_per_node = 2, .cores_per_llc = 2,
				      .threads = 2, .stride = true };
	int core[16], llc[16], node[16];
	struct scxpol_topo *t, *b;
	unsigned int c, i, j;

	(void)state;
	t = load_fake(&ft);
	assert_int_equal(scxpol_topo_nr_cpus(t), 16);
	/* other numbers than the dense ones, in another order */
	for (c = 0; c < 16; c++) {
		core[c] = 100 - scxpol_topo_cpu(t, c)->core;
		llc[c] = 7 * scxpol_topo_cpu(t, c)->llc + 3;
		node[c] = 2 * scxpol_topo_cpu(t, c)->node + 4;
	}
	b = scxpol_topo_build(16, core, llc, node);
	assert_non_null(b);
	assert_int_equal(scxpol_topo_nr_cores(b), scxpol_topo_nr_cores(t));
	assert_int_equal(scxpol_topo_nr_llcs(b), scxpol_topo_nr_llcs(t));
	assert_int_equal(scxpol_topo_nr_nodes(b), scxpol_topo_nr_nodes(t));
	for (c = 0; c < 16; c++) {
		assert_int_equal(scxpol_topo_cpu(b, c)->core, scxpol_topo_cpu(t, c)->core);
		assert_int_equal(scxpol_topo_cpu(b, c)->llc, scxpol_topo_cpu(t, c)->llc);
		assert_int_equal(scxpol_topo_cpu(b, c)->node, scxpol_topo_cpu(t, c)->node);
	}
	for (i = 0; i < scxpol_topo_nr_llcs(t); i++)
		for (j = 0; j < scxpol_topo_nr_llcs(t); j++)
			assert_int_equal(scxpol_topo_llc_distance(b, i, j),
					 scxpol_topo_llc_distance(t, i, j));
	assert_int_equal(scxpol_topo_node_id(b, 1), 6);
	scxpol_topo_free(b);
	/* without nodes: one, 0 */
	b = scxpol_topo_build(16, core, llc, NULL);
	assert_non_null(b);
	assert_int_equal(scxpol_topo_nr_nodes(b), 1);
	assert_int_equal(scxpol_topo_node_id(b, 0), 0);
	scxpol_topo_free(b);
	/* SMT siblings must share their LLC */
	llc[1] = llc[0] + 1;
	core[1] = core[0];
	assert_null(scxpol_topo_build(16, core, llc, node));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(scxpol_last_error(),
			    "topology: SMT siblings cpu0 and cpu1 are in different LLCs");
	core[1] = -1;
	assert_null(scxpol_topo_build(16, core, llc, node));
	assert_string_equal(scxpol_last_error(), "topology: cpu1 has a negative core, LLC or node");
	assert_null(scxpol_topo_build(0, core, llc, node));
	assert_string_equal(scxpol_last_error(), "topology of 0 CPUs: want 1..65536");
	scxpol_topo_free(t);
}

#define T(f) cmocka_unit_test_teardown(f, teardown_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_smt_on),
		T(test_smt_off),
		T(test_smt_stride_numbering),
		T(test_two_llcs),
		T(test_missing_cache_ids),
		T(test_hidden_cache_type_or_level),
		T(test_no_cache_information),
		T(test_old_kernel_thread_siblings),
		T(test_two_nodes),
		T(test_cpulist_longer_than_a_page),
		T(test_llc_spanning_two_nodes),
		T(test_llc_spanning_nodes_distance),
		T(test_256_cpus),
		T(test_256_cpus_stride),
		T(test_offline_cpus),
		T(test_no_node_directory),
		T(test_node_directory_without_nodes),
		T(test_sparse_and_memory_only_nodes),
		T(test_root_with_trailing_slash),
		T(test_error_missing_possible),
		T(test_error_bad_lists),
		T(test_error_online_cpu_without_topology),
		T(test_error_siblings_disagree),
		T(test_error_quotes_long_lists),
		T(test_error_cache),
		T(test_error_siblings_in_two_llcs),
		T(test_error_nodes),
		T(test_build_matches_load),
		cmocka_unit_test(test_opts_validation),
		cmocka_unit_test(test_host_sysfs),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
