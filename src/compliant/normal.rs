//! Normal contact laws: penalty (compliant) contact of stiffness 1/κ, never adhesive.
//!
//! Nondimensional units of the system (force m g, length l, time √(l/g)). κ → 0 is the rigid
//! limit. With the damping scaled as c_d/√κ the damping ratio stays fixed as κ → 0
//! (Champneys–Várkonyi §4: f_N = max(k ỹ + q ṽ, 0) with ỹ = y/ε, t̃ = t/√ε).

use crate::model::Real;
use serde::{Deserialize, Serialize};

/// The normal force law `F_n(δ, δ̇)` of a closed contact, before the `max(0, ·)` that the
/// mode machine applies by switching to free flight.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalCompliance {
    /// Compliance κ > 0 (stiffness 1/κ).
    pub kappa: f64,
    /// Dimensionless damping c_d ≥ 0; 0 is the linear spring of Zhao–Liu eq. (5).
    pub damping: f64,
}

impl NormalCompliance {
    /// Linear spring `F_n = δ/κ` (Zhao–Liu eqs. (5), (13)).
    pub fn linear_spring(kappa: f64) -> Self {
        NormalCompliance {
            kappa,
            damping: 0.0,
        }
    }

    /// Spring–dashpot `F_n = δ/κ + c_d δ̇/√κ`.
    pub fn spring_dashpot(kappa: f64, damping: f64) -> Self {
        NormalCompliance { kappa, damping }
    }

    /// Contact time scale √κ: the period scale of the contact oscillation.
    pub fn time_scale(&self) -> f64 {
        self.kappa.sqrt()
    }

    /// Penetration scale √κ of an impact (the doc's η = δ/√κ is O(1)).
    pub fn length_scale(&self) -> f64 {
        self.kappa.sqrt()
    }

    /// `δ/κ + c_d δ̇/√κ`: the normal force while the contact is closed (smooth, may be negative
    /// past the release event; the mode machine never uses it there).
    pub fn closed_contact_force<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        penetration.scale(1.0 / self.kappa)
            + penetration_rate.scale(self.damping / self.kappa.sqrt())
    }

    /// κ·F_n = δ + c_d √κ δ̇, the release function: the contact opens when it falls to 0.
    /// Scaled by κ so that its size is that of the penetration (well conditioned for root finding).
    pub fn release_function<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        penetration + penetration_rate.scale(self.damping * self.kappa.sqrt())
    }

    /// Elastic energy δ²/(2κ) stored in the spring.
    pub fn elastic_energy(&self, penetration: f64) -> f64 {
        penetration * penetration / (2.0 * self.kappa)
    }

    /// Power dissipated by the dashpot, −c_d δ̇²/√κ ≤ 0 (work done on the body per unit time).
    pub fn damping_power<S: Real>(&self, penetration_rate: S) -> S {
        -(penetration_rate * penetration_rate).scale(self.damping / self.kappa.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_function_vanishes_with_the_force() {
        let law = NormalCompliance::spring_dashpot(1e-6, 0.2);
        let delta = 1e-7;
        // δ̇ at which F_n = 0: δ/κ = −c_d δ̇/√κ.
        let rate = -delta / (0.2 * 1e-3);
        assert!(law.closed_contact_force(delta, rate).abs() < 1e-9);
        assert!(law.release_function(delta, rate).abs() < 1e-20);
        assert_eq!(
            NormalCompliance::linear_spring(1e-4).closed_contact_force(1e-5, 3.0),
            0.1
        );
    }
}
