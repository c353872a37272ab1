//! The model's runs as a [`Plan`] of the runner: the columns of runs.csv, one point → one row.

use super::analysis::{
    first_time_past_midpoint, nodes_in_transition, sliding_branch_errors, sup_error,
};
use super::cells::{cell, opt};
use super::closed_form::ClosedForm;
use super::examples::{crossing_level, Example};
use super::quasistatic::uniform_partition;
use super::spec::{Case, Key, Setting, SmPoint, SmSpec};
use crate::experiment::rows::Cells;
use crate::experiment::runner::{Plan, Points, RunError};
use crate::experiment::table::{stat_fields, Row};
use crate::integrate::SolverStats;
use std::path::Path;
use std::time::Instant;

/// The columns of runs.csv.
pub fn columns() -> Vec<&'static str> {
    let mut c = vec!["point_id", "example", "method", "regime"];
    c.extend(
        Key::ALL
            .iter()
            .filter(|k| **k != Key::Example)
            .map(|k| k.name()),
    );
    c.extend([
        "integrator",
        "t_jump",
        "transition_time_exact",
        "status",
        "error",
    ]);
    c.extend(MEASURE_COLUMNS);
    c.extend(stat_fields(&SolverStats::default()).map(|(k, _)| counter_column(k)));
    c.push("wall_time_s");
    c
}

/// The measured columns (docs/schmid_mielke.md, "Measures").
pub(crate) const MEASURE_COLUMNS: [&str; 21] = [
    "sup_error",
    "jump_node_time",
    "crossing_time",
    "nodes_in_jump",
    "max_increment",
    "energy_slack_sum",
    "energy_slack_min",
    "complementarity_max",
    "stability_violation_max",
    "kkt_ties",
    "excursion",
    "recontacts",
    "z1_end",
    "z2_end",
    "load_work",
    "friction_work",
    "viscous_work",
    "dashpot_work",
    "energy_balance_error",
    "slide_error_printed",
    "slide_error_corrected",
];

