//! Runs the mode machine on an integrator: integrate a mode, locate its events, switch, record.

use super::{
    damping_work_index, friction_work_index, impulse_normal_index, impulse_tangential_index,
    watched_events, ContactProblem, Event,
};
use crate::error::SimError;
use crate::friction::Mode;
use crate::integrate::{
    run_with_integrator, FactoryUser, IntegratorKind, OdeSetup, SolverStats, Stepper,
    StepperFactory, Tolerances,
};
use crate::model::PlanarContactSystem;
use crate::record::{
    EnergyAccount, EventRecord, ModeInterval, PhaseDurations, PostImpact, RunRecord, Sample,
};
use std::time::Instant;

/// When a run ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EndCondition {
    /// At the first opening of the contact after contact (the end of an impact).
    Separation,
    /// At a fixed time.
    Time(f64),
}

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
            max_events: 1000,
            max_steps: 2_000_000,
        }
    }
}

/// Dense-output samples per step scanned for sign changes, so that two crossings inside one step
/// (diffsol_notes trap 1) are seen.
const SCAN_POINTS: usize = 4;
/// Newton refinement accepts a Taylor correction of at most this fraction of the step.
const TAYLOR_FRACTION: f64 = 1e-3;

/// Simulate from `(q0, q̇0)`.
pub fn simulate<Sys: PlanarContactSystem<N>, const N: usize>(
    problem: &ContactProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    options: &SimulationOptions,
) -> Result<RunRecord, SimError> {
    crate::error::require_positive("rtol", options.tolerances.rtol)?;
    crate::error::require_positive("atol", options.tolerances.atol)?;
    crate::error::require_positive("kappa", problem.compliance.kappa)?;
    crate::error::require_non_negative("damping", problem.compliance.damping)?;
    let len = ContactProblem::<Sys, N>::STATE_LEN;
    let mut atol = vec![options.tolerances.atol; len];
    // An impact starts from δ = δ̇ = 0 and grows from a seed δ ~ κ, δ̇ ~ √κ (Zhao–Liu eq. (23):
    // δ = (|B|κ/|A|)(cosh(√(|A|/κ) t) − 1)); in slip the growth is exponential, so an absolute
    // error on the seed becomes a time shift of the whole impact. The gap's absolute tolerance
    // is therefore in units of κ and the normal velocity's in units of √κ.
    for i in 0..N {
        let mut e = [0.0; N];
        e[i] = 1.0;
        let k = problem.system.contact_kinematics(&e, &[0.0; N]);
        if k.normal[i] != 0.0 {
            atol[i] *= problem.compliance.kappa.min(1.0);
            atol[N + i] *= problem.compliance.time_scale().min(1.0);
        }
    }
    let setup = OdeSetup {
        kind: options.integrator,
        tolerances: options.tolerances,
        atol,
        // Far below any phase we must resolve (reverse slip lasts ~0.16 κ), far above rounding.
        min_step: 1e-8 * problem.compliance.kappa.min(1.0),
        rhs: |mode: Mode, y: &[f64], dy: &mut [f64]| problem.vector_field(mode, y, dy),
        jvp: |mode: Mode, y: &[f64], v: &[f64], out: &mut [f64]| {
            problem.jacobian_vector_product(mode, y, v, out)
        },
    };
    let mut y0 = vec![0.0; len];
    y0[..N].copy_from_slice(q0);
    y0[N..2 * N].copy_from_slice(qdot0);
    let start = Instant::now();
    let driver = Driver {
        problem,
        options,
        y0,
    };
    let mut record =
        run_with_integrator(setup, driver).map_err(|message| SimError::SolverFailed {
            integrator: options.integrator.to_string(),
            time: 0.0,
            mode: "none",
            message,
        })??;
    record.stats.wall_time_s = start.elapsed().as_secs_f64();
    Ok(record)
}

struct Driver<'p, 'a, Sys, const N: usize> {
    problem: &'p ContactProblem<'a, Sys, N>,
    options: &'p SimulationOptions,
    y0: Vec<f64>,
}

