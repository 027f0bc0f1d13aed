// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * BPF maps in host memory: ARRAY, PERCPU_ARRAY, HASH, LPM_TRIE and
 * TASK_STORAGE, zeroed, sized from their definitions (or from
 * scxpol_sim_map_resize(), what bpf_map__set_max_entries() is to libbpf).
 * A map is created on first use and found from its definition (find()),
 * so a lookup costs O(1) like the kernel's:
 *   ARRAY         an index
 *   PERCPU_ARRAY  an index into the current CPU's copy
 *   HASH          linear probing over the keys, values in a stable slab
 *                 (a value's address stays valid while its key exists)
 *   LPM_TRIE      the longest matching rule, scanning the rules (few)
 *   TASK_STORAGE  the task's own slot (task_struct.stor), O(1)
 * Resetting the kernel frees every map, dropping the cpumask references
 * their values hold as the kernel does when a map is freed.
 */
#include <stdlib.h>

#include "kernel.h"

struct sim_map {
	void *def;
	u32 type, key_sz, val_sz, max;
	u32 copies;	/* PERCPU_ARRAY: nr_cpus; else 1 */
	u8 *vals;	/* max * copies values */
	u8 *keys;	/* HASH, LPM_TRIE: max keys, beside the values */
	u8 *used;	/* HASH, LPM_TRIE: which of the max entries are in use */
	u32 *slots;	/* HASH: the probe table, entry index + 1 (0: empty) */
	u32 nr_slots;	/* power of two, at least twice max */
	u32 *free_idx;	/* HASH, LPM_TRIE: unused entries, a stack */
	u32 nr_free;
	u32 *rules;	/* LPM_TRIE: the entries in use, densely */
	u32 nr_rules;
	s32 stor;	/* TASK_STORAGE: its task_struct.stor slot */
};

/* A task-storage value: linked so a reset frees them all. */
struct stor_val {
	struct stor_val *prev, *next;
	struct task_struct *p;
	s32 slot;
	u8 val[] __attribute__((aligned(8)));
};

/* every map, in creation order; a definition's first word holds its tag (tag()) */
static struct sim_map **all;
static u32 nr_all, cap_all;
static struct stor_val *stors;
static u32 nr_stor_slots;
/* bumped by every reset: a task's storage of an older generation is gone */
static u64 gen = 1;
/* max_entries set before a map's first use */
static struct {
	void *def;
	u32 max;
} pending[64];
static u32 nr_pending;

static u64 mix(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ (x >> 33);
}

static u64 hash_bytes(const void *key, u32 len)
{
	const u8 *k = key;
	u64 h = 0xcbf29ce484222325ULL, w;
	u32 i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, k + i, 8);
		h = mix(h ^ w);
	}
	for (; i < len; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return mix(h);
}

/*
 * A map is found from its definition in O(1): the definition's storage
 * (zeroed, never read by the BPF code: only its members' types matter)
 * holds the map's index and the generation of the maps it belongs to.
 */
static u64 tag(u32 idx)
{
	return gen << 32 | (idx + 1);
}

static struct sim_map *find(const void *def)
{
	u64 t;

	memcpy(&t, def, sizeof(t));
	if (t >> 32 != (gen & 0xffffffff) || (u32)t - 1 >= nr_all)
		return NULL;
	return all[(u32)t - 1]->def == def ? all[(u32)t - 1] : NULL;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		sim_die("out of memory for a map of %zu x %zu bytes", n, sz);
	return p;
}

static void add_map(struct sim_map *m)
{
	u64 t;

	if (nr_all == cap_all) {
		cap_all = cap_all ? 2 * cap_all : 64;
		all = realloc(all, cap_all * sizeof(*all));
		if (!all)
			sim_die("out of memory for the map table");
	}
	t = tag(nr_all);
	memcpy(m->def, &t, sizeof(t));
	all[nr_all++] = m;
}

static bool keyed(u32 type)
{
	return type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_LPM_TRIE;
}

static struct sim_map *get(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max)
{
	struct sim_map *m = find(def);
	u32 i;

