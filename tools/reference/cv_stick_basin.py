#!/usr/bin/env python3
"""Independent reference for docs/champneys_varkonyi.md §10 (the stick/lift-off basin).

What it computes, for the state of experiments/stick_liftoff_basin.toml (read from that file:
[params] a, b, A, B, C, mu, u0, damping; [sweep] Y0, V0; [solver] window_scaled):

1. The outcome (F, T, S+, S-) of every fast start of the two scan lines (V0 = 0 along the Y0
   grid, Y0 = 0 along the V0 grid), every edge between neighbouring scan points with different
   outcomes bisected to a bracket of 1e-10, and how many scan points the saddle's stable
   manifold predicts (F where alpha > 0 in (8), T where alpha < 0).
2. The fixed point of the return map on the switching line lambda_N = F* (slip S_sigma from
   lambda_N = F*, U = 0, until U = 0; then stick until lambda_N = F* again): V there, the period
   in s and the multiplier dV_out/dV_in per cycle.

The model, from the docs only (not from src/):
- §1 (projected form): u' = a + A lam_T + B lam_N, v' = b + B lam_T + C lam_N.
- §3 (3), (4): fast variables Y = y/kappa, s = t/sqrt(kappa), V = dY/ds, U = u/sqrt(kappa), so
  Y' = V, V' = b + B lam_T + C lam_N, U' = a + A lam_T + B lam_N (kappa drops out exactly for
  constant data), with the spring-dashpot lam_N = -Y - c_d V while the contact is closed.
- Friction: slip S_sigma (sigma = sign U) has lam_T = -sigma mu lam_N ((1)); stick T holds
  U' = 0, lam_T = -(a + B lam_N)/A ((6)), admissible while |lam_T| <= mu lam_N.
- Free F: lam_N = lam_T = 0.
- Switching (§7 and docs/model.md "never adhesive"): a closed contact opens when lam_N falls to
  0; an open one closes when Y falls through 0 (the force is then -c_d V > 0); a slip stops
  when U reaches 0, after which the friction cone decides (stick if the stick force is inside
  it, else slip the way the stick force pushes); stick breaks into S+ (S-) when
  mu lam_N + lam_T (mu lam_N - lam_T) falls to 0.
- Start (§7): Y0 < 0 is closed iff lam_N > 0; Y0 = 0 is closed iff V0 < 0 (or V0 = 0, b < 0);
  a closed start with u0 = 0 takes the mode the cone gives.
- Outcome (§7): F if the contact is open at s = window_scaled, else the final mode. (The IWC
  branch of the rule needs u0 != 0; this script refuses u0 != 0.)
- §4 (7)-(8): the saddle of S_sigma (p_sigma = C - sigma mu B < 0): rates the roots of
  lam^2 + p c_d lam + p = 0, Y* = b/p, alpha = (V0 - lam_s (Y0 - Y*))/(lam_u - lam_s).
- §10: sigma = sign(a), F* = |a|/k_sigma with k_sigma = mu A - sigma B; stick focus
  Y = -lam_N0 = -(a B - A b)/(A C - B^2) ((2)).

Integration: scipy's DOP853 with its own event location (solve_ivp events), rtol 1e-12,
atol 1e-12 on (Y, V, U), one solve_ivp call per mode phase.

Run (about 11 s):  python3 tools/reference/cv_stick_basin.py
Needs numpy and scipy (pip install numpy scipy).
"""

import math
import pathlib
import sys
import tomllib

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

RTOL = 1e-12
ATOL = 1e-12
BRACKET = 1e-10
MAX_PHASES = 1000

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = tomllib.loads((ROOT / "experiments" / "stick_liftoff_basin.toml").read_text())
P = SPEC["params"]
a, b = P["a"], P["b"]
A, B, C = P["A"], P["B"], P["C"]
mu, u0, cd = P["mu"], P["u0"], P.get("damping", 1.0)
WINDOW = SPEC["solver"]["window_scaled"]
if u0 != 0.0:
    sys.exit("u0 != 0: this reference covers starts at rest only (the IWC rule is not in it)")


def normal_force(Y, V):
    """Spring-dashpot law (3) in fast units, while the contact is closed."""
    return -Y - cd * V


def tangential_force(mode, lam_n):
    if mode == "T":
        return -(a + B * lam_n) / A
    if mode == "S+":
        return -mu * lam_n
    if mode == "S-":
        return mu * lam_n
    raise ValueError(mode)


