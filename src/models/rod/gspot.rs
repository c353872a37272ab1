//! The Painlevé rod's G-spot (Champneys–Várkonyi §2.1 and §5.1; Génot & Brogliato 1999): where
//! its leftward slip can reach p = b = 0, the coefficients of C–V's rescaled flow there
//! ([`GspotRates`]), the friction threshold μ_c above which it can, and the rigid slip itself,
//! integrated in the rescaled time where it is regular.
//!
//! Leftward slip in Zhao–Liu's notation ([`SlideCoefficients`](crate::models::rod::mechanics::SlideCoefficients), eq. (11)): ÿ_A = p F_n + b with
//! p = 1 + k c(c − μs) (their A, C–V's Painlevé parameter of this slip direction) and
//! b = θ̇²s − 1, θ̈ = P F_n with P = k(μs − c), and in slip F_n = −b/p. With dt = p ds,
//!
//! ```text
//!   dθ/ds = p θ̇,   dθ̇/ds = −P b,   du/ds = −C_ZL b + D p,   dt/ds = p,
//!   dp/ds = α₁ p,  α₁ = θ̇ ∂p/∂θ = −kθ̇(sin 2θ + μ cos 2θ),
//!   db/ds = α₂ p + α₃ b,  α₂ = θ̇³ cos θ,  α₃ = −2θ̇ sin θ · P = −2kθ̇ sin θ (μ sin θ − cos θ)
//! ```
//!
//! exactly, not only to leading order (tested against finite differences of eq. (11) below);
//! at k = 3 these are C–V's α₁, α₂ (no body torque, constant gravity) and α₃.
//!
//! At a G-spot, b = 0 gives θ̇² = 1/sin θ, and p = 0 gives μ s − c = 1/(kc), so α₃ = −2θ̇ tan θ:
//! α₃ < 0 needs θ̇ > 0, and α₁ < 0 (p decreasing) then holds at the lower end θ₁ of the
//! Painlevé interval (eq. (18)) only. α₂ = θ̇³ cos θ > 0 rules out C–V's case G2; G1 needs
//! α₁ < α₃, which with t = tan θ₁ and kμ = t + (k + 1)/t reads (t² + 1)(k + 1 − 3t²) > 0:
//! t₁ < √((k + 1)/3). As t₁ decreases with μ, the G-spot attracts slip iff
//!
//! ```text
//!   μ > μ_c = (t_c + (k + 1)/t_c)/k = 4 √(ρ(1 + ρ)/3),   t_c = √((k + 1)/3),
//! ```
//!
//! Génot–Brogliato's 8/(3√3) at ρ = 1/3, and 2/√3 times the least μ of a Painlevé paradox,
//! 2√(ρ(1 + ρ)), for every ρ.

use super::mechanics::{PainleveRod, THETA, Y_A};
use crate::error::SimError;
use crate::integrate::rk4_step;
use crate::model::gspot::GspotRates;
use crate::model::iwc::{slip_stopping_impulse, velocity_after_slip_stop};
use crate::model::ProjectedDynamics;
use serde::Serialize;

/// A state (θ, θ̇) of the rod where p = b = 0 in leftward slip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct GspotState {
    pub theta: f64,
    pub omega: f64,
}

/// C–V's α₁, α₂, α₃ of the rod's leftward slip at (θ, θ̇) (module doc).
pub(crate) fn gspot_rates(rod: &PainleveRod, mu: f64, theta: f64, omega: f64) -> GspotRates {
    let k = rod.inverse_gyration_sq();
    let (s, c) = theta.sin_cos();
    GspotRates {
        alpha1: -k * omega * ((2.0 * theta).sin() + mu * (2.0 * theta).cos()),
        alpha2: omega.powi(3) * c,
        alpha3: -2.0 * k * omega * s * (mu * s - c),
    }
}

/// The G-spot that leftward slip can approach: θ₁, the lower end of the Painlevé interval, with
/// θ̇ = 1/√(sin θ₁) > 0 (the module doc: at the upper end, or with θ̇ < 0, α₁ or α₃ is
/// positive). `None` when μ allows no Painlevé paradox.
pub(crate) fn approachable_gspot(rod: &PainleveRod, mu: f64) -> Option<GspotState> {
    let (theta, _) = rod.painleve_theta_interval(mu)?;
    Some(GspotState {
        theta,
        omega: 1.0 / theta.sin().sqrt(),
    })
}

