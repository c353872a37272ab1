//! The two-contact study as a plan of the runner: its grid (states × laws × starts ×
//! integrators), the columns of runs.csv, the resume key (a point's input cells) and the run of
//! one point — a fast run to the end of the window, or the bisection of an outcome switch on the
//! circle around S+S+. The system is scale-free: every row's `kappa` holds the placeholder 1.

use super::linear::SlipSlip;
use super::runs::{run_fast, FastRun, Outcome};
use super::spec::TwoContactStudy;
use super::system::{ContactLaw, FastTwoContact, TwoContactSystem};
use crate::experiment::rows::{finish_sweep_row, sweep_columns, sweep_input_row, Cells};
use crate::experiment::runner::{Plan, Points};
use crate::experiment::table::Row;
use crate::hybrid::Named;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::study::fast;
use crate::study::fast::basin::{refine_edge, BISECTION_TOLERANCE};
use std::f64::consts::{PI, TAU};

/// The `kappa` of every row: the scale-free system has no compliance.
const NO_COMPLIANCE: f64 = 1.0;

/// The linear region's check runs over this many s (the window of C–V's Fig. unstableslip (A)).
const MANIFOLD_CHECK_DURATION: f64 = 200.0;
const MANIFOLD_CHECK_STEP: f64 = 0.01;

/// How a row starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartKind {
    /// The i-th of n points on the circle of radius R around S+S+.
    Circle {
        radius: f64,
        index: usize,
        n: usize,
    },
    /// The outcome switch inside the circle's scan interval that contains the linear
    /// prediction `which` (0 or 1) of [`SlipSlip::manifold_angles`], bisected.
    Crossing {
        radius: f64,
        n: usize,
        which: usize,
    },
    Given([f64; 4]),
}

/// One point of the grid: a state under a law from a start, run by one integrator.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position in the grid: the output order and the resume key.
    pub id: usize,
    pub label: String,
    pub system: TwoContactSystem,
    pub law: ContactLaw,
    pub start: StartKind,
    pub integrator: IntegratorKind,
}

/// The angle of the i-th of n circle points (the same expression for the scan and the
/// brackets of the bisection, so that they share their end points exactly).
pub fn circle_angle(index: usize, n: usize) -> f64 {
    TAU * index as f64 / n as f64
}

/// Input columns, between `kappa` and `integrator`.
const INPUTS: &[&str] = &[
    "state",
    "b1",
    "b2",
    "P11",
    "P12",
    "P21",
    "P22",
    "k1",
    "k2",
    "q1",
    "q2",
    "law",
    "start",
    "theta",
    "Y1_0",
    "Y2_0",
    "V1_0",
    "V2_0",
    "gamma1_over_pi",
    "gamma2_over_pi",
    "beta_over_pi",
    "f1_star",
    "f2_star",
    "unstable_rate",
    "linear_side",
    "theta_predicted",
    "min_force_on_manifold",
];

/// Measured columns, between `error` and the work counters.
const MEASURES: &[&str] = &[
    "outcome",
    "mode_end",
    "n_events",
    "first_open_s",
    "first_open_contact",
    "openings_1",
    "openings_2",
    "force_end_1",
    "force_end_2",
    "cycle_contact",
    "period",
    "period_spread",
    "open_fraction_1",
    "open_fraction_2",
    "s_openings_cycle",
    "theta_bisected",
    "theta_offset",
    "bracket_width",
    "side_below",
    "side_above",
    "n_runs",
];

impl TwoContactStudy {
    /// Every point, in output order: states, laws, starts (the circle's points, its two
    /// crossings, the listed starts), integrators.
    pub fn points(&self) -> Vec<Point> {
        let Ok(systems) = self.systems() else {
            return Vec::new();
        };
        let mut starts = Vec::new();
        if let Some(c) = self.sweep.circle {
            starts.extend((0..c.n).map(|index| StartKind::Circle {
                radius: c.radius,
                index,
                n: c.n,
            }));
            starts.extend((0..2).map(|which| StartKind::Crossing {
                radius: c.radius,
                n: c.n,
                which,
            }));
        }
        for st in self.sweep.starts.iter().flatten() {
            starts.push(StartKind::Given([
                st.depth[0],
                st.depth[1],
                st.rate[0],
                st.rate[1],
            ]));
        }
        let mut out = Vec::new();
        for (label, system) in &systems {
            for &law in &self.sweep.law {
                for &start in &starts {
                    for &integrator in &self.solver.integrators {
                        out.push(Point {
                            id: out.len(),
                            label: label.clone(),
                            system: *system,
                            law,
                            start,
                            integrator,
                        });
                    }
                }
            }
        }
        out
    }
}

