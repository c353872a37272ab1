//! What a path is measured by (docs/schmid_mielke.md, "Measures"): pure functions of sampled
//! positions and the closed form — the same for the incremental path (nodes t_k) and the
//! compliant run (its samples, in slow time).

use super::closed_form::{varying_normal_force, ClosedForm};
use super::examples::{Regime, VaryingNormalForce};
use super::quasistatic::distance;
use serde::Serialize;

/// Around a jump the closed form is two-valued and any approximation is far from it: the sup
/// error leaves out |t − t_jump| ≤ this (critical and supercritical cases).
pub(crate) const JUMP_WINDOW: f64 = 0.05;

/// sup over the samples of ‖z(t) − z_exact(t)‖, leaving out the window around a jump.
pub fn sup_error(cf: &ClosedForm, times: &[f64], positions: &[[f64; 2]]) -> f64 {
    times
        .iter()
        .zip(positions)
        .filter(|(t, _)| cf.jump.is_none_or(|j| (**t - j.time).abs() > JUMP_WINDOW))
        .map(|(&t, &z)| distance(z, cf.at(t)))
        .fold(0.0, f64::max)
}

/// §4.2's sliding branch as the paper prints it, z₁(t) = −a f₂(t)/(H₁₁ − μ*H₁₂) with
/// f₂ = f* + at: a misprint for (SM6), −μ* f₂/(H₁₁ − μ*H₁₂) (docs/schmid_mielke.md, "Typo").
pub(crate) fn printed_sliding_branch(p: &VaryingNormalForce, t: f64) -> f64 {
    -p.load_rate * (p.f_star + p.load_rate * t) / (p.h11 - p.mu_star * p.h12)
}

/// A path's slide of §4.2 against the printed branch and against (SM6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SlidingBranchErrors {
    /// The slide t₁ ≤ t ≤ t₂ of (SM5)–(SM6).
    pub t1: f64,
    pub t2: f64,
    /// The path's samples inside the slide.
    pub nodes: usize,
    /// sup |z₁ − printed branch| and sup |z₁ − (SM6)| over those samples.
    pub sup_error_printed: f64,
    pub sup_error_corrected: f64,
    /// The printed branch at t₁, where the solution leaves z̃ = (1, 0) (z₁ = 1).
    pub printed_at_t1: f64,
}

/// The sliding branch of a sub-critical §4.2 case against a sampled path `(t, z₁)`; `None`
/// when the case does not slide (critical or supercritical) or no sample lies in the slide.
pub(crate) fn sliding_branch_errors(
    p: &VaryingNormalForce,
    regime: Regime,
    path: &[(f64, f64)],
) -> Option<SlidingBranchErrors> {
    if regime != Regime::Subcritical {
        return None;
    }
    let cf = varying_normal_force(p, regime);
    let (t1, t2) = (cf.breakpoints[0], cf.breakpoints[1]);
    let slide: Vec<(f64, f64)> = path
        .iter()
        .copied()
        .filter(|(t, _)| (t1..=t2).contains(t))
        .collect();
    if slide.is_empty() {
        return None;
    }
    let sup = |f: &dyn Fn(f64) -> f64| {
        slide
            .iter()
            .map(|(t, z1)| (z1 - f(*t)).abs())
            .fold(0.0, f64::max)
    };
    Some(SlidingBranchErrors {
        t1,
        t2,
        nodes: slide.len(),
        sup_error_printed: sup(&|t| printed_sliding_branch(p, t)),
        sup_error_corrected: sup(&|t| cf.at(t)[0]),
        printed_at_t1: printed_sliding_branch(p, t1),
    })
}

/// The first sample time whose z₁ lies past the middle of the transition (the fast stretch or
/// the jump of the closed form).
pub(crate) fn first_time_past_midpoint(
    cf: &ClosedForm,
    times: &[f64],
    positions: &[[f64; 2]],
) -> Option<f64> {
    times
        .iter()
        .zip(positions)
        .find(|(_, z)| cf.transition.is_past(z[0], 0.5))
        .map(|(&t, _)| t)
}

