//! The atlas outputs: summary.md, points.csv (one row per initial state), analysis.json.

use super::atlas::{
    AtlasAnalysis, ExtrapolatedLimit, StateAnalysis, StateBound, REVERSE_RESOLVED,
    STANDARD_SEQUENCE,
};
use super::sweep::RodExperiment;
use crate::cells;
use crate::experiment::runner::RunError;
use crate::report::markdown::provenance;
use crate::report::table::{write_csv, Cell};
use std::fmt::Write;

pub(crate) const POINTS_CSV: &str = "points.csv";

/// A bound's name as a CSV column prefix: "slide lower (33)" → "slide_lower_33".
fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('_') {
            s.push('_');
        }
    }
    s.trim_matches('_').to_string()
}

fn extrapolated(c: &Option<ExtrapolatedLimit>) -> Option<f64> {
    Some(c.as_ref()?.interval()?.0)
}

fn half_width(c: &Option<ExtrapolatedLimit>) -> Option<f64> {
    Some(c.as_ref()?.interval()?.1)
}

/// points.csv: one row per initial state, written a row at a time. The bound columns are those
/// of every bound checked at some state, in the order first met; a state where a bound does not
/// apply has them empty.
pub(crate) fn write_points_csv(a: &AtlasAnalysis, path: &std::path::Path) -> Result<(), RunError> {
    let mut columns: Vec<String> = [
        "mu",
        "mu_s",
        "theta0",
        "theta_fraction",
        "omega0",
        "u0",
        "damping",
        "A0",
        "B0",
        "runs",
        "failed",
        "sequence",
        "limit_stick_scaled",
        "stick_scaled_extrapolated",
        "stick_scaled_half_width",
        "err_stick_scaled",
        "limit_slide_coefficient",
        "slide_log_coefficient",
        "limit_reverse_scaled",
        "err_reverse_scaled",
        "reverse_rounding",
        "limit_v_out",
        "v_out_extrapolated",
        "v_out_half_width",
        "err_v_out",
        "limit_omega_out",
        "err_omega_out",
    ]
    .map(String::from)
    .to_vec();
    let bounds = bound_names(a);
    for b in &bounds {
        let p = slug(b);
        columns.extend([
            format!("{p}_holds"),
            format!("{p}_worst_ratio"),
            format!("{p}_hypotheses_fail"),
        ]);
    }
    let rows = a.per_state.iter().map(|s| {
        let i = &s.impact;
        let l = s.limit();
        let l = l.as_ref();
        let (a0, b0) = s.a0_b0();
        let mut row = cells![
            i.mu,
            i.mu_s,
            i.theta0,
            s.theta_fraction(),
            i.omega0,
            i.u0,
            i.damping,
            a0,
            b0,
            s.runs,
            s.failed,
            a.sequence_of(s).replace(',', ";"),
            l.map(|l| l.stick_duration_scaled),
            extrapolated(&s.stick_scaled),
            half_width(&s.stick_scaled),
            s.err_stick_scaled(),
            l.map(|l| 1.0 / l.slide_rate),
            s.slide_log_coefficient(),
            l.map(|l| l.reverse_slip_duration_scaled),
            s.err_reverse_scaled(),
            s.reverse_rounding(),
            l.map(|l| l.v_out),
            extrapolated(&s.v_out),
            half_width(&s.v_out),
            s.err_v_out(),
            l.map(|l| l.omega_out),
            s.err_omega_out(),
        ]
        .to_vec();
        for name in &bounds {
            match s.bound(name) {
                Some(b) => row.extend(cells![
                    b.holds_at_every_kappa,
                    b.worst().map(|w| w.3),
                    b.hypotheses_fail
                ]),
                None => row.extend([Cell::Empty, Cell::Empty, Cell::Empty]),
            }
        }
        row
    });
    write_csv(path, &columns, rows)
}

