#!/usr/bin/env python3
"""Independent reference for docs/two_contact.md §5 ("Independent check"): C–V's fast dynamics of
two slipping contacts, Y_i'' = b_i + Σ_j P_ij f_j (TC1), under the literal and the harness
contact law, integrated by scipy, against the committed results/two_contact_iwc/runs.csv,
results/two_contact_sprag_slip/runs.csv and results/two_contact_sprag_slip_long/runs.csv
(each row's data and start are read from the row; the reference's own outputs are compared
with the row's measured columns).

From docs/two_contact.md §1–§3 (not from src/):
- f_j = k_j Y_j + q_j V_j while contact j carries, else 0. Literal law: j carries iff that law
  is positive (it closes when the law rises through 0, also above the surface). Harness law: an
  open contact closes when min(−Y_j, law_j) rises through 0; a carrying one opens when its law
  falls to 0 (both laws).
- A start carries where the law is positive (harness: and Y_j <= 0); on the surface at rest
  (law 0) where the law rises: q_j b_j > 0.
- Outcome at s = window: a force above 1e6 has diverged: IF (contact 1 diverges, 2 open), FI,
  II (both), I+S (one diverges beside a bounded carrying contact); else "cycle" if a contact
  opens at least 6 times in the window's second half; else the final mode (S+S+, S+F, FS+,
  FF). Measured: the first opening (s, contact), openings per contact, the fraction of the
  second half each contact is open, and for a cycling contact the period (the last interval
  between its openings) and the spread (max − min of the last five intervals).
- (TC2)–(TC5): the crossing angles θ± = atan2(w_Y2, w_Y1) ± π/2 of the stable manifold with the
  circle, w the left eigenvector (numpy) of the unstable eigenvalue of J = [[0, I], [P diag(k),
  P diag(q)]].

Integration: DOP853, rtol = atol = 1e-12 (as the experiments), one solve_ivp call per mode.

Run (about 1 minute):  python3 tools/reference/two_contact_fast.py
Needs numpy and scipy.
"""

import csv
import math
import pathlib

import numpy as np
from scipy.integrate import solve_ivp

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIVERGED = 1e6


class System:
    def __init__(self, row):
        self.b = np.array([float(row["b1"]), float(row["b2"])])
        self.P = np.array([[float(row["P11"]), float(row["P12"])],
                           [float(row["P21"]), float(row["P22"])]])
        self.k = np.array([float(row["k1"]), float(row["k2"])])
        self.q = np.array([float(row["q1"]), float(row["q2"])])
        self.literal = row["law"] == "literal"

    def law(self, x, j):
        return self.k[j] * x[j] + self.q[j] * x[2 + j]

    def field(self, carrying):
        def f(_s, x):
            forces = np.array([self.law(x, j) if carrying[j] else 0.0 for j in range(2)])
            return np.concatenate([x[2:], self.b + self.P @ forces])
        return f

    def events(self, carrying):
        out = []
        for j in range(2):
            if carrying[j]:
                fun = (lambda j: lambda s, x: self.law(x, j))(j)
                fun.direction, name = -1, ("opens", j)
            elif self.literal:
                fun = (lambda j: lambda s, x: self.law(x, j))(j)
                fun.direction, name = 1, ("closes", j)
            else:
                fun = (lambda j: lambda s, x: min(-x[j], self.law(x, j)))(j)
                fun.direction, name = 1, ("closes", j)
            fun.terminal = True
            out.append((fun, name))
        return out

    def initial(self, x):
        carrying = []
        for j in range(2):
            law = self.law(x, j)
            if law == 0 and x[j] == 0 and x[2 + j] == 0:
                carrying.append(self.q[j] * self.b[j] > 0)
            else:
                carrying.append(law > 0 and (self.literal or x[j] <= 0))
        return carrying


