"""Every results/*/runs.csv against the committed one (git HEAD), cell by cell, numbers compared
as numbers (each number of a space-separated list too), timing columns ignored. Run from the
repository root after `rigid-limit reproduce`: python3 tools/compare_results.py"""
import csv, io, subprocess, glob, sys
TIMING = {'wall_time_s', 'wall_time_min_s', 'wall_time_max_s', 'repeats'}
def same(a, b):
    if a == b: return True
    ta, tb = a.split(' '), b.split(' ')
    if len(ta) != len(tb): return False
    for x, y in zip(ta, tb):
        try:
            if float(x) != float(y): return False
        except ValueError:
            if x != y: return False
    return True
for f in sorted(glob.glob('results/*/runs.csv')):
    try: old = subprocess.run(['git','show',f'HEAD:{f}'],capture_output=True,text=True,check=True).stdout
    except subprocess.CalledProcessError: print(f, 'NEW'); continue
    o = list(csv.DictReader(io.StringIO(old))); n = list(csv.DictReader(open(f)))
    if len(o) != len(n): print(f, 'rows', len(o), len(n)); continue
    diffs = {}
    for a, b in zip(o, n):
        if set(a) != set(b): print(f, 'columns differ', set(a)^set(b)); break
        for k in a:
            if k in TIMING: continue
            if not same(a[k], b[k]): diffs.setdefault(k, []).append((a[k][:60], b[k][:60]))
    print(f, 'OK' if not diffs else {k: (len(v), v[0]) for k, v in diffs.items()})
