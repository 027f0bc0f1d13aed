// SPDX-License-Identifier: GPL-2.0
/*
 * scxpol-lat: run-queue delay and run bursts from the scheduler tracepoints.
 *
 * sched_wakeup, sched_wakeup_new and sched_switch fire in the core scheduler
 * for every class, so the same numbers come out under EEVDF and under any
 * sched_ext policy. Per task (task storage) we keep when it became runnable
 * and when it was switched in; per group (cgroup or comm) we aggregate:
 *   wake     sched_wakeup(_new)           -> switched in
 *   requeue  switched out still runnable  -> switched in again
 *   burst    switched in                  -> switched out
 * and count switch-outs while runnable (preemptions), to sleep, and at
 * exit (the last switch-out, in TASK_DEAD: no wakeup follows it).
 *
 * Each wakeup is also classified where it happens, by its target CPU
 * (task_cpu(p) at sched_wakeup: the run queue it was put on):
 *   idle     the target CPU was running its idle task (rq->curr->pid == 0):
 *            the wakee queues behind nobody, its delay is idle exit + IPI +
 *            (in an emulator) the wait until that vCPU runs again
 *   remote   the target CPU is not the one that started the wakeup (the CPU
 *            of sched_waking; of sched_wakeup_new for a new task): unless
 *            it was idle and polling, the wakee runs only once the target
 *            took an IPI (to leave idle, or to preempt its current task);
 *            else local
 *   queued   sched_wakeup fired on another CPU than sched_waking: the waker
 *            queued the wakee on the target's wake list (TTWU_QUEUE) and the
 *            target activated it from its IPI, so the wake delay, which
 *            starts at sched_wakeup, does not include that IPI
 * and a second delay is kept from sched_waking (try_to_wake_up's start on
 * the waker) to switched in, which does include it, whichever path the
 * kernel took ("waking", and "waking_idle" for idle targets).
 *
 * Idle CPU time while traced tasks wait (idle_waiting_ns): between any two
 * events, min(CPUs running their idle task, traced tasks runnable and not
 * running) times the time between them, summed: CPU time that work waiting
 * on a run queue could have used. A CPU counts as idle from its first
 * sched_switch seen; the sum is exact when events do not race (single-
 * threaded emulation runs one vCPU at a time) and close otherwise.
 *
 * The tracepoint prototypes are the same on 6.12 and 7.2:
 *   sched_switch(bool preempt, struct task_struct *prev,
 *                struct task_struct *next, unsigned int prev_state)
 *   sched_wakeup(struct task_struct *p), sched_wakeup_new(same)
 * Task fields are read with CO-RE, so they follow each kernel's layout.
 */
#include <scxpol/common.bpf.h>

#include "lat.h"

char _license[] SEC("license") = "GPL";

#define TASK_RUNNING_STATE 0
#define TASK_DEAD_STATE 0x80

const volatile u32 group_by = LAT_BY_COMM;
const volatile u32 comm_len = LAT_COMM_LEN;
/* Filters; a task is traced only if it passes every enabled one. */
const volatile char filter_comm[LAT_COMM_LEN];
const volatile u32 filter_comm_len;
/*
 * The filter cgroup's level as its path shows it: -1, no cgroup filter.
 * Inside a cgroup namespace the path starts at the namespace's root, so
 * its real level (cgrp->level, from the real root) can be higher: the
 * ancestors up to LAT_CG_NS_MAX levels higher are searched for its id,
 * and the level where it is found is kept in filter_cg_found.
 */
const volatile s32 filter_cg_level = -1;
const volatile u64 filter_cg_id;
s32 filter_cg_found = -1;
const volatile bool filter_pids;

/* lat_task.wake: what the pending wakeup was */
#define WAKE_IDLE 1   /* the target CPU ran its idle task */
#define WAKE_REMOTE 2 /* the target CPU is not the waker's */
#define WAKE_QUEUED 4 /* activated on another CPU than sched_waking's */

