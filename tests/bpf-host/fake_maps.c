// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Fake BPF maps: ARRAY, PERCPU_ARRAY, HASH, LPM_TRIE (a HASH looked up by
 * longest prefix) and the HASH-like task storage in zeroed host memory. A
 * map is created on first use from its definition's shape; fake_reset()
 * frees them all, dropping the cpumask references their values hold (the
 * kernel does that when a map is freed).
 */
#include <stdlib.h>

#include "host_fake.h"
#include "fake_internal.h"

struct fake_map {
	void *def;
	u32 type, key_sz, val_sz, max;
	bool resized;
	u8 *keys;  /* HASH, LPM_TRIE: max keys */
	u8 *used;  /* HASH, LPM_TRIE: slot in use */
	u8 *vals;  /* values (PERCPU: FAKE_MAX_CPUS copies per entry) */
	struct fake_map *next;
};

struct fake_stor {
	void *def;
	struct task_struct *p;
	struct fake_stor *next;
	u8 val[];
};

static struct fake_map *maps;
static struct fake_stor *stors;
/* max_entries set before a map's first use (bpf_map__set_max_entries) */
static struct { void *def; u32 max; } pending[64];
static unsigned int nr_pending;

static struct fake_map *find(void *def)
{
	struct fake_map *m;

	for (m = maps; m; m = m->next)
		if (m->def == def)
			return m;
	return NULL;
}

static bool keyed(u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_LPM_TRIE;
}

static struct fake_map *get(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max)
{
	struct fake_map *m = find(def);
	size_t copies;
	unsigned int i;

	if (m)
		return m;
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def)
			max = pending[i].max;
	m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->def = def;
	m->type = type;
	m->key_sz = key_sz;
	m->val_sz = val_sz;
	m->max = max;
	copies = type == BPF_MAP_TYPE_PERCPU_ARRAY ? FAKE_MAX_CPUS : 1;
	m->vals = calloc((size_t)max * copies, val_sz);
	if (keyed(type)) {
		m->keys = calloc(max, key_sz);
		m->used = calloc(max, 1);
	}
	if (!m->vals || (keyed(type) && (!m->keys || !m->used)))
		abort();
	m->next = maps;
	maps = m;
	return m;
}

void fake_map_set_max(void *def, u32 max)
{
	unsigned int i;

	if (find(def))
		fake_die("FAKE_MAP_RESIZE after the map was used (libbpf: only before load)");
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def) {
			pending[i].max = max;
			return;
		}
	if (nr_pending == sizeof(pending) / sizeof(pending[0]))
		fake_die("too many resized maps");
	pending[nr_pending].def = def;
	pending[nr_pending++].max = max;
}

u32 fake_map_max(void *def, u32 dfl)
{
	struct fake_map *m = find(def);
	unsigned int i;

	if (m)
		return m->max;
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def)
			return pending[i].max;
	return dfl;
}

static long hash_slot(struct fake_map *m, const void *key, bool create)
{
	long free_slot = -1;
	u32 i;

	for (i = 0; i < m->max; i++) {
		if (m->used[i] && !memcmp(m->keys + (size_t)i * m->key_sz, key, m->key_sz))
			return i;
		if (!m->used[i] && free_slot < 0)
			free_slot = i;
	}
	if (!create || free_slot < 0)
		return -1;
	m->used[free_slot] = 1;
	memcpy(m->keys + (size_t)free_slot * m->key_sz, key, m->key_sz);
	memset(m->vals + (size_t)free_slot * m->val_sz, 0, m->val_sz);
	return free_slot;
}

/* Whether the first @bits bits of @a and @b are equal. */
static bool prefix_equal(const u8 *a, const u8 *b, u32 bits)
{
	u32 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, full))
		return false;
	return !rest || !((a[full] ^ b[full]) & (u8)(0xff << (8 - rest)));
}

/*
 * The slot of the longest rule matching @key (struct bpf_lpm_trie_key: a
 * u32 prefix length, then the data), as the kernel's trie_lookup_elem().
 */
