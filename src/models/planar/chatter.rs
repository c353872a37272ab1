//! Chatter and reverse chatter of the planar single contact (`model = "planar"`,
//! `analysis = "chatter"`; C–V §3.3, §5.2–5.3, Fig. chatter; docs/oblique_impact.md): a run
//! starts either in sustained slip S+ at its equilibrium penetration (`v0 = 0`: the slip
//! decelerates, stops, and the contact switches to stick — where C–V say reverse chatter can
//! start) or touching with an incoming normal velocity v0 < 0 (a dropped contact: forward
//! chatter); it runs to `t_end` and records every impact (contact closing) after the first
//! lift-off. The rigid bounce map predicts the ratio e = v⁻ₙ₊₁/v⁻ₙ ((edef)) of successive impact
//! speeds ([`chatter_restitution`]): for an elastic law the energetic map at r = 1 (the compliant
//! impact's limit, tests/it/oblique_impact.rs). A system on the convergence study
//! (`Convergence<PlanarChatter>`, selected by `analysis = "chatter"`) with its own report
//! ([`super::chatter_report`]).
//!
//! ```toml
//! name = "reverse_chatter"
//! model = "planar"
//! analysis = "chatter"
//! [params]
//! b = -1.0
//! A = 1.0
//! B = 0.5
//! C = 1.0
//! mu = 1.6
//! u0 = 0.45
//! v0 = 0.0          # 0: start in sustained slip S+; < 0: start touching, moving in
//! t_end = 3.0
//! [sweep]
//! kappa = { min = 1e-10, max = 1e-6, per_decade = 1 }
//! a = [0.5, 1.0, 1.5]
//! laws = [{ law = "spring_dashpot", damping = 0.0 }, { law = "hunt_crossley", damping = 0.0 }]
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-12
//! max_events = 5000
//! ```

use super::mechanics::ConstantPlanar;
use super::oblique_impact::{
    require_penetrating_speed_on_ladder, run_compliant, validate_ladder_and_law, ContactData,
    LawData,
};
use crate::compliant::coulomb::Mode;
use crate::compliant::normal::{NormalCompliance, NormalLaw};
use crate::compliant::record::RunRecord;
use crate::compliant::EndCondition;
use crate::error::{require_finite, require_positive, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::rows::Cells;
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::integrate::SolverStats;
use crate::rigid::oblique_impact::{chatter_restitution, ImpactContact, RestitutionLaw};
use serde::{Deserialize, Serialize};

pub use super::PlanarChatter;

/// One run's configuration: C–V's data, the start and the end from `[params]`, the free
/// tangential acceleration a of `[sweep] a` and a normal law of `[sweep] laws`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChatterConfig {
    /// a: the free tangential acceleration.
    #[serde(default)]
    pub a: f64,
    /// b < 0: the free normal acceleration, towards the contact (chatter needs it, C–V §3.3).
    pub b: f64,
    #[serde(rename = "A")]
    pub tangential_mobility: f64,
    #[serde(rename = "B")]
    pub cross_mobility: f64,
    #[serde(rename = "C")]
    pub normal_mobility: f64,
    pub mu: f64,
    /// The initial slip velocity u0 ≥ 0.
    pub u0: f64,
    /// 0: start in sustained slip at equilibrium; < 0: start touching with v = v0.
    pub v0: f64,
    /// The end of each run.
    pub t_end: f64,
    #[serde(default)]
    pub law: NormalLaw,
    /// c_d (spring–dashpot) or Hunt–Crossley's α.
    #[serde(default)]
    pub damping: f64,
}

/// What one run measures: its outcome, the impacts (contact closings) after the first lift-off
/// and their speed ratios.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ChatterRecord {
    /// `reverse_chatter`, `chatter_to_stick`, `stick`, … (`outcome`).
    pub outcome: String,
    pub slip_stop_time: Option<f64>,
    pub lift_offs: usize,
    /// The impact times and speeds |v⁻|, ten significant digits, space-separated.
    pub impact_times: String,
    pub impact_speeds: String,
    /// The ratio of the first two impact speeds and of the last two.
    pub e_first: Option<f64>,
    pub e_last: Option<f64>,
    pub max_impact_speed: f64,
    /// The normal speed at the first lift-off over √κ.
    pub first_lift_off_speed_scaled: Option<f64>,
    /// The end of the last contact phase: when the bouncing stopped, or the run's end.
    pub last_contact_end: Option<f64>,
    pub end_mode: String,
}

