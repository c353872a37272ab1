//! The convergence study of any [`System`]: each configuration (`[params]`, with any parameter
//! swept in `[sweep]`) run over a κ ladder by each listed integrator, after the rigid reference
//! ([`Method::Rigid`], one run per integrator) for a system that has one; per quantity of the
//! system, its values against the closed form at κ and the rigid limit, the fitted rate of
//! convergence (against its predicted exponent) and the limit extrapolated from the ladder alone
//! (docs/extrapolation.md §1) against the rigid one, or, for a column that is already a distance
//! to the rigid run, its rate; then the system's own sections ([`System::report_sections`]).
//!
//! ```toml
//! name = "spring_particle"
//! model = "spring_particle"       # the system
//! study = "convergence"           # optional: the default study
//! [params]                        # the system's configuration
//! …
//! [sweep]
//! kappa = { min = 1e-8, max = 1e-2, per_decade = 2 }
//! mu = [0.4, 0.5]                 # optional: a parameter swept too
//! [solver]
//! integrators = ["radau5", "tsit45"]
//! rtol = 1e-10
//! atol = 1e-10
//! ```

use crate::analysis::extrapolate::{points_needed, ExtrapolationOptions};
use crate::error::SimError;
use crate::experiment::grammar::{
    from_table_validated, parse_validated, validate_name, LogGrid, ParameterAxis, ParameterValue,
    SolverSpec, SpecError,
};
use crate::experiment::rows::{finish_sweep_row, sweep_columns, sweep_input_row, SWEEP_ROW_CELLS};
use crate::experiment::runner::{write_atomically, Plan, Points, RunError, RUNS_CSV};
use crate::experiment::store::{read_rows, stream_rows};
use crate::experiment::system::{Method, Quantity, RunSettings, System};
use crate::experiment::table::{Fields, Row};
use crate::integrate::IntegratorKind;
use crate::plot::style::{format_small_parameter, plot_text};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::markdown::{fixed, sci, significant, Markdown, MarkdownTable};
use crate::report::rates::{excludes, fitted_series, rate_against_prediction};
use crate::study::atlas::{self, all_at_end, figure_label, named, write_atlas, Atlas};
use crate::study::cycles::{write_cycles, CyclesSpec};
use crate::study::first_opening::{
    reference_table, write_first_opening, FirstOpeningSpec, REFERENCE_KAPPA,
};
use crate::study::ladder::{
    extrapolated_distances, is_rigid, quantity_value, rigid_distances, rigid_rate,
    smallest_kappa_distances, AgainstRigid, LadderLimit, QuantityLimit,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

/// The name of this study in `study = "…"`.
pub const NAME: &str = "convergence";

/// `[sweep]`: the κ ladder, and any parameters of the system swept (each a list of values or
/// `{ min, max, n }`, or a list of vectors or tables, [`ParameterAxis`]); the configurations are
/// their product, the keys in alphabetical order, the last varying fastest.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct KappaSweep {
    /// The ladder of the compliant runs; none when every configuration runs the rigid method
    /// only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kappa: Option<LogGrid>,
    #[serde(flatten)]
    pub parameters: BTreeMap<String, ParameterAxis>,
}

/// The `[sweep]` table of a convergence study: its κ ladder and the configurations it makes of
/// `[params]`. [`KappaSweep`] (any parameter swept by name) serves every system; a system whose
/// grid those axes cannot express (an axis whose values depend on another parameter, explicit
/// lists of states, a mask that skips some) reads a table of its own: `Convergence<S, ItsSweep>`,
/// registered with `sweep = ItsSweep` (`crate::experiment::registry`).
pub trait Sweep<S: System>:
    Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + Send + Sync + 'static
{
    /// The ladder of the compliant runs; none when every configuration runs the rigid method
    /// only.
    fn kappa(&self) -> Option<&LogGrid>;
    /// The swept keys, as written (a summary's labels, `[first_opening] start`, `[cycles]`).
    fn swept(&self) -> Vec<&str>;
    /// Check the table against `[params]` without building the grid (errors name the key): the
    /// number of configurations, an upper bound checked against the solver's limit on points
    /// before any is built.
    fn check(&self, params: &S::Config) -> Result<u128, SimError>;
    /// `[params]` with the swept keys set, in grid order (before [`System::configurations`]);
    /// an error names the key that makes a configuration invalid.
    fn grid(&self, params: &S::Config) -> Result<Vec<S::Config>, SimError>;
    /// Checks of the whole file that need its configurations (the study's, after
    /// [`System::configurations`]): none by default.
    fn check_study(
        _study: &Convergence<S, Self>,
        _configurations: &[S::Config],
    ) -> Result<(), SimError> {
        Ok(())
    }
}

impl KappaSweep {
    /// Each entry of a swept list of vectors or tables (`V0 = [[…], […]]`, `contacts = [{…}]`)
    /// set alone over `[params]` and validated: an error the system names by that key
    /// (`sweep.V0`, `sweep.contacts.A`) then names the entry too (`sweep.V0[1]`,
    /// `sweep.contacts[1].A`), which the system, seeing one configuration, cannot. Other errors
    /// are left to the validation of the whole grid.
    fn check_listed_entries<S: System>(&self, params: &S::Config) -> Result<(), SimError> {
        for (key, axis) in &self.parameters {
            let ParameterAxis::Values(entries) = axis else {
                continue;
            };
            let prefix = format!("sweep.{key}");
            for (i, entry) in entries.iter().enumerate() {
                let mut config = params.clone();
                if S::set_value(&mut config, key, entry).is_err() {
                    continue;
                }
                let Err(SimError::InvalidInput {
                    field,
                    value,
                    requirement,
                }) = S::validate(&config, self.kappa.as_ref())
                else {
                    continue;
                };
                let Some(rest) = field.strip_prefix(&prefix) else {
                    continue;
                };
                if rest.is_empty() || rest.starts_with(['.', '[']) {
                    return Err(SimError::InvalidInput {
                        field: format!("{prefix}[{i}]{rest}"),
                        value,
                        requirement,
                    });
                }
            }
        }
        Ok(())
    }
}

impl<S: System> Sweep<S> for KappaSweep {
    fn kappa(&self) -> Option<&LogGrid> {
        self.kappa.as_ref()
    }

