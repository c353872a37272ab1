//! One point of a Klarbring experiment: the rigid reference, and (with the compliant
//! formulation) the penalty run against it, as the cells of a runs.csv row.

use super::params::{Params, Particle};
use crate::analysis::trajectory::trajectory_distances;
use crate::cells;
use crate::compliant::cone::ConeMode;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::spatial::{
    direction_index, simulate_spatial, RunSettings, SpatialContactProblem, SpatialEvent, SpatialRun,
};
use crate::compliant::spatial_measured::MeasuredSpatialContact;
use crate::error::SimError;
use crate::hybrid::Named;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::model::ContactSystem;
use crate::models::klarbring::mechanics::KlarbringParticle;
use crate::report::table::{Cell, Table};
use crate::rigid::{RigidEvent, RigidProblem};
use serde::{Deserialize, Serialize};

/// The times at which the state is written into the row (those before `t_end`, and `t_end`).
pub(crate) const CHECKPOINTS: [f64; 4] = [2.0, 5.0, 8.0, 11.0];

/// The checkpoints of a run to `t_end`.
pub(crate) fn checkpoint_times(t_end: f64) -> Vec<f64> {
    let mut t: Vec<f64> = CHECKPOINTS.iter().copied().filter(|&c| c < t_end).collect();
    t.push(t_end);
    t
}

/// Space-separated numbers in their shortest round-trip form.
pub fn joined(values: &[f64]) -> String {
    values
        .iter()
        .map(|&v| crate::error::number_text(v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The mode of each phase, a one-tangent slide named by its direction (`slide+`, `slide-`).
pub(crate) fn mode_names<E>(run: &SpatialRun<E>, n: usize, d: usize) -> Vec<String> {
    run.trace
        .phases
        .iter()
        .map(|p| match p.mode {
            ConeMode::Slide if d == 1 => {
                if p.y_end[direction_index(n)] > 0.0 {
                    "slide+".to_string()
                } else {
                    "slide-".to_string()
                }
            }
            m => m.name().to_string(),
        })
        .collect()
}

/// The rigid run of the particle, at `settings`.
pub fn rigid_run<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    settings: &RunSettings,
) -> Result<SpatialRun<RigidEvent>, SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    rigid_run_with::<N, D>(particle, p, settings, None)
}

/// The rigid run of the particle, at `settings`, ended at the first transition `from → to`
/// with `stop(from, to)` (at the latest at `settings.t_end`).
pub(crate) fn rigid_run_until<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    settings: &RunSettings,
    stop: fn(ConeMode, ConeMode) -> bool,
) -> Result<SpatialRun<RigidEvent>, SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    rigid_run_with::<N, D>(particle, p, settings, Some(stop))
}

fn rigid_run_with<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    settings: &RunSettings,
    stop: Option<fn(ConeMode, ConeMode) -> bool>,
) -> Result<SpatialRun<RigidEvent>, SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    let q0: [f64; N] = std::array::from_fn(|i| p.u0[i]);
    let v0: [f64; N] = std::array::from_fn(|i| p.v0[i]);
    // Bounces below the gap's tolerance come to rest (docs/klarbring.md, "After the lift-off").
    let problem = RigidProblem::<_, N, D>::new(particle, p.mu, p.restitution, &q0)?
        .with_rest_height(settings.tolerances.atol);
    simulate_spatial(&problem, &problem.initial_state(&q0, &v0), settings, stop)
}

