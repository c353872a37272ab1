//! The mode table (`analysis = "mode_table"`), shared by every planar single-contact model that
//! offers it (the constant [`super::planar`] system and the rod): each run starts from a fast
//! state (Y0, V0), runs the compliant contact to s = t/√κ = `[solver] window_scaled`, and is
//! classified by the outcome rule ([`crate::compliant::outcome`]); the report compares the
//! outcome sets with Champneys–Várkonyi's Table 3 (docs/champneys_varkonyi.md).
//!
//! This file holds what the models share: the fast starts of a grid, the cells derived from a
//! state (its cell of Table 3, p±, k±, the stick forces, the IWC limit), one run's measured
//! cells, and the report.

use crate::compliant::coulomb::{Coulomb, Mode};
use crate::compliant::normal::NormalCompliance;
use crate::compliant::outcome::{fast_outcome, first_exit, slip_stop_before_opening};
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::SimError;
use crate::experiment::grammar::SolverSpec;
use crate::experiment::model::Cells;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::{outcome_set_text, table3_entry, Outcome, NEGATIVE, POSITIVE};
use crate::model::iwc::{FastStart, IwcLimit};
use crate::model::{PlanarContactSystem, ProjectedDynamics};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// The measured columns of a mode table (`Model::MEASURE_COLUMNS`), after the model's own
/// derived columns given as arguments (the rod: C–V's scalars "a", "b", "A", "B", "C" of the
/// state, which the planar model has as inputs): first the cells a state fixes before it runs
/// ([`derived_cells`]), then what one run measures ([`FastRun::run`]; scaled: s = t/√κ,
/// Y = y/κ, V = v/√κ).
macro_rules! measure_columns {
    ($($own:literal),*) => {
        &[
            $($own,)*
            "cell",
            "table3",
            "expected",
            "p_plus",
            "p_minus",
            "k_plus",
            "k_minus",
            "stick_normal_force",
            "stick_tangential_force",
            "in_cone",
            "limit_slip_stop_impulse",
            "limit_v_out",
            "limit_omega_out",
            "outcome",
            "mode_sequence",
            "n_events",
            "s_events",
            "s_slip_stop",
            "limit_s_slip_stop",
            "slip_stop_impulse",
            "s_open",
            "V_open",
            "u_out",
            "v_out",
            "omega_out",
            "Y_end",
            "V_end",
            "normal_force_end",
            "energy_balance_error",
        ]
    };
}
pub(crate) use measure_columns;

/// The fast starts of a grid: the explicit `starts` list, or every (Y0, V0) of the values given.
pub fn fast_starts(list: Option<&[FastStart]>, y0: &[f64], v0: &[f64]) -> Vec<FastStart> {
    match list {
        Some(l) => l.to_vec(),
        None => y0
            .iter()
            .flat_map(|&gap| {
                v0.iter().map(move |&normal_velocity| FastStart {
                    gap,
                    normal_velocity,
                })
            })
            .collect(),
    }
}

/// `sweep.starts` excludes Y0 and V0 elsewhere (`y0_v0_elsewhere`), is not empty and finite.
/// `kappa_max` is the largest κ of the ladder: a start is bounded by it
/// ([`require_representable_start`](crate::compliant::normal::require_representable_start)).
pub fn check_starts(
    list: Option<&[FastStart]>,
    y0_v0_elsewhere: bool,
    kappa_max: f64,
) -> Result<(), SimError> {
    let Some(list) = list else {
        return Ok(());
    };
    if y0_v0_elsewhere {
        return Err(SimError::invalid(
            "sweep.starts",
            "both",
            "Y0/V0 are also given in [params], a state or an axis; keep one of the two",
        ));
    }
    if list.is_empty() {
        return Err(SimError::invalid(
            "sweep.starts",
            "[]",
            "list at least one { Y0 = …, V0 = … }, or leave the key out",
        ));
    }
    for (i, s) in list.iter().enumerate() {
        let start = |key: &str, value: f64| {
            crate::compliant::normal::require_representable_start(
                &format!("sweep.starts[{i}].{key}"),
                value,
                "sweep.kappa.max",
                kappa_max,
            )
        };
        start("Y0", s.gap)?;
        start("V0", s.normal_velocity)?;
    }
    Ok(())
}

