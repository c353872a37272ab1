//! C–V's phase portraits of the fast contact dynamics (Fig. phaseportraits, panels A–F) as
//! compliant runs of the planar system (`model = "planar"`, `analysis = "phase_portraits"`):
//! each state (a panel) is run from every fast start of `[sweep] starts`, its trajectory kept in
//! the fast scaled variables (s, Y, V); the report draws them with the lines the rigid data give
//! — the border λ_N = 0, the switching line λ_N = F* of a stick at rest, the slip saddle's
//! stable manifold — and the stable equilibrium (docs/champneys_varkonyi.md §11).

use super::{grid_of, Params, PlanarState, Sweep, INPUTS};
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::Outcome;
use crate::model::iwc::SlipSaddle;
use crate::model::ProjectedDynamics;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::study::fast;
use crate::study::fast::mode_table::ModeTable;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::Path;

/// The phase portraits as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarPortraits;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PortraitAnalysis {
    PhasePortraits,
}

/// The lines and points of a state's fast (Y, V) plane that the rigid data fix (C–V §4;
/// docs/champneys_varkonyi.md (5)–(8), §10).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FastPlane {
    /// F* = |a|/k_σ, σ = sign(a), for a start at rest (u0 = 0, a ≠ 0): a stick holds iff
    /// λ_N > F*.
    pub switching_normal_force: Option<f64>,
    /// The slip saddle (p_σ < 0 with b > 0: at Y* = b/p_σ < 0, inside the contact). σ is the
    /// sign of u0, or of a at rest.
    pub saddle: Option<SlipSaddle>,
    /// The stable equilibrium: the slip's Y = b/p_σ (u0 ≠ 0, p_σ > 0, b < 0), or the stick
    /// focus Y = −λ_N⁰ (u0 = 0 inside the friction cone).
    pub equilibrium_gap: Option<f64>,
}

impl FastPlane {
    pub fn of(pd: &ProjectedDynamics<f64, 2>, mu: f64, damping: f64) -> Self {
        let (a, b) = (pd.free_tangential_accel, pd.free_normal_accel);
        let sigma = if pd.u != 0.0 {
            pd.u.signum()
        } else if a != 0.0 {
            a.signum()
        } else {
            0.0
        };
        let p = (sigma != 0.0).then(|| pd.painleve_parameter(mu, sigma));
        let saddle = p
            .filter(|_| b > 0.0)
            .and_then(|p| SlipSaddle::new(p, b, damping));
        let equilibrium_gap = if pd.u != 0.0 {
            p.filter(|&p| p > 0.0 && b < 0.0).map(|p| b / p)
        } else {
            pd.in_friction_cone(mu).then(|| -pd.stick_forces().1)
        };
        FastPlane {
            switching_normal_force: (pd.u == 0.0 && a != 0.0)
                .then(|| a.abs() / pd.slip_coupling(mu, sigma)),
            saddle,
            equilibrium_gap,
        }
    }
}

impl PlanarState {
    fn fast_plane(&self) -> FastPlane {
        let (q, qdot) = self.contact_state();
        FastPlane::of(
            &ProjectedDynamics::at(&self.system, &q, &qdot),
            self.mu,
            self.damping,
        )
    }
}

/// The distance in (Y, V) between kept trajectory samples.
const SAMPLE_SPACING: f64 = 0.05;
/// Outputs every this much fast time s, besides the accepted steps: free flight is a parabola
/// that the integrator crosses in a few long steps.
const OUTPUT_SPACING: f64 = 0.02;
/// Samples are kept while |Y| and |V| stay below this (lift-off and IWC run away).
const KEEP_BOX: f64 = 15.0;

const MEASURES: &[&str] = &[
    "cell",
    "switching_normal_force",
    "saddle_gap",
    "stable_rate",
    "equilibrium_gap",
    "outcome",
    "mode_sequence",
    "trajectory_s",
    "trajectory_Y",
    "trajectory_V",
];

