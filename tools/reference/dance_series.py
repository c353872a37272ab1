#!/usr/bin/env python3
"""Independent checks of docs/dance.md ("Independent checks"): the series of Dance's particle
starting to slide, (D1) v' = (1, t) - mu v/|v|, v(0) = 0, slip along (1, 0).

1. sympy, exact: the series of v = (v_par, v_perp) to t^15 (mu = 1) and t^13 (mu = 1/2) by
   undetermined coefficients in sympy's own truncated power-series arithmetic (not the
   recurrence (D3)-(D6)): with w = v_perp/v_par, v/|v| = (1, w)/sqrt(1 + w^2) (v_par > 0), each
   order of v_par' = 1 - mu/sqrt(1 + w^2) and (v_par w)' = t - mu w/sqrt(1 + w^2) is linear in
   its newest coefficient. Printed: the first terms (docs/dance.md (D8), (D9)), and the residual
   of (D1) itself, v' - (1, t) + mu v/|v| with |v| = sqrt(v_par^2 + v_perp^2) expanded by sympy,
   through t^12.
2. mpmath at 90 digits: the recurrence (D4)-(D6) of docs/dance.md to degree 1001; for mu = 1
   the growth 1/(r_(n+1) - r_n) -> A = 3 of the ratios r_n = |c_(n+1)/c_n|, c_n = [v_par]_(2n+1);
   for mu = 1/2 the signed ratios c_(n+1)/c_n and their limit from a least-squares fit
   r_n = L + a/n + b/n^2 over n in [250, 499); log10 |[v_par]_1001| against the committed
   results/dance_start_slide/coefficients.csv.
3. mpmath's Taylor ODE solver (mp.odefun, 40 digits) from t = 0.1 (the series state, error far
   below 1e-40) for mu = 1: v(1), v(2) (docs/dance.md "Rigid numerics"), and at t = .35, .36,
   .4, .5, .6 the error of v_par's optimal truncation (the sum of the terms before the smallest
   nonzero one) over that smallest term, against results/dance_start_slide/truncation.csv.

Run (about 2 minutes):  python3 tools/reference/dance_series.py
Needs sympy and mpmath (pip install sympy mpmath).
"""

import csv
import pathlib

import mpmath as mp
import sympy as sp

ROOT = pathlib.Path(__file__).resolve().parents[2]
t = sp.symbols("t")


def trunc(expr, order):
    """The polynomial expr with the powers above `order` dropped."""
    p = sp.Poly(sp.expand(expr), t)
    return sum(c * t**k for (k,), c in p.terms() if k <= order)


def inv_sqrt_one_plus(x, order):
    """(1 + x)^(-1/2) for a series x = O(t), to `order`."""
    out, term = sp.Integer(1), sp.Integer(1)
    for k in range(1, order + 1):
        term = trunc(term * x, order)
        if term == 0:
            break
        out += sp.binomial(sp.Rational(-1, 2), k) * term
    return sp.expand(out)


def exact_series(mu, order):
    """v_par and w to `order` by undetermined coefficients, one order at a time."""
    v_par, w = sp.Integer(0), sp.Integer(0)
    for m in range(1, order + 1):
        a, c = sp.symbols("a c")
        vp, ww = v_par + a * t**m, w + c * t**m
        s = inv_sqrt_one_plus(trunc(ww**2, m + 1), m + 1)
        first = sp.expand(sp.diff(vp, t) - 1 + mu * s).coeff(t, m - 1)
        a_m = sp.solve(first, a)[0]
        vp = v_par + a_m * t**m
        second = sp.expand(sp.diff(trunc(vp * ww, m + 1), t) - t + mu * trunc(ww * s, m)).coeff(t, m)
        c_m = sp.solve(second, c)[0]
        v_par, w = vp, w + c_m * t**m
    return v_par, w


def sympy_checks():
    for mu, order in [(sp.Integer(1), 15), (sp.Rational(1, 2), 13)]:
        v_par, w = exact_series(mu, order)
        v_perp = trunc(v_par * w, order + 1)
        print(f"mu = {mu}: v_par = {sp.Poly(v_par, t).as_expr()}")
        print(f"         w = {trunc(w, 7)} + ...")
        print(f"    v_perp = {trunc(v_perp, 6)} + ...")
        # The residual of (D1) with sympy's own expansion of v/|v|.
        norm = sp.sqrt(v_par**2 + v_perp**2)
        residuals = [sp.diff(v_par, t) - 1 + mu * v_par / norm,
                     sp.diff(v_perp, t) - t + mu * v_perp / norm]
        worst = 0
        for r in residuals:
            ser = sp.series(r, t, 0, 13).removeO()
            coeffs = [ser.coeff(t, k) for k in range(13)]
            worst = max([worst] + [abs(c) for c in coeffs])
        print(f"    residual of (D1) through t^12: largest coefficient {worst}")


