//! The published bounds on the phase durations of the tangential impact (Zhao, Liu, Chen &
//! Brogliato 2015), with their constants chosen from the initial state.
//!
//! Slide (first slip phase, duration ε_ẋA):
//!
//! ```text
//!   (33)  ε > (1/ω_r) ln(2 M2 ω_r |u0| / (C̄ η2)),              ω_r = √(M2/κ),
//!   (31)  ε < 1/ω_l + √(4 M1 |u0| / (C̲ η1 ω_l) + 1/ω_l²),      ω_l = √(M1/κ),
//! ```
//!
//! both claimed "for all κ < κ1" with κ1 unspecified. The constants bound the slide coefficients
//! over the slide (eq. 19): −M2 ≤ A(t) ≤ −M1 < 0, −η2 ≤ B(t) ≤ −η1 < 0, and, by eq. (20),
//! C̲ = μ + (M1 + 1) tan θ_lo ≤ C(t) ≤ μ + (M2 + 1) tan θ_hi = C̄ (C = μ + (1 − A) tan θ).
//!
//! Stick (58)/(61), as the paper states them: π/2·√κ < T_stick < π·√κ. The comparison systems
//! behind them, eq. (56): two linear oscillators [`LinearOscillator`] started at the slip stop
//! t_s, whose closed-form passage times through δ* are ε_l and ε_r
//! ([`LinearOscillator::first_passage`]; docs/model.md, "The stick's comparison envelopes").

use crate::models::rod::limit::RigidLimit;
use crate::models::rod::mechanics::PainleveRod;
use crate::models::rod::scenario::RodImpact;
use serde::Serialize;
use std::f64::consts::PI;

/// The margin of the constants inside the ranges that eq. (19) allows: M1 = f·min(−A),
/// η1 = f·min(−B) over the slide, M2 = max(−A)/f, η2 = 1/f.
pub(crate) const CONSTANT_MARGIN: f64 = 0.9;

/// The constants of eqs. (19)–(20) for one initial state, and the rule that made them.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct SlideBoundConstants {
    pub m1: f64,
    pub m2: f64,
    pub eta1: f64,
    pub eta2: f64,
    pub c_lower: f64,
    pub c_upper: f64,
    /// The θ range over which C̲ and C̄ are taken.
    pub theta_lo: f64,
    pub theta_hi: f64,
    pub u0_abs: f64,
    /// The rod (its radius of gyration enters A).
    #[serde(skip)]
    pub body: PainleveRod,
}

impl SlideBoundConstants {
    /// Choose the constants for `imp` (rule: [`CONSTANT_MARGIN`]).
    ///
    /// - −A: min over the slide is −A(θ0) (the configuration is frozen in the rigid limit), max is
    ///   the global (3√(1+μ²) − 5)/2 of eq. (17);
    /// - −B = 1 − θ̇² sin θ: min over the slide is at the largest |θ̇|, i.e. max(|θ̇0|, |θ̇_s|) with
    ///   θ̇_s = θ̇0 + P·P_s the rigid-limit angular velocity at the end of the slide; max is 1;
    /// - θ: C̄ uses θ_hi, the upper end of {A ≤ −M1}; C̲ uses θ_lo = θ0 when θ̇0 ≥ 0 (θ̈ = P F_n > 0
    ///   by eq. (21), so θ only grows), else the lower end of {A ≤ −M1}.
    ///
    /// `None` unless the start is inconsistent (A < 0, B < 0, u0 < 0) and B stays negative
    /// through the slide.
    pub(crate) fn choose(imp: &RodImpact) -> Option<Self> {
        let body = imp.body();
        let k = body.slide_coefficients(imp.mu, imp.theta0, imp.omega0);
        let limit = RigidLimit::of(imp)?;
        let f = CONSTANT_MARGIN;
        let m1 = f * (-k.a);
        let a_min = body.slide_compliance_min(imp.mu);
        let m2 = -a_min / f;
        let omega_s = imp.omega0 + k.p * limit.slide_impulse;
        let omega_max = imp.omega0.abs().max(omega_s.abs());
        let neg_b_min = 1.0 - omega_max * omega_max * imp.theta0.sin();
        if neg_b_min <= 0.0 {
            return None;
        }
        let eta1 = f * neg_b_min;
        let eta2 = 1.0 / f;
        let (th_a, th_b) = theta_interval_where_a_below(&body, imp.mu, -m1)?;
        let theta_lo = if imp.omega0 >= 0.0 { imp.theta0 } else { th_a };
        let c_lower = imp.mu + (m1 + 1.0) * theta_lo.tan();
        let c_upper = imp.mu + (m2 + 1.0) * th_b.tan();
        Some(SlideBoundConstants {
            m1,
            m2,
            eta1,
            eta2,
            c_lower,
            c_upper,
            theta_lo,
            theta_hi: th_b,
            u0_abs: imp.u0.abs(),
            body,
        })
    }

