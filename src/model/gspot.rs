//! Champneys–Várkonyi's G-spot (§5.1, Fig. 13): the only way a slipping contact enters a
//! Painlevé region (p < 0) is through the codimension-two point p = b = 0, where p is the
//! Painlevé parameter of the slip direction and b the free normal acceleration.
//!
//! In slip the normal force is λ_N = −b/p (normal acceleration zero), singular at p = 0. With
//! the time rescaled by dt = p ds (C–V eq. (time_rescale)) the slip flow is regular, and since
//! p depends on the configuration alone while b is linear in λ_N through the accelerations,
//!
//! ```text
//!   dp/ds = α₁ p,        db/ds = α₂ p + α₃ b          (C–V eqs. (Gspot1), (Gspot2))
//! ```
//!
//! with α₁ = ṗ along the flow, α₂ = ḃ without contact force and α₃ = −(∂ḃ/∂λ_N), all evaluated
//! at the G-spot. The solution from (p₀, b₀) is `p = p₀ e^{α₁s}`,
//! `b = c e^{α₃s} + k p₀ e^{α₁s}` with `k = α₂/(α₁ − α₃)` and `c = b₀ − k p₀`. Since t − t₀ =
//! ∫ p ds = p₀(e^{α₁s} − 1)/α₁, the G-spot is reached (s → ∞) in finite time iff α₁ < 0, and b
//! must tend to 0 from below, which needs α₃ < 0 too. Then:
//!
//! - **G1**, α₁ < α₃ < 0: the slow eigenvalue is α₃ (the b axis): the approach is tangent to it,
//!   λ_N = −b/p ∝ e^{(α₃−α₁)s} → ∞, for the starts with c < 0, i.e. α₂p₀ < (α₁ − α₃)b₀ (C–V's
//!   condition G1, reproduced); the others cross b = 0 first (lift-off).
//! - **G2**, α₃ < α₁ < 0 and α₂ < 0: the slow eigenvector (α₁ − α₃, α₂) points into the slip
//!   quadrant, every start approaches tangent to it and λ_N → −k = α₂/(α₃ − α₁) > 0, finite.
//!   C–V print G2's condition as 0 < α₁ < α₃, which contradicts their own eq. (Gspot1): with
//!   α₁ > 0, p grows along the flow and the G-spot is left, not reached (tested below).
//!
//! In G1 the force diverges like (t* − t)^{α₃/α₁ − 1}, an integrable singularity (α₃/α₁ ∈
//! (0, 1)): the normal impulse up to the G-spot is finite.

use serde::Serialize;

/// The coefficients of C–V's linearised rescaled slip flow (Gspot1)–(Gspot2) at a G-spot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GspotRates {
    /// α₁: dp/ds = α₁ p (the rate of change of the Painlevé parameter per unit p).
    pub alpha1: f64,
    /// α₂: the free rate of change of b (no contact force).
    pub alpha2: f64,
    /// α₃: the rate of change of b per unit b through the slip force λ_N = −b/p.
    pub alpha3: f64,
}

/// How the rescaled slip flow near a G-spot treats a start (p₀ > 0, b₀ < 0) of slip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GspotApproach {
    /// C–V's G1: the G-spot is reached in finite time with λ_N → ∞ like (t* − t)^exponent.
    UnboundedForce { force_exponent: f64 },
    /// C–V's G2: the G-spot is reached in finite time with λ_N → `force_limit` > 0.
    FiniteForce { force_limit: f64 },
    /// The start leaves the neighbourhood (lift-off through b = 0, or continued slip).
    NotReached,
}

/// Which of C–V's cases a G-spot is for the starts of slip near it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GspotCase {
    /// α₁ < α₃ < 0: reached with λ_N → ∞ from the starts below the α₁ eigenvector.
    G1,
    /// α₃ < α₁ < 0, α₂ < 0: reached with λ_N finite from every start.
    G2,
    /// Neither: no open set of slipping starts reaches it.
    NotAttracting,
}

impl GspotRates {
    /// C–V's case of this G-spot.
    pub fn case(&self) -> GspotCase {
        let GspotRates {
            alpha1,
            alpha2,
            alpha3,
        } = *self;
        if alpha1 < alpha3 && alpha3 < 0.0 {
            GspotCase::G1
        } else if alpha3 < alpha1 && alpha1 < 0.0 && alpha2 < 0.0 {
            GspotCase::G2
        } else {
            GspotCase::NotAttracting
        }
    }

    /// The approach of the start (p₀, b₀) of slip (p₀ > 0, b₀ < 0); the borderline cases
    /// (an α zero, α₁ = α₃, a start on the eigenvector) count as not reached.
    pub fn approach(&self, p0: f64, b0: f64) -> GspotApproach {
        let GspotRates {
            alpha1,
            alpha2,
            alpha3,
        } = *self;
        match self.case() {
            GspotCase::G1 if alpha2 * p0 < (alpha1 - alpha3) * b0 => {
                GspotApproach::UnboundedForce {
                    force_exponent: alpha3 / alpha1 - 1.0,
                }
            }
            GspotCase::G2 => GspotApproach::FiniteForce {
                force_limit: alpha2 / (alpha3 - alpha1),
            },
            _ => GspotApproach::NotReached,
        }
    }

