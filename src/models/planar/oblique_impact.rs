//! The oblique impact of the planar single contact (`model = "planar"`,
//! `analysis = "oblique_impact"`; docs/oblique_impact.md): each run starts touching (y = 0)
//! with incoming velocities (u⁻, v⁻), v⁻ < 0, and ends when the compliant contact first opens;
//! its (u⁺, v⁺) is set beside the rigid impact map of C–V §3.2 ([`crate::rigid::oblique_impact`])
//! under the energetic and the Poisson law, each at the normal law's frictionless restitution
//! ([`NormalCompliance::frictionless_restitution`]). The grid is contacts × normal laws ×
//! incidence u⁻/|v⁻|. A system on the convergence study (`Convergence<PlanarObliqueImpact>`,
//! selected by `analysis = "oblique_impact"`) with its own report
//! ([`super::oblique_impact_report`]); each compliant run lasts at most `window_scaled`·√κ.
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
use crate::experiment::grammar::LogGrid;
use crate::experiment::rows::Cells;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::SolverStats;
use crate::rigid::oblique_impact::{ImpactContact, ImpactOutcome, RestitutionLaw};
use serde::{Deserialize, Serialize};

pub use super::PlanarObliqueImpact;

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

    /// The planar contact with free accelerations (a, b).
    pub fn system(&self, a: f64, b: f64) -> ConstantPlanar {
        ConstantPlanar {
            free_tangential_accel: a,
            free_normal_accel: b,
            tangential_mobility: self.tangential_mobility,
            cross_mobility: self.cross_mobility,
            normal_mobility: self.normal_mobility,
        }
    }

    /// The cells a, b, A, B, C, mu: the first input columns of the oblique impact and of chatter.
    pub fn cells(&self, a: f64, b: f64) -> Cells {
        vec![
            ("a", a.to_string()),
            ("b", b.to_string()),
            ("A", self.tangential_mobility.to_string()),
            ("B", self.cross_mobility.to_string()),
            ("C", self.normal_mobility.to_string()),
            ("mu", self.mu.to_string()),
        ]
    }

    /// `a = …, b = …, A = …, B = …, C = …, μ = …, <law> law, damping …`: how the description of
    /// a run of the oblique impact or of chatter begins.
    pub fn describe(&self, a: f64, b: f64, law: LawData) -> String {
        format!(
            "a = {}, b = {}, A = {}, B = {}, C = {}, μ = {}, {} law, damping {}",
            a,
            b,
            self.tangential_mobility,
            self.cross_mobility,
            self.normal_mobility,
            self.mu,
            law.law.name(),
            law.damping,
        )
    }
}

/// One normal law of `[sweep] laws`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LawData {
    pub law: NormalLaw,
    /// c_d (spring–dashpot) or Hunt–Crossley's α; default 0.
    #[serde(default)]
    pub damping: f64,
}

impl LawData {
    /// The cells law, damping.
    pub fn cells(&self) -> Cells {
        vec![
            ("law", self.law.name().to_string()),
            ("damping", self.damping.to_string()),
        ]
    }
}

/// `[sweep] laws = [{ law, damping }, …]`: one table sets the normal law and its damping (the
/// only list of tables of a `[sweep]` besides the oblique impact's contacts).
pub(crate) fn set_law(
    law: &mut NormalLaw,
    damping: &mut f64,
    key: &str,
    value: &serde_json::Value,
) -> Result<(), String> {
    if key != "laws" {
        return Err("a list of tables is swept as laws = [{ law, damping }, …] (or contacts = [{ A, B, C, mu }, …] for the oblique impact)".to_string());
    }
    let l: LawData = serde_json::from_value(value.clone())
        .map_err(|e| format!("list normal laws {{ law, damping }}: {e}"))?;
    *law = l.law;
    *damping = l.damping;
    Ok(())
}

/// Checks a κ ladder (resolvable at its smallest κ, a penetration small against the body at its
/// largest; `None`: no compliant run) and a normal law (its damping resolvable); errors name the
/// key.
pub(crate) fn validate_ladder_and_law(
    kappa: Option<&LogGrid>,
    law: &LawData,
) -> Result<(), SimError> {
    if let Some(kappa) = kappa {
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            kappa.max,
        )?;
        crate::compliant::normal::require_resolvable_kappa("sweep.kappa.min", kappa.min)?;
    }
    crate::compliant::normal::require_resolvable_damping("sweep.laws.damping", law.damping)
        .map(|_| ())
}

