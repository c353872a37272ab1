//! Dance's particle on a compliant plane (docs/dance.md, "Compliant runs"): the spatial Coulomb
//! formulation of [`crate::compliant::spatial`] on Klarbring's particle with K = 0 and the load
//! (1, 1, t), through the sign map between Dance's convention (u^n ≥ 0) and Ballard–Basseville's
//! (U_N ≤ 0), and the distances of each run to the rigid motion (series below t₀, rigid
//! numerics above).

use super::rigid::rigid_from_series;
use super::rigid::{RigidState, SeriesLogs};
use crate::compliant::cone::ConeMode;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::spatial::{simulate_spatial, RunSettings, SpatialContactProblem};
use crate::error::SimError;
use crate::hybrid::Named;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::models::klarbring::mechanics::{KlarbringParticle, LoadComponent};
use serde::{Deserialize, Serialize};

/// How a compliant run starts (both at rest in the tangent, u^t = v^t = 0).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// On the plane, δ = δ̇ = 0: the normal force rises from 0 through the transient of
    /// δ'' = 1 − δ/κ − c_d δ̇/√κ.
    Rest,
    /// At the static penetration δ = κ, δ̇ = 0: F_n = 1 from the start.
    Equilibrium,
}

impl Start {
    pub fn name(self) -> &'static str {
        match self {
            Start::Rest => "rest",
            Start::Equilibrium => "equilibrium",
        }
    }
}

/// The sign map between Dance's convention and BB's (docs/dance.md, "Sign map"):
/// U_N = −u^n, U_T = u^t, F_N = −F^n, F_T = F^t; the penetration is δ = U_N = −u^n.
pub(crate) const NORMAL_SIGN: f64 = -1.0;

/// Dance's normal force F^n (his convention: pressing toward u^n < 0).
pub(crate) const DANCE_NORMAL_FORCE: f64 = -1.0;

/// Dance's load F = (F^n, F^t) = (−1, 1, t) in BB's convention: (F_N, F_T) = (1, 1, t).
pub(crate) fn dance_particle() -> Result<KlarbringParticle<3>, SimError> {
    let normal = LoadComponent {
        constant: NORMAL_SIGN * DANCE_NORMAL_FORCE,
        ..Default::default()
    };
    let along = LoadComponent {
        constant: 1.0,
        ..Default::default()
    };
    let across = LoadComponent {
        polynomial: vec![1.0],
        ..Default::default()
    };
    KlarbringParticle::new([[0.0; 3]; 3], [normal, along, across], "stiffness")
}

/// The end of the comparison window [0, 2] (docs/dance.md).
pub const COMPARE_UNTIL: f64 = 2.0;
/// The first log-spaced sample.
pub const FIRST_SAMPLE: f64 = 1e-9;
/// Log-spaced samples per decade from [`FIRST_SAMPLE`] to [`COMPARE_UNTIL`].
pub(crate) const SAMPLES_PER_DECADE: usize = 40;
/// Uniform samples on (0, [`COMPARE_UNTIL`]].
pub(crate) const UNIFORM_SAMPLES: usize = 4_000;

/// Samples per unit of the fast time s = t/√κ on (0, [`TRANSIENT_SPAN`]].
pub(crate) const TRANSIENT_SAMPLES_PER_UNIT: usize = 50;
/// The span in s = t/√κ of the transient grid: the normal transient decays as e^(−s/2) or
/// faster (c_d ≥ 1), to 5e-5 by s = 20.
pub(crate) const TRANSIENT_SPAN: f64 = 20.0;

/// Log-spaced times from [`FIRST_SAMPLE`] up to (not including) [`COMPARE_UNTIL`].
pub fn log_times() -> Vec<f64> {
    let decades = (COMPARE_UNTIL / FIRST_SAMPLE).log10();
    let n_log = (decades * SAMPLES_PER_DECADE as f64).ceil() as usize;
    (0..n_log)
        .map(|i| FIRST_SAMPLE * (COMPARE_UNTIL / FIRST_SAMPLE).powf(i as f64 / n_log as f64))
        .collect()
}

/// A uniform grid in s = t/√κ across the normal transient, below [`COMPARE_UNTIL`].
pub fn transient_times(kappa: f64) -> Vec<f64> {
    let n_fast = (TRANSIENT_SPAN * TRANSIENT_SAMPLES_PER_UNIT as f64) as usize;
    (1..=n_fast)
        .map(|i| kappa.sqrt() * i as f64 / TRANSIENT_SAMPLES_PER_UNIT as f64)
        .filter(|&s| s < COMPARE_UNTIL)
        .collect()
}

