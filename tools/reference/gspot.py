#!/usr/bin/env python3
"""Independent reference for docs/champneys_varkonyi.md §12 ("The G-spot"): the Painlevé rod's
rigid leftward slip into the G-spot p = b = 0 (Champneys–Várkonyi 2016, §2.1 and §5.1;
Génot–Brogliato 1999), recomputed from the rod's mechanics and compared with the committed
results/gspot_rod/analysis.json (the start and μ from experiments/gspot_rod.toml).

The rod, derived here from Newton–Euler (not from src/): uniform rod of length 2 (centre G to
the contact end A: 1), mass 1, gravity 1, moment of inertia ρ about G (ρ = gyration_sq, 1/3
when the experiment does not set it; k = 1/ρ). The docs' convention (docs/model.md,
docs/champneys_varkonyi.md §6): A = G − (cos θ, sin θ), u = ẋ_A, v = ẏ_A, ω = θ̇; F_n normal,
F_τ tangential force at A. Then Ẍ = F_τ, Ÿ = F_n − 1, ρ θ̈ = (A − G) × F = −c F_n + s F_τ, and
    ÿ_A = Ÿ − (c θ̈ − s ω²) = (1 + k c²) F_n − k s c F_τ + ω² s − 1,
    ẍ_A = Ẍ + (s θ̈ + c ω²) = −k s c F_n + (1 + k s²) F_τ + ω² c.
Leftward slip (u < 0): F_τ = +μF_n, so v̇ = p F_n + b with p = 1 + k c (c − μ s) (C–V's
Painlevé parameter of this slip), b = ω² s − 1; u̇ = k₋ F_n + ω² c, k₋ = μ + k s (μ s − c);
θ̈ = P F_n, P = k (μ s − c). Rigid slip: F_n = −b/p.
With dt = p ds (C–V (time_rescale)) the slip is the regular flow
    dθ/ds = p ω,  dω/ds = −P b,  du/ds = −k₋ b + p ω² c,  dt/ds = p,
for which the G-spot (p = b = 0) is an equilibrium, approached as s → ∞. It is integrated by
scipy (DOP853, rtol 1e-12, atol 1e-14) with terminal events b = 0 (lift-off), u = 0 (slip
stop) and p = P_END·p₀ (the G-spot approached; p = 0 itself is reached only as s → ∞); t* adds
the remainder ∫p ds ≈ p/(−α₁) (below 1e-15 here). As a second, unscaled check the slip is also
integrated in t itself (F_n = −b/p, integrable singularity) with a terminal event at p = 0.

C–V's printed (CPP_bp) lacks the factor ℓ²/r² on its μ term (and has a stray parenthesis): the
Painlevé parameter of this slip is 1 + (ℓ²/r²) cos θ (cos θ − μ sin θ), which is what (mumin)
and the §5.1 coefficients (k = ℓ²/r² = 3, ℓ = 1) follow; the script prints both.

Computed and compared:
- μ_P,min (min over θ of C–V (mumin)) and μ_c: the μ at which α₁ = α₃ at the lower G-spot (both
  by numerical root finding; closed forms 2√(ρ(1+ρ)), 4√(ρ(1+ρ)/3) printed beside);
- the G-spot (θ*, ω*) as the limit of the slip from the experiment's start, and as the root of
  p(θ) = 0, ω² = 1/sin θ; α₁, α₂, α₃ from finite differences of the rescaled flow (the matrix
  d(dp/ds, db/ds)/d(p, b)), beside the closed forms and C–V's printed §5.1 formulas (k = 3);
- the case (G1: α₁ < α₃ < 0; G2: α₃ < α₁ < 0, α₂ < 0), G1's basin condition
  α₂p < (α₁ − α₃)b along the approach, the slip's end and t*; beside it, the docs' integrator
  (RK4 in s, step 1e-4) run to b > −1e-12, which reproduces the harness's t* and shows where its
  4e-12 excess comes from (p frozen at its rounding floor ≈ 4e-13 while t keeps growing);
- the exponent of λ_N ∝ (t* − t)^γ fitted on the trajectory for t* − t ∈ [1e-9, 1e-6], and
  α₃/α₁ − 1;
- the slip-stop impulse at the G-spot from impulse–momentum (Λ_T = μΛ_N, u → 0): |u*|/k₋,
  and ω after it, and Δv = p Λ_N (0 at the G-spot).

Run (about 6 s):  python3 tools/reference/gspot.py
Needs numpy and scipy (pip install numpy scipy).
"""

import json
import math
import pathlib
import tomllib

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, minimize_scalar

ROOT = pathlib.Path(__file__).resolve().parents[2]
RTOL, ATOL = 1e-12, 1e-14
P_END = 1e-13