def field(mode):
    def f(_s, x):
        Y, V, U = x
        if mode == "F":
            return [V, b, a]
        lam_n = normal_force(Y, V)
        lam_t = tangential_force(mode, lam_n)
        dU = 0.0 if mode == "T" else a + A * lam_t + B * lam_n
        return [V, b + B * lam_t + C * lam_n, dU]

    return f


def event(fun, direction):
    fun.terminal = True
    fun.direction = direction
    return fun


def events_of(mode):
    """(event function, name) pairs watched in `mode`; each fires when it falls through 0
    (closing: Y falls through 0)."""
    opens = event(lambda s, x: normal_force(x[0], x[1]), -1)
    if mode == "F":
        return [(event(lambda s, x: x[0], -1), "closes")]
    if mode == "T":
        def right(s, x):
            lam_n = normal_force(x[0], x[1])
            return mu * lam_n + tangential_force("T", lam_n)

        def left(s, x):
            lam_n = normal_force(x[0], x[1])
            return mu * lam_n - tangential_force("T", lam_n)

        return [(opens, "opens"), (event(right, -1), "breaks+"), (event(left, -1), "breaks-")]
    sigma = 1.0 if mode == "S+" else -1.0
    return [(opens, "opens"), (event(lambda s, x: sigma * x[2], -1), "stops")]


def mode_at_rest(lam_n):
    """Mode of a closed contact at U = 0: stick if the stick force is in the cone, else slip
    the way it pushes (lam_T < 0 pushes towards u > 0)."""
    lam_t = tangential_force("T", lam_n)
    if abs(lam_t) <= mu * lam_n:
        return "T"
    return "S+" if lam_t < 0 else "S-"


def initial_mode(Y0, V0):
    lam_n = normal_force(Y0, V0)
    if Y0 < 0:
        closed = lam_n > 0
    elif Y0 == 0:
        closed = V0 < 0 or (V0 == 0 and b < 0)
    else:
        closed = False
    return mode_at_rest(lam_n) if closed else "F"


def run(x0, mode, s_end, stop_after=None):
    """Integrate the hybrid system from x0 in `mode` to s_end. Returns (final mode, final state,
    [(s, event name, new mode, state)]). stop_after: end at the first event with that name."""
    s, x, log = 0.0, np.array(x0, dtype=float), []
    for _ in range(MAX_PHASES):
        evs = events_of(mode)
        sol = solve_ivp(field(mode), (s, s_end), x, method="DOP853", rtol=RTOL, atol=ATOL,
                        events=[e for e, _ in evs])
        if sol.status == -1:
            raise RuntimeError(sol.message)
        if sol.status == 0:
            return mode, sol.y[:, -1], log
        k = next(i for i, t in enumerate(sol.t_events) if len(t))
        s, x, name = sol.t_events[k][0], sol.y_events[k][0].copy(), evs[k][1]
        if name == "opens":
            new = "F"
        elif name == "closes":
            new = "S+" if x[2] > 0 else "S-" if x[2] < 0 else mode_at_rest(normal_force(*x[:2]))
        elif name == "stops":
            x[2] = 0.0
            new = mode_at_rest(normal_force(x[0], x[1]))
        else:
            new = "S+" if name == "breaks+" else "S-"
        log.append((s, name, new, x.copy()))
        mode = new
        if stop_after == name:
            return mode, x, log
    raise RuntimeError("more than MAX_PHASES phases")


def outcome(Y0, V0):
    mode, x, log = run([Y0, V0, 0.0], initial_mode(Y0, V0), WINDOW)
    return mode, x, log


def grid(axis):
    return np.linspace(axis["min"], axis["max"], axis["n"])


def saddle():
    """§4 (7): the slip S_sigma's saddle, sigma = sign(a) (the slip a stick breaks into)."""
    sigma = 1.0 if a > 0 else -1.0
    p = C - sigma * mu * B
    assert p < 0, "the slip is not a saddle"
    disc = math.sqrt(p * p * cd * cd + 4 * abs(p))
    lam_u = (abs(p) * cd + disc) / 2
    lam_s = abs(p) * cd - lam_u
    return sigma, p, b / p, lam_u, lam_s


