//! Zhao–Liu's comparison envelopes of the stick (`model = "rod_stick_envelope"`): a [`System`] of
//! the convergence study. Each run is the undamped compliant impact of one state (δ = δ̇ = 0 at
//! t = 0, slide → stick → reverse slip); it measures the stick [t_s, ε₃] against the two linear
//! systems of eq. (56) started at the slip stop t_s from the rod's δ(t_s), δ̇(t_s):
//!
//! ```text
//!   (55)  δ̈   = −(1+k)δ/(κ(1+ks²)) + 1 − (1+k)s θ̇²/(1+ks²)      (k = 1/ρ; Zhao–Liu: k = 3)
//!   (56)  δ̈_l = −((1+k)/κ)δ_l + 1 − (1+k)θ̇_m²,   δ̈_r = −δ_r/κ + 1
//!   (58)  ε_l < π/2·√κ,  ε_r < π·√κ;   (59)/(60) ⇒ δ_l ≤ δ ≤ δ_r,  ε_l < ε₃ − t_s < ε_r
//!   (61)  π/2·√κ < ε₃ − t_s < π·√κ
//! ```
//!
//! ε_l, ε_r are the closed-form first passages of δ_l, δ_r through δ* = δ(ε₃)
//! ([`LinearOscillator::first_passage`]); θ̇_m is the largest |θ̇| over the stick. The envelope
//! inequality is checked on the stick's states at 400 evenly spaced times (the integrator stops at
//! each, [`SimulationOptions::output_times`]) and at every step end: the run is made twice, the
//! first to locate [t_s, ε₃], the second with the output times inside it.
//!
//! ```toml
//! name = "zhao_liu_stick_envelopes"
//! model = "rod_stick_envelope"
//! [params]
//! mu = 2.0
//! theta0 = 1.3
//! omega0 = 0.0
//! u0 = -1.0
//! states = [{ mu = 8.4, theta0 = 0.17, omega0 = 0.0, u0 = -1.0 }]   # further states
//! [sweep]
//! kappa = { min = 1e-10, max = 1e-6, per_decade = 2 }
//! [solver]
//! integrators = ["dop853"]
//! rtol = 1e-10
//! atol = 1e-12
//! ```

use super::bounds::{stick_lower, stick_upper, LinearOscillator};
use super::mechanics::{PainleveRod, THETA, Y_A};
use super::scenario::{RodImpact, Scenario};
use crate::compliant::coulomb::Mode;
use crate::compliant::record::{RunRecord, Sample};
use crate::compliant::SimulationOptions;
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::record;
use crate::experiment::rows::Cells;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::SolverStats;
use crate::report::table::{Cell, Table};
use serde::{Deserialize, Serialize};

/// How many evenly spaced times inside the stick the envelope inequality is checked at (besides
/// every step end).
pub const STICK_SAMPLES: usize = 400;

/// The envelope inequality holds at a sample when neither excess (relative to δ(t_s)) is above
/// this: the integrator's relative error at rtol 1e-10 is far below it, the excesses the
/// inequality is about are O(1).
pub const ENVELOPE_TOLERANCE: f64 = 1e-8;

/// Zhao–Liu's comparison envelopes of the stick as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodStickEnvelope;

/// One initial state of the uniform rod, put down sliding at δ = δ̇ = 0 (undamped: eq. (55) has
/// no dashpot).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// Coulomb coefficient μ = μ_s.
    pub mu: f64,
    pub theta0: f64,
    pub omega0: f64,
    /// Slip velocity of the contact point, < 0 (leftward).
    pub u0: f64,
}

/// `[params]`: a state, and further states each run over the same κ ladder.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub mu: f64,
    pub theta0: f64,
    pub omega0: f64,
    pub u0: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<State>,
    /// Which of `states` a configuration of the study is (`None`: `[params]`'s own state), for
    /// the key an error names; not a column.
    #[serde(skip)]
    pub listed: Option<usize>,
}

