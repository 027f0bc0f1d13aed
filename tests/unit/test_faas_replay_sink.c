// SPDX-License-Identifier: GPL-2.0
/*
 * The pinned hint sink of the trace replay (faas_sink_hint_open()): it
 * needs the policy's pinned hint maps, a replay of the policy's number of
 * domains, and a stats server of the policy that reports the same CPUs for
 * each domain; a replay through it clears every hint it set.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxpol/common.h>
#include <scxpol/cpuset.h>
#include <scxpol/hint.h>
#include <scxpol/stats.h>

#include "../../examples/faas/replay.h"
#include "faas_replay_fixture.h"
#include "hint_pins.h"

/* A stats server that answers one request with a snapshot of policy "t"
 * whose domains d0, d1, ... are the CPU lists @cpus. */
struct one_stats {
	char path[300];
	char resp[2048];
	int fd;
	bool served;
	pthread_t thread;
};

static void *one_stats_serve(void *arg)
{
	struct one_stats *o = arg;
	char buf[4096];
	size_t off = 0;
	ssize_t got = 0;
	int c = accept(o->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	/* the whole line: the client may send its newline apart, and a close before it is EPIPE */
	while (off < sizeof(buf) && !memchr(buf, '\n', off) &&
	       (got = recv(c, buf + off, sizeof(buf) - off, 0)) > 0)
		off += (size_t)got;
	if (memchr(buf, '\n', off))
		o->served = send(c, o->resp, strlen(o->resp), MSG_NOSIGNAL) > 0;
	close(c);
	return NULL;
}

static void one_stats_start(struct one_stats *o, unsigned int n, const char *const *cpus)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct scxpol_stats st = SCXPOL_STATS_INIT;
	char json[1024];
	unsigned int i;

	snprintf(st.policy, sizeof(st.policy), "t");
	for (i = 0; i < n; i++) {
		snprintf(st.pools[i].name, sizeof(st.pools[i].name), "d%u", i);
		snprintf(st.pools[i].cpus, sizeof(st.pools[i].cpus), "%s", cpus[i]);
	}
	st.nr_pools = n;
	assert_true(scxpol_stats_json(&st, json, sizeof(json)) > 0);
	snprintf(o->resp, sizeof(o->resp), "{\"errno\":0,\"resp\":%s}\n", json);
	snprintf(o->path, sizeof(o->path), "%s/t.sock", tmpdir);
	assert_true(strlen(o->path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, o->path, strlen(o->path));
	o->served = false;
	o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(o->fd >= 0);
	assert_int_equal(bind(o->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(o->fd, 1), 0);
	assert_int_equal(pthread_create(&o->thread, NULL, one_stats_serve, o), 0);
}

/* Stop: whether it was asked (a sink that never asked ends its wait in accept()). */
static bool one_stats_stop(struct one_stats *o)
{
	shutdown(o->fd, SHUT_RDWR);
	pthread_join(o->thread, NULL);
	close(o->fd);
	unlink(o->path);
	return o->served;
}

/* Open the sink on @pins against a server of the @n domains @cpus: it must fail; its errno. */
static int sink_refused(const char *pins, struct scxpol_cpuset *const *want, unsigned int n,
			const char *const *cpus)
{
	struct one_stats srv;
	int e;

	one_stats_start(&srv, n, cpus);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, srv.path, HINT_PINS_NR_POOLS, want, err,
					sizeof(err)));
	e = errno;
	assert_true(one_stats_stop(&srv));
	return e;
}

