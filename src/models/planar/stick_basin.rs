//! The planar system's stick/lift-off basin (`model = "planar"`,
//! `analysis = "stick_liftoff_basin"`): a state at rest (u0 = 0) in cell II(ii) or II(iii)
//! inside the friction cone, where Table 3 gives "F and T". Each row scans the outcome of fast
//! starts along one line of the (Y0, V0) plane — `sweep.Y0` along V0 = 0, `sweep.V0` along
//! Y0 = 0 — and bisects every edge between outcomes ([`crate::study::fast::basin::scan_edges`]).
//! The report tests C–V §4's claim that the stable manifold of the slip saddle separates the
//! starts that stick from those that lift off (docs/champneys_varkonyi.md §10).

use super::{Params, PlanarState, Sweep};
use crate::compliant::coulomb::Mode;
use crate::compliant::record::{ModeInterval, RunRecord};
use crate::error::SimError;
use crate::experiment::grammar::{Axis, LogGrid};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::Outcome;
use crate::model::iwc::{FastStart, SlipSaddle};
use crate::model::ProjectedDynamics;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::portraits::clipped_line;
use crate::study::fast::basin::{self, BasinLine, Edge};
use crate::study::fast::{self, FastContact};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// The planar stick/lift-off basin as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarStickBasin;

/// The one analysis of a stick basin table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StickBasinAnalysis {
    StickLiftoffBasin,
}

/// One row: a state (at rest, u0 = 0) and a scanned line with its scan points (increasing).
#[derive(Clone, Debug, PartialEq)]
pub struct StickBasinPoint {
    pub state: PlanarState,
    /// [`BasinLine::RestingDepth`] (t = Y0, V0 = 0) or [`BasinLine::SurfaceVelocity`]
    /// (t = V0, Y0 = 0).
    pub line: BasinLine,
    pub scan: Vec<f64>,
}

/// What the rigid data say about the fast (Y, V) plane of a state at rest in II(ii)/II(iii)
/// inside the cone (docs/champneys_varkonyi.md §10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickPlane {
    /// σ = sign(a): the slip a stick breaks into where the cone is left.
    pub slip_sign: f64,
    /// F* = |a|/k_σ: the stick holds iff λ_N > F* (the switching line −Y − c_d V = F*).
    pub switching_normal_force: f64,
    /// The stick focus Y = −λ_N⁰ (V = 0), λ_N⁰ the stick force of (stickforces).
    pub stick_focus_gap: f64,
    /// The saddle of the slip S_σ (p_σ < 0).
    pub saddle: SlipSaddle,
}

impl StickPlane {
    /// The plane of `pd` with friction μ and damping c_d, or why it has no stick/lift-off
    /// indeterminacy.
    pub fn of(pd: &ProjectedDynamics<f64, 2>, mu: f64, damping: f64) -> Result<Self, String> {
        let expected = pd.table3_outcomes(mu, 0.0);
        if pd.u != 0.0 || expected != [Outcome::LiftOff, Outcome::Stick] {
            return Err(format!(
                "needs u0 = 0 in cell II(ii) or II(iii) inside the friction cone (Table 3: F and T); \
                 this state is {} with outcomes {:?}",
                pd.table3_cell(mu, pd.u)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
                expected.iter().map(|o| o.symbol()).collect::<Vec<_>>()
            ));
        }
        let a = pd.free_tangential_accel;
        let slip_sign = a.signum();
        let p = pd.painleve_parameter(mu, slip_sign);
        let saddle = SlipSaddle::new(p, pd.free_normal_accel, damping)
            .ok_or_else(|| format!("the slip S{slip_sign:+} is normally stable (p = {p})"))?;
        Ok(StickPlane {
            slip_sign,
            switching_normal_force: a.abs() / pd.slip_coupling(mu, slip_sign),
            stick_focus_gap: -pd.stick_forces().1,
            saddle,
        })
    }

    /// The outcome the saddle's stable manifold predicts for `start`: F on the side α > 0
    /// (up, towards lift-off), T on the side α < 0 (C–V §4: "the stable manifold of the saddle
    /// separates trajectories that are attracted to mode T from those which lift-off").
    pub fn manifold_prediction(&self, start: FastStart) -> Outcome {
        if self.saddle.unstable_amplitude(start) > 0.0 {
            Outcome::LiftOff
        } else {
            Outcome::Stick
        }
    }
}

