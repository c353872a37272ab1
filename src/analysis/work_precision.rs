//! Work–precision analysis of any system: each ladder run's errors against the reference (the
//! same κ at the tightest tolerance), one per error measure of the system, on its scale
//! (relative, absolute, or relative above one); the reference's own accuracy (its two
//! integrators' agreement); whether each run went through the reference's mode sequence; the
//! cheapest integrator reaching a target accuracy under a cost model of deterministic work
//! counts, with the integrators it ties with; the cost's exponent in κ. Pure functions of typed
//! run data: no solver, no I/O.

use crate::analysis::fit::{power_law, LinearFit};
use serde::Serialize;
use std::collections::BTreeMap;

/// Accuracy targets of a work–precision summary (a run's largest error over the measures).
pub(crate) const TARGETS: [f64; 3] = [1e-3, 1e-6, 1e-9];

/// A target closer than this factor to the reference's own disagreement is not certified: the
/// reference cannot tell which run reached it.
pub(crate) const CERTIFY_FACTOR: f64 = 10.0;

/// Two integrators whose modelled costs differ by less than this fraction tie: the
/// recommendation names both rather than a winner by a few percent of a calibration
/// (docs/integrators.md, "Recommendations").
pub const TIE_MARGIN: f64 = 0.25;

/// The cost measures fitted against κ.
pub const COST_MEASURES: [&str; 4] = ["rhs_evals", "lu_factorisations", "steps", "wall_time_s"];

/// The median of `values` (sorted in place); NaN for none.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

/// The scale an error is measured on.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorScale {
    /// |v − r| / |r| (|v − r| where r = 0): a duration.
    Relative,
    /// |v − r|: a velocity or a coordinate of order one.
    Absolute,
    /// |v − r| / max(|r|, 1): relative above one, absolute below (the systems are
    /// nondimensional, their quantities of order one; a quantity whose reference is 0, a velocity
    /// at rest, has no relative error).
    RelativeAboveOne,
}

impl ErrorScale {
    /// The error of `value` against `reference`.
    pub fn error(self, value: f64, reference: f64) -> f64 {
        let e = (value - reference).abs();
        match self {
            ErrorScale::Relative if reference != 0.0 => e / reference.abs(),
            ErrorScale::Relative | ErrorScale::Absolute => e,
            ErrorScale::RelativeAboveOne => e / reference.abs().max(1.0),
        }
    }

    /// The scale in words.
    pub fn name(self) -> &'static str {
        match self {
            ErrorScale::Relative => "relative",
            ErrorScale::Absolute => "absolute",
            ErrorScale::RelativeAboveOne => "relative above 1, absolute below",
        }
    }
}

/// The largest error over the components of `values` against `reference` on `scale`; `None`
/// when the lengths differ or an error is not finite.
pub fn distance(values: &[f64], reference: &[f64], scale: ErrorScale) -> Option<f64> {
    if values.len() != reference.len() {
        return None;
    }
    values.iter().zip(reference).try_fold(0.0f64, |m, (v, r)| {
        let d = scale.error(*v, *r);
        d.is_finite().then_some(m.max(d))
    })
}

/// One integrator's offer for a target: the run chosen, its cost and the range over which its
/// cost could fall on a rerun (`low` ≤ `cost` ≤ `high`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Offer {
    pub integrator: String,
    pub rtol: f64,
    pub cost: f64,
    pub low: f64,
    pub high: f64,
}

/// The cheapest offers for a target, one per integrator.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Cheapest {
    /// Each integrator's cheapest offer, cheapest first.
    pub ranked: Vec<Offer>,
    /// The integrators whose range reaches down to the winner's upper end (a rerun could put
    /// them first), the winner among them, each with its run's rtol, by name.
    pub tied: Vec<(String, f64)>,
}

impl Cheapest {
    /// The cheapest offer.
    pub(crate) fn winner(&self) -> &Offer {
        &self.ranked[0]
    }

    /// The cheapest integrator outside the tie.
    pub(crate) fn runner_up(&self) -> Option<&Offer> {
        self.ranked
            .iter()
            .find(|o| !self.tied.iter().any(|(n, _)| *n == o.integrator))
    }
}

