// SPDX-License-Identifier: GPL-2.0
/*
 * hintctl: drive the hint client from tests.
 *
 *   hintctl [-P POLICY] [-R PIN_ROOT] CMD ...
 *   set tid|tgid|cgroup ID|PATH[,...] [pool=N] [class=N] [importance=N]
 *   get tid|tgid|cgroup ID|PATH        prints pool= class= importance= flags=
 *   clear tid|tgid|cgroup ID|PATH
 *   set-cgroups DIR FIELD=N...         hint every cgroup directly below DIR
 *   count                              cgroups= tgids= tids= threads=
 *   mem                                cgrp= tgid= tid= slot_idx=: the bytes
 *                                      the kernel accounts to each hash map
 *                                      (memlock in the map fd's fdinfo)
 *   prune                              removed=N
 *   raw tid|tgid ID class=N|pool=N|importance=N
 *                                      write the map directly, past the
 *                                      client's checks (as a buggy writer would),
 *                                      for the task that has the id (or none)
 *   slots SOCKET WAKEUPS IMP...        register this thread; per IMP: set it,
 *                                      sleep/wake WAKEUPS times, print the
 *                                      deltas of the policy's counters
 *   hold SECS IMP                      register, set IMP, sleep SECS
 *   race THREADS                       THREADS threads register at once
 *   exit-registered                    a thread registers and exits without
 *                                      unregistering
 *   meta                               nr_pools= nr_classes= max_importance=
 *                                      nr_slots=: the limits
 *   old-layout CGROUP TGID DEAD TID    pin the hint maps of layout 1 (before
 *                                      SCXPOL_HINT_LAYOUT 2) at PIN_ROOT, as
 *                                      an older loader left them: CGROUP
 *                                      class 1, TGID and DEAD class 2, TID
 *                                      importance 2 and registered in slot 0
 *   tamper-limits                      try to raise max_importance in the
 *                                      pinned limits every way a writer
 *                                      could (open for writing, update, mmap);
 *                                      exit 0 if every way is refused
 * Exit status 0 on success, 1 with the library's message on failure.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <scxpol/hint.h>
#include <scxpol/stats.h>

static struct scxpol_hint_client *client;

static int die(const char *what)
{
	fprintf(stderr, "hintctl: %s: %s\n", what, scxpol_last_error());
	return 1;
}

static int parse_fields(int argc, char **argv, struct scxpol_hint *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->pool = SCXPOL_HINT_POOL_NONE;
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *end;
		long v;

		if (!eq) {
			fprintf(stderr, "hintctl: '%s': want FIELD=N\n", argv[i]);
			return -1;
		}
		v = strtol(eq + 1, &end, 0);
		if (*end || end == eq + 1) {
			fprintf(stderr, "hintctl: '%s': not a number\n", argv[i]);
			return -1;
		}
		if (!strncmp(argv[i], "pool=", 5)) {
			h->pool = (int)v;
			h->flags |= SCXPOL_HINT_F_POOL;
		} else if (!strncmp(argv[i], "class=", 6)) {
			h->class_id = (unsigned int)v;
			h->flags |= SCXPOL_HINT_F_CLASS;
		} else if (!strncmp(argv[i], "importance=", 11)) {
			h->importance = (unsigned int)v;
			h->flags |= SCXPOL_HINT_F_IMPORTANCE;
		} else {
			fprintf(stderr, "hintctl: unknown field '%s'\n", argv[i]);
			return -1;
		}
	}
	return 0;
}

/* set/get/clear on tid|tgid|cgroup TARGET (a cgroup by id or by path) */
static int target_op1(const char *op, const char *kind_name, const char *target,
		      struct scxpol_hint *h)
{
	enum scxpol_hint_kind kind;
	char what[4200];
	uint64_t id;
	int r;