/* Per-task timestamps (ns, bpf_ktime_get_ns); 0 = unknown. */
struct task_lat {
	u64 runnable_at; /* woken or switched out runnable */
	u64 running_at;  /* switched in */
	u64 waking_at;   /* sched_waking (or sched_wakeup_new) of the pending wakeup */
	u32 waking_cpu;  /* the CPU of that sched_waking, + 1; 0 = none, or its
			  * sched_wakeup has used it (waking_at stays for wake_done) */
	u8 wake;         /* WAKE_* of the pending wakeup */
	bool woken;      /* runnable_at is a wakeup, not a preemption */
	bool waiting;    /* counted in nr_waiting */
};

/* The per-CPU run queues: is a CPU running its idle task right now? */
extern const struct rq runqueues __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_lat);
} lat_task SEC(".maps");

/* Group table; userspace sizes it (--max-groups) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct lat_key);
	__type(value, struct lat_group);
} lat_groups SEC(".maps");

/* --pid: thread ids and process ids to trace (value unused). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u8);
} lat_pids SEC(".maps");

/* Source of a new group's zeroed value (too big for the BPF stack). */
const struct lat_group lat_zero_group;

u64 nr_group_full;   /* events dropped: the group table was full */
/* Idle CPU time while traced tasks wait (see the top); its running state. */
u64 idle_waiting_ns;
s64 nr_waiting;      /* traced tasks runnable and not running (counted ones) */
s64 nr_idle;         /* CPUs whose last switch was to their idle task */
u64 idle_acc_at;     /* up to when idle_waiting_ns is summed */
/* per CPU: 0 no switch seen yet, 1 running a task, 2 idle */
u8 cpu_state[LAT_MAX_CPUS];
u64 nr_no_storage;   /* events dropped: no task storage */

/*
 * The id of the cgroup at @level on @cgrp's path to the root, @cgrp's
 * ancestors[@level] (@level <= @cgrp's); 0 if unreadable. The array's offset
 * is relocated; the index is not a constant, so it is added by hand.
 */
static __always_inline u64 cg_ancestor_id(struct cgroup *cgrp, s32 level)
{
	void *ancestors = (void *)cgrp + bpf_core_field_offset(struct cgroup, ancestors);
	struct cgroup *anc = NULL;

	bpf_probe_read_kernel(&anc, sizeof(anc), ancestors + level * sizeof(anc));
	return anc ? BPF_CORE_READ(anc, kn, id) : 0;
}

static __always_inline bool traced(struct task_struct *p)
{
	if (filter_pids) {
		u32 tid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);

		if (!bpf_map_lookup_elem(&lat_pids, &tid) && !bpf_map_lookup_elem(&lat_pids, &tgid))
			return false;
	}
	if (filter_comm_len) {
		char comm[LAT_COMM_LEN] = {};
		u32 i;

		BPF_CORE_READ_STR_INTO(&comm, p, comm);
		for (i = 0; i < LAT_COMM_LEN; i++)
			if (i < filter_comm_len && comm[i] != filter_comm[i])
				return false;
	}
	if (filter_cg_level >= 0) {
		struct cgroup *cgrp = BPF_CORE_READ(p, cgroups, dfl_cgrp);
		s32 level, found = filter_cg_found, i;

		if (!cgrp)
			return false;
		level = BPF_CORE_READ(cgrp, level);
		if (found >= 0)
			return level >= found && cg_ancestor_id(cgrp, found) == filter_cg_id;
		for (i = filter_cg_level; i <= filter_cg_level + LAT_CG_NS_MAX && i <= level; i++) {
			if (cg_ancestor_id(cgrp, i) == filter_cg_id) {
				filter_cg_found = i;
				return true;
			}
		}
		return false;
	}
	return true;
}

