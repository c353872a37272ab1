//! What a path is measured by (docs/schmid_mielke.md, "Measures"): pure functions of sampled
//! positions and the closed form — the same for the incremental path (nodes t_k) and the
//! compliant run (its samples, in slow time).

use super::closed_form::ClosedForm;
use super::quasistatic::distance;

/// Around a jump the closed form is two-valued and any approximation is far from it: the sup
/// error leaves out |t − t_jump| ≤ this (critical and supercritical cases).
pub const JUMP_WINDOW: f64 = 0.05;

/// sup over the samples of ‖z(t) − z_exact(t)‖, leaving out the window around a jump.
pub fn sup_error(cf: &ClosedForm, times: &[f64], positions: &[[f64; 2]]) -> f64 {
    times
        .iter()
        .zip(positions)
        .filter(|(t, _)| cf.jump.is_none_or(|j| (**t - j.time).abs() > JUMP_WINDOW))
        .map(|(&t, &z)| distance(z, cf.at(t)))
        .fold(0.0, f64::max)
}

/// The first sample time whose z₁ lies past the middle of the transition (the fast stretch or
/// the jump of the closed form).
pub fn first_time_past_midpoint(
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
pub fn nodes_in_transition(cf: &ClosedForm, positions: &[[f64; 2]]) -> usize {
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