/// How a phase ended.
struct PhaseEnd {
    duration: f64,
    y: Vec<f64>,
    event: Option<Event>,
}

/// Running extrema and samples, shared by all phases.
struct Tracker {
    peak_normal_force: f64,
    max_penetration: f64,
    trajectory: Option<Vec<Sample>>,
    steps: usize,
    /// States at the requested output times, and how many of those are taken.
    outputs: Vec<Sample>,
}

impl<Sys: PlanarContactSystem<N>, const N: usize> FactoryUser<Mode> for Driver<'_, '_, Sys, N> {
    type Output = Result<RunRecord, SimError>;

    fn run<F: StepperFactory<Mode>>(self, factory: &mut F) -> Self::Output {
        let p = self.problem;
        let opts = self.options;
        let mut y = self.y0.clone();
        let mut mode = p.initial_mode(&y);
        let (k0, g0, s0) = p.mechanical_energy(mode, &y);
        let mut t = 0.0;
        let mut modes: Vec<ModeInterval> = Vec::new();
        let mut events: Vec<EventRecord> = Vec::new();
        let mut stats = SolverStats::default();
        let mut tracker = Tracker {
            peak_normal_force: 0.0,
            max_penetration: 0.0,
            trajectory: opts.record_trajectory.then(Vec::new),
            steps: 0,
            outputs: Vec::new(),
        };
        let mut separation_loss = 0.0;
        let mut post_impact = None;
        let mut had_contact = false;
        let t_end = match opts.end {
            EndCondition::Separation => opts.t_max,
            EndCondition::Time(t_end) => t_end,
        };
        let last_events = |events: &[EventRecord]| {
            let k = events.len().saturating_sub(5);
            let parts: Vec<_> = events[k..]
                .iter()
                .map(|e| format!("{} at t={:.6e}", e.event.name(), e.t))
                .collect();
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            }
        };
        loop {
            had_contact |= mode.is_contact();
            self.track(mode, t, &y, &mut tracker);
            let failed = |message: String| SimError::SolverFailed {
                integrator: opts.integrator.to_string(),
                time: t,
                mode: mode.name(),
                message,
            };
            let mut stepper = factory.start(mode, &y).map_err(failed)?;
            stepper
                .set_stop_time(self.next_stop(t, t_end, tracker.outputs.len()) - t)
                .map_err(|m| SimError::SolverFailed {
                    integrator: opts.integrator.to_string(),
                    time: t,
                    mode: mode.name(),
                    message: m,
                })?;
            let phase = self.run_phase(&mut stepper, mode, t, t_end, &mut tracker, &events);
            stats.add(&stepper.stats());
            let phase = phase.map_err(|e| match e {
                SimError::StepLimit {
                    steps, time, mode, ..
                } => SimError::StepLimit {
                    steps,
                    time,
                    mode,
                    last: last_events(&events),
                },
                other => other,
            })?;
            modes.push(ModeInterval {
                mode,
                t_start: t,
                duration: phase.duration,
                t_end: t + phase.duration,
                q_end: phase.y[..N].to_vec(),
                qdot_end: phase.y[N..2 * N].to_vec(),
            });
            t += phase.duration;
            y = phase.y;
            self.track(mode, t, &y, &mut tracker);
            let Some(event) = phase.event else {
                if opts.end == EndCondition::Separation {
                    return Err(SimError::NoSeparation {
                        t_max: opts.t_max,
                        mode: mode.name(),
                    });
                }
                break;
            };
            let next = p.next_mode(event, &y);
            events.push(EventRecord {
                t,
                event,
                from: mode,
                to: next,
            });
            if events.len() > opts.max_events {
                return Err(SimError::EventStorm {
                    count: events.len(),
                    time: t,
                    mode: mode.name(),
                    last: last_events(&events),
                });
            }
            if mode.is_contact() && next == Mode::Free {
                separation_loss += p.mechanical_energy(mode, &y).2;
                if post_impact.is_none() {
                    let cs = p.contact_state(Mode::Free, &y);
                    post_impact = Some(PostImpact {
                        t,
                        u: cs.projected.u,
                        v: cs.projected.v,
                        omega: p.system.rotation_index().map(|i| y[N + i]),
                        q: y[..N].to_vec(),
                        qdot: y[N..2 * N].to_vec(),
                    });
                }
                if opts.end == EndCondition::Separation && had_contact {
                    mode = next;
                    break;
                }
            }
            mode = next;
        }
        stats.add(&factory.evaluation_counts());
        stats.events = events.len();
        let (kinetic, gravity, spring) = p.mechanical_energy(mode, &y);
        let friction_work = y[friction_work_index(N)];
        let damping_work = y[damping_work_index(N)];
        let initial_total = k0 + g0 + s0;
        let final_total = kinetic + gravity + spring;
        let energy = EnergyAccount {
            initial_total,
            kinetic,
            gravity,
            spring,
            friction_work,
            damping_work,
            separation_loss,
            final_total,
            balance_error: final_total - initial_total - friction_work - damping_work
                + separation_loss,
        };
        Ok(RunRecord {
            integrator: opts.integrator,
            durations: phase_durations(&modes),
            separated: post_impact.is_some(),
            modes,
            events,
            post_impact,
            impulse_normal: y[impulse_normal_index(N)],
            impulse_tangential: y[impulse_tangential_index(N)],
            peak_normal_force: tracker.peak_normal_force,
            max_penetration: tracker.max_penetration,
            energy,
            stats,
            final_time: t,
            final_q: y[..N].to_vec(),
            final_qdot: y[N..2 * N].to_vec(),
            trajectory: tracker.trajectory,
            outputs: tracker.outputs,
        })
    }
}

