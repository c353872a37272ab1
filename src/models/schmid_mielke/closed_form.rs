//! The closed-form solutions of §4.1 and §4.2 (docs/schmid_mielke.md, "Closed forms"): both are
//! piecewise affine in t, with at most one jump. Sub-, critical and supercritical H₁₁.

use super::examples::{Example, Regime, VaryingFriction, VaryingNormalForce, RAMP};

/// z(t) = z_start + (t − t_start) ż on [t_start, t_end].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    pub t_start: f64,
    pub t_end: f64,
    pub z_start: [f64; 2],
    pub velocity: [f64; 2],
}

impl Piece {
    pub fn at(&self, t: f64) -> [f64; 2] {
        let dt = t - self.t_start;
        [
            self.z_start[0] + dt * self.velocity[0],
            self.z_start[1] + dt * self.velocity[1],
        ]
    }
}

/// A discontinuity of the solution: z(t⁻) = `from`, z(t⁺) = `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jump {
    pub time: f64,
    pub from: [f64; 2],
    pub to: [f64; 2],
}

/// The fast stretch of z₁ that a discretisation must cross: the ramp piece of §4.1 (from 2 to 3
/// when sub-critical) or the slide of §4.2 (from 1 to 0), or the jump when there is one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transition {
    pub z1_from: f64,
    pub z1_to: f64,
}

impl Transition {
    /// The z₁ a fraction `x` of the way.
    pub fn level(&self, x: f64) -> f64 {
        self.z1_from + x * (self.z1_to - self.z1_from)
    }
    /// Whether `z1` lies strictly beyond the fraction `x` of the way.
    pub(crate) fn is_past(&self, z1: f64, x: f64) -> bool {
        (z1 - self.level(x)) * (self.z1_to - self.z1_from) > 0.0
    }
}

/// A closed-form solution on [0, ∞).
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedForm {
    pub regime: Regime,
    /// Consecutive pieces; the last one is unbounded (t_end = ∞).
    pub pieces: Vec<Piece>,
    pub jump: Option<Jump>,
    pub transition: Transition,
    /// The breakpoints t₁ ≤ t₂ (≤ t₃ for §4.1) of the paper.
    pub breakpoints: Vec<f64>,
}

impl ClosedForm {
    /// z(t); at a jump the value after it.
    pub fn at(&self, t: f64) -> [f64; 2] {
        let piece = self
            .pieces
            .iter()
            .rev()
            .find(|p| t >= p.t_start)
            .unwrap_or(&self.pieces[0]);
        piece.at(t)
    }

    /// The first time z₁ reaches `level` (the jump time if it jumps over it); `None` if never.
    pub fn crossing_time(&self, level: f64) -> Option<f64> {
        let mut end_of_previous: Option<f64> = None;
        for p in &self.pieces {
            let start = p.z_start[0];
            let jumped_over = end_of_previous.is_some_and(|e| (e - level) * (start - level) < 0.0);
            if jumped_over || start == level {
                return Some(p.t_start);
            }
            let v = p.velocity[0];
            if v != 0.0 {
                let t = p.t_start + (level - start) / v;
                if t >= p.t_start && t <= p.t_end {
                    return Some(t);
                }
            }
            end_of_previous = Some(p.at(p.t_end)[0]);
        }
        None
    }

    /// The time of the transition's midpoint: the jump time, or when z₁ crosses the middle of
    /// the fast stretch.
    pub(crate) fn transition_midpoint_time(&self) -> Option<f64> {
        match self.jump {
            Some(j) => Some(j.time),
            None => self.crossing_time(self.transition.level(0.5)),
        }
    }
}

/// Build consecutive pieces from (start time, start point, velocity) triples.
fn pieces(parts: &[(f64, [f64; 2], [f64; 2])]) -> Vec<Piece> {
    parts
        .iter()
        .enumerate()
        .map(|(i, &(t_start, z_start, velocity))| Piece {
            t_start,
            t_end: parts.get(i + 1).map_or(f64::INFINITY, |p| p.0),
            z_start,
            velocity,
        })
        .collect()
}

