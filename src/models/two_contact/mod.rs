//! C–V's fast dynamics of two slipping contacts (`model = "two_contact"`, C–V §6.2–6.3, Fig.
//! unstableslip; docs/two_contact.md): Y_i'' = b_i + Σ_j P_ij f_j in the scaled variables
//! ([`system`]), run on the generic mode machine with the kinks f_j = 0 as located events, under
//! C–V's literal contact law and the harness's ([`system::ContactLaw`]). The system is
//! scale-free: there is no κ (the `kappa` column holds the placeholder 1).
//!
//! ```toml
//! model = "two_contact"
//! [params]              # any key here or per entry of sweep.states
//! b = [-1.0, -1.0]
//! P = [[-0.055, 0.088], [0.055, -0.036]]   # rows: P_11 P_12; P_21 P_22
//! k = [-1.0, -1.0]      # f_j = max(k_j Y_j + q_j V_j, 0), k, q < 0
//! q = [-1.0, -1.0]
//! [sweep]
//! law = ["literal", "harness"]
//! circle = { radius = 5.0, n = 72 }      # starts around S+S+ (V = 0) and the bisected crossings
//! # or: starts = [{ Y = [0.0, 0.0], V = [0.0, 0.0] }]
//! # states = [{ label = "…", P = … }, …]  # variants of the system, each merged over [params]
//! [solver]
//! integrators = ["dop853"]
//! rtol = 1e-12
//! atol = 1e-12
//! window_scaled = 200
//! ```

pub mod classification;
pub mod linear;
mod report;
pub mod runs;
pub mod system;

use crate::error::SimError;
use crate::experiment::grammar::{merged_states, LogGrid};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::study::fast;
use crate::study::fast::basin::{refine_edge, BISECTION_TOLERANCE};
use linear::SlipSlip;
use runs::{run_fast, Outcome};
use serde::{Deserialize, Serialize};
use std::f64::consts::{PI, TAU};
use std::path::Path;
use system::{ContactLaw, FastTwoContact, TwoContactSystem};

/// The two-contact fast dynamics as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoContact;

/// `[params]` (and each entry of `[sweep] states`): C–V's symbols.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// A name for the state in the report (default: its number).
    pub label: Option<String>,
    /// b: free normal accelerations.
    pub b: Option<[f64; 2]>,
    /// P, by rows: P_ij is contact i's normal acceleration per unit force at contact j.
    #[serde(rename = "P")]
    pub response: Option<[[f64; 2]; 2]>,
    /// k < 0 of f_j = max(k_j Y_j + q_j V_j, 0).
    pub k: Option<[f64; 2]>,
    /// q < 0.
    pub q: Option<[f64; 2]>,
}

/// Starts on a circle around the S+S+ equilibrium, V = 0.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Circle {
    pub radius: f64,
    /// Points at θ = 2πi/n, i = 0 … n−1.
    pub n: usize,
}

/// One explicit start.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Start {
    #[serde(rename = "Y")]
    pub depth: [f64; 2],
    #[serde(rename = "V")]
    pub rate: [f64; 2],
}

/// `[sweep]`: the contact laws, the states, and the starts (a circle or a list).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub law: Vec<ContactLaw>,
    pub states: Option<Vec<Params>>,
    pub circle: Option<Circle>,
    pub starts: Option<Vec<Start>>,
}

/// The model's one analysis (the key may be left out).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    FastOutcomes,
}

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

/// One row's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub label: String,
    pub system: TwoContactSystem,
    pub law: ContactLaw,
    pub start: StartKind,
}

/// The scale-free system has no compliance: every row stands on this one-point ladder.
const NO_COMPLIANCE: LogGrid = LogGrid {
    min: 1.0,
    max: 1.0,
    per_decade: 1,
};

/// The angle of the i-th of n circle points (the same expression for the scan and the
/// brackets of the bisection, so that they share their end points exactly).
pub fn circle_angle(index: usize, n: usize) -> f64 {
    TAU * index as f64 / n as f64
}

impl Config {
    fn dynamics(&self) -> FastTwoContact {
        FastTwoContact {
            system: self.system,
            law: self.law,
        }
    }

    /// The start state, if the row has one.
    fn start_state(&self) -> Option<[f64; 4]> {
        match self.start {
            StartKind::Circle { radius, index, n } => {
                Some(SlipSlip::of(&self.system)?.circle_start(radius, circle_angle(index, n)))
            }
            StartKind::Crossing { .. } => None,
            StartKind::Given(x) => Some(x),
        }
    }
}