impl Model for PlanarPortraits {
    const NAME: &'static str = "planar";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = PortraitAnalysis;
    type Config = PlanarState;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] = MEASURES;

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            spec.sweep.kappa.max,
        )?;
        grid_of(spec).validate()?;
        fast::window(&spec.solver)?;
        grid_of(spec).check_explicit_steps(&spec.solver)
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        grid_of(spec).size()
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<PlanarState> {
        grid_of(spec).states().into_iter().map(|(s, _)| s).collect()
    }

    fn inputs(c: &PlanarState) -> Cells {
        let mut cells = ModeTable::<super::Planar, 2>::inputs(c);
        cells.truncate(INPUTS.len());
        let (q, qdot) = c.contact_state();
        let pd = ProjectedDynamics::at(&c.system, &q, &qdot);
        let plane = c.fast_plane();
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        cells.extend([
            (
                "cell",
                pd.table3_cell(c.mu, c.u0)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
            ),
            ("switching_normal_force", opt(plane.switching_normal_force)),
            ("saddle_gap", opt(plane.saddle.map(|s| s.equilibrium_gap))),
            ("stable_rate", opt(plane.saddle.map(|s| s.stable_rate))),
            ("equilibrium_gap", opt(plane.equilibrium_gap)),
        ]);
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &PlanarState,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window_scaled = fast::window(&spec.solver).map_err(|e| e.to_string())?;
        let (q0, qdot0) = c.initial_state(kappa);
        let (outcome, r) = c.fast_run(window_scaled).outcome_recorded(
            &q0,
            &qdot0,
            kappa,
            integrator,
            &spec.solver,
            Some(OUTPUT_SPACING),
        )?;
        let sk = kappa.sqrt();
        // (s, Y, V) of every accepted step and output, in time order, while inside the keep box.
        let mut samples: Vec<&crate::compliant::record::Sample> =
            r.trajectory.iter().flatten().chain(&r.outputs).collect();
        samples.sort_by(|x, y| x.t.total_cmp(&y.t));
        let scaled: Vec<(f64, f64, f64)> = samples
            .iter()
            .map(|x| (x.t / sk, x.q[1] / kappa, x.qdot[1] / sk))
            .take_while(|&(_, y, v)| y.abs() < KEEP_BOX && v.abs() < KEEP_BOX)
            .collect();
        // A sample is kept when it lies SAMPLE_SPACING from the last one kept in (Y, V): the
        // curves stay smooth where they move and cost nothing where they settle.
        let mut kept: Vec<(f64, f64, f64)> = Vec::new();
        for (i, x) in scaled.iter().enumerate() {
            let far = kept
                .last()
                .is_none_or(|k| (x.1 - k.1).hypot(x.2 - k.2) >= SAMPLE_SPACING);
            if far || i + 1 == scaled.len() {
                kept.push(*x);
            }
        }
        // Seven significant digits: the figure's resolution, a third of the file.
        let column = |f: fn(&(f64, f64, f64)) -> f64| {
            kept.iter()
                .map(|x| format!("{:.6e}", f(x)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
        let cells = vec![
            ("outcome", outcome.symbol().to_string()),
            ("mode_sequence", sequence.join(">")),
            ("trajectory_s", column(|x| x.0)),
            ("trajectory_Y", column(|x| x.1)),
            ("trajectory_V", column(|x| x.2)),
        ];
        Ok((cells, r.stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        write_report(&spec.name, rows, dir)
    }
}

/// The columns that identify a panel (the state without its start).
const STATE_COLUMNS: &[&str] = INPUTS.split_at(8).0;

/// The plotted window of every panel, in (Y, V).
const WINDOW_Y: (f64, f64) = (-10.0, 4.0);
const WINDOW_V: (f64, f64) = (-8.0, 6.0);

/// The panels' rows (smallest κ of each start), in order of first appearance, lettered A, B, ….
fn panels(rows: &[Row]) -> Vec<(String, Vec<&Row>)> {
    let mut out: Vec<(String, Vec<&Row>)> = Vec::new();
    let smallest = rows
        .iter()
        .filter_map(|r| r.number("kappa"))
        .fold(f64::INFINITY, f64::min);
    for r in rows
        .iter()
        .filter(|r| r.text("status") == "ok" && r.number("kappa") == Some(smallest))
    {
        let key: Vec<&str> = STATE_COLUMNS.iter().map(|c| r.text(c)).collect();
        let key = key.join(", ");
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => out.push((key, vec![r])),
        }
    }
    out
}

fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}

/// The colour of an outcome's trajectories.
fn outcome_colour(o: &str) -> usize {
    match Outcome::from_symbol(o) {
        Some(Outcome::LiftOff) => 1,
        Some(Outcome::Stick) => 0,
        Some(Outcome::SlipPositive) => 2,
        Some(Outcome::SlipNegative) => 5,
        _ => 3,
    }
}

/// The pieces of `path` inside the window.
fn inside_window(path: Vec<(f64, f64)>) -> Vec<Vec<(f64, f64)>> {
    let inside = |&(y, v): &(f64, f64)| {
        (WINDOW_Y.0..=WINDOW_Y.1).contains(&y) && (WINDOW_V.0..=WINDOW_V.1).contains(&v)
    };
    let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in path {
        if inside(&p) {
            if let Some(piece) = pieces.last_mut() {
                piece.push(p);
            }
        } else if pieces.last().is_some_and(|piece| !piece.is_empty()) {
            pieces.push(Vec::new());
        }
    }
    pieces.retain(|piece| piece.len() > 1);
    pieces
}

/// The part of V = m Y + c inside the window.
fn line_in_window(m: f64, c: f64) -> Vec<(f64, f64)> {
    super::stick_basin::clipped_line(m, c, WINDOW_Y, WINDOW_V).map_or_else(Vec::new, |s| s.points)
}

fn panel_of(letter: char, rows: &[&Row]) -> Panel {
    let first = rows[0];
    let n = |c: &str| first.number(c);
    let damping = n("damping").unwrap_or(1.0);
    let mut series = Vec::new();
    let mut labelled: Vec<String> = Vec::new();
    for r in rows {
        let o = r.text("outcome");
        let path: Vec<(f64, f64)> = numbers(r.text("trajectory_Y"))
            .into_iter()
            .zip(numbers(r.text("trajectory_V")))
            .collect();
        for piece in inside_window(path) {
            let label = if labelled.iter().any(|l| l == o) {
                String::new()
            } else {
                labelled.push(o.to_string());
                format!("run ending {o}")
            };
            series.push(Series {
                label,
                points: piece,
                mark: Mark::Line,
                color: outcome_colour(o),
            });
        }
    }
    let starts: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.number("Y0")?, r.number("V0")?)))
        .collect();
    series.push(Series {
        label: "start".into(),
        points: starts,
        mark: Mark::Markers,
        color: REFERENCE,
    });
    series.push(Series {
        label: "border λ_N = 0".into(),
        points: line_in_window(-1.0 / damping, 0.0),
        mark: Mark::Dotted,
        color: REFERENCE,
    });
    if let Some(f) = n("switching_normal_force") {
        series.push(Series {
            label: "cone edge λ_N = F*".into(),
            points: line_in_window(-1.0 / damping, -f / damping),
            mark: Mark::Dashed,
            color: 4,
        });
    }
    if let (Some(y), Some(rate)) = (n("saddle_gap"), n("stable_rate")) {
        series.push(Series {
            label: "stable manifold of the slip saddle".into(),
            points: line_in_window(rate, -rate * y),
            mark: Mark::Line,
            color: 7,
        });
    }
    if let Some(y) = n("equilibrium_gap") {
        series.push(Series {
            label: if first.number("u0") == Some(0.0) {
                "stick focus".into()
            } else {
                "slip equilibrium".into()
            },
            points: vec![(y, 0.0)],
            mark: Mark::Markers,
            color: 7,
        });
    }
    series.retain(|s| !s.points.is_empty());
    Panel {
        title: format!(
            "{letter}: {}, a = {}, b = {}, u0 = {}",
            first.text("cell"),
            first.text("a"),
            first.text("b"),
            first.text("u0")
        ),
        x_label: "fast gap Y = y/κ".into(),
        y_label: "fast normal velocity V = v/√κ".into(),
        log_x: false,
        log_y: false,
        legend_lower: false,
        series,
        bands: Vec::new(),
    }
}

