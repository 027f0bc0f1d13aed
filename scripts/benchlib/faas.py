# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""scripts/bench faas: the replays' metrics per configuration and trace, the
ablation against EEVDF (with and without holding) and the paper's design,
the goals, worker duration per function, and the CDF data for bench/faas-plot."""
import csv
import json
import os
import subprocess

from .table import fmt, nearest_rank, print_table, ratio, spread, write_results

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# faas: the traces bench/faas-in-vm replays, in order, and per trace the
# metrics of each configuration: (key, column title, lower is better; None:
# neither). All are in the table.
FAAS_ALL_TRACES = ('under', 'medium', 'over', 'table1')
FAAS_METRICS = [
    ('p50_ms', 'p50 ms', True),
    ('p99_ms', 'p99 ms', True),
    ('cost_ms', 'cost ms', True),
    ('worker_ms', 'worker ms', True),
    ('reuse_pct', 'reuse %', False),
    ('util_pct', 'CPU %', None),
    # busy CPU time of all CPUs over the replay (/proc/stat): the energy proxy
    ('busy_cpu_s', 'busy CPU s', True),
    ('cp_cpu_s', 'cp CPU s', None),
    ('bodies_cpu_s', 'body CPU s', None),
    ('lag_p99_ms', 'cp lag p99 ms', True),
    ('shared', 'shared q', None),
    ('held', 'held', None),
]
FAAS_RATIO_KEYS = ('p50_ms', 'p99_ms', 'cost_ms', 'worker_ms', 'reuse_pct', 'busy_cpu_s')
# the faas issues' targets: e2e p99 as a ratio to a baseline's (EEVDF's,
# and EEVDF's with the same holding where the list has it), per trace
FAAS_GOALS = (('over', 'eevdf', 0.5), ('over', 'eevdf-hold', 0.9), ('under', 'eevdf', 1.05))
# the ablation: each configuration against these, in the same boot
FAAS_ABLATION_BASES = ('eevdf', 'eevdf-hold', 'paper')
# functions whose mean worker duration the tables show (the most invoked)
FAAS_TOP_FUNCS = 5
FAAS_COUNTERS = ('direct', 'dispatch_pool', 'dispatch_shared', 'dispatch_steal',
                 'dispatch_none')
# CDF points kept per curve: quantiles 0, 1/N, .., 1 plus the tail
FAAS_CDF_STEPS = 400
FAAS_CDF_TAIL = (0.995, 0.999)


def faas_files(rundir, name, trace):
    return os.path.join(rundir, '%s.%s' % (name, trace))


def faas_e2e(rundir, name, trace):
    """Per invocation of one replay: (e2e ms, release lag ms), from its CSV."""
    return [(e, lag) for e, lag, _, _ in faas_rows(rundir, name, trace)]


def faas_rows(rundir, name, trace):
    """Per invocation: (e2e ms, release lag ms, function, worker ms)."""
    out = []
    with open(faas_files(rundir, name, trace) + '.csv') as f:
        for row in csv.DictReader(f):
            out.append((float(row['e2e_ms']),
                        float(row['released_ms']) - float(row['arrival_ms']),
                        row['function'], float(row['worker_ms'])))
    return out


def faas_metrics(rundir, p, traces):
    """Per trace, the metrics of configuration @p in one run directory."""
    res = {}
    for t in traces:
        base = faas_files(rundir, p['name'], t)
        with open(base + '.out') as f:
            lines = [l for l in f.read().splitlines() if l.startswith('{')]
        if not lines:
            raise ValueError('%s.out: no JSON summary line' % base)
        s = json.loads(lines[-1])
        if s['completed'] != s['count']:
            raise ValueError('%s.out: %d of %d invocations completed'
                             % (base, s['completed'], s['count']))
        rows = faas_rows(rundir, p['name'], t)
        if len(rows) != s['count']:
            raise ValueError('%s.csv: %d rows, the summary counts %d'
                             % (base, len(rows), s['count']))
        lag = sorted(r[1] for r in rows)
        by_func = {}
        for _, _, fn, w in rows:
            by_func.setdefault(fn, []).append(w)
        m = {'p50_ms': s['e2e_p50_ms'], 'p99_ms': s['e2e_p99_ms'],
             'cost_ms': s['invocation_cost_ms'], 'worker_ms': s['worker_mean_ms'],
             'reuse_pct': 100 * s['core_reuse'], 'util_pct': 100 * s['cpu_util'],
             'cp_cpu_s': s['cp_cpu_s'], 'bodies_cpu_s': s['bodies_cpu_s'],
             'lag_p99_ms': nearest_rank(lag, 99), 'lag_max_ms': lag[-1],
             'shared': s['shared_queue'], 'held': s['held'], 'count': s['count'], 'run_s': s['run_s'],
             'busy_cpu_s': s['busy_cpu_s'],
             'worker_by_func': {fn: {'n': len(w), 'mean_ms': sum(w) / len(w)}
                                for fn, w in by_func.items()}}
        if p['binary'] != '-':
            snap = []
            for suffix in ('.stat0.json', '.stat1.json'):
                with open(base + suffix) as f:
                    snap.append(json.load(f)['counters'])
            m['counters'] = {c: snap[1][c] - snap[0][c] for c in FAAS_COUNTERS}
        res[t] = m
    return res


def faas_cdf(rawdir, runs, name, trace):
    """[[ms, fraction], ...]: the e2e latency CDF of all runs' invocations."""
    v = sorted(e for run in range(1, runs + 1)
               for e, _ in faas_e2e(os.path.join(rawdir, 'run%d' % run), name, trace))
    qs = [i / FAAS_CDF_STEPS for i in range(FAAS_CDF_STEPS + 1)] + list(FAAS_CDF_TAIL)
    return [[round(nearest_rank(v, 100 * q) if q else v[0], 3), q] for q in sorted(qs)]


