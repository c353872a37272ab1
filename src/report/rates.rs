//! Rates of convergence fitted to the rows of a κ ladder: a quantity ∝ κ^p, fitted on a fixed
//! range of κ so that the rates of different experiments are comparable.

use crate::analysis::fit::{power_law, LinearFit};
use crate::experiment::table::Row;
use crate::plot::{power_guide, Mark, Panel, Series};
use crate::report::markdown::significant;
use serde::Serialize;

/// The κ range of the fitted rates: [1e-8, 1e-4].
pub const FIT_RANGE: (f64, f64) = (1e-8, 1e-4);

/// Whether `kappa` lies in [`FIT_RANGE`] (to a relative 1e-3, the ladder's rounding).
pub(crate) fn in_fit_range(kappa: f64) -> bool {
    in_range(kappa, FIT_RANGE)
}

/// Whether `kappa` lies in `[smallest, largest]` to a relative 1e-3 (the ladder's rounding).
pub(crate) fn in_range(kappa: f64, (smallest, largest): (f64, f64)) -> bool {
    kappa >= smallest * 0.999 && kappa <= largest * 1.001
}

/// Fit `column` ∝ κ^p over [`FIT_RANGE`] (positive values only).
pub fn rate(rows: &[&Row], column: &str) -> Option<LinearFit> {
    rate_in(rows, FIT_RANGE, |r| r.number(column))
}

/// A [`power_law`] fit drawn across `[smallest, largest]`: its values at the two ends.
pub(crate) fn range_line(f: &LinearFit, (smallest, largest): (f64, f64)) -> Vec<(f64, f64)> {
    [smallest, largest]
        .iter()
        .map(|&k| (k, f.power_law_at(k)))
        .collect()
}

/// Whether the 95 % interval of a fitted exponent leaves out the `predicted` one.
pub(crate) fn excludes(f: &LinearFit, predicted: f64) -> bool {
    (f.slope - predicted).abs() > f.slope_ci95
}

/// A fitted exponent against its prediction, as a summary's rate line ends:
/// `κ^0.4998 ± 0.0002 (95 %, n = 9); predicted exponent 0.5` and, when the interval leaves the
/// prediction out, says so in words (the interval is the fit's alone: a higher-order term of
/// the expansion in κ, or the tolerance's floor, bends the slope too).
pub(crate) fn rate_against_prediction(f: &LinearFit, predicted: Option<f64>) -> String {
    // Four decimals, or as many as show the interval's first digit (up to eight): an interval
    // printed as ± 0.0000 could not show why it leaves the prediction out.
    let decimals = if f.slope_ci95 > 0.0 {
        (-f.slope_ci95.log10()).ceil().clamp(4.0, 8.0) as usize
    } else {
        4
    };
    // An interval below the eighth decimal (a distance that does not depend on κ) is written
    // with its first digit in powers of ten, not as ± 0.00000000.
    let interval = if f.slope_ci95 > 0.0 && f.slope_ci95 < 0.5e-8 {
        crate::report::markdown::sci(f.slope_ci95, 0)
    } else {
        format!("{:.decimals$}", f.slope_ci95)
    };
    let mut text = format!(
        "κ^{} ± {interval} (95 %, n = {})",
        slope_text(f.slope, decimals),
        f.n
    );
    if let Some(p) = predicted {
        text.push_str(&format!("; predicted exponent {}", significant(p)));
        if excludes(f, p) {
            text.push_str(", which the 95 % interval excludes");
        }
    }
    text
}

/// A fitted exponent to `decimals` decimals, a slope that rounds to zero written 0 (not −0: a
/// distance that does not depend on κ fits a slope of either sign at rounding level).
fn slope_text(slope: f64, decimals: usize) -> String {
    let text = format!("{slope:.decimals$}");
    match text.strip_prefix('-') {
        Some(size) if size.chars().all(|c| c == '0' || c == '.') => size.to_string(),
        _ => text,
    }
}

/// Measured points (markers, the fitted rate in the label, against `predicted` when given) and
/// their power-law fit across `range` (a line of the same colour).
pub(crate) fn fitted_series(
    label: &str,
    points: Vec<(f64, f64)>,
    fit: Option<LinearFit>,
    predicted: Option<f64>,
    range: (f64, f64),
    color: usize,
) -> Vec<Series> {
    let rate = |f: &LinearFit| match predicted {
        Some(p) => format!(
            "{label}: rate {} (predicted {})",
            slope_text(f.slope, 3),
            significant(p)
        ),
        None => format!("{label}: rate {}", slope_text(f.slope, 3)),
    };
    let mut out = vec![Series {
        label: fit.as_ref().map_or_else(|| label.to_string(), rate),
        points,
        mark: Mark::Markers,
        color,
    }];
    if let Some(f) = fit {
        out.push(Series {
            label: String::new(),
            points: range_line(&f, range),
            mark: Mark::Line,
            color,
        });
    }
    out
}

