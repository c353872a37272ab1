//! The rod's experiment files: the `[params]` and `[sweep]` tables (any rod parameter fixed or
//! swept, θ0 also over the Painlevé interval, explicit lists of states and of fast starts, an
//! optional mask by slip case), their grid ([`RodGrid`], shared with the mode table of
//! [`super::fast`]), and the rod's κ sweep and atlas as a [`Model`] of the harness.

use super::columns::{RodMeasures, INPUT_COLUMNS, MEASURE_COLUMNS};
use super::mechanics::{PainleveRod, SlipCase, UNIFORM_GYRATION_SQ};
use super::scenario::RodImpact;
use super::{AnalysisKind, Rod};
use crate::compliant::normal::require_resolvable_kappa;
use crate::compliant::SimulationOptions;
use crate::error::SimError;
use crate::experiment::grammar::{
    check_sources, grid_size, merged_states, Axis, LogGrid, Source, MAX_AXIS_VALUES,
};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::record;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::iwc::FastStart;
use crate::study::fast::{check_starts, fast_starts};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Fixed parameters of the rod impact. Each parameter is given here or swept in [`RodSweep`],
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
    /// Squared radius of gyration ρ = r²/l²; default 1/3 (the uniform rod). The κ-sweep and
    /// atlas reports need 1/3 (they compare with Zhao–Liu's bounds for the uniform rod).
    pub gyration_sq: Option<f64>,
    /// The fast initial gap Y0 = y0/κ; default 0 (docs/champneys_varkonyi.md §3). The κ-sweep
    /// and atlas start at Y0 = V0 = 0 (Zhao–Liu's δ = δ̇ = 0).
    #[serde(rename = "Y0")]
    pub y0: Option<f64>,
    /// The fast initial normal velocity V0 = v0/√κ; default 0.
    #[serde(rename = "V0")]
    pub v0: Option<f64>,
}

/// Sweep axes: κ always; any rod parameter optionally.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RodSweep {
    pub kappa: LogGrid,
    pub mu: Option<RodAxis>,
    pub mu_s: Option<RodAxis>,
    pub theta0: Option<RodAxis>,
    pub omega0: Option<RodAxis>,
    pub u0: Option<RodAxis>,
    pub damping: Option<RodAxis>,
    pub gyration_sq: Option<RodAxis>,
    #[serde(rename = "Y0")]
    pub y0: Option<RodAxis>,
    #[serde(rename = "V0")]
    pub v0: Option<RodAxis>,
    /// Explicit initial states: each a table of rod parameters merged over `[params]` (a key
    /// in both is an error), crossed with the axes.
    pub states: Option<Vec<RodParams>>,
    /// Explicit fast starts `{ Y0 = …, V0 = … }`, crossed with everything else (instead of
    /// Y0 and V0 in `[params]` or as axes).
    pub starts: Option<Vec<FastStart>>,
    /// Keep only initial states of this case (`inconsistent`, `indeterminate`, `consistent`);
    /// the others are skipped and counted.
    pub case: Option<SlipCase>,
}

/// Values of one swept rod parameter.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum RodAxis {
    /// A list or an evenly spaced range.
    Values(Axis),
    /// `{ painleve_interval = n }` (θ0 only): the midpoints of n equal cells of the interval
    /// where A(θ, μ) < 0 (Zhao–Liu eq. 18), at each μ.
    PainleveInterval(PainleveCells),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PainleveCells {
    pub painleve_interval: usize,
}

impl<'de> Deserialize<'de> for RodAxis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        match value.get("painleve_interval") {
            Some(n) if value.as_object().is_some_and(|m| m.len() == 1) => n
                .as_u64()
                .map(|n| {
                    RodAxis::PainleveInterval(PainleveCells {
                        painleve_interval: usize::try_from(n).unwrap_or(usize::MAX),
                    })
                })
                .ok_or_else(|| {
                    serde::de::Error::custom("painleve_interval must be a whole number >= 1")
                }),
            _ => Axis::from_value(&value).map(RodAxis::Values).map_err(|e| {
                serde::de::Error::custom(format!(
                    "{e}, or (theta0 only) {{ painleve_interval = n }}"
                ))
            }),
        }
    }
}

impl RodAxis {
    /// The number of values (at any μ), without computing them.
    fn len(&self) -> usize {
        match self {
            RodAxis::Values(a) => a.len(),
            RodAxis::PainleveInterval(c) => c.painleve_interval,
        }
    }

