//! One impact of Klarbring's particle (`model = "klarbring_impacts"`; docs/klarbring.md,
//! "One impact: klarbring_impacts"): the particle starts off the wall (U_N < 0) moving in,
//! hits it, and the run ends at the first opening of the contact. The rigid reference is BB's
//! impact law with Dance's Rem. 2.4 tangential impulse at e = e(c_d) of the compliant law
//! (`compliant::normal::restitution_unit_normal_mass`, unit normal mass: the particle's M = I);
//! the compliant runs over κ give V^κ at the opening, compared with the rigid V⁺. A system on
//! the convergence study (`Convergence<KlarbringImpacts>`) with its own report
//! ([`super::impacts_report`]): each run measures the rigid impact beside the compliant one, so
//! it has no separate rigid reference row.
//!
//! ```toml
//! name = "klarbring_impacts"
//! model = "klarbring_impacts"
//! [params]                      # the particle as in model = "klarbring"
//! stiffness = [[2.5, 0.8, -0.3], [0.8, 1.0, 0.3], [-0.3, 0.3, 1.5]]
//! force_constant = [1.0, 0.0, 0.0]
//! force_sin = [0.0, 1.5, 0.6]
//! force_frequency = [0.0, 1.0, 0.5]
//! mu = 0.8
//! U0 = [-0.02, 0.1, 0.0]        # U_N < 0: off the wall
//! t_end = 1.0                   # the latest time the opening is looked for
//! [sweep]
//! kappa = { min = 1e-8, max = 1e-2, per_decade = 2 }
//! V0 = [[1.0, 2.0, -1.0], [1.0, 0.5, 0.4]]   # the cases: each V0 with each c_d
//! damping = [0.0, 0.5]
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-14
//! ```

use super::params::{Params, Particle};
use super::run::{joined, rigid_run_until};
use crate::compliant::cone::ConeMode;
use crate::compliant::normal::{restitution_unit_normal_mass, NormalCompliance};
use crate::compliant::spatial::{simulate_spatial, SpatialContactProblem, SpatialEvent};
use crate::error::{require_finite, SimError};
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::rows::Cells;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::hybrid::Named;
use crate::integrate::{SolverStats, Tolerances};
use crate::model::ContactSystem;
use crate::models::klarbring::mechanics::KlarbringParticle;
use crate::rigid::{RigidEvent, RigidProblem};
use serde::{Deserialize, Serialize};

/// One impact of Klarbring's particle as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KlarbringImpacts;

/// One case: the particle (as `model = "klarbring"`), its start and the latest time from
/// `[params]`, the initial velocity `V0` and the dashpot c_d (its rigid e = e(c_d)) from
/// `[sweep]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactConfig {
    pub stiffness: Vec<Vec<f64>>,
    pub force_constant: Vec<f64>,
    #[serde(default)]
    pub force_cos: Option<Vec<f64>>,
    #[serde(default)]
    pub force_sin: Option<Vec<f64>>,
    #[serde(default)]
    pub force_frequency: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_polynomial: Option<Vec<Vec<f64>>>,
    pub mu: f64,
    /// The start, off the wall: `U0[0]` = U_N < 0.
    #[serde(rename = "U0")]
    pub u0: Vec<f64>,
    /// The latest time at which the first opening is looked for.
    pub t_end: f64,
    /// The initial velocity, normal first (swept: `[sweep] V0 = [[…], …]`).
    #[serde(rename = "V0", default)]
    pub v0: Vec<f64>,
    /// The dashpot c_d of the spring–dashpot law (swept: `[sweep] damping = […]`).
    #[serde(default)]
    pub damping: f64,
}

/// What one run measures: the rigid impact (its time, V⁻, V⁺) and the compliant run at κ to its
/// first opening.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ImpactRecord {
    pub t_impact_rigid: f64,
    #[serde(rename = "V_minus")]
    pub v_minus: Vec<f64>,
    #[serde(rename = "V_plus_rigid")]
    pub v_plus_rigid: Vec<f64>,
    /// Whether the rigid impact sticks (V_T⁺ = 0).
    pub impact_sticks: bool,
    pub mode_sequence: String,
    pub event_kinds: String,
    pub event_times: Vec<f64>,
    pub t_close_minus_t_impact: f64,
    pub contact_duration: f64,
    #[serde(rename = "V_open")]
    pub v_open: Vec<f64>,
    /// e^κ = −V_N(t_open)/V_N(t_close).
    pub restitution_measured: f64,
    /// ‖V^κ(t_open) − V⁺‖, and its normal and tangential parts.
    #[serde(rename = "d_V_plus")]
    pub d_v_plus: f64,
    #[serde(rename = "d_V_plus_normal")]
    pub d_v_plus_normal: f64,
    #[serde(rename = "d_V_plus_tangential")]
    pub d_v_plus_tangential: f64,
}