impl ChatterConfig {
    fn law(&self) -> LawData {
        LawData {
            law: self.law,
            damping: self.damping,
        }
    }

    fn contact_data(&self) -> ContactData {
        ContactData {
            tangential_mobility: self.tangential_mobility,
            cross_mobility: self.cross_mobility,
            normal_mobility: self.normal_mobility,
            mu: self.mu,
        }
    }

    fn system(&self) -> ConstantPlanar {
        self.contact_data().system(self.a, self.b)
    }

    fn contact(&self) -> ImpactContact {
        self.contact_data().contact()
    }

    fn compliance(&self, kappa: f64) -> NormalCompliance {
        NormalCompliance::of(self.law, kappa, self.damping)
    }

    /// The normal force of sustained slip S+, λ_N = −b/p+ (C–V (normaldyn_02_slip+)).
    fn slip_normal_force(&self) -> f64 {
        -self.b / self.contact().painleve_parameter(1.0)
    }

    /// The start: sustained slip at the penetration that carries −b/p+ at rest, or touching
    /// with v0 < 0.
    fn initial_state(&self, kappa: f64) -> ([f64; 2], [f64; 2]) {
        if self.v0 < 0.0 {
            ([0.0, 0.0], [self.u0, self.v0])
        } else {
            let depth = self
                .compliance(kappa)
                .static_penetration(self.slip_normal_force());
            ([0.0, -depth], [self.u0, 0.0])
        }
    }

    /// e of the rigid bounce map under `law` ([`chatter_restitution`]).
    fn rigid_e(&self, law: RestitutionLaw) -> Option<f64> {
        chatter_restitution(&self.contact(), self.a, self.b, law)
            .ok()
            .flatten()
    }
}

/// The input columns: the configuration, then what it predicts before any run: p+, k+, the
/// sustained slip's normal force and stop, the rigid bounce maps' e and the Zeno time.
const INPUTS: &[&str] = &[
    "a",
    "b",
    "A",
    "B",
    "C",
    "mu",
    "u0",
    "v0",
    "t_end",
    "law",
    "damping",
    "p_plus",
    "k_plus",
    "slip_normal_force",
    "slip_stop_time_rigid",
    "restitution",
    "e_elastic",
    "e_energetic",
    "e_poisson",
    "zeno_time_rigid",
];

/// Events of a run at (time, normal speed).
type Timed = Vec<(f64, f64)>;

/// The impacts (contact closings) of a run: (time, |v⁻|), and the lift-offs: (time, v⁺).
fn bounces(r: &RunRecord) -> (Timed, Timed) {
    let mut impacts = Vec::new();
    let mut lift_offs = Vec::new();
    for (i, m) in r.modes.iter().enumerate() {
        if m.mode != Mode::Free {
            continue;
        }
        if let Some(prev) = i.checked_sub(1).map(|j| &r.modes[j]) {
            lift_offs.push((m.t_start, prev.qdot_end[1]));
        }
        // A free phase that ends before the run does ends at a closing.
        if i + 1 < r.modes.len() {
            impacts.push((m.t_end, -m.qdot_end[1]));
        }
    }
    (impacts, lift_offs)
}