    /// The values at friction coefficient `mu` for the rod `body` (only the Painlevé interval
    /// depends on them).
    fn values(&self, mu: f64, body: &PainleveRod) -> Vec<f64> {
        match self {
            RodAxis::Values(a) => a.values(),
            RodAxis::PainleveInterval(c) => match body.painleve_theta_interval(mu) {
                Some((lo, hi)) => (0..c.painleve_interval)
                    .map(|i| lo + (hi - lo) * (i as f64 + 0.5) / c.painleve_interval as f64)
                    .collect(),
                None => Vec::new(),
            },
        }
    }

    fn validate(&self, key: &str) -> Result<(), SimError> {
        match self {
            RodAxis::Values(a) => a.validate(key),
            RodAxis::PainleveInterval(c) if key != "sweep.theta0" => Err(SimError::invalid(
                key,
                format!("{{ painleve_interval = {} }}", c.painleve_interval),
                "painleve_interval is a theta0 axis; give a list or { min, max, n }",
            )),
            RodAxis::PainleveInterval(c)
                if c.painleve_interval == 0 || c.painleve_interval > MAX_AXIS_VALUES =>
            {
                Err(SimError::invalid(
                    "sweep.theta0.painleve_interval",
                    c.painleve_interval,
                    &format!("must be between 1 and {MAX_AXIS_VALUES}"),
                ))
            }
            RodAxis::PainleveInterval(_) => Ok(()),
        }
    }
}

/// The grid of rod initial states that `[params]` and `[sweep]` define (every rod experiment:
/// the κ sweep, the atlas, the mode table).
#[derive(Clone, Copy, Debug)]
pub struct RodGrid<'a> {
    pub params: &'a RodParams,
    pub sweep: &'a RodSweep,
}

impl<'a> RodGrid<'a> {
    pub fn new(params: &'a RodParams, sweep: &'a RodSweep) -> Self {
        RodGrid { params, sweep }
    }

