// SPDX-License-Identifier: GPL-2.0
/*
 * scxpol-sim's output (report.h). Numbers are printed with fixed formats
 * and nothing depends on the wall clock or an address, so the same inputs
 * give the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report.h"

static const struct {
	const char *key, *title;
	bool lower_better;
} metrics[M_NR] = {
	[M_RQ_P50] = { "rq_p50_us", "rq p50 us", true },
	[M_RQ_P99] = { "rq_p99_us", "rq p99 us", true },
	[M_RQ_P999] = { "rq_p999_us", "rq p99.9 us", true },
	[M_REQ_PER_S] = { "req_per_s", "requests/s", false },
	[M_BG_UNITS] = { "bg_units_per_s", "bg units/s", false },
	[M_REQ_P99] = { "req_p99_us", "req p99 us", true },
	[M_WAKE_P99] = { "wake_p99_us", "wake p99 us", true },
	[M_BG_RQ_P99] = { "bg_rq_p99_us", "bg rq p99 us", true },
	[M_LC_PREEMPT] = { "lc_preempt_per_s", "lc preempt/s", true },
	[M_BG_BURST] = { "bg_burst_mean_us", "bg burst us", false },
	[M_IDLE_PCT] = { "idle_pct", "idle %", false },
	[M_IDLE_P99] = { "idle_p99_us", "idle p99 us", true },
	[M_RQ_X_IDLE] = { "rq_p99_x_idle", "rq p99 / idle p99", true },
	[M_REMOTE_PCT] = { "remote_pct", "remote %", false },
	[M_CPU_IDLE_PCT] = { "cpu_idle_pct", "cpu idle %", false },
	[M_LC_CPU_PCT] = { "lc_cpu_pct", "lc %", false },
	[M_BG_CPU_PCT] = { "bg_cpu_pct", "bg %", false },
	[M_UNSERVED] = { "unserved", "unserved", true },
	[M_REQUESTS] = { "requests", "requests", false },
	[M_E2E_P50] = { "e2e_p50_ms", "e2e p50 ms", true },
	[M_E2E_P99] = { "e2e_p99_ms", "e2e p99 ms", true },
	[M_E2E_P999] = { "e2e_p999_ms", "e2e p99.9 ms", true },
	[M_COST] = { "invocation_cost_ms", "cost ms", true },
	[M_UTIL] = { "cpu_util", "cpu util", false },
};

/* The metrics a table and the plot show, when measured. */
static const enum metric shown[] = { M_RQ_P50, M_RQ_P99, M_RQ_P999, M_REQ_P99, M_WAKE_P99,
				     M_BG_UNITS, M_CPU_IDLE_PCT, M_E2E_P50, M_E2E_P99, M_COST };

static void num(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, "null");
	else
		fprintf(f, "%.4f", v);
}

/* The index of the run labelled @name ("minimal"), or -1. */
static int find(const struct run *runs, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(runs[i].label, name))
			return (int)i;
	return -1;
}

static void ratios(FILE *f, const struct run *r, const struct run *base)
{
	unsigned int k;

	fprintf(f, "{\"vs\":\"%s\"", base->label);
	for (k = 0; k < M_NR; k++) {
		if (isnan(r->m[k]) || isnan(base->m[k]) || base->m[k] == 0)
			continue;
		fprintf(f, ",\"%s\":", metrics[k].key);
		num(f, r->m[k] / base->m[k]);
	}
	fprintf(f, "}");
}

