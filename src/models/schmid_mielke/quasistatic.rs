//! The rate-independent side of Schmid–Mielke §4 (docs/schmid_mielke.md): a massless particle
//! in the half-plane A = {z₂ ≥ 0} with the quadratic energy E(t, z) = ½⟨Hz, z⟩ − ⟨f(t), z⟩, the
//! normal force σ(t, z) = (Hz − f(t))₂ and Coulomb friction μ(z₁) along z₂ = 0, and its
//! semi-implicit incremental problem (IP) of Def. 3.1, solved exactly step by step.
//!
//! (IP), with Ψ̃ of (3.1):  z_k = argmin_{y₂ ≥ 0}  E(t_k, y) + g_{k−1} |y₁ − z_{k−1,1}|,
//! g_{k−1} = μ(z_{k−1,1}) max(0, σ(t_{k−1}, z_{k−1})): the energy at the new time, the friction
//! weight frozen at the old state (docs/schmid_mielke.md, "The incremental problem").

use crate::model::Real;

/// μ(z₁): `mu_before` up to `ramp_start`, linear to `mu_after` at `ramp_end`, `mu_after`
/// beyond. §4.1's coefficient is (μ₀, μ₁, 2, 3); §4.2's constant μ* has equal ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrictionProfile {
    pub mu_before: f64,
    pub mu_after: f64,
    pub ramp_start: f64,
    /// > `ramp_start`.
    pub ramp_end: f64,
}

impl FrictionProfile {
    /// A constant coefficient μ (§4.2).
    pub fn constant(mu: f64) -> Self {
        FrictionProfile {
            mu_before: mu,
            mu_after: mu,
            ramp_start: 0.0,
            ramp_end: 1.0,
        }
    }

    /// μ(z₁), written once for f64 and for dual numbers (the compliant model's Jacobian).
    /// §4.1: μ₀ + (μ₁ − μ₀)(z₁ − 2) on [2, 3].
    pub fn at<S: Real>(&self, z1: S) -> S {
        let x = z1.value();
        if x <= self.ramp_start {
            S::cst(self.mu_before)
        } else if x >= self.ramp_end {
            S::cst(self.mu_after)
        } else {
            S::cst(self.mu_before) + (z1 - S::cst(self.ramp_start)).scale(self.slope())
        }
    }

    /// Dμ on the ramp.
    pub fn slope(&self) -> f64 {
        (self.mu_after - self.mu_before) / (self.ramp_end - self.ramp_start)
    }

    /// ∫_a^b μ(ξ) dξ (exact: μ is piecewise linear).
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        let primitive = |x: f64| {
            let (s, e) = (self.ramp_start, self.ramp_end);
            let before = self.mu_before * (x.min(s) - s);
            let r = x.clamp(s, e) - s;
            let ramp = self.mu_before * r + 0.5 * self.slope() * r * r;
            let after = self.mu_after * (x.max(e) - e);
            before + ramp + after
        };
        primitive(b) - primitive(a)
    }
}

/// The data of the quasistatic problem: H symmetric positive definite, the affine load
/// f(t) = f(0) + t ḟ, and μ(z₁).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuasistaticProblem {
    /// H = D²E, symmetric (H₁₂ = H₂₁), positive definite.
    pub stiffness: [[f64; 2]; 2],
    pub load_at_zero: [f64; 2],
    pub load_rate: [f64; 2],
    pub friction: FrictionProfile,
}

/// Which branch of the KKT system of one increment holds: the contact (y₂ = 0 with a normal
/// multiplier λ ≥ 0, or y₂ > 0 with λ = 0) and the tangential case (stick y₁ = z_{k−1,1}, or
/// slip in the direction `slip_sign`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KktCase {
    pub contact: bool,
    /// −1, 0 (stick) or +1: the sign of y₁ − z_{k−1,1}.
    pub slip_sign: i8,
}