/// What a panel of C–V's figure shows, measured on its runs (docs/champneys_varkonyi.md §11):
/// the outcomes, those of the starts not in free flight (Y0 ≤ 0), the starts whose outcome lies
/// on the side of the slip saddle's stable manifold V = λ_s(Y − Y*) that C–V's text assigns it
/// (above: lift-off; below: IWC in slip, stick at rest), and how far the runs that settle (slip
/// S+ or stick T) end from the stable equilibrium.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PanelMeasure {
    pub panel: String,
    pub cell: String,
    pub starts: usize,
    /// Runs per outcome symbol (F, IWC, S+, T, …).
    pub outcomes: std::collections::BTreeMap<String, usize>,
    /// Each outcome's share of the starts.
    pub fractions: std::collections::BTreeMap<String, f64>,
    /// Starts with Y0 ≤ 0 (in contact or on the surface) and, of them, the share ending in IWC.
    pub starts_not_in_flight: usize,
    pub iwc_fraction_not_in_flight: f64,
    /// With a slip saddle: the share of starts whose outcome is the one of their manifold side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifold_side_agreement: Option<f64>,
    /// With a stable equilibrium: the largest |Y(end) − Y_eq| of the runs ending in slip or stick.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equilibrium_distance_max: Option<f64>,
}