/// What a run measures: the columns of runs.csv after the settings. The rigid reference fills
/// the trajectory's; a compliant run also its distances to the rigid one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The mode of each phase, a one-tangent slide named by its direction.
    pub mode_sequence: String,
    pub n_events: usize,
    /// The events (a compliant run's as the rigid ones: [`rigid_like_events`]).
    pub event_times: Vec<f64>,
    pub event_kinds: String,
    #[serde(rename = "U_end")]
    pub u_end: Vec<f64>,
    #[serde(rename = "V_end")]
    pub v_end: Vec<f64>,
    pub checkpoint_times: Vec<f64>,
    /// (U, V) at each checkpoint, `; `-separated (empty where a run did not reach it).
    pub checkpoint_states: String,
    /// The rigid lift-off (T when there is none) that splits the distances.
    pub t_liftoff_rigid: Option<f64>,
    /// sup‖ΔU‖ on [0, T].
    #[serde(rename = "d_U")]
    pub d_u: Option<f64>,
    /// sup‖ΔU‖ on [0, t_L].
    #[serde(rename = "d_U_contact")]
    pub d_u_contact: Option<f64>,
    /// ∫‖ΔV‖ on [0, T].
    #[serde(rename = "d_V_L1")]
    pub d_v_l1: Option<f64>,
    /// ∫‖ΔV‖ on [0, t_L].
    #[serde(rename = "d_V_contact")]
    pub d_v_contact: Option<f64>,
    /// Compliant − rigid time of each event, or `kinds differ`.
    pub event_time_differences: Option<String>,
    /// Ballard–Basseville's energy inequality (Cor. 4.3) at T for a compliant run:
    /// E(0) + ∫₀ᵀ F·U̇ dt − E(T) with E = ½|U̇|² + ½|U|²_K, ≥ 0 (the energy the contact took:
    /// friction and dashpot dissipation plus the change of the spring's δ²/(2κ)), from the
    /// measured twin's work integrals (`energy_account`).
    pub energy_slack: Option<f64>,
    /// That twin's (T + V)(T) − (T + V)(0) − contact work − load work: 0 up to the integration.
    pub energy_balance_error: Option<f64>,
}

/// The compliant run's energy account: the same run with the contact's and the load's work
/// integrated alongside ([`MeasuredSpatialContact`]; its own run, so that the compared run's
/// error control and numbers stay as they are). Returns (slack of BB's inequality at T, balance
/// error).
fn energy_account<const N: usize, const D: usize>(
    problem: SpatialContactProblem<'_, KlarbringParticle<N>, N, D>,
    q0: &[f64; N],
    v0: &[f64; N],
    settings: &RunSettings,
) -> Result<(f64, f64), SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    let twin = MeasuredSpatialContact { problem };
    let plain = RunSettings {
        output_times: Vec::new(),
        ..settings.clone()
    };
    let m = twin.simulate(q0, v0, &plain, None, false)?;
    // BB's E(T) − E(0) − ∫F·U̇ is the contact's work: its slack is −contact work.
    Ok((-m.contact_work, m.energy_balance_error))
}

/// The record every run fills: modes, events, the end state and the checkpoints.
pub(crate) fn trajectory_record<E: Named + Copy>(
    run: &SpatialRun<E>,
    n: usize,
    d: usize,
    checkpoints: &[f64],
) -> Record {
    let y = &run.trace.y_end;
    let states: Vec<String> = checkpoints
        .iter()
        .map(|&t| {
            run.outputs
                .iter()
                .find(|o| o.0 == t)
                .map(|o| joined(&o.2[..2 * n]))
                .unwrap_or_default()
        })
        .collect();
    Record {
        mode_sequence: mode_names(run, n, d).join(" "),
        n_events: run.events.len(),
        event_times: run.events.iter().map(|e| e.t).collect(),
        event_kinds: run
            .events
            .iter()
            .map(|e| e.event.name())
            .collect::<Vec<_>>()
            .join(" "),
        u_end: y[..n].to_vec(),
        v_end: y[n..2 * n].to_vec(),
        checkpoint_times: checkpoints.to_vec(),
        checkpoint_states: states.join("; "),
        ..Record::default()
    }
}