/// §4.1. Stick at z₁ = 1 until t₁ = σ*μ₀/a; slide with ż₁ = a/H₁₁ to z₁ = 2 at
/// t₂ = (H₁₁ + σ*μ₀)/a; on the ramp H₁₁z₁ + σ*μ(z₁) = H₁₁ + at gives ż₁ = a/(H₁₁ − σ*Δμ) up to
/// z₁ = 3 at t₃ = (2H₁₁ + σ*μ₁)/a, then ż₁ = a/H₁₁ again. When H₁₁ ≤ σ*Δμ the ramp has no
/// stable point: z₁ jumps at t₂ from 2 to the first stable point z₁* = 2 + σ*Δμ/H₁₁ and
/// follows the μ₁ branch z₁ = 1 + (at − σ*μ₁)/H₁₁ (docs/schmid_mielke.md, eqs. (SM1)–(SM4)).
pub(crate) fn varying_friction(p: &VaryingFriction, regime: Regime) -> ClosedForm {
    let a = p.load_rate;
    let delta_mu = p.mu0 - p.mu1;
    let t1 = p.sigma_star * p.mu0 / a;
    let t2 = (p.h11 + p.sigma_star * p.mu0) / a;
    let sliding = [a / p.h11, 0.0];
    let mut parts = vec![(0.0, [1.0, 0.0], [0.0, 0.0]), (t1, [1.0, 0.0], sliding)];
    let (jump, transition, breakpoints) = if regime == Regime::Subcritical {
        let t3 = (2.0 * p.h11 + p.sigma_star * p.mu1) / a;
        parts.push((
            t2,
            [RAMP.0, 0.0],
            [a / (p.h11 - p.sigma_star * delta_mu), 0.0],
        ));
        parts.push((t3, [RAMP.1, 0.0], sliding));
        (
            None,
            Transition {
                z1_from: RAMP.0,
                z1_to: RAMP.1,
            },
            vec![t1, t2, t3],
        )
    } else {
        let landing = RAMP.0 + p.sigma_star * delta_mu / p.h11;
        parts.push((t2, [landing, 0.0], sliding));
        (
            Some(Jump {
                time: t2,
                from: [RAMP.0, 0.0],
                to: [landing, 0.0],
            }),
            Transition {
                z1_from: RAMP.0,
                z1_to: landing,
            },
            vec![t1, t2],
        )
    };
    ClosedForm {
        regime,
        pieces: pieces(&parts),
        jump,
        transition,
        breakpoints,
    }
}

/// §4.2. Stick at z̃ = (1, 0) until μ*σ = H₁₁, t₁ = (H₁₂ − H₁₁/μ* − f*)/a; slide towards 0 on
/// z₁ = −μ* f₂(t)/(H₁₁ − μ*H₁₂) (the paper prints −a f₂; docs/schmid_mielke.md, "Typo") until
/// f₂ = 0 at t₂ = −f*/a; then free, z = H⁻¹f(t). When H₁₁ ≤ μ*H₁₂ there is no slide: z jumps at
/// t₁ from z̃ to H⁻¹f(t₁) (eqs. (SM5)–(SM7)).
pub(crate) fn varying_normal_force(p: &VaryingNormalForce, regime: Regime) -> ClosedForm {
    let a = p.load_rate;
    let det = p.h11 * p.h22 - p.h12 * p.h12;
    let t1 = (p.h12 - p.h11 / p.mu_star - p.f_star) / a;
    let t2 = -p.f_star / a;
    // H⁻¹f(t) with f = (0, f₂): f₂ (−H₁₂, H₁₁)/det.
    let free_at = |t: f64| {
        let f2 = p.f_star + a * t;
        [-p.h12 * f2 / det, p.h11 * f2 / det]
    };
    let free_velocity = [-p.h12 * a / det, p.h11 * a / det];
    let start = [1.0, 0.0];
    if regime == Regime::Subcritical {
        let slide = [-p.mu_star * a / (p.h11 - p.mu_star * p.h12), 0.0];
        ClosedForm {
            regime,
            pieces: pieces(&[
                (0.0, start, [0.0, 0.0]),
                (t1, start, slide),
                (t2, free_at(t2), free_velocity),
            ]),
            jump: None,
            transition: Transition {
                z1_from: 1.0,
                z1_to: 0.0,
            },
            breakpoints: vec![t1, t2],
        }
    } else {
        let to = free_at(t1);
        ClosedForm {
            regime,
            pieces: pieces(&[(0.0, start, [0.0, 0.0]), (t1, to, free_velocity)]),
            jump: Some(Jump {
                time: t1,
                from: start,
                to,
            }),
            transition: Transition {
                z1_from: 1.0,
                z1_to: to[0],
            },
            breakpoints: vec![t1],
        }
    }
}

