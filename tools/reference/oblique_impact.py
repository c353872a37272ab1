#!/usr/bin/env python3
"""Independent reference for docs/oblique_impact.md §1–§2: Champneys–Várkonyi's rigid oblique
impact map (§3.2, Fig. impactmap) under the energetic and the Poisson law, and the compliant
impact of the planar single contact integrated directly, over the contacts, laws, κ and
incidences of experiments/oblique_impact_map.toml; compared row by row with the committed
results/oblique_impact_map/runs.csv and, per contact and law, with its analysis.json (max d to
each rigid law at each κ, the rate, the slip reversals).

From docs/champneys_varkonyi.md §1, docs/oblique_impact.md and C–V §3.2 (not from src/):
- The contact: u̇ = a + Aλ_T + Bλ_N, v̇ = b + Bλ_T + Cλ_N, gap y, v = ẏ, penetration δ = −y;
  p± = C ∓ μB, k± = μA ∓ B, K = (AC − B²)/A.
- Rigid impact, in normal-impulse time I_N (Stronge): straight lines in (u, v), a phase at a
  time — slip S_σ (σ = sign u): u' = −σk_σ, v' = p_σ; stick (u = 0, |B| ≤ μA): u' = 0, v' = K;
  at u = 0 with |B| > μA the slip σ with k_σ < 0 (σ = sign B). Compression ends at v = 0 (I_c,
  normal work W_c = ∫v dI_N); Poisson: the impact ends at I_N = (1 + r)I_c; energetic: when the
  restitution's work reaches −r²W_c. Each phase's end is the smallest positive root (linear in
  u, v; quadratic in the work), computed here in closed form.
- r: the law's frictionless restitution (normal mobility C): 1 for the elastic laws; for the
  spring–dashpot the release speed of η'' = −C(η + c_dη') from (0, 1) at the force's zero
  η + c_dη' = 0 (integrated here).
- Compliant impact: time τ = t/√κ, penetration δ = √κ η; then with Λ = √κ λ and ε = √κ
      η' = −v,  u' = εa + AΛ_T + BΛ_N,  v' = εb + BΛ_T + CΛ_N,
  spring–dashpot Λ_N = max(0, η − c_d v) (F_n = δ/κ + c_d δ̇/√κ), Hunt–Crossley
  Λ_N = η^{3/2}(1 − c_d v) (F_n = (δ/√κ)^{3/2}(1 + c_d δ̇)/√κ). Coulomb: slip Λ_T = −σμΛ_N;
  stick u' = 0 with Λ_T* = −(εa + BΛ_N)/A while |Λ_T*| ≤ μΛ_N. Events (solve_ivp, DOP853,
  rtol 1e-12, atol 1e-14, one call per mode): slip → u = 0, then stick if the cone holds, else
  the slip of the other sign; stick → Λ_T* = ±μΛ_N (the slip σ = ∓1); the first opening
  (the release function η − c_d v, resp. η, falls to 0) ends the run: (u⁺, v⁺) there.
  At a = 0, Λ_T* is a fixed fraction of Λ_N and the cone events cross zero with Λ_N, at the
  opening (docs/champneys_varkonyi.md §7): a cone event located at Λ_N < 1e-8 is taken as
  that coincidence, and stick continues to the release. Mode sequences that differ from the
  CSV's only by a final slip entered from stick are counted as this coincidence.
  Start: touching (η = 0), (u⁻, v⁻), slipping with sign u⁻.
- d = |(u⁺, v⁺) − rigid|/|v⁻|; reversal: u⁺u⁻ < 0 with |u⁺| > 1e-3 (at the smallest κ).

Printed: per (contact, law) the largest row difference of the rigid maps (u⁺, v⁺) against the
CSV's u_plus_energetic/… and of the compliant (u⁺, v⁺) against u_plus, v_plus (same κ,
incidence); then max d to each law at each κ, beside analysis.json, the rate, and the reversal
counts. Optional argument: the laws to run (spring, dashpot, hertz; default all).

Run (about 16 s):  python3 tools/reference/oblique_impact.py [spring dashpot hertz]
Needs numpy and scipy (pip install numpy scipy).
"""

import csv
import json
import math
import pathlib
import sys
import tomllib

import numpy as np
from scipy.integrate import solve_ivp

ROOT = pathlib.Path(__file__).resolve().parents[2]
RTOL, ATOL = 1e-12, 1e-14
REVERSAL = 1e-3
COINCIDENT = 1e-8        # a cone event with Λ_N below this (peak O(1)) is the opening's
NAMES = {1: "slide_right", -1: "slide_left", 0: "stick", "S+": "slide_right",
         "S-": "slide_left", "T": "stick"}


