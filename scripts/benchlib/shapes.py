# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""scripts/bench ads (and ref): per workload shape, the run-queue delay,
request latency, wakeups and CPU time of each policy against the baselines,
and the ads issue's targets."""
import json
import os
import statistics

from .table import fmt, print_table, ratio, spread, write_results


# (key, column title, lower is better); the first are in the table
METRICS = [
    ('rq_p50_us', 'rq p50 us', True),
    ('rq_p99_us', 'rq p99 us', True),
    ('rq_p999_us', 'rq p99.9 us', True),
    ('req_p50_us', 'req p50 us', True),
    ('req_p99_us', 'req p99 us', True),
    ('req_p999_us', 'req p99.9 us', True),
    ('bg_units_per_s', 'bg units/s', False),
    # idle CPU time while a critical or background thread waited on a run
    # queue (scxpol-lat), as a share of all vCPU time
    ('idle_wait_pct', 'idle-waiting %', True),
    ('req_per_s', 'requests/s', False),
    ('wake_p99_us', 'wake p99 us', True),
    ('bg_rq_p99_us', 'bg rq p99 us', True),
    ('lc_preempt_per_s', 'lc preempt/s', True),
    ('bg_burst_mean_us', 'bg burst us', False),
    # the critical threads' wakeups by target CPU (scxpol-lat; the "wakeups"
    # table of the ref and ads modes): the share onto an idle CPU and their
    # delay's p99, the floor of the rq p99 (nothing queues ahead of them);
    # rq p99 as a multiple of it; the share the kernel queued on the
    # target's wake list (EEVDF's TTWU_QUEUE; not sched_ext tasks), whose
    # wake delay starts only at the target's IPI; and the delays from
    # sched_waking instead, which include that IPI under every scheduler;
    # the share onto another CPU than the waker's (an IPI to leave idle or
    # to preempt) and the p99 of those and of the local ones
    ('idle_pct', 'idle %', None),
    ('idle_p99_us', 'idle p99 us', True),
    ('rq_p99_x_idle', 'rq p99 / idle p99', True),
    ('queued_pct', 'queued %', None),
    ('waking_p99_us', 'waking p99 us', True),
    ('waking_idle_p99_us', 'waking idle p99 us', True),
    ('remote_pct', 'remote %', None),
    ('remote_p99_us', 'remote p99 us', True),
    ('local_p99_us', 'local p99 us', True),
    # where the vCPUs' time went during the workload run (the "CPU time"
    # table): idle (/proc/stat), and run by the critical and by the
    # background threads (scxpol-lat's run bursts), as shares of all vCPU time
    ('cpu_idle_pct', 'idle %', None),
    ('lc_cpu_pct', 'lc %', None),
    ('bg_cpu_pct', 'bg %', None),
]
TABLE_METRICS = 9
# the "wakeups" and "CPU time" tables: (first, last) of METRICS
WAKE_METRICS = ('idle_pct', 'local_p99_us')
CPU_METRICS = ('cpu_idle_pct', 'bg_cpu_pct')


def group(lat, name, what):
    for g in lat['groups']:
        if g['name'] == name:
            return g
    raise ValueError('scxpol-lat saw no %s threads (group %r): %s'
                     % (what, name, [g['name'] for g in lat['groups']]))


# per shape, the counters of a policy that serves stats (scxpol-stat; ads's
# own and the library's): difference over the shape's run
SHAPE_COUNTERS = ('lc_idle_other', 'lc_preempt_bg', 'lc_waited_ns', 'direct', 'steal_idle',
                  'reclaim', 'dispatch_steal', 'dispatch_borrow')


def shape_counters(base):
    """The counters of SHAPE_COUNTERS a policy served over a shape, and its resizes."""
    try:
        snap = []
        for suffix in ('.stat0.json', '.stat1.json'):
            with open(base + suffix) as f:
                snap.append(json.load(f)['counters'])
    except FileNotFoundError:
        return None
    out = {c: snap[1][c] - snap[0][c] for c in SHAPE_COUNTERS if c in snap[1] and c in snap[0]}
    with open(base + '.policy.log') as f:
        out['resizes'] = [l.split(':', 1)[1].strip() for l in f if 'resized' in l]
    return out


