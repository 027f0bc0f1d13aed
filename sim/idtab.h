/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A table from 64-bit ids to pointers (DSQs by id, cgroups by id): open
 * addressing, at most half full, no deletion (the engine never destroys
 * either before the simulation ends). Not installed.
 */
#ifndef SCXPOL_SIM_IDTAB_H
#define SCXPOL_SIM_IDTAB_H

#include <stdint.h>

struct idtab {
	uint64_t *ids;
	void **vals;
	uint32_t cap, nr;
};

/* The value of @id, or NULL. */
void *idtab_find(const struct idtab *t, uint64_t id);
/* Add @id -> @val (@id must not be there; @val not NULL). 0 or -ENOMEM. */
int idtab_add(struct idtab *t, uint64_t id, void *val);
/* Call @fn on every value (in table order), then free the table. */
void idtab_free(struct idtab *t, void (*fn)(void *val));

#endif
