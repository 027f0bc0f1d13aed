// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* CPU topology (cores, LLCs, NUMA nodes) read from sysfs. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scxpol/topology.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"
/* sysfs CPU lists can exceed a page on big machines (they are bin attrs). */
#define MAX_FILE (1U << 20)

struct scxpol_topo {
	unsigned int nr_cpus;
	struct scxpol_cpuset *online;
	struct scxpol_topo_cpu *cpus;
	unsigned int nr_cores, nr_llcs, nr_nodes;
	struct scxpol_cpuset **cores, **llcs, **nodes;
	/* Per LLC, the dense nodes its CPUs are on (capacity nr_nodes). */
	struct scxpol_cpuset **llc_nodes;
	int *node_ids;
};

struct loader {
	struct scxpol_topo *t;
	char root[PATH_MAX];
	char *buf;
	size_t buf_len;
	unsigned int cap_cores, cap_llcs, cap_nodes;
	/* The first online CPU has no cache directory: see load_llc(). */
	bool no_caches;
};

/*
 * Read @path (relative to the root) into ld->buf, growing it for long CPU
 * lists. Returns the length or a negative errno without a message.
 */
static int read_text(struct loader *ld, const char *path)
{
	return scxpol_read_file_all(ld->root, path, &ld->buf, &ld->buf_len, MAX_FILE);
}

static int read_error(struct loader *ld, const char *path, int r)
{
	return scxpol_err(-r, "cannot read %s%s: %s", ld->root, path,
			  r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
}

/* opendir() of @rel under the root; NULL with errno set on failure. */
static DIR *open_dir(const struct loader *ld, const char *rel)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s", ld->root, rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return opendir(path);
}

/* Parse the CPU list in @path with @capacity; errors name the file. */
static int read_cpulist(struct loader *ld, const char *path, unsigned int capacity,
			struct scxpol_cpuset **out)
{
	char msg[512];
	int r;

	r = read_text(ld, path);
	if (r < 0)
		return read_error(ld, path, r);
	*out = scxpol_cpuset_parse(ld->buf, capacity);
	if (!*out) {
		r = -errno;
		snprintf(msg, sizeof(msg), "%s", scxpol_last_error());
		return scxpol_err(-r, "%s%s: %s", ld->root, path, msg);
	}
	return 0;
}

/* ld->buf, read from @path, as a decimal number; errors name the file. */
static int parse_uint(struct loader *ld, const char *path, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(ld->buf, &end, 10);
	if (ld->buf[0] < '0' || ld->buf[0] > '9' || *end || errno || v > UINT_MAX)
		return scxpol_err(EINVAL, "%s%s: expected a number, found \"%.32s\"", ld->root, path,
				  ld->buf);
	*out = (unsigned int)v;
	return 0;
}

static int last_cpu(const struct scxpol_cpuset *s)
{
	int cpu, last = -1;

	scxpol_cpuset_for_each(cpu, s)
		last = cpu;
	return last;
}

/* Append @set to a grown-as-needed array of sets; takes ownership. */
static int push_set(struct scxpol_cpuset ***arr, unsigned int *nr, unsigned int *cap,
		    struct scxpol_cpuset *set)
{
	struct scxpol_cpuset **na;

	if (*nr == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		na = realloc(*arr, *cap * sizeof(**arr));
		if (!na) {
			scxpol_cpuset_free(set);
			return scxpol_err(ENOMEM, "out of memory loading the CPU topology");
		}
		*arr = na;
	}
	(*arr)[(*nr)++] = set;
	return 0;
}

/* CPU @cpu's core (or LLC) index field. */
static int *group_of(struct scxpol_topo *t, int cpu, bool core)
{
	return core ? &t->cpus[cpu].core : &t->cpus[cpu].llc;
}

/*
 * CPU @cpu says its core (@core) or LLC is @set, read from @path: check
 * that @set holds @cpu and agrees with what the other members said, then
 * record it as a new group or find it is the one @cpu already belongs to.
 * Groups are created by their lowest CPU (CPUs are loaded in order), so a
 * group's first CPU is the one whose file defined it. Takes @set.
 */