/* The group of @p, created on first use; NULL when the table is full. */
static __always_inline struct lat_group *group_of(struct task_struct *p)
{
	struct lat_key key = {};
	struct lat_group *g;
	u32 i;

	if (group_by == LAT_BY_CGROUP) {
		key.cgid = BPF_CORE_READ(p, cgroups, dfl_cgrp, kn, id);
	} else {
		BPF_CORE_READ_STR_INTO(&key.comm, p, comm);
		/* --by comm:N keeps the first N bytes */
		for (i = 0; i < LAT_COMM_LEN; i++)
			if (i >= comm_len)
				key.comm[i] = 0;
	}
	g = bpf_map_lookup_elem(&lat_groups, &key);
	if (g)
		return g;
	bpf_map_update_elem(&lat_groups, &key, (void *)&lat_zero_group, BPF_NOEXIST);
	g = bpf_map_lookup_elem(&lat_groups, &key);
	if (!g)
		__sync_fetch_and_add(&nr_group_full, 1);
	return g;
}

static __always_inline void hist_add(struct lat_hist *h, u64 v)
{
	u32 b = lat_hist_bucket(v);
	u64 old;
	int i;

	if (b >= LAT_HIST_NR)
		return;
	__sync_fetch_and_add(&h->bucket[b], 1);
	__sync_fetch_and_add(&h->sum, v);
	if (v >> LAT_HIST_MAX_SHIFT)
		__sync_fetch_and_add(&h->overflow, 1);
	/* lock-free max: retry a few times if another CPU raced us */
	for (i = 0; i < 4; i++) {
		old = READ_ONCE(h->max);
		if (v <= old || __sync_val_compare_and_swap(&h->max, old, v) == old)
			break;
	}
}

static __always_inline struct task_lat *task_lat(struct task_struct *p)
{
	struct task_lat *t;

	t = bpf_task_storage_get(&lat_task, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		__sync_fetch_and_add(&nr_no_storage, 1);
	return t;
}

/* Sum idle_waiting_ns up to @now, before nr_waiting or nr_idle changes. */
static __always_inline void idle_account(u64 now)
{
	u64 last = idle_acc_at;
	s64 w = nr_waiting, i = nr_idle;

	idle_acc_at = now;
	if (last && now > last && w > 0 && i > 0)
		__sync_fetch_and_add(&idle_waiting_ns, (now - last) * (u64)(w < i ? w : i));
}

/* @t's task starts or stops waiting on a run queue (@wait), at @now. */
static __always_inline void set_waiting(struct task_lat *t, bool wait, u64 now)
{
	if (t->waiting == wait)
		return;
	idle_account(now);
	t->waiting = wait;
	__sync_fetch_and_add(&nr_waiting, wait ? 1 : -1);
}

/* This CPU switches to @next (pid 0: its idle task), at @now. */
static __always_inline void cpu_switch(struct task_struct *next, u64 now)
{
	u32 cpu = bpf_get_smp_processor_id();
	u8 old, st = BPF_CORE_READ(next, pid) ? 1 : 2;

	if (cpu >= LAT_MAX_CPUS)
		return;
	old = cpu_state[cpu];
	if (old == st)
		return;
	idle_account(now);
	cpu_state[cpu] = st;
	if (old == 2)
		__sync_fetch_and_add(&nr_idle, -1);
	if (st == 2)
		__sync_fetch_and_add(&nr_idle, 1);
}

/* @cpu runs its idle task (pid 0); false if that cannot be read */
static __always_inline bool cpu_idle(u32 cpu)
{
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, cpu);
	struct task_struct *curr;

	if (!rq)
		return false;
	curr = BPF_CORE_READ(rq, curr);
	return curr && BPF_CORE_READ(curr, pid) == 0;
}

/* sched_waking: try_to_wake_up() starts, on the waker's CPU */
SEC("tp_btf/sched_waking")
int BPF_PROG(lat_waking, struct task_struct *p)
{
	struct task_lat *t;

	if (!traced(p))
		return 0;
	t = task_lat(p);
	if (!t)
		return 0;
	t->waking_at = bpf_ktime_get_ns();
	t->waking_cpu = bpf_get_smp_processor_id() + 1;
	return 0;
}

