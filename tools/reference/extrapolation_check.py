#!/usr/bin/env python3
"""Independent implementation of docs/extrapolation.md §1 (the κ → 0 extrapolation), run on the
ladders of results/zhao_liu/runs.csv and compared with the harness's choices in
results/zhao_liu/analysis.json (model, window, limit, score of every candidate, half-width).

From the docs only (§1.1–§1.3), not from src/:
- models: PowerLaw y0 + c κ^p (p in [0.05, 3]); PowerLawTwoTerms + d κ^{2p}; SqrtLog
  y0 + √κ (b L + c), L = ln(1/κ); SqrtLogKappaL2 + d κ L²; SqrtLogKappaL2L + κ (d L² + e L);
  SqrtLogKappa + κ (d L² + e L + f). Linear least squares by numpy's SVD (lstsq); a power law's
  exponent by a scan in steps of 0.05 refined by scipy's bounded minimiser to 1e-8.
- windows: the n smallest κ, n from the parameter count + 4 to the whole ladder.
- ordered at the window's largest κ: |Σ higher terms| < |b √κ L| + |c √κ| (√κ family),
  |d κ^{2p}| < |c κ^p| (two-term power law); a one-term power law is ordered.
- score: the root mean square of the leave-one-out residuals e_i/(1 − h_ii) of the three
  smallest κ (for a power law, h from the tangent plane: the Jacobian in (y0, c, p[, d])).
- the choice: the ordered candidate with the smallest score (refused, §1.5, when its
  half-width exceeds a tenth of |y(κ_min) − y0|); its half-width, the quadrature sum
  of: statistical (t_0.975,n−p × the standard error of y0), truncation (largest change of y0 to
  the adjacent models of the table on the same window, at least one degree of freedom),
  window (largest change of y0 when the window grows or shrinks by up to two points, same model,
  at least one degree of freedom) and data (the value accuracy: the largest over the other
  integrators of the median over κ of |y_i − y_j|, docs §1.4).
The ladders: every ok row of the integrator, quantity finite (T_stick/√κ, T_rev/κ where the
reverse slip lasts > 0, v_out, θ̇_out, normal impulse).

Run (about 5 s):  python3 tools/reference/extrapolation_check.py
Needs numpy and scipy.
"""

import csv
import json
import math
import pathlib
import statistics

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import t as student_t

ROOT = pathlib.Path(__file__).resolve().parents[2]
ORDER = ["SqrtLog", "SqrtLogKappaL2", "SqrtLogKappaL2L", "SqrtLogKappa"]
POWER = ["PowerLaw", "PowerLawTwoTerms"]
PARAMS = {"PowerLaw": 3, "PowerLawTwoTerms": 4, "SqrtLog": 3, "SqrtLogKappaL2": 4,
          "SqrtLogKappaL2L": 5, "SqrtLogKappa": 6}
QUANTITIES = {
    "StickScaled": lambda r, k: r["t_stick"] / math.sqrt(k),
    "ReverseScaled": lambda r, k: r["t_reverse_slip"] / k if r["t_reverse_slip"] > 0 else None,
    "VOut": lambda r, k: r["v_out"],
    "OmegaOut": lambda r, k: r["omega_out"],
    "ImpulseNormal": lambda r, k: r["impulse_normal"],
}


def sqrt_columns(model, k):
    L = np.log(1 / k)
    cols = [np.ones_like(k), np.sqrt(k) * L, np.sqrt(k)]
    extra = {"SqrtLog": [], "SqrtLogKappaL2": [k * L**2], "SqrtLogKappaL2L": [k * L**2, k * L],
             "SqrtLogKappa": [k * L**2, k * L, k]}[model]
    return np.column_stack(cols + extra)


def linear_fit(X, y):
    scale = np.linalg.norm(X, axis=0)
    beta, *_ = np.linalg.lstsq(X / scale, y, rcond=None)
    return beta / scale


def power_columns(model, k, p):
    cols = [np.ones_like(k), k**p]
    if model == "PowerLawTwoTerms":
        cols.append(k ** (2 * p))
    return np.column_stack(cols)


def power_fit(model, k, y):
    def rss(p):
        X = power_columns(model, k, p)
        return float(np.sum((X @ linear_fit(X, y) - y) ** 2))

    grid = np.arange(1, 61) * 0.05
    best = grid[int(np.argmin([rss(p) for p in grid]))]
    res = minimize_scalar(rss, bounds=(max(0.05, best - 0.05), min(3.0, best + 0.05)),
                          method="bounded", options={"xatol": 1e-8})
    p = res.x
    beta = linear_fit(power_columns(model, k, p), y)
    return p, beta


def fit(model, k, y):
    """(limit, fitted values, design/Jacobian for the hat matrix, ordered, coefficients)."""
    if model in POWER:
        p, beta = power_fit(model, k, y)
        X = power_columns(model, k, p)
        J = [np.ones_like(k), k**p, beta[1] * k**p * np.log(k)]
        ordered = True
        if model == "PowerLawTwoTerms":
            J += [k ** (2 * p)]
            J[2] = J[2] + beta[2] * 2 * k ** (2 * p) * np.log(k)
            km = k.max()
            ordered = abs(beta[2] * km ** (2 * p)) < abs(beta[1] * km**p)
        return beta[0], X @ beta, np.column_stack(J), ordered
    X = sqrt_columns(model, k)
    beta = linear_fit(X, y)
    row = sqrt_columns(model, np.array([k.max()]))[0]
    lead = abs(beta[1] * row[1]) + abs(beta[2] * row[2])
    higher = abs(float(np.dot(beta[3:], row[3:])))
    return beta[0], X @ beta, X, higher < lead