    fn swept(&self) -> Vec<&str> {
        self.parameters.keys().map(String::as_str).collect()
    }

    /// Every axis valid, and none beside κ when the system's report covers one configuration.
    fn check(&self, params: &S::Config) -> Result<u128, SimError> {
        let mut configurations: u128 = 1;
        for (key, axis) in &self.parameters {
            if !S::SWEEPS_PARAMETERS {
                return Err(SimError::invalid(
                    &format!("sweep.{key}"),
                    axis.written(),
                    &format!(
                        "system {}'s report covers one configuration; sweep only kappa and run one file per value",
                        S::NAME
                    ),
                ));
            }
            axis.validate(&format!("sweep.{key}"))?;
            configurations = configurations.saturating_mul(axis.len() as u128);
        }
        self.check_listed_entries::<S>(params)?;
        Ok(configurations)
    }

    /// The product of the axes, nested in [`System::SWEEP_ORDER`], the last key varying fastest;
    /// an error names a swept key the system does not have.
    fn grid(&self, params: &S::Config) -> Result<Vec<S::Config>, SimError> {
        let mut axes: Vec<(&String, &ParameterAxis)> = self.parameters.iter().collect();
        // Stable: the keys the system does not order stay alphabetical, after those it does.
        axes.sort_by_key(|(key, _)| {
            S::SWEEP_ORDER
                .iter()
                .position(|k| *k == key.as_str())
                .unwrap_or(S::SWEEP_ORDER.len())
        });
        let mut out = vec![params.clone()];
        for (key, axis) in axes {
            let mut next = Vec::with_capacity(out.len() * axis.len());
            for config in &out {
                for value in axis.values() {
                    let mut c = config.clone();
                    match &value {
                        ParameterValue::Number(x) => S::set_parameter(&mut c, key, *x),
                        ParameterValue::Value(v) => S::set_value(&mut c, key, v),
                    }
                    .map_err(|e| {
                        SimError::invalid(&format!("sweep.{key}"), value.to_string(), &e)
                    })?;
                    next.push(c);
                }
            }
            out = next;
        }
        Ok(out)
    }
}

/// A convergence experiment file of system `S` whose `[sweep]` is a `G` ([`KappaSweep`] unless
/// the system reads its own, [`Sweep`]). Unknown keys are refused.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Convergence<S: System, G: Sweep<S> = KappaSweep> {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// The system ([`System::NAME`]).
    pub model: String,
    /// `study = "convergence"` (the key `analysis` is read as its alias).
    #[serde(default, alias = "study")]
    pub analysis: Option<String>,
    /// The configuration: `[params]` (or `[system]` for a described system).
    #[serde(alias = "system")]
    pub params: S::Config,
    #[serde(default)]
    pub sweep: G,
    pub solver: SolverSpec,
    /// `[cycles] contact = "NAME"`: the cycles of a body rocking between its contacts, from
    /// landing to landing of contact NAME (analysis.json, cycles.png; `study::cycles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<CyclesSpec>,
    /// `[first_opening] start = "NAME"`: each start (a value of the swept parameter NAME) of a
    /// body slipping on two contacts, run for `[solver] window_scaled` units of s = t/√κ, its
    /// first opening against the scale-free fast system's (analysis.json, first_opening.png;
    /// `study::first_opening`). The compliant runs only: the reference is that fast system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_opening: Option<FirstOpeningSpec>,
}

/// One run: a configuration, a method (the rigid reference or κ of the ladder) and an
/// integrator.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<C> {
    /// Position in the grid: the output order and the resume key.
    pub id: usize,
    /// Which configuration of [`Convergence::configurations`].
    pub configuration: usize,
    pub config: Arc<C>,
    pub method: Method,
    pub integrator: IntegratorKind,
}

impl<S: System, G: Sweep<S>> Convergence<S, G> {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    /// Validate an experiment read as a TOML table.
    pub fn from_table(table: toml::Table) -> Result<Self, SpecError> {
        from_table_validated(table, Self::validate)
    }

