//! One compliant-contact simulation: run the mode machine on the [`ContactProblem`] and turn its
//! trace into a [`RunRecord`] (phases, events, impulses, extrema, the energy account).

use super::coulomb::Mode;
use super::record::{EnergyAccount, ModeInterval, PostImpact, RunRecord, Sample};
use super::{damping_work_index, friction_work_index, impulse_normal_index, load_work_index};
use super::{impulse_tangential_index, ContactProblem, Event};
use crate::error::SimError;
use crate::hybrid::{check_tolerances, run_hybrid, Observer, RunControl, Until};
use crate::integrate::{IntegratorKind, Tolerances};
use crate::model::PlanarContactSystem;
use std::time::Instant;

/// When a run ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EndCondition {
    /// At the first opening of the contact after contact (the end of an impact).
    Separation,
    /// At a fixed time.
    Time(f64),
}

/// The default step guard of a run.
pub const DEFAULT_MAX_STEPS: usize = 2_000_000;
/// The default event guard of a run.
pub const DEFAULT_MAX_EVENTS: usize = 1000;

/// How to run one simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationOptions {
    pub integrator: IntegratorKind,
    pub tolerances: Tolerances,
    pub end: EndCondition,
    /// Time limit for [`EndCondition::Separation`].
    pub t_max: f64,
    pub record_trajectory: bool,
    /// Times (increasing, in (0, end]) at which the state is recorded in
    /// [`RunRecord::outputs`]. The integrator stops exactly at each (a full-accuracy step, not an
    /// interpolation), so the state's error there is the integrator's own.
    pub output_times: Vec<f64>,
    /// Guard against Zeno behaviour and chattering.
    pub max_events: usize,
    /// Guard against step-size collapse.
    pub max_steps: usize,
    /// Scale the tangential components' absolute tolerances like the normal ones
    /// ([`ContactProblem::fast_absolute_tolerances`]): for runs on the fast time scale from
    /// u = 0, where the slip velocity is O(√κ).
    pub fast_tolerances: bool,
}

impl SimulationOptions {
    pub fn new(integrator: IntegratorKind, rtol: f64, atol: f64) -> Self {
        SimulationOptions {
            integrator,
            tolerances: Tolerances { rtol, atol },
            end: EndCondition::Separation,
            t_max: 10.0,
            record_trajectory: false,
            output_times: Vec::new(),
            max_events: DEFAULT_MAX_EVENTS,
            max_steps: DEFAULT_MAX_STEPS,
            fast_tolerances: false,
        }
    }
}

impl SimulationOptions {
    /// The options with the guards an experiment file or the command line set (`None`: keep
    /// the default).
    pub fn with_guards(
        mut self,
        t_max: Option<f64>,
        max_steps: Option<usize>,
        max_events: Option<usize>,
    ) -> Self {
        if let Some(t) = t_max {
            self.t_max = t;
        }
        if let Some(n) = max_steps {
            self.max_steps = n;
        }
        if let Some(n) = max_events {
            self.max_events = n;
        }
        self
    }
}

/// The transition that ends an impact: a contact mode opening into free flight.
fn is_separation(from: Mode, to: Mode) -> bool {
    from.is_contact() && to == Mode::Free
}

