//! The oblique impact of the planar single contact (`model = "planar"`,
//! `analysis = "oblique_impact"`; docs/oblique_impact.md): each run starts touching (y = 0)
//! with incoming velocities (u⁻, v⁻), v⁻ < 0, and ends when the compliant contact first opens;
//! its (u⁺, v⁺) is set beside the rigid impact map of C–V §3.2 ([`crate::rigid::oblique_impact`])
//! under the energetic and the Poisson law, each at the normal law's frictionless restitution
//! ([`NormalCompliance::frictionless_restitution`]). The grid is contacts × normal laws ×
//! incidence u⁻/|v⁻|.
//!
//! ```toml
//! name = "oblique_impact_map"
//! model = "planar"
//! analysis = "oblique_impact"
//! [params]
//! a = 0.0          # the free accelerations: their O(√κ) effect on an impact vanishes as κ → 0
//! b = -1.0
//! v_minus = -1.0
//! [sweep]
//! kappa = { min = 1e-10, max = 1e-6, per_decade = 1 }
//! contacts = [{ A = 1.0, B = 0.5, C = 1.0, mu = 0.8 }]
//! laws = [{ law = "spring_dashpot", damping = 0.0 }, { law = "hunt_crossley", damping = 0.0 }]
//! incidence = { min = -3.0, max = 3.0, n = 25 }    # u⁻/|v⁻|
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-12
//! window_scaled = 100
//! ```

use super::mechanics::ConstantPlanar;
use crate::compliant::coulomb::{Coulomb, Mode};
use crate::compliant::normal::{NormalCompliance, NormalLaw};
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{require_finite, SimError};
use crate::experiment::grammar::{Axis, LogGrid, SolverSpec};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::rigid::oblique_impact::{ImpactContact, ImpactOutcome, RestitutionLaw};
use crate::study::fast;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub use super::PlanarObliqueImpact;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ImpactAnalysis {
    ObliqueImpact,
}

/// `[params]`: the free accelerations and the incoming normal velocity.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactParams {
    /// a: free tangential acceleration.
    pub a: f64,
    /// b: free normal acceleration.
    pub b: f64,
    /// v⁻ < 0: the incoming normal velocity of every run.
    pub v_minus: f64,
}

/// One contact of `[sweep] contacts`: C–V's mobilities and μ.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ContactData {
    #[serde(rename = "A")]
    pub tangential_mobility: f64,
    #[serde(rename = "B")]
    pub cross_mobility: f64,
    #[serde(rename = "C")]
    pub normal_mobility: f64,
    pub mu: f64,
}

impl ContactData {
    pub fn contact(&self) -> ImpactContact {
        ImpactContact {
            tangential_mobility: self.tangential_mobility,
            cross_mobility: self.cross_mobility,
            normal_mobility: self.normal_mobility,
            mu: self.mu,
        }
    }
}

/// One normal law of `[sweep] laws`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LawData {
    pub law: NormalLaw,
    /// c_d (spring–dashpot) or Hunt–Crossley's α; default 0.
    #[serde(default)]
    pub damping: f64,
}

/// Checks a κ ladder (resolvable at its smallest κ, a penetration small against the body at its
/// largest) and `[sweep] laws` (at least one, each damping resolvable); errors name the key.
pub fn validate_ladder_and_laws(kappa: &LogGrid, laws: &[LawData]) -> Result<(), SimError> {
    crate::compliant::normal::require_penetrating_less_than_the_body("sweep.kappa.max", kappa.max)?;
    crate::compliant::normal::require_resolvable_kappa("sweep.kappa.min", kappa.min)?;
    if laws.is_empty() {
        return Err(SimError::invalid(
            "sweep.laws",
            "[]",
            "list at least one law { law, damping }",
        ));
    }
    for (i, l) in laws.iter().enumerate() {
        crate::compliant::normal::require_resolvable_damping(
            &format!("sweep.laws[{i}].damping"),
            l.damping,
        )?;
    }
    Ok(())
}

