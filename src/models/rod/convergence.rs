//! Convergence of the rod's measured quantities to the rigid limit, in the right form: each
//! quantity's κ ladder extrapolated to κ → 0 (`analysis::extrapolate`, with the damped slide's
//! extra power), against the closed-form limit and the derived log coefficient b
//! (docs/extrapolation.md).

use crate::analysis::extrapolate::{extrapolate, Extrapolation, ExtrapolationOptions, Term};
use crate::experiment::table::Row;
use crate::models::rod::asymptotics::{log_coefficients, slide_decay_exponent, LogCoefficients};
use crate::models::rod::limit::RigidLimit;
use crate::models::rod::scenario::RodImpact;
use serde::Serialize;

/// A measured quantity of the tangential impact, normalised to have a finite κ → 0 limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RodQuantity {
    /// T_stick/√κ.
    StickScaled,
    /// T_rev/κ.
    ReverseScaled,
    /// Normal velocity at lift-off.
    VOut,
    /// Angular velocity at lift-off.
    OmegaOut,
    /// Total normal impulse.
    ImpulseNormal,
}

impl RodQuantity {
    pub const ALL: [RodQuantity; 5] = [
        RodQuantity::StickScaled,
        RodQuantity::ReverseScaled,
        RodQuantity::VOut,
        RodQuantity::OmegaOut,
        RodQuantity::ImpulseNormal,
    ];

    /// The four post-impact quantities.
    pub const POST_IMPACT: [RodQuantity; 4] = [
        RodQuantity::StickScaled,
        RodQuantity::VOut,
        RodQuantity::OmegaOut,
        RodQuantity::ImpulseNormal,
    ];

    /// Name in tables and figures.
    pub fn symbol(&self) -> &'static str {
        match self {
            RodQuantity::StickScaled => "T_stick/√κ",
            RodQuantity::ReverseScaled => "T_rev/κ",
            RodQuantity::VOut => "v_out",
            RodQuantity::OmegaOut => "θ̇_out",
            RodQuantity::ImpulseNormal => "normal impulse",
        }
    }

    /// Label in figures: words where the table's symbol is a CSV column name or a code name.
    pub(crate) fn axis_label(&self) -> &'static str {
        match self {
            RodQuantity::StickScaled => "stick duration/√κ",
            RodQuantity::ReverseScaled => "reverse-slip duration/κ",
            RodQuantity::VOut => "post-impact v",
            RodQuantity::OmegaOut => "post-impact θ̇",
            RodQuantity::ImpulseNormal => "normal impulse",
        }
    }

    /// Name in CSV columns.
    pub fn key(&self) -> &'static str {
        match self {
            RodQuantity::StickScaled => "stick_scaled",
            RodQuantity::ReverseScaled => "reverse_scaled",
            RodQuantity::VOut => "v_out",
            RodQuantity::OmegaOut => "omega_out",
            RodQuantity::ImpulseNormal => "impulse_normal",
        }
    }

    /// The normalised value of one row of runs.csv.
    pub fn measured(&self, r: &Row) -> Option<f64> {
        let k = r.number("kappa")?;
        let v = match self {
            RodQuantity::StickScaled => r.number("t_stick")? / k.sqrt(),
            RodQuantity::ReverseScaled => r.number("t_reverse_slip")? / k,
            RodQuantity::VOut => r.number("v_out")?,
            RodQuantity::OmegaOut => r.number("omega_out")?,
            RodQuantity::ImpulseNormal => r.number("impulse_normal")?,
        };
        v.is_finite().then_some(v)
    }

    pub fn closed_form(&self, l: &RigidLimit) -> f64 {
        match self {
            RodQuantity::StickScaled => l.stick_duration_scaled,
            RodQuantity::ReverseScaled => l.reverse_slip_duration_scaled,
            RodQuantity::VOut => l.v_out,
            RodQuantity::OmegaOut => l.omega_out,
            RodQuantity::ImpulseNormal => l.impulse_total,
        }
    }

    pub(crate) fn predicted_log_coefficient(&self, b: &LogCoefficients) -> f64 {
        match self {
            RodQuantity::StickScaled => b.stick_scaled,
            RodQuantity::ReverseScaled => b.reverse_scaled,
            RodQuantity::VOut => b.v_out,
            RodQuantity::OmegaOut => b.omega_out,
            RodQuantity::ImpulseNormal => b.impulse_total,
        }
    }
}