/// Sorted, without near-duplicates (relative 1e-12).
fn sorted_distinct(mut t: Vec<f64>) -> Vec<f64> {
    t.sort_by(f64::total_cmp);
    t.dedup_by(|a, b| *a - *b <= 1e-12 * *b);
    t
}

/// The sample times of a comparison at κ: [`log_times`] from 1e-9, a uniform grid on (0, 2],
/// and [`transient_times`] (where the velocity distance peaks), sorted and distinct; the last
/// is [`COMPARE_UNTIL`].
pub fn sample_times(kappa: f64) -> Vec<f64> {
    let mut t = log_times();
    t.extend((1..=UNIFORM_SAMPLES).map(|i| COMPARE_UNTIL * i as f64 / UNIFORM_SAMPLES as f64));
    t.extend(transient_times(kappa));
    sorted_distinct(t)
}

/// The times of the velocity figure: thinned [`log_times`] and [`transient_times`], and
/// [`COMPARE_UNTIL`].
pub(crate) fn figure_times(kappa: f64) -> Vec<f64> {
    // Every other log sample and every fifth transient one: enough for a line, a fifth of
    // the table.
    let mut t: Vec<f64> = log_times().into_iter().step_by(2).collect();
    t.extend(transient_times(kappa).into_iter().step_by(5));
    t.push(COMPARE_UNTIL);
    sorted_distinct(t)
}

/// The rigid motion (Dance's convention) at increasing `times` in (0, 2]: the series'
/// optimal truncation at t ≤ t₀, the rigid numerics from it after.
pub fn rigid_motion(
    mu: f64,
    logs: &SeriesLogs,
    t_series: f64,
    times: &[f64],
    integrator: IntegratorKind,
    tolerances: Tolerances,
) -> Result<Vec<RigidState>, SimError> {
    let mut out: Vec<RigidState> = times
        .iter()
        .filter(|&&t| t <= t_series)
        .map(|&t| logs.state_at(t).state)
        .collect();
    let later: Vec<f64> = times.iter().copied().filter(|&t| t > t_series).collect();
    let (numerics, _) = rigid_from_series(mu, logs, t_series, &later, integrator, tolerances)?;
    out.extend(numerics);
    Ok(out)
}

/// One compliant run at κ: its state at the sample times in Dance's convention, its events
/// and the normal force.
#[derive(Clone, Debug)]
pub struct CompliantRun {
    /// (t, u^t, v^t, F_n) at the sample times.
    pub samples: Vec<(f64, [f64; 2], [f64; 2], f64)>,
    /// The events (time, kind) in order: `slip`, `stop`, `contact_opens`, `contact_closes`.
    pub events: Vec<(f64, &'static str)>,
    pub modes: Vec<&'static str>,
    /// (u^t, v^t) at t_end.
    pub end: ([f64; 2], [f64; 2]),
    pub stats: SolverStats,
}

/// Run the compliant particle with friction μ, normal law δ/κ + c_d δ̇/√κ, from `start`, to
/// the sample `times` (increasing, in (0, t_end]).
#[allow(clippy::too_many_arguments)]
pub fn run_compliant(
    mu: f64,
    start: Start,
    damping: f64,
    kappa: f64,
    times: &[f64],
    t_end: f64,
    integrator: IntegratorKind,
    tolerances: Tolerances,
) -> Result<CompliantRun, SimError> {
    let particle = dance_particle()?;
    let compliance = NormalCompliance::spring_dashpot(kappa, damping);
    let problem = SpatialContactProblem::<_, 3, 2> {
        system: &particle,
        compliance,
        mu,
    };
    // δ = U_N (BB): the static penetration of the unit load is κ (F_n = δ/κ = 1).
    let delta0 = match start {
        Start::Rest => 0.0,
        Start::Equilibrium => kappa,
    };
    let y0 = problem.initial_state(&[delta0, 0.0, 0.0], &[0.0; 3]);
    let settings = RunSettings {
        integrator,
        tolerances,
        t_end,
        output_times: times.to_vec(),
        max_steps: crate::compliant::DEFAULT_MAX_STEPS,
        max_events: crate::compliant::DEFAULT_MAX_EVENTS,
    };
    let run = simulate_spatial(&problem, &y0, &settings, None)?;
    let samples = run
        .outputs
        .iter()
        .map(|(t, mode, y)| {
            let normal = if *mode == ConeMode::Free {
                0.0
            } else {
                compliance.closed_contact_force(y[0], y[3])
            };
            (*t, [y[1], y[2]], [y[4], y[5]], normal)
        })
        .collect();
    Ok(CompliantRun {
        samples,
        events: run.events.iter().map(|e| (e.t, e.event.name())).collect(),
        modes: run.trace.phases.iter().map(|p| p.mode.name()).collect(),
        end: (
            [run.trace.y_end[1], run.trace.y_end[2]],
            [run.trace.y_end[4], run.trace.y_end[5]],
        ),
        stats: run.trace.stats,
    })
}

/// sup‖u^κ − u‖ and sup‖v^κ − v‖ over the samples, with the times where they are reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupDistances {
    pub position: f64,
    pub position_at: f64,
    pub velocity: f64,
    pub velocity_at: f64,
}

