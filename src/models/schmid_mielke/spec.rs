//! The experiment files of `model = "schmid_mielke"` (docs/schmid_mielke.md, "Experiment
//! files"): every numeric key given once, in `[params]` or swept in `[sweep]`; `method` picks
//! the incremental problem (`steps`) or the compliant model (`kappa`, `epsilon`, `zeta`,
//! `integrator`, `rtol`). Several `[[sweep]]` tables give a union of grids (the two examples
//! need different fixed keys). Unknown keys are rejected; errors name the key.
//!
//! The model's rows do not fit the κ-ladder × integrators design of the convergence study (an
//! incremental run has neither), so the spec is a [`crate::experiment::runner::Plan`] of its
//! own, like the two-contact study.

use super::examples::{Example, VaryingFriction, VaryingNormalForce};
use crate::compliant::normal::{require_penetrating_less_than_the_body, require_resolvable_kappa};
use crate::error::{require_positive, SimError};
use crate::experiment::grammar::{parse_validated, validate_name, Axis, MethodKind, SpecError};
use crate::integrate::IntegratorKind;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// `model = "schmid_mielke"`.
pub const NAME: &str = "schmid_mielke";
/// What the system is: its line in `rigid-limit list`.
pub const ABOUT: &str =
    "a particle on a half-plane with friction μ(z₁) (Schmid–Mielke 2007): incremental or \
     compliant";

/// The numeric keys, in grid order (outermost first) and column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Key {
    #[serde(rename = "example")]
    Example,
    H11,
    H12,
    H22,
    #[serde(rename = "sigma_star")]
    SigmaStar,
    #[serde(rename = "mu0")]
    Mu0,
    #[serde(rename = "mu1")]
    Mu1,
    #[serde(rename = "mu_star")]
    MuStar,
    #[serde(rename = "f_star")]
    FStar,
    #[serde(rename = "load_rate")]
    LoadRate,
    #[serde(rename = "t_end")]
    TEnd,
    #[serde(rename = "zeta")]
    Zeta,
    #[serde(rename = "kappa")]
    Kappa,
    #[serde(rename = "epsilon")]
    Epsilon,
    #[serde(rename = "steps")]
    Steps,
    #[serde(rename = "rtol")]
    Rtol,
}

impl Key {
    pub const ALL: [Key; 16] = [
        Key::Example,
        Key::H11,
        Key::H12,
        Key::H22,
        Key::SigmaStar,
        Key::Mu0,
        Key::Mu1,
        Key::MuStar,
        Key::FStar,
        Key::LoadRate,
        Key::TEnd,
        Key::Zeta,
        Key::Kappa,
        Key::Epsilon,
        Key::Steps,
        Key::Rtol,
    ];

    /// The TOML key and column name.
    pub fn name(self) -> &'static str {
        match self {
            Key::Example => "example",
            Key::H11 => "H11",
            Key::H12 => "H12",
            Key::H22 => "H22",
            Key::SigmaStar => "sigma_star",
            Key::Mu0 => "mu0",
            Key::Mu1 => "mu1",
            Key::MuStar => "mu_star",
            Key::FStar => "f_star",
            Key::LoadRate => "load_rate",
            Key::TEnd => "t_end",
            Key::Zeta => "zeta",
            Key::Kappa => "kappa",
            Key::Epsilon => "epsilon",
            Key::Steps => "steps",
            Key::Rtol => "rtol",
        }
    }

    /// The keys an example uses.
    fn of_example(example: u8) -> &'static [Key] {
        match example {
            1 => &[
                Key::H11,
                Key::H22,
                Key::SigmaStar,
                Key::Mu0,
                Key::Mu1,
                Key::LoadRate,
                Key::TEnd,
            ],
            _ => &[
                Key::H11,
                Key::H12,
                Key::H22,
                Key::MuStar,
                Key::FStar,
                Key::LoadRate,
                Key::TEnd,
            ],
        }
    }

    /// The keys a method uses.
    fn of_method(method: MethodKind) -> &'static [Key] {
        match method {
            MethodKind::Incremental => &[Key::Steps],
            _ => &[Key::Kappa, Key::Epsilon, Key::Zeta, Key::Rtol],
        }
    }
}

/// The default relative tolerance of a compliant run.
pub(crate) const DEFAULT_RTOL: f64 = 1e-10;
/// The default integrator of a compliant run.
pub(crate) const DEFAULT_INTEGRATOR: IntegratorKind = IntegratorKind::Radau5;

