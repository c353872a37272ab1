//! The atlas heatmaps over (θ0, μ): one panel per (θ̇0, c_d), the curves A = 0 drawn, the states
//! where a published bound fails in a map of their own (atlas_bounds).

use crate::models::rod::atlas::{AtlasAnalysis, StateAnalysis, STANDARD_SEQUENCE};
use crate::plot::heatmap::{save_heatmap_captioned, Cell, ColorScale, HeatMap, HeatPanel};
use crate::plot::style::{format_small_parameter, format_value};
use std::path::Path;

/// Half the spacing to the nearest neighbour along one axis, per value (grids are regular in
/// μ and, at each μ, in θ0).
fn half_spacing(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::MAX, f64::min)
        .min(1.0)
        / 2.0
}

fn panels(a: &AtlasAnalysis, value: &dyn Fn(&StateAnalysis) -> Option<f64>) -> Vec<HeatPanel> {
    let groups = a.groups();
    let mus: Vec<f64> = a.per_state.iter().map(|s| s.impact.mu).collect();
    let half_h = half_spacing(&mus);
    groups
        .iter()
        .map(|&(w, c)| {
            let states: Vec<&StateAnalysis> = a
                .per_state
                .iter()
                .filter(|s| s.impact.omega0 == w && s.impact.damping == c)
                .collect();
            // Cell width: the θ0 spacing of the state's own μ row (θ0 cells differ per μ).
            let mut rows: Vec<(f64, Vec<f64>)> = Vec::new();
            for st in &states {
                match rows.iter_mut().find(|(mu, _)| *mu == st.impact.mu) {
                    Some((_, thetas)) => thetas.push(st.impact.theta0),
                    None => rows.push((st.impact.mu, vec![st.impact.theta0])),
                }
            }
            let half_w: Vec<(f64, f64)> = rows
                .iter()
                .map(|(mu, thetas)| (*mu, half_spacing(thetas)))
                .collect();
            let cells = states
                .iter()
                .map(|s| Cell {
                    x: s.impact.theta0,
                    y: s.impact.mu,
                    half_w: half_w
                        .iter()
                        .find(|(mu, _)| *mu == s.impact.mu)
                        .map_or(0.0, |r| r.1),
                    half_h,
                    value: value(s),
                })
                .collect();
            HeatPanel {
                title: format!(
                    "θ̇₀ = {}, damping c_d = {}",
                    format_value(w),
                    format_value(c)
                ),
                cells,
                curves: a.a_zero_curves.to_vec(),
                curve_label: "A = 0 (eq. 18)".into(),
                // Colours are not hatched over: atlas_bounds shows where bounds fail.
                marks: Vec::new(),
                mark_label: String::new(),
            }
        })
        .collect()
}

fn map(
    a: &AtlasAnalysis,
    scale: ColorScale,
    value: &dyn Fn(&StateAnalysis) -> Option<f64>,
) -> HeatMap {
    HeatMap {
        panels: panels(a, value),
        columns: 2,
        x_label: "initial angle θ₀".into(),
        y_label: "friction coefficient μ".into(),
        scale,
        size: (1300, 1000),
    }
}

fn continuous(label: &str) -> ColorScale {
    ColorScale::Continuous {
        label: label.into(),
    }
}

fn log_continuous(label: &str) -> ColorScale {
    ColorScale::LogContinuous {
        label: label.into(),
    }
}

