//! The κ-sweep figures of an experiment, from its rows and analysis.

use super::analysis::SweepAnalysis;
use super::convergence::RodQuantity;
use crate::experiment::table::Row;
use crate::models::rod::bounds::{stick_lower, stick_upper, SlideBoundConstants};
use crate::plot::{save, Figure, Mark, Panel, Series};
use std::path::Path;

/// (κ, value) of a column for one integrator's successful rows, κ ascending.
fn column(rows: &[Row], integrator: &str, f: impl Fn(&Row) -> Option<f64>) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.text("integrator") == integrator && r.text("status") == "ok")
        .filter_map(|r| Some((r.number("kappa")?, f(r)?)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

fn series(label: impl Into<String>, points: Vec<(f64, f64)>, mark: Mark, color: usize) -> Series {
    Series {
        label: label.into(),
        points,
        mark,
        color,
    }
}

/// An empty panel against κ (log axis).
pub(crate) fn kappa_panel(title: &str, y_label: &str, log_y: bool, legend_lower: bool) -> Panel {
    Panel {
        title: title.into(),
        x_label: "compliance κ".into(),
        y_label: y_label.into(),
        log_x: true,
        log_y,
        legend_lower,
        series: Vec::new(),
        bands: Vec::new(),
    }
}

fn curve(kappas: &[f64], f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    kappas.iter().map(|&k| (k, f(k))).collect()
}

/// Write durations, normalised_durations and post_impact figures (SVG + PNG) into `dir`.
pub fn write_sweep_figures(rows: &[Row], a: &SweepAnalysis, dir: &Path) -> Result<(), String> {
    let Some(first) = a.integrators.first() else {
        return Ok(());
    };
    let integ = first.integrator.as_str();
    let kappas: Vec<f64> = column(rows, integ, |_| Some(0.0))
        .iter()
        .map(|p| p.0)
        .collect();
    if kappas.is_empty() {
        return Ok(());
    }
    let num = |c: &'static str| move |r: &Row| r.number(c).filter(|v| *v > 0.0);
    // (1) Phase durations, log–log, with the stated stick bounds and reference slopes.
    let k_ref = kappas[kappas.len() / 2];
    let t_ref = |col: &'static str| {
        column(rows, integ, num(col))
            .iter()
            .min_by(|a, b| {
                (a.0 / k_ref)
                    .ln()
                    .abs()
                    .total_cmp(&(b.0 / k_ref).ln().abs())
            })
            .map(|p| p.1)
            .unwrap_or(1.0)
    };
    let (stick_ref, rev_ref) = (t_ref("t_stick"), t_ref("t_reverse_slip"));
    // A bound curve where it is not vacuous (> 0); empty without constants.
    let slide_bound = |f: fn(&SlideBoundConstants, f64) -> f64| -> Vec<(f64, f64)> {
        a.slide_bound_constants
            .as_ref()
            .map(|c| curve(&kappas, |k| f(c, k)))
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.1 > 0.0)
            .collect()
    };
    let durations = Figure {
        panels: vec![Panel {
            series: vec![
                series(
                    "T_slide",
                    column(rows, integ, num("t_slide")),
                    Mark::Markers,
                    0,
                ),
                series(
                    "T_stick",
                    column(rows, integ, num("t_stick")),
                    Mark::Markers,
                    1,
                ),
                series(
                    "T_reverse slip",
                    column(rows, integ, num("t_reverse_slip")),
                    Mark::Markers,
                    2,
                ),
                series(
                    "π√κ and π/2·√κ (stick bounds, eqs. 58/61)",
                    curve(&kappas, stick_upper),
                    Mark::Dashed,
                    1,
                ),
                series("", curve(&kappas, stick_lower), Mark::Dashed, 1),
                series(
                    "Zhao–Liu slide bounds (33) and (31)",
                    slide_bound(|c, k| c.slide_lower(k)),
                    Mark::Dashed,
                    0,
                ),
                series("", slide_bound(|c, k| c.slide_upper(k)), Mark::Dashed, 0),
                series(
                    "slope 1/2",
                    curve(&kappas, |k| 0.3 * stick_ref * (k / k_ref).sqrt()),
                    Mark::Line,
                    6,
                ),
                series(
                    "slope 1",
                    curve(&kappas, |k| 0.3 * rev_ref * k / k_ref),
                    Mark::Line,
                    5,
                ),
            ],
            ..kappa_panel(
                &format!("{}: phase durations ({integ})", a.experiment),
                "duration (nondimensional time)",
                true,
                false,
            )
        }],
        columns: 1,
        size: (1000, 700),
    };
    save(&durations, dir, "durations")?;

    // (2) Normalised durations with the predicted limits.
    let measured = |title: &str,
                    y_label: &str,
                    legend_lower: bool,
                    color: usize,
                    f: &dyn Fn(&Row) -> Option<f64>| {
        let mut p = kappa_panel(title, y_label, false, legend_lower);
        p.series.push(series(
            "measured",
            column(rows, integ, f),
            Mark::Markers,
            color,
        ));
        p
    };
    let mut panels = vec![
        measured("slide", "T_slide / (√κ ln(1/√κ))", true, 0, &|r| {
            let k = r.number("kappa")?;
            Some(r.number("t_slide")? / (k.sqrt() * (1.0 / k.sqrt()).ln()))
        }),
        measured("stick", "T_stick / √κ", false, 1, &|r| {
            Some(r.number("t_stick")? / r.number("kappa")?.sqrt())
        }),
        measured("reverse slip", "T_reverse / κ", true, 2, &|r| {
            Some(r.number("t_reverse_slip")? / r.number("kappa")?)
        }),
    ];
    if let Some(l) = &a.limit {
        // The two-term law is asymptotic: drawn where it applies (κ ≤ 1e-4).
        let small: Vec<f64> = kappas.iter().copied().filter(|&k| k <= 1e-4).collect();
        panels[0].series.push(series(
            "two-term prediction √κ(ln(1/√κ) + c)/λ",
            curve(&small, |k| {
                l.slide_duration(k) / (k.sqrt() * (1.0 / k.sqrt()).ln())
            }),
            Mark::Line,
            6,
        ));
        panels[0].series.push(series(
            "limit 1/λ",
            curve(&kappas, |_| 1.0 / l.slide_rate),
            Mark::Dashed,
            6,
        ));
        panels[1].series.push(series(
            "limit",
            curve(&kappas, |_| l.stick_duration_scaled),
            Mark::Dashed,
            6,
        ));
        panels[2].series.push(series(
            "limit",
            curve(&kappas, |_| l.reverse_slip_duration_scaled),
            Mark::Dashed,
            6,
        ));
    }
    let normalised = Figure {
        panels,
        columns: 3,
        size: (1500, 520),
    };
    save(&normalised, dir, "normalised_durations")?;

    // (3) Post-impact state and its error against the limit.
    if let Some(l) = &a.limit {
        let state = |col: &'static str, label: &str, lim: f64, color: usize| {
            let mut p = kappa_panel(&format!("post-impact {label}"), label, false, false);
            p.series = vec![
                series(
                    "measured",
                    column(rows, integ, |r| r.number(col)),
                    Mark::Markers,
                    color,
                ),
                series("rigid limit", curve(&kappas, |_| lim), Mark::Dashed, 6),
            ];
            p
        };
        let mut errors = kappa_panel(
            "relative error vs the rigid limit",
            "|relative error|",
            true,
            false,
        );
        for (i, (col, name, lim)) in [
            ("v_out", "v_out", l.v_out),
            ("omega_out", "θ̇_out", l.omega_out),
            ("impulse_normal", "normal impulse", l.impulse_total),
        ]
        .into_iter()
        .enumerate()
        {
            let fitted = first
                .convergence
                .iter()
                .find(|c| c.quantity.key() == col)
                .and_then(|c| Some((c.fitted_log_coefficient()?, c.fitted_sqrt_coefficient()?)))
                .map(|(b, c)| format!(" (√κ (b L + c): b = {b:.3}, c = {c:.3})"))
                .unwrap_or_default();
            errors.series.push(series(
                format!("{name}{fitted}"),
                column(rows, integ, |r| Some(((r.number(col)? - lim) / lim).abs())),
                Mark::Markers,
                i,
            ));
        }
        let post = Figure {
            panels: vec![
                state("u_out", "u (tangential)", 0.0, 0),
                state("v_out", "v (normal, away)", l.v_out, 1),
                state("omega_out", "θ̇", l.omega_out, 2),
                errors,
            ],
            columns: 2,
            size: (1300, 1000),
        };
        save(&post, dir, "post_impact")?;
    }
    Ok(())
}

