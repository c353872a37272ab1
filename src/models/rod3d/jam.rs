//! The 3D rod's rigid slip and its dynamic jam (Champneys–Várkonyi §7.2): the slip from a
//! pressing, consistent state (p > 0, b < 0) integrated in C–V's rescaled time dt = p ds, where
//! it is regular through λ_N = −b/p → ∞, until p crosses 0 with b < 0 (the jam, away from the
//! G-spot), b reaches 0 (lift-off) or the slip stops.
//!
//! In slip along ê = u/|u|, λ = (λ_N, −μλ_N ê) with λ_N = −b/p (b, p from the Delassus
//! projection of [`SpatialRod`], not from the closed forms of [`super::painleve`], which the
//! tests hold them against). Multiplying by p, with y = (q, q̇, t, ∫λ_N dt):
//!
//! ```text
//!   dq/ds = p q̇,   dq̇/ds = M⁻¹(p f + Jᵀ(−b, μ b ê)),   dt/ds = p,   d(∫λ_N dt)/ds = −b.
//! ```

use super::mechanics::{SpatialRod, PSI, THETA};
use crate::error::SimError;
use crate::integrate::rk4_step;
use crate::model::{
    cholesky, cholesky_solve, generalized_accel, ContactSystem, Delassus, Mechanics,
};
use serde::Serialize;

/// How the rigid slip ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SlipEnd {
    /// p crossed 0 with b < 0: λ_N → ∞ at a finite time, the dynamic jam.
    Jam,
    /// b reached 0 with p > 0: the contact opens.
    LiftOff,
    /// The slip speed reached 0.
    Stick,
    /// Still slipping at the end of the rescaled window.
    Slipping,
}

/// One state of the rigid slip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct SlipState {
    pub t: f64,
    pub theta: f64,
    pub psi: f64,
    /// Slip direction relative to the rod's vertical plane, Δ = φ − ψ.
    pub slip_angle: f64,
    pub speed: f64,
    pub p: f64,
    pub b: f64,
    /// ∫λ_N dt from the start.
    pub normal_impulse: f64,
}

/// The rigid slip: how it ends, its last state and the states along it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RigidSlip {
    pub end: SlipEnd,
    pub last: SlipState,
    /// dp/ds over the last step (at a jam: the crossing rate, [`super::painleve::crossing_rate`]).
    pub dp_ds: f64,
    /// States every [`PATH_STRIDE`] steps and the last.
    pub path: Vec<SlipState>,
}

/// The rescaled step, window and path stride of [`rigid_slip`].
const RESCALED_STEP: f64 = 1e-5;
const RESCALED_WINDOW: f64 = 20.0;
pub(crate) const PATH_STRIDE: usize = 2;
/// A slip speed below this (relative to the unit velocity √(gl)) is rest.
const SPEED_FLOOR: f64 = 1e-12;

/// The slip's (p, b, ê, |u|, Δ) at a state y = (q, q̇, …).
struct Slip {
    p: f64,
    b: f64,
    e: [f64; 2],
    speed: f64,
}

fn slip_at(rod: &SpatialRod, mu: f64, y: &[f64]) -> Slip {
    let q: [f64; 5] = std::array::from_fn(|i| y[i]);
    let qdot: [f64; 5] = std::array::from_fn(|i| y[5 + i]);
    let d: Delassus<f64, 2, 1> = Delassus::at_time(rod, 0.0, &q, &qdot);
    let [fr] = rod.contact_frames(&q, &qdot);
    let u: [f64; 2] = std::array::from_fn(|j| (0..5).map(|i| fr.tangents[j][i] * qdot[i]).sum());
    let speed = u[0].hypot(u[1]);
    let e = u.map(|x| x / speed);
    Slip {
        p: d.entry(0, 0, 0, 0) - mu * (d.entry(0, 0, 0, 1) * e[0] + d.entry(0, 0, 0, 2) * e[1]),
        b: d.free_all[0],
        e,
        speed,
    }
}

fn state_of(rod: &SpatialRod, mu: f64, y: &[f64]) -> SlipState {
    let s = slip_at(rod, mu, y);
    let phi = s.e[1].atan2(s.e[0]);
    let rel = phi - y[PSI];
    SlipState {
        t: y[10],
        theta: y[THETA],
        psi: y[PSI],
        slip_angle: rel.sin().atan2(rel.cos()),
        speed: s.speed,
        p: s.p,
        b: s.b,
        normal_impulse: y[11],
    }
}

