"""Step counts, events, event times and phase durations of two sets of runs side by side:
the files of `rigid-limit simulate ... --json > DIR/NAME.json` in two directories.
usage: python3 tools/compare_simulate_json.py DIR_A DIR_B"""
import json, sys, os
a_dir, b_dir = sys.argv[1], sys.argv[2]
worst = 0
for f in sorted(os.listdir(a_dir)):
    if not os.path.exists(os.path.join(b_dir, f)): continue
    a = json.load(open(os.path.join(a_dir, f))); b = json.load(open(os.path.join(b_dir, f)))
    same_steps = a['stats']['steps'] == b['stats']['steps'] and len(a['events']) == len(b['events'])
    ta = [e['t'] for e in a['events']]; tb = [e['t'] for e in b['events']]
    da = [m['duration'] for m in a['modes']]; db = [m['duration'] for m in b['modes']]
    d = max([abs(x - y) / abs(x) for x, y in zip(ta + da, tb + db) if x != 0] + [0])
    worst = max(worst, d)
    print('%-28s steps %5d %5d events %3d %3d  max rel diff of event times/durations %.1e' % (f, a['stats']['steps'], b['stats']['steps'], len(ta), len(tb), d))
print('worst', worst)