/// The states of the grid: `[params]` merged with each entry of `states`, with their labels.
fn systems(spec: &SweepSpec<TwoContact>) -> Result<Vec<(String, TwoContactSystem)>, SimError> {
    let merged = merged_states(&spec.params, spec.sweep.states.as_deref())?;
    let key = |index: usize, name: &str| match &spec.sweep.states {
        Some(states)
            if serde_json::to_value(&states[index])
                .ok()
                .and_then(|v| v.get(name).cloned())
                .is_some_and(|v| !v.is_null()) =>
        {
            format!("sweep.states[{index}].{name}")
        }
        _ => format!("params.{name}"),
    };
    let mut out = Vec::new();
    for (index, p) in merged.iter().enumerate() {
        let missing = |name: &str| {
            SimError::invalid(
                &key(index, name),
                "missing",
                "give it in [params] or in every entry of sweep.states",
            )
        };
        let system = TwoContactSystem {
            free_accel: p.b.ok_or_else(|| missing("b"))?,
            response: p.response.ok_or_else(|| missing("P"))?,
            stiffness: p.k.ok_or_else(|| missing("k"))?,
            damping: p.q.ok_or_else(|| missing("q"))?,
        };
        let finite = |name: &str, values: &[f64]| -> Result<(), SimError> {
            match values.iter().find(|v| !v.is_finite()) {
                Some(v) => Err(SimError::invalid(&key(index, name), v, "must be finite")),
                None => Ok(()),
            }
        };
        finite("b", &system.free_accel)?;
        finite("P", system.response.as_flattened())?;
        for (name, values) in [("k", system.stiffness), ("q", system.damping)] {
            if let Some(v) = values.iter().find(|v| v.is_nan() || **v >= 0.0) {
                return Err(SimError::invalid(
                    &key(index, name),
                    v,
                    "must be negative: C–V's (linearcontact) f = max(kY + qV, 0) has k, q < 0 with Y < 0 penetration (the caption of Fig. unstableslip prints them without the sign)",
                ));
            }
        }
        let label = p
            .label
            .clone()
            .unwrap_or_else(|| format!("state {}", index + 1));
        out.push((label, system));
    }
    Ok(out)
}

fn validate_starts(spec: &SweepSpec<TwoContact>) -> Result<(), SimError> {
    let s = &spec.sweep;
    match (&s.circle, &s.starts) {
        (Some(_), Some(_)) | (None, None) => Err(SimError::invalid(
            "sweep.circle",
            if s.circle.is_some() { "given with sweep.starts" } else { "missing" },
            "give exactly one of sweep.circle = { radius, n } (starts around S+S+) and sweep.starts = [{ Y = [..], V = [..] }]",
        )),
        (Some(c), None) => {
            crate::error::require_positive("sweep.circle.radius", c.radius)?;
            if c.n < 2 {
                return Err(SimError::invalid("sweep.circle.n", c.n, "must be >= 2"));
            }
            for (label, system) in systems(spec)? {
                let e = SlipSlip::of(&system).ok_or_else(|| {
                    SimError::invalid("sweep.circle", &label, "P is singular: S+S+ has no isolated equilibrium to circle")
                })?;
                if e.forces.iter().any(|&f| f <= 0.0) {
                    return Err(SimError::invalid(
                        "sweep.circle",
                        &label,
                        &format!("S+S+ is inconsistent (f* = −P⁻¹b = {:?} needs both forces > 0): no equilibrium to circle", e.forces),
                    ));
                }
                if e.unstable_rate.is_none() {
                    return Err(SimError::invalid(
                        "sweep.circle",
                        &label,
                        "S+S+ needs exactly one real unstable eigenvalue for the stable-manifold prediction of the crossings",
                    ));
                }
            }
            Ok(())
        }
        (None, Some(starts)) => {
            if starts.is_empty() {
                return Err(SimError::invalid("sweep.starts", "[]", "list at least one start"));
            }
            for (i, st) in starts.iter().enumerate() {
                if st.depth.iter().chain(&st.rate).any(|v| !v.is_finite()) {
                    return Err(SimError::invalid(
                        &format!("sweep.starts[{i}]"),
                        "not finite",
                        "Y and V must be finite",
                    ));
                }
            }
            Ok(())
        }
    }
}

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

/// The linear region's check runs over this many s (the window of C–V's Fig. unstableslip (A)).
const MANIFOLD_CHECK_DURATION: f64 = 200.0;
const MANIFOLD_CHECK_STEP: f64 = 0.01;