/// Run the rigid reference of `p` with `integrator`: its record and work counters.
pub(crate) fn run_rigid_point(
    p: &Params,
    integrator: IntegratorKind,
    tolerances: Tolerances,
    guards: (usize, usize),
) -> Result<(Record, SolverStats), SimError> {
    let checkpoints = checkpoint_times(p.t_end);
    let settings = RunSettings {
        integrator,
        tolerances,
        t_end: p.t_end,
        output_times: checkpoints.clone(),
        max_steps: guards.0,
        max_events: guards.1,
    };
    Ok(match p.particle()? {
        Particle::Planar(k) => {
            let run = rigid_run::<2, 1>(&k, p, &settings)?;
            (trajectory_record(&run, 2, 1, &checkpoints), run.trace.stats)
        }
        Particle::Spatial(k) => {
            let run = rigid_run::<3, 2>(&k, p, &settings)?;
            (trajectory_record(&run, 3, 2, &checkpoints), run.trace.stats)
        }
    })
}

/// Uniform samples of the distances (at least 10⁴ over [0, t_end], docs/klarbring.md).
pub(crate) const UNIFORM_SAMPLES: usize = 10_000;
/// Samples across each rigid impact, spread over ±[`IMPACT_WINDOW`]·√κ: the compliant impact
/// lasts about π√κ and the velocity jumps there, so the L¹ distance needs it resolved.
pub(crate) const IMPACT_SAMPLES: usize = 2_000;
pub(crate) const IMPACT_WINDOW: f64 = 40.0;
/// Samples closer than this to a rigid impact are dropped, so that every sample lies on a
/// definite side of the jump (the located impact time is exact to far less).
const JUMP_MARGIN: f64 = 1e-10;

/// The sample times of a comparison with the rigid run whose impacts are at `impacts` and
/// lift-off at `t_liftoff`: uniform, refined across each impact, and `t_liftoff` itself.
pub fn sample_times(t_end: f64, impacts: &[f64], t_liftoff: f64, kappa: f64) -> Vec<f64> {
    let mut t: Vec<f64> = (1..=UNIFORM_SAMPLES)
        .map(|i| t_end * i as f64 / UNIFORM_SAMPLES as f64)
        .collect();
    let half = IMPACT_WINDOW * kappa.sqrt();
    for &ti in impacts {
        for k in 0..=IMPACT_SAMPLES {
            t.push(ti - half + 2.0 * half * k as f64 / IMPACT_SAMPLES as f64);
        }
    }
    if t_liftoff < t_end {
        t.push(t_liftoff);
    }
    t.retain(|&s| s > 0.0 && s <= t_end && impacts.iter().all(|&ti| (s - ti).abs() > JUMP_MARGIN));
    t.push(t_end);
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

/// The compliant events as the rigid ones: a contact closing is an `impact` and the events
/// inside the impact (its stick and slip, its opening) are dropped; an opening outside an
/// impact is a `liftoff`.
pub fn rigid_like_events(run: &SpatialRun<SpatialEvent>) -> Vec<(f64, &'static str)> {
    let mut out = Vec::new();
    let mut in_impact = false;
    for e in &run.events {
        match e.event {
            SpatialEvent::ContactCloses => {
                in_impact = true;
                out.push((e.t, "impact"));
            }
            SpatialEvent::ContactOpens if in_impact => in_impact = false,
            _ if in_impact => {}
            SpatialEvent::ContactOpens => out.push((e.t, "liftoff")),
            other => out.push((e.t, other.name())),
        }
    }
    out
}

/// The compliant contact of `particle` at `kappa`: the spring–dashpot of `p`'s c_d and its μ.
fn compliant_problem<'a, const N: usize, const D: usize>(
    particle: &'a KlarbringParticle<N>,
    p: &Params,
    kappa: f64,
) -> SpatialContactProblem<'a, KlarbringParticle<N>, N, D> {
    SpatialContactProblem {
        system: particle,
        compliance: NormalCompliance::spring_dashpot(kappa, p.damping),
        mu: p.mu,
    }
}

