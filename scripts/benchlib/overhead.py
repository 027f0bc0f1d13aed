# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""scripts/bench overhead: ns per BPF callback against minimal's, and the
verifier's work per program."""
import json
import os

from .table import fmt, ratio, spread, write_results


# overhead: the hardening issue's goal
HOT_CALLBACKS = ('select_cpu', 'enqueue', 'dispatch', 'running', 'stopping')
GOAL_POLICIES = ('ads', 'faas')
GOAL_RATIO = 1.3


def prog_stats(rundir, p):
    """Per callback of policy @p in one run: what its loader printed."""
    path = os.path.join(rundir, p['name'] + '.policy.log')
    insns, out = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 2 or w[0] != p['ops'] + ':':
                continue
            # "<ops>: verifier: <prog> <insns> insns"
            if w[1] == 'verifier:' and len(w) == 5 and w[4] == 'insns':
                insns[w[2]] = int(w[3])
            # "<ops>: run: <prog> <callback> <runs> runs <ns> ns"; callback "-": not struct_ops
            elif w[1] == 'run:' and len(w) == 8 and w[5] == 'runs' and w[7] == 'ns':
                key = w[3] if w[3] != '-' else 'prog ' + w[2]
                if key in out:
                    raise ValueError('%s: two run counts for %s (did the policy restart?)'
                                     % (path, key))
                runs, ns = int(w[4]), int(w[6])
                out[key] = {'prog': w[2], 'runs': runs, 'run_ns': ns,
                            'ns_per_run': ns / runs if runs else None}
    if not out:
        raise ValueError('%s: no run counts (is kernel.bpf_stats_enabled working?)' % path)
    for v in out.values():
        v['insns'] = insns.get(v['prog'])
    return out


def callback_order(keys):
    """Hot callbacks first, then the other callbacks, then other programs."""
    return sorted(keys, key=lambda k: (k not in HOT_CALLBACKS,
                                       HOT_CALLBACKS.index(k) if k in HOT_CALLBACKS else 0,
                                       k.startswith('prog '), k))


