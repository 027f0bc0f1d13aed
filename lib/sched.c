// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Scheduler lifecycle: open/load/attach/run/detach/restart of a policy. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "internal.h"
#include "scxpol/cpuset.h"
#include "scxpol/match.h"
#include "scxpol/abi/sched.h"
#include "scxpol/sched.h"
#include "scxpol/skel.h"
#include "scxpol/topology.h"

#define EXIT_MAP "scxpol_exit"
#define HOTPLUG_MAP "scxpol_hotplug"
#define EXIT_KIND_UNREG 64 /* SCX_EXIT_UNREG: the loader's own detach */
#define PIN_BASE SCXPOL_PIN_BASE

struct scxpol_sched {
	struct scxpol_sched_opts opts;
	void *skel;
	struct bpf_object *obj;
	struct bpf_map *ops_map;
	struct bpf_link *ops_link;
	struct bpf_link **links;
	size_t nr_links;
	bool loaded;
	/*
	 * A step after the BPF load failed (pin permissions, an extension, the
	 * loaded hook): the object is loaded but not set up. Its error and
	 * message, returned again by later loads and attaches.
	 */
	int load_err;
	char load_msg[512];
	char name[128];
	char pin_root[PATH_MAX];
	char sysfs_root[PATH_MAX];
	char btf_path[PATH_MAX];
	struct scxpol_sched_exit_record exit;
	bool have_exit;
	unsigned int restarts;
	/* scxpol_sched_set_timeout()'s, 0: none; what the object had before it */
	unsigned int timeout_ms, timeout_bpf;
	/* the last run ended on a restart no_restart refused: what asked for it */
	bool restart_refused;
	char refused_why[SCXPOL_EXIT_MSG_LEN + 64];
	/* this run has warned of a failed hint prune */
	bool prune_warned;
	/* the hotplug record's events when the policy was last attached */
	__u64 hotplug_seen;
	volatile sig_atomic_t stop;
	/* the first signal that set stop and its sender, logged by the run loop
	 * (lock-free atomics: the handler may run on another thread) */
	atomic_int stop_sig, stop_pid;
	int wake_fd[2];
	/* held while the object is freed or marked loaded (other threads read it) */
	pthread_mutex_t obj_lock;
	struct {
		scxpol_sched_ext_fn fn;
		void *data;
	} ext[SCXPOL_SCHED_EXT_NR];
	/* where scxpol_sched_print_prog_stats() printed: run counts go there at detach */
	FILE *prog_stats_f;
	struct scxpol_match_cgroups match_cgroups;
	struct scxpol_pool_planned planned;
};

static const char *const exit_kind_names[][2] = {
	{ "0", "NONE" },	  { "1", "DONE" },	   { "64", "UNREG" },
	{ "65", "UNREG_BPF" },	  { "66", "UNREG_KERN" },  { "67", "SYSRQ" },
	{ "68", "PARENT" },	  { "1024", "ERROR" },	   { "1025", "ERROR_BPF" },
	{ "1026", "ERROR_STALL" },
};

const char *scxpol_sched_exit_kind_name(int kind)
{
	char num[16];
	size_t i;

	snprintf(num, sizeof(num), "%d", kind);
	for (i = 0; i < ARRAY_SIZE(exit_kind_names); i++)
		if (!strcmp(exit_kind_names[i][0], num))
			return exit_kind_names[i][1];
	return kind >= 1024 ? "ERROR(unknown)" : "UNKNOWN";
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const enum scxpol_log_level map[] = {
		[LIBBPF_WARN] = SCXPOL_LOG_WARN,
		[LIBBPF_INFO] = SCXPOL_LOG_INFO,
		[LIBBPF_DEBUG] = SCXPOL_LOG_DEBUG,
	};
	char buf[2048], *msg, *line, *next;

	/* a verifier log comes whole, in one call: keep all of it, one line per message */
	msg = scxpol_vfmt(buf, sizeof(buf), fmt, ap);
	/* libbpf starts its own messages with "libbpf: ", not a verifier log's lines */
	line = strncmp(msg, "libbpf: ", 8) ? msg : msg + 8;
	for (; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		scxpol_log(map[level], "libbpf: %s", line);
	}
	if (msg != buf)
		free(msg);
	return 0;
}

int scxpol_sched_state(const char *sysfs_root, char *state, size_t state_len, char *ops,
		       size_t ops_len)
{
	SCXPOL_NONNULL(state, "state buffer");
	char dir[PATH_MAX];
	struct stat st;
	int r;

	snprintf(dir, sizeof(dir), "%s/sys/kernel/sched_ext", sysfs_root ? sysfs_root : "");
	if (stat(dir, &st))
		return scxpol_err(EOPNOTSUPP,
				  "this kernel has no sched_ext (%s is missing; it needs "
				  "CONFIG_SCHED_CLASS_EXT=y, Linux 6.12 or later)", dir);
	r = scxpol_read_file(sysfs_root, "/sys/kernel/sched_ext/state", state, state_len);
	if (r < 0)
		return scxpol_err(-r, "cannot read %s/state: %s", dir, strerror(-r));
	if (ops && ops_len) {
		r = scxpol_read_file(sysfs_root, "/sys/kernel/sched_ext/root/ops", ops, ops_len);
		if (r < 0)
			ops[0] = '\0';
	}
	return 0;
}

/* Find the struct_ops map: the named one, or the only one. */
static int find_ops_map(struct scxpol_sched *s)
{
	const char *want = s->opts.ops_map;
	struct bpf_map *map, *found = NULL;
	int n = 0;

	bpf_object__for_each_map(map, s->obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (want ? !strcmp(bpf_map__name(map), want) : !n)
			found = map;
		n++;
	}
	if (want && !found)
		return scxpol_err(ENOENT, "struct_ops map '%s' not found in the BPF object", want);
	if (!n)
		return scxpol_err(ENOENT, "the BPF object has no struct_ops map (SEC(\".struct_ops.link\"))");
	if (!want && n > 1)
		return scxpol_err(EINVAL, "the BPF object has %d struct_ops maps; set opts.ops_map", n);
	s->ops_map = found;
	return 0;
}

/*
 * Pointer to member @field of the struct_ops map's data, laid out as the
 * BPF object's BTF (the policy's vmlinux.h) says.
 */
