//! The sections of a Klarbring summary that only this particle has, after the generic
//! convergence report (`Klarbring::report_sections`; the distances' rates and convergence.png
//! are the study's, from `Klarbring::quantities`): the rigid event sequence, the quasi-static
//! rate problem at its slip onsets, each compliant run's event kinds, the energy inequality, the
//! event-time differences scaled by κ and √κ, and the figures paths.png and event_times.png.
//! From the rows (runs.csv) and the sampled paths (paths.csv, written after the run); no solver
//! here.

use super::params::Params;
use super::params::Particle;
use super::quasistatic::{at_slip_onsets, QuasiStaticRate};
use crate::analysis::fit::power_law;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::markdown::{each_number, fixed, small};
use crate::report::rates::in_fit_range;
use crate::report::table::number_at;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

fn io(dir: &Path) -> impl Fn(String) -> RunError + '_ {
    move |e| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(e),
    }
}

fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect()
}

/// The compliant rows of `integrator` that ran, by κ.
fn compliant<'a>(rows: &'a [Row], integrator: &str) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.text("method") == "compliant" && r.text("integrator") == integrator)
        .filter(|r| r.text("status") == "ok")
        .collect()
}

/// |Δt_i| of each rigid-like event of each row (by κ), when the kinds match the rigid row's.
fn event_differences(rows: &[&Row]) -> Vec<(f64, Vec<f64>)> {
    rows.iter()
        .filter_map(|r| {
            let d = numbers(r.text("event_time_differences"));
            (!d.is_empty()).then(|| (r.number("kappa").unwrap_or(f64::NAN), d))
        })
        .collect()
}

/// Whether the rows' rigid run (the first that ran) has no impact: its whole run is then a
/// contact phase, whose distances vanish at rate 1 rather than an impact's 1/2.
pub(crate) fn rigid_run_without_impact(rows: &[Row]) -> bool {
    rows.iter()
        .find(|r| r.text("method") == "rigid" && r.text("status") == "ok")
        .is_some_and(|r| !r.text("event_kinds").contains("impact"))
}

/// The particle and its load, as a summary states them, each symbol named.
pub fn parameters(p: &Params) -> String {
    format!(
        "Stiffness K = {:?}, load F(t) = {:?} + {:?} cos(ω t) + {:?} sin(ω t) with ω = {:?}, \
         friction coefficient μ = {}, restitution e = {} (of the rigid impacts), dashpot c_d = {} \
         (of the compliant contact), initial displacement U0 = {:?} and velocity V0 = {:?} \
         (normal component first), end time T = {}",
        p.stiffness,
        p.force_constant,
        p.force_cos.clone().unwrap_or_default(),
        p.force_sin.clone().unwrap_or_default(),
        p.force_frequency.clone().unwrap_or_default(),
        p.mu,
        p.restitution,
        p.damping,
        p.u0,
        p.v0,
        p.t_end,
    )
}