/// The run's outcome: `reverse_chatter` when the impact speeds grow (the last three increase
/// and the largest is above `10²√κ`, far above the O(√κ) disturbance that starts them);
/// `chatter_to_stick` when bounces occur and the run ends sticking; `stick` without a
/// lift-off after the start; else the end mode.
fn outcome(impacts: &[(f64, f64)], end: Mode, kappa: f64) -> String {
    let speeds: Vec<f64> = impacts.iter().map(|x| x.1).collect();
    let n = speeds.len();
    let growing = n >= 3 && speeds[n - 1] > speeds[n - 2] && speeds[n - 2] > speeds[n - 3];
    let largest = speeds.iter().fold(0.0, |m: f64, &v| m.max(v));
    if growing && largest > 1e2 * kappa.sqrt() {
        "reverse_chatter".into()
    } else if n > 0 && end == Mode::Stick {
        "chatter_to_stick".into()
    } else if n == 0 {
        end.name().into()
    } else {
        format!("bounces_then_{}", end.name())
    }
}

/// The rigid forward chatter's duration from an impact at v0 < 0 on a non-oblique contact
/// (B = 0, where e = r, C–V §3.3): flights t_n = 2rⁿ|v0|/|b| ((tn)) summing to
/// 2r|v0|/(|b|(1 − r)). `None` for B ≠ 0, a start in slip, or r = 1 (no accumulation).
fn zeno_time(c: &ChatterConfig, restitution: Option<f64>) -> Option<f64> {
    let r = restitution.filter(|&r| r < 1.0)?;
    (c.cross_mobility == 0.0 && c.v0 < 0.0).then(|| 2.0 * r * -c.v0 / (-c.b * (1.0 - r)))
}

impl System for PlanarChatter {
    const NAME: &'static str = "planar";
    const ANALYSIS: Option<&'static str> = Some("chatter");
    const TITLE: &'static str = "chatter and reverse chatter";
    // Listed once under `planar` (the mode table's line names its analyses).
    const ABOUT: &'static str = "";
    const EXAMPLE: &'static str = include_str!("../../../experiments/reverse_chatter.toml");
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    type Config = ChatterConfig;
    type Record = ChatterRecord;

    fn validate(p: &ChatterConfig, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        validate_ladder_and_law(kappa, &p.law())?;
        let contact = p.contact();
        contact.validate_keyed(|k| format!("params.{k}"))?;
        require_finite("params.b", p.b)?;
        if p.b >= 0.0 {
            return Err(SimError::invalid(
                "params.b",
                p.b,
                "must be < 0: chatter needs the free normal acceleration towards the contact (C–V §3.3)",
            ));
        }
        require_finite("params.u0", p.u0)?;
        if p.u0 < 0.0 {
            return Err(SimError::invalid(
                "params.u0",
                p.u0,
                "must be >= 0 (the slip S+ that decelerates into stick; mirror B and a for S−)",
            ));
        }
        require_finite("params.v0", p.v0)?;
        if p.v0 > 0.0 {
            return Err(SimError::invalid(
                "params.v0",
                p.v0,
                "must be 0 (start in sustained slip) or < 0 (start touching, moving in)",
            ));
        }
        if p.v0 == 0.0 && contact.painleve_parameter(1.0) <= 0.0 {
            return Err(SimError::invalid(
                "params.mu",
                p.mu,
                "with v0 = 0 the run starts in sustained slip S+, which needs p+ = C − μB > 0",
            ));
        }
        require_penetrating_speed_on_ladder("params.v0", p.v0, kappa)?;
        require_positive("params.t_end", p.t_end)?;
        require_finite("sweep.a", p.a).map(|_| ())
    }

