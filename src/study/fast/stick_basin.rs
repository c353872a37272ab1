//! The stick/lift-off basin (`analysis = "stick_liftoff_basin"`) of any [`FastContact`] system
//! whose sweep offers the fast starts as axes ([`FastContact::start_axes`]): a state at rest
//! (u0 = 0) in cell II(ii) or II(iii) inside the friction cone, where Table 3 gives "F and T".
//! Each row scans the outcome of fast starts along one line of the (Y0, V0) plane — `sweep.Y0`
//! along V0 = 0, `sweep.V0` along Y0 = 0 — and bisects every edge between outcomes
//! ([`scan_edges`]). The report ([`crate::analysis::stick_basin`],
//! [`crate::report::stick_basin`]) tests C–V §4's claim that the stable manifold of the slip
//! saddle separates the starts that stick from those that lift off (docs/champneys_varkonyi.md
//! §10).

use super::basin::{basin_study, scan_edges, BasinLine, Edge, BISECTION_TOLERANCE};
use super::plan::{FastPlan, FastStudy};
use super::run::FastRun;
use super::{fast_starts_given, normal_state, projection, window, FastContact};
use crate::compliant::coulomb::Mode;
use crate::compliant::record::{ModeInterval, RunRecord};
use crate::error::SimError;
use crate::experiment::grammar::{Axis, SolverSpec};
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::Outcome;
use crate::model::iwc::{FastStart, SlipSaddle};
use crate::model::{PlanarContactSystem, ProjectedDynamics};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::path::Path;

/// The stick/lift-off basin of system `S` (with `N` coordinates): a [`FastStudy`], run as
/// `FastPlan<StickBasin<S, N>, N>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickBasin<S, const N: usize>(PhantomData<S>);

/// The one analysis of a stick basin table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StickBasinAnalysis {
    StickLiftoffBasin,
}

/// One row: a state (at rest, u0 = 0) and a scanned line with its scan points (increasing).
#[derive(Clone, Debug, PartialEq)]
pub struct StickBasinPoint<State> {
    pub state: State,
    /// [`BasinLine::RestingDepth`] (t = Y0, V0 = 0) or [`BasinLine::SurfaceVelocity`]
    /// (t = V0, Y0 = 0).
    pub line: BasinLine,
    pub scan: Vec<f64>,
}

/// What the rigid data say about the fast (Y, V) plane of a state at rest in II(ii)/II(iii)
/// inside the cone (docs/champneys_varkonyi.md §10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StickPlane {
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
    pub fn of<const N: usize>(
        pd: &ProjectedDynamics<f64, N>,
        mu: f64,
        damping: f64,
    ) -> Result<Self, String> {
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
    pub(crate) fn manifold_prediction(&self, start: FastStart) -> Outcome {
        if self.saddle.unstable_amplitude(start) > 0.0 {
            Outcome::LiftOff
        } else {
            Outcome::Stick
        }
    }
}

/// The stick plane of `state` at its contact.
pub(crate) fn stick_plane<S: FastContact<N>, const N: usize>(
    state: &S::State,
) -> Result<StickPlane, String> {
    StickPlane::of(
        &projection::<S, N>(state),
        S::friction(state).mu,
        S::damping(state),
    )
}