/// The Klarbring sections of summary.md (the numbers are in them and in runs.csv), with
/// paths.png and event_times.png and, for the planar particle, analysis.json: the quasi-static
/// rate problem at the rigid run's slip onsets.
pub fn sections(
    p: &Params,
    integrators: &[IntegratorKind],
    rows: &[Row],
    dir: &Path,
) -> Result<String, RunError> {
    let mut s = String::new();
    // A rigid-only file has no distances to explain.
    let distances = if rows.iter().any(|r| r.text("method") != "rigid") {
        "In the distances above U and V are the compliant run's displacement and velocity, U⁰ \
         and V⁰ the rigid run's (κ = 0), and the rigid lift-off is the rigid run's first (T \
         when there is none). "
    } else {
        ""
    };
    let _ = writeln!(s, "{distances}Derivations in docs/klarbring.md.\n");
    if !dir.join("paths.csv").exists() {
        let _ = writeln!(
            s,
            "No path figure: neither a run of the κ ladder nor the rigid reference reached T \
             (runs.csv's `error` column says why).\n"
        );
    }
    let rigid: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("method") == "rigid")
        .collect();
    if rigid_run_without_impact(rows) {
        let _ = writeln!(
            s,
            "The rigid run has no impact: the distances over the whole run are those of its \
             contact phase, so their predicted exponent is 1, as up to the lift-off (a motion \
             through an impact would have 1/2, the time O(√κ) the compliant impact takes).\n"
        );
    }
    let _ = writeln!(s, "## Rigid reference\n");
    for r in &rigid {
        if r.text("status") != "ok" {
            let _ = writeln!(s, "- {}: failed: {}", r.text("integrator"), r.text("error"));
            continue;
        }
        let _ = writeln!(
            s,
            "- {}: modes `{}`",
            r.text("integrator"),
            r.text("mode_sequence")
        );
        let kinds: Vec<&str> = r.text("event_kinds").split_whitespace().collect();
        let times = numbers(r.text("event_times"));
        let events: Vec<String> = kinds
            .iter()
            .zip(&times)
            .map(|(k, t)| format!("{k} {t:.10}"))
            .collect();
        let _ = writeln!(s, "  events: {}", events.join(", "));
        let _ = writeln!(
            s,
            "  U(T) = ({}), V(T) = ({})",
            each_number(r.text("U_end"), |v| fixed(v, 12)),
            each_number(r.text("V_end"), |v| fixed(v, 12))
        );
    }
    let quasi_static = quasi_static_section(&mut s, p, &rigid);
    for kind in integrators {
        let rows_k = compliant(rows, kind.name());
        if rows_k.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n## Events of the compliant runs ({kind})\n");
        let _ = writeln!(
            s,
            "| κ | same event kinds as the rigid run | max |Δt| / κ, contact events and first impact |"
        );
        let _ = writeln!(s, "|---|---|---|");
        let rigid_kinds = rigid
            .iter()
            .find(|r| r.text("integrator") == kind.name())
            .map(|r| r.text("event_kinds").to_string())
            .unwrap_or_default();
        let contact = contact_event_count(&rigid_kinds);
        for r in rows
            .iter()
            .filter(|r| r.text("method") == "compliant" && r.text("integrator") == kind.name())
        {
            if r.text("status") != "ok" {
                let _ = writeln!(s, "| {} | failed: {} | |", r.text("kappa"), r.text("error"));
                continue;
            }
            let kappa = r.number("kappa").unwrap_or(f64::NAN);
            let dt = numbers(r.text("event_time_differences"));
            let worst = dt.iter().take(contact).map(|d| d.abs()).fold(0.0, f64::max);
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                small(kappa),
                if r.text("event_kinds") == rigid_kinds {
                    "yes"
                } else {
                    "no"
                },
                if dt.is_empty() {
                    "–".to_string()
                } else {
                    format!("{:.3}", worst / kappa)
                }
            );
        }
        energy_section(&mut s, &rows_k);
        event_time_section(&mut s, &rows_k, &rigid_kinds);
    }
    if let Some(q) = quasi_static {
        crate::report::write_analysis(dir, &q)?;
    }
    let written = figures(p, integrators, rows, dir).map_err(io(dir))?;
    for (stem, what) in written {
        let _ = writeln!(s, "\n![{what}]({stem}.png)");
    }
    Ok(s)
}

/// Klarbring's quasi-static counterexample at the experiment's data (planar particle).
#[derive(Serialize)]
struct QuasiStatic {
    /// The rate problem at each stick → slip onset of the first rigid run.
    onsets: Vec<QuasiStaticRate>,
    /// The fewest and most rate solutions over the onsets.
    min_solutions: usize,
    max_solutions: usize,
}

/// The quasi-static rate problem at the rigid run's slip onsets (planar particle only), with
/// its summary lines.
fn quasi_static_section(s: &mut String, p: &Params, rigid: &[&Row]) -> Option<QuasiStatic> {
    let Ok(Particle::Planar(particle)) = p.particle() else {
        return None;
    };
    let r = rigid.iter().find(|r| r.text("status") == "ok")?;
    let modes: Vec<&str> = r.text("mode_sequence").split_whitespace().collect();
    let kinds: Vec<&str> = r.text("event_kinds").split_whitespace().collect();
    let onsets = at_slip_onsets(
        &particle,
        p.mu,
        &modes,
        &kinds,
        &numbers(r.text("event_times")),
    );
    let counts = onsets.iter().map(|o| o.solutions);
    let q = QuasiStatic {
        min_solutions: counts.clone().min()?,
        max_solutions: counts.max()?,
        onsets,
    };
    let _ = writeln!(
        s,
        "\n## The quasi-static problem at the slip onsets (Klarbring's example)\n\n\
         Without inertia (K U = F + R, Coulomb friction) the rate problem at a stick on the \
         cone's edge has one solution when the slip stiffness k_T − μσW > 0, and two \
         (loading L = σḞ_T − μḞ_N < 0) or none (L > 0) when μσW > k_T (Klarbring 1990, \
         Ballard–Basseville §2; docs/klarbring.md). At each stick → slip onset of the rigid run \
         ({}):\n\n| t | σ | k_T − μσW | L | stick | slip | solutions |\n|---|---|---|---|---|---|---|",
        r.text("integrator")
    );
    let yes = |b: bool| if b { "yes" } else { "no" };
    for o in &q.onsets {
        let _ = writeln!(
            s,
            "| {:.10} | {:+} | {:.4} | {:.6} | {} | {} | {} |",
            o.t,
            o.slip_direction,
            o.slip_stiffness,
            o.loading,
            yes(o.stick),
            yes(o.slip),
            o.solutions
        );
    }
    Some(q)
}