    /// Check the file read (the parser of `crate::experiment::grammar` calls it).
    pub fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
        super::require_model::<S>(&self.model)?;
        match (S::ANALYSIS, self.analysis.as_deref()) {
            (Some(analysis), given) if given != Some(analysis) => {
                return Err(SimError::invalid(
                    "analysis",
                    given.unwrap_or("missing"),
                    &format!(
                        "this file is read as {} with analysis = \"{analysis}\"",
                        S::NAME
                    ),
                ))
            }
            (None, Some(analysis))
                if !S::ANALYSES.is_empty() && !S::ANALYSES.contains(&analysis) =>
            {
                return Err(SimError::invalid(
                    "analysis",
                    analysis,
                    &format!(
                        "system {}'s analyses are {}",
                        S::NAME,
                        S::ANALYSES.join(", ")
                    ),
                ))
            }
            (None, Some(_)) if !S::ANALYSES.is_empty() => {}
            (None, Some(study)) if study != NAME && study != atlas::NAME => {
                return Err(SimError::invalid(
                    "study",
                    study,
                    &format!(
                        "system {} has the studies {NAME} and {} (the same runs, reported per configuration in one line)",
                        S::NAME,
                        atlas::NAME
                    ),
                ))
            }
            _ => {}
        }
        if let Some(kappa) = self.sweep.kappa() {
            kappa.validate("sweep.kappa")?;
            // Every system's ladder: resolvable at its smallest κ, a penetration small against
            // the body at its largest.
            crate::compliant::normal::require_resolvable_kappa("sweep.kappa.min", kappa.min)?;
            crate::compliant::normal::require_penetrating_less_than_the_body(
                "sweep.kappa.max",
                kappa.max,
            )?;
        }
        let configurations = self.sweep.check(&self.params)?;
        let ladder = self.sweep.kappa().map_or(0, |k| k.len()) as u128;
        self.solver
            .validate(configurations.saturating_mul(ladder.max(1)))?;
        let configs = self.configurations()?;
        let compliant = configs.iter().any(|c| S::methods(c).compliant);
        match (self.sweep.kappa(), compliant) {
            (None, true) => {
                return Err(SimError::invalid(
                    "sweep.kappa",
                    "missing",
                    "the compliant runs need a κ ladder: add [sweep] kappa = { min = 1e-8, max = 1e-2, per_decade = 2 }",
                ))
            }
            (Some(kappa), false) => {
                return Err(SimError::invalid(
                    "sweep.kappa",
                    format!(
                        "{{ min = {}, max = {} }}",
                        crate::error::number_text(kappa.min),
                        crate::error::number_text(kappa.max)
                    ),
                    "this file runs the rigid method only, which has no κ: remove the ladder (or run the compliant method)",
                ))
            }
            _ => {}
        }
        for config in &configs {
            S::validate(config, self.sweep.kappa())?;
        }
        G::check_study(self, &configs)?;
        if self.is_atlas() {
            self.validate_atlas()?;
        }
        if let Some(cycles) = &self.cycles {
            // A contact's name is known by its impulse column.
            let column = format!("impulse_normal_{}", cycles.contact);
            if !S::record_columns(&self.params).contains(&column.as_str()) {
                return Err(SimError::invalid(
                    "cycles.contact",
                    &cycles.contact,
                    "name one of the system's contacts (its [[contacts]] name)",
                ));
            }
        }
        if Self::fast_time() {
            crate::study::fast::window(&self.solver)?;
        }
        let mut used = S::SOLVER_KEYS.to_vec();
        if let Some(spec) = &self.first_opening {
            self.validate_first_opening(spec, &configs)?;
            used.push("window_scaled");
        }
        self.solver.refuse_unused_keys(S::NAME, &used)
    }

    /// Whether the file asks for the atlas report (`study = "atlas"`) of a system whose
    /// `analysis` does not choose among reports of its own.
    fn is_atlas(&self) -> bool {
        S::ANALYSES.is_empty() && self.analysis.as_deref() == Some(atlas::NAME)
    }

    /// An atlas: a parameter swept besides κ, a ladder the extrapolation can read, and neither
    /// `[cycles]` nor `[first_opening]` (their sections are per configuration).
    fn validate_atlas(&self) -> Result<(), SimError> {
        if self.sweep.swept().is_empty() {
            return Err(SimError::invalid(
                "sweep",
                "κ only",
                "an atlas maps the limit κ → 0 over swept parameters: sweep one besides κ (e.g. mu = { min = 0.0, max = 0.9, n = 10 }), or use study = \"convergence\"",
            ));
        }
        let needed = points_needed(&ExtrapolationOptions::default());
        let ladder = self.sweep.kappa().map_or(0, |k| k.len());
        if ladder < needed {
            return Err(SimError::invalid(
                "sweep.kappa",
                format!("{ladder} values"),
                &format!("an atlas extrapolates each configuration's ladder to κ → 0, which needs at least {needed} κ values: widen the ladder or raise per_decade"),
            ));
        }
        for (given, key) in [
            (self.cycles.is_some(), "cycles"),
            (self.first_opening.is_some(), "first_opening"),
        ] {
            if given {
                return Err(SimError::invalid(
                    key,
                    "given with study = \"atlas\"",
                    &format!("the atlas reports each configuration in one line: remove [{key}], or use study = \"convergence\""),
                ));
            }
        }
        Ok(())
    }

    /// `[first_opening]`: a swept start parameter, a fast window and no fixed end, no
    /// `[cycles]` (each writes analysis.json), and every configuration projecting onto the
    /// scale-free fast system at the ladder's smallest κ.
    fn validate_first_opening(
        &self,
        spec: &FirstOpeningSpec,
        configs: &[S::Config],
    ) -> Result<(), SimError> {
        let swept = self.sweep.swept();
        if !swept.contains(&spec.start.as_str()) {
            return Err(SimError::invalid(
                "first_opening.start",
                &spec.start,
                &format!(
                    "name the swept parameter that places each start (swept: {})",
                    if swept.is_empty() {
                        "none".to_string()
                    } else {
                        swept.join(", ")
                    }
                ),
            ));
        }
        if self.cycles.is_some() {
            return Err(SimError::invalid(
                "first_opening",
                "given with [cycles]",
                "each writes the study's analysis.json: keep one of [cycles] and [first_opening]",
            ));
        }
        let Some(window) = self.solver.window_scaled else {
            return Err(SimError::invalid(
                "solver.window_scaled",
                "missing",
                "a [first_opening] study runs each compliant run for window_scaled·√κ (s = t/√κ): add it, e.g. window_scaled = 200",
            ));
        };
        crate::error::require_positive("solver.window_scaled", window)?;
        for (key, value) in [("t_end", self.solver.t_end), ("t_max", self.solver.t_max)] {
            if let Some(v) = value {
                return Err(SimError::invalid(
                    &format!("solver.{key}"),
                    crate::error::number_text(v),
                    "a [first_opening] study ends each run at window_scaled·√κ; remove the key",
                ));
            }
        }
        for config in configs {
            S::check_scale_free(config, REFERENCE_KAPPA)?;
        }
        Ok(())
    }

    /// Whether each compliant run lasts `[solver] window_scaled`·√κ: the system takes
    /// `window_scaled` ([`System::SOLVER_KEYS`]).
    fn fast_time() -> bool {
        S::SOLVER_KEYS.contains(&"window_scaled")
    }

    /// The κ ladder from large to small (empty without one).
    pub fn ladder(&self) -> Vec<f64> {
        self.sweep.kappa().map_or_else(Vec::new, LogGrid::values)
    }

    /// Every configuration the study runs: [`System::configurations`] of the grid
    /// ([`Sweep::grid`]: `[params]` with the swept parameters set); an error names the key that
    /// makes one invalid.
    pub fn configurations(&self) -> Result<Vec<S::Config>, SimError> {
        Ok(S::configurations(self.sweep.grid(&self.params)?))
    }

    /// The configurations in grid order; for each, the rigid reference (when it runs) and then
    /// κ from large to small, each with the integrators as listed.
    pub fn points(&self) -> Vec<Point<S::Config>> {
        self.lazy_points().collect()
    }

    /// [`Convergence::points`] made one at a time, as the runner asks for them: a run holds its
    /// configurations (the states of the grid), never its points (a 10⁶-point atlas would hold
    /// about 60 MB of them).
    fn lazy_points(&self) -> impl Iterator<Item = Point<S::Config>> + Send + '_ {
        let ladder = self.ladder();
        // Validated at parsing: every swept key is one of the system's.
        self.configurations()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .flat_map(move |(configuration, config)| {
                let methods = S::methods(&config);
                // A first-opening study compares with the scale-free fast system, not a rigid
                // run.
                let rigid =
                    (methods.rigid && self.first_opening.is_none()).then_some(Method::Rigid);
                let compliant = ladder
                    .iter()
                    .filter(|_| methods.compliant)
                    .map(|&kappa| Method::Compliant { kappa });
                let integrators = S::integrators(&config, &self.solver.integrators);
                let runs: Vec<(Method, IntegratorKind)> = rigid
                    .into_iter()
                    .chain(compliant)
                    .flat_map(|method| integrators.iter().map(move |&i| (method, i)))
                    .collect();
                let config = Arc::new(config);
                runs.into_iter().map(move |(method, integrator)| {
                    (configuration, config.clone(), method, integrator)
                })
            })
            .enumerate()
            .map(|(id, (configuration, config, method, integrator))| Point {
                id,
                configuration,
                config,
                method,
                integrator,
            })
    }

    /// Whether the study writes a `method` column before the configuration's: the system has a
    /// rigid reference ([`System::RIGID`]), or this configuration has one ([`System::methods`]:
    /// a described system of several contacts), and the configuration's own columns do not
    /// place it (Dance's particle).
    fn has_method_column(&self) -> bool {
        (S::RIGID || S::methods(&self.params).rigid)
            && !S::input_columns(&self.params).contains(&"method")
    }

    /// The input columns: the method when the system has a rigid reference, then the
    /// configuration's.
    fn input_columns(&self) -> Vec<&'static str> {
        let mut columns = if self.has_method_column() {
            vec!["method"]
        } else {
            Vec::new()
        };
        columns.extend(S::input_columns(&self.params));
        columns
    }

    /// The columns of runs.csv: point, κ, the configuration, the settings and status, the
    /// system's record, the work counters, the wall time.
    pub fn columns(&self) -> Vec<&'static str> {
        sweep_columns(&self.input_columns(), &S::record_columns(&self.params))
    }

    /// The settings of a run by `integrator` at compliance `kappa` (`None`: the rigid reference,
    /// or a side table's): a first-opening study's compliant run ends at window_scaled·√κ, a
    /// fast-time system's by then.
    fn settings(&self, integrator: IntegratorKind, kappa: Option<f64>) -> RunSettings {
        let window = |applies: bool| {
            applies
                .then_some(self.solver.window_scaled)
                .flatten()
                .zip(kappa)
                .map(|(window, kappa)| window * kappa.sqrt())
        };
        let window_end = window(self.first_opening.is_some());
        RunSettings {
            integrator,
            rtol: self.solver.rtol,
            atol: self.solver.atol,
            t_max: self.solver.t_max.or(window(Self::fast_time())),
            t_end: self.solver.t_end.or(window_end),
            max_steps: self.solver.max_steps,
            max_events: self.solver.max_events,
        }
    }

    /// summary.md from the rows of runs.csv, and the figure of the distances to the rigid
    /// reference (a rigid run, a quantity's rigid-limit column, or a column that is a distance)
    /// or, without one, to the extrapolated limit (convergence.png, .svg); then the system's own
    /// sections ([`System::report_sections`]).
    pub fn report(&self, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        if let Some(spec) = &self.first_opening {
            // The first openings replace the per-configuration tables (runs.csv holds each
            // run's end state).
            let mut md = Markdown::new();
            self.heading(&mut md);
            let mut summary = md.finish();
            summary.push('\n');
            summary.push_str(&write_first_opening(
                spec,
                self.solver.window_scaled.unwrap_or(f64::NAN),
                &self.contact_names(),
                rows,
                dir,
            )?);
            return write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &summary);
        }
        if self.is_atlas() {
            return self.write_atlas_report(rows.iter().cloned(), dir);
        }
        let configurations = self.configurations().unwrap_or_default();
        let reported = self.reported_configurations(&configurations, rows);
        let mut summary = self.summary_of(configurations.len(), &reported);
        if let Some(cycles) = &self.cycles {
            let swept: Vec<String> = self.sweep.swept().into_iter().map(String::from).collect();
            summary.push('\n');
            summary.push_str(&write_cycles(cycles, &swept, rows, dir)?);
        }
        let figure = self.figure(configurations.len(), &reported, rows, dir)?;
        if let Some((reference_symbol, integrator, distances)) = figure {
            let what = if distances {
                "distances to the rigid reference".to_string()
            } else {
                format!("|q(κ) − {reference_symbol}|")
            };
            summary.push_str(&format!(
                "\n![{what} against κ, {integrator} rows](convergence.png)\n"
            ));
        }
        let own = S::report_sections(&self.params, &self.solver.integrators, rows, dir)?;
        if !own.is_empty() {
            summary.push('\n');
            summary.push_str(&own);
        }
        write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &summary)
    }

    /// The report of the run in `dir` from its runs.csv: an atlas reads it as a stream, one
    /// configuration's rows at a time (its report keeps each configuration's findings, not the
    /// rows), any other report reads every row.
    pub fn report_run(&self, dir: &Path) -> Result<(), RunError> {
        let path = dir.join(RUNS_CSV);
        if self.is_atlas() {
            return self.write_atlas_report(stream_rows(&path, &self.columns())?, dir);
        }
        self.report(&read_rows(&path, &self.columns())?, dir)
    }

    /// The atlas's summary.md, points.csv and atlas.png (`crate::study::atlas`) from `rows`,
    /// runs.csv's rows in point order (so a configuration's rows come together).
    fn write_atlas_report(
        &self,
        rows: impl IntoIterator<Item = Row>,
        dir: &Path,
    ) -> Result<(), RunError> {
        let swept: Vec<String> = self.sweep.swept().into_iter().map(String::from).collect();
        let configurations = self.configurations().unwrap_or_default();
        let configuration_of: Vec<usize> = self.lazy_points().map(|p| p.configuration).collect();
        let mut atlas = Atlas::new(swept);
        let mut add = |i: usize, own: &[Row]| {
            let Some(config) = configurations.get(i) else {
                return;
            };
            let quantities = S::reported_quantities(config, own);
            if quantities.is_empty() {
                return;
            }
            let integrators = S::integrators(config, &self.solver.integrators);
            atlas.add(self.swept_values(config), &quantities, &integrators, own);
        };
        let mut current: Option<usize> = None;
        let mut own: Vec<Row> = Vec::new();
        for r in rows {
            let Some(&i) = configuration_of.get(r.point_id) else {
                continue;
            };
            if let Some(c) = current.filter(|&c| c != i) {
                add(c, &own);
                own.clear();
            }
            current = Some(i);
            own.push(r);
        }
        if let Some(c) = current {
            add(c, &own);
        }
        let mut md = Markdown::new();
        self.heading(&mut md);
        let mut summary = md.finish();
        summary.push('\n');
        summary.push_str(&write_atlas(
            &atlas,
            (self.solver.rtol, self.solver.atol),
            dir,
        )?);
        write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &summary)
    }

    /// The swept parameters of configuration `config` (`mu = 0.3, e = 1`), or `None` with one
    /// configuration.
    fn configuration_label(&self, config: &S::Config, configurations: usize) -> Option<String> {
        if configurations < 2 {
            return None;
        }
        if let Some(label) = S::configuration_label(config) {
            return Some(label);
        }
        let swept: Vec<String> = self
            .sweep
            .swept()
            .into_iter()
            .zip(self.swept_values(config))
            .map(|(k, value)| format!("{k} = {value}"))
            .collect();
        Some(swept.join(", "))
    }

    /// The swept parameters' values in `config` as runs.csv writes them, in the order of
    /// [`Sweep::swept`] ("?" for one the system's input cells do not hold).
    fn swept_values(&self, config: &S::Config) -> Vec<String> {
        let cells = S::inputs(config).unwrap_or_default();
        self.sweep
            .swept()
            .into_iter()
            .map(|k| {
                cells
                    .iter()
                    .find(|(c, _)| *c == k)
                    .map_or_else(|| "?".to_string(), |(_, v)| v.clone())
            })
            .collect()
    }

    /// convergence.png/.svg: per reported configuration (at most [`MAX_PANELS`] panels), the
    /// distance of every quantity to its reference against κ by the first integrator that runs
    /// it, on log axes. The reference is the
    /// rows' rigid run (`method = rigid`) or the quantity's rigid-limit column; a system with
    /// neither takes each quantity's limit extrapolated from its ladder (quantities whose
    /// extrapolation is refused are left out), and where every extrapolation is refused the
    /// value at the smallest κ. When the figure was written: the reference's symbol in the axis
    /// label, the integrators drawn, and whether every quantity is a distance.
    fn figure(
        &self,
        configurations: usize,
        reported: &[ReportedConfiguration<'_, S::Config>],
        rows: &[Row],
        dir: &Path,
    ) -> Result<Option<(&'static str, String, bool)>, RunError> {
        // Each configuration drawn by the first integrator that runs it.
        let drawn: Vec<(&ReportedConfiguration<'_, S::Config>, IntegratorKind)> = reported
            .iter()
            .filter_map(|c| {
                let kind = *c.integrators.first()?;
                Some((c, kind))
            })
            .collect();
        if drawn.is_empty() {
            return Ok(None);
        }
        let quantities: Vec<&Quantity> = drawn.iter().flat_map(|(c, _)| &c.quantities).collect();
        // A rigid run is the reference where the rows hold one, else the rigid-limit columns,
        // else (a system without either) each quantity's limit extrapolated from its ladder.
        // Without an extrapolation either (a ladder that does not resolve the correction), the
        // distance to the value at the smallest κ shows whether the ladder settles.
        let known = drawn.iter().any(|(c, kind)| {
            c.quantities
                .iter()
                .any(|q| !rigid_distances(q, kind, rows).0.is_empty())
        });
        let extrapolated = !known
            && drawn.iter().any(|(c, kind)| {
                c.quantities
                    .iter()
                    .any(|q| !extrapolated_distances(q, kind, rows).0.is_empty())
            });
        let (reference, reference_symbol) = if rows.iter().any(is_rigid) {
            ("rigid reference", "q(rigid)")
        } else if known {
            ("rigid limit", "q(rigid)")
        } else if extrapolated {
            ("limit extrapolated to κ → 0", "q(κ → 0)")
        } else {
            ("value at the smallest κ", "q(smallest κ)")
        };
        // Quantities read at the run's end say so once, on the axis, rather than in each label.
        let at_end = all_at_end(quantities.iter().copied());
        let mut panels = Vec::new();
        let mut kinds: Vec<&str> = Vec::new();
        for (c, kind) in &drawn {
            if panels.len() == MAX_PANELS {
                break;
            }
            let (config, own, kind) = (c.config, &c.rows, kind);
            let title = match self.configuration_label(config, configurations) {
                Some(label) => format!("{}: distance to the {reference}", plot_text(&label)),
                None => format!("Distance to the {reference}"),
            };
            let mut panel = Panel {
                title,
                x_label: "compliance κ".into(),
                y_label: if quantities.iter().all(|q| q.distance) {
                    "distance to the rigid motion".to_string()
                } else if at_end {
                    format!("|q(κ) − {reference_symbol}| at the end time")
                } else {
                    format!("|q(κ) − {reference_symbol}|")
                },
                log_x: true,
                log_y: true,
                legend_lower: true,
                series: Vec::new(),
                bands: Vec::new(),
            };
            // Seven colours (black is the references'); later quantities repeat them dashed.
            const COLOURS: [usize; 7] = [0, 1, 2, 3, 4, 5, 7];
            for (j, q) in c.quantities.iter().enumerate() {
                let (kappa, gap) = if known {
                    rigid_distances(q, kind, own)
                } else if extrapolated {
                    extrapolated_distances(q, kind, own)
                } else {
                    smallest_kappa_distances(q, kind, own)
                };
                let points: Vec<(f64, f64)> =
                    kappa.into_iter().zip(gap).filter(|p| p.1 > 0.0).collect();
                // A distance to a limit taken from the ladder itself says something only over
                // three κ or more.
                if points.is_empty() || (!known && points.len() < 3) {
                    continue;
                }
                let label = figure_label(q);
                // A predicted exponent is what the figure tests: the fit drawn over its range,
                // its rate against the prediction in the legend.
                if let (true, Some(predicted)) = (known, q.exponent) {
                    let fit = rigid_rate(q, kind, own);
                    let range = q.fit_range.unwrap_or_else(|| {
                        let kappa = points.iter().map(|p| p.0);
                        (
                            kappa.clone().fold(f64::INFINITY, f64::min),
                            kappa.fold(0.0, f64::max),
                        )
                    });
                    panel.series.extend(fitted_series(
                        &label,
                        points,
                        fit,
                        Some(predicted),
                        range,
                        COLOURS[j % COLOURS.len()],
                    ));
                    continue;
                }
                panel.series.push(Series {
                    label,
                    points,
                    mark: if j < COLOURS.len() {
                        Mark::LineMarkers
                    } else {
                        Mark::Dashed
                    },
                    color: COLOURS[j % COLOURS.len()],
                });
            }
            if !panel.series.is_empty() {
                panels.push(panel);
                if !kinds.contains(&kind.name()) {
                    kinds.push(kind.name());
                }
            }
        }
        // Quantities equal at every κ (a lift-off that never comes) share their markers: the
        // caption says how both stay in sight.
        let coincide = panels.iter().any(|p| {
            let marked: Vec<&Vec<(f64, f64)>> = p
                .series
                .iter()
                .filter(|s| matches!(s.mark, Mark::Markers | Mark::LineMarkers))
                .map(|s| &s.points)
                .collect();
            marked
                .iter()
                .enumerate()
                .any(|(i, a)| marked[..i].iter().any(|b| a == b))
        });
        let Some(figure) = Figure::two_to_a_row(panels, (700, 560)) else {
            return Ok(None);
        };
        let fitted = known && quantities.iter().any(|q| q.exponent.is_some());
        let caption = format!(
            "{}: {}, rtol {}, atol {}{}",
            if fitted {
                format!("Distances to the {reference} against κ (lines: fitted power laws)")
            } else {
                format!("Each quantity's distance to its {reference} against the compliance κ")
            },
            kinds.join(", "),
            format_small_parameter(self.solver.rtol),
            format_small_parameter(self.solver.atol),
            if coincide { "; equal values nest" } else { "" }
        );
        save_captioned(&figure, &caption, dir, "convergence").map_err(|e| RunError::Io {
            path: dir.join("convergence.png").display().to_string(),
            source: std::io::Error::other(e),
        })?;
        Ok(Some((
            reference_symbol,
            kinds.join(", "),
            quantities.iter().all(|q| q.distance),
        )))
    }

    /// The configurations the generic summary and convergence.png report, in the study's order:
    /// each with its rows, the quantities [`System::reported_quantities`] gives for it (those
    /// without any are left out: a configuration that runs no ladder) and the integrators that
    /// run it ([`System::integrators`]).
    fn reported_configurations<'a>(
        &self,
        configurations: &'a [S::Config],
        rows: &[Row],
    ) -> Vec<ReportedConfiguration<'a, S::Config>> {
        let configuration_of: Vec<usize> = self.points().iter().map(|p| p.configuration).collect();
        // Each row to its configuration in one pass (an atlas has many).
        let mut rows_of: Vec<Vec<Row>> = vec![Vec::new(); configurations.len()];
        for r in rows {
            if let Some(own) = configuration_of
                .get(r.point_id)
                .and_then(|&i| rows_of.get_mut(i))
            {
                own.push(r.clone());
            }
        }
        configurations
            .iter()
            .zip(rows_of)
            .filter_map(|(config, own)| {
                let quantities = S::reported_quantities(config, &own);
                (!quantities.is_empty()).then(|| ReportedConfiguration {
                    config,
                    rows: own,
                    quantities,
                    integrators: S::integrators(config, &self.solver.integrators),
                })
            })
            .collect()
    }

    /// The system's contacts in their order, known by their impulse columns.
    fn contact_names(&self) -> Vec<String> {
        S::record_columns(&self.params)
            .iter()
            .filter_map(|c| c.strip_prefix("impulse_normal_"))
            .map(String::from)
            .collect()
    }

    /// The summary's title, the system's description (of `[params]`) and the swept parameters
    /// (each configuration's values are in its section's heading or its line).
    fn heading(&self, md: &mut Markdown) {
        let swept = self.sweep.swept();
        let swept = if swept.is_empty() {
            String::new()
        } else {
            format!(
                " Swept: {} (each configuration runs with its own values).",
                swept.join(", ")
            )
        };
        md.heading(1, format!("{}: {}", self.name, S::TITLE))
            .generated_by(&self.name, "")
            .paragraph(format!(
                "{}; rtol {:e}, atol {:e}.{swept}{}",
                S::describe(&self.params),
                self.solver.rtol,
                self.solver.atol,
                if self.first_opening.is_some() {
                    ""
                } else {
                    " Rigid limit κ = 0."
                }
            ));
    }

    pub fn summary(&self, rows: &[Row]) -> String {
        let configurations = self.configurations().unwrap_or_default();
        let reported = self.reported_configurations(&configurations, rows);
        self.summary_of(configurations.len(), &reported)
    }

    /// [`Convergence::summary`] of the `reported` configurations of the study's
    /// `configurations`.
    fn summary_of(
        &self,
        configurations: usize,
        reported: &[ReportedConfiguration<'_, S::Config>],
    ) -> String {
        let mut md = Markdown::new();
        self.heading(&mut md);
        for ReportedConfiguration {
            config,
            rows: own,
            quantities,
            integrators,
        } in reported
        {
            let level = match self.configuration_label(config, configurations) {
                Some(label) => {
                    md.heading(2, label);
                    3
                }
                None => 2,
            };
            let mut ladder: Vec<f64> = own
                .iter()
                .filter(|r| !is_rigid(r))
                .filter_map(|r| r.number("kappa"))
                .collect();
            ladder.sort_by(f64::total_cmp);
            ladder.dedup();
            if ladder.is_empty() && own.iter().any(is_rigid) {
                md.paragraph(
                    "The rigid method only, without a κ ladder: nothing converges here. The \
                     compliant runs of a κ ladder are compared with this reference.",
                );
                continue;
            }
            md.table(&values_table::<S>(quantities, own))
                .heading(level, "Convergence as κ → 0");
            // A ladder too short for any fit is said once, not once per quantity.
            let needed = points_needed(&ExtrapolationOptions::default());
            if ladder.len() < needed {
                md.paragraph(format!(
                    "Not extrapolated: the ladder has {} κ values, the extrapolation to κ → 0 \
                     needs at least {needed} (add κ values).",
                    ladder.len()
                ));
                continue;
            }
            let mut misses = Vec::new();
            for q in quantities {
                for kind in integrators {
                    let found = QuantityLimit::of(q, kind, own);
                    convergence_items(&mut md, q, kind, &found);
                    // A distance within the runs' tolerance has no rate to miss.
                    let fit = found.rate.as_ref().filter(|_| found.at_floor.is_none());
                    if let (Some(f), Some(p)) = (fit, q.exponent) {
                        if excludes(f, p) {
                            // A predicted 0 (a distance that does not depend on κ) has no
                            // relative miss.
                            let relative = if p == 0.0 {
                                String::new()
                            } else {
                                format!(
                                    " ({} % of {})",
                                    percent(100.0 * (f.slope - p).abs() / p.abs()),
                                    significant(p)
                                )
                            };
                            misses.push(format!(
                                "{} ({kind}) by {}{relative}",
                                q.symbol,
                                sci(f.slope - p, 1),
                            ));
                        }
                    }
                }
            }
            if !misses.is_empty() {
                md.paragraph(interval_misses(&misses));
            }
        }
        md.finish()
    }
}

