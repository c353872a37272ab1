//! The experiment files of the two-contact study (`model = "two_contact"`; the module docs show
//! one): C–V's symbols in `[params]` and in each entry of `[sweep] states`, the contact laws,
//! the starts (a circle around S+S+ or a list) and the fast-time `[solver]`. Unknown keys are
//! rejected; errors name the key.

use super::linear::SlipSlip;
use super::system::{ContactLaw, TwoContactSystem};
use crate::error::SimError;
use crate::experiment::grammar::{merged_states, parse_validated, validate_name};
use crate::experiment::grammar::{SolverSpec, SpecError};
use crate::study::fast;
use serde::{Deserialize, Serialize};

/// `model = "two_contact"`.
pub const NAME: &str = "two_contact";
/// What the study is: its line in `rigid-limit list`.
pub const ABOUT: &str = "Champneys–Várkonyi's fast dynamics of two slipping contacts \
                         (scale-free): IF/FI outcomes around the unstable S+S+ equilibrium, \
                         the sprag–slip cycle";

/// An experiment file of the two-contact study.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TwoContactStudy {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// [`NAME`].
    pub model: String,
    /// The study's one analysis (the key may be left out).
    #[serde(default)]
    pub analysis: Option<Analysis>,
    pub params: Params,
    pub sweep: Sweep,
    /// The fast-time solver keys: each run lasts `window_scaled` in s.
    pub solver: SolverSpec,
}

/// `[params]` (and each entry of `[sweep] states`): C–V's symbols.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// A name for the state in the report (default: its number).
    pub label: Option<String>,
    /// b: free normal accelerations.
    pub b: Option<[f64; 2]>,
    /// P, by rows: P_ij is contact i's normal acceleration per unit force at contact j.
    #[serde(rename = "P")]
    pub response: Option<[[f64; 2]; 2]>,
    /// k < 0 of f_j = max(k_j Y_j + q_j V_j, 0).
    pub k: Option<[f64; 2]>,
    /// q < 0.
    pub q: Option<[f64; 2]>,
}

/// Starts on a circle around the S+S+ equilibrium, V = 0.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Circle {
    pub radius: f64,
    /// Points at θ = 2πi/n, i = 0 … n−1.
    pub n: usize,
}

/// One explicit start.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Start {
    #[serde(rename = "Y")]
    pub depth: [f64; 2],
    #[serde(rename = "V")]
    pub rate: [f64; 2],
}

/// `[sweep]`: the contact laws, the states, and the starts (a circle or a list).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub law: Vec<ContactLaw>,
    pub states: Option<Vec<Params>>,
    pub circle: Option<Circle>,
    pub starts: Option<Vec<Start>>,
}

/// The study's one analysis.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    FastOutcomes,
}

/// The optional `[solver]` keys of a fast-time run: each lasts `window_scaled`, so `t_max` has
/// no role.
const SOLVER_KEYS: &[&str] = crate::experiment::rows::FAST_TIME_SOLVER_KEYS;

