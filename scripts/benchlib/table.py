# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Statistics, table printing and the results file shared by the reports of
scripts/bench."""
import json
import os
import statistics


def spread(values):
    """median/min/max; None when a value is undefined (a ratio to zero)."""
    if any(v is None for v in values):
        return {'median': None, 'min': None, 'max': None, 'n': len(values)}
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'n': len(values)}


def ratio(a, b):
    if a is None or b is None:
        return None
    if not b:
        return 1.0 if not a else None
    return a / b


def fmt(s, ratio_fmt=False):
    if s['median'] is None:
        return 'n/a'
    if ratio_fmt:
        if s['n'] == 1:
            return 'x%.2f' % s['median']
        return 'x%.2f [%.2f..%.2f]' % (s['median'], s['min'], s['max'])
    if s['n'] == 1:
        return '%.1f' % s['median']
    return '%.1f [%.1f..%.1f]' % (s['median'], s['min'], s['max'])


def print_table(title, rows, cols, ratio_fmt=False):
    print(title)
    cells = [[name] + [fmt(r[k], ratio_fmt) for k, _, _ in cols] for name, r in rows]
    head = ['policy'] + [t.replace(' us', '') if ratio_fmt else t for _, t, _ in cols]
    width = [max(len(c[i]) for c in cells + [head]) for i in range(len(head))]
    for line in [head] + cells:
        print('  ' + '  '.join(c.rjust(w) if i else c.ljust(w)
                               for i, (c, w) in enumerate(zip(line, width))))


def nearest_rank(v, pct):
    """The ceil(pct/100 * n)-th smallest of sorted @v (faas-replay's rule)."""
    rank = -(-len(v) * pct // 100)
    return v[max(int(rank), 1) - 1]


def write_results(outdir, mode, stamp, result):
    """Write @result to OUT/MODE-STAMP.json, say where, and return the path."""
    path = os.path.join(outdir, '%s-%s.json' % (mode, stamp))
    with open(path, 'w') as f:
        json.dump(result, f, indent=1)
        f.write('\n')
    print('results: ' + path)
    return path