static long lpm_slot(struct fake_map *m, const void *key)
{
	const u8 *want = (const u8 *)key + sizeof(u32);
	u32 i, len, wlen, best = 0;
	long slot = -1;

	memcpy(&wlen, key, sizeof(wlen));
	for (i = 0; i < m->max; i++) {
		const u8 *k = m->keys + (size_t)i * m->key_sz;

		if (!m->used[i])
			continue;
		memcpy(&len, k, sizeof(len));
		if (len > wlen || (slot >= 0 && len <= best) ||
		    !prefix_equal(k + sizeof(u32), want, len))
			continue;
		best = len;
		slot = i;
	}
	return slot;
}

void *fake_map_lookup(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key)
{
	struct fake_map *m = get(def, type, key_sz, val_sz, max);
	u32 idx;
	long slot;

	switch (m->type) {
	case BPF_MAP_TYPE_ARRAY:
		memcpy(&idx, key, sizeof(idx));
		return idx < m->max ? m->vals + (size_t)idx * m->val_sz : NULL;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max)
			return NULL;
		return m->vals + ((size_t)bpf_get_smp_processor_id() * m->max + idx) * m->val_sz;
	case BPF_MAP_TYPE_HASH:
		slot = hash_slot(m, key, false);
		return slot < 0 ? NULL : m->vals + (size_t)slot * m->val_sz;
	case BPF_MAP_TYPE_LPM_TRIE:
		slot = lpm_slot(m, key);
		return slot < 0 ? NULL : m->vals + (size_t)slot * m->val_sz;
	default:
		fake_die("map type %u is not faked", m->type);
	}
	return NULL;
}

long fake_map_update(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key,
		     const void *val, u64 flags)
{
	struct fake_map *m = get(def, type, key_sz, val_sz, max);
	void *dst;
	long slot;

	/* (an LPM_TRIE's rules are its exact keys: userspace zero-pads them) */
	if (keyed(m->type)) {
		slot = hash_slot(m, key, false);
		if (slot >= 0 && flags == BPF_NOEXIST)
			return -EEXIST;
		if (slot < 0 && flags == BPF_EXIST)
			return -ENOENT;
		if (slot < 0)
			slot = hash_slot(m, key, true);
		if (slot < 0)
			return -E2BIG;
		dst = m->vals + (size_t)slot * m->val_sz;
	} else {
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		dst = fake_map_lookup(def, type, key_sz, val_sz, max, key);
		if (!dst)
			return -E2BIG;
	}
	memcpy(dst, val, m->val_sz);
	return 0;
}

long fake_map_delete(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key)
{
	struct fake_map *m = get(def, type, key_sz, val_sz, max);
	long slot;

	if (!keyed(m->type))
		return -EINVAL;
	slot = hash_slot(m, key, false);
	if (slot < 0)
		return -ENOENT;
	m->used[slot] = 0;
	return 0;
}

void *fake_task_storage(void *def, u32 val_sz, struct task_struct *p, bool create)
{
	struct fake_stor *s;

	for (s = stors; s; s = s->next)
		if (s->def == def && s->p == p)
			return s->val;
	if (!create)
		return NULL;
	s = calloc(1, sizeof(*s) + val_sz);
	if (!s)
		abort();
	s->def = def;
	s->p = p;
	s->next = stors;
	stors = s;
	return s->val;
}

u64 fake_percpu_sum(void *def, u32 key)
{
	struct fake_map *m = find(def);
	u64 sum = 0, v;
	u32 cpu;

	if (!m)
		return 0;
	if (m->type != BPF_MAP_TYPE_PERCPU_ARRAY || m->val_sz != sizeof(u64) || key >= m->max)
		fake_die("fake_percpu_sum wants a PERCPU_ARRAY of u64");
	for (cpu = 0; cpu < FAKE_MAX_CPUS; cpu++) {
		memcpy(&v, m->vals + ((size_t)cpu * m->max + key) * m->val_sz, sizeof(v));
		sum += v;
	}
	return sum;
}

void fake_maps_reset(void)
{
	while (maps) {
		struct fake_map *m = maps;

		maps = m->next;
		free(m->keys);
		free(m->used);
		free(m->vals);
		free(m);
	}
	while (stors) {
		struct fake_stor *s = stors;

		stors = s->next;
		free(s);
	}
	nr_pending = 0;
}