def loo_score(X, y, fitted, n_score=3):
    # The hat matrix's diagonal from an orthonormal basis of the (column-scaled) design: the
    # columns differ by ten orders of magnitude, (XᵀX)⁻¹ would square the condition number.
    q, _ = np.linalg.qr(X / np.linalg.norm(X, axis=0))
    h = np.sum(q**2, axis=1)
    e = (y - fitted) / (1 - h)
    return math.sqrt(float(np.mean(e[:n_score] ** 2)))


def standard_error_of_limit(X, y, fitted):
    n, p = X.shape
    s2 = float(np.sum((y - fitted) ** 2)) / (n - p)
    scale = np.linalg.norm(X, axis=0)
    _, r = np.linalg.qr(X / scale)
    r_inv = np.linalg.inv(r)
    return math.sqrt(s2 * float(np.sum(r_inv[0] ** 2))) / scale[0], n - p


def ladder(rows, integrator, quantity):
    pts = []
    for r in rows:
        if r["integrator"] != integrator or r["status"] != "ok":
            continue
        k = float(r["kappa"])
        vals = {c: float(r[c]) if r[c] not in ("", None) else math.nan for c in
                ("t_stick", "t_reverse_slip", "v_out", "omega_out", "impulse_normal")}
        y = QUANTITIES[quantity](vals, k)
        if y is not None and math.isfinite(y):
            pts.append((k, y))
    pts.sort()
    return np.array([p[0] for p in pts]), np.array([p[1] for p in pts])


def value_accuracy(rows, integrators, integrator, quantity):
    k_i, y_i = ladder(rows, integrator, quantity)
    mine = dict(zip(k_i, y_i))
    out = 0.0
    for other in integrators:
        if other == integrator:
            continue
        k_j, y_j = ladder(rows, other, quantity)
        diffs = [abs(mine[k] - y) for k, y in zip(k_j, y_j) if k in mine]
        if diffs:
            out = max(out, statistics.median(diffs))
    return out


def extrapolate(k, y, accuracy):
    cands = []
    for model, p in PARAMS.items():
        for n in range(p + 4, len(k) + 1):
            lim, fitted, X, ordered = fit(model, k[:n], y[:n])
            cands.append(dict(model=model, points=n, limit=lim, ordered=ordered,
                              score=loo_score(X, y[:n], fitted)))
    chosen = min((c for c in cands if c["ordered"]), key=lambda c: c["score"])
    model, n = chosen["model"], chosen["points"]
    lim, fitted, X, _ = fit(model, k[:n], y[:n])
    se, dof = standard_error_of_limit(X, y[:n], fitted)
    statistical = student_t.ppf(0.975, dof) * se
    family = POWER if model in POWER else ORDER
    i = family.index(model)
    truncation = 0.0
    for adj in family[max(0, i - 1): i + 2]:
        if adj != model and n - PARAMS[adj] >= 1:
            truncation = max(truncation, abs(fit(adj, k[:n], y[:n])[0] - lim))
    window = 0.0
    for m in range(n - 2, n + 3):
        if m != n and PARAMS[model] + 1 <= m <= len(k):
            window = max(window, abs(fit(model, k[:m], y[:m])[0] - lim))
    budget = dict(statistical=statistical, truncation=truncation, window=window, data=accuracy)
    half = math.sqrt(sum(v * v for v in budget.values()))
    return chosen, cands, budget, half


def main():
    with open(ROOT / "results" / "zhao_liu" / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    analysis = json.loads((ROOT / "results" / "zhao_liu" / "analysis.json").read_text())
    integrators = [a["integrator"] for a in analysis["integrators"]]
    for a in analysis["integrators"]:
        for conv in a["convergence"]:
            q, h = conv["quantity"], conv["extrapolation"]
            k, y = ladder(rows, a["integrator"], q)
            acc = value_accuracy(rows, integrators, a["integrator"], q)
            chosen, cands, budget, half = extrapolate(k, y, acc)
            # §1.5: refused when the half-width exceeds a tenth of |y(κ_min) − y0|.
            refused = half > abs(y[0] - chosen["limit"]) / 10
            if not isinstance(h, dict) or "limit" not in h:
                print(f"{a['integrator']:8} {q:13} {chosen['model']} n={chosen['points']}: "
                      f"{chosen['limit']:.10f} ± {half:.3e}, "
                      f"{'refused (not asymptotic)' if refused else 'NOT refused'}; harness: "
                      f"{conv.get('refusal', '')[:110]}")
                continue
            if refused:
                print(f"{a['integrator']:8} {q:13} refused here, not by the harness")
            theirs = {(c["model"], c["points"]): c for c in h["candidates"]}
            dlim = max(abs(c["limit"] - theirs[(c["model"], c["points"])]["limit"])
                       for c in cands if (c["model"], c["points"]) in theirs
                       and c["model"] not in POWER)
            same = chosen["model"] == h["model"] and chosen["points"] == h["points"]
            print(f"{a['integrator']:8} {q:13} {chosen['model']} n={chosen['points']} "
                  f"({'same' if same else 'harness: ' + h['model'] + ' n=' + str(h['points'])}); "
                  f"limit {chosen['limit']:.12f} (Δ {chosen['limit'] - h['limit']:+.1e}); "
                  f"half-width {half:.2e} (harness {h['half_width']:.2e}); "
                  f"√κ-family candidates' limits within {dlim:.1e}")


if __name__ == "__main__":
    main()
