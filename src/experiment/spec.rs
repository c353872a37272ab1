//! Experiments as data: the TOML schema, its validation, and the grid of points it defines.

use crate::error::{require_finite, SimError};
use crate::integrate::IntegratorKind;
use crate::models::rod::mechanics::{painleve_theta_interval, SlipCase};
use crate::models::rod::scenario::RodImpact;
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
    /// Which analysis and figures: `sweep` (one configuration, κ → 0) or `atlas` (many
    /// configurations, each with a κ ladder). Default: `sweep` when only κ is swept.
    #[serde(default)]
    pub analysis: Option<AnalysisKind>,
    pub params: RodParams,
    pub sweep: Sweep,
    pub solver: SolverSpec,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum ModelName {
    #[serde(rename = "rod")]
    Rod,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisKind {
    Sweep,
    Atlas,
}

/// Fixed parameters of the rod impact. Each parameter is given here or swept in [`Sweep`],
/// not both.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RodParams {
    pub mu: Option<f64>,
    /// Default: `mu`.
    pub mu_s: Option<f64>,
    pub theta0: Option<f64>,
    /// Default 0.
    pub omega0: Option<f64>,
    pub u0: Option<f64>,
    /// Dashpot c_d; default 0 (linear spring).
    pub damping: Option<f64>,
}

/// Sweep axes: κ always; any rod parameter optionally.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub kappa: LogGrid,
    pub mu: Option<Axis>,
    pub mu_s: Option<Axis>,
    pub theta0: Option<Axis>,
    pub omega0: Option<Axis>,
    pub u0: Option<Axis>,
    pub damping: Option<Axis>,
    /// Keep only initial states of this case (`inconsistent`, `indeterminate`, `consistent`);
    /// the others are skipped and counted.
    pub case: Option<SlipCase>,
}

