// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Scheduler lifecycle: open, load, attach, detach and close of a policy,
 * its accessors and exit record. The handle: lib/sched_internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sched_internal.h"
#include "scxpol/abi/sched.h"
#include "scxpol/sched.h"
#include "scxpol/skel.h"

#define EXIT_MAP "scxpol_exit"
#define HOTPLUG_MAP "scxpol_hotplug"
#define PIN_BASE SCXPOL_PIN_BASE

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

/* (an application's hook may fail without a library call that said why) */
int scxpol_sched__hook_failed(const struct scxpol_sched *s, const char *hook, int r)
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

enum module_step { STEP_OPEN, STEP_CONFIGURED, STEP_LOADED };

/* Run @step of every module that has one, in order; the first error ends it. */
static int run_modules(struct scxpol_sched *s, enum module_step step)
{
	const struct scxpol_sched_module *m;
	int (*fn)(struct scxpol_sched *s, void *state);
	int i, r = 0;

	for (i = 0; !r && i < SCXPOL_MOD_NR; i++) {
		m = scxpol_sched_modules[i];
		fn = step == STEP_OPEN ? m->open : step == STEP_CONFIGURED ? m->configured : m->loaded;
		if (fn)
			r = fn(s, s->mod[i]);
	}
	return r;
}

/* Open the skeleton, learn the policy name, run the configure hook. */
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
	r = scxpol_sched__setup_pins(s);
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
	r = run_modules(s, STEP_OPEN);
	if (r)
		return r;
	if (s->opts.configure) {
		scxpol_err_clear();
		r = s->opts.configure(s, s->skel, s->opts.ctx);
		if (r)
			return scxpol_sched__hook_failed(s, "configure", r);
	}
	r = apply_timeout(s);
	return r ? r : run_modules(s, STEP_CONFIGURED);
}

/* open_skeleton(); on failure nothing stays open, so that a later load
 * opens (and checks) the object again instead of loading a refused one. */
int scxpol_sched__open_object(struct scxpol_sched *s)
{
	int r = open_skeleton(s);

	if (r)
		scxpol_sched__close_object(s);
	return r;
}

void scxpol_sched__close_object(struct scxpol_sched *s)
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
	const struct scxpol_sched_module *m;
	struct scxpol_sched *s;
	int i, r;

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
	for (i = 0; i < SCXPOL_MOD_NR; i++) {
		m = scxpol_sched_modules[i];
		s->mod[i] = calloc(1, m->state_size ? m->state_size : 1);
		r = s->mod[i] ? 0 : scxpol_err(ENOMEM, "out of memory");
		if (!r && m->init)
			r = m->init(s->mod[i]);
		if (r) {
			/* the modules before @i are set up, @i has no state to finish */
			free(s->mod[i]);
			s->mod[i] = NULL;
			scxpol_sched_close(s);
			errno = -r;
			return NULL;
		}
	}
	if (s->opts.sysfs_root)
		snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", s->opts.sysfs_root);
	if (s->opts.btf_path)
		snprintf(s->btf_path, sizeof(s->btf_path), "%s", s->opts.btf_path);
	if (s->opts.pin_gid == 0)
		s->opts.pin_gid = -1;
	libbpf_set_print(libbpf_print_fn);
	r = scxpol_sched__open_object(s);
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
	int r;

	scxpol_err_clear();
	if (!s->skel) {
		r = scxpol_sched__open_object(s);
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
		r = scxpol_sched__make_pin_dir(s);
		if (r)
			return r;
	}
	r = s->opts.skel->load(s->skel);
	if (r) {
		r = r < 0 ? r : -errno;
		/* libbpf loads an object once, even a refused one: a retry opens anew */
		scxpol_sched__close_object(s);
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
	r = scxpol_sched__fix_pin_perms(s);
	if (!r)
		r = run_modules(s, STEP_LOADED);
	if (!r && s->opts.loaded) {
		scxpol_err_clear();
		r = s->opts.loaded(s, s->skel, s->opts.ctx);
		if (r)
			r = scxpol_sched__hook_failed(s, "loaded", r);
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
bool scxpol_sched__read_hotplug(struct scxpol_sched *s, struct scxpol_hotplug_record *rec)
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
	s->hotplug_seen = scxpol_sched__read_hotplug(s, &hp) ? hp.events : 0;
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
			scxpol_sched__print_run_stats(s, s->prog_stats_f);
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
	scxpol_sched__close_object(s);
	for (i = 0; i < SCXPOL_MOD_NR; i++) {
		if (s->mod[i] && scxpol_sched_modules[i]->fini)
			scxpol_sched_modules[i]->fini(s->mod[i]);
		free(s->mod[i]);
	}
	pthread_mutex_destroy(&s->obj_lock);
	close(s->wake_fd[0]);
	close(s->wake_fd[1]);
	free(s);
}

void *scxpol_sched__mod_state(const struct scxpol_sched *s, enum scxpol_sched_mod m)
{
	return s->mod[m];
}

const struct scxpol_sched_opts *scxpol_sched__opts(const struct scxpol_sched *s)
{
	return &s->opts;
}

const char *scxpol_sched__sysfs_root(const struct scxpol_sched *s)
{
	return s->sysfs_root;
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