void report_json(FILE *f, const struct spec *s, const struct run *runs, unsigned int n)
{
	int minimal = find(runs, n, "minimal");
	unsigned int i, k;

	fprintf(f, "{\"scxpol_sim\":1,\"spec\":\"%s\",\"machine\":{", s->path);
	if (s->sysfs[0])
		fprintf(f, "\"sysfs\":\"%s\",", s->sysfs);
	fprintf(f, "\"cpus\":%u,\"smt\":%u,"
		   "\"llcs\":%u,\"nodes\":%u,\"tick_ns\":%llu,\"ctxsw_ns\":%llu,\"ipi_ns\":%llu,"
		   "\"idle_exit_ns\":%llu},\"seed\":%llu,\"duration_s\":%.3f,\"warmup_s\":%.3f,"
		   "\"runs\":[",
		s->cpus, s->smt, s->llcs, s->nodes, (unsigned long long)s->tick_ns,
		(unsigned long long)s->ctxsw_ns, (unsigned long long)s->ipi_ns,
		(unsigned long long)s->idle_exit_ns, (unsigned long long)s->seed,
		(double)s->duration_ns / 1e9, (double)s->warmup_ns / 1e9);
	for (i = 0; i < n; i++) {
		const struct run *r = &runs[i];

		fprintf(f, "%s{\"policy\":\"%s\"", i ? "," : "", r->label);
		if (r->status) {
			fprintf(f, ",\"error\":\"");
			for (k = 0; r->err[k]; k++)
				fprintf(f, r->err[k] == '"' || r->err[k] == '\\' ? "\\%c" : "%c",
					r->err[k]);
			fprintf(f, "\"}");
			continue;
		}
		fprintf(f, ",\"metrics\":{");
		for (k = 0; k < M_NR; k++) {
			fprintf(f, "%s\"%s\":", k ? "," : "", metrics[k].key);
			num(f, r->m[k]);
		}
		fprintf(f, "}");
		if (i) {
			fprintf(f, ",\"x_first\":");
			ratios(f, r, &runs[0]);
		}
		if (minimal >= 0 && (int)i != minimal && !runs[minimal].status) {
			fprintf(f, ",\"x_minimal\":");
			ratios(f, r, &runs[minimal]);
		}
		if (r->nr_cdf) {
			fprintf(f, ",\"cdf\":[");
			for (k = 0; k < r->nr_cdf; k++)
				fprintf(f, "%s[%.3f,%.2f]", k ? "," : "", r->cdf[k][0], r->cdf[k][1]);
			fprintf(f, "]");
		}
		fprintf(f, ",%s}", r->json);
	}
	fprintf(f, "]}\n");
}

void report_table(FILE *f, const struct spec *s, const struct run *runs, unsigned int n)
{
	unsigned int i, k;

	fprintf(f, "scxpol-sim %s: %u CPUs (%u SMT, %u LLCs, %u nodes%s%s), %.1f s after %.1f s, "
		   "seed %llu\n", s->path, s->cpus, s->smt, s->llcs, s->nodes,
		s->sysfs[0] ? " from " : "", s->sysfs,
		(double)s->duration_ns / 1e9, (double)s->warmup_ns / 1e9,
		(unsigned long long)s->seed);
	fprintf(f, "%-28s", "policy");
	for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		if (n && !isnan(runs[0].m[shown[k]]))
			fprintf(f, " %14s", metrics[shown[k]].title);
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "%-28.28s", runs[i].label);
		if (runs[i].status) {
			fprintf(f, " failed: %s\n", runs[i].err);
			continue;
		}
		for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
			double v = runs[i].m[shown[k]], b = runs[0].m[shown[k]];

			if (isnan(b))
				continue;
			if (i && b)
				fprintf(f, " %8.1f x%4.2f", v, v / b);
			else
				fprintf(f, " %14.1f", v);
		}
		fprintf(f, "\n");
	}
}

/* --- SVG ------------------------------------------------------------------------------------ */
static const char *const colours[] = { "#000000", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#17becf" };
#define W 640
#define H 360
#define ML 70
#define MR 20
#define MT 40
#define MB 90

static void legend(FILE *f, const struct run *runs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "<rect x='%d' y='%u' width='12' height='12' fill='%s'/>"
			   "<text x='%d' y='%u' font-size='12'>%s</text>\n",
			ML, H - MB + 40 + 16 * (i / 2), colours[i % 8], ML + 16 + (int)(i % 2) * 280,
			H - MB + 51 + 16 * (i / 2), runs[i].label);
}

