//! What a mechanical system is to the harness: physics only. A [`System`] owns its configuration
//! (a serde struct: every key of `[params]`), what one run measures (a serde record: the measured
//! columns of runs.csv), how one run is made under a [`Method`], and the quantities whose rigid
//! limit a convergence study reports. The studies (`crate::study`) own the grid, the columns, the
//! resume key and the report, once for every system.

use crate::analysis::first_opening::ScaleFreeOpening;
pub use crate::analysis::work_precision::ErrorScale;
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::record;
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::table::{Fields, Row};
use crate::integrate::{IntegratorKind, SolverStats};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::path::Path;

/// The error of a `[first_opening]` study of system `name`, which has no projected scale-free
/// fast system.
fn no_scale_free_system(name: &str) -> SimError {
    SimError::invalid(
        "first_opening",
        "given",
        &format!("system {name} has no projected scale-free fast system (C–V §6.2); remove [first_opening]"),
    )
}

/// How contact acts in one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// The penalty model: a normal spring of compliance κ (stiffness 1/κ).
    Compliant { kappa: f64 },
    /// The rigid contact the penalty model converges to as κ → 0 (impact laws, complementarity):
    /// the reference of a convergence study for a system that has one ([`System::RIGID`]).
    Rigid,
}

impl Method {
    /// The name in runs.csv's `method` column.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Compliant { .. } => "compliant",
            Method::Rigid => "rigid",
        }
    }

    /// κ of a compliant run, or an error for a system `name` without a rigid method.
    pub fn compliant_kappa(&self, name: &str) -> Result<f64, SimError> {
        match self {
            Method::Compliant { kappa } => Ok(*kappa),
            Method::Rigid => Err(SimError::invalid(
                "method",
                "rigid",
                &format!("system {name} has no rigid method; run it compliant"),
            )),
        }
    }

    /// κ of a compliant run; 0 for the rigid one (its `kappa` cell in runs.csv).
    pub fn kappa(&self) -> f64 {
        match self {
            Method::Compliant { kappa } => *kappa,
            Method::Rigid => 0.0,
        }
    }
}

/// Which methods one configuration runs in a convergence study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Methods {
    /// The rigid reference: one run per integrator, before the κ ladder.
    pub rigid: bool,
    /// The compliant runs over the κ ladder.
    pub compliant: bool,
}

/// The settings of one run that are not physics: the integrator, its tolerances and the guards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSettings {
    pub integrator: IntegratorKind,
    pub rtol: f64,
    pub atol: f64,
    /// Time limit of a run that ends at an event (`[solver] t_max`).
    pub t_max: Option<f64>,
    /// The end of a run that runs to a fixed time (`[solver] t_end`).
    pub t_end: Option<f64>,
    pub max_steps: Option<usize>,
    pub max_events: Option<usize>,
}

impl RunSettings {
    /// `integrator` at these tolerances, with the default guards and end.
    pub fn new(integrator: IntegratorKind, rtol: f64, atol: f64) -> RunSettings {
        RunSettings {
            integrator,
            rtol,
            atol,
            t_max: None,
            t_end: None,
            max_steps: None,
            max_events: None,
        }
    }
}

/// A quantity whose limit κ → 0 a convergence study reports: the column of the system's record
/// that holds it (or one component of a space-separated list there), and the columns of the same
/// record that predict it (a closed form at the run's κ, the rigid limit), each optional; or a
/// column that already holds a distance to the rigid reference ([`Quantity::distance`]).
/// `..Quantity::default()` leaves the fields a quantity does not use unset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quantity {
    /// The record's column.
    pub column: &'static str,
    /// The component of a list column (`q_end`), or `None` for a number.
    pub component: Option<usize>,
    /// Its symbol in a summary (`t₁`).
    pub symbol: &'static str,
    /// The record's column holding its closed form at the run's κ.
    pub closed_form: Option<&'static str>,
    /// The record's column holding its rigid limit (κ = 0).
    pub rigid_limit: Option<&'static str>,
    /// The predicted exponent p of |value − rigid limit| ∝ κ^p (of the value itself for a
    /// distance).
    pub exponent: Option<f64>,
    /// Whether the column is itself a distance of the run to the rigid reference, measured by
    /// the run over the whole path (sup‖ΔU‖ to the rigid run's displacement): the study fits the
    /// column, not |value − rigid limit|, and extrapolates nothing (its limit is 0).
    pub distance: bool,
    /// What it is, in a few words (`sup‖ΔU‖ up to the rigid lift-off`): the figure's legend and
    /// the summary's rate line; empty when the symbol says it.
    pub meaning: &'static str,
    /// The κ range its rate is fitted over (`crate::report::rates::FIT_RANGE`, where the model's
    /// rates are compared across experiments), or `None` for the whole ladder.
    pub fit_range: Option<(f64, f64)>,
}