impl<Sys: PlanarContactSystem<N>, const N: usize> Driver<'_, '_, Sys, N> {
    /// The next global time the integrator must stop at exactly: the next output time not yet
    /// taken (the `taken`-th), or the end.
    fn next_stop(&self, t: f64, t_end: f64, taken: usize) -> f64 {
        match self.options.output_times.get(taken) {
            Some(&t_out) if t_out > t && t_out < t_end => t_out,
            _ => t_end,
        }
    }

    /// The state at global time `t`, as a sample.
    fn sample(&self, mode: Mode, t: f64, y: &[f64]) -> Sample {
        let cs = self.problem.contact_state(mode, y);
        Sample {
            t,
            mode,
            q: y[..N].to_vec(),
            qdot: y[N..2 * N].to_vec(),
            normal_force: cs.normal_force,
            tangential_force: cs.tangential_force,
        }
    }

    /// Update the running extrema (and the trajectory) with the state `y` at global time `t`.
    fn track(&self, mode: Mode, t: f64, y: &[f64], tracker: &mut Tracker) {
        let cs = self.problem.contact_state(mode, y);
        if mode.is_contact() {
            tracker.peak_normal_force = tracker.peak_normal_force.max(cs.normal_force);
            tracker.max_penetration = tracker.max_penetration.max(cs.penetration);
        }
        if let Some(tr) = tracker.trajectory.as_mut() {
            tr.push(self.sample(mode, t, y));
        }
    }