/// The measures of every panel, lettered in order.
pub fn panel_measures(rows: &[Row]) -> Vec<PanelMeasure> {
    panels(rows)
        .iter()
        .zip('A'..='Z')
        .map(|((_, r), letter)| {
            let mut m = PanelMeasure {
                panel: letter.to_string(),
                cell: r[0].text("cell").to_string(),
                starts: r.len(),
                ..PanelMeasure::default()
            };
            for x in r {
                *m.outcomes.entry(x.text("outcome").to_string()).or_default() += 1;
            }
            for (o, n) in &m.outcomes {
                m.fractions.insert(o.clone(), *n as f64 / r.len() as f64);
            }
            let grounded: Vec<&&Row> = r
                .iter()
                .filter(|x| x.number("Y0").is_some_and(|y| y <= 0.0))
                .collect();
            m.starts_not_in_flight = grounded.len();
            m.iwc_fraction_not_in_flight = grounded
                .iter()
                .filter(|x| x.text("outcome") == Outcome::Iwc.symbol())
                .count() as f64
                / grounded.len().max(1) as f64;
            let at_rest = r[0].number("u0") == Some(0.0);
            if let (Some(y_star), Some(rate)) =
                (r[0].number("saddle_gap"), r[0].number("stable_rate"))
            {
                let below = if at_rest {
                    Outcome::Stick.symbol()
                } else {
                    Outcome::Iwc.symbol()
                };
                let agree = r
                    .iter()
                    .filter(|x| {
                        let (y0, v0) = (
                            x.number("Y0").unwrap_or(f64::NAN),
                            x.number("V0").unwrap_or(f64::NAN),
                        );
                        let above = v0 - rate * (y0 - y_star) > 0.0;
                        let expected = if above {
                            Outcome::LiftOff.symbol()
                        } else {
                            below
                        };
                        x.text("outcome") == expected
                    })
                    .count();
                m.manifold_side_agreement = Some(agree as f64 / r.len() as f64);
            }
            if let Some(y_eq) = r[0].number("equilibrium_gap") {
                let settled = [
                    Outcome::SlipPositive.symbol(),
                    Outcome::SlipNegative.symbol(),
                    Outcome::Stick.symbol(),
                ];
                m.equilibrium_distance_max = r
                    .iter()
                    .filter(|x| settled.contains(&x.text("outcome")))
                    .filter_map(|x| {
                        numbers(x.text("trajectory_Y"))
                            .last()
                            .map(|y| (y - y_eq).abs())
                    })
                    .reduce(f64::max);
            }
            m
        })
        .collect()
}