static void *ops_field(struct scxpol_sched *s, const char *field, size_t *size)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	const struct btf_type *t;
	const struct btf_member *m;
	size_t data_sz;
	char *data;
	int i;

	data = bpf_map__initial_value(s->ops_map, &data_sz);
	t = btf__type_by_id(btf, bpf_map__btf_value_type_id(s->ops_map));
	if (!data || !t || !btf_is_struct(t))
		return NULL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt;
		__s64 msz;

		if (strcmp(btf__name_by_offset(btf, m->name_off), field))
			continue;
		mt = btf__type_by_id(btf, m->type);
		msz = btf__resolve_size(btf, m->type);
		if (!mt || msz <= 0 || btf_member_bit_offset(t, i) / 8 + (size_t)msz > data_sz)
			return NULL;
		if (size)
			*size = (size_t)msz;
		return data + btf_member_bit_offset(t, i) / 8;
	}
	return NULL;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static unsigned int pin_mode(const struct scxpol_sched *s)
{
	return s->opts.pin_mode ? s->opts.pin_mode : 0600;
}

/* Point every map pinned BY_NAME at <pin_root>/<map name>. */
static int setup_pins(struct scxpol_sched *s)
{
	struct bpf_map *map;
	char path[PATH_MAX];
	int r;

	bpf_object__for_each_map(map, s->obj) {
		if (!bpf_map__pin_path(map))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", s->pin_root, bpf_map__name(map)) >=
		    (int)sizeof(path))
			return scxpol_err(ENAMETOOLONG, "pin path too long: %s", s->pin_root);
		r = bpf_map__set_pin_path(map, path);
		if (r)
			return scxpol_err(-r, "cannot set pin path %s: %s", path, strerror(-r));
	}
	return 0;
}

unsigned int scxpol_pin_dir_mode(unsigned int mode)
{
	/*
	 * The owner may do anything; group and other only search (x) where the
	 * files grant them access: write permission on the directory would let
	 * them unlink or replace the pinned maps, read would let them list it.
	 */
	return 0700 | ((mode & 070) ? 010 : 0) | ((mode & 07) ? 01 : 0);
}

/*
 * After load: apply mode and group to the pin directory and files. A map
 * the programs may only read (BPF_F_RDONLY_PROG: limits, configuration)
 * is the loader's to write: its pin gets no write access for group and
 * others, who may read it.
 */
static int fix_pin_perms(struct scxpol_sched *s)
{
	unsigned int mode = pin_mode(s), fmode;
	unsigned int dmode = scxpol_pin_dir_mode(mode);
	/* always set: a group an earlier run gave the reused pins is taken back */
	gid_t gid = s->opts.pin_gid > 0 ? (gid_t)s->opts.pin_gid : getegid();
	struct bpf_map *map;
	bool any = false;

	bpf_object__for_each_map(map, s->obj) {
		const char *path = bpf_map__pin_path(map);

		if (!path || !bpf_map__is_pinned(map))
			continue;
		any = true;
		fmode = bpf_map__map_flags(map) & BPF_F_RDONLY_PROG ? mode & ~022U : mode;
		if (chmod(path, fmode))
			return scxpol_err(errno, "chmod %o %s: %s", fmode, path, strerror(errno));
		if (chown(path, (uid_t)-1, gid))
			return scxpol_err(errno, "chown :%u %s: %s", gid, path, strerror(errno));
	}
	if (!any)
		return 0;
	if (chmod(s->pin_root, dmode))
		return scxpol_err(errno, "chmod %o %s: %s", dmode, s->pin_root, strerror(errno));
	if (chown(s->pin_root, (uid_t)-1, gid))
		return scxpol_err(errno, "chown :%u %s: %s", gid, s->pin_root, strerror(errno));
	return 0;
}

/*
 * A hook's failure @r as a negative errno (a positive one is -EINVAL), with
 * a message naming the hook when the hook set none: an application's hook
 * may fail without a library call that would have said why.
 */
static int hook_failed(const struct scxpol_sched *s, const char *hook, int r)
{
	if (r > 0)
		r = -EINVAL;
	if (!scxpol_last_error()[0])
		return scxpol_err(-r, "%s: the %s hook failed: %s (it set no message)", s->name,
				  hook, strerror(-r));
	return r;
}

static int read_hotplug_seq(struct scxpol_sched *s, unsigned long long *seq)
{
	char buf[64];
	int r;

	r = scxpol_read_file(s->sysfs_root, "/sys/kernel/sched_ext/hotplug_seq", buf, sizeof(buf));
	if (r < 0)
		return r;
	*seq = strtoull(buf, NULL, 10);
	return 0;
}

/* Open the skeleton, learn the policy name, run the configure hook. */
/* The ops' timeout_ms: scxpol_sched_set_timeout()'s, else as the BPF side and configure left it. */
static int apply_timeout(struct scxpol_sched *s)
{
	unsigned int *t;
	size_t sz;

	t = ops_field(s, "timeout_ms", &sz);
	if (!t || sz != sizeof(*t)) {
		if (!s->timeout_ms)
			return 0;
		return scxpol_err(ENOENT, "%s: struct_ops map '%s' has no timeout_ms field",
				  s->name, bpf_map__name(s->ops_map));
	}
	s->timeout_bpf = *t;
	if (s->timeout_ms)
		*t = s->timeout_ms;
	return 0;
}

static int open_skeleton(struct scxpol_sched *s)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	unsigned long long seq;
	const char *name;
	__u64 *hp;
	size_t len, sz;
	int r;

	if (s->btf_path[0])
		oopts.btf_custom_path = s->btf_path;
	s->skel = s->opts.skel->open(&oopts);
	if (!s->skel) {
		r = errno ? errno : EINVAL;
		return scxpol_err(r, "cannot open the BPF skeleton: %s", strerror(r));
	}
	s->obj = s->opts.skel->object(s->skel);
	r = find_ops_map(s);
	if (r)
		return r;
	name = ops_field(s, "name", &len);
	if (!name || !name[0])
		return scxpol_err(EINVAL, "struct_ops map '%s' has no name; set .name in "
				  "the BPF side's SCXPOL_OPS_DEFINE", bpf_map__name(s->ops_map));
	snprintf(s->name, sizeof(s->name), "%.*s", (int)len, name);
	if (s->opts.pin_root)
		snprintf(s->pin_root, sizeof(s->pin_root), "%s", s->opts.pin_root);
	else
		snprintf(s->pin_root, sizeof(s->pin_root), PIN_BASE "/%s", s->name);
	r = setup_pins(s);
	if (r)
		return r;
	if (!bpf_object__find_map_by_name(s->obj, EXIT_MAP))
		return scxpol_err(EINVAL, "%s: the BPF object has no '" EXIT_MAP "' map; include "
				  "<scxpol/sched.bpf.h> and call scxpol_sched_record_exit() in "
				  "ops.exit",
				  s->name);
	/*
	 * A hotplug event that starts after this makes the kernel refuse the
	 * attach with a restart: the configure hook's topology is never stale
	 * unnoticed.
	 */
	hp = ops_field(s, "hotplug_seq", &sz);
	if (hp && sz == sizeof(*hp) && !read_hotplug_seq(s, &seq))
		*hp = seq;
	if (s->opts.plan) {
		scxpol_err_clear();
		r = scxpol_pool__plan(s, s->opts.plan, s->opts.ctx, s->sysfs_root);
		if (r)
			return hook_failed(s, "plan", r);
	}
	if (s->opts.configure) {
		scxpol_err_clear();
		r = s->opts.configure(s, s->skel, s->opts.ctx);
		if (r)
			return hook_failed(s, "configure", r);
	}
	r = apply_timeout(s);
	return r ? r : scxpol_stats_check_object(s->obj, s->name);
}