impl KktCase {
    /// The six cases in the order a tie is resolved: the exact equalities (y₂ = 0, y₁ = p)
    /// first.
    pub const ALL: [KktCase; 6] = [
        KktCase {
            contact: true,
            slip_sign: 0,
        },
        KktCase {
            contact: true,
            slip_sign: 1,
        },
        KktCase {
            contact: true,
            slip_sign: -1,
        },
        KktCase {
            contact: false,
            slip_sign: 0,
        },
        KktCase {
            contact: false,
            slip_sign: 1,
        },
        KktCase {
            contact: false,
            slip_sign: -1,
        },
    ];

    pub fn name(&self) -> &'static str {
        match (self.contact, self.slip_sign) {
            (true, 0) => "contact_stick",
            (true, 1) => "contact_slip_forward",
            (true, _) => "contact_slip_backward",
            (false, 0) => "free_stick",
            (false, 1) => "free_slip_forward",
            (false, _) => "free_slip_backward",
        }
    }
}

/// One solved increment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Increment {
    pub z: [f64; 2],
    pub case: KktCase,
    /// The normal multiplier λ = σ(t_k, z_k) of a contact case (0 otherwise).
    pub normal_multiplier: f64,
    /// Whether a second case held at a case boundary, with the same minimiser to rounding.
    pub tie: bool,
}

/// Why an increment could not be solved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum IncrementError {
    #[error("the stiffness H = {stiffness:?} is not symmetric positive definite: the increment has no unique minimiser (Lemma 3.2 needs (G2))")]
    NotPositiveDefinite { stiffness: [[f64; 2]; 2] },
    #[error("incremental step {step} (t = {time}): no KKT case holds (friction weight {weight}): a rounding beyond the KKT tolerance")]
    NoCase { step: usize, time: f64, weight: f64 },
    #[error("incremental step {step} (t = {time}): the KKT cases {first} and {second} both hold with different minimisers ({distance:e} apart)")]
    SeveralCases {
        step: usize,
        time: f64,
        first: &'static str,
        second: &'static str,
        distance: f64,
    },
}

/// The checks of one (IP) step (docs/schmid_mielke.md, "Checks per step").
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepChecks {
    /// (3.31): E(t_k, z_{k−1}) − E(t_k, z_k) − Ψ̃(t_{k−1}, z_{k−1}, z_k − z_{k−1}) ≥ 0.
    pub energy_slack: f64,
    /// Lemma 3.3(2): |z_{k,2} σ(t_k, z_k)| = 0.
    pub complementarity: f64,
    /// Lemma 3.3(1), as the equivalent subdifferential inclusion: how far |(Hz_k − f_k)₁|
    /// exceeds g_{k−1}, or σ(t_k, z_k) falls below 0 in contact (0 when stable).
    pub stability_violation: f64,
}

/// The (IP) solution on a partition.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IncrementalPath {
    pub times: Vec<f64>,
    /// z_0 … z_N.
    pub positions: Vec<[f64; 2]>,
    /// Steps 1 … N.
    pub increments: Vec<Increment>,
    pub checks: Vec<StepChecks>,
}

impl IncrementalPath {
    /// Σ_k of the slack of (3.31).
    pub(crate) fn energy_slack_sum(&self) -> f64 {
        self.checks.iter().map(|c| c.energy_slack).sum()
    }
    pub(crate) fn min_energy_slack(&self) -> f64 {
        self.checks
            .iter()
            .map(|c| c.energy_slack)
            .fold(f64::INFINITY, f64::min)
    }
    pub(crate) fn max_complementarity(&self) -> f64 {
        self.checks
            .iter()
            .map(|c| c.complementarity)
            .fold(0.0, f64::max)
    }
    pub(crate) fn max_stability_violation(&self) -> f64 {
        self.checks
            .iter()
            .map(|c| c.stability_violation)
            .fold(0.0, f64::max)
    }
    /// max_k ‖z_k − z_{k−1}‖.
    pub(crate) fn max_increment(&self) -> f64 {
        self.positions
            .windows(2)
            .map(|w| distance(w[0], w[1]))
            .fold(0.0, f64::max)
    }
    pub(crate) fn ties(&self) -> usize {
        self.increments.iter().filter(|i| i.tie).count()
    }
}

