//! Analysis of an integrator study: errors against the reference, work–precision data, the
//! cheapest integrator per accuracy target, and cost exponents vs κ. Reads runs.csv rows only.

use crate::analysis::fit::{power_law, LinearFit};
use crate::analysis::work_precision::{cheapest, Offer};
use crate::experiment::table::Row;
use crate::models::rod::scenario_system::{RodScenario, STATE_COLUMNS};
use crate::study::work_precision::WorkPrecision;

/// The rod scenarios' work–precision study.
type StudySpec = WorkPrecision<RodScenario>;
use serde::Serialize;

/// Accuracy targets of the recommendation table (the largest error over the measured
/// quantities of a run).
pub const TARGETS: [f64; 3] = [1e-3, 1e-6, 1e-9];
/// Two integrators whose modelled costs differ by less than this fraction tie: the
/// recommendation names both rather than a winner by a few percent of a calibration
/// (docs/integrators.md, "Recommendations").
pub const TIE_MARGIN: f64 = 0.25;
/// The cost measures fitted against κ.
pub const COST_MEASURES: [&str; 4] = ["rhs_evals", "lu_factorisations", "steps", "wall_time_s"];

/// How a quantity's error is measured.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Relative,
    Absolute,
}

/// The quantities compared with the reference, per scenario kind: phase durations (relative)
/// and the post-impact velocities (absolute) for an impact; the largest absolute error of the
/// coordinates and of the velocities over the output times otherwise.
pub fn quantities(kind: &str) -> Vec<(&'static str, ErrorKind)> {
    use ErrorKind::*;
    match kind {
        "impact" => vec![
            ("t_slide", Relative),
            ("t_stick", Relative),
            ("t_reverse_slip", Relative),
            ("u_out", Absolute),
            ("v_out", Absolute),
            ("omega_out", Absolute),
        ],
        _ => vec![("q(t_k)", Absolute), ("qdot(t_k)", Absolute)],
    }
}

/// The value(s) of a quantity in a row: one number, or the states at the output times.
fn values_of(row: &Row, quantity: &str) -> Option<Vec<f64>> {
    let states = |range: std::ops::Range<usize>| -> Option<Vec<f64>> {
        let mut out = Vec::new();
        for col in STATE_COLUMNS {
            let text = row.text(col);
            if text.is_empty() {
                continue;
            }
            let cells: Vec<f64> = text.split(' ').filter_map(|c| c.parse().ok()).collect();
            out.extend(cells.get(range.clone())?.iter().copied());
        }
        (!out.is_empty()).then_some(out)
    };
    match quantity {
        // Cells: t, x_A, y_A, θ, ẋ_A, ẏ_A, θ̇.
        "q(t_k)" => states(1..4),
        "qdot(t_k)" => states(4..7),
        col => row.number(col).map(|v| vec![v]),
    }
}

/// Error of `row` against `reference` in one quantity (the largest over its components).
fn error(row: &Row, reference: &Row, quantity: &str, kind: ErrorKind) -> Option<f64> {
    let (v, r) = (values_of(row, quantity)?, values_of(reference, quantity)?);
    if v.len() != r.len() {
        return None;
    }
    Some(v.iter().zip(&r).fold(0.0f64, |m, (v, r)| {
        let e = (v - r).abs();
        m.max(match kind {
            ErrorKind::Relative if *r != 0.0 => e / r.abs(),
            _ => e,
        })
    }))
}

/// One ladder run's errors and costs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunErrors {
    pub integrator: String,
    pub rtol: f64,
    pub ok: bool,
    /// Per quantity (same order as [`ConfigAnalysis::quantities`]); `None` where not measured.
    pub errors: Vec<Option<f64>>,
    /// The largest error over the quantities (the accuracy the run achieved).
    pub max_error: Option<f64>,
    /// Same mode sequence (every contact found, none spurious) as the reference.
    pub sequence_matches: bool,
    pub n_contacts: Option<f64>,
    pub wall_time_s: Option<f64>,
    /// The smallest wall time over the run's repeats: the least disturbed by other load.
    pub wall_time_min_s: Option<f64>,
    pub rhs_evals: Option<f64>,
    pub lu_factorisations: Option<f64>,
    pub steps: Option<f64>,
    /// The run's work: RHS evaluations + Jacobian–vector products + LU factorisations, each
    /// counted once ([`work`]). Deterministic, unlike the wall time.
    pub work: Option<f64>,
    pub error_message: String,
}

