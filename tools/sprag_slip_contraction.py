#!/usr/bin/env python3
"""How fast the sprag-slip cycle of docs/two_contact.md (B) settles: for each run of
results/two_contact_sprag_slip/runs.csv (window s = 600) with a cycle, the intervals
Δs_k between successive openings of the cycling contact (column s_openings_cycle), their
successive differences d_k = Δs_k − Δs_{k−1}, the ratios d_k/d_{k−1} over the last six
differences above the rounding floor |d_k| > 1e-9 (geometric mean: the contraction per cycle;
below the floor the differences are rounding noise of the event times), the spread of the last five intervals, and the
last interval against the period of the same law and integrator at s = 1200
(results/two_contact_sprag_slip_long/runs.csv, column period).

Run from the repository root:  python3 tools/sprag_slip_contraction.py
"""
import csv
import math

FLOOR = 1e-9

def rows(name):
    with open(f"results/{name}/runs.csv", newline="") as f:
        return list(csv.DictReader(f))


def key(r):
    return (r["state"], r["law"], r["integrator"], r["start"])


limits = {key(r): float(r["period"]) for r in rows("two_contact_sprag_slip_long") if r["period"]}
for r in rows("two_contact_sprag_slip"):
    s = [float(x) for x in r["s_openings_cycle"].split(";") if x]
    if len(s) < 8:
        continue
    intervals = [b - a for a, b in zip(s, s[1:])]
    d = [b - a for a, b in zip(intervals, intervals[1:])]
    resolved = [x for x in d if abs(x) > FLOOR]
    last = resolved[-7:]
    ratios = [b / a for a, b in zip(last, last[1:])]
    contraction = math.exp(sum(math.log(abs(x)) for x in ratios) / len(ratios))
    last5 = intervals[-5:]
    limit = limits.get(key(r))
    short = f"{limit - intervals[-1]:.1e}" if limit is not None else "n/a"
    print(f"{r['law']:8} {r['integrator']:7} {len(s)} openings, last interval {intervals[-1]:.9f}, "
          f"d_k/d_(k-1) over the last six above the floor: {', '.join(f'{x:.3f}' for x in ratios)} "
          f"(geometric mean {contraction:.3f}); spread of the last five {max(last5) - min(last5):.1e}; "
          f"s = 1200 period − last interval {short}")
