//! Normal contact laws: penalty (compliant) contact of stiffness 1/κ, never adhesive.
//!
//! Nondimensional units of the system (force m g, length l, time √(l/g)). κ → 0 is the rigid
//! limit. With the damping scaled as c_d/√κ the damping ratio stays fixed as κ → 0
//! (Champneys–Várkonyi §4: f_N = max(k ỹ + q ṽ, 0) with ỹ = y/ε, t̃ = t/√ε).

use crate::error::{refuse_if, SimError};
use crate::model::Real;
use serde::{Deserialize, Serialize};

/// The smallest compliance whose phases double precision resolves (docs/tolerances.md,
/// "Resolution limits"). An impact lasts O(√κ), and a phase that ends when the contact force
/// is O(1) — κ times less than its O(1/√κ) scale — lasts O(κ): the rod's reverse slip,
/// T_rev ≈ 0.158 κ after a stick of 2.02 √κ. Each phase is timed in its own clock, but the
/// O(κ) phase starts at an event of the O(√κ) one, whose time rounds to about ε·√κ. Measured
/// on Zhao–Liu's impact: every other quantity stays at its rigid limit to 3e-9 down to
/// κ = 1e-40 (when the run completes), but T_rev/κ is off by 3e-3 at κ = 1e-26 with c_d = 0.2
/// and vanishes at 1e-30 (from 0.158, without damping). At 1e-24 every quantity is within 6e-4.
pub const SMALLEST_KAPPA: f64 = 1e-24;

/// Checks that the compliance `value` (named `field`, e.g. `--kappa` or `sweep.kappa.min`) is
/// finite, positive and at least [`SMALLEST_KAPPA`].
pub fn require_resolvable_kappa(field: &str, value: f64) -> Result<f64, SimError> {
    crate::error::require_positive(field, value)?;
    refuse_if(value < SMALLEST_KAPPA, field, value, || {
        format!(
                "must be >= {SMALLEST_KAPPA:e}: below it double precision cannot resolve the contact's shortest phase, which lasts O(κ) and starts at an event of one lasting O(√κ) (the rod's reverse slip, 0.158 κ after a stick of 2.02 √κ, is off by 3e-3 at κ = 1e-26 and vanishes at 1e-30); see docs/tolerances.md, \"Resolution limits\""
            )
    })
}

/// The compliance at which the penalty contact stops standing for a contact: under a load of
/// the body's weight (the unit of force) it sinks κ body lengths (the unit of length) into the
/// ground, its own size at κ = 1. The penalty law represents penetrations small against the
/// body (its rigid limit is κ → 0; the experiments sweep κ ≤ 1e-1).
pub const LARGEST_KAPPA: f64 = 1.0;

/// Checks the largest compliance of a run or sweep, `value` (named `field`, e.g. `--kappa` or
/// `sweep.kappa.max`): below [`LARGEST_KAPPA`].
pub fn require_penetrating_less_than_the_body(field: &str, value: f64) -> Result<f64, SimError> {
    crate::error::require_positive(field, value)?;
    refuse_if(value >= LARGEST_KAPPA, field, value, || {
        format!(
                "must be < {LARGEST_KAPPA}: under its own weight the body sinks about κ body lengths into the ground, and the penalty law stands for penetrations small against the body (its rigid limit is κ → 0)"
            )
    })
}

/// The largest dashpot c_d (in F_n = δ/κ + c_d δ̇/√κ) whose contact double precision follows:
/// 1/√ε ≈ 6.7e7. An overdamped contact relaxes at two rates, about c_d and 1/c_d in units of
/// its normal frequency 1/√κ (for O(1) mobility); their ratio is c_d². Beyond 1/ε the slow
/// rate, the penetration creeping back, is below the rounding of the fast one: the contact is a
/// dashpot lock that no integrator follows (an explicit one needs c_d² steps per relaxation,
/// an implicit one's Newton matrices are singular in double precision).
pub const LARGEST_DAMPING: f64 = 6.7e7;