/// The panels of convergence.png at most: three rows of two.
const MAX_PANELS: usize = 6;

/// One configuration of the study as its report sees it
/// ([`Convergence::reported_configurations`]).
struct ReportedConfiguration<'a, C> {
    config: &'a C,
    /// Its rows of runs.csv.
    rows: Vec<Row>,
    quantities: Vec<Quantity>,
    integrators: Vec<IntegratorKind>,
}

/// A percentage to two significant digits (3.8, 0.52, 0.00069).
fn percent(v: f64) -> String {
    let decimals = if v > 0.0 {
        (1.0 - v.log10().floor()).clamp(0.0, 8.0) as usize
    } else {
        0
    };
    format!("{v:.decimals$}")
}

/// The paragraph on the fitted exponents whose 95 % interval leaves their prediction out
/// (`misses`: `symbol (integrator) by miss (percent of prediction)`): what such an interval
/// measures, and so what a miss beyond it says.
fn interval_misses(misses: &[String]) -> String {
    format!(
        "Where a 95 % interval above excludes its prediction, the fitted exponent misses it: {}. \
         The interval measures only how the points scatter about one straight line in log–log \
         coordinates, not how far its slope lies from the leading exponent: a higher-order term \
         of the expansion in κ, or the tolerance's floor under the smallest distances, bends the \
         slope over the fit range by an amount such a fit cannot tell from the leading rate. A \
         miss of a fraction of a percent is of that kind; one of several percent suggests that \
         the fit range has not yet reached the leading rate, or that the prediction is wrong.",
        misses.join("; ")
    )
}