/// The cheapest of `offers` per integrator (equal cost: the looser tolerance), ranked by cost,
/// and the tie around the winner; `None` without offers.
pub fn cheapest(offers: impl IntoIterator<Item = Offer>) -> Option<Cheapest> {
    let mut best: Vec<Offer> = Vec::new();
    for o in offers {
        match best.iter_mut().find(|b| b.integrator == o.integrator) {
            Some(b) if o.cost < b.cost || (o.cost == b.cost && o.rtol > b.rtol) => *b = o,
            Some(_) => {}
            None => best.push(o),
        }
    }
    // Stable: equal costs keep the order the offers came in.
    best.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    let limit = best.first()?.high;
    let mut tied: Vec<(String, f64)> = best
        .iter()
        .filter(|o| o.low <= limit)
        .map(|o| (o.integrator.clone(), o.rtol))
        .collect();
    // Named in a fixed order, so that the text does not depend on the order of costs that a
    // rerun could swap.
    tied.sort_by(|a, b| a.0.cmp(&b.0));
    Some(Cheapest { ranked: best, tied })
}

/// The work of one run: its wall times over the repeats (s) and its counters; `None` where the
/// row has no such cell (a failed run).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Work {
    /// The median over the repeats.
    pub wall_time_s: Option<f64>,
    /// The fastest repeat: the least disturbed by other load.
    pub wall_time_min_s: Option<f64>,
    pub steps: Option<f64>,
    pub rhs_evals: Option<f64>,
    pub jvp_evals: Option<f64>,
    pub lu_factorisations: Option<f64>,
}

impl Work {
    /// The run's work units: RHS evaluations, Jacobian–vector products and LU factorisations,
    /// each counted once. The counts do not depend on the machine or the day; each
    /// integrator's time per unit of work (its implementation's overhead included) comes from
    /// the study's calibration, so the ranking does not either.
    pub fn units(&self) -> Option<f64> {
        Some(self.rhs_evals? + self.jvp_evals? + self.lu_factorisations?)
    }

    /// One of [`COST_MEASURES`].
    pub fn measure(&self, name: &str) -> Option<f64> {
        match name {
            "rhs_evals" => self.rhs_evals,
            "lu_factorisations" => self.lu_factorisations,
            "steps" => self.steps,
            _ => self.wall_time_s,
        }
    }
}

/// What one run measured: per error measure its quantities' values (`None` where the row lacks
/// one), its mode sequence (for a system that records one) and its work.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSample {
    pub integrator: String,
    pub rtol: f64,
    /// `Err` holds the run's error message.
    pub values: Result<Vec<Option<Vec<f64>>>, String>,
    pub mode_sequence: Option<String>,
    pub work: Work,
}

impl RunSample {
    /// A run of `integrator` at `rtol` that did not run (its row is missing).
    pub fn missing(integrator: String, rtol: f64) -> RunSample {
        RunSample {
            integrator,
            rtol,
            values: Err("not run".into()),
            mode_sequence: None,
            work: Work::default(),
        }
    }
}

/// One configuration's runs: the two reference runs (the first is the reference value) and the
/// ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigurationRuns {
    /// The configuration in words (`slide, κ = 1e-4`).
    pub label: String,
    pub scenario: String,
    pub kappa: f64,
    /// The scenario's parameters given as several values, with their values here.
    pub varied: Vec<(String, f64)>,
    /// The error measures: name and scale.
    pub measures: Vec<(String, ErrorScale)>,
    pub reference: [RunSample; 2],
    pub ladder: Vec<RunSample>,
}

impl ConfigurationRuns {
    /// The label of its group over κ: the scenario and its varied parameters.
    pub fn group(&self) -> String {
        let mut parts = vec![self.scenario.clone()];
        parts.extend(
            self.varied
                .iter()
                .map(|(k, v)| format!("{k} = {}", crate::error::number_text(*v))),
        );
        parts.join(", ")
    }
}