    fn run(
        c: &ChatterConfig,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(ChatterRecord, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let r = run_compliant(
            &c.system(),
            c.law(),
            c.mu,
            kappa,
            c.initial_state(kappa),
            settings,
            EndCondition::Time(c.t_end),
        )?;
        let (impacts, lift_offs) = bounces(&r);
        let end = r.modes.last().map_or(Mode::Free, |m| m.mode);
        let slip_stop = r
            .modes
            .iter()
            .find(|m| m.mode == Mode::Stick)
            .map(|m| m.t_start);
        let ratio = |i: usize| (impacts.len() > i + 1).then(|| impacts[i + 1].1 / impacts[i].1);
        let last_ratio = impacts
            .len()
            .checked_sub(2)
            .map(|i| impacts[i + 1].1 / impacts[i].1);
        let joined = |f: fn(&(f64, f64)) -> f64| {
            impacts
                .iter()
                .map(|x| format!("{:.9e}", f(x)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // The last contact phase's end: when the bouncing stopped (a forward chatter's Zeno
        // time) or the run's end.
        let last_contact_end = r
            .modes
            .iter()
            .rev()
            .find(|m| m.mode == Mode::Free)
            .map(|m| m.t_end);
        let record = ChatterRecord {
            outcome: outcome(&impacts, end, kappa),
            slip_stop_time: slip_stop,
            lift_offs: lift_offs.len(),
            impact_times: joined(|x| x.0),
            impact_speeds: joined(|x| x.1),
            e_first: ratio(0),
            e_last: last_ratio,
            max_impact_speed: impacts.iter().fold(0.0, |m: f64, x| m.max(x.1)),
            first_lift_off_speed_scaled: lift_offs.first().map(|x| x.1 / kappa.sqrt()),
            last_contact_end,
            end_mode: end.name().to_string(),
        };
        Ok((record, r.stats))
    }

    /// None for the generic summary: the report (`chatter_report::write_report`) sets the
    /// impact speeds against the rigid bounce maps' e.
    fn quantities(_: &ChatterConfig) -> Vec<Quantity> {
        Vec::new()
    }

    /// The law's table sets the law and its damping.
    fn set_value(
        c: &mut ChatterConfig,
        key: &str,
        value: &serde_json::Value,
    ) -> Result<(), String> {
        super::oblique_impact::set_law(&mut c.law, &mut c.damping, key, value)
    }

    fn input_columns(_: &ChatterConfig) -> Vec<&'static str> {
        INPUTS.to_vec()
    }

    fn inputs(c: &ChatterConfig) -> Result<Cells, String> {
        let k = c.contact();
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let r = c
            .compliance(1.0)
            .frictionless_restitution(c.normal_mobility);
        // Sustained slip decelerates at u̇ = a − k+ λ_N (C–V (udotslip+)).
        let decel = k.slip_coupling(1.0) * c.slip_normal_force() - c.a;
        let slip_stop = (c.v0 == 0.0 && decel > 0.0).then(|| c.u0 / decel);
        let mut cells = c.contact_data().cells(c.a, c.b);
        cells.extend([
            ("u0", c.u0.to_string()),
            ("v0", c.v0.to_string()),
            ("t_end", c.t_end.to_string()),
        ]);
        cells.extend(c.law().cells());
        cells.extend([
            ("p_plus", k.painleve_parameter(1.0).to_string()),
            ("k_plus", k.slip_coupling(1.0).to_string()),
            ("slip_normal_force", c.slip_normal_force().to_string()),
            ("slip_stop_time_rigid", opt(slip_stop)),
            ("restitution", opt(r)),
            ("e_elastic", opt(c.rigid_e(RestitutionLaw::Energetic(1.0)))),
            (
                "e_energetic",
                opt(r.and_then(|r| c.rigid_e(RestitutionLaw::Energetic(r)))),
            ),
            (
                "e_poisson",
                opt(r.and_then(|r| c.rigid_e(RestitutionLaw::Poisson(r)))),
            ),
            ("zeno_time_rigid", opt(zeno_time(c, r))),
        ]);
        Ok(cells)
    }

    fn describe(c: &ChatterConfig) -> String {
        format!(
            "{}, (u0, v0) = ({}, {}), to t = {}",
            c.contact_data().describe(c.a, c.b, c.law()),
            c.u0,
            c.v0,
            c.t_end
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_rule() {
        let k = 1e-10;
        let grow = [(0.0, 1e-3), (1.0, 2e-3), (2.0, 4e-3)];
        assert_eq!(outcome(&grow, Mode::Free, k), "reverse_chatter");
        let tiny = [(0.0, 1e-6), (1.0, 2e-7), (2.0, 4e-7)];
        assert_eq!(outcome(&tiny, Mode::Stick, k), "chatter_to_stick");
        assert_eq!(outcome(&[], Mode::Stick, k), "stick");
    }
}