impl ImpactConfig {
    /// The case as the Params of `model = "klarbring"` (method compliant, e = e(c_d)): one
    /// particle, one set of checks.
    pub fn case(&self) -> Result<Params, SimError> {
        Ok(Params {
            stiffness: self.stiffness.clone(),
            force_constant: self.force_constant.clone(),
            force_cos: self.force_cos.clone(),
            force_sin: self.force_sin.clone(),
            force_frequency: self.force_frequency.clone(),
            force_polynomial: self.force_polynomial.clone(),
            mu: self.mu,
            restitution: restitution_unit_normal_mass(self.damping)?,
            u0: self.u0.clone(),
            v0: self.v0.clone(),
            t_end: self.t_end,
            method: MethodKind::Compliant,
            damping: self.damping,
        })
    }
}

impl System for KlarbringImpacts {
    const NAME: &'static str = "klarbring_impacts";
    const TITLE: &'static str = "one impact of Klarbring's particle";
    const ABOUT: &'static str =
        "one impact of Klarbring's particle to the first opening: compliant post-impact \
         velocity against the rigid impact law with e = e(c_d)";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    const EXAMPLE: &'static str = include_str!("../../../experiments/klarbring_impacts.toml");
    type Config = ImpactConfig;
    type Record = ImpactRecord;

    fn validate(c: &ImpactConfig, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        let n = c.stiffness.len();
        if c.v0.is_empty() {
            return Err(SimError::invalid(
                "sweep.V0",
                "missing",
                "list the initial velocities, normal first: V0 = [[1.0, 2.0, -1.0]] in [sweep] (--set V0=[1.0,2.0,-1.0] for simulate)",
            ));
        }
        if c.v0.len() != n {
            return Err(SimError::invalid(
                "sweep.V0",
                crate::error::as_written(&c.v0),
                &format!(
                    "each initial velocity must have {n} components (the dimension of params.stiffness), normal first"
                ),
            ));
        }
        for (j, &x) in c.v0.iter().enumerate() {
            require_finite(&format!("sweep.V0[{j}]"), x)?;
        }
        crate::compliant::normal::require_resolvable_damping("sweep.damping", c.damping)?;
        if c.u0.first().is_some_and(|&u| u >= 0.0) {
            return Err(SimError::invalid(
                "params.U0",
                crate::error::as_written(&c.u0),
                "the particle must start off the wall, U0[0] = U_N < 0 (BB: U_N ≤ 0 admissible), \
                 so that its first event is the impact",
            ));
        }
        let params = c.case()?;
        params.validate()?;
        params.check_scales(kappa.map(|k| k.max))
    }

    fn run(
        c: &ImpactConfig,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(ImpactRecord, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let p = c.case()?;
        let (max_steps, max_events) = super::guards(settings.max_steps, settings.max_events);
        let settings = crate::compliant::spatial::RunSettings {
            integrator: settings.integrator,
            tolerances: Tolerances {
                rtol: settings.rtol,
                atol: settings.atol,
            },
            t_end: p.t_end,
            output_times: Vec::new(),
            max_steps,
            max_events,
        };
        match p.particle()? {
            Particle::Planar(k) => impact_point::<2, 1>(&k, &p, kappa, &settings),
            Particle::Spatial(k) => impact_point::<3, 2>(&k, &p, kappa, &settings),
        }
    }

    /// None for the generic summary: the report (`impacts_report::write_report`) fits the
    /// distances to V⁺ and the restitution measured.
    fn quantities(_: &ImpactConfig) -> Vec<Quantity> {
        Vec::new()
    }

    fn input_columns(_: &ImpactConfig) -> Vec<&'static str> {
        vec!["V0", "damping", "restitution"]
    }

