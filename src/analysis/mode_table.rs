//! The reduction of a mode table's rows ([`crate::study::fast::mode_table`]): do the outcome
//! sets over the fast starts equal Table 3's (C–V §5), are the scaled numbers independent of κ,
//! does an IWC at the smallest κ reach its two-stage limit, and do mirror states (a, B, u0) →
//! (−a, −B, −u0) give mirrored runs. Pure: rows in, numbers out.

use super::{numbers, RowCells};
use crate::model::consistency::{outcome_set_text, Outcome};
use std::collections::{BTreeMap, BTreeSet};

/// The checks of the mode table's report, computed from its rows (no solver, no I/O).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ModeTableChecks {
    /// States (κ, integrator) whose outcome set over the fast starts equals Table 3's entry.
    pub sets_matching: usize,
    pub sets_total: usize,
    /// The mismatches: "state, κ, integrator: measured vs expected".
    pub mismatches: Vec<String>,
    /// Runs whose outcome is one of its state's expected outcomes — what one start can meet
    /// where Table 3 allows two — and the runs judged.
    pub outcomes_in_expected: usize,
    pub outcomes_total: usize,
    /// The others: "state, start, κ, integrator: outcome vs expected".
    pub outcomes_outside: Vec<String>,
    /// Largest spread over κ of the scaled numbers of a run (non-IWC runs), relative to
    /// max(1, |value|): the scaled numbers are O(1).
    pub kappa_spread_max: f64,
    /// The run (state, start, integrator) where it occurs.
    pub kappa_spread_at: String,
    /// Runs (state, start, integrator) whose event sequence differs in length across κ: their
    /// event times are left out of the spread.
    pub kappa_event_count_differs: Vec<String>,
    /// Largest relative errors to the IWC limit at the smallest κ.
    pub iwc_impulse_error_max: f64,
    pub iwc_v_out_error_max: f64,
    /// θ̇'s error, for a system that rotates (a rod; the planar system has no θ̇: `None`).
    pub iwc_omega_out_error_max: Option<f64>,
    pub iwc_runs_at_smallest_kappa: usize,
    /// Mirror pairs found and their largest relative difference (u, θ̇ negated).
    pub mirror_pairs: usize,
    pub mirror_difference_max: f64,
    pub mirror_outcomes_agree: bool,
}

/// The scaled numbers compared across κ and between mirrors.
const SCALED: &[&str] = &["s_open", "V_open", "Y_end", "V_end", "normal_force_end"];

fn relative(a: f64, b: f64) -> f64 {
    let scale = a.abs().max(b.abs());
    if scale == 0.0 {
        0.0
    } else {
        (a - b).abs() / scale.max(1e-300)
    }
}

/// |a − b| / max(1, |a|, |b|): for the scaled numbers, which are O(1) and may pass through 0.
fn scaled_error(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1.0)
}

/// The largest difference ([`scaled_error`]) between two runs' scaled numbers and, when both
/// have as many events, their event times; the flag says whether the event counts agree.
fn scaled_difference<R: RowCells>(a: &R, b: &R) -> (f64, bool) {
    let mut worst: f64 = 0.0;
    for c in SCALED {
        match (a.number(c), b.number(c)) {
            (Some(x), Some(y)) => worst = worst.max(scaled_error(x, y)),
            (None, None) => {}
            _ => worst = f64::INFINITY,
        }
    }
    let (ea, eb) = (numbers(a.text("s_events")), numbers(b.text("s_events")));
    if ea.len() != eb.len() {
        return (worst, false);
    }
    for (x, y) in ea.iter().zip(&eb) {
        worst = worst.max(scaled_error(*x, *y));
    }
    (worst, true)
}

/// The mirror image of an outcome (x → −x).
fn mirrored(outcome: &str) -> &str {
    match outcome {
        "S+" => "S-",
        "S-" => "S+",
        other => other,
    }
}