/// The work of a run from its counters: RHS evaluations, Jacobian–vector products and LU
/// factorisations, each counted as one unit. The counts do not depend on the machine or the
/// day; each integrator's time per unit of work (its implementation's overhead included) comes
/// from the study's committed calibration, so the ranking does not either.
pub fn work(rhs_evals: f64, jvp_evals: f64, lu_factorisations: f64) -> f64 {
    rhs_evals + jvp_evals + lu_factorisations
}

/// One configuration (scenario, κ, c_d): its reference and its ladder.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConfigAnalysis {
    pub scenario: String,
    pub kind: String,
    pub kappa: f64,
    pub damping: f64,
    pub quantities: Vec<String>,
    /// The reference integrators (value from the first, confirmed by the second).
    pub reference_integrators: Vec<String>,
    /// Error of the second reference run against the first, per quantity: the reference's own
    /// accuracy. `None` when a reference run failed.
    pub reference_agreement: Vec<Option<f64>>,
    pub reference_sequences_agree: bool,
    pub reference_contacts: Option<f64>,
    pub runs: Vec<RunErrors>,
}

impl ConfigAnalysis {
    /// The largest reference disagreement over the quantities.
    pub fn reference_error(&self) -> Option<f64> {
        self.reference_agreement
            .iter()
            .try_fold(0.0f64, |m, e| e.map(|e| m.max(e)))
    }

    pub fn label(&self) -> String {
        format!(
            "{} κ = {:.0e}, c_d = {}",
            self.scenario, self.kappa, self.damping
        )
    }
}

/// The cheapest integrator reaching a target, in one configuration.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Recommendation {
    pub config: String,
    pub target: f64,
    /// `None` when no run reached the target (or the reference cannot certify it).
    pub integrator: Option<String>,
    pub rtol: Option<f64>,
    pub wall_time_s: Option<f64>,
    pub rhs_evals: Option<f64>,
    pub work: Option<f64>,
    /// Modelled cost of the winning run: work × the integrator's time per work unit (s).
    pub modelled_s: Option<f64>,
    pub achieved: Option<f64>,
    /// Integrators whose cheapest qualifying run's modelled cost is within [`TIE_MARGIN`] of
    /// the winner's, with that run's tolerance (the winner first): a tie when more than one.
    pub tied: Vec<(String, f64)>,
    /// Runner-up outside the tie (next-cheapest integrator) and its modelled cost (s).
    pub runner_up: Option<(String, f64)>,
    /// The integrator with the smallest wall time (minimum over repeats) among the qualifying
    /// runs, and that time: measured, so it can differ between reruns.
    pub fastest_measured: Option<(String, f64)>,
    pub note: String,
}

/// Cost ∝ κ^p at one tolerance, fitted over a scenario's κ values.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CostExponent {
    pub scenario: String,
    pub integrator: String,
    pub rtol: f64,
    pub measure: String,
    pub fit: Option<LinearFit>,
    /// (κ, cost) of the successful runs.
    pub points: Vec<(f64, f64)>,
    pub failed_kappas: Vec<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StudyAnalysis {
    pub configs: Vec<ConfigAnalysis>,
    pub recommendations: Vec<Recommendation>,
    /// Per integrator: the median, over its successful ladder runs, of the wall time (minimum
    /// over repeats) per unit of [`work`], in seconds, measured on this run.
    pub time_per_work: Vec<(String, f64)>,
    /// The time per work unit the recommendation costs with (s): the study's committed
    /// calibration (`time_per_work_ns`) if it has one, else [`Self::time_per_work`].
    pub cost_model: Vec<(String, f64)>,
    /// Whether [`Self::cost_model`] is the committed calibration.
    pub cost_model_calibrated: bool,
    pub cost_exponents: Vec<CostExponent>,
    /// The ladder tolerance of the cost fits (the ladder value nearest 1e-6).
    pub cost_rtol: f64,
    pub n_runs: usize,
    pub n_failed: usize,
}

fn same(a: f64, b: Option<f64>) -> bool {
    b.is_some_and(|b| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()))
}