def faas_ablation(names, per_run, traces):
    """Per trace, configuration and baseline of FAAS_ABLATION_BASES that ran:
    spread of the p50 and p99 ratios, run by run."""
    bases = [b for b in FAAS_ABLATION_BASES if b in names]
    return {t: {p: {b: {k: spread([ratio(r[p][t][k], r[b][t][k]) for r in per_run])
                        for k in ('p50_ms', 'p99_ms')} for b in bases}
                for p in names} for t in traces}, bases


def report_faas(a, stamp, kname, plan, per_run, rawdir, outdir):
    """Tables, JSON file, CDF plot and JSON line of the faas mode."""
    names = [p['name'] for p in plan]
    base = names[0]
    traces = a.traces
    keys = [k for k, _, _ in FAAS_METRICS] + ['lag_max_ms']
    summary = {t: {p: {k: spread([r[p][t][k] for r in per_run]) for k in keys}
                   for p in names} for t in traces}
    ratios = {t: {p: {k: spread([ratio(r[p][t][k], r[base][t][k]) for r in per_run])
                      for k in FAAS_RATIO_KEYS} for p in names[1:]} for t in traces}
    counters = {t: {p: {c: spread([r[p][t]['counters'][c] for r in per_run])
                        for c in FAAS_COUNTERS}
                    for p in names if 'counters' in per_run[0][p][t]} for t in traces}
    ablation, bases = faas_ablation(names, per_run, traces)
    # the most invoked functions of each trace, and their mean worker duration per configuration
    top = {t: sorted(per_run[0][base][t]['worker_by_func'].items(),
                     key=lambda kv: (-kv[1]['n'], kv[0]))[:FAAS_TOP_FUNCS] for t in traces}
    worker = {t: {p: {fn: spread([r[p][t]['worker_by_func'][fn]['mean_ms'] for r in per_run])
                      for fn, _ in top[t]} for p in names} for t in traces}
    scale, ipu = [], []
    for run in range(1, a.runs + 1):
        for what, into in (('duration_scale', scale), ('iters_per_us', ipu)):
            with open(os.path.join(rawdir, 'run%d' % run, what)) as f:
                into.append(float(f.read()))

    print('scripts/bench faas: %d run(s), kernel %s, %d vCPUs%s, trace work x%g; %s'
          % (a.runs, kname, a.cpus, ', icount' if a.icount else '', scale[0],
             'median [min..max]' if a.runs > 1 else 'one run'))
    print('per invocation: e2e = end - arrival; worker = end - start (mean); cost = mean e2e x '
          'CPU utilisation (the paper\'s latency x cpu_utilization); reuse = first CPU used by '
          'its function\'s previous invocation; busy CPU s = busy time of all CPUs over the '
          'replay (/proc/stat), the energy proxy: a proxy, not energy; '
          'cp/body CPU s = CPU time of the control plane (the replay process) and of the '
          'bodies (its children) over the replay; '
          'cp lag = release - arrival (the control plane, RT class in every configuration; '
          'with --overflow hold it includes the hold); shared q = invocations that ran on '
          'the shared queue (no domain had room); held = invocations the control plane held '
          'until a domain had room (--overflow hold)')
    cols = [(k, t, lower) for k, t, lower in FAAS_METRICS]
    rcols = [(k, t.replace(' ms', '').replace(' %', '').replace(' s', ''), lower)
             for k, t, lower in FAAS_METRICS if k in FAAS_RATIO_KEYS]
    for t in traces:
        print_table('trace %s (%d invocations):' % (t, per_run[0][base][t]['count']),
                    [(p, summary[t][p]) for p in names], cols)
        print_table('  ratio vs %s (same boot; < 1 = lower):' % base,
                    list(ratios[t].items()), rcols, ratio_fmt=True)
    print('ablation: e2e p50 / p99 as ratios to %s (same boot; < 1 = lower):' % ', '.join(bases))
    head = ['trace', 'policy'] + ['%s vs %s' % (k, b) for b in bases for k in ('p50', 'p99')]
    rows = [[t, p] + [fmt(ablation[t][p][b][k], True) for b in bases
                      for k in ('p50_ms', 'p99_ms')] for t in traces for p in names]
    width = [max(len(c[i]) for c in rows + [head]) for i in range(len(head))]
    for line in [head] + rows:
        print('  ' + '  '.join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, width))))
    print('worker duration per function (mean ms; the %d most invoked of each trace):'
          % FAAS_TOP_FUNCS)
    for t in traces:
        print_table('  trace %s: %s' % (t, ', '.join('%s (%d)' % (fn, v['n']) for fn, v in top[t])),
                    [(p, worker[t][p]) for p in names],
                    [(fn, fn, True) for fn, _ in top[t]])
    print('policy counters per trace (SCXPOL_STAT_*, difference over the replay):')
    head = ['policy', 'trace'] + list(FAAS_COUNTERS)
    rows = [[p, t] + [fmt(counters[t][p][c]) for c in FAAS_COUNTERS]
            for p in names if p in counters[traces[0]] for t in traces]
    width = [max(len(c[i]) for c in rows + [head]) for i in range(len(head))]
    for line in [head] + rows:
        print('  ' + '  '.join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, width))))

    goals = [(t, b, x) for t, b, x in FAAS_GOALS if t in traces and b in names]
    goal = {'p99_max_ratio': [{'trace': t, 'vs': b, 'max': x} for t, b, x in goals],
            'policies': {}, 'met': []}
    for p in names:
        if p in [b for _, b, _ in goals]:
            continue
        got = {}
        for t, b, x in goals:
            r = spread([ratio(r[p][t]['p99_ms'], r[b][t]['p99_ms']) for r in per_run])['median']
            got['%s vs %s' % (t, b)] = {'ratio': None if r is None else round(r, 4),
                                        'max': x, 'met': r is not None and r <= x}
        goal['policies'][p] = got
        if got and all(v['met'] for v in got.values()):
            goal['met'].append(p)
        print('goal (e2e p99): %s %s' % (p, ', '.join(
            '%s x%s (<= x%.2f) %s' % (k, 'n/a' if v['ratio'] is None else '%.2f' % v['ratio'],
                                      v['max'], 'met' if v['met'] else 'NOT met')
            for k, v in got.items())))

    result = {
        'mode': a.mode, 'date': stamp, 'runs': a.runs, 'kernel': kname, 'cpus': a.cpus,
        'icount': a.icount, 'duration_scale': scale, 'iters_per_us': ipu, 'policies': names,
        'args': {p['name']: p['args'] for p in plan}, 'traces': list(traces),
        'metrics': summary, 'ratios': {'vs_' + base: ratios}, 'counters': counters,
        'ablation': ablation, 'worker_by_func': worker, 'goal': goal,
        'cdf': {t: {p: faas_cdf(rawdir, a.runs, p, t) for p in names} for t in traces},
        'per_run': per_run, 'raw': rawdir,
    }
    result['plot'] = os.path.join(outdir, '%s-%s.svg' % (a.mode, stamp))
    path = write_results(outdir, a.mode, stamp, result)
    svg = result['plot']
    r = subprocess.run([os.path.join(TOP, 'bench', 'faas-plot'), path, svg])
    if r.returncode:
        raise ValueError('bench/faas-plot %s %s failed (exit %d)' % (path, svg, r.returncode))
    line = {k: result[k] for k in ('mode', 'runs', 'kernel', 'cpus', 'icount', 'policies')}
    line['duration_scale'] = scale[0]
    line['ratios'] = {'vs_' + base: {t: {p: {k: None if v[k]['median'] is None
                                             else round(v[k]['median'], 4)
                                             for k in FAAS_RATIO_KEYS}
                                         for p, v in ratios[t].items()} for t in traces}}
    line['goal'] = goal
    line['results'] = path
    line['plot'] = svg
    print(json.dumps(line, separators=(',', ':')))