    /// The sources of every rod parameter, for `[params]` merged with one entry of `states`.
    fn sources(&self, p: &RodParams) -> [Source<'a, RodAxis>; 9] {
        let s = self.sweep;
        let src = |name, fixed, axis: &'a Option<RodAxis>, required| Source {
            name,
            fixed,
            axis: axis.as_ref(),
            required,
        };
        [
            src("mu", p.mu, &s.mu, true),
            src("mu_s", p.mu_s, &s.mu_s, false),
            src("theta0", p.theta0, &s.theta0, true),
            src("omega0", p.omega0, &s.omega0, false),
            src("u0", p.u0, &s.u0, true),
            src("damping", p.damping, &s.damping, false),
            src("gyration_sq", p.gyration_sq, &s.gyration_sq, false),
            src("Y0", p.y0, &s.y0, false),
            src("V0", p.v0, &s.v0, false),
        ]
    }

    /// `[params]` merged with each entry of `sweep.states`.
    fn merged_params(&self) -> Result<Vec<RodParams>, SimError> {
        merged_states(self.params, self.sweep.states.as_deref())
    }

    /// Where each parameter comes from is unambiguous and the required ones are given; the
    /// axes and the fast starts are valid.
    pub fn validate_sources(&self) -> Result<(), SimError> {
        let mut y0_v0_elsewhere = self.sweep.y0.is_some() || self.sweep.v0.is_some();
        for p in self.merged_params()? {
            check_sources(&self.sources(&p), RodAxis::validate)?;
            y0_v0_elsewhere |= p.y0.is_some() || p.v0.is_some();
        }
        check_starts(
            self.sweep.starts.as_deref(),
            y0_v0_elsewhere,
            self.sweep.kappa.max,
        )
    }

    /// The number of configurations (an upper bound), counted without building them.
    pub fn size(&self) -> u128 {
        grid_size(
            &self.sources(self.params),
            RodAxis::len,
            self.sweep.states.as_deref(),
            self.sweep.starts.as_deref(),
        )
    }

    /// Whether a parameter is swept (for error messages that name the key).
    pub fn is_swept(&self, name: &str) -> bool {
        self.sources(self.params)
            .iter()
            .any(|s| s.name == name && s.axis.is_some())
    }

    /// Every initial state of the grid (κ set to `sweep.kappa.max`), in grid order: the
    /// entries of `states`, then ρ, μ, θ0, θ̇0, c_d, u0, μ_s, the fast start (outermost first).
    /// States outside `sweep.case` are skipped and counted. Call after
    /// [`Self::validate_sources`].
    pub fn configurations(&self) -> Configurations {
        let s = self.sweep;
        let mut out = Configurations::default();
        for p in self.merged_params().unwrap_or_default() {
            let values = |fixed: Option<f64>,
                          axis: Option<&RodAxis>,
                          default: f64,
                          mu: f64,
                          body: &PainleveRod| match axis {
                Some(a) => a.values(mu, body),
                None => vec![fixed.unwrap_or(default)],
            };
            let uniform = PainleveRod::UNIFORM;
            let starts = fast_starts(
                s.starts.as_deref(),
                &values(p.y0, s.y0.as_ref(), 0.0, f64::NAN, &uniform),
                &values(p.v0, s.v0.as_ref(), 0.0, f64::NAN, &uniform),
            );
            let gyrations = values(
                p.gyration_sq,
                s.gyration_sq.as_ref(),
                UNIFORM_GYRATION_SQ,
                f64::NAN,
                &uniform,
            );
            for gyration_sq in gyrations {
                let body = PainleveRod::new(gyration_sq);
                for mu in values(p.mu, s.mu.as_ref(), f64::NAN, f64::NAN, &body) {
                    for theta0 in values(p.theta0, s.theta0.as_ref(), f64::NAN, mu, &body) {
                        for omega0 in values(p.omega0, s.omega0.as_ref(), 0.0, mu, &body) {
                            for damping in values(p.damping, s.damping.as_ref(), 0.0, mu, &body) {
                                for u0 in values(p.u0, s.u0.as_ref(), f64::NAN, mu, &body) {
                                    for mu_s in values(p.mu_s, s.mu_s.as_ref(), mu, mu, &body) {
                                        for &start in &starts {
                                            let imp = RodImpact {
                                                kappa: s.kappa.max,
                                                mu,
                                                mu_s,
                                                theta0,
                                                omega0,
                                                u0,
                                                damping,
                                                gyration_sq,
                                                start,
                                            };
                                            out.push(imp, s.case);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The grid's first invalid state, as the error its parameters give with the keys that
    /// set them.
    pub fn first_invalid(&self, grid: &Configurations) -> Result<(), SimError> {
        if let Some((bad, _)) = grid.invalid.first() {
            return bad.validate(|name| match name {
                "kappa" => "sweep.kappa".to_string(),
                other if self.is_swept(other) => format!("sweep.{other}"),
                other if self.sweep.states.is_some() => format!("sweep.states.{other}"),
                other => format!("params.{other}"),
            });
        }
        if grid.kept.is_empty() {
            return Err(SimError::invalid(
                "sweep.case",
                crate::error::as_written(&self.sweep.case),
                &format!("no initial state of the grid is of this case ({} skipped); widen the grid or drop the filter", grid.skipped),
            ));
        }
        Ok(())
    }
}

impl SweepSpec<Rod> {
    fn grid(&self) -> RodGrid<'_> {
        RodGrid::new(&self.params, &self.sweep)
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

    /// Every initial state of the grid ([`RodGrid::configurations`]).
    pub fn configurations(&self) -> Configurations {
        self.grid().configurations()
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

impl Configurations {
    /// File `imp` as kept, skipped (outside `case`) or invalid.
    fn push(&mut self, imp: RodImpact, case: Option<SlipCase>) {
        if let Err(e) = imp.validate(|n| n.to_string()) {
            self.invalid.push((imp, e));
        } else if case.is_some_and(|c| c != imp.case()) {
            self.skipped += 1;
        } else {
            self.kept.push(imp);
        }
    }
}

impl Model for Rod {
    const NAME: &'static str = "rod";
    const ABOUT: &'static str =
        "the Painlevé rod on a compliant contact (Zhao–Liu–Chen–Brogliato 2015); analyses \
         mode_table and liftoff_iwc_basin (Champneys–Várkonyi 2016)";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "max_steps", "max_events"];
    type Params = RodParams;
    type Sweep = RodSweep;
    type Analysis = AnalysisKind;
    type Config = RodImpact;
    const INPUT_COLUMNS: &'static [&'static str] = INPUT_COLUMNS;
    const MEASURE_COLUMNS: &'static [&'static str] = MEASURE_COLUMNS;

    fn kappa(sweep: &RodSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Rod>) -> Result<(), SimError> {
        require_resolvable_kappa("sweep.kappa.min", spec.sweep.kappa.min)?;
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            spec.sweep.kappa.max,
        )?;
        let rod_grid = spec.grid();
        rod_grid.validate_sources()?;
        let grid = rod_grid.configurations();
        rod_grid.first_invalid(&grid)?;
        if let Some(c) = grid.kept.iter().find(|c| c.start != FastStart::REST) {
            let key = if spec.sweep.starts.is_some() {
                "sweep.starts"
            } else if c.start.gap != 0.0 {
                if rod_grid.is_swept("Y0") {
                    "sweep.Y0"
                } else {
                    "params.Y0"
                }
            } else if rod_grid.is_swept("V0") {
                "sweep.V0"
            } else {
                "params.V0"
            };
            return Err(SimError::invalid(
                key,
                crate::error::as_written(&c.start),
                "the κ-sweep and atlas start at Y0 = V0 = 0 (Zhao–Liu's δ = δ̇ = 0, the start of their bounds); other fast starts run with analysis = \"mode_table\"",
            ));
        }
        if let Some(w) = spec.solver.window_scaled {
            return Err(SimError::invalid(
                "solver.window_scaled",
                w,
                "the κ-sweep and atlas run to separation (t_max); a fast-time window is the mode table's (analysis = \"mode_table\")",
            ));
        }
        if let Some(c) = grid
            .kept
            .iter()
            .find(|c| c.gyration_sq != UNIFORM_GYRATION_SQ)
        {
            let key = if spec.sweep.gyration_sq.is_some() {
                "sweep.gyration_sq"
            } else {
                "params.gyration_sq"
            };
            return Err(SimError::invalid(
                key,
                c.gyration_sq,
                "the κ-sweep and atlas reports compare with Zhao–Liu's bounds, stated for the uniform rod: use 1/3 (or leave it out)",
            ));
        }
        if spec.analysis_kind() == AnalysisKind::Sweep && grid.kept.len() > 1 {
            return Err(SimError::invalid(
                "analysis",
                "sweep",
                &format!("a κ sweep analyses one configuration, the grid has {}; use analysis = \"atlas\"", grid.kept.len()),
            ));
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Rod>) -> u128 {
        spec.grid().size()
    }

    fn configurations(spec: &SweepSpec<Rod>) -> Vec<RodImpact> {
        spec.configurations().kept
    }

    fn inputs(c: &RodImpact) -> Cells {
        let mut cells = c.parameter_cells();
        cells.push(("case", format!("{:?}", c.case()).to_lowercase()));
        cells
    }

    fn run(
        spec: &SweepSpec<Rod>,
        config: &RodImpact,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let s = &spec.solver;
        let o = SimulationOptions::new(integrator, s.rtol, s.atol).with_guards(
            s.t_max,
            s.max_steps,
            s.max_events,
        );
        let record = RodImpact { kappa, ..*config }
            .simulate(&o)
            .map_err(|e| e.to_string())?;
        let cells = record::cells(&RodMeasures::from(&record)).map_err(|e| e.to_string())?;
        Ok((cells, record.stats))
    }

    fn after_run(spec: &SweepSpec<Rod>, dir: &Path) -> Result<(), RunError> {
        super::history::write_history(spec, dir)
    }

    fn report(spec: &SweepSpec<Rod>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        super::report::write_report(spec, rows, dir).map(|_| ())
    }
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
        let spec = SweepSpec::<Rod>::parse(text).unwrap();
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
        let cells = SweepSpec::<Rod>::parse(
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
        let spec = SweepSpec::<Rod>::parse(ZHAO_LIU).unwrap();
        let kappas = spec.sweep.kappa.values();
        assert_eq!(kappas.len(), 45);
        assert!((kappas[0] - 1e-1).abs() < 1e-16 && (kappas[44] / 1e-12 - 1.0).abs() < 1e-12);
        assert_eq!(spec.points().len(), 180);
        assert_eq!(spec.points()[5].integrator, IntegratorKind::TrBdf2);
    }

    fn error_of(text: &str) -> String {
        SweepSpec::<Rod>::parse(text).unwrap_err().to_string()
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
            (
                ZHAO_LIU.replace("damping = 0.0", "damping = 0.0\ngyration_sq = -0.1"),
                "params.gyration_sq",
            ),
            (
                ZHAO_LIU.replace("damping = 0.0", "damping = 0.0\ngyration_sq = 0.1"),
                "params.gyration_sq",
            ),
            (
                ZHAO_LIU.replace("[solver]", "gyration_sq = [0.2, 0.3]\n[solver]"),
                "sweep.gyration_sq",
            ),
            (
                ZHAO_LIU.replace("damping = 0.0", "damping = 0.0\nY0 = -2.0"),
                "params.Y0",
            ),
            (
                ZHAO_LIU.replace("[solver]", "starts = [{ Y0 = 0, V0 = -1 }]\n[solver]"),
                "sweep.starts",
            ),
            (
                ZHAO_LIU.replace("atol = 1e-14", "atol = 1e-14\nwindow_scaled = 200"),
                "solver.window_scaled",
            ),
            (
                ZHAO_LIU.replace("[solver]", "states = [{ mu = 3.0 }]\n[solver]"),
                "sweep.states[0].mu",
            ),
        ];
        for (text, key) in cases {
            let e = error_of(&text);
            assert!(e.contains(key), "error does not name {key}: {e}");
        }
    }
}
