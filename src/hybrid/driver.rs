//! The mode loop: start an integrator in the current mode, run the phase to its first switching
//! event (or the end), apply the transition, repeat. A fresh integrator per phase: after an
//! event the integrator restarts from the event state with no history of the old vector field.

use super::locate::{refill, refine_event, scan_step, ScanBuffers};
use super::{EventRecord, HybridSystem, Named, Observer, Phase, RunControl, Trace, Until};
use crate::error::SimError;
use crate::integrate::{
    run_with_integrator, FactoryUser, IntegratorKind, OdeSetup, SolverStats, Stepper,
    StepperFactory, Tolerances,
};

/// Consecutive steps of zero length (the run's time unchanged) after which a run ends with
/// [`SimError::NoProgress`] instead of spinning to the step limit: a step may land exactly on a
/// stop time it is already at once or twice, never a hundred times in a row.
const MAX_STALLED_STEPS: usize = 100;

/// Run `sys` from `y0` with the integrator `kind` until `control.until`, telling `observer`
/// what happens.
pub fn run_hybrid<H: HybridSystem, O: Observer<H>>(
    sys: &H,
    kind: IntegratorKind,
    tolerances: Tolerances,
    y0: &[f64],
    control: &RunControl<H::Mode>,
    observer: &mut O,
) -> Result<Trace<H::Mode, H::Event>, SimError> {
    let atol = control
        .absolute_tolerances
        .clone()
        .unwrap_or_else(|| sys.absolute_tolerances(tolerances.atol));
    let setup = OdeSetup {
        kind,
        tolerances,
        atol: atol.clone(),
        min_step: sys.min_step(),
        rhs: |mode: H::Mode, y: &[f64], dy: &mut [f64]| sys.field(mode, y, dy),
        jvp: |mode: H::Mode, y: &[f64], v: &[f64], out: &mut [f64]| sys.jvp(mode, y, v, out),
    };
    let driver = Driver {
        sys,
        kind,
        control,
        observer,
        y0,
        atol,
        rtol: tolerances.rtol,
    };
    run_with_integrator(setup, driver).map_err(|message| SimError::SolverFailed {
        integrator: kind.to_string(),
        time: 0.0,
        mode: "none",
        message,
    })?
}

struct Driver<'r, H: HybridSystem, O> {
    sys: &'r H,
    kind: IntegratorKind,
    control: &'r RunControl<H::Mode>,
    observer: &'r mut O,
    y0: &'r [f64],
    /// Per-component absolute tolerances and the relative tolerance the integrator was given.
    atol: Vec<f64>,
    rtol: f64,
}

/// How a phase ended.
struct PhaseEnd<E> {
    duration: f64,
    y: Vec<f64>,
    event: Option<E>,
}

/// The vectors of a phase, refilled at every phase start, so that a phase start allocates none
/// of them. A thread keeps the last run's ([`SPARE_PHASE_BUFFERS`]) for its next run: a thread
/// running many impacts (an atlas's points) allocates them once.
#[derive(Default)]
struct PhaseBuffers {
    scan: ScanBuffers,
    /// The state at the last accepted step's start and end.
    y_prev: Vec<f64>,
    y_step: Vec<f64>,
    /// The components' resolutions at the phase start ([`Driver::resolution`]).
    resolution: Vec<f64>,
}

thread_local! {
    /// The phase buffers of this thread's last finished run, taken by its next (a run inside
    /// a run takes none and allocates its own).
    static SPARE_PHASE_BUFFERS: std::cell::Cell<PhaseBuffers> =
        std::cell::Cell::new(PhaseBuffers::default());
}

/// Counters shared by all phases.
#[derive(Default)]
struct Progress {
    /// Step attempts of the whole run (the step limit).
    steps: usize,
    /// Output times taken so far.
    outputs: usize,
}

