//! The κ → 0 analysis of one sweep: exponents, convergence to the rigid limit (extrapolated, in
//! the form √κ (b ln(1/κ) + c) + …; docs/extrapolation.md), the stated bounds.

use super::convergence::{quantity_convergence, spread_accuracy, QuantityConvergence, RodQuantity};
use super::sweep::RodExperiment;
use crate::analysis::fit::{power_law, slide_law, LinearFit};
use crate::experiment::table::Row;
use crate::models::rod::bounds::{stick_lower, stick_upper, SlideBoundConstants};
use crate::models::rod::limit::RigidLimit;
use serde::Serialize;

/// Points with κ at or below this are the asymptotic range of the fits.
pub(crate) const ASYMPTOTIC_KAPPA_MAX: f64 = 1e-6;

/// One point against one bound.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PointCheck {
    pub kappa: f64,
    pub measured: f64,
    pub bound: f64,
    /// measured/bound (`None` when the bound is vacuous: a lower bound ≤ 0).
    pub ratio: Option<f64>,
    pub inside: bool,
    /// Whether the bound's own hypotheses hold at this point (`None`: not checkable or none).
    pub hypotheses: Option<bool>,
}

/// Whether every point satisfies a bound.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoundCheck {
    pub bound: &'static str,
    /// Whether the bound is an upper bound.
    pub is_upper: bool,
    pub points: usize,
    pub violations: usize,
    /// Points where a lower bound is ≤ 0 (satisfied trivially).
    pub vacuous: usize,
    /// Points where the bound's hypotheses fail (checked from the measured state).
    pub hypotheses_fail: usize,
    /// κ and measured/bound ratio of the worst violation.
    pub worst: Option<(f64, f64)>,
    pub per_point: Vec<PointCheck>,
}

/// The analysis of one integrator's runs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IntegratorAnalysis {
    pub integrator: String,
    pub points: usize,
    pub failed: usize,
    /// T ~ κ^p over the asymptotic range, per phase.
    pub slide_exponent: Option<LinearFit>,
    pub stick_exponent: Option<LinearFit>,
    pub reverse_slip_exponent: Option<LinearFit>,
    /// T_slide = √κ (a x + b) + κ (c x² + d x + e), x = ln(1/√κ), over the asymptotic range
    /// (`analysis::fit::slide_law`).
    pub slide_law: Option<LinearFit>,
    /// The same law over the asymptotic range's κ ≤ a tenth of its largest: how far a and b
    /// move with the window measures what the law leaves out (its fit's interval does not).
    pub slide_law_narrow: Option<LinearFit>,
    /// Each quantity of [`RodQuantity::ALL`] extrapolated over the whole ladder.
    pub convergence: Vec<QuantityConvergence>,
    pub bounds: Vec<BoundCheck>,
    /// The normal force where the stick ends against Zhao–Liu's eq. (53) (none without the
    /// rigid limit or a stick).
    pub stick_end_force: Option<StickEndForce>,
}

/// Zhao–Liu eqs. (53), (54): the normal force F_n(ε₃) where the stick breaks into reverse slip
/// stays O(1) as κ → 0, tending to F* of eq. (53) at θ0 and the post-impact θ̇.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StickEndForce {
    /// F* (the rigid limit's `stick_end_force`).
    pub closed_form: f64,
    pub smallest_kappa: f64,
    pub value_at_smallest_kappa: f64,
    /// (F_n(ε₃) − F*)/F* at the smallest κ.
    pub relative_error_at_smallest_kappa: f64,
    /// F_n(ε₃) ∝ κ^p over the asymptotic range: p → 0 for a bounded force (the peak force has
    /// p = −½).
    pub exponent: Option<LinearFit>,
    /// |F_n(ε₃) − F*| ∝ κ^p over the asymptotic range: the rate of convergence to F*.
    pub error_exponent: Option<LinearFit>,
}