static int add_group(struct loader *ld, const char *path, int cpu, struct scxpol_cpuset *set,
		     bool core)
{
	struct scxpol_topo *t = ld->t;
	struct scxpol_cpuset ***groups = core ? &t->cores : &t->llcs;
	unsigned int *nr = core ? &t->nr_cores : &t->nr_llcs;
	unsigned int *cap = core ? &ld->cap_cores : &ld->cap_llcs;
	int g = *group_of(t, cpu, core), m;
	char a[256], b[256];

	scxpol_cpuset_and(set, t->online);
	if (!scxpol_cpuset_test(set, (unsigned int)cpu)) {
		scxpol_cpuset_str(set, a, sizeof(a));
		scxpol_cpuset_free(set);
		return scxpol_err(EINVAL, "%s%s: \"%s\" does not include cpu%d itself", ld->root,
				  path, a, cpu);
	}
	if (g >= 0 && scxpol_cpuset_equal(set, (*groups)[g])) {
		scxpol_cpuset_free(set);
		return 0;
	}
	/* A new group: none of its members may be in another one already. */
	scxpol_cpuset_for_each(m, set) {
		if (g >= 0)
			break;
		g = *group_of(t, m, core);
	}
	if (g >= 0) {
		scxpol_cpuset_str(set, a, sizeof(a));
		scxpol_cpuset_str((*groups)[g], b, sizeof(b));
		scxpol_cpuset_free(set);
		return scxpol_err(EINVAL, "%s%s: \"%s\" disagrees with cpu%d's \"%s\"", ld->root,
				  path, a, scxpol_cpuset_next((*groups)[g], -1), b);
	}
	scxpol_cpuset_for_each(m, set)
		*group_of(t, m, core) = (int)*nr;
	return push_set(groups, nr, cap, set);
}

/* The SMT siblings of @cpu. */
static int load_core(struct loader *ld, unsigned int cpu)
{
	struct scxpol_topo *t = ld->t;
	struct scxpol_cpuset *set;
	char path[128];
	int r;

	snprintf(path, sizeof(path), CPU_DIR "/cpu%u/topology/core_cpus_list", cpu);
	r = read_cpulist(ld, path, t->nr_cpus, &set);
	if (r == -ENOENT) {
		/* Kernels before 5.4 only have the older name. */
		snprintf(path, sizeof(path), CPU_DIR "/cpu%u/topology/thread_siblings_list", cpu);
		r = read_cpulist(ld, path, t->nr_cpus, &set);
		if (r == -ENOENT)
			return scxpol_err(ENOENT, "cannot read %s" CPU_DIR
					  "/cpu%u/topology/core_cpus_list (nor thread_siblings_list): "
					  "cpu%u is online but has no topology", ld->root, cpu, cpu);
	}
	if (r)
		return r;
	return add_group(ld, path, (int)cpu, set, true);
}

/*
 * The last-level cache of @cpu: its highest-level data or unified cache
 * (the lowest index among equals), told apart by shared_cpu_list alone.
 * sysfs hides a leaf's type or level that the firmware left unknown: such
 * a leaf cannot be ranked, and is not the LLC.
 */
