#!/usr/bin/env python3
"""Independent compliant reference for docs/klarbring.md ("Independent reference"): Klarbring's
particle on the penalty wall, integrated by scipy, its rigid-like event times and its distances
to the rigid reference (tools/reference/klarbring_rigid.py) compared with the compliant rows of
the committed results/klarbring_2d/runs.csv and results/klarbring_3d/runs.csv.

The model, from docs/klarbring.md "Compliant spatial formulation" and "Distances and event
times" (not from src/):
- The particle of klarbring_rigid.py with the normal reaction replaced by the penalty force
  F_n = delta/kappa (the experiments' c_d = 0), delta = U_N the penetration, while the contact
  is closed: U_N'' = F_N - (K U)_N - F_n.
- Tangential: stick V_T' = 0 while |g| <= mu F_n (the break watched on
  |g|^2 - mu^2 F_n |F_n|, as the docs' cone margin), g = F_T - K_T U_T - W U_N; slide
  V_T' = g - mu F_n V_T/|V_T|; stick breaks, stops, the slip seed (1e-9 with two tangents) and
  the stop extrapolation as in the rigid reference.
- Never adhesive: the contact opens when kappa F_n = U_N falls to 0 and closes when U_N rises
  through 0 (c_d = 0: min(delta, kappa F_n) = delta); a closing slides along V_T.
- Start (klarbring_2d/3d): U_N = N(0)/(k_N + 1/kappa) (the quasi-static penetration), V = 0.
- Rigid-like events: a closing is an impact, the events inside it (up to and including its
  opening) are dropped, an opening outside an impact is a lift-off.
- Distances: d_U = max ||U^kappa - U^0||, d_V = integral of ||V^kappa - V^0|| (trapezoid), both
  over SAMPLES uniform times on [0, t_end] (the harness samples 1e4 uniform times plus 2001
  across each impact: the numbers agree to the sampling).

Integration: DOP853, rtol 1e-12, atol 1e-14 with U_N's atol scaled by kappa and V_N's by
sqrt(kappa) (as the docs describe for the harness).

Run (about 3 minutes):  python3 tools/reference/klarbring_compliant.py [KAPPA ...]
(default 1e-4 1e-6). Needs numpy and scipy.
"""

import math
import sys
import tomllib

import numpy as np
from scipy.integrate import solve_ivp

from klarbring_rigid import (ROOT, MAX_PHASES, RTOL, STOP_RADIUS, Particle, simulate,
                             terminal)

ATOL = 1e-14
SEED = 1e-9
SAMPLES = 200_000


def field(P, kappa, mode, sign):
    n = P.n

    def f(t, x):
        U, V = x[:n], x[n:]
        acc = P.force(t) - P.K @ U
        if mode != "free":
            fn = U[0] / kappa
            acc[0] -= fn
            _, g = P.loads(t, U)
            if mode == "stick":
                acc[1:] = 0.0
            else:
                direction = sign if n == 2 else V[1:] / np.linalg.norm(V[1:])
                acc[1:] = g - P.mu * fn * direction
        return np.concatenate([V, acc])

    return f


def events_of(P, kappa, mode, sign):
    n = P.n
    if mode == "free":
        return [(terminal(lambda t, x: x[0], 1), "closes")]
    opens = terminal(lambda t, x: x[0], -1)
    if mode == "stick":
        def breaks(t, x):
            # mu^2 F_n |F_n| rather than (mu F_n)^2: negative past the opening too, so that a
            # step across both the break and the opening still sees a sign change.
            _, g = P.loads(t, x[:n])
            fn = x[0] / kappa
            return g @ g - P.mu**2 * fn * abs(fn)

        return [(opens, "opens"), (terminal(breaks, 1), "slip")]
    if n == 2:
        return [(opens, "opens"), (terminal(lambda t, x: sign * x[n + 1], -1), "stop")]
    return [(opens, "opens"),
            (terminal(lambda t, x: np.linalg.norm(x[n + 1:]) - STOP_RADIUS, -1), "stop")]


def slide_along(P, x, direction):
    n = P.n
    x = x.copy()
    if n == 2:
        return "slide", float(np.sign(direction[0])), x
    if np.linalg.norm(x[n + 1:]) == 0.0:
        x[n + 1:] = SEED * direction
    return "slide", None, x


def mode_at_rest(P, kappa, t, x):
    _, g = P.loads(t, x[:P.n])
    if np.linalg.norm(g) < P.mu * x[0] / kappa:
        return "stick", None, x
    return slide_along(P, x, g / np.linalg.norm(g))


