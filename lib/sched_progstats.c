// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Program stats of a loaded policy: each BPF program's verified
 * instructions and, printed at detach, its run count and run time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sched_internal.h"

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
void scxpol_sched__print_run_stats(struct scxpol_sched *s, FILE *f)
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