class Rod:
    def __init__(self, mu, rho):
        self.mu, self.rho, self.k = mu, rho, 1.0 / rho

    def p(self, th):
        s, c = math.sin(th), math.cos(th)
        return 1.0 + self.k * c * (c - self.mu * s)

    def b(self, th, om):
        return om * om * math.sin(th) - 1.0

    def P(self, th):
        return self.k * (self.mu * math.sin(th) - math.cos(th))

    def k_minus(self, th):
        s, c = math.sin(th), math.cos(th)
        return self.mu + self.k * s * (self.mu * s - c)

    def flow_s(self, _s, y):
        th, om, u, _t = y
        p, b = self.p(th), self.b(th, om)
        return [p * om, -self.P(th) * b, -self.k_minus(th) * b + p * om * om * math.cos(th), p]

    def flow_t(self, _t, y):
        th, om, u = y
        fn = -self.b(th, om) / self.p(th)
        return [om, self.P(th) * fn, self.k_minus(th) * fn + om * om * math.cos(th)]

    # d p/ds and d b/ds as functions of (θ, ω), by central differences of p and b
    def rates(self, th, om, h=1e-7):
        dp_dth = (self.p(th + h) - self.p(th - h)) / (2 * h)
        db_dth = (self.b(th + h, om) - self.b(th - h, om)) / (2 * h)
        db_dom = (self.b(th, om + h) - self.b(th, om - h)) / (2 * h)
        f = self.flow_s(0.0, [th, om, 0.0, 0.0])
        return np.array([dp_dth * f[0], db_dth * f[0] + db_dom * f[1]])

    def alphas(self, th, om, h=1e-5):
        """The matrix d(dp/ds, db/ds)/d(p, b) at (θ, ω): [[α₁, ~0], [α₂, α₃]]."""
        def pb(x):
            return np.array([self.p(x[0]), self.b(x[0], x[1])])
        x = np.array([th, om])
        J_rate = np.zeros((2, 2))
        J_pb = np.zeros((2, 2))
        for j in range(2):
            e = np.zeros(2)
            e[j] = h
            J_rate[:, j] = (self.rates(*(x + e)) - self.rates(*(x - e))) / (2 * h)
            J_pb[:, j] = (pb(x + e) - pb(x - e)) / (2 * h)
        return J_rate @ np.linalg.inv(J_pb)

    def lower_gspot(self):
        """The lowest θ > 0 with p(θ) = 0 and ω = 1/√sin θ (b = 0, ω > 0)."""
        m = minimize_scalar(self.p, bounds=(1e-6, math.pi / 2 - 1e-6), method="bounded")
        if self.p(m.x) >= 0:
            return None
        th = brentq(self.p, 1e-9, m.x, xtol=1e-16, rtol=1e-15)
        return th, 1.0 / math.sqrt(math.sin(th))


def mu_p_min(rho):
    """min over θ of C–V (mumin), μ_P(θ) = (r² + ℓ² cos²θ)/(ℓ² sin θ cos θ), with r² = ρℓ²."""
    m = minimize_scalar(lambda th: (rho + math.cos(th) ** 2) / (math.sin(th) * math.cos(th)),
                        bounds=(1e-6, math.pi / 2 - 1e-6), method="bounded",
                        options={"xatol": 1e-12})
    return m.fun


def mu_c(rho):
    """The μ at which α₁ = α₃ at the lower G-spot (G1 needs α₁ < α₃)."""
    def gap(mu):
        rod = Rod(mu, rho)
        th, om = rod.lower_gspot()
        al = rod.alphas(th, om)
        return al[1, 1] - al[0, 0]        # α₃ − α₁
    lo = mu_p_min(rho) + 1e-6
    return brentq(gap, lo, 10.0, xtol=1e-14)


def slip_in_s(rod, th0, om0, u0):
    def ev_b(_s, y):
        return rod.b(y[0], y[1])
    ev_b.terminal, ev_b.direction = True, 1
    def ev_u(_s, y):
        return y[2]
    ev_u.terminal, ev_u.direction = True, 1
    p0 = rod.p(th0)
    def ev_p(_s, y):
        return rod.p(y[0]) - P_END * p0
    ev_p.terminal, ev_p.direction = True, -1
    sol = solve_ivp(rod.flow_s, (0.0, 1e4), [th0, om0, u0, 0.0], method="DOP853",
                    rtol=RTOL, atol=ATOL, events=[ev_b, ev_u, ev_p], dense_output=True)
    names = ["lift-off (b = 0)", "slip stop (u = 0)", "gspot"]
    end = next((names[i] for i in range(3) if len(sol.t_events[i])), "none")
    return sol, end


