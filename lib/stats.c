// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Stats: the library counters' descriptors and snapshots of a loaded
 * policy's counters and pools. Their JSON form, the requests and the client
 * are lib/stats_json.c's; the socket server is lib/stats_socket.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/abi/pool.h"
#include "scxpol/pool.h"
#include "scxpol/sched.h"
#include "scxpol/stats.h"

#define STATS_MAP "scxpol_stats"
/* <scxpol/abi/pool.h>: the pool configuration's section; max_pools 0 = no pools */
#define POOL_CONF_SECTION ".rodata.scxpol_pool"

#define LIB_DESC(id, name, unit, desc) { #name, unit, desc },
const struct scxpol_stat_desc scxpol_stats_lib_descs[SCXPOL_STAT_NR] = {
	SCXPOL_STAT_TABLE(LIB_DESC)
};
#undef LIB_DESC
_Static_assert(SCXPOL_STAT_NR <= SCXPOL_STAT_LIB_SLOTS, "library counters fit their slots");

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- Reading ----------------------------------------------------------------- */

static bool good_name(const char *n)
{
	size_t i, len = strlen(n);

	if (!len || len >= SCXPOL_STAT_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
			return false;
	return true;
}

int scxpol_stats_check_user_descs(const struct scxpol_stats_opts *o, char *err, size_t len)
{
	const struct scxpol_stat_desc *d = OPTS_GET(o, user_descs, NULL);
	unsigned int nr = OPTS_GET(o, nr_user, 0), i, j;

	if (nr > SCXPOL_STAT_USER_NR) {
		snprintf(err, len, "stats opts: nr_user %u is more than %u", nr, SCXPOL_STAT_USER_NR);
		return -EINVAL;
	}
	if (nr && !d) {
		snprintf(err, len, "stats opts: nr_user is %u but user_descs is NULL", nr);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (!d[i].name)
			continue;
		if (!good_name(d[i].name)) {
			snprintf(err, len, "stats user counter %u: name '%.64s' is not 1..%d "
				 "characters of [a-z0-9_]", i, d[i].name, SCXPOL_STAT_NAME_LEN - 1);
			return -EINVAL;
		}
		for (j = 0; j < SCXPOL_STAT_NR; j++)
			if (!strcmp(d[i].name, scxpol_stats_lib_descs[j].name))
				goto dup;
		for (j = 0; j < i; j++)
			if (d[j].name && !strcmp(d[i].name, d[j].name))
				goto dup;
	}
	return 0;
dup:
	snprintf(err, len, "stats user counter %u: name '%s' is taken by another counter", i,
		 d[i].name);
	return -EINVAL;
}

/*
 * The stats module, before the load: the object's scxpol_stats map, if it
 * has one, has this library's layout (<scxpol/abi/stats.h>); else -EPROTO,
 * with a message naming both.
 */
static int stats_configured(struct scxpol_sched *s, void *state)
{
	struct bpf_map *map = bpf_object__find_map_by_name(scxpol_sched_object(s), STATS_MAP);
	const char *policy = scxpol_sched_name(s);
	__u32 n;

	(void)state;

	if (!map)
		return 0;
	n = bpf_map__max_entries(map);
	if (n != SCXPOL_STAT_TOTAL || bpf_map__value_size(map) != sizeof(__u64))
		return scxpol_err(EPROTO, "%s: its '" STATS_MAP "' map has %u slots of %u bytes, "
				  "this libscxpol's have %u of 8 (%u library, then %u policy "
				  "counters): the BPF object was built against another version of "
				  "<scxpol/abi/stats.h>; rebuild it against this library's", policy,
				  n, bpf_map__value_size(map), SCXPOL_STAT_TOTAL,
				  SCXPOL_STAT_LIB_SLOTS, SCXPOL_STAT_USER_NR);
	return 0;
}

const struct scxpol_sched_module scxpol_stats_module = {
	.name = "stats",
	.configured = stats_configured,
};

/* Whether the policy in @obj has set its pools up (scxpol_pool_setup()). */
static bool uses_pools(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, POOL_CONF_SECTION);
	const struct scxpol_pool_conf *conf;
	size_t sz = 0;

	if (!map)
		return false;
	conf = bpf_map__initial_value(map, &sz);
	return conf && sz == sizeof(*conf) && conf->max_pools;
}

