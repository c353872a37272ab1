//! Work–precision analysis of any system: each ladder run's error against the reference (the
//! same κ at the tightest tolerance), the reference's own accuracy (its two integrators'
//! agreement), and the cheapest integrator reaching a target accuracy, with the integrators it
//! cannot be told from. Pure functions of typed run data: no solver, no I/O.

use serde::Serialize;

/// Accuracy targets of a work–precision summary (the largest distance over the quantities).
pub const TARGETS: [f64; 3] = [1e-3, 1e-6, 1e-9];

/// A target closer than this factor to the reference's own disagreement is not certified: the
/// reference cannot tell which run reached it.
pub const CERTIFY_FACTOR: f64 = 10.0;

/// The median of `values` (sorted in place); NaN for none.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

/// The distance of `values` to `reference`: the largest over the components of
/// |v − r| / max(|r|, 1), relative for a quantity larger than one and absolute below (the
/// systems are nondimensional, their quantities of order one; a quantity whose reference is 0,
/// a velocity at rest, has no relative error). `None` when the lengths differ or a value is not
/// finite.
pub fn distance(values: &[f64], reference: &[f64]) -> Option<f64> {
    if values.len() != reference.len() {
        return None;
    }
    values.iter().zip(reference).try_fold(0.0f64, |m, (v, r)| {
        let d = (v - r).abs() / r.abs().max(1.0);
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
    pub fn winner(&self) -> &Offer {
        &self.ranked[0]
    }

    /// The cheapest integrator outside the tie.
    pub fn runner_up(&self) -> Option<&Offer> {
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

/// The work of one run: its wall times over the repeats (s) and its counters.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Work {
    /// The median over the repeats.
    pub wall_time_s: f64,
    pub wall_time_min_s: f64,
    pub wall_time_max_s: f64,
    pub steps: f64,
    pub rhs_evals: f64,
    pub lu_factorisations: f64,
}

/// What one ladder run measured: its quantities (the system's, flattened) and its work.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSample {
    pub integrator: String,
    pub rtol: f64,
    /// `Err` holds the run's error message.
    pub values: Result<Vec<f64>, String>,
    pub work: Work,
}

impl RunSample {
    /// A run of `integrator` at `rtol` that did not run (its row is missing).
    pub fn missing(integrator: String, rtol: f64) -> RunSample {
        RunSample {
            integrator,
            rtol,
            values: Err("not run".into()),
            work: Work {
                wall_time_s: f64::NAN,
                wall_time_min_s: f64::NAN,
                wall_time_max_s: f64::NAN,
                steps: f64::NAN,
                rhs_evals: f64::NAN,
                lu_factorisations: f64::NAN,
            },
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
    pub reference: [RunSample; 2],
    pub ladder: Vec<RunSample>,
}

/// One ladder run's accuracy and work.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunError {
    pub integrator: String,
    pub rtol: f64,
    /// The run's distance to the reference ([`distance`]); `None` when it or the reference
    /// failed.
    pub error: Option<f64>,
    pub work: Work,
    /// The run's error message when it failed.
    pub failure: Option<String>,
}

/// The cheapest integrator reaching one target in one configuration.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Recommendation {
    pub target: f64,
    /// `None` with [`Self::note`] saying why.
    pub cheapest: Option<Cheapest>,
    pub note: String,
}

impl Recommendation {
    /// The runner-up's median wall time over the winner's; `None` without a second integrator.
    pub fn ratio_to_next(&self) -> Option<f64> {
        let c = self.cheapest.as_ref()?;
        let next = c.ranked.get(1)?;
        Some(next.cost / c.winner().cost)
    }
}

/// One configuration analysed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConfigurationAnalysis {
    pub label: String,
    pub scenario: String,
    pub kappa: f64,
    /// The reference integrators: the value of the first, confirmed by the second.
    pub reference_integrators: [String; 2],
    /// The second reference run's distance to the first: the reference's own accuracy.
    pub reference_agreement: Option<f64>,
    pub runs: Vec<RunError>,
    pub recommendations: Vec<Recommendation>,
}

impl ConfigurationAnalysis {
    /// `integrator`'s runs, loosest tolerance first.
    pub fn runs_of<'a>(&'a self, integrator: &'a str) -> impl Iterator<Item = &'a RunError> {
        self.runs.iter().filter(move |r| r.integrator == integrator)
    }
}

/// The errors, the reference's agreement and the recommendations of one configuration.
pub fn analyse(c: &ConfigurationRuns, targets: &[f64]) -> ConfigurationAnalysis {
    let reference = c.reference[0].values.as_ref().ok();
    let reference_agreement = reference
        .zip(c.reference[1].values.as_ref().ok())
        .and_then(|(r, s)| distance(s, r));
    let runs: Vec<RunError> = c
        .ladder
        .iter()
        .map(|s| RunError {
            integrator: s.integrator.clone(),
            rtol: s.rtol,
            error: s
                .values
                .as_ref()
                .ok()
                .zip(reference)
                .and_then(|(v, r)| distance(v, r)),
            work: s.work,
            failure: s.values.as_ref().err().cloned(),
        })
        .collect();
    let recommendations = targets
        .iter()
        .map(|&target| recommend(&runs, reference_agreement, target))
        .collect();
    ConfigurationAnalysis {
        label: c.label.clone(),
        scenario: c.scenario.clone(),
        kappa: c.kappa,
        reference_integrators: [
            c.reference[0].integrator.clone(),
            c.reference[1].integrator.clone(),
        ],
        reference_agreement,
        runs,
        recommendations,
    }
}

/// Among the runs whose error is ≤ `target`, each integrator's fastest (median wall time) and
/// the cheapest of those; an integrator ties with it when its fastest repeat is no slower than
/// the winner's slowest (the repeat spreads overlap). A target within [`CERTIFY_FACTOR`] of
/// the reference's agreement is not certified.
fn recommend(runs: &[RunError], agreement: Option<f64>, target: f64) -> Recommendation {
    let refused = |note: String| Recommendation {
        target,
        cheapest: None,
        note,
    };
    let Some(agreement) = agreement else {
        return refused("no reference (a reference run failed)".into());
    };
    if agreement * CERTIFY_FACTOR > target {
        return refused(format!(
            "the reference's agreement {agreement:.1e} cannot certify it"
        ));
    }
    let offers = runs
        .iter()
        .filter(|r| r.error.is_some_and(|e| e <= target))
        .map(|r| Offer {
            integrator: r.integrator.clone(),
            rtol: r.rtol,
            cost: r.work.wall_time_s,
            low: r.work.wall_time_min_s,
            high: r.work.wall_time_max_s,
        });
    match cheapest(offers) {
        Some(c) => Recommendation {
            target,
            cheapest: Some(c),
            note: String::new(),
        },
        None => refused("no run reached it on this ladder".into()),
    }
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
    fn the_distance_is_relative_above_one_and_absolute_below() {
        assert_eq!(distance(&[10.5, 0.0], &[10.0, 0.0]), Some(0.05));
        assert_eq!(distance(&[1.0, 0.25], &[1.0, 0.0]), Some(0.25));
        assert_eq!(distance(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(distance(&[f64::NAN], &[1.0]), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0, 10.0]), 2.5);
    }
}