/// convergence.png: for each post-impact quantity, |relative error| against κ on log–log axes
/// — measured, the fitted error model, the interval's half-width and the extrapolated limit's
/// own error against the closed form (relative to the extrapolated limit where there is none).
pub fn write_convergence_figure(rows: &[Row], a: &SweepAnalysis, dir: &Path) -> Result<(), String> {
    let Some(first) = a.integrators.first() else {
        return Ok(());
    };
    let integ = first.integrator.as_str();
    let mut panels = Vec::new();
    for (i, q) in RodQuantity::POST_IMPACT.iter().enumerate() {
        let Some(c) = first.convergence.iter().find(|c| c.quantity == *q) else {
            continue;
        };
        let Some(e) = &c.extrapolation else {
            continue;
        };
        let reference = c.closed_form.unwrap_or(e.limit);
        let rel = |v: f64| ((v - reference) / reference).abs();
        let measured = column(rows, integ, |r| q.measured(r));
        let errors = measured.iter().map(|&(k, v)| (k, rel(v)));
        let inside: Vec<(f64, f64)> = errors.clone().filter(|p| p.0 <= e.kappa_max).collect();
        let outside: Vec<(f64, f64)> = errors.filter(|p| p.0 > e.kappa_max).collect();
        let kappas: Vec<f64> = measured.iter().map(|p| p.0).collect();
        let (k_lo, k_hi) = (kappas[0], kappas[kappas.len() - 1]);
        // The model from a hundredth of the smallest κ (where it flattens onto the extrapolated
        // limit's own error) up to the top of its window.
        let dense: Vec<f64> = (0..=200)
            .map(|j| (k_lo / 100.0) * (e.kappa_max / (k_lo / 100.0)).powf(f64::from(j) / 200.0))
            .collect();
        let span = [k_lo / 100.0, k_hi];
        let title = match c.closed_form {
            Some(l) => format!(
                "{}: {:.10} ± {:.1e} (closed form {l:.10})",
                q.symbol(),
                e.limit,
                e.half_width
            ),
            None => format!("{}: {:.10} ± {:.1e}", q.symbol(), e.limit, e.half_width),
        };
        let mut p = kappa_panel(
            &title,
            &format!("|relative error of {}|", q.symbol()),
            true,
            false,
        );
        p.series = vec![
            series(
                "measured (outside the fit window)",
                outside,
                Mark::Markers,
                6,
            ),
            series(
                format!("measured (fit window, {} points)", e.points),
                inside,
                Mark::Markers,
                i,
            ),
            series(
                format!("fitted {}", e.formula),
                curve(&dense, |k| rel(e.limit + e.correction(k))),
                Mark::Line,
                i,
            ),
            series(
                "95 % half-width of the extrapolated limit",
                span.iter()
                    .map(|&k| (k, e.half_width / reference.abs()))
                    .collect(),
                Mark::Dashed,
                5,
            ),
        ];
        if c.closed_form.is_some() {
            p.series.push(series(
                "|extrapolated − closed form|",
                span.iter().map(|&k| (k, rel(e.limit))).collect(),
                Mark::Line,
                6,
            ));
        }
        panels.push(p);
    }
    if panels.is_empty() {
        return Ok(());
    }
    let fig = Figure {
        panels,
        columns: 2,
        size: (1500, 1150),
    };
    save(&fig, dir, "convergence")
}

