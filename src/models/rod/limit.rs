//! Rigid-limit predictions for the tangential impact (docs/model.md, "What the
//! κ → 0 limit should be"). Freeze the configuration at (θ0, θ̇0); in fast time τ = t/√κ with
//! η = δ/√κ and f = √κ F_n = η + c_d η', each mode is linear:
//!
//! - slide-left: η'' = −A f (A < 0: growth at the unstable rate λ, the root of
//!   λ² − |A| c_d λ − |A| = 0), until the normal impulse reaches P_s = |u0|/C;
//! - stick: η'' = −A_st f with A_st = 4/(1 + 3s²) (Zhao–Liu eq. (55); (1 + k)/(1 + ks²) for a
//!   rod with k = 1/ρ), until f = 0.
//!
//! Both stages are solved in closed form here, for any c_d ≥ 0 with an underdamped stick stage
//! (A_st c_d² < 4); at c_d = 0 the result reduces to the doc's formulas (tested below).
//!
//! The same two-stage map for any planar single-contact system, in Champneys–Várkonyi's
//! projected scalars, is [`crate::model::iwc::IwcLimit`] (docs/champneys_varkonyi.md); on the rod
//! it equals these closed forms to ~1e-13 relative (tested below). The rod's reports keep the
//! closed forms so that their committed numbers stay bit-identical (the generic one goes
//! through a Cholesky solve and rounds differently in the last digits).

use crate::models::rod::mechanics::SlideCoefficients;
use crate::models::rod::scenario::RodImpact;
use serde::Serialize;

/// The κ → 0 limits of the measured quantities.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RigidLimit {
    /// Growth rate of the slide, λ.
    pub slide_rate: f64,
    /// Normal impulse of the slide, P_s = |u0|/C.
    pub slide_impulse: f64,
    /// T_slide ≈ (√κ/λ)(ln(1/√κ) + `slide_log_offset`).
    pub slide_log_offset: f64,
    /// lim T_stick/√κ.
    pub stick_duration_scaled: f64,
    /// lim T_reverse/κ = F*/v_out with F* of Zhao–Liu eq. (53) at the post-impact θ̇.
    pub reverse_slip_duration_scaled: f64,
    /// lim F_n(ε₃) = F*: the normal force where the stick ends (Zhao–Liu eq. (53) at θ0 and the
    /// post-impact θ̇), O(1). Left out of the JSON, whose keys are frozen (the sweep analysis
    /// reports it beside the measured force).
    #[serde(skip)]
    pub stick_end_force: f64,
    /// Outgoing normal velocity v_out.
    pub v_out: f64,
    /// Outgoing tangential velocity (0 in the limit).
    pub u_out: f64,
    /// Outgoing angular velocity.
    pub omega_out: f64,
    /// Total normal impulse P_total.
    pub impulse_total: f64,
}

impl RigidLimit {
    /// Predicted relative rounding error of the reverse-slip duration at compliance κ. The
    /// reverse slip starts at an event located in the stick's own clock, so its duration
    /// T_rev ≈ κ·(T_rev/κ) is known to about ε·T_stick (docs/tolerances.md, "Resolution
    /// limits"): ε (T_stick/√κ) / ((T_rev/κ) √κ). An upper estimate (Zhao–Liu's damped rod
    /// rounds 4–8× less, tests/it/validity.rs); near 1 or above, the limit T_rev/κ cannot be told
    /// from rounding at this κ.
    pub fn reverse_slip_rounding(&self, kappa: f64) -> f64 {
        f64::EPSILON * self.stick_duration_scaled
            / (self.reverse_slip_duration_scaled * kappa.sqrt())
    }