/// Génot–Brogliato's threshold μ_c = 4√(ρ(1 + ρ)/3): above it the G-spot attracts an open set
/// of slipping states (C–V case G1), below it slip lifts off before p reaches 0.
pub(crate) fn jam_threshold_mu(rod: &PainleveRod) -> f64 {
    let rho = rod.gyration_sq;
    4.0 * (rho * (1.0 + rho) / 3.0).sqrt()
}

/// How the rigid leftward slip ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SlipEnd {
    /// p and |b| fell below the tolerance: the G-spot (dynamic jam).
    Gspot,
    /// b reached 0 with p > 0: the contact opens.
    LiftOff,
    /// u reached 0: the slip stops.
    Stick,
    /// Still slipping at the end of the rescaled window.
    Slipping,
}

/// Where the rigid slip ends.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct RigidSlip {
    pub end: SlipEnd,
    /// Physical time of the end.
    pub t: f64,
    pub theta: f64,
    pub omega: f64,
    pub u: f64,
    /// The Painlevé parameter and free normal acceleration at the end.
    pub p: f64,
    pub b: f64,
    /// ∫ F_n dt over the slip (finite at a G1 approach: the force's singularity is integrable).
    pub normal_impulse: f64,
}

/// The jump that stops the slip at the end of a rigid slip (one candidate continuation of a
/// dynamic jam, C–V §5.1: "a velocity jump immediately into stick"): the impulse |u|/k₋ of
/// sliding friction with the configuration frozen. At the G-spot p = 0, so the normal velocity
/// stays 0 (v = p·P_s) and the rod leaves the ground only if b > 0 after the jump.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct SlipStop {
    pub normal_impulse: f64,
    /// Normal velocity and spin after the jump.
    pub v_after: f64,
    pub omega_after: f64,
    /// b = θ̇²sin θ − 1 after the jump: > 0, the rod lifts off; < 0, it stays in stick.
    pub b_after: f64,
}

/// [`SlipStop`] at the end of `slip`.
pub(crate) fn slip_stop(rod: &PainleveRod, mu: f64, slip: &RigidSlip) -> SlipStop {
    let (q, qdot) = ([0.0, 0.0, slip.theta], [slip.u, 0.0, slip.omega]);
    let pd = ProjectedDynamics::at(rod, &q, &qdot);
    let after = velocity_after_slip_stop(&pd, &qdot, mu);
    SlipStop {
        normal_impulse: slip_stopping_impulse(&pd, mu),
        v_after: after[Y_A],
        omega_after: after[THETA],
        b_after: after[THETA].powi(2) * slip.theta.sin() - 1.0,
    }
}

/// The rescaled step, the window and the G-spot tolerance of [`rigid_slip`].
const RESCALED_STEP: f64 = 1e-4;
const RESCALED_WINDOW: f64 = 200.0;
const GSPOT_TOLERANCE: f64 = 1e-12;

