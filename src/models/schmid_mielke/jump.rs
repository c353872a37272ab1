//! The ε → 0 jump of §4.1 (docs/schmid_mielke.md, "The frozen-load jump"): with the load frozen
//! at f₁* = f₁(t₂) = 2H₁₁ + σ*μ₀, the unit mass leaves the equilibrium z₁ = 2 with a vanishing
//! forward speed,
//!
//! ```text
//!   z̈ = f₁* − H₁₁z − σ*μ(z) − νż      (ż > 0),   ν = 2ζ√H₁₁,
//! ```
//!
//! and stops where ż first returns to 0. On the ramp the force is k(z − 2), k = σ*Δμ − H₁₁ > 0
//! (supercritical): the path is the unstable manifold ż = λ(z − 2), λ = (−ν + √(ν² + 4k))/2, so
//! it reaches z = 3 with speed λ. Beyond, ÿ + νẏ + H₁₁y = 0 for y = z − z₁*: a damped oscillator
//! (damping ratio ζ) from y = 3 − z₁* < 0 with ẏ = λ. All in closed form.

use super::examples::{VaryingFriction, RAMP};
use serde::Serialize;

/// Where and how the frozen-load jump ends.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FrozenLanding {
    pub zeta: f64,
    /// λ: the growth rate of the unstable equilibrium z₁ = 2 on the ramp.
    pub ramp_rate: f64,
    /// The speed at the end of the ramp, λ·(3 − 2).
    pub ramp_exit_speed: f64,
    /// The first z > 2 where ż = 0; z₁* when the motion only creeps up to it (no overshoot).
    pub landing: f64,
    /// landing − z₁*: the height above the μ₁ branch at t₂.
    pub excursion: f64,
    /// Whether friction holds the particle there: f₁* − H₁₁·landing ≥ −σ*μ₁.
    pub sticks: bool,
    /// E(2) − E(landing) at frozen load, E(z) = ½H₁₁z² − f₁*z.
    pub released: f64,
    /// σ*∫₂^landing μ: the Coulomb dissipation along the way.
    pub friction: f64,
    /// released − friction: the viscous dissipation (no kinetic energy at either end).
    pub viscous: f64,
}

/// The frozen-load jump of a supercritical §4.1 case (`None` otherwise).
pub fn frozen_load_landing(p: &VaryingFriction, zeta: f64) -> Option<FrozenLanding> {
    let k = p.sigma_star * (p.mu0 - p.mu1) - p.h11;
    if k <= 0.0 || zeta < 0.0 {
        return None;
    }
    let omega = p.h11.sqrt();
    let nu = 2.0 * zeta * omega;
    let lambda = 0.5 * (-nu + (nu * nu + 4.0 * k).sqrt());
    let length = RAMP.1 - RAMP.0;
    let v0 = lambda * length;
    let target = RAMP.0 + p.sigma_star * (p.mu0 - p.mu1) / p.h11;
    let y0 = RAMP.1 - target;
    let overshoot = oscillator_first_stop(omega, zeta, y0, v0);
    let landing = target + overshoot.unwrap_or(0.0);
    let f1 = 2.0 * p.h11 + p.sigma_star * p.mu0;
    let energy = |z: f64| 0.5 * p.h11 * z * z - f1 * z;
    let problem = super::examples::Example::VaryingFriction(*p).problem();
    let released = energy(RAMP.0) - energy(landing);
    let friction = p.sigma_star * problem.friction.integral(RAMP.0, landing);
    Some(FrozenLanding {
        zeta,
        ramp_rate: lambda,
        ramp_exit_speed: v0,
        landing,
        excursion: landing - target,
        sticks: f1 - p.h11 * landing >= -p.sigma_star * p.mu1,
        released,
        friction,
        viscous: released - friction,
    })
}