impl Params {
    fn state(&self) -> State {
        State {
            mu: self.mu,
            theta0: self.theta0,
            omega0: self.omega0,
            u0: self.u0,
        }
    }
}

impl State {
    fn rod(&self, kappa: f64) -> RodImpact {
        RodImpact::uniform(kappa, self.mu, self.theta0, self.omega0, self.u0, 0.0)
    }
}

/// What one run measures: runs.csv's columns from `mode_sequence` on. Empty cells when the run
/// has no slide → stick → reverse slip.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// The modes in time order, joined by `>`.
    pub mode_sequence: String,
    /// The slip stop t_s (end of the first slide) and the stick's duration ε₃ − t_s.
    pub t_s: Option<f64>,
    pub stick_duration: Option<f64>,
    /// δ(t_s), δ̇(t_s): the linear systems' start.
    pub delta_s: Option<f64>,
    pub delta_dot_s: Option<f64>,
    /// θ̇_m: the largest |θ̇| over the stick (its end states and samples).
    pub omega_max: Option<f64>,
    /// δ* as the run ends the stick, δ(ε₃), and from eq. (54) at the state at ε₃.
    pub delta_star: Option<f64>,
    pub delta_star_54: Option<f64>,
    /// Eq. (57)'s equilibria of the left and right systems.
    pub delta_bar_l: Option<f64>,
    pub delta_bar_r: Option<f64>,
    /// The linear systems' first passage through δ* = δ(ε₃) (eq. (58)), from the closed forms.
    pub eps_l: Option<f64>,
    pub eps_r: Option<f64>,
    /// max over the stick of (δ_l − δ)/δ(t_s) and of (δ − δ_r)/δ(t_s): > 0 is a violation of
    /// δ_l ≤ δ ≤ δ_r ((59), (60)).
    pub left_excess: Option<f64>,
    pub right_excess: Option<f64>,
    /// (t − t_s)/√κ at the first sample where δ_l > δ (beyond [`ENVELOPE_TOLERANCE`]); empty
    /// when none. The error system (60) oscillates at 2/√κ, so its sign argument covers only
    /// t − t_s < π/2·√κ.
    pub left_violation_from: Option<f64>,
    /// Samples inside the stick.
    pub stick_samples: Option<usize>,
    /// (ε₃ − t_s)/(π/2·√κ) (eq. (61)'s lower bound holds when > 1), ε_l/(π/2·√κ) and ε_r/(π√κ)
    /// (eq. (58) holds when < 1).
    pub stick_over_lower: Option<f64>,
    pub eps_l_over_lower: Option<f64>,
    pub eps_r_over_upper: Option<f64>,
    /// ε_l < ε₃ − t_s < ε_r.
    pub ordering_holds: Option<bool>,
    pub energy_balance_error: Option<f64>,
}

/// The stick measured from one run: its phases and the states inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct StickPhase {
    pub t_s: f64,
    pub duration: f64,
    /// δ, δ̇ at t_s.
    pub delta_s: f64,
    pub delta_dot_s: f64,
    /// θ, θ̇ and δ at ε₃.
    pub theta_end: f64,
    pub omega_end: f64,
    pub delta_end: f64,
    /// (t − t_s, δ, θ̇) inside the stick, in time order.
    pub samples: Vec<(f64, f64, f64)>,
}

