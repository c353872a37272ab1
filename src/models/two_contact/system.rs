//! The fast dynamics of two slipping contacts (C–V §6.2–6.3; docs/two_contact.md §1): in the
//! scaled variables Y_i = y_i/ε, s = t/√ε (y_i the gap of contact i, Y_i < 0 penetration),
//!
//! ```text
//!   Y_i'' = b_i + Σ_j P_ij f_j,     f_j = max(k_j Y_j + q_j V_j, 0),   k_j, q_j < 0,   (TC1)
//! ```
//!
//! with the data frozen: no ε appears, the system is scale-free. P_ij is the normal
//! acceleration of contact i per unit normal force at contact j in slip S+ (C–V's p⁺, its
//! columns p_1, p_2). Two contact laws: C–V's (linearcontact) literally, and the harness's
//! compliant contact, which carries force only while closed (it closes when Y_j ≤ 0 and the law
//! is ≥ 0, as `compliant`'s `contact_closes` event).
//!
//! As a [`HybridSystem`] the modes say which contacts carry force; in each the field is linear
//! and the kinks f_j = 0 are the located events.

use crate::hybrid::{Crossing, HybridSystem, Named};
use crate::model::Real;
use serde::{Deserialize, Serialize};

/// The data of (TC1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwoContactSystem {
    /// b: the free normal accelerations of the two contact points.
    pub free_accel: [f64; 2],
    /// P (row i, column j): normal acceleration of contact i per unit normal force at j.
    pub response: [[f64; 2]; 2],
    /// k_j < 0: force per unit depth (f_j = k_j Y_j + q_j V_j).
    pub stiffness: [f64; 2],
    /// q_j < 0: force per unit normal rate.
    pub damping: [f64; 2],
}

/// Which normal law: C–V's (linearcontact) or the harness's compliant contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactLaw {
    /// f_j = max(k_j Y_j + q_j V_j, 0) at any Y_j: a contact approaching fast from outside
    /// (V_j < −(k_j/q_j) Y_j with Y_j > 0) already carries force.
    Literal,
    /// The same law only while the contact is closed: it closes when Y_j ≤ 0 and the law is
    /// ≥ 0 (min(−Y_j, f_j) rising through 0), opens when the law falls to 0.
    Harness,
}

impl ContactLaw {
    pub fn name(self) -> &'static str {
        match self {
            ContactLaw::Literal => "literal",
            ContactLaw::Harness => "harness",
        }
    }
}

/// The state `[Y1, Y2, V1, V2]`.
pub(crate) const DIM: usize = 4;

impl TwoContactSystem {
    /// The law's value k_j Y_j + q_j V_j before the max(·, 0) (the force of a carrying contact).
    pub fn law<S: Real>(&self, j: usize, y: &[S]) -> S {
        y[j].scale(self.stiffness[j]) + y[2 + j].scale(self.damping[j])
    }

    /// The normal accelerations (TC1) with the contacts in `carrying` bearing their law's force.
    pub fn accelerations<S: Real>(&self, carrying: [bool; 2], y: &[S]) -> [S; 2] {
        let f = [0, 1].map(|j| {
            if carrying[j] {
                self.law(j, y)
            } else {
                S::zero()
            }
        });
        [0, 1].map(|i| {
            S::cst(self.free_accel[i])
                + f[0].scale(self.response[i][0])
                + f[1].scale(self.response[i][1])
        })
    }

    /// The column angle γ_j of p_j = (P_1j, P_2j) from (1, 0), in [0, 2π) (C–V §6.1: "γ_j the
    /// angle between p_j and [1 0]ᵀ").
    pub fn column_angle(&self, j: usize) -> f64 {
        let angle = self.response[1][j].atan2(self.response[0][j]);
        angle.rem_euclid(std::f64::consts::TAU)
    }

