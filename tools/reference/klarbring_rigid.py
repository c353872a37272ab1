#!/usr/bin/env python3
"""Independent rigid reference for docs/klarbring.md ("Independent reference"): Klarbring's
particle (Ballard & Basseville 2005, "BB") with the rigid impact law, integrated by scipy, and
its event times and checkpoint states compared with the rigid row (point_id 0) of the committed
results/klarbring_2d/runs.csv and results/klarbring_3d/runs.csv.

The model, from docs/klarbring.md "The system (BB §1)" and "Rigid event-driven reference" (not
from src/):
- Unit mass, U = (U_N, U_T), U_N <= 0 admissible: U'' + K U = F(t) + R, K = [[k_N, W^T],
  [W, K_T]], F_i(t) = c_i + a_i cos(w_i t) + b_i sin(w_i t) + sum_k p_ik t^k.
- Free: R = 0. In contact (U_N = V_N = 0): the normal reaction N = F_N - W.U_T >= 0 (the
  normal row), the tangential load g = F_T - K_T U_T - W U_N (BB eq. (7));
  stick: V_T' = 0 while |g| <= mu N; slide: V_T' = g - mu N V_T/|V_T|.
- Events: impact when U_N rises to 0 in free flight, reset V_N+ = -e V_N-,
  V_T+ = V_T- max(0, 1 - mu (1 + e)|V_N-|/|V_T-|) (Dance Rem. 2.4); lift-off when N falls to
  0; stick breaks when |g|^2 - mu^2 N^2 rises to 0, the slide starting along g/|g|; a slide
  stops when V_T reaches 0, after which stick holds if |g| < mu N, else the slide restarts
  along g/|g|.
- One tangent: the slide keeps its sign s = +-1 (V_T' = g - mu N s) and stops when s V_T
  falls to 0; it starts from V_T = 0.
  Two tangents: the slide field is singular at V_T = 0, so (as the docs describe for the
  harness) the slide starts at |V_T| = SEED along g/|g|, and the stop is declared at
  |V_T| = STOP_RADIUS, extrapolated to |V_T| = 0 linearly in time (|V_T| / (-d|V_T|/dt)).
  The seed is an argument: 1e-9 is the harness's, smaller seeds show its effect.

Integration: scipy's DOP853 with its own event location (solve_ivp events), rtol 1e-12,
atol 1e-14, one solve_ivp call per mode phase.

Run (about 80 s):  python3 tools/reference/klarbring_rigid.py [SEED ...]   (default 1e-9 1e-12)
Needs numpy and scipy (pip install numpy scipy).
"""

import csv
import math
import pathlib
import sys
import tomllib

import numpy as np
from scipy.integrate import solve_ivp

RTOL = 1e-12
ATOL = 1e-14
STOP_RADIUS = 1e-8
MAX_PHASES = 200
ROOT = pathlib.Path(__file__).resolve().parents[2]


class Particle:
    def __init__(self, params):
        self.K = np.array(params["stiffness"], dtype=float)
        self.n = len(self.K)
        zero = [0.0] * self.n
        self.c = np.array(params["force_constant"], dtype=float)
        self.a = np.array(params.get("force_cos", zero), dtype=float)
        self.b = np.array(params.get("force_sin", zero), dtype=float)
        self.w = np.array(params.get("force_frequency", zero), dtype=float)
        self.p = [np.array(row, dtype=float) for row in params.get("force_polynomial", [])]
        self.mu = params["mu"]
        self.e = params["restitution"]
        if self.e <= 0:
            sys.exit("restitution 0 (a plastic impact) is not covered by this reference")

    def force(self, t):
        f = self.c + self.a * np.cos(self.w * t) + self.b * np.sin(self.w * t)
        for i, row in enumerate(self.p):
            f[i] += sum(coef * t**k for k, coef in enumerate(row))
        return f

    def loads(self, t, U):
        """(N, g): the normal reaction in contact and the tangential load (BB §3, eq. (7))."""
        f = self.force(t)
        N = f[0] - self.K[0, 1:] @ U[1:] - self.K[0, 0] * U[0]
        g = f[1:] - self.K[1:, 1:] @ U[1:] - self.K[1:, 0] * U[0]
        return N, g


def field(P, mode, sign):
    n = P.n

    def f(t, x):
        U, V = x[:n], x[n:]
        if mode == "free":
            return np.concatenate([V, P.force(t) - P.K @ U])
        N, g = P.loads(t, U)
        acc = np.zeros(n)
        if mode == "slide":
            direction = sign if n == 2 else V[1:] / np.linalg.norm(V[1:])
            acc[1:] = g - P.mu * N * direction
        return np.concatenate([V, acc])

    return f


def terminal(fun, direction):
    fun.terminal = True
    fun.direction = direction
    return fun


def events_of(P, mode, sign):
    n = P.n
    if mode == "free":
        return [(terminal(lambda t, x: x[0], 1), "impact")]
    liftoff = terminal(lambda t, x: P.loads(t, x[:n])[0], -1)
    if mode == "stick":
        def breaks(t, x):
            N, g = P.loads(t, x[:n])
            return g @ g - (P.mu * N) ** 2

        return [(liftoff, "liftoff"), (terminal(breaks, 1), "slip")]
    if n == 2:
        return [(liftoff, "liftoff"), (terminal(lambda t, x: sign * x[n + 1], -1), "stop")]
    return [(liftoff, "liftoff"),
            (terminal(lambda t, x: np.linalg.norm(x[n + 1:]) - STOP_RADIUS, -1), "stop")]


