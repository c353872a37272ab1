//! The impact without collision (IWC) of a planar single contact in the rigid limit κ → 0,
//! written in Champneys–Várkonyi's projected scalars `a, b, A, B, C` evaluated at the frozen
//! initial state (docs/champneys_varkonyi.md, "The fast dynamics" and "The IWC limit").
//!
//! The compliant contact is the spring–dashpot `λ_N = δ/κ + c_d δ̇/√κ` (C–V's linear law
//! (linearcontact) with k = −1, q = −c_d). In fast time `s = t/√κ` with the scaled gap
//! `Y = y/κ` and `V = dY/ds`, slip in direction σ is the linear oscillator
//! `Y'' = b + p_σ λ_N`, `λ_N = −(Y + c_d V)`; when `p_σ < 0` it is a saddle ([`SlipSaddle`]).
//! On the IWC side of its stable manifold the force grows like `e^{λs}` until the normal impulse
//! `|u0|/k_σ` stops the slip; the contact then sticks (`Y'' = K λ_N`, `K = (AC − B²)/A`) until
//! `λ_N` returns to zero, and lifts off. [`IwcLimit`] is that two-stage map in closed form.

use super::{PlanarContactSystem, ProjectedDynamics};
use serde::{Deserialize, Serialize};

/// The fast initial state of a compliant contact: the gap `y0 = κ Y0` and the normal velocity
/// `v0 = √κ V0` (C–V's ỹ = y/ε, ṽ = dỹ/dt̃ with ε = κ, t̃ = t/√κ). `Y0 < 0` is a penetration.
/// In experiment files: `{ Y0 = …, V0 = … }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastStart {
    /// `Y0 = y0/κ`.
    #[serde(rename = "Y0")]
    pub gap: f64,
    /// `V0 = v0/√κ`.
    #[serde(rename = "V0")]
    pub normal_velocity: f64,
}

impl FastStart {
    /// Touching at rest: Zhao–Liu's δ = δ̇ = 0.
    pub const REST: FastStart = FastStart {
        gap: 0.0,
        normal_velocity: 0.0,
    };

    /// `(y0, v0)` at compliance κ.
    pub fn unscaled(&self, kappa: f64) -> (f64, f64) {
        (kappa * self.gap, kappa.sqrt() * self.normal_velocity)
    }
}

/// The fast normal dynamics of a Painlevé-unstable slip (p < 0) in the contact:
/// `Y'' = b + p λ_N`, `λ_N = −(Y + c_d V)`, i.e. `ξ'' + p c_d ξ' + p ξ = 0` for `ξ = Y − Y*`
/// with the saddle at `Y* = b/p`. Its rates are the roots of `λ² + p c_d λ + p = 0`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlipSaddle {
    /// p < 0.
    pub painleve_parameter: f64,
    /// `Y* = b/p`.
    pub equilibrium_gap: f64,
    /// The positive root λ_u.
    pub unstable_rate: f64,
    /// The negative root λ_s.
    pub stable_rate: f64,
    pub damping: f64,
}

impl SlipSaddle {
    /// `None` unless `p < 0` (a stable slip has no saddle).
    pub fn new(painleve_parameter: f64, free_normal_accel: f64, damping: f64) -> Option<Self> {
        let p = painleve_parameter;
        if p >= 0.0 || !p.is_finite() {
            return None;
        }
        let (a_abs, cd) = (-p, damping);
        // λ² − |p| c_d λ − |p| = 0: λ_u + λ_s = |p| c_d, λ_u λ_s = −|p|.
        let unstable_rate = (a_abs * cd + (a_abs * a_abs * cd * cd + 4.0 * a_abs).sqrt()) / 2.0;
        Some(SlipSaddle {
            painleve_parameter: p,
            equilibrium_gap: free_normal_accel / p,
            unstable_rate,
            stable_rate: a_abs * cd - unstable_rate,
            damping,
        })
    }

    /// The amplitude α of the unstable mode in `ξ = α e^{λ_u s} + β e^{λ_s s}` from `start`:
    /// α < 0 drives Y → −∞ (the IWC side), α > 0 drives Y up to the lift-off side.
    pub fn unstable_amplitude(&self, start: FastStart) -> f64 {
        let xi = start.gap - self.equilibrium_gap;
        (start.normal_velocity - self.stable_rate * xi) / (self.unstable_rate - self.stable_rate)
    }

    /// The stable manifold through the saddle: `V = λ_s (Y − Y*)` at gap `Y`.
    pub fn stable_manifold_velocity(&self, gap: f64) -> f64 {
        self.stable_rate * (gap - self.equilibrium_gap)
    }
}

/// Why a state has no IWC limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NoIwc {
    /// u0 = 0: nothing to stop.
    NoSlip,
    /// p_σ ≥ 0: the slip is normally stable (C–V §4.2).
    StableSlip,
    /// The start lies on the lift-off side of the saddle's stable manifold (α ≥ 0).
    LiftOffSide,
    /// The stick stage is critically or over-damped (K c_d² ≥ 4): no closed form here.
    OverdampedStick,
}