static void close_object(struct scxpol_sched *s);

/* open_skeleton(); on failure nothing stays open, so that a later load
 * opens (and checks) the object again instead of loading a refused one. */
static int open_object(struct scxpol_sched *s)
{
	int r = open_skeleton(s);

	if (r)
		close_object(s);
	return r;
}

static void close_object(struct scxpol_sched *s)
{
	size_t i;

	pthread_mutex_lock(&s->obj_lock);
	s->loaded = false;
	s->load_err = 0;
	for (i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->nr_links = 0;
	bpf_link__destroy(s->ops_link);
	s->ops_link = NULL;
	if (s->skel)
		s->opts.skel->destroy(s->skel);
	s->skel = NULL;
	s->obj = NULL;
	s->ops_map = NULL;
	pthread_mutex_unlock(&s->obj_lock);
}

struct scxpol_sched *scxpol_sched_open(const struct scxpol_sched_opts *opts)
{
	struct scxpol_sched *s;
	int r;

	scxpol_err_clear();
	if (!opts)
		return scxpol_err_ptr(EINVAL, "scxpol_sched_open: opts is NULL");
	if (!OPTS_VALID(opts, scxpol_sched_opts))
		return errno = EINVAL, NULL;
	if (!OPTS_GET(opts, skel, NULL))
		return scxpol_err_ptr(EINVAL, "scxpol_sched_open: opts.skel is NULL; use SCXPOL_SKEL(name)");
	s = calloc(1, sizeof(*s));
	if (!s)
		return scxpol_err_ptr(ENOMEM, "out of memory");
	memcpy(&s->opts, opts, opts->sz < sizeof(s->opts) ? opts->sz : sizeof(s->opts));
	s->opts.sz = sizeof(s->opts);
	/*
	 * The handle's for its life, not a run's: a signal handler on another
	 * thread that saw the run still going may write to it after the run
	 * ended, which must not reach an fd number reused since.
	 */
	if (pipe2(s->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
		r = errno;
		free(s);
		return scxpol_err_ptr(r, "pipe: %s", strerror(r));
	}
	pthread_mutex_init(&s->obj_lock, NULL);
	pthread_mutex_init(&s->match_cgroups.lock, NULL);
	if (s->opts.sysfs_root)
		snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", s->opts.sysfs_root);
	if (s->opts.btf_path)
		snprintf(s->btf_path, sizeof(s->btf_path), "%s", s->opts.btf_path);
	if (s->opts.pin_gid == 0)
		s->opts.pin_gid = -1;
	libbpf_set_print(libbpf_print_fn);
	r = open_object(s);
	if (r) {
		scxpol_sched_close(s);
		errno = -r;
		return NULL;
	}
	return s;
}

int scxpol_sched_load(struct scxpol_sched *s)
{
	SCXPOL_NONNULL(s, "scheduler");
	char state[64];
	int r, i;

	scxpol_err_clear();
	if (!s->skel) {
		r = open_object(s);
		if (r)
			return r;
	}
	if (s->loaded && s->load_err)
		return scxpol_err(-s->load_err, "%s: an earlier scxpol_sched_load() failed after the "
				  "BPF load, so the policy is not set up: %s; close it and open it "
				  "again", s->name, s->load_msg);
	if (s->loaded)
		return 0;
	r = scxpol_sched_state(s->sysfs_root, state, sizeof(state), NULL, 0);
	if (r)
		return r;
	if (s->pin_root[0] && bpf_object__find_map_by_name(s->obj, EXIT_MAP)) {
		struct bpf_map *map;

		bpf_object__for_each_map(map, s->obj) {
			if (!bpf_map__pin_path(map))
				continue;
			/*
			 * Parents traversable (not listable), so that a group
			 * given access with pin_gid can reach the pins;
			 * fix_pin_perms() sets the pin directory's own mode.
			 */
			r = mkdir_p(s->pin_root, 0711);
			if (r)
				return scxpol_err(-r, "cannot create pin directory %s: %s",
						  s->pin_root, strerror(-r));
			r = scxpol_privdir_check("pin directory", "the pins", s->pin_root);
			if (r)
				return r;
			break;
		}
	}
	r = s->opts.skel->load(s->skel);
	if (r) {
		r = r < 0 ? r : -errno;
		/* libbpf loads an object once, even a refused one: a retry opens anew */
		close_object(s);
		if (r == -ENOTSUP || r == -EOPNOTSUPP)
			return scxpol_err(EOPNOTSUPP, "%s: the kernel cannot load this policy: it lacks "
					  "a sched_ext_ops callback or kfunc the policy uses (libbpf's "
					  "message above names it)", s->name);
		return scxpol_err(-r, "%s: loading the BPF object failed: %s (libbpf's log above "
				  "has the verifier's message)", s->name, strerror(-r));
	}
	pthread_mutex_lock(&s->obj_lock);
	s->loaded = true;
	pthread_mutex_unlock(&s->obj_lock);
	memset(&s->exit, 0, sizeof(s->exit));
	s->have_exit = false;
	r = fix_pin_perms(s);
	for (i = 0; !r && i < SCXPOL_SCHED_EXT_NR; i++)
		if (s->ext[i].fn)
			r = s->ext[i].fn(s, s->ext[i].data);
	if (!r && s->planned.plan)
		r = scxpol_pool__plan_publish(s);
	if (!r && s->opts.loaded) {
		scxpol_err_clear();
		r = s->opts.loaded(s, s->skel, s->opts.ctx);
		if (r)
			r = hook_failed(s, "loaded", r);
	}
	if (r) {
		/*
		 * The hooks stay marked loaded (they may read the object), but
		 * the setup is incomplete: remember why, so that a later load or
		 * attach does not go on with it.
		 */
		s->load_err = r;
		snprintf(s->load_msg, sizeof(s->load_msg), "%s",
			 scxpol_last_error()[0] ? scxpol_last_error() : strerror(-r));
	}
	return r;
}

static int add_link(struct scxpol_sched *s, struct bpf_link *l)
{
	struct bpf_link **n = realloc(s->links, (s->nr_links + 1) * sizeof(*n));

	if (!n) {
		bpf_link__destroy(l);
		return scxpol_err(ENOMEM, "out of memory");
	}
	s->links = n;
	s->links[s->nr_links++] = l;
	return 0;
}

/* Destroy the links from index @from on (those one attach call made). */
static void drop_links(struct scxpol_sched *s, size_t from)
{
	while (s->nr_links > from)
		bpf_link__destroy(s->links[--s->nr_links]);
}

/*
 * The policy's hotplug record (<scxpol/abi/sched.h>; its layout is checked
 * at attach); false if it has none. A copy may be caught between an
 * event's stores: hotplug_settle() takes one only once the next poll's agrees.
 */
static bool read_hotplug(struct scxpol_sched *s, struct scxpol_hotplug_record *rec)
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, HOTPLUG_MAP);
	__u32 zero = 0;

	return map && !bpf_map__lookup_elem(map, &zero, sizeof(zero), rec, sizeof(*rec), 0);
}