def start_slide(P, t, x, seed):
    """The slide along g/|g| from V_T = 0: (mode, sign, state)."""
    n = P.n
    _, g = P.loads(t, x[:n])
    ghat = g / np.linalg.norm(g)
    x = x.copy()
    if n == 2:
        x[n + 1] = 0.0
        return "slide", float(np.sign(ghat[0])), x
    x[n + 1:] = seed * ghat
    return "slide", None, x


def mode_at_rest(P, t, x, seed):
    N, g = P.loads(t, x[:P.n])
    if N <= 0:
        return "free", None, x
    if np.linalg.norm(g) < P.mu * N:
        return "stick", None, x
    return start_slide(P, t, x, seed)


def simulate(P, u0, v0, t_end, checkpoints, seed):
    """The rigid run: (modes, [(t, event)], {checkpoint: state}, [(t0, t1, dense solution)])."""
    n = P.n
    x = np.concatenate([u0, v0]).astype(float)
    t = 0.0
    if x[0] < 0:
        mode, sign = "free", None
    else:
        mode, sign, x = mode_at_rest(P, t, x, seed)
    modes, events, states, segments = [mode], [], {}, []
    for _ in range(MAX_PHASES):
        evs = events_of(P, mode, sign)
        sol = solve_ivp(field(P, mode, sign), (t, t_end), x, method="DOP853", rtol=RTOL,
                        atol=ATOL, events=[e for e, _ in evs], dense_output=True)
        if sol.status == -1:
            raise RuntimeError(f"{mode} at t = {t}: {sol.message}")
        t_stop = sol.t[-1]
        segments.append((t, t_stop, sol.sol))
        for c in checkpoints:
            if t <= c <= t_stop and c not in states:
                states[c] = sol.sol(c)
        if sol.status == 0:
            return modes, events, states, segments
        k = next(i for i, te in enumerate(sol.t_events) if len(te))
        t, x, name = sol.t_events[k][0], sol.y_events[k][0].copy(), evs[k][1]
        if name == "impact":
            vn = x[n]
            pn = (1 + P.e) * vn
            vt = x[n + 1:]
            r = np.linalg.norm(vt)
            x[n] = -P.e * vn
            x[n + 1:] = 0.0 if r <= P.mu * pn else vt * (1 - P.mu * pn / r)
            mode, sign = "free", None
        elif name == "liftoff":
            mode, sign = "free", None
        elif name == "slip":
            mode, sign, x = start_slide(P, t, x, seed)
        else:  # stop
            if n == 3:
                # Extrapolate |V_T| linearly to 0 (its rate along the slide field).
                N, g = P.loads(t, x[:n])
                vhat = x[n + 1:] / np.linalg.norm(x[n + 1:])
                rate = vhat @ g - P.mu * N
                dt = np.linalg.norm(x[n + 1:]) / -rate
                x[:n] += dt * x[n:]
                t += dt
            x[n + 1:] = 0.0
            mode, sign, x = mode_at_rest(P, t, x, seed)
        events.append((t, name))
        modes.append(mode if mode != "slide" or n == 3 else "slide" + ("+" if sign > 0 else "-"))
    raise RuntimeError("more than MAX_PHASES phases")


def committed_rigid_row(name):
    with open(ROOT / "results" / name / "runs.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["method"] == "rigid":
                return row
    raise ValueError(f"results/{name}/runs.csv has no rigid row")


def compare(name, seed):
    spec = tomllib.loads((ROOT / "experiments" / f"{name}.toml").read_text())["params"]
    P = Particle(spec)
    row = committed_rigid_row(name)
    checkpoints = [float(c) for c in row["checkpoint_times"].split()]
    modes, events, states, _ = simulate(P, np.array(spec["U0"]), np.array(spec["V0"]),
                                     spec["t_end"], checkpoints, seed)
    kinds = " ".join(k for _, k in events)
    harness_times = [float(v) for v in row["event_times"].split()]
    print(f"{name} (seed {seed:g}): modes {' '.join(modes)}")
    same = kinds == row["event_kinds"]
    print(f"  events {kinds}" + ("" if same else f"  (harness: {row['event_kinds']})"))
    print("  times " + " ".join(f"{t:.10f}" for t, _ in events))
    if same:
        dt = [abs(t - h) for (t, _), h in zip(events, harness_times)]
        print("  |t - t_harness| " + " ".join(f"{d:.1e}" for d in dt) + f"; max {max(dt):.1e}")
    for c, text in zip(checkpoints, row["checkpoint_states"].split(";")):
        harness = np.array([float(v) for v in text.split()])
        print(f"  state at t = {c:g}: max |x - x_harness| {np.max(np.abs(states[c] - harness)):.1e}")


if __name__ == "__main__":
    seeds = [float(s) for s in sys.argv[1:]] or [1e-9, 1e-12]
    compare("klarbring_2d", seeds[0])
    for seed in seeds:
        compare("klarbring_3d", seed)