/* The pinned sink needs the policy's pinned hint maps; it says which are missing. */
static void test_sink_hint_open_fails(void **state)
{
	struct scxpol_cpuset *cpus[2] = { NULL, NULL };
	char pins[300];

	(void)state;
	snprintf(pins, sizeof(pins), "%s/no-pins", tmpdir);
	errno = 0;
	assert_null(faas_sink_hint_open("faas", pins, NULL, 2, cpus, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(strncmp(err, "sink 'pinned': ", 15), 0);
	assert_non_null(strstr(err, pins));
	faas_sink_hint_close(NULL);
}

/*
 * The pinned sink, on hint maps pinned as a policy of 2 domains pins them:
 * a replay of another number of domains is refused (its domain d is not
 * the policy's), so is one whose domains are other CPUs than the policy's
 * stats server reports, or with no server to ask; one of the same 2 runs
 * with every hint it set cleared.
 */
static void test_sink_hint_domains(void **state)
{
	struct faas_replay_opts o = base_opts();
	struct scxpol_hint_counts n;
	SCXPOL_OPTS(scxpol_hint_client_opts, co, .pin_root = NULL);
	struct scxpol_hint_client *c;
	struct scxpol_cpuset *cpus[2] = { scxpol_cpuset_new(8), scxpol_cpuset_new(8) };
	struct faas_sink *sink;
	struct faas_replay *r;
	struct one_stats srv;
	char mnt[300], pins[400], root[1100], want[600], sock[300];
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_int_equal(scxpol_cpuset_set(cpus[i / 4], i), 0);
	snprintf(mnt, sizeof(mnt), "%s/bpf", tmpdir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("bpf", mnt, "bpf", 0, "mode=0700"))
		skip(); /* no bpffs here (not root) */
	snprintf(pins, sizeof(pins), "%s/t", mnt);
	make_pins(pins, NULL, NULL, NULL);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, NULL, 1, cpus, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	snprintf(want, sizeof(want), "sink 'pinned': policy t has %d domains, the replay 1: "
		 "domain d must be the same CPUs on both sides (the replay's --domains or --plan)",
		 HINT_PINS_NR_POOLS);
	assert_string_equal(err, want);
	/* no stats server where the replay looks */
	snprintf(sock, sizeof(sock), "%s/none.sock", tmpdir);
	errno = 0;
	assert_null(faas_sink_hint_open("t", pins, sock, HINT_PINS_NR_POOLS, cpus, err,
					sizeof(err)));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "sink 'pinned': reading policy t's domains from its stats "
		 "socket %s (--policy-socket): ", sock);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	/* the policy's stats report another number of domains than its hint maps */
	assert_int_equal(sink_refused(pins, cpus, 3, (const char *const[]){ "0-1", "2-3", "4-7" }),
			 EINVAL);
	snprintf(want, sizeof(want), "sink 'pinned': policy t reports 3 domains, the replay has "
		 "%d", HINT_PINS_NR_POOLS);
	assert_string_equal(err, want);
	/* the policy's domain 1 is CPUs 4-6, the replay's 4-7 */
	assert_int_equal(sink_refused(pins, cpus, 2, (const char *const[]){ "0-3", "4-6" }),
			 EINVAL);
	assert_string_equal(err, "sink 'pinned': policy t's domain 1 (d1) is CPUs 4-6, the "
				 "replay's is 4-7: domain d must be the same CPUs on both sides "
				 "(the replay's --domains or --plan)");
	one_stats_start(&srv, 2, (const char *const[]){ "0-3", "4-7" });
	sink = faas_sink_hint_open("t", pins, srv.path, HINT_PINS_NR_POOLS, cpus, err,
				   sizeof(err));
	assert_true(one_stats_stop(&srv));
	assert_non_null(sink);
	if (cg_mount[0]) {
		snprintf(root, sizeof(root), "%s/scxpol-faas-test.%d", cg_mount, (int)getpid());
		o.cgroup_root = root;
		o.sink = sink;
		assert_int_equal(faas_replay_run(&o, &r, err, sizeof(err)), 0);
		assert_true(r->iat.assigned > 0);
		faas_replay_free(r);
		co.pin_root = pins;
		c = scxpol_hint_client_open("t", &co);
		assert_non_null(c);
		assert_int_equal(scxpol_hint_count(c, &n), 0);
		assert_int_equal(n.cgroups, 0);
		scxpol_hint_client_close(c);
	}
	faas_sink_hint_close(sink);
	umount(mnt);
	scxpol_cpuset_free(cpus[0]);
	scxpol_cpuset_free(cpus[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sink_hint_open_fails, kill_children),
		cmocka_unit_test_teardown(test_sink_hint_domains, kill_children),
	};

	return run_replay_tests(tests);
}