    /// The limit of `imp`; `None` unless the start is inconsistent (A < 0, B < 0) with u0 < 0,
    /// or when the stick stage is overdamped (A_st c_d² ≥ 4).
    pub fn of(imp: &RodImpact) -> Option<Self> {
        let k: SlideCoefficients = imp.slide_coefficients();
        if !(k.a < 0.0 && k.b < 0.0 && imp.u0 < 0.0) {
            return None;
        }
        let cd = imp.damping;
        let (s, c) = imp.theta0.sin_cos();
        // Zhao–Liu's 3 is k = 1/ρ (3.0 exactly for the uniform rod).
        let k3 = imp.body().inverse_gyration_sq();
        let a_abs = -k.a;
        // Slide: ξ'' = |A|(ξ + c_d ξ'); roots λ > 0 > σ with λ + σ = |A| c_d, λσ = −|A|.
        let lambda = (a_abs * cd + (a_abs * a_abs * cd * cd + 4.0 * a_abs).sqrt()) / 2.0;
        let sigma = a_abs * cd - lambda;
        let p_s = imp.u0.abs() / k.c;
        // The seed ξ(0) = |B|√κ/|A| projects onto the unstable mode with weight −σ/(λ − σ);
        // impulse ∫f dτ reaches P_s at τ_s = ln(P_s λ |A| (λ−σ) / (|B| (1+c_d λ)(−σ) √κ))/λ.
        let slide_log_offset = (p_s * lambda * a_abs * (lambda - sigma)
            / (k.b.abs() * (1.0 + cd * lambda) * (-sigma)))
            .ln();
        let eta_s = lambda * p_s / (1.0 + cd * lambda);
        let deta_s = lambda * eta_s;
        // Stick (eq. (55)): η'' = −A_st (η + c_d η'), θ̇' = P_st f.
        let a_st = (1.0 + k3) / (1.0 + k3 * s * s);
        let p_st = -k3 * c / (1.0 + k3 * s * s);
        let alpha = a_st * cd / 2.0;
        if a_st <= alpha * alpha {
            return None;
        }
        let beta = (a_st - alpha * alpha).sqrt();
        // η = e^{−ατ}(C1 cos βτ + C2 sin βτ); f = e^{−ατ}(F1 cos βτ + F2 sin βτ) = 0 first at
        // βτ = atan2(F2, F1) + π/2.
        let (c1, c2) = (eta_s, (deta_s + alpha * eta_s) / beta);
        let (dc1, dc2) = (-alpha * c1 + beta * c2, -alpha * c2 - beta * c1);
        let (f1, f2) = (c1 + cd * dc1, c2 + cd * dc2);
        let tau = (f2.atan2(f1) + std::f64::consts::FRAC_PI_2) / beta;
        let decay = (-alpha * tau).exp();
        let deta_end = decay * (dc1 * (beta * tau).cos() + dc2 * (beta * tau).sin());
        let v_out = -deta_end;
        let stick_impulse = (deta_s - deta_end) / a_st;
        let impulse_total = p_s + stick_impulse;
        let omega_out = imp.omega0 + k.p * p_s + p_st * stick_impulse;
        // Zhao–Liu eq. (53): the normal force at which stick breaks into reverse slip.
        let f_star = imp
            .body()
            .stick_end_normal_force(imp.mu_s, imp.theta0, omega_out);
        Some(RigidLimit {
            slide_rate: lambda,
            slide_impulse: p_s,
            slide_log_offset,
            stick_duration_scaled: tau,
            reverse_slip_duration_scaled: f_star / v_out,
            stick_end_force: f_star,
            v_out,
            u_out: 0.0,
            omega_out,
            impulse_total,
        })
    }