impl StickPhase {
    /// The stick of `r` (a slide followed by a stick), with the samples of its trajectory and
    /// outputs inside it.
    pub fn of(r: &RunRecord) -> Option<StickPhase> {
        let slide = r.modes.first().filter(|m| m.mode == Mode::SlideLeft)?;
        let stick = r.modes.get(1).filter(|m| m.mode == Mode::Stick)?;
        let inside = |s: &&Sample| s.mode == Mode::Stick && s.t > slide.t_end && s.t < stick.t_end;
        let mut samples: Vec<(f64, f64, f64)> = r
            .trajectory
            .iter()
            .flatten()
            .chain(&r.outputs)
            .filter(inside)
            .map(|s| (s.t - slide.t_end, -s.q[Y_A], s.qdot[THETA]))
            .collect();
        samples.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(StickPhase {
            t_s: slide.t_end,
            duration: stick.duration,
            delta_s: -slide.q_end[Y_A],
            delta_dot_s: -slide.qdot_end[Y_A],
            theta_end: stick.q_end[THETA],
            omega_end: stick.qdot_end[THETA],
            delta_end: -stick.q_end[Y_A],
            samples,
        })
    }

    /// θ̇_m: the largest |θ̇| at t_s, at the samples and at ε₃.
    pub(crate) fn omega_max(&self, omega_s: f64) -> f64 {
        self.samples
            .iter()
            .map(|s| s.2.abs())
            .fold(omega_s.abs().max(self.omega_end.abs()), f64::max)
    }
}

/// The comparison of one stick with the linear systems (56) (pure: closed forms on the measured
/// stick).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnvelopeComparison {
    pub left: LinearOscillator,
    pub right: LinearOscillator,
    pub eps_l: Option<f64>,
    pub eps_r: Option<f64>,
    pub left_excess: f64,
    pub right_excess: f64,
    /// (t − t_s) of the first sample with δ_l − δ > [`ENVELOPE_TOLERANCE`]·δ(t_s).
    pub left_violation_from: Option<f64>,
}

impl EnvelopeComparison {
    /// Compare `stick` (θ̇_m = `omega_max`) with eq. (56)'s systems for `body` at `kappa`.
    pub fn of(
        body: &PainleveRod,
        kappa: f64,
        stick: &StickPhase,
        omega_max: f64,
    ) -> EnvelopeComparison {
        let left = LinearOscillator::stick_left(body, kappa, omega_max);
        let right = LinearOscillator::stick_right(kappa);
        let (d0, v0) = (stick.delta_s, stick.delta_dot_s);
        let mut left_excess = f64::NEG_INFINITY;
        let mut right_excess = f64::NEG_INFINITY;
        let mut left_violation_from = None;
        for &(t, delta, _) in &stick.samples {
            let l = (left.position(d0, v0, t) - delta) / d0;
            let r = (delta - right.position(d0, v0, t)) / d0;
            if l > ENVELOPE_TOLERANCE && left_violation_from.is_none() {
                left_violation_from = Some(t);
            }
            left_excess = left_excess.max(l);
            right_excess = right_excess.max(r);
        }
        EnvelopeComparison {
            left,
            right,
            eps_l: left.first_passage(d0, v0, stick.delta_end),
            eps_r: right.first_passage(d0, v0, stick.delta_end),
            left_excess,
            right_excess,
            left_violation_from,
        }
    }
}

/// The impact of `state` at `kappa`: run once to locate the stick, then again with
/// [`STICK_SAMPLES`] output times inside it and the trajectory recorded.
pub fn run_impact(
    state: &State,
    kappa: f64,
    settings: &RunSettings,
) -> Result<(RunRecord, SolverStats), SimError> {
    let rod = state.rod(kappa);
    let options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
        .with_guards(settings.t_max, settings.max_steps, settings.max_events);
    let first = rod.simulate(&options)?;
    let mut stats = first.stats;
    let (Some(slide), Some(stick)) = (first.modes.first(), first.modes.get(1)) else {
        return Ok((first, stats));
    };
    if slide.mode != Mode::SlideLeft || stick.mode != Mode::Stick {
        return Ok((first, stats));
    }
    let mut sampled = options;
    sampled.record_trajectory = true;
    sampled.output_times = (1..=STICK_SAMPLES)
        .map(|i| slide.t_end + stick.duration * i as f64 / (STICK_SAMPLES + 1) as f64)
        .collect();
    let second = rod.simulate(&sampled)?;
    stats.add(&second.stats);
    Ok((second, stats))
}