/// F_n(ε₃) of one integrator's runs (the column `normal_force_stick_end`, runs that break the
/// stick into reverse slip) against the closed form `f_star`.
pub fn stick_end_force(rows: &[&Row], f_star: f64) -> Option<StickEndForce> {
    let reverse: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.text("mode_sequence").contains("stick>slide_right"))
        .collect();
    let (k, f) = series(&reverse, "normal_force_stick_end");
    let (k, f) = asymptotic(&k, &f);
    let i = (0..k.len()).min_by(|a, b| k[*a].total_cmp(&k[*b]))?;
    let (ke, e): (Vec<f64>, Vec<f64>) = k
        .iter()
        .zip(&f)
        .map(|(k, f)| (*k, (f - f_star).abs()))
        .filter(|(_, e)| *e > 0.0)
        .unzip();
    Some(StickEndForce {
        closed_form: f_star,
        smallest_kappa: k[i],
        value_at_smallest_kappa: f[i],
        relative_error_at_smallest_kappa: (f[i] - f_star) / f_star,
        exponent: power_law(&k, &f),
        error_exponent: power_law(&ke, &e),
    })
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SweepAnalysis {
    pub experiment: String,
    pub asymptotic_kappa_max: f64,
    pub limit: Option<RigidLimit>,
    /// The constants of the Zhao–Liu slide bounds for this initial state.
    pub slide_bound_constants: Option<SlideBoundConstants>,
    pub integrators: Vec<IntegratorAnalysis>,
}

/// Measured values of one column over the successful rows, with their κ.
pub(crate) fn series(rows: &[&Row], column: &str) -> (Vec<f64>, Vec<f64>) {
    rows.iter()
        .filter_map(|r| Some((r.number("kappa")?, r.number(column)?)))
        .filter(|(_, v)| v.is_finite())
        .unzip()
}

fn asymptotic(kappa: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    kappa
        .iter()
        .zip(v)
        .filter(|(k, v)| **k <= ASYMPTOTIC_KAPPA_MAX && **v > 0.0)
        .map(|(k, v)| (*k, *v))
        .unzip()
}

fn exponent(rows: &[&Row], column: &str) -> Option<LinearFit> {
    let (k, v) = series(rows, column);
    let (k, v) = asymptotic(&k, &v);
    power_law(&k, &v)
}

/// A published bound on one measured column.
struct Bound<'a> {
    name: &'static str,
    column: &'static str,
    is_upper: bool,
    value: &'a dyn Fn(f64) -> f64,
    /// Whether the bound's hypotheses hold at a row (`None`: nothing to check).
    hypotheses: &'a dyn Fn(&Row) -> Option<bool>,
}

/// Check a bound at every point (rows in κ order as given).
fn check_bound(rows: &[&Row], b: &Bound) -> BoundCheck {
    let mut per_point = Vec::new();
    for r in rows {
        let (Some(kappa), Some(measured)) = (r.number("kappa"), r.number(b.column)) else {
            continue;
        };
        let bound = (b.value)(kappa);
        let vacuous = !b.is_upper && bound <= 0.0;
        let ratio = (!vacuous).then_some(measured / bound);
        let inside = vacuous
            || if b.is_upper {
                measured < bound
            } else {
                measured > bound
            };
        per_point.push(PointCheck {
            kappa,
            measured,
            bound,
            ratio,
            inside,
            hypotheses: (b.hypotheses)(r),
        });
    }
    // Worst violation: largest measured/bound above 1 (upper) or smallest below 1 (lower).
    let badness = |r: f64| if b.is_upper { r } else { 1.0 / r };
    let worst = per_point
        .iter()
        .filter(|p| !p.inside)
        .filter_map(|p| Some((p.kappa, p.ratio?)))
        .max_by(|x, y| badness(x.1).total_cmp(&badness(y.1)));
    BoundCheck {
        bound: b.name,
        is_upper: b.is_upper,
        points: per_point.len(),
        violations: per_point.iter().filter(|p| !p.inside).count(),
        vacuous: per_point.iter().filter(|p| p.ratio.is_none()).count(),
        hypotheses_fail: per_point
            .iter()
            .filter(|p| p.hypotheses == Some(false))
            .count(),
        worst,
        per_point,
    }
}