static int load_llc(struct loader *ld, unsigned int cpu)
{
	struct scxpol_cpuset *set = NULL, *s;
	char dir[128], path[192], best_path[192];
	unsigned int level = 0, best = 0, best_index = 0, index;
	struct dirent *de;
	DIR *d;
	int r = 0;

	snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/cache", cpu);
	d = open_dir(ld, dir);
	/*
	 * No cache information at all (hypervisors that hide the cache leaves,
	 * arm64 without cache tables): SMT is all the sharing known, so each
	 * core is an LLC. Decided by the first online CPU: a later one without
	 * the directory, or with one when the first had none, is rather a CPU
	 * still coming online, an error.
	 */
	if (d && ld->no_caches) {
		closedir(d);
		return scxpol_err(EINVAL, "%s%s: cpu%u lists caches but cpu%d, the first online "
				  "CPU, lists none (is one still coming online?)", ld->root, dir,
				  cpu, scxpol_cpuset_next(ld->t->online, -1));
	}
	if (!d && errno == ENOENT &&
	    (ld->no_caches || (int)cpu == scxpol_cpuset_next(ld->t->online, -1))) {
		if (!ld->no_caches)
			scxpol_log(SCXPOL_LOG_WARN, "%s%s: no such directory: the kernel lists no "
				   "caches, each core is taken as its own last-level cache",
				   ld->root, dir);
		ld->no_caches = true;
		set = scxpol_cpuset_dup(ld->t->cores[ld->t->cpus[cpu].core]);
		return set ? add_group(ld, dir, (int)cpu, set, false) : -errno;
	}
	if (!d)
		return scxpol_err(errno, "cannot read %s%s: %s (needed to find cpu%u's last-level "
				  "cache)", ld->root, dir, strerror(errno), cpu);
	while (!r && (de = readdir(d))) {
		char extra;

		if (sscanf(de->d_name, "index%u%c", &index, &extra) != 1 ||
		    de->d_name[5] < '0' || de->d_name[5] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/index%u/type", dir, index);
		r = read_text(ld, path);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0) {
			r = read_error(ld, path, r);
			break;
		}
		r = 0;
		if (!strcmp(ld->buf, "Instruction"))
			continue;
		if (strcmp(ld->buf, "Data") && strcmp(ld->buf, "Unified")) {
			r = scxpol_err(EINVAL, "%s%s: unknown cache type \"%.32s\" (expected Data, "
				       "Instruction or Unified)", ld->root, path, ld->buf);
			break;
		}
		snprintf(path, sizeof(path), "%s/index%u/level", dir, index);
		r = read_text(ld, path);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		r = r < 0 ? read_error(ld, path, r) : parse_uint(ld, path, &level);
		if (r || (set && (level < best || (level == best && index > best_index))))
			continue;
		snprintf(path, sizeof(path), "%s/index%u/shared_cpu_list", dir, index);
		r = read_cpulist(ld, path, ld->t->nr_cpus, &s);
		if (r)
			break;
		scxpol_cpuset_free(set);
		set = s;
		best = level;
		best_index = index;
		snprintf(best_path, sizeof(best_path), "%s", path);
	}
	closedir(d);
	if (r) {
		scxpol_cpuset_free(set);
		return r;
	}
	if (!set)
		return scxpol_err(ENOENT, "%s%s: no data or unified cache listed (index*/type), cannot "
				  "tell which CPUs share cpu%u's last-level cache", ld->root, dir, cpu);
	return add_group(ld, best_path, (int)cpu, set, false);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The node numbers N of nodeN directories, sorted; *nr = 0 if there are none. */
static int list_nodes(struct loader *ld, unsigned int **ids, unsigned int *nr)
{
	unsigned int cap = 0, id, *na;
	struct dirent *de;
	DIR *d;

	*ids = NULL;
	*nr = 0;
	d = open_dir(ld, NODE_DIR);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return scxpol_err(errno, "cannot read %s" NODE_DIR ": %s", ld->root, strerror(errno));
	}
	while ((de = readdir(d))) {
		char extra;

		if (sscanf(de->d_name, "node%u%c", &id, &extra) != 1 ||
		    de->d_name[4] < '0' || de->d_name[4] > '9')
			continue;
		if (*nr == cap) {
			cap = cap ? cap * 2 : 8;
			na = realloc(*ids, cap * sizeof(*na));
			if (!na) {
				/* the caller gets no list on failure: do not leak it */
				free(*ids);
				*ids = NULL;
				*nr = 0;
				closedir(d);
				return scxpol_err(ENOMEM, "out of memory loading the CPU topology");
			}
			*ids = na;
		}
		(*ids)[(*nr)++] = id;
	}
	closedir(d);
	/* A node directory without nodeN entries is like none at all. */
	if (*nr)
		qsort(*ids, *nr, sizeof(**ids), cmp_uint);
	return 0;
}

static int add_node(struct loader *ld, struct scxpol_cpuset *set, int id)
{
	struct scxpol_topo *t = ld->t;
	int r, *ni;

	if (t->nr_nodes == ld->cap_nodes) {
		ni = realloc(t->node_ids, (ld->cap_nodes ? ld->cap_nodes * 2 : 8) * sizeof(*ni));
		if (!ni) {
			scxpol_cpuset_free(set);
			return scxpol_err(ENOMEM, "out of memory loading the CPU topology");
		}
		t->node_ids = ni;
	}
	t->node_ids[t->nr_nodes] = id;
	r = push_set(&t->nodes, &t->nr_nodes, &ld->cap_nodes, set);
	return r;
}