def seq(modes):
    out = []
    for m in modes:
        if not out or out[-1] != NAMES[m]:
            out.append(NAMES[m])
    return ">".join(out)


class Contact:
    def __init__(self, A, B, C, mu, a, b):
        self.A, self.B, self.C, self.mu, self.a, self.b = A, B, C, mu, a, b
        self.p = {1: C - mu * B, -1: C + mu * B}
        self.k = {1: mu * A - B, -1: mu * A + B}
        self.K = (A * C - B * B) / A

    # --- the rigid map -------------------------------------------------------------------
    def rigid(self, u, v, r, law):
        """(u⁺, v⁺, phases) of the rigid impact from (u, v), v < 0."""
        I = W = 0.0
        Ic = Wc = None
        phases = []
        for _ in range(20):
            if u != 0.0:
                sig = 1 if u > 0 else -1
                du, dv, name = -sig * self.k[sig], self.p[sig], "S+" if sig > 0 else "S-"
            elif abs(self.B) <= self.mu * self.A:
                du, dv, name = 0.0, self.K, "T"
            else:
                sig = 1 if self.B > 0 else -1
                assert self.k[sig] < 0
                du, dv, name = -sig * self.k[sig], self.p[sig], "S+" if sig > 0 else "S-"
            if not phases or phases[-1] != name:
                phases.append(name)
            cands = []                                   # (ΔI, kind)
            if u != 0.0 and du * u < 0:
                cands.append((-u / du, "stop"))
            if Ic is None:
                if v < 0 and dv > 0:
                    cands.append((-v / dv, "compressed"))
            elif law == "poisson":
                cands.append(((1 + r) * Ic - I, "end"))
            else:                                        # W + vΔ + ½dvΔ² = (1 − r²)Wc
                target = (1 - r * r) * Wc - W
                roots = np.roots([0.5 * dv, v, -target]) if dv != 0 else [target / v]
                pos = [x.real for x in np.atleast_1d(roots) if abs(x.imag) < 1e-14 and x.real > -1e-15]
                if pos:
                    cands.append((max(min(pos), 0.0), "end"))
            if not cands:
                raise RuntimeError(f"no end of phase from u = {u}, v = {v}")
            dI, kind = min(cands)
            W += v * dI + 0.5 * dv * dI * dI
            I += dI
            u, v = u + du * dI, v + dv * dI
            if kind == "stop":
                u = 0.0
            elif kind == "compressed":
                v, Ic, Wc = 0.0, I, W
                if law == "energetic" and r == 0.0:
                    return u, 0.0, phases
            else:
                return u, v, phases
        raise RuntimeError("too many phases")

    # --- the compliant impact ------------------------------------------------------------
    def run(self, u0, v0, kappa, law, cd):
        eps = math.sqrt(kappa)
        if law == "hertz":
            def lam_n(y):
                eta = y[0]
                return eta * math.sqrt(abs(eta)) * (1 - cd * y[2])
            def release(_t, y):
                return y[0] * (1 - cd * y[2]) if cd else y[0]
        else:
            def lam_n(y):
                return max(0.0, y[0] - cd * y[2])
            def release(_t, y):
                return y[0] - cd * y[2]
        release.terminal, release.direction = True, -1

        def stick_lt(y):
            return -(eps * self.a + self.B * lam_n(y)) / self.A

        def field(mode):
            def f(_t, y):
                ln = lam_n(y)
                if mode == 0:
                    lt, du = stick_lt(y), 0.0
                else:
                    lt = -mode * self.mu * ln
                    du = eps * self.a + self.A * lt + self.B * ln
                return [-y[2], du, eps * self.b + self.B * lt + self.C * ln]
            return f

        y = np.array([0.0, u0, v0])
        mode = 1 if u0 > 0 else -1
        modes = [mode]
        t = 0.0
        coincident = False
        for _ in range(50):
            if mode == 0 and coincident:
                evs, nexts = [release], [None]
            elif mode == 0:
                def up(_t, y):
                    return stick_lt(y) - self.mu * lam_n(y)
                up.terminal, up.direction = True, 1
                def down(_t, y):
                    return stick_lt(y) + self.mu * lam_n(y)
                down.terminal, down.direction = True, -1
                evs, nexts = [release, up, down], [None, -1, 1]
            else:
                def stop(_t, y):
                    return y[1]
                stop.terminal, stop.direction = True, -mode
                evs, nexts = [release, stop], [None, "u0"]
            sol = solve_ivp(field(mode), (t, t + 1e3), y, method="DOP853", rtol=RTOL,
                            atol=ATOL, events=evs)
            fired = [(sol.t_events[i][0], i) for i in range(len(evs)) if len(sol.t_events[i])]
            if not fired:
                raise RuntimeError(f"no event: {sol.message}")
            t_ev = min(f[0] for f in fired)
            # the opening first when it coincides (a = 0: the cone events cross with Λ_N)
            i = 0 if any(f[1] == 0 and f[0] <= t_ev + 1e-12 for f in fired) else \
                min(fired)[1]
            t = sol.t_events[i][0]
            y = sol.y_events[i][0].copy()
            if i == 0:
                return y[1], y[2], modes
            if mode == 0 and lam_n(y) < COINCIDENT:
                coincident = True        # the cone event at the opening: stick to the release
                continue
            if nexts[i] == "u0":
                y[1] = 0.0
                lt, ln = stick_lt(y), lam_n(y)
                if abs(lt) <= self.mu * ln:
                    mode = 0
                else:
                    mode = -1 if lt > 0 else 1
            else:
                mode = nexts[i]
            modes.append(mode)
        raise RuntimeError("too many modes")