/// The compliant run of the planar `system` under `law` at κ with Coulomb μ from (q0, q̇0),
/// with the solver settings of `solver`, until `end` (or `t_max`).
#[allow(clippy::too_many_arguments)]
pub fn run_compliant(
    system: &ConstantPlanar,
    law: LawData,
    mu: f64,
    kappa: f64,
    (q0, qdot0): ([f64; 2], [f64; 2]),
    integrator: IntegratorKind,
    solver: &SolverSpec,
    (end, t_max): (EndCondition, Option<f64>),
) -> Result<RunRecord, String> {
    let problem = ContactProblem {
        system,
        compliance: NormalCompliance::of(law.law, kappa, law.damping),
        friction: Coulomb::equal(mu),
    };
    let mut options = SimulationOptions::new(integrator, solver.rtol, solver.atol).with_guards(
        None,
        solver.max_steps,
        solver.max_events,
    );
    options.end = end;
    if let Some(t) = t_max {
        options.t_max = t;
    }
    simulate(&problem, &q0, &qdot0, &options).map_err(|e| e.to_string())
}

/// `[sweep]`: κ, the contacts, the normal laws, the incidence ratios u⁻/|v⁻|.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactSweep {
    pub kappa: LogGrid,
    pub contacts: Vec<ContactData>,
    pub laws: Vec<LawData>,
    pub incidence: Axis,
}

/// One run's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactCase {
    pub a: f64,
    pub b: f64,
    pub contact: ContactData,
    pub law: LawData,
    pub u_minus: f64,
    pub v_minus: f64,
}

impl ImpactCase {
    fn system(&self) -> ConstantPlanar {
        ConstantPlanar {
            free_tangential_accel: self.a,
            free_normal_accel: self.b,
            tangential_mobility: self.contact.tangential_mobility,
            cross_mobility: self.contact.cross_mobility,
            normal_mobility: self.contact.normal_mobility,
        }
    }

    fn compliance(&self, kappa: f64) -> NormalCompliance {
        NormalCompliance::of(self.law.law, kappa, self.law.damping)
    }

    /// The rigid law's coefficient: the normal law's frictionless restitution (κ-free).
    pub fn restitution(&self) -> Option<f64> {
        self.compliance(1.0)
            .frictionless_restitution(self.contact.normal_mobility)
    }

    /// The rigid impact map under `law` at the normal law's restitution.
    fn rigid(&self, law: fn(f64) -> RestitutionLaw) -> Option<ImpactOutcome> {
        let r = self.restitution()?;
        self.contact
            .contact()
            .impact(self.u_minus, self.v_minus, law(r))
            .ok()
    }
}

const INPUTS: &[&str] = &[
    "a",
    "b",
    "A",
    "B",
    "C",
    "mu",
    "law",
    "damping",
    "u_minus",
    "v_minus",
    "p_plus",
    "p_minus",
    "k_plus",
    "k_minus",
    "restitution",
    "energetic_sequence",
    "u_plus_energetic",
    "v_plus_energetic",
    "poisson_sequence",
    "u_plus_poisson",
    "v_plus_poisson",
];

const MEASURES: &[&str] = &[
    "mode_sequence",
    "u_plus",
    "v_plus",
    "contact_duration_scaled",
    "d_energetic",
    "d_poisson",
];

fn configurations_of(spec: &SweepSpec<PlanarObliqueImpact>) -> Vec<ImpactCase> {
    let p = &spec.params;
    let mut out = Vec::new();
    for contact in &spec.sweep.contacts {
        for law in &spec.sweep.laws {
            for w in spec.sweep.incidence.values() {
                out.push(ImpactCase {
                    a: p.a,
                    b: p.b,
                    contact: *contact,
                    law: *law,
                    u_minus: w * -p.v_minus,
                    v_minus: p.v_minus,
                });
            }
        }
    }
    out
}