/// Checks that the dashpot `value` (named `field`) is finite, ≥ 0 and at most
/// [`LARGEST_DAMPING`].
pub fn require_resolvable_damping(field: &str, value: f64) -> Result<f64, SimError> {
    crate::error::require_non_negative(field, value)?;
    refuse_if(value > LARGEST_DAMPING, field, value, || {
        format!(
                "must be <= {LARGEST_DAMPING:e} (1/√ε): the overdamped contact relaxes at rates c_d and 1/c_d (in units of its normal frequency), whose ratio c_d² = {} exceeds what double precision resolves (1/ε = 4.5e15); no integrator follows such a dashpot",
                crate::error::number_text(value * value)
            )
    })
}

/// Checks a fast start's scaled penetration or its rate (`value`, named `field`: Y0 in units of
/// κ, V0 in units of √κ) at the largest compliance of the run, `kappa_max` (named `kappa_key`):
/// the start reaches a penetration of about κ·|value| in the body's length unit, and the
/// penalty law stands for a contact whose penetration is small against the body (its rigid limit
/// is δ → 0). At κ·|value| ≥ 1 the body starts inside the ground by its own size, and at
/// |value| near 1e308 its force overflows: such a start is refused, not run.
pub fn require_representable_start(
    field: &str,
    value: f64,
    kappa_key: &str,
    kappa_max: f64,
) -> Result<f64, SimError> {
    crate::error::require_finite(field, value)?;
    refuse_if(kappa_max * value.abs() >= 1.0, field, value, || {
        format!(
                "must be smaller in size than 1/κ = {} ({kappa_key} = {}): the start's penetration, about κ·|value| = {} body lengths, is no contact the penalty law represents (it stands for penetrations small against the body)",
                crate::error::number_text(1.0 / kappa_max),
                crate::error::number_text(kappa_max),
                crate::error::number_text(kappa_max * value.abs())
            )
    })
}

/// Checks a start velocity `value` (named `field`, in the system's velocity unit) against the
/// compliance `kappa` (named `kappa_key`): a contact met at speed |v| penetrates about √κ·|v|
/// body lengths (the spring's quarter period √κ times the speed, for a mobility of order one),
/// and the penalty law stands for penetrations small against the body. At √κ·|v| ≥ 1 the body
/// would pass through the ground by its own size; near |v| = 1e150 the integrator cannot even
/// take a step. Such a start is refused, not run.
pub fn require_penetrating_speed(
    field: &str,
    value: f64,
    kappa_key: &str,
    kappa: f64,
) -> Result<f64, SimError> {
    crate::error::require_finite(field, value)?;
    let depth = kappa.sqrt() * value.abs();
    refuse_if(depth >= 1.0, field, value, || {
        format!(
                "must be smaller in size than 1/√κ = {} ({kappa_key} = {}): a contact met at this speed penetrates about √κ·|value| = {} body lengths, no contact the penalty law represents (it stands for penetrations small against the body)",
                crate::error::significant_text(1.0 / kappa.sqrt(), 3),
                crate::error::number_text(kappa),
                crate::error::significant_text(depth, 3)
            )
    })
}

/// The shape of the normal force law: linear in (δ, δ̇), or Hunt–Crossley's Hertzian one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormalLaw {
    /// `F_n = δ/κ + c_d δ̇/√κ`: the spring–dashpot (C–V's f_N = max(kỹ + qṽ, 0), k = −1,
    /// q = −c_d).
    #[default]
    SpringDashpot,
    /// Hunt–Crossley: `F_n = η^{3/2} (1 + c_d δ̇)/√κ` with η = δ/√κ, i.e. the Hertz stiffness
    /// κ^{−5/4} times δ^{3/2}(1 + c_d δ̇). An impact at unit speed still penetrates O(√κ) for
    /// O(√κ) time, so the fast dynamics in (η, s = t/√κ) are κ-free, like the linear law's;
    /// c_d is Hunt–Crossley's α (per unit velocity): its restitution is
    /// e ≈ 1 − (2/3) c_d |v⁻| for small c_d|v⁻| (docs/oblique_impact.md), and its damping
    /// vanishes with the penetration rate, so a contact resting under an O(1) load is undamped
    /// as κ → 0.
    HuntCrossley,
}