/* e2e latency CDFs of the faas runs, log x. */
static void cdf_plot(FILE *f, const struct run *runs, unsigned int n)
{
	double lo = 1e300, hi = 0, x, y;
	unsigned int i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < runs[i].nr_cdf; k++) {
			lo = runs[i].cdf[k][0] > 0 && runs[i].cdf[k][0] < lo ? runs[i].cdf[k][0] : lo;
			hi = runs[i].cdf[k][0] > hi ? runs[i].cdf[k][0] : hi;
		}
	lo = pow(10, floor(log10(lo)));
	hi = pow(10, ceil(log10(hi > lo ? hi : lo * 10)));
	fprintf(f, "<text x='%d' y='24' font-size='14'>e2e latency CDF (ms, log scale)</text>\n",
		ML);
	for (x = lo; x <= hi * 1.0001; x *= 10)
		fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%g</text>\n",
			ML + (log10(x) - log10(lo)) / (log10(hi) - log10(lo)) * (W - ML - MR),
			H - MB + 16, x);
	for (i = 0; i < n; i++) {
		if (!runs[i].nr_cdf)
			continue;
		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='",
			colours[i % 8]);
		for (k = 0; k < runs[i].nr_cdf; k++) {
			x = runs[i].cdf[k][0] > lo ? runs[i].cdf[k][0] : lo;
			x = ML + (log10(x) - log10(lo)) / (log10(hi) - log10(lo)) * (W - ML - MR);
			y = H - MB - runs[i].cdf[k][1] * (H - MT - MB);
			fprintf(f, "%.1f,%.1f ", x, y);
		}
		fprintf(f, "'/>\n");
	}
}

/* The shown metrics as bars, each relative to the first policy's. */
static void bar_plot(FILE *f, const struct run *runs, unsigned int n)
{
	unsigned int i, k, nm = 0, j;
	enum metric ms[sizeof(shown) / sizeof(shown[0])];
	double top = 1, v, gw, bw;

	for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		if (!isnan(runs[0].m[shown[k]]) && runs[0].m[shown[k]] > 0)
			ms[nm++] = shown[k];
	for (k = 0; k < nm; k++)
		for (i = 0; i < n; i++)
			if (!runs[i].status && runs[i].m[ms[k]] / runs[0].m[ms[k]] > top)
				top = runs[i].m[ms[k]] / runs[0].m[ms[k]];
	fprintf(f, "<text x='%d' y='24' font-size='14'>x %s (lower is better but for "
		   "throughputs)</text>\n", ML, runs[0].label);
	fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='end'>x%.2g</text>\n", ML - 4,
		MT + 4, top);
	fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='end'>x1</text>\n", ML - 4,
		(int)(H - MB - (H - MT - MB) / top) + 4);
	gw = nm ? (double)(W - ML - MR) / nm : 0;
	bw = gw * 0.8 / (n ? n : 1);
	for (k = 0; k < nm; k++) {
		fprintf(f, "<text x='%.1f' y='%d' font-size='10' text-anchor='middle'>%s</text>\n",
			ML + gw * (k + 0.5), H - MB + 16, metrics[ms[k]].title);
		for (j = 0; j < n; j++) {
			if (runs[j].status)
				continue;
			v = runs[j].m[ms[k]] / runs[0].m[ms[k]] / top * (H - MT - MB);
			fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>\n",
				ML + gw * k + gw * 0.1 + bw * j, H - MB - v, bw, v, colours[j % 8]);
		}
	}
}

int report_svg(const char *path, const struct spec *s, const struct run *runs, unsigned int n,
	       char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	unsigned int i;
	bool cdf = false;

	if (!f) {
		snprintf(err, errlen, "--svg %s: %s", path, strerror(errno));
		return -EIO;
	}
	for (i = 0; i < n; i++)
		cdf |= runs[i].nr_cdf > 0;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%u' "
		   "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W, H + 16 * (n / 2));
	fprintf(f, "<text x='%d' y='%d' font-size='11' fill='#555'>%s, %u CPUs, seed %llu</text>\n",
		ML, H - MB + 32, s->path, s->cpus, (unsigned long long)s->seed);
	fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888'/>\n", ML, H - MB, W - MR,
		H - MB);
	fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888'/>\n", ML, MT, ML, H - MB);
	if (n && cdf)
		cdf_plot(f, runs, n);
	else if (n && !runs[0].status)
		bar_plot(f, runs, n);
	legend(f, runs, n);
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		snprintf(err, errlen, "--svg %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
