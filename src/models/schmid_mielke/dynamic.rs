//! One compliant run of a case (docs/schmid_mielke.md, "The compliant model"): the slowly
//! loaded particle of [`super::mechanics`] with the penalty law F_n = δ/κ + c_d δ̇/√κ (c_d = 1)
//! and exact Coulomb friction with μ(z₁), started at rest in the quasistatic penetration, run to
//! fast time T/ε; measured in slow time s = εt against the closed form.

use super::analysis::{crossing_time, sup_error};
use super::cells::cell;
use super::examples::{crossing_level, Example};
use super::mechanics::SlowlyLoadedParticle;
use super::spec::{Case, CompliantSetting};
use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, Event, SimulationOptions};
use crate::error::SimError;
use crate::experiment::rows::Cells;
use crate::integrate::SolverStats;

/// The dashpot of the penalty law, c_d in F_n = δ/κ + c_d δ̇/√κ: the normal oscillation's
/// damping ratio is c_d/2 at any κ.
pub(crate) const CONTACT_DAMPING: f64 = 1.0;

/// The particle of a case.
pub fn particle(case: &Case, setting: &CompliantSetting) -> SlowlyLoadedParticle {
    let problem = case.example.problem();
    SlowlyLoadedParticle {
        problem,
        epsilon: setting.epsilon,
        viscosity: SlowlyLoadedParticle::viscosity_for(&problem, setting.zeta),
    }
}

/// Simulate a case from rest at z̃ with the quasistatic penetration, to slow time T.
pub(crate) fn simulate_case(
    case: &Case,
    setting: &CompliantSetting,
    record_trajectory: bool,
) -> Result<RunRecord, SimError> {
    let system = particle(case, setting);
    let problem = ContactProblem {
        system: &system,
        compliance: NormalCompliance::spring_dashpot(setting.kappa, CONTACT_DAMPING),
        friction: Coulomb::FROM_MECHANICS,
    };
    let mut options = SimulationOptions::new(setting.integrator, setting.rtol, setting.rtol);
    options.end = EndCondition::Time(case.t_end / setting.epsilon);
    options.record_trajectory = record_trajectory;
    // A uniform grid in slow time where the integrator stops exactly: the sup norm and the
    // crossing see the motion between long steps.
    let t_end = case.t_end / setting.epsilon;
    options.output_times = (1..=OUTPUT_POINTS)
        .map(|j| t_end * j as f64 / OUTPUT_POINTS as f64)
        .collect();
    let z0 = system.rest_position(case.example.initial_position()[0], setting.kappa);
    simulate(&problem, &z0, &[0.0, 0.0], &options)
}

/// The uniform output grid of a run: this many points in (0, T].
pub(crate) const OUTPUT_POINTS: usize = 3000;

/// A run's samples in slow time, in time order (the step ends and the output grid merged):
/// s = εt, z, and dz₁/ds = ż₁/ε.
pub(crate) struct SlowSamples {
    pub s: Vec<f64>,
    pub z: Vec<[f64; 2]>,
    pub z1_rate: Vec<f64>,
}

pub(crate) fn slow_samples(record: &RunRecord, epsilon: f64) -> SlowSamples {
    let mut samples: Vec<&crate::compliant::record::Sample> = record
        .trajectory
        .iter()
        .flatten()
        .chain(&record.outputs)
        .collect();
    samples.sort_by(|a, b| a.t.total_cmp(&b.t));
    SlowSamples {
        s: samples.iter().map(|p| epsilon * p.t).collect(),
        z: samples.iter().map(|p| [p.q[0], p.q[1]]).collect(),
        z1_rate: samples.iter().map(|p| p.qdot[0] / epsilon).collect(),
    }
}

/// The μ₁ branch of §4.1, 1 + (as − σ*μ₁)/H₁₁: where the particle slides after the ramp.
pub(crate) fn mu1_branch(example: &Example, s: f64) -> Option<f64> {
    match example {
        Example::VaryingFriction(p) => Some(1.0 + (p.load_rate * s - p.sigma_star * p.mu1) / p.h11),
        Example::VaryingNormalForce(_) => None,
    }
}

/// The measures of a compliant run (docs/schmid_mielke.md, "Measures").
pub fn measure(case: &Case, setting: &CompliantSetting, record: &RunRecord) -> Cells {
    let cf = case.closed_form();
    let run = slow_samples(record, setting.epsilon);
    let sign = match case.example {
        Example::VaryingFriction(_) => 1.0,
        Example::VaryingNormalForce(_) => -1.0,
    };
    let z1: Vec<f64> = run.z.iter().map(|z| z[0]).collect();
    let crossing = crossing_time(
        &run.s,
        &z1,
        &run.z1_rate,
        crossing_level(&case.example),
        sign,
    );
    // After t₂, the height above the μ₁ branch: the landing of the jump, or an overshoot.
    let excursion = cf.breakpoints.get(1).and_then(|&t2| {
        run.s
            .iter()
            .zip(&z1)
            .filter(|(s, _)| **s > t2)
            .filter_map(|(&s, &z)| Some(z - mu1_branch(&case.example, s)?))
            .reduce(f64::max)
    });
    let after = crossing
        .or(cf.jump.map(|j| j.time))
        .unwrap_or(f64::INFINITY);
    let recontacts = record
        .events
        .iter()
        .filter(|e| e.event == Event::ContactCloses && setting.epsilon * e.t > after)
        .count();
    let e = &record.energy;
    let opt = |v: Option<f64>| v.map(cell).unwrap_or_default();
    vec![
        ("sup_error", cell(sup_error(&cf, &run.s, &run.z))),
        ("crossing_time", opt(crossing)),
        ("excursion", opt(excursion)),
        ("recontacts", recontacts.to_string()),
        ("z1_end", cell(record.final_q[0])),
        ("z2_end", cell(record.final_q[1])),
        ("load_work", cell(e.load_work)),
        ("friction_work", cell(e.friction_work)),
        ("viscous_work", cell(e.viscous_work)),
        ("dashpot_work", cell(e.damping_work)),
        ("energy_balance_error", cell(e.balance_error)),
    ]
}

/// Run one compliant case: its cells and work counters, or the error's text.
pub fn run_compliant(
    case: &Case,
    setting: &CompliantSetting,
) -> Result<(Cells, SolverStats), String> {
    let record = simulate_case(case, setting, true).map_err(|e| e.to_string())?;
    Ok((measure(case, setting, &record), record.stats))
}
