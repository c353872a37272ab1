//! One impact of Klarbring's particle (`model = "klarbring_impacts"`; docs/klarbring.md,
//! "One impact: klarbring_impacts"): the particle starts off the wall (U_N < 0) moving in,
//! hits it, and the run ends at the first opening of the contact. The rigid reference is BB's
//! impact law with Dance's Rem. 2.4 tangential impulse at e = e(c_d) of the compliant law
//! (`compliant::normal::restitution_unit_normal_mass`, unit normal mass: the particle's M = I);
//! the compliant runs over κ give V^κ at the opening, compared with the rigid V⁺.
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
use super::KlarbringImpacts;
use crate::compliant::cone::ConeMode;
use crate::compliant::normal::{restitution_unit_normal_mass, NormalCompliance};
use crate::compliant::spatial::{
    simulate_spatial, RunSettings, SpatialContactProblem, SpatialEvent,
};
use crate::error::{require_finite, SimError};
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::hybrid::Named;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::model::ContactSystem;
use crate::models::klarbring::mechanics::KlarbringParticle;
use crate::rigid::{RigidEvent, RigidProblem};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `[params]`: the particle (as `model = "klarbring"`), its start position and the latest time.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactParams {
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
    /// The start, off the wall: U0[0] = U_N < 0.
    #[serde(rename = "U0")]
    pub u0: Vec<f64>,
    /// The latest time at which the first opening is looked for.
    pub t_end: f64,
}

/// `[sweep]`: the κ ladder and the cases (every `V0` with every `damping`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactSweep {
    pub kappa: LogGrid,
    #[serde(rename = "V0")]
    pub v0: Vec<Vec<f64>>,
    pub damping: Vec<f64>,
}

/// The one report of this model.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    PostImpact,
}

/// One case: the initial velocity and the dashpot c_d (its rigid e = e(c_d)).
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactCase {
    pub v0: Vec<f64>,
    pub damping: f64,
}

impl ImpactParams {
    /// The case as the Params of `model = "klarbring"` (method compliant, e = e(c_d)): one
    /// particle, one set of checks.
    pub fn case(&self, case: &ImpactCase) -> Result<Params, SimError> {
        Ok(Params {
            stiffness: self.stiffness.clone(),
            force_constant: self.force_constant.clone(),
            force_cos: self.force_cos.clone(),
            force_sin: self.force_sin.clone(),
            force_frequency: self.force_frequency.clone(),
            force_polynomial: self.force_polynomial.clone(),
            mu: self.mu,
            restitution: restitution_unit_normal_mass(case.damping)?,
            u0: self.u0.clone(),
            v0: case.v0.clone(),
            t_end: self.t_end,
            method: MethodKind::Compliant,
            damping: case.damping,
        })
    }
}