impl Point {
    fn dynamics(&self) -> FastTwoContact {
        FastTwoContact {
            system: self.system,
            law: self.law,
        }
    }

    /// The start state, if the point has one (a crossing finds its own).
    fn start_state(&self) -> Option<[f64; 4]> {
        match self.start {
            StartKind::Circle { radius, index, n } => {
                Some(SlipSlip::of(&self.system)?.circle_start(radius, circle_angle(index, n)))
            }
            StartKind::Crossing { .. } => None,
            StartKind::Given(x) => Some(x),
        }
    }

    /// The cells the point fixes before it runs: the state, the law, the start, and what the
    /// linear analysis of S+S+ predicts (docs/two_contact.md §2).
    fn inputs(&self) -> Cells {
        let s = &self.system;
        let num = |v: f64| v.to_string();
        let mut cells = vec![
            ("state", self.label.clone()),
            ("b1", num(s.free_accel[0])),
            ("b2", num(s.free_accel[1])),
            ("P11", num(s.response[0][0])),
            ("P12", num(s.response[0][1])),
            ("P21", num(s.response[1][0])),
            ("P22", num(s.response[1][1])),
            ("k1", num(s.stiffness[0])),
            ("k2", num(s.stiffness[1])),
            ("q1", num(s.damping[0])),
            ("q2", num(s.damping[1])),
            ("law", self.law.name().to_string()),
            (
                "start",
                match self.start {
                    StartKind::Circle { .. } => "circle",
                    StartKind::Crossing { .. } => "crossing",
                    StartKind::Given(_) => "given",
                }
                .to_string(),
            ),
            ("gamma1_over_pi", num(s.column_angle(0) / PI)),
            ("gamma2_over_pi", num(s.column_angle(1) / PI)),
            ("beta_over_pi", num(s.load_angle() / PI)),
        ];
        if let StartKind::Circle { index, n, .. } = self.start {
            cells.push(("theta", num(circle_angle(index, n))));
        }
        if let Some(x) = self.start_state() {
            for (k, v) in ["Y1_0", "Y2_0", "V1_0", "V2_0"].into_iter().zip(x) {
                cells.push((k, num(v)));
            }
        }
        if let Some(e) = SlipSlip::of(s) {
            cells.push(("f1_star", num(e.forces[0])));
            cells.push(("f2_star", num(e.forces[1])));
            if let Some(rate) = e.unstable_rate {
                cells.push(("unstable_rate", num(rate)));
            }
            if let Some(amplitude) = self.start_state().and_then(|x| e.unstable_amplitude(&x)) {
                if matches!(self.start, StartKind::Circle { .. }) {
                    cells.push(("linear_side", num(amplitude.signum())));
                }
            }
            if let (StartKind::Crossing { radius, which, .. }, Some(angles)) =
                (self.start, e.manifold_angles())
            {
                let theta = angles[which];
                cells.push(("theta_predicted", num(theta)));
                let on_manifold = e.circle_start(radius, theta);
                if let Some(m) = e.smallest_forces_on_manifold(
                    s,
                    &on_manifold,
                    MANIFOLD_CHECK_DURATION,
                    MANIFOLD_CHECK_STEP,
                ) {
                    cells.push(("min_force_on_manifold", num(m[0].min(m[1]))));
                }
            }
        }
        cells
    }
}

/// Run one point: the measured cells and the work counters, or the error's text.
fn run(study: &TwoContactStudy, p: &Point) -> Result<(Cells, SolverStats), String> {
    let window = fast::window(&study.solver).map_err(|e| e.to_string())?;
    let sys = p.dynamics();
    match p.start {
        StartKind::Crossing { radius, n, which } => {
            bisect_crossing(study, &sys, (radius, n, which), window, p.integrator)
        }
        _ => {
            let x0 = p.start_state().ok_or("the start has no state")?;
            let run = run_fast(&sys, &x0, window, p.integrator, &study.solver)?;
            Ok((run_cells(&sys, &run), run.trace.stats))
        }
    }
}