/// The κ → 0 limit of an IWC from the state `(q, q̇0)` with slip velocity `u0 = cᵀq̇0 ≠ 0`,
/// frozen configuration, Coulomb μ (kinetic) and μ_s (static), damping c_d, fast start
/// (Y0, V0). Slow quantities (impulses, velocities) are O(1); durations are scaled as stated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IwcLimit<const N: usize> {
    /// σ = sign(u0).
    pub slip_sign: f64,
    /// p_σ = C − σμB < 0.
    pub painleve_parameter: f64,
    /// k_σ = μA − σB > 0.
    pub slip_coupling: f64,
    /// The slip's growth rate λ_u (fast time).
    pub slide_rate: f64,
    /// The normal impulse of the slip, P_s = |u0|/k_σ.
    pub slide_impulse: f64,
    /// The slip lasts T_slide ≈ (√κ/λ_u)(ln(1/√κ) + `slide_log_offset`).
    pub slide_log_offset: f64,
    /// K = (AC − B²)/A: normal acceleration per unit normal force in stick.
    pub stick_stiffness: f64,
    /// lim T_stick/√κ.
    pub stick_duration_scaled: f64,
    /// Normal impulse of the stick stage.
    pub stick_impulse: f64,
    /// P_s + the stick's impulse.
    pub impulse_total: f64,
    /// Outgoing slip velocity (0: the stick stage holds u = 0 to leading order).
    pub u_out: f64,
    /// Outgoing normal velocity v_out > 0.
    pub v_out: f64,
    /// Outgoing generalised velocity `q̇0 + P_s M⁻¹(d − σμc) + P_st M⁻¹(d − (B/A)c)`.
    pub qdot_out: [f64; N],
    /// The normal force F* at which the stick breaks into reverse slip at the outgoing state
    /// (the stick force `−(a + Bλ_N)/A` reaches ±μ_s λ_N); 0 when a = 0 there.
    pub stick_break_force: f64,
    /// lim T_reverse/κ = F*/v_out (the force falls through F* at the rate −v_out/√κ).
    pub reverse_slip_duration_scaled: f64,
}

impl<const N: usize> IwcLimit<N> {
    /// The limit for `sys` at `(q, q̇0)`; see [`NoIwc`] for when there is none.
    #[allow(clippy::too_many_arguments)]
    pub fn of<Sys: PlanarContactSystem<N>>(
        sys: &Sys,
        q: &[f64; N],
        qdot: &[f64; N],
        mu: f64,
        mu_s: f64,
        damping: f64,
        start: FastStart,
    ) -> Result<Self, NoIwc> {
        let pd = ProjectedDynamics::at(sys, q, qdot);
        if pd.u == 0.0 {
            return Err(NoIwc::NoSlip);
        }
        let sigma = pd.u.signum();
        let p = pd.painleve_parameter(mu, sigma);
        let saddle = SlipSaddle::new(p, pd.free_normal_accel, damping).ok_or(NoIwc::StableSlip)?;
        let alpha = saddle.unstable_amplitude(start);
        if alpha >= 0.0 {
            return Err(NoIwc::LiftOffSide);
        }
        let k = pd.slip_coupling(mu, sigma);
        let cd = damping;
        let lambda = saddle.unstable_rate;
        let p_s = slip_stopping_impulse(&pd, mu);
        // λ_N ≈ (1 + c_d λ)(−α) e^{λs}, so the impulse √κ∫λ_N ds reaches P_s at
        // s = (ln(1/√κ) + ln(P_s λ / ((1 + c_d λ)(−α))))/λ.
        let slide_log_offset = (p_s * lambda / ((1.0 + cd * lambda) * (-alpha))).ln();
        // At the slip stop, on the unstable eigenvector (η = δ/√κ, f = √κ λ_N = η + c_d η'):
        let eta_s = lambda * p_s / (1.0 + cd * lambda);
        let deta_s = lambda * eta_s;
        let kk = (pd.tangential_mobility * pd.normal_mobility
            - pd.cross_mobility * pd.cross_mobility)
            / pd.tangential_mobility;
        let stick = StickRelease::of(kk, cd, eta_s, deta_s).ok_or(NoIwc::OverdampedStick)?;
        let stick_impulse = (deta_s - stick.deta_end) / kk;
        let ratio = pd.cross_mobility / pd.tangential_mobility;
        let mut qdot_out = *qdot;
        for (i, w) in qdot_out.iter_mut().enumerate() {
            let slip_dir = pd.accel_per_normal[i] - sigma * mu * pd.accel_per_tangential[i];
            let stick_dir = pd.accel_per_normal[i] - ratio * pd.accel_per_tangential[i];
            *w += p_s * slip_dir + stick_impulse * stick_dir;
        }
        let v_out = -stick.deta_end;
        let out = ProjectedDynamics::at(sys, q, &qdot_out);
        let a_out = out.free_tangential_accel;
        let stick_break_force = if a_out == 0.0 {
            0.0
        } else {
            a_out.abs() / (mu_s * out.tangential_mobility - a_out.signum() * out.cross_mobility)
        };
        Ok(IwcLimit {
            slip_sign: sigma,
            painleve_parameter: p,
            slip_coupling: k,
            slide_rate: lambda,
            slide_impulse: p_s,
            slide_log_offset,
            stick_stiffness: kk,
            stick_duration_scaled: stick.duration,
            stick_impulse,
            impulse_total: p_s + stick_impulse,
            u_out: 0.0,
            v_out,
            qdot_out,
            stick_break_force,
            reverse_slip_duration_scaled: stick_break_force / v_out,
        })
    }