/// The measures of run `r` at `kappa`, static coefficient `mu_s` (pure).
pub fn measure(r: &RunRecord, kappa: f64, mu_s: f64) -> Measures {
    let body = PainleveRod::UNIFORM;
    let mut m = Measures {
        mode_sequence: r.modes_joined(">"),
        energy_balance_error: Some(r.energy.balance_error),
        ..Measures::default()
    };
    let Some(stick) = StickPhase::of(r) else {
        return m;
    };
    let omega_s = r.modes[0].qdot_end[THETA];
    let omega_max = stick.omega_max(omega_s);
    let c = EnvelopeComparison::of(&body, kappa, &stick, omega_max);
    let lower = stick_lower(kappa);
    let upper = stick_upper(kappa);
    m.t_s = Some(stick.t_s);
    m.stick_duration = Some(stick.duration);
    m.delta_s = Some(stick.delta_s);
    m.delta_dot_s = Some(stick.delta_dot_s);
    m.omega_max = Some(omega_max);
    m.delta_star = Some(stick.delta_end);
    m.delta_star_54 =
        Some(kappa * body.stick_end_normal_force(mu_s, stick.theta_end, stick.omega_end));
    m.delta_bar_l = Some(c.left.equilibrium());
    m.delta_bar_r = Some(c.right.equilibrium());
    m.eps_l = c.eps_l;
    m.eps_r = c.eps_r;
    m.left_excess = Some(c.left_excess);
    m.right_excess = Some(c.right_excess);
    m.left_violation_from = c.left_violation_from.map(|t| t / kappa.sqrt());
    m.stick_samples = Some(stick.samples.len());
    m.stick_over_lower = Some(stick.duration / lower);
    m.eps_l_over_lower = c.eps_l.map(|e| e / lower);
    m.eps_r_over_upper = c.eps_r.map(|e| e / upper);
    m.ordering_holds = c
        .eps_l
        .zip(c.eps_r)
        .map(|(l, r)| l < stick.duration && stick.duration < r);
    m
}

impl System for RodStickEnvelope {
    const NAME: &'static str = "rod_stick_envelope";
    const ABOUT: &'static str =
        "the Painlevé rod's stick against Zhao–Liu's comparison oscillators (56): the envelope \
         δ_l ≤ δ ≤ δ_r, the passage times ε_l, ε_r of (58) and the stick's duration (61)";
    const EXAMPLE: &'static str =
        include_str!("../../../experiments/zhao_liu_stick_envelopes.toml");
    const TITLE: &'static str = "Zhao–Liu's comparison envelopes of the stick (eqs. (55)–(61))";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "max_steps", "max_events"];
    type Config = Params;
    type Record = Measures;