def restitution(cd, C=1.0):
    """Frictionless release speed of η'' = −C(η + c_d η') from η = 0, η' = 1."""
    if cd == 0:
        return 1.0
    def rel(_t, y):
        return y[0] + cd * y[1]
    rel.terminal, rel.direction = True, -1
    sol = solve_ivp(lambda _t, y: [y[1], -C * (y[0] + cd * y[1])], (0, 100), [0.0, 1.0],
                    method="DOP853", rtol=1e-13, atol=1e-15, events=rel)
    return -sol.y_events[0][0][1]


def law_key(r):
    if r["law"] == "hunt_crossley":
        return "hertz"
    return "spring" if float(r["damping"]) == 0 else "dashpot"


def main():
    want = sys.argv[1:] or ["spring", "dashpot", "hertz"]
    exp = tomllib.loads((ROOT / "experiments/oblique_impact_map.toml").read_text())
    par = exp["params"]
    a, b, vm = par["a"], par["b"], par["v_minus"]
    inc = exp["sweep"]["incidence"]
    grid = np.linspace(inc["min"], inc["max"], inc["n"])
    rows = list(csv.DictReader(open(ROOT / "results/oblique_impact_map/runs.csv")))
    verdicts = json.loads((ROOT / "results/oblique_impact_map/analysis.json").read_text())["verdicts"]
    csv_inc = sorted({float(r["u_minus"]) for r in rows})
    print(f"oblique_impact_map: a = {a}, b = {b}, v⁻ = {vm}; incidence grid "
          f"{inc['n']} points, largest difference from the CSV's u_minus "
          f"{max(abs(x - y) for x, y in zip(grid, csv_inc)):.1e}")
    worst = {"rigid": 0.0, "compliant": 0.0, "maxd": 0.0}
    for ci, con in enumerate(exp["sweep"]["contacts"]):
        cont = Contact(con["A"], con["B"], con["C"], con["mu"], a, b)
        cname = f"A = {con['A']:g}, B = {con['B']:g}, C = {con['C']:g}, μ = {con['mu']:g}"
        for law in exp["sweep"]["laws"]:
            cd = law["damping"]
            key = "hertz" if law["law"] == "hunt_crossley" else ("spring" if cd == 0 else "dashpot")
            if key not in want:
                continue
            ver = next(x for x in verdicts if x["contact"] == cname and x["law"] == law["law"]
                       and x["damping"] == cd)
            r = 1.0 if cd == 0 else restitution(cd, con["C"])
            sel = {(float(x["kappa"]), round(float(x["u_minus"]), 9)): x for x in rows
                   if float(x["A"]) == con["A"] and float(x["B"]) == con["B"]
                   and float(x["mu"]) == con["mu"] and law_key(x) == key}
            # rigid maps
            rig, drig, rev_rigid, rig_seq = {}, 0.0, 0, 0
            for um in grid:
                e = cont.rigid(um, vm, r, "energetic")
                p = cont.rigid(um, vm, r, "poisson")
                rig[um] = (e, p)
                x = sel[(ver["kappa"][0], round(um, 9))]
                drig = max(drig, abs(e[0] - float(x["u_plus_energetic"])),
                           abs(e[1] - float(x["v_plus_energetic"])),
                           abs(p[0] - float(x["u_plus_poisson"])),
                           abs(p[1] - float(x["v_plus_poisson"])))
                rev_rigid += e[0] * um < 0 and abs(e[0]) > REVERSAL
                rig_seq += (seq(e[2]) == x["energetic_sequence"]) + (seq(p[2]) == x["poisson_sequence"])
            worst["rigid"] = max(worst["rigid"], drig)
            print(f"\n{cname}, {law['law']} c_d = {cd}: r = {r:.10f} (harness "
                  f"{ver['restitution']:.10f}, rel. diff {abs(r - ver['restitution']) / r:.1e}); "
                  f"rigid maps against the CSV, largest |Δ| over 24 incidences × (u⁺, v⁺) × 2 "
                  f"laws: {drig:.1e}; phase sequences equal {rig_seq} of 48")
            print(f"  {'κ':>6}  {'max|Δ(u⁺,v⁺)| vs CSV':>21}  {'max d energetic: ref':>20} "
                  f"{'harness':>10} {'rel':>7}  {'max d Poisson: ref':>18} {'harness':>10} "
                  f"{'rel':>7}")
            de_all, dp_all, seq_diff, n_trail = [], [], [], 0
            for kap, de_h, dp_h in zip(ver["kappa"], ver["max_d_energetic"], ver["max_d_poisson"]):
                dmax, de, dp, rev = 0.0, 0.0, 0.0, 0
                for um in grid:
                    up, vp, modes = cont.run(um, vm, kap, key, cd)
                    x = sel[(kap, round(um, 9))]
                    hs = x["mode_sequence"]
                    if seq(modes) != hs and hs.rsplit(">", 1)[0] == seq(modes) \
                            and seq(modes).endswith("stick"):
                        n_trail += 1
                    elif seq(modes) != hs:
                        seq_diff.append(f"κ = {kap:.0e}, u⁻ = {um:.4f}: {seq(modes)} "
                                        f"(harness {x['mode_sequence']})")
                    dmax = max(dmax, abs(up - float(x["u_plus"])), abs(vp - float(x["v_plus"])))
                    (eu, ev, _), (pu, pv, _) = rig[um]
                    de = max(de, math.hypot(up - eu, vp - ev) / abs(vm))
                    dp = max(dp, math.hypot(up - pu, vp - pv) / abs(vm))
                    rev += up * um < 0 and abs(up) > REVERSAL
                de_all.append(de)
                dp_all.append(dp)
                worst["compliant"] = max(worst["compliant"], dmax)
                worst["maxd"] = max(worst["maxd"], abs(de - de_h) / de_h, abs(dp - dp_h) / dp_h)
                print(f"  {kap:6.0e}  {dmax:21.1e}  {de:20.6e} {de_h:10.6e} "
                      f"{abs(de - de_h) / de_h:7.1e}  {dp:18.6e} {dp_h:10.6e} "
                      f"{abs(dp - dp_h) / dp_h:7.1e}")
            lk = np.log(ver["kappa"])
            rate_e = np.polyfit(lk, np.log(de_all), 1)[0]
            rate_p = np.polyfit(lk, np.log(dp_all), 1)[0]
            print(f"  rate (energetic): {rate_e:.4f} (harness {ver['rate_energetic']:.4f}); "
                  f"(Poisson): {rate_p:.4f} (harness {ver['rate_poisson']:.4f}); reversals at "
                  f"κ = {ver['kappa'][-1]:.0e}: compliant {rev}, rigid energetic {rev_rigid} "
                  f"(harness {ver['reversals']} / {ver['reversals_energetic']} of {ver['runs']})")
            n_runs = len(ver["kappa"]) * len(grid)
            print(f"  compliant mode sequences equal to the CSV's: "
                  f"{n_runs - len(seq_diff) - n_trail} of {n_runs}; {n_trail} where the CSV adds "
                  f"a final slip after stick (the coincident cone event at the opening); "
                  f"{len(seq_diff)} other" + "".join("\n    differs: " + d for d in seq_diff[:6]))
    print(f"\nlargest |Δ| rigid maps vs CSV: {worst['rigid']:.1e}; compliant (u⁺, v⁺) vs CSV: "
          f"{worst['compliant']:.1e}; largest relative difference of max d: {worst['maxd']:.1e}")


if __name__ == "__main__":
    main()
