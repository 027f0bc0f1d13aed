// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: topology loading from a fake sysfs tree, then the pool
 * plan builders on whatever loaded.
 *
 * Input: lines "PATH CONTENT". PATH is relative to sys/devices/system/
 * ([a-z0-9_/] only, e.g. "cpu/cpu0/cache/index3/shared_cpu_list"); CONTENT
 * (the rest of the line, any bytes) is written to it with a newline. The
 * tree is written under a private temporary directory, loaded, checked and
 * removed again for every input.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scxpol/pool.h>

#include "fuzz.h"

#define MAX_LINES 256
#define MAX_PATH_LEN 160

static char root[128];
static char sys[192];

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* tmpfs when there is one: thousands of small trees a second. */
	snprintf(root, sizeof(root), "%s/scxpol-fuzz-topo.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	CHECK(mkdtemp(root));
	snprintf(sys, sizeof(sys), "%s/sys", root);
	atexit(cleanup);
	fuzz_quiet_log();
	return 0;
}

static bool path_ok(const char *p, size_t n)
{
	size_t i;

	if (!n || n > MAX_PATH_LEN || p[0] == '/' || p[n - 1] == '/')
		return false;
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '/'))
			return false;
		if (c == '/' && p[i + 1] == '/')
			return false;
	}
	return true;
}

/* Write one file; paths that clash with existing files or dirs are skipped. */
static void put(const char *rel, size_t rel_len, const char *content, size_t len)
{
	char path[512], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/sys/devices/system/%.*s", root, (int)rel_len, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return;
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, content, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		abort();
	close(fd);
}

/* The plans' pools are disjoint sets of online CPUs covering @cover. */
static void check_plan(const struct scxpol_pool_plan *p, const struct scxpol_topo *t, bool cover)
{
	struct scxpol_cpuset *all = scxpol_cpuset_new(scxpol_topo_nr_cpus(t));
	struct scxpol_pool_plan *q;
	unsigned int i, n = scxpol_pool_plan_nr_pools(p);
	char *text;
	size_t len = 64 + 16 * (size_t)scxpol_topo_nr_cpus(t);
	int cpu;

	CHECK(all);
	for (i = 0; i < n; i++) {
		const struct scxpol_cpuset *s = scxpol_pool_plan_cpus(p, i);

		CHECK(scxpol_cpuset_count(s) > 0);
		CHECK(!scxpol_cpuset_intersects(all, s));
		CHECK(scxpol_cpuset_subset(s, scxpol_topo_online(t)));
		scxpol_cpuset_for_each(cpu, s)
			CHECK(scxpol_pool_plan_cpu_pool(p, (unsigned int)cpu) == (int)i);
		scxpol_cpuset_or(all, s);
	}
	if (cover)
		CHECK(scxpol_cpuset_equal(all, scxpol_topo_online(t)));
	scxpol_cpuset_free(all);

	text = malloc(len);
	CHECK(text);
	CHECK(scxpol_pool_plan_format(p, text, len) >= 0);
	CHECK((q = scxpol_pool_plan_parse(t, text, 0)));
	CHECK(scxpol_pool_plan_nr_pools(q) == n);
	for (i = 0; i < n; i++)
		CHECK(scxpol_cpuset_equal(scxpol_pool_plan_cpus(p, i), scxpol_pool_plan_cpus(q, i)));
	scxpol_pool_plan_free(q);
	free(text);
}

static void check_plans(const struct scxpol_topo *t)
{
	unsigned int online = scxpol_cpuset_count(scxpol_topo_online(t));
	unsigned int tries[] = { 1, 2, 3, online }, i, j, lo, hi;
	struct scxpol_pool_plan *p;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (tries[i] > online)
			continue;
		CHECK((p = scxpol_pool_plan_domains(t, tries[i], 0)));
		CHECK(scxpol_pool_plan_nr_pools(p) == tries[i]);
		lo = online / tries[i];
		hi = lo + (online % tries[i] != 0);
		for (j = 0; j < tries[i]; j++) {
			unsigned int n = scxpol_cpuset_count(scxpol_pool_plan_cpus(p, j));

			CHECK(n == lo || n == hi);
		}
		check_plan(p, t, true);
		scxpol_pool_plan_free(p);
	}
	if (online < 2)
		return;
	CHECK((p = scxpol_pool_plan_split(t, "a", "b", online / 2, 0)));
	CHECK(scxpol_cpuset_count(scxpol_pool_plan_cpus(p, 0)) == online / 2);
	for (i = 0; i < 2; i++) {
		/* Move i + 1 CPUs from pool i to the other one when it can spare them. */
		lo = scxpol_cpuset_count(scxpol_pool_plan_cpus(p, i));
		hi = scxpol_cpuset_count(scxpol_pool_plan_cpus(p, !i));
		if (lo <= i + 1) {
			CHECK(scxpol_pool_plan_move(p, i, !i, i + 1) == -EINVAL);
			continue;
		}
		CHECK(scxpol_pool_plan_move(p, i, !i, i + 1) == 0);
		CHECK(scxpol_cpuset_count(scxpol_pool_plan_cpus(p, i)) == lo - i - 1);
		CHECK(scxpol_cpuset_count(scxpol_pool_plan_cpus(p, !i)) == hi + i + 1);
	}
	check_plan(p, t, true);
	scxpol_pool_plan_free(p);
}