/// Ballard–Basseville's energy inequality (proof of Cor. 4.3) on the compliant runs.
fn energy_section(s: &mut String, rows: &[&Row]) {
    let slack: Vec<(f64, f64, f64)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                r.number("kappa")?,
                r.number("energy_slack")?,
                r.number("energy_balance_error")?,
            ))
        })
        .collect();
    if slack.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nBallard–Basseville's energy inequality (proof of Cor. 4.3): ½|U̇|²(T) + ½|U|²_K(T) ≤ \
         ½|V₀|² + ½|U₀|²_K + ∫₀ᵀ F·U̇. Its slack E(0) + ∫F·U̇ − E(T) is the energy the contact \
         took (friction and dashpot dissipation, and the spring's δ²/(2κ) at T less at 0), from a \
         twin of each compliant run that integrates the contact's and the load's work; the \
         balance error is that twin's (T + V)(T) − (T + V)(0) − works:\n\n\
         | κ | slack at T | balance error |\n|---|---|---|"
    );
    for (kappa, e, b) in &slack {
        let _ = writeln!(s, "| {} | {e:.9} | {b:.2e} |", small(*kappa));
    }
}

/// The number of rigid events up to and including the first impact: the contact-phase
/// events and the first impact, whose compliant times differ by O(κ).
pub(crate) fn contact_event_count(kinds: &str) -> usize {
    let k: Vec<&str> = kinds.split_whitespace().collect();
    k.iter()
        .position(|&e| e == "impact")
        .map_or(k.len(), |i| i + 1)
}

/// The scale of event `event`'s shift Δt at `kappa`, of a run whose first `contact` events are
/// the contact phase and the first impact (see [`contact_event_count`]): κ for those (their
/// rate is 1), √κ for the later impacts (each after an impact that takes a time O(√κ)).
fn shift_scale(event: usize, contact: usize, kappa: f64) -> f64 {
    if event < contact {
        kappa
    } else {
        kappa.sqrt()
    }
}

fn event_time_section(s: &mut String, rows: &[&Row], rigid_kinds: &str) {
    let kinds: Vec<&str> = rigid_kinds.split_whitespace().collect();
    let diffs = event_differences(rows);
    if diffs.is_empty() {
        return;
    }
    let contact = contact_event_count(rigid_kinds);
    let _ = writeln!(
        s,
        "\nEvent times, compliant − rigid: Δt/κ for the contact-phase events and the first \
         impact, Δt/√κ for the later impacts; the rate of |Δt| over the fit range:\n"
    );
    let mut header = "| event |".to_string();
    let mut line = "|---|".to_string();
    for (k, _) in &diffs {
        let _ = write!(header, " κ = {} |", small(*k));
        line.push_str("---|");
    }
    let _ = writeln!(s, "{header} rate of abs(Δt) |\n{line}---|");
    for (i, kind) in kinds.iter().enumerate() {
        let scaled = i >= contact;
        let mut row = format!(
            "| {} {} ({}) |",
            i + 1,
            kind,
            if scaled { "Δt/√κ" } else { "Δt/κ" }
        );
        let (mut kk, mut vv) = (Vec::new(), Vec::new());
        for (k, d) in &diffs {
            let v = d.get(i).copied().unwrap_or(f64::NAN);
            let _ = write!(row, " {:.4} |", v / shift_scale(i, contact, *k));
            if in_fit_range(*k) && v != 0.0 && v.is_finite() {
                kk.push(*k);
                vv.push(v.abs());
            }
        }
        match power_law(&kk, &vv) {
            Some(f) => {
                let _ = writeln!(s, "{row} {:.3} ± {:.3} |", f.slope, f.slope_ci95);
            }
            None => {
                let _ = writeln!(s, "{row} – |");
            }
        }
    }
}