const INPUTS: &[&str] = &[
    "a", "b", "A", "B", "C", "mu", "u0", "damping", "line", "scan_min", "scan_max", "scan_n",
];
const STATE_COLUMNS: &[&str] = INPUTS.split_at(8).0;

impl PlanarState {
    fn stick_plane(&self) -> Result<StickPlane, String> {
        let (q, qdot) = self.contact_state();
        StickPlane::of(
            &ProjectedDynamics::at(&self.system, &q, &qdot),
            self.mu,
            self.damping,
        )
    }
}

/// The scans: `sweep.Y0` along V0 = 0 and `sweep.V0` along Y0 = 0, sorted.
fn scans(sweep: &Sweep) -> Vec<(BasinLine, Vec<f64>)> {
    let sorted = |a: &Axis| {
        let mut v = a.values();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let mut out = Vec::new();
    if let Some(a) = &sweep.y0 {
        out.push((BasinLine::RestingDepth, sorted(a)));
    }
    if let Some(a) = &sweep.v0 {
        out.push((BasinLine::SurfaceVelocity, sorted(a)));
    }
    out
}

/// The sweep without its scans: the states at rest.
fn states_sweep(sweep: &Sweep) -> Sweep {
    Sweep {
        y0: None,
        v0: None,
        ..sweep.clone()
    }
}

/// Scan points beyond which the runs of one row would take too long.
const MAX_SCAN: usize = 5000;

impl Model for PlanarStickBasin {
    const NAME: &'static str = "planar";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = StickBasinAnalysis;
    type Config = StickBasinPoint;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] = &[
        "switching_normal_force",
        "stick_focus_gap",
        "saddle_gap",
        "stable_rate",
        "manifold_crossing",
        "scan_outcomes",
        "edges",
        "edge_sides",
        "edge_sequences",
        "edge_cycle_period",
        "edge_cycle_switch_V",
        "manifold_edge",
        "manifold_offset",
        "manifold_agreement",
        "manifold_mismatch",
        "stick_end_gap_error",
        "bracket_width",
        "n_runs",
    ];

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            spec.sweep.kappa.max,
        )?;
        let s = &spec.sweep;
        let in_states = s
            .states
            .iter()
            .flatten()
            .any(|p| p.y0.is_some() || p.v0.is_some());
        if s.starts.is_some() || spec.params.y0.is_some() || spec.params.v0.is_some() || in_states {
            return Err(SimError::invalid(
                "sweep.starts",
                "given",
                "the stick basin scans sweep.Y0 (along V0 = 0) and sweep.V0 (along Y0 = 0): \
                 give the starts only there",
            ));
        }
        // The axes first: their values are built only once their length is known to be bounded.
        for (key, axis) in [("sweep.Y0", &s.y0), ("sweep.V0", &s.v0)] {
            match axis {
                Some(a @ Axis::Range(_)) => a.validate(key)?,
                Some(_) => {
                    return Err(SimError::invalid(
                        key,
                        "a list",
                        "a scan is an evenly spaced range { min = …, max = …, n = … }",
                    ))
                }
                None => {}
            }
        }
        let lines = scans(s);
        if lines.is_empty() {
            return Err(SimError::invalid(
                "sweep.Y0",
                "missing",
                "give the scan along V0 = 0 (sweep.Y0) and/or along Y0 = 0 (sweep.V0), e.g. \
                 Y0 = { min = -60, max = 0, n = 241 }",
            ));
        }
        for (line, values) in &lines {
            let key = match line {
                BasinLine::RestingDepth => "sweep.Y0",
                _ => "sweep.V0",
            };
            if values.len() < 2 || values.len() > MAX_SCAN {
                return Err(SimError::invalid(
                    key,
                    values.len(),
                    &format!("a scan needs between 2 and {MAX_SCAN} distinct values"),
                ));
            }
        }
        let states = states_sweep(s);
        let grid = super::PlanarGrid::new(&spec.params, &states);
        grid.validate()?;
        fast::window(&spec.solver)?;
        grid.check_explicit_steps(&spec.solver)?;
        for (state, index) in grid.states() {
            let key = if s.states.is_some() {
                format!("sweep.states[{index}]")
            } else {
                "params".to_string()
            };
            state
                .stick_plane()
                .map_err(|e| SimError::invalid(&key, "this state", &e))?;
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        let states = states_sweep(&spec.sweep);
        super::PlanarGrid::new(&spec.params, &states).size() * 2
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<StickBasinPoint> {
        let states = states_sweep(&spec.sweep);
        let lines = scans(&spec.sweep);
        super::PlanarGrid::new(&spec.params, &states)
            .states()
            .into_iter()
            .flat_map(|(state, _)| {
                lines.iter().map(move |(line, scan)| StickBasinPoint {
                    state,
                    line: *line,
                    scan: scan.clone(),
                })
            })
            .collect()
    }

    fn inputs(c: &StickBasinPoint) -> Cells {
        let mut cells = super::Planar::state_cells(&c.state);
        cells.push(("line", c.line.name().to_string()));
        let first = c.scan.first().copied().unwrap_or(f64::NAN);
        let last = c.scan.last().copied().unwrap_or(f64::NAN);
        cells.push(("scan_min", first.to_string()));
        cells.push(("scan_max", last.to_string()));
        cells.push(("scan_n", c.scan.len().to_string()));
        if let Ok(plane) = c.state.stick_plane() {
            cells.extend([
                (
                    "switching_normal_force",
                    plane.switching_normal_force.to_string(),
                ),
                ("stick_focus_gap", plane.stick_focus_gap.to_string()),
                ("saddle_gap", plane.saddle.equilibrium_gap.to_string()),
                ("stable_rate", plane.saddle.stable_rate.to_string()),
                (
                    "manifold_crossing",
                    c.line.closed_form(&plane.saddle).to_string(),
                ),
            ]);
        }
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &StickBasinPoint,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window_scaled = fast::window(&spec.solver).map_err(|e| e.to_string())?;
        let plane = c.state.stick_plane()?;
        let mut stats = SolverStats::default();
        let mut runs = 0usize;
        // The largest |Y_end − Y_focus| over the runs that end in stick.
        let mut stick_end_gap_error: f64 = 0.0;
        let mut outcome_at = |t: f64| -> Result<StartVerdict, String> {
            let start = c.line.start(&plane.saddle, t);
            let state = PlanarState { start, ..c.state };
            let (q0, qdot0) = state.initial_state(kappa);
            let (outcome, r) = state.fast_run(window_scaled).outcome(
                &q0,
                &qdot0,
                kappa,
                integrator,
                &spec.solver,
            )?;
            stats.add(&r.stats);
            runs += 1;
            if outcome == Outcome::Stick {
                let gap_end = r.final_q[1] / kappa;
                stick_end_gap_error =
                    stick_end_gap_error.max((gap_end - plane.stick_focus_gap).abs());
            }
            let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
            Ok((outcome, sequence.join(">"), stick_slip_cycle(&r, kappa)))
        };
        let (outcomes, edges) = basin::scan_edges(&c.scan, basin::BISECTION_TOLERANCE, &mut |t| {
            outcome_at(t).map(|o| o.0)
        })?;
        // The mode sequences at both ends of each final bracket: what changes across the edge.
        let mut sequences = Vec::new();
        let mut cycles = Vec::new();
        for e in &edges {
            let (_, below, cycle) = outcome_at(e.t - e.width / 2.0)?;
            let above = outcome_at(e.t + e.width / 2.0)?.1;
            sequences.push(format!("{below}|{above}"));
            cycles.push(cycle);
        }
        let cycle_cells = |f: fn((f64, f64)) -> f64| {
            cycles
                .iter()
                .map(|c| {
                    c.map(f)
                        .map(|x| x.to_string())
                        .unwrap_or_else(|| "-".into())
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let crossing = c.line.closed_form(&plane.saddle);
        let nearest = edges
            .iter()
            .min_by(|x, y| (x.t - crossing).abs().total_cmp(&(y.t - crossing).abs()));
        let predicted: Vec<Outcome> = c
            .scan
            .iter()
            .map(|&t| plane.manifold_prediction(c.line.start(&plane.saddle, t)))
            .collect();
        let agree = predicted
            .iter()
            .zip(&outcomes)
            .filter(|(p, o)| p == o)
            .count();
        let join = |v: Vec<String>| v.join(" ");
        let cells = vec![
            (
                "scan_outcomes",
                join(outcomes.iter().map(|o| o.symbol().to_string()).collect()),
            ),
            (
                "edges",
                join(edges.iter().map(|e| e.t.to_string()).collect()),
            ),
            ("edge_sides", join(edges.iter().map(edge_sides).collect())),
            ("edge_sequences", join(sequences)),
            ("edge_cycle_period", cycle_cells(|c| c.0)),
            ("edge_cycle_switch_V", cycle_cells(|c| c.1)),
            (
                "manifold_edge",
                nearest.map(|e| e.t.to_string()).unwrap_or_default(),
            ),
            (
                "manifold_offset",
                nearest
                    .map(|e| (e.t - crossing).to_string())
                    .unwrap_or_default(),
            ),
            ("manifold_agreement", format!("{agree}/{}", c.scan.len())),
            (
                "manifold_mismatch",
                mismatch_ranges(&c.scan, &predicted, &outcomes),
            ),
            ("stick_end_gap_error", stick_end_gap_error.to_string()),
            (
                "bracket_width",
                edges.iter().fold(0.0f64, |m, e| m.max(e.width)).to_string(),
            ),
            ("n_runs", runs.to_string()),
        ];
        Ok((cells, stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        write_report(&spec.name, rows, dir)
    }
}

/// The first stick–slip cycle of a run, if it has one: the fast time between its first two
/// stick → slip switches and the fast normal velocity V at the first (on the switching line).
/// A start on an edge between T and F repeats this cycle, ever closer to an unstable periodic
/// stick–slip orbit (docs/champneys_varkonyi.md §10).
fn stick_slip_cycle(r: &RunRecord, kappa: f64) -> Option<(f64, f64)> {
    let switches: Vec<&ModeInterval> = r
        .modes
        .windows(2)
        .filter(|w| {
            w[0].mode == Mode::Stick && matches!(w[1].mode, Mode::SlideLeft | Mode::SlideRight)
        })
        .map(|w| &w[0])
        .collect();
    let sk = kappa.sqrt();
    match switches.as_slice() {
        [first, second, ..] => Some(((second.t_end - first.t_end) / sk, first.qdot_end[1] / sk)),
        _ => None,
    }
}

/// One start's outcome, its mode sequence (`stick>slide_right>…`) and its first stick–slip
/// cycle ([`stick_slip_cycle`]).
type StartVerdict = (Outcome, String, Option<(f64, f64)>);

fn edge_sides(e: &Edge) -> String {
    format!("{}|{}", e.below.symbol(), e.above.symbol())
}

/// The scan intervals `[first, last]` of consecutive points whose outcome differs from the
/// manifold's prediction, as `first..last` separated by spaces (empty: none), to 9 decimals.
fn mismatch_ranges(scan: &[f64], predicted: &[Outcome], measured: &[Outcome]) -> String {
    let short = |x: f64| (x * 1e9).round() / 1e9;
    let mut out: Vec<String> = Vec::new();
    let mut open: Option<(f64, f64)> = None;
    for ((&t, p), m) in scan.iter().zip(predicted).zip(measured) {
        match (p != m, open) {
            (true, None) => open = Some((t, t)),
            (true, Some((first, _))) => open = Some((first, t)),
            (false, Some((first, last))) => {
                out.push(format!("{}..{}", short(first), short(last)));
                open = None;
            }
            (false, None) => {}
        }
    }
    if let Some((first, last)) = open {
        out.push(format!("{}..{}", short(first), short(last)));
    }
    out.join(" ")
}

/// The numbers of a cell of space-separated numbers.
fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}

/// The report's numbers, from the rows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StickBasinChecks {
    pub lines: Vec<LineSummary>,
}

/// One state and line over κ.
#[derive(Clone, Debug, Serialize)]
pub struct LineSummary {
    pub state: String,
    pub line: String,
    pub manifold_crossing: f64,
    /// Per κ: (κ, edges, sides).
    pub edges: Vec<(f64, Vec<f64>, String)>,
    /// The largest difference of an edge between κ (when every κ has as many edges).
    pub kappa_spread: Option<f64>,
    /// The edge nearest the manifold and its offset, at the smallest κ.
    pub manifold_edge: Option<f64>,
    pub manifold_offset: Option<f64>,
    pub manifold_agreement: String,
    pub manifold_mismatch: String,
    /// The largest |Y_end − stick focus| of a run that ends in T, over κ.
    pub stick_end_gap_error: f64,
    /// Per edge at the smallest κ: the period (fast time) of the stick–slip cycle that a start
    /// on the edge repeats, and V at its stick → slip switch ("-": none).
    pub edge_cycle_period: String,
    pub edge_cycle_switch_v: String,
}

pub fn checks(rows: &[Row]) -> StickBasinChecks {
    let mut groups: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.text("status") == "ok") {
        let state: Vec<&str> = STATE_COLUMNS.iter().map(|c| r.text(c)).collect();
        groups
            .entry((state.join(", "), r.text("line").to_string()))
            .or_default()
            .push(r);
    }
    let mut out = StickBasinChecks::default();
    for ((state, line), mut rows) in groups {
        rows.sort_by(|x, y| {
            let k = |r: &Row| r.number("kappa").unwrap_or(f64::NAN);
            k(y).total_cmp(&k(x))
        });
        let edges: Vec<(f64, Vec<f64>, String)> = rows
            .iter()
            .map(|r| {
                (
                    r.number("kappa").unwrap_or(f64::NAN),
                    numbers(r.text("edges")),
                    r.text("edge_sides").to_string(),
                )
            })
            .collect();
        let same_count = edges.windows(2).all(|w| w[0].1.len() == w[1].1.len());
        let kappa_spread = same_count.then(|| {
            let first = &edges[0].1;
            edges
                .iter()
                .flat_map(|(_, e, _)| e.iter().zip(first).map(|(x, y)| (x - y).abs()))
                .fold(0.0f64, f64::max)
        });
        let last = rows.last().copied();
        out.lines.push(LineSummary {
            state,
            line,
            manifold_crossing: last
                .and_then(|r| r.number("manifold_crossing"))
                .unwrap_or(f64::NAN),
            edges,
            kappa_spread,
            manifold_edge: last.and_then(|r| r.number("manifold_edge")),
            manifold_offset: last.and_then(|r| r.number("manifold_offset")),
            manifold_agreement: last
                .map(|r| r.text("manifold_agreement").to_string())
                .unwrap_or_default(),
            manifold_mismatch: last
                .map(|r| r.text("manifold_mismatch").to_string())
                .unwrap_or_default(),
            edge_cycle_period: last
                .map(|r| r.text("edge_cycle_period").to_string())
                .unwrap_or_default(),
            edge_cycle_switch_v: last
                .map(|r| r.text("edge_cycle_switch_V").to_string())
                .unwrap_or_default(),
            stick_end_gap_error: rows
                .iter()
                .filter_map(|r| r.number("stick_end_gap_error"))
                .fold(0.0f64, f64::max),
        });
    }
    out
}

fn write_report(name: &str, rows: &[Row], dir: &Path) -> Result<(), RunError> {
    let c = checks(rows);
    let json = crate::report::json::pretty(&c);
    write_atomically(&dir.join("analysis.json"), &(json + "\n"))?;
    if let Some(figure) = plane_figure(rows) {
        plot::save(&figure, dir, "basin").map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(&dir.join("summary.md"), &render(name, &c))
}

fn render(name: &str, c: &StickBasinChecks) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: C–V's planar contact at rest, stick or lift-off\n"
    );
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{name}.toml` (or `rigid-limit reproduce`). \
         Each row scans the outcome (the mode table's rule, to s = window_scaled) of fast starts \
         along V0 = 0 (t = Y0) or Y0 = 0 (t = V0) and bisects every edge between outcomes to a \
         bracket of {:e}. C–V §4 says the stable manifold V = λ_s (Y − b/p) of the slip saddle \
         separates the starts attracted to stick T from those that lift off (F); \
         \"manifold predicts\" counts the scan points whose outcome is the one the manifold's \
         side gives (F above it, T below). docs/champneys_varkonyi.md §10.\n",
        basin::BISECTION_TOLERANCE
    );
    let _ = writeln!(
        s,
        "| state ({}) | line | edges (sides) at the smallest κ | spread over κ | manifold crossing | nearest edge − crossing | manifold predicts | mismatched scan ranges | largest gap Y_end − focus (T runs) |",
        STATE_COLUMNS.join(", ")
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for l in &c.lines {
        let last = l.edges.last();
        let edges = last
            .map(|(_, e, sides)| {
                e.iter()
                    .zip(sides.split_whitespace())
                    .map(|(t, sd)| format!("{t:.10} ({})", sd.replace('|', "/")))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let spread = l
            .kappa_spread
            .map(|x| format!("{x:.1e}"))
            .unwrap_or_else(|| "edge counts differ".into());
        let offset = l
            .manifold_offset
            .map(|x| format!("{x:+.3e}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.10} | {} | {} | {} | {:.1e} |",
            l.state,
            l.line,
            edges,
            spread,
            l.manifold_crossing,
            offset,
            l.manifold_agreement,
            l.manifold_mismatch.replace(' ', ", "),
            l.stick_end_gap_error
        );
    }
    let _ = writeln!(
        s,
        "\n## The stick–slip cycle at the edges\n\nA start on an edge (the lower end of its \
         final bracket) repeats stick → slip → stick before it settles or lifts off: the period \
         in s between its first two stick → slip switches and V at the first one (on the \
         switching line), at the smallest κ. Equal numbers on every edge: one unstable \
         periodic stick–slip orbit whose stable set is the edge — of this state at its damping \
         c_d (the last number of the state); another damping is another experiment, and such \
         an orbit need not exist there.\n"
    );
    for l in &c.lines {
        let _ = writeln!(
            s,
            "- {} · {}: period {}; V at the switch {}",
            l.state, l.line, l.edge_cycle_period, l.edge_cycle_switch_v
        );
    }
    let _ = writeln!(s, "\n## Edges per κ\n");
    for l in &c.lines {
        for (k, e, sides) in &l.edges {
            let list: Vec<String> = e.iter().map(|t| format!("{t:.10}")).collect();
            let _ = writeln!(
                s,
                "- {} · {} · κ = {k:e}: {} ({})",
                l.state,
                l.line,
                list.join(", "),
                sides.replace('|', "/")
            );
        }
    }
    let _ = writeln!(
        s,
        "\nFigure: `basin.png` — the scanned starts coloured by outcome in the fast (Y, V) plane \
         with the edges, the saddle's stable manifold, the switching line λ_N = F* (the cone's \
         edge in stick), the border λ_N = 0 and the stick focus; right: near the saddle."
    );
    s
}

/// The (Y, V) figure of the first state: the full scan and the neighbourhood of the saddle.
fn plane_figure(rows: &[Row]) -> Option<Figure> {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let first = ok.first()?;
    let state: Vec<&str> = STATE_COLUMNS.iter().map(|c| first.text(c)).collect();
    let same_state = |r: &&&Row| {
        STATE_COLUMNS
            .iter()
            .zip(&state)
            .all(|(c, v)| r.text(c) == *v)
    };
    // The smallest κ of each line.
    let mut by_line: BTreeMap<String, &Row> = BTreeMap::new();
    for r in ok.iter().filter(same_state) {
        let k = r.number("kappa").unwrap_or(f64::NAN);
        let e = by_line.entry(r.text("line").to_string()).or_insert(r);
        if k < e.number("kappa").unwrap_or(f64::NAN) {
            *e = r;
        }
    }
    let n = |c: &str| first.number(c).unwrap_or(f64::NAN);
    let (f_star, focus, saddle, rate, damping) = (
        n("switching_normal_force"),
        n("stick_focus_gap"),
        n("saddle_gap"),
        n("stable_rate"),
        n("damping"),
    );
    let mut lift = Vec::new();
    let mut stick = Vec::new();
    let mut other = Vec::new();
    let mut edges = Vec::new();
    for r in by_line.values() {
        let at = |t: f64| -> (f64, f64) {
            if r.text("line") == BasinLine::RestingDepth.name() {
                (t, 0.0)
            } else {
                (0.0, t)
            }
        };
        let (lo, hi, count) = (
            r.number("scan_min")?,
            r.number("scan_max")?,
            r.number("scan_n")? as usize,
        );
        let outcomes: Vec<&str> = r.text("scan_outcomes").split_whitespace().collect();
        // The scan points are the axis values; an evenly spaced scan is rebuilt from its ends.
        for (i, o) in outcomes.iter().enumerate() {
            let t = lo + (hi - lo) * i as f64 / (count.max(2) - 1) as f64;
            match *o {
                "F" => lift.push(at(t)),
                "T" => stick.push(at(t)),
                _ => other.push(at(t)),
            }
        }
        edges.extend(numbers(r.text("edges")).into_iter().map(at));
    }
    let panel = |title: &str, ys: (f64, f64), vs: (f64, f64)| {
        let inside = |p: &&(f64, f64)| p.0 >= ys.0 && p.0 <= ys.1 && p.1 >= vs.0 && p.1 <= vs.1;
        let pick = |v: &[(f64, f64)]| v.iter().filter(inside).copied().collect::<Vec<_>>();
        let mut series = vec![
            Series {
                label: "start lifts off (F)".into(),
                points: pick(&lift),
                mark: Mark::Markers,
                color: 1,
            },
            Series {
                label: "start sticks (T)".into(),
                points: pick(&stick),
                mark: Mark::Markers,
                color: 0,
            },
            Series {
                label: "start slips (S±)".into(),
                points: pick(&other),
                mark: Mark::Markers,
                color: 4,
            },
            Series {
                label: "edge (bisected)".into(),
                points: pick(&edges),
                mark: Mark::Markers,
                color: REFERENCE,
            },
        ];
        let lines = [
            (
                "stable manifold of the slip saddle",
                rate,
                -rate * saddle,
                Mark::Line,
                3,
            ),
            (
                "switching line λ_N = F* (cone edge)",
                -1.0 / damping,
                -f_star / damping,
                Mark::Dashed,
                2,
            ),
            (
                "border λ_N = 0",
                -1.0 / damping,
                0.0,
                Mark::Dotted,
                REFERENCE,
            ),
        ];
        for (label, m, c, mark, color) in lines {
            if let Some(mut s) = clipped_line(m, c, ys, vs) {
                s.label = label.into();
                s.mark = mark;
                s.color = color;
                series.push(s);
            }
        }
        series.push(Series {
            label: "stick focus".into(),
            points: pick(&[(focus, 0.0)]),
            mark: Mark::Markers,
            color: 5,
        });
        series.push(Series {
            label: "slip saddle".into(),
            points: pick(&[(saddle, 0.0)]),
            mark: Mark::Markers,
            color: 7,
        });
        series.retain(|s| !s.points.is_empty());
        Panel {
            title: title.into(),
            x_label: "fast gap Y = y/κ".into(),
            y_label: "fast normal velocity V = v/√κ".into(),
            log_x: false,
            log_y: false,
            legend_lower: true,
            series,
            bands: Vec::new(),
        }
    };
    let all: Vec<(f64, f64)> = lift.iter().chain(&stick).chain(&other).copied().collect();
    let y_min = all.iter().map(|p| p.0).fold(focus, f64::min);
    let v_min = all.iter().map(|p| p.1).fold(0.0, f64::min);
    let margin = 0.05 * (-y_min).max(-v_min).max(1.0);
    let near = 2.5 * saddle.abs().max((rate * saddle).abs());
    Some(Figure {
        panels: vec![
            panel(
                "scanned starts (V0 = 0 and Y0 = 0)",
                (y_min - margin, margin),
                (v_min - margin, margin),
            ),
            panel(
                "near the slip saddle",
                (saddle - near, 0.3 * near),
                (-near, 0.3 * near),
            ),
        ],
        columns: 2,
        size: (1400, 640),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_ranges_join_consecutive_points() {
        use Outcome::{LiftOff as F, Stick as T};
        let scan = [0.0, 1.0, 2.0, 3.0, 4.0];
        let text = mismatch_ranges(&scan, &[F, F, T, T, T], &[T, T, T, F, F]);
        assert_eq!(text, "0..1 3..4");
        assert_eq!(mismatch_ranges(&scan, &[F; 5], &[F; 5]), "");
    }
}