/// `[solver] window_scaled`: required, positive, and at most rtol/ε. Times near s are rounded
/// to ε·s in fast units, whose scale is the contact's normal time (1): beyond s = rtol/ε the
/// rounding of the time alone exceeds the accuracy the run asks for, and events there cannot be
/// located (at 1e20, times are 2.2e4 fast units apart).
pub fn window(solver: &SolverSpec) -> Result<f64, SimError> {
    match solver.window_scaled {
        Some(w) => {
            crate::error::require_positive("solver.window_scaled", w)?;
            let largest = solver.rtol / f64::EPSILON;
            if w > largest {
                return Err(SimError::invalid(
                    "solver.window_scaled",
                    crate::error::number_text(w),
                    &format!(
                        "must be <= rtol/ε = {} (solver.rtol = {}): at s = {} double precision rounds times to {} fast units, coarser than the run's tolerance on the contact's time scale (1); shorten the window",
                        crate::error::time_text(largest),
                        crate::error::number_text(solver.rtol),
                        crate::error::number_text(w),
                        crate::error::time_text(w * f64::EPSILON)
                    ),
                ));
            }
            Ok(w)
        }
        None => Err(SimError::invalid(
            "solver.window_scaled",
            "missing",
            "the mode table runs each point to s = t/√κ = window_scaled (the experiment files use 200)",
        )),
    }
}

/// |hλ| of the largest stable step of an explicit Runge–Kutta method on a decaying mode of rate
/// λ: about 3.3 for Tsitouras 5(4) and 6 for DOP853 (Hairer–Wanner I, §IV.2); the larger bounds
/// the steps of either from below.
const EXPLICIT_STABLE_STEP: f64 = 6.0;

/// The fastest rate of a closed contact in fast units: the roots of λ² + C·c_d·λ + C = 0 of the
/// scaled normal law (normal mobility `c`, dashpot `damping`), √C when underdamped and
/// (C c_d + √((C c_d)² − 4C))/2 when overdamped.
pub fn closed_contact_rate(c: f64, damping: f64) -> f64 {
    let trace = c * damping;
    let discriminant = trace * trace - 4.0 * c;
    if discriminant >= 0.0 {
        0.5 * (trace + discriminant.sqrt())
    } else {
        c.sqrt()
    }
}

/// Checks that each explicit integrator of `solver` can cross a closed contact of fastest rate
/// `rate` (fast units; set by `key` = `value`) within the step limit over `window`: a stable
/// step is at most [`EXPLICIT_STABLE_STEP`]/rate, so a contact closed for the window takes at
/// least window·rate/6 steps. Beyond the step limit the run would end at the step guard after
/// minutes; refused before running, with the implicit integrators as the remedy.
pub fn check_explicit_steps(
    solver: &SolverSpec,
    window: f64,
    rate: f64,
    key: &str,
    value: f64,
) -> Result<(), SimError> {
    let limit = solver
        .max_steps
        .unwrap_or(crate::compliant::DEFAULT_MAX_STEPS) as f64;
    let needed = window * rate / EXPLICIT_STABLE_STEP;
    if let Some(explicit) = solver.integrators.iter().find(|i| !i.is_implicit()) {
        if needed > limit {
            return Err(SimError::invalid(
                key,
                crate::error::number_text(value),
                &format!(
                    "with the explicit integrator {} the closed contact's fastest rate {} (fast units, from C and c_d) allows steps of at most 6/rate, about {} steps over solver.window_scaled = {}, more than the step limit {}; use an implicit integrator (radau5, rodas4) or a smaller value",
                    explicit.name(),
                    crate::error::time_text(rate),
                    crate::error::time_text(needed),
                    crate::error::number_text(window),
                    limit
                ),
            ));
        }
    }
    Ok(())
}

/// The cells of C–V's projected scalars at `pd`.
pub fn scalar_cells<const N: usize>(pd: &ProjectedDynamics<f64, N>) -> Cells {
    vec![
        ("a", pd.free_tangential_accel.to_string()),
        ("b", pd.free_normal_accel.to_string()),
        ("A", pd.tangential_mobility.to_string()),
        ("B", pd.cross_mobility.to_string()),
        ("C", pd.normal_mobility.to_string()),
    ]
}

