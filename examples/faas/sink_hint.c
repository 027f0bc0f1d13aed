// SPDX-License-Identifier: GPL-2.0
/* The "pinned" sink: domain assignments as cgroup hints of a loaded policy. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cpuset.h>
#include <scxpol/hint.h>
#include <scxpol/stats.h>

#include "replay.h"

struct hint_sink {
	struct faas_sink sink; /* first: the replay hands back &sink */
	struct scxpol_hint_client *client;
};

static int hint_assign(void *ctx, uint64_t cgroup_id, int domain)
{
	struct hint_sink *s = ctx;
	struct scxpol_hint h = { .pool = domain, .flags = SCXPOL_HINT_F_POOL };

	return scxpol_hint_set(s->client, SCXPOL_HINT_CGROUP, cgroup_id, &h);
}

static int hint_clear(void *ctx, uint64_t cgroup_id)
{
	struct hint_sink *s = ctx;

	return scxpol_hint_clear(s->client, SCXPOL_HINT_CGROUP, cgroup_id);
}

static const char *hint_error(void *ctx)
{
	(void)ctx;
	return scxpol_last_error();
}

/*
 * The policy's domains, as its stats server at @stats_path (NULL: its
 * default path) reports them, must be the replay's @cpus, in order. 0, or
 * a negative errno with the reason in @err.
 */
static int check_domains(const char *policy, const char *stats_path, unsigned int n,
			 struct scxpol_cpuset *const *cpus, char *err, size_t errlen)
{
	struct scxpol_stats *st = scxpol_stats_new();
	struct scxpol_cpuset *got = NULL;
	char path[PATH_MAX], want[SCXPOL_POOL_CPUS_LEN];
	unsigned int i;
	int r = 0;

	if (!st)
		return faas_errf(err, errlen, ENOMEM, "out of memory");
	if (!stats_path) {
		r = scxpol_stats_socket_path(policy, path, sizeof(path));
		if (r < 0) {
			r = faas_errf(err, errlen, -r, "sink 'pinned': %s", scxpol_last_error());
			goto out;
		}
		stats_path = path;
	}
	r = scxpol_stats_fetch(stats_path, st);
	if (r < 0) {
		r = faas_errf(err, errlen, -r, "sink 'pinned': reading policy %s's domains from "
			      "its stats socket %s (--policy-socket): %s", policy, stats_path,
			      scxpol_last_error());
		goto out;
	}
	if (st->nr_pools != n) {
		r = faas_errf(err, errlen, EINVAL, "sink 'pinned': policy %s reports %u domains, "
			      "the replay has %u", policy, st->nr_pools, n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		got = scxpol_cpuset_parse(st->pools[i].cpus, scxpol_cpuset_capacity(cpus[i]));
		if (!got) {
			r = faas_errf(err, errlen, errno, "sink 'pinned': policy %s's domain %u (%s): "
				      "%s", policy, i, st->pools[i].name, scxpol_last_error());
			goto out;
		}
		if (!scxpol_cpuset_equal(got, cpus[i])) {
			if (scxpol_cpuset_format(cpus[i], want, sizeof(want)) < 0)
				snprintf(want, sizeof(want), "(a list too long to show)");
			r = faas_errf(err, errlen, EINVAL, "sink 'pinned': policy %s's domain %u "
				      "(%s) is CPUs %s, the replay's is %s: domain d must be the "
				      "same CPUs on both sides (the replay's --domains or --plan)",
				      policy, i, st->pools[i].name, st->pools[i].cpus, want);
			goto out;
		}
		scxpol_cpuset_free(got);
		got = NULL;
	}
out:
	scxpol_cpuset_free(got);
	free(st);
	return r;
}

struct faas_sink *faas_sink_hint_open(const char *policy, const char *pin_root,
				      const char *stats_path, unsigned int nr_domains,
				      struct scxpol_cpuset *const *cpus, char *err, size_t errlen)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, o, .pin_root = pin_root);
	struct hint_sink *s = calloc(1, sizeof(*s));
	struct scxpol_hint_meta meta;
	int r;

	if (!s) {
		faas_errf(err, errlen, ENOMEM, "out of memory");
		return NULL;
	}
	s->client = scxpol_hint_client_open(policy, &o);
	if (!s->client) {
		faas_errf(err, errlen, errno, "sink 'pinned': %s", scxpol_last_error());
		free(s);
		return NULL;
	}
	/*
	 * Another number of domains than the policy's: hints to domain d would
	 * be valid, but name the CPUs of the policy's domain d, not the
	 * replay's, which its capacities count.
	 */
	r = scxpol_hint_get_meta(s->client, &meta);
	if (r)
		faas_errf(err, errlen, -r, "sink 'pinned': %s", scxpol_last_error());
	else if (meta.nr_pools != nr_domains)
		r = faas_errf(err, errlen, EINVAL, "sink 'pinned': policy %s has %u domains, the "
			      "replay %u: domain d must be the same CPUs on both sides (the "
			      "replay's --domains or --plan)", policy, meta.nr_pools, nr_domains);
	else
		r = check_domains(policy, stats_path, nr_domains, cpus, err, errlen);
	if (r) {
		scxpol_hint_client_close(s->client);
		free(s);
		errno = -r;
		return NULL;
	}
	s->sink.name = "pinned";
	s->sink.ctx = s;
	s->sink.assign = hint_assign;
	s->sink.clear = hint_clear;
	s->sink.last_error = hint_error;
	return &s->sink;
}

void faas_sink_hint_close(struct faas_sink *sink)
{
	struct hint_sink *s = (struct hint_sink *)sink;

	if (!s)
		return;
	scxpol_hint_client_close(s->client);
	free(s);
}