    /// Predicted T_slide at `kappa` (leading terms).
    pub(crate) fn slide_duration(&self, kappa: f64) -> f64 {
        let sk = kappa.sqrt();
        sk / self.slide_rate * ((1.0 / sk).ln() + self.slide_log_offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::rk4_step;

    /// At c_d = 0 the general solution is the doc's closed form.
    #[test]
    fn linear_spring_limit_matches_the_doc_closed_form() {
        let imp = RodImpact::zhao_liu(1e-8);
        let l = RigidLimit::of(&imp).unwrap();
        let k = imp.slide_coefficients();
        let s = imp.theta0.sin();
        let a_abs = -k.a;
        let lambda = a_abs.sqrt();
        let a_st = 4.0 / (1.0 + 3.0 * s * s);
        let p_s = 1.0 / k.c;
        let stick = (1.0 + 3.0 * s * s).sqrt() / 2.0
            * (std::f64::consts::PI - (a_st / a_abs).sqrt().atan());
        let v_out = p_s * (k.a * k.a + a_st * a_abs).sqrt();
        let offset = (2.0 * lambda * a_abs / (k.c * k.b.abs())).ln();
        for (got, want) in [
            (l.slide_rate, lambda),
            (l.stick_duration_scaled, stick),
            (l.v_out, v_out),
            (l.slide_log_offset, offset),
            (l.impulse_total, p_s + (v_out + a_abs * p_s) / a_st),
        ] {
            assert!((got - want).abs() < 1e-12 * want.abs(), "{got} vs {want}");
        }
    }

    /// With damping the stick stage is a damped oscillator: its closed-form end (f = 0) is where
    /// a fine RK4 integration of η'' = −A_st(η + c_d η') finds it.
    #[test]
    fn damped_stick_stage_matches_direct_integration() {
        let imp = RodImpact {
            damping: 0.2,
            ..RodImpact::zhao_liu(1e-8)
        };
        let l = RigidLimit::of(&imp).unwrap();
        let s = imp.theta0.sin();
        let (a_st, cd) = (4.0 / (1.0 + 3.0 * s * s), 0.2);
        let eta_s = l.slide_rate * l.slide_impulse / (1.0 + cd * l.slide_rate);
        let mut y = [eta_s, l.slide_rate * eta_s];
        let rhs = |y: &[f64; 2]| [y[1], -a_st * (y[0] + cd * y[1])];
        let h = 1e-5;
        let mut t = 0.0;
        let f = |y: [f64; 2]| y[0] + cd * y[1];
        while f(y) > 0.0 {
            y = rk4_step(rhs, &y, h);
            t += h;
        }
        assert!(
            (t - l.stick_duration_scaled).abs() < 2e-5,
            "{t} vs {}",
            l.stick_duration_scaled
        );
        assert!((-y[1] - l.v_out).abs() < 1e-4, "{} vs {}", -y[1], l.v_out);
    }
}

#[cfg(test)]
mod generic_tests {
    use super::*;
    use crate::model::iwc::{FastStart, IwcLimit};
    use crate::models::rod::mechanics::{PainleveRod, THETA};

    /// The generic IWC limit in C–V's projected scalars (src/model/iwc.rs), evaluated on the
    /// rod, reproduces the closed forms above (Zhao–Liu's coefficients, with k = 1/ρ for their
    /// 3) across the Painlevé region, with and without damping, for three radii of gyration.
    #[test]
    fn generic_iwc_limit_equals_the_rod_closed_forms() {
        let mut n = 0;
        let mut worst: f64 = 0.0;
        let uniform = 1.0 / 3.0;
        for (mu, gyration_sq) in [
            (1.4, uniform),
            (2.0, uniform),
            (5.0, uniform),
            (10.0, uniform),
            (1.0, 0.1),
            (3.0, 0.1),
            (4.0, 0.8),
        ] {
            let body = PainleveRod::new(gyration_sq);
            let (lo, hi) = body.painleve_theta_interval(mu).unwrap();
            for i in 0..20 {
                let theta0 = lo + (hi - lo) * (f64::from(i) + 0.5) / 20.0;
                for omega0 in [0.0, 0.5] {
                    for damping in [0.0, 0.2] {
                        let imp = RodImpact {
                            mu,
                            mu_s: mu,
                            theta0,
                            omega0,
                            damping,
                            gyration_sq,
                            ..RodImpact::zhao_liu(1e-8)
                        };
                        let Some(rod) = RigidLimit::of(&imp) else {
                            continue;
                        };
                        let (q, qdot) = imp.initial_state();
                        let g = IwcLimit::of(&body, &q, &qdot, mu, mu, damping, FastStart::REST)
                            .unwrap();
                        for (got, want) in [
                            (g.slide_rate, rod.slide_rate),
                            (g.slide_impulse, rod.slide_impulse),
                            (g.slide_log_offset, rod.slide_log_offset),
                            (g.stick_duration_scaled, rod.stick_duration_scaled),
                            (
                                g.reverse_slip_duration_scaled,
                                rod.reverse_slip_duration_scaled,
                            ),
                            (g.v_out, rod.v_out),
                            (g.qdot_out[THETA], rod.omega_out),
                            (g.impulse_total, rod.impulse_total),
                        ] {
                            let rel = (got - want).abs() / want.abs().max(1e-300);
                            worst = worst.max(rel);
                            assert!(rel < 1e-12, "μ {mu} θ0 {theta0}: {got} vs {want}");
                        }
                        n += 1;
                    }
                }
            }
        }
        eprintln!("worst relative difference {worst:e} over {n} states");
        assert!(n > 400);
    }
}
