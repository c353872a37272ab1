//! Klarbring's quasi-static counterexample (Klarbring 1990, Ballard–Basseville's reference \[4\],
//! their §2; docs/klarbring.md, "The quasi-static problem"): drop the inertia of the planar
//! particle (n = 2, one tangent),
//!
//! ```text
//!   K U = F(t) + R,  U_N ≤ 0,  N = −R_N ≥ 0,  N U_N = 0,  |R_T| ≤ μN,  R_T = −μN sgn U̇_T in slip.
//! ```
//!
//! In contact N = F_N − W U_T and R_T = k_T U_T − F_T. At a state on the cone's edge,
//! R_T = −μσN with σ = ±1 the side the friction holds (the sign of g = F_T − k_T U_T), the rate
//! problem has two candidates:
//! - stick (U̇_T = 0) keeps |R_T| ≤ μN iff d/dt(μN + σR_T) = μḞ_N − σḞ_T ≥ 0, i.e. L ≤ 0 with the
//!   loading rate L = σḞ_T − μḞ_N;
//! - slip in σ: differentiating k_T U_T − F_T = −μσ(F_N − W U_T) gives
//!   (k_T − μσW) U̇_T = Ḟ_T − μσḞ_N, so σU̇_T = L/(k_T − μσW), which must be > 0.
//!
//! With the slip stiffness k_T − μσW > 0 exactly one holds (stick iff L ≤ 0); with
//! k_T − μσW < 0 (μσW > k_T: Klarbring's condition, Schmid–Mielke §4.2's H₁₁ < μ*H₁₂) both hold
//! when L < 0 (non-uniqueness) and neither when L > 0 (non-existence: no continuous
//! quasi-static evolution; the dynamic problem slides off).

use super::mechanics::{KlarbringParticle, LoadComponent};
use serde::Serialize;

impl LoadComponent {
    /// The component's rate dF/dt at time `t`.
    pub fn rate(&self, t: f64) -> f64 {
        let wt = self.frequency * t;
        let mut poly = 0.0;
        for (k, &p) in self.polynomial.iter().enumerate().rev() {
            poly = poly * t + (k + 1) as f64 * p;
        }
        self.frequency * (self.sin * wt.cos() - self.cos * wt.sin()) + poly
    }
}

/// The quasi-static rate problem at a contact state on the cone's edge.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct QuasiStaticRate {
    pub t: f64,
    /// σ = ±1: the side of the cone the friction holds (the slip direction).
    pub slip_direction: f64,
    /// k_T − μσW.
    pub slip_stiffness: f64,
    /// L = σḞ_T − μḞ_N: the rate at which the load pushes toward slip.
    pub loading: f64,
    /// Whether stick and slip in σ solve the rate problem.
    pub stick: bool,
    pub slip: bool,
    /// How many of the two do: 1 (unique), 2 (non-unique) or 0 (no solution).
    pub solutions: usize,
}

/// The quasi-static rate problem of the planar particle at time `t`, on the cone's edge on the
/// side `slip_direction` (the rates do not depend on U_T: the edge's state enters only through
/// σ).
pub(crate) fn rate_solutions(
    particle: &KlarbringParticle<2>,
    mu: f64,
    t: f64,
    slip_direction: f64,
) -> QuasiStaticRate {
    let sigma = slip_direction.signum();
    let w = particle.stiffness[1][0];
    let k_t = particle.stiffness[1][1];
    let slip_stiffness = k_t - mu * sigma * w;
    let loading = sigma * particle.load[1].rate(t) - mu * particle.load[0].rate(t);
    let stick = loading <= 0.0;
    let slip = loading / slip_stiffness > 0.0;
    QuasiStaticRate {
        t,
        slip_direction: sigma,
        slip_stiffness,
        loading,
        stick,
        slip,
        solutions: usize::from(stick) + usize::from(slip),
    }
}

