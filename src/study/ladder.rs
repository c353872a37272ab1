//! What a κ ladder says about one quantity: the rows of one configuration run by one integrator,
//! read against the rigid limit (a closed-form column or the rigid reference run) and the runs'
//! tolerance. The convergence study's summary and its atlas both state these findings
//! (`QuantityLimit`); the figures draw the distances.

use crate::analysis::extrapolate::{extrapolate, Extrapolation, ExtrapolationOptions};
use crate::analysis::fit::{power_law, LinearFit};
use crate::experiment::system::{Method, Quantity};
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::report::rates::in_range;

/// How a limit from the compliant runs compares with the rigid one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgainstRigid {
    /// The extrapolation's interval holds the rigid value.
    Inside,
    /// Within the runs' tolerance of the rigid value (outside the interval when `interval`).
    WithinTolerance { interval: bool },
    /// Beyond the runs' tolerance (and outside the interval when `interval`): the compliant
    /// runs tend to another limit than the rigid reference.
    Beyond { interval: bool },
}

impl AgainstRigid {
    /// `limit` against `rigid` given the runs' tolerance `floor`; `inside` says whether an
    /// interval about `limit` holds `rigid` (`None`: `limit` has no interval).
    pub(crate) fn of(limit: f64, rigid: f64, floor: f64, inside: Option<bool>) -> AgainstRigid {
        match (inside, (limit - rigid).abs() <= floor) {
            (Some(true), _) => AgainstRigid::Inside,
            (inside, true) => AgainstRigid::WithinTolerance {
                interval: inside.is_some(),
            },
            (inside, false) => AgainstRigid::Beyond {
                interval: inside.is_some(),
            },
        }
    }
}

/// The limit κ → 0 a ladder gives from its own values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LadderLimit {
    /// The same at every κ to the runs' tolerance (`spread` the largest minus the smallest
    /// value): a ladder without a correction in κ to resolve, whose value at the smallest κ is
    /// the limit to that tolerance.
    Level { value: f64, spread: f64 },
    /// Extrapolated from the ladder (docs/extrapolation.md §1).
    Extrapolated(Box<Extrapolation>),
    /// The extrapolation refused, and why.
    Refused(String),
}

/// What one integrator's rows of one configuration say about quantity `q` as κ → 0.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QuantityLimit {
    /// The rigid limit: the quantity's closed-form column, else the rigid reference run's value.
    pub rigid: Option<f64>,
    /// When every distance to the rigid limit lies within the runs' tolerance: the largest
    /// distance and that tolerance ([`distances_at_floor`]); no rate is fitted then.
    pub at_floor: Option<(f64, f64)>,
    /// The fitted rate of the distance to the rigid limit (of the column for a distance).
    pub rate: Option<LinearFit>,
    /// The limit from the ladder alone; `None` for a distance (its limit is 0).
    pub limit: Option<LadderLimit>,
    /// The runs' tolerance the limit is read against ([`tolerance_floor`]).
    pub floor: f64,
}

impl QuantityLimit {
    /// The findings for `q` from `kind`'s rows of one configuration, `rows`.
    pub(crate) fn of(q: &Quantity, kind: &IntegratorKind, rows: &[Row]) -> QuantityLimit {
        let (own, reference) = compliant_rows_and_reference(q, kind, rows);
        let rigid = own.iter().find_map(|r| rigid_limit_of(q, reference, r));
        let at_floor = distances_at_floor(q, kind, rows);
        let rate = rigid_rate(q, kind, rows);
        if q.distance {
            return QuantityLimit {
                rigid,
                at_floor,
                rate,
                limit: None,
                floor: 0.0,
            };
        }
        let (kappa, values) = ladder_values(q, kind, rows);
        let floor = tolerance_floor(&own, values.iter().copied().chain(rigid));
        let spread = values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            - values.iter().copied().fold(f64::INFINITY, f64::min);
        let limit = match (value_at_smallest_kappa(&kappa, &values), spread <= floor) {
            (Some(value), true) if values.len() > 1 => LadderLimit::Level { value, spread },
            _ => match extrapolate(&kappa, &values, &ExtrapolationOptions::default()) {
                Ok(e) => LadderLimit::Extrapolated(Box::new(e)),
                Err(r) => LadderLimit::Refused(r.to_string()),
            },
        };
        QuantityLimit {
            rigid,
            at_floor,
            rate,
            limit: Some(limit),
            floor,
        }
    }