	if (m) {
		if (m->type != type || m->key_sz != key_sz || m->val_sz != val_sz)
			sim_die("map %p used with two shapes (type %u/%u, key %u/%u, value %u/%u)",
				def, m->type, type, m->key_sz, key_sz, m->val_sz, val_sz);
		return m;
	}
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def)
			max = pending[i].max;
	m = xcalloc(1, sizeof(*m));
	m->def = def;
	m->type = type;
	m->key_sz = key_sz;
	m->val_sz = val_sz;
	m->max = max;
	m->copies = type == BPF_MAP_TYPE_PERCPU_ARRAY ? sim_k.nr_cpus : 1;
	m->stor = -1;
	if (type == BPF_MAP_TYPE_TASK_STORAGE) {
		if (nr_stor_slots == SCXPOL_SIM_MAX_TASK_STOR)
			sim_die("more than %d task-storage maps", SCXPOL_SIM_MAX_TASK_STOR);
		m->stor = (s32)nr_stor_slots++;
	} else {
		m->vals = xcalloc((size_t)max * m->copies, val_sz);
	}
	if (keyed(type)) {
		m->keys = xcalloc(max, key_sz);
		m->used = xcalloc(max, 1);
		m->free_idx = xcalloc(max, sizeof(u32));
		for (i = 0; i < max; i++)
			m->free_idx[i] = max - 1 - i;
		m->nr_free = max;
	}
	if (type == BPF_MAP_TYPE_HASH) {
		for (m->nr_slots = 16; m->nr_slots < 2 * max; m->nr_slots *= 2)
			;
		m->slots = xcalloc(m->nr_slots, sizeof(u32));
	}
	if (type == BPF_MAP_TYPE_LPM_TRIE)
		m->rules = xcalloc(max, sizeof(u32));
	if (type != BPF_MAP_TYPE_ARRAY && type != BPF_MAP_TYPE_PERCPU_ARRAY && !keyed(type) &&
	    type != BPF_MAP_TYPE_TASK_STORAGE)
		sim_die("map type %u is not simulated", type);
	add_map(m);
	return m;
}

void scxpol_sim_map_resize(void *def, u32 max)
{
	u32 i;

	if (find(def))
		sim_die("a map resized after its first use (libbpf: only before load)");
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def) {
			pending[i].max = max;
			return;
		}
	if (nr_pending == sizeof(pending) / sizeof(pending[0]))
		sim_die("too many resized maps");
	pending[nr_pending].def = def;
	pending[nr_pending++].max = max;
}

u32 scxpol_sim_map_max(void *def, u32 dfl)
{
	struct sim_map *m = find(def);
	u32 i;

	if (m)
		return m->max;
	for (i = 0; i < nr_pending; i++)
		if (pending[i].def == def)
			return pending[i].max;
	return dfl;
}

/* --- HASH ---------------------------------------------------------------------- */
static u32 *hash_probe(struct sim_map *m, const void *key)
{
	u32 mask = m->nr_slots - 1, i;

	for (i = (u32)hash_bytes(key, m->key_sz) & mask;; i = (i + 1) & mask) {
		u32 e = m->slots[i];

		if (!e || !memcmp(m->keys + (size_t)(e - 1) * m->key_sz, key, m->key_sz))
			return &m->slots[i];
	}
}

/* Linear probing's deletion: shift later entries of the run back into the hole. */
static void hash_unslot(struct sim_map *m, u32 *slot)
{
	u32 mask = m->nr_slots - 1, hole = (u32)(slot - m->slots), i, home;

	m->slots[hole] = 0;
	for (i = (hole + 1) & mask; m->slots[i]; i = (i + 1) & mask) {
		home = (u32)hash_bytes(m->keys + (size_t)(m->slots[i] - 1) * m->key_sz, m->key_sz) &
		       mask;
		/* can the entry at i move back to the hole? only if its home is not in (hole, i] */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && home <= hole && home > i)) {
			m->slots[hole] = m->slots[i];
			m->slots[i] = 0;
			hole = i;
		}
	}
}