impl NormalLaw {
    pub fn name(&self) -> &'static str {
        match self {
            NormalLaw::SpringDashpot => "spring_dashpot",
            NormalLaw::HuntCrossley => "hunt_crossley",
        }
    }

    pub fn is_spring_dashpot(&self) -> bool {
        *self == NormalLaw::SpringDashpot
    }
}

/// The normal force law `F_n(δ, δ̇)` of a closed contact, before the `max(0, ·)` that the
/// mode machine applies by switching to free flight.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalCompliance {
    /// Compliance κ > 0 (stiffness 1/κ).
    pub kappa: f64,
    /// Dimensionless damping c_d ≥ 0; 0 is the linear spring of Zhao–Liu eq. (5).
    pub damping: f64,
    /// The law's shape (the spring–dashpot unless set; left out of JSON then).
    #[serde(default, skip_serializing_if = "NormalLaw::is_spring_dashpot")]
    pub law: NormalLaw,
}

impl NormalCompliance {
    /// Linear spring `F_n = δ/κ` (Zhao–Liu eqs. (5), (13)).
    pub fn linear_spring(kappa: f64) -> Self {
        Self::spring_dashpot(kappa, 0.0)
    }

    /// Spring–dashpot `F_n = δ/κ + c_d δ̇/√κ`.
    pub fn spring_dashpot(kappa: f64, damping: f64) -> Self {
        NormalCompliance {
            kappa,
            damping,
            law: NormalLaw::SpringDashpot,
        }
    }

    /// Hunt–Crossley `F_n = (δ/√κ)^{3/2}(1 + c_d δ̇)/√κ` ([`NormalLaw::HuntCrossley`]).
    pub fn hunt_crossley(kappa: f64, damping: f64) -> Self {
        NormalCompliance {
            kappa,
            damping,
            law: NormalLaw::HuntCrossley,
        }
    }

    /// `law` with compliance κ and damping c_d.
    pub fn of(law: NormalLaw, kappa: f64, damping: f64) -> Self {
        NormalCompliance {
            kappa,
            damping,
            law,
        }
    }

    /// The penetration at which the closed contact carries the force `force` ≥ 0 at rest
    /// (δ̇ = 0): κF (linear), √κ (√κ F)^{2/3} (Hunt–Crossley).
    pub fn static_penetration(&self, force: f64) -> f64 {
        match self.law {
            NormalLaw::SpringDashpot => self.kappa * force,
            NormalLaw::HuntCrossley => {
                let s = self.kappa.sqrt();
                s * (s * force).powf(2.0 / 3.0)
            }
        }
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
    /// For Hunt–Crossley, the odd extension η|η|^{1/2} of η^{3/2}: the force changes sign with
    /// δ, as the release event needs, and an integrator's trial step past it stays finite.
    pub fn closed_contact_force<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law {
            NormalLaw::SpringDashpot => {
                penetration.scale(1.0 / self.kappa)
                    + penetration_rate.scale(self.damping / self.kappa.sqrt())
            }
            NormalLaw::HuntCrossley => {
                let s = self.kappa.sqrt();
                let eta = penetration.scale(1.0 / s);
                (eta * eta.abs().sqrt() * (S::cst(1.0) + penetration_rate.scale(self.damping)))
                    .scale(1.0 / s)
            }
        }
    }

