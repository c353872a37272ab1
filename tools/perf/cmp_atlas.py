"""Atlas subset (tools/perf/atlas_subset.toml): each method's mode sequences and durations
against a reference run (docs/performance.md, "The atlas: which method").
usage: python3 tools/perf/cmp_atlas.py REFERENCE_DIR DIR...   (directories of `rigid-limit run`)"""
import csv
import sys


def load(directory):
    rows = list(csv.DictReader(open('%s/runs.csv' % directory)))
    key = lambda r: (r['kappa'], r['mu'], r['theta0'], r['omega0'], r['damping'])
    return {key(r): r for r in rows}


ref = load(sys.argv[1])
qs = ['t_slide', 't_stick', 't_reverse_slip']
for name in sys.argv[2:]:
    d = load(name)
    seq_diff = sum(1 for k in ref if d[k]['mode_sequence'] != ref[k]['mode_sequence'])
    errs = sorted(abs(float(d[k][q]) - float(ref[k][q])) / abs(float(ref[k][q]))
                  for k in ref for q in qs
                  if d[k][q] and ref[k][q] and float(ref[k][q]) != 0)
    steps = sum(int(r['steps']) for r in d.values())
    print('%-24s sequences differing %3d  rel. error median %.1e  p99 %.1e  max %.1e  steps %6d'
          % (name, seq_diff, errs[len(errs) // 2], errs[int(0.99 * len(errs))], errs[-1], steps))