/// Simulate from `(q0, q̇0)`.
pub fn simulate<Sys: PlanarContactSystem<N>, const N: usize>(
    problem: &ContactProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    options: &SimulationOptions,
) -> Result<RunRecord, SimError> {
    check_tolerances(&options.tolerances)?;
    super::normal::require_resolvable_kappa("kappa", problem.compliance.kappa)?;
    super::normal::require_resolvable_damping("damping", problem.compliance.damping)?;
    let mut y0 = vec![0.0; problem.state_len()];
    y0[..N].copy_from_slice(q0);
    y0[N..2 * N].copy_from_slice(qdot0);
    let control = RunControl {
        until: match options.end {
            EndCondition::Separation => Until::Transition {
                t_max: options.t_max,
                stop: is_separation,
            },
            EndCondition::Time(t_end) => Until::Time(t_end),
        },
        output_times: options.output_times.clone(),
        max_events: options.max_events,
        max_steps: options.max_steps,
        absolute_tolerances: options
            .fast_tolerances
            .then(|| problem.fast_absolute_tolerances(options.tolerances.atol)),
    };
    let (k0, g0, s0) = problem.mechanical_energy(problem.initial_mode(&y0), &y0);
    let mut recorder = Recorder {
        peak_normal_force: 0.0,
        max_penetration: 0.0,
        trajectory: options.record_trajectory.then(Vec::new),
        outputs: Vec::new(),
        separation_loss: 0.0,
        post_impact: None,
    };
    let start = Instant::now();
    let trace = run_hybrid(
        problem,
        options.integrator,
        options.tolerances,
        &y0,
        &control,
        &mut recorder,
    )?;
    if options.end == EndCondition::Separation && !trace.stopped {
        if trace.phases.iter().all(|p| p.mode == Mode::Free) {
            return Err(SimError::NoContact {
                t_max: options.t_max,
            });
        }
        return Err(SimError::NoSeparation {
            t_max: options.t_max,
            mode: crate::hybrid::Named::name(&trace.mode_end),
        });
    }
    let y = &trace.y_end;
    let (kinetic, gravity, spring) = problem.mechanical_energy(trace.mode_end, y);
    let friction_work = y[friction_work_index(N)];
    let damping_work = y[damping_work_index(N)];
    let load_work = if problem.system.is_autonomous() {
        0.0
    } else {
        y[load_work_index(N)]
    };
    let viscous_work = problem.viscous_work_index().map_or(0.0, |i| y[i]);
    let initial_total = k0 + g0 + s0;
    let final_total = kinetic + gravity + spring;
    let separation_loss = recorder.separation_loss;
    let energy = EnergyAccount {
        initial_total,
        kinetic,
        gravity,
        spring,
        friction_work,
        damping_work,
        load_work,
        viscous_work,
        separation_loss,
        final_total,
        balance_error: final_total
            - initial_total
            - friction_work
            - damping_work
            - load_work
            - viscous_work
            + separation_loss,
    };
    let modes: Vec<ModeInterval> = trace
        .phases
        .iter()
        .map(|p| ModeInterval {
            mode: p.mode,
            t_start: p.t_start,
            duration: p.duration,
            t_end: p.t_start + p.duration,
            q_end: p.y_end[..N].to_vec(),
            qdot_end: p.y_end[N..2 * N].to_vec(),
            impulse_normal_end: p.y_end[impulse_normal_index(N)],
            normal_force_end: problem.normal_force_and_penetration(p.mode, &p.y_end).0,
        })
        .collect();
    let mut stats = trace.stats;
    stats.wall_time_s = start.elapsed().as_secs_f64();
    Ok(RunRecord {
        integrator: options.integrator,
        separated: recorder.post_impact.is_some(),
        modes,
        events: trace.events,
        post_impact: recorder.post_impact,
        impulse_normal: y[impulse_normal_index(N)],
        impulse_tangential: y[impulse_tangential_index(N)],
        peak_normal_force: recorder.peak_normal_force,
        max_penetration: recorder.max_penetration,
        energy,
        stats,
        final_time: trace.t_end,
        final_q: y[..N].to_vec(),
        final_qdot: y[N..2 * N].to_vec(),
        trajectory: recorder.trajectory,
        outputs: recorder.outputs,
    })
}

/// What a compliant run records while the mode machine runs: the contact extrema, the sampled
/// trajectory, the states at the output times, and what happens when the contact opens.
struct Recorder {
    peak_normal_force: f64,
    max_penetration: f64,
    trajectory: Option<Vec<Sample>>,
    outputs: Vec<Sample>,
    /// Elastic energy discarded at openings with δ > 0 (spring–dashpot release).
    separation_loss: f64,
    post_impact: Option<PostImpact>,
}

impl Recorder {
    fn extremes<Sys: PlanarContactSystem<N>, const N: usize>(
        &mut self,
        p: &ContactProblem<'_, Sys, N>,
        mode: Mode,
        y: &[f64],
    ) {
        let (normal_force, penetration) = p.normal_force_and_penetration(mode, y);
        self.peak_normal_force = self.peak_normal_force.max(normal_force);
        self.max_penetration = self.max_penetration.max(penetration);
    }
}

/// The state at global time `t`, as a sample.
fn sample<Sys: PlanarContactSystem<N>, const N: usize>(
    p: &ContactProblem<'_, Sys, N>,
    mode: Mode,
    t: f64,
    y: &[f64],
) -> Sample {
    let cs = p.contact_state(mode, y);
    Sample {
        t,
        mode,
        q: y[..N].to_vec(),
        qdot: y[N..2 * N].to_vec(),
        normal_force: cs.normal_force,
        tangential_force: cs.tangential_force,
    }
}

impl<Sys: PlanarContactSystem<N>, const N: usize> Observer<ContactProblem<'_, Sys, N>>
    for Recorder
{
    fn state(&mut self, p: &ContactProblem<'_, Sys, N>, t: f64, mode: Mode, y: &[f64]) {
        if mode.is_contact() {
            self.extremes(p, mode, y);
        }
        if let Some(tr) = self.trajectory.as_mut() {
            tr.push(sample(p, mode, t, y));
        }
    }

    fn extremum(
        &mut self,
        p: &ContactProblem<'_, Sys, N>,
        _t: f64,
        mode: Mode,
        _event: Event,
        y: &[f64],
    ) {
        self.extremes(p, mode, y);
    }

    fn output(&mut self, p: &ContactProblem<'_, Sys, N>, t: f64, mode: Mode, y: &[f64]) {
        self.outputs.push(sample(p, mode, t, y));
    }

    fn transition(
        &mut self,
        p: &ContactProblem<'_, Sys, N>,
        t: f64,
        from: Mode,
        _event: Event,
        to: Mode,
        y: &[f64],
    ) {
        if !is_separation(from, to) {
            return;
        }
        self.separation_loss += p.mechanical_energy(from, y).2;
        if self.post_impact.is_none() {
            let cs = p.contact_state(Mode::Free, y);
            self.post_impact = Some(PostImpact {
                t,
                u: cs.projected.u,
                v: cs.projected.v,
                q: y[..N].to_vec(),
                qdot: y[N..2 * N].to_vec(),
            });
        }
    }
}