def report_overhead(a, stamp, kname, plan, per_run, rawdir, outdir):
    """Table, JSON file and JSON line of the overhead mode."""
    names = [p['name'] for p in plan]
    plans = {p['name']: p for p in plan}
    base = names[0]
    summary, ratios = {}, {}
    for p in names:
        summary[p] = {}
        for cb in callback_order(set().union(*(r[p].keys() for r in per_run))):
            got = [r[p].get(cb) for r in per_run]
            if any(g is None for g in got):
                raise ValueError('%s: callback %s ran in some runs only' % (p, cb))
            summary[p][cb] = {
                'prog': got[-1]['prog'], 'insns': got[-1]['insns'],
                'runs': spread([g['runs'] for g in got]),
                'ns_per_run': spread([g['ns_per_run'] for g in got]),
            }
        if p != base:
            ratios[p] = {cb: spread([ratio(r[p][cb]['ns_per_run'], r[base][cb]['ns_per_run'])
                                     if cb in r[base] and r[p][cb]['ns_per_run'] is not None
                                     else None for r in per_run])
                         for cb in summary[p]}

    print('scripts/bench overhead: %d run(s) x %g s per policy, kernel %s, %d vCPUs; %s'
          % (a.runs, a.duration, kname, a.cpus,
             'median [min..max]' if a.runs > 1 else 'one run'))
    print('guest clock: %s' % ('instructions (vm-run --icount, the default of this mode): '
                               'ns/run = guest instructions per invocation' if a.icount else
                               'wall clock (--no-icount): ns/run includes time the vCPU '
                               'was not running'))
    print('per BPF program (kernel.bpf_stats_enabled=1): runs = invocations, ns/run = '
          'run_time_ns / run_cnt, x %s = ratio to %s\'s program for the same callback, '
          'insns = processed by the verifier' % (base, base))
    head = ['policy', 'callback', 'runs', 'ns/run', 'x ' + base, 'insns']
    rows = []
    for p in names:
        for cb, v in summary[p].items():
            r = ratios.get(p, {}).get(cb)
            n = v['runs']
            runs = '%g' % n['median'] if n['n'] == 1 else \
                '%g [%g..%g]' % (n['median'], n['min'], n['max'])
            rows.append([p, cb, runs, fmt(v['ns_per_run']),
                         'x1.00' if p == base else (fmt(r, True) if r else 'n/a'),
                         '-' if v['insns'] is None else str(v['insns'])])
    width = [max(len(c[i]) for c in rows + [head]) for i in range(len(head))]
    for line in [head] + rows:
        print('  ' + '  '.join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, width))))

    # the goal: median ratio on every hot callback the policy has; one that
    # has no ratio (it never ran in a run, or minimal's cost was 0) is not
    # measured, so the goal is not met (listed as "n/a")
    goal = {'max_ratio': GOAL_RATIO, 'callbacks': list(HOT_CALLBACKS), 'met': {}, 'over': []}
    for p in names[1:]:
        over = [[p, cb, None if ratios[p][cb]['median'] is None
                 else round(ratios[p][cb]['median'], 4)] for cb in HOT_CALLBACKS
                if cb in ratios[p] and (ratios[p][cb]['median'] is None
                                        or ratios[p][cb]['median'] > GOAL_RATIO)]
        goal['over'] += over
        if p in GOAL_POLICIES:
            goal['met'][p] = not over
    # controls: the baseline's binary and arguments again
    noise = [p for p in names[1:] if (plans[p]['binary'], plans[p]['args'])
             == (plans[base]['binary'], plans[base]['args'])]
    hot = [ratios[p][cb]['median'] for p in noise for cb in HOT_CALLBACKS
           if cb in ratios[p] and ratios[p][cb]['median'] is not None]
    if hot:
        goal['noise_floor'] = [round(min(hot), 4), round(max(hot), 4)]
        print('noise floor (%s: %s again) on the hot callbacks: x%.2f..x%.2f'
              % (', '.join(noise), base, min(hot), max(hot)))
    # per call is the goal's measure; the sum also sees work moved between
    # callbacks or callbacks not called at all (a wakeup placed in select_cpu
    # skips enqueue), which the per-call ratios cannot
    sums = {p: [sum(r[p][cb]['run_ns'] for cb in HOT_CALLBACKS if cb in r[p]) for r in per_run]
            for p in names}
    totals = {p: {'run_ns': spread(sums[p]),
                  'vs_' + base: spread([ratio(v, b) for v, b in zip(sums[p], sums[base])])}
              for p in names}
    print('hot callbacks in all (run_time_ns summed over %s, per run; x %s):'
          % (', '.join(HOT_CALLBACKS), base))
    for p in names:
        t = totals[p]['run_ns']
        print('  %-14s %s  %s' % (p, '%.0f' % t['median'] if t['n'] == 1 else
                                  '%.0f [%.0f..%.0f]' % (t['median'], t['min'], t['max']),
                                  fmt(totals[p]['vs_' + base], True)))
    for p in GOAL_POLICIES:
        if p not in names:
            print('goal (%s within x%.2f of %s on %s): %s not run'
                  % ('/'.join(GOAL_POLICIES), GOAL_RATIO, base, ', '.join(HOT_CALLBACKS), p))
    for p in names[1:]:
        over = ['%s %s' % (cb, 'n/a' if r is None else 'x%.2f' % r)
                for q, cb, r in goal['over'] if q == p]
        print('goal x%.2f on the hot callbacks: %s %s%s' % (
            GOAL_RATIO, p, ('over: ' + ', '.join(over)) if over else 'met',
            '' if p in GOAL_POLICIES else ' (control)' if p in noise else ' (not a goal policy)'))

    result = {
        'mode': a.mode, 'date': stamp, 'runs': a.runs, 'duration_s': a.duration,
        'kernel': kname, 'cpus': a.cpus, 'icount': a.icount, 'policies': names,
        'callbacks': summary, 'ratios': {'vs_' + base: ratios}, 'hot_total': totals,
        'goal': goal,
        'per_run': per_run, 'raw': rawdir,
    }
    path = write_results(outdir, a.mode, stamp, result)
    line = {k: result[k] for k in ('mode', 'runs', 'duration_s', 'kernel', 'cpus', 'icount',
                                   'policies')}
    line['ratios'] = {'vs_' + base: {p: {cb: None if v['median'] is None else round(v['median'], 4)
                                         for cb, v in t.items()} for p, t in ratios.items()}}
    line['goal'] = goal
    line['results'] = path
    print(json.dumps(line, separators=(',', ':')))