/// The last few events, for error messages.
fn last_events<M, E: Named>(events: &[EventRecord<M, E>]) -> String {
    let k = events.len().saturating_sub(5);
    let parts: Vec<_> = events[k..]
        .iter()
        .map(|e| format!("{} at t={}", e.event.name(), crate::error::time_text(e.t)))
        .collect();
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// Stop at the first non-finite value of `values` (the `what` of the run at `t`), naming its
/// component: an overflow caught where it happens, not as a step limit at t = NaN.
fn check_finite<M: Named>(t: f64, mode: M, what: &str, values: &[f64]) -> Result<(), SimError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(SimError::NonFinite {
            time: t,
            mode: mode.name(),
            what: if values.len() == 1 {
                format!("{what} ({})", values[i])
            } else {
                format!("{what} (component {i} = {})", values[i])
            },
        }),
    }
}

/// Refuse a state outside the domain ([`HybridSystem::domain`]): at the start of the run the
/// input is outside, later the run has left it (a margin that fell to zero between the last
/// scan point and the event that ended the phase).
fn check_domain<H: HybridSystem>(
    sys: &H,
    t: f64,
    mode: H::Mode,
    y: &[f64],
    at_start: bool,
) -> Result<(), SimError> {
    for (index, margin) in sys.domain().iter().enumerate() {
        let value = sys.domain_margin(index, y);
        if value > 0.0 {
            continue;
        }
        return Err(if at_start {
            SimError::OutsideDomain {
                quantity: margin.quantity,
                meaning: margin.meaning,
                value,
            }
        } else {
            SimError::LeftDomain {
                time: t,
                mode: mode.name(),
                quantity: margin.quantity,
                meaning: margin.meaning,
            }
        });
    }
    Ok(())
}

impl<H: HybridSystem, O: Observer<H>> FactoryUser<H::Mode> for Driver<'_, H, O> {
    type Output = Result<Trace<H::Mode, H::Event>, SimError>;

    fn run<F: StepperFactory<H::Mode>>(mut self, factory: &mut F) -> Self::Output {
        let sys = self.sys;
        let mut y = self.y0.to_vec();
        let mut mode = sys.start_mode(&y, &self.resolution(&y));
        let mut t = 0.0;
        let mut phases = Vec::new();
        let mut events: Vec<EventRecord<H::Mode, H::Event>> = Vec::new();
        let mut stats = SolverStats::default();
        let mut progress = Progress::default();
        let mut stopped = false;
        let t_end = match self.control.until {
            Until::Time(t_end) => t_end,
            Until::Transition { t_max, .. } => t_max,
        };
        let mut flow = vec![0.0; sys.dim()];
        // The events whose transitions changed nothing where this phase starts: it starts with
        // their functions off their surfaces.
        let mut off_surface: Vec<H::Event> = Vec::new();
        let mut buffers = SPARE_PHASE_BUFFERS.with(std::cell::Cell::take);
        // The state before a transition (its reset not applied).
        let mut before = vec![0.0; sys.dim()];
        // One stepper for the run, started afresh at every phase start (in its own storage
        // where the integrator can reuse it: [`StepperFactory::restart`]).
        let mut stepper: Option<F::Stepper> = None;
        loop {
            check_finite(t, mode, "state", &y)?;
            sys.check_mode(mode, &y)
                .map_err(|reason| SimError::InconsistentMode {
                    time: t,
                    mode: mode.name(),
                    reason,
                })?;
            sys.field(mode, &y, &mut flow);
            check_finite(t, mode, "vector field", &flow)?;
            check_domain(sys, t, mode, &y, events.is_empty() && phases.is_empty())?;
            self.observer.state(sys, t, mode, &y);
            let failed = |message: String| SimError::SolverFailed {
                integrator: self.kind.to_string(),
                time: t,
                mode: mode.name(),
                message,
            };
            match stepper.as_mut() {
                Some(st) => factory.restart(st, mode, &y),
                None => factory.start(mode, &y).map(|st| stepper = Some(st)),
            }
            .map_err(failed)?;
            let stepper = stepper.as_mut().expect("started above");
            stepper
                .set_stop_time(self.next_stop(t, t_end, progress.outputs) - t)
                .map_err(failed)?;
            let phase = self.run_phase(
                stepper,
                mode,
                t,
                t_end,
                &mut progress,
                &events,
                &off_surface,
                &flow,
                &mut buffers,
            );
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
            y.copy_from_slice(&phase.y);
            phases.push(Phase {
                mode,
                t_start: t,
                duration: phase.duration,
                y_end: phase.y,
            });
            t += phase.duration;
            self.observer.state(sys, t, mode, &y);
            let Some(event) = phase.event else {
                break;
            };
            before.copy_from_slice(&y);
            let next = sys.transition(mode, event, &mut y);
            if next == mode && y == before && !off_surface.contains(&event) {
                // A transition that changes neither the mode nor the state is no event: the
                // run goes on as if it had not happened. A fresh phase from that state starts
                // on the function's surface, past zero by the integrator's noise, and the
                // phase-start rule would find the same event again at once, forever (an "event
                // storm" of identical events: TR-BDF2 after klarbring_3d's rigid lift-off,
                // docs/tolerances.md, "An event that changes nothing"). The phase goes on with
                // that function off its surface: it crosses again only from its start side.
                // Once per event and phase start: one found again at the restart is recorded
                // (and the event limit ends a run that cannot advance). A phase of zero length
                // is dropped; a longer one stays, followed by another of the same mode.
                if phase.duration == 0.0 {
                    phases.pop();
                }
                off_surface.push(event);
                continue;
            }
            off_surface.clear();
            events.push(EventRecord {
                t,
                event,
                from: mode,
                to: next,
            });
            if events.len() > self.control.max_events {
                return Err(SimError::EventStorm {
                    count: events.len(),
                    time: t,
                    mode: mode.name(),
                    last: last_events(&events),
                });
            }
            self.observer.transition(sys, t, mode, event, next, &before);
            let stop_here = match self.control.until {
                Until::Transition { stop, .. } => stop(mode, next),
                Until::Time(_) => false,
            };
            mode = next;
            if stop_here {
                stopped = true;
                break;
            }
        }
        stats.add(&factory.evaluation_counts());
        stats.events = events.len();
        SPARE_PHASE_BUFFERS.with(|spare| spare.set(buffers));
        Ok(Trace {
            phases,
            events,
            stopped,
            mode_end: mode,
            t_end: t,
            y_end: y,
            stats,
        })
    }
}