def recurrence(mu, degree):
    """(D4)-(D6) at the current mp precision: the coefficients [v_par]_k and [w]_k,
    k = 0..degree."""
    mu = mp.mpf(mu)
    v, w = [mp.mpf(0)] * (degree + 2), [mp.mpf(0)] * (degree + 2)
    g, s = [mp.mpf(1)] + [mp.mpf(0)] * (degree + 1), [mp.mpf(1)] + [mp.mpf(0)] * (degree + 1)
    for m in range(1, degree + 1):
        k = m - 1
        if k >= 1:
            g[k] = mp.fsum(w[j] * w[k - j] for j in range(1, k))
            s[k] = mp.fsum((mp.mpf(j) / 2 - k) * g[j] * s[k - j] for j in range(1, k + 1)) / k
        v[m] = ((1 if m == 1 else 0) - mu * s[m - 1]) / m
        rhs = (1 if m == 1 else 0) - mu * mp.fsum(s[j] * w[m - j] for j in range(2, m)) \
            - (m + 1) * mp.fsum(v[j] * w[m + 1 - j] for j in range(2, m + 1))
        w[m] = rhs / ((m + 1) * (1 - mu) + mu)
    return v[: degree + 1], w[: degree + 1]


def committed_log10(mu, power):
    with open(ROOT / "results" / "dance_start_slide" / "coefficients.csv", newline="") as f:
        for r in csv.DictReader(f):
            if float(r["mu"]) == mu and int(r["power"]) == power:
                return r["log10_abs"]
    return None


def mpmath_checks():
    mp.mp.dps = 90
    out = {}
    for mu in [1, 0.5]:
        v, w = recurrence(mu, 1001)
        out[mu] = (v, w)
        c = [v[2 * n + 1] for n in range(501)]
        print(f"mu = {mu}: log10|[v_par]_1001| = {mp.nstr(mp.log10(abs(v[1001])), 17)} "
              f"(coefficients.csv: {committed_log10(mu, 1001)})")
        if mu == 1:
            r = [abs(c[n + 1] / c[n]) for n in range(1, 500)]
            for n in [100, 150, 300, 498]:
                print(f"    1/(r_(n+1) - r_n) at n = {n}: {mp.nstr(1 / (r[n] - r[n - 1]), 6)}")
        else:
            ratios = {n: c[n + 1] / c[n] for n in range(1, 500)}
            print(f"    c_(n+1)/c_n at n = 499: {mp.nstr(ratios[499], 7)}")
            ns = list(range(250, 500))
            A = mp.matrix([[1, mp.mpf(1) / n, mp.mpf(1) / n**2] for n in ns])
            b = mp.matrix([ratios[n] for n in ns])
            L = mp.lu_solve(A.T * A, A.T * b)[0]
            print(f"    limit L of r_n = L + a/n + b/n^2 over n in [250, 499]: {mp.nstr(L, 6)}")
    return out


def ode_checks(series):
    mp.mp.dps = 40
    vpar, w = series[1]
    # v_perp = v_par w (eq. (28)); at t0 = 0.1 the mu = 1 series diverges only past
    # k ~ 3/t0^2 = 300: the state from degree 200 errs by far less than 1e-40.
    cut = 200
    vperp = [mp.fsum(vpar[j] * w[k - j] for j in range(1, k)) for k in range(cut)]
    t0 = mp.mpf("0.1")

    def value(coeffs, x, integrate=False):
        if integrate:
            return mp.fsum(coeffs[k] * x ** (k + 1) / (k + 1) for k in range(len(coeffs)))
        return mp.fsum(coeffs[k] * x**k for k in range(len(coeffs)))

    y0 = [value(vpar[:cut], t0, True), value(vperp, t0, True),
          value(vpar[:cut], t0), value(vperp, t0)]

    def f(x, y):
        n = mp.sqrt(y[2] ** 2 + y[3] ** 2)
        return [y[2], y[3], 1 - y[2] / n, x - y[3] / n]

    sol = mp.odefun(f, t0, y0)
    for x in [1, 2]:
        y = sol(x)
        print(f"mu = 1: v({x}) = ({mp.nstr(y[2], 15)}, {mp.nstr(y[3], 16)})")
    with open(ROOT / "results" / "dance_start_slide" / "truncation.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if float(r["mu"]) == 1]
    for x in ["0.35", "0.36", "0.4", "0.5", "0.6"]:
        xm = mp.mpf(x)
        terms = [vpar[k] * xm**k for k in range(len(vpar))]
        smallest, k_min = min((abs(tk), k) for k, tk in enumerate(terms) if tk != 0)
        error = abs(mp.fsum(terms[:k_min]) - sol(xm)[2])
        committed = [float(r["abs_error"]) / float(r["smallest_term"]) for r in rows
                     if abs(float(r["t"]) - float(x)) < 1e-9]
        print(f"    t = {x}: optimal truncation before t^{k_min}, error/smallest term "
              f"{mp.nstr(error / smallest, 4)} (truncation.csv: "
              f"{', '.join(f'{c:.4f}' for c in committed) or 'no row'})")


if __name__ == "__main__":
    sympy_checks()
    series = mpmath_checks()
    ode_checks(series)