/// Write the atlas heatmaps (SVG + PNG) into `dir`.
pub(crate) fn write_atlas_figures(a: &AtlasAnalysis, dir: &Path) -> Result<(), String> {
    if a.per_state.is_empty() {
        return Ok(());
    }
    let kappas = |k: &[f64]| -> String {
        let lo = k.iter().copied().fold(f64::MAX, f64::min);
        let hi = k.iter().copied().fold(f64::MIN, f64::max);
        format!(
            "κ = {} … {} ({} values)",
            format_small_parameter(lo),
            format_small_parameter(hi),
            k.len()
        )
    };
    // Each caption says what its map shows, then the runs behind every map.
    let runs = format!(
        "{} · {} · {} initial states (u₀ < 0, A < 0, B < 0); grey: no value",
        a.integrator,
        kappas(&a.kappas),
        a.states
    );
    let save_heatmap = |m: &HeatMap, shows: &str, dir: &Path, stem: &str| {
        save_heatmap_captioned(m, &format!("{shows}: {runs}"), dir, stem)
    };
    // The legend names the categories that occur, in this order.
    let category = |s: &StateAnalysis| {
        if s.failed > 0 {
            2
        } else if a.sequence_of(s) == STANDARD_SEQUENCE {
            0
        } else {
            1
        }
    };
    let names = [
        "slide → stick → reverse slip",
        "another sequence",
        "failed runs",
    ];
    let present: Vec<usize> = (0..names.len())
        .filter(|&c| a.per_state.iter().any(|s| category(s) == c))
        .collect();
    let sequence = map(
        a,
        ColorScale::Categories {
            names: present.iter().map(|&c| names[c].to_string()).collect(),
        },
        &|s| Some(present.iter().position(|&c| c == category(s))? as f64),
    );
    save_heatmap(
        &sequence,
        "The sequence of phases of each initial state",
        dir,
        "atlas_sequence",
    )?;
    let stick = map(
        a,
        continuous("stick duration/√κ extrapolated to κ → 0"),
        &|s| Some(s.stick_scaled?.interval()?.0),
    );
    save_heatmap(
        &stick,
        "The stick duration/√κ of each initial state extrapolated to κ → 0",
        dir,
        "atlas_stick_limit",
    )?;
    let slide = map(
        a,
        continuous("slide log-coefficient a·λ (fitted / predicted)"),
        &|s| Some(s.slide_log_coefficient()? * s.limit()?.slide_rate),
    );
    save_heatmap(
        &slide,
        "The fitted over the predicted slide log-coefficient of each initial state",
        dir,
        "atlas_slide_coefficient",
    )?;
    // An error of exactly 0 has no place on the log scale: drawn as "no value" (grey).
    let v_err = map(
        a,
        log_continuous("|relative error of post-impact v| at the smallest κ"),
        &|s| s.err_v_out().map(f64::abs),
    );
    save_heatmap(
        &v_err,
        "The relative error to the rigid limit of each initial state's post-impact v at the smallest κ",
        dir,
        "atlas_v_out_error",
    )?;
    let stick_err = map(
        a,
        log_continuous("|relative error of stick duration/√κ| at the smallest κ"),
        &|s| s.err_stick_scaled().map(f64::abs),
    );
    save_heatmap(
        &stick_err,
        "The relative error to the rigid limit of each initial state's stick duration/√κ at the smallest κ",
        dir,
        "atlas_stick_error",
    )?;
    // Which bounds fail (at some κ), as categories ordered by how many states they cover.
    let failing = |s: &StateAnalysis| -> String {
        let names: Vec<&str> = s
            .bounds()
            .filter(|(_, b)| !b.holds_at_every_kappa)
            .map(|(name, _)| name)
            .collect();
        let verdict = if names.is_empty() {
            "every bound holds".to_string()
        } else {
            format!("fails: {}", names.join(" + "))
        };
        if s.bounds().any(|(name, _)| name.starts_with("slide")) {
            verdict
        } else {
            format!("{verdict} (no slide bounds: B ≥ 0)")
        }
    };
    let mut counts: Vec<(String, usize)> = Vec::new();
    for s in &a.per_state {
        let f = failing(s);
        match counts.iter_mut().find(|(n, _)| *n == f) {
            Some((_, k)) => *k += 1,
            None => counts.push((f, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let names: Vec<String> = counts.into_iter().map(|(n, _)| n).collect();
    let bounds = map(
        a,
        ColorScale::Categories {
            names: names.clone(),
        },
        &|s| {
            let f = failing(s);
            names.iter().position(|n| *n == f).map(|i| i as f64)
        },
    );
    save_heatmap(
        &bounds,
        "Which stated phase-duration bounds fail at some κ, per initial state",
        dir,
        "atlas_bounds",
    )
}