    /// (p, b) at rescaled time s from (p₀, b₀): the closed-form solution of (Gspot1)–(Gspot2)
    /// (α₁ ≠ α₃).
    pub fn flow(&self, p0: f64, b0: f64, s: f64) -> (f64, f64) {
        let k = self.alpha2 / (self.alpha1 - self.alpha3);
        let c = b0 - k * p0;
        let e1 = (self.alpha1 * s).exp();
        (p0 * e1, c * (self.alpha3 * s).exp() + k * p0 * e1)
    }

    /// The physical time from (p₀, ·) to rescaled time s: ∫ p ds = p₀(e^{α₁s} − 1)/α₁.
    pub fn elapsed_time(&self, p0: f64, s: f64) -> f64 {
        p0 * (self.alpha1 * s).exp_m1() / self.alpha1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form: it satisfies (Gspot1)–(Gspot2) (central
    /// differences) and starts at (p₀, b₀).
    #[test]
    fn the_closed_form_solves_the_linear_flow() {
        let r = GspotRates {
            alpha1: -5.7,
            alpha2: 1.7,
            alpha3: -2.0,
        };
        let (p0, b0) = (0.3, -0.4);
        assert_eq!(r.flow(p0, b0, 0.0), (p0, b0));
        for s in [0.1, 0.7, 2.0] {
            let h = 1e-5;
            let (pp, bp) = r.flow(p0, b0, s + h);
            let (pm, bm) = r.flow(p0, b0, s - h);
            let (p, b) = r.flow(p0, b0, s);
            assert!(((pp - pm) / (2.0 * h) - r.alpha1 * p).abs() < 1e-8);
            assert!(((bp - bm) / (2.0 * h) - (r.alpha2 * p + r.alpha3 * b)).abs() < 1e-8);
        }
    }

    /// Each classification against the flow itself, followed far in s: G1 starts stay in slip
    /// (b < 0) with −b/p growing like e^{(α₃−α₁)s}; the starts G1 excludes cross b = 0; G2
    /// starts reach the finite limit; and each approach takes finite physical time.
    #[test]
    fn the_classification_matches_the_flow() {
        let g1 = GspotRates {
            alpha1: -3.0,
            alpha2: 2.0,
            alpha3: -1.0,
        };
        for (p0, b0) in [(0.1, -0.2), (0.5, -0.6), (0.01, -0.011)] {
            let GspotApproach::UnboundedForce { force_exponent } = g1.approach(p0, b0) else {
                panic!("({p0}, {b0}) should be G1");
            };
            assert!((force_exponent - (1.0 / 3.0 - 1.0)).abs() < 1e-15);
            let [f10, f20] = [10.0, 20.0].map(|s| {
                let (p, b) = g1.flow(p0, b0, s);
                assert!(p > 0.0 && b < 0.0);
                -b / p
            });
            assert!(((f20 / f10).ln() / 10.0 - 2.0).abs() < 1e-6);
            let t_star = g1.elapsed_time(p0, f64::INFINITY);
            assert!((t_star - p0 / 3.0).abs() < 1e-15);
        }
        // Above the line α₂p = (α₁ − α₃)b the flow lifts off: b turns positive.
        let (p0, b0) = (0.5, -0.4);
        assert_eq!(g1.approach(p0, b0), GspotApproach::NotReached);
        assert!((0..200).any(|i| g1.flow(p0, b0, 0.1 * f64::from(i)).1 > 0.0));

        let g2 = GspotRates {
            alpha1: -1.0,
            alpha2: -2.0,
            alpha3: -3.0,
        };
        let GspotApproach::FiniteForce { force_limit } = g2.approach(0.2, -0.05) else {
            panic!("G2 expected");
        };
        assert_eq!(force_limit, 1.0);
        let (p, b) = g2.flow(0.2, -0.05, 30.0);
        assert!(p > 0.0 && b < 0.0 && (-b / p - force_limit).abs() < 1e-9);
    }

    /// C–V's printed G2 condition, 0 < α₁ < α₃ with α₂ < 0, does not reach the G-spot: p
    /// grows along (Gspot1). Our condition is its mirror α₃ < α₁ < 0.
    #[test]
    fn the_printed_g2_condition_leaves_the_g_spot() {
        let printed = GspotRates {
            alpha1: 1.0,
            alpha2: -2.0,
            alpha3: 3.0,
        };
        assert_eq!(printed.approach(0.2, -0.05), GspotApproach::NotReached);
        let (p, _) = printed.flow(0.2, -0.05, 5.0);
        assert!(p > 0.2 * 100.0);
    }
}
