//! The κ-sweep figures of an experiment, from its rows and analysis.

use super::analysis::{IntegratorAnalysis, SweepAnalysis, ASYMPTOTIC_KAPPA_MAX};
use super::convergence::RodQuantity;
use crate::analysis::fit::LinearFit;
use crate::experiment::table::Row;
use crate::models::rod::bounds::{stick_lower, stick_upper, SlideBoundConstants};
use crate::plot::style::{format_number, format_small_parameter, format_value};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::table::number_at;
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

/// `per_decade` log-spaced κ from `lo` to `hi`.
fn dense(lo: f64, hi: f64, per_decade: usize) -> Vec<f64> {
    let n = ((hi / lo).log10() * per_decade as f64).ceil().max(1.0) as usize;
    (0..=n)
        .map(|j| lo * (hi / lo).powf(j as f64 / n as f64))
        .collect()
}

/// The caption line of a sweep's figures: what the figure shows, then the integrator and
/// tolerances, the κ ladder and the initial state.
pub(crate) fn sweep_caption(shows: &str, rows: &[Row], integrator: &str) -> String {
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("integrator") == integrator)
        .collect();
    let Some(r) = mine.first() else {
        return shows.to_string();
    };
    let num = |c: &str| r.number(c).map(format_value).unwrap_or_default();
    let small = |c: &str| r.number(c).map(format_small_parameter).unwrap_or_default();
    let kappas: Vec<f64> = mine.iter().filter_map(|r| r.number("kappa")).collect();
    let (lo, hi) = kappas
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &k| (a.min(k), b.max(k)));
    format!(
        "{shows}: {integrator}, rtol {}, atol {} · κ = {} … {} ({} values) · μ = {}, θ₀ = {}, θ̇₀ = {}, u₀ = {}, damping c_d = {}",
        small("rtol"),
        small("atol"),
        format_small_parameter(lo),
        format_small_parameter(hi),
        kappas.len(),
        num("mu"),
        num("theta0"),
        num("omega0"),
        num("u0"),
        num("damping")
    )
}

/// A fitted power law T = e^b κ^p (fit of ln T on ln κ) over the asymptotic range.
fn power_law_line(fit: &LinearFit, kappas: &[f64]) -> Vec<(f64, f64)> {
    kappas
        .iter()
        .filter(|&&k| k <= ASYMPTOTIC_KAPPA_MAX)
        .map(|&k| (k, fit.power_law_at(k)))
        .collect()
}

/// Eq. (33) on a dense κ grid, drawn from small κ while its log–log slope stays above 0.2 (its
/// trend is ½; past its maximum it plunges to 0, a vertical line that would hide the data), and
/// the smallest κ where it is ≤ 0 (vacuous).
fn slide_lower_curve(c: &SlideBoundConstants, lo: f64, hi: f64) -> (Vec<(f64, f64)>, Option<f64>) {
    let ks = dense(lo, hi, 20);
    let mut drawn = Vec::new();
    for w in ks.windows(2) {
        let (a, b) = (c.slide_lower(w[0]), c.slide_lower(w[1]));
        if drawn.is_empty() && a > 0.0 {
            drawn.push((w[0], a));
        }
        if a <= 0.0 || b <= 0.0 || (b / a).ln() / (w[1] / w[0]).ln() < 0.2 {
            break;
        }
        drawn.push((w[1], b));
    }
    let vacuous = ks.iter().copied().find(|&k| c.slide_lower(k) <= 0.0);
    (drawn, vacuous)
}

/// The sweep's figures in `dir` (SVG + PNG): those of the first integrator's rows
/// ([`write_sweep_figures`], [`write_convergence_figure`]; none without one), then the time
/// history ([`write_history_figure`]).
pub(crate) fn write_figures(rows: &[Row], a: &SweepAnalysis, dir: &Path) -> Result<(), String> {
    if let Some(first) = a.integrators.first() {
        write_sweep_figures(rows, a, first, dir)?;
        write_convergence_figure(rows, first, dir)?;
    }
    write_history_figure(dir)
}