impl Model for PlanarObliqueImpact {
    const NAME: &'static str = "planar";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = ImpactParams;
    type Sweep = ImpactSweep;
    type Analysis = ImpactAnalysis;
    type Config = ImpactCase;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] = MEASURES;

    fn kappa(sweep: &ImpactSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        let kappa_max = spec.sweep.kappa.max;
        validate_ladder_and_laws(&spec.sweep.kappa, &spec.sweep.laws)?;
        let p = &spec.params;
        require_finite("params.a", p.a)?;
        require_finite("params.b", p.b)?;
        require_finite("params.v_minus", p.v_minus)?;
        if p.v_minus >= 0.0 {
            return Err(SimError::invalid(
                "params.v_minus",
                p.v_minus,
                "must be < 0: the contact point approaches the surface",
            ));
        }
        crate::compliant::normal::require_penetrating_speed(
            "params.v_minus",
            p.v_minus,
            "sweep.kappa.max",
            kappa_max,
        )?;
        if spec.sweep.contacts.is_empty() {
            return Err(SimError::invalid(
                "sweep.contacts",
                "[]",
                "list at least one contact { A, B, C, mu }",
            ));
        }
        for (i, c) in spec.sweep.contacts.iter().enumerate() {
            c.contact()
                .validate_keyed(|k| format!("sweep.contacts[{i}].{k}"))?;
        }
        spec.sweep.incidence.validate("sweep.incidence")?;
        for w in spec.sweep.incidence.values() {
            crate::compliant::normal::require_penetrating_speed(
                "sweep.incidence",
                w * p.v_minus,
                "sweep.kappa.max",
                kappa_max,
            )?;
        }
        fast::window(&spec.solver)?;
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        (spec.sweep.contacts.len() as u128)
            .saturating_mul(spec.sweep.laws.len() as u128)
            .saturating_mul(spec.sweep.incidence.len() as u128)
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<ImpactCase> {
        configurations_of(spec)
    }

    fn inputs(c: &ImpactCase) -> Cells {
        let k = c.contact.contact();
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let energetic = c.rigid(RestitutionLaw::Energetic);
        let poisson = c.rigid(RestitutionLaw::Poisson);
        let sequence = |o: &Option<ImpactOutcome>| {
            o.as_ref()
                .map(ImpactOutcome::mode_sequence)
                .unwrap_or_default()
        };
        vec![
            ("a", c.a.to_string()),
            ("b", c.b.to_string()),
            ("A", c.contact.tangential_mobility.to_string()),
            ("B", c.contact.cross_mobility.to_string()),
            ("C", c.contact.normal_mobility.to_string()),
            ("mu", c.contact.mu.to_string()),
            ("law", c.law.law.name().to_string()),
            ("damping", c.law.damping.to_string()),
            ("u_minus", c.u_minus.to_string()),
            ("v_minus", c.v_minus.to_string()),
            ("p_plus", k.painleve_parameter(1.0).to_string()),
            ("p_minus", k.painleve_parameter(-1.0).to_string()),
            ("k_plus", k.slip_coupling(1.0).to_string()),
            ("k_minus", k.slip_coupling(-1.0).to_string()),
            ("restitution", opt(c.restitution())),
            ("energetic_sequence", sequence(&energetic)),
            (
                "u_plus_energetic",
                opt(energetic.as_ref().map(|o| o.u_plus)),
            ),
            (
                "v_plus_energetic",
                opt(energetic.as_ref().map(|o| o.v_plus)),
            ),
            ("poisson_sequence", sequence(&poisson)),
            ("u_plus_poisson", opt(poisson.as_ref().map(|o| o.u_plus))),
            ("v_plus_poisson", opt(poisson.as_ref().map(|o| o.v_plus))),
        ]
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &ImpactCase,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window = fast::window(&spec.solver).map_err(|e| e.to_string())?;
        let r = run_compliant(
            &c.system(),
            c.law,
            c.contact.mu,
            kappa,
            ([0.0, 0.0], [c.u_minus, c.v_minus]),
            integrator,
            &spec.solver,
            (EndCondition::Separation, Some(window * kappa.sqrt())),
        )?;
        let post = r
            .post_impact
            .as_ref()
            .ok_or_else(|| format!("the contact did not open within s = {window}"))?;
        let modes: Vec<&str> = r
            .modes
            .iter()
            .filter(|m| m.mode != Mode::Free)
            .map(|m| m.mode.name())
            .collect();
        // The distance in the (u, v) plane to each rigid law's outgoing velocities, per |v⁻|.
        let distance = |o: Option<ImpactOutcome>| {
            o.map(|o| ((post.u - o.u_plus).hypot(post.v - o.v_plus) / -c.v_minus).to_string())
                .unwrap_or_default()
        };
        let cells = vec![
            ("mode_sequence", modes.join(">")),
            ("u_plus", post.u.to_string()),
            ("v_plus", post.v.to_string()),
            (
                "contact_duration_scaled",
                (post.t / kappa.sqrt()).to_string(),
            ),
            ("d_energetic", distance(c.rigid(RestitutionLaw::Energetic))),
            ("d_poisson", distance(c.rigid(RestitutionLaw::Poisson))),
        ];
        Ok((cells, r.stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        super::oblique_impact_report::write_report(spec, rows, dir)
    }
}