	if (!strcmp(kind_name, "tid")) {
		kind = SCXPOL_HINT_TID;
	} else if (!strcmp(kind_name, "tgid")) {
		kind = SCXPOL_HINT_TGID;
	} else if (!strcmp(kind_name, "cgroup")) {
		kind = SCXPOL_HINT_CGROUP;
	} else {
		fprintf(stderr, "hintctl: want tid, tgid or cgroup, not '%s'\n", kind_name);
		return 2;
	}
	snprintf(what, sizeof(what), "%s", op);
	if (kind == SCXPOL_HINT_CGROUP && target[0] == '/') {
		if (scxpol_hint_cgroup_id(target, &id))
			return die(op);
		snprintf(what, sizeof(what), "%s: cgroup %s", op, target);
	} else {
		/* negative ids on purpose: the library must refuse them */
		id = (uint64_t)strtoll(target, NULL, 0);
	}
	r = !strcmp(op, "set") ? scxpol_hint_set(client, kind, id, h)
	    : !strcmp(op, "get") ? scxpol_hint_get(client, kind, id, h)
				 : scxpol_hint_clear(client, kind, id);
	if (r)
		return die(what);
	if (!strcmp(op, "get"))
		printf("pool=%d class=%u importance=%u flags=%u\n", h->pool, h->class_id, h->importance,
		       h->flags);
	return 0;
}

/* TARGETS may be a comma-separated list: one process for many hints */
static int target_op(const char *op, const char *kind, char *targets, struct scxpol_hint *h)
{
	char *save = NULL, *t;
	int r;

	for (t = strtok_r(targets, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		r = target_op1(op, kind, t, h);
		if (r)
			return r;
	}
	return 0;
}

static int set_cgroups(const char *dir, struct scxpol_hint *h)
{
	char path[4400];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);
	uint64_t id;

	if (!d) {
		fprintf(stderr, "hintctl: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (scxpol_hint_cgroup_id(path, &id) ||
		    scxpol_hint_set(client, SCXPOL_HINT_CGROUP, id, h)) {
			closedir(d);
			return die(path);
		}
		n++;
	}
	closedir(d);
	printf("set=%u\n", n);
	return 0;
}

/* The identity a hint for task @id names (<scxpol/abi/hint.h>); 0 if it is gone. */
static __u64 pid_ino(const char *kind, __u32 id)
{
	int fd = (int)syscall(SYS_pidfd_open, id, strcmp(kind, "tid") ? 0 : O_EXCL /* PIDFD_THREAD */);
	struct stat st;
	__u64 ino = 0;

	if (fd >= 0 && !fstat(fd, &st))
		ino = st.st_ino;
	if (fd >= 0)
		close(fd);
	return ino;
}

