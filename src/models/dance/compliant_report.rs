//! The compliant part of the Dance sections (docs/dance.md, "Compliant runs"), from runs.csv
//! and compliant_velocity.csv only: the distances' κ → 0 constants against the normal-transient
//! predictions, the slide from the static penetration, the stop and stick of μ = 1, c_d = 1 in
//! t/√κ, and compliant_velocity.png. The distances' rates are the generic report's
//! (`Dance::reported_quantities`). No solver here.

use super::compliant::{predicted_constants, NormalTransient};
use super::Params;
use crate::analysis::fit::power_law;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::rates::{in_fit_range, FIT_RANGE};
use crate::report::table::{column, read_numbers};
use std::fmt::Write;
use std::path::Path;

/// v^κ and the rigid v near t = 0 (written by the run stage).
pub(crate) const VELOCITY_CSV: &str = "compliant_velocity.csv";

/// The velocity figure starts here: below, v^κ ≈ t and the rigid t³/6 (μ = 1) only stretch
/// the axis.
const FIGURE_FROM: f64 = 1e-6;

/// The integrator of the compliant rows, and their tolerances (the first row's cells).
fn settings(integrator: Option<IntegratorKind>, rows: &[&Row]) -> String {
    let tolerance = |key| {
        rows.first()
            .and_then(|r| r.number(key))
            .map_or_else(|| "?".to_string(), format_small_parameter)
    };
    format!(
        "{}, rtol {}, atol {}",
        integrator.map_or("?", |i| i.name()),
        tolerance("rtol"),
        tolerance("atol")
    )
}

/// One compliant case: (μ, start, c_d) as written in runs.csv.
type Case = (String, String, String);

fn cases(rows: &[&Row]) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for r in rows {
        let c = (
            r.text("mu").to_string(),
            r.text("start").to_string(),
            r.text("damping").to_string(),
        );
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn of_case<'a>(rows: &[&'a Row], c: &Case) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.text("mu") == c.0 && r.text("start") == c.1 && r.text("damping") == c.2)
        .filter(|r| r.text("status") == "ok")
        .copied()
        .collect()
}

fn number(r: &Row, column: &str) -> f64 {
    r.number(column).unwrap_or(f64::NAN)
}

/// The row of the smallest κ.
fn smallest<'a>(rows: &[&'a Row]) -> Option<&'a Row> {
    rows.iter()
        .copied()
        .min_by(|a, b| number(a, "kappa").total_cmp(&number(b, "kappa")))
}

/// The scaled times t/√κ of the events of `kind` of a row.
fn scaled_events(r: &Row, kind: &str) -> Vec<f64> {
    let k = number(r, "kappa").sqrt();
    r.text("event_times")
        .split_whitespace()
        .zip(r.text("event_kinds").split_whitespace())
        .filter(|(_, name)| *name == kind)
        .filter_map(|(t, _)| t.parse::<f64>().ok().map(|t| t / k))
        .collect()
}