/// Fit `value` ∝ κ^p over the κ in `range` (positive values only).
pub(crate) fn rate_in(
    rows: &[&Row],
    range: (f64, f64),
    value: impl Fn(&Row) -> Option<f64>,
) -> Option<LinearFit> {
    let (k, v): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|r| Some((r.number("kappa")?, value(r)?)))
        .filter(|(k, v)| in_range(*k, range) && *v > 0.0)
        .unzip();
    power_law(&k, &v)
}

/// [`rate_in`] as the [`Exponent`] analysis.json holds.
pub(crate) fn exponent_in(
    rows: &[&Row],
    range: (f64, f64),
    value: impl Fn(&Row) -> Option<f64>,
) -> Option<Exponent> {
    rate_in(rows, range, value).map(Exponent::from)
}

/// t_slip − t*: how long after the rigid slip's end (`t_slip_end_rigid`) a run's first slip
/// phase ends (`t_slip_end`).
pub(crate) fn slip_end_offset(r: &Row) -> Option<f64> {
    Some(r.number("t_slip_end")? - r.number("t_slip_end_rigid")?)
}

/// The mode a run ends in: the last of its `mode_sequence` (`a>b>c` → `c`).
pub(crate) fn last_mode(r: &Row) -> &str {
    r.text("mode_sequence").rsplit('>').next().unwrap_or("")
}

/// A fitted exponent as analysis.json holds it: the slope, its 95 % half-width, the points.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Exponent {
    pub slope: f64,
    pub slope_ci95: f64,
    pub n: usize,
}

impl From<LinearFit> for Exponent {
    fn from(f: LinearFit) -> Self {
        Exponent {
            slope: f.slope,
            slope_ci95: f.slope_ci95,
            n: f.n,
        }
    }
}

/// An exponent in a summary: `slope ± ci (n κ)`, or — when none was fitted.
pub(crate) fn exponent_text(e: &Option<Exponent>) -> String {
    e.as_ref().map_or("—".to_string(), |e| {
        format!("{:.3} ± {:.3} ({} κ)", e.slope, e.slope_ci95, e.n)
    })
}

/// The compliant rows that ran (`status = ok`, `method = compliant`) with dashpot `damping`,
/// κ ascending: one compliant law's ladder.
pub(crate) fn law_rows(rows: &[Row], damping: f64) -> Vec<&Row> {
    let mut own: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("status") == "ok" && r.text("method") == "compliant")
        .filter(|r| r.number("damping") == Some(damping))
        .collect();
    own.sort_by(|a, b| {
        a.number("kappa")
            .partial_cmp(&b.number("kappa"))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    own
}

/// The dashpots of a run's rows, ascending: one compliant law each.
pub(crate) fn dampings(rows: &[&Row]) -> Vec<f64> {
    let mut dampings: Vec<f64> = rows.iter().filter_map(|r| r.number("damping")).collect();
    dampings.sort_by(f64::total_cmp);
    dampings.dedup();
    dampings
}

/// What one compliant law's ladder did with a slip: how many runs, how many stopped it (their
/// mode sequence starts with `stopped_prefix`, e.g. `slide_left>stick`), how many ended open,
/// and the distinct mode sequences.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SlipTally {
    /// Compliant runs that ran.
    pub runs: usize,
    pub slip_stopped: usize,
    pub slip_not_stopped: usize,
    /// Runs that end with the contact open.
    pub separated: usize,
    /// The distinct mode sequences.
    pub sequences: Vec<String>,
}

impl SlipTally {
    pub fn of(own: &[&Row], stopped_prefix: &str) -> SlipTally {
        let stopped = own
            .iter()
            .filter(|r| r.text("mode_sequence").starts_with(stopped_prefix))
            .count();
        let mut sequences: Vec<String> = own
            .iter()
            .map(|r| r.text("mode_sequence").to_string())
            .collect();
        sequences.sort();
        sequences.dedup();
        SlipTally {
            runs: own.len(),
            slip_stopped: stopped,
            slip_not_stopped: own.len() - stopped,
            separated: own.iter().filter(|r| r.text("separated") == "true").count(),
            sequences,
        }
    }
}

