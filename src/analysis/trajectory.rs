//! Distances between two sampled trajectories (a compliant run and its rigid limit): pure
//! functions of the samples (docs/klarbring.md, "Distances").

/// The distances between two trajectories: sup of ‖ΔU‖ and ∫‖ΔV‖ dt over the whole run and over its
/// contact phase [0, t_contact].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TrajectoryDistances {
    /// max_t ‖U^κ − U⁰‖ over every sample.
    pub sup_position: f64,
    /// The same over the samples in [0, t_contact].
    pub sup_position_contact: f64,
    /// ∫‖V^κ − V⁰‖ dt by the trapezoidal rule over the samples.
    pub l1_velocity: f64,
    /// The same over [0, t_contact].
    pub l1_velocity_contact: f64,
}

fn norm_of_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// The distances between the trajectories sampled at increasing `times`: `positions_*[i]` and
/// `velocities_*[i]` at `times[i]`. The velocity integral is exact to the trapezoidal rule's
/// error, so the sampling must resolve the jumps (rigid impacts) and the fast phases.
pub(crate) fn trajectory_distances(
    times: &[f64],
    positions_a: &[Vec<f64>],
    positions_b: &[Vec<f64>],
    velocities_a: &[Vec<f64>],
    velocities_b: &[Vec<f64>],
    t_contact: f64,
) -> TrajectoryDistances {
    let du: Vec<f64> = positions_a
        .iter()
        .zip(positions_b)
        .map(|(a, b)| norm_of_difference(a, b))
        .collect();
    let dv: Vec<f64> = velocities_a
        .iter()
        .zip(velocities_b)
        .map(|(a, b)| norm_of_difference(a, b))
        .collect();
    let sup = |limit: f64| {
        du.iter()
            .zip(times)
            .filter(|(_, &t)| t <= limit)
            .map(|(d, _)| *d)
            .fold(0.0, f64::max)
    };
    let integral = |limit: f64| {
        let mut total = 0.0;
        for i in 1..times.len() {
            if times[i] > limit {
                break;
            }
            total += 0.5 * (dv[i] + dv[i - 1]) * (times[i] - times[i - 1]);
        }
        total
    };
    TrajectoryDistances {
        sup_position: sup(f64::INFINITY),
        sup_position_contact: sup(t_contact),
        l1_velocity: integral(f64::INFINITY),
        l1_velocity_contact: integral(t_contact),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two straight lines apart by (t, 2t): sup ‖ΔU‖ = √5·T, ∫‖ΔV‖ = √5·T (ΔV = (1, 2)).
    #[test]
    fn distances_of_diverging_lines() {
        let times: Vec<f64> = (0..=100).map(|i| i as f64 / 50.0).collect();
        let pa: Vec<Vec<f64>> = times.iter().map(|&t| vec![t, 2.0 * t]).collect();
        let pb: Vec<Vec<f64>> = times.iter().map(|_| vec![0.0, 0.0]).collect();
        let va: Vec<Vec<f64>> = times.iter().map(|_| vec![1.0, 2.0]).collect();
        let d = trajectory_distances(&times, &pa, &pb, &va, &pb, 1.0);
        let r5 = 5f64.sqrt();
        assert!((d.sup_position - 2.0 * r5).abs() < 1e-14);
        assert!((d.sup_position_contact - r5).abs() < 1e-14);
        assert!((d.l1_velocity - 2.0 * r5).abs() < 1e-13);
        assert!((d.l1_velocity_contact - r5).abs() < 1e-13);
    }
}