/// The measured cells of one run.
fn run_cells(sys: &FastTwoContact, run: &FastRun) -> Cells {
    let num = |v: f64| v.to_string();
    let forces = run.end_forces(sys);
    let mut cells = vec![
        ("outcome", run.outcome(sys).symbol().to_string()),
        ("mode_end", run.trace.mode_end.name().to_string()),
        ("n_events", run.trace.events.len().to_string()),
        ("openings_1", run.openings(0).len().to_string()),
        ("openings_2", run.openings(1).len().to_string()),
        ("force_end_1", num(forces[0])),
        ("force_end_2", num(forces[1])),
        ("open_fraction_1", num(run.open_fraction(0))),
        ("open_fraction_2", num(run.open_fraction(1))),
    ];
    if let Some((s, contact)) = run.first_opening() {
        cells.push(("first_open_s", num(s)));
        cells.push(("first_open_contact", contact.to_string()));
    }
    if let Some(j) = run.cycling_contact() {
        cells.push(("cycle_contact", (j + 1).to_string()));
        if let Some((period, spread)) = run.period(j) {
            cells.push(("period", num(period)));
            cells.push(("period_spread", num(spread)));
        }
        let times: Vec<String> = run.openings(j).iter().map(|t| t.to_string()).collect();
        cells.push(("s_openings_cycle", times.join(";")));
    }
    cells
}

/// Bisect the outcome switch in the scan interval [θ_i, θ_{i+1}] of the circle (radius, n)
/// that contains the linear prediction `which`, to [`BISECTION_TOLERANCE`] in θ.
fn bisect_crossing(
    study: &TwoContactStudy,
    sys: &FastTwoContact,
    (radius, n, which): (f64, usize, usize),
    window: f64,
    integrator: IntegratorKind,
) -> Result<(Cells, SolverStats), String> {
    let e = SlipSlip::of(&sys.system).ok_or("P is singular")?;
    let predicted = e
        .manifold_angles()
        .ok_or("no single real unstable eigenvalue")?[which];
    let index = (predicted / circle_angle(1, n)).floor() as usize;
    let (lo, hi) = (circle_angle(index, n), circle_angle(index + 1, n));
    let mut stats = SolverStats::default();
    let mut runs = 0usize;
    let mut side = |theta: f64| -> Result<Outcome, String> {
        let start = e.circle_start(radius, theta);
        let run = run_fast(sys, &start, window, integrator, &study.solver)?;
        stats.add(&run.trace.stats);
        runs += 1;
        Ok(run.outcome(sys))
    };
    let (side_lo, side_hi) = (side(lo)?, side(hi)?);
    if side_lo == side_hi {
        return Err(format!(
            "no outcome switch between θ = {lo} and {hi} (both {}), the scan interval that holds the predicted crossing θ = {predicted}",
            side_lo.symbol()
        ));
    }
    let edge = refine_edge((lo, side_lo), (hi, side_hi), BISECTION_TOLERANCE, &mut side)?;
    let num = |v: f64| v.to_string();
    let cells = vec![
        ("theta_bisected", num(edge.t)),
        ("theta_offset", num(edge.t - predicted)),
        ("bracket_width", num(edge.width)),
        ("side_below", edge.below.symbol().to_string()),
        ("side_above", edge.above.symbol().to_string()),
        ("n_runs", runs.to_string()),
    ];
    Ok((cells, stats))
}

impl Plan for TwoContactStudy {
    type Point = Point;

    fn name(&self) -> &str {
        &self.name
    }
    /// point_id, kappa, the inputs, the run's settings and status, the measures, the work
    /// counters, the wall time.
    fn columns(&self) -> Vec<&'static str> {
        sweep_columns(INPUTS, MEASURES)
    }
    fn points(&self) -> Points<'_, Point> {
        Box::new(TwoContactStudy::points(self).into_iter())
    }
    fn point_id(&self, p: &Point) -> usize {
        p.id
    }
    fn input_row(&self, p: &Point) -> Row {
        sweep_input_row(p.id, NO_COMPLIANCE, p.inputs(), p.integrator, &self.solver)
    }
    fn run_point(&self, p: &Point) -> Row {
        let start = std::time::Instant::now();
        finish_sweep_row(self.input_row(p), run(self, p), start)
    }
    fn describe(&self, p: &Point) -> String {
        format!("{}, {} law, {}", p.label, p.law.name(), p.integrator)
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}