    /// Predicted T_slide at `kappa` (leading terms).
    pub fn slide_duration(&self, kappa: f64) -> f64 {
        let sk = kappa.sqrt();
        sk / self.slide_rate * ((1.0 / sk).ln() + self.slide_log_offset)
    }
}

/// The normal impulse that stops the slip of `pd` under sliding friction with the configuration
/// frozen: `P_s = |u|/k_σ` (C–V §4.2; in slip u̇ = a − σk_σλ_N, and a is negligible against the
/// impulsive force). Infinite where the slip does not decelerate (k_σ ≤ 0).
pub fn slip_stopping_impulse<const N: usize>(pd: &ProjectedDynamics<f64, N>, mu: f64) -> f64 {
    pd.u.abs() / pd.slip_coupling(mu, pd.u.signum())
}

/// The generalised velocity after the impulse [`slip_stopping_impulse`] `P_s`:
/// `q̇ + P_s M⁻¹(d − σμc)`, whose slip velocity is 0.
pub fn velocity_after_slip_stop<const N: usize>(
    pd: &ProjectedDynamics<f64, N>,
    qdot: &[f64; N],
    mu: f64,
) -> [f64; N] {
    let (sigma, p_s) = (pd.u.signum(), slip_stopping_impulse(pd, mu));
    std::array::from_fn(|i| {
        qdot[i] + p_s * (pd.accel_per_normal[i] - sigma * mu * pd.accel_per_tangential[i])
    })
}

/// The end of the stick stage `η'' = −K(η + c_d η')` from `(η_s, η'_s)`: where the force
/// `f = η + c_d η'` first returns to zero.
struct StickRelease {
    /// Fast-time duration τ.
    duration: f64,
    /// η' at the release.
    deta_end: f64,
}

impl StickRelease {
    /// Closed form for the underdamped stage (K c_d² < 4); `None` otherwise.
    fn of(kk: f64, cd: f64, eta_s: f64, deta_s: f64) -> Option<Self> {
        let alpha = kk * cd / 2.0;
        if kk <= alpha * alpha {
            return None;
        }
        let beta = (kk - alpha * alpha).sqrt();
        // η = e^{−ατ}(C1 cos βτ + C2 sin βτ); f = e^{−ατ}(F1 cos βτ + F2 sin βτ) = 0 first at
        // βτ = atan2(F2, F1) + π/2.
        let (c1, c2) = (eta_s, (deta_s + alpha * eta_s) / beta);
        let (dc1, dc2) = (-alpha * c1 + beta * c2, -alpha * c2 - beta * c1);
        let (f1, f2) = (c1 + cd * dc1, c2 + cd * dc2);
        let tau = (f2.atan2(f1) + std::f64::consts::FRAC_PI_2) / beta;
        let decay = (-alpha * tau).exp();
        Some(StickRelease {
            duration: tau,
            deta_end: decay * (dc1 * (beta * tau).cos() + dc2 * (beta * tau).sin()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The saddle's stable manifold is where α = 0, and its rates solve λ² + p c_d λ + p = 0.
    /// (The IWC limit itself is tested on C–V's constant planar system in
    /// `models/planar/mechanics.rs` and against the rod's closed forms in `models/rod/limit.rs`.)
    #[test]
    fn stable_manifold_is_where_the_unstable_amplitude_vanishes() {
        let s = SlipSaddle::new(-0.6, 1.0, 1.0).unwrap();
        for r in [s.unstable_rate, s.stable_rate] {
            assert!((r * r - 0.6 * r - 0.6).abs() < 1e-14);
        }
        for y in [-5.0, -1.0, 0.0, 2.0] {
            let v = s.stable_manifold_velocity(y);
            let start = FastStart {
                gap: y,
                normal_velocity: v,
            };
            assert!(s.unstable_amplitude(start).abs() < 1e-14);
        }
        // From rest with b > 0 the start is on the lift-off side, deeper on the IWC side.
        assert!(s.unstable_amplitude(FastStart::REST) > 0.0);
        let deep = FastStart {
            gap: -2.0,
            normal_velocity: 0.0,
        };
        assert!(s.unstable_amplitude(deep) < 0.0);
        assert!(SlipSaddle::new(0.3, 1.0, 1.0).is_none());
    }
}