/// Euclidean distance.
pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Relative size of the rounding allowed in the KKT conditions of one increment.
const KKT_TOLERANCE: f64 = 1e-12;
/// Two cases that hold at once must agree on the minimiser to this (relative to 1 + |z|).
const TIE_TOLERANCE: f64 = 1e-9;

impl QuasistaticProblem {
    /// f(t).
    pub fn load(&self, t: f64) -> [f64; 2] {
        [
            self.load_at_zero[0] + t * self.load_rate[0],
            self.load_at_zero[1] + t * self.load_rate[1],
        ]
    }

    fn h_times(&self, z: [f64; 2]) -> [f64; 2] {
        let h = &self.stiffness;
        [
            h[0][0] * z[0] + h[0][1] * z[1],
            h[1][0] * z[0] + h[1][1] * z[1],
        ]
    }

    /// E(t, z) = ½⟨Hz, z⟩ − ⟨f(t), z⟩.
    pub fn energy(&self, t: f64, z: [f64; 2]) -> f64 {
        let (hz, f) = (self.h_times(z), self.load(t));
        0.5 * (hz[0] * z[0] + hz[1] * z[1]) - (f[0] * z[0] + f[1] * z[1])
    }

    /// DE(t, z) = Hz − f(t).
    pub(crate) fn energy_gradient(&self, t: f64, z: [f64; 2]) -> [f64; 2] {
        let (hz, f) = (self.h_times(z), self.load(t));
        [hz[0] - f[0], hz[1] - f[1]]
    }

    /// ∂E/∂t(t, z) = −⟨ḟ, z⟩: the power of the load.
    pub fn energy_rate(&self, z: [f64; 2]) -> f64 {
        -(self.load_rate[0] * z[0] + self.load_rate[1] * z[1])
    }

    /// σ(t, z) = ⟨−DE, ν⟩ with ν = (0, −1): (Hz − f)₂ (§4).
    pub fn normal_force(&self, t: f64, z: [f64; 2]) -> f64 {
        self.energy_gradient(t, z)[1]
    }

    /// The friction weight μ(z₁) σ(t, z)₊ of Ψ̃ (3.1): Ψ̃(t, z, v) = weight·|v₁|.
    pub(crate) fn friction_weight(&self, t: f64, z: [f64; 2]) -> f64 {
        self.friction.at(z[0]) * self.normal_force(t, z).max(0.0)
    }

    /// E(t, y) − E(t, z) without cancellation: DE(t, z)·(y − z) + ½(y − z)ᵀH(y − z) (exact for
    /// a quadratic E).
    pub(crate) fn energy_difference(&self, t: f64, y: [f64; 2], z: [f64; 2]) -> f64 {
        let d = [y[0] - z[0], y[1] - z[1]];
        let g = self.energy_gradient(t, z);
        let hd = self.h_times(d);
        g[0] * d[0] + g[1] * d[1] + 0.5 * (hd[0] * d[0] + hd[1] * d[1])
    }

