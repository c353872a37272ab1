//! Rigid-limit predictions for the tangential impact (../shared/docs/painleve_rod.md, "What the
//! κ → 0 limit should be"). Freeze the configuration at (θ0, θ̇0); in fast time τ = t/√κ with
//! η = δ/√κ and f = √κ F_n each mode is linear.

use crate::model::rod::SlideCoefficients;
use crate::scenario::RodImpact;
use serde::Serialize;

/// The κ → 0 limits of the measured quantities, for a linear spring (c_d = 0), in closed form.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RigidLimit {
    /// Growth rate of the slide, λ = √|A|.
    pub slide_rate: f64,
    /// Normal impulse of the slide, P_s = |u0|/C.
    pub slide_impulse: f64,
    /// T_slide ≈ (√κ/λ)(ln(1/√κ) + `slide_log_offset`).
    pub slide_log_offset: f64,
    /// lim T_stick/√κ.
    pub stick_duration_scaled: f64,
    /// lim T_reverse/κ.
    pub reverse_slip_duration_scaled: f64,
    /// Outgoing normal velocity v_out.
    pub v_out: f64,
    /// Outgoing angular velocity.
    pub omega_out: f64,
    /// Total normal impulse P_total.
    pub impulse_total: f64,
}

impl RigidLimit {
    /// The closed form at c_d = 0; `None` unless the initial state is inconsistent (A < 0, B < 0)
    /// with u0 < 0, or when c_d > 0 (stages integrated numerically instead: not yet available).
    pub fn linear_spring(imp: &RodImpact) -> Option<Self> {
        let k: SlideCoefficients = imp.slide_coefficients();
        if imp.damping != 0.0 || !(k.a < 0.0 && k.b < 0.0 && imp.u0 < 0.0) {
            return None;
        }
        let (s, c) = imp.theta0.sin_cos();
        let a_abs = -k.a;
        let lambda = a_abs.sqrt();
        let p_s = imp.u0.abs() / k.c;
        // Stick (Zhao–Liu eq. (55)): η'' = −A_st f, θ̇' = P_st f.
        let a_st = 4.0 / (1.0 + 3.0 * s * s);
        let p_st = -3.0 * c / (1.0 + 3.0 * s * s);
        let stick = (1.0 + 3.0 * s * s).sqrt() / 2.0
            * (std::f64::consts::PI - (a_st / a_abs).sqrt().atan());
        let v_out = p_s * (k.a * k.a + a_st * a_abs).sqrt();
        let impulse_total = p_s + (v_out + a_abs * p_s) / a_st;
        let omega_out = imp.omega0 + k.p * p_s + p_st * (impulse_total - p_s);
        // Zhao–Liu eq. (54): δ* = κ θ̇² c / (3sc + μ_s(1 + 3s²)) at the post-impact θ̇.
        let delta_star = omega_out * omega_out * c / (3.0 * s * c + imp.mu_s * (1.0 + 3.0 * s * s));
        Some(RigidLimit {
            slide_rate: lambda,
            slide_impulse: p_s,
            slide_log_offset: (2.0 * lambda * imp.u0.abs() * a_abs / (k.c * k.b.abs())).ln(),
            stick_duration_scaled: stick,
            reverse_slip_duration_scaled: delta_star / v_out,
            v_out,
            omega_out,
            impulse_total,
        })
    }

    /// Predicted T_slide at `kappa` (leading terms).
    pub fn slide_duration(&self, kappa: f64) -> f64 {
        let sk = kappa.sqrt();
        sk / self.slide_rate * ((1.0 / sk).ln() + self.slide_log_offset)
    }
}
