// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libFuzzer target: the pool-plan text parser (scxpol_pool_plan_parse())
 * on any text, as a loader's --pool-plan hands it over.
 *
 * Input: one byte of flags (its low bits, masked to SCXPOL_POOL_FLAGS_ALL
 * unless its top bit is set), then the plan text (cut at the first NUL).
 * The topology is fixed: 2 nodes x 2 LLCs x 2 cores x 2 threads = 16 CPUs,
 * CPUs 13 and 15 offline. A plan that parses is a set of named pools of
 * online CPUs, disjoint and non-empty, that formats and parses back to
 * itself; one that does not gives an errno and a message quoting the
 * text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/pool.h>

#include "internal.h"

#include "fake_sysfs.h"
#include "fuzz.h"

static char *root;
static struct scxpol_topo *topo;

static void cleanup(void)
{
	scxpol_topo_free(topo);
	fake_free(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fake_topo ft = { .nodes = 2, .llcs_per_node = 2, .cores_per_llc = 2, .threads = 2,
				.offline = "13,15" };

	(void)argc;
	(void)argv;
	root = fake_sysfs(&ft);
	CHECK(root);
	SCXPOL_OPTS(scxpol_topo_opts, o, .root = root);
	topo = scxpol_topo_load(&o);
	CHECK(topo);
	CHECK(scxpol_topo_nr_cpus(topo) == 16);
	atexit(cleanup);
	fuzz_quiet_log();
	return 0;
}

static void check_plan(const struct scxpol_pool_plan *p, unsigned int flags)
{
	struct scxpol_cpuset *all = scxpol_cpuset_new(scxpol_topo_nr_cpus(topo));
	unsigned int i, j, n = scxpol_pool_plan_nr_pools(p);
	struct scxpol_pool_plan *q;
	char text[1024];
	int cpu;

	CHECK(all);
	for (i = 0; i < n; i++) {
		const struct scxpol_cpuset *s = scxpol_pool_plan_cpus(p, i);
		const char *name = scxpol_pool_plan_name(p, i);

		CHECK(name && name[0] && strlen(name) < SCXPOL_POOL_NAME_LEN);
		CHECK(strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_.-") == strlen(name));
		CHECK(scxpol_pool_plan_find(p, name) == (int)i);
		for (j = 0; j < i; j++)
			CHECK(strcmp(name, scxpol_pool_plan_name(p, j)));
		CHECK(scxpol_pool_plan_flags(p, i) == flags);
		CHECK(scxpol_cpuset_count(s) > 0);
		CHECK(!scxpol_cpuset_intersects(all, s));
		CHECK(scxpol_cpuset_subset(s, scxpol_topo_online(topo)));
		scxpol_cpuset_for_each(cpu, s)
			CHECK(scxpol_pool_plan_cpu_pool(p, (unsigned int)cpu) == (int)i);
		scxpol_cpuset_or(all, s);
	}
	scxpol_cpuset_free(all);

	/* 16 CPUs: no plan of them is longer than this */
	CHECK(scxpol_pool_plan_format(p, text, sizeof(text)) >= 0);
	CHECK((q = scxpol_pool_plan_parse(topo, text, flags)));
	CHECK(scxpol_pool_plan_nr_pools(q) == n);
	for (i = 0; i < n; i++) {
		CHECK(!strcmp(scxpol_pool_plan_name(p, i), scxpol_pool_plan_name(q, i)));
		CHECK(scxpol_cpuset_equal(scxpol_pool_plan_cpus(p, i), scxpol_pool_plan_cpus(q, i)));
	}
	scxpol_pool_plan_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scxpol_pool_plan *p = NULL;
	unsigned int flags;
	char *text;
	int r;

	if (!size)
		return 0;
	flags = data[0] & 0x7f;
	if (!(data[0] & 0x80))
		flags &= SCXPOL_POOL_FLAGS_ALL;
	text = strndup((const char *)data + 1, size - 1);
	CHECK(text);
	scxpol_err_clear();
	p = scxpol_pool_plan_parse(topo, text, flags);
	r = p ? 0 : -errno;
	if (!r) {
		CHECK(p);
		/* flags are checked per pool: an empty plan has none */
		CHECK(!(flags & ~SCXPOL_POOL_FLAGS_ALL) || !scxpol_pool_plan_nr_pools(p));
		check_plan(p, flags);
		scxpol_pool_plan_free(p);
	} else {
		CHECK(r == -EINVAL || r == -EEXIST || r == -ERANGE || r == -ENOMEM);
		CHECK(!strncmp(scxpol_last_error(), "pool plan \"", 11));
	}
	free(text);
	return 0;
}
