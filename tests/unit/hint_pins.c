// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The hint maps as a policy pins them, and the helpers the hint tests share. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxpol/abi/hint.h>
#include <scxpol/common.h>
#include <scxpol/hint.h>

#include "hint_pins.h"
#include "pidfd_native.h"

char hint_mnt[128], hint_root[192];
bool hint_mounted;

const struct hint_pin_map hint_pin_maps[NR_HINT_PIN_MAPS] = {
	{ "scxpol_hint_cgrp", BPF_MAP_TYPE_HASH, 8, 16, 64, BPF_F_NO_PREALLOC },
	{ "scxpol_hint_tgid", BPF_MAP_TYPE_HASH, 4, 24, 64, BPF_F_NO_PREALLOC },
	{ "scxpol_hint_tid", BPF_MAP_TYPE_HASH, 4, 24, 64, BPF_F_NO_PREALLOC },
	{ "scxpol_hint_slots", BPF_MAP_TYPE_ARRAY, 4, 24, NR_SLOTS, BPF_F_MMAPABLE },
	{ "scxpol_hint_slot_idx", BPF_MAP_TYPE_HASH, 4, 4, NR_SLOTS, BPF_F_NO_PREALLOC },
	{ "scxpol_hint_gen", BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_MMAPABLE },
	{ "scxpol_hint_meta", BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG },
};

void make_pins(const char *dir, const char *skip, const char *bad, const char *max1)
{
	struct scxpol_hint_meta m = { .nr_pools = HINT_PINS_NR_POOLS, .nr_classes = 3,
				      .max_importance = 7, .nr_slots = NR_SLOTS };
	__u64 gen = 1;
	char path[512];
	size_t i;

	assert_int_equal(mkdir(dir, 0700), 0);
	for (i = 0; i < NR_HINT_PIN_MAPS; i++) {
		const struct hint_pin_map *p = &hint_pin_maps[i];
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = p->flags);
		__u32 value = bad && !strcmp(bad, p->name) ? 8 : p->value;
		__u32 max = max1 && !strcmp(max1, p->name) ? 1 : p->max;
		int fd;

		if (skip && !strcmp(skip, p->name))
			continue;
		fd = bpf_map_create(p->type, "hint_test", p->key, value, max, &o);
		assert_true(fd >= 0);
		if (!strcmp(p->name, "scxpol_hint_meta"))
			assert_int_equal(bpf_map_update_elem(fd, &(__u32){ 0 }, &m, BPF_ANY), 0);
		if (!strcmp(p->name, "scxpol_hint_gen"))
			assert_int_equal(bpf_map_update_elem(fd, &(__u32){ 0 }, &gen, BPF_ANY), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, p->name);
		assert_int_equal(bpf_obj_pin(fd, path), 0);
		close(fd);
	}
}

int make_pin(const char *dir, const char *name, __u32 value, __u32 flags)
{
	char path[512];
	size_t i;
	int fd;

	for (i = 0; i < NR_HINT_PIN_MAPS && strcmp(hint_pin_maps[i].name, name); i++)
		;
	assert_true(i < NR_HINT_PIN_MAPS);
	{
		const struct hint_pin_map *p = &hint_pin_maps[i];
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

		fd = bpf_map_create(p->type, "hint_test", p->key, value ? value : p->value, p->max,
				    &o);
	}
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(bpf_obj_pin(fd, path), 0);
	return fd;
}

