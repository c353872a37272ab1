//! The rod slipping into its G-spot (`model = "rod_gspot"`): a [`System`] of the convergence
//! study. A uniform rod slides leftward from a consistent, pressing state (p > 0, b < 0) whose
//! rigid slip reaches p = b = 0 in finite time t* ([`super::gspot`]: C–V's case G1, λ_N → ∞);
//! the compliant rod, started at the quasi-static penetration, runs to separation. The rigid
//! reference is the slip itself, integrated in C–V's rescaled time up to the G-spot.
//!
//! ```toml
//! name = "gspot_rod"
//! model = "rod_gspot"
//! [params]
//! mu = 2.0
//! theta0 = 0.277      # a start whose rigid slip reaches the G-spot
//! omega0 = 1.262
//! u0 = -2.0
//! damping = 0.0       # c_d
//! [sweep]
//! kappa = { min = 1e-11, max = 1e-4, per_decade = 2 }
//! damping = [0.0, 1.0]
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-12
//! t_max = 2.0
//! ```
//!
//! Near t* the contact's normal frequency √(p/κ) falls with p ∝ t* − t; the quasi-static force
//! −b/p stops being followed once √(p/κ)·(t* − t) ~ 1, i.e. at t* − t ~ κ^{1/3}, where the
//! compliant slip crosses p = 0 and its Painlevé instability (growth rate √(|p|/κ) ~ κ^{-1/3})
//! stops the slip with an O(1) impulse: the slip's end should approach t* like κ^{1/3} and the
//! peak normal force grow like κ^{-1/3} (docs/champneys_varkonyi.md, "The G-spot").

use super::gspot::{approachable_gspot, gspot_rates, rigid_slip, slip_stop, SlipEnd};
use super::mechanics::{PainleveRod, THETA};
use super::scenario::{RodImpact, Scenario};
use crate::compliant::coulomb::Mode;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{require_finite, require_positive, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::SolverStats;
use crate::model::gspot::GspotCase;
use serde::{Deserialize, Serialize};

/// The rod slipping into its G-spot as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodGspot;

/// `[params]`: the uniform rod's leftward slip (the input columns of runs.csv, in this order).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Coulomb coefficient μ (static = kinetic).
    pub mu: f64,
    pub theta0: f64,
    pub omega0: f64,
    /// Slip velocity of the contact point, < 0 (leftward).
    pub u0: f64,
    /// Dashpot c_d ≥ 0 (default 0: linear spring).
    #[serde(default)]
    pub damping: f64,
}

impl Params {
    fn rod(&self, kappa: f64) -> RodImpact {
        RodImpact::uniform(
            kappa,
            self.mu,
            self.theta0,
            self.omega0,
            self.u0,
            self.damping,
        )
    }
}

/// What one run measures: runs.csv's columns from `mode_sequence` on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// The modes in time order, joined by `>` (the rigid reference: `slide_left>` and how its
    /// slip ends, `gspot` at a dynamic jam).
    pub mode_sequence: String,
    /// The end of the first slip phase (rigid: t*).
    pub t_slip_end: Option<f64>,
    /// The rigid slip's end t* (every row: the limit of `t_slip_end`).
    pub t_slip_end_rigid: f64,
    /// ∫F_n dt over the first slip phase (rigid: up to t*, finite at a G1 approach).
    pub slip_normal_impulse: Option<f64>,
    pub peak_normal_force: Option<f64>,
    /// ∫F_n dt to separation, and the rigid slip's plus the slip stop's at the G-spot
    /// ([`super::gspot::SlipStop`]: the continuation the compliant runs are held against).
    pub impulse_normal: Option<f64>,
    pub impulse_normal_slip_stop: f64,
    pub separated: Option<bool>,
    pub t_separation: Option<f64>,
    /// The velocities when the contact opens: slip u, normal v, spin θ̇; v and θ̇ after the slip
    /// stop.
    pub u_out: Option<f64>,
    pub v_out: Option<f64>,
    pub v_out_slip_stop: f64,
    pub omega_out: Option<f64>,
    pub omega_out_slip_stop: f64,
    pub energy_balance_error: Option<f64>,
}

/// The rigid slip of `p` (the reference of every row).
fn rigid(p: &Params) -> Result<super::gspot::RigidSlip, SimError> {
    rigid_slip(&PainleveRod::UNIFORM, p.mu, p.theta0, p.omega0, p.u0)
}

impl System for RodGspot {
    const NAME: &'static str = "rod_gspot";
    const ABOUT: &'static str =
        "the Painlevé rod slipping into its G-spot p = b = 0 (Champneys–Várkonyi §5.1): the \
         compliant dynamic jam as κ → 0 against the rigid slip";
    const EXAMPLE: &'static str = include_str!("../../../experiments/gspot_rod.toml");
    const TITLE: &'static str = "the Painlevé rod slipping into its G-spot (dynamic jam)";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "max_steps", "max_events"];
    const RIGID: bool = true;
    type Config = Params;
    type Record = Measures;