/* --- LPM_TRIE ------------------------------------------------------------------- */
/* Whether the first @bits bits of @a and @b are equal. */
static bool prefix_equal(const u8 *a, const u8 *b, u32 bits)
{
	u32 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, full))
		return false;
	return !rest || !((a[full] ^ b[full]) & (u8)(0xff << (8 - rest)));
}

/* The entry of the longest rule matching @key (u32 prefix length, then data), or -1. */
static long lpm_find(struct sim_map *m, const void *key)
{
	const u8 *want = (const u8 *)key + sizeof(u32);
	u32 r, len, wlen, best = 0;
	long found = -1;

	memcpy(&wlen, key, sizeof(wlen));
	for (r = 0; r < m->nr_rules; r++) {
		u32 e = m->rules[r];
		const u8 *k = m->keys + (size_t)e * m->key_sz;

		memcpy(&len, k, sizeof(len));
		if (len > wlen || (found >= 0 && len <= best) ||
		    !prefix_equal(k + sizeof(u32), want, len))
			continue;
		best = len;
		found = e;
	}
	return found;
}

/* The entry whose key is exactly @key (rules are exact keys for updates), or -1. */
static long lpm_exact(struct sim_map *m, const void *key)
{
	u32 r;

	for (r = 0; r < m->nr_rules; r++)
		if (!memcmp(m->keys + (size_t)m->rules[r] * m->key_sz, key, m->key_sz))
			return m->rules[r];
	return -1;
}

/* --- the helpers ------------------------------------------------------------------ */
void *scxpol_sim_map_lookup(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key)
{
	struct sim_map *m = get(def, type, key_sz, val_sz, max);
	u32 idx, *slot;
	long e;

	switch (m->type) {
	case BPF_MAP_TYPE_ARRAY:
		memcpy(&idx, key, sizeof(idx));
		return idx < m->max ? m->vals + (size_t)idx * m->val_sz : NULL;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max)
			return NULL;
		return m->vals + ((size_t)sim_k.cur_cpu * m->max + idx) * m->val_sz;
	case BPF_MAP_TYPE_HASH:
		slot = hash_probe(m, key);
		return *slot ? m->vals + (size_t)(*slot - 1) * m->val_sz : NULL;
	case BPF_MAP_TYPE_LPM_TRIE:
		e = lpm_find(m, key);
		return e < 0 ? NULL : m->vals + (size_t)e * m->val_sz;
	default:
		sim_die("bpf_map_lookup_elem on a map of type %u", m->type);
	}
}

long scxpol_sim_map_update(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key,
			   const void *val, u64 flags)
{
	struct sim_map *m = get(def, type, key_sz, val_sz, max);
	u32 e, *slot = NULL;
	long found;
	void *dst;

	if (!keyed(m->type)) {
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		dst = scxpol_sim_map_lookup(def, type, key_sz, val_sz, max, key);
		if (!dst)
			return -E2BIG;
		memcpy(dst, val, m->val_sz);
		return 0;
	}
	/* (an LPM_TRIE's rules are its exact keys: userspace zero-pads them) */
	if (m->type == BPF_MAP_TYPE_HASH) {
		slot = hash_probe(m, key);
		found = *slot ? (long)*slot - 1 : -1;
	} else {
		found = lpm_exact(m, key);
	}
	if (found >= 0 && flags == BPF_NOEXIST)
		return -EEXIST;
	if (found < 0 && flags == BPF_EXIST)
		return -ENOENT;
	if (found < 0) {
		if (!m->nr_free)
			return -E2BIG;
		e = m->free_idx[--m->nr_free];
		m->used[e] = 1;
		memcpy(m->keys + (size_t)e * m->key_sz, key, m->key_sz);
		if (slot)
			*slot = e + 1;
		else
			m->rules[m->nr_rules++] = e;
		found = e;
	}
	memcpy(m->vals + (size_t)found * m->val_sz, val, m->val_sz);
	return 0;
}