    /// Eq. (33): the lower bound on the slide duration at `kappa` (≤ 0, i.e. vacuous, when the
    /// logarithm's argument is below 1).
    pub(crate) fn slide_lower(&self, kappa: f64) -> f64 {
        let w = (self.m2 / kappa).sqrt();
        (2.0 * self.m2 * w * self.u0_abs / (self.c_upper * self.eta2)).ln() / w
    }

    /// Eq. (31): the upper bound on the slide duration at `kappa`.
    pub(crate) fn slide_upper(&self, kappa: f64) -> f64 {
        let w = (self.m1 / kappa).sqrt();
        1.0 / w
            + (4.0 * self.m1 * self.u0_abs / (self.c_lower * self.eta1 * w) + 1.0 / (w * w)).sqrt()
    }

    /// Whether the state (θ, θ̇) at the end of a measured slide lies inside the domains of
    /// eq. (19) that the bounds assume. θ and θ̇ grow monotonically over the slide (θ̈ = P F_n > 0)
    /// and {A ≤ −M1} is an interval, so the end of the slide is where the hypotheses bind.
    pub(crate) fn hypotheses_hold_at(&self, mu: f64, theta: f64, omega: f64) -> bool {
        let k = self.body.slide_coefficients(mu, theta, omega);
        (-self.m2..=-self.m1).contains(&k.a)
            && (-self.eta2..=-self.eta1).contains(&k.b)
            && (self.theta_lo..=self.theta_hi).contains(&theta)
    }
}

/// The θ interval on which A(θ, μ) ≤ `level` (< 0) for a rod with k = 1/ρ: A = 1 + kc² −
/// kμsc = (2 + k + k cos2θ − kμ sin2θ)/2, so A ≤ level ⇔ k√(1+μ²) cos(2θ + φ) ≤
/// 2·level − (2 + k) with tan φ = μ (Zhao–Liu's 3√(1+μ²) cos(2θ + φ) ≤ 2·level − 5 at k = 3).
pub(crate) fn theta_interval_where_a_below(
    body: &PainleveRod,
    mu: f64,
    level: f64,
) -> Option<(f64, f64)> {
    let k = body.inverse_gyration_sq();
    let r = k * (1.0 + mu * mu).sqrt();
    let x = (2.0 * level - (2.0 + k)) / r;
    if !(-1.0..1.0).contains(&x) {
        return None;
    }
    let phi = mu.atan();
    let acos = x.acos();
    // cos(2θ + φ) ≤ x ⇔ 2θ + φ ∈ [acos x, 2π − acos x].
    Some(((acos - phi) / 2.0, (2.0 * PI - acos - phi) / 2.0))
}

/// Eqs. (58)/(61) as stated: π/2·√κ < T_stick.
pub fn stick_lower(kappa: f64) -> f64 {
    PI / 2.0 * kappa.sqrt()
}

/// Eqs. (58)/(61) as stated: T_stick < π·√κ.
pub fn stick_upper(kappa: f64) -> f64 {
    PI * kappa.sqrt()
}

/// A linear oscillator δ̈ = −ω²δ + f: either comparison system of eq. (56), started at the slip
/// stop t_s from the rod's δ(t_s), δ̇(t_s) (time counted from t_s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinearOscillator {
    /// ω² > 0.
    pub omega_sq: f64,
    /// The constant forcing f.
    pub forcing: f64,
}

impl LinearOscillator {
    /// Eq. (56), left: δ̈_l = −((1 + k)/κ)δ_l + 1 − (1 + k)θ̇_m² for a rod with k = 1/ρ (Zhao–Liu's
    /// 4/κ and 1 − 4θ̇_m² at k = 3). It bounds eq. (55) from below: in stick (1 + k)/(1 + ks²) ≤
    /// 1 + k and (1 + k)s θ̇²/(1 + ks²) ≤ (1 + k)θ̇_m² for s = sin θ ∈ [0, 1].
    pub fn stick_left(body: &PainleveRod, kappa: f64, omega_max: f64) -> Self {
        let k1 = 1.0 + body.inverse_gyration_sq();
        LinearOscillator {
            omega_sq: k1 / kappa,
            forcing: 1.0 - k1 * omega_max * omega_max,
        }
    }

    /// Eq. (56), right: δ̈_r = −δ_r/κ + 1 (any k: (1 + k)/(1 + ks²) ≥ 1, and the θ̇² term of
    /// eq. (55) is ≤ 0).
    pub fn stick_right(kappa: f64) -> Self {
        LinearOscillator {
            omega_sq: 1.0 / kappa,
            forcing: 1.0,
        }
    }

