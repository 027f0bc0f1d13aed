/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Fake sysfs CPU topology trees for unit tests, written into a temporary
 * directory laid out like the real one (<root>/sys/devices/system/...).
 *
 * A regular machine: nodes x LLCs per node x cores per LLC x SMT threads,
 * with the files the kernel has: cpu/{possible,online}, per online CPU
 * topology/{core_cpus_list,thread_siblings_list,core_id,
 * physical_package_id} and cache/index0-3 (L1d, L1i, L2 per core, L3 per
 * LLC: level, type, shared_cpu_list, id), node/nodeN/cpulist. As on a real
 * kernel, sibling and cache lists only name online CPUs. Irregular cases
 * (an LLC spanning nodes, inconsistent files) are made by overwriting files
 * with fake_write() and fake_remove() afterwards.
 */
#ifndef FAKE_SYSFS_H
#define FAKE_SYSFS_H

#include <stdbool.h>

struct fake_topo {
	unsigned int nodes;		/* 0: no node directory (one node) */
	unsigned int llcs_per_node;
	unsigned int cores_per_llc;
	unsigned int threads;		/* SMT threads per core */
	/* Thread t of core c is CPU c + t * cores (as on most Intel machines)
	 * instead of c * threads + t. */
	bool stride;
	bool no_cache_id;		/* no cache/index*\/id files */
	bool old_kernel;		/* thread_siblings_list but no core_cpus_list */
	const char *offline;		/* offline CPUs, their cpuN has no topology or cache */
	const char *offline_stale;	/* offline CPUs that keep stale topology and cache */
	unsigned int extra_possible;	/* possible but absent CPUs after the last one */
};

/* Number of CPUs (present) the shape describes. */
unsigned int fake_nr_cpus(const struct fake_topo *ft);

/* Write the tree into a new temporary directory; returns it (free with fake_free). */
char *fake_sysfs(const struct fake_topo *ft);

/* Write <root>/<rel> (parents created) with printf-formatted text and a newline. */
void fake_write(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Remove <root>/<rel>, recursively. */
void fake_remove(const char *root, const char *rel);

/* Remove the whole tree and free @root. */
void fake_free(char *root);

#endif