def metrics(rundir, p, shape):
    """The metrics of policy @p under workload @shape in one run directory."""
    name = p['name']
    base = os.path.join(rundir, '%s.%s' % (name, shape))
    with open(base + '.lat.json') as f:
        lat = json.load(f)
    with open(base + '.wl.out') as f:
        wl = json.loads(f.read().strip().splitlines()[-1])
    want = 'fair' if p['binary'] == '-' else p['ops']
    got = (lat['scheduler']['start'], lat['scheduler']['end'])
    if got != (want, want):
        raise ValueError('%s: scxpol-lat saw scheduler %s at the start and %s at the end, want %s'
                         % (name, got[0], got[1], want))
    lc, bg = group(lat, 'lc-', 'critical'), group(lat, 'bg-', 'background')
    # the workload's window: its threads (the only ones traced) exist only then
    secs = wl['duration_s']
    wakes = lc['wake']['count']
    with open(base + '.cpu') as f:
        cpu = f.read().split()
    if len(cpu) != 6 or cpu[0:5:2] != ['idle', 'total', 'cpus'] or not int(cpu[3]) > 0:
        raise ValueError('%s.cpu: want "idle N total M cpus K", got %r' % (base, ' '.join(cpu)))
    vcpu_ns = secs * 1e9 * int(cpu[5])
    return {
        'rq_p50_us': lc['rqdelay']['p50_ns'] / 1e3,
        'rq_p99_us': lc['rqdelay']['p99_ns'] / 1e3,
        'rq_p999_us': lc['rqdelay']['p999_ns'] / 1e3,
        'req_per_s': wl['requests_per_s'],
        'bg_units_per_s': wl['bg_units_per_s'],
        'req_p50_us': wl['request_latency']['p50_ns'] / 1e3,
        'req_p99_us': wl['request_latency']['p99_ns'] / 1e3,
        'req_p999_us': wl['request_latency']['p999_ns'] / 1e3,
        'idle_wait_pct': 100 * lat['idle_waiting_ns'] / vcpu_ns,
        'wake_p99_us': wl['wakeup_latency']['p99_ns'] / 1e3,
        'bg_rq_p99_us': bg['rqdelay']['p99_ns'] / 1e3,
        'lc_preempt_per_s': lc['preempt'] / secs,
        'bg_burst_mean_us': bg['burst']['mean_ns'] / 1e3,
        'idle_pct': 100 * lc['wake_idle']['count'] / wakes if wakes else 0,
        'idle_p99_us': lc['wake_idle']['p99_ns'] / 1e3,
        'rq_p99_x_idle': (lc['rqdelay']['p99_ns'] / lc['wake_idle']['p99_ns']
                          if lc['wake_idle']['p99_ns'] else None),
        'queued_pct': 100 * lc['wake_queued'] / wakes if wakes else 0,
        'waking_p99_us': lc['waking']['p99_ns'] / 1e3,
        'waking_idle_p99_us': lc['waking_idle']['p99_ns'] / 1e3,
        'remote_pct': 100 * lc['wake_remote']['count'] / wakes if wakes else 0,
        'remote_p99_us': lc['wake_remote']['p99_ns'] / 1e3,
        'local_p99_us': lc['wake_local']['p99_ns'] / 1e3,
        'cpu_idle_pct': 100 * int(cpu[1]) / int(cpu[3]),
        'lc_cpu_pct': 100 * lc['burst']['count'] * lc['burst']['mean_ns'] / vcpu_ns,
        'bg_cpu_pct': 100 * bg['burst']['count'] * bg['burst']['mean_ns'] / vcpu_ns,
        'lc_wakeups': wakes,
        # due in the window but not finished in it (the backlog of a policy
        # that fell behind), or refused: not in the request latencies
        'unserved': wl.get('unfinished', 0) + wl['dropped'],
        'lc_samples': lc['rqdelay']['count'],
        'requests': wl['requests'],
        'counters': shape_counters(base),
    }

# the ads issue's targets, per shape, for every policy but the baselines:
# critical rq p99 at most x0.5 minimal's and x0.2 EEVDF's, background
# throughput at least x0.9 EEVDF's, idle CPU time while work waits no more
# than EEVDF's (median of the per-boot differences, in points of vCPU time)
TARGETS = (('rq_p99_us', 'minimal', 0.5), ('rq_p99_us', 'eevdf', 0.2),
           ('bg_units_per_s', 'eevdf', 0.9))