/* A hotplug map of another layout would leave hotplug events unseen: refuse it. */
static int check_hotplug_map(struct scxpol_sched *s)
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, HOTPLUG_MAP);

	if (map && (bpf_map__value_size(map) != sizeof(struct scxpol_hotplug_record) ||
		    bpf_map__max_entries(map) != 1))
		return scxpol_err(EINVAL, "%s: map '" HOTPLUG_MAP "' holds %u entries of %u bytes, "
				  "not 1 of %zu: the BPF side was built with another "
				  "<scxpol/sched.bpf.h> than this library's", s->name,
				  bpf_map__max_entries(map), bpf_map__value_size(map),
				  sizeof(struct scxpol_hotplug_record));
	return 0;
}

/*
 * Zero the exit record (map entry and copy) before attaching: ops.exit
 * writes it only when this run ends, and a record left from the previous
 * run would make the new one look exited at once.
 */
static int reset_exit_record(struct scxpol_sched *s)
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, EXIT_MAP);
	struct scxpol_sched_exit_record zero_rec;
	__u32 zero = 0;
	int r;

	memset(&zero_rec, 0, sizeof(zero_rec));
	r = map ? bpf_map__update_elem(map, &zero, sizeof(zero), &zero_rec, sizeof(zero_rec), 0)
		: -ENOENT;
	if (r)
		return scxpol_err(-r, "%s: cannot reset the exit record (map '" EXIT_MAP "'): %s",
				  s->name, strerror(-r));
	memset(&s->exit, 0, sizeof(s->exit));
	s->have_exit = false;
	return 0;
}

int scxpol_sched_attach(struct scxpol_sched *s)
{
	SCXPOL_NONNULL(s, "scheduler");
	char state[64], ops[128];
	struct scxpol_hotplug_record hp;
	struct bpf_program *prog;
	size_t first_link;
	int r;

	scxpol_err_clear();
	if (!s->loaded || s->load_err) {
		r = scxpol_sched_load(s);
		if (r)
			return r;
	}
	if (s->ops_link)
		return 0;
	r = scxpol_sched_state(s->sysfs_root, state, sizeof(state), ops, sizeof(ops));
	if (r)
		return r;
	if (strcmp(state, "disabled"))
		return scxpol_err(EBUSY, "%s: cannot attach: another sched_ext scheduler is "
				  "attached (state '%s', root/ops '%s')", s->name, state, ops);
	r = reset_exit_record(s);
	if (!r)
		r = check_hotplug_map(s);
	if (r)
		return r;
	first_link = s->nr_links;
	/* events from here on are this attach's (the callbacks run only once attached) */
	s->hotplug_seen = read_hotplug(s, &hp) ? hp.events : 0;
	/* Tracing programs first, so they see the scheduler's first events. */
	bpf_object__for_each_program(prog, s->obj) {
		enum bpf_prog_type t = bpf_program__type(prog);
		struct bpf_link *l;

		if (t == BPF_PROG_TYPE_STRUCT_OPS || t == BPF_PROG_TYPE_SYSCALL ||
		    !bpf_program__autoload(prog) || !bpf_program__autoattach(prog))
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			r = errno;
			r = scxpol_err(r, "%s: cannot attach program '%s': %s", s->name,
				       bpf_program__name(prog), strerror(r));
			goto fail;
		}
		r = add_link(s, l);
		if (r)
			goto fail;
	}
	s->ops_link = bpf_map__attach_struct_ops(s->ops_map);
	if (!s->ops_link) {
		r = errno;
		if (!scxpol_sched_state(s->sysfs_root, state, sizeof(state), ops, sizeof(ops)) &&
		    strcmp(state, "disabled"))
			r = scxpol_err(EBUSY, "%s: cannot attach: another sched_ext scheduler "
				       "is attached (state '%s', root/ops '%s')", s->name, state, ops);
		else if (scxpol_sched_exited(s))
			r = scxpol_err(r, "%s: the kernel rejected the scheduler while enabling it: "
				       "%s: %s", s->name, s->exit.reason, s->exit.msg);
		else
			r = scxpol_err(r, "%s: cannot attach struct_ops '%s': %s", s->name,
				       bpf_map__name(s->ops_map), strerror(r));
		goto fail;
	}
	scxpol_log(SCXPOL_LOG_INFO, "%s: attached", s->name);
	return 0;

fail:
	/* not attached: the programs attached above must not keep running */
	drop_links(s, first_link);
	return r;
}

