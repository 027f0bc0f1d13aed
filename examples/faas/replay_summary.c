// SPDX-License-Identifier: GPL-2.0
/*
 * A replay's numbers: the /proc/stat CPU counters, the per-invocation CSV,
 * and the summary (nearest-rank e2e percentiles, CPU utilisation,
 * invocation cost, core reuse) as a table and as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxpol/cpuset.h>

#include "replay.h"

int faas_cpu_stat_read(const char *path, struct faas_cpu_stat *st, char *err, size_t errlen)
{
	uint64_t v[8] = { 0 };
	char line[1024], *p, *end;
	FILE *f;
	int i;

	f = fopen(path, "re");
	if (!f)
		return faas_errf(err, errlen, errno, "%s: %s", path, strerror(errno));
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (!p || strncmp(line, "cpu ", 4))
		return faas_errf(err, errlen, EINVAL, "%s: the first line is not the \"cpu\" total line",
				 path);
	p = line + 4;
	/* user nice system idle iowait irq softirq steal [guest guest_nice] */
	for (i = 0; i < 8; i++) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || !*p) {
			if (i >= 4)
				break; /* old kernels: fewer columns */
			return faas_errf(err, errlen, EINVAL, "%s: the cpu line has %d numbers, want >= 4",
					 path, i);
		}
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (end == p || errno || (*end != ' ' && *end != '\n' && *end))
			return faas_errf(err, errlen, EINVAL, "%s: field %d of the cpu line is not a number",
					 path, i + 2);
		p = end;
	}
	st->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	st->total = st->busy + v[3] + v[4];
	return 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* @s as a CPU list, through the library's formatter; ';' between ranges. */
static int format_cpus(const struct faas_cpuset *s, struct scxpol_cpuset *tmp, char *buf,
		       size_t len)
{
	int cpu, r;
	char *c;

	for (cpu = 0; cpu < FAAS_MAX_CPUS; cpu++)
		if (faas_cpuset_has(s, cpu))
			scxpol_cpuset_set(tmp, (unsigned int)cpu);
	r = scxpol_cpuset_format(tmp, buf, len);
	for (cpu = 0; cpu < FAAS_MAX_CPUS; cpu++)
		if (faas_cpuset_has(s, cpu))
			scxpol_cpuset_clear(tmp, (unsigned int)cpu);
	if (r < 0)
		return -ENOSPC;
	for (c = buf; *c; c++)
		if (*c == ',')
			*c = ';';
	return 0;
}

int faas_replay_write_csv(const struct faas_replay *r, FILE *f)
{
	struct scxpol_cpuset *tmp = scxpol_cpuset_new(FAAS_MAX_CPUS);
	char cpus[4096];
	uint64_t i;

	if (!tmp)
		return -ENOMEM;
	fprintf(f, "id,function,kind,domain,cgroup_id,cgroup,arrival_ms,released_ms,start_ms,"
		   "end_ms,e2e_ms,worker_ms,first_cpu,cpus,core_reuse,class\n");
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];
		const struct faas_invocation *inv = &r->trace->inv[i];

		if (!x->done)
			continue;
		if (format_cpus(&x->cpus, tmp, cpus, sizeof(cpus))) {
			scxpol_cpuset_free(tmp);
			return -ENOSPC;
		}
		fprintf(f, "%llu,%s,%s,%d,%llu,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s,%s,%s\n",
			(unsigned long long)i, r->trace->funcs[inv->func].name, faas_kind_name(inv->kind),
			x->domain, (unsigned long long)x->cgroup_id, x->cgroup ? x->cgroup : "",
			ms(x->arrival_ns), ms(x->released_ns), ms(x->start_ns), ms(x->end_ns), ms(x->end_ns - x->arrival_ns),
			ms(x->end_ns - x->start_ns), x->first_cpu, cpus,
			x->reuse < 0 ? "-" : x->reuse ? "1" : "0", x->sched_class);
	}
	scxpol_cpuset_free(tmp);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the ceil(p/100 * n)-th smallest of sorted @v */
static double percentile(const double *v, uint64_t n, double p)
{
	uint64_t rank;
	double x;

	if (!n)
		return 0;
	x = p / 100.0 * (double)n;
	rank = (uint64_t)x;
	if (x - (double)rank > 1e-9) /* 99.9 / 100 * 1000 is 999.0000000000001 */
		rank++;
	return v[rank ? rank - 1 : 0];
}

