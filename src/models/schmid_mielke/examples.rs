//! The two examples of Schmid–Mielke §4 as data (docs/schmid_mielke.md): §4.1, a varying
//! friction coefficient under a constant normal force, and §4.2 (Klarbring's), a constant
//! coefficient with a coupling stiffness H₁₂ under a growing normal load. Both start at
//! z̃ = (1, 0) at t = 0 with an affine load.

use super::quasistatic::{FrictionProfile, QuasistaticProblem};
use crate::error::{require_non_negative, require_positive, SimError};

/// §4.1: H = diag(H₁₁, H₂₂), f(t) = (H₁₁ + a t, −σ*), μ from μ₀ (z₁ ≤ 2) to μ₁ (z₁ ≥ 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VaryingFriction {
    pub h11: f64,
    pub h22: f64,
    /// σ* > 0: the constant normal force.
    pub sigma_star: f64,
    pub mu0: f64,
    pub mu1: f64,
    /// a > 0.
    pub load_rate: f64,
}

/// §4.2 (Klarbring): H = [[H₁₁, H₁₂], [H₁₂, H₂₂]], f(t) = (0, f* + a t), μ ≡ μ*.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VaryingNormalForce {
    pub h11: f64,
    pub h12: f64,
    pub h22: f64,
    pub mu_star: f64,
    pub f_star: f64,
    /// a > 0.
    pub load_rate: f64,
}

/// One of the two examples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Example {
    VaryingFriction(VaryingFriction),
    VaryingNormalForce(VaryingNormalForce),
}

/// Schmid–Mielke's constants α*, q*, c* (Prop. 3.4, (3.3)–(3.4), (G2)).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct LipschitzConstants {
    pub alpha: f64,
    pub q: f64,
    pub c: f64,
}

impl LipschitzConstants {
    /// The a-priori bound (3.5) on ‖z_k − z_{k−1}‖ per unit of the largest time step,
    /// c*/(α* − q*), when (G5*) q* < α* holds.
    pub(crate) fn increment_bound(&self) -> Option<f64> {
        (self.q < self.alpha).then(|| self.c / (self.alpha - self.q))
    }
}

/// Whether the solution is Lipschitz (H₁₁ above the threshold), jumps at the threshold
/// (critical) or jumps below it. The threshold is H₁₁ against σ*|Dμ| (§4.1) or μ*H₁₂ (§4.2):
/// the paper's ᾱ, not (G5)'s α = λ_min(H) (docs/schmid_mielke.md, "(G5) and the threshold").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    Subcritical,
    Critical,
    Supercritical,
}

impl Regime {
    pub fn name(self) -> &'static str {
        match self {
            Regime::Subcritical => "subcritical",
            Regime::Critical => "critical",
            Regime::Supercritical => "supercritical",
        }
    }

    /// Whether the closed form jumps.
    pub(crate) fn jumps(self) -> bool {
        self != Regime::Subcritical
    }
}

/// H₁₁ within this relative distance of the threshold is critical: the printed critical cases
/// are floating-point ties (0.6 − 0.2 = 0.39999999999999997 ≠ 0.4).
pub(crate) const CRITICAL_TOLERANCE: f64 = 1e-9;

/// The z₁ where §4.1's coefficient starts and ends its ramp.
pub(crate) const RAMP: (f64, f64) = (2.0, 3.0);

impl Example {
    /// The energy, load and friction of the example.
    pub fn problem(&self) -> QuasistaticProblem {
        match *self {
            Example::VaryingFriction(p) => QuasistaticProblem {
                stiffness: [[p.h11, 0.0], [0.0, p.h22]],
                load_at_zero: [p.h11, -p.sigma_star],
                load_rate: [p.load_rate, 0.0],
                friction: FrictionProfile {
                    mu_before: p.mu0,
                    mu_after: p.mu1,
                    ramp_start: RAMP.0,
                    ramp_end: RAMP.1,
                },
            },
            Example::VaryingNormalForce(p) => QuasistaticProblem {
                stiffness: [[p.h11, p.h12], [p.h12, p.h22]],
                load_at_zero: [0.0, p.f_star],
                load_rate: [0.0, p.load_rate],
                friction: FrictionProfile::constant(p.mu_star),
            },
        }
    }

    /// z̃ = (1, 0).
    pub(crate) fn initial_position(&self) -> [f64; 2] {
        [1.0, 0.0]
    }

    /// H₁₁.
    pub fn h11(&self) -> f64 {
        match self {
            Example::VaryingFriction(p) => p.h11,
            Example::VaryingNormalForce(p) => p.h11,
        }
    }

    /// The value of H₁₁ at which the solution starts to jump: σ*(μ₀ − μ₁) (§4.1, the ramp
    /// has unit length) or μ*H₁₂ (§4.2).
    pub fn threshold(&self) -> f64 {
        match self {
            Example::VaryingFriction(p) => p.sigma_star * (p.mu0 - p.mu1),
            Example::VaryingNormalForce(p) => p.mu_star * p.h12,
        }
    }

    pub fn regime(&self) -> Regime {
        let (h, c) = (self.h11(), self.threshold());
        if (h - c).abs() <= CRITICAL_TOLERANCE * h.abs().max(c.abs()) {
            Regime::Critical
        } else if h > c {
            Regime::Subcritical
        } else {
            Regime::Supercritical
        }
    }

    /// (G5) at z̃, with α = λ_min(H) and q of (2.4) (for §4.1 at a point of the ramp, where
    /// q = σ*|Dμ|): whether the paper's sufficient condition holds.
    pub(crate) fn g5_holds(&self) -> bool {
        let l = self.lipschitz_constants();
        l.q < l.alpha
    }