/// Checks a start velocity `value` (named `field`) against the ladder's largest κ
/// ([`crate::compliant::normal::require_penetrating_speed`]); `None`: no compliant run, no check.
pub(crate) fn require_penetrating_speed_on_ladder(
    field: &str,
    value: f64,
    kappa: Option<&LogGrid>,
) -> Result<(), SimError> {
    if let Some(kappa) = kappa {
        crate::compliant::normal::require_penetrating_speed(
            field,
            value,
            "sweep.kappa.max",
            kappa.max,
        )?;
    }
    Ok(())
}

/// The compliant run of the planar `system` under `law` at κ with Coulomb μ from (q0, q̇0),
/// with the integrator, tolerances and guards of `settings`, until `end` (or `settings.t_max`).
pub fn run_compliant(
    system: &ConstantPlanar,
    law: LawData,
    mu: f64,
    kappa: f64,
    (q0, qdot0): ([f64; 2], [f64; 2]),
    settings: &RunSettings,
    end: EndCondition,
) -> Result<RunRecord, SimError> {
    let problem = ContactProblem {
        system,
        compliance: NormalCompliance::of(law.law, kappa, law.damping),
        friction: Coulomb::equal(mu),
    };
    let mut options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
        .with_guards(None, settings.max_steps, settings.max_events);
    options.end = end;
    if let Some(t) = settings.t_max {
        options.t_max = t;
    }
    simulate(&problem, &q0, &qdot0, &options)
}

/// One run's configuration: the free accelerations and v⁻ of `[params]`, a contact of
/// `[sweep] contacts`, a normal law of `[sweep] laws` and an incidence u⁻/|v⁻| of
/// `[sweep] incidence`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactConfig {
    /// a: free tangential acceleration.
    pub a: f64,
    /// b: free normal acceleration.
    pub b: f64,
    /// v⁻ < 0: the incoming normal velocity of every run.
    pub v_minus: f64,
    #[serde(rename = "A", default)]
    pub tangential_mobility: f64,
    #[serde(rename = "B", default)]
    pub cross_mobility: f64,
    #[serde(rename = "C", default)]
    pub normal_mobility: f64,
    #[serde(default)]
    pub mu: f64,
    #[serde(default)]
    pub law: NormalLaw,
    /// c_d (spring–dashpot) or Hunt–Crossley's α.
    #[serde(default)]
    pub damping: f64,
    /// u⁻/|v⁻|.
    #[serde(default)]
    pub incidence: f64,
}

/// What one run measures: the compliant outgoing velocities at the first opening, and their
/// distances (per |v⁻|) to each rigid law's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ImpactRecord {
    /// The contact modes, free phases left out, joined by `>`.
    pub mode_sequence: String,
    pub u_plus: f64,
    pub v_plus: f64,
    /// The contact's duration over √κ.
    pub contact_duration_scaled: f64,
    pub d_energetic: Option<f64>,
    pub d_poisson: Option<f64>,
}

impl ImpactConfig {
    pub fn contact(&self) -> ContactData {
        ContactData {
            tangential_mobility: self.tangential_mobility,
            cross_mobility: self.cross_mobility,
            normal_mobility: self.normal_mobility,
            mu: self.mu,
        }
    }

    pub fn law(&self) -> LawData {
        LawData {
            law: self.law,
            damping: self.damping,
        }
    }

    /// u⁻ = incidence·|v⁻|.
    pub(crate) fn u_minus(&self) -> f64 {
        self.incidence * -self.v_minus
    }

    fn system(&self) -> ConstantPlanar {
        self.contact().system(self.a, self.b)
    }

    fn compliance(&self, kappa: f64) -> NormalCompliance {
        NormalCompliance::of(self.law, kappa, self.damping)
    }

    /// The rigid law's coefficient: the normal law's frictionless restitution (κ-free).
    pub fn restitution(&self) -> Option<f64> {
        self.compliance(1.0)
            .frictionless_restitution(self.normal_mobility)
    }

    /// The rigid impact map under `law` at the normal law's restitution.
    fn rigid(&self, law: fn(f64) -> RestitutionLaw) -> Option<ImpactOutcome> {
        let r = self.restitution()?;
        self.contact()
            .contact()
            .impact(self.u_minus(), self.v_minus, law(r))
            .ok()
    }
}

/// The input columns: the configuration (u⁻ for the incidence), then what it predicts before any
/// run: p±, k± and the rigid laws' outcomes.
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