    /// The limit κ → 0 from the ladder, with the half-width of its interval (0 for a level).
    pub(crate) fn limit_value(&self) -> Option<(f64, f64)> {
        match self.limit.as_ref()? {
            LadderLimit::Level { value, .. } => Some((*value, 0.0)),
            LadderLimit::Extrapolated(e) => Some((e.limit, e.half_width)),
            LadderLimit::Refused(_) => None,
        }
    }

    /// The ladder's limit against the rigid one, when both are known.
    pub(crate) fn against_rigid(&self) -> Option<AgainstRigid> {
        let rigid = self.rigid?;
        match self.limit.as_ref()? {
            LadderLimit::Level { value, .. } => {
                Some(AgainstRigid::of(*value, rigid, self.floor, None))
            }
            LadderLimit::Extrapolated(e) => Some(AgainstRigid::of(
                e.limit,
                rigid,
                self.floor,
                Some(e.covers(rigid)),
            )),
            LadderLimit::Refused(_) => None,
        }
    }
}

/// The value of quantity `q` in row `r` (a component of a list column, or a number).
pub(crate) fn quantity_value(r: &Row, q: &Quantity) -> Option<f64> {
    match q.component {
        None => r.number(q.column),
        Some(k) => r.text(q.column).split(' ').nth(k)?.parse().ok(),
    }
}

/// Whether `r` is a rigid reference row.
pub(crate) fn is_rigid(r: &Row) -> bool {
    r.text("method") == Method::Rigid.name()
}

/// `kind`'s compliant rows, and the value of `q` in its successful rigid reference run if any.
pub(crate) fn compliant_rows_and_reference<'a>(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &'a [Row],
) -> (Vec<&'a Row>, Option<f64>) {
    let of_kind = |r: &&Row| r.text("integrator") == kind.name();
    let own = rows
        .iter()
        .filter(of_kind)
        .filter(|r| !is_rigid(r))
        .collect();
    let reference = rows
        .iter()
        .filter(of_kind)
        .find(|r| is_rigid(r) && r.text("status") == "ok")
        .and_then(|r| quantity_value(r, q));
    (own, reference)
}

/// The rigid limit of `q` for row `r`: its closed-form column, else the rigid reference run's
/// value `reference`.
pub(crate) fn rigid_limit_of(q: &Quantity, reference: Option<f64>, r: &Row) -> Option<f64> {
    match q.rigid_limit {
        Some(column) => r.number(column),
        None => reference,
    }
}

/// κ and the distance of `kind`'s compliant rows to the rigid reference: the column itself for a
/// [`Quantity::distance`], else |q(κ) − q(rigid)| of the rows that have both (empty without a
/// rigid limit).
pub(crate) fn rigid_distances(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &[Row],
) -> (Vec<f64>, Vec<f64>) {
    let (own, reference) = compliant_rows_and_reference(q, kind, rows);
    own.iter()
        .filter_map(|r| {
            let value = quantity_value(r, q)?;
            let gap = if q.distance {
                value
            } else {
                value - rigid_limit_of(q, reference, r)?
            };
            Some((r.number("kappa")?, gap.abs()))
        })
        .unzip()
}