    /// κ·F_n = δ + c_d √κ δ̇, the release function: the contact opens when it falls to 0.
    /// Scaled by κ so that its size is that of the penetration (well conditioned for root finding).
    /// Hunt–Crossley: δ(1 + c_d δ̇), of F_n's sign and the penetration's size.
    pub fn release_function<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law {
            NormalLaw::SpringDashpot => {
                penetration + penetration_rate.scale(self.damping * self.kappa.sqrt())
            }
            NormalLaw::HuntCrossley => {
                penetration * (S::cst(1.0) + penetration_rate.scale(self.damping))
            }
        }
    }

    /// The closing event's function min(δ, κF_n) of a free contact: it rises through 0 where
    /// the contact closes, since the contact is closed iff δ > 0 and F_n > 0.
    pub fn closing_function<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        let release = self.release_function(penetration, penetration_rate);
        if release.value() < penetration.value() {
            release
        } else {
            penetration
        }
    }

    /// Hunt–Crossley only: a function of dF_n/dt's sign, 3/2 δ̇(1 + c_d δ̇) + c_d δ δ̈ (dF_n/dt
    /// divided by the positive |η|^{1/2}/κ^{3/4}), for the peak-force event.
    pub fn hunt_crossley_force_rate<S: Real>(
        &self,
        penetration: S,
        penetration_rate: S,
        penetration_accel: S,
    ) -> S {
        (penetration_rate * (S::cst(1.0) + penetration_rate.scale(self.damping))).scale(1.5)
            + (penetration * penetration_accel).scale(self.damping)
    }

    /// Absolute tolerances of a state `[q (N), q̇ (N), …]` of length `len`: `atol` for every
    /// component, times min(κ, 1) for the coordinates `q_i` with `scaled(i)` (those along the
    /// contact normal) and min(√κ, 1) for their rates: an impact grows from a seed δ ~ κ,
    /// δ̇ ~ √κ (docs/tolerances.md, "How the harness scales atol").
    pub fn contact_scaled_tolerances<const N: usize>(
        &self,
        atol: f64,
        len: usize,
        scaled: impl Fn(usize) -> bool,
    ) -> Vec<f64> {
        let mut out = vec![atol; len];
        for i in (0..N).filter(|&i| scaled(i)) {
            out[i] *= self.kappa.min(1.0);
            out[N + i] *= self.time_scale().min(1.0);
        }
        out
    }

    /// Elastic energy δ²/(2κ) stored in the spring; Hunt–Crossley: (2/5)|η|^{5/2}, η = δ/√κ.
    pub fn elastic_energy(&self, penetration: f64) -> f64 {
        match self.law {
            NormalLaw::SpringDashpot => penetration * penetration / (2.0 * self.kappa),
            NormalLaw::HuntCrossley => 0.4 * (penetration / self.kappa.sqrt()).abs().powf(2.5),
        }
    }

    /// Power dissipated by the dashpot, −c_d δ̇²/√κ ≤ 0 (work done on the body per unit time);
    /// Hunt–Crossley: −c_d δ̇² η|η|^{1/2}/√κ.
    pub fn damping_power<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law {
            NormalLaw::SpringDashpot => {
                -(penetration_rate * penetration_rate).scale(self.damping / self.kappa.sqrt())
            }
            NormalLaw::HuntCrossley => {
                let s = self.kappa.sqrt();
                let eta = penetration.scale(1.0 / s);
                -(penetration_rate * penetration_rate * eta * eta.abs().sqrt())
                    .scale(self.damping / s)
            }
        }
    }
}

/// A law with the spring–dashpot's constants 1/κ, c_d/√κ and c_d√κ computed once, for the
/// functions the right-hand side and the event scan evaluate at every call: the same
/// expressions as [`NormalCompliance`]'s, which take a square root and divide at each call, so
/// the same numbers bit for bit (`prepared_law_gives_the_same_numbers`). Hunt–Crossley's are
/// [`NormalCompliance`]'s own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreparedCompliance {
    pub law: NormalCompliance,
    inv_kappa: f64,
    damping_over_root: f64,
    damping_times_root: f64,
}

impl PreparedCompliance {
    pub fn new(law: NormalCompliance) -> Self {
        PreparedCompliance {
            law,
            inv_kappa: 1.0 / law.kappa,
            damping_over_root: law.damping / law.kappa.sqrt(),
            damping_times_root: law.damping * law.kappa.sqrt(),
        }
    }

