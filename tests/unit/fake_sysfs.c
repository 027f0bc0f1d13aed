// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Fake sysfs topology trees for the unit tests (see fake_sysfs.h). */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_sysfs.h"

#define MAX_CPUS 1024

/*
 * The fixture has its own tiny list reader/writer rather than the library's,
 * so a bug there cannot hide in both the tree and the code reading it.
 */
static void list_set(bool *set, const char *list)
{
	const char *p = list;
	char *end;
	long a, b;

	while (p && *p) {
		a = strtol(p, &end, 10);
		b = *end == '-' ? strtol(end + 1, &end, 10) : a;
		for (; a <= b && a < MAX_CPUS; a++)
			set[a] = true;
		p = *end == ',' ? end + 1 : NULL;
	}
}

static void list_str(const bool *set, unsigned int n, char *buf, size_t len)
{
	unsigned int a, b;
	size_t o = 0;

	buf[0] = '\0';
	for (a = 0; a < n; a = b + 1) {
		if (!set[a]) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < n && set[b + 1]; b++)
			;
		o += (size_t)snprintf(buf + o, len - o, a == b ? "%s%u" : "%s%u-%u", o ? "," : "", a, b);
	}
}

static void mkdirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			perror(path);
			abort();
		}
		*slash = '/';
	}
}

void fake_write(const char *root, const char *rel, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f && errno == ENOENT) {
		mkdirs(path);
		f = fopen(path, "w");
	}
	if (!f) {
		perror(path);
		abort();
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

void fake_remove(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fake_free(char *root)
{
	if (!root)
		return;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}

static unsigned int nr_cores(const struct fake_topo *ft)
{
	return (ft->nodes ? ft->nodes : 1) * ft->llcs_per_node * ft->cores_per_llc;
}

unsigned int fake_nr_cpus(const struct fake_topo *ft)
{
	return nr_cores(ft) * ft->threads;
}

static unsigned int cpu_of(const struct fake_topo *ft, unsigned int core, unsigned int thread)
{
	return ft->stride ? core + thread * nr_cores(ft) : core * ft->threads + thread;
}

/* Online CPUs of the cores [first, first + n) into @buf as a list. */
static void cores_list(const struct fake_topo *ft, const bool *online, unsigned int first,
		       unsigned int n, bool all, char *buf, size_t len)
{
	bool set[MAX_CPUS] = { false };
	unsigned int c, t, cpu;

	for (c = first; c < first + n; c++)
		for (t = 0; t < ft->threads; t++) {
			cpu = cpu_of(ft, c, t);
			set[cpu] = all || online[cpu];
		}
	list_str(set, fake_nr_cpus(ft), buf, len);
}

static void write_cpu(const char *root, const struct fake_topo *ft, const bool *online,
		      unsigned int core, unsigned int cpu, bool all)
{
	unsigned int per_node = ft->llcs_per_node * ft->cores_per_llc;
	unsigned int llc = core / ft->cores_per_llc;
	char rel[128], sib[4096], l3[4096];

	cores_list(ft, online, core, 1, all, sib, sizeof(sib));
	cores_list(ft, online, llc * ft->cores_per_llc, ft->cores_per_llc, all, l3, sizeof(l3));
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/", cpu);
#define W(file, ...) do { \
		char r_[192]; \
		snprintf(r_, sizeof(r_), "%s%s", rel, file); \
		fake_write(root, r_, __VA_ARGS__); \
	} while (0)
	if (!ft->old_kernel)
		W("core_cpus_list", "%s", sib);
	W("thread_siblings_list", "%s", sib);
	W("core_id", "%u", core % per_node);
	W("physical_package_id", "%u", core / per_node);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/", cpu);
	W("index0/level", "1");
	W("index0/type", "Data");
	W("index0/shared_cpu_list", "%s", sib);
	W("index1/level", "1");
	W("index1/type", "Instruction");
	W("index1/shared_cpu_list", "%s", sib);
	W("index2/level", "2");
	W("index2/type", "Unified");
	W("index2/shared_cpu_list", "%s", sib);
	W("index3/level", "3");
	W("index3/type", "Unified");
	W("index3/shared_cpu_list", "%s", l3);
	if (!ft->no_cache_id) {
		W("index0/id", "%u", core);
		W("index1/id", "%u", core);
		W("index2/id", "%u", core);
		W("index3/id", "%u", llc);
	}
#undef W
}

char *fake_sysfs(const struct fake_topo *ft)
{
	unsigned int n = fake_nr_cpus(ft), cores = nr_cores(ft), c, t, cpu, node;
	unsigned int per_node = ft->llcs_per_node * ft->cores_per_llc;
	bool online[MAX_CPUS], off[MAX_CPUS] = { false }, stale[MAX_CPUS] = { false };
	char root[64], rel[128], list[4096];

	/* tmpfs when there is one: the 256-CPU tree is thousands of files. */
	snprintf(root, sizeof(root), "%s/scxpol-fake-sysfs.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (n + ft->extra_possible > MAX_CPUS || !mkdtemp(root))
		abort();
	list_set(off, ft->offline);
	list_set(stale, ft->offline_stale);
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		online[cpu] = cpu < n && !off[cpu] && !stale[cpu];

	fake_write(root, "sys/devices/system/cpu/possible", "0-%u", n + ft->extra_possible - 1);
	list_str(online, n, list, sizeof(list));
	fake_write(root, "sys/devices/system/cpu/online", "%s", list);
	for (c = 0; c < cores; c++)
		for (t = 0; t < ft->threads; t++) {
			cpu = cpu_of(ft, c, t);
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/online", cpu);
			fake_write(root, rel, "%d", online[cpu]);
			if (online[cpu] || stale[cpu])
				write_cpu(root, ft, online, c, cpu, stale[cpu]);
		}
	for (node = 0; node < ft->nodes; node++) {
		cores_list(ft, online, node * per_node, per_node, false, list, sizeof(list));
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpulist", node);
		fake_write(root, rel, "%s", list);
	}
	return strdup(root);
}