static int load_nodes(struct loader *ld)
{
	struct scxpol_topo *t = ld->t;
	struct scxpol_cpuset *set;
	unsigned int *ids, nr, i;
	char path[128], a[256];
	int r, cpu;

	r = list_nodes(ld, &ids, &nr);
	if (r)
		return r;
	if (!nr) {
		/* No NUMA support in the kernel: one node holding every CPU. */
		set = scxpol_cpuset_dup(t->online);
		if (!set)
			return -errno;
		r = add_node(ld, set, 0);
		if (!r)
			scxpol_cpuset_for_each(cpu, t->online)
				t->cpus[cpu].node = 0;
		return r;
	}
	for (i = 0; i < nr && !r; i++) {
		snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", ids[i]);
		r = read_cpulist(ld, path, t->nr_cpus, &set);
		if (r)
			break;
		scxpol_cpuset_and(set, t->online);
		if (!scxpol_cpuset_count(set)) {
			/* Memory-only node (or all its CPUs offline). */
			scxpol_cpuset_free(set);
			continue;
		}
		scxpol_cpuset_for_each(cpu, set) {
			if (t->cpus[cpu].node < 0)
				continue;
			scxpol_cpuset_str(set, a, sizeof(a));
			scxpol_cpuset_free(set);
			r = scxpol_err(EINVAL, "%s%s: \"%s\" lists cpu%d, which node%d's cpulist "
				       "also lists", ld->root, path, a, cpu,
				       t->node_ids[t->cpus[cpu].node]);
			goto out;
		}
		scxpol_cpuset_for_each(cpu, set)
			t->cpus[cpu].node = (int)t->nr_nodes;
		r = add_node(ld, set, (int)ids[i]);
	}
	if (r)
		goto out;
	scxpol_cpuset_for_each(cpu, t->online) {
		if (t->cpus[cpu].node >= 0)
			continue;
		r = scxpol_err(EINVAL, "cpu%d is online but no %s" NODE_DIR "/node*/cpulist lists it",
			       cpu, ld->root);
		break;
	}
out:
	free(ids);
	return r;
}

/* Cross-links: a core lies in one LLC; which nodes each LLC spans. */
static int link_groups(struct loader *ld)
{
	struct scxpol_topo *t = ld->t;
	char a[256], b[256], c[256];
	unsigned int i;
	int cpu, first;

	for (i = 0; i < t->nr_cores; i++) {
		first = scxpol_cpuset_next(t->cores[i], -1);
		scxpol_cpuset_for_each(cpu, t->cores[i]) {
			if (t->cpus[cpu].llc == t->cpus[first].llc)
				continue;
			scxpol_cpuset_str(t->cores[i], a, sizeof(a));
			scxpol_cpuset_str(t->llcs[t->cpus[first].llc], b, sizeof(b));
			scxpol_cpuset_str(t->llcs[t->cpus[cpu].llc], c, sizeof(c));
			return scxpol_err(EINVAL, "%s" CPU_DIR "/cpu%d/topology: SMT siblings %s do not "
					  "share a last-level cache (cpu%d's is \"%s\", cpu%d's \"%s\")",
					  ld->root, first, a, first, b, cpu, c);
		}
	}
	t->llc_nodes = calloc(t->nr_llcs, sizeof(*t->llc_nodes));
	if (!t->llc_nodes)
		return scxpol_err(ENOMEM, "out of memory loading the CPU topology");
	for (i = 0; i < t->nr_llcs; i++) {
		t->llc_nodes[i] = scxpol_cpuset_new(t->nr_nodes);
		if (!t->llc_nodes[i])
			return -errno;
		scxpol_cpuset_for_each(cpu, t->llcs[i])
			scxpol_cpuset_set(t->llc_nodes[i], (unsigned int)t->cpus[cpu].node);
	}
	return 0;
}

static int load(struct loader *ld)
{
	struct scxpol_topo *t = ld->t;
	struct scxpol_cpuset *possible;
	unsigned int i;
	int r, last, cpu;

	r = read_cpulist(ld, CPU_DIR "/possible", SCXPOL_TOPO_MAX_CPUS, &possible);
	if (r)
		return r;
	last = last_cpu(possible);
	scxpol_cpuset_free(possible);
	if (last < 0)
		return scxpol_err(EINVAL, "%s" CPU_DIR "/possible: no CPUs listed", ld->root);
	t->nr_cpus = (unsigned int)last + 1;

	r = read_cpulist(ld, CPU_DIR "/online", t->nr_cpus, &t->online);
	if (r)
		return r;
	if (!scxpol_cpuset_count(t->online))
		return scxpol_err(EINVAL, "%s" CPU_DIR "/online: no CPUs listed", ld->root);

	t->cpus = calloc(t->nr_cpus, sizeof(*t->cpus));
	if (!t->cpus)
		return scxpol_err(ENOMEM, "out of memory for %u CPUs", t->nr_cpus);
	for (i = 0; i < t->nr_cpus; i++) {
		t->cpus[i].cpu = (int)i;
		t->cpus[i].online = scxpol_cpuset_test(t->online, i);
		t->cpus[i].core = t->cpus[i].llc = t->cpus[i].node = -1;
	}
	scxpol_cpuset_for_each(cpu, t->online) {
		r = load_core(ld, (unsigned int)cpu);
		if (!r)
			r = load_llc(ld, (unsigned int)cpu);
		if (r)
			return r;
	}
	r = load_nodes(ld);
	if (!r)
		r = link_groups(ld);
	return r;
}

