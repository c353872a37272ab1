//! Coulomb friction with kinetic μ and static μ_s: the contact modes and the rules that pick a
//! mode when the slip velocity vanishes (Zhao–Liu eqs. (6), (50), (52)).

use serde::{Deserialize, Serialize};

/// The modes of the hybrid system. Each is a smooth vector field; transitions are events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Slip with u < 0: F_τ = +μ F_n.
    SlideLeft,
    /// u = 0 held by the static friction force that makes u̇ = 0, while |F_τ| ≤ μ_s F_n.
    Stick,
    /// Slip with u > 0: F_τ = −μ F_n.
    SlideRight,
    /// Contact open: F_n = F_τ = 0.
    #[default]
    Free,
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::SlideLeft => "slide_left",
            Mode::Stick => "stick",
            Mode::SlideRight => "slide_right",
            Mode::Free => "free",
        }
    }

    pub fn is_contact(&self) -> bool {
        !matches!(self, Mode::Free)
    }

    /// Slip direction: −1 left, +1 right, 0 otherwise.
    pub fn slip_sign(&self) -> i8 {
        match self {
            Mode::SlideLeft => -1,
            Mode::SlideRight => 1,
            _ => 0,
        }
    }
}

impl crate::hybrid::Named for Mode {
    fn name(&self) -> &'static str {
        Mode::name(self)
    }
}

/// Coulomb's law with kinetic and static coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coulomb {
    /// Kinetic coefficient μ > 0.
    pub mu: f64,
    /// Static coefficient μ_s ≥ μ.
    pub mu_s: f64,
}

impl Coulomb {
    /// The placeholder of a contact whose coefficient the mechanics supplies as μ(q)
    /// (`PlanarContactSystem::friction_coefficient`): never read, and NaN if it were.
    pub const FROM_MECHANICS: Coulomb = Coulomb {
        mu: f64::NAN,
        mu_s: f64::NAN,
    };

    /// Static = kinetic = μ.
    pub fn equal(mu: f64) -> Self {
        Coulomb { mu, mu_s: mu }
    }

    /// Kinetic friction force in a slip mode: opposes the slip direction.
    pub fn slip_force<S: crate::model::Real>(&self, mode: Mode, normal_force: S) -> S {
        normal_force.scale(-self.mu * f64::from(mode.slip_sign()))
    }

    /// The contact mode at u = 0 given the force that stick would need (Zhao–Liu eqs. (50), (52)):
    /// stick if |F_τ| ≤ μ_s F_n; otherwise slip toward the side friction cannot hold. If the
    /// stick force exceeds +μ_s F_n the contact point accelerates to u < 0, and conversely.
    pub fn mode_at_zero_slip(&self, normal_force: f64, stick_force: f64) -> Mode {
        let limit = self.mu_s * normal_force;
        if stick_force > limit {
            Mode::SlideLeft
        } else if stick_force < -limit {
            Mode::SlideRight
        } else {
            Mode::Stick
        }
    }

    /// The contact mode with which a closed contact starts, from the slip velocity `u`: slip
    /// in its direction, or, when `u` is zero to within `u_resolution` (what the integrator
    /// resolves of it: its sign there is rounding, not dynamics), the friction cone's choice
    /// at zero slip ([`Coulomb::mode_at_zero_slip`], Zhao–Liu eqs. (50), (52)).
    pub fn contact_mode(
        &self,
        u: f64,
        u_resolution: f64,
        normal_force: f64,
        stick_force: f64,
    ) -> Mode {
        if u.abs() <= u_resolution {
            self.mode_at_zero_slip(normal_force, stick_force)
        } else if u < 0.0 {
            Mode::SlideLeft
        } else {
            Mode::SlideRight
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_slip_mode_follows_the_friction_cone() {
        let f = Coulomb { mu: 1.0, mu_s: 1.5 };
        assert_eq!(f.mode_at_zero_slip(2.0, 2.9), Mode::Stick);
        assert_eq!(f.mode_at_zero_slip(2.0, 3.1), Mode::SlideLeft);
        assert_eq!(f.mode_at_zero_slip(2.0, -3.1), Mode::SlideRight);
        assert_eq!(f.slip_force(Mode::SlideLeft, 2.0), 2.0);
        assert_eq!(f.slip_force(Mode::SlideRight, 2.0), -2.0);
    }

    /// A slip velocity within its resolution of zero is zero: the cone decides, whatever its
    /// sign; one beyond it slips its way, whatever the cone says.
    #[test]
    fn contact_mode_treats_unresolved_slip_as_zero() {
        let f = Coulomb { mu: 1.0, mu_s: 1.5 };
        for u in [-1e-13, -1e-300, 0.0, 1e-300, 1e-13] {
            assert_eq!(f.contact_mode(u, 1e-12, 2.0, 2.9), Mode::Stick, "{u}");
            assert_eq!(f.contact_mode(u, 1e-12, 2.0, 3.1), Mode::SlideLeft, "{u}");
            assert_eq!(f.contact_mode(u, 1e-12, 2.0, -3.1), Mode::SlideRight, "{u}");
        }
        assert_eq!(f.contact_mode(-2e-12, 1e-12, 2.0, -3.1), Mode::SlideLeft);
        assert_eq!(f.contact_mode(2e-12, 1e-12, 2.0, 3.1), Mode::SlideRight);
        assert_eq!(f.contact_mode(-1e-300, 0.0, 2.0, 2.9), Mode::SlideLeft);
    }
}
