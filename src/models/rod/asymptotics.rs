//! The first corrections to the rigid limit of the tangential impact (docs/extrapolation.md §2):
//! the coefficient b of √κ ln(1/κ) in each measured quantity, and the exponent of the slide's
//! decaying mode, which adds a term κ^q (½ < q < 1) when the contact has a dashpot.
//!
//! The frozen-configuration limit ([`RigidLimit`]) drops three effects of the slide, whose
//! duration √κ τ_s grows like (√κ/λ) ln(1/√κ) (docs/extrapolation.md eqs. (2.4)–(2.7)):
//!
//! - the attitude drifts, θ = θ0 + √κ τ_s θ̇0, so A, C, P, A_st, P_st are those of the drifted
//!   attitude;
//! - the centripetal term D = θ̇0² cos θ0 of the tangential equation works against friction:
//!   the slide ends after the impulse (|u0| − √κ τ_s D)/C;
//! - gravity and the centripetal term B = θ̇0² sin θ0 − 1 of the normal equation hold a
//!   particular solution η_p = √κ B/|A| below the growing mode: the impulse of the growing mode,
//!   which sets the state at the start of the stick, is the slide's impulse minus √κ τ_s B/|A|.
//!
//! Each is linear in ε = √κ τ_s. The limit evaluated along them is [`drifted_limit`]; b is its
//! derivative at ε = 0 divided by 2λ (τ_s = (ln(1/√κ) + offset)/λ).

use crate::models::rod::limit::RigidLimit;
use crate::models::rod::scenario::RodImpact;
use serde::Serialize;

/// Predicted coefficients b of √κ ln(1/κ), one per measured quantity (same normalisation as
/// the quantity: T_stick/√κ, T_rev/κ, v_out, θ̇_out, total normal impulse).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LogCoefficients {
    pub stick_scaled: f64,
    pub reverse_scaled: f64,
    pub v_out: f64,
    pub omega_out: f64,
    pub impulse_total: f64,
}

/// Step in ε of the fourth-order central difference (truncation ~h⁴, rounding ~1e-16/h: both
/// below 1e-12 relative; the attitude moves by at most 2h|θ̇0|).
const DRIFT_STEP: f64 = 2e-4;

/// The rigid limit with the slide's first-order effects at ε = √κ τ_s, as
/// [T_stick/√κ, T_rev/κ, v_out, θ̇_out, impulse] (docs/extrapolation.md eq. (2.8)). `None` where
/// [`RigidLimit::of`] has none.
pub fn drifted_limit(imp: &RodImpact, eps: f64) -> Option<[f64; 5]> {
    let k0 = imp.slide_coefficients();
    let theta = imp.theta0 + eps * imp.omega0;
    let k = imp.body().slide_coefficients(imp.mu, theta, imp.omega0);
    // Total slide impulse: the tangential equation u' = C f + √κ D reaches u = 0.
    let slide_impulse = (imp.u0.abs() - eps * k0.d) / k.c;
    // Impulse of the growing mode: the particular solution η_p = √κ B/|A| carries ε B/|A|.
    let growing_impulse = slide_impulse - eps * k0.b / k0.a.abs();
    // The frozen limit at the drifted attitude whose slide impulse |u0|/C is the growing mode's.
    let frozen = RigidLimit::of(&RodImpact {
        theta0: theta,
        u0: -growing_impulse * k.c,
        ..*imp
    })?;
    let stick_impulse = frozen.impulse_total - frozen.slide_impulse;
    // θ̇ gains P × (total slide impulse) in the slide and P_st × (stick impulse) in the stick.
    let stick_spin = frozen.omega_out - imp.omega0 - k.p * frozen.slide_impulse;
    let omega_out = imp.omega0 + k.p * slide_impulse + stick_spin;
    // T_rev/κ = F*/v_out with F* ∝ θ̇_out² (Zhao–Liu eq. (53)).
    let reverse = frozen.reverse_slip_duration_scaled * (omega_out / frozen.omega_out).powi(2);
    Some([
        frozen.stick_duration_scaled,
        reverse,
        frozen.v_out,
        omega_out,
        slide_impulse + stick_impulse,
    ])
}