/// Colours of the modes in the path figure.
fn mode_color(mode: &str) -> usize {
    match mode {
        "stick" => 2,
        "slide+" | "slide" => 1,
        "slide-" => 3,
        _ => 0,
    }
}

/// The paths of paths.csv: (method, κ) → samples (t, mode, U).
type Paths = Vec<(String, Vec<(f64, String, Vec<f64>)>)>;

fn read_paths(dir: &Path) -> Paths {
    let Ok(Some(table)) = crate::report::table::read_text(&dir.join("paths.csv")) else {
        return Vec::new();
    };
    let Ok([run, t, mode]) = table.columns(["run", "t", "mode"]) else {
        return Vec::new();
    };
    // U0, U1, … follow the mode.
    let velocity = mode + 1..table.header.len();
    let mut out: Paths = Vec::new();
    for f in &table.rows {
        let (Some(key), Some(mode)) = (f.get(run), f.get(mode)) else {
            continue;
        };
        let t = number_at(f, t).unwrap_or(f64::NAN);
        let u: Vec<f64> = velocity.clone().filter_map(|i| number_at(f, i)).collect();
        let sample = (t, mode.clone(), u);
        match out.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => v.push(sample),
            None => out.push((key.clone(), vec![sample])),
        }
    }
    out
}

/// Split a path into runs of one mode, as line series.
fn mode_series(
    path: &[(f64, String, Vec<f64>)],
    xy: impl Fn(&(f64, String, Vec<f64>)) -> (f64, f64),
    mark: Mark,
    prefix: &str,
) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (i, p) in path.iter().enumerate() {
        let new_run = i == 0 || path[i - 1].1 != p.1;
        if new_run {
            let label = if seen.contains(&p.1) {
                String::new()
            } else {
                seen.push(p.1.clone());
                // The mode's sign as a true minus: slide− beside slide+.
                format!("{prefix}{}", p.1.replace('-', "−"))
            };
            let mut points = Vec::new();
            if i > 0 {
                points.push(xy(&path[i - 1]));
            }
            out.push(Series {
                label,
                points,
                mark,
                color: mode_color(&p.1),
            });
        }
        if let Some(last) = out.last_mut() {
            last.points.push(xy(p));
        }
    }
    out
}