    fn validate(p: &Params, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        require_positive("params.mu", p.mu)?;
        for (key, value) in [
            ("params.theta0", p.theta0),
            ("params.omega0", p.omega0),
            ("params.u0", p.u0),
        ] {
            require_finite(key, value)?;
        }
        if let Some(kappa) = kappa {
            Scenario::Sustained {
                rod: p.rod(kappa.max),
                t_end: 1.0,
            }
            .validate(|name| match name {
                "kappa" => "sweep.kappa.max".to_string(),
                other => format!("params.{other}"),
            })?;
        }
        rigid(p).map(|_| ())
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Measures, SolverStats), SimError> {
        let reference = rigid(p)?;
        let stop = slip_stop(&PainleveRod::UNIFORM, p.mu, &reference);
        let mut m = Measures {
            t_slip_end_rigid: reference.t,
            impulse_normal_slip_stop: reference.normal_impulse + stop.normal_impulse,
            v_out_slip_stop: stop.v_after,
            omega_out_slip_stop: stop.omega_after,
            ..Measures::default()
        };
        let Method::Compliant { kappa } = method else {
            let end = match reference.end {
                SlipEnd::Gspot => "gspot",
                SlipEnd::LiftOff => "free",
                SlipEnd::Stick => "stick",
                SlipEnd::Slipping => "slide_left",
            };
            m.mode_sequence = format!("slide_left>{end}");
            m.t_slip_end = Some(reference.t);
            m.slip_normal_impulse = Some(reference.normal_impulse);
            return Ok((m, SolverStats::default()));
        };
        let rod = p.rod(kappa);
        let (q0, qdot0) = Scenario::Sustained { rod, t_end: 1.0 }.initial_state()?;
        let body = rod.body();
        let problem = ContactProblem {
            system: &body,
            compliance: rod.compliance(),
            friction: rod.friction(),
        };
        let mut options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
            .with_guards(settings.t_max, settings.max_steps, settings.max_events);
        options.end = EndCondition::Separation;
        let r = simulate(&problem, &q0, &qdot0, &options)?;
        let slip = r.modes.first().filter(|i| i.mode == Mode::SlideLeft);
        let post = r.post_impact.as_ref();
        m.mode_sequence = r.modes_joined(">");
        m.t_slip_end = slip.map(|i| i.t_end);
        m.slip_normal_impulse = slip.map(|i| i.impulse_normal_end);
        m.peak_normal_force = Some(r.peak_normal_force);
        m.impulse_normal = Some(r.impulse_normal);
        m.separated = Some(r.separated);
        m.t_separation = post.map(|s| s.t);
        m.u_out = post.map(|s| s.u);
        m.v_out = post.map(|s| s.v);
        m.omega_out = post.map(|s| s.qdot[THETA]);
        m.energy_balance_error = Some(r.energy.balance_error);
        Ok((m, r.stats))
    }

    fn quantities(_: &Params) -> Vec<Quantity> {
        vec![
            Quantity {
                column: "t_slip_end",
                component: None,
                symbol: "t_slip",
                closed_form: None,
                rigid_limit: Some("t_slip_end_rigid"),
                exponent: Some(1.0 / 3.0),
                ..Quantity::default()
            },
            Quantity {
                column: "impulse_normal",
                component: None,
                symbol: "∫F_n",
                closed_form: None,
                rigid_limit: Some("impulse_normal_slip_stop"),
                exponent: None,
                ..Quantity::default()
            },
            Quantity {
                column: "v_out",
                component: None,
                symbol: "v_out",
                closed_form: None,
                rigid_limit: Some("v_out_slip_stop"),
                exponent: None,
                ..Quantity::default()
            },
            Quantity {
                column: "omega_out",
                component: None,
                symbol: "θ̇_out",
                closed_form: None,
                rigid_limit: Some("omega_out_slip_stop"),
                exponent: None,
                ..Quantity::default()
            },
        ]
    }

    fn diagnostics() -> &'static [(&'static str, &'static str)] {
        &[
            ("peak_normal_force", "peak normal force"),
            ("energy_balance_error", "energy balance error"),
        ]
    }

    /// Closed forms only (the report runs no solver): the G-spot and C–V's case there; the
    /// rigid slip's t* is in the rows.
    fn describe(p: &Params) -> String {
        let rod = PainleveRod::UNIFORM;
        let mut text = format!(
            "Uniform rod, μ = {}, start θ0 = {}, θ̇0 = {}, u0 = {} at the quasi-static penetration, c_d = {}",
            p.mu, p.theta0, p.omega0, p.u0, p.damping
        );
        if let Some(g) = approachable_gspot(&rod, p.mu) {
            let rates = gspot_rates(&rod, p.mu, g.theta, g.omega);
            let approach = match rates.case() {
                GspotCase::G1 => "case G1 (λ_N → ∞)",
                GspotCase::G2 => "case G2 (λ_N finite)",
                GspotCase::NotAttracting => "not attracting",
            };
            text += &format!(
                ". G-spot θ* = {:.6}, θ̇* = {:.6}: α₁ = {:.4}, α₂ = {:.4}, α₃ = {:.4}, {approach}",
                g.theta, g.omega, rates.alpha1, rates.alpha2, rates.alpha3
            );
        }
        text
    }
}