/// Figure (4): one impact's time history from `dir/history.csv`, phases shaded.
pub fn write_history_figure(dir: &Path) -> Result<(), String> {
    let Ok(text) = std::fs::read_to_string(dir.join(crate::experiment::runner::HISTORY_CSV)) else {
        return Ok(());
    };
    struct Sample {
        t: f64,
        mode: String,
        values: [f64; 4],
    }
    let mut kappa = f64::NAN;
    let samples: Vec<Sample> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            if c.len() != 7 {
                return None;
            }
            let n = |i: usize| c[i].parse::<f64>().ok();
            kappa = n(0)?;
            let sk = kappa.sqrt();
            Some(Sample {
                t: n(1)? / sk,
                mode: c[2].to_string(),
                values: [n(3)? / sk, n(4)? * sk, n(5)?, n(6)?],
            })
        })
        .collect();
    if samples.is_empty() {
        return Ok(());
    }
    // Phase intervals: consecutive samples of one mode.
    let mut bands: Vec<(f64, f64, usize)> = Vec::new();
    let color_of = |m: &str| match m {
        "slide_left" => 0,
        "stick" => 1,
        "slide_right" => 2,
        _ => 6,
    };
    let mut start = 0;
    for i in 1..=samples.len() {
        if i == samples.len() || samples[i].mode != samples[start].mode {
            let end = samples[(i).min(samples.len() - 1)].t;
            bands.push((samples[start].t, end, color_of(&samples[start].mode)));
            start = i;
        }
    }
    let names = [
        "penetration δ/√κ",
        "normal force √κ F_n",
        "slip velocity u",
        "angular velocity θ̇",
    ];
    let panels = names
        .iter()
        .enumerate()
        .map(|(j, name)| Panel {
            title: name.to_string(),
            x_label: "t / √κ".into(),
            y_label: name.to_string(),
            log_x: false,
            log_y: false,
            legend_lower: j == 2,
            series: vec![series(
                if j == 0 {
                    "shaded: slide left (blue), stick (orange), slide right (green)".to_string()
                } else {
                    String::new()
                },
                samples.iter().map(|s| (s.t, s.values[j])).collect(),
                Mark::Line,
                6,
            )],
            bands: bands.clone(),
        })
        .collect();
    let fig = Figure {
        panels,
        columns: 2,
        size: (1300, 900),
    };
    let _ = kappa;
    save(&fig, dir, "history")
}