/// Every row: each quantity measured, its difference from the closed form at κ and from the
/// rigid limit, and the system's diagnostics.
fn values_table<S: System>(quantities: &[Quantity], rows: &[Row]) -> MarkdownTable {
    let mut header = vec!["integrator".to_string(), "κ".to_string()];
    for q in quantities {
        header.push(if q.distance {
            q.symbol.to_string()
        } else {
            format!("{} measured", q.symbol)
        });
        if q.closed_form.is_some() {
            header.push("− closed form".into());
        }
        if q.rigid_limit.is_some() {
            header.push("− rigid limit".into());
        }
    }
    header.extend(S::diagnostics().iter().map(|(_, what)| what.to_string()));
    let mut table = MarkdownTable::new(header);
    for r in rows {
        let mut cells = vec![r.text("integrator").to_string()];
        if r.text("status") != "ok" {
            cells.push(r.text("kappa").to_string());
            cells.push(format!("failed: {}", r.text("error")));
            table.row(cells);
            continue;
        }
        cells.push(if is_rigid(r) {
            Method::Rigid.name().to_string()
        } else {
            sci(r.number("kappa").unwrap_or(f64::NAN), 2)
        });
        for q in quantities {
            let value = quantity_value(r, q);
            let gap = |reference: Option<&str>, digits| {
                let d = value.zip(reference.and_then(|c| r.number(c)));
                d.map_or_else(String::new, |(v, e)| sci(v - e, digits))
            };
            // A distance spans decades over the ladder: significant digits, not fixed ones.
            let digits = |v: f64| if q.distance { sci(v, 3) } else { fixed(v, 12) };
            cells.push(value.map_or_else(String::new, digits));
            if q.closed_form.is_some() {
                cells.push(gap(q.closed_form, 2));
            }
            if q.rigid_limit.is_some() {
                cells.push(gap(q.rigid_limit, 3));
            }
        }
        for (column, _) in S::diagnostics() {
            cells.push(sci(r.number(column).unwrap_or(f64::NAN), 1));
        }
        table.row(cells);
    }
    table
}