/// The energy account of a jump at frozen load (docs/schmid_mielke.md, "The defect of (E)").
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct JumpEnergy {
    /// E(t_j, z⁻) − E(t_j, z⁺).
    pub released: f64,
    /// ∫σ₊μ(z₁)|dz₁| along the contact path: on z₂ = 0 from z⁻ while σ(t_j, ·) > 0, then off
    /// the boundary (§4.1: all of [2, z₁*]; §4.2: from z₁ = 1 down to σ = 0, z₁ = f₂(t_j)/H₁₂).
    pub coulomb: f64,
    /// released − coulomb: the energy (E) leaves unaccounted, 0 in the critical case.
    pub defect: f64,
}

impl Example {
    /// The energy account of the closed form's jump, if it jumps.
    pub(crate) fn jump_energy(&self) -> Option<JumpEnergy> {
        let jump = self.closed_form().jump?;
        let problem = self.problem();
        let released = problem.energy(jump.time, jump.from) - problem.energy(jump.time, jump.to);
        let coulomb = match self {
            Example::VaryingFriction(p) => {
                p.sigma_star * problem.friction.integral(jump.from[0], jump.to[0])
            }
            Example::VaryingNormalForce(p) => {
                // σ(t_j, (z₁, 0)) = H₁₂ z₁ − f₂(t_j) is affine in z₁: μ* times a triangle.
                let f2 = problem.load(jump.time)[1];
                let lift = (f2 / p.h12).clamp(jump.to[0], jump.from[0]);
                let sigma_start = p.h12 * jump.from[0] - f2;
                0.5 * p.mu_star * sigma_start.max(0.0) * (jump.from[0] - lift)
            }
        };
        Some(JumpEnergy {
            released,
            coulomb,
            defect: released - coulomb,
        })
    }