/// The compliant start: U_N at the quasi-static penetration N(0)/(k_N + 1/κ) with V_N = 0
/// when the particle starts touching at rest in the normal direction (and pressed, N(0) > 0).
pub fn compliant_start<const N: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    kappa: f64,
) -> [f64; N] {
    let mut q0: [f64; N] = std::array::from_fn(|i| p.u0[i]);
    if q0[0] == 0.0 && p.v0[0] == 0.0 {
        let n0 = particle.normal_reaction(0.0, &q0);
        if n0 > 0.0 {
            q0[0] = n0 / (particle.stiffness[0][0] + 1.0 / kappa);
        }
    }
    q0
}

/// The compliant run at κ against the rigid reference, both sampled at [`sample_times`].
fn compliant_against_rigid<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    kappa: f64,
    settings: &RunSettings,
) -> Result<(Record, SolverStats), SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    let reference = rigid_run::<N, D>(particle, p, settings)?;
    let impacts: Vec<f64> = reference
        .events
        .iter()
        .filter(|e| e.event == RigidEvent::Impact)
        .map(|e| e.t)
        .collect();
    let t_liftoff = reference
        .events
        .iter()
        .find(|e| e.event == RigidEvent::LiftOff)
        .map_or(p.t_end, |e| e.t);
    let checkpoints = checkpoint_times(p.t_end);
    let mut times = sample_times(p.t_end, &impacts, t_liftoff, kappa);
    times.extend(&checkpoints);
    times.sort_by(f64::total_cmp);
    times.dedup();
    let sampled = RunSettings {
        output_times: times.clone(),
        ..settings.clone()
    };
    let rigid = rigid_run::<N, D>(particle, p, &sampled)?;
    let problem = compliant_problem::<N, D>(particle, p, kappa);
    let q0 = compliant_start(particle, p, kappa);
    let v0: [f64; N] = std::array::from_fn(|i| p.v0[i]);
    let y0 = problem.initial_state(&q0, &v0);
    let compliant = simulate_spatial(&problem, &y0, &sampled, None)?;
    let (energy_slack, energy_balance_error) = energy_account(
        compliant_problem::<N, D>(particle, p, kappa),
        &q0,
        &v0,
        settings,
    )?;
    if compliant.outputs.len() != times.len() || rigid.outputs.len() != times.len() {
        return Err(SimError::invalid(
            "output times",
            times.len(),
            "every sample must be reached by both runs",
        ));
    }
    // The t = 0 sample: the compliant start sits κ N(0) inside the wall.
    let mut t_all = vec![0.0];
    t_all.extend(&times);
    let rigid_start: Vec<f64> = p.u0.iter().chain(&p.v0).copied().collect();
    let compliant_start: Vec<f64> = q0.iter().chain(&v0).copied().collect();
    let part = |run: &[(f64, ConeMode, Vec<f64>)], lo: usize, start: &[f64]| {
        let mut v = vec![start[lo..lo + N].to_vec()];
        v.extend(run.iter().map(|o| o.2[lo..lo + N].to_vec()));
        v
    };
    let d = trajectory_distances(
        &t_all,
        &part(&compliant.outputs, 0, &compliant_start),
        &part(&rigid.outputs, 0, &rigid_start),
        &part(&compliant.outputs, N, &compliant_start),
        &part(&rigid.outputs, N, &rigid_start),
        t_liftoff,
    );
    let mine = rigid_like_events(&compliant);
    let theirs: Vec<(f64, &str)> = rigid.events.iter().map(|e| (e.t, e.event.name())).collect();
    let differences = if mine.iter().map(|e| e.1).eq(theirs.iter().map(|e| e.1)) {
        joined(
            &mine
                .iter()
                .zip(&theirs)
                .map(|(a, b)| a.0 - b.0)
                .collect::<Vec<_>>(),
        )
    } else {
        "kinds differ".to_string()
    };
    let record = Record {
        // The rigid-like events, comparable with the rigid row's.
        event_times: mine.iter().map(|e| e.0).collect(),
        event_kinds: mine.iter().map(|e| e.1).collect::<Vec<_>>().join(" "),
        t_liftoff_rigid: Some(t_liftoff),
        d_u: Some(d.sup_position),
        d_u_contact: Some(d.sup_position_contact),
        d_v_l1: Some(d.l1_velocity),
        d_v_contact: Some(d.l1_velocity_contact),
        event_time_differences: Some(differences),
        energy_slack: Some(energy_slack),
        energy_balance_error: Some(energy_balance_error),
        ..trajectory_record(&compliant, N, D, &checkpoints)
    };
    Ok((record, compliant.trace.stats))
}