/// What a state predicts before it runs (the first columns of [`measure_columns`]): the system at the contact
/// (`q` at gap 0, `q̇` with v = 0) with slip velocity u0 = cᵀq̇, friction μ (static μ_s),
/// damping c_d, fast start `start`.
pub fn derived_cells<Sys: PlanarContactSystem<N>, const N: usize>(
    sys: &Sys,
    q: &[f64; N],
    qdot: &[f64; N],
    friction: Coulomb,
    damping: f64,
    start: FastStart,
) -> Cells {
    let pd = ProjectedDynamics::at(sys, q, qdot);
    let mu = friction.mu;
    let (lt, ln) = pd.stick_forces();
    let cell = pd.table3_cell(mu, pd.u);
    let limit = IwcLimit::of(sys, q, qdot, mu, friction.mu_s, damping, start).ok();
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    vec![
        ("cell", cell.map(|c| c.to_string()).unwrap_or_default()),
        (
            "table3",
            cell.map(table3_entry).unwrap_or_default().to_string(),
        ),
        ("expected", outcome_set_text(&pd.table3_outcomes(mu, pd.u))),
        ("p_plus", pd.painleve_parameter(mu, POSITIVE).to_string()),
        ("p_minus", pd.painleve_parameter(mu, NEGATIVE).to_string()),
        ("k_plus", pd.slip_coupling(mu, POSITIVE).to_string()),
        ("k_minus", pd.slip_coupling(mu, NEGATIVE).to_string()),
        ("stick_normal_force", ln.to_string()),
        ("stick_tangential_force", lt.to_string()),
        ("in_cone", pd.in_friction_cone(mu).to_string()),
        (
            "limit_slip_stop_impulse",
            opt(limit.map(|l| l.slide_impulse)),
        ),
        ("limit_v_out", opt(limit.map(|l| l.v_out))),
        (
            "limit_omega_out",
            opt(sys
                .rotation_index()
                .and_then(|i| limit.map(|l| l.qdot_out[i]))),
        ),
    ]
}

/// One run of the mode table: the contact state at gap 0 and v = 0 (`q`, `q̇`) is displaced
/// to the fast start (the gap coordinate `gap_index` by κY0, its rate by √κV0) and run to
/// s = `window_scaled`.
pub struct FastRun<'a, Sys> {
    pub system: &'a Sys,
    pub friction: Coulomb,
    pub damping: f64,
    pub start: FastStart,
    pub window_scaled: f64,
}