impl System for PlanarObliqueImpact {
    const NAME: &'static str = "planar";
    const ANALYSIS: Option<&'static str> = Some("oblique_impact");
    const TITLE: &'static str = "the oblique impact against the rigid impact laws";
    // Listed once under `planar` (the mode table's line names its analyses).
    const ABOUT: &'static str = "";
    const EXAMPLE: &'static str = include_str!("../../../experiments/oblique_impact_map.toml");
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::rows::FAST_TIME_SOLVER_KEYS;
    /// The grid's order: contacts, then laws, then the incidence fastest.
    const SWEEP_ORDER: &'static [&'static str] = &["contacts", "laws", "incidence"];
    type Config = ImpactConfig;
    type Record = ImpactRecord;

    fn validate(c: &ImpactConfig, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        validate_ladder_and_law(kappa, &c.law())?;
        require_finite("params.a", c.a)?;
        require_finite("params.b", c.b)?;
        require_finite("params.v_minus", c.v_minus)?;
        if c.v_minus >= 0.0 {
            return Err(SimError::invalid(
                "params.v_minus",
                c.v_minus,
                "must be < 0: the contact point approaches the surface",
            ));
        }
        require_penetrating_speed_on_ladder("params.v_minus", c.v_minus, kappa)?;
        c.contact()
            .contact()
            .validate_keyed(|k| format!("sweep.contacts.{k}"))?;
        require_finite("sweep.incidence", c.incidence)?;
        require_penetrating_speed_on_ladder("sweep.incidence", c.incidence * c.v_minus, kappa)
    }

    fn run(
        c: &ImpactConfig,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(ImpactRecord, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let r = run_compliant(
            &c.system(),
            c.law(),
            c.mu,
            kappa,
            ([0.0, 0.0], [c.u_minus(), c.v_minus]),
            settings,
            EndCondition::Separation,
        )?;
        let post = r.post_impact.as_ref().ok_or_else(|| {
            SimError::invalid(
                "solver.window_scaled",
                settings.t_max.map_or(f64::INFINITY, |t| t / kappa.sqrt()),
                "the contact did not open within this many units of s = t/√κ: lengthen the window",
            )
        })?;
        let modes: Vec<&str> = r
            .modes
            .iter()
            .filter(|m| m.mode != Mode::Free)
            .map(|m| m.mode.name())
            .collect();
        // The distance in the (u, v) plane to each rigid law's outgoing velocities, per |v⁻|.
        let distance = |o: Option<ImpactOutcome>| {
            o.map(|o| (post.u - o.u_plus).hypot(post.v - o.v_plus) / -c.v_minus)
        };
        let record = ImpactRecord {
            mode_sequence: modes.join(">"),
            u_plus: post.u,
            v_plus: post.v,
            contact_duration_scaled: post.t / kappa.sqrt(),
            d_energetic: distance(c.rigid(RestitutionLaw::Energetic)),
            d_poisson: distance(c.rigid(RestitutionLaw::Poisson)),
        };
        Ok((record, r.stats))
    }

    /// None for the generic summary: the report (`oblique_impact_report::write_report`) sets
    /// the distances to each rigid law against κ.
    fn quantities(_: &ImpactConfig) -> Vec<Quantity> {
        Vec::new()
    }

    /// The contact's table sets A, B, C and μ, the law's table the law and its damping.
    fn set_value(c: &mut ImpactConfig, key: &str, value: &serde_json::Value) -> Result<(), String> {
        if key != "contacts" {
            return set_law(&mut c.law, &mut c.damping, key, value);
        }
        let d: ContactData = serde_json::from_value(value.clone())
            .map_err(|e| format!("list contacts {{ A, B, C, mu }}: {e}"))?;
        c.tangential_mobility = d.tangential_mobility;
        c.cross_mobility = d.cross_mobility;
        c.normal_mobility = d.normal_mobility;
        c.mu = d.mu;
        Ok(())
    }

    fn input_columns(_: &ImpactConfig) -> Vec<&'static str> {
        INPUTS.to_vec()
    }

    fn inputs(c: &ImpactConfig) -> Result<Cells, String> {
        let k = c.contact().contact();
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let energetic = c.rigid(RestitutionLaw::Energetic);
        let poisson = c.rigid(RestitutionLaw::Poisson);
        let sequence = |o: &Option<ImpactOutcome>| {
            o.as_ref()
                .map(ImpactOutcome::mode_sequence)
                .unwrap_or_default()
        };
        let mut cells = c.contact().cells(c.a, c.b);
        cells.extend(c.law().cells());
        cells.extend([
            ("u_minus", c.u_minus().to_string()),
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
        ]);
        Ok(cells)
    }

    fn describe(c: &ImpactConfig) -> String {
        format!(
            "{}, (u⁻, v⁻) = ({}, {}); the run ends when the contact first opens",
            c.contact().describe(c.a, c.b, c.law()),
            c.u_minus(),
            c.v_minus
        )
    }
}
