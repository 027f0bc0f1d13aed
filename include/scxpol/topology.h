/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * CPU topology read from sysfs: which CPUs are SMT siblings (cores), which
 * share a last-level cache (LLCs), and which belong to which NUMA node.
 *
 * Sources, relative to opts.root:
 *   /sys/devices/system/cpu/possible, online
 *   /sys/devices/system/cpu/cpuN/topology/core_cpus_list
 *       (thread_siblings_list on kernels older than 5.4)
 *   /sys/devices/system/cpu/cpuN/cache/indexK/{level,type,shared_cpu_list}
 *       the LLC is the highest-level data or unified cache; it is told apart
 *       by its shared_cpu_list, so missing cache id files do not matter;
 *       when the first online CPU has no cache directory (VMs whose
 *       hypervisor hides the caches, arm64 without cache tables), the
 *       kernel lists no caches: each core is taken as its own LLC, with a
 *       warning logged (a later CPU with a cache directory is an error)
 *   /sys/devices/system/node/nodeN/cpulist
 *       no node directory at all means one node
 *
 * Only online CPUs have a core, an LLC and a node; possible but offline
 * CPUs are listed with online == false and -1 indices. Cores, LLCs and
 * nodes are numbered densely from 0: cores and LLCs in the order of their
 * lowest CPU, nodes in the order of the kernel's node numbers (nodes with
 * no online CPU are left out). An LLC may span two NUMA nodes (some VMs
 * do this); a CPU's node is the one whose cpulist holds it.
 *
 * The topology is a snapshot: after CPU hotplug, load it again.
 */
#ifndef SCXPOL_TOPOLOGY_H
#define SCXPOL_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include <scxpol/common.h>
#include <scxpol/cpuset.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scxpol_topo;

/* Largest number of possible CPUs scxpol_topo_load() accepts. */
#define SCXPOL_TOPO_MAX_CPUS 65536U

struct scxpol_topo_opts {
	size_t sz;
	/* Directory that holds sys/ (tests use fake trees); NULL or "" is /. */
	const char *root;
};
#define scxpol_topo_opts__last_field root

/*
 * scxpol_topo_load - read the topology. @opts may be NULL. Returns NULL
 * with errno set when a file is missing or holds something unexpected; the
 * message names the file and its content, e.g.
 *   `/sys/devices/system/cpu/online: cpu list "0-x": bad character 'x' at column 3`.
 * Inconsistent files (a CPU missing from its own sibling list, siblings
 * that disagree, a CPU in two nodes) are errors too (EINVAL).
 */
SCXPOL_API struct scxpol_topo *scxpol_topo_load(const struct scxpol_topo_opts *opts);

/*
 * scxpol_topo_build - a topology of @nr_cpus online CPUs (1 ..
 * SCXPOL_TOPO_MAX_CPUS) without reading sysfs: CPU i is in core @core[i],
 * LLC @llc[i] and node @node[i], any numbers naming groups (renumbered
 * densely like scxpol_topo_load()'s: cores and LLCs in the order of their
 * lowest CPU, nodes by number); @node NULL: one node 0. For planning pools
 * for another machine (a simulated one). NULL with errno EINVAL when a
 * number is negative or a core's CPUs are in different LLCs or nodes (the
 * message names the CPUs), ENOMEM.
 */
SCXPOL_API struct scxpol_topo *scxpol_topo_build(unsigned int nr_cpus, const int *core,
						 const int *llc, const int *node);

/* scxpol_topo_free - free @t. NULL is a no-op. */
SCXPOL_API void scxpol_topo_free(struct scxpol_topo *t);

/*
 * scxpol_topo_nr_cpus - number of CPU ids: possible CPUs are 0..n-1 (the
 * kernel's nr_cpu_ids). Sets from this topology have this capacity.
 */
SCXPOL_API unsigned int scxpol_topo_nr_cpus(const struct scxpol_topo *t);

/* scxpol_topo_online - the online CPUs. */
SCXPOL_API const struct scxpol_cpuset *scxpol_topo_online(const struct scxpol_topo *t);

struct scxpol_topo_cpu {
	int cpu;	/* the CPU id */
	bool online;
	int core;	/* dense core index, -1 if offline */
	int llc;	/* dense LLC index, -1 if offline */
	int node;	/* dense node index, -1 if offline */
};

/* scxpol_topo_cpu - where @cpu sits; NULL if @cpu >= scxpol_topo_nr_cpus(). */
SCXPOL_API const struct scxpol_topo_cpu *scxpol_topo_cpu(const struct scxpol_topo *t,
							 unsigned int cpu);

/* Number of cores, LLCs and NUMA nodes with at least one online CPU. */
SCXPOL_API unsigned int scxpol_topo_nr_cores(const struct scxpol_topo *t);
SCXPOL_API unsigned int scxpol_topo_nr_llcs(const struct scxpol_topo *t);
SCXPOL_API unsigned int scxpol_topo_nr_nodes(const struct scxpol_topo *t);

/*
 * The online CPUs of a core (its SMT siblings), of an LLC, of a node.
 * NULL when the index is out of range.
 */
SCXPOL_API const struct scxpol_cpuset *scxpol_topo_core_cpus(const struct scxpol_topo *t,
							     unsigned int core);
SCXPOL_API const struct scxpol_cpuset *scxpol_topo_llc_cpus(const struct scxpol_topo *t,
							    unsigned int llc);
SCXPOL_API const struct scxpol_cpuset *scxpol_topo_node_cpus(const struct scxpol_topo *t,
							     unsigned int node);

/*
 * scxpol_topo_node_id - the kernel's number of dense node @node (N of
 * /sys/devices/system/node/nodeN; what scx_bpf_create_dsq() takes), 0 when
 * there is no node directory, -1 when @node is out of range.
 */
SCXPOL_API int scxpol_topo_node_id(const struct scxpol_topo *t, unsigned int node);

/*
 * scxpol_topo_llc_distance - how far apart two LLCs are, to order work
 * stealing: 0 the same LLC, 1 different LLCs that share a NUMA node (an
 * LLC spanning two nodes shares both), 2 LLCs on different nodes.
 * UINT_MAX when an index is out of range.
 */
SCXPOL_API unsigned int scxpol_topo_llc_distance(const struct scxpol_topo *t, unsigned int llc_a,
						 unsigned int llc_b);

#ifdef __cplusplus
}
#endif
#endif /* SCXPOL_TOPOLOGY_H */