fn write_report(name: &str, rows: &[Row], dir: &Path) -> Result<(), RunError> {
    let groups = panels(rows);
    let letters = ('A'..='Z').collect::<Vec<_>>();
    if !groups.is_empty() {
        let figure = Figure {
            panels: groups
                .iter()
                .zip(&letters)
                .map(|((_, r), &l)| panel_of(l, r))
                .collect(),
            columns: 3,
            size: (1650, 1150),
        };
        plot::save(&figure, dir, "portraits").map_err(crate::report::figure_error(dir))?;
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: C–V's phase portraits of the fast contact dynamics\n"
    );
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{name}.toml` (or `rigid-limit reproduce`). \
         Each panel is one state of the planar system, run from every start to s = \
         window_scaled at the smallest κ; its outcome is the mode table's rule. \
         docs/champneys_varkonyi.md §11. Figure: `portraits.png`.\n"
    );
    let _ = writeln!(
        s,
        "| panel | state ({}) | cell | F* | saddle Y* | λ_s | equilibrium Y | outcomes by start (Y0, V0) |",
        STATE_COLUMNS.join(", ")
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for ((key, r), l) in groups.iter().zip(&letters) {
        let first = r[0];
        let outcomes: Vec<String> = r
            .iter()
            .map(|x| format!("({}, {}) {}", x.text("Y0"), x.text("V0"), x.text("outcome")))
            .collect();
        let _ = writeln!(
            s,
            "| {l} | {key} | {} | {} | {} | {} | {} | {} |",
            first.text("cell"),
            first.text("switching_normal_force"),
            first.text("saddle_gap"),
            first.text("stable_rate"),
            first.text("equilibrium_gap"),
            outcomes.join("; ")
        );
    }
    let measures = panel_measures(rows);
    let _ = writeln!(
        s,
        "\n## What each panel shows, measured\n\nanalysis.json `panels`: per panel the outcomes \
         and their shares; of the starts not in free flight (Y0 ≤ 0) the share ending in IWC; \
         with a slip saddle the share of starts whose outcome is their side's of its stable \
         manifold (above: F; below: IWC in slip, T at rest); with a stable equilibrium the \
         largest |Y(end) − Y_eq| of the runs that settle (S+, T).\n\n\
         | panel | cell | outcomes | IWC of the starts with Y0 ≤ 0 | manifold side agreement | largest distance of Y(end) from Y_eq |\n\
         |---|---|---|---|---|---|"
    );
    for m in &measures {
        let outcomes: Vec<String> = m.outcomes.iter().map(|(o, n)| format!("{o} {n}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}/{} | {} | {} |",
            m.panel,
            m.cell,
            outcomes.join(", "),
            (m.iwc_fraction_not_in_flight * m.starts_not_in_flight as f64).round(),
            m.starts_not_in_flight,
            m.manifold_side_agreement
                .map_or(String::new(), |a| format!("{a}")),
            m.equilibrium_distance_max
                .map_or(String::new(), |d| format!("{d:.1e}")),
        );
    }
    write_atomically(
        &dir.join("analysis.json"),
        &crate::report::json::pretty(&serde_json::json!({ "panels": measures })),
    )?;
    write_atomically(&dir.join("summary.md"), &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plane of C–V's panel F (II(iii) at rest in the cone) is the stick basin's.
    #[test]
    fn fast_plane_of_the_stick_basin_state() {
        let sys = super::super::mechanics::ConstantPlanar {
            free_tangential_accel: 4.0,
            free_normal_accel: 1.0,
            tangential_mobility: 1.0,
            cross_mobility: 0.8,
            normal_mobility: 1.0,
        };
        let pd = ProjectedDynamics::at(&sys, &[0.0, 0.0], &[0.0, 0.0]);
        let plane = FastPlane::of(&pd, 2.0, 1.0);
        assert!((plane.switching_normal_force.unwrap() - 4.0 / 1.2).abs() < 1e-14);
        assert!((plane.saddle.unwrap().equilibrium_gap + 1.0 / 0.6).abs() < 1e-14);
        // Stick focus: λ_N⁰ = (aB − Ab)/(AC − B²) = 2.2/0.36.
        assert!((plane.equilibrium_gap.unwrap() + 2.2 / 0.36).abs() < 1e-12);
    }
}
