/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The hint maps as a policy pins them (<scxpol/abi/hint.h>), made on the
 * host for tests of hint clients: needs root and a bpffs mount.
 */
#ifndef HINT_PINS_H
#define HINT_PINS_H

#include <bpf/bpf.h>

#define NR_SLOTS 8
#define NR_HINT_PIN_MAPS 7
/* what make_pins() publishes in scxpol_hint_meta (and its generation: 1) */
#define HINT_PINS_NR_POOLS 2

struct hint_pin_map {
	const char *name;
	enum bpf_map_type type;
	__u32 key, value, max, flags;
};

extern const struct hint_pin_map hint_pin_maps[NR_HINT_PIN_MAPS];

/*
 * Pin the hint maps under @dir (created); @skip: a map to leave out, @bad:
 * one with an 8-byte value, @max1: one with max_entries 1 (NULL: none).
 * Its meta: HINT_PINS_NR_POOLS pools, 3 classes, importance up to 7.
 */
void make_pins(const char *dir, const char *skip, const char *bad, const char *max1);

/*
 * Map @name as make_pins() makes it, but with @value bytes of value (0: its
 * own) and @flags, pinned in @dir; open.
 */
int make_pin(const char *dir, const char *name, __u32 value, __u32 flags);

/*
 * Pin the hint maps of layout 1 under @dir (created), as a policy built
 * before SCXPOL_HINT_LAYOUT 2 left them: a cgroup hint (id 42, class 1),
 * tgid hints of @tgid (class 1) and @dead (class 2), a tid hint of @tid
 * (importance 1), @tid registered in slot 2, and no scxpol_hint_gen.
 */
void make_old_pins(const char *dir, __u32 tgid, __u32 dead, __u32 tid);

#endif