impl TwoContactStudy {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
        crate::study::require_model_named(&self.model, NAME)?;
        self.solver.validate(self.grid_size())?;
        if self.sweep.law.is_empty() {
            return Err(SimError::invalid(
                "sweep.law",
                "[]",
                "list at least one of \"literal\", \"harness\"",
            ));
        }
        for (i, l) in self.sweep.law.iter().enumerate() {
            if self.sweep.law[..i].contains(l) {
                return Err(SimError::invalid("sweep.law", l.name(), "listed twice"));
            }
        }
        self.systems()?;
        self.validate_starts()?;
        fast::window(&self.solver)?;
        self.solver.refuse_unused_keys(NAME, SOLVER_KEYS)
    }

    /// The number of configurations of the grid (states × laws × starts), counted without
    /// building them: the runner refuses oversized grids before allocating them.
    fn grid_size(&self) -> u128 {
        let s = &self.sweep;
        let states = s.states.as_ref().map_or(1, |s| s.len().max(1));
        let starts = match (&s.circle, &s.starts) {
            // The circle's points and the two bisected crossings.
            (Some(c), _) => c.n + 2,
            (None, Some(s)) => s.len(),
            (None, None) => 1,
        };
        (states as u128) * (s.law.len() as u128) * (starts as u128)
    }

    /// The states of the grid: `[params]` merged with each entry of `states`, with their labels.
    pub fn systems(&self) -> Result<Vec<(String, TwoContactSystem)>, SimError> {
        let merged = merged_states(&self.params, self.sweep.states.as_deref())?;
        let key = |index: usize, name: &str| match &self.sweep.states {
            Some(states)
                if serde_json::to_value(&states[index])
                    .ok()
                    .and_then(|v| v.get(name).cloned())
                    .is_some_and(|v| !v.is_null()) =>
            {
                format!("sweep.states[{index}].{name}")
            }
            _ => format!("params.{name}"),
        };
        let mut out = Vec::new();
        for (index, p) in merged.iter().enumerate() {
            let missing = |name: &str| {
                SimError::invalid(
                    &key(index, name),
                    "missing",
                    "give it in [params] or in every entry of sweep.states",
                )
            };
            let system = TwoContactSystem {
                free_accel: p.b.ok_or_else(|| missing("b"))?,
                response: p.response.ok_or_else(|| missing("P"))?,
                stiffness: p.k.ok_or_else(|| missing("k"))?,
                damping: p.q.ok_or_else(|| missing("q"))?,
            };
            let finite = |name: &str, values: &[f64]| -> Result<(), SimError> {
                match values.iter().find(|v| !v.is_finite()) {
                    Some(v) => Err(SimError::invalid(&key(index, name), v, "must be finite")),
                    None => Ok(()),
                }
            };
            finite("b", &system.free_accel)?;
            finite("P", system.response.as_flattened())?;
            for (name, values) in [("k", system.stiffness), ("q", system.damping)] {
                if let Some(v) = values.iter().find(|v| v.is_nan() || **v >= 0.0) {
                    return Err(SimError::invalid(
                        &key(index, name),
                        v,
                        "must be negative: C–V's (linearcontact) f = max(kY + qV, 0) has k, q < 0 with Y < 0 penetration (the caption of Fig. unstableslip prints them without the sign)",
                    ));
                }
            }
            let label = p
                .label
                .clone()
                .unwrap_or_else(|| format!("state {}", index + 1));
            out.push((label, system));
        }
        Ok(out)
    }

    /// Exactly one of a circle and a list of starts; a circle needs an isolated, consistent
    /// S+S+ equilibrium with one real unstable eigenvalue (the prediction of the crossings).
    fn validate_starts(&self) -> Result<(), SimError> {
        let s = &self.sweep;
        match (&s.circle, &s.starts) {
            (Some(_), Some(_)) | (None, None) => Err(SimError::invalid(
                "sweep.circle",
                if s.circle.is_some() { "given with sweep.starts" } else { "missing" },
                "give exactly one of sweep.circle = { radius, n } (starts around S+S+) and sweep.starts = [{ Y = [..], V = [..] }]",
            )),
            (Some(c), None) => {
                crate::error::require_positive("sweep.circle.radius", c.radius)?;
                if c.n < 2 {
                    return Err(SimError::invalid("sweep.circle.n", c.n, "must be >= 2"));
                }
                for (label, system) in self.systems()? {
                    let e = SlipSlip::of(&system).ok_or_else(|| {
                        SimError::invalid("sweep.circle", &label, "P is singular: S+S+ has no isolated equilibrium to circle")
                    })?;
                    if e.forces.iter().any(|&f| f <= 0.0) {
                        return Err(SimError::invalid(
                            "sweep.circle",
                            &label,
                            &format!("S+S+ is inconsistent (f* = −P⁻¹b = {:?} needs both forces > 0): no equilibrium to circle", e.forces),
                        ));
                    }
                    if e.unstable_rate.is_none() {
                        return Err(SimError::invalid(
                            "sweep.circle",
                            &label,
                            "S+S+ needs exactly one real unstable eigenvalue for the stable-manifold prediction of the crossings",
                        ));
                    }
                }
                Ok(())
            }
            (None, Some(starts)) => {
                if starts.is_empty() {
                    return Err(SimError::invalid("sweep.starts", "[]", "list at least one start"));
                }
                for (i, st) in starts.iter().enumerate() {
                    if st.depth.iter().chain(&st.rate).any(|v| !v.is_finite()) {
                        return Err(SimError::invalid(
                            &format!("sweep.starts[{i}]"),
                            "not finite",
                            "Y and V must be finite",
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}