/// How a limit from the compliant runs, `limit`, compares with the rigid one, `rigid`, given the
/// runs' tolerance `floor`, as a summary's line ends.
fn against_rigid(limit: f64, rigid: f64, floor: f64, against: AgainstRigid) -> String {
    let tolerance = sci(floor, 1);
    let another = "the compliant runs tend to another limit than the rigid reference";
    let verdict = match against {
        AgainstRigid::Inside => "inside the interval".to_string(),
        AgainstRigid::WithinTolerance { interval: true } => {
            format!("outside the interval but within the runs' tolerance ({tolerance})")
        }
        AgainstRigid::Beyond { interval: true } => {
            format!("outside the interval and beyond the runs' tolerance ({tolerance}): {another}")
        }
        AgainstRigid::WithinTolerance { interval: false } => {
            format!("within the runs' tolerance ({tolerance})")
        }
        AgainstRigid::Beyond { interval: false } => {
            format!("beyond the runs' tolerance ({tolerance}): {another}")
        }
    };
    format!(
        "rigid limit {}: difference {}, {verdict}",
        fixed(rigid, 12),
        sci(limit - rigid, 1)
    )
}

/// For `kind`'s rows: the rate of |q − rigid limit| ∝ κ^p when the rigid limit is known (its
/// column, or the value of the rigid reference run by the same integrator), and q extrapolated to
/// κ → 0 from the ladder alone (against the rigid limit when known); for a
/// [`Quantity::distance`], the rate of the column alone. Each rate beside its predicted exponent.
/// `found` is what `kind`'s rows say about `q` ([`QuantityLimit::of`]).
fn convergence_items(
    md: &mut Markdown,
    q: &Quantity,
    kind: &IntegratorKind,
    found: &QuantityLimit,
) {
    let symbol = q.symbol;
    let over = q
        .fit_range
        .map(|(smallest, largest)| format!(", κ ∈ [{smallest:e}, {largest:e}]"))
        .unwrap_or_default();
    let rate_line = |fitted: &str| match (found.at_floor, &found.rate) {
        (Some((largest, floor)), _) => format!(
            "{kind}{over}: {fitted} ≤ {} at every κ, within the runs' tolerance ({}): no rate \
             to fit.",
            sci(largest, 1),
            sci(floor, 1)
        ),
        (None, Some(f)) => format!(
            "{kind}{over}: {fitted} ∝ {}.",
            rate_against_prediction(f, q.exponent)
        ),
        (None, None) => {
            format!("{kind}{over}: {symbol}: too few successful runs to fit a rate.")
        }
    };
    let Some(limit) = &found.limit else {
        // A distance to the rigid reference tends to 0 by definition: its rate is all there is.
        md.item(rate_line(&named(q)));
        return;
    };
    if found.rigid.is_some() {
        md.item(rate_line(&format!("|{symbol} − {symbol}(rigid)|")));
    } else {
        md.item(format!("{kind}, {symbol}:"));
    }
    let against = |value: f64| {
        found
            .rigid
            .zip(found.against_rigid())
            .map(|(rigid, against)| against_rigid(value, rigid, found.floor, against))
    };
    match limit {
        LadderLimit::Level { value, spread } => {
            // A ladder that does not move beyond the runs' tolerance has no correction in κ for
            // the extrapolation to resolve: its value is the limit, to that tolerance.
            let against = against(*value)
                .map(|a| format!("; {a}"))
                .unwrap_or_default();
            md.item_continued(format!(
                "{symbol} is the same at every κ to the runs' tolerance (spread {} ≤ {}): {}, \
                 nothing to extrapolate{against}.",
                sci(*spread, 1),
                sci(found.floor, 1),
                fixed(*value, 12),
            ));
        }
        LadderLimit::Extrapolated(e) => {
            let against = against(e.limit)
                .map(|a| format!(", {a}"))
                .unwrap_or_default();
            md.item_continued(format!(
                "{symbol} extrapolated to κ → 0: {} ± {} ({}{}, {} points){against}.",
                fixed(e.limit, 12),
                sci(e.half_width, 1),
                e.formula,
                e.exponent
                    .map(|p| format!(", p = {p:.4}"))
                    .unwrap_or_default(),
                e.points,
            ));
        }
        LadderLimit::Refused(r) => {
            md.item_continued(format!("{symbol} extrapolated to κ → 0: refused ({r})."));
        }
    }
}

