/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The hint maps as a policy pins them (<scxpol/abi/hint.h>), made on the
 * host for tests of hint clients and of the policy side: needs root and a
 * bpffs mount (hint_pins_setup() makes one). And what the hint tests share
 * besides: clients of those pins, threads and children to name, the cgroup2
 * mount.
 */
#ifndef HINT_PINS_H
#define HINT_PINS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <bpf/bpf.h>

#include <scxpol/hint.h>

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

/*
 * cmocka fixture: hint_pins_setup() silences the log, mounts a private bpffs
 * on a new directory hint_mnt and make_pins() in hint_root (hint_mnt/t);
 * hint_mounted is false if it cannot (not root: the test should skip).
 * hint_pins_teardown() unmounts and removes it, and resets pidfd_native_fail.
 */
extern char hint_mnt[128], hint_root[192];
extern bool hint_mounted;
int hint_pins_setup(void **state);
int hint_pins_teardown(void **state);
#define hint_pins_test(f) cmocka_unit_test_setup_teardown(f, hint_pins_setup, hint_pins_teardown)

/* Assert that @call returns -@err, with scxpol_last_error() as printf(...) makes it. */
#define expect_err(call, err, ...)                                        \
	do {                                                              \
		char err_[1024];                                          \
		assert_int_equal((call), -(err));                         \
		snprintf(err_, sizeof(err_), __VA_ARGS__);                \
		assert_string_equal(scxpol_last_error(), err_);           \
	} while (0)

/* A child that waits to be killed (and dies with this process); its pid. */
pid_t spawn_paused(void);
/* Kill and reap child @pid. */
void reap(pid_t pid);

/* A client of the pins under @dir, for policy 't'; NULL as the open fails. */
struct scxpol_hint_client *open_at(const char *dir);
/* A client of the pins under hint_root; skips the test without the bpffs mount. */
struct scxpol_hint_client *open_client(void);
/* A pin of the hint maps under hint_root, opened. */
int pin(const char *map);
/* The generation writers bump, in the pins @c opened (those under hint_root). */
__u64 gen(struct scxpol_hint_client *c);

/*
 * The pins as pin_gid 4242 and pin_mode 0660 leave them: the limits, which
 * the programs only read (BPF_F_RDONLY_PROG), 0640.
 */
void share_pins(void);

struct waiter {
	pthread_barrier_t b;
	pid_t tid;
};

/* A thread that lives between two barriers; its tid in w->tid. */
void *wait_thread(void *arg);

/* The cgroup2 mount point, or "" if there is none. */
void cgroup2_mount(char *buf, size_t len);

/* The id of cgroup2 directory @path (the test fails if it has none). */
uint64_t cgid(const char *path);

#endif