impl<Sys> FastRun<'_, Sys> {
    fn problem<const N: usize>(&self, kappa: f64) -> ContactProblem<'_, Sys, N>
    where
        Sys: PlanarContactSystem<N>,
    {
        ContactProblem {
            system: self.system,
            compliance: NormalCompliance::spring_dashpot(kappa, self.damping),
            friction: self.friction,
        }
    }

    /// The compliant run from `(q, q̇)` at `kappa` until `end`, with the fast-scaled absolute
    /// tolerances; with `trajectory = Some(ds)`, every accepted step in the record's trajectory
    /// and the states every ds in fast time s = t/√κ in its outputs.
    #[allow(clippy::too_many_arguments)]
    pub fn record<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
        end: EndCondition,
        trajectory: Option<f64>,
    ) -> Result<RunRecord, String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let mut options = SimulationOptions::new(integrator, solver.rtol, solver.atol).with_guards(
            None,
            solver.max_steps,
            solver.max_events,
        );
        options.end = end;
        options.t_max = self.window_scaled * kappa.sqrt();
        options.fast_tolerances = true;
        if let Some(spacing) = trajectory {
            options.record_trajectory = true;
            let (end_s, ds) = (self.window_scaled, spacing);
            options.output_times = (1..)
                .map(|i| i as f64 * ds)
                .take_while(|s| *s <= end_s)
                .map(|s| s * kappa.sqrt())
                .collect();
        }
        simulate(&self.problem(kappa), q0, qdot0, &options).map_err(|e| e.to_string())
    }

    /// The F/IWC side of `(q, q̇)` ([`first_exit`]): run until the contact first opens, at most
    /// for the window.
    pub fn side<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
    ) -> Result<(Outcome, SolverStats), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        // A start with the contact open lifts off (a run to separation would never end).
        let problem = self.problem(kappa);
        let mut y0 = vec![0.0; problem.state_len()];
        y0[..N].copy_from_slice(q0);
        y0[N..2 * N].copy_from_slice(qdot0);
        if problem.initial_mode(&y0) == Mode::Free {
            return Ok((Outcome::LiftOff, SolverStats::default()));
        }
        let r = match self.record(
            q0,
            qdot0,
            kappa,
            integrator,
            solver,
            EndCondition::Separation,
            None,
        ) {
            Err(e) if e.contains("no separation") => {
                return Err(format!(
                    "neither lift-off nor IWC within s = {}",
                    self.window_scaled
                ))
            }
            other => other?,
        };
        let side = first_exit(&r)
            .ok_or_else(|| format!("neither lift-off nor IWC within s = {}", self.window_scaled))?;
        Ok((side, r.stats))
    }

    /// The outcome rule's verdict ([`fast_outcome`]) on the run from `(q, q̇)` over the whole
    /// window, and the run's record.
    pub fn outcome<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
    ) -> Result<(Outcome, RunRecord), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        self.outcome_recorded(q0, qdot0, kappa, integrator, solver, None)
    }

    /// [`Self::outcome`], with the trajectory ([`Self::record`]) when `trajectory` is set.
    pub fn outcome_recorded<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
        trajectory: Option<f64>,
    ) -> Result<(Outcome, RunRecord), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let window = EndCondition::Time(self.window_scaled * kappa.sqrt());
        let r = self.record(q0, qdot0, kappa, integrator, solver, window, trajectory)?;
        let u0 = ProjectedDynamics::at(self.system, q0, qdot0).u;
        Ok((fast_outcome(&r, u0), r))
    }

    /// Run at `kappa` from `(q, q̇)` (the initial state, already at the fast start) and
    /// measure the last columns of [`measure_columns`].
    pub fn run<const N: usize>(
        &self,
        q0: &[f64; N],
        qdot0: &[f64; N],
        kappa: f64,
        integrator: IntegratorKind,
        solver: &SolverSpec,
    ) -> Result<(Cells, SolverStats), String>
    where
        Sys: PlanarContactSystem<N>,
    {
        let sys = self.system;
        let sk = kappa.sqrt();
        let (outcome, r) = self.outcome(q0, qdot0, kappa, integrator, solver)?;
        let problem = self.problem(kappa);
        let start_pd = ProjectedDynamics::at(sys, q0, qdot0);
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let scaled_times: Vec<String> = r.events.iter().map(|e| (e.t / sk).to_string()).collect();
        let slip_stop = (outcome == Outcome::Iwc)
            .then(|| slip_stop_before_opening(&r))
            .flatten();
        // The first open state: the start itself when the run starts in free flight, else the
        // state when the contact first opens (if it does).
        let rotation = sys.rotation_index();
        let opening = if r.modes.first().is_some_and(|m| m.mode == Mode::Free) {
            Some((0.0, start_pd.u, start_pd.v, rotation.map(|i| qdot0[i])))
        } else {
            r.post_impact.as_ref().map(|p| (p.t, p.u, p.v, p.omega))
        };
        let mut end_q = [0.0; N];
        let mut end_qdot = [0.0; N];
        end_q.copy_from_slice(&r.final_q);
        end_qdot.copy_from_slice(&r.final_qdot);
        let end = ProjectedDynamics::at(sys, &end_q, &end_qdot);
        let end_mode = r.modes.last().map_or(Mode::Free, |m| m.mode);
        let normal_force_end = if end_mode.is_contact() {
            problem.compliance.closed_contact_force(-end.gap, -end.v)
        } else {
            0.0
        };
        let limit = IwcLimit::of(
            sys,
            q0,
            qdot0,
            self.friction.mu,
            self.friction.mu_s,
            self.damping,
            self.start,
        )
        .ok();
        let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
        let cells = vec![
            ("outcome", outcome.symbol().to_string()),
            ("mode_sequence", sequence.join(">")),
            ("n_events", r.events.len().to_string()),
            ("s_events", scaled_times.join(" ")),
            ("s_slip_stop", opt(slip_stop.map(|i| r.events[i].t / sk))),
            (
                "limit_s_slip_stop",
                opt(limit.map(|l| l.slide_duration(kappa) / sk)),
            ),
            (
                "slip_stop_impulse",
                opt(slip_stop.map(|i| r.modes[i].impulse_normal_end)),
            ),
            ("s_open", opt(opening.map(|o| o.0 / sk))),
            ("V_open", opt(opening.map(|o| o.2 / sk))),
            ("u_out", opt(opening.map(|o| o.1))),
            ("v_out", opt(opening.map(|o| o.2))),
            ("omega_out", opt(opening.and_then(|o| o.3))),
            ("Y_end", (end.gap / kappa).to_string()),
            ("V_end", (end.v / sk).to_string()),
            ("normal_force_end", normal_force_end.to_string()),
            ("energy_balance_error", r.energy.balance_error.to_string()),
        ];
        Ok((cells, r.stats))
    }
}