impl<S: System, G: Sweep<S>> Plan for Convergence<S, G> {
    type Point = Point<S::Config>;

    fn name(&self) -> &str {
        &self.name
    }
    fn columns(&self) -> Vec<&'static str> {
        Convergence::columns(self)
    }
    fn points(&self) -> Points<'_, Self::Point> {
        Box::new(self.lazy_points())
    }
    fn point_id(&self, point: &Self::Point) -> usize {
        point.id
    }
    fn input_row(&self, point: &Self::Point) -> Row {
        // A configuration that is not a flat record is refused by the tests of each system
        // (its columns are derived from it); an empty input list here would only lose cells.
        let mut inputs = if self.has_method_column() {
            vec![("method", point.method.name().to_string())]
        } else {
            Vec::new()
        };
        inputs.extend(S::inputs(&point.config).unwrap_or_default());
        sweep_input_row(
            point.id,
            match point.method {
                Method::Rigid => S::RIGID_KAPPA,
                Method::Compliant { kappa } => kappa,
            },
            inputs,
            point.integrator,
            &self.solver,
        )
    }
    fn run_point(&self, point: &Self::Point) -> Row {
        let start = std::time::Instant::now();
        let kappa = match point.method {
            Method::Compliant { kappa } => Some(kappa),
            Method::Rigid => None,
        };
        let result = S::run(
            &point.config,
            point.method,
            &self.settings(point.integrator, kappa),
        )
        .map_err(|e| e.to_string())
        .and_then(|(record, stats)| {
            let mut measured = Fields::with_capacity(SWEEP_ROW_CELLS);
            S::write_record(&point.config, &record, &mut measured)?;
            Ok((measured, stats))
        });
        finish_sweep_row(self.input_row(point), result, start)
    }
    fn describe(&self, point: &Self::Point) -> String {
        match point.method {
            Method::Compliant { kappa } => format!("{} κ = {kappa:.1e}", point.integrator),
            Method::Rigid => format!("{} rigid", point.integrator),
        }
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
    /// The system's side tables for the configuration of `[params]` (e.g. sampled paths for a
    /// figure), made with the first integrator; a table no run can produce is left out.
    fn after_run(&self, dir: &Path) -> Result<(), RunError> {
        let Some(&integrator) = self.solver.integrators.first() else {
            return Ok(());
        };
        let ladder = if S::methods(&self.params).compliant {
            self.ladder()
        } else {
            Vec::new()
        };
        let configurations = self.configurations().unwrap_or_default();
        let settings = self.settings(integrator, None);
        for (name, text) in S::side_tables(&self.params, &configurations, &ladder, &settings) {
            write_atomically(&dir.join(name), &text)?;
        }
        if let (Some(spec), Some(window)) = (&self.first_opening, self.solver.window_scaled) {
            let text = reference_table::<S>(spec, &configurations, &settings, window);
            write_atomically(
                &dir.join(crate::study::first_opening::REFERENCE_TABLE),
                &text,
            )?;
        }
        Ok(())
    }
}