    /// [`NormalCompliance::closed_contact_force`].
    #[inline(always)]
    pub fn closed_contact_force<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law.law {
            NormalLaw::SpringDashpot => {
                penetration.scale(self.inv_kappa) + penetration_rate.scale(self.damping_over_root)
            }
            NormalLaw::HuntCrossley => self.law.closed_contact_force(penetration, penetration_rate),
        }
    }

    /// [`NormalCompliance::release_function`].
    #[inline(always)]
    pub fn release_function<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law.law {
            NormalLaw::SpringDashpot => {
                penetration + penetration_rate.scale(self.damping_times_root)
            }
            NormalLaw::HuntCrossley => self.law.release_function(penetration, penetration_rate),
        }
    }

    /// [`NormalCompliance::closing_function`].
    #[inline(always)]
    pub fn closing_function<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        let release = self.release_function(penetration, penetration_rate);
        if release.value() < penetration.value() {
            release
        } else {
            penetration
        }
    }

    /// [`NormalCompliance::damping_power`].
    #[inline(always)]
    pub fn damping_power<S: Real>(&self, penetration: S, penetration_rate: S) -> S {
        match self.law.law {
            NormalLaw::SpringDashpot => {
                -(penetration_rate * penetration_rate).scale(self.damping_over_root)
            }
            NormalLaw::HuntCrossley => self.law.damping_power(penetration, penetration_rate),
        }
    }
}

impl NormalCompliance {
    /// The restitution −v⁺/v⁻ of a frictionless impact through a contact of normal mobility
    /// `normal_mobility` (C = dᵀM⁻¹d), where it does not depend on the impact speed: the
    /// spring–dashpot's is [`restitution_unit_normal_mass`] at c_d√C (δ̈ = −C F_n gives the
    /// damping ratio ζ = c_d√C/2), an undamped Hunt–Crossley law's is 1 (elastic). `None` for a
    /// damped Hunt–Crossley law, whose restitution falls with the impact speed.
    pub fn frictionless_restitution(&self, normal_mobility: f64) -> Option<f64> {
        match self.law {
            NormalLaw::SpringDashpot => {
                restitution_unit_normal_mass(self.damping * normal_mobility.sqrt()).ok()
            }
            NormalLaw::HuntCrossley => (self.damping == 0.0).then_some(1.0),
        }
    }
}