def shape_report(shape, args, names, runs):
    """Tables of one shape; returns its summary, ratios and targets."""
    keys = [k for k, _, _ in METRICS]
    summary = {p: {k: spread([r[p][k] for r in runs]) for k in keys} for p in names}
    ratios = {}
    for base in ('eevdf', 'minimal'):
        if base not in names:
            continue
        ratios['vs_' + base] = {
            p: {k: spread([ratio(r[p][k], r[base][k]) for r in runs]) for k in keys}
            for p in names if p != base}
    print()
    print('shape %s: scxpol-workload %s' % (shape, ' '.join(args) or '(defaults: closed loop, '
                                            'one request in flight per worker)'))
    cols = METRICS[:TABLE_METRICS]
    print_table('absolute:', [(p, summary[p]) for p in names], cols)
    for base, table in ratios.items():
        print_table('ratio %s (same boot; < 1 = lower):' % base.replace('_', ' '),
                    list(table.items()), cols, ratio_fmt=True)
    wkeys = [k for k, _, _ in METRICS]
    wcols = METRICS[wkeys.index(WAKE_METRICS[0]):wkeys.index(WAKE_METRICS[1]) + 1]
    print_table('wakeups (n = %s):' % '/'.join(
        '%d' % statistics.median([r[p]['lc_wakeups'] for r in runs]) for p in names),
        [(p, summary[p]) for p in names], wcols)
    ccols = METRICS[wkeys.index(CPU_METRICS[0]):wkeys.index(CPU_METRICS[1]) + 1]
    print_table('CPU time:', [(p, summary[p]) for p in names], ccols)
    unserved = {p: [r[p]['unserved'] for r in runs] for p in names}
    if any(any(v) for v in unserved.values()):
        print('requests due in the window but not finished in it (not in req p99), per run: %s'
              % ', '.join('%s %s' % (p, '/'.join(map(str, v))) for p, v in unserved.items()))
    counters = {}
    for p in names:
        got = [r[p]['counters'] for r in runs]
        if any(g is None for g in got):
            continue
        counters[p] = {c: spread([g.get(c, 0) for g in got]) for c in SHAPE_COUNTERS}
        counters[p]['resizes'] = [g['resizes'] for g in got]
        print('%s counters over the shape: %s; resizes per run: %s' % (
            p, ', '.join('%s %s' % (c, fmt(v)) for c, v in counters[p].items()
                         if c != 'resizes' and v['median']),
            ' | '.join('; '.join(x) or 'none' for x in counters[p]['resizes'])))
    targets = {}
    for p in names:
        if p in ('eevdf', 'minimal'):
            continue
        t = {}
        for k, base, limit in TARGETS:
            if 'vs_' + base not in ratios:
                continue
            r = ratios['vs_' + base][p][k]['median']
            lower = k != 'bg_units_per_s'
            t['%s_vs_%s' % (k, base)] = {'ratio': r, 'limit': limit, 'met': r is not None and (
                r <= limit if lower else r >= limit)}
        if 'eevdf' in names:
            d = statistics.median([r[p]['idle_wait_pct'] - r['eevdf']['idle_wait_pct']
                                   for r in runs])
            t['idle_wait_vs_eevdf'] = {'points': d, 'met': d <= 0}
        targets[p] = t
        print('targets %s: %s' % (p, ', '.join(
            '%s %s %s' % (k, 'x%.2f' % v['ratio'] if 'ratio' in v and v['ratio'] is not None
                          else '%+.2f pts' % v['points'] if 'points' in v else 'n/a',
                          'met' if v['met'] else 'NOT met') for k, v in t.items())))
    return {'args': args, 'metrics': summary, 'ratios': ratios, 'counters': counters,
            'targets': targets}


def report_shapes(a, stamp, kname, names, shapes, per_run, rawdir, outdir):
    """Per shape: tables; then the JSON file and line of the ref and ads modes."""
    print('scripts/bench %s: %d run(s) x %g s per policy and shape, kernel %s, %d vCPUs%s; %s'
          % (a.mode, a.runs, a.duration, kname, a.cpus,
             ', icount' if a.icount else ', mttcg' if a.mttcg else '',
             'median [min..max]' if a.runs > 1 else 'one run'))
    print('rq = run-queue delay of the critical (lc-*) threads (scxpol-lat); req = request '
          'latency, due -> done (scxpol-workload); bg units/s = background throughput; '
          'idle-waiting %% = idle CPU time while a traced thread waited on a run queue, '
          'of all vCPU time. wakeups: idle %% = onto a CPU running its idle task, idle p99 = '
          'their delay (the floor: idle exit + IPI + the emulator reaching that vCPU); queued '
          '%% = activated by the target from an IPI (wake list, EEVDF only); waking = from '
          'sched_waking, the IPI included for every policy; remote %% = target CPU is not the '
          'waker\'s. CPU time: idle (/proc/stat), critical and background threads (their '
          'run bursts), as %% of all vCPU time')
    res = {sh: shape_report(sh, args, names, [r[sh] for r in per_run]) for sh, args in shapes}
    result = {
        'mode': a.mode, 'date': stamp, 'runs': a.runs, 'duration_s': a.duration,
        'kernel': kname, 'cpus': a.cpus, 'icount': a.icount, 'mttcg': a.mttcg,
        'policies': names, 'shapes': res, 'per_run': per_run, 'raw': rawdir,
    }
    path = write_results(outdir, a.mode, stamp, result)
    line = {k: result[k] for k in ('mode', 'runs', 'duration_s', 'kernel', 'cpus', 'icount',
                                   'mttcg', 'policies')}
    line['ratios'] = {sh: {b: {p: {k: None if v[k]['median'] is None else round(v[k]['median'], 4)
                                   for k in ('rq_p99_us', 'req_p99_us', 'bg_units_per_s')}
                               for p, v in t.items()} for b, t in r['ratios'].items()}
                      for sh, r in res.items()}
    line['results'] = path
    print(json.dumps(line, separators=(',', ':')))