/// The rigid leftward slip from (θ0, θ̇0, u0 < 0), integrated in the rescaled time s (dt = p ds)
/// by classical Runge–Kutta with step 1e-4 in s: regular through the force's singularity at
/// the G-spot, so its time t* is resolved to rounding. State (θ, θ̇, u, t, ∫F_n dt); ends at
/// p, |b| < 1e-12 (G-spot), b = 0 (lift-off), u = 0 (stick, both interpolated linearly within
/// the last step) or s = 200.
pub(crate) fn rigid_slip(
    rod: &PainleveRod,
    mu: f64,
    theta0: f64,
    omega0: f64,
    u0: f64,
) -> Result<RigidSlip, SimError> {
    let start = rod.slide_coefficients(mu, theta0, omega0);
    if u0 >= 0.0 {
        return Err(SimError::invalid(
            "params.u0",
            u0,
            "the G-spot study follows leftward slip (Zhao–Liu's direction): give u0 < 0",
        ));
    }
    if !(start.a > 0.0 && start.b < 0.0) {
        return Err(SimError::invalid(
            "params.theta0",
            theta0,
            &format!(
                "the slip must start pressing and consistent (p > 0, b < 0); at (theta0, omega0) p = {}, b = {}",
                start.a, start.b
            ),
        ));
    }
    // y = (θ, θ̇, u, t, ∫F_n dt); F_n dt = −b/p · p ds = −b ds.
    let rhs = |y: &[f64; 5]| -> [f64; 5] {
        let k = rod.slide_coefficients(mu, y[0], y[1]);
        [k.a * y[1], -k.p * k.b, -k.c * k.b + k.d * k.a, k.a, -k.b]
    };
    let step = |y: &[f64; 5], h: f64| rk4_step(rhs, y, h);
    let end_at = |end: SlipEnd, y: &[f64; 5]| {
        let k = rod.slide_coefficients(mu, y[0], y[1]);
        RigidSlip {
            end,
            t: y[3],
            theta: y[0],
            omega: y[1],
            u: y[2],
            p: k.a,
            b: k.b,
            normal_impulse: y[4],
        }
    };
    let mut y = [theta0, omega0, u0, 0.0, 0.0];
    let steps = (RESCALED_WINDOW / RESCALED_STEP) as usize;
    for _ in 0..steps {
        let next = step(&y, RESCALED_STEP);
        let k = rod.slide_coefficients(mu, next[0], next[1]);
        // A sign change of b (lift-off) or u (stick) within the step: interpolate linearly.
        let b_before = rod.slide_coefficients(mu, y[0], y[1]).b;
        for (end, before, after) in [
            (SlipEnd::LiftOff, b_before, k.b),
            (SlipEnd::Stick, y[2], next[2]),
        ] {
            if after >= 0.0 {
                let f = before / (before - after);
                let at: [f64; 5] = std::array::from_fn(|i| y[i] + f * (next[i] - y[i]));
                return Ok(end_at(end, &at));
            }
        }
        y = next;
        if k.a < GSPOT_TOLERANCE && k.b.abs() < GSPOT_TOLERANCE {
            return Ok(end_at(SlipEnd::Gspot, &y));
        }
    }
    Ok(end_at(SlipEnd::Slipping, &y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gspot::{GspotApproach, GspotCase};
    use crate::models::rod::mechanics::UNIFORM_GYRATION_SQ;

    /// The α's are the exact rates of the rescaled flow: at arbitrary states (not only at a
    /// G-spot) dp/ds = α₁p and db/ds = α₂p + α₃b, with the derivatives taken by central
    /// differences of Zhao–Liu's eq. (11) along (dθ/ds, dθ̇/ds) = (pθ̇, −Pb).
    #[test]
    fn rates_are_the_rescaled_flow_of_eq_11() {
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.1, 0.8] {
            let rod = PainleveRod::new(gyration_sq);
            for &(mu, theta, omega) in &[(2.0, 0.6, 1.3), (1.5, 1.1, -0.7), (3.0, 0.3, 2.2)] {
                let k = rod.slide_coefficients(mu, theta, omega);
                let (dtheta, domega) = (k.a * omega, -k.p * k.b);
                let h = 1e-6;
                let at =
                    |f: f64| rod.slide_coefficients(mu, theta + f * dtheta, omega + f * domega);
                let (plus, minus) = (at(h), at(-h));
                let dp = (plus.a - minus.a) / (2.0 * h);
                let db = (plus.b - minus.b) / (2.0 * h);
                let r = gspot_rates(&rod, mu, theta, omega);
                assert!((dp - r.alpha1 * k.a).abs() < 1e-7, "{dp}");
                assert!(
                    (db - (r.alpha2 * k.a + r.alpha3 * k.b)).abs() < 1e-7,
                    "{db}"
                );
            }
        }
    }

    /// At ρ = 1/3 the rates are C–V's printed α₁, α₃ (with m = 1, l = 2) and α₂ = θ̇³ cos θ.
    #[test]
    fn uniform_rod_rates_are_champneys_varkonyis() {
        let (mu, theta, w) = (2.0_f64, 0.7_f64, 1.1_f64);
        let r = gspot_rates(&PainleveRod::UNIFORM, mu, theta, w);
        let a1 = -3.0 * w * ((2.0 * theta).sin() + mu * (2.0 * theta).cos());
        let a3 = -6.0 * w * theta.sin() * (mu * theta.sin() - theta.cos());
        assert!((r.alpha1 - a1).abs() < 1e-14 && (r.alpha3 - a3).abs() < 1e-14);
        assert!((r.alpha2 - w.powi(3) * theta.cos()).abs() < 1e-14);
    }

    /// μ_c = 8/(3√3) for the uniform rod, 2/√3 times the Painlevé threshold for any ρ, and
    /// exactly where C–V's G1 condition α₁ < α₃ starts to hold at the approachable G-spot.
    #[test]
    fn jam_threshold_is_genot_brogliatos() {
        let uniform = jam_threshold_mu(&PainleveRod::UNIFORM);
        assert!((uniform - 8.0 / (3.0 * 3.0_f64.sqrt())).abs() < 1e-15);
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.1, 0.8] {
            let rod = PainleveRod::new(gyration_sq);
            let mu_c = jam_threshold_mu(&rod);
            let mu_p = 2.0 * (gyration_sq * (1.0 + gyration_sq)).sqrt();
            assert!((mu_c / mu_p - 2.0 / 3.0_f64.sqrt()).abs() < 1e-14);
            let g = approachable_gspot(&rod, mu_c).unwrap();
            let r = gspot_rates(&rod, mu_c, g.theta, g.omega);
            assert!((r.alpha1 - r.alpha3).abs() < 1e-9 * r.alpha1.abs());
            for (factor, reached) in [(0.99, false), (1.01, true), (1.5, true)] {
                let mu = factor * mu_c;
                let g = approachable_gspot(&rod, mu).unwrap();
                let k = rod.slide_coefficients(mu, g.theta, g.omega);
                assert!(k.a.abs() < 1e-12 && k.b.abs() < 1e-12);
                let r = gspot_rates(&rod, mu, g.theta, g.omega);
                assert!(r.alpha1 < 0.0 && r.alpha3 < 0.0 && r.alpha2 > 0.0);
                assert_eq!(
                    r.case() == GspotCase::G1,
                    reached,
                    "rho {gyration_sq}, mu {mu}: {r:?}"
                );
            }
        }
    }

    /// The rigid slip itself, started near the approachable G-spot (just below p = 0 and
    /// b = 0): above μ_c it reaches the G-spot exactly from the starts C–V's linear G1 condition
    /// admits and lifts off from the others; below μ_c every start lifts off.
    #[test]
    fn rigid_slip_reaches_the_g_spot_only_above_the_threshold() {
        let rod = PainleveRod::UNIFORM;
        let mu_c = jam_threshold_mu(&rod);
        for (mu, least_reached) in [(0.97 * mu_c, 0), (2.0, 4)] {
            let g = approachable_gspot(&rod, mu).unwrap();
            let rates = gspot_rates(&rod, mu, g.theta, g.omega);
            let mut reached = 0;
            for dtheta in [1e-3, 3e-3] {
                for domega in [1e-3, 3e-3, 1e-2] {
                    let (theta0, omega0) = (g.theta - dtheta, g.omega - domega);
                    let start = rod.slide_coefficients(mu, theta0, omega0);
                    let g1 = matches!(
                        rates.approach(start.a, start.b),
                        GspotApproach::UnboundedForce { .. }
                    );
                    let r = rigid_slip(&rod, mu, theta0, omega0, -5.0).unwrap();
                    let expected = if g1 { SlipEnd::Gspot } else { SlipEnd::LiftOff };
                    assert_eq!(r.end, expected, "mu {mu}: {r:?}");
                    if g1 {
                        assert!((r.theta - g.theta).abs() < 1e-9);
                        assert!((r.omega - g.omega).abs() < 1e-6);
                        reached += 1;
                    }
                }
            }
            assert!(reached >= least_reached && (least_reached > 0 || reached == 0));
        }
    }

    /// The slip stop at the G-spot: slip velocity 0 and normal velocity p·P_s ≈ 0 after it, the
    /// impulse |u|/C of Zhao–Liu's eq. (11) (u̇ = C F_n + D in leftward slip) and θ̇ raised by
    /// P·P_s.
    #[test]
    fn slip_stop_at_the_g_spot_is_eq_11s_impulse() {
        let rod = PainleveRod::UNIFORM;
        let g = approachable_gspot(&rod, 2.0).unwrap();
        let slip = rigid_slip(&rod, 2.0, g.theta - 1e-3, g.omega - 3e-3, -2.0).unwrap();
        let stop = slip_stop(&rod, 2.0, &slip);
        let k = rod.slide_coefficients(2.0, slip.theta, slip.omega);
        assert!((stop.normal_impulse - (-slip.u / k.c)).abs() < 1e-12);
        assert!(stop.v_after.abs() < 1e-10);
        assert!((stop.omega_after - (slip.omega + k.p * stop.normal_impulse)).abs() < 1e-12);
        assert!(stop.b_after > 0.0);
    }

    #[test]
    fn rigid_slip_refuses_rightward_or_inconsistent_starts() {
        let rod = PainleveRod::UNIFORM;
        let e = rigid_slip(&rod, 2.0, 0.3, 1.2, 1.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("u0") && !e.contains('\n'), "{e}");
        let e = rigid_slip(&rod, 2.0, 1.0, 0.0, -1.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("theta0"), "{e}");
    }
}