    /// One increment: argmin_{y₂ ≥ 0} E(t, y) + weight·|y₁ − previous₁|, by its six KKT
    /// cases (docs/schmid_mielke.md, "Solving one increment"). Each case computes its
    /// candidate from its equations and holds when the candidate lies in the case's set (strict
    /// signs: y₂ > 0, y₁ ≠ p) and the multipliers are admissible (|s| ≤ 1, λ ≥ 0, to rounding).
    /// The minimiser is unique (Lemma 3.2), so exactly one case holds; at a case boundary the
    /// rounding may let a second one hold, which is accepted only if it names the same point.
    pub(crate) fn increment(
        &self,
        step: usize,
        t: f64,
        previous: [f64; 2],
        weight: f64,
    ) -> Result<Increment, IncrementError> {
        let h = &self.stiffness;
        let f = self.load(t);
        let p = previous[0];
        let scale = 1.0 + f[0].abs() + f[1].abs() + weight + (h[0][0] + h[1][1]) * (1.0 + p.abs());
        let tol = KKT_TOLERANCE * scale;
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        if !(h[0][0] > 0.0 && det > 0.0 && h[0][1] == h[1][0]) {
            return Err(IncrementError::NotPositiveDefinite { stiffness: *h });
        }
        let mut held: Option<Increment> = None;
        for case in KktCase::ALL {
            let s = f64::from(case.slip_sign);
            // The candidate and its admissibility.
            let (z, lambda, ok) = if case.contact {
                // y₂ = 0: the tangential equation H₁₁y₁ − f₁ + g s = 0 (stick: y₁ = p, s free).
                let y1 = if case.slip_sign == 0 {
                    p
                } else {
                    (f[0] - weight * s) / h[0][0]
                };
                let lambda = h[1][0] * y1 - f[1];
                let friction_ok = if case.slip_sign == 0 {
                    (f[0] - h[0][0] * p).abs() <= weight + tol
                } else {
                    s * (y1 - p) > 0.0
                };
                ([y1, 0.0], lambda, friction_ok && lambda >= -tol)
            } else if case.slip_sign == 0 {
                // y₂ > 0, λ = 0, y₁ = p: the normal equation fixes y₂.
                let y2 = (f[1] - h[1][0] * p) / h[1][1];
                let friction = f[0] - h[0][0] * p - h[0][1] * y2;
                ([p, y2], 0.0, y2 > 0.0 && friction.abs() <= weight + tol)
            } else {
                // y₂ > 0, λ = 0, slip: Hy = (f₁ − g s, f₂).
                let r = [f[0] - weight * s, f[1]];
                let y = [
                    (h[1][1] * r[0] - h[0][1] * r[1]) / det,
                    (h[0][0] * r[1] - h[1][0] * r[0]) / det,
                ];
                (y, 0.0, y[1] > 0.0 && s * (y[0] - p) > 0.0)
            };
            if !ok {
                continue;
            }
            match held.as_mut() {
                None => {
                    held = Some(Increment {
                        z,
                        case,
                        normal_multiplier: if case.contact { lambda } else { 0.0 },
                        tie: false,
                    })
                }
                Some(first) => {
                    let gap = distance(first.z, z);
                    if gap > TIE_TOLERANCE * (1.0 + z[0].abs() + z[1].abs()) {
                        return Err(IncrementError::SeveralCases {
                            step,
                            time: t,
                            first: first.case.name(),
                            second: case.name(),
                            distance: gap,
                        });
                    }
                    first.tie = true;
                }
            }
        }
        held.ok_or(IncrementError::NoCase {
            step,
            time: t,
            weight,
        })
    }

    /// The checks of step k (docs/schmid_mielke.md, "Checks per step").
    pub(crate) fn step_checks(
        &self,
        t_previous: f64,
        z_previous: [f64; 2],
        t: f64,
        z: [f64; 2],
    ) -> StepChecks {
        let weight = self.friction_weight(t_previous, z_previous);
        let dissipation = weight * (z[0] - z_previous[0]).abs();
        let sigma = self.normal_force(t, z);
        let tangential = self.energy_gradient(t, z)[0];
        let normal_violation = if z[1] == 0.0 { (-sigma).max(0.0) } else { 0.0 };
        StepChecks {
            energy_slack: self.energy_difference(t, z_previous, z) - dissipation,
            complementarity: (z[1] * sigma).abs(),
            stability_violation: (tangential.abs() - weight).max(normal_violation).max(0.0),
        }
    }

    /// Solve (IP) from `z0` on the partition `times` (t_0 < … < t_N).
    pub(crate) fn solve_incremental(
        &self,
        z0: [f64; 2],
        times: &[f64],
    ) -> Result<IncrementalPath, IncrementError> {
        let mut positions = vec![z0];
        let mut increments = Vec::with_capacity(times.len());
        let mut checks = Vec::with_capacity(times.len());
        for (k, w) in times.windows(2).enumerate() {
            let previous = positions[k];
            let weight = self.friction_weight(w[0], previous);
            let inc = self.increment(k + 1, w[1], previous, weight)?;
            checks.push(self.step_checks(w[0], previous, w[1], inc.z));
            positions.push(inc.z);
            increments.push(inc);
        }
        Ok(IncrementalPath {
            times: times.to_vec(),
            positions,
            increments,
            checks,
        })
    }
}