impl<H: HybridSystem, O: Observer<H>> Driver<'_, H, O> {
    /// What the integrator resolves of each component of `y`: its error weight there,
    /// `atol_i + rtol·|y_i|` (the run's start and every phase start).
    fn resolution(&self, y: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        self.resolution_into(y, &mut out);
        out
    }

    /// [`Driver::resolution`] into `out`'s allocation.
    fn resolution_into(&self, y: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.atol
                .iter()
                .zip(y)
                .map(|(a, y)| a + self.rtol * y.abs()),
        );
    }

    /// The next global time the integrator must stop at exactly: the next output time not yet
    /// taken (the `taken`-th), or the end.
    fn next_stop(&self, t: f64, t_end: f64, taken: usize) -> f64 {
        match self.control.output_times.get(taken) {
            Some(&t_out) if t_out > t && t_out < t_end => t_out,
            _ => t_end,
        }
    }

    /// Integrate `mode` until its first switching event or `t_end`, stopping exactly at the
    /// output times on the way; the functions of `off_surface`'s events start off their
    /// surfaces ([`ScanBuffers::leave_surface`]); `flow` is the mode's vector field at the start;
    /// `buffers` are the run's, refilled for this phase.
    #[allow(clippy::too_many_arguments)]
    fn run_phase<St: Stepper>(
        &mut self,
        st: &mut St,
        mode: H::Mode,
        t_phase_start: f64,
        t_end: f64,
        progress: &mut Progress,
        events: &[EventRecord<H::Mode, H::Event>],
        off_surface: &[H::Event],
        flow: &[f64],
        buffers: &mut PhaseBuffers,
    ) -> Result<PhaseEnd<H::Event>, SimError> {
        let sys = self.sys;
        let n = sys.dim();
        let kind = self.kind;
        let failed = |time: f64, message: String| SimError::SolverFailed {
            integrator: kind.to_string(),
            time: t_phase_start + time,
            mode: mode.name(),
            message,
        };
        let watched = sys.watched(mode);
        let PhaseBuffers {
            scan: buffers,
            y_prev,
            y_step,
            resolution,
        } = buffers;
        // Of the state's length, whatever run used them last.
        refill(y_prev, n, 0.0);
        st.state(y_prev);
        let mut t_prev = st.time();
        self.resolution_into(y_prev, resolution);
        // A phase that an event started (not the run's first, nor one resumed after a stop).
        let after_event = events.last().is_some_and(|e| e.t == t_phase_start);
        buffers.start_phase(sys, mode, y_prev, flow, resolution, after_event);
        for (j, (event, _)) in watched.iter().enumerate() {
            if off_surface.contains(event) {
                buffers.leave_surface(j);
            }
        }
        refill(y_step, n, 0.0);
        // Consecutive steps that left the time where it was.
        let mut stalled = 0;
        loop {
            progress.steps += 1;
            if progress.steps > self.control.max_steps {
                return Err(SimError::StepLimit {
                    steps: progress.steps,
                    time: t_phase_start + t_prev,
                    mode: mode.name(),
                    last: format!("{} events so far", events.len()),
                });
            }
            let saved = st.save();
            let reached_stop = st.step().map_err(|m| failed(t_prev, m))?;
            let t_step = st.time();
            if t_phase_start + t_step == t_phase_start + t_prev {
                stalled += 1;
                if stalled >= MAX_STALLED_STEPS {
                    return Err(SimError::NoProgress {
                        steps: stalled,
                        time: t_phase_start + t_prev,
                        mode: mode.name(),
                    });
                }
            } else {
                stalled = 0;
            }
            st.state(y_step);
            check_finite(t_phase_start + t_prev, mode, "time", &[t_step])?;
            check_finite(t_phase_start + t_step, mode, "state", y_step)?;
            let scan = scan_step(sys, st, mode, &watched, t_prev, t_step, buffers, &failed)?;
            for &(event, t_root, ref y) in &scan.extrema {
                self.observer
                    .extremum(sys, t_phase_start + t_root, mode, event, y);
            }
            if let Some((index, t_exit)) = scan.exit {
                let margin = &sys.domain()[index];
                return Err(SimError::LeftDomain {
                    time: t_phase_start + t_exit,
                    mode: mode.name(),
                    quantity: margin.quantity,
                    meaning: margin.meaning,
                });
            }
            if let Some((event, t_root)) = scan.switch {
                let (t_event, y_event) = refine_event(
                    sys, st, &saved, mode, event, t_prev, y_prev, t_step, t_root, buffers,
                )
                .map_err(|m| failed(t_root, m))?;
                // An event found at the phase start by the phase-start rule is refined from
                // there, and the Newton–Taylor correction can land before it (by 6.5e-12 s where
                // two contacts' gaps are one function: the second fires at the start of the
                // phase the first one began). The phase then lasts zero: its end state is the
                // corrected one, off the start time by less than the event's own resolution,
                // and events stay in time order.
                return Ok(PhaseEnd {
                    duration: t_event.max(0.0),
                    y: y_event,
                    event: Some(event),
                });
            }
            y_prev.copy_from_slice(y_step);
            t_prev = t_step;
            self.observer
                .state(sys, t_phase_start + t_prev, mode, y_prev);
            if reached_stop {
                let taken = progress.outputs;
                let stop = self.next_stop(t_phase_start, t_end, taken);
                if stop < t_end {
                    // An output time, not the end: record it exactly and go on in this phase.
                    self.observer.output(sys, stop, mode, y_prev);
                    progress.outputs += 1;
                    let next = self.next_stop(stop, t_end, taken + 1);
                    st.set_stop_time(next - t_phase_start)
                        .map_err(|m| failed(t_prev, m))?;
                    continue;
                }
                if self.control.output_times.get(taken) == Some(&t_end) {
                    self.observer.output(sys, t_end, mode, y_prev);
                    progress.outputs += 1;
                }
                return Ok(PhaseEnd {
                    duration: t_prev,
                    y: y_prev.clone(),
                    event: None,
                });
            }
        }
    }
}