/// paths.png (when paths.csv has a path) and event_times.png (the first integrator's compliant
/// runs): each written figure's stem and what it shows.
fn figures(
    p: &Params,
    integrators: &[IntegratorKind],
    rows: &[Row],
    dir: &Path,
) -> Result<Vec<(&'static str, &'static str)>, String> {
    let mut written = Vec::new();
    let paths = read_paths(dir);
    let three = p.dimension() == 3;
    if !paths.is_empty() {
        let mut panel = Panel {
            title: "Tangential path by mode (rigid: solid; compliant at the largest κ: dashed)"
                .into(),
            x_label: if three {
                "tangential displacement, first component".into()
            } else {
                "time t".into()
            },
            y_label: if three {
                "tangential displacement, second component".into()
            } else {
                "tangential displacement".into()
            },
            log_x: false,
            log_y: false,
            legend_lower: false,
            series: Vec::new(),
            bands: Vec::new(),
        };
        for (key, path) in &paths {
            let rigid = key.starts_with("rigid");
            let mark = if rigid { Mark::Line } else { Mark::Dashed };
            let prefix = if rigid { "rigid " } else { "compliant " };
            let xy = |p: &(f64, String, Vec<f64>)| {
                if three {
                    (p.2[1], p.2[2])
                } else {
                    (p.0, p.2[1])
                }
            };
            panel.series.extend(mode_series(path, xy, mark, prefix));
        }
        let mut normal = Panel {
            title: "Normal displacement".into(),
            x_label: "time t".into(),
            y_label: "normal displacement U_N".into(),
            log_x: false,
            log_y: false,
            legend_lower: true,
            series: Vec::new(),
            bands: Vec::new(),
        };
        for (key, path) in &paths {
            let rigid = key.starts_with("rigid");
            normal.series.push(Series {
                label: if rigid {
                    "rigid".into()
                } else {
                    match key
                        .strip_prefix("compliant_kappa_")
                        .and_then(|k| k.parse::<f64>().ok())
                    {
                        Some(kappa) => format!("compliant κ = {}", format_small_parameter(kappa)),
                        None => key.replace('_', " "),
                    }
                },
                points: path.iter().map(|p| (p.0, p.2[0])).collect(),
                mark: if rigid { Mark::Line } else { Mark::Dashed },
                color: if rigid { 0 } else { 1 },
            });
        }
        save_captioned(
            &Figure::side_by_side(panel, normal),
            "The tangential path by mode, rigid and compliant (left), and the normal displacement over time (right)",
            dir,
            "paths",
        )?;
        written.push((
            "paths",
            "The tangential path by mode and the normal displacement",
        ));
    }
    let Some(kind) = integrators.first() else {
        return Ok(written);
    };
    let rows_k = compliant(rows, kind.name());
    if rows_k.is_empty() {
        return Ok(written);
    }
    let rigid_kinds = rows
        .iter()
        .find(|r| r.text("method") == "rigid" && r.text("integrator") == kind.name())
        .map(|r| r.text("event_kinds").to_string())
        .unwrap_or_default();
    let kinds: Vec<&str> = rigid_kinds.split_whitespace().collect();
    let diffs = event_differences(&rows_k);
    // Each shift over its scale (as the summary's table): the shifts themselves, all ∝ κ or
    // √κ, lie on top of each other, their markers hiding one another's.
    let contact = contact_event_count(&rigid_kinds);
    let panel = |title: &str, y_label: &str| Panel {
        title: title.into(),
        x_label: "compliance κ".into(),
        y_label: y_label.into(),
        log_x: true,
        log_y: true,
        legend_lower: false,
        series: Vec::new(),
        bands: Vec::new(),
    };
    let impact = kinds.contains(&"impact");
    let early_events = if impact {
        "Contact-phase events and the first impact"
    } else {
        "Each event"
    };
    let mut early = panel(
        &format!("{early_events}: |Δt|/κ, compliant − rigid"),
        "|Δt|/κ",
    );
    let mut later = panel("Later impacts: |Δt|/√κ, compliant − rigid", "|Δt|/√κ");
    for (i, k) in kinds.iter().enumerate() {
        let pts: Vec<(f64, f64)> = diffs
            .iter()
            .filter_map(|(kappa, d)| {
                Some((*kappa, d.get(i)?.abs() / shift_scale(i, contact, *kappa)))
            })
            .filter(|p| p.1 > 0.0)
            .collect();
        // Seven colours (black is the 10 κ reference's); later events repeat them dashed.
        const COLOURS: [usize; 7] = [0, 1, 2, 3, 4, 5, 7];
        let panel = if i < contact { &mut early } else { &mut later };
        panel.series.push(Series {
            label: format!("{} {}", i + 1, k.replace("liftoff", "lift-off")),
            points: pts,
            mark: if i < COLOURS.len() {
                Mark::LineMarkers
            } else {
                Mark::DashDot
            },
            color: COLOURS[i % COLOURS.len()],
        });
    }
    let ks: Vec<f64> = diffs.iter().map(|d| d.0).collect();
    if let (Some(lo), Some(hi)) = (
        ks.iter().copied().reduce(f64::min),
        ks.iter().copied().reduce(f64::max),
    ) {
        early.series.push(Series::new(
            "|Δt| = 10 κ",
            vec![(lo, 10.0), (hi, 10.0)],
            Mark::Dashed,
            6,
        ));
    }
    let panels = [early, later]
        .into_iter()
        .filter(|p| p.series.iter().any(|s| !s.points.is_empty()))
        .collect();
    let figure = Figure::two_to_a_row(panels, (760, 600)).ok_or("no panel")?;
    let scales = if impact {
        "over κ (contact-phase events and the first impact) or √κ (later impacts)"
    } else {
        "over κ"
    };
    save_captioned(
        &figure,
        &format!(
            "How far each event of the compliant run ({kind}) lies from the rigid run's, \
             {scales}, against κ"
        ),
        dir,
        "event_times",
    )?;
    written.push(("event_times", "Each event time's shift against κ"));
    Ok(written)
}