/// ÿ + 2ζωẏ + ω²y = 0 from (y0, v0) with v0 > 0: y at the first τ > 0 where ẏ = 0, or `None`
/// when ẏ stays positive (the motion creeps up to y = 0).
fn oscillator_first_stop(omega: f64, zeta: f64, y0: f64, v0: f64) -> Option<f64> {
    let gamma = zeta * omega;
    if zeta < 1.0 {
        // y = e^{−γτ}(A cos ω_d τ + B sin ω_d τ); ẏ ∝ C cos θ + D sin θ with C = v0 > 0.
        let wd = omega * (1.0 - zeta * zeta).sqrt();
        let (a, b) = (y0, (v0 + gamma * y0) / wd);
        let (c, d) = (v0, -wd * a - gamma * b);
        let theta = std::f64::consts::FRAC_PI_2 + (d / c).atan();
        let tau = theta / wd;
        Some((-gamma * tau).exp() * (a * theta.cos() + b * theta.sin()))
    } else if zeta == 1.0 {
        // y = (A + Bτ)e^{−ωτ}; ẏ = 0 at τ = 1/ω − A/B when B > 0.
        let (a, b) = (y0, v0 + omega * y0);
        (b > 0.0).then(|| {
            let tau = 1.0 / omega - a / b;
            (a + b * tau) * (-omega * tau).exp()
        })
    } else {
        let root = (gamma * gamma - omega * omega).sqrt();
        let (r1, r2) = (-gamma + root, -gamma - root);
        let c1 = (v0 - r2 * y0) / (r1 - r2);
        let c2 = y0 - c1;
        // ẏ = c1 r1 e^{r1 τ} + c2 r2 e^{r2 τ} = 0 ⇔ e^{(r1 − r2)τ} = −c2 r2/(c1 r1).
        let ratio = -c2 * r2 / (c1 * r1);
        (ratio > 1.0).then(|| {
            let tau = ratio.ln() / (r1 - r2);
            c1 * (r1 * tau).exp() + c2 * (r2 * tau).exp()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::models::schmid_mielke::closed_form::tests::example1;
    use crate::models::schmid_mielke::examples::Example;

    fn case(h11: f64) -> VaryingFriction {
        match example1(h11) {
            Example::VaryingFriction(p) => p,
            other => unreachable!("{other:?}"),
        }
    }

    /// Integrate z̈ = f₁* − H₁₁z − σ*μ(z) − νż by RK4 from z = 2 + 1e-9 on the unstable
    /// manifold to the first ż = 0 (or a long time), accumulating the friction and viscous work.
    fn integrate(p: &VaryingFriction, zeta: f64) -> (f64, f64, f64) {
        let problem = super::super::examples::Example::VaryingFriction(*p).problem();
        let f1 = 2.0 * p.h11 + p.sigma_star * p.mu0;
        let nu = 2.0 * zeta * p.h11.sqrt();
        let k = p.sigma_star * (p.mu0 - p.mu1) - p.h11;
        let lambda = 0.5 * (-nu + (nu * nu + 4.0 * k).sqrt());
        let accel =
            |z: f64, v: f64| f1 - p.h11 * z - p.sigma_star * problem.friction.at(z) - nu * v;
        let (mut z, mut v) = (2.0 + 1e-9, 1e-9 * lambda);
        let (mut friction, mut viscous) = (0.0, 0.0);
        let dt = 1e-4;
        for _ in 0..20_000_000 {
            let (k1z, k1v) = (v, accel(z, v));
            let (k2z, k2v) = (
                v + 0.5 * dt * k1v,
                accel(z + 0.5 * dt * k1z, v + 0.5 * dt * k1v),
            );
            let (k3z, k3v) = (
                v + 0.5 * dt * k2v,
                accel(z + 0.5 * dt * k2z, v + 0.5 * dt * k2v),
            );
            let (k4z, k4v) = (v + dt * k3v, accel(z + dt * k3z, v + dt * k3v));
            let zn = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z);
            let vn = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
            friction += p.sigma_star * problem.friction.at(0.5 * (z + zn)) * (zn - z);
            viscous += nu * (0.5 * (v + vn)).powi(2) * dt;
            if vn <= 0.0 {
                // The stop inside the step, by linear interpolation of v.
                let x = v / (v - vn);
                return (z + x * (zn - z), friction, viscous);
            }
            if v < 1e-12 && z > 3.0 {
                break;
            }
            (z, v) = (zn, vn);
        }
        (z, friction, viscous)
    }

    /// The closed form against an independent RK4 integration, for under-, critically and
    /// over-damped motion beyond the ramp.
    #[test]
    fn landing_matches_a_direct_integration() {
        for zeta in [0.25, 0.5, 1.0, 2.0] {
            let p = case(0.3);
            let l = frozen_load_landing(&p, zeta).unwrap();
            let (z, friction, viscous) = integrate(&p, zeta);
            assert!((l.landing - z).abs() < 2e-5, "ζ {zeta}: {l:?} vs {z}");
            assert!(
                (l.friction - friction).abs() < 2e-5,
                "ζ {zeta}: {l:?} vs {friction}"
            );
            assert!(
                (l.viscous - viscous).abs() < 2e-5,
                "ζ {zeta}: {l:?} vs {viscous}"
            );
            assert!(l.sticks);
        }
        // Underdamped: an overshoot above z₁*; ζ ≥ 1 here: none (the exit speed is too small).
        let target = 2.0 + 0.4 / 0.3;
        assert!(frozen_load_landing(&case(0.3), 0.5).unwrap().landing > target + 0.05);
        assert_eq!(frozen_load_landing(&case(0.3), 2.0).unwrap().excursion, 0.0);
        assert!(frozen_load_landing(&case(0.5), 0.5).is_none());
    }
}