/// The uniform partition t_k = kT/N, k = 0 … N.
pub(crate) fn uniform_partition(t_end: f64, steps: usize) -> Vec<f64> {
    (0..=steps)
        .map(|k| t_end * k as f64 / steps as f64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn klarbring() -> QuasistaticProblem {
        QuasistaticProblem {
            stiffness: [[0.8, 1.0], [1.0, 4.0]],
            load_at_zero: [0.3, -2.0],
            load_rate: [0.0, 1.0],
            friction: FrictionProfile {
                mu_before: 0.6,
                mu_after: 0.2,
                ramp_start: 0.5,
                ramp_end: 1.5,
            },
        }
    }

    /// J(y) = E(t, y) + g|y₁ − p| on A, evaluated directly.
    fn objective(p: &QuasistaticProblem, t: f64, prev: [f64; 2], g: f64, y: [f64; 2]) -> f64 {
        p.energy(t, y) + g * (y[0] - prev[0]).abs()
    }

    /// The KKT solution is the minimiser: no admissible point of a fine grid around it, and
    /// no point on the axes y₁ = p and y₂ = 0, does better (an independent brute-force check),
    /// over loads that visit all six cases.
    #[test]
    fn increment_is_the_minimiser_in_every_case() {
        let p = klarbring();
        let mut seen = std::collections::BTreeSet::new();
        for (i, &(prev, g, t)) in [
            ([0.0, 0.0], 0.5, 0.0),
            ([2.0, 0.0], 0.5, 0.0),
            ([-2.0, 0.0], 0.5, 0.0),
            ([0.0, 0.0], 0.5, 4.0),
            ([3.0, 0.0], 0.2, 4.0),
            ([-3.0, 0.0], 0.2, 4.0),
            ([0.2, 0.5], 0.0, 3.0),
            ([0.1, 0.0], 1.0, 1.5),
        ]
        .iter()
        .enumerate()
        {
            let inc = p.increment(i, t, prev, g).unwrap();
            seen.insert(inc.case.name());
            let best = objective(&p, t, prev, g, inc.z);
            for a in -40..=40 {
                for b in -40..=40 {
                    let y = [
                        inc.z[0] + 0.025 * f64::from(a),
                        (inc.z[1] + 0.025 * f64::from(b)).max(0.0),
                    ];
                    let value = objective(&p, t, prev, g, y);
                    assert!(value >= best - 1e-12, "{i}: {y:?} beats {inc:?}");
                }
            }
            for a in -200..=200 {
                let y = [prev[0], 0.01 * f64::from(a).abs()];
                assert!(objective(&p, t, prev, g, y) >= best - 1e-12);
                let y = [prev[0] + 0.01 * f64::from(a), 0.0];
                assert!(objective(&p, t, prev, g, y) >= best - 1e-12);
            }
        }
        assert_eq!(seen.len(), 6, "cases visited: {seen:?}");
    }

    /// A non-positive-definite H has no unique minimiser: an error, not a panic.
    #[test]
    fn an_indefinite_stiffness_is_an_error() {
        let mut p = klarbring();
        p.stiffness = [[-1.0, 0.0], [0.0, 1.0]];
        assert!(p.increment(3, 0.0, [0.0, 0.0], 0.1).is_err());
    }

    #[test]
    fn friction_profile_is_the_papers_and_integrates_exactly() {
        let m = FrictionProfile {
            mu_before: 0.6,
            mu_after: 0.2,
            ramp_start: 2.0,
            ramp_end: 3.0,
        };
        assert_eq!(m.at(1.0), 0.6);
        assert!((m.at(2.5) - 0.4).abs() < 1e-15);
        assert_eq!(m.at(3.5), 0.2);
        // ∫_1^4 μ = 0.6 + 0.4 + 0.2 by the trapezoid on the ramp.
        assert!((m.integral(1.0, 4.0) - 1.2).abs() < 1e-15);
        let n = 100_000;
        let riemann: f64 = (0..n)
            .map(|i| m.at(1.5 + 2.0 * (i as f64 + 0.5) / n as f64) * 2.0 / n as f64)
            .sum();
        assert!((m.integral(1.5, 3.5) - riemann).abs() < 1e-9);
    }
}