/// Values of one swept parameter.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Axis {
    /// `[a, b, c]`.
    List(Vec<f64>),
    /// `{ min, max, n }`: n evenly spaced values, both ends included.
    Range(LinearRange),
    /// `{ painleve_interval = n }` (θ0 only): the midpoints of n equal cells of the interval
    /// where A(θ, μ) < 0 (Zhao–Liu eq. 18), at each μ.
    PainleveInterval(PainleveCells),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinearRange {
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PainleveCells {
    pub painleve_interval: usize,
}

impl Axis {
    /// The values at friction coefficient `mu` (only the Painlevé interval depends on it).
    fn values(&self, mu: f64) -> Vec<f64> {
        match self {
            Axis::List(v) => v.clone(),
            Axis::Range(r) if r.n == 1 => vec![r.min],
            Axis::Range(r) => (0..r.n)
                .map(|i| r.min + (r.max - r.min) * i as f64 / (r.n - 1) as f64)
                .collect(),
            Axis::PainleveInterval(c) => match painleve_theta_interval(mu) {
                Some((lo, hi)) => (0..c.painleve_interval)
                    .map(|i| lo + (hi - lo) * (i as f64 + 0.5) / c.painleve_interval as f64)
                    .collect(),
                None => Vec::new(),
            },
        }
    }

    fn validate(&self, key: &str) -> Result<(), SimError> {
        match self {
            Axis::List(v) if v.is_empty() => {
                Err(SimError::invalid(key, "[]", "list at least one value"))
            }
            Axis::List(v) => v
                .iter()
                .try_for_each(|x| require_finite(key, *x).map(|_| ())),
            Axis::Range(r) => {
                require_finite(&format!("{key}.min"), r.min)?;
                require_finite(&format!("{key}.max"), r.max)?;
                if r.n == 0 {
                    return Err(SimError::invalid(&format!("{key}.n"), 0, "must be >= 1"));
                }
                if r.max < r.min {
                    return Err(SimError::invalid(
                        &format!("{key}.max"),
                        r.max,
                        &format!("must be >= {key}.min"),
                    ));
                }
                Ok(())
            }
            Axis::PainleveInterval(c) if key != "sweep.theta0" => Err(SimError::invalid(
                key,
                format!("{{ painleve_interval = {} }}", c.painleve_interval),
                "painleve_interval is a theta0 axis; give a list or { min, max, n }",
            )),
            Axis::PainleveInterval(c) if c.painleve_interval == 0 => Err(SimError::invalid(
                "sweep.theta0.painleve_interval",
                0,
                "must be >= 1",
            )),
            Axis::PainleveInterval(_) => Ok(()),
        }
    }
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

/// Deserialize TOML text (unknown keys rejected by the type) and validate it.
pub fn parse_validated<T: serde::de::DeserializeOwned>(
    text: &str,
    validate: impl Fn(&T) -> Result<(), SimError>,
) -> Result<T, SpecError> {
    let value: T = toml::from_str(text).map_err(|e| SpecError::Parse {
        path: String::new(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    validate(&value).map_err(|source| SpecError::Invalid {
        path: String::new(),
        source,
    })?;
    Ok(value)
}

/// An experiment's name names its output directory.
pub fn validate_name(name: &str) -> Result<(), SimError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(SimError::invalid(
            "name",
            name,
            "must be non-empty letters, digits, '_' or '-' (it names the output directory)",
        ));
    }
    Ok(())
}

/// One run of the experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Position in the full grid: the output order and the resume key.
    pub id: usize,
    pub impact: RodImpact,
    pub integrator: IntegratorKind,
}

/// Any experiment file: a κ sweep / atlas, or an integrator study (`kind = "integrator_study"`).
#[derive(Clone, Debug, PartialEq)]
pub enum Experiment {
    Sweep(Box<ExperimentSpec>),
    Study(crate::models::rod::study::StudySpec),
}

impl Experiment {
    /// Read and validate `path`; the top-level `kind` key decides which schema applies.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text).map_err(|e| e.at(path))
    }

    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| SpecError::Parse {
            path: String::new(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        if table.contains_key("kind") {
            crate::models::rod::study::StudySpec::parse(text).map(Experiment::Study)
        } else {
            ExperimentSpec::parse(text).map(|s| Experiment::Sweep(Box::new(s)))
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Experiment::Sweep(s) => &s.name,
            Experiment::Study(s) => &s.name,
        }
    }
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

impl SpecError {
    /// The same error, naming the file.
    fn at(self, path: &Path) -> Self {
        let path = path.display().to_string();
        match self {
            SpecError::Parse { message, .. } => SpecError::Parse { path, message },
            SpecError::Invalid { source, .. } => SpecError::Invalid { path, source },
            other => other,
        }
    }
}

impl ExperimentSpec {
    /// Read and validate `path` (a κ sweep or atlas file).
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        match Experiment::load(path)? {
            Experiment::Sweep(spec) => Ok(*spec),
            Experiment::Study(_) => Err(SpecError::Parse {
                path: path.display().to_string(),
                message: "an integrator study, not a κ sweep".to_string(),
            }),
        }
    }

    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
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
        for (name, fixed, axis, required) in self.parameter_sources() {
            match (fixed, axis) {
                (Some(_), Some(_)) => {
                    return Err(SimError::invalid(
                        &format!("sweep.{name}"),
                        "both",
                        &format!("params.{name} is also given; keep one of the two"),
                    ))
                }
                (None, None) if required => {
                    return Err(SimError::invalid(
                        &format!("params.{name}"),
                        "missing",
                        &format!("give it in [params] or sweep it in [sweep] ({name} = [..] or {{ min, max, n }})"),
                    ))
                }
                (_, Some(a)) => a.validate(&format!("sweep.{name}"))?,
                _ => {}
            }
        }
        let grid = self.configurations();
        if let Some((bad, _)) = grid.invalid.first() {
            let swept = |name: &str| {
                self.parameter_sources()
                    .iter()
                    .any(|(n, _, a, _)| *n == name && a.is_some())
            };
            return bad.validate(|name| match name {
                "kappa" => "sweep.kappa".to_string(),
                other if swept(other) => format!("sweep.{other}"),
                other => format!("params.{other}"),
            });
        }
        if grid.kept.is_empty() {
            return Err(SimError::invalid(
                "sweep.case",
                format!("{:?}", self.sweep.case),
                &format!("no initial state of the grid is of this case ({} skipped); widen the grid or drop the filter", grid.skipped),
            ));
        }
        if self.analysis_kind() == AnalysisKind::Sweep && grid.kept.len() > 1 {
            return Err(SimError::invalid(
                "analysis",
                "sweep",
                &format!("a κ sweep analyses one configuration, the grid has {}; use analysis = \"atlas\"", grid.kept.len()),
            ));
        }
        Ok(())
    }

    /// (name, value in [params], axis in [sweep], required) of every rod parameter.
    fn parameter_sources(&self) -> [(&'static str, Option<f64>, Option<&Axis>, bool); 6] {
        let (p, s) = (&self.params, &self.sweep);
        [
            ("mu", p.mu, s.mu.as_ref(), true),
            ("mu_s", p.mu_s, s.mu_s.as_ref(), false),
            ("theta0", p.theta0, s.theta0.as_ref(), true),
            ("omega0", p.omega0, s.omega0.as_ref(), false),
            ("u0", p.u0, s.u0.as_ref(), true),
            ("damping", p.damping, s.damping.as_ref(), false),
        ]
    }

    /// The analysis to run: as given, else `sweep` for one configuration and `atlas` otherwise.
    pub fn analysis_kind(&self) -> AnalysisKind {
        self.analysis.unwrap_or_else(|| {
            if self.configurations().kept.len() > 1 {
                AnalysisKind::Atlas
            } else {
                AnalysisKind::Sweep
            }
        })
    }

    /// Every initial state of the grid (κ set to `sweep.kappa.max`), in grid order: μ, θ0, θ̇0,
    /// c_d, u0, μ_s (outermost first). States outside `sweep.case` are skipped and counted.
    pub fn configurations(&self) -> Configurations {
        let values = |fixed: Option<f64>, axis: Option<&Axis>, default: f64, mu: f64| match axis {
            Some(a) => a.values(mu),
            None => vec![fixed.unwrap_or(default)],
        };
        let (p, s) = (&self.params, &self.sweep);
        let mut out = Configurations::default();
        for mu in values(p.mu, s.mu.as_ref(), f64::NAN, f64::NAN) {
            for theta0 in values(p.theta0, s.theta0.as_ref(), f64::NAN, mu) {
                for omega0 in values(p.omega0, s.omega0.as_ref(), 0.0, mu) {
                    for damping in values(p.damping, s.damping.as_ref(), 0.0, mu) {
                        for u0 in values(p.u0, s.u0.as_ref(), f64::NAN, mu) {
                            for mu_s in values(p.mu_s, s.mu_s.as_ref(), mu, mu) {
                                let imp = RodImpact {
                                    kappa: self.sweep.kappa.max,
                                    mu,
                                    mu_s,
                                    theta0,
                                    omega0,
                                    u0,
                                    damping,
                                };
                                if let Err(e) = imp.validate(|n| n.to_string()) {
                                    out.invalid.push((imp, e));
                                } else if s.case.is_some_and(|c| c != imp.case()) {
                                    out.skipped += 1;
                                } else {
                                    out.kept.push(imp);
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The one configuration of a κ sweep (the first of the grid).
    pub fn impact(&self, kappa: f64) -> RodImpact {
        let c = self.configurations();
        let first = c.kept.first().or(c.invalid.first().map(|(i, _)| i));
        RodImpact {
            kappa,
            ..*first.expect("validated specs have a configuration")
        }
    }

    /// All points, in output order: configurations in grid order, then κ from large to small,
    /// then the integrators as listed.
    pub fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for imp in self.configurations().kept {
            for kappa in self.sweep.kappa.values() {
                for &integrator in &self.solver.integrators {
                    out.push(Point {
                        id: out.len(),
                        impact: RodImpact { kappa, ..imp },
                        integrator,
                    });
                }
            }
        }
        out
    }
}

/// The initial states of an experiment's grid.
#[derive(Clone, Debug, Default)]
pub struct Configurations {
    pub kept: Vec<RodImpact>,
    /// States outside `sweep.case`.
    pub skipped: usize,
    /// States with an invalid parameter (an error: reported by validation).
    pub invalid: Vec<(RodImpact, SimError)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `case` mask keeps exactly the states inside eq. (18)'s interval with B < 0, computed
    /// here from the closed forms tan θ = (3μ ∓ √(9μ² − 16))/2 and B = θ̇² sin θ − 1.
    #[test]
    fn case_mask_matches_the_closed_form_interval_of_eq_18() {
        let text = r#"
name = "mask"
model = "rod"
[params]
u0 = -1.0
[sweep]
kappa = { min = 1e-6, max = 1e-6, per_decade = 1 }
mu = [1.4, 2.0, 5.0, 10.0]
theta0 = { min = 0.02, max = 1.56, n = 300 }
omega0 = [0.0, 1.2]
case = "inconsistent"
[solver]
integrators = ["bdf"]
rtol = 1e-8
atol = 1e-12
"#;
        let spec = ExperimentSpec::parse(text).unwrap();
        let grid = spec.configurations();
        let mut expected = 0;
        for mu in [1.4f64, 2.0, 5.0, 10.0] {
            let r = (9.0 * mu * mu - 16.0).sqrt();
            let (lo, hi) = (((3.0 * mu - r) / 2.0).atan(), ((3.0 * mu + r) / 2.0).atan());
            for i in 0..300 {
                let theta = 0.02 + 1.54 * f64::from(i) / 299.0;
                for omega in [0.0f64, 1.2] {
                    if lo < theta && theta < hi && omega * omega * theta.sin() < 1.0 {
                        expected += 1;
                    }
                }
            }
        }
        assert_eq!(grid.kept.len(), expected);
        assert_eq!(grid.kept.len() + grid.skipped, 4 * 300 * 2);
        assert!(grid.kept.iter().all(|c| c.case() == SlipCase::Inconsistent));
        // The Painlevé-interval axis puts every θ0 inside the interval: nothing is masked at θ̇0 = 0.
        let cells = ExperimentSpec::parse(
            &text
                .replace(
                    "theta0 = { min = 0.02, max = 1.56, n = 300 }",
                    "theta0 = { painleve_interval = 60 }",
                )
                .replace("omega0 = [0.0, 1.2]", "omega0 = [0.0]"),
        )
        .unwrap()
        .configurations();
        assert_eq!((cells.kept.len(), cells.skipped), (4 * 60, 0));
    }

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
            (
                ZHAO_LIU.replace("[solver]", "mu = [2.0, 3.0]\n[solver]"),
                "sweep.mu",
            ),
            (ZHAO_LIU.replace("theta0 = 1.3\n", ""), "params.theta0"),
            (
                ZHAO_LIU.replace("[solver]", "damping = { painleve_interval = 4 }\n[solver]"),
                "sweep.damping",
            ),
            (
                ZHAO_LIU.replace("theta0 = 1.3\n", "").replace(
                    "[solver]",
                    "theta0 = { min = 1.0, max = 1.3, n = 0 }\n[solver]",
                ),
                "sweep.theta0.n",
            ),
            (
                ZHAO_LIU
                    .replace("theta0 = 1.3\n", "")
                    .replace("[solver]", "theta0 = [1.0, 1.3]\n[solver]")
                    .replace("model = \"rod\"", "model = \"rod\"\nanalysis = \"sweep\""),
                "analysis",
            ),
            (
                ZHAO_LIU.replace("[solver]", "case = \"consistent\"\n[solver]"),
                "sweep.case",
            ),
            (
                ZHAO_LIU
                    .replace("theta0 = 1.3\n", "")
                    .replace("[solver]", "theta0 = [1.0, 4.0]\n[solver]"),
                "sweep.theta0",
            ),
        ];
        for (text, key) in cases {
            let e = error_of(&text);
            assert!(e.contains(key), "error does not name {key}: {e}");
        }
    }
}
