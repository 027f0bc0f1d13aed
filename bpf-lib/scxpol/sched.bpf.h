/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Lifecycle support on the BPF side: the exit record userspace reads to learn
 * why the scheduler stopped (see include/scxpol/sched.h), and CPU hotplug.
 * Every policy calls scxpol_sched_record_exit() from its ops.exit callback.
 *
 * A policy without ops.cpu_online/ops.cpu_offline is unloaded by the kernel
 * at every CPU hotplug event, in the middle of that event, and
 * scxpol_sched_run() then reloads it; that unload, while the CPU is being
 * taken down, has left a task on the dying CPU (6.12). A policy whose
 * callbacks call scxpol_sched_cpu_online()/scxpol_sched_cpu_offline() stays
 * loaded through the event (the kernel moves the dying CPU's tasks off it
 * itself), and scxpol_sched_run() restarts it, re-planned for the new CPU
 * set, once the event has completed. Only scxpol_sched_run() reads the
 * events (a loader with a loop of its own should not wire the callbacks:
 * its policy would keep its old plan); a libscxpol older than this header
 * (no map scxpol_hotplug) does not read them either.
 */
#ifndef SCXPOL_SCHED_BPF_H
#define SCXPOL_SCHED_BPF_H

#include <scxpol/common.bpf.h>
#include <scxpol/abi/sched.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_sched_exit_record);
} scxpol_exit SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scxpol_hotplug_record);
} scxpol_hotplug SEC(".maps");

static __always_inline void scxpol_sched__hotplug(s32 cpu, u32 online)
{
	u32 zero = 0;
	struct scxpol_hotplug_record *r = bpf_map_lookup_elem(&scxpol_hotplug, &zero);

	if (!r)
		return;
	r->cpu = cpu;
	r->online = online;
	/* events last: userspace reads cpu and online once it changed */
	__sync_fetch_and_add(&r->events, 1);
}

/* Call from ops.cpu_online: userspace restarts the policy once @cpu is up. */
static __always_inline void scxpol_sched_cpu_online(s32 cpu)
{
	scxpol_sched__hotplug(cpu, 1);
}

/* Call from ops.cpu_offline: userspace restarts the policy once @cpu is down. */
static __always_inline void scxpol_sched_cpu_offline(s32 cpu)
{
	scxpol_sched__hotplug(cpu, 0);
}

#ifdef SCXPOL_HOST_TEST
/* The simulator's exit info has the field. */
#define SCXPOL_SCHED__HAS_EXIT_CPU(ei) 1
#define SCXPOL_SCHED__EXIT_CPU(ei) ((ei)->exit_cpu)
#else
/* 6.18+ says which CPU triggered the exit; older kernels lack the field. */
struct scx_exit_info___cpu {
	s32 exit_cpu;
} __attribute__((preserve_access_index));

#define SCXPOL_SCHED__HAS_EXIT_CPU(ei) \
	bpf_core_field_exists(((struct scx_exit_info___cpu *)(ei))->exit_cpu)
#define SCXPOL_SCHED__EXIT_CPU(ei) BPF_CORE_READ((struct scx_exit_info___cpu *)(ei), exit_cpu)
#endif

/* Copy the kernel's exit info into the record; call from ops.exit. */
static __always_inline void scxpol_sched_record_exit(struct scx_exit_info *ei)
{
	u32 zero = 0;
	struct scxpol_sched_exit_record *r = bpf_map_lookup_elem(&scxpol_exit, &zero);

	if (!r)
		return;
	bpf_probe_read_kernel_str(r->reason, sizeof(r->reason), BPF_CORE_READ(ei, reason));
	bpf_probe_read_kernel_str(r->msg, sizeof(r->msg), BPF_CORE_READ(ei, msg));
	r->exit_code = BPF_CORE_READ(ei, exit_code);
	r->exit_cpu = -1;
	if (SCXPOL_SCHED__HAS_EXIT_CPU(ei))
		r->exit_cpu = SCXPOL_SCHED__EXIT_CPU(ei);
	/* kind last: userspace treats a non-zero kind as "record complete" */
	__asm__ __volatile__("" ::: "memory");
	WRITE_ONCE(r->kind, BPF_CORE_READ(ei, kind));
}

#endif