/* Write a task hint straight into the pinned map, for the task that has the id, bumping nothing. */
static int raw(const char *root, const char *kind, const char *id, struct scxpol_hint *h)
{
	char path[4200];
	__u32 key = (__u32)strtoul(id, NULL, 0);
	struct scxpol_hint_task t = { .hint = *h, .pid_ino = pid_ino(kind, key) };
	int fd;

	snprintf(path, sizeof(path), "%s/scxpol_hint_%s", root, kind);
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_update_elem(fd, &key, &t, BPF_ANY)) {
		fprintf(stderr, "hintctl: raw %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Map @name of layout 1 pinned under @root, with @n entries of @value bytes. */
static int old_map(const char *root, const char *name, enum bpf_map_type type, __u32 key,
		   __u32 value, __u32 n, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);
	char path[4200];
	int fd = bpf_map_create(type, name + 7, key, value, n, &o);

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (fd < 0 || bpf_obj_pin(fd, path)) {
		fprintf(stderr, "hintctl: old-layout %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

/* The maps of hint layout 1 (their sizes the defaults of hint.bpf.h), with entries. */
static int old_layout(const char *root, char **argv)
{
	struct scxpol_hint h = { .pool = SCXPOL_HINT_POOL_NONE, .class_id = 1,
				 .flags = SCXPOL_HINT_F_CLASS };
	__u32 tgid = (__u32)atoi(argv[1]), dead = (__u32)atoi(argv[2]), tid = (__u32)atoi(argv[3]);
	__u32 slot[4] = { tid, 2, 1, 0 }, zero = 0, meta[6] = { 5, 0, 9, 99, 99, 1024 };
	struct stat st;
	__u64 cgid;
	int fd, r = 0;

	if (stat(argv[0], &st) || ((mkdir("/sys/fs/bpf/scxpol", 0711) && errno != EEXIST) ||
				   (mkdir(root, 0700) && errno != EEXIST))) {
		fprintf(stderr, "hintctl: old-layout: %s\n", strerror(errno));
		return 1;
	}
	cgid = st.st_ino;
	fd = old_map(root, "scxpol_hint_cgrp", BPF_MAP_TYPE_HASH, 8, 16, 16384, BPF_F_NO_PREALLOC);
	r |= bpf_map_update_elem(fd, &cgid, &h, BPF_ANY);
	fd = old_map(root, "scxpol_hint_tgid", BPF_MAP_TYPE_HASH, 4, 16, 16384, BPF_F_NO_PREALLOC);
	h.class_id = 2;
	r |= bpf_map_update_elem(fd, &tgid, &h, BPF_ANY);
	r |= bpf_map_update_elem(fd, &dead, &h, BPF_ANY);
	fd = old_map(root, "scxpol_hint_tid", BPF_MAP_TYPE_HASH, 4, 16, 65536, BPF_F_NO_PREALLOC);
	h = (struct scxpol_hint){ .pool = SCXPOL_HINT_POOL_NONE, .importance = 2,
				  .flags = SCXPOL_HINT_F_IMPORTANCE };
	r |= bpf_map_update_elem(fd, &tid, &h, BPF_ANY);
	fd = old_map(root, "scxpol_hint_slots", BPF_MAP_TYPE_ARRAY, 4, 16, 1024, BPF_F_MMAPABLE);
	r |= bpf_map_update_elem(fd, &zero, slot, BPF_ANY);
	fd = old_map(root, "scxpol_hint_slot_idx", BPF_MAP_TYPE_HASH, 4, 4, 1024, BPF_F_NO_PREALLOC);
	r |= bpf_map_update_elem(fd, &tid, &zero, BPF_ANY);
	/* the generation (a __u64), then the limits */
	fd = old_map(root, "scxpol_hint_meta", BPF_MAP_TYPE_ARRAY, 4, 24, 1, BPF_F_MMAPABLE);
	r |= bpf_map_update_elem(fd, &zero, meta, BPF_ANY);
	if (r)
		fprintf(stderr, "hintctl: old-layout: an update failed\n");
	return !!r;
}

/* One way into the limits: "<what>: refused (<errno>)", or a count of the ways let through. */
static int refused(const char *what, bool failed)
{
	if (failed) {
		printf("%s: refused (%s)\n", what, strerror(errno));
		return 0;
	}
	printf("%s: ALLOWED\n", what);
	return 1;
}

/* What a hint writer could try to raise the limits with (max_importance 1000000). */
static int tamper(const char *root)
{
	LIBBPF_OPTS(bpf_obj_get_opts, ro, .file_flags = BPF_F_RDONLY);
	struct scxpol_hint_meta m;
	char path[4200];
	int fd, allowed = 0;
	void *p;

	snprintf(path, sizeof(path), "%s/scxpol_hint_meta", root);
	fd = bpf_obj_get(path);
	allowed += refused("open for writing", fd < 0);
	if (fd < 0)
		fd = bpf_obj_get_opts(path, &ro);
	if (fd < 0 || bpf_map_lookup_elem(fd, &(__u32){ 0 }, &m)) {
		fprintf(stderr, "hintctl: tamper-limits: cannot read %s: %s\n", path, strerror(errno));
		return 2;
	}
	m.max_importance = 1000000;
	allowed += refused("update", bpf_map_update_elem(fd, &(__u32){ 0 }, &m, BPF_ANY) != 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	allowed += refused("mmap for writing", p == MAP_FAILED);
	if (p != MAP_FAILED) {
		/* the old layout: gen (8 bytes) then nr_pools, nr_classes, max_importance */
		((__u32 *)p)[4] = 1000000;
		munmap(p, 4096);
	}
	close(fd);
	return allowed ? 1 : 0;
}

/* The memlock figure of each hint hash map pinned under @root. */
static int mem(const char *root)
{
	static const char *const maps[] = { "cgrp", "tgid", "tid", "slot_idx" };
	char path[4200], buf[1024], *p;
	unsigned int i;
	FILE *f;
	int fd;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/scxpol_hint_%s", root, maps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			fprintf(stderr, "hintctl: mem: %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		f = fopen(path, "r");
		p = NULL;
		while (f && fgets(buf, sizeof(buf), f) && !(p = strncmp(buf, "memlock:", 8) ? NULL : buf))
			;
		if (f)
			fclose(f);
		close(fd);
		if (!p) {
			fprintf(stderr, "hintctl: mem: no memlock in %s\n", path);
			return 1;
		}
		printf("%s%s=%llu", i ? " " : "", maps[i], strtoull(p + 8, NULL, 10));
	}
	printf("\n");
	return 0;
}

static uint64_t counter(const struct scxpol_stats *st, const char *name)
{
	const struct scxpol_stat_value *v = scxpol_stats_find(st, name);

	return v ? v->value : 0;
}

static int slots(const char *sock, int wakeups, int argc, char **argv)
{
	struct scxpol_stats a = SCXPOL_STATS_INIT, b = SCXPOL_STATS_INIT;
	struct scxpol_hint_thread *t;
	struct timespec ts = { .tv_nsec = 1000000 };
	int i, j;

	t = scxpol_hint_thread_register(client);
	if (!t)
		return die("register");
	for (i = 0; i < argc; i++) {
		unsigned int imp = (unsigned int)strtoul(argv[i], NULL, 0);

		scxpol_hint_thread_set_importance(t, imp);
		if (scxpol_stats_fetch(sock, &a))
			return die("fetch");
		for (j = 0; j < wakeups; j++)
			nanosleep(&ts, NULL);
		if (scxpol_stats_fetch(sock, &b))
			return die("fetch");
		printf("importance=%u important=%llu importance_sum=%llu hint_reject=%llu\n", imp,
		       (unsigned long long)(counter(&b, "important") - counter(&a, "important")),
		       (unsigned long long)(counter(&b, "importance_sum") -
					    counter(&a, "importance_sum")),
		       (unsigned long long)(counter(&b, "hint_reject") - counter(&a, "hint_reject")));
		fflush(stdout);
	}
	if (scxpol_hint_thread_unregister(t))
		return die("unregister");
	return 0;
}

struct race_arg {
	pthread_barrier_t *start, *done;
	struct scxpol_hint_thread *t;
	volatile int tried;
};

static void *race_thread(void *p)
{
	struct race_arg *a = p;

	pthread_barrier_wait(a->start);
	a->t = scxpol_hint_thread_register(client);
	if (!a->t)
		fprintf(stderr, "hintctl: register: %s\n", scxpol_last_error());
	a->tried = 1;
	/* alive until counted and unregistered: a dead thread's slot is freed */
	pthread_barrier_wait(a->done);
	return NULL;
}

static int race(int n)
{
	struct race_arg *a = calloc((size_t)n, sizeof(*a));
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	pthread_barrier_t start, done;
	struct scxpol_hint_counts cnt;
	int i, ok = 0, fails = 0, tried;

	pthread_barrier_init(&start, NULL, (unsigned int)n);
	pthread_barrier_init(&done, NULL, (unsigned int)n + 1);
	for (i = 0; i < n; i++) {
		a[i].start = &start;
		a[i].done = &done;
		pthread_create(&th[i], NULL, race_thread, &a[i]);
	}
	do {
		usleep(10000);
		for (i = 0, tried = 0; i < n; i++)
			tried += a[i].tried;
	} while (tried < n);
	if (scxpol_hint_count(client, &cnt))
		return die("count");
	for (i = 0; i < n; i++)
		ok += a[i].t != NULL;
	printf("registered=%d threads=%u\n", ok, cnt.threads);
	for (i = 0; i < n; i++)
		if (a[i].t && scxpol_hint_thread_unregister(a[i].t))
			fails++;
	printf("unregister_failures=%d\n", fails);
	pthread_barrier_wait(&done);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(a);
	free(th);
	return 0;
}

/* Registers and exits without unregistering, as a crashing thread would. */
static void *exit_thread(void *p)
{
	struct scxpol_hint_thread *t = scxpol_hint_thread_register(client);

	(void)p;
	if (!t)
		fprintf(stderr, "hintctl: register: %s\n", scxpol_last_error());
	return t;
}

int main(int argc, char **argv)
{
	SCXPOL_OPTS(scxpol_hint_client_opts, co);
	const char *policy = "hintpol", *root = NULL;
	char rootbuf[4096];
	struct scxpol_hint h;
	unsigned int n;
	int c, r;

	scxpol_log_set(NULL, SCXPOL_LOG_ERROR, NULL);
	while ((c = getopt(argc, argv, "+P:R:")) != -1) {
		if (c == 'P')
			policy = optarg;
		else if (c == 'R')
			root = optarg;
		else
			return 2;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fprintf(stderr, "usage: hintctl [-P POLICY] [-R PIN_ROOT] CMD ...\n");
		return 2;
	}
	snprintf(rootbuf, sizeof(rootbuf), "%s", root ? root : "");
	if (!root)
		snprintf(rootbuf, sizeof(rootbuf), "/sys/fs/bpf/scxpol/%s", policy);
	if (!strcmp(argv[0], "raw")) {
		if (argc < 4 || parse_fields(argc - 3, argv + 3, &h))
			return 2;
		return raw(rootbuf, argv[1], argv[2], &h);
	}
	if (!strcmp(argv[0], "mem"))
		return mem(rootbuf);
	if (!strcmp(argv[0], "old-layout") && argc == 5)
		return old_layout(rootbuf, argv + 1);
	if (!strcmp(argv[0], "tamper-limits"))
		return tamper(rootbuf);
	co.pin_root = root;
	client = scxpol_hint_client_open(policy, &co);
	if (!client)
		return die("open");
	if ((!strcmp(argv[0], "set") || !strcmp(argv[0], "get") || !strcmp(argv[0], "clear")) &&
	    argc >= 3) {
		if (parse_fields(argc - 3, argv + 3, &h))
			return 2;
		r = target_op(argv[0], argv[1], argv[2], &h);
	} else if (!strcmp(argv[0], "set-cgroups") && argc >= 3) {
		if (parse_fields(argc - 2, argv + 2, &h))
			return 2;
		r = set_cgroups(argv[1], &h);
	} else if (!strcmp(argv[0], "count")) {
		struct scxpol_hint_counts cnt;

		r = scxpol_hint_count(client, &cnt) ? die("count") : 0;
		if (!r)
			printf("cgroups=%u tgids=%u tids=%u threads=%u\n", cnt.cgroups, cnt.tgids,
			       cnt.tids, cnt.threads);
	} else if (!strcmp(argv[0], "meta")) {
		struct scxpol_hint_meta m;

		r = scxpol_hint_get_meta(client, &m) ? die("meta") : 0;
		if (!r)
			printf("nr_pools=%u nr_classes=%u max_importance=%u nr_slots=%u\n", m.nr_pools,
			       m.nr_classes, m.max_importance, m.nr_slots);
	} else if (!strcmp(argv[0], "prune")) {
		r = scxpol_hint_prune(client, &n) ? die("prune") : 0;
		if (!r)
			printf("removed=%u\n", n);
	} else if (!strcmp(argv[0], "slots") && argc >= 4) {
		r = slots(argv[1], atoi(argv[2]), argc - 3, argv + 3);
	} else if (!strcmp(argv[0], "hold") && argc == 3) {
		struct scxpol_hint_thread *t = scxpol_hint_thread_register(client);

		if (!t)
			return die("register");
		scxpol_hint_thread_set_importance(t, (unsigned int)strtoul(argv[2], NULL, 0));
		printf("registered tid=%d\n", gettid());
		fflush(stdout);
		sleep((unsigned int)atoi(argv[1]));
		r = scxpol_hint_thread_unregister(t) ? die("unregister") : 0;
	} else if (!strcmp(argv[0], "race") && argc == 2) {
		r = race(atoi(argv[1]));
	} else if (!strcmp(argv[0], "exit-registered")) {
		pthread_t th;
		void *t;

		pthread_create(&th, NULL, exit_thread, NULL);
		pthread_join(th, &t);
		r = t ? 0 : 1;
		/* the handle only: the slot is left for the policy to free */
		free(t);
	} else {
		fprintf(stderr, "hintctl: unknown command or arguments: %s\n", argv[0]);
		r = 2;
	}
	scxpol_hint_client_close(client);
	return r;
}