impl Model for KlarbringImpacts {
    const NAME: &'static str = "klarbring_impacts";
    const ABOUT: &'static str =
        "one impact of Klarbring's particle to the first opening: compliant post-impact \
         velocity against the rigid impact law with e = e(c_d)";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    type Params = ImpactParams;
    type Sweep = ImpactSweep;
    type Analysis = Analysis;
    type Config = ImpactCase;
    const INPUT_COLUMNS: &'static [&'static str] = &["V0", "damping", "restitution"];
    const MEASURE_COLUMNS: &'static [&'static str] = &[
        "t_impact_rigid",
        "V_minus",
        "V_plus_rigid",
        "impact_sticks",
        "mode_sequence",
        "event_kinds",
        "event_times",
        "t_close_minus_t_impact",
        "contact_duration",
        "V_open",
        "restitution_measured",
        "d_V_plus",
        "d_V_plus_normal",
        "d_V_plus_tangential",
    ];

    fn kappa(sweep: &ImpactSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        crate::compliant::normal::require_resolvable_kappa(
            "sweep.kappa.min",
            spec.sweep.kappa.min,
        )?;
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            spec.sweep.kappa.max,
        )?;
        let p = &spec.params;
        let n = p.stiffness.len();
        if spec.sweep.v0.is_empty() || spec.sweep.damping.is_empty() {
            return Err(SimError::invalid(
                "sweep.V0 / sweep.damping",
                "[]",
                "list at least one initial velocity and one c_d",
            ));
        }
        for (i, v) in spec.sweep.v0.iter().enumerate() {
            if v.len() != n {
                return Err(SimError::invalid(
                    &format!("sweep.V0[{i}]"),
                    crate::error::as_written(v),
                    &format!("must have {n} components (the dimension of params.stiffness), normal first"),
                ));
            }
            for (j, &x) in v.iter().enumerate() {
                require_finite(&format!("sweep.V0[{i}][{j}]"), x)?;
            }
        }
        for (i, &c) in spec.sweep.damping.iter().enumerate() {
            crate::compliant::normal::require_resolvable_damping(
                &format!("sweep.damping[{i}]"),
                c,
            )?;
        }
        if p.u0.first().is_some_and(|&u| u >= 0.0) {
            return Err(SimError::invalid(
                "params.U0",
                crate::error::as_written(&p.u0),
                "the particle must start off the wall, U0[0] = U_N < 0 (BB: U_N ≤ 0 admissible), \
                 so that its first event is the impact",
            ));
        }
        for case in Self::configurations(spec) {
            let params = p.case(&case)?;
            params.validate()?;
            params.check_scales(Some(spec.sweep.kappa.max))?;
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        (spec.sweep.v0.len() as u128).saturating_mul(spec.sweep.damping.len() as u128)
    }

    /// Every V0 with every c_d, V0 outermost.
    fn configurations(spec: &SweepSpec<Self>) -> Vec<ImpactCase> {
        spec.sweep
            .v0
            .iter()
            .flat_map(|v0| {
                spec.sweep.damping.iter().map(|&damping| ImpactCase {
                    v0: v0.clone(),
                    damping,
                })
            })
            .collect()
    }

    fn inputs(case: &ImpactCase) -> Cells {
        vec![
            ("V0", joined(&case.v0)),
            ("damping", case.damping.to_string()),
            (
                "restitution",
                restitution_unit_normal_mass(case.damping)
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            ),
        ]
    }

    fn run(
        spec: &SweepSpec<Self>,
        case: &ImpactCase,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let p = spec.params.case(case).map_err(|e| e.to_string())?;
        let settings = RunSettings {
            integrator,
            tolerances: Tolerances {
                rtol: spec.solver.rtol,
                atol: spec.solver.atol,
            },
            t_end: p.t_end,
            output_times: Vec::new(),
            max_steps: super::sweep_guards(spec).0,
            max_events: super::sweep_guards(spec).1,
        };
        let result = match p.particle().map_err(|e| e.to_string())? {
            Particle::Planar(k) => impact_point::<2, 1>(&k, &p, kappa, &settings),
            Particle::Spatial(k) => impact_point::<3, 2>(&k, &p, kappa, &settings),
        };
        result.map_err(|e| e.to_string())
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        super::impacts_report::write_report(spec, rows, dir)
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
/// first opening, as the cells of a row.
fn impact_point<const N: usize, const D: usize>(
    particle: &KlarbringParticle<N>,
    p: &Params,
    kappa: f64,
    settings: &RunSettings,
) -> Result<(Cells, SolverStats), SimError>
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
    let cells = vec![
        ("t_impact_rigid", impact.t.to_string()),
        ("V_minus", joined(v_minus)),
        ("V_plus_rigid", joined(v_plus)),
        ("impact_sticks", sticks.to_string()),
        ("mode_sequence", modes.join(" ")),
        ("event_kinds", kinds.join(" ")),
        ("event_times", joined(&times)),
        ("t_close_minus_t_impact", (close.t - impact.t).to_string()),
        ("contact_duration", (open.t - close.t).to_string()),
        ("V_open", joined(v_open)),
        (
            "restitution_measured",
            (-v_open[0] / v_close[0]).to_string(),
        ),
        (
            "d_V_plus",
            norm(v_open.iter().zip(v_plus).map(|(a, b)| a - b)).to_string(),
        ),
        ("d_V_plus_normal", (v_open[0] - v_plus[0]).abs().to_string()),
        (
            "d_V_plus_tangential",
            norm(v_open[1..].iter().zip(&v_plus[1..]).map(|(a, b)| a - b)).to_string(),
        ),
    ];
    Ok((cells, run.trace.stats))
}