/// One ladder run's accuracy and work.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunError {
    pub integrator: String,
    pub rtol: f64,
    /// Per measure (the order of [`ConfigurationAnalysis::measures`]); `None` where not measured.
    pub errors: Vec<Option<f64>>,
    /// The largest error over the measures (the accuracy the run achieved); `None` when the run
    /// or the reference failed.
    pub error: Option<f64>,
    /// The run went through the reference's mode sequence (every contact found, none spurious).
    pub sequence_matches: bool,
    pub work: Work,
    /// [`Work::units`] of a successful run.
    pub work_units: Option<f64>,
    /// The run's error message when it failed.
    pub failure: Option<String>,
}

/// One configuration analysed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConfigurationAnalysis {
    pub label: String,
    pub scenario: String,
    /// The scenario and its varied parameters: the configurations of one group differ in κ.
    pub group: String,
    pub kappa: f64,
    pub measures: Vec<String>,
    pub scales: Vec<ErrorScale>,
    /// The reference integrators: the value of the first, confirmed by the second.
    pub reference_integrators: [String; 2],
    /// The second reference run's error against the first, per measure: the reference's own
    /// accuracy; `None` when a reference run failed.
    pub reference_agreement: Vec<Option<f64>>,
    pub reference_sequences_agree: bool,
    pub runs: Vec<RunError>,
}

impl ConfigurationAnalysis {
    /// The largest reference disagreement over the measures.
    pub fn reference_error(&self) -> Option<f64> {
        self.reference_agreement
            .iter()
            .try_fold(0.0f64, |m, e| e.map(|e| m.max(e)))
    }

    /// `integrator`'s runs, loosest tolerance first.
    pub fn runs_of<'a>(&'a self, integrator: &'a str) -> impl Iterator<Item = &'a RunError> {
        self.runs.iter().filter(move |r| r.integrator == integrator)
    }
}

/// The cheapest integrator reaching a target, in one configuration.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Recommendation {
    /// The configuration's label.
    pub config: String,
    pub target: f64,
    /// `None` when no run reached the target (or the reference cannot certify it).
    pub integrator: Option<String>,
    pub rtol: Option<f64>,
    /// The winning run's fastest repeat (s): measured, it varies between reruns.
    pub wall_time_s: Option<f64>,
    pub work_units: Option<f64>,
    /// Modelled cost of the winning run: work units × the integrator's time per work unit (s).
    pub modelled_s: Option<f64>,
    pub achieved: Option<f64>,
    /// Integrators whose cheapest qualifying run's modelled cost is within [`TIE_MARGIN`] of
    /// the winner's, with that run's tolerance, by name: a tie when more than one.
    pub tied: Vec<(String, f64)>,
    /// Runner-up outside the tie (next-cheapest integrator) and its modelled cost (s).
    pub runner_up: Option<(String, f64)>,
    /// The integrator with the smallest wall time (fastest repeat) among the qualifying runs,
    /// and that time: measured, so it can differ between reruns.
    pub fastest_measured: Option<(String, f64)>,
    pub note: String,
}

/// Cost ∝ κ^p at one tolerance, fitted over a group's κ values.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CostExponent {
    pub group: String,
    pub scenario: String,
    pub integrator: String,
    pub rtol: f64,
    pub measure: String,
    pub fit: Option<LinearFit>,
    /// (κ, cost) of the successful runs.
    pub points: Vec<(f64, f64)>,
    pub failed_kappas: Vec<f64>,
}

/// A work–precision study analysed (analysis.json).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkPrecisionAnalysis {
    pub targets: Vec<f64>,
    pub configurations: Vec<ConfigurationAnalysis>,
    /// Per configuration and target.
    pub recommendations: Vec<Recommendation>,
    /// Per integrator: the median, over its successful ladder runs, of the wall time (fastest
    /// repeat) per work unit, in seconds, measured on this run.
    pub time_per_work: Vec<(String, f64)>,
    /// The time per work unit the recommendation costs with (s): the study's calibration
    /// (`time_per_work_ns`) if it has one, else [`Self::time_per_work`].
    pub cost_model: Vec<(String, f64)>,
    /// Whether [`Self::cost_model`] is the study's calibration.
    pub cost_model_calibrated: bool,
    pub cost_exponents: Vec<CostExponent>,
    /// The ladder tolerance of the cost fits (the ladder value nearest 1e-6).
    pub cost_rtol: f64,
    pub n_runs: usize,
    pub n_failed: usize,
}