static __always_inline int on_wakeup(struct task_struct *p, bool new)
{
	u32 cpu = bpf_get_smp_processor_id(), target, waker;
	struct task_lat *t;
	u64 now;
	u8 wake = 0;

	if (!traced(p))
		return 0;
	t = task_lat(p);
	if (!t)
		return 0;
	/* already waiting on a run queue since a preemption: keep that start */
	if (t->runnable_at && !t->woken) {
		t->waking_at = 0;
		t->waking_cpu = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	/* a new task has no sched_waking: it is woken where it is created */
	if (new || !t->waking_cpu || !t->waking_at || t->waking_at > now) {
		t->waking_at = now;
		t->waking_cpu = cpu + 1;
	}
	waker = t->waking_cpu - 1;
	/* used: a switch-out to sleep must not keep it for the next wakeup */
	t->waking_cpu = 0;
	target = BPF_CORE_READ(p, thread_info.cpu);
	if (cpu_idle(target))
		wake |= WAKE_IDLE;
	if (target != waker)
		wake |= WAKE_REMOTE;
	if (cpu != waker)
		wake |= WAKE_QUEUED;
	t->runnable_at = now;
	t->wake = wake;
	t->woken = true;
	set_waiting(t, true, now);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(lat_wakeup, struct task_struct *p)
{
	return on_wakeup(p, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(lat_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p, true);
}

/* a wakeup's delay, switched in at @now, into @g's histograms */
static __always_inline void wake_done(struct lat_group *g, struct task_lat *t, u64 now)
{
	u64 d = now - t->runnable_at, dw;

	hist_add(&g->wake, d);
	if (t->wake & WAKE_IDLE)
		hist_add(&g->wake_idle, d);
	hist_add(t->wake & WAKE_REMOTE ? &g->wake_remote : &g->wake_local, d);
	if (t->wake & WAKE_QUEUED)
		__sync_fetch_and_add(&g->wake_queued, 1);
	dw = t->waking_at && t->waking_at <= t->runnable_at ? now - t->waking_at : d;
	hist_add(&g->waking, dw);
	if (t->wake & WAKE_IDLE)
		hist_add(&g->waking_idle, dw);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(lat_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	u64 now = bpf_ktime_get_ns();
	struct lat_group *g;
	struct task_lat *t;

	cpu_switch(next, now);
	/* pid 0 is the idle task: it neither waits nor counts as running */
	if (BPF_CORE_READ(prev, pid) && traced(prev) && (t = task_lat(prev))) {
		/* preempted with a sleeping state set still stays on the run queue */
		bool runnable = preempt || prev_state == TASK_RUNNING_STATE;

		g = group_of(prev);
		if (g) {
			if (t->running_at && now > t->running_at)
				hist_add(&g->burst, now - t->running_at);
			__sync_fetch_and_add(runnable ? &g->preempt :
					     prev_state & TASK_DEAD_STATE ? &g->exit : &g->sleep, 1);
		}
		/*
		 * try_to_wake_up() fires sched_waking once the sleeping state
		 * matches, which can be after __schedule() dequeued this task
		 * and before this sched_switch; its sched_wakeup comes after
		 * the switch (from the target's wake-list IPI, or once the
		 * waker saw p->on_cpu clear). So keep a record that is newer
		 * than this burst's switch-in and not used yet, else that
		 * wakeup loses its waker and the 'waking' delay the IPI.
		 */
		if (runnable || !t->waking_cpu || t->waking_at <= t->running_at) {
			t->waking_at = 0;
			t->waking_cpu = 0;
		}
		t->running_at = 0;
		t->runnable_at = runnable ? now : 0;
		t->woken = false;
		set_waiting(t, runnable, now);
	}
	if (BPF_CORE_READ(next, pid) && traced(next) && (t = task_lat(next))) {
		if (t->runnable_at && now >= t->runnable_at) {
			g = group_of(next);
			if (g && t->woken)
				wake_done(g, t, now);
			else if (g)
				hist_add(&g->requeue, now - t->runnable_at);
		}
		t->runnable_at = 0;
		t->woken = false;
		t->waking_at = 0;
		t->waking_cpu = 0;
		t->running_at = now;
		set_waiting(t, false, now);
	}
	return 0;
}