/// The restitution coefficient e = −δ̇⁺/δ̇⁻ of one impact of the spring–dashpot law
/// `F_n = δ/κ + c_d δ̇/√κ` on a unit normal mass with no other force, the contact released where
/// `F_n` falls to 0 (not where δ does). It does not depend on κ, so it is also the rigid limit's
/// impact law. With ζ = c_d/2 (docs/restitution.md, eqs. (R4)–(R6)):
///
/// ```text
///   ζ < 1:  e = exp(−ζ (π − atan2(2ζω, 1 − 2ζ²)) / ω) = exp(−2ζ acos ζ / ω),  ω = √(1 − ζ²)
///   ζ = 1:  e = exp(−2)
///   ζ > 1:  e = exp(−2ζ acosh ζ / ν),  ν = √(ζ² − 1)
/// ```
///
/// e > 0 for every c_d: even an overdamped dashpot releases the particle with a velocity, since
/// F_n = 0 is reached at δ > 0. `damping` must be finite and ≥ 0.
pub fn restitution_unit_normal_mass(damping: f64) -> Result<f64, SimError> {
    crate::error::require_non_negative("damping", damping)?;
    let zeta = 0.5 * damping;
    // Near ζ = 1 both branches are 0/0; x acos(x)/√(1−x²) and x acosh(x)/√(x²−1) are the same
    // analytic function of ζ, equal to 1 + 2(ζ−1)/3 − (ζ−1)²/5 + … there (docs/restitution.md,
    // (R7)).
    let half_exponent = if (zeta - 1.0).abs() < 1e-6 {
        let h = zeta - 1.0;
        1.0 + h * (2.0 / 3.0 - h / 5.0)
    } else if zeta < 1.0 {
        let omega = (1.0 - zeta * zeta).sqrt();
        zeta * (std::f64::consts::PI - (2.0 * zeta * omega).atan2(1.0 - 2.0 * zeta * zeta))
            / (2.0 * omega)
    } else {
        zeta * zeta.acosh() / (zeta * zeta - 1.0).sqrt()
    };
    Ok((-2.0 * half_exponent).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prepared law's functions equal the law's own bit for bit, zeros' signs included, in
    /// f64 and in dual numbers, for both laws with and without damping.
    #[test]
    fn prepared_law_gives_the_same_numbers() {
        use crate::model::Dual;
        let laws = [
            NormalCompliance::linear_spring(1e-8),
            NormalCompliance::spring_dashpot(1e-6, 0.3),
            NormalCompliance::spring_dashpot(0.7, 2.0),
            NormalCompliance::hunt_crossley(1e-6, 0.0),
            NormalCompliance::hunt_crossley(1e-4, 0.4),
        ];
        let values = [0.0, -0.0, 1e-9, -3e-7, 0.25, -1.5, 7.0];
        let bits = |x: Dual| (x.re.to_bits(), x.eps.to_bits());
        for law in laws {
            let prepared = PreparedCompliance::new(law);
            for &d in &values {
                for &r in &values {
                    let (dd, rd) = (Dual::new(d, 0.3 - r), Dual::new(r, d - 1.1));
                    let same_bits = prepared.functions(d, r).map(f64::to_bits)
                        == law.functions(d, r).map(f64::to_bits);
                    assert!(same_bits, "{law:?} at ({d}, {r})");
                    let same_bits =
                        prepared.functions(dd, rd).map(bits) == law.functions(dd, rd).map(bits);
                    assert!(same_bits, "{law:?} at ({dd:?}, {rd:?})");
                }
            }
        }
    }

    /// The force, the release and closing functions and the damping power, in that order.
    trait LawFunctions {
        fn functions<S: Real>(&self, d: S, r: S) -> [S; 4];
    }

    impl LawFunctions for NormalCompliance {
        fn functions<S: Real>(&self, d: S, r: S) -> [S; 4] {
            let (force, release) = (self.closed_contact_force(d, r), self.release_function(d, r));
            let (closing, power) = (self.closing_function(d, r), self.damping_power(d, r));
            [force, release, closing, power]
        }
    }

    impl LawFunctions for PreparedCompliance {
        fn functions<S: Real>(&self, d: S, r: S) -> [S; 4] {
            let (force, release) = (self.closed_contact_force(d, r), self.release_function(d, r));
            let (closing, power) = (self.closing_function(d, r), self.damping_power(d, r));
            [force, release, closing, power]
        }
    }

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

    /// The closed form's branches: no damping is elastic, ζ = 1 is exp(−2) from both sides
    /// (continuity of the analytic continuation), and large ζ tends to 1/(4ζ²) (acosh ζ ≈
    /// ln 2ζ), so e stays positive.
    #[test]
    fn restitution_branches_join() {
        assert_eq!(restitution_unit_normal_mass(0.0).unwrap(), 1.0);
        let at_one = (-2.0f64).exp();
        for c_d in [2.0 - 1e-3, 2.0 - 1e-7, 2.0, 2.0 + 1e-7, 2.0 + 1e-3] {
            let e = restitution_unit_normal_mass(c_d).unwrap();
            assert!((e - at_one).abs() < 2e-4, "c_d {c_d}: {e}");
        }
        // Across the cut-over at |ζ − 1| = 1e-6 (ζ moves by 2e-9, e by ~4e-10) the closed
        // forms and the series agree: no jump on either side.
        for side in [-1.0, 1.0] {
            let outside = restitution_unit_normal_mass(2.0 + side * 2.002e-6).unwrap();
            let inside = restitution_unit_normal_mass(2.0 + side * 1.998e-6).unwrap();
            assert!((outside - inside).abs() < 1e-9, "{outside} {inside}");
        }
        let zeta: f64 = 1e4;
        let e = restitution_unit_normal_mass(2.0 * zeta).unwrap();
        assert!(
            (e * 4.0 * zeta * zeta).ln().abs() < 2.0 * (2.0 * zeta).ln() / zeta,
            "{e}"
        );
        assert!(restitution_unit_normal_mass(-0.1).is_err());
        assert!(restitution_unit_normal_mass(f64::NAN).is_err());
        // Monotone: more damping, less rebound.
        let mut last = 1.0;
        for i in 1..60 {
            let e = restitution_unit_normal_mass(0.1 * f64::from(i)).unwrap();
            assert!(e < last, "c_d {}", 0.1 * f64::from(i));
            last = e;
        }
    }
}