def basin():
    sigma, p, y_star, lam_u, lam_s = saddle()
    y_focus = -(a * B - A * b) / (A * C - B * B)
    print(f"saddle Y* = {y_star:.10f}, lam_s = {lam_s:.5f}, lam_u = {lam_u:.5f}; "
          f"F* = {abs(a) / (mu * A - sigma * B):.10f}; focus Y = {y_focus:.10f}")
    lines = [("V0 = 0 (t = Y0)", lambda t: (t, 0.0), grid(SPEC["sweep"]["Y0"])),
             ("Y0 = 0 (t = V0)", lambda t: (0.0, t), grid(SPEC["sweep"]["V0"]))]
    for label, start, ts in lines:
        outs, worst_focus, right = [], 0.0, 0
        for t in ts:
            Y0, V0 = start(t)
            mode, x, _ = outcome(Y0, V0)
            outs.append(mode)
            if mode == "T":
                worst_focus = max(worst_focus, abs(x[0] - y_focus))
            alpha = (V0 - lam_s * (Y0 - y_star)) / (lam_u - lam_s)
            if (alpha > 0 and mode == "F") or (alpha < 0 and mode == "T"):
                right += 1
        edges = []
        for i in range(len(ts) - 1):
            if outs[i] == outs[i + 1]:
                continue
            lo, hi = ts[i], ts[i + 1]
            while hi - lo > BRACKET:
                mid = 0.5 * (lo + hi)
                if outcome(*start(mid))[0] == outs[i]:
                    lo = mid
                else:
                    hi = mid
            edges.append(f"{0.5 * (lo + hi):.10f} ({outs[i]}/{outs[i + 1]})")
        crossing = y_star if label.startswith("V0") else -lam_s * y_star
        print(f"{label}: edges {', '.join(edges)}; manifold crossing {crossing:.10f}; "
              f"manifold right at {right} of {len(ts)} points; "
              f"largest |Y_end - focus| of T runs {worst_focus:.1e}")


def return_map(V):
    """From the switching line lambda_N = F* with U = 0 and normal velocity V: slip until
    U = 0, stick until lambda_N = F*. Returns (V there, elapsed s)."""
    sigma, *_ = saddle()
    f_star = abs(a) / (mu * A - sigma * B)
    Y = -f_star - cd * V
    slip = "S+" if sigma > 0 else "S-"
    mode, x, log = run([Y, V, 0.0], slip, 1e3, stop_after="stops")
    if log[-1][1] != "stops" or mode != "T":
        raise ValueError(f"V = {V}: the slip does not end in stick ({log[-1][1]} -> {mode})")
    s1 = log[-1][0]
    mode, x2, log2 = run(x, "T", 1e3, stop_after="breaks+" if sigma > 0 else "breaks-")
    if not log2 or not log2[-1][1].startswith("breaks"):
        raise ValueError(f"V = {V}: the stick does not break")
    return x2[1], s1 + log2[-1][0]


def drift_sign(V):
    """Sign of P(V) - V for the return map P, extended by -1 where the stick settles without
    breaking (the start is attracted to T) and by +1 where the slip lifts off: the map is
    expanding (multiplier >> 1), so it is defined only on a narrow interval around its fixed
    point and a scan of P alone would step over it."""
    try:
        v_out, _ = return_map(V)
    except ValueError as e:
        return -1.0 if "does not break" in str(e) else 1.0
    return math.copysign(1.0, v_out - V)


def cycle():
    vs = np.linspace(0.5, 4.0, 351)
    signs = [drift_sign(v) for v in vs]
    changes = [(v0, v1) for v0, v1, g0, g1 in zip(vs, vs[1:], signs, signs[1:]) if g0 != g1]
    print(f"return map: {len(changes)} sign change(s) of P(V) - V on V in [0.5, 4] (step 0.01)")
    for lo, hi in changes:
        g_lo = drift_sign(lo)
        while hi - lo > 1e-13:
            mid = 0.5 * (lo + hi)
            if drift_sign(mid) == g_lo:
                lo = mid
            else:
                hi = mid
        v = 0.5 * (lo + hi)
        v_out, period = return_map(v)
        h = 1e-7
        slope = (return_map(v + h)[0] - return_map(v - h)[0]) / (2 * h)
        print(f"periodic stick-slip orbit: V = {v:.12f} on the switching line (P(V) - V = "
              f"{v_out - v:.1e}), period {period:.10f}, multiplier {slope:.1f} per cycle")


if __name__ == "__main__":
    basin()
    cycle()
