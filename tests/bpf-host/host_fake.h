/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The unit tests' hand on the simulated kernel of libscxpol-sim
 * (<scxpol/sim/host.h>, sim/kernel.h): the headers of bpf-lib/scxpol
 * compile as host C against it (-DSCXPOL_HOST_TEST) and a test sets up
 * CPUs, idle states and tasks, calls a helper as a callback would, and
 * looks at what it did. The kernel runs detached, without the engine (see
 * sim/kernel.h): inserts take effect at once, kicks, timers and errors are
 * recorded, not acted on, and idle CPUs are picked lowest first.
 *
 *   CPUs      fake_reset(n) makes CPUs 0..n-1, all idle, each its own core;
 *             fake_set_core() groups SMT siblings. The CPU a callback runs
 *             on is fake_set_cpu() (bpf_get_smp_processor_id()); all are
 *             online until fake_set_online().
 *   Idle      the kernel's idle masks; scx_bpf_pick_idle_cpu() takes the
 *             lowest idle CPU of the mask, whole idle cores first under SMT.
 *   DSQs      the simulator's, FIFO or vtime-ordered; SCX_DSQ_LOCAL is the
 *             local DSQ of the task's CPU (scx_bpf_task_cpu());
 *             SCX_DSQ_LOCAL_ON checks the task's allowed CPUs as Linux 6.12
 *             does; SCX_DSQ_GLOBAL is one FIFO the kernel consumes itself.
 *   Clock     fake_set_clock() sets scx_bpf_now() and bpf_ktime_get_ns().
 *   Maps      the simulator's; FAKE_MAP_RESIZE() plays
 *             bpf_map__set_max_entries().
 */
#ifndef SCXPOL_HOST_FAKE_H
#define SCXPOL_HOST_FAKE_H

#include <scxpol/sim/host.h>

#include "kernel.h"

#define FAKE_MAX_CPUS SCXPOL_SIM_MAX_CPUS
#define FAKE_MAP_RESIZE(m, n) scxpol_sim_map_resize((void *)(m), (n))
#define fake_kick sim_kick
#define fake_insert sim_insert

/* Forget all state: @nr_cpus idle CPUs, one core each, clock 0, CPU 0 current. */
void fake_reset(u32 nr_cpus);
/* Put @cpu in core @core (SMT siblings share a core). */
void fake_set_core(s32 cpu, s32 core);
void fake_set_idle(s32 cpu, bool idle);
bool fake_cpu_idle(s32 cpu);
/* Take @cpu out of (false) or back into the online mask; all are online after fake_reset(). */
void fake_set_online(s32 cpu, bool online);
void fake_set_cpu(s32 cpu);
/* The task @cpu runs (bpf_get_current_task_btf() there); NULL: its idle task. */
void fake_set_curr(s32 cpu, struct task_struct *p);
void fake_set_clock(u64 ns);
void fake_advance(u64 ns);
u64 fake_clock(void);

/* A task with weight 100 allowed on every CPU, on CPU 0. */
void fake_task_init(struct task_struct *p, s32 pid, const char *comm);
/* Restrict @p to the CPUs in @cpus[0..n-1]. */
void fake_task_allow(struct task_struct *p, const s32 *cpus, int n);

/* DSQ contents: count (-1: no such DSQ), the @i-th task in dispatch order, or NULL. */
int fake_dsq_count(u64 dsq_id);
struct task_struct *fake_dsq_at(u64 dsq_id, int i);
bool fake_dsq_exists(u64 dsq_id);
int fake_local_count(s32 cpu);
struct task_struct *fake_local_at(s32 cpu, int i);
/* Take the first task of @cpu's local DSQ (it starts running there). */
struct task_struct *fake_local_pop(s32 cpu);
/* Calls of scx_bpf_dsq_move_to_local() since the reset. */
unsigned int fake_nr_moves(void);

unsigned int fake_nr_kicks(void);
const struct fake_kick *fake_kick_at(unsigned int i);
void fake_clear_kicks(void);
const struct fake_insert *fake_last_insert(void);
unsigned int fake_nr_inserts(void);

/*
 * BPF timers (struct bpf_timer of <linux/bpf.h>) are recorded, not run: the
 * delay of @t's last bpf_timer_start() (0: never started since
 * fake_reset() or fake_timer_clear()) and its callback; a test runs the
 * callback itself.
 */
u64 fake_timer_ns(const struct bpf_timer *t);
void *fake_timer_cb(const struct bpf_timer *t);
void fake_timer_clear(const struct bpf_timer *t);

/*
 * scxpol_error()/scxpol_exit() and what the kernel would call the policy's
 * error: how many, the last one's message. A test that provokes one takes
 * it (fake_take_errors()); fake_teardown() fails a test that left any.
 */
unsigned int fake_nr_errors(void);
const char *fake_last_error(void);
/* Forget the errors recorded so far; returns how many there were. */
unsigned int fake_take_errors(void);
/* A cmocka teardown: prints the errors left and fails (-1) if there are any. */
int fake_teardown(void **state);

int fake_cpumasks_live(void);
/* bpf_cpumask_create() returns NULL after @n more masks (-1: never; fake_reset() sets -1). */
void fake_cpumask_fail_after(int n);
/* Sum of a PERCPU_ARRAY u64 slot over all CPUs (stats counters). */
u64 fake_percpu_sum(void *def, u32 key);

/* Helpers for tests building masks. */
void fake_mask_set(struct cpumask *m, s32 cpu);
bool fake_mask_test(const struct cpumask *m, s32 cpu);

#endif