/// The work counters' columns: the integrator's `steps` would collide with the key N.
fn counter_column(name: &'static str) -> &'static str {
    if name == "steps" {
        "integrator_steps"
    } else {
        name
    }
}

impl Case {
    /// The closed form this case is measured against.
    pub fn closed_form(&self) -> ClosedForm {
        self.example.closed_form()
    }

    /// The closed-form time the row's transition measure converges to: the jump (or the
    /// middle of the fast stretch) for the incremental problem, the crossing of
    /// [`crossing_level`] for the compliant model.
    pub fn transition_time_exact(&self) -> Option<f64> {
        let cf = self.closed_form();
        match self.setting {
            Setting::Incremental { .. } => cf.transition_midpoint_time(),
            Setting::Compliant(_) => cf.crossing_time(crossing_level(&self.example)),
        }
    }
}

/// The cells fixed by the inputs: the keys the case uses, the method, and what the closed form
/// says.
fn input_cells(point: &SmPoint) -> Cells {
    let case = &point.case;
    let mut cells: Cells = vec![
        ("point_id", point.id.to_string()),
        ("example", opt(point.values.get(&Key::Example).copied())),
        ("regime", case.example.regime().name().to_string()),
    ];
    let mut put = |k: Key, v: f64| cells.push((k.name(), v.to_string()));
    match case.example {
        Example::VaryingFriction(p) => {
            put(Key::H11, p.h11);
            put(Key::H22, p.h22);
            put(Key::SigmaStar, p.sigma_star);
            put(Key::Mu0, p.mu0);
            put(Key::Mu1, p.mu1);
            put(Key::LoadRate, p.load_rate);
        }
        Example::VaryingNormalForce(p) => {
            put(Key::H11, p.h11);
            put(Key::H12, p.h12);
            put(Key::H22, p.h22);
            put(Key::MuStar, p.mu_star);
            put(Key::FStar, p.f_star);
            put(Key::LoadRate, p.load_rate);
        }
    }
    put(Key::TEnd, case.t_end);
    match case.setting {
        Setting::Incremental { steps } => {
            cells.push(("method", "incremental".into()));
            cells.push(("steps", steps.to_string()));
        }
        Setting::Compliant(c) => {
            cells.push(("method", "compliant".into()));
            cells.push(("kappa", c.kappa.to_string()));
            cells.push(("epsilon", c.epsilon.to_string()));
            cells.push(("zeta", c.zeta.to_string()));
            cells.push(("integrator", c.integrator.to_string()));
            cells.push(("rtol", c.rtol.to_string()));
        }
    }
    let cf = case.closed_form();
    cells.push(("t_jump", opt(cf.jump.map(|j| j.time))));
    cells.push(("transition_time_exact", opt(case.transition_time_exact())));
    cells
}

/// Solve (IP) on t_k = kT/N and measure the path.
pub(crate) fn run_incremental(case: &Case, steps: usize) -> Result<Cells, String> {
    let problem = case.example.problem();
    let times = uniform_partition(case.t_end, steps);
    let path = problem
        .solve_incremental(case.example.initial_position(), &times)
        .map_err(|e| e.to_string())?;
    let cf = case.closed_form();
    let end = path.positions[path.positions.len() - 1];
    let mut cells = vec![
        (
            "sup_error",
            cell(sup_error(&cf, &path.times, &path.positions)),
        ),
        (
            "jump_node_time",
            opt(first_time_past_midpoint(&cf, &path.times, &path.positions)),
        ),
        (
            "nodes_in_jump",
            nodes_in_transition(&cf, &path.positions).to_string(),
        ),
        ("max_increment", cell(path.max_increment())),
        ("energy_slack_sum", cell(path.energy_slack_sum())),
        ("energy_slack_min", cell(path.min_energy_slack())),
        ("complementarity_max", cell(path.max_complementarity())),
        (
            "stability_violation_max",
            cell(path.max_stability_violation()),
        ),
        ("kkt_ties", path.ties().to_string()),
        ("z1_end", cell(end[0])),
        ("z2_end", cell(end[1])),
    ];
    // §4.2's slide against its printed branch and against (SM6) (sub-critical §4.2 only).
    if let Example::VaryingNormalForce(p) = case.example {
        let z1: Vec<(f64, f64)> = path
            .times
            .iter()
            .zip(&path.positions)
            .map(|(t, z)| (*t, z[0]))
            .collect();
        if let Some(e) = sliding_branch_errors(&p, case.example.regime(), &z1) {
            cells.push(("slide_error_printed", cell(e.sup_error_printed)));
            cells.push(("slide_error_corrected", cell(e.sup_error_corrected)));
        }
    }
    Ok(cells)
}

impl Plan for SmSpec {
    type Point = SmPoint;

    fn name(&self) -> &str {
        &self.name
    }
    fn columns(&self) -> Vec<&'static str> {
        columns()
    }
    fn points(&self) -> Points<'_, SmPoint> {
        Box::new(SmSpec::points(self).into_iter())
    }
    fn point_id(&self, point: &SmPoint) -> usize {
        point.id
    }
    fn input_row(&self, point: &SmPoint) -> Row {
        Row {
            point_id: point.id,
            fields: input_cells(point).into_iter().collect(),
        }
    }
    fn run_point(&self, point: &SmPoint) -> Row {
        let mut row = self.input_row(point);
        let start = Instant::now();
        let result = match point.case.setting {
            Setting::Incremental { steps } => {
                run_incremental(&point.case, steps).map(|c| (c, SolverStats::default()))
            }
            Setting::Compliant(c) => super::dynamic::run_compliant(&point.case, &c),
        };
        match result {
            Err(e) => {
                row.fields.insert("status", "error".into());
                row.fields.insert("error", e);
            }
            Ok((cells, stats)) => {
                row.fields.insert("status", "ok".into());
                for (k, v) in cells {
                    row.fields.insert(k, v);
                }
                if let Setting::Compliant(_) = point.case.setting {
                    for (k, v) in stat_fields(&stats) {
                        row.fields.insert(counter_column(k), v);
                    }
                }
                row.fields
                    .insert("wall_time_s", start.elapsed().as_secs_f64().to_string());
            }
        }
        row
    }
    fn describe(&self, point: &SmPoint) -> String {
        let case = &point.case;
        let ex = match case.example {
            Example::VaryingFriction(_) => 1,
            Example::VaryingNormalForce(_) => 2,
        };
        match case.setting {
            Setting::Incremental { steps } => {
                format!("ex {ex} H11 = {} N = {steps}", case.example.h11())
            }
            Setting::Compliant(c) => format!(
                "ex {ex} H11 = {} κ = {:.0e} ε = {:.0e} ζ = {}",
                case.example.h11(),
                c.kappa,
                c.epsilon,
                c.zeta
            ),
        }
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
    fn after_run(&self, dir: &Path) -> Result<(), RunError> {
        super::paths::write_paths(self, dir)
    }
}