/// dy/ds of the module doc.
fn rescaled_field(rod: &SpatialRod, mu: f64, y: &[f64; 12]) -> [f64; 12] {
    let s = slip_at(rod, mu, y);
    let q: [f64; 5] = std::array::from_fn(|i| y[i]);
    let qdot: [f64; 5] = std::array::from_fn(|i| y[5 + i]);
    let forces = [-s.b, mu * s.b * s.e[0], mu * s.b * s.e[1]];
    // M⁻¹(f + Jᵀλ̃) + (p − 1)M⁻¹f = M⁻¹(p f + Jᵀλ̃).
    let with_contact = generalized_accel(rod, 0.0, &q, &qdot, &forces);
    let free = cholesky_solve(
        &cholesky(&rod.mass_matrix(&q)),
        &rod.generalized_force(&q, &qdot),
    );
    let mut dy = [0.0; 12];
    for i in 0..5 {
        dy[i] = s.p * qdot[i];
        dy[5 + i] = with_contact[i] + (s.p - 1.0) * free[i];
    }
    dy[10] = s.p;
    dy[11] = -s.b;
    dy
}

/// The start's slip, refused unless it slips (|u| > 0) pressing and consistently (p > 0,
/// b < 0): what [`rigid_slip`] needs, checked without running it.
fn check_start(rod: &SpatialRod, mu: f64, y: &[f64]) -> Result<Slip, SimError> {
    let start = slip_at(rod, mu, y);
    if start.speed.is_nan() || start.speed <= SPEED_FLOOR {
        return Err(SimError::invalid(
            "params.speed0",
            start.speed,
            "the rigid slip needs a slipping start: give speed0 > 0",
        ));
    }
    if !(start.p > 0.0 && start.b < 0.0) {
        return Err(SimError::invalid(
            "params.slip_angle0",
            start.p,
            &format!(
                "the slip must start pressing and consistent (p > 0, b < 0); at the start p = {}, b = {}",
                start.p, start.b
            ),
        ));
    }
    Ok(start)
}

/// `check_start` of (q0, q̇0).
pub(crate) fn check_slip_start(
    rod: &SpatialRod,
    mu: f64,
    q0: &[f64; 5],
    qdot0: &[f64; 5],
) -> Result<(), SimError> {
    let mut y = [0.0; 10];
    y[..5].copy_from_slice(q0);
    y[5..].copy_from_slice(qdot0);
    check_start(rod, mu, &y).map(|_| ())
}