fn range_of(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

fn distinct(values: impl Iterator<Item = f64>, fmt: fn(f64) -> String) -> String {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.into_iter().map(fmt).collect::<Vec<_>>().join(", ")
}

fn plain(v: f64) -> String {
    format!("{v}")
}

fn sci(v: f64) -> String {
    format!("{v:e}")
}

/// The names of every bound checked at some state, in the order first met.
fn bound_names(a: &AtlasAnalysis) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for (name, _) in a.per_state.iter().flat_map(StateAnalysis::bounds) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Describe the states where a bound fails: ranges of μ, θ0 and its position in the eq. (18)
/// interval, the θ̇0 and c_d values, the κ of the worst violations.
fn failure_region(states: &[&StateAnalysis], bound: &str) -> String {
    let (mu_lo, mu_hi) = range_of(states.iter().map(|s| s.impact.mu)).unwrap_or_default();
    let (th_lo, th_hi) = range_of(states.iter().map(|s| s.impact.theta0)).unwrap_or_default();
    let (fr_lo, fr_hi) = range_of(states.iter().map(|s| s.theta_fraction())).unwrap_or_default();
    format!(
        "μ ∈ [{mu_lo:.3}, {mu_hi:.3}], θ0 ∈ [{th_lo:.4}, {th_hi:.4}] (position in the eq. (18) interval {fr_lo:.3} … {fr_hi:.3}), θ̇0 ∈ {{{}}}, c_d ∈ {{{}}}, worst at κ ∈ {{{}}}",
        distinct(states.iter().map(|s| s.impact.omega0), plain),
        distinct(states.iter().map(|s| s.impact.damping), plain),
        distinct(
            states
                .iter()
                .filter_map(|s| s.bound(bound)?.worst().map(|w| w.0)),
            sci
        )
    )
}

fn max_abs(
    states: &[&StateAnalysis],
    f: impl Fn(&StateAnalysis) -> Option<f64>,
) -> Option<(f64, usize)> {
    states
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((f(s)?.abs(), i)))
        .filter(|(v, _)| v.is_finite())
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

fn median_abs(states: &[&StateAnalysis], f: impl Fn(&StateAnalysis) -> Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = states
        .iter()
        .filter_map(|s| f(s).map(f64::abs))
        .filter(|v| v.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// summary.md of an atlas.
pub(crate) fn render_atlas_summary(
    spec: &RodExperiment,
    a: &AtlasAnalysis,
    n_rows: usize,
    run_time_s: Option<f64>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}: atlas of the Painlevé region\n", a.experiment);
    let _ = writeln!(
        s,
        "{} from `runs.csv` ({n_rows} rows); per-state results in `{POINTS_CSV}`. \
         Integrator {}, rtol {:e}, atol {:e}; κ ∈ {{{}}} at every state.{}\n",
        provenance(&spec.name),
        a.integrator,
        spec.solver.rtol,
        spec.solver.atol,
        a.kappas
            .iter()
            .map(|k| format!("{k:e}"))
            .collect::<Vec<_>>()
            .join(", "),
        run_time_s
            .map(|t| format!(" The simulations took {t:.1} s (meta.json)."))
            .unwrap_or_default()
    );
    let _ = writeln!(s, "## Counts\n");
    let _ = writeln!(
        s,
        "- initial states in the grid: {} ({} run, {} skipped as outside `sweep.case` = {})",
        a.states + a.skipped,
        a.states,
        a.skipped,
        spec.sweep
            .case
            .map_or("(none)".to_string(), |c| format!("{c:?}").to_lowercase())
    );
    let _ = writeln!(s, "- runs: {} ({} failed)", a.runs, a.failed_runs);
    let failed: Vec<&StateAnalysis> = a.per_state.iter().filter(|s| s.failed > 0).collect();
    for f in failed.iter().take(10) {
        let _ = writeln!(
            s,
            "  - failed runs at μ = {}, θ0 = {}, θ̇0 = {}, c_d = {}: {} of {}",
            f.impact.mu, f.impact.theta0, f.impact.omega0, f.impact.damping, f.failed, f.runs
        );
    }
    let _ = writeln!(s, "\n## Phase sequences (runs end at lift-off)\n");
    let _ = writeln!(s, "| sequence at every κ | states | share |\n|---|---|---|");
    for (seq, n) in &a.sequences {
        let _ = writeln!(
            s,
            "| {} | {n} | {:.2} % |",
            if seq.is_empty() {
                "(all runs failed)"
            } else {
                seq
            },
            100.0 * *n as f64 / a.states.max(1) as f64
        );
    }
    let standard = a.sequences.get(STANDARD_SEQUENCE).copied().unwrap_or(0);
    let _ = writeln!(
        s,
        "\n{} of {} states run slide → stick → reverse slip → lift-off at every κ of the ladder.\n",
        standard, a.states
    );

    let groups = a.groups();
    let _ = writeln!(s, "## Rigid limit\n");
    let _ = writeln!(
        s,
        "Relative error of each measured quantity to its rigid-limit prediction (src/models/rod/limit.rs) at κ = {:e}: largest |error| (at μ, θ0) and median over the states; \
         T_stick/√κ and v_out extrapolated to κ → 0 over the ladder (`analysis::extrapolate`, docs/extrapolation.md; the run tolerance taken as the values' \
         relative accuracy) against the prediction; the slide's log coefficient a, fitted with the next order (T = √κ (a x + b) + κ (c x² + d x + e), x = ln(1/√κ); docs/extrapolation.md eq. (2.7a)), against 1/λ. The extrapolations' coverage follows the table.\n",
        a.kappas.iter().copied().fold(f64::MAX, f64::min)
    );
    let _ = writeln!(s, "| θ̇0 | c_d | quantity | max abs rel. error | at (μ, θ0) | median |\n|---|---|---|---|---|---|");
    type Quantity = (&'static str, fn(&StateAnalysis) -> Option<f64>);
    let quantities: [Quantity; 7] = [
        ("T_stick/√κ", |s| s.err_stick_scaled()),
        ("T_rev/κ (resolved states)", |s| {
            s.err_reverse_scaled().filter(|_| s.reverse_resolved())
        }),
        ("v_out", |s| s.err_v_out()),
        ("θ̇_out", |s| s.err_omega_out()),
        ("extrapolated lim T_stick/√κ", |s| {
            s.stick_scaled?.error()
        }),
        ("extrapolated lim v_out", |s| s.v_out?.error()),
        ("slide coefficient a·λ − 1", |s| {
            Some(s.slide_log_coefficient()? * s.limit()?.slide_rate - 1.0)
        }),
    ];
    for &(w, c) in &groups {
        let states: Vec<&StateAnalysis> = a
            .per_state
            .iter()
            .filter(|s| s.impact.omega0 == w && s.impact.damping == c)
            .collect();
        for (name, f) in &quantities {
            let (max, at) = match max_abs(&states, f) {
                Some((v, i)) => (
                    format!("{v:.3e}"),
                    format!(
                        "({:.3}, {:.4})",
                        states[i].impact.mu, states[i].impact.theta0
                    ),
                ),
                None => ("—".into(), "—".into()),
            };
            let med = median_abs(&states, f).map_or("—".into(), |v| format!("{v:.3e}"));
            let _ = writeln!(s, "| {w} | {c} | {name} | {max} | {at} | {med} |");
        }
    }
    let unresolved: Vec<&StateAnalysis> = a
        .per_state
        .iter()
        .filter(|s| s.reverse_rounding().is_some() && !s.reverse_resolved())
        .collect();
    let _ = write!(
        s,
        "\n— : no state of the group has the value (every extrapolation of it refused).\n\nT_rev/κ is compared only where the reverse slip is resolved: its predicted rounding ε·T_stick/T_rev at the smallest κ \
         (`RigidLimit::reverse_slip_rounding`, docs/tolerances.md \"Resolution limits\") is at most {REVERSE_RESOLVED:e}. {} states are not resolved",
        unresolved.len()
    );
    match max_abs(&unresolved, |s| s.err_reverse_scaled()) {
        Some((err, i)) => {
            let u = unresolved[i];
            let _ = writeln!(
                s,
                "; the largest |error| among them, {err:.3e} at (μ, θ0, θ̇0, c_d) = ({:.3}, {:.4}, {}, {}), goes with a predicted rounding of {:.2e}.\n",
                u.impact.mu,
                u.impact.theta0,
                u.impact.omega0,
                u.impact.damping,
                u.reverse_rounding().unwrap_or(f64::NAN)
            );
        }
        None => {
            let _ = writeln!(s, ".\n");
        }
    }

    let coverage = |name: &str, f: fn(&StateAnalysis) -> Option<&ExtrapolatedLimit>| {
        let cs: Vec<&ExtrapolatedLimit> = a
            .per_state
            .iter()
            .filter(|s| a.is_standard(s))
            .filter_map(f)
            .filter(|c| c.has_closed_form)
            .collect();
        let done: Vec<&&ExtrapolatedLimit> = cs.iter().filter(|c| c.interval().is_some()).collect();
        let covered = done
            .iter()
            .filter(|c| c.covers_closed_form() == Some(true))
            .count();
        let mut widths: Vec<f64> = done
            .iter()
            .filter_map(|c| c.relative_half_width())
            .collect();
        widths.sort_by(f64::total_cmp);
        format!(
            "{name}: {} of {} standard states extrapolated ({} refused: the 7-point ladder does not resolve the correction), \
             the interval covers the closed form at {covered} ({:.1} %), median relative half-width {:.1e}",
            done.len(),
            cs.len(),
            cs.len() - done.len(),
            100.0 * covered as f64 / done.len().max(1) as f64,
            widths.get(widths.len() / 2).copied().unwrap_or(f64::NAN)
        )
    };
    let _ = writeln!(
        s,
        "\n{}.\n\n{}.",
        coverage("T_stick/√κ", |s| s.stick_scaled.as_ref()),
        coverage("v_out", |s| s.v_out.as_ref())
    );
    let _ = writeln!(s, "\n## Bounds\n");
    let _ = writeln!(
        s,
        "Each bound is checked at every κ of every state: slide (33) lower, (31) upper with the constants of `bounds::SlideBoundConstants::choose` (margin {} inside eq. (19), per state); \
         stick (58)/(61) as stated, π/2·√κ < T_stick < π·√κ. \"Not applicable\": the slide bounds need B < 0 through the slide, and at these states the rigid-limit θ̇ at the end of the slide makes B ≥ 0. \
         \"Hypotheses fail\": states where the measured end of the slide leaves the domains (19) at some κ. Zhao et al. derive all four bounds for the linear spring (c_d = 0); with c_d > 0 they are checked as stated.\n",
        crate::models::rod::bounds::CONSTANT_MARGIN
    );
    let _ = writeln!(s, "| bound | states checked | not applicable | states failing at some κ | hypotheses fail | verdict |\n|---|---|---|---|---|---|");
    let names = bound_names(a);
    let mut worst_list = Vec::new();
    for name in names {
        let checked: Vec<(&StateAnalysis, &StateBound)> = a
            .per_state
            .iter()
            .filter_map(|s| Some((s, s.bound(name)?)))
            .collect();
        let failing: Vec<&StateAnalysis> = checked
            .iter()
            .filter(|(_, b)| !b.holds_at_every_kappa)
            .map(|(s, _)| *s)
            .collect();
        let hyp = checked
            .iter()
            .filter(|(_, b)| b.hypotheses_fail > 0)
            .count();
        let verdict = if failing.is_empty() {
            "holds everywhere".to_string()
        } else {
            format!("fails in this region: {}", failure_region(&failing, name))
        };
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {hyp} | {verdict} |",
            checked.len(),
            a.states - checked.len(),
            failing.len()
        );
        for (st, b) in &checked {
            if let (false, Some(w)) = (b.holds_at_every_kappa, b.worst()) {
                let badness = if name.contains("upper") {
                    w.3
                } else {
                    1.0 / w.3
                };
                worst_list.push((badness, name, *st, w));
            }
        }
    }
    // The stated lower stick bound against the rigid limit: where lim T_stick/√κ < π/2 it must
    // fail for small κ, whatever the integrator.
    let below: Vec<&StateAnalysis> = a
        .per_state
        .iter()
        .filter(|s| {
            s.limit()
                .is_some_and(|l| l.stick_duration_scaled < std::f64::consts::FRAC_PI_2)
        })
        .collect();
    let failing_lower = |s: &StateAnalysis| {
        s.bound(super::analysis::STICK_LOWER)
            .is_some_and(|b| !b.holds_at_every_kappa)
    };
    let _ = writeln!(
        s,
        "\nThe rigid limit predicts lim T_stick/√κ < π/2, so that the stated lower stick bound cannot hold as κ → 0, at {} states; \
         the bound fails (at some κ) at {} states, {} of them among those.",
        below.len(),
        a.per_state.iter().filter(|s| failing_lower(s)).count(),
        below.iter().filter(|s| failing_lower(s)).count()
    );
    worst_list.sort_by(|x, y| y.0.total_cmp(&x.0));
    let _ = writeln!(s, "\n## Worst violations\n");
    if worst_list.is_empty() {
        let _ = writeln!(s, "None: every bound holds at every κ of every state.");
    } else {
        let _ = writeln!(s, "| bound | μ | θ0 | θ̇0 | c_d | κ | measured | bound | measured/bound |\n|---|---|---|---|---|---|---|---|---|");
        for (_, name, f, w) in worst_list.iter().take(15) {
            let _ = writeln!(
                s,
                "| {name} | {:.4} | {:.5} | {} | {} | {:e} | {:.6e} | {:.6e} | {:.4} |",
                f.impact.mu, f.impact.theta0, f.impact.omega0, f.impact.damping, w.0, w.1, w.2, w.3
            );
        }
    }
    s
}
