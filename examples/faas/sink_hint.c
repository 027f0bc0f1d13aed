// SPDX-License-Identifier: GPL-2.0
/* The "pinned" sink: domain assignments as cgroup hints of a loaded policy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/hint.h>

#include "replay.h"

struct hint_sink {
	struct faas_sink sink; /* first: the replay hands back &sink */
	struct scxpol_hint_client *client;
};

static int hint_assign(void *ctx, uint64_t cgroup_id, int domain)
{
	struct hint_sink *s = ctx;
	struct scxpol_hint h = { .pool = domain, .flags = SCXPOL_HINT_F_POOL };

	return scxpol_hint_set_cgroup_id(s->client, cgroup_id, &h);
}

static int hint_clear(void *ctx, uint64_t cgroup_id)
{
	struct hint_sink *s = ctx;

	return scxpol_hint_clear_cgroup_id(s->client, cgroup_id);
}

static const char *hint_error(void *ctx)
{
	(void)ctx;
	return scxpol_last_error();
}

struct faas_sink *faas_sink_hint_open(const char *policy, const char *pin_root,
				      unsigned int nr_domains, char *err, size_t errlen)
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