impl Quantity {
    /// A column that is a distance of the run to the rigid reference ([`Quantity::distance`]),
    /// its rate predicted `exponent` (if known) and fitted over `fit_range`.
    pub(crate) fn distance_to_rigid(
        column: &'static str,
        symbol: &'static str,
        meaning: &'static str,
        exponent: Option<f64>,
        fit_range: (f64, f64),
    ) -> Quantity {
        Quantity {
            column,
            symbol,
            exponent,
            distance: true,
            meaning,
            fit_range: Some(fit_range),
            ..Quantity::default()
        }
    }
}

/// How the work–precision study (`crate::study::work_precision`) lays out a system's runs.csv
/// and repeats its runs: [`WorkPrecisionLayout::DEFAULT`] for every system but those whose table
/// keeps another layout ([`System::WORK_PRECISION_LAYOUT`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkPrecisionLayout {
    /// Input columns written right after `scenario`, before `role` and `kappa` (the rod
    /// scenarios' `kind`), instead of among the other inputs.
    pub leading_inputs: &'static [&'static str],
    /// Whether `wall_time_max_s` (the slowest repeat) follows `wall_time_min_s`.
    pub wall_time_max: bool,
    /// Whether a reference run is repeated like a ladder run (its `repeats` and median wall
    /// time), rather than run once.
    pub repeat_reference: bool,
}

impl WorkPrecisionLayout {
    /// `point_id, scenario, role, kappa`, the inputs, …, `wall_time_s, wall_time_min_s,
    /// wall_time_max_s`; each reference run once.
    pub const DEFAULT: WorkPrecisionLayout = WorkPrecisionLayout {
        leading_inputs: &[],
        wall_time_max: true,
        repeat_reference: false,
    };
}

/// An error the work–precision study measures against its reference: the largest, over some of
/// the system's quantities, of their errors on one scale.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorMeasure {
    /// Its name in the summary and errors.csv (`t_stick`, `q(t_k)`).
    pub name: String,
    pub quantities: Vec<Quantity>,
    pub scale: ErrorScale,
}

