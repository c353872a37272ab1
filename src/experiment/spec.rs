//! Experiments as data: the TOML schema, its validation, and the grid of points it defines.

use crate::error::SimError;
use crate::integrate::IntegratorKind;
use crate::scenario::RodImpact;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// An experiment file (`experiments/NAME.toml`). Unknown keys are rejected.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// Mechanical system: `rod` (the Painlevé rod of Zhao–Liu).
    pub model: ModelName,
    pub params: RodParams,
    pub sweep: Sweep,
    pub solver: SolverSpec,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum ModelName {
    #[serde(rename = "rod")]
    Rod,
}

/// Fixed parameters of the rod impact (κ is swept).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RodParams {
    pub mu: f64,
    /// Default: `mu`.
    #[serde(default)]
    pub mu_s: Option<f64>,
    pub theta0: f64,
    #[serde(default)]
    pub omega0: f64,
    pub u0: f64,
    /// Dashpot c_d; default 0 (linear spring).
    #[serde(default)]
    pub damping: f64,
}

/// Sweep axes.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub kappa: LogGrid,
}

/// A logarithmic grid from `max` down to `min` with `per_decade` points per decade.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogGrid {
    pub min: f64,
    pub max: f64,
    pub per_decade: u32,
}

impl LogGrid {
    /// The grid values, largest first; both ends included when the span is a whole number of
    /// steps.
    pub fn values(&self) -> Vec<f64> {
        let (lo, hi) = (self.min.log10(), self.max.log10());
        let steps = ((hi - lo) * f64::from(self.per_decade) + 1e-9).floor() as usize;
        (0..=steps)
            .map(|i| 10f64.powf(hi - i as f64 / f64::from(self.per_decade)))
            .collect()
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    pub integrators: Vec<IntegratorKind>,
    pub rtol: f64,
    pub atol: f64,
    /// Time limit of each run (default 10).
    #[serde(default)]
    pub t_max: Option<f64>,
}

/// One run of the experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Position in the full grid: the output order and the resume key.
    pub id: usize,
    pub impact: RodImpact,
    pub integrator: IntegratorKind,
}

/// Errors reading an experiment.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: {source}")]
    Invalid { path: String, source: SimError },
}

impl ExperimentSpec {
    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text).map_err(|e| match e {
            SpecError::Parse { message, .. } => SpecError::Parse {
                path: path.display().to_string(),
                message,
            },
            SpecError::Invalid { source, .. } => SpecError::Invalid {
                path: path.display().to_string(),
                source,
            },
            other => other,
        })
    }

    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let spec: ExperimentSpec = toml::from_str(text).map_err(|e| SpecError::Parse {
            path: String::new(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        spec.validate().map_err(|source| SpecError::Invalid {
            path: String::new(),
            source,
        })?;
        Ok(spec)
    }

    fn validate(&self) -> Result<(), SimError> {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(SimError::invalid(
                "name",
                &self.name,
                "must be non-empty letters, digits, '_' or '-' (it names the output directory)",
            ));
        }
        let k = &self.sweep.kappa;
        crate::error::require_positive("sweep.kappa.min", k.min)?;
        crate::error::require_positive("sweep.kappa.max", k.max)?;
        if k.max < k.min {
            return Err(SimError::invalid(
                "sweep.kappa.max",
                k.max,
                "must be >= sweep.kappa.min",
            ));
        }
        if k.per_decade == 0 {
            return Err(SimError::invalid(
                "sweep.kappa.per_decade",
                0,
                "must be >= 1",
            ));
        }
        if self.solver.integrators.is_empty() {
            return Err(SimError::invalid(
                "solver.integrators",
                "[]",
                "list at least one integrator",
            ));
        }
        crate::error::require_positive("solver.rtol", self.solver.rtol)?;
        crate::error::require_positive("solver.atol", self.solver.atol)?;
        if let Some(t) = self.solver.t_max {
            crate::error::require_positive("solver.t_max", t)?;
        }
        self.impact(k.max).validate(|name| match name {
            "kappa" => "sweep.kappa".to_string(),
            other => format!("params.{other}"),
        })
    }

    /// The rod impact at compliance `kappa`.
    pub fn impact(&self, kappa: f64) -> RodImpact {
        let p = &self.params;
        RodImpact {
            kappa,
            mu: p.mu,
            mu_s: p.mu_s.unwrap_or(p.mu),
            theta0: p.theta0,
            omega0: p.omega0,
            u0: p.u0,
            damping: p.damping,
        }
    }

    /// All points, in output order: κ from large to small, then the integrators as listed.
    pub fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for kappa in self.sweep.kappa.values() {
            for &integrator in &self.solver.integrators {
                out.push(Point {
                    id: out.len(),
                    impact: self.impact(kappa),
                    integrator,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const ZHAO_LIU: &str = r#"
name = "zhao_liu"
model = "rod"
[params]
mu = 2.0
mu_s = 2.0
theta0 = 1.3
omega0 = 0.0
u0 = -1.0
damping = 0.0
[sweep]
kappa = { min = 1e-12, max = 1e-1, per_decade = 4 }
[solver]
integrators = ["bdf", "tr-bdf2", "esdirk34", "tsit45"]
rtol = 1e-10
atol = 1e-14
"#;

    #[test]
    fn the_documented_file_parses_into_45_kappas_by_4_integrators() {
        let spec = ExperimentSpec::parse(ZHAO_LIU).unwrap();
        let kappas = spec.sweep.kappa.values();
        assert_eq!(kappas.len(), 45);
        assert!((kappas[0] - 1e-1).abs() < 1e-16 && (kappas[44] / 1e-12 - 1.0).abs() < 1e-12);
        assert_eq!(spec.points().len(), 180);
        assert_eq!(spec.points()[5].integrator, IntegratorKind::TrBdf2);
    }

    fn error_of(text: &str) -> String {
        ExperimentSpec::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn validation_errors_name_the_key() {
        let cases = [
            (ZHAO_LIU.replace("damping = 0.0", "dampng = 0.0"), "dampng"),
            (
                ZHAO_LIU.replace("rtol = 1e-10", "rtol = -1e-10"),
                "solver.rtol",
            ),
            (ZHAO_LIU.replace("mu_s = 2.0", "mu_s = 1.0"), "params.mu_s"),
            (ZHAO_LIU.replace("mu = 2.0", "mu = 0.0"), "params.mu"),
            (
                ZHAO_LIU.replace("theta0 = 1.3", "theta0 = 4.0"),
                "params.theta0",
            ),
            (
                ZHAO_LIU.replace("min = 1e-12", "min = -1e-12"),
                "sweep.kappa.min",
            ),
            (
                ZHAO_LIU.replace("per_decade = 4", "per_decade = 0"),
                "sweep.kappa.per_decade",
            ),
            (ZHAO_LIU.replace("\"tsit45\"", "\"euler\""), "euler"),
            (
                ZHAO_LIU.replace("model = \"rod\"", "model = \"cube\""),
                "cube",
            ),
            (ZHAO_LIU.replace("[solver]", "[solver]\nfoo = 1"), "foo"),
            (ZHAO_LIU.replace("rtol = 1e-10\n", ""), "rtol"),
        ];
        for (text, key) in cases {
            let e = error_of(&text);
            assert!(e.contains(key), "error does not name {key}: {e}");
        }
    }
}