long scxpol_sim_map_delete(void *def, u32 type, u32 key_sz, u32 val_sz, u32 max, const void *key)
{
	struct sim_map *m = get(def, type, key_sz, val_sz, max);
	u32 *slot, r;
	long e;

	if (!keyed(m->type))
		return -EINVAL;
	if (m->type == BPF_MAP_TYPE_HASH) {
		slot = hash_probe(m, key);
		if (!*slot)
			return -ENOENT;
		e = (long)*slot - 1;
		hash_unslot(m, slot);
	} else {
		e = lpm_exact(m, key);
		if (e < 0)
			return -ENOENT;
		for (r = 0; m->rules[r] != (u32)e; r++)
			;
		m->rules[r] = m->rules[--m->nr_rules];
	}
	m->used[e] = 0;
	memset(m->vals + (size_t)e * m->val_sz, 0, m->val_sz);
	m->free_idx[m->nr_free++] = (u32)e;
	return 0;
}

void *scxpol_sim_task_storage(void *def, u32 val_sz, struct task_struct *p, bool create)
{
	struct sim_map *m = get(def, BPF_MAP_TYPE_TASK_STORAGE, sizeof(int), val_sz, 0);
	struct stor_val *s;

	if (p->stor_gen != gen) {
		memset(p->stor, 0, sizeof(p->stor));
		p->stor_gen = gen;
	}
	if (p->stor[m->stor] || !create)
		return p->stor[m->stor];
	s = xcalloc(1, sizeof(*s) + val_sz);
	s->p = p;
	s->slot = m->stor;
	s->next = stors;
	if (stors)
		stors->prev = s;
	stors = s;
	p->stor[m->stor] = s->val;
	return s->val;
}

static void stor_unlink(struct stor_val *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		stors = s->next;
	if (s->next)
		s->next->prev = s->prev;
	free(s);
}

void sim_task_storage_free(struct task_struct *p)
{
	u32 i;

	if (p->stor_gen != gen)
		return;
	for (i = 0; i < SCXPOL_SIM_MAX_TASK_STOR; i++)
		if (p->stor[i]) {
			stor_unlink((struct stor_val *)((u8 *)p->stor[i] -
							offsetof(struct stor_val, val)));
			p->stor[i] = NULL;
		}
}

/* The kptrs in a map's values: every bpf_cpumask is freed with the kernel anyway. */
void sim_maps_free(void)
{
	u32 i;

	for (i = 0; i < nr_all; i++) {
		struct sim_map *m = all[i];

		memset(m->def, 0, sizeof(u64));
		free(m->vals);
		free(m->keys);
		free(m->used);
		free(m->slots);
		free(m->free_idx);
		free(m->rules);
		free(m);
	}
	free(all);
	all = NULL;
	nr_all = cap_all = 0;
	while (stors)
		stor_unlink(stors);
	nr_stor_slots = 0;
	nr_pending = 0;
	gen++;
}

bool sim_map_locate(void *def, const void *addr, u32 *key, void **value)
{
	struct sim_map *m = find(def);
	size_t off;

	if (!m || !m->vals || (const u8 *)addr < m->vals)
		return false;
	off = (size_t)((const u8 *)addr - m->vals);
	if (off >= (size_t)m->max * m->copies * m->val_sz)
		return false;
	*key = (u32)((off / m->val_sz) % m->max);
	*value = m->vals + off / m->val_sz * m->val_sz;
	return true;
}

u64 scxpol_sim_percpu_sum(void *def, u32 key)
{
	struct sim_map *m = find(def);
	u64 sum = 0, v;
	u32 cpu;

	if (!m)
		return 0;
	if (m->type != BPF_MAP_TYPE_PERCPU_ARRAY || m->val_sz != sizeof(u64) || key >= m->max)
		sim_die("scxpol_sim_percpu_sum wants a PERCPU_ARRAY of u64");
	for (cpu = 0; cpu < m->copies; cpu++) {
		memcpy(&v, m->vals + ((size_t)cpu * m->max + key) * m->val_sz, sizeof(v));
		sum += v;
	}
	return sum;
}