/// The published bounds for the experiment's initial state: slide (33)/(31) with constants
/// chosen by [`SlideBoundConstants::choose`], stick (58)/(61) as stated.
pub(crate) fn bound_checks(
    rows: &[&Row],
    constants: Option<&SlideBoundConstants>,
    mu: f64,
) -> Vec<BoundCheck> {
    let none = |_: &Row| None;
    let mut checks = Vec::new();
    if let Some(c) = constants {
        let hyp = |r: &Row| {
            Some(c.hypotheses_hold_at(
                mu,
                r.number("theta_slide_end")?,
                r.number("omega_slide_end")?,
            ))
        };
        let lower = |k: f64| c.slide_lower(k);
        let upper = |k: f64| c.slide_upper(k);
        checks.push(check_bound(
            rows,
            &Bound {
                name: SLIDE_LOWER,
                column: "t_slide",
                is_upper: false,
                value: &lower,
                hypotheses: &hyp,
            },
        ));
        checks.push(check_bound(
            rows,
            &Bound {
                name: SLIDE_UPPER,
                column: "t_slide",
                is_upper: true,
                value: &upper,
                hypotheses: &hyp,
            },
        ));
    }
    checks.push(check_bound(
        rows,
        &Bound {
            name: STICK_LOWER,
            column: "t_stick",
            is_upper: false,
            value: &stick_lower,
            hypotheses: &none,
        },
    ));
    checks.push(check_bound(
        rows,
        &Bound {
            name: STICK_UPPER,
            column: "t_stick",
            is_upper: true,
            value: &stick_upper,
            hypotheses: &none,
        },
    ));
    checks
}

pub(crate) const SLIDE_LOWER: &str = "slide lower (33)";
pub(crate) const SLIDE_UPPER: &str = "slide upper (31)";
pub(crate) const STICK_LOWER: &str = "stick lower (61)";
pub(crate) const STICK_UPPER: &str = "stick upper (58)/(61)";