/// Compute the checks from the rows. `state_columns` identify a state (every input but the
/// fast start).
pub fn checks<R: RowCells>(rows: &[R], state_columns: &[&str]) -> ModeTableChecks {
    let ok: Vec<&R> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let state_key = |r: &R| {
        state_columns
            .iter()
            .map(|c| r.text(c).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = ModeTableChecks {
        mirror_outcomes_agree: true,
        ..Default::default()
    };
    // Outcome sets per (state, κ, integrator).
    let mut sets: BTreeMap<(String, String, String), (BTreeSet<String>, String)> = BTreeMap::new();
    for r in &ok {
        let e = sets
            .entry((
                state_key(r),
                r.text("kappa").to_string(),
                r.text("integrator").to_string(),
            ))
            .or_insert_with(|| (BTreeSet::new(), r.text("expected").to_string()));
        e.0.insert(r.text("outcome").to_string());
    }
    for ((state, kappa, integrator), (set, expected)) in &sets {
        let outcomes: Vec<Outcome> = set.iter().filter_map(|s| Outcome::from_symbol(s)).collect();
        let measured = outcome_set_text(&outcomes);
        out.sets_total += 1;
        if &measured == expected {
            out.sets_matching += 1;
        } else {
            out.mismatches.push(format!(
                "({state}) κ = {kappa}, {integrator}: {measured} vs Table 3 {expected}"
            ));
        }
    }
    // Each run's outcome against its state's expected outcomes.
    for r in &ok {
        let expected = r.text("expected");
        let outcome = r.text("outcome");
        out.outcomes_total += 1;
        if expected.split(" and ").any(|e| e.trim() == outcome) {
            out.outcomes_in_expected += 1;
        } else {
            out.outcomes_outside.push(format!(
                "({}) Y0 = {}, V0 = {}, κ = {}, {}: {outcome} vs Table 3 {expected}",
                state_key(r),
                r.text("Y0"),
                r.text("V0"),
                r.text("kappa"),
                r.text("integrator")
            ));
        }
    }
    // κ-independence of the scaled numbers, per (state, start, integrator), non-IWC runs.
    let run_key = |r: &R| {
        format!(
            "({}) Y0 = {}, V0 = {}, {}",
            state_key(r),
            r.text("Y0"),
            r.text("V0"),
            r.text("integrator")
        )
    };
    let mut by_run: BTreeMap<String, Vec<&R>> = BTreeMap::new();
    for r in &ok {
        by_run.entry(run_key(r)).or_default().push(r);
    }
    for (key, runs) in &by_run {
        if runs.iter().any(|r| r.text("outcome") == "IWC") {
            continue;
        }
        for pair in runs.windows(2) {
            let (d, same_events) = scaled_difference(pair[0], pair[1]);
            if !same_events && !out.kappa_event_count_differs.contains(key) {
                out.kappa_event_count_differs.push(key.clone());
            }
            if d > out.kappa_spread_max {
                out.kappa_spread_max = d;
                out.kappa_spread_at = key.clone();
            }
        }
    }
    // IWC runs at the smallest κ against the limit.
    let smallest = ok
        .iter()
        .filter_map(|r| r.number("kappa"))
        .fold(f64::INFINITY, f64::min);
    for r in ok
        .iter()
        .filter(|r| r.number("kappa") == Some(smallest) && r.text("outcome") == "IWC")
    {
        out.iwc_runs_at_smallest_kappa += 1;
        let err = |got: &str, want: &str| match (r.number(got), r.number(want)) {
            (Some(g), Some(w)) => relative(g, w),
            _ => f64::INFINITY,
        };
        out.iwc_impulse_error_max = out
            .iwc_impulse_error_max
            .max(err("slip_stop_impulse", "limit_slip_stop_impulse"));
        out.iwc_v_out_error_max = out.iwc_v_out_error_max.max(err("v_out", "limit_v_out"));
        if !r.text("limit_omega_out").is_empty() {
            let e = err("omega_out", "limit_omega_out");
            out.iwc_omega_out_error_max = Some(out.iwc_omega_out_error_max.map_or(e, |m| m.max(e)));
        }
    }
    // Mirrors: (a, B, u0) → (−a, −B, −u0) with b, A, C, μ and the rest equal.
    let mirror_key = |r: &R, sign: f64| -> Option<String> {
        let n = |c: &str| r.number(c);
        Some(format!(
            "{:.12e},{:.12e},{:.12e},{:.12e},{:.12e},{},{},{},{},{},{},{}",
            sign * n("a")? + 0.0,
            n("b")?,
            n("A")?,
            sign * n("B")? + 0.0,
            n("C")?,
            r.text("mu"),
            r.text("damping"),
            sign * n("u0")? + 0.0,
            r.text("Y0"),
            r.text("V0"),
            r.text("kappa"),
            r.text("integrator"),
        ))
    };
    let index: BTreeMap<String, &R> = ok
        .iter()
        .filter_map(|r| Some((mirror_key(r, 1.0)?, *r)))
        .collect();
    for r in &ok {
        let (Some(mirror), Some(own)) = (mirror_key(r, -1.0), mirror_key(r, 1.0)) else {
            continue;
        };
        if mirror <= own {
            continue; // symmetric states, and each pair once
        }
        let Some(m) = index.get(&mirror) else {
            continue;
        };
        out.mirror_pairs += 1;
        if mirrored(r.text("outcome")) != m.text("outcome") {
            out.mirror_outcomes_agree = false;
        }
        let (mut d, same_events) = scaled_difference(*r, *m);
        if !same_events {
            d = f64::INFINITY;
        }
        for c in ["u_out", "omega_out"] {
            if let (Some(x), Some(y)) = (r.number(c), m.number(c)) {
                d = d.max(relative(x, -y).min((x + y).abs()));
            }
        }
        out.mirror_difference_max = out.mirror_difference_max.max(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of named cells.
    struct Cells(Vec<(&'static str, &'static str)>);

    impl RowCells for Cells {
        fn text(&self, column: &str) -> &str {
            self.0
                .iter()
                .find(|(c, _)| *c == column)
                .map_or("", |(_, v)| v)
        }
    }

    fn run(start: &'static str, outcome: &'static str, expected: &'static str) -> Cells {
        Cells(vec![
            ("status", "ok"),
            ("a", "1"),
            ("kappa", "1e-8"),
            ("integrator", "tsit45"),
            ("Y0", start),
            ("V0", "0"),
            ("outcome", outcome),
            ("expected", expected),
        ])
    }

    /// One start meets one of a two-outcome entry (its set does not equal the entry, its run
    /// lies in it); an outcome the entry does not allow is listed.
    #[test]
    fn a_run_is_judged_against_its_expected_outcomes_one_by_one() {
        let rows = [run("0", "F", "F and IWC"), run("-2", "F", "F and IWC")];
        let c = checks(&rows, &["a"]);
        assert_eq!((c.sets_matching, c.sets_total), (0, 1));
        assert_eq!((c.outcomes_in_expected, c.outcomes_total), (2, 2));
        let rows = [run("0", "S+", "T"), run("-2", "T", "T")];
        let c = checks(&rows, &["a"]);
        assert_eq!((c.outcomes_in_expected, c.outcomes_total), (1, 2));
        assert_eq!(c.outcomes_outside.len(), 1);
        assert!(
            c.outcomes_outside[0].contains("S+ vs Table 3 T"),
            "{:?}",
            c.outcomes_outside
        );
    }
}
