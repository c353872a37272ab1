//! Spatial Coulomb friction (D = 1 or 2 tangential directions): the pieces the rigid and the
//! compliant spatial formulations share (docs/klarbring.md, "Spatial Coulomb contact").
//!
//! A slide carries its slip direction ê in the state: the slide field needs V̂_T = V_T/|V_T|,
//! which is undefined when a slip starts from V_T = 0 (after a stick-break or a stop), so the
//! transition stores the onset direction (g_T/|g_T| at the onset instant) and the field uses it
//! while V_T = 0. With one tangent ê = ±1 is the slip sign and the slide field is smooth past
//! V_T = 0, so a stop is the signed crossing of ê·V_T. With two tangents no continuation of the
//! slide field past r = |V_T| = 0 exists (V̂ turns toward g at a rate ∝ 1/r), so the stop is
//! located on r itself, where ṙ = V̂·V̇_T < 0: the stop function r + min(ṙ, 0)·τ_stop crosses
//! zero [`STOP_LEAD_TIME`] before r would, never integrating the slide field past r = 0; the
//! stop time is then r/(−ṙ) later ([`stop_delay`]).

use crate::hybrid::Named;
use crate::model::jet::{flow_jet, Jet};
use crate::model::Real;
use serde::{Deserialize, Serialize};

/// The modes of a spatial frictional contact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConeMode {
    /// Contact open (compliant) or not active (rigid): no contact force.
    #[default]
    Free,
    /// V_T = 0, held by the tangential force that keeps it so, while |λ_T| ≤ μ λ_N.
    Stick,
    /// V_T ≠ 0 (or starting from 0 along the stored direction ê): λ_T = −μ λ_N V̂_T.
    Slide,
}

impl ConeMode {
    pub fn name(&self) -> &'static str {
        match self {
            ConeMode::Free => "free",
            ConeMode::Stick => "stick",
            ConeMode::Slide => "slide",
        }
    }
    pub fn is_contact(&self) -> bool {
        !matches!(self, ConeMode::Free)
    }
}

impl Named for ConeMode {
    fn name(&self) -> &'static str {
        ConeMode::name(self)
    }
}

/// How long before r = |V_T| reaches 0 a two-tangent stop is declared (the stop function's
/// lead). Long enough that the stop radius |ṙ|·τ_stop stands above the dense output's error
/// (about atol = 1e-12 … 1e-10 on V_T near the stop), short enough that the reset V_T = 0 moves
/// the trajectory by at most |ṙ|τ_stop²/2 ≈ 1e-18 in position; the stop time reported is
/// corrected by [`stop_delay`].
pub const STOP_LEAD_TIME: f64 = 1e-11;

/// The slip speed a two-tangent slide starts with, along its onset direction ê. A slide from
/// V_T = 0 is singular (BB §3.2, case 3): the direction of V_T relaxes to its slow manifold at
/// the rate μN/r, infinite at r = 0 (with r ≈ c s²/2 after a stick-break, the watched onset of
/// BB's eq. (8) with γ = 0). Starting at r = SLIP_SEED bounds that stiffness by μN/SLIP_SEED,
/// which an L-stable integrator steps through, and moves the trajectory by at most
/// SLIP_SEED·t (about 1e-11 over a run). With one tangent the slide is regular and starts from 0.
pub const SLIP_SEED: f64 = 1e-9;

/// Whether V_T = 0 exactly: the slide then slips along its stored direction ê.
fn starting<S: Real, const D: usize>(v: &[S; D]) -> bool {
    (0..D).all(|j| v[j].value() == 0.0)
}

/// The slip speed: ê·V_T with one tangent (signed: it changes sign at a stop), |V_T| with two
/// (ê·V_T when V_T = 0, where the norm has no derivative).
pub fn slip_speed<S: Real, const D: usize>(v: &[S; D], e: &[f64; D]) -> S {
    let along = (0..D).fold(S::zero(), |s, j| s + v[j].scale(e[j]));
    if D == 1 || starting(v) {
        return along;
    }
    (0..D).fold(S::zero(), |s, j| s + v[j] * v[j]).sqrt()
}

/// The slip direction V̂_T: ê with one tangent, V_T/|V_T| with two (ê when V_T = 0).
pub fn slip_unit<S: Real, const D: usize>(v: &[S; D], e: &[f64; D]) -> [S; D] {
    if D == 1 || starting(v) {
        return e.map(S::cst);
    }
    let r = slip_speed(v, e);
    std::array::from_fn(|j| v[j] / r)
}

/// The stop function of a slide: the slip speed itself with one tangent; with two,
/// r + min(ṙ, 0)·[`STOP_LEAD_TIME`], `rate` = ṙ = V̂·V̇_T.
pub fn stop_function<S: Real, const D: usize>(speed: S, rate: S) -> S {
    if D == 1 || rate.value() >= 0.0 {
        speed
    } else {
        speed + rate.scale(STOP_LEAD_TIME)
    }
}

/// The time from a located stop to r = 0 by linear extrapolation, r/(−ṙ) (0 with one tangent,
/// whose stop is located on r = 0 itself).
pub fn stop_delay<const D: usize>(speed: f64, rate: f64) -> f64 {
    if D == 1 || rate >= 0.0 {
        0.0
    } else {
        speed / -rate
    }
}

/// The unit vector along `v`, or `None` when it vanishes.
pub fn unit<const D: usize>(v: &[f64; D]) -> Option<[f64; D]> {
    let r = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    (r > 0.0).then(|| v.map(|x| x / r))
}