/// The extra powers a rod state's ladder needs: with a dashpot, the slide's decaying mode
/// κ^q, q = ½ + |σ|/(2λ) (docs/extrapolation.md eq. (2.12)); left out within 0.05 of 1, where
/// it duplicates the κ term (at c_d = 0, q = 1 exactly).
pub fn extrapolation_options(imp: &RodImpact) -> ExtrapolationOptions {
    ExtrapolationOptions {
        extra_powers: slide_decay_exponent(imp)
            .filter(|q| (q - 1.0).abs() > 0.05)
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

/// One quantity of one ladder: measured, extrapolated, predicted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuantityConvergence {
    pub quantity: RodQuantity,
    pub symbol: &'static str,
    /// The closed-form limit (`None` where the limit module has none).
    pub closed_form: Option<f64>,
    /// The smallest κ that ran, the value there, its relative error to the closed form.
    pub smallest_kappa: f64,
    pub value_at_smallest_kappa: f64,
    pub relative_error_at_smallest_kappa: Option<f64>,
    /// The extrapolated limit, or why there is none.
    pub extrapolation: Option<Extrapolation>,
    pub refusal: Option<String>,
    /// The derived coefficient b of √κ ln(1/κ).
    pub predicted_log_coefficient: Option<f64>,
}

impl QuantityConvergence {
    /// (extrapolated − closed form)/|closed form|.
    pub fn extrapolation_error(&self) -> Option<f64> {
        let (e, l) = (self.extrapolation.as_ref()?, self.closed_form?);
        Some((e.limit - l) / l.abs())
    }

    /// Half-width of the interval relative to |closed form| (or to the limit).
    pub(crate) fn relative_half_width(&self) -> Option<f64> {
        let e = self.extrapolation.as_ref()?;
        Some(e.half_width / self.closed_form.unwrap_or(e.limit).abs())
    }

    /// Whether the interval contains the closed-form limit.
    pub fn covers_closed_form(&self) -> Option<bool> {
        Some(self.extrapolation.as_ref()?.covers(self.closed_form?))
    }

    /// The fitted b (coefficient of √κ L).
    pub(crate) fn fitted_log_coefficient(&self) -> Option<f64> {
        self.extrapolation.as_ref()?.coefficient(Term::SqrtLog)
    }

    /// The fitted c (coefficient of √κ).
    pub(crate) fn fitted_sqrt_coefficient(&self) -> Option<f64> {
        self.extrapolation.as_ref()?.coefficient(Term::Sqrt)
    }
}

/// The values of `quantity` by κ (κ ≥ `kappa_floor`), κ ascending.
fn ladder(rows: &[&Row], quantity: RodQuantity, kappa_floor: f64) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.number("kappa")?, quantity.measured(r)?)))
        .filter(|(k, _)| *k >= kappa_floor)
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// The accuracy of one integrator's values of `quantity`, from the others run on the same
/// ladder: the largest, over the other integrators, of the median over the common κ of the
/// absolute difference. An integrator's error at a fixed tolerance is nearly the same at every
/// κ (the impact is self-similar in fast time), so the ladder alone cannot see it
/// (docs/extrapolation.md §1.4). 0 without another integrator.
pub fn spread_accuracy(
    own: &[&Row],
    others: &[Vec<&Row>],
    quantity: RodQuantity,
    kappa_floor: f64,
) -> f64 {
    let mine = ladder(own, quantity, kappa_floor);
    others
        .iter()
        .filter_map(|o| {
            let theirs = ladder(o, quantity, kappa_floor);
            let mut d: Vec<f64> = mine
                .iter()
                .filter_map(|(k, v)| {
                    let (_, w) = theirs.iter().find(|(kk, _)| kk == k)?;
                    Some((v - w).abs())
                })
                .collect();
            d.sort_by(f64::total_cmp);
            d.get(d.len() / 2).copied()
        })
        .fold(0.0, f64::max)
}

/// Extrapolate `quantity` over `rows` (one state's ladder, successful runs, any order) with
/// κ ≥ `kappa_floor`; `value_accuracy` is the values' own accuracy (absolute; see
/// [`spread_accuracy`]).
pub fn quantity_convergence(
    rows: &[&Row],
    quantity: RodQuantity,
    impact: &RodImpact,
    kappa_floor: f64,
    value_accuracy: f64,
) -> Option<QuantityConvergence> {
    let pts = ladder(rows, quantity, kappa_floor);
    let &(smallest_kappa, value) = pts.first()?;
    let (k, v): (Vec<f64>, Vec<f64>) = pts.into_iter().unzip();
    let limit = RigidLimit::of(impact);
    let closed_form = limit.as_ref().map(|l| quantity.closed_form(l));
    let opts = ExtrapolationOptions {
        value_accuracy,
        ..extrapolation_options(impact)
    };
    let result = extrapolate(&k, &v, &opts);
    Some(QuantityConvergence {
        quantity,
        symbol: quantity.symbol(),
        closed_form,
        smallest_kappa,
        value_at_smallest_kappa: value,
        relative_error_at_smallest_kappa: closed_form.map(|l| (value - l) / l.abs()),
        refusal: result.as_ref().err().map(|r| r.to_string()),
        extrapolation: result.ok(),
        predicted_log_coefficient: log_coefficients(impact)
            .map(|b| quantity.predicted_log_coefficient(&b)),
    })
}