    /// Eq. (57): the equilibrium f/ω².
    pub fn equilibrium(&self) -> f64 {
        self.forcing / self.omega_sq
    }

    /// δ(t) from δ(0) = `d0`, δ̇(0) = `v0`: δ̄ + (d0 − δ̄) cos ωt + (v0/ω) sin ωt.
    pub fn position(&self, d0: f64, v0: f64, t: f64) -> f64 {
        let w = self.omega_sq.sqrt();
        let eq = self.equilibrium();
        eq + (d0 - eq) * (w * t).cos() + v0 / w * (w * t).sin()
    }

    /// The first time t > 0 at which δ(t) = `target`, from δ(0) = `d0`, δ̇(0) = `v0` (ε_l or
    /// ε_r of eq. (58) with target δ*); `None` when the oscillation's range misses the target.
    /// With δ − δ̄ = R cos(ωt − φ), R = √((d0 − δ̄)² + (v0/ω)²), φ = atan2(v0/ω, d0 − δ̄), the
    /// passages are ωt = φ ± arccos((target − δ̄)/R) mod 2π.
    pub fn first_passage(&self, d0: f64, v0: f64, target: f64) -> Option<f64> {
        let w = self.omega_sq.sqrt();
        let eq = self.equilibrium();
        let (a, b) = (d0 - eq, v0 / w);
        let r = a.hypot(b);
        let x = (target - eq) / r;
        if !(r > 0.0 && (-1.0..=1.0).contains(&x)) {
            return None;
        }
        let phi = b.atan2(a);
        let c = x.acos();
        let turn = 2.0 * PI;
        let phase = [phi + c, phi - c]
            .into_iter()
            .map(|p| match p.rem_euclid(turn) {
                s if s > 0.0 => s,
                _ => turn,
            })
            .fold(f64::INFINITY, f64::min);
        Some(phase / w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::rod::mechanics::painleve_theta_interval;

    /// At level 0 the interval is eq. (18); at any level, A equals the level at both ends.
    #[test]
    fn a_level_interval_matches_eq_18_and_a() {
        for &mu in &[1.4, 2.0, 5.0] {
            let (lo, hi) = theta_interval_where_a_below(&PainleveRod::UNIFORM, mu, 0.0).unwrap();
            let (lo18, hi18) = painleve_theta_interval(mu).unwrap();
            assert!((lo - lo18).abs() < 1e-12 && (hi - hi18).abs() < 1e-12);
            let level = (5.0 - 3.0 * (1.0 + mu * mu).sqrt()) / 4.0; // half of eq. (17)'s minimum

            let (lo, hi) = theta_interval_where_a_below(&PainleveRod::UNIFORM, mu, level).unwrap();
            let a = |th: f64| PainleveRod::UNIFORM.slide_coefficients(mu, th, 0.0).a;
            assert!((a(lo) - level).abs() < 1e-12 && (a(hi) - level).abs() < 1e-12);
            assert!(a(0.5 * (lo + hi)) < level);
        }
    }

    /// The chosen constants satisfy eq. (19)'s requirements at the Zhao–Liu state, and the
    /// bounds bracket the rigid-limit slide duration at small κ.
    #[test]
    fn zhao_liu_constants_satisfy_eq_19_and_bracket_the_limit() {
        let imp = RodImpact::zhao_liu(1e-10);
        let k = imp.slide_coefficients();
        let c = SlideBoundConstants::choose(&imp).unwrap();
        let a_min = (5.0 - 3.0 * 5f64.sqrt()) / 2.0;
        assert!(0.0 < c.m1 && c.m1 < -k.a && c.m2 > -a_min);
        assert!(0.0 < c.eta1 && c.eta1 < -k.b && c.eta2 > 1.0);
        assert!(c.c_lower < k.c && k.c < c.c_upper);
        assert!(c.hypotheses_hold_at(imp.mu, imp.theta0, imp.omega0));
        // θ̇ = 1 makes B = sin θ0 − 1 ≈ −0.04 > −η1; θ past θ_hi leaves {A ≤ −M1}.
        assert!(!c.hypotheses_hold_at(imp.mu, imp.theta0, 1.0));
        assert!(!c.hypotheses_hold_at(imp.mu, c.theta_hi + 1e-3, imp.omega0));
        let l = RigidLimit::of(&imp).unwrap();
        for kappa in [1e-8, 1e-10, 1e-12] {
            let t = l.slide_duration(kappa);
            assert!(
                c.slide_lower(kappa) < t && t < c.slide_upper(kappa),
                "κ = {kappa}"
            );
        }
    }
}
