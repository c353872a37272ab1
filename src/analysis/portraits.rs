//! The reduction of a phase-portraits table ([`crate::study::fast::portraits`]): the rows of
//! each panel (a state, at the smallest κ) and what each panel shows, measured on its runs
//! (docs/champneys_varkonyi.md §11). Pure: rows in, numbers out.

use super::{numbers, state_text, RowCells};
use crate::model::consistency::Outcome;
use serde::Serialize;
use std::collections::BTreeMap;

/// The panels' rows (smallest κ of each start), in order of first appearance, keyed by the
/// cells of `state_columns` joined by ", ".
pub fn panels<'a, R: RowCells>(rows: &'a [R], state_columns: &[&str]) -> Vec<(String, Vec<&'a R>)> {
    let mut out: Vec<(String, Vec<&R>)> = Vec::new();
    let smallest = rows
        .iter()
        .filter_map(|r| r.number("kappa"))
        .fold(f64::INFINITY, f64::min);
    for r in rows
        .iter()
        .filter(|r| r.text("status") == "ok" && r.number("kappa") == Some(smallest))
    {
        let key = state_text(r, state_columns);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => out.push((key, vec![r])),
        }
    }
    out
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
    pub outcomes: BTreeMap<String, usize>,
    /// Each outcome's share of the starts.
    pub fractions: BTreeMap<String, f64>,
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

/// The measures of every panel ([`panels`]), lettered in order. A state is at rest when its
/// `u0` cell is 0.
pub fn panel_measures<R: RowCells>(rows: &[R], state_columns: &[&str]) -> Vec<PanelMeasure> {
    panels(rows, state_columns)
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
            let grounded: Vec<&&R> = r
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