/// Analyse the rows of one experiment.
pub(crate) fn analyze(spec: &RodExperiment, rows: &[Row]) -> SweepAnalysis {
    let impact = spec.impact(spec.sweep.kappa.min);
    let limit = RigidLimit::of(&impact);
    let constants = SlideBoundConstants::choose(&impact);
    let ok_of = |kind: &str| -> Vec<&Row> {
        rows.iter()
            .filter(|r| r.text("integrator") == kind && r.text("status") == "ok")
            .collect()
    };
    let integrators = spec
        .solver
        .integrators
        .iter()
        .map(|kind| {
            let all: Vec<&Row> = rows
                .iter()
                .filter(|r| r.text("integrator") == kind.name())
                .collect();
            let ok: Vec<&Row> = all
                .iter()
                .copied()
                .filter(|r| r.text("status") == "ok")
                .collect();
            let (ks, ts) = series(&ok, "t_slide");
            let (ks, ts) = asymptotic(&ks, &ts);
            let others: Vec<Vec<&Row>> = spec
                .solver
                .integrators
                .iter()
                .filter(|o| *o != kind)
                .map(|o| ok_of(o.name()))
                .collect();
            let conv: Vec<QuantityConvergence> = RodQuantity::ALL
                .iter()
                .filter_map(|q| {
                    let accuracy = spread_accuracy(&ok, &others, *q, 0.0);
                    quantity_convergence(&ok, *q, &impact, 0.0, accuracy)
                })
                .collect();
            let mut by_kappa = ok.clone();
            by_kappa.sort_by(|x, y| {
                x.number("kappa")
                    .unwrap_or(0.0)
                    .total_cmp(&y.number("kappa").unwrap_or(0.0))
            });
            let bounds = bound_checks(&by_kappa, constants.as_ref(), impact.mu);
            IntegratorAnalysis {
                integrator: kind.name().to_string(),
                points: all.len(),
                failed: all.len() - ok.len(),
                slide_exponent: power_law(&ks, &ts),
                stick_exponent: exponent(&ok, "t_stick"),
                reverse_slip_exponent: exponent(&ok, "t_reverse_slip"),
                slide_law: slide_law(&ks, &ts),
                slide_law_narrow: {
                    let narrow = ASYMPTOTIC_KAPPA_MAX / 10.0 * (1.0 + 1e-9);
                    let (k, t): (Vec<f64>, Vec<f64>) =
                        ks.iter().zip(&ts).filter(|(k, _)| **k <= narrow).unzip();
                    slide_law(&k, &t)
                },
                convergence: conv,
                bounds,
                stick_end_force: limit
                    .as_ref()
                    .and_then(|l| stick_end_force(&ok, l.stick_end_force)),
            }
        })
        .collect();
    SweepAnalysis {
        experiment: spec.name.clone(),
        asymptotic_kappa_max: ASYMPTOTIC_KAPPA_MAX,
        limit,
        slide_bound_constants: constants,
        integrators,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
name = "synthetic"
model = "rod"
[params]
mu = 2.0
theta0 = 1.3
u0 = -1.0
[sweep]
kappa = { min = 1e-12, max = 1e-4, per_decade = 2 }
[solver]
integrators = ["bdf"]
rtol = 1e-10
atol = 1e-14
"#;

    /// Records with known laws: T_stick = 2√κ(1 + √κ), T_rev = 0.3 κ^0.9, T_slide =
    /// √κ(1.5 ln(1/√κ) − 2), v_out = v_lim (1 + 5 κ^0.25); one point breaks the stick bound.
    fn synthetic_rows(limit: &RigidLimit) -> Vec<Row> {
        let spec = RodExperiment::parse(SPEC).unwrap();
        spec.points()
            .iter()
            .map(|p| {
                let k = p.method.kappa();
                let sk = k.sqrt();
                let stick = if p.id == 3 {
                    3.5 * sk
                } else {
                    2.0 * sk * (1.0 + sk)
                };
                let mut f = crate::experiment::table::Fields::default();
                f.insert("kappa", k.to_string());
                f.insert("integrator", "bdf".into());
                f.insert("status", "ok".into());
                f.insert("t_stick", stick.to_string());
                f.insert("t_reverse_slip", (0.3 * k.powf(0.9)).to_string());
                f.insert("t_slide", (sk * (1.5 * (1.0 / sk).ln() - 2.0)).to_string());
                f.insert(
                    "v_out",
                    (limit.v_out * (1.0 + 5.0 * k.powf(0.25))).to_string(),
                );
                Row {
                    point_id: p.id,
                    fields: f,
                }
            })
            .collect()
    }

    #[test]
    fn analysis_recovers_known_exponents_and_flags_the_broken_bound() {
        let spec = RodExperiment::parse(SPEC).unwrap();
        let limit = RigidLimit::of(&spec.impact(1e-8)).unwrap();
        let a = analyze(&spec, &synthetic_rows(&limit));
        let i = &a.integrators[0];
        let stick = i.stick_exponent.unwrap();
        assert!((stick.slope - 0.5).abs() < 1e-3, "{stick:?}");
        let rev = i.reverse_slip_exponent.unwrap();
        assert!((rev.slope - 0.9).abs() < 1e-12 && rev.slope_ci95 < 1e-9);
        let law = i.slide_law.unwrap();
        assert!((law.slope - 1.5).abs() < 1e-9 && (law.intercept + 2.0).abs() < 1e-8);
        // v_out = v_lim (1 + 5 κ^0.25) is a power law: extrapolated to v_lim, exponent 1/4.
        let v = i
            .convergence
            .iter()
            .find(|c| c.quantity == RodQuantity::VOut)
            .unwrap();
        let e = v.extrapolation.as_ref().unwrap();
        assert!(e.formula.starts_with("y₀ + c κ^p"), "{}", e.formula);
        assert!((e.exponent.unwrap() - 0.25).abs() < 1e-6, "{e:?}");
        assert!(v.extrapolation_error().unwrap().abs() < 1e-10 && v.covers_closed_form().unwrap());
        // Point 3 (T = 3.5√κ) breaks the upper stick bound π√κ and not the lower one.
        let bound = |name| i.bounds.iter().find(|b| b.bound == name).unwrap();
        let (lower, upper) = (bound(STICK_LOWER), bound(STICK_UPPER));
        assert_eq!((lower.violations, upper.violations), (0, 1));
        assert!((upper.worst.unwrap().1 - 3.5 / std::f64::consts::PI).abs() < 1e-12);
    }
}