/// The slip's end against κ, as the dynamic-jam studies draw it: per compliant law (its
/// damping), the peak normal force and the slip's end after the rigid t* on a log–log panel,
/// with guides κ^p of the predicted exponents (the force's dashed, the end's dotted) through
/// the first law's values at the smallest κ (`guides`: the force's, then the end's, each an
/// exponent and its label).
pub(crate) fn slip_end_panel(
    title: &str,
    rows: &[Row],
    dampings: &[f64],
    guides: [(f64, &str); 2],
) -> Panel {
    let mut panel = Panel {
        title: title.into(),
        x_label: "compliance κ".into(),
        y_label: "peak normal force;  end of the slip − t*".into(),
        log_x: true,
        log_y: true,
        legend_lower: true,
        series: Vec::new(),
        bands: Vec::new(),
    };
    let laws: Vec<Vec<&Row>> = dampings.iter().map(|&d| law_rows(rows, d)).collect();
    for (i, (&damping, own)) in dampings.iter().zip(&laws).enumerate() {
        let points = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
            own.iter()
                .filter_map(|r| Some((r.number("kappa")?, f(r)?)))
                .filter(|(_, v)| *v > 0.0)
                .collect()
        };
        panel.series.push(Series::new(
            format!("peak normal force, damping c_d = {damping}"),
            points(&|r| r.number("peak_normal_force")),
            Mark::LineMarkers,
            2 * i,
        ));
        panel.series.push(Series::new(
            format!("end of the slip − t*, damping c_d = {damping}"),
            points(&slip_end_offset),
            Mark::LineMarkers,
            2 * i + 1,
        ));
    }
    if let Some((smallest, largest)) = laws
        .first()
        .and_then(|own| Some((own.first()?, own.last()?)))
    {
        let k0 = smallest.number("kappa").unwrap_or(f64::NAN);
        let kmax = largest.number("kappa").unwrap_or(f64::NAN);
        let [(force_p, force_label), (end_p, end_label)] = guides;
        // The force's guide dashed, the end's dotted: the legend tells them apart.
        for (value, p, label, mark) in [
            (
                smallest.number("peak_normal_force"),
                force_p,
                force_label,
                Mark::Dashed,
            ),
            (slip_end_offset(smallest), end_p, end_label, Mark::Dotted),
        ] {
            if let Some(v) = value.filter(|v| *v > 0.0) {
                panel.series.push(Series {
                    mark,
                    ..power_guide(label, (k0, v), kmax, p)
                });
            }
        }
    }
    panel
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 95 % interval a rate line prints after "± ".
    fn printed_interval(line: &str) -> f64 {
        line.split("± ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no interval in {line}"))
    }

    /// A ladder of d = κ^(1/2)·(1 ± 1 %), the sign alternating: the fit finds 1/2 within its
    /// interval, and the rate line says so only of a prediction the interval leaves out.
    #[test]
    fn a_rate_line_says_when_the_interval_excludes_the_prediction() {
        let kappa: Vec<f64> = (0..9).map(|i| 10f64.powf(-8.0 + 0.5 * i as f64)).collect();
        let d: Vec<f64> = kappa
            .iter()
            .enumerate()
            .map(|(i, k)| k.sqrt() * if i % 2 == 0 { 1.01 } else { 0.99 })
            .collect();
        let f = power_law(&kappa, &d).unwrap();
        assert!((f.slope - 0.5).abs() < f.slope_ci95, "{f:?}");
        assert!(!excludes(&f, 0.5) && excludes(&f, 0.6));
        let kept = rate_against_prediction(&f, Some(0.5));
        assert!(kept.ends_with("; predicted exponent 0.5"), "{kept}");
        let left_out = rate_against_prediction(&f, Some(0.6));
        assert!(
            left_out.ends_with(", which the 95 % interval excludes"),
            "{left_out}"
        );
        // The interval's first digit is printed: ± 0.00…, never ± 0.0000.
        let interval = printed_interval(&kept);
        assert!(
            interval > 0.0 && (interval - f.slope_ci95).abs() <= 0.5 * interval,
            "{kept}"
        );
    }

    /// A distance that does not depend on κ, scattered by 1e-12 of itself, fits a slope of
    /// about 1e-13 whose interval lies far below the eighth decimal: the line still shows its
    /// first digit.
    #[test]
    fn an_interval_below_the_eighth_decimal_keeps_its_first_digit() {
        let kappa: Vec<f64> = (0..9).map(|i| 10f64.powf(-8.0 + 0.5 * i as f64)).collect();
        let d: Vec<f64> = (0..9)
            .map(|i| 1e-9 * if i % 2 == 0 { 1.0 + 1e-12 } else { 1.0 - 1e-12 })
            .collect();
        let f = power_law(&kappa, &d).unwrap();
        assert!(f.slope_ci95 > 0.0 && f.slope_ci95 < 1e-10, "{f:?}");
        let line = rate_against_prediction(&f, Some(0.0));
        let interval = printed_interval(&line);
        assert!((interval - f.slope_ci95).abs() <= 0.5 * interval, "{line}");
        assert!(line.starts_with("κ^0.00000000 ± "), "{line}");
    }
}