def simulate_compliant(P, kappa, u0, v0, t_end):
    n = P.n
    x = np.concatenate([u0, v0]).astype(float)
    t = 0.0
    mode, sign, x = mode_at_rest(P, kappa, t, x) if x[0] > 0 else ("free", None, x)
    atol = np.full(2 * n, ATOL)
    atol[0] *= kappa
    atol[n] *= math.sqrt(kappa)
    events, segments = [], []
    for _ in range(MAX_PHASES):
        evs = events_of(P, kappa, mode, sign)
        sol = solve_ivp(field(P, kappa, mode, sign), (t, t_end), x, method="DOP853", rtol=RTOL,
                        atol=atol, events=[e for e, _ in evs], dense_output=True)
        if sol.status == -1:
            raise RuntimeError(f"{mode} at t = {t}: {sol.message}")
        segments.append((t, sol.t[-1], sol.sol))
        if sol.status == 0:
            return events, segments
        k = next(i for i, te in enumerate(sol.t_events) if len(te))
        t, x, name = sol.t_events[k][0], sol.y_events[k][0].copy(), evs[k][1]
        if name == "opens":
            mode, sign = "free", None
        elif name == "closes":
            vt = x[n + 1:]
            if np.linalg.norm(vt) == 0.0:
                raise RuntimeError(f"closing at rest in the tangent at t = {t}: not covered")
            mode, sign, x = slide_along(P, x, vt / np.linalg.norm(vt))
        elif name == "slip":
            _, g = P.loads(t, x[:n])
            x[n + 1:] = 0.0
            mode, sign, x = slide_along(P, x, g / np.linalg.norm(g))
        else:  # stop
            if n == 3:
                fn = x[0] / kappa
                _, g = P.loads(t, x[:n])
                vhat = x[n + 1:] / np.linalg.norm(x[n + 1:])
                dt = np.linalg.norm(x[n + 1:]) / -(vhat @ g - P.mu * fn)
                x[:n] += dt * x[n:]
                t += dt
            x[n + 1:] = 0.0
            mode, sign, x = mode_at_rest(P, kappa, t, x)
        events.append((t, name))
    raise RuntimeError("more than MAX_PHASES phases")


def rigid_like(events):
    out, in_impact = [], False
    for t, name in events:
        if name == "closes":
            in_impact = True
            out.append((t, "impact"))
        elif in_impact:
            in_impact = name != "opens"
        elif name == "opens":
            out.append((t, "liftoff"))
        else:
            out.append((t, name))
    return out


def sample(segments, times):
    out = np.empty((len(times), len(segments[0][2](segments[0][0]))))
    i = 0
    for k, t in enumerate(times):
        while i + 1 < len(segments) and t > segments[i][1]:
            i += 1
        out[k] = segments[i][2](t)
    return out


def compare(name, kappa):
    import csv
    spec = tomllib.loads((ROOT / "experiments" / f"{name}.toml").read_text())["params"]
    P = Particle(spec)
    n = P.n
    with open(ROOT / "results" / name / "runs.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f)
                   if r["method"] == "compliant" and math.isclose(float(r["kappa"]), kappa))
    u0 = np.array(spec["U0"], dtype=float)
    v0 = np.array(spec["V0"], dtype=float)
    _, _, _, rigid = simulate(P, u0, v0, spec["t_end"], [], SEED)
    start = u0.copy()
    n0, _ = P.loads(0.0, u0)
    start[0] = n0 / (P.K[0, 0] + 1 / kappa)
    events, segments = simulate_compliant(P, kappa, start, v0, spec["t_end"])
    ev = rigid_like(events)
    kinds = " ".join(k for _, k in ev)
    print(f"{name}, kappa = {kappa:g}: events {kinds}"
          + ("" if kinds == row["event_kinds"] else f" (harness: {row['event_kinds']})"))
    if kinds == row["event_kinds"]:
        harness = [float(v) for v in row["event_times"].split()]
        dt = [abs(t - h) for (t, _), h in zip(ev, harness)]
        print("  |t - t_harness| " + " ".join(f"{d:.1e}" for d in dt) + f"; max {max(dt):.1e}")
    times = np.linspace(0.0, spec["t_end"], SAMPLES + 1)
    xc, xr = sample(segments, times), sample(rigid, times)
    du = np.linalg.norm(xc[:, :n] - xr[:, :n], axis=1)
    dv = np.linalg.norm(xc[:, n:] - xr[:, n:], axis=1)
    d_u, d_v = du.max(), np.trapezoid(dv, times)
    for label, mine, col in [("d_U", d_u, "d_U"), ("d_V", d_v, "d_V_L1")]:
        h = float(row[col])
        print(f"  {label} {mine:.6e} (harness {h:.6e}, relative difference {(mine - h) / h:+.1e})")


if __name__ == "__main__":
    kappas = [float(k) for k in sys.argv[1:]] or [1e-4, 1e-6]
    for name in ["klarbring_2d", "klarbring_3d"]:
        for kappa in kappas:
            compare(name, kappa)
