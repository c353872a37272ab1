//! The κ → 0 analysis of one sweep: exponents, the rigid limit, the stated bounds.

use super::fit::{least_squares, power_law, slide_law, LinearFit};
use crate::experiment::spec::ExperimentSpec;
use crate::experiment::table::Row;
use crate::limit::RigidLimit;
use serde::Serialize;
use std::f64::consts::PI;

/// Points with κ at or below this are the asymptotic range of the fits.
pub const ASYMPTOTIC_KAPPA_MAX: f64 = 1e-6;

/// A measured quantity against its κ → 0 limit.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Convergence {
    /// Name of the normalised quantity (e.g. `T_stick/sqrt(kappa)`).
    pub quantity: &'static str,
    pub limit: f64,
    /// (κ, value, relative error) at the smallest κ that ran.
    pub smallest_kappa: f64,
    pub value: f64,
    pub relative_error: f64,
    /// |relative error| ~ κ^rate over the asymptotic range (log–log fit of the error).
    pub rate: Option<LinearFit>,
}

/// Whether every point satisfies a bound.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoundCheck {
    pub bound: &'static str,
    pub points: usize,
    pub violations: usize,
    /// κ and measured/bound ratio of the worst violation.
    pub worst: Option<(f64, f64)>,
    /// Whether the bound is an upper bound (holds while measured/bound < 1).
    pub is_upper: bool,
    /// (κ, measured/bound) at every point.
    pub per_point: Vec<(f64, f64)>,
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
    /// T_slide = √κ (a ln(1/√κ) + b) over the asymptotic range.
    pub slide_law: Option<LinearFit>,
    pub convergence: Vec<Convergence>,
    pub bounds: Vec<BoundCheck>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SweepAnalysis {
    pub experiment: String,
    pub asymptotic_kappa_max: f64,
    pub limit: Option<RigidLimit>,
    pub integrators: Vec<IntegratorAnalysis>,
}

/// Measured values of one column over the successful rows, with their κ.
fn series(rows: &[&Row], column: &str) -> (Vec<f64>, Vec<f64>) {
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

fn convergence(
    rows: &[&Row],
    quantity: &'static str,
    limit: f64,
    normalised: impl Fn(&Row) -> Option<f64>,
) -> Option<Convergence> {
    let mut pts: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.number("kappa")?, normalised(r)?)))
        .filter(|(_, v)| v.is_finite())
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let &(smallest_kappa, value) = pts.first()?;
    let rel = |v: f64| (v - limit) / limit.abs();
    let (x, y): (Vec<f64>, Vec<f64>) = pts
        .iter()
        .filter(|(k, v)| *k <= ASYMPTOTIC_KAPPA_MAX && rel(*v) != 0.0)
        .map(|(k, v)| (k.ln(), rel(*v).abs().ln()))
        .unzip();
    Some(Convergence {
        quantity,
        limit,
        smallest_kappa,
        value,
        relative_error: rel(value),
        rate: least_squares(&x, &y),
    })
}

/// Check `lower(κ) < T < upper(κ)` at every point.
fn check_bound(
    rows: &[&Row],
    bound: &'static str,
    column: &str,
    limit: impl Fn(f64) -> f64,
    is_upper: bool,
) -> BoundCheck {
    let (k, v) = series(rows, column);
    let mut violations = 0;
    let mut worst: Option<(f64, f64)> = None;
    let mut per_point = Vec::with_capacity(k.len());
    for (kappa, t) in k.iter().zip(&v) {
        let ratio = t / limit(*kappa);
        per_point.push((*kappa, ratio));
        let violated = if is_upper { ratio >= 1.0 } else { ratio <= 1.0 };
        if violated {
            violations += 1;
            let badness = if is_upper { ratio } else { 1.0 / ratio };
            if worst.is_none_or(|(_, r)| badness > if is_upper { r } else { 1.0 / r }) {
                worst = Some((*kappa, ratio));
            }
        }
    }
    BoundCheck {
        bound,
        points: k.len(),
        violations,
        worst,
        is_upper,
        per_point,
    }
}