impl Model for TwoContact {
    const NAME: &'static str = "two_contact";
    const ABOUT: &'static str =
        "Champneys–Várkonyi's fast dynamics of two slipping contacts (scale-free): IF/FI \
         outcomes around the unstable S+S+ equilibrium, the sprag–slip cycle";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = Analysis;
    type Config = Config;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] = MEASURES;

    fn kappa(_sweep: &Sweep) -> &LogGrid {
        &NO_COMPLIANCE
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        if spec.sweep.law.is_empty() {
            return Err(SimError::invalid(
                "sweep.law",
                "[]",
                "list at least one of \"literal\", \"harness\"",
            ));
        }
        for (i, l) in spec.sweep.law.iter().enumerate() {
            if spec.sweep.law[..i].contains(l) {
                return Err(SimError::invalid("sweep.law", l.name(), "listed twice"));
            }
        }
        systems(spec)?;
        validate_starts(spec)?;
        fast::window(&spec.solver).map(|_| ())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        let states = spec.sweep.states.as_ref().map_or(1, |s| s.len().max(1));
        let starts = match (&spec.sweep.circle, &spec.sweep.starts) {
            (Some(c), _) => c.n + 2,
            (None, Some(s)) => s.len(),
            (None, None) => 1,
        };
        (states as u128) * (spec.sweep.law.len() as u128) * (starts as u128)
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<Config> {
        let Ok(systems) = systems(spec) else {
            return Vec::new();
        };
        let mut starts = Vec::new();
        if let Some(c) = spec.sweep.circle {
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
        for st in spec.sweep.starts.iter().flatten() {
            starts.push(StartKind::Given([
                st.depth[0],
                st.depth[1],
                st.rate[0],
                st.rate[1],
            ]));
        }
        let mut out = Vec::new();
        for (label, system) in &systems {
            for &law in &spec.sweep.law {
                for &start in &starts {
                    out.push(Config {
                        label: label.clone(),
                        system: *system,
                        law,
                        start,
                    });
                }
            }
        }
        out
    }

    fn inputs(c: &Config) -> Cells {
        let s = &c.system;
        let num = |v: f64| v.to_string();
        let mut cells = vec![
            ("state", c.label.clone()),
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
            ("law", c.law.name().to_string()),
            (
                "start",
                match c.start {
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
        if let StartKind::Circle { index, n, .. } = c.start {
            cells.push(("theta", num(circle_angle(index, n))));
        }
        if let Some(x) = c.start_state() {
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
            if let Some(amplitude) = c.start_state().and_then(|x| e.unstable_amplitude(&x)) {
                if matches!(c.start, StartKind::Circle { .. }) {
                    cells.push(("linear_side", num(amplitude.signum())));
                }
            }
            if let (StartKind::Crossing { radius, which, .. }, Some(angles)) =
                (c.start, e.manifold_angles())
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

    fn run(
        spec: &SweepSpec<Self>,
        c: &Config,
        _kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window = fast::window(&spec.solver).map_err(|e| e.to_string())?;
        let sys = c.dynamics();
        match c.start {
            StartKind::Crossing { radius, n, which } => {
                bisect_crossing(&sys, radius, n, which, window, integrator, spec)
            }
            _ => {
                let x0 = c.start_state().ok_or("the start has no state")?;
                let run = run_fast(&sys, &x0, window, integrator, &spec.solver)?;
                Ok((run_cells(&sys, &run), run.trace.stats))
            }
        }
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        report::write_report(spec, rows, dir)
    }
}

/// The measured cells of one run.
fn run_cells(sys: &FastTwoContact, run: &runs::FastRun) -> Cells {
    let num = |v: f64| v.to_string();
    let forces = run.end_forces(sys);
    let mut cells = vec![
        ("outcome", run.outcome(sys).symbol().to_string()),
        (
            "mode_end",
            crate::hybrid::Named::name(&run.trace.mode_end).to_string(),
        ),
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

/// Bisect the outcome switch in the scan interval [θ_i, θ_{i+1}] of the circle that contains
/// the linear prediction `which`, to [`BISECTION_TOLERANCE`] in θ.
fn bisect_crossing(
    sys: &FastTwoContact,
    radius: f64,
    n: usize,
    which: usize,
    window: f64,
    integrator: IntegratorKind,
    spec: &SweepSpec<TwoContact>,
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
        let run = run_fast(
            sys,
            &e.circle_start(radius, theta),
            window,
            integrator,
            &spec.solver,
        )?;
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