struct scxpol_topo *scxpol_topo_load(const struct scxpol_topo_opts *opts)
{
	struct loader ld = { .buf_len = 4096 };
	const char *root;
	size_t n;
	int r;

	if (!OPTS_VALID(opts, scxpol_topo_opts))
		return errno = EINVAL, NULL;
	root = OPTS_GET(opts, root, NULL);
	if (!root)
		root = "";
	n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	/* Leave room for the sysfs paths below the root. */
	if (n + 256 >= sizeof(ld.root))
		return scxpol_err_ptr(ENAMETOOLONG, "topology root \"%.64s...\" is too long", root);
	memcpy(ld.root, root, n);
	ld.root[n] = '\0';

	ld.t = calloc(1, sizeof(*ld.t));
	ld.buf = malloc(ld.buf_len);
	if (!ld.t || !ld.buf) {
		free(ld.t);
		free(ld.buf);
		return scxpol_err_ptr(ENOMEM, "out of memory loading the CPU topology");
	}
	r = load(&ld);
	free(ld.buf);
	if (r) {
		scxpol_topo_free(ld.t);
		errno = -r;
		return NULL;
	}
	return ld.t;
}

/* The CPUs whose @ids[c] is @id (@ids NULL: all). */
static struct scxpol_cpuset *group_set(unsigned int n, const int *ids, int id)
{
	struct scxpol_cpuset *set = scxpol_cpuset_new(n);
	unsigned int c;

	if (!set)
		return NULL;
	for (c = 0; c < n; c++)
		if (!ids || ids[c] == id)
			scxpol_cpuset_set(set, c);
	return set;
}

/* scxpol_topo_build()'s groups, nodes by number, then the cross-links. */
static int build(struct loader *ld, const int *core, const int *llc, const int *node)
{
	struct scxpol_topo *t = ld->t;
	struct scxpol_cpuset *set;
	unsigned int c, nr = 0, i, *ids;
	int r = 0;

	for (c = 0; c < t->nr_cpus && !r; c++) {
		if (core[c] < 0 || llc[c] < 0 || (node && node[c] < 0))
			return scxpol_err(EINVAL, "topology: cpu%u has a negative core, LLC or node",
					  c);
		set = group_set(t->nr_cpus, core, core[c]);
		r = set ? add_group(ld, "(core)", (int)c, set, true) : -errno;
		if (!r) {
			set = group_set(t->nr_cpus, llc, llc[c]);
			r = set ? add_group(ld, "(llc)", (int)c, set, false) : -errno;
		}
	}
	ids = calloc(t->nr_cpus, sizeof(*ids));
	if (!r && !ids)
		r = scxpol_err(ENOMEM, "out of memory building a topology");
	for (c = 0; c < t->nr_cpus && !r; c++)
		ids[nr++] = node ? (unsigned int)node[c] : 0;
	if (!r)
		qsort(ids, nr, sizeof(*ids), cmp_uint);
	for (i = 0; i < nr && !r; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		set = group_set(t->nr_cpus, node, (int)ids[i]);
		if (!set) {
			r = -errno;
			break;
		}
		for (c = 0; c < t->nr_cpus; c++)
			if (scxpol_cpuset_test(set, c))
				t->cpus[c].node = (int)t->nr_nodes;
		r = add_node(ld, set, (int)ids[i]);
	}
	free(ids);
	if (r)
		return r;
	for (i = 0; i < t->nr_cores; i++) {
		int first = scxpol_cpuset_next(t->cores[i], -1), cpu;

		scxpol_cpuset_for_each(cpu, t->cores[i])
			if (t->cpus[cpu].node != t->cpus[first].node ||
			    t->cpus[cpu].llc != t->cpus[first].llc)
				return scxpol_err(EINVAL, "topology: SMT siblings cpu%d and cpu%d are in "
						  "different %s", first, cpu,
						  t->cpus[cpu].llc != t->cpus[first].llc ? "LLCs" :
											   "nodes");
	}
	return link_groups(ld);
}