/// What the analysis needs of the study besides its runs.
pub(crate) struct StudyFacts<'a> {
    /// The ladder's integrators, in the file's order.
    pub integrators: Vec<String>,
    /// The ladder's tolerances.
    pub ladder: Vec<f64>,
    /// `time_per_work_ns` of the file.
    pub calibration: Option<&'a BTreeMap<String, f64>>,
    pub n_runs: usize,
    pub n_failed: usize,
}

/// Analyse every configuration's runs.
pub(crate) fn analyse(runs: &[ConfigurationRuns], facts: &StudyFacts) -> WorkPrecisionAnalysis {
    let configurations: Vec<ConfigurationAnalysis> = runs.iter().map(analyse_one).collect();
    let time_per_work = time_per_work(&configurations);
    let cost_model: Vec<(String, f64)> = match facts.calibration {
        Some(calibration) => calibration
            .iter()
            .map(|(n, ns)| (n.clone(), ns * 1e-9))
            .collect(),
        None => time_per_work.clone(),
    };
    let recommendations = configurations
        .iter()
        .flat_map(|c| TARGETS.iter().map(|&t| recommend(c, t, &cost_model)))
        .collect();
    let cost_rtol = facts
        .ladder
        .iter()
        .copied()
        .min_by(|a, b| (a.log10() + 6.0).abs().total_cmp(&(b.log10() + 6.0).abs()))
        .unwrap_or(1e-6);
    let cost_exponents = cost_exponents(&facts.integrators, &configurations, cost_rtol);
    WorkPrecisionAnalysis {
        targets: TARGETS.to_vec(),
        configurations,
        recommendations,
        time_per_work,
        cost_model,
        cost_model_calibrated: facts.calibration.is_some(),
        cost_exponents,
        cost_rtol,
        n_runs: facts.n_runs,
        n_failed: facts.n_failed,
    }
}

/// The errors per measure of `sample` against `reference`.
fn errors(
    sample: &[Option<Vec<f64>>],
    reference: &[Option<Vec<f64>>],
    scales: &[ErrorScale],
) -> Vec<Option<f64>> {
    scales
        .iter()
        .enumerate()
        .map(|(k, &scale)| {
            let (v, r) = (sample.get(k)?.as_ref()?, reference.get(k)?.as_ref()?);
            distance(v, r, scale)
        })
        .collect()
}

/// The errors, the reference's agreement and the mode sequences of one configuration.
fn analyse_one(c: &ConfigurationRuns) -> ConfigurationAnalysis {
    let scales: Vec<ErrorScale> = c.measures.iter().map(|(_, s)| *s).collect();
    let reference = c.reference[0].values.as_ref().ok();
    let reference_agreement = match (reference, c.reference[1].values.as_ref().ok()) {
        (Some(r), Some(s)) => errors(s, r, &scales),
        _ => vec![None; scales.len()],
    };
    let same_sequence = |s: &RunSample| s.mode_sequence == c.reference[0].mode_sequence;
    let runs: Vec<RunError> = c
        .ladder
        .iter()
        .map(|s| {
            let ok = s.values.is_ok();
            let errors = match (&s.values, reference) {
                (Ok(v), Some(r)) => errors(v, r, &scales),
                _ => vec![None; scales.len()],
            };
            let error = if ok && reference.is_some() {
                errors.iter().try_fold(0.0f64, |m, e| e.map(|e| m.max(e)))
            } else {
                None
            };
            RunError {
                integrator: s.integrator.clone(),
                rtol: s.rtol,
                errors,
                error,
                sequence_matches: ok && reference.is_some() && same_sequence(s),
                work: s.work,
                work_units: s.work.units().filter(|_| ok),
                failure: s.values.as_ref().err().cloned(),
            }
        })
        .collect();
    let reference_sequences_agree =
        reference.is_some() && c.reference[1].values.is_ok() && same_sequence(&c.reference[1]);
    ConfigurationAnalysis {
        label: c.label.clone(),
        scenario: c.scenario.clone(),
        group: c.group(),
        kappa: c.kappa,
        measures: c.measures.iter().map(|(n, _)| n.clone()).collect(),
        scales,
        reference_integrators: [
            c.reference[0].integrator.clone(),
            c.reference[1].integrator.clone(),
        ],
        reference_agreement,
        reference_sequences_agree,
        runs,
    }
}