    /// β: the angle of −b from (1, 0), in [0, 2π) (the caption's α).
    pub(crate) fn load_angle(&self) -> f64 {
        (-self.free_accel[1])
            .atan2(-self.free_accel[0])
            .rem_euclid(std::f64::consts::TAU)
    }
}

/// Which contacts carry force: C–V's two-letter modes (S+ carries, F is free).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Carrying {
    Neither,
    First,
    Second,
    #[default]
    Both,
}

impl Carrying {
    pub fn of(flags: [bool; 2]) -> Self {
        match flags {
            [false, false] => Carrying::Neither,
            [true, false] => Carrying::First,
            [false, true] => Carrying::Second,
            [true, true] => Carrying::Both,
        }
    }

    pub fn flags(self) -> [bool; 2] {
        match self {
            Carrying::Neither => [false, false],
            Carrying::First => [true, false],
            Carrying::Second => [false, true],
            Carrying::Both => [true, true],
        }
    }
}

impl Named for Carrying {
    fn name(&self) -> &'static str {
        match self {
            Carrying::Neither => "FF",
            Carrying::First => "S+F",
            Carrying::Second => "FS+",
            Carrying::Both => "S+S+",
        }
    }
}

/// A kink of (TC1): a contact starts or stops carrying force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kink {
    Opens1,
    Opens2,
    Closes1,
    Closes2,
}

impl Kink {
    /// The contact (0 or 1).
    pub fn contact(self) -> usize {
        match self {
            Kink::Opens1 | Kink::Closes1 => 0,
            Kink::Opens2 | Kink::Closes2 => 1,
        }
    }

    pub fn opens(self) -> bool {
        matches!(self, Kink::Opens1 | Kink::Opens2)
    }
}

impl Named for Kink {
    fn name(&self) -> &'static str {
        match self {
            Kink::Opens1 => "contact_1_opens",
            Kink::Opens2 => "contact_2_opens",
            Kink::Closes1 => "contact_1_closes",
            Kink::Closes2 => "contact_2_closes",
        }
    }
}

/// (TC1) under one contact law, as the mode machine sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastTwoContact {
    pub system: TwoContactSystem,
    pub law: ContactLaw,
}

impl FastTwoContact {
    /// Whether contact `j` carries force at `y`: its law is positive (and, for the harness's
    /// law, Y_j ≤ 0); on the kink (law = 0) whether the law is rising there, the acceleration
    /// being the same in both modes since the force is continuous (C–V's start at rest:
    /// f_j' = q_j b_j > 0 for b_j < 0).
    fn carries(&self, j: usize, y: &[f64], other_carries: bool) -> bool {
        if self.law == ContactLaw::Harness && y[j] > 0.0 {
            return false;
        }
        let f = self.system.law(j, y);
        if f != 0.0 {
            return f > 0.0;
        }
        let mut carrying = [false; 2];
        carrying[1 - j] = other_carries;
        let accel = self.system.accelerations(carrying, y)[j];
        self.system.stiffness[j] * y[2 + j] + self.system.damping[j] * accel > 0.0
    }

    /// The closing function of contact `j`, rising through 0 when it starts to carry force.
    fn closing<S: Real>(&self, j: usize, y: &[S]) -> S {
        let f = self.system.law(j, y);
        match self.law {
            ContactLaw::Literal => f,
            ContactLaw::Harness => {
                let depth = -y[j];
                if depth.value() < f.value() {
                    depth
                } else {
                    f
                }
            }
        }
    }
}

const WATCHED_NEITHER: [(Kink, Crossing); 2] = [
    (Kink::Closes1, Crossing::Rising),
    (Kink::Closes2, Crossing::Rising),
];
const WATCHED_FIRST: [(Kink, Crossing); 2] = [
    (Kink::Opens1, Crossing::Falling),
    (Kink::Closes2, Crossing::Rising),
];
const WATCHED_SECOND: [(Kink, Crossing); 2] = [
    (Kink::Closes1, Crossing::Rising),
    (Kink::Opens2, Crossing::Falling),
];
const WATCHED_BOTH: [(Kink, Crossing); 2] = [
    (Kink::Opens1, Crossing::Falling),
    (Kink::Opens2, Crossing::Falling),
];