    /// The case and its rigid restitution e(c_d) (derived from c_d alone: written for a failed
    /// run too).
    fn inputs(c: &ImpactConfig) -> Result<Cells, String> {
        Ok(vec![
            ("V0", joined(&c.v0)),
            ("damping", c.damping.to_string()),
            (
                "restitution",
                restitution_unit_normal_mass(c.damping)
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            ),
        ])
    }

    fn describe(c: &ImpactConfig) -> String {
        format!(
            "K = {:?}, μ = {}, U0 = {:?}, V0 = {:?}, c_d = {}; the run ends at the first opening",
            c.stiffness, c.mu, c.u0, c.v0, c.damping
        )
    }
}

/// Whether a compliant run reached its first opening: a contact mode followed by free.
fn opens(from: ConeMode, to: ConeMode) -> bool {
    from.is_contact() && to == ConeMode::Free
}

fn norm(v: impl Iterator<Item = f64>) -> f64 {
    v.map(|x| x * x).sum::<f64>().sqrt()
}

/// The rigid impact (time, V⁻, V⁺ by the solver's own reset) and the compliant run at κ to its
/// first opening.
fn impact_point<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    kappa: f64,
    settings: &crate::compliant::spatial::RunSettings,
) -> Result<(ImpactRecord, SolverStats), SimError>
where
    KlarbringParticle<N>: ContactSystem<N, D, 1>,
{
    let q0: [f64; N] = std::array::from_fn(|i| p.u0[i]);
    let v0: [f64; N] = std::array::from_fn(|i| p.v0[i]);
    let no_impact = || {
        SimError::invalid(
            "params.t_end",
            p.t_end,
            "the particle must reach the wall and leave it before t_end: raise t_end",
        )
    };
    let rigid = rigid_run_until::<N, D>(particle, p, settings, |_, _| true)?;
    let impact = rigid
        .events
        .first()
        .filter(|e| e.event == RigidEvent::Impact)
        .ok_or_else(no_impact)?;
    let mut after = impact.y_before.clone();
    RigidProblem::<_, N, D>::new(particle, p.mu, p.restitution, &q0)?.apply_impact(&mut after);
    let v_minus = &impact.y_before[N..2 * N];
    let v_plus = &after[N..2 * N];
    let sticks = v_plus[1..].iter().all(|&v| v == 0.0);

    let problem = SpatialContactProblem::<_, N, D> {
        system: particle,
        compliance: NormalCompliance::spring_dashpot(kappa, p.damping),
        mu: p.mu,
    };
    let run = simulate_spatial(
        &problem,
        &problem.initial_state(&q0, &v0),
        settings,
        Some(opens),
    )?;
    let close = run
        .events
        .iter()
        .find(|e| e.event == SpatialEvent::ContactCloses);
    let open = run
        .events
        .last()
        .filter(|e| run.trace.stopped && e.event == SpatialEvent::ContactOpens);
    let (Some(close), Some(open)) = (close, open) else {
        return Err(no_impact());
    };
    let v_close = &close.y_before[N..2 * N];
    let v_open = &open.y_before[N..2 * N];
    let modes: Vec<&str> = run.trace.phases.iter().map(|ph| ph.mode.name()).collect();
    let kinds: Vec<&str> = run.events.iter().map(|e| e.event.name()).collect();
    let times: Vec<f64> = run.events.iter().map(|e| e.t).collect();
    let record = ImpactRecord {
        t_impact_rigid: impact.t,
        v_minus: v_minus.to_vec(),
        v_plus_rigid: v_plus.to_vec(),
        impact_sticks: sticks,
        mode_sequence: modes.join(" "),
        event_kinds: kinds.join(" "),
        event_times: times,
        t_close_minus_t_impact: close.t - impact.t,
        contact_duration: open.t - close.t,
        v_open: v_open.to_vec(),
        restitution_measured: -v_open[0] / v_close[0],
        d_v_plus: norm(v_open.iter().zip(v_plus).map(|(a, b)| a - b)),
        d_v_plus_normal: (v_open[0] - v_plus[0]).abs(),
        d_v_plus_tangential: norm(v_open[1..].iter().zip(&v_plus[1..]).map(|(a, b)| a - b)),
    };
    Ok((record, run.trace.stats))
}