/// The compliant section of summary.md.
pub(crate) fn write_section(
    s: &mut String,
    p: &Params,
    integrator: Option<IntegratorKind>,
    rows: &[&Row],
) {
    let _ = writeln!(
        s,
        "\n## Compliant runs: the normal transient\n\nThe particle on the penalty plane \
         F_n = δ/κ + c_d δ̇/√κ (δ the penetration, c_d the normal damping; spatial Coulomb \
         formulation, Dance's load (−1, 1, t) through the sign map U_N = −u^n; docs/dance.md, \
         \"Compliant runs\"), {}, to t = {}. In the distances above, u and v are the \
         particle's displacement and velocity, compliant or rigid (the rigid motion: the series \
         below t₀, the rigid numerics above), compared on [0, 2] over the samples of \
         runs.csv's `n_samples` (log-spaced from 1e-9, a uniform grid of 4000 and 50 per unit \
         of t/√κ across the normal transient). Their constants at the smallest κ against the normal transient's closed forms \
         (D13)–(D14); modes and the largest normal force F_n of that run.\n",
        settings(integrator, rows),
        p.t_end
    );
    let _ = writeln!(
        s,
        "| μ | start | c_d | runs | sup‖Δu‖/κ | sup‖Δu‖/√κ | sup‖Δv‖/√κ | predicted \
         sup‖Δv‖/√κ | predicted sup‖Δu‖/κ | modes | max F_n |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for c in cases(rows) {
        let rc = of_case(rows, &c);
        let failed = rows
            .iter()
            .filter(|r| r.text("mu") == c.0 && r.text("start") == c.1 && r.text("damping") == c.2)
            .count()
            - rc.len();
        let Some(last) = smallest(&rc) else {
            let _ = writeln!(
                s,
                "| {} | {} | {} | 0 ({failed} failed) | | | | | | | |",
                c.0, c.1, c.2
            );
            continue;
        };
        let k = number(last, "kappa");
        let prediction = match (c.1.as_str(), c.0.parse::<f64>(), c.2.parse::<f64>()) {
            ("rest", Ok(mu), Ok(d)) => predicted_constants(mu, d),
            _ => None,
        };
        let opt = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.5}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}{} | {:.5} | {:.5} | {:.5} | {} | {} | {} | {:.6} |",
            c.0,
            c.1,
            c.2,
            rc.len(),
            if failed > 0 {
                format!(" ({failed} failed)")
            } else {
                String::new()
            },
            number(last, "d_u_sup") / k,
            number(last, "d_u_sup") / k.sqrt(),
            number(last, "d_v_sup") / k.sqrt(),
            opt(prediction.map(|p| p.0)),
            opt(prediction.and_then(|p| p.1)),
            last.text("mode_sequence"),
            number(last, "normal_force_max"),
        );
    }
    let _ = writeln!(
        s,
        "\n— : no prediction. The constants are derived for starts from rest (docs/dance.md (D13)–(D17)); sup‖Δu‖/κ has none where the slip stops and sticks (μ = 1, c_d < 2), for sup‖Δu‖ then falls only as √κ."
    );
    // From the static penetration: the rigid motion itself.
    let eq: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("start") == "equilibrium" && r.text("status") == "ok")
        .copied()
        .collect();
    if !eq.is_empty() {
        let max = |col: &str| eq.iter().map(|r| number(r, col)).fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "\nFrom δ = κ (c_d = 0), over all {} runs: sup‖Δu‖ ≤ {:.3e}, sup‖Δv‖ ≤ {:.3e}, \
             sup|F_n − 1| ≤ {:.1e}. The normal force stays exactly 1 (the normal equation \
             δ'' = 1 − δ/κ has the equilibrium δ = κ, and the tangential motion does not enter it: \
             (D18)), so the compliant slide is the rigid one; the whole difference is the slip \
             seed 1e-9 that starts a slide from rest under a pressed contact (tests/it/dance_compliant.rs \
             reproduces it with the rigid slide from the seeded velocity).",
            eq.len(),
            max("d_u_sup"),
            max("d_v_sup"),
            max("normal_force_deviation"),
        );
    }
    write_stop_table(s, rows);
    let _ = writeln!(
        s,
        "\n![v₁ of the compliant runs from rest near t = 0 against the rigid v₁ \
         (compliant_velocity.csv)](compliant_velocity.png)"
    );
}

/// μ = 1, c_d = 1 from rest: the stop and the end of the stick in t/√κ against (D15)–(D16).
fn write_stop_table(s: &mut String, rows: &[&Row]) {
    let c: Case = ("1".into(), "rest".into(), "1".into());
    let rc = of_case(rows, &c);
    let Some(n) = NormalTransient::new(1.0) else {
        return;
    };
    let (Some(stop), Some(end)) = (n.stop(), n.stick_end()) else {
        return;
    };
    if rc.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n### μ = 1, c_d = 1: one stop and one stick\n\nPredicted from the normal transient \
         alone (D15)–(D16): stop at t/√κ = π/ω = {stop:.9}, stick until t/√κ = (π + atan2(ω, ζ))/ω \
         = {end:.9} (ζ = 1/2, ω = √3/2); after it the slip keeps the velocity e^(−ζ s₁)√κ = \
         {:.6}√κ (D17), so sup‖Δu‖ grows like √κ (rate .5).\n",
        n.residual_velocity().unwrap_or(f64::NAN)
    );
    let _ = writeln!(
        s,
        "| κ | modes | stop t/√κ | − prediction | stick end t/√κ | − prediction |\n|---|---|---|---|---|---|"
    );
    let mut fit: (Vec<f64>, Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new(), Vec::new());
    for r in &rc {
        let (stops, slips) = (scaled_events(r, "stop"), scaled_events(r, "slip"));
        let k = number(r, "kappa");
        let (ds, de) = match (stops.as_slice(), slips.as_slice()) {
            ([a], [b]) => (a - stop, b - end),
            _ => (f64::NAN, f64::NAN),
        };
        let show = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.9}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(
            s,
            "| {k:.2e} | {} | {} | {ds:+.3e} | {} | {de:+.3e} |",
            r.text("mode_sequence"),
            show(&stops),
            show(&slips)
        );
        if ds.is_finite() && in_fit_range(k) {
            fit.0.push(k);
            fit.1.push(ds.abs());
            fit.2.push(de.abs());
        }
    }
    let show_fit = |y: &[f64]| match power_law(&fit.0, y) {
        Some(f) => format!(
            "rate {:.4} ± {:.4}, constant {:.2}",
            f.slope,
            f.slope_ci95,
            f.intercept.exp()
        ),
        None => "too few runs".to_string(),
    };
    let _ = writeln!(
        s,
        "\nOver κ ∈ [{:e}, {:e}]: |Δ(t_stop/√κ)| {}; |Δ(t_stick end/√κ)| {} (fits of c κ^p). \
         The corrections are O(κ) in t/√κ: the tangential force (1, t) = (1, √κ s) tilts by \
         O(√κ) and its size 1 + κs²/2 enters the cone condition at O(κ).",
        FIT_RANGE.0,
        FIT_RANGE.1,
        show_fit(&fit.1),
        show_fit(&fit.2)
    );
}