/// `[params]`: `method`, `integrator` and any numeric key.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Params {
    pub method: MethodKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrator: Option<IntegratorKind>,
    /// The numeric keys given here (an unknown key fails to parse as a [`Key`]).
    #[serde(flatten)]
    pub values: BTreeMap<Key, f64>,
}

/// One `[sweep]` (or `[[sweep]]`) table: numeric keys and their values.
pub(crate) type SweepTable = BTreeMap<Key, Axis>;

/// An experiment file of this model.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SmSpec {
    pub name: String,
    pub model: String,
    pub params: Params,
    /// `[sweep]` or several `[[sweep]]` tables; none: one point.
    #[serde(default, deserialize_with = "one_or_many")]
    pub sweep: Vec<SweepTable>,
}

/// `[sweep]` is one table or an array of tables.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SweepTable>, D::Error> {
    use serde::de::Error;
    match toml::Value::deserialize(d)? {
        toml::Value::Table(t) => toml::Value::Table(t)
            .try_into()
            .map(|s| vec![s])
            .map_err(D::Error::custom),
        toml::Value::Array(a) => a
            .into_iter()
            .map(|v| v.try_into().map_err(D::Error::custom))
            .collect(),
        other => Err(D::Error::custom(format!(
            "sweep must be a table or an array of tables, not {}",
            other.type_str()
        ))),
    }
}

/// How a point is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    /// (IP) on the uniform partition t_k = kT/N.
    Incremental { steps: usize },
    /// The compliant dynamic model.
    Compliant(CompliantSetting),
}

/// The compliant model's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompliantSetting {
    pub kappa: f64,
    /// Loading rate: the load is f(εt), results in slow time s = εt.
    pub epsilon: f64,
    /// Damping ratio of the tangential oscillator: ν = 2ζ√H₁₁.
    pub zeta: f64,
    pub integrator: IntegratorKind,
    pub rtol: f64,
}

/// One fully specified run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    pub example: Example,
    /// T: the run covers [0, T] (slow time).
    pub t_end: f64,
    pub setting: Setting,
}

/// One point of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct SmPoint {
    pub id: usize,
    /// The numeric keys given for this point (params and sweep), before validation.
    pub values: BTreeMap<Key, f64>,
    pub case: Case,
}

/// The most time steps N of the incremental problem a point may ask for. Every step of the
/// path is kept (about 93 bytes each: `steps = [3000000]` peaks at 272,588 kB, `/usr/bin/time -f
/// %M`), so 1e7 steps hold about 0.9 GB; the path's jump node time converges at order 1, to
/// about T/N, which is 1e-7 T at this bound.
pub(crate) const LARGEST_IP_STEPS: usize = 10_000_000;

impl SmSpec {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    /// Where `key` is given for sweep table `block` ("params.H11", "sweep.H11", "sweep[1].H11").
    fn key_name(&self, block: Option<usize>, key: Key) -> String {
        let swept = block.is_some_and(|b| self.sweep.get(b).is_some_and(|s| s.contains_key(&key)));
        match block {
            Some(b) if swept && self.sweep.len() > 1 => format!("sweep[{b}].{}", key.name()),
            Some(_) if swept => format!("sweep.{}", key.name()),
            _ => format!("params.{}", key.name()),
        }
    }

    fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
        crate::study::require_model_named(&self.model, NAME)?;
        if self.params.method == MethodKind::Rigid {
            return Err(SimError::invalid(
                "params.method",
                "rigid",
                "this model offers method = \"incremental\" or \"compliant\"",
            ));
        }
        for (b, table) in self.sweep.iter().enumerate() {
            for (key, axis) in table {
                let name = self.key_name(Some(b), *key);
                if self.params.values.contains_key(key) {
                    return Err(SimError::invalid(
                        &name,
                        "swept",
                        &format!("also given in [params]: give {} in one place", key.name()),
                    ));
                }
                axis.validate(&name)?;
            }
        }
        self.points_checked().map(|_| ())
    }

    /// Every point, in output order: the sweep tables in turn, each the product of its axes
    /// (in [`Key::ALL`] order, outermost first); each point's case built and checked.
    fn points_checked(&self) -> Result<Vec<SmPoint>, SimError> {
        let blocks: Vec<Option<usize>> = if self.sweep.is_empty() {
            vec![None]
        } else {
            (0..self.sweep.len()).map(Some).collect()
        };
        let mut out = Vec::new();
        for block in blocks {
            let axes: Vec<(Key, Vec<f64>)> = match block {
                Some(b) => Key::ALL
                    .iter()
                    .filter_map(|k| self.sweep[b].get(k).map(|a| (*k, a.values())))
                    .collect(),
                None => Vec::new(),
            };
            let mut grid = vec![self.params.values.clone()];
            for (key, values) in &axes {
                grid = grid
                    .into_iter()
                    .flat_map(|base| {
                        values.iter().map(move |&v| {
                            let mut m = base.clone();
                            m.insert(*key, v);
                            m
                        })
                    })
                    .collect();
            }
            for values in grid {
                let case = self.case(block, &values)?;
                out.push(SmPoint {
                    id: out.len(),
                    values,
                    case,
                });
            }
        }
        Ok(out)
    }

    /// All points (the spec was validated when parsed).
    pub fn points(&self) -> Vec<SmPoint> {
        self.points_checked().unwrap_or_default()
    }

    /// The case of one grid point; errors name the key and where it was given.
    fn case(&self, block: Option<usize>, values: &BTreeMap<Key, f64>) -> Result<Case, SimError> {
        let name = |key: Key| self.key_name(block, key);
        let get = |key: Key, needed_by: &str| {
            values.get(&key).copied().ok_or_else(|| {
                SimError::invalid(
                    &name(key),
                    "missing",
                    &format!("{needed_by} needs it: give it in [params] or [sweep]"),
                )
            })
        };
        let example = get(Key::Example, "every case")?;
        if example != 1.0 && example != 2.0 {
            return Err(SimError::invalid(
                &name(Key::Example),
                example,
                "must be 1 (§4.1, varying friction) or 2 (§4.2, Klarbring's example)",
            ));
        }
        let tag = if example == 1.0 {
            "example 1"
        } else {
            "example 2"
        };
        let mut v = BTreeMap::new();
        for &key in Key::of_example(example as u8) {
            v.insert(key, get(key, tag)?);
        }
        let method = self.params.method;
        for &key in Key::of_method(method) {
            if let Some(x) = values.get(&key) {
                v.insert(key, *x);
            } else if key == Key::Rtol {
                v.insert(key, DEFAULT_RTOL);
            } else {
                get(key, &format!("method = \"{method}\""))?;
            }
        }
        let ex = if example == 1.0 {
            Example::VaryingFriction(VaryingFriction {
                h11: v[&Key::H11],
                h22: v[&Key::H22],
                sigma_star: v[&Key::SigmaStar],
                mu0: v[&Key::Mu0],
                mu1: v[&Key::Mu1],
                load_rate: v[&Key::LoadRate],
            })
        } else {
            Example::VaryingNormalForce(VaryingNormalForce {
                h11: v[&Key::H11],
                h12: v[&Key::H12],
                h22: v[&Key::H22],
                mu_star: v[&Key::MuStar],
                f_star: v[&Key::FStar],
                load_rate: v[&Key::LoadRate],
            })
        };
        ex.validate(|k| {
            Key::ALL
                .iter()
                .find(|key| key.name() == k)
                .map_or(k.to_string(), |key| name(*key))
        })?;
        let t_end = require_positive(&name(Key::TEnd), v[&Key::TEnd])?;
        let setting = match method {
            MethodKind::Incremental => {
                let n = v[&Key::Steps];
                if !(n >= 1.0 && n.fract() == 0.0 && n <= LARGEST_IP_STEPS as f64) {
                    return Err(SimError::invalid(
                        &name(Key::Steps),
                        crate::error::number_text(n),
                        &format!(
                            "must be a whole number of time steps N in 1 ..= {LARGEST_IP_STEPS:e}: every step of the incremental path is kept (about 93 bytes: N = 3e6 peaks at 272,588 kB resident), so N = 1e7 holds about 0.9 GB; and the jump node time converges at order 1, to about T/N (1.5e-5 T at N = 65536)"
                        ),
                    ));
                }
                Setting::Incremental { steps: n as usize }
            }
            MethodKind::Compliant | MethodKind::Rigid => Setting::Compliant(CompliantSetting {
                kappa: {
                    let key = name(Key::Kappa);
                    require_resolvable_kappa(&key, v[&Key::Kappa])?;
                    require_penetrating_less_than_the_body(&key, v[&Key::Kappa])?
                },
                epsilon: require_positive(&name(Key::Epsilon), v[&Key::Epsilon])?,
                zeta: crate::error::require_non_negative(&name(Key::Zeta), v[&Key::Zeta])?,
                integrator: self.params.integrator.unwrap_or(DEFAULT_INTEGRATOR),
                rtol: require_positive(&name(Key::Rtol), v[&Key::Rtol])?,
            }),
        };
        Ok(Case {
            example: ex,
            t_end,
            setting,
        })
    }
}