    fn validate(p: &Params, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        let own = match p.listed {
            Some(i) => format!("params.states[{i}]"),
            None => "params".to_string(),
        };
        let mut states = vec![(own, p.state())];
        states.extend(
            p.states
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("params.states[{i}]"), *s)),
        );
        for (at, state) in states {
            let ladder = kappa.map_or(1e-8, |k| k.max);
            Scenario::Impact(state.rod(ladder)).validate(|name| match name {
                "kappa" => "sweep.kappa.max".to_string(),
                other => format!("{at}.{other}"),
            })?;
            if state.u0 >= 0.0 {
                return Err(SimError::invalid(
                    &format!("{at}.u0"),
                    state.u0,
                    "must be < 0: the stick of eq. (55) follows a leftward slide",
                ));
            }
        }
        Ok(())
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Measures, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let (r, stats) = run_impact(&p.state(), kappa, settings)?;
        Ok((measure(&r, kappa, p.mu), stats))
    }

    /// `[params]`'s state, then each of `states`.
    fn configurations(grid: Vec<Params>) -> Vec<Params> {
        grid.iter()
            .flat_map(|p| {
                std::iter::once((None, p.state()))
                    .chain(p.states.iter().enumerate().map(|(i, s)| (Some(i), *s)))
                    .map(|(listed, s)| Params {
                        mu: s.mu,
                        theta0: s.theta0,
                        omega0: s.omega0,
                        u0: s.u0,
                        states: Vec::new(),
                        listed,
                    })
            })
            .collect()
    }

    fn input_columns(_: &Params) -> Vec<&'static str> {
        record::columns::<State>()
    }

    fn inputs(p: &Params) -> Result<Cells, String> {
        record::cells(&p.state()).map_err(|e| e.to_string())
    }

    fn quantities(_: &Params) -> Vec<Quantity> {
        vec![Quantity {
            column: "stick_duration",
            component: None,
            symbol: "ε₃ − t_s",
            closed_form: None,
            rigid_limit: None,
            exponent: Some(0.5),
            ..Quantity::default()
        }]
    }

    fn diagnostics() -> &'static [(&'static str, &'static str)] {
        &[("energy_balance_error", "energy balance error")]
    }

    /// stick_samples.csv, for the figure: the stick of the first of `states` (Zhao–Liu's own when
    /// there is none) at the ladder's κ nearest 1e-8 — time from t_s over √κ, δ, δ_l and δ_r over
    /// δ(t_s), and δ*/δ(t_s).
    fn side_tables(
        _: &Params,
        configurations: &[Params],
        kappa: &[f64],
        settings: &RunSettings,
    ) -> Vec<(&'static str, String)> {
        let Some(p) = configurations.get(1).or(configurations.first()) else {
            return Vec::new();
        };
        let Some(&k) = kappa
            .iter()
            .min_by(|a, b| (a.log10() + 8.0).abs().total_cmp(&(b.log10() + 8.0).abs()))
        else {
            return Vec::new();
        };
        let Ok((r, _)) = run_impact(&p.state(), k, settings) else {
            return Vec::new();
        };
        let Some(stick) = StickPhase::of(&r) else {
            return Vec::new();
        };
        let body = PainleveRod::UNIFORM;
        let c = EnvelopeComparison::of(
            &body,
            k,
            &stick,
            stick.omega_max(r.modes[0].qdot_end[THETA]),
        );
        let mut table = Table::new([
            "mu",
            "theta0",
            "omega0",
            "u0",
            "kappa",
            "time_scaled",
            "delta",
            "delta_l",
            "delta_r",
            "delta_star",
        ]);
        let (d0, v0) = (stick.delta_s, stick.delta_dot_s);
        let ends = [(0.0, d0, 0.0), (stick.duration, stick.delta_end, 0.0)];
        let mut points: Vec<(f64, f64, f64)> = stick.samples.clone();
        points.insert(0, ends[0]);
        points.push(ends[1]);
        for (t, delta, _) in points {
            table.push(
                [
                    p.mu,
                    p.theta0,
                    p.omega0,
                    p.u0,
                    k,
                    t / k.sqrt(),
                    delta / d0,
                    c.left.position(d0, v0, t) / d0,
                    c.right.position(d0, v0, t) / d0,
                    stick.delta_end / d0,
                ]
                .map(Cell::from),
            );
        }
        vec![("stick_samples.csv", table.to_csv())]
    }

    fn describe(p: &Params) -> String {
        let mut states = vec![p.state()];
        states.extend(&p.states);
        let listed: Vec<String> = states
            .iter()
            .map(|s| {
                format!(
                    "(μ = μ_s = {}, θ0 = {}, θ̇0 = {}, u0 = {})",
                    s.mu, s.theta0, s.omega0, s.u0
                )
            })
            .collect();
        format!(
            "Uniform rod put down sliding at δ = δ̇ = 0, linear spring (c_d = 0), states {}",
            listed.join(", ")
        )
    }
}