/// The measured columns after C–V's scalars: the state's stick plane and the manifold's
/// crossing of the line, then the scan.
pub const MEASURES: &[&str] = &[
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

/// The scans: `sweep.Y0` along V0 = 0 and `sweep.V0` along Y0 = 0, sorted.
fn scans<S: FastContact<N>, const N: usize>(sweep: &S::Sweep) -> Vec<(BasinLine, Vec<f64>)> {
    let sorted = |a: &Axis| {
        let mut v = a.values();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let [y0, v0] = S::start_axes(sweep);
    let mut out = Vec::new();
    if let Some(a) = y0 {
        out.push((BasinLine::RestingDepth, sorted(a)));
    }
    if let Some(a) = v0 {
        out.push((BasinLine::SurfaceVelocity, sorted(a)));
    }
    out
}

/// Scan points beyond which the runs of one row would take too long.
const MAX_SCAN: usize = 5000;

impl<S: FastContact<N>, const N: usize> FastStudy<N> for StickBasin<S, N> {
    type System = S;
    type Analysis = StickBasinAnalysis;
    type Point = StickBasinPoint<S::State>;
    const INPUTS: &'static [&'static str] = &["line", "scan_min", "scan_max", "scan_n"];
    const MEASURES: &'static [&'static str] = MEASURES;

    fn validate(plan: &FastPlan<Self, N>) -> Result<(), SimError> {
        let states = S::without_start_axes(&plan.sweep);
        if fast_starts_given(&plan.params, &states) {
            return Err(SimError::invalid(
                "sweep.starts",
                "given",
                "the stick basin scans sweep.Y0 (along V0 = 0) and sweep.V0 (along Y0 = 0): \
                 give the starts only there",
            ));
        }
        // The axes first: their values are built only once their length is known to be bounded.
        let [y0, v0] = S::start_axes(&plan.sweep);
        for (key, axis) in [("sweep.Y0", y0), ("sweep.V0", v0)] {
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
        let lines = scans::<S, N>(&plan.sweep);
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
        S::validate(&plan.params, &states)?;
        window(&plan.solver)?;
        S::check_solver(&plan.params, &states, &plan.solver)?;
        for (state, index) in S::states(&plan.params, &states) {
            stick_plane::<S, N>(&state)
                .map_err(|e| SimError::invalid(&S::state_key(&states, index), "this state", &e))?;
        }
        Ok(())
    }

    fn grid_size(plan: &FastPlan<Self, N>) -> u128 {
        S::grid_size(&plan.params, &S::without_start_axes(&plan.sweep)) * 2
    }

    fn points(plan: &FastPlan<Self, N>) -> Vec<StickBasinPoint<S::State>> {
        let states = S::without_start_axes(&plan.sweep);
        let lines = scans::<S, N>(&plan.sweep);
        S::states(&plan.params, &states)
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

    fn state(c: &StickBasinPoint<S::State>) -> &S::State {
        &c.state
    }

    fn inputs(c: &StickBasinPoint<S::State>) -> Cells {
        let first = c.scan.first().copied().unwrap_or(f64::NAN);
        let last = c.scan.last().copied().unwrap_or(f64::NAN);
        vec![
            ("line", c.line.name().to_string()),
            ("scan_min", first.to_string()),
            ("scan_max", last.to_string()),
            ("scan_n", c.scan.len().to_string()),
        ]
    }

    fn derived(c: &StickBasinPoint<S::State>) -> Cells {
        let mut cells = Cells::new();
        if let Ok(plane) = stick_plane::<S, N>(&c.state) {
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
        solver: &SolverSpec,
        c: &StickBasinPoint<S::State>,
        window: f64,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let plane = stick_plane::<S, N>(&c.state)?;
        let mut stats = SolverStats::default();
        let mut runs = 0usize;
        // The largest |Y_end − Y_focus| over the runs that end in stick.
        let mut stick_end_gap_error: f64 = 0.0;
        let mut outcome_at = |t: f64| -> Result<StartVerdict, String> {
            let state = S::with_start(&c.state, c.line.start(&plane.saddle, t));
            let (q0, qdot0) = S::initial_state(&state, kappa);
            let body = S::body(&state);
            let (outcome, r) = FastRun::at::<S, N>(&body, &state, window)
                .outcome(&q0, &qdot0, kappa, integrator, solver, None)?;
            stats.add(&r.stats);
            runs += 1;
            if outcome == Outcome::Stick {
                let gap_end = normal_state(&body, &r.final_q, &r.final_qdot).0 / kappa;
                stick_end_gap_error =
                    stick_end_gap_error.max((gap_end - plane.stick_focus_gap).abs());
            }
            let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
            Ok((
                outcome,
                sequence.join(">"),
                stick_slip_cycle(&body, &r, kappa),
            ))
        };
        let (outcomes, edges) = scan_edges(&c.scan, BISECTION_TOLERANCE, &mut |t| {
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

    fn report(plan: &FastPlan<Self, N>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        crate::report::stick_basin::write_report(&basin_study::<S, N>(&plan.name), rows, dir)
    }
}

/// The first stick–slip cycle of a run of `body`, if it has one: the fast time between its
/// first two stick → slip switches and the fast normal velocity V at the first (on the
/// switching line). A start on an edge between T and F repeats this cycle, ever closer to an
/// unstable periodic stick–slip orbit (docs/champneys_varkonyi.md §10).
fn stick_slip_cycle<B: PlanarContactSystem<N>, const N: usize>(
    body: &B,
    r: &RunRecord,
    kappa: f64,
) -> Option<(f64, f64)> {
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
        [first, second, ..] => {
            let v = normal_state(body, &first.q_end, &first.qdot_end).1;
            Some(((second.t_end - first.t_end) / sk, v / sk))
        }
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