/// Analyse the rows of a study.
pub fn analyze_study(spec: &StudySpec, rows: &[Row]) -> StudyAnalysis {
    let mut configs = Vec::new();
    for c in spec.configurations().unwrap_or_default() {
        let name = &spec.scenarios[c.scenario].name;
        let scenario = c.config.at(c.kappa);
        let rod = scenario.rod();
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| {
                r.text("scenario") == name
                    && same(rod.kappa, r.number("kappa"))
                    && same(rod.damping, r.number("damping"))
            })
            .collect();
        let reference = |i: usize| {
            let integrator = spec.reference.integrators[i].name();
            mine.iter()
                .find(|r| {
                    r.text("role") == "reference"
                        && r.text("integrator") == integrator
                        && r.text("status") == "ok"
                })
                .copied()
        };
        let (ref0, ref1) = (reference(0), reference(1));
        let kind = scenario.name();
        let qs = quantities(kind);
        let reference_agreement = qs.iter().map(|&(q, k)| error(ref1?, ref0?, q, k)).collect();
        let runs = mine
            .iter()
            .filter(|r| r.text("role") == "ladder")
            .map(|r| {
                let ok = r.text("status") == "ok";
                let errors: Vec<Option<f64>> = qs
                    .iter()
                    .map(|&(q, k)| if ok { error(r, ref0?, q, k) } else { None })
                    .collect();
                let max_error = if ok && ref0.is_some() {
                    errors.iter().try_fold(0.0f64, |m, e| e.map(|e| m.max(e)))
                } else {
                    None
                };
                RunErrors {
                    integrator: r.text("integrator").to_string(),
                    rtol: r.number("rtol").unwrap_or(f64::NAN),
                    ok,
                    errors,
                    max_error,
                    sequence_matches: ok
                        && ref0.is_some_and(|f| f.text("mode_sequence") == r.text("mode_sequence")),
                    n_contacts: r.number("n_contacts"),
                    wall_time_s: r.number("wall_time_s"),
                    wall_time_min_s: r.number("wall_time_min_s"),
                    rhs_evals: r.number("rhs_evals"),
                    lu_factorisations: r.number("lu_factorisations"),
                    steps: r.number("steps"),
                    work: ok
                        .then(|| {
                            Some(work(
                                r.number("rhs_evals")?,
                                r.number("jvp_evals")?,
                                r.number("lu_factorisations")?,
                            ))
                        })
                        .flatten(),
                    error_message: r.text("error").to_string(),
                }
            })
            .collect();
        configs.push(ConfigAnalysis {
            scenario: name.clone(),
            kind: kind.to_string(),
            kappa: rod.kappa,
            damping: rod.damping,
            quantities: qs.iter().map(|(q, _)| q.to_string()).collect(),
            reference_integrators: spec
                .reference
                .integrators
                .iter()
                .map(|i| i.to_string())
                .collect(),
            reference_agreement,
            reference_sequences_agree: matches!((ref0, ref1), (Some(a), Some(b)) if a.text("mode_sequence") == b.text("mode_sequence")),
            reference_contacts: ref0.and_then(|r| r.number("n_contacts")),
            runs,
        });
    }
    let time_per_work = time_per_work(&configs);
    let cost_model: Vec<(String, f64)> = match &spec.time_per_work_ns {
        Some(calibration) => calibration
            .iter()
            .map(|(n, ns)| (n.clone(), ns * 1e-9))
            .collect(),
        None => time_per_work.clone(),
    };
    let recommendations = configs
        .iter()
        .flat_map(|c| TARGETS.iter().map(|&t| recommend(c, t, &cost_model)))
        .collect();
    let ladder = spec.solver.rtol.values();
    let cost_rtol = ladder
        .iter()
        .copied()
        .min_by(|a, b| (a.log10() + 6.0).abs().total_cmp(&(b.log10() + 6.0).abs()))
        .unwrap_or(1e-6);
    let cost_exponents = cost_exponents(spec, &configs, cost_rtol);
    StudyAnalysis {
        n_runs: rows.len(),
        n_failed: rows.iter().filter(|r| r.text("status") != "ok").count(),
        configs,
        recommendations,
        time_per_work,
        cost_model,
        cost_model_calibrated: spec.time_per_work_ns.is_some(),
        cost_exponents,
        cost_rtol,
    }
}

/// Per integrator, the median over its successful ladder runs of wall time per unit of work.
fn time_per_work(configs: &[ConfigAnalysis]) -> Vec<(String, f64)> {
    let mut samples: Vec<(String, Vec<f64>)> = Vec::new();
    for r in configs.iter().flat_map(|c| &c.runs) {
        let (Some(w), Some(t)) = (r.work, r.wall_time_min_s) else {
            continue;
        };
        if w <= 0.0 {
            continue;
        }
        match samples.iter_mut().find(|(n, _)| *n == r.integrator) {
            Some((_, v)) => v.push(t / w),
            None => samples.push((r.integrator.clone(), vec![t / w])),
        }
    }
    samples
        .into_iter()
        .map(|(n, mut v)| {
            v.sort_by(f64::total_cmp);
            let m = v.len() / 2;
            let median = if v.len() % 2 == 1 {
                v[m]
            } else {
                0.5 * (v[m - 1] + v[m])
            };
            (n, median)
        })
        .collect()
}

