"""Step counts, events, event times and phase durations of two sets of runs side by side:
the files of `rigid-limit simulate ... --json > DIR/NAME.json` in two directories
(tools/simulate_set.sh makes such a set).
usage: python3 tools/compare_simulate_json.py [--exact] DIR_A DIR_B
--exact: whether each pair of files is equal as a whole, outside the wall time (a speed-up
that must not change a bit of any result); exit status 1 if any differs."""
import json, sys, os
exact = '--exact' in sys.argv
a_dir, b_dir = [a for a in sys.argv[1:] if a != '--exact']
worst = 0
equal = 0
files = [f for f in sorted(os.listdir(a_dir)) if os.path.exists(os.path.join(b_dir, f))]
for f in files:
    a = json.load(open(os.path.join(a_dir, f))); b = json.load(open(os.path.join(b_dir, f)))
    if exact:
        for d in (a, b):
            d['stats'].pop('wall_time_s', None)
        if a == b:
            equal += 1
        else:
            print('differs:', f)
        continue
    ta = [e['t'] for e in a['events']]; tb = [e['t'] for e in b['events']]
    da = [m['duration'] for m in a['modes']]; db = [m['duration'] for m in b['modes']]
    d = max([abs(x - y) / abs(x) for x, y in zip(ta + da, tb + db) if x != 0] + [0])
    worst = max(worst, d)
    print('%-28s steps %5d %5d events %3d %3d  max rel diff of event times/durations %.1e' % (f, a['stats']['steps'], b['stats']['steps'], len(ta), len(tb), d))
if exact:
    print('%d of %d equal outside the wall time' % (equal, len(files)))
    sys.exit(0 if equal == len(files) else 1)
print('worst', worst)