def slip_in_t(rod, th0, om0, u0, t_max):
    def ev_p(_t, y):
        return rod.p(y[0])
    ev_p.terminal, ev_p.direction = True, -1
    sol = solve_ivp(rod.flow_t, (0.0, t_max), [th0, om0, u0], method="DOP853",
                    rtol=RTOL, atol=ATOL, events=[ev_p])
    return sol


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def line(name, mine, theirs):
    print(f"  {name:<34} {mine: .15f}   {theirs: .15f}   {rel(mine, theirs):.1e}")


def main():
    exp = tomllib.loads((ROOT / "experiments/gspot_rod.toml").read_text())
    par = exp["params"]
    mu, rho = par["mu"], par.get("gyration_sq", 1.0 / 3.0)
    th0, om0, u0 = par["theta0"], par["omega0"], par["u0"]
    h = json.loads((ROOT / "results/gspot_rod/analysis.json").read_text())
    rod = Rod(mu, rho)

    # thresholds
    mpm, mc = mu_p_min(rho), mu_c(rho)
    print(f"gspot_rod: μ = {mu}, ρ = {rho:.16g}, start θ0 = {th0}, ω0 = {om0}, u0 = {u0}; "
          f"p0 = {rod.p(th0):.6f}, b0 = {rod.b(th0, om0):.6f}")
    # C–V (CPP_bp) as printed, [1 + (ℓ²/r²)cos²θ − μ cos θ sin θ], against p derived above
    thm = math.atan(2.0)
    printed = 1 + rod.k * math.cos(thm) ** 2 - mu * math.cos(thm) * math.sin(thm)
    print(f"  C–V (CPP_bp) as printed at θ = atan 2: {printed:.6f}; derived p = 1 + (ℓ²/r²)cos θ"
          f"(cos θ − μ sin θ): {rod.p(thm):.6f}; (mumin) follows the derived p "
          f"(μ_P(atan 2) = {(rho + math.cos(thm) ** 2) / (math.sin(thm) * math.cos(thm)):.6f})")
    print(f"  {'quantity':<34} {'reference':>19}   {'harness':>19}   rel. diff")
    line("μ_P,min (min of (mumin))", mpm, h["threshold"]["painleve_mu_min"])
    line("μ_c (α₁ = α₃ at the G-spot)", mc, h["threshold"]["mu_c"])
    print(f"    closed forms: 2√(ρ(1+ρ)) = {2 * math.sqrt(rho * (1 + rho)):.12f}, "
          f"4√(ρ(1+ρ)/3) = {4 * math.sqrt(rho * (1 + rho) / 3):.12f}, 8/(3√3) = "
          f"{8 / (3 * math.sqrt(3)):.12f}")

    # the slip from the start, in s
    sol, end = slip_in_s(rod, th0, om0, u0)
    th_e, om_e, u_e, t_e = sol.y[:, -1]
    th_g, om_g = rod.lower_gspot()
    al = rod.alphas(th_g, om_g)
    a1, a2, a3, a12 = al[0, 0], al[1, 0], al[1, 1], al[0, 1]
    # the tail s > s_end of the linear flow: p = p_e e^{α₁σ}, b ≈ b_e e^{α₃σ} (p ≪ b)
    p_e, b_e = rod.p(th_e), rod.b(th_e, om_e)
    t_star = t_e + p_e / (-a1)
    om_star = om_e + rod.P(th_e) * b_e / a3
    u_star = u_e + rod.k_minus(th_e) * b_e / a3
    print(f"  rigid slip ends: {end} at s = {sol.t[-1]:.3f} (p = {rod.p(th_e):.2e}, "
          f"b = {rod.b(th_e, om_e):.2e}); harness: {h['rigid_end']}")
    line("θ* (slip's limit)", th_e, h["gspot"]["theta"])
    line("θ* (root of p = 0)", th_g, h["gspot"]["theta"])
    line("ω* (slip's end, no tail)", om_e, h["gspot"]["omega"])
    line("ω* (slip's end + tail P b/α₃)", om_star, h["gspot"]["omega"])
    line("ω* (1/√sin θ*)", om_g, h["gspot"]["omega"])
    line("α₁ (finite differences)", a1, h["gspot"]["alpha1"])
    line("α₂", a2, h["gspot"]["alpha2"])
    line("α₃", a3, h["gspot"]["alpha3"])
    k, s, c = rod.k, math.sin(th_g), math.cos(th_g)
    cf = (-k * om_g * (math.sin(2 * th_g) + mu * math.cos(2 * th_g)), om_g ** 3 * c,
          -2 * k * om_g * s * (mu * s - c))
    cv = (-3 * om_g * (math.sin(2 * th_g) + mu * math.cos(2 * th_g)), om_g ** 3 * c,
          -6 * om_g * s * (mu * s - c))
    print(f"    d(dp/ds)/db = {a12:.1e} (C–V: 0); closed forms α = ({cf[0]:.10f}, {cf[1]:.10f}, "
          f"{cf[2]:.10f}); C–V §5.1 printed (k = 3, R = S = 0): ({cv[0]:.10f}, {cv[1]:.10f}, "
          f"{cv[2]:.10f})")
    # G1's basin condition α₂p < (α₁ − α₃)b along the approach, and p/b → 0
    chk = []
    for frac in (1e-3, 1e-6, 1e-9):
        s_f = brentq(lambda x: rod.p(sol.sol(x)[0]) - frac * rod.p(th0), 0.0, sol.t[-1])
        th_f, om_f = sol.sol(s_f)[:2]
        p_f, b_f = rod.p(th_f), rod.b(th_f, om_f)
        chk.append(f"p/p0 = {frac:.0e}: α₂p − (α₁ − α₃)b = {a2 * p_f - (a1 - a3) * b_f:.2e}, "
                   f"p/b = {p_f / b_f:.2e}")
    print("    approach: " + "; ".join(chk))
    case = "g1" if a1 < a3 < 0 else ("g2" if a3 < a1 < 0 and a2 < 0 else "none")
    print(f"  case: {case} (α₁ < α₃ < 0: {a1 < a3 < 0}; G2 needs α₃ < α₁ < 0, α₂ < 0: "
          f"α₂ = {a2:.4f}); harness: {h['gspot']['case']}")
    line("t* (s-flow + remainder)", t_star, h["t_star"])
    # the harness's integrator as the docs describe it (RK4 in s, step 1e-4), run until
    # b > −1e-12: p freezes at its rounding floor once θ's increment p ω h falls below half
    # an ulp of θ, and t then grows by p·h per step
    y, h4, n4 = np.array([th0, om0, u0, 0.0]), 1e-4, 0
    f4 = lambda y: np.array(rod.flow_s(0.0, y))
    while rod.b(y[0], y[1]) <= -1e-12 and n4 < 300000:
        k1 = f4(y); k2 = f4(y + h4 / 2 * k1); k3 = f4(y + h4 / 2 * k2); k4 = f4(y + h4 * k3)
        y = y + h4 / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        n4 += 1
    print(f"    RK4 in s, h = 1e-4, to b > −1e-12: s = {n4 * h4:.4f}, p = {rod.p(y[0]):.2e}, "
          f"t = {float(y[3])!r} (harness {h['t_star']!r}; converged − this: {t_star - y[3]:.2e})")
    tsol = slip_in_t(rod, th0, om0, u0, 2.0 * t_star)
    if len(tsol.t_events[0]):
        line("t* (t-flow, event p = 0)", tsol.t_events[0][0], h["t_star"])
    else:
        p_t = rod.p(tsol.y[0, -1])
        print(f"    t-flow (F_n = −b/p in t, event p = 0): stalls before the event at p = "
              f"{p_t:.1e} ({tsol.message})")
        line("t* (t-flow's stall + p/(−α₁))", tsol.t[-1] + p_t / (-a1), h["t_star"])

    # exponent of λ_N near t*
    s_grid = np.linspace(0.0, sol.t[-1], 200001)
    ys = sol.sol(s_grid)
    tau = t_star - ys[3]
    lam = np.array([-rod.b(a, b_) / rod.p(a) for a, b_ in zip(ys[0], ys[1])])
    for lo_, hi_ in ((1e-9, 1e-6), (1e-12, 1e-9)):
        sel = (tau > lo_) & (tau < hi_)
        gamma = np.polyfit(np.log(tau[sel]), np.log(lam[sel]), 1)[0]
        line(f"λ_N exponent (fit, τ {lo_:.0e}..{hi_:.0e})", gamma, h["gspot"]["force_exponent"])
    line("λ_N exponent α₃/α₁ − 1", a3 / a1 - 1, h["gspot"]["force_exponent"])

    # the slip-stop impulse at the G-spot (impulse–momentum on Newton–Euler)
    ust = u_star
    s, c = math.sin(th_g), math.cos(th_g)
    # ΔẊ = μΛ, ΔẎ = Λ, ρΔω = (−c + μ s)Λ, Δu = ΔẊ + s Δω, Δv = ΔẎ − c Δω
    du_per = mu + s * (-c + mu * s) / rho
    dv_per = 1.0 - c * (-c + mu * s) / rho
    lam_imp = -ust / du_per
    om_after = om_star + (-c + mu * s) / rho * lam_imp
    print(f"  u* = {ust:.12f} (slip's end {u_e:.12f} + tail k₋ b/α₃); Δv per unit impulse at the G-spot = p = {dv_per:.1e}")
    line("slip-stop impulse |u*|/k₋", lam_imp, h["slip_stop_impulse"])
    line("ω after the slip stop", om_after, h["slip_stop_omega"])


if __name__ == "__main__":
    main()