/// Write durations, normalised_durations and post_impact figures of `first`'s rows into `dir`.
fn write_sweep_figures(
    rows: &[Row],
    a: &SweepAnalysis,
    first: &IntegratorAnalysis,
    dir: &Path,
) -> Result<(), String> {
    let integ = first.integrator.as_str();
    let kappas: Vec<f64> = column(rows, integ, |_| Some(0.0))
        .iter()
        .map(|p| p.0)
        .collect();
    if kappas.is_empty() {
        return Ok(());
    }
    let caption = |shows: &str| sweep_caption(shows, rows, integ);
    let (k_lo, k_hi) = (kappas[0], kappas[kappas.len() - 1]);
    let smooth = dense(k_lo, k_hi, 10);
    // (1) Phase durations, log–log: measured (a duration of 0 sits on the axis, hollow), the
    // fitted power laws, the stated bounds (lower dashed, upper dotted, in the phase's colour).
    let slope = |f: &Option<LinearFit>| {
        f.as_ref()
            .map(|f| format!(", fitted slope {:.3}", f.slope))
            .unwrap_or_default()
    };
    let mut s = vec![
        series(
            format!("slide{}", slope(&first.slide_exponent)),
            column(rows, integ, |r| r.number("t_slide")),
            Mark::Markers,
            0,
        ),
        series(
            format!("stick{}", slope(&first.stick_exponent)),
            column(rows, integ, |r| r.number("t_stick")),
            Mark::Markers,
            1,
        ),
        series(
            format!("reverse slip{}", slope(&first.reverse_slip_exponent)),
            column(rows, integ, |r| r.number("t_reverse_slip")),
            Mark::Markers,
            2,
        ),
    ];
    for (fit, color) in [
        (&first.slide_exponent, 0),
        (&first.stick_exponent, 1),
        (&first.reverse_slip_exponent, 2),
    ] {
        if let Some(f) = fit {
            s.push(series("", power_law_line(f, &smooth), Mark::Line, color));
        }
    }
    if [
        &first.slide_exponent,
        &first.stick_exponent,
        &first.reverse_slip_exponent,
    ]
    .iter()
    .any(|f| f.is_some())
    {
        s.push(series(
            format!(
                "power-law fits over κ ≤ {} (solid, phase colour)",
                format_small_parameter(ASYMPTOTIC_KAPPA_MAX)
            ),
            Vec::new(),
            Mark::Line,
            REFERENCE,
        ));
    }
    s.push(series(
        "stick lower bound π√κ/2 (eqs. 58/61)",
        curve(&smooth, stick_lower),
        Mark::Dashed,
        1,
    ));
    s.push(series(
        "stick upper bound π√κ (eqs. 58/61)",
        curve(&smooth, stick_upper),
        Mark::Dotted,
        1,
    ));
    if let Some(c) = &a.slide_bound_constants {
        let (lower, vacuous) = slide_lower_curve(c, k_lo, k_hi);
        let note = vacuous
            .map(|k| format!("; ≤ 0 (vacuous) for κ ≥ {}", format_small_parameter(k)))
            .unwrap_or_default();
        s.push(series(
            format!("slide lower bound (33){note}"),
            lower,
            Mark::Dashed,
            0,
        ));
        s.push(series(
            "slide upper bound (31)",
            curve(&smooth, |k| c.slide_upper(k)),
            Mark::Dotted,
            0,
        ));
    }
    let mut panel = kappa_panel(
        "phase durations",
        "duration T (nondimensional time)",
        true,
        true,
    );
    panel.series = s;
    let durations = Figure {
        panels: vec![panel],
        columns: 1,
        size: (1050, 760),
    };
    save_captioned(
        &durations,
        &caption("Phase durations against κ with their fitted power laws and the stated bounds"),
        dir,
        "durations",
    )?;

    // (2) Normalised durations: the slide against its two-term prediction (→ 1), stick and
    // reverse slip against their scaling (→ the predicted limits).
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
    let mut panels = Vec::new();
    if let Some(l) = &a.limit {
        // The two-term law is asymptotic: compared where it applies.
        const APPLIES: f64 = 1e-4;
        let mut slide = measured(
            &format!(
                "slide: measured / two-term prediction (κ ≤ {})",
                format_small_parameter(APPLIES)
            ),
            "slide duration / [√κ (ln(1/√κ) + c) / λ]",
            true,
            0,
            &|r| {
                let k = r.number("kappa").filter(|k| *k <= APPLIES)?;
                Some(r.number("t_slide")? / l.slide_duration(k))
            },
        );
        let small: Vec<f64> = smooth.iter().copied().filter(|k| *k <= APPLIES).collect();
        slide.series.push(series(
            "limit 1",
            curve(&small, |_| 1.0),
            Mark::Dashed,
            REFERENCE,
        ));
        panels.push(slide);
    } else {
        panels.push(measured(
            "slide",
            "slide duration / (√κ ln(1/√κ))",
            true,
            0,
            &|r| {
                let k = r.number("kappa")?;
                Some(r.number("t_slide")? / (k.sqrt() * (1.0 / k.sqrt()).ln()))
            },
        ));
    }
    panels.push(measured(
        "stick",
        "stick duration / √κ",
        false,
        1,
        &|r| Some(r.number("t_stick")? / r.number("kappa")?.sqrt()),
    ));
    panels.push(measured(
        "reverse slip",
        "reverse-slip duration / κ",
        true,
        2,
        &|r| Some(r.number("t_reverse_slip")? / r.number("kappa")?),
    ));
    if let Some(l) = &a.limit {
        panels[1].series.push(series(
            format!("limit {:.4}", l.stick_duration_scaled),
            curve(&smooth, |_| l.stick_duration_scaled),
            Mark::Dashed,
            REFERENCE,
        ));
        panels[2].series.push(series(
            format!("limit {:.4}", l.reverse_slip_duration_scaled),
            curve(&smooth, |_| l.reverse_slip_duration_scaled),
            Mark::Dashed,
            REFERENCE,
        ));
    }
    let normalised = Figure {
        panels,
        columns: 3,
        size: (1500, 540),
    };
    save_captioned(
        &normalised,
        &caption("Phase durations over their predicted orders in κ"),
        dir,
        "normalised_durations",
    )?;

    // (3) Post-impact state and its error against the limit, with the fitted error models.
    if let Some(l) = &a.limit {
        let state = |col: &'static str, title: &str, symbol: &str, lim: f64, color: usize| {
            let mut p = kappa_panel(title, symbol, false, false);
            p.series = vec![
                series(
                    "measured",
                    column(rows, integ, |r| r.number(col)),
                    Mark::Markers,
                    color,
                ),
                series(
                    "rigid limit",
                    curve(&smooth, |_| lim),
                    Mark::Dashed,
                    REFERENCE,
                ),
            ];
            p
        };
        let mut errors = kappa_panel(
            "relative error against the rigid limit",
            "|relative error|",
            true,
            true,
        );
        for (i, (q, lim)) in [
            (RodQuantity::VOut, l.v_out),
            (RodQuantity::OmegaOut, l.omega_out),
            (RodQuantity::ImpulseNormal, l.impulse_total),
        ]
        .into_iter()
        .enumerate()
        {
            let col = q.key();
            errors.series.push(series(
                q.axis_label(),
                column(rows, integ, |r| Some(((r.number(col)? - lim) / lim).abs())),
                Mark::Markers,
                i,
            ));
            let fit = first
                .convergence
                .iter()
                .find(|c| c.quantity == q)
                .and_then(|c| {
                    Some((
                        c.extrapolation.as_ref()?,
                        c.fitted_log_coefficient()?,
                        c.fitted_sqrt_coefficient()?,
                    ))
                });
            if let Some((e, b, c)) = fit {
                errors.series.push(series(
                    format!(
                        "fit √κ (b ln(1/κ) + c) + …: b = {}, c = {}",
                        format_number(b, 3),
                        format_number(c, 3)
                    ),
                    curve(&dense(k_lo, e.kappa_max, 10), |k| {
                        ((e.limit + e.correction(k) - lim) / lim).abs()
                    }),
                    Mark::Line,
                    i,
                ));
            }
        }
        let post = Figure {
            panels: vec![
                state("u_out", "post-impact slip velocity", "u", 0.0, 0),
                state("v_out", "post-impact normal velocity", "v", l.v_out, 1),
                state(
                    "omega_out",
                    "post-impact angular velocity",
                    "θ̇",
                    l.omega_out,
                    2,
                ),
                errors,
            ],
            columns: 2,
            size: (1400, 1050),
        };
        save_captioned(
            &post,
            &caption("The post-impact state against κ and its relative error to the rigid limit"),
            dir,
            "post_impact",
        )?;
    }
    Ok(())
}