/* Read the counters and pools of the locked object @obj; message into @err. */
static int read_locked(struct scxpol_sched *s, struct bpf_object *obj,
		       const struct scxpol_stats_opts *o, struct scxpol_stats *out, char *err,
		       size_t len)
{
	const struct scxpol_stat_desc *user = OPTS_GET(o, user_descs, NULL);
	unsigned int nr_user = OPTS_GET(o, nr_user, 0);
	scxpol_stats_pools_fn pools = OPTS_GET(o, pools, NULL);
	struct bpf_map *map;
	int ncpu, cpu, r;
	__u32 key;
	__u64 *vals;

	map = bpf_object__find_map_by_name(obj, STATS_MAP);
	if (!map) {
		snprintf(err, len, "%s: the BPF object has no '" STATS_MAP "' map (include "
			 "<scxpol/stats.bpf.h>)", scxpol_sched_name(s));
		return -ENOENT;
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		snprintf(err, len, "cannot count the possible CPUs: %s", strerror(-ncpu));
		return ncpu ? ncpu : -EINVAL;
	}
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	out->nr = 0;
	for (key = 0; key < SCXPOL_STAT_TOTAL; key++) {
		const char *name;
		__u64 sum = 0;

		if (key < SCXPOL_STAT_NR)
			name = scxpol_stats_lib_descs[key].name;
		else if (key >= SCXPOL_STAT_USER_BASE && key - SCXPOL_STAT_USER_BASE < nr_user &&
			 user[key - SCXPOL_STAT_USER_BASE].name)
			name = user[key - SCXPOL_STAT_USER_BASE].name;
		else
			continue;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), vals, (size_t)ncpu * sizeof(*vals),
					 0)) {
			r = -errno;
			snprintf(err, len, "%s: cannot read " STATS_MAP "[%u]: %s",
				 scxpol_sched_name(s), key, strerror(errno));
			free(vals);
			return r;
		}
		for (cpu = 0; cpu < ncpu; cpu++)
			sum += vals[cpu];
		snprintf(out->v[out->nr].name, sizeof(out->v[out->nr].name), "%s", name);
		out->v[out->nr++].value = sum;
	}
	free(vals);
	out->nr_pools = 0;
	if (pools) {
		r = pools(s, out->pools, SCXPOL_STATS_MAX_POOLS, OPTS_GET(o, pools_ctx, NULL));
		if (r < 0)
			snprintf(err, len, "%s: reading the pools failed: %s", scxpol_sched_name(s),
				 strerror(-r));
	} else if (uses_pools(obj)) {
		r = scxpol_pool_read(s, NULL, out->pools, SCXPOL_STATS_MAX_POOLS, NULL);
		if (r < 0)
			snprintf(err, len, "%s", scxpol_last_error());
	} else {
		r = 0;
	}
	if (r < 0)
		return r;
	out->nr_pools = (unsigned int)r < SCXPOL_STATS_MAX_POOLS ? (unsigned int)r
								 : SCXPOL_STATS_MAX_POOLS;
	return 0;
}

int scxpol_stats_read_msg(struct scxpol_sched *s, const struct scxpol_stats_opts *o,
			  struct scxpol_stats *out, char *err, size_t len)
{
	struct bpf_object *obj;
	int r;

	r = scxpol_stats_check_user_descs(o, err, len);
	if (r)
		return r;
	scxpol_stats_clear(out);
	obj = scxpol_sched_lock(s);
	snprintf(out->policy, sizeof(out->policy), "%s", scxpol_sched_name(s));
	if (!obj) {
		snprintf(err, len, "policy '%s' is not loaded (restarting?)", scxpol_sched_name(s));
		scxpol_sched_unlock(s);
		return -ENODATA;
	}
	out->restarts = scxpol_sched_restarts(s);
	out->time_ns = mono_ns();
	r = read_locked(s, obj, o, out, err, len);
	scxpol_sched_unlock(s);
	return r;
}

int scxpol_stats_read(struct scxpol_sched *s, const struct scxpol_stats_opts *opts,
		      struct scxpol_stats *out)
{
	SCXPOL_NONNULL(s, "scheduler");
	SCXPOL_NONNULL(out, "output");
	char err[256];
	int r;

	scxpol_err_clear();
	if (!OPTS_VALID(opts, scxpol_stats_opts))
		return -EINVAL;
	r = scxpol_stats_check_sz(out);
	if (r)
		return r;
	r = scxpol_stats_read_msg(s, opts, out, err, sizeof(err));
	return r ? scxpol_err(-r, "%s", err) : 0;
}

int scxpol_stats_check_sz(const struct scxpol_stats *st)
{
	if (st->sz != sizeof(*st))
		return scxpol_err(EINVAL, "stats snapshot: sz is %zu, not %zu, the size of this "
				  "libscxpol's struct scxpol_stats (set it with SCXPOL_STATS_INIT "
				  "or scxpol_stats_new())", st->sz, sizeof(*st));
	return 0;
}

void scxpol_stats_clear(struct scxpol_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
}

struct scxpol_stats *scxpol_stats_new(void)
{
	struct scxpol_stats *st = malloc(sizeof(*st));

	if (st)
		scxpol_stats_clear(st);
	return st;
}

const struct scxpol_stat_value *scxpol_stats_find(const struct scxpol_stats *st, const char *name)
{
	SCXPOL_NONNULL_PTR(st, "snapshot");
	SCXPOL_NONNULL_PTR(name, "name");
	unsigned int i;

	if (scxpol_stats_check_sz(st))
		return NULL;
	for (i = 0; i < st->nr && i < SCXPOL_STAT_TOTAL; i++)
		if (!strcmp(st->v[i].name, name))
			return &st->v[i];
	return NULL;
}