    /// Integrate `mode` until its first switching event or `t_end`, stopping exactly at the
    /// output times on the way.
    #[allow(clippy::too_many_arguments)]
    fn run_phase<St: Stepper>(
        &self,
        st: &mut St,
        mode: Mode,
        t_phase_start: f64,
        t_end: f64,
        tracker: &mut Tracker,
        events: &[EventRecord],
    ) -> Result<PhaseEnd, SimError> {
        let p = self.problem;
        let watched = watched_events(mode);
        let n = ContactProblem::<Sys, N>::STATE_LEN;
        let failed = |time: f64, message: String| SimError::SolverFailed {
            integrator: self.options.integrator.to_string(),
            time: t_phase_start + time,
            mode: mode.name(),
            message,
        };
        let mut y_prev = vec![0.0; n];
        st.state(&mut y_prev);
        let mut t_prev = st.time();
        let mut g_prev: Vec<f64> = watched
            .iter()
            .map(|&(e, _)| p.event_value(mode, e, &y_prev))
            .collect();
        let mut y_scan = vec![0.0; n];
        let mut g_scan = vec![0.0; watched.len()];
        loop {
            tracker.steps += 1;
            if tracker.steps > self.options.max_steps {
                return Err(SimError::StepLimit {
                    steps: tracker.steps,
                    time: t_phase_start + t_prev,
                    mode: mode.name(),
                    last: format!("{} events so far", events.len()),
                });
            }
            let saved = st.save();
            let reached_stop = st.step().map_err(|m| failed(t_prev, m))?;
            let t_step = st.time();
            // Scan the step on the dense output: SCAN_POINTS interior points, then the end.
            let mut seg_start = t_prev;
            let mut g_start = g_prev.clone();
            let mut switch: Option<(Event, f64)> = None;
            for k in 1..=SCAN_POINTS + 1 {
                let seg_end = if k == SCAN_POINTS + 1 {
                    st.state(&mut y_scan);
                    t_step
                } else {
                    let ts = t_prev + (t_step - t_prev) * k as f64 / (SCAN_POINTS + 1) as f64;
                    st.interpolate(ts, &mut y_scan).map_err(|m| failed(ts, m))?;
                    ts
                };
                for (j, &(event, crossing)) in watched.iter().enumerate() {
                    g_scan[j] = p.event_value(mode, event, &y_scan);
                    if !crossing.crossed(g_start[j], g_scan[j]) {
                        continue;
                    }
                    let g_of = |t: f64| -> Result<f64, SimError> {
                        let mut y = vec![0.0; n];
                        st.interpolate(t, &mut y).map_err(|m| failed(t, m))?;
                        Ok(p.event_value(mode, event, &y))
                    };
                    let t_root = locate_root(g_of, seg_start, seg_end, g_start[j], g_scan[j])?;
                    if event.is_switching() {
                        if switch.is_none_or(|(_, ts)| t_root < ts) {
                            switch = Some((event, t_root));
                        }
                    } else if switch.is_none_or(|(_, ts)| t_root < ts) {
                        let mut y = vec![0.0; n];
                        st.interpolate(t_root, &mut y)
                            .map_err(|m| failed(t_root, m))?;
                        let cs = p.contact_state(mode, &y);
                        tracker.peak_normal_force = tracker.peak_normal_force.max(cs.normal_force);
                        tracker.max_penetration = tracker.max_penetration.max(cs.penetration);
                    }
                }
                if switch.is_some() {
                    break;
                }
                seg_start = seg_end;
                std::mem::swap(&mut g_start, &mut g_scan);
            }
            if let Some((event, t_root)) = switch {
                let (t_event, y_event) = self
                    .refine_event(st, &saved, mode, event, t_prev, &y_prev, t_step, t_root)
                    .map_err(|m| failed(t_root, m))?;
                return Ok(PhaseEnd {
                    duration: t_event,
                    y: y_event,
                    event: Some(event),
                });
            }
            st.state(&mut y_prev);
            t_prev = t_step;
            g_prev.copy_from_slice(&g_start);
            self.track(mode, t_phase_start + t_prev, &y_prev, tracker);
            if reached_stop {
                let taken = tracker.outputs.len();
                let stop = self.next_stop(t_phase_start, t_end, taken);
                if stop < t_end {
                    // An output time, not the end: record it exactly and go on in this phase.
                    tracker.outputs.push(self.sample(mode, stop, &y_prev));
                    let next = self.next_stop(stop, t_end, taken + 1);
                    st.set_stop_time(next - t_phase_start)
                        .map_err(|m| failed(t_prev, m))?;
                    continue;
                }
                if self.options.output_times.get(taken) == Some(&t_end) {
                    tracker.outputs.push(self.sample(mode, t_end, &y_prev));
                }
                return Ok(PhaseEnd {
                    duration: t_prev,
                    y: y_prev,
                    event: None,
                });
            }
        }
    }