/// The cheapest run by modelled cost (work × the integrator's time per work unit) whose largest
/// error is ≤ `target` and whose mode sequence is the reference's; integrators within
/// [`TIE_MARGIN`] of it tie. A target within 10× of the reference's own disagreement is not
/// certified.
fn recommend(c: &ConfigAnalysis, target: f64, time_per_work: &[(String, f64)]) -> Recommendation {
    let mut rec = Recommendation {
        config: c.label(),
        target,
        integrator: None,
        rtol: None,
        wall_time_s: None,
        rhs_evals: None,
        work: None,
        modelled_s: None,
        achieved: None,
        tied: Vec::new(),
        runner_up: None,
        fastest_measured: None,
        note: String::new(),
    };
    let Some(ref_err) = c.reference_error() else {
        rec.note = "no reference (a reference run failed)".into();
        return rec;
    };
    if ref_err * 10.0 > target {
        rec.note = format!("reference agreement {ref_err:.1e} cannot certify this target");
        return rec;
    }
    let qualifying: Vec<&RunErrors> = c
        .runs
        .iter()
        .filter(|r| r.sequence_matches && r.max_error.is_some_and(|e| e <= target))
        .collect();
    // Each integrator's least-work qualifying run (equal work: the looser tolerance), costed at
    // its time per work unit, so the run chosen is a function of the deterministic counts
    // alone; a cost within the margin of the winner's ties with it.
    let offers = qualifying.iter().filter_map(|r| {
        let per = time_per_work.iter().find(|(n, _)| *n == r.integrator)?.1;
        let cost = r.work? * per;
        Some(Offer {
            integrator: r.integrator.clone(),
            rtol: r.rtol,
            cost,
            low: cost,
            high: cost * (1.0 + TIE_MARGIN),
        })
    });
    let Some(choice) = cheapest(offers) else {
        rec.note = "no integrator reached it on this ladder".into();
        return rec;
    };
    let w = choice.winner();
    let Some(winner) = qualifying
        .iter()
        .find(|r| r.integrator == w.integrator && r.rtol == w.rtol)
    else {
        return rec;
    };
    rec.integrator = Some(winner.integrator.clone());
    rec.rtol = Some(winner.rtol);
    rec.wall_time_s = winner.wall_time_min_s;
    rec.rhs_evals = winner.rhs_evals;
    rec.work = winner.work;
    rec.modelled_s = Some(w.cost);
    rec.achieved = winner.max_error;
    rec.tied = choice.tied.clone();
    rec.runner_up = choice.runner_up().map(|o| (o.integrator.clone(), o.cost));
    rec.fastest_measured = qualifying
        .iter()
        .filter_map(|r| Some((r.integrator.clone(), r.wall_time_min_s?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    rec
}

/// For every scenario (and c_d) with at least 3 κ values: cost ∝ κ^p per integrator and cost
/// measure, at the ladder tolerance `rtol`.
fn cost_exponents(spec: &StudySpec, configs: &[ConfigAnalysis], rtol: f64) -> Vec<CostExponent> {
    let mut out = Vec::new();
    let mut groups: Vec<(&str, f64)> = Vec::new();
    for c in configs {
        if !groups.contains(&(c.scenario.as_str(), c.damping)) {
            groups.push((c.scenario.as_str(), c.damping));
        }
    }
    for (scenario, damping) in groups {
        let members: Vec<&ConfigAnalysis> = configs
            .iter()
            .filter(|c| c.scenario == scenario && c.damping == damping)
            .collect();
        if members.len() < 3 {
            continue;
        }
        for integrator in &spec.solver.integrators {
            for measure in COST_MEASURES {
                let mut points = Vec::new();
                let mut failed_kappas = Vec::new();
                for c in &members {
                    let run = c
                        .runs
                        .iter()
                        .find(|r| r.integrator == integrator.name() && same(rtol, Some(r.rtol)));
                    let cost = run.filter(|r| r.ok).and_then(|r| match measure {
                        "rhs_evals" => r.rhs_evals,
                        "lu_factorisations" => r.lu_factorisations,
                        "steps" => r.steps,
                        _ => r.wall_time_s,
                    });
                    match cost {
                        Some(v) if v > 0.0 => points.push((c.kappa, v)),
                        Some(_) => {}
                        None => failed_kappas.push(c.kappa),
                    }
                }
                let (k, v): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
                out.push(CostExponent {
                    scenario: scenario.to_string(),
                    integrator: integrator.to_string(),
                    rtol,
                    measure: measure.to_string(),
                    fit: power_law(&k, &v),
                    points,
                    failed_kappas,
                });
            }
        }
    }
    out
}