/// The rigid slip of `rod` from (q0, q̇0), by classical Runge–Kutta with step 1e-5 in s over
/// s ≤ 20 and t ≤ `t_max`: ends at p = 0 (jam) or b = 0 (lift-off), located within the last
/// step by secant iteration on the step's length, or at a reversal of the slip direction within
/// a step (stick).
pub(crate) fn rigid_slip(
    rod: &SpatialRod,
    mu: f64,
    q0: &[f64; 5],
    qdot0: &[f64; 5],
    t_max: f64,
) -> Result<RigidSlip, SimError> {
    let mut y = [0.0; 12];
    y[..5].copy_from_slice(q0);
    y[5..10].copy_from_slice(qdot0);
    let start = check_start(rod, mu, &y)?;
    let step = |y: &[f64; 12], h: f64| rk4_step(|y| rescaled_field(rod, mu, y), y, h);
    let mut path = vec![state_of(rod, mu, &y)];
    let steps = (RESCALED_WINDOW / RESCALED_STEP) as usize;
    let mut before = start;
    for n in 0..steps {
        let next = step(&y, RESCALED_STEP);
        let after = slip_at(rod, mu, &next);
        let dp_ds = (after.p - before.p) / RESCALED_STEP;
        let reversed = before.e[0] * after.e[0] + before.e[1] * after.e[1] < 0.0;
        for (end, from, to) in [
            (SlipEnd::Jam, before.p, after.p),
            (SlipEnd::LiftOff, -before.b, -after.b),
        ] {
            if to <= 0.0 {
                let value = |at: &[f64; 12]| {
                    let s = slip_at(rod, mu, at);
                    if end == SlipEnd::Jam {
                        s.p
                    } else {
                        -s.b
                    }
                };
                // Secant iteration on the fraction f of the step where the value is 0.
                let (mut f0, mut v0, mut f1, mut v1) = (0.0, from, 1.0, to);
                let mut at = next;
                for _ in 0..8 {
                    if v1 == v0 {
                        break;
                    }
                    let f = f1 - v1 * (f1 - f0) / (v1 - v0);
                    at = step(&y, f * RESCALED_STEP);
                    (f0, v0, f1, v1) = (f1, v1, f, value(&at));
                }
                let last = state_of(rod, mu, &at);
                path.push(last);
                return Ok(RigidSlip {
                    end,
                    last,
                    dp_ds,
                    path,
                });
            }
        }
        if reversed || after.speed.is_nan() || after.speed <= 0.0 {
            let last = state_of(rod, mu, &y);
            path.push(last);
            return Ok(RigidSlip {
                end: SlipEnd::Stick,
                last,
                dp_ds,
                path,
            });
        }
        y = next;
        before = after;
        if y[10] > t_max {
            break;
        }
        if (n + 1) % PATH_STRIDE == 0 {
            path.push(state_of(rod, mu, &y));
        }
    }
    let last = state_of(rod, mu, &y);
    path.push(last);
    Ok(RigidSlip {
        end: SlipEnd::Slipping,
        last,
        dp_ds: f64::NAN,
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::super::painleve::{crossing_rate, painleve_parameter};
    use super::*;

    fn start(rod: &SpatialRod, theta: f64, slip_angle: f64, speed: f64) -> ([f64; 5], [f64; 5]) {
        let psi = 0.3;
        let phi = psi + slip_angle;
        rod.state_with_contact_point(
            0.0,
            (theta, psi),
            (0.2, -0.1),
            [speed * phi.cos(), speed * phi.sin()],
            0.0,
        )
    }

    /// The fig. 3Drod rod (ρ = 0.01, μ = 1), slipping obliquely outside the Painlevé range:
    /// p falls to 0 with b < 0 (not the G-spot) at a finite time, at the closed-form rate
    /// dp/ds = μk² sθcθ sin²Δ(sθcθ + μc²θ cos Δ) b/|u|, and p² = 2R(t* − t) on the approach
    /// (λ_N ∝ (t* − t)^{−1/2}); the projection's p and b are the closed forms along the way.
    #[test]
    fn oblique_slip_jams_transversally_away_from_the_g_spot() {
        let rod = SpatialRod { gyration_sq: 0.01 };
        let mu = 1.0;
        let (q, qdot) = start(&rod, 1.0, 1.0, 3.0);
        let r = rigid_slip(&rod, mu, &q, &qdot, 2.0).unwrap();
        assert_eq!(r.end, SlipEnd::Jam, "{:?}", r.last);
        let l = r.last;
        assert!(l.p.abs() < 1e-12 && l.b < -0.1, "{l:?}");
        assert!(l.slip_angle.abs() > 0.05 && l.speed > 0.1, "{l:?}");
        let rate = crossing_rate(rod.gyration_sq, mu, l.theta, l.slip_angle, l.b, l.speed);
        assert!(rate < 0.0);
        assert!((r.dp_ds / rate - 1.0).abs() < 1e-3, "{} {rate}", r.dp_ds);
        for s in &r.path {
            let p = painleve_parameter(rod.gyration_sq, mu, s.theta, s.slip_angle);
            assert!((p - s.p).abs() < 1e-9 * s.p.abs().max(1.0));
        }
        // p² ≈ 2R(t* − t) close to the crossing.
        let near: Vec<&SlipState> = r
            .path
            .iter()
            .filter(|s| s.p > 0.0 && s.p < 0.02 * r.path[0].p)
            .collect();
        assert!(near.len() >= 3, "{}", near.len());
        for s in near.iter().rev().take(3) {
            let ratio = s.p * s.p / (2.0 * -rate * (l.t - s.t));
            assert!((ratio - 1.0).abs() < 0.02, "{ratio}");
        }
    }

    /// Planar slip (Δ = 0, ψ̇ = 0) never leaves the rod's vertical plane: Δ and ψ stay 0 and
    /// 0.3 to rounding (C–V §5.1: there p = 0 is reached only through the G-spot).
    #[test]
    fn planar_slip_stays_planar() {
        let rod = SpatialRod { gyration_sq: 0.01 };
        let psi = 0.3_f64;
        let (q, qdot) = rod.state_with_contact_point(
            0.0,
            (0.4, psi),
            (0.2, 0.0),
            [2.0 * psi.cos(), 2.0 * psi.sin()],
            0.0,
        );
        let r = rigid_slip(&rod, 1.0, &q, &qdot, 1.0).unwrap();
        assert!(r.path.len() > 3, "{:?}", r.end);
        assert!(r
            .path
            .iter()
            .all(|s| s.slip_angle.abs() < 1e-9 && (s.psi - psi).abs() < 1e-9));
    }

    #[test]
    fn refuses_an_inconsistent_or_resting_start() {
        let rod = SpatialRod { gyration_sq: 0.01 };
        let (q, qdot) = start(&rod, 1.0, 0.0, 1.0);
        let e = rigid_slip(&rod, 1.0, &q, &qdot, 2.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("slip_angle0") && !e.contains('\n'), "{e}");
        let (q, qdot) = start(&rod, 1.0, 1.0, 0.0);
        let e = rigid_slip(&rod, 1.0, &q, &qdot, 2.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("speed0"), "{e}");
    }
}