static int read_exit_record(struct scxpol_sched *s)
{
	struct bpf_map *map;
	__u32 zero = 0;
	int i;

	if (s->have_exit)
		return 0;
	if (!s->loaded)
		return -ENODATA;
	map = bpf_object__find_map_by_name(s->obj, EXIT_MAP);
	/*
	 * kind is written last, but one copy may read the text before kind is
	 * set and kind after: once kind is seen, a second copy has it all.
	 */
	for (i = 0; i < 2; i++)
		if (!map || bpf_map__lookup_elem(map, &zero, sizeof(zero), &s->exit,
						 sizeof(s->exit), 0) || !s->exit.kind)
			return -ENODATA;
	s->exit.reason[sizeof(s->exit.reason) - 1] = '\0';
	s->exit.msg[sizeof(s->exit.msg) - 1] = '\0';
	s->have_exit = true;
	return 0;
}

bool scxpol_sched_exited(struct scxpol_sched *s)
{
	return s && read_exit_record(s) == 0;
}

static void print_run_stats(struct scxpol_sched *s, FILE *f);

int scxpol_sched_detach(struct scxpol_sched *s)
{
	SCXPOL_NONNULL(s, "scheduler");
	size_t i;

	for (i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);
	s->nr_links = 0;
	if (s->ops_link) {
		/* Unregistering runs ops.exit synchronously: the record is there after. */
		bpf_link__destroy(s->ops_link);
		s->ops_link = NULL;
		read_exit_record(s);
		scxpol_log(SCXPOL_LOG_INFO, "%s: detached", s->name);
		if (s->prog_stats_f)
			print_run_stats(s, s->prog_stats_f);
	}
	return 0;
}

int scxpol_sched_exit_info(struct scxpol_sched *s, struct scxpol_sched_exit *out)
{
	SCXPOL_NONNULL(s, "scheduler");
	SCXPOL_NONNULL(out, "output");
	if (read_exit_record(s))
		return scxpol_err_quiet(ENODATA, "%s: no exit record: the scheduler has not exited",
					s->name);
	out->kind = s->exit.kind;
	out->kind_name = scxpol_sched_exit_kind_name(s->exit.kind);
	out->exit_code = s->exit.exit_code;
	out->restart = (s->exit.exit_code & SCXPOL_ECODE_ACT_RESTART) != 0;
	out->reason = s->exit.reason;
	out->msg = s->exit.msg;
	return 0;
}

void scxpol_sched_close(struct scxpol_sched *s)
{
	int i;

	if (!s)
		return;
	scxpol_sched_detach(s);
	close_object(s);
	for (i = 0; i < SCXPOL_SCHED_EXT_NR; i++)
		free(s->ext[i].data);
	scxpol_match_cgroups_free(&s->match_cgroups);
	scxpol_pool__plan_free(&s->planned);
	pthread_mutex_destroy(&s->obj_lock);
	close(s->wake_fd[0]);
	close(s->wake_fd[1]);
	free(s);
}

struct scxpol_match_cgroups *scxpol_sched_match_cgroups(struct scxpol_sched *s)
{
	return &s->match_cgroups;
}

struct scxpol_pool_planned *scxpol_sched_planned(const struct scxpol_sched *s)
{
	return (struct scxpol_pool_planned *)&s->planned;
}

int scxpol_sched_set_ext(struct scxpol_sched *s, enum scxpol_sched_ext slot,
			 scxpol_sched_ext_fn fn, const void *data, size_t size)
{
	void *copy = NULL;

	if (size) {
		copy = malloc(size);
		if (!copy)
			return scxpol_err(ENOMEM, "out of memory");
		memcpy(copy, data, size);
	}
	free(s->ext[slot].data);
	s->ext[slot].fn = fn;
	s->ext[slot].data = copy;
	return 0;
}

struct bpf_object *scxpol_sched_lock(struct scxpol_sched *s)
{
	pthread_mutex_lock(&s->obj_lock);
	return s->loaded ? s->obj : NULL;
}

void scxpol_sched_unlock(struct scxpol_sched *s)
{
	pthread_mutex_unlock(&s->obj_lock);
}

void *scxpol_sched_skel(const struct scxpol_sched *s)
{
	return s ? s->skel : NULL;
}

struct bpf_object *scxpol_sched_object(const struct scxpol_sched *s)
{
	return s ? s->obj : NULL;
}

const char *scxpol_sched_name(const struct scxpol_sched *s)
{
	return s ? s->name : NULL;
}

const char *scxpol_sched_pin_root(const struct scxpol_sched *s)
{
	return s ? s->pin_root : NULL;
}

const char *scxpol_sched_restart_refused(const struct scxpol_sched *s)
{
	return s->restart_refused ? s->refused_why : NULL;
}

int scxpol_sched_set_timeout(struct scxpol_sched *s, unsigned int ms)
{
	SCXPOL_NONNULL(s, "scheduler");
	unsigned int *t;
	size_t sz;

	if (ms > 30000)
		return scxpol_err(EINVAL, "%s: watchdog timeout %u ms: want 1..30000 (the kernel's "
				  "limit), or 0 for the policy's own", s->name, ms);
	if (s->loaded)
		return scxpol_err(EBUSY, "%s: the watchdog timeout is set before the load",
				  s->name);
	/* after a refused load the object is closed: the next load's open applies it */
	if (s->obj) {
		t = ops_field(s, "timeout_ms", &sz);
		if (!t || sz != sizeof(*t))
			return scxpol_err(ENOENT, "%s: struct_ops map '%s' has no timeout_ms field",
					  s->name, bpf_map__name(s->ops_map));
		*t = ms ? ms : s->timeout_bpf;
	}
	s->timeout_ms = ms;
	return 0;
}

unsigned int scxpol_sched_restarts(const struct scxpol_sched *s)
{
	return s ? s->restarts : 0;
}

int scxpol_sched_prog_stats(struct scxpol_sched *s, struct scxpol_prog_stat *out, size_t n)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct bpf_program *prog;
	size_t i = 0;

	if (!s->loaded)
		return scxpol_err(EINVAL, "%s: not loaded", s->name);
	bpf_object__for_each_program(prog, s->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		if (i < n) {
			memset(&info, 0, sizeof(info));
			if (bpf_prog_get_info_by_fd(fd, &info, &len))
				return scxpol_err(errno, "%s: cannot query program '%s': %s", s->name,
						  bpf_program__name(prog), strerror(errno));
			out[i].name = bpf_program__name(prog);
			out[i].verified_insns = info.verified_insns;
			out[i].run_cnt = info.run_cnt;
			out[i].run_time_ns = info.run_time_ns;
		}
		i++;
	}
	return (int)i;
}

/* --- run loop --------------------------------------------------------- */

