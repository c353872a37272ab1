//! One run of (TC1) on the mode machine, and what is measured on it (docs/two_contact.md §3):
//! the outcome rule at the end of the window, the openings of each contact, the period of a
//! repeated opening and the fraction of the window's second half each contact spends open.

use super::system::{Carrying, FastTwoContact, Kink};
use crate::compliant::{DEFAULT_MAX_EVENTS, DEFAULT_MAX_STEPS};
use crate::experiment::grammar::SolverSpec;
use crate::hybrid::{run_hybrid, Named, RunControl, Trace, Until};
use crate::integrate::{IntegratorKind, Tolerances};

/// A force above this at the end of the window has diverged. The bounded alternatives stay far
/// below it (the S+S+ equilibrium of (A) carries f* ≈ 43, the cycle of (B) f < 10), while a
/// single-contact saddle (C–V §4: rate ≈ 0.26 for (A)'s contact 1) passes it within
/// s ≈ 60 of leaving the equilibrium.
pub const DIVERGED_FORCE: f64 = 1e6;

/// A contact that opens at least this many times in the window's second half is cycling: the
/// period is measured on its last five intervals.
pub(crate) const CYCLE_OPENINGS: usize = 6;

/// The outcome rule at the end of the window (C–V §6.3's IWC labels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Contact 1's force diverges, contact 2 is open: an IWC at contact 1, lift-off at 2.
    ImpactFirst,
    /// The mirror: FI.
    ImpactSecond,
    /// Both forces diverge: II.
    ImpactBoth,
    /// One force diverges next to a contact that carries a bounded force.
    ImpactBesideSlip,
    /// A contact opens repeatedly through the second half of the window (sprag–slip).
    Cycle,
    /// Bounded, settled in the final mode.
    Settled(Carrying),
}

impl Outcome {
    pub fn symbol(self) -> &'static str {
        match self {
            Outcome::ImpactFirst => "IF",
            Outcome::ImpactSecond => "FI",
            Outcome::ImpactBoth => "II",
            Outcome::ImpactBesideSlip => "I+S",
            Outcome::Cycle => "cycle",
            Outcome::Settled(mode) => mode.name(),
        }
    }
}

/// A finished run and its measures.
#[derive(Clone, Debug)]
pub struct FastRun {
    pub trace: Trace<Carrying, Kink>,
    pub initial_mode: Carrying,
    pub window: f64,
}

/// Run `sys` from `x0` to s = `window` with `integrator` at `solver`'s tolerances and guards.
pub(crate) fn run_fast(
    sys: &FastTwoContact,
    x0: &[f64; 4],
    window: f64,
    integrator: IntegratorKind,
    solver: &SolverSpec,
) -> Result<FastRun, String> {
    let control = RunControl {
        until: Until::Time(window),
        output_times: Vec::new(),
        max_events: solver.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
        max_steps: solver.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
        absolute_tolerances: None,
    };
    let tolerances = Tolerances {
        rtol: solver.rtol,
        atol: solver.atol,
    };
    let clock = std::time::Instant::now();
    let mut trace = run_hybrid(sys, integrator, tolerances, x0, &control, &mut ())
        .map_err(|e| e.to_string())?;
    trace.stats.wall_time_s = clock.elapsed().as_secs_f64();
    let initial_mode = trace.phases.first().map_or(trace.mode_end, |p| p.mode);
    Ok(FastRun {
        trace,
        initial_mode,
        window,
    })
}

impl FastRun {
    /// The force of each contact at the end (0 when open).
    pub(crate) fn end_forces(&self, sys: &FastTwoContact) -> [f64; 2] {
        let carrying = self.trace.mode_end.flags();
        [0, 1].map(|j| {
            if carrying[j] {
                sys.system.law(j, &self.trace.y_end)
            } else {
                0.0
            }
        })
    }

    /// The times at which contact `j` opens.
    pub fn openings(&self, j: usize) -> Vec<f64> {
        self.trace
            .events
            .iter()
            .filter(|e| e.event.opens() && e.event.contact() == j)
            .map(|e| e.t)
            .collect()
    }

    /// The first opening of either contact: (s, contact 1 or 2).
    pub fn first_opening(&self) -> Option<(f64, usize)> {
        self.trace
            .events
            .iter()
            .find(|e| e.event.opens())
            .map(|e| (e.t, e.event.contact() + 1))
    }

    /// The contact that opens most often in the window's second half, if it opens at least
    /// [`CYCLE_OPENINGS`] times there.
    pub(crate) fn cycling_contact(&self) -> Option<usize> {
        let late = |j: usize| {
            self.openings(j)
                .iter()
                .filter(|&&t| t > 0.5 * self.window)
                .count()
        };
        let j = if late(1) >= late(0) { 1 } else { 0 };
        (late(j) >= CYCLE_OPENINGS).then_some(j)
    }

    /// The period of contact `j`'s openings: the last interval between successive openings
    /// and the spread (max − min) of the last five intervals.
    pub fn period(&self, j: usize) -> Option<(f64, f64)> {
        let t = self.openings(j);
        let intervals: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        let last = intervals.get(intervals.len().checked_sub(5)?..)?;
        let (lo, hi) = last
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        Some((*last.last()?, hi - lo))
    }

    /// The fraction of s ∈ [window/2, window] that contact `j` spends open.
    pub(crate) fn open_fraction(&self, j: usize) -> f64 {
        let from = 0.5 * self.window;
        let mut open_since = (!self.initial_mode.flags()[j]).then_some(0.0);
        let mut open = 0.0;
        for e in self.trace.events.iter().filter(|e| e.event.contact() == j) {
            match (e.event.opens(), open_since) {
                (true, None) => open_since = Some(e.t),
                (false, Some(t0)) => {
                    open += (e.t - t0.max(from)).max(0.0);
                    open_since = None;
                }
                _ => {}
            }
        }
        if let Some(t0) = open_since {
            open += (self.window - t0.max(from)).max(0.0);
        }
        open / (self.window - from)
    }

    /// The outcome rule: a force above [`DIVERGED_FORCE`] at the end has diverged (IF, FI, II
    /// by which, I+S if the other contact carries a bounded force); otherwise a contact that
    /// opens repeatedly is a cycle; otherwise the final mode.
    pub fn outcome(&self, sys: &FastTwoContact) -> Outcome {
        let f = self.end_forces(sys);
        let carrying = self.trace.mode_end.flags();
        let diverged = f.map(|f| f > DIVERGED_FORCE);
        match (diverged, carrying) {
            ([true, true], _) => Outcome::ImpactBoth,
            ([true, false], [_, false]) => Outcome::ImpactFirst,
            ([false, true], [false, _]) => Outcome::ImpactSecond,
            ([true, false], _) | ([false, true], _) => Outcome::ImpactBesideSlip,
            ([false, false], _) if self.cycling_contact().is_some() => Outcome::Cycle,
            _ => Outcome::Settled(self.trace.mode_end),
        }
    }
}