/// Run the compliant point at κ with `integrator`, with the rigid reference (same
/// integrator and tolerances) for the distances.
pub fn run_compliant_point(
    p: &Params,
    kappa: f64,
    integrator: IntegratorKind,
    tolerances: Tolerances,
    guards: (usize, usize),
) -> Result<(Record, SolverStats), SimError> {
    let settings = RunSettings {
        integrator,
        tolerances,
        t_end: p.t_end,
        output_times: Vec::new(),
        max_steps: guards.0,
        max_events: guards.1,
    };
    match p.particle()? {
        Particle::Planar(k) => compliant_against_rigid::<2, 1>(&k, p, kappa, &settings),
        Particle::Spatial(k) => compliant_against_rigid::<3, 2>(&k, p, kappa, &settings),
    }
}

/// Samples of paths.csv per run.
pub(crate) const PATH_SAMPLES: usize = 2_000;

/// The sampled path of a run: one row per output, `key,t,mode,U…`.
fn path_lines<E>(key: &str, run: &SpatialRun<E>, n: usize, d: usize) -> Vec<Vec<Cell>> {
    run.outputs
        .iter()
        .map(|(t, mode, y)| {
            let name = match mode {
                ConeMode::Slide if d == 1 => {
                    if y[direction_index(n)] > 0.0 {
                        "slide+"
                    } else {
                        "slide-"
                    }
                }
                m => m.name(),
            };
            let mut row = cells![key, *t, name].to_vec();
            row.extend(y[..n].iter().map(Cell::from));
            row
        })
        .collect()
}

fn paths_of<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    kappa: Option<f64>,
    settings: &RunSettings,
) -> Result<Vec<Vec<Cell>>, SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    let mut lines = path_lines("rigid", &rigid_run::<N, D>(particle, p, settings)?, N, D);
    if let Some(kappa) = kappa {
        let problem = compliant_problem::<N, D>(particle, p, kappa);
        let q0 = compliant_start(particle, p, kappa);
        let v0: [f64; N] = std::array::from_fn(|i| p.v0[i]);
        let run = simulate_spatial(&problem, &problem.initial_state(&q0, &v0), settings, None)?;
        lines.extend(path_lines(
            &format!("compliant_kappa_{kappa:e}"),
            &run,
            N,
            D,
        ));
    }
    Ok(lines)
}

/// paths.csv: the rigid path and, for a compliant experiment, the path at `kappa`, sampled
/// at [`PATH_SAMPLES`] uniform times, for the figure of the paths by mode.
pub(crate) fn paths_csv(
    p: &Params,
    kappa: Option<f64>,
    integrator: IntegratorKind,
    tolerances: Tolerances,
    guards: (usize, usize),
) -> Result<String, SimError> {
    let settings = RunSettings {
        integrator,
        tolerances,
        t_end: p.t_end,
        output_times: (1..=PATH_SAMPLES)
            .map(|i| p.t_end * i as f64 / PATH_SAMPLES as f64)
            .collect(),
        max_steps: guards.0,
        max_events: guards.1,
    };
    let lines = match p.particle()? {
        Particle::Planar(k) => paths_of::<2, 1>(&k, p, kappa, &settings)?,
        Particle::Spatial(k) => paths_of::<3, 2>(&k, p, kappa, &settings)?,
    };
    let mut columns = vec!["run".to_string(), "t".into(), "mode".into()];
    columns.extend((0..p.dimension()).map(|i| format!("U{i}")));
    let mut table = Table::new(columns);
    for row in lines {
        table.push(row);
    }
    Ok(table.to_csv())
}