    /// The constants of Prop. 3.4 over the whole example (they do not vary with t or z here):
    /// α* = λ_min(H) (G2); q* = ‖DM‖σ₊ + ‖M‖‖(H_N1, …)‖ (3.4) with M = μ × the tangential
    /// projection, i.e. σ*|μ₀ − μ₁| over the unit ramp (§4.1, no coupling) or μ*|H₁₂| (§4.2,
    /// μ constant); c* = (1 + ‖M‖)‖∂_t DE‖ = (1 + max μ)·a (3.3), the load being affine.
    pub(crate) fn lipschitz_constants(&self) -> LipschitzConstants {
        let h = self.problem().stiffness;
        let (tr, det) = (h[0][0] + h[1][1], h[0][0] * h[1][1] - h[0][1] * h[1][0]);
        let alpha = 0.5 * (tr - (tr * tr - 4.0 * det).max(0.0).sqrt());
        let (q, c) = match self {
            Example::VaryingFriction(p) => (
                p.sigma_star * (p.mu0 - p.mu1).abs(),
                (1.0 + p.mu0.max(p.mu1)) * p.load_rate,
            ),
            Example::VaryingNormalForce(p) => {
                (p.mu_star * p.h12.abs(), (1.0 + p.mu_star) * p.load_rate)
            }
        };
        LipschitzConstants { alpha, q, c }
    }

    /// Check the parameters; errors name the TOML key (`params.` or `sweep.` is the caller's
    /// prefix) and the requirement.
    pub fn validate(&self, key: impl Fn(&str) -> String) -> Result<(), SimError> {
        match *self {
            Example::VaryingFriction(p) => {
                require_positive(&key("H11"), p.h11)?;
                require_positive(&key("H22"), p.h22)?;
                require_positive(&key("sigma_star"), p.sigma_star)?;
                require_non_negative(&key("mu0"), p.mu0)?;
                require_non_negative(&key("mu1"), p.mu1)?;
                require_positive(&key("load_rate"), p.load_rate)?;
            }
            Example::VaryingNormalForce(p) => {
                require_positive(&key("H11"), p.h11)?;
                require_positive(&key("H22"), p.h22)?;
                crate::error::require_finite(&key("H12"), p.h12)?;
                if p.h11 * p.h22 <= p.h12 * p.h12 {
                    return Err(SimError::invalid(
                        &key("H12"),
                        p.h12,
                        &format!(
                            "H must be positive definite: need H12² < H11·H22 = {}",
                            p.h11 * p.h22
                        ),
                    ));
                }
                require_positive(&key("mu_star"), p.mu_star)?;
                crate::error::require_finite(&key("f_star"), p.f_star)?;
                require_positive(&key("load_rate"), p.load_rate)?;
                // (G3): z̃ stable at t = 0: H₁₁ ≤ μ* σ(0, z̃) = μ*(H₁₂ − f*).
                let hold = p.mu_star * (p.h12 - p.f_star);
                if p.h11 > hold * (1.0 + CRITICAL_TOLERANCE) {
                    return Err(SimError::invalid(
                        &key("f_star"),
                        p.f_star,
                        &format!(
                            "the start z = (1, 0) must be stable, H11 <= mu_star·(H12 − f_star): need f_star <= {}",
                            p.h12 - p.h11 / p.mu_star
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The level of z₁ whose crossing the compliant run times: the end of §4.1's ramp, and for §4.2
/// the middle of the supercritical jump of the worked case (z₁ from 1 to −1/3).
pub fn crossing_level(example: &Example) -> f64 {
    match example {
        Example::VaryingFriction(_) => RAMP.1,
        Example::VaryingNormalForce(_) => 1.0 / 3.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prop. 3.4's constants for the two examples by hand: §4.1 at H₁₁ = 1, H₂₂ = 10, σ* = 1,
    /// μ 0.6 → 0.2, a = 1: α = 1, q = 0.4, c = 1.6, bound 8/3; §4.2 at H = [[1, 1], [1, 4]],
    /// μ* = 0.5, a = 1: α = (5 − √13)/2, q = 0.5, c = 1.5.
    #[test]
    fn lipschitz_constants_by_hand() {
        let ex1 = Example::VaryingFriction(VaryingFriction {
            h11: 1.0,
            h22: 10.0,
            sigma_star: 1.0,
            mu0: 0.6,
            mu1: 0.2,
            load_rate: 1.0,
        });
        let l = ex1.lipschitz_constants();
        assert!((l.alpha - 1.0).abs() < 1e-15 && (l.q - 0.4).abs() < 1e-15);
        assert!((l.c - 1.6).abs() < 1e-15);
        assert!((l.increment_bound().unwrap() - 8.0 / 3.0).abs() < 1e-14);
        let ex2 = Example::VaryingNormalForce(VaryingNormalForce {
            h11: 1.0,
            h12: 1.0,
            h22: 4.0,
            mu_star: 0.5,
            f_star: -2.0,
            load_rate: 1.0,
        });
        let l = ex2.lipschitz_constants();
        assert!((l.alpha - (5.0 - 13.0_f64.sqrt()) / 2.0).abs() < 1e-15);
        assert!((l.q - 0.5).abs() < 1e-15 && (l.c - 1.5).abs() < 1e-15);
        // Below (G5*) there is no bound.
        let weak = Example::VaryingNormalForce(VaryingNormalForce {
            h11: 0.6,
            ..match ex2 {
                Example::VaryingNormalForce(p) => p,
                Example::VaryingFriction(_) => unreachable!(),
            }
        });
        assert_eq!(weak.lipschitz_constants().increment_bound(), None);
    }
}