void make_old_pins(const char *dir, __u32 tgid, __u32 dead, __u32 tid)
{
	struct scxpol_hint h = { .pool = SCXPOL_HINT_POOL_NONE, .class_id = 1,
				 .flags = SCXPOL_HINT_F_CLASS };
	__u32 slot[4] = { tid, 1, 1, 0 }, idx = 2;
	__u64 cgid = 42;
	int fd;

	assert_int_equal(mkdir(dir, 0700), 0);
	fd = make_pin(dir, "scxpol_hint_cgrp", 0, BPF_F_NO_PREALLOC);
	assert_int_equal(bpf_map_update_elem(fd, &cgid, &h, BPF_ANY), 0);
	close(fd);
	fd = make_pin(dir, "scxpol_hint_tgid", sizeof(h), BPF_F_NO_PREALLOC);
	assert_int_equal(bpf_map_update_elem(fd, &tgid, &h, BPF_ANY), 0);
	h.class_id = 2;
	assert_int_equal(bpf_map_update_elem(fd, &dead, &h, BPF_ANY), 0);
	close(fd);
	fd = make_pin(dir, "scxpol_hint_tid", sizeof(h), BPF_F_NO_PREALLOC);
	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .importance = 1,
				  .flags = SCXPOL_HINT_F_IMPORTANCE };
	assert_int_equal(bpf_map_update_elem(fd, &tid, &h, BPF_ANY), 0);
	close(fd);
	fd = make_pin(dir, "scxpol_hint_slots", sizeof(slot), BPF_F_MMAPABLE);
	assert_int_equal(bpf_map_update_elem(fd, &idx, slot, BPF_ANY), 0);
	close(fd);
	fd = make_pin(dir, "scxpol_hint_slot_idx", 0, BPF_F_NO_PREALLOC);
	assert_int_equal(bpf_map_update_elem(fd, &tid, &idx, BPF_ANY), 0);
	close(fd);
	/* the generation (8 bytes), then the limits */
	close(make_pin(dir, "scxpol_hint_meta", 24, BPF_F_MMAPABLE));
}

static void quiet(enum scxpol_log_level l, const char *m, void *c)
{
	(void)l;
	(void)m;
	(void)c;
}

int hint_pins_setup(void **state)
{
	(void)state;
	scxpol_log_set(quiet, SCXPOL_LOG_DEBUG, NULL);
	snprintf(hint_mnt, sizeof(hint_mnt), "/tmp/scxpol-hint-test.XXXXXX");
	assert_non_null(mkdtemp(hint_mnt));
	hint_mounted = !mount("bpf", hint_mnt, "bpf", 0, "mode=0711");
	if (!hint_mounted)
		return 0;
	snprintf(hint_root, sizeof(hint_root), "%s/t", hint_mnt);
	make_pins(hint_root, NULL, NULL, NULL);
	return 0;
}

int hint_pins_teardown(void **state)
{
	(void)state;
	pidfd_native_fail = 0; /* a test failed with pidfd_open() refused fails no other */
	if (hint_mounted)
		umount(hint_mnt);
	rmdir(hint_mnt);
	return 0;
}

pid_t spawn_paused(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		/* gone with the test, whatever assertion ends it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	return pid;
}

void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

struct scxpol_hint_client *open_at(const char *dir)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, o, .pin_root = dir);

	return scxpol_hint_client_open("t", &o);
}

struct scxpol_hint_client *open_client(void)
{
	struct scxpol_hint_client *c;

	if (!hint_mounted)
		skip();
	c = open_at(hint_root);
	assert_non_null(c);
	return c;
}

int pin(const char *map)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", hint_root, map);
	fd = bpf_obj_get(path);
	assert_true(fd >= 0);
	return fd;
}

__u64 gen(struct scxpol_hint_client *c)
{
	__u64 g;
	int fd;

	(void)c;
	fd = pin("scxpol_hint_gen");
	assert_int_equal(bpf_map_lookup_elem(fd, &(__u32){ 0 }, &g), 0);
	close(fd);
	return g;
}

void share_pins(void)
{
	char path[512];
	size_t i;

	assert_int_equal(chown(hint_root, (uid_t)-1, 4242), 0);
	assert_int_equal(chmod(hint_root, 0710), 0);
	for (i = 0; i < NR_HINT_PIN_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", hint_root, hint_pin_maps[i].name);
		assert_int_equal(chown(path, (uid_t)-1, 4242), 0);
		assert_int_equal(chmod(path, hint_pin_maps[i].flags & BPF_F_RDONLY_PROG ? 0640 : 0660),
				 0);
	}
}

void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->tid = gettid();
	pthread_barrier_wait(&w->b);
	pthread_barrier_wait(&w->b);
	return NULL;
}

void cgroup2_mount(char *buf, size_t len)
{
	char line[1024], r[512], m[512];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	buf[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " - cgroup2 ") &&
		    sscanf(line, "%*s %*s %*s %511s %511s", r, m) == 2 && !strcmp(r, "/")) {
			snprintf(buf, len, "%s", m);
			break;
		}
	fclose(f);
}

uint64_t cgid(const char *path)
{
	uint64_t id = 0;

	assert_int_equal(scxpol_hint_cgroup_id(path, &id), 0);
	return id;
}