    /// The closed-form solution from z̃ = (1, 0).
    pub fn closed_form(&self) -> ClosedForm {
        match self {
            Example::VaryingFriction(p) => varying_friction(p, self.regime()),
            Example::VaryingNormalForce(p) => varying_normal_force(p, self.regime()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::models::schmid_mielke::examples::{VaryingFriction, VaryingNormalForce};

    /// The worked cases: §4.1 with σ* = 1, μ₀ = 0.6, μ₁ = 0.2, a = 1, H₂₂ = 10; §4.2 with
    /// H₁₂ = 1, H₂₂ = 4, μ* = 0.5, f* = −2, a = 1.
    pub(crate) fn example1(h11: f64) -> Example {
        Example::VaryingFriction(VaryingFriction {
            h11,
            h22: 10.0,
            sigma_star: 1.0,
            mu0: 0.6,
            mu1: 0.2,
            load_rate: 1.0,
        })
    }
    pub(crate) fn example2(h11: f64) -> Example {
        Example::VaryingNormalForce(VaryingNormalForce {
            h11,
            h12: 1.0,
            h22: 4.0,
            mu_star: 0.5,
            f_star: -2.0,
            load_rate: 1.0,
        })
    }

    fn cases() -> Vec<(Example, f64)> {
        let mut out: Vec<_> = [1.0, 0.5, 0.4, 0.3].map(|h| (example1(h), 3.0)).to_vec();
        out.extend([1.0, 0.6, 0.5, 0.4].map(|h| (example2(h), 4.0)));
        out
    }

    #[test]
    fn regimes_follow_h11_against_the_threshold_with_a_tolerance() {
        let r: Vec<_> = cases().iter().map(|(e, _)| e.regime().name()).collect();
        let expected = ["subcritical", "subcritical", "critical", "supercritical"];
        assert_eq!(r[..4], expected);
        assert_eq!(r[4..], expected);
        // (G5) fails for §4.2 at H₁₁ = 0.6 (λ_min(H) ≈ 0.33 < μ*H₁₂ = 0.5), yet no jump.
        assert!(!example2(0.6).g5_holds() && !example2(0.6).regime().jumps());
        assert!(example1(0.5).g5_holds());
    }

    /// The numbers the paper's Fig. 4.2 implies (H₁₁ = 1): t₁, t₂, t₃ = 0.6, 1.6, 2.2 and slopes
    /// 1, 5/3, 1, measured on z(t) by differences; §4.2's slide speed μ*a/(H₁₁ − μ*H₁₂) on
    /// [t₁, t₂ = −f*/a].
    #[test]
    fn printed_breakpoints_and_slopes() {
        let cf = example1(1.0).closed_form();
        for (t, want) in cf.breakpoints.iter().zip([0.6, 1.6, 2.2]) {
            assert!((t - want).abs() < 1e-14, "{:?}", cf.breakpoints);
        }
        let slope = |t: f64| (cf.at(t + 1e-4)[0] - cf.at(t - 1e-4)[0]) / 2e-4;
        for (t, want) in [(0.3, 0.0), (1.1, 1.0), (1.9, 5.0 / 3.0), (2.6, 1.0)] {
            assert!((slope(t) - want).abs() < 1e-9, "t {t}: {}", slope(t));
        }
        for h11 in [1.0, 0.6] {
            let cf = example2(h11).closed_form();
            let (t1, t2) = (cf.breakpoints[0], cf.breakpoints[1]);
            assert!((t1 - (1.0 - h11 / 0.5 + 2.0)).abs() < 1e-14 && (t2 - 2.0).abs() < 1e-14);
            let mid = 0.5 * (t1 + t2);
            let speed = (cf.at(mid - 1e-4)[0] - cf.at(mid + 1e-4)[0]) / 2e-4;
            assert!((speed - 0.5 / (h11 - 0.5)).abs() < 1e-9, "{speed}");
            assert!(cf.at(t2)[0].abs() < 1e-14);
        }
    }

    /// Jumps: §4.1 at t₂ from 2 to z₁* = 2 + σ*Δμ/H₁₁, §4.2 at t₁ from z̃ to H⁻¹f(t₁).
    #[test]
    fn jumps_land_where_the_worked_cases_say() {
        let j = example1(0.3).closed_form().jump.unwrap();
        assert!((j.time - 0.9).abs() < 1e-14);
        assert!((j.to[0] - (2.0 + 0.4 / 0.3)).abs() < 1e-14);
        let j = example1(0.4).closed_form().jump.unwrap();
        assert!((j.to[0] - 3.0).abs() < 1e-12);
        let j = example2(0.4).closed_form().jump.unwrap();
        assert!((j.time - 2.2).abs() < 1e-14);
        // H⁻¹f(2.2) = 0.2 (−1, 0.4)/0.6.
        assert!((j.to[0] + 1.0 / 3.0).abs() < 1e-14 && (j.to[1] - 0.4 / 3.0).abs() < 1e-14);
        let j = example2(0.5).closed_form().jump.unwrap();
        assert!((j.time - 2.0).abs() < 1e-14 && j.to[0].abs() < 1e-14);
    }

    /// At the critical H₁₁ the jump crosses a continuum of equilibria: the Coulomb work along
    /// the contact path takes all the released energy. Below it a defect remains.
    #[test]
    fn jump_defect_vanishes_at_the_threshold() {
        for example in [example1(0.4), example2(0.5)] {
            let j = example.jump_energy().unwrap();
            assert!(
                j.defect.abs() < 1e-12 && j.released > 0.2,
                "{example:?}: {j:?}"
            );
        }
        // §4.1, H₁₁ = 0.3: E(0.9, 2) − E(0.9, 10/3) = 8/15 with f₁ = 1.2; Coulomb 0.4 + 0.2/3.
        let j = example1(0.3).jump_energy().unwrap();
        assert!((j.released - 8.0 / 15.0).abs() < 1e-12, "{j:?}");
        assert!((j.coulomb - (0.4 + 0.2 / 3.0)).abs() < 1e-12, "{j:?}");
        // §4.2, H₁₁ = 0.4: released 0.2 + 0.04·0.4/(2·0.6); Coulomb ½·0.5·0.8·0.8.
        let j = example2(0.4).jump_energy().unwrap();
        assert!(
            (j.released - (0.2 + 0.04 * 0.4 / 1.2)).abs() < 1e-12,
            "{j:?}"
        );
        assert!((j.coulomb - 0.16).abs() < 1e-12, "{j:?}");
        assert!(example1(1.0).jump_energy().is_none());
    }

    /// Substitution into (4.1), using only E, σ and μ of the problem (not the code that built
    /// the pieces): z₂ ≥ 0, σ ≥ 0 in contact, σ = 0 off it, and −(Hz − f)₁ ∈ σ₊μ(z₁)∂|ż₁| with
    /// ż from differences of z(t), at 3000 times away from the breakpoints.
    #[test]
    fn closed_forms_satisfy_the_inclusion_4_1() {
        for (example, t_end) in cases() {
            let (problem, cf) = (example.problem(), example.closed_form());
            let h = 1e-6;
            for i in 0..3000 {
                let t = t_end * (i as f64 + 0.5) / 3000.0;
                if cf.breakpoints.iter().any(|b| (t - b).abs() < 2.0 * h) {
                    continue;
                }
                let z = cf.at(t);
                let (zp, zm) = (cf.at(t + h), cf.at(t - h));
                let rate = (zp[0] - zm[0]) / (2.0 * h);
                let sigma = problem.normal_force(t, z);
                let tangential = -problem.energy_gradient(t, z)[0];
                let weight = sigma.max(0.0) * problem.friction.at(z[0]);
                let ctx = format!("{example:?} t {t}: z {z:?} σ {sigma} r {tangential}");
                assert!(z[1] >= -1e-12, "{ctx}");
                if z[1] > 1e-12 {
                    assert!(sigma.abs() < 1e-12, "{ctx}");
                } else {
                    assert!(sigma >= -1e-12, "{ctx}");
                }
                if rate.abs() > 1e-7 {
                    assert!((tangential - weight * rate.signum()).abs() < 1e-9, "{ctx}");
                } else {
                    assert!(tangential.abs() <= weight + 1e-12, "{ctx}");
                }
            }
        }
    }

    /// The energy balance (E) by quadrature: E(T, z(T)) + ∫Ψ = E(0, z̃) + ∫∂ₜE. It holds where
    /// the solution is Lipschitz; a jump leaves exactly its released energy
    /// E(t_j, z⁻) − E(t_j, z⁺) unaccounted (Ψ integrates to nothing over a jump).
    #[test]
    fn closed_forms_satisfy_the_energy_balance_up_to_the_jump() {
        for (example, t_end) in cases() {
            let (problem, cf) = (example.problem(), example.closed_form());
            let n = 200_000;
            let dt = t_end / n as f64;
            let (mut dissipated, mut power) = (0.0, 0.0);
            for i in 0..n {
                let (ta, tb) = (i as f64 * dt, (i + 1) as f64 * dt);
                // A cell holding the jump is split there (the left part ends on z(t_j⁻)).
                let cells = match cf.jump {
                    Some(j) if ta < j.time && j.time <= tb => {
                        vec![
                            (ta, j.time, cf.at(ta), j.from),
                            (j.time, tb, j.to, cf.at(tb)),
                        ]
                    }
                    _ => vec![(ta, tb, cf.at(ta), cf.at(tb))],
                };
                for (ta, tb, za, zb) in cells {
                    let tm = 0.5 * (ta + tb);
                    let zm = [0.5 * (za[0] + zb[0]), 0.5 * (za[1] + zb[1])];
                    // Ψ(t, z, ż) dt = σ₊μ(z₁)|Δz₁| on the boundary, 0 off it.
                    if zm[1] <= 1e-12 {
                        dissipated += problem.friction_weight(tm, zm) * (zb[0] - za[0]).abs();
                    }
                    power += problem.energy_rate(zm) * (tb - ta);
                }
            }
            let defect = problem.energy(0.0, example.initial_position()) + power
                - problem.energy(t_end, cf.at(t_end))
                - dissipated;
            let released = cf.jump.map_or(0.0, |j| {
                problem.energy(j.time, j.from) - problem.energy(j.time, j.to)
            });
            assert!(
                (defect - released).abs() < 1e-6,
                "{example:?}: {defect} vs {released}"
            );
            if cf.regime == Regime::Supercritical {
                assert!(released > 0.05, "{example:?}: {released}");
            }
        }
    }
}
