//! `paths.csv`: the sampled paths the figures draw (columns case, series, t, z1, z2): the closed
//! form of every case, the incremental path at a few N, and (compliant runs) the trajectory of
//! a few runs in slow time. Written after a run, like the rod's history.csv.

use super::examples::Example;
use super::quasistatic::uniform_partition;
use super::spec::{Case, CompliantSetting, Setting, SmSpec};
use crate::experiment::runner::{write_atomically, RunError};
use crate::report::table::{Cell, Table};
use std::path::Path;

pub(crate) const PATHS_CSV: &str = "paths.csv";

/// The incremental paths drawn per case: these N when the grid has them.
pub(crate) const DRAWN_STEPS: [usize; 3] = [16, 64, 256];

/// A short label of a case's example and parameters (without the method's settings).
pub(crate) fn case_label(example: &Example) -> String {
    match example {
        Example::VaryingFriction(p) => format!("ex1 H11={}", p.h11),
        Example::VaryingNormalForce(p) => format!("ex2 H11={}", p.h11),
    }
}

/// The same for a figure's title or legend: the paper's section and H₁₁ as it writes them.
pub(crate) fn case_title(example: &Example) -> String {
    match example {
        Example::VaryingFriction(p) => format!("§4.1, H₁₁ = {}", p.h11),
        Example::VaryingNormalForce(p) => format!("§4.2, H₁₁ = {}", p.h11),
    }
}

/// The distinct (example, T) of the spec's points, in grid order.
pub(crate) fn distinct_examples(spec: &SmSpec) -> Vec<(Example, f64)> {
    let mut out: Vec<(Example, f64)> = Vec::new();
    for p in spec.points() {
        let key = (p.case.example, p.case.t_end);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// The columns of paths.csv.
pub(crate) const PATHS_COLUMNS: [&str; 5] = ["case", "series", "t", "z1", "z2"];

/// Decimals of a path's time and position: the figures need no more.
const PATH_DECIMALS: usize = 8;

/// One sample of a path: (t, z₁, z₂) rounded to `PATH_DECIMALS`.
pub(crate) fn push_sample(table: &mut Table, case: &str, series: &str, t: f64, z: [f64; 2]) {
    let r = |x: f64| Cell::rounded(x, PATH_DECIMALS);
    table.push([case.into(), series.into(), r(t), r(z[0]), r(z[1])]);
}

/// Write `dir/paths.csv`.
pub(crate) fn write_paths(spec: &SmSpec, dir: &Path) -> Result<(), RunError> {
    let mut table = Table::new(PATHS_COLUMNS);
    let points = spec.points();
    for (example, t_end) in distinct_examples(spec) {
        let label = case_label(&example);
        let cf = example.closed_form();
        // In time order, the jump's two ends closing and opening the two series.
        let samples = 600;
        let times = (0..=samples).map(|i| t_end * i as f64 / samples as f64);
        let (before, after): (Vec<f64>, Vec<f64>) =
            times.partition(|&t| cf.jump.is_none_or(|j| t < j.time));
        for &t in &before {
            push_sample(&mut table, &label, "exact", t, cf.at(t));
        }
        if let Some(j) = cf.jump {
            push_sample(&mut table, &label, "exact", j.time, j.from);
            push_sample(&mut table, &label, "exact after jump", j.time, j.to);
        }
        for &t in &after {
            push_sample(&mut table, &label, "exact after jump", t, cf.at(t));
        }
        let cases: Vec<Case> = points
            .iter()
            .map(|p| p.case)
            .filter(|c| c.example == example && c.t_end == t_end)
            .collect();
        let has_steps = |n: usize| {
            cases
                .iter()
                .any(|c| c.setting == Setting::Incremental { steps: n })
        };
        // A compliant run is compared with (IP) too: at N = 256 when the grid has no (IP) row.
        let incremental = cases
            .iter()
            .any(|c| matches!(c.setting, Setting::Incremental { .. }));
        let drawn: Vec<usize> = if incremental {
            DRAWN_STEPS.into_iter().filter(|&n| has_steps(n)).collect()
        } else {
            vec![DRAWN_STEPS[2]]
        };
        for n in drawn {
            let times = uniform_partition(t_end, n);
            if let Ok(path) = example
                .problem()
                .solve_incremental(example.initial_position(), &times)
            {
                for (t, z) in path.times.iter().zip(&path.positions) {
                    push_sample(&mut table, &label, &format!("IP N={n}"), *t, *z);
                }
            }
        }
        push_trajectories(&mut table, &label, &cases);
    }
    write_atomically(&dir.join(PATHS_CSV), &table.to_csv())
}

/// Slow-time spacing of the samples written to paths.csv: T/800, and ε/2 (half a unit of fast
/// time) within [`FAST_WINDOW`]·ε of the transition, where the fast-time figure looks.
const PATH_SPACING: f64 = 1.0 / 800.0;
const FAST_WINDOW: f64 = 150.0;

/// Append to paths.csv the trajectories of the compliant cases drawn in the figures: at the
/// smallest κ, the ε of the first ζ of the grid that are powers of ten ("compliant ε=…"), and
/// the smallest ε of every other ζ ("compliant ζ=… ε=…").
pub(crate) fn push_trajectories(table: &mut Table, label: &str, cases: &[Case]) {
    let compliant: Vec<(Case, CompliantSetting)> = cases
        .iter()
        .filter_map(|c| match c.setting {
            Setting::Compliant(s) => Some((*c, s)),
            Setting::Incremental { .. } => None,
        })
        .collect();
    let Some(kappa) = compliant.iter().map(|(_, s)| s.kappa).reduce(f64::min) else {
        return;
    };
    let first_zeta = compliant[0].1.zeta;
    let at_kappa: Vec<&(Case, CompliantSetting)> =
        compliant.iter().filter(|(_, s)| s.kappa == kappa).collect();
    for (case, setting) in &at_kappa {
        let series = if setting.zeta == first_zeta {
            // Decades only: a figure holds few curves.
            let decade = setting.epsilon.log10();
            if (decade - decade.round()).abs() > 1e-9 {
                continue;
            }
            format!("compliant ε={}", setting.epsilon)
        } else {
            let smallest = at_kappa
                .iter()
                .filter(|(_, s)| s.zeta == setting.zeta)
                .map(|(_, s)| s.epsilon)
                .fold(f64::INFINITY, f64::min);
            if setting.epsilon != smallest {
                continue;
            }
            format!("compliant ζ={} ε={}", setting.zeta, setting.epsilon)
        };
        let Ok(record) = super::dynamic::simulate_case(case, setting, true) else {
            continue;
        };
        let run = super::dynamic::slow_samples(&record, setting.epsilon);
        let mid = case.closed_form().transition_midpoint_time().unwrap_or(0.0);
        let eps = setting.epsilon;
        let mut last = f64::NEG_INFINITY;
        for (s, z) in run.s.iter().zip(&run.z) {
            let spacing = if (s - mid).abs() < FAST_WINDOW * eps {
                0.5 * eps
            } else {
                PATH_SPACING * case.t_end
            };
            if s - last < spacing {
                continue;
            }
            last = *s;
            push_sample(table, label, &series, *s, *z);
        }
    }
}