impl HybridSystem for FastTwoContact {
    type Mode = Carrying;
    type Event = Kink;

    fn dim(&self) -> usize {
        DIM
    }

    /// Y and V are O(1) to O(R) in the scaled variables: one absolute tolerance for all.
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        vec![atol; DIM]
    }

    fn min_step(&self) -> f64 {
        1e-14
    }

    fn initial_mode(&self, y: &[f64]) -> Carrying {
        // Decide contact 1 with contact 2 carrying as its law says, then contact 2 with contact
        // 1 as decided (only a start on both kinks at once depends on the order).
        let second_guess = self.system.law(1, y) > 0.0;
        let first = self.carries(0, y, second_guess);
        Carrying::of([first, self.carries(1, y, first)])
    }

    fn field<S: Real>(&self, mode: Carrying, y: &[S], dy: &mut [S]) {
        let accel = self.system.accelerations(mode.flags(), y);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = accel[0];
        dy[3] = accel[1];
    }

    fn watched(&self, mode: Carrying) -> std::borrow::Cow<'_, [(Kink, Crossing)]> {
        std::borrow::Cow::Borrowed(match mode {
            Carrying::Neither => &WATCHED_NEITHER,
            Carrying::First => &WATCHED_FIRST,
            Carrying::Second => &WATCHED_SECOND,
            Carrying::Both => &WATCHED_BOTH,
        })
    }

    fn is_switching(&self, _event: Kink) -> bool {
        true
    }

    fn event_value<S: Real>(&self, _mode: Carrying, event: Kink, y: &[S]) -> S {
        let j = event.contact();
        if event.opens() {
            self.system.law(j, y)
        } else {
            self.closing(j, y)
        }
    }

    fn transition(&self, mode: Carrying, event: Kink, _y: &mut [f64]) -> Carrying {
        let mut flags = mode.flags();
        flags[event.contact()] = !event.opens();
        Carrying::of(flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption_b() -> TwoContactSystem {
        TwoContactSystem {
            free_accel: [-1.0, -0.727],
            response: [[3.051, -1.677], [1.555, -0.375]],
            stiffness: [-1.0, -3.0],
            damping: [-1.2, -1.2],
        }
    }

    /// The caption's angles of Fig. unstableslip (B): γ1 = 0.15π, γ2 = 1.07π, α = 0.2π.
    #[test]
    fn caption_angles_of_panel_b() {
        let s = caption_b();
        let pi = std::f64::consts::PI;
        assert!((s.column_angle(0) / pi - 0.15).abs() < 5e-3);
        assert!((s.column_angle(1) / pi - 1.07).abs() < 5e-3);
        assert!((s.load_angle() / pi - 0.2).abs() < 5e-3);
    }

    /// At rest on the surface (Y = V = 0, b < 0) both laws close both contacts: f_j' = q_j b_j
    /// is positive. A contact above the surface approaching fast carries force only under the
    /// literal law.
    #[test]
    fn initial_modes() {
        for law in [ContactLaw::Literal, ContactLaw::Harness] {
            let sys = FastTwoContact {
                system: caption_b(),
                law,
            };
            assert_eq!(sys.initial_mode(&[0.0; 4]), Carrying::Both);
            assert_eq!(sys.initial_mode(&[0.0, 1.0, 0.0, 0.0]), Carrying::First);
            let approaching = [0.0, 0.1, 0.0, -1.0];
            let expected = match law {
                ContactLaw::Literal => Carrying::Both,
                ContactLaw::Harness => Carrying::First,
            };
            assert_eq!(sys.initial_mode(&approaching), expected);
        }
    }
}