/// Analyse the rows of one experiment.
pub fn analyze(spec: &ExperimentSpec, rows: &[Row]) -> SweepAnalysis {
    let limit = RigidLimit::of(&spec.impact(spec.sweep.kappa.min));
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
            let mut conv = Vec::new();
            if let Some(l) = &limit {
                let sk = |r: &Row| r.number("kappa").map(f64::sqrt);
                conv.extend(convergence(
                    &ok,
                    "T_stick/sqrt(kappa)",
                    l.stick_duration_scaled,
                    |r| Some(r.number("t_stick")? / sk(r)?),
                ));
                conv.extend(convergence(
                    &ok,
                    "T_reverse/kappa",
                    l.reverse_slip_duration_scaled,
                    |r| Some(r.number("t_reverse_slip")? / r.number("kappa")?),
                ));
                conv.extend(convergence(
                    &ok,
                    "T_slide / two-term prediction",
                    1.0,
                    |r| Some(r.number("t_slide")? / l.slide_duration(r.number("kappa")?)),
                ));
                conv.extend(convergence(&ok, "v_out", l.v_out, |r| r.number("v_out")));
                conv.extend(convergence(&ok, "omega_out", l.omega_out, |r| {
                    r.number("omega_out")
                }));
                conv.extend(convergence(&ok, "impulse_normal", l.impulse_total, |r| {
                    r.number("impulse_normal")
                }));
            }
            let bounds = vec![
                check_bound(
                    &ok,
                    "T_stick > (pi/2) sqrt(kappa)   [Zhao-Liu (58)/(61), as stated]",
                    "t_stick",
                    |k| PI / 2.0 * k.sqrt(),
                    false,
                ),
                check_bound(
                    &ok,
                    "T_stick < pi sqrt(kappa)   [Zhao-Liu (58)/(61), as stated]",
                    "t_stick",
                    |k| PI * k.sqrt(),
                    true,
                ),
            ];
            IntegratorAnalysis {
                integrator: kind.name().to_string(),
                points: all.len(),
                failed: all.len() - ok.len(),
                slide_exponent: power_law(&ks, &ts),
                stick_exponent: exponent(&ok, "t_stick"),
                reverse_slip_exponent: exponent(&ok, "t_reverse_slip"),
                slide_law: slide_law(&ks, &ts),
                convergence: conv,
                bounds,
            }
        })
        .collect();
    SweepAnalysis {
        experiment: spec.name.clone(),
        asymptotic_kappa_max: ASYMPTOTIC_KAPPA_MAX,
        limit,
        integrators,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::spec::ExperimentSpec;
    use std::collections::BTreeMap;

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
        let spec = ExperimentSpec::parse(SPEC).unwrap();
        spec.points()
            .iter()
            .map(|p| {
                let k = p.impact.kappa;
                let sk = k.sqrt();
                let stick = if p.id == 3 {
                    3.5 * sk
                } else {
                    2.0 * sk * (1.0 + sk)
                };
                let mut f: BTreeMap<&'static str, String> = BTreeMap::new();
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
        let spec = ExperimentSpec::parse(SPEC).unwrap();
        let limit = RigidLimit::of(&spec.impact(1e-8)).unwrap();
        let a = analyze(&spec, &synthetic_rows(&limit));
        let i = &a.integrators[0];
        let stick = i.stick_exponent.unwrap();
        assert!((stick.slope - 0.5).abs() < 1e-3, "{stick:?}");
        let rev = i.reverse_slip_exponent.unwrap();
        assert!((rev.slope - 0.9).abs() < 1e-12 && rev.slope_ci95 < 1e-9);
        let law = i.slide_law.unwrap();
        assert!((law.slope - 1.5).abs() < 1e-9 && (law.intercept + 2.0).abs() < 1e-8);
        let v = i
            .convergence
            .iter()
            .find(|c| c.quantity == "v_out")
            .unwrap();
        assert!((v.rate.unwrap().slope - 0.25).abs() < 1e-9);
        // Point 3 (T = 3.5√κ) breaks the upper bound π√κ and nothing else.
        assert_eq!((i.bounds[0].violations, i.bounds[1].violations), (0, 1));
        assert!((i.bounds[1].worst.unwrap().1 - 3.5 / PI).abs() < 1e-12);
    }
}