/// The predicted coefficients b (docs/extrapolation.md eq. (2.10)); `None` without a rigid
/// limit.
pub fn log_coefficients(imp: &RodImpact) -> Option<LogCoefficients> {
    let lambda = RigidLimit::of(imp)?.slide_rate;
    let h = DRIFT_STEP;
    let at = |m: f64| drifted_limit(imp, m * h);
    let (p1, m1, p2, m2) = (at(1.0)?, at(-1.0)?, at(2.0)?, at(-2.0)?);
    let b = |i: usize| (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i])) / (12.0 * h) / (2.0 * lambda);
    Some(LogCoefficients {
        stick_scaled: b(0),
        reverse_scaled: b(1),
        v_out: b(2),
        omega_out: b(3),
        impulse_total: b(4),
    })
}

/// The exponent q = ½ + |σ|/(2λ) of the slide's decaying mode e^{στ} at the end of the slide
/// (docs/extrapolation.md eq. (2.12)); σ = |A| c_d − λ. It equals 1 without a dashpot.
pub fn slide_decay_exponent(imp: &RodImpact) -> Option<f64> {
    let l = RigidLimit::of(imp)?;
    let sigma = -imp.slide_coefficients().a * imp.damping - l.slide_rate;
    Some(0.5 + sigma.abs() / (2.0 * l.slide_rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At ε = 0 the drifted limit is the frozen one.
    #[test]
    fn no_drift_is_the_frozen_limit() {
        for imp in [
            RodImpact::zhao_liu(1e-8),
            RodImpact {
                omega0: 0.5,
                damping: 0.5,
                ..RodImpact::zhao_liu(1e-8)
            },
        ] {
            let l = RigidLimit::of(&imp).unwrap();
            let d = drifted_limit(&imp, 0.0).unwrap();
            let want = [
                l.stick_duration_scaled,
                l.reverse_slip_duration_scaled,
                l.v_out,
                l.omega_out,
                l.impulse_total,
            ];
            for (g, w) in d.iter().zip(want) {
                assert!((g - w).abs() < 1e-14 * w.abs(), "{g} vs {w}");
            }
        }
    }

    /// Zhao–Liu's state (θ̇0 = 0, c_d = 0): only gravity acts, the growing-mode impulse is
    /// P_s + ε/|A|, and every stick quantity scales with it (v_out = P √(A² + A_st|A|), eq. (2.11)
    /// of docs/extrapolation.md); the stick duration does not depend on it.
    #[test]
    fn zhao_liu_coefficients_have_their_closed_form() {
        let imp = RodImpact::zhao_liu(1e-8);
        let k = imp.slide_coefficients();
        let l = RigidLimit::of(&imp).unwrap();
        let b = log_coefficients(&imp).unwrap();
        let s = imp.theta0.sin();
        let a_st = 4.0 / (1.0 + 3.0 * s * s);
        let growth = 1.0 / (-k.a) / (2.0 * l.slide_rate);
        let v = growth * (k.a * k.a + a_st * (-k.a)).sqrt();
        let stick_impulse = growth * ((-k.a) + (k.a * k.a + a_st * (-k.a)).sqrt()) / a_st;
        let p_st = -3.0 * imp.theta0.cos() / (1.0 + 3.0 * s * s);
        for (got, want) in [
            (b.v_out, v),
            (b.impulse_total, stick_impulse),
            (b.omega_out, p_st * stick_impulse),
        ] {
            assert!((got - want).abs() < 1e-11 * want.abs(), "{got} vs {want}");
        }
        assert!(b.stick_scaled.abs() < 1e-12);
        assert!((slide_decay_exponent(&imp).unwrap() - 1.0).abs() < 1e-15);
    }
}
