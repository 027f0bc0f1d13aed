// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* A table from 64-bit ids to pointers (see idtab.h). */
#include <errno.h>
#include <stdlib.h>

#include "idtab.h"

static uint32_t slot(uint64_t id, uint32_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (uint32_t)id & (cap - 1);
}

void *idtab_find(const struct idtab *t, uint64_t id)
{
	uint32_t i;

	if (!t->cap)
		return NULL;
	for (i = slot(id, t->cap); t->vals[i]; i = (i + 1) & (t->cap - 1))
		if (t->ids[i] == id)
			return t->vals[i];
	return NULL;
}

static void put(uint64_t *ids, void **vals, uint32_t cap, uint64_t id, void *val)
{
	uint32_t i;

	for (i = slot(id, cap); vals[i]; i = (i + 1) & (cap - 1))
		;
	ids[i] = id;
	vals[i] = val;
}

int idtab_add(struct idtab *t, uint64_t id, void *val)
{
	uint32_t cap, i;
	uint64_t *ids;
	void **vals;

	if (2 * (t->nr + 1) > t->cap) {
		cap = t->cap ? 2 * t->cap : 64;
		ids = calloc(cap, sizeof(*ids));
		vals = calloc(cap, sizeof(*vals));
		if (!ids || !vals) {
			free(ids);
			free(vals);
			return -ENOMEM;
		}
		for (i = 0; i < t->cap; i++)
			if (t->vals[i])
				put(ids, vals, cap, t->ids[i], t->vals[i]);
		free(t->ids);
		free(t->vals);
		t->ids = ids;
		t->vals = vals;
		t->cap = cap;
	}
	put(t->ids, t->vals, t->cap, id, val);
	t->nr++;
	return 0;
}

void idtab_free(struct idtab *t, void (*fn)(void *val))
{
	uint32_t i;

	for (i = 0; fn && i < t->cap; i++)
		if (t->vals[i])
			fn(t->vals[i]);
	free(t->ids);
	free(t->vals);
	t->ids = NULL;
	t->vals = NULL;
	t->cap = t->nr = 0;
}