/// The rate problem at every stick → slip onset of a run (`modes` in time order, `kinds` and
/// `times` its events, event i leading from mode i to mode i + 1): each onset leaves a stick at
/// rest on the cone's edge — a quasi-static equilibrium — into `slide+` or `slide-`.
pub(crate) fn at_slip_onsets(
    particle: &KlarbringParticle<2>,
    mu: f64,
    modes: &[&str],
    kinds: &[&str],
    times: &[f64],
) -> Vec<QuasiStaticRate> {
    kinds
        .iter()
        .zip(times)
        .enumerate()
        .filter(|(i, (kind, _))| **kind == "slip" && modes.get(*i) == Some(&"stick"))
        .filter_map(|(i, (_, &t))| {
            let sigma = match *modes.get(i + 1)? {
                "slide+" => 1.0,
                "slide-" => -1.0,
                _ => return None,
            };
            Some(rate_solutions(particle, mu, t, sigma))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn particle(
        w: f64,
        k_t: f64,
        load_t: LoadComponent,
        load_n: LoadComponent,
    ) -> KlarbringParticle<2> {
        KlarbringParticle::new([[5.0, w], [w, k_t]], [load_n, load_t], "stiffness").unwrap()
    }

    fn linear(constant: f64, slope: f64) -> LoadComponent {
        LoadComponent {
            constant,
            polynomial: vec![slope],
            ..Default::default()
        }
    }

    /// klarbring_2d's rigid sequence: the two stick → slip onsets, both into slide+; the stop
    /// that reverses a slide directly (slide+ → slide-) is no onset from stick.
    #[test]
    fn onsets_are_the_slips_out_of_stick() {
        let p = particle(0.8, 1.0, linear(0.0, 1.0), linear(1.0, 0.0));
        let modes = [
            "stick", "slide+", "slide-", "stick", "slide+", "free", "free",
        ];
        let kinds = ["slip", "stop", "stop", "slip", "liftoff", "impact"];
        let times = [0.5, 3.3, 5.8, 6.3, 9.3, 11.6];
        let on = at_slip_onsets(&p, 0.8, &modes, &kinds, &times);
        assert_eq!(on.iter().map(|r| r.t).collect::<Vec<_>>(), [0.5, 6.3]);
        assert!(on
            .iter()
            .all(|r| r.slip_direction == 1.0 && r.solutions == 1));
    }

    /// The rate of a load against a central difference.
    #[test]
    fn load_rate_is_the_derivative() {
        let l = LoadComponent {
            constant: 0.3,
            cos: 0.7,
            sin: -1.1,
            frequency: 1.7,
            polynomial: vec![0.2, -0.05, 0.01],
        };
        for t in [0.0, 0.4, 2.5] {
            let h = 1e-5;
            let fd = (l.at(t + h) - l.at(t - h)) / (2.0 * h);
            assert!((l.rate(t) - fd).abs() < 1e-8, "{t}: {} vs {fd}", l.rate(t));
        }
    }

    /// The count against the incremental problem one small step on, solved directly: from an
    /// edge state (R_T = −μσN at t = 0), the states U_T' at t + h that satisfy the quasi-static
    /// laws — stick (U_T' = U_T inside the cone) or slip in σ (the linear equation solved for
    /// U_T', moving in σ) — for every sign of the slip stiffness and of the loading.
    #[test]
    fn rate_count_matches_the_incremental_problem() {
        let mu = 0.8;
        let h = 1e-6;
        let mut seen = [false; 3];
        for w in [0.8, -0.8, 2.0, -2.0] {
            for sigma in [1.0, -1.0] {
                for (ft, fn_) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (0.5, 0.3)] {
                    // The edge state at t = 0: U_T = 0 with F_T(0) = μσF_N(0), so that
                    // R_T = k_T U_T − F_T = −μσN and N = F_N(0) = 2 > 0.
                    let load_n = linear(2.0, fn_);
                    let load_t = linear(mu * sigma * 2.0, ft);
                    let p = particle(w, 1.0, load_t.clone(), load_n.clone());
                    let (k_t, u) = (1.0, 0.0);
                    let (f_n, f_t) = (load_n.at(h), load_t.at(h));
                    let stick_ok = (k_t * u - f_t).abs() <= mu * (f_n - w * u);
                    let u_slip = (f_t - mu * sigma * f_n) / (k_t - mu * sigma * w);
                    let slip_ok = sigma * (u_slip - u) > 0.0 && f_n - w * u_slip >= 0.0;
                    let direct = usize::from(stick_ok) + usize::from(slip_ok);
                    let r = rate_solutions(&p, mu, 0.0, sigma);
                    assert_eq!(
                        r.solutions, direct,
                        "W {w} σ {sigma} Ḟ ({fn_}, {ft}): {r:?}"
                    );
                    assert_eq!(r.slip_stiffness, k_t - mu * sigma * w);
                    seen[r.solutions] = true;
                }
            }
        }
        // Every count occurs: unique, none (μσW > k_T, loading) and two (unloading).
        assert_eq!(seen, [true, true, true]);
    }
}