static void check_topo(const struct scxpol_topo *t)
{
	unsigned int nr = scxpol_topo_nr_cpus(t), i, j;
	const struct scxpol_cpuset *online = scxpol_topo_online(t);
	struct scxpol_cpuset *all = scxpol_cpuset_new(nr);

	CHECK(all && nr > 0 && scxpol_cpuset_count(online) > 0);
	for (i = 0; i < nr; i++) {
		const struct scxpol_topo_cpu *c = scxpol_topo_cpu(t, i);

		CHECK(c && c->cpu == (int)i && c->online == scxpol_cpuset_test(online, i));
		if (!c->online) {
			CHECK(c->core == -1 && c->llc == -1 && c->node == -1);
			continue;
		}
		CHECK(scxpol_cpuset_test(scxpol_topo_core_cpus(t, (unsigned int)c->core), i));
		CHECK(scxpol_cpuset_test(scxpol_topo_llc_cpus(t, (unsigned int)c->llc), i));
		CHECK(scxpol_cpuset_test(scxpol_topo_node_cpus(t, (unsigned int)c->node), i));
	}
	/* Cores, LLCs and nodes each partition the online CPUs. */
	for (i = 0; i < scxpol_topo_nr_cores(t); i++) {
		CHECK(!scxpol_cpuset_intersects(all, scxpol_topo_core_cpus(t, i)));
		scxpol_cpuset_or(all, scxpol_topo_core_cpus(t, i));
	}
	CHECK(scxpol_cpuset_equal(all, online));
	scxpol_cpuset_andnot(all, all);
	for (i = 0; i < scxpol_topo_nr_llcs(t); i++) {
		CHECK(!scxpol_cpuset_intersects(all, scxpol_topo_llc_cpus(t, i)));
		scxpol_cpuset_or(all, scxpol_topo_llc_cpus(t, i));
		for (j = 0; j < scxpol_topo_nr_llcs(t); j++) {
			unsigned int d = scxpol_topo_llc_distance(t, i, j);

			CHECK(d == scxpol_topo_llc_distance(t, j, i));
			CHECK((d == 0) == (i == j) && d <= 2);
		}
	}
	CHECK(scxpol_cpuset_equal(all, online));
	scxpol_cpuset_andnot(all, all);
	for (i = 0; i < scxpol_topo_nr_nodes(t); i++) {
		CHECK(!scxpol_cpuset_intersects(all, scxpol_topo_node_cpus(t, i)));
		scxpol_cpuset_or(all, scxpol_topo_node_cpus(t, i));
		CHECK(scxpol_topo_node_id(t, i) >= 0);
	}
	CHECK(scxpol_cpuset_equal(all, online));
	scxpol_cpuset_free(all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);
	const char *p = (const char *)data, *end = p + size, *nl, *sp;
	struct scxpol_topo *t;
	int lines = 0;

	while (p < end && lines++ < MAX_LINES) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		sp = memchr(p, ' ', (size_t)(nl - p));
		if (sp && path_ok(p, (size_t)(sp - p)))
			put(p, (size_t)(sp - p), sp + 1, (size_t)(nl - sp - 1));
		p = nl + 1;
	}
	t = scxpol_topo_load(&o);
	if (t) {
		check_topo(t);
		check_plans(t);
		scxpol_topo_free(t);
	} else {
		CHECK(errno > 0 && scxpol_last_error()[0]);
	}
	nftw(sys, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