/// The sup distances of the compliant samples to the rigid ones (same times).
pub fn sup_distances(compliant: &CompliantRun, rigid: &[RigidState]) -> SupDistances {
    let mut d = SupDistances {
        position: 0.0,
        position_at: 0.0,
        velocity: 0.0,
        velocity_at: 0.0,
    };
    for ((t, u, v, _), r) in compliant.samples.iter().zip(rigid) {
        let du = (u[0] - r.u[0]).hypot(u[1] - r.u[1]);
        let dv = (v[0] - r.v[0]).hypot(v[1] - r.v[1]);
        if du > d.position {
            d.position = du;
            d.position_at = *t;
        }
        if dv > d.velocity {
            d.velocity = dv;
            d.velocity_at = *t;
        }
    }
    d
}

/// The normal transient from rest in the fast time s = t/√κ (docs/dance.md, (D12)–(D14)):
/// δ = κ x(s) with x'' + c_d x' + x = 1, x(0) = x'(0) = 0, and F_n = x + c_d x' = 1 − x''.
/// Closed forms for the underdamped (0 < c_d < 2) and the critical (c_d = 2) law.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalTransient {
    /// ζ = c_d/2.
    pub zeta: f64,
}

impl NormalTransient {
    /// The transient of damping c_d, or `None` outside (0, 2].
    pub fn new(damping: f64) -> Option<Self> {
        (damping > 0.0 && damping <= 2.0).then_some(NormalTransient {
            zeta: damping / 2.0,
        })
    }

    /// ω = √(1 − ζ²).
    fn omega(&self) -> f64 {
        (1.0 - self.zeta * self.zeta).sqrt()
    }

    fn critical(&self) -> bool {
        self.zeta == 1.0
    }

    /// x(s).
    pub fn x(&self, s: f64) -> f64 {
        let (z, w) = (self.zeta, self.omega());
        if self.critical() {
            1.0 - (1.0 + s) * (-s).exp()
        } else {
            1.0 - (-z * s).exp() * ((w * s).cos() + z / w * (w * s).sin())
        }
    }

    /// x'(s): the scaled sliding velocity deficit, (D13).
    pub fn x_dot(&self, s: f64) -> f64 {
        let (z, w) = (self.zeta, self.omega());
        if self.critical() {
            s * (-s).exp()
        } else {
            (-z * s).exp() * (w * s).sin() / w
        }
    }

    /// max_s x'(s): e^(−ζ s_m) at ω s_m = atan2(ω, ζ) (1/e at ζ = 1).
    pub(crate) fn peak_x_dot(&self) -> f64 {
        if self.critical() {
            (-1.0f64).exp()
        } else {
            let s = self.omega().atan2(self.zeta) / self.omega();
            (-self.zeta * s).exp()
        }
    }

    /// sup_s x(s): 1 + e^(−ζπ/ω) (the first overshoot) or 1 at ζ = 1 (reached as s → ∞).
    pub(crate) fn peak_x(&self) -> f64 {
        if self.critical() {
            1.0
        } else {
            1.0 + (-self.zeta * std::f64::consts::PI / self.omega()).exp()
        }
    }

    /// μ = 1, ζ < 1: the scaled time of the stop, the first zero of x' (ωs = π), (D15).
    pub fn stop(&self) -> Option<f64> {
        (!self.critical()).then(|| std::f64::consts::PI / self.omega())
    }

    /// μ = 1, ζ < 1: the scaled end of the stick, where F_n falls back to 1, x'' = 0 after the
    /// stop: ωs = π + atan2(ω, ζ), (D16).
    pub fn stick_end(&self) -> Option<f64> {
        (!self.critical())
            .then(|| (std::f64::consts::PI + self.omega().atan2(self.zeta)) / self.omega())
    }

    /// μ = 1, ζ < 1: the velocity that slip keeps after the stick, −x'(s₁)·√κ = e^(−ζ s₁)·√κ
    /// (D17), in units of √κ.
    pub(crate) fn residual_velocity(&self) -> Option<f64> {
        self.stick_end().map(|s| -self.x_dot(s))
    }
}