def run(sys_, x0, window):
    x, s = np.array(x0, dtype=float), 0.0
    carrying = sys_.initial(x)
    openings = [[], []]
    open_time = [0.0, 0.0]
    half = window / 2
    while True:
        evs = sys_.events(carrying)
        sol = solve_ivp(sys_.field(carrying), (s, window), x, method="DOP853", rtol=1e-12,
                        atol=1e-12, events=[e for e, _ in evs])
        if sol.status == -1:
            raise RuntimeError(sol.message)
        s_end = sol.t[-1]
        for j in range(2):
            if not carrying[j]:
                open_time[j] += max(0.0, s_end - max(s, half))
        if sol.status == 0:
            x = sol.y[:, -1]
            break
        k = next(i for i, te in enumerate(sol.t_events) if len(te))
        s, x = sol.t_events[k][0], sol.y_events[k][0].copy()
        kind, j = evs[k][1]
        carrying = list(carrying)
        carrying[j] = kind == "closes"
        if kind == "opens":
            openings[j].append(s)
    forces = [sys_.law(x, j) if carrying[j] else 0.0 for j in range(2)]
    div = [f > DIVERGED for f in forces]
    if all(div):
        outcome = "II"
    elif any(div):
        d = 0 if div[0] else 1
        other_open = not carrying[1 - d]
        outcome = ("IF" if d == 0 else "FI") if other_open else "I+S"
    else:
        late = [sum(1 for t in o if t > half) for o in openings]
        if max(late) >= 6:
            outcome = "cycle"
        else:
            outcome = ("S+" if carrying[0] else "F") + ("S+" if carrying[1] else "F")
    first = min(((o[0], j + 1) for j, o in enumerate(openings) if o), default=(None, None))
    result = dict(outcome=outcome, first_open_s=first[0], first_open_contact=first[1],
                  openings=[len(o) for o in openings],
                  open_fraction=[t / half for t in open_time])
    late = [sum(1 for t in o if t > half) for o in openings]
    if outcome == "cycle":
        c = int(np.argmax(late))
        iv = np.diff(openings[c])
        result.update(cycle_contact=c + 1, period=iv[-1], spread=iv[-5:].max() - iv[-5:].min())
    return result


def predicted_crossings(sys_):
    C = sys_.P @ np.diag(sys_.k)
    A = sys_.P @ np.diag(sys_.q)
    J = np.block([[np.zeros((2, 2)), np.eye(2)], [C, A]])
    vals, left = np.linalg.eig(J.T)
    i = int(np.argmax(vals.real))
    w = left[:, i].real
    base = math.atan2(w[1], w[0])
    return sorted((base + d) % (2 * math.pi) for d in (math.pi / 2, -math.pi / 2))


def rows(name):
    with open(ROOT / "results" / name / "runs.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["integrator"] == "dop853" and r["status"] == "ok"]


def start(r):
    return [float(r[c]) for c in ("Y1_0", "Y2_0", "V1_0", "V2_0")]


def circle():
    rs = rows("two_contact_iwc")
    circ = [r for r in rs if r["start"] == "circle"]
    same, worst = 0, 0.0
    for r in circ:
        res = run(System(r), start(r), 200.0)
        same += res["outcome"] == r["outcome"] and str(res["first_open_contact"]) == r["first_open_contact"]
        worst = max(worst, abs(res["first_open_s"] - float(r["first_open_s"])))
    print(f"two_contact_iwc: {same} of {len(circ)} circle runs (both laws) with the same outcome "
          f"and first-opening contact; first openings within {worst:.1e}")
    cross = [r for r in rs if r["start"] == "crossing" and r["law"] == "literal"]
    mine = predicted_crossings(System(cross[0]))
    theirs = sorted(float(r["theta_predicted"]) for r in cross)
    print("  predicted crossings (TC5): " + ", ".join(f"{m:.16f}" for m in mine)
          + " (harness " + ", ".join(f"{t:.16f}" for t in theirs) + ")")


def sprag_slip():
    for name, window in [("two_contact_sprag_slip", 600.0), ("two_contact_sprag_slip_long", 1200.0)]:
        for r in rows(name):
            res = run(System(r), start(r), window)
            line = (f"{name} {r['law']:8}: {res['outcome']} ({r['outcome']}), openings of 2 "
                    f"{res['openings'][1]} ({r['openings_2']}), open fraction of 2 "
                    f"{res['open_fraction'][1]:.6f} ({float(r['open_fraction_2']):.6f})")
            if res["outcome"] == "cycle":
                line += (f", period {res['period']:.9f} ({float(r['period']):.9f}), spread "
                         f"{res['spread']:.2e} ({float(r['period_spread']):.2e})")
            print(line)


if __name__ == "__main__":
    circle()
    sprag_slip()