/// The checks of the mode table's report, computed from its rows (no solver, no I/O).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ModeTableChecks {
    /// States (κ, integrator) whose outcome set over the fast starts equals Table 3's entry.
    pub sets_matching: usize,
    pub sets_total: usize,
    /// The mismatches: "state, κ, integrator: measured vs expected".
    pub mismatches: Vec<String>,
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

/// The numbers of a cell of space-separated numbers (empty: none).
fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}

/// The largest difference ([`scaled_error`]) between two runs' scaled numbers and, when both
/// have as many events, their event times; the flag says whether the event counts agree.
fn scaled_difference(a: &Row, b: &Row) -> (f64, bool) {
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
pub fn checks(rows: &[Row], state_columns: &[&str]) -> ModeTableChecks {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let state_key = |r: &Row| {
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
    // κ-independence of the scaled numbers, per (state, start, integrator), non-IWC runs.
    let run_key = |r: &Row| {
        format!(
            "({}) Y0 = {}, V0 = {}, {}",
            state_key(r),
            r.text("Y0"),
            r.text("V0"),
            r.text("integrator")
        )
    };
    let mut by_run: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
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
    let mirror_key = |r: &Row, sign: f64| -> Option<String> {
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
    let index: BTreeMap<String, &Row> = ok
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
        let (mut d, same_events) = scaled_difference(r, m);
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

/// summary.md and analysis.json of a mode table. `title` names the system, `state_columns`
/// identify a state, `describe` is a paragraph on how the states are given.
pub fn write_report(
    name: &str,
    title: &str,
    describe: &str,
    state_columns: &[&str],
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let c = checks(rows, state_columns);
    let json = crate::report::json::pretty(&c);
    write_atomically(&dir.join("analysis.json"), &(json + "\n"))?;
    write_atomically(
        &dir.join("summary.md"),
        &render(name, title, describe, state_columns, rows, &c),
    )
}

fn render(
    name: &str,
    title: &str,
    describe: &str,
    state_columns: &[&str],
    rows: &[Row],
    c: &ModeTableChecks,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {name}: {title} — Table 3 by compliant simulation\n");
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{name}.toml` (or `rigid-limit reproduce`) from \
         runs.csv ({} rows, {} failed). Outcome rule, cells and limits: docs/champneys_varkonyi.md.\n",
        rows.len(),
        rows.iter().filter(|r| r.text("status") != "ok").count()
    );
    let _ = writeln!(s, "{describe}\n");
    let _ = writeln!(s, "## Outcome sets against Table 3\n");
    let _ = writeln!(
        s,
        "Per state, the set of outcomes over its fast starts at each κ (and integrator), next to \
         Table 3's entry for its cell with the \"or\" resolved (\"expected\"). {} of {} sets \
         equal the expected one.\n",
        c.sets_matching, c.sets_total
    );
    // One line per (cell, expected, state): the measured sets over κ.
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let mut kappas: Vec<String> = ok.iter().map(|r| r.text("kappa").to_string()).collect();
    kappas.sort_by(|a, b| {
        let (x, y) = (
            a.parse::<f64>().unwrap_or(0.0),
            b.parse::<f64>().unwrap_or(0.0),
        );
        y.total_cmp(&x)
    });
    kappas.dedup();
    let mut integrators: Vec<String> = ok
        .iter()
        .map(|r| r.text("integrator").to_string())
        .collect();
    integrators.sort();
    integrators.dedup();
    let header: Vec<String> = kappas
        .iter()
        .flat_map(|k| integrators.iter().map(move |i| format!("κ = {k} ({i})")))
        .collect();
    let _ = writeln!(
        s,
        "| cell | Table 3 | expected | state ({}) | {} | match |",
        state_columns.join(", "),
        header.join(" | ")
    );
    let _ = writeln!(s, "|{}", "---|".repeat(5 + header.len()));
    let mut states: BTreeMap<(String, String, String), SetsOverKappa> = BTreeMap::new();
    let mut table3: BTreeMap<String, String> = BTreeMap::new();
    for r in &ok {
        let state: Vec<String> = state_columns
            .iter()
            .map(|k| r.text(k).to_string())
            .collect();
        table3.insert(r.text("cell").to_string(), r.text("table3").to_string());
        states
            .entry((
                cell_order(r.text("cell")),
                r.text("expected").to_string(),
                state.join(", "),
            ))
            .or_default()
            .entry((
                r.text("kappa").to_string(),
                r.text("integrator").to_string(),
            ))
            .or_default()
            .insert(r.text("outcome").to_string());
    }
    for ((cell, expected, state), sets) in &states {
        let cell = cell.split_once(' ').map_or(cell.as_str(), |(_, c)| c);
        let mut all = true;
        let cells: Vec<String> = kappas
            .iter()
            .flat_map(|k| integrators.iter().map(move |i| (k.clone(), i.clone())))
            .map(|key| match sets.get(&key) {
                Some(set) => {
                    let o: Vec<Outcome> =
                        set.iter().filter_map(|x| Outcome::from_symbol(x)).collect();
                    let text = outcome_set_text(&o);
                    all &= &text == expected;
                    text
                }
                None => {
                    all = false;
                    "—".to_string()
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "| {cell} | {} | {expected} | {state} | {} | {} |",
            table3.get(cell).map_or("", String::as_str),
            cells.join(" | "),
            if all { "yes" } else { "**no**" }
        );
    }
    if !c.mismatches.is_empty() {
        let _ = writeln!(s, "\nMismatches:\n");
        for m in &c.mismatches {
            let _ = writeln!(s, "- {m}");
        }
    }
    let _ = writeln!(s, "\n## Checks\n");
    let _ = writeln!(
        s,
        "- κ-independence: the scaled numbers of a run (event times s, s_open, V_open, Y_end, \
         V_end, F_n at the end) differ across κ by at most {:.1e} relative to max(1, |value|) \
         over the non-IWC runs (largest at {}).",
        c.kappa_spread_max,
        if c.kappa_spread_at.is_empty() {
            "—"
        } else {
            &c.kappa_spread_at
        }
    );
    if !c.kappa_event_count_differs.is_empty() {
        let _ = writeln!(
            s,
            "- Event sequences that differ in length across κ (their event times are left out \
             above): {}.",
            c.kappa_event_count_differs.join("; ")
        );
    }
    let omega = c
        .iwc_omega_out_error_max
        .map_or_else(String::new, |e| format!("; θ̇ there: {e:.1e}"));
    let _ = writeln!(
        s,
        "- IWC at the smallest κ ({} runs): normal impulse at the slip stop vs |u0|/k±: {:.1e}; \
         v at the first opening vs the two-stage limit: {:.1e}{omega} (largest relative errors).",
        c.iwc_runs_at_smallest_kappa, c.iwc_impulse_error_max, c.iwc_v_out_error_max,
    );
    if c.mirror_pairs == 0 {
        let _ = writeln!(
            s,
            "- Mirrors (a, B, u0) → (−a, −B, −u0): no state has its mirror among the states."
        );
    } else {
        let _ = writeln!(
            s,
            "- Mirrors (a, B, u0) → (−a, −B, −u0): {} pairs of runs; outcomes mirrored: {}; \
             scaled numbers ({} negated) agree to {:.1e} relative.",
            c.mirror_pairs,
            if c.mirror_outcomes_agree {
                "all"
            } else {
                "**not all**"
            },
            // A rod's state has its angular velocity; the planar system has none.
            if state_columns.contains(&"omega0") {
                "u, θ̇"
            } else {
                "u"
            },
            c.mirror_difference_max
        );
    }
    s
}

/// The outcome sets of one state, by (κ, integrator).
type SetsOverKappa = BTreeMap<(String, String), BTreeSet<String>>;

/// A sort key that puts cells in Table 3's order (column, then row) before the cell's name.
fn cell_order(cell: &str) -> String {
    let (column, row) = cell.split_once('(').unwrap_or((cell, ""));
    let row = row.trim_end_matches(')');
    let rank = |x: &str, order: &[&str]| order.iter().position(|o| *o == x).unwrap_or(9);
    format!(
        "{}{} {cell}",
        rank(row, &["i", "ii", "iii", "iv", "v", "vi"]),
        rank(column, &["I", "II", "III"])
    )
}