/// A mechanical system: its physics, nothing of the harness. The implementing type is a unit
/// struct (`#[derive(Clone, Copy, Debug, PartialEq)]`) that names the system.
pub trait System: Sized + Sync + Clone + Debug + PartialEq + 'static {
    /// `model = "…"` in an experiment file.
    const NAME: &'static str;
    /// The `analysis = "…"` that selects this system among the studies of the model `NAME`
    /// (the planar system's oblique impact and chatter, beside its fast-time studies), or `None`
    /// when `model = NAME` alone selects it. `rigid-limit simulate` names such a system by it.
    const ANALYSIS: Option<&'static str> = None;
    /// The values of `analysis` that choose among the kinds of the system's own report (the
    /// same runs, another summary), when `model = NAME` alone selects it; the study refuses
    /// others. Empty by default: `analysis` then names the study.
    const ANALYSES: &'static [&'static str] = &[];
    /// What the system is, in a few words: a summary's title after the experiment's name.
    const TITLE: &'static str;
    /// What the system is, in a sentence or two: its line in `rigid-limit list`.
    const ABOUT: &'static str = Self::TITLE;
    /// The optional `[solver]` keys its runs use, of `t_max`, `max_steps` and `max_events`; a
    /// file that sets another is refused (a key is never accepted and ignored). A fast-time
    /// system lists `window_scaled` instead of `t_max`: the study then requires it and ends each
    /// compliant run by window_scaled·√κ (its `RunSettings::t_max`).
    const SOLVER_KEYS: &'static [&'static str];
    /// The TOML text of the system's documented experiment file: its `[params]` is the
    /// configuration `rigid-limit simulate SYSTEM` starts from. Empty when it has none (a
    /// described system is its own file).
    const EXAMPLE: &'static str = "";
    /// Whether the system has a rigid reference ([`Method::Rigid`]) for every configuration: its
    /// runs.csv then has a `method` column before the configuration's (as it has for a
    /// configuration whose [`System::methods`] include the rigid reference).
    const RIGID: bool = false;
    /// The `kappa` cell of a rigid reference row (it has no compliance): 0 unless the system's
    /// runs.csv has always held another placeholder.
    const RIGID_KAPPA: f64 = 0.0;
    /// Whether `[sweep]` may set parameters besides κ (not while the system's own report covers
    /// one configuration).
    const SWEEPS_PARAMETERS: bool = true;
    /// The swept keys of `[sweep]` in the order their values nest, outermost first (the order of
    /// the system's rows); keys not listed follow in alphabetical order, the last varying
    /// fastest (the default for every key).
    const SWEEP_ORDER: &'static [&'static str] = &[];
    /// The layout of its work–precision study's runs.csv.
    const WORK_PRECISION_LAYOUT: WorkPrecisionLayout = WorkPrecisionLayout::DEFAULT;
    /// One configuration: the `[params]` table (unknown keys refused). Its fields are the input
    /// columns of runs.csv, in field order.
    type Config: Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + Send + Sync;
    /// What one run measures: the measured columns of runs.csv, in field order.
    type Record: Serialize + DeserializeOwned + Default + Clone + Debug + Send;

    /// Check a configuration that runs over the κ ladder `kappa` (`None`: it runs the rigid
    /// method only, [`System::methods`]); errors name the key to fix.
    fn validate(config: &Self::Config, kappa: Option<&LogGrid>) -> Result<(), SimError>;
    /// Run one configuration under `method`: what it measures and the work it took.
    fn run(
        config: &Self::Config,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Self::Record, SolverStats), SimError>;
    /// The quantities whose limit κ → 0 a convergence study reports.
    fn quantities(config: &Self::Config) -> Vec<Quantity>;
    /// [`Self::quantities`] as the report states them for one configuration of the study and
    /// `rows`, its rows of runs.csv: a predicted exponent may depend on what the rigid reference
    /// did (a motion through an impact converges more slowly than one without), which only the
    /// rows know, or on the configuration (Dance's particle: a slip that stops and sticks). A
    /// configuration without any (one that runs no ladder) has no section in the generic
    /// summary. `quantities` by default.
    fn reported_quantities(config: &Self::Config, _rows: &[Row]) -> Vec<Quantity> {
        Self::quantities(config)
    }
    /// How the summary's headings and convergence.png's panels name `config` among several,
    /// where the swept keys' values do not tell the configurations apart ([`Self::configurations`]
    /// makes several of one point of the grid): `μ = 1, from rest, c_d = 1`. `None` (the
    /// default): the swept keys with their values.
    fn configuration_label(_config: &Self::Config) -> Option<String> {
        None
    }
    /// The errors a work–precision study measures against its reference: by default each
    /// quantity on its own, relative above one and absolute below.
    fn error_measures(config: &Self::Config) -> Vec<ErrorMeasure> {
        Self::quantities(config)
            .into_iter()
            .map(|q| ErrorMeasure {
                name: q.symbol.to_string(),
                quantities: vec![q],
                scale: ErrorScale::RelativeAboveOne,
            })
            .collect()
    }
    /// The methods `config` runs: the compliant ladder, and the rigid reference when the
    /// system has one.
    fn methods(_config: &Self::Config) -> Methods {
        Methods {
            rigid: Self::RIGID,
            compliant: true,
        }
    }
    /// The configurations a study runs for its grid (`[params]` with the swept keys set, in
    /// grid order): the grid itself unless one configuration stands for several runs of
    /// different [`System::methods`] (Dance's particle: the rigid run of each μ, then each
    /// compliant start of it).
    fn configurations(grid: Vec<Self::Config>) -> Vec<Self::Config> {
        grid
    }
    /// The integrators that run `config`, of those `[solver]` lists: all of them unless the
    /// configuration names its own.
    fn integrators(_config: &Self::Config, listed: &[IntegratorKind]) -> Vec<IntegratorKind> {
        listed.to_vec()
    }
    /// Tables written beside runs.csv at the end of the run stage, for figures (sampled
    /// trajectories): (file name, CSV text). They need a solver, so the report cannot make them;
    /// `config` is `[params]`, `configurations` every configuration the study runs
    /// ([`System::configurations`]), `kappa` the ladder from large to small, `settings` the first
    /// integrator's. None by default; a table no run can produce is left out (the report says
    /// so).
    fn side_tables(
        _config: &Self::Config,
        _configurations: &[Self::Config],
        _kappa: &[f64],
        _settings: &RunSettings,
    ) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// Whether `config` projects, at its start at compliance `kappa`, onto C–V's scale-free fast
    /// system of two slipping contacts (§6.2): checked when a study with `[first_opening]` is
    /// read; the error names the field that keeps it from doing so. Systems without the
    /// projection refuse.
    fn check_scale_free(_config: &Self::Config, _kappa: f64) -> Result<(), SimError> {
        Err(no_scale_free_system(Self::NAME))
    }
    /// The first opening of that scale-free fast system, run for `window_scaled` units of
    /// s = t/√κ with `settings`' integrator, tolerances and guards; `start` (the value of the
    /// swept parameter that places the start) labels it: the κ → 0 reference of the first
    /// openings of a study's `[first_opening]` (`crate::study::first_opening`).
    fn scale_free_first_opening(
        _config: &Self::Config,
        _kappa: f64,
        _settings: &RunSettings,
        _window_scaled: f64,
        _start: f64,
    ) -> Result<ScaleFreeOpening, SimError> {
        Err(no_scale_free_system(Self::NAME))
    }
    /// Set the parameter `key` of `config` to `value` (a key swept in `[sweep]`); the error says
    /// which parameters there are. The default sets a numeric field of `Config` by name.
    fn set_parameter(config: &mut Self::Config, key: &str, value: f64) -> Result<(), String> {
        set_field::<Self>(config, key, serde_json::json!(value), "numeric", |v| {
            v.is_number()
        })
    }
    /// Set the parameter `key` of `config` to a value that is not a number: one of a list of
    /// vectors or tables swept in `[sweep]` (`V0 = [[1.0, 2.0], [0.5, 0.4]]`,
    /// [`crate::experiment::grammar::ParameterAxis`]). The default sets the field of `Config`
    /// named `key` (a vector); a system whose tables set several fields at once overrides it.
    fn set_value(
        config: &mut Self::Config,
        key: &str,
        value: &serde_json::Value,
    ) -> Result<(), String> {
        set_field::<Self>(config, key, value.clone(), "vector", |v| v.is_array())
    }
    /// The input columns of runs.csv for `config`: the fields of `Config` unless the system's
    /// columns depend on its configuration (a described system's parameters).
    fn input_columns(_config: &Self::Config) -> Vec<&'static str> {
        record::columns::<Self::Config>()
    }
    /// The input cells of `config`, under [`Self::input_columns`].
    fn inputs(config: &Self::Config) -> Result<Cells, String> {
        record::cells(config).map_err(|e| e.to_string())
    }
    /// The measured columns of runs.csv for `config`: the fields of `Record` unless they depend
    /// on the configuration (a described system's contacts).
    fn record_columns(_config: &Self::Config) -> Vec<&'static str> {
        record::columns::<Self::Record>()
    }
    /// The measured cells of `record`, under [`Self::record_columns`].
    fn record_cells(_config: &Self::Config, record: &Self::Record) -> Result<Cells, String> {
        record::cells(record).map_err(|e| e.to_string())
    }
    /// [`Self::record_cells`] set into `row`, as a sweep's run builds its row. A system whose
    /// cells are its record's fields (the default `record_cells`) may write them in place
    /// (`record::write_cells`): no string per number.
    fn write_record(
        config: &Self::Config,
        record: &Self::Record,
        row: &mut Fields,
    ) -> Result<(), String> {
        row.insert_all(&Self::record_cells(config, record)?.into());
        Ok(())
    }
    /// The system's own sections of a convergence study's summary, after the generic ones (the
    /// values, the rates and convergence.png): the physics the generic report cannot know (the
    /// rigid event sequence, an energy account). `config` is `[params]`, `integrators` those
    /// `[solver]` lists, `rows` runs.csv; it may write its own figures and analysis.json into
    /// `dir` (the report's directory, beside the side tables). None by default.
    fn report_sections(
        _config: &Self::Config,
        _integrators: &[IntegratorKind],
        _rows: &[Row],
        _dir: &Path,
    ) -> Result<String, RunError> {
        Ok(String::new())
    }
    /// Columns of the record shown beside the quantities, as they are (an energy balance error):
    /// (column, what it is).
    fn diagnostics() -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// The configuration in a summary: its parameters and the closed forms the quantities are
    /// compared with.
    fn describe(config: &Self::Config) -> String;
}

/// Set the field `key` of `config` to `value` through its serde form; `kind` names the fields
/// `accepts` admits (`numeric`) in the error, which lists them as the parameters.
fn set_field<S: System>(
    config: &mut S::Config,
    key: &str,
    value: serde_json::Value,
    kind: &str,
    accepts: fn(&serde_json::Value) -> bool,
) -> Result<(), String> {
    let mut json = serde_json::to_value(&*config).map_err(|e| e.to_string())?;
    let fields = json
        .as_object_mut()
        .ok_or("the configuration is not a table")?;
    let admitted: Vec<String> = fields
        .iter()
        .filter(|(_, v)| accepts(v))
        .map(|(k, _)| k.clone())
        .collect();
    match fields.get_mut(key) {
        Some(slot) if accepts(slot) => *slot = value,
        _ => {
            return Err(format!(
                "system {} has no {kind} parameter {key} (its parameters: {})",
                S::NAME,
                admitted.join(", ")
            ))
        }
    }
    *config = serde_json::from_value(json).map_err(|e| e.to_string())?;
    Ok(())
}