struct scxpol_topo *scxpol_topo_build(unsigned int nr_cpus, const int *core, const int *llc,
				      const int *node)
{
	struct loader ld = { 0 };
	unsigned int c;
	int r;

	SCXPOL_NONNULL_PTR(core, "core");
	SCXPOL_NONNULL_PTR(llc, "llc");
	if (!nr_cpus || nr_cpus > SCXPOL_TOPO_MAX_CPUS)
		return scxpol_err_ptr(EINVAL, "topology of %u CPUs: want 1..%u", nr_cpus,
				      SCXPOL_TOPO_MAX_CPUS);
	ld.t = calloc(1, sizeof(*ld.t));
	if (!ld.t)
		return scxpol_err_ptr(ENOMEM, "out of memory building a topology");
	ld.t->nr_cpus = nr_cpus;
	ld.t->online = scxpol_cpuset_new(nr_cpus);
	ld.t->cpus = calloc(nr_cpus, sizeof(*ld.t->cpus));
	r = ld.t->online && ld.t->cpus ? 0 : scxpol_err(ENOMEM, "out of memory building a topology");
	for (c = 0; c < nr_cpus && !r; c++) {
		scxpol_cpuset_set(ld.t->online, c);
		ld.t->cpus[c] = (struct scxpol_topo_cpu){ .cpu = (int)c, .online = true, .core = -1,
							  .llc = -1, .node = -1 };
	}
	if (!r)
		r = build(&ld, core, llc, node);
	if (r) {
		scxpol_topo_free(ld.t);
		errno = -r;
		return NULL;
	}
	return ld.t;
}

static void free_sets(struct scxpol_cpuset **sets, unsigned int n)
{
	unsigned int i;

	for (i = 0; sets && i < n; i++)
		scxpol_cpuset_free(sets[i]);
	free(sets);
}

void scxpol_topo_free(struct scxpol_topo *t)
{
	if (!t)
		return;
	free_sets(t->cores, t->nr_cores);
	free_sets(t->llcs, t->nr_llcs);
	free_sets(t->nodes, t->nr_nodes);
	free_sets(t->llc_nodes, t->llc_nodes ? t->nr_llcs : 0);
	scxpol_cpuset_free(t->online);
	free(t->node_ids);
	free(t->cpus);
	free(t);
}

unsigned int scxpol_topo_nr_cpus(const struct scxpol_topo *t)
{
	return t ? t->nr_cpus : 0;
}

const struct scxpol_cpuset *scxpol_topo_online(const struct scxpol_topo *t)
{
	return t ? t->online : NULL;
}

const struct scxpol_topo_cpu *scxpol_topo_cpu(const struct scxpol_topo *t, unsigned int cpu)
{
	return t && cpu < t->nr_cpus ? &t->cpus[cpu] : NULL;
}

unsigned int scxpol_topo_nr_cores(const struct scxpol_topo *t)
{
	return t ? t->nr_cores : 0;
}

unsigned int scxpol_topo_nr_llcs(const struct scxpol_topo *t)
{
	return t ? t->nr_llcs : 0;
}

unsigned int scxpol_topo_nr_nodes(const struct scxpol_topo *t)
{
	return t ? t->nr_nodes : 0;
}

const struct scxpol_cpuset *scxpol_topo_core_cpus(const struct scxpol_topo *t, unsigned int core)
{
	return t && core < t->nr_cores ? t->cores[core] : NULL;
}

const struct scxpol_cpuset *scxpol_topo_llc_cpus(const struct scxpol_topo *t, unsigned int llc)
{
	return t && llc < t->nr_llcs ? t->llcs[llc] : NULL;
}

const struct scxpol_cpuset *scxpol_topo_node_cpus(const struct scxpol_topo *t, unsigned int node)
{
	return t && node < t->nr_nodes ? t->nodes[node] : NULL;
}

int scxpol_topo_node_id(const struct scxpol_topo *t, unsigned int node)
{
	return t && node < t->nr_nodes ? t->node_ids[node] : -1;
}

unsigned int scxpol_topo_llc_distance(const struct scxpol_topo *t, unsigned int llc_a,
				      unsigned int llc_b)
{
	if (!t || llc_a >= t->nr_llcs || llc_b >= t->nr_llcs)
		return UINT_MAX;
	if (llc_a == llc_b)
		return 0;
	return scxpol_cpuset_intersects(t->llc_nodes[llc_a], t->llc_nodes[llc_b]) ? 1 : 2;
}