/// Order of the Taylor expansions that choose the mode at rest.
pub const TAYLOR_ORDER: usize = 8;

/// The mode of a contact at rest in the tangent (V_T = 0) at `y`, chosen on (t₀, t₀ + η) by
/// the leading Taylor coefficients along the stick flow `stick_field` of the contact forces
/// `stick_forces(y) = [λ_N, λ_T…]` (docs/klarbring.md, "Mode after a start or a stop"; BB
/// Prop. 3.5 cases 2, 3): free if λ_N's is negative (or λ_N vanishes to every order), stick if
/// the cone margin μ²λ_N² − ‖λ_T‖²'s is positive or it vanishes to every order, else a slide
/// along −λ_T's leading term (g_T/|g_T| at the onset instant). `fallback` is the direction
/// returned when none is defined.
pub fn mode_at_rest<const D: usize>(
    y: &[f64],
    mu: f64,
    stick_field: impl Fn(&[Jet<TAYLOR_ORDER>], &mut [Jet<TAYLOR_ORDER>]),
    stick_forces: impl Fn(&[Jet<TAYLOR_ORDER>]) -> Vec<Jet<TAYLOR_ORDER>>,
    fallback: [f64; D],
) -> (ConeMode, [f64; D]) {
    let jets = flow_jet::<TAYLOR_ORDER>(y, stick_field);
    let forces = stick_forces(&jets);
    let scale = forces.iter().map(|f| f.c[0].abs()).fold(1.0, f64::max);
    let tol = 1e-12 * scale;
    match forces[0].leading(tol) {
        Some((_, c)) if c > 0.0 => {}
        _ => return (ConeMode::Free, fallback),
    }
    let margin = cone_margin(mu, &forces);
    match margin.leading(tol * scale) {
        Some((_, c)) if c < 0.0 => {
            let onset = (0..TAYLOR_ORDER).find_map(|k| {
                let v: [f64; D] = std::array::from_fn(|j| -forces[1 + j].c[k]);
                (v.iter().map(|x| x.abs()).fold(0.0, f64::max) > tol)
                    .then(|| unit(&v))
                    .flatten()
            });
            (ConeMode::Slide, onset.unwrap_or(fallback))
        }
        _ => (ConeMode::Stick, fallback),
    }
}

/// μ²λ_N|λ_N| − ‖λ_T‖² of the forces `[λ_N, λ_T…]`: positive inside the friction cone and
/// negative outside it, also for λ_N < 0. With λ_N² instead the margin turned positive again
/// past λ_N = 0, so a stick-break followed by the opening within one scan interval (the end
/// of a compliant impact that sticks: the break comes O(κ) before F_n = 0) was a dip the scan
/// missed, and the run opened in stick (docs/klarbring.md, "One impact").
pub fn cone_margin<S: Real>(mu: f64, forces: &[S]) -> S {
    let t2 = forces[1..].iter().fold(S::zero(), |s, &f| s + f * f);
    let n2 = forces[0] * forces[0];
    let signed = if forces[0].value() < 0.0 { -n2 } else { n2 };
    signed.scale(mu * mu) - t2
}

/// Solve `A x = b` (A symmetric positive definite, n ≤ 3, row-major) by Gaussian elimination:
/// the stick forces of the Delassus system.
pub fn solve_spd<S: Real>(a: &[S], b: &[S]) -> Vec<S> {
    let n = b.len();
    let mut m: Vec<S> = a.to_vec();
    let mut x: Vec<S> = b.to_vec();
    for k in 0..n {
        for i in k + 1..n {
            let f = m[i * n + k] / m[k * n + k];
            for j in k..n {
                m[i * n + j] = m[i * n + j] - f * m[k * n + j];
            }
            x[i] = x[i] - f * x[k];
        }
    }
    for k in (0..n).rev() {
        let mut s = x[k];
        for j in k + 1..n {
            s = s - m[k * n + j] * x[j];
        }
        x[k] = s / m[k * n + k];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_spd_inverts_a_small_system() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let b = [1.0, -2.0, 0.5];
        let x = solve_spd(&a, &b);
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum::<f64>() - b[i];
            assert!(r.abs() < 1e-15);
        }
    }

    /// Outside the cone whenever the normal force pulls: a crossing of λ_N through 0 cannot
    /// turn the margin positive again.
    #[test]
    fn cone_margin_is_negative_for_a_pulling_normal_force() {
        assert!(cone_margin(0.5, &[2.0, 0.6, 0.0]) > 0.0);
        assert!(cone_margin(0.5, &[2.0, 1.2, 0.0]) < 0.0);
        assert!(cone_margin(0.5, &[-3.0, 0.1, 0.0]) < 0.0);
        assert!(cone_margin(0.5, &[-3.0, 0.0]) < 0.0);
    }

    #[test]
    fn slip_speed_is_signed_with_one_tangent_and_a_norm_with_two() {
        assert_eq!(slip_speed(&[-0.5], &[1.0]), -0.5);
        assert_eq!(slip_speed(&[3.0, 4.0], &[1.0, 0.0]), 5.0);
        assert_eq!(slip_unit(&[0.0, 0.0], &[0.6, 0.8]), [0.6, 0.8]);
        let r = 3.0 * STOP_LEAD_TIME;
        assert!((stop_function::<f64, 2>(r, -2.0) - STOP_LEAD_TIME).abs() < 1e-24);
        assert!((stop_delay::<2>(r, -2.0) - 1.5 * STOP_LEAD_TIME).abs() < 1e-24);
        assert_eq!(stop_function::<f64, 1>(-0.5, -2.0), -0.5);
    }
}