/// Per integrator, the median over its successful ladder runs of wall time (fastest repeat)
/// per work unit.
fn time_per_work(configs: &[ConfigurationAnalysis]) -> Vec<(String, f64)> {
    let mut samples: Vec<(String, Vec<f64>)> = Vec::new();
    for r in configs.iter().flat_map(|c| &c.runs) {
        let (Some(w), Some(t)) = (r.work_units, r.work.wall_time_min_s) else {
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
        .map(|(n, mut v)| (n, median(&mut v)))
        .collect()
}

/// The cheapest run by modelled cost (work units × the integrator's time per work unit) whose
/// largest error is ≤ `target` and whose mode sequence is the reference's; integrators within
/// [`TIE_MARGIN`] of it tie. A target within [`CERTIFY_FACTOR`] of the reference's own
/// disagreement is not certified.
fn recommend(
    c: &ConfigurationAnalysis,
    target: f64,
    time_per_work: &[(String, f64)],
) -> Recommendation {
    let mut rec = Recommendation {
        config: c.label.clone(),
        target,
        integrator: None,
        rtol: None,
        wall_time_s: None,
        work_units: None,
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
    if ref_err * CERTIFY_FACTOR > target {
        rec.note = format!("reference agreement {ref_err:.1e} cannot certify this target");
        return rec;
    }
    let qualifying: Vec<&RunError> = c
        .runs
        .iter()
        .filter(|r| r.sequence_matches && r.error.is_some_and(|e| e <= target))
        .collect();
    // Each integrator's least-work qualifying run (equal work: the looser tolerance), costed at
    // its time per work unit, so the run chosen is a function of the deterministic counts
    // alone; a cost within the margin of the winner's ties with it.
    let offers = qualifying.iter().filter_map(|r| {
        let per = time_per_work.iter().find(|(n, _)| *n == r.integrator)?.1;
        let cost = r.work_units? * per;
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
    rec.wall_time_s = winner.work.wall_time_min_s;
    rec.work_units = winner.work_units;
    rec.modelled_s = Some(w.cost);
    rec.achieved = winner.error;
    rec.tied = choice.tied.clone();
    rec.runner_up = choice.runner_up().map(|o| (o.integrator.clone(), o.cost));
    rec.fastest_measured = qualifying
        .iter()
        .filter_map(|r| Some((r.integrator.clone(), r.work.wall_time_min_s?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    rec
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// For every group (a scenario at its varied parameters) with at least 3 κ values: cost ∝ κ^p
/// per integrator and cost measure, at the ladder tolerance `rtol`.
fn cost_exponents(
    integrators: &[String],
    configs: &[ConfigurationAnalysis],
    rtol: f64,
) -> Vec<CostExponent> {
    let mut out = Vec::new();
    let mut groups: Vec<&str> = Vec::new();
    for c in configs {
        if !groups.contains(&c.group.as_str()) {
            groups.push(&c.group);
        }
    }
    for group in groups {
        let members: Vec<&ConfigurationAnalysis> =
            configs.iter().filter(|c| c.group == group).collect();
        if members.len() < 3 {
            continue;
        }
        for integrator in integrators {
            for measure in COST_MEASURES {
                let mut points = Vec::new();
                let mut failed_kappas = Vec::new();
                for c in &members {
                    let run = c
                        .runs_of(integrator)
                        .find(|r| same(rtol, r.rtol))
                        .filter(|r| r.failure.is_none());
                    match run.and_then(|r| r.work.measure(measure)) {
                        Some(v) if v > 0.0 => points.push((c.kappa, v)),
                        Some(_) => {}
                        None => failed_kappas.push(c.kappa),
                    }
                }
                let (k, v): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
                out.push(CostExponent {
                    group: group.to_string(),
                    scenario: members[0].scenario.clone(),
                    integrator: integrator.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(name: &str, rtol: f64, cost: f64, spread: f64) -> Offer {
        Offer {
            integrator: name.into(),
            rtol,
            cost,
            low: cost - spread,
            high: cost + spread,
        }
    }

    #[test]
    fn the_cheapest_offer_wins_and_overlapping_spreads_tie() {
        let c = cheapest([
            offer("b", 1e-6, 2.0, 0.1),
            offer("a", 1e-6, 1.0, 0.5),
            offer("a", 1e-8, 3.0, 0.1),
            offer("c", 1e-4, 1.4, 0.05),
        ])
        .unwrap();
        assert_eq!(c.winner().integrator, "a");
        assert_eq!(c.winner().rtol, 1e-6);
        // c's low end 1.35 is below a's high end 1.5: a rerun could swap them.
        assert_eq!(c.tied, vec![("a".into(), 1e-6), ("c".into(), 1e-4)]);
        assert_eq!(c.runner_up().unwrap().integrator, "b");
    }

    #[test]
    fn equal_cost_prefers_the_looser_tolerance() {
        let c = cheapest([offer("a", 1e-8, 1.0, 0.0), offer("a", 1e-6, 1.0, 0.0)]).unwrap();
        assert_eq!(c.winner().rtol, 1e-6);
        assert!(cheapest([]).is_none());
    }

    #[test]
    fn each_scale_measures_its_error() {
        use ErrorScale::*;
        assert_eq!(
            distance(&[10.5, 0.0], &[10.0, 0.0], RelativeAboveOne),
            Some(0.05)
        );
        assert_eq!(
            distance(&[1.0, 0.25], &[1.0, 0.0], RelativeAboveOne),
            Some(0.25)
        );
        assert_eq!(distance(&[0.2], &[0.1], Relative), Some(1.0));
        assert_eq!(distance(&[0.25], &[0.0], Relative), Some(0.25));
        assert_eq!(distance(&[10.5], &[10.0], Absolute), Some(0.5));
        assert_eq!(distance(&[1.0], &[1.0, 2.0], Absolute), None);
        assert_eq!(distance(&[f64::NAN], &[1.0], Absolute), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0, 10.0]), 2.5);
    }

    fn sample(integrator: &str, rtol: f64, value: f64, rhs: f64, sequence: &str) -> RunSample {
        RunSample {
            integrator: integrator.into(),
            rtol,
            values: Ok(vec![Some(vec![value])]),
            mode_sequence: Some(sequence.into()),
            work: Work {
                wall_time_s: Some(rhs * 1e-6),
                wall_time_min_s: Some(rhs * 1e-6),
                steps: Some(rhs / 6.0),
                rhs_evals: Some(rhs),
                jvp_evals: Some(0.0),
                lu_factorisations: Some(0.0),
            },
        }
    }

    /// The cheaper run by work wins unless it missed the reference's mode sequence; a run
    /// within the tie margin ties.
    #[test]
    fn the_recommendation_costs_work_and_requires_the_reference_sequence() {
        let runs = ConfigurationRuns {
            label: "s, κ = 1e-4".into(),
            scenario: "s".into(),
            kappa: 1e-4,
            varied: Vec::new(),
            measures: vec![("x".into(), ErrorScale::Absolute)],
            reference: [
                sample("r", 1e-12, 1.0, 1e4, "a>b"),
                sample("c", 1e-12, 1.0 + 1e-12, 1e4, "a>b"),
            ],
            ladder: vec![
                sample("p", 1e-6, 1.0 + 1e-7, 100.0, "a"),
                sample("q", 1e-6, 1.0 + 1e-7, 200.0, "a>b"),
                sample("t", 1e-6, 1.0 + 1e-7, 240.0, "a>b"),
                sample("u", 1e-6, 1.0 + 1e-7, 400.0, "a>b"),
            ],
        };
        let facts = StudyFacts {
            integrators: ["p", "q", "t", "u"].map(String::from).to_vec(),
            ladder: vec![1e-6],
            calibration: None,
            n_runs: 6,
            n_failed: 0,
        };
        let a = analyse(&[runs], &facts);
        let r = &a.recommendations[1];
        assert_eq!(r.integrator.as_deref(), Some("q"));
        assert_eq!(r.tied, vec![("q".into(), 1e-6), ("t".into(), 1e-6)]);
        assert_eq!(r.runner_up.as_ref().unwrap().0, "u");
        assert!(!a.configurations[0].runs[0].sequence_matches);
    }
}