/// The predicted κ → 0 constants of one compliant case from rest (docs/dance.md, (D13)–(D17)):
/// sup‖v^κ − v‖/√κ → μ max x', and, when the slip never stops, sup‖u^κ − u‖/κ → μ sup x.
pub(crate) fn predicted_constants(mu: f64, damping: f64) -> Option<(f64, Option<f64>)> {
    let n = NormalTransient::new(damping)?;
    let stops = mu == 1.0 && n.stop().is_some();
    Some((mu * n.peak_x_dot(), (!stops).then(|| mu * n.peak_x())))
}

/// The predicted exponents p of sup‖u^κ − u‖ ∝ κ^p and sup‖v^κ − v‖ ∝ κ^p on [0, 2] of one
/// compliant case (docs/dance.md, (D13)–(D18)). From rest the velocity differs by μx'(s)√κ
/// (1/2), the position by μx(s)κ (1) unless the slip stops and sticks (μ = 1, c_d < 2): the
/// slide then keeps the velocity e^(−ζs₁)√κ (D17) and the position drifts by O(√κ) (1/2).
/// From the static penetration the compliant slide is the rigid one but for the slip seed,
/// the same at every κ (0). `None` where no transient is derived (c_d outside (0, 2]).
pub(crate) fn predicted_exponents(
    mu: f64,
    start: Start,
    damping: f64,
) -> (Option<f64>, Option<f64>) {
    match start {
        Start::Equilibrium => (Some(0.0), Some(0.0)),
        Start::Rest => match predicted_constants(mu, damping) {
            Some((_, Some(_))) => (Some(1.0), Some(0.5)),
            Some((_, None)) => (Some(0.5), Some(0.5)),
            None => (None, None),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed forms solve x'' + c_d x' + x = 1 from rest (finite differences), and the
    /// c_d = 1 numbers of docs/dance.md.
    #[test]
    fn normal_transient_solves_its_equation() {
        for c_d in [0.5, 1.0, 2.0] {
            let n = NormalTransient::new(c_d).unwrap();
            assert!(n.x(0.0).abs() < 1e-15 && n.x_dot(0.0).abs() < 1e-15);
            let h = 1e-4;
            for s in [0.3, 1.7, 4.2] {
                let xdd = (n.x(s + h) - 2.0 * n.x(s) + n.x(s - h)) / (h * h);
                let xd = (n.x(s + h) - n.x(s - h)) / (2.0 * h);
                assert!(
                    (xdd + c_d * xd + n.x(s) - 1.0).abs() < 1e-6,
                    "c_d {c_d} s {s}"
                );
                assert!((xd - n.x_dot(s)).abs() < 1e-8);
            }
            // The peaks are maxima of the sampled curves.
            let grid = (0..40_000).map(|i| i as f64 * 1e-3);
            let (mx, mxd) = grid.fold((0.0f64, 0.0f64), |(a, b), s| {
                (a.max(n.x(s)), b.max(n.x_dot(s)))
            });
            assert!((mxd - n.peak_x_dot()).abs() < 1e-6);
            assert!(mx <= n.peak_x() + 1e-12 && mx > n.peak_x() - 1e-3);
        }
        let n = NormalTransient::new(1.0).unwrap();
        let root3 = 3f64.sqrt();
        assert!((n.stop().unwrap() - 2.0 * std::f64::consts::PI / root3).abs() < 1e-14);
        assert!(
            (n.stick_end().unwrap() - 8.0 * std::f64::consts::PI / (3.0 * root3)).abs() < 1e-14
        );
        let x_dd = |s: f64| (n.x_dot(s + 1e-6) - n.x_dot(s - 1e-6)) / 2e-6;
        assert!(x_dd(n.stick_end().unwrap()).abs() < 1e-8);
        assert!(n.x_dot(n.stop().unwrap()).abs() < 1e-15);
        let expected = (-4.0 * std::f64::consts::PI / (3.0 * root3)).exp();
        assert!((n.residual_velocity().unwrap() - expected).abs() < 1e-15);
    }

    #[test]
    fn sample_times_reach_down_to_1e_9_and_end_at_2() {
        let t = sample_times(1e-6);
        assert_eq!(t[0], FIRST_SAMPLE);
        assert_eq!(*t.last().unwrap(), COMPARE_UNTIL);
        assert!(t.windows(2).all(|w| w[1] > w[0]));
        assert!(t.contains(&0.5) && t.contains(&1.0));
    }

    /// Dance's load in BB's convention presses the particle into the plane: F_N = −F^n = 1.
    #[test]
    fn sign_map_presses_into_the_plane() {
        let p = dance_particle().unwrap();
        let f = p.force(0.7);
        assert_eq!(f, [1.0, 1.0, 0.7]);
    }
}