static struct scxpol_sched *volatile running;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct scxpol_sched *s = running;

	int pid = 0;

	(void)uc;
	if (!s)
		return;
	/* si_pid names a sender only for kill(), sigqueue() and tgkill() */
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL))
		pid = si->si_pid;
	/* the first signal stopped the run: a later ^C does not rename its sender */
	if (!atomic_load_explicit(&s->stop_sig, memory_order_acquire)) {
		atomic_store_explicit(&s->stop_pid, pid, memory_order_relaxed);
		atomic_store_explicit(&s->stop_sig, sig, memory_order_release);
	}
	scxpol_sched_stop(s);
}

/* A scheduler stopped by a signal says who sent it: an unexpected detach
 * is otherwise hard to trace back to the script or service that did it. */
static void log_stop_signal(struct scxpol_sched *s)
{
	int signo = atomic_load_explicit(&s->stop_sig, memory_order_acquire);
	int pid = atomic_load_explicit(&s->stop_pid, memory_order_relaxed);
	const char *sig = signo == SIGINT ? "SIGINT" : "SIGTERM";
	char path[64], comm[32] = "";

	if (pid <= 0) {
		/* a terminal's ^C, or the kernel */
		scxpol_log(SCXPOL_LOG_INFO, "%s: stopping on %s (no sending process)", s->name, sig);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (scxpol_read_file(NULL, path, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	scxpol_log(SCXPOL_LOG_INFO, "%s: stopping on %s from pid %d (%s)", s->name, sig, pid,
		   comm[0] ? comm : "exited since");
}

void scxpol_sched_stop(struct scxpol_sched *s)
{
	int saved = errno;
	char c = 1;

	if (!s)
		return;
	s->stop = 1;
	if (write(s->wake_fd[1], &c, 1) < 0) {
		/* the pipe is full: the loop wakes anyway */
	}
	errno = saved;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep up to @ms, woken early by a stop request (scxpol_sched_stop()'s byte). */
static void wait_wake(struct scxpol_sched *s, int ms)
{
	struct pollfd pfd = { .fd = s->wake_fd[0], .events = POLLIN };
	char buf[16];

	if (poll(&pfd, 1, ms) > 0 && read(s->wake_fd[0], buf, sizeof(buf)) < 0) {
		/* nothing to drain */
	}
}

/*
 * A restart asked less than RESTART_QUICK_MS after the attach waits before
 * the reload, RESTART_DELAY_MS doubled for each such restart in a row up to
 * RESTART_DELAY_MAX_MS: a policy that asks again at once (from its init, or
 * in a burst of hotplug events) would run the verifier in a tight loop.
 */
#define RESTART_QUICK_MS 2000
#define RESTART_DELAY_MS 100
#define RESTART_DELAY_MAX_MS 5000

/* The wait before the @quick-th quick restart in a row (0: none). */
static unsigned int restart_delay(unsigned int quick)
{
	unsigned int ms = quick ? RESTART_DELAY_MS : 0;

	while (quick-- > 1 && ms < RESTART_DELAY_MAX_MS)
		ms *= 2;
	return ms < RESTART_DELAY_MAX_MS ? ms : RESTART_DELAY_MAX_MS;
}

/* Wait @ms unless a stop is asked; whether one was. */
static bool backoff(struct scxpol_sched *s, unsigned int ms)
{
	uint64_t end = now_ms() + ms, t;

	while (!s->stop && (t = now_ms()) < end)
		wait_wake(s, (int)(end - t));
	return s->stop;
}

int scxpol_sched_hotplug_busy(const char *root, int cpu, bool online)
{
	struct scxpol_cpuset *present = NULL;
	char path[96], state[32], target[32], list[4096];
	int r, c = -1;

	if (cpu >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		r = scxpol_read_file(root, path, state, sizeof(state));
		if (r >= 0 && strcmp(state, "0") && strcmp(state, "1"))
			return scxpol_err(EINVAL, "%s%s: '%s', not 0 or 1", root ? root : "", path,
					  state);
		if (r >= 0 && (state[0] == '1') != online)
			return 1;
		if (r < 0 && r != -ENOENT)
			return scxpol_err(-r, "%s%s: %s", root ? root : "", path, strerror(-r));
	}
	r = scxpol_read_file(root, "/sys/devices/system/cpu/present", list, sizeof(list));
	if (r < 0)
		return scxpol_err(-r, "%s/sys/devices/system/cpu/present: %s", root ? root : "",
				  strerror(-r));
	present = scxpol_cpuset_parse(list, SCXPOL_TOPO_MAX_CPUS);
	if (!present) {
		r = -errno;
		snprintf(list, sizeof(list), "%s", scxpol_last_error());
		return scxpol_err(-r, "%s/sys/devices/system/cpu/present: %s", root ? root : "",
				  list);
	}
	r = 0;
	while ((c = scxpol_cpuset_next(present, c)) >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/hotplug/state", c);
		if (scxpol_read_file(root, path, state, sizeof(state)) < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/hotplug/target", c);
		if (scxpol_read_file(root, path, target, sizeof(target)) >= 0 &&
		    strcmp(state, target)) {
			r = 1;
			break;
		}
	}
	scxpol_cpuset_free(present);
	return r;
}

/*
 * How long a restart waits for a hotplug event to complete. Taking a CPU
 * down goes on after ops.cpu_offline (its tasks are pushed off, then it
 * dies); unloading the policy while it does is what the callbacks avoid
 * (<scxpol/sched.bpf.h>). An event that starts after the wait ended and
 * before the detach completed can still overlap it.
 */
#define HOTPLUG_SETTLE_MS 10000
#define HOTPLUG_POLL_MS 20

/*
 * Wait until no CPU hotplug operation is under way
 * (scxpol_sched_hotplug_busy()) on two polls in a row, in which @rec (if
 * not NULL) stayed the same: no new event, and a copy whose stores were
 * all seen, whose CPU then got where it was going. Up to
 * HOTPLUG_SETTLE_MS, then a warning; false if a stop or the scheduler's
 * exit (if @rec: the policy's hotplug event is being waited for) came first.
 */
static bool hotplug_settle(struct scxpol_sched *s, struct scxpol_hotplug_record *rec)
{
	uint64_t end = now_ms() + HOTPLUG_SETTLE_MS;
	struct scxpol_hotplug_record prev = { 0 };
	bool quiet = false, warned = false;
	int r;

	if (rec)
		prev = *rec;
	for (;;) {
		wait_wake(s, HOTPLUG_POLL_MS);
		if (s->stop || (rec && scxpol_sched_exited(s)))
			return false;
		if (rec)
			read_hotplug(s, rec);
		r = scxpol_sched_hotplug_busy(s->sysfs_root, rec ? rec->cpu : -1,
					      rec && rec->online);
		if (r < 0 && !warned) {
			scxpol_log(SCXPOL_LOG_WARN, "%s: cannot tell whether a CPU hotplug "
				   "operation is under way: %s", s->name, scxpol_last_error());
			warned = true;
		}
		if (r > 0 || (rec && memcmp(rec, &prev, sizeof(prev))))
			quiet = false;
		else if (quiet)
			return true;
		else
			quiet = true;
		if (rec)
			prev = *rec;
		if (now_ms() >= end) {
			if (rec)
				scxpol_log(SCXPOL_LOG_WARN, "%s: cpu %d is not %s %d ms after "
					   "its hotplug event; going on", s->name, rec->cpu,
					   rec->online ? "online" : "offline", HOTPLUG_SETTLE_MS);
			else
				scxpol_log(SCXPOL_LOG_WARN, "%s: a CPU hotplug operation is still "
					   "under way after %d ms; going on", s->name,
					   HOTPLUG_SETTLE_MS);
			return true;
		}
	}
}

/*
 * Remove the hints of gone tasks and cgroups. A failure is logged once per
 * run and does not stop the policy: it only leaves the maps to fill up.
 */
static void prune_hints(struct scxpol_sched *s)
{
	unsigned int removed = 0;
	int r = scxpol_hint_prune_policy(s, &removed);

	if (removed)
		scxpol_log(SCXPOL_LOG_INFO, "%s: hints: pruned %u entries of gone tasks and cgroups",
			   s->name, removed);
	if (r < 0 && !s->prune_warned) {
		scxpol_log(SCXPOL_LOG_WARN, "%s: hints: cannot prune the hints of gone tasks and "
			   "cgroups (said once per run): %s", s->name, scxpol_last_error());
		s->prune_warned = true;
	}
	scxpol_err_clear();
}

/*
 * Wait until a stop request, the scheduler's exit or a CPU hotplug event
 * the policy recorded (then, once it completed, *@hotplug says which);
 * let cgroup rules follow their directories every second, run the
 * periodic hook every interval, prune the hints at once (what died while
 * no policy ran) and then every hint_prune_ms.
 */
static int wait_attached(struct scxpol_sched *s, const struct scxpol_run_opts *ro,
			 struct scxpol_hotplug_record *hotplug)
{
	unsigned int interval = OPTS_GET(ro, interval_ms, 0) ?: 1000;
	scxpol_sched_hook periodic = OPTS_GET(ro, periodic, NULL);
	void *ctx = OPTS_GET(ro, ctx, NULL);
	uint64_t next = now_ms() + interval, next_rules = now_ms() + 1000;
	unsigned int prune_ms = OPTS_GET(ro, hint_prune_ms, 0) ?: 60000;
	bool prune = s->ext[SCXPOL_SCHED_EXT_HINT].fn && !OPTS_GET(ro, no_hint_prune, false);
	uint64_t next_prune = now_ms();
	/* Exit is polled more often than the hook runs: it ends the wait. */
	int poll_ms = interval < 100 ? (int)interval : 100;
	struct scxpol_hotplug_record hp;

	memset(hotplug, 0, sizeof(*hotplug));
	while (!s->stop) {
		uint64_t t;
		int r;

		wait_wake(s, poll_ms);
		if (s->stop || scxpol_sched_exited(s))
			break;
		if (read_hotplug(s, &hp) && hp.events != s->hotplug_seen) {
			if (hotplug_settle(s, &hp))
				*hotplug = hp;
			break;
		}
		t = now_ms();
		if (t >= next_rules) {
			next_rules = t + 1000;
			r = scxpol_match_refresh(s);
			if (r < 0)
				return r;
		}
		if (periodic && t >= next) {
			next = t + interval;
			scxpol_err_clear();
			r = periodic(s, s->skel, ctx);
			if (r)
				return hook_failed(s, "periodic", r);
		}
		if (prune && t >= next_prune) {
			prune_hints(s);
			next_prune = now_ms() + prune_ms;
		}
	}
	return 0;
}

int scxpol_sched_run(struct scxpol_sched *s, const struct scxpol_run_opts *ro)
{
	SCXPOL_NONNULL(s, "scheduler");
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	struct sigaction old_int, old_term;
	sigset_t stop_sigs, old_mask;
	unsigned int max_restarts, quick = 0, delay;
	uint64_t attached_at, ended_at;
	bool logged = false, asked;
	int r = 0;

	scxpol_err_clear();
	if (!OPTS_VALID(ro, scxpol_run_opts))
		return -EINVAL;
	max_restarts = OPTS_GET(ro, max_restarts, 0);
	s->restart_refused = false;
	s->prune_warned = false;
	/* s->stop is not cleared here: a stop asked as the run starts must not be lost */
	atomic_store(&s->stop_sig, 0);
	atomic_store(&s->stop_pid, 0);
	running = s;
	/* neither interrupts the other's handler halfway */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* a caller may hold them from its attach on: one sent since is taken now */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &stop_sigs, &old_mask);

	for (;;) {
		struct scxpol_hotplug_record hp;
		struct scxpol_sched_exit ei;
		const char *why;
		char hp_why[64];

		/* stopped before an attach: none just to detach (the caller's is undone below) */
		if (s->stop && !s->ops_link)
			break;
		r = scxpol_sched_attach(s);
		if (r)
			break;
		attached_at = now_ms();
		r = wait_attached(s, ro, &hp);
		/* (what the detach takes under a slow host does not count) */
		ended_at = now_ms();
		if (!logged && atomic_load(&s->stop_sig)) {
			log_stop_signal(s);
			logged = true;
		}
		scxpol_sched_detach(s);
		if (r)
			break;
		if (scxpol_sched_exit_info(s, &ei)) {
			r = scxpol_err(EPROTO, "%s: detached without an exit record", s->name);
			break;
		}
		scxpol_log(SCXPOL_LOG_DEBUG, "%s: exit %s (%s)%s%s", s->name, ei.kind_name,
			   ei.reason, ei.msg[0] ? ": " : "", ei.msg);
		/*
		 * The policy's hotplug callbacks: the kernel left it loaded, the
		 * library restarts it (if it was the library's detach that ended it).
		 */
		hp.events = ei.kind == EXIT_KIND_UNREG ? hp.events : 0;
		why = ei.msg;
		if (hp.events) {
			snprintf(hp_why, sizeof(hp_why), "cpu %d went %s", hp.cpu,
				 hp.online ? "online" : "offline");
			why = hp_why;
		}
		asked = (ei.restart || hp.events) && !s->stop;
		s->restart_refused = asked && OPTS_GET(ro, no_restart, false);
		if (s->restart_refused)
			snprintf(s->refused_why, sizeof(s->refused_why), "%s asked for a restart: %s",
				 hp.events ? "a CPU hotplug" : "the kernel", why);
		if (asked && !s->restart_refused) {
			if (max_restarts && s->restarts >= max_restarts) {
				r = scxpol_err(ELOOP, "%s: %s restart #%u, over max_restarts (%u): %s",
					       s->name, hp.events ? "hotplug asked for" :
					       "kernel asked for", s->restarts + 1, max_restarts, why);
				break;
			}
			quick = ended_at - attached_at < RESTART_QUICK_MS ? quick + 1 : 0;
			delay = restart_delay(quick);
			if (delay)
				scxpol_log(SCXPOL_LOG_INFO, "%s: restarting (#%u) in %u ms (quick "
					   "restart %u in a row: asked within %u ms of the attach): %s",
					   s->name, s->restarts + 1, delay, quick, RESTART_QUICK_MS, why);
			else
				scxpol_log(SCXPOL_LOG_INFO, "%s: restarting (#%u): %s", s->name,
					   s->restarts + 1, why);
			/* a stop during the wait: no restart to count or reload */
			if (delay && backoff(s, delay))
				break;
			/* the new plan reads the topology: not halfway through an event */
			if (!hotplug_settle(s, NULL))
				break;
			s->restarts++;
			close_object(s);
			r = open_object(s);
			/* a stop during the open: no attach just to detach */
			if (r || s->stop)
				break;
			continue;
		}
		if (ei.kind >= 1024)
			r = scxpol_err(ECANCELED, "%s: scheduler stopped on error %s: %s%s%s", s->name,
				       ei.kind_name, ei.reason, ei.msg[0] ? ": " : "", ei.msg);
		break;
	}

	/* a signal during the detach or a restart ended the run too */
	if (!logged && atomic_load(&s->stop_sig))
		log_stop_signal(s);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	running = NULL;
	s->stop = 0; /* spent: a later run runs */
	return r;
}

int scxpol_sched_print_prog_stats(struct scxpol_sched *s, FILE *f)
{
	SCXPOL_NONNULL(s, "scheduler");
	SCXPOL_NONNULL(f, "stream");
	struct scxpol_prog_stat *st;
	int n, i;

	n = scxpol_sched_prog_stats(s, NULL, 0);
	if (n <= 0)
		return n;
	st = calloc((size_t)n, sizeof(*st));
	if (!st)
		return scxpol_err(ENOMEM, "out of memory");
	n = scxpol_sched_prog_stats(s, st, (size_t)n);
	for (i = 0; i < n; i++)
		fprintf(f, "%s: verifier: %s %u insns\n", s->name, st[i].name, st[i].verified_insns);
	free(st);
	if (n >= 0)
		s->prog_stats_f = f;
	return n < 0 ? n : 0;
}

/*
 * The sched_ext_ops member struct_ops program @prog is bound to, from the
 * kernel's BTF @kbtf (libbpf records the member's index in the kernel's
 * struct as the program's expected attach type); "-" for other programs.
 */
static const char *prog_callback(const struct btf *kbtf, const struct btf_type *ops,
				 struct bpf_program *prog)
{
	unsigned int idx = (unsigned int)bpf_program__expected_attach_type(prog);

	if (!ops || bpf_program__type(prog) != BPF_PROG_TYPE_STRUCT_OPS || idx >= btf_vlen(ops))
		return "-";
	return btf__name_by_offset(kbtf, btf_members(ops)[idx].name_off);
}

/*
 * At detach, for the scxpol_sched_print_prog_stats() caller: one line per
 * program with its run count and run time, when the kernel counted them
 * (kernel.bpf_stats_enabled=1 while the scheduler ran). Read before the
 * object goes: the counts live in the programs.
 */
static void print_run_stats(struct scxpol_sched *s, FILE *f)
{
	const struct btf_type *ops = NULL;
	struct scxpol_prog_stat *st;
	struct bpf_program *prog;
	struct btf *kbtf;
	uint64_t runs = 0;
	int n, i = 0;

	n = scxpol_sched_prog_stats(s, NULL, 0);
	if (n <= 0)
		return;
	st = calloc((size_t)n, sizeof(*st));
	if (!st)
		return;
	n = scxpol_sched_prog_stats(s, st, (size_t)n);
	for (i = 0; i < n; i++)
		runs += st[i].run_cnt;
	if (!runs) {
		free(st);
		return;
	}
	kbtf = s->btf_path[0] ? btf__parse(s->btf_path, NULL) : btf__load_vmlinux_btf();
	if (kbtf) {
		__s32 id = btf__find_by_name_kind(kbtf, "sched_ext_ops", BTF_KIND_STRUCT);

		ops = id > 0 ? btf__type_by_id(kbtf, (__u32)id) : NULL;
	}
	i = 0;
	/* scxpol_sched_prog_stats() lists the programs in this order */
	bpf_object__for_each_program(prog, s->obj) {
		if (bpf_program__fd(prog) < 0)
			continue;
		if (i == n)
			break;
		fprintf(f, "%s: run: %s %s %llu runs %llu ns\n", s->name, st[i].name,
			kbtf ? prog_callback(kbtf, ops, prog) : "-",
			(unsigned long long)st[i].run_cnt, (unsigned long long)st[i].run_time_ns);
		i++;
	}
	fflush(f);
	btf__free(kbtf);
	free(st);
}

int scxpol_sched_print_exit(struct scxpol_sched *s, FILE *f)
{
	SCXPOL_NONNULL(s, "scheduler");
	SCXPOL_NONNULL(f, "stream");
	struct scxpol_sched_exit ei;
	int r;

	r = scxpol_sched_exit_info(s, &ei);
	if (r)
		return r;
	fprintf(f, "%s: exit %s (%s)%s%s\n", s->name, ei.kind_name, ei.reason,
		ei.msg[0] ? ": " : "", ei.msg);
	return 0;
}