/// How far apart two values of a quantity may lie and still be one value to the runs'
/// tolerance: ten times the step-size control's error scale atol + rtol |q| (docs/tolerances.md),
/// the largest over the settings of `rows` and the magnitudes `values`. A ladder does not resolve
/// a difference below it: a distance there has no rate, and a ladder that stays within it has no
/// κ dependence to extrapolate.
pub(crate) fn tolerance_floor(rows: &[&Row], values: impl IntoIterator<Item = f64>) -> f64 {
    let largest = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0, |m: f64, v| m.max(v.abs()));
    10.0 * rows
        .iter()
        .filter_map(|r| Some(r.number("atol")? + r.number("rtol")? * largest))
        .fold(0.0, f64::max)
}

/// The largest distance of `kind`'s compliant rows to the rigid reference and the runs'
/// [`tolerance_floor`], when every distance lies within that floor: the runs are on the
/// reference to their tolerance at every κ, and a rate fitted to the distances would fit the
/// integration error.
pub(crate) fn distances_at_floor(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &[Row],
) -> Option<(f64, f64)> {
    let (own, reference) = compliant_rows_and_reference(q, kind, rows);
    let (_, gaps) = rigid_distances(q, kind, rows);
    let magnitudes = own
        .iter()
        .filter_map(|r| quantity_value(r, q))
        .chain(reference);
    let floor = tolerance_floor(&own, magnitudes);
    let largest = gaps.iter().copied().fold(0.0, f64::max);
    (!gaps.is_empty() && largest <= floor).then_some((largest, floor))
}

/// The fit of `q`'s distance to the rigid reference ∝ κ^p over its [`Quantity::fit_range`] (the
/// whole ladder without one); a zero distance (a run on the reference to rounding) has no
/// logarithm and is left out.
pub(crate) fn rigid_rate(q: &Quantity, kind: &IntegratorKind, rows: &[Row]) -> Option<LinearFit> {
    let (kappa, gap) = rigid_distances(q, kind, rows);
    let (kappa, gap): (Vec<f64>, Vec<f64>) = kappa
        .into_iter()
        .zip(gap)
        .filter(|&(k, d)| d > 0.0 && q.fit_range.is_none_or(|range| in_range(k, range)))
        .unzip();
    power_law(&kappa, &gap)
}

/// κ and |q(κ) − q₀| of `kind`'s compliant rows, q₀ the limit κ → 0 extrapolated from them
/// (empty when the extrapolation is refused): the distance a figure shows for a system without
/// a rigid limit.
pub(crate) fn extrapolated_distances(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &[Row],
) -> (Vec<f64>, Vec<f64>) {
    let (kappa, values) = ladder_values(q, kind, rows);
    match extrapolate(&kappa, &values, &ExtrapolationOptions::default()) {
        Ok(e) => kappa
            .into_iter()
            .zip(values)
            .map(|(k, v)| (k, (v - e.limit).abs()))
            .unzip(),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// κ and |q(κ) − q(κ_min)| of `kind`'s compliant rows, κ_min the smallest κ with a value.
pub(crate) fn smallest_kappa_distances(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &[Row],
) -> (Vec<f64>, Vec<f64>) {
    let (kappa, values) = ladder_values(q, kind, rows);
    let Some(last) = value_at_smallest_kappa(&kappa, &values) else {
        return (Vec::new(), Vec::new());
    };
    kappa
        .into_iter()
        .zip(values)
        .map(|(k, v)| (k, (v - last).abs()))
        .unzip()
}

/// The value at the smallest κ of a ladder (`kappa`, `values`), if it has any.
pub(crate) fn value_at_smallest_kappa(kappa: &[f64], values: &[f64]) -> Option<f64> {
    kappa
        .iter()
        .zip(values)
        .min_by(|a, b| a.0.total_cmp(b.0))
        .map(|(_, &v)| v)
}

/// κ and q of `kind`'s successful compliant rows.
pub(crate) fn ladder_values(
    q: &Quantity,
    kind: &IntegratorKind,
    rows: &[Row],
) -> (Vec<f64>, Vec<f64>) {
    let (own, _) = compliant_rows_and_reference(q, kind, rows);
    own.iter()
        .filter_map(|r| Some((r.number("kappa")?, quantity_value(r, q)?)))
        .unzip()
}