/// convergence.png: for each post-impact quantity, |relative error| against κ on log–log axes
/// — measured, the fitted error model, the interval's half-width and the extrapolated limit's
/// own error against the closed form (relative to the extrapolated limit where there is none).
fn write_convergence_figure(
    rows: &[Row],
    first: &IntegratorAnalysis,
    dir: &Path,
) -> Result<(), String> {
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
        let model = dense(k_lo / 100.0, e.kappa_max, 40);
        let span = [k_lo / 100.0, k_hi];
        let title = match c.closed_form {
            Some(l) => format!(
                "{}: {:.10} ± {} (closed form {l:.10})",
                q.axis_label(),
                e.limit,
                format_value_1(e.half_width)
            ),
            None => format!(
                "{}: {:.10} ± {}",
                q.axis_label(),
                e.limit,
                format_value_1(e.half_width)
            ),
        };
        let mut p = kappa_panel(
            &title,
            &format!("|relative error of {}|", q.axis_label()),
            true,
            true,
        );
        p.series = vec![
            series(
                "measured (outside the fit window)",
                outside,
                Mark::Markers,
                REFERENCE,
            ),
            series(
                format!("measured (fit window, {} points)", e.points),
                inside,
                Mark::Markers,
                i,
            ),
            series(
                format!("fitted {}", e.formula),
                curve(&model, |k| rel(e.limit + e.correction(k))),
                Mark::Line,
                i,
            ),
            series(
                "95 % half-width of the extrapolated limit",
                span.iter()
                    .map(|&k| (k, e.half_width / reference.abs()))
                    .collect(),
                Mark::Dashed,
                REFERENCE,
            ),
        ];
        if c.closed_form.is_some() {
            p.series.push(series(
                "|extrapolated − closed form|",
                span.iter().map(|&k| (k, rel(e.limit))).collect(),
                Mark::Dotted,
                REFERENCE,
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
        size: (1500, 1200),
    };
    save_captioned(
        &fig,
        &sweep_caption(
            "Each quantity's error against κ with its κ → 0 extrapolation",
            rows,
            integ,
        ),
        dir,
        "convergence",
    )
}

/// A value with two significant digits: 0.036, 3.2×10⁻⁴.
fn format_value_1(v: f64) -> String {
    if v != 0.0 && (1e-3..1e4).contains(&v.abs()) {
        let decimals = (1.0 - v.abs().log10().floor()).max(0.0) as usize;
        format!("{v:.decimals$}")
    } else {
        format_number(v, 1)
    }
}

/// Figure (4): one impact's time history from `dir/history.csv`, phases shaded.
fn write_history_figure(dir: &Path) -> Result<(), String> {
    let Ok(Some(table)) =
        crate::report::table::read_text(&dir.join(crate::experiment::runner::HISTORY_CSV))
    else {
        return Ok(());
    };
    struct Sample {
        t: f64,
        mode: String,
        values: [f64; 4],
    }
    let [k, t, mode, delta, force, u, omega] = table.columns(super::history::HISTORY_COLUMNS)?;
    let mut kappa = f64::NAN;
    let samples: Vec<Sample> = table
        .rows
        .iter()
        .filter_map(|c| {
            let n = |i: usize| number_at(c, i);
            kappa = n(k)?;
            let sk = kappa.sqrt();
            Some(Sample {
                t: n(t)? / sk,
                mode: c.get(mode)?.clone(),
                values: [n(delta)? / sk, n(force)? * sk, n(u)?, n(omega)?],
            })
        })
        .collect();
    if samples.is_empty() {
        return Ok(());
    }
    // Phase intervals: consecutive samples of one mode.
    const PHASES: [(&str, &str, usize); 3] = [
        ("slide_left", "slide (u < 0)", 0),
        ("stick", "stick (u = 0)", 1),
        ("slide_right", "reverse slip (u > 0)", 2),
    ];
    let color_of = |m: &str| PHASES.iter().find(|p| p.0 == m).map_or(REFERENCE, |p| p.2);
    let mut bands: Vec<(f64, f64, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=samples.len() {
        if i == samples.len() || samples[i].mode != samples[start].mode {
            let end = samples[i.min(samples.len() - 1)].t;
            bands.push((samples[start].t, end, color_of(&samples[start].mode)));
            start = i;
        }
    }
    // A legend swatch for each phase that has a visible band.
    let t_span = samples[samples.len() - 1].t - samples[0].t;
    let swatches: Vec<Series> = PHASES
        .iter()
        .filter(|p| {
            bands
                .iter()
                .any(|b| b.2 == p.2 && b.1 - b.0 > 2e-3 * t_span)
        })
        .map(|p| series(p.1, Vec::new(), Mark::Swatch, p.2))
        .collect();
    let names = [
        ("penetration", "δ / √κ"),
        ("normal force", "√κ F_n"),
        ("slip velocity", "u"),
        ("angular velocity", "θ̇"),
    ];
    let panels = names
        .iter()
        .enumerate()
        .map(|(j, (title, symbol))| {
            let mut s = swatches.clone();
            s.push(series(
                "",
                samples.iter().map(|x| (x.t, x.values[j])).collect(),
                Mark::Line,
                REFERENCE,
            ));
            Panel {
                title: title.to_string(),
                x_label: "t / √κ".into(),
                y_label: symbol.to_string(),
                log_x: false,
                log_y: false,
                legend_lower: j == 2,
                series: s,
                bands: bands.clone(),
            }
        })
        .collect();
    let fig = Figure {
        panels,
        columns: 2,
        size: (1300, 950),
    };
    let caption = format!(
        "Penetration, normal force, slip and angular velocity through one impact at κ = {}, \
         shaded by phase: t and δ divided by √κ, F_n multiplied by √κ",
        format_small_parameter(kappa)
    );
    save_captioned(&fig, &caption, dir, "history")
}