    /// Refine an event located on the dense output so that its error is set by the integration
    /// tolerance: restore the integrator to the start of the step, step exactly to the located
    /// time (a full-accuracy step, not an interpolation), then correct with Newton's method on the
    /// event function along the flow, `Δt = −g/ġ`, and a second-order Taylor step
    /// `y + Δt f + ½Δt² J f`. If the correction is not small against the step, step again to the
    /// corrected time.
    #[allow(clippy::too_many_arguments)]
    fn refine_event<St: Stepper>(
        &self,
        st: &mut St,
        saved: &St::Saved,
        mode: Mode,
        event: Event,
        t_prev: f64,
        y_prev: &[f64],
        t_step: f64,
        t_located: f64,
    ) -> Result<(f64, Vec<f64>), String> {
        let p = self.problem;
        let n = y_prev.len();
        let h = t_step - t_prev;
        st.restore(saved.clone());
        let mut at = t_prev;
        let mut y = y_prev.to_vec();
        let mut target = t_located;
        let mut flow = vec![0.0; n];
        let mut jf = vec![0.0; n];
        for iter in 0..6 {
            if target < at {
                st.restore(saved.clone());
                at = t_prev;
                y.copy_from_slice(y_prev);
            }
            // Closer than the integrator's stop-time round-off: stay and let Newton do it.
            if target - at > 200.0 * f64::EPSILON * (at.abs() + h.abs()) {
                st.advance_to(target)?;
                at = st.time();
                st.state(&mut y);
            }
            p.vector_field(mode, &y, &mut flow);
            let g = p.event_value(mode, event, &y);
            let g_rate = p.event_rate(mode, event, &y, &flow);
            let dt = if g_rate != 0.0 && g_rate.is_finite() {
                -g / g_rate
            } else {
                0.0
            };
            if dt.abs() <= TAYLOR_FRACTION * h.abs() || iter == 5 {
                p.jacobian_vector_product(mode, &y, &flow, &mut jf);
                for i in 0..n {
                    y[i] += dt * flow[i] + 0.5 * dt * dt * jf[i];
                }
                return Ok((at + dt, y));
            }
            target = (at + dt).clamp(t_prev, t_step);
        }
        unreachable!("the loop returns on its last iteration")
    }
}

/// Illinois (modified regula falsi) on a bracketed sign change, to machine precision.
fn locate_root(
    mut g: impl FnMut(f64) -> Result<f64, SimError>,
    mut a: f64,
    mut b: f64,
    mut ga: f64,
    mut gb: f64,
) -> Result<f64, SimError> {
    if gb == 0.0 {
        return Ok(b);
    }
    let mut side = 0i8;
    for _ in 0..200 {
        if (b - a).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs()) {
            break;
        }
        let mut c = (a * gb - b * ga) / (gb - ga);
        if !(c > a && c < b) {
            c = 0.5 * (a + b);
        }
        let gc = g(c)?;
        if gc == 0.0 {
            return Ok(c);
        }
        if (gc > 0.0) == (gb > 0.0) {
            b = c;
            gb = gc;
            if side == -1 {
                ga *= 0.5;
            }
            side = -1;
        } else {
            a = c;
            ga = gc;
            if side == 1 {
                gb *= 0.5;
            }
            side = 1;
        }
    }
    Ok(0.5 * (a + b))
}

/// Sum the contact phases into slide / stick / reverse slip.
fn phase_durations(modes: &[ModeInterval]) -> PhaseDurations {
    let first_slip = modes
        .iter()
        .map(|m| m.mode.slip_sign())
        .find(|&s| s != 0)
        .unwrap_or(0);
    let mut d = PhaseDurations::default();
    for m in modes {
        match m.mode {
            Mode::Stick => d.stick += m.duration,
            Mode::Free => {}
            _ if m.mode.slip_sign() == first_slip => d.slide += m.duration,
            _ => d.reverse_slip += m.duration,
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illinois_finds_a_root_to_machine_precision() {
        let r = locate_root(|t| Ok(t.cos() - t), 0.0, 1.0, 1.0, 1f64.cos() - 1.0).unwrap();
        assert!((r.cos() - r).abs() < 1e-15);
    }
}