/// compliant_velocity.png.
pub(crate) fn write_figures(
    integrator: Option<IntegratorKind>,
    rows: &[&Row],
    dir: &Path,
) -> Result<(), String> {
    let caption = format!(
        "{} · F_n = δ/κ + c_d δ̇/√κ, c_d the normal damping",
        settings(integrator, rows)
    );
    // Velocity near t = 0.
    let (h, table) = read_numbers(&dir.join(VELOCITY_CSV)).map_err(|e| e.to_string())?;
    let (mu_c, d_c, k_c, t_c, v_c, r_c) = (
        column(&h, "mu"),
        column(&h, "damping"),
        column(&h, "kappa"),
        column(&h, "t"),
        column(&h, "v1"),
        column(&h, "rigid_v1"),
    );
    let mut keys: Vec<(f64, f64)> = Vec::new();
    for r in &table {
        if !keys.contains(&(r[mu_c], r[d_c])) {
            keys.push((r[mu_c], r[d_c]));
        }
    }
    let mut panels = Vec::new();
    for (mu, d) in keys {
        let mut kappas: Vec<f64> = Vec::new();
        for r in table.iter().filter(|r| r[mu_c] == mu && r[d_c] == d) {
            if !kappas.contains(&r[k_c]) {
                kappas.push(r[k_c]);
            }
        }
        let mut series: Vec<Series> = kappas
            .iter()
            .enumerate()
            .map(|(i, &k)| Series {
                label: format!("κ = {}", format_small_parameter(k)),
                points: table
                    .iter()
                    .filter(|r| r[mu_c] == mu && r[d_c] == d && r[k_c] == k)
                    .filter(|r| r[t_c] >= FIGURE_FROM)
                    .map(|r| (r[t_c], r[v_c]))
                    .collect(),
                mark: Mark::Line,
                color: i,
            })
            .collect();
        if let Some(&k) = kappas.last() {
            series.push(Series {
                label: "rigid".to_string(),
                points: table
                    .iter()
                    .filter(|r| r[mu_c] == mu && r[d_c] == d && r[k_c] == k)
                    .filter(|r| r[t_c] >= FIGURE_FROM)
                    .map(|r| (r[t_c], r[r_c]))
                    .collect(),
                mark: Mark::Dashed,
                color: crate::plot::REFERENCE,
            });
        }
        panels.push(Panel {
            title: format!(
                "compliant vs rigid v₁: μ = {mu}, from rest on the plane, normal damping {d}"
            ),
            x_label: "t".to_string(),
            y_label: "v₁ (along (1, 0))".to_string(),
            log_x: true,
            log_y: true,
            legend_lower: false,
            series,
            bands: Vec::new(),
        });
    }
    save_captioned(
        &Figure {
            panels,
            columns: 2,
            size: (1400, 1100),
        },
        &format!("The compliant velocity near t = 0 against the rigid one: {caption}"),
        dir,
        "compliant_velocity",
    )
}