int faas_replay_summarize(const struct faas_replay *r, struct faas_summary *s)
{
	double *e2e = malloc((r->nr ? r->nr : 1) * sizeof(*e2e)), sum_e2e = 0, sum_worker = 0;
	uint64_t i, n = 0;

	memset(s, 0, sizeof(*s));
	if (!e2e)
		return -ENOMEM;
	s->count = r->nr;
	s->completed = r->completed;
	s->shared = r->iat.shared - r->iat.late;
	s->held = r->iat.late;
	s->util = r->util;
	s->busy_cpu_s = r->busy_cpu_s;
	s->cp_cpu_s = r->cp_cpu_s;
	s->bodies_cpu_s = r->bodies_cpu_s;
	s->run_s = (double)r->run_ns / 1e9;
	for (i = 0; i < r->nr; i++) {
		const struct faas_inv_result *x = &r->res[i];

		if (!x->done)
			continue;
		e2e[n++] = ms(x->end_ns - x->arrival_ns);
		sum_e2e += ms(x->end_ns - x->arrival_ns);
		sum_worker += ms(x->end_ns - x->start_ns);
		if (x->reuse >= 0) {
			s->reuse_of++;
			s->reuse += (uint64_t)x->reuse;
		}
	}
	if (n) {
		qsort(e2e, n, sizeof(*e2e), cmp_double);
		s->p50_ms = percentile(e2e, n, 50);
		s->p99_ms = percentile(e2e, n, 99);
		s->p999_ms = percentile(e2e, n, 99.9);
	}
	if (n) {
		s->mean_e2e_ms = sum_e2e / (double)n;
		s->mean_worker_ms = sum_worker / (double)n;
	}
	s->cost_ms = s->mean_e2e_ms * s->util;
	free(e2e);
	return 0;
}

void faas_summary_json(const struct faas_summary *s, FILE *f)
{
	fprintf(f, "{\"count\":%llu,\"completed\":%llu,\"run_s\":%.3f,\"e2e_p50_ms\":%.3f,"
		   "\"e2e_p99_ms\":%.3f,\"e2e_p999_ms\":%.3f,\"e2e_mean_ms\":%.3f,"
		   "\"worker_mean_ms\":%.3f,\"cpu_util\":%.4f,\"invocation_cost_ms\":%.3f,"
		   "\"core_reuse\":%.4f,\"core_reuse_n\":%llu,\"core_reuse_of\":%llu,"
		   "\"shared_queue\":%llu,\"held\":%llu,\"busy_cpu_s\":%.3f,\"cp_cpu_s\":%.3f,"
		   "\"bodies_cpu_s\":%.3f}\n",
		(unsigned long long)s->count, (unsigned long long)s->completed, s->run_s, s->p50_ms,
		s->p99_ms, s->p999_ms, s->mean_e2e_ms, s->mean_worker_ms, s->util, s->cost_ms,
		s->reuse_of ? (double)s->reuse / (double)s->reuse_of : 0.0,
		(unsigned long long)s->reuse, (unsigned long long)s->reuse_of,
		(unsigned long long)s->shared, (unsigned long long)s->held, s->busy_cpu_s,
		s->cp_cpu_s, s->bodies_cpu_s);
}

void faas_summary_print(const struct faas_summary *s, FILE *f)
{
	fprintf(f, "invocations          %llu\n", (unsigned long long)s->count);
	fprintf(f, "completed            %llu\n", (unsigned long long)s->completed);
	fprintf(f, "run time             %.2f s\n", s->run_s);
	fprintf(f, "e2e latency p50      %.2f ms\n", s->p50_ms);
	fprintf(f, "e2e latency p99      %.2f ms\n", s->p99_ms);
	fprintf(f, "e2e latency p99.9    %.2f ms\n", s->p999_ms);
	fprintf(f, "e2e latency mean     %.2f ms\n", s->mean_e2e_ms);
	fprintf(f, "worker duration mean %.2f ms\n", s->mean_worker_ms);
	fprintf(f, "CPU utilisation      %.1f %%\n", s->util * 100);
	fprintf(f, "CPU time             %.2f s busy: control plane %.2f s, bodies %.2f s, "
		   "other %.2f s\n", s->busy_cpu_s, s->cp_cpu_s, s->bodies_cpu_s,
		s->busy_cpu_s - s->cp_cpu_s - s->bodies_cpu_s);
	fprintf(f, "invocation cost      %.2f ms (mean e2e latency x CPU utilisation)\n", s->cost_ms);
	fprintf(f, "core reuse           %.1f %% (%llu of %llu)\n",
		s->reuse_of ? 100.0 * (double)s->reuse / (double)s->reuse_of : 0.0,
		(unsigned long long)s->reuse, (unsigned long long)s->reuse_of);
	fprintf(f, "shared queue         %llu\n", (unsigned long long)s->shared);
	fprintf(f, "held for a domain    %llu\n", (unsigned long long)s->held);
	faas_summary_json(s, f);
}