/// How many samples lie inside 5–95 % of the transition.
pub(crate) fn nodes_in_transition(cf: &ClosedForm, positions: &[[f64; 2]]) -> usize {
    positions
        .iter()
        .filter(|z| cf.transition.is_past(z[0], 0.05) && !cf.transition.is_past(z[0], 0.95))
        .count()
}

/// The first time z₁ reaches `level` in the direction `sign` (+1 upwards, −1 downwards), by
/// cubic Hermite interpolation between samples (positions and velocities); `None` if never.
pub fn crossing_time(
    times: &[f64],
    z1: &[f64],
    z1_rate: &[f64],
    level: f64,
    sign: f64,
) -> Option<f64> {
    let above = |x: f64| sign * (x - level) >= 0.0;
    let i = (1..times.len()).find(|&i| !above(z1[i - 1]) && above(z1[i]))?;
    let (t0, t1) = (times[i - 1], times[i]);
    let h = t1 - t0;
    if h <= 0.0 {
        return Some(t1);
    }
    let hermite = |s: f64| {
        let (s2, s3) = (s * s, s * s * s);
        (2.0 * s3 - 3.0 * s2 + 1.0) * z1[i - 1]
            + (s3 - 2.0 * s2 + s) * h * z1_rate[i - 1]
            + (-2.0 * s3 + 3.0 * s2) * z1[i]
            + (s3 - s2) * h * z1_rate[i]
            - level
    };
    // Bisection on the bracket [0, 1] (the endpoints straddle the level).
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if above(hermite(mid) + level) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(t0 + hi * h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_branch_misses_the_slide_by_its_factor_a_over_mu() {
        use crate::models::schmid_mielke::closed_form::tests::example2;
        use crate::models::schmid_mielke::examples::Example;
        let Example::VaryingNormalForce(mut p) = example2(1.0) else {
            unreachable!()
        };
        // The slide of (SM6) sampled exactly: (SM6) fits to rounding, and the printed branch
        // is a/μ* times it, so it misses by (a/μ* − 1)·max z₁ = (a/μ* − 1) at t₁ (z₁ = 1);
        // at a = μ* the two coincide.
        for (a, miss) in [(1.0, 1.0), (0.5, 0.0), (2.0, 3.0)] {
            p.load_rate = a;
            let cf = varying_normal_force(&p, Regime::Subcritical);
            let (t1, t2) = (cf.breakpoints[0], cf.breakpoints[1]);
            let path: Vec<(f64, f64)> = (0..=100)
                .map(|i| {
                    let t = t1 + (t2 - t1) * f64::from(i) / 100.0;
                    (t, cf.at(t)[0])
                })
                .collect();
            let e = sliding_branch_errors(&p, Regime::Subcritical, &path).unwrap();
            assert_eq!(e.nodes, 101);
            assert!(e.sup_error_corrected < 1e-12, "{e:?}");
            assert!((e.sup_error_printed - miss).abs() < 1e-12, "a {a}: {e:?}");
            assert!((e.printed_at_t1 - 1.0 - miss).abs() < 1e-12);
        }
        assert!(sliding_branch_errors(&p, Regime::Critical, &[(1.0, 1.0)]).is_none());
    }

    #[test]
    fn hermite_crossing_of_a_cubic_is_exact() {
        // z = t³ sampled coarsely: the Hermite interpolant is exact; z = 0.5 at t = 0.5^(1/3).
        let times = [0.0, 0.7, 1.4];
        let z: Vec<f64> = times.iter().map(|t| t * t * t).collect();
        let v: Vec<f64> = times.iter().map(|t| 3.0 * t * t).collect();
        let t = crossing_time(&times, &z, &v, 0.5, 1.0).unwrap();
        assert!((t - 0.5f64.cbrt()).abs() < 1e-14, "{t}");
        assert!(crossing_time(&times, &z, &v, 5.0, 1.0).is_none());
        let zn: Vec<f64> = z.iter().map(|x| -x).collect();
        let vn: Vec<f64> = v.iter().map(|x| -x).collect();
        let t = crossing_time(&times, &zn, &vn, -0.5, -1.0).unwrap();
        assert!((t - 0.5f64.cbrt()).abs() < 1e-14, "{t}");
    }
}
