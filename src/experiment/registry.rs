//! The registry macro: from one line per system it generates the type of every experiment file
//! (`Experiment`), its parsing by `model = "…"` (and `analysis = "…"`), `run`, `merge`, `report`,
//! the systems `rigid-limit list` prints and the dispatch of `rigid-limit simulate SYSTEM`.
//! `crate::models` invokes it for the built-in systems; a crate using the library can invoke it
//! for its own (tests/it/toy_system.rs does).
//!
//! ```text
//! registry! {
//!     simulate = simulate_system(RunFlags);
//!     systems {
//!         SpringParticle(spring_particle::SpringParticle);          // the generic study and report
//!         Rod3dJam(rod3d::study::Rod3dJam), report = rod3d::report::write_report;
//!         Described(described::Described), table = described::with_system_file,
//!             work_precision = DescribedWorkPrecision;
//!         Rod(rod::Rod), sweep = rod::sweep::RodSweep, report_run = rod::report::write_run_report;
//!     }
//!     studies {
//!         RodModeTable(FastPlan<ModeTable<rod::Rod, 3>, 3>), analysis = "mode_table";
//!         PlanarModeTable(FastPlan<ModeTable<planar::Planar, 2>, 2>);   // the default
//!     }
//!     plans {
//!         TwoContact(two_contact::TwoContactStudy), parse = two_contact_plan,
//!             report = two_contact::report::write_report,
//!             list = "two_contact" => ABOUT, example = "experiments/two_contact_iwc.toml";
//!     }
//! }
//! ```
//!
//! - `systems`: a [`System`](crate::experiment::system::System) on the convergence study
//!   (`Convergence<S>`), selected by `model = S::NAME` (and `analysis = S::ANALYSIS` when the
//!   system has one: the planar system's oblique impact beside its fast-time models; `simulate`
//!   then names it by that analysis); `sweep = G` reads its `[sweep]` as a `G` of its own
//!   (`Convergence<S, G>`, `crate::study::convergence::Sweep`); its report is the study's unless
//!   `report = f` names `f(&Convergence<S>, &[Row], &Path)`, or `report_run = f` names
//!   `f(&Convergence<S>, &Path)`, which reads runs.csv itself (as a stream: a run too large to
//!   hold its rows); `table = f` reads the file's table through
//!   `f(table, dir) -> Result<Table, SpecError>` first (a described system's `system = "FILE"`);
//!   `work_precision = Variant` adds the work–precision study (`study = "work_precision"`,
//!   `WorkPrecision<S>`) as that variant; `simulate SYSTEM` runs it through the `simulate` function named at
//!   the top (`f::<S>(args)`).
//! - `studies`: a [`Study`]: a generic plan (a fast-time study of a system, `FastPlan<T, N>`),
//!   selected by `model = Study::MODEL` and, when given, `analysis = "…"`; the entry without
//!   `analysis` takes the system's files with any other (its own parser refuses what it does
//!   not know). Entries with `analysis` are asked before the systems (the rod's mode table
//!   beside the rod); the defaults after them. Its report is [`Study::report`].
//! - `plans`: any other [`Plan`](crate::experiment::runner::Plan) with a `name` field:
//!   `parse = f` is `f(text, &table) -> Option<Result<Plan, SpecError>>` (`None`: not this plan's
//!   file; plans are asked first) and `report = f` is `f(&Plan, &Path)`.
//!
//! - `example = "PATH"` (a study's, or a plan's after its `list`): an experiment file of the
//!   study (its path from the crate's root), whose points `simulate SYSTEM --point ID` runs one at a time (`POINT_EXAMPLES`
//!   names them; `crate::study::point`).
//!
//! `rigid-limit list` shows each system's `ABOUT`, each study's non-empty `ABOUT`
//! once per name,
//! and a plan's `list = NAME => ABOUT` when given.

use super::grammar::SpecError;
use crate::error::SimError;

/// Generate the registry of experiment files from one line per system (module docs).
#[macro_export]
macro_rules! registry {
    (
        simulate = $simulate:ident ( $args:ty );
        systems {
            $( $(#[$sm:meta])* $sv:ident ( $st:ty ) $( , sweep = $ssw:ty )?
                $( , report = $sr:path )? $( , report_run = $srr:path )?
                $( , table = $stt:path )? $( , work_precision = $swv:ident )? ; )*
        }
        studies {
            $( $(#[$fm:meta])* $fv:ident ( $ft:ty ) $( , analysis = $fa:literal )?
                $( , example = $fe:literal )? ; )*
        }
        plans {
            $( $(#[$pm:meta])* $pv:ident ( $pt:ty ) , parse = $pp:path , report = $pr:path
                $( , list = $pn:expr => $pa:expr $( , example = $pe:literal )? )? ; )*
        }
    ) => {
        /// Any experiment file, by its system (and study).
        #[derive(Clone, Debug, PartialEq)]
        pub enum Experiment {
            $( $(#[$sm])* $sv(Box<$crate::study::convergence::Convergence<$st $(, $ssw)?>>), )*
            $( $(
                #[doc = "The work–precision study (`study = \"work_precision\"`) of a system."]
                $swv(Box<$crate::study::work_precision::WorkPrecision<$st>>),
            )? )*
            $( $(#[$fm])* $fv(Box<$ft>), )*
            $( $(#[$pm])* $pv(Box<$pt>), )*
        }

        /// The names of the systems on the convergence study (those `simulate SYSTEM` runs):
        /// a system selected by its `analysis` is named by it.
        pub const SYSTEMS: &[&str] = &[
            $( $crate::experiment::registry::simulate_name::<$st>(), )*
        ];

        /// The names `model = …` accepts, with what each system is (for `rigid-limit list`),
        /// in registry order.
        pub fn models() -> Vec<(&'static str, &'static str)> {
            let mut listed: Vec<(&'static str, &'static str)> = Vec::new();
            let mut add = |name: &'static str, about: &'static str| {
                if !about.is_empty() && !listed.iter().any(|(n, _)| *n == name) {
                    listed.push((name, about));
                }
            };
            $( add(
                <$st as $crate::experiment::system::System>::NAME,
                <$st as $crate::experiment::system::System>::ABOUT,
            ); )*
            $( add(
                <$ft as $crate::experiment::registry::Study>::MODEL,
                <$ft as $crate::experiment::registry::Study>::ABOUT,
            ); )*
            $( $( add($pn, $pa); )? )*
            listed
        }

        /// The systems `simulate SYSTEM` runs as one point of their own study (a study or a
        /// plan with `example = "PATH"`): each name, its example experiment file's path (from
        /// the crate's root) and its text.
        pub const POINT_EXAMPLES: &[(&str, &str, &str)] = &[
            $( $( (
                <$ft as $crate::experiment::registry::Study>::MODEL,
                $fe,
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $fe)),
            ), )? )*
            $( $( $( ($pn, $pe, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $pe))), )? )? )*
        ];

        impl Experiment {
            /// Read and validate `path`.
            pub fn load(
                path: &::std::path::Path,
            ) -> Result<Self, $crate::experiment::grammar::SpecError> {
                let text = ::std::fs::read_to_string(path).map_err(|source| {
                    $crate::experiment::grammar::SpecError::Io {
                        path: path.display().to_string(),
                        source,
                    }
                })?;
                Self::parse_at(&text, path.parent()).map_err(|e| e.at(path))
            }

            /// Parse and validate TOML text: a plan's own key (`kind`) selects it, else
            /// `model` the system (and `analysis` the model's analysis).
            pub fn parse(text: &str) -> Result<Self, $crate::experiment::grammar::SpecError> {
                Self::parse_at(text, None)
            }

            /// [`Self::parse`] of a file in directory `dir` (where `system = "…"` files are
            /// looked up besides the working directory).
            fn parse_at(
                text: &str,
                dir: Option<&::std::path::Path>,
            ) -> Result<Self, $crate::experiment::grammar::SpecError> {
                let table = $crate::experiment::registry::parse_table(text)?;
                let model = table.get("model").cloned();
                Self::parse_registered(text, table, dir).unwrap_or_else(|| {
                    let names: Vec<&str> = models().iter().map(|(name, _)| *name).collect();
                    Err($crate::experiment::registry::unknown_model(model, &names))
                })
            }

            /// The experiment of a parsed file: `table` is `text` read as TOML, `dir` where
            /// the file lies. `None` when no registered system takes it.
            fn parse_registered(
                text: &str,
                table: $crate::experiment::registry::Table,
                dir: Option<&::std::path::Path>,
            ) -> Option<Result<Self, $crate::experiment::grammar::SpecError>> {
                let _ = &dir;
                $( if let Some(plan) = $pp(text, &table) {
                    return Some(plan.map(|p| Experiment::$pv(Box::new(p))));
                } )*
                let name = table.get("model").and_then(|m| m.as_str())?.to_string();
                let analysis = table.get("analysis").and_then(|a| a.as_str()).map(str::to_string);
                let _ = &analysis;
                let study = table.get("study").and_then(|s| s.as_str()).map(str::to_string);
                let _ = &study;
                // A study's analysis of a system's name (the rod's mode table) is the study's.
                $( $( if name == <$ft as $crate::experiment::registry::Study>::MODEL
                    && analysis.as_deref() == Some($fa)
                {
                    return Some(
                        <$ft as $crate::experiment::registry::Study>::parse(text)
                            .map(|s| Experiment::$fv(Box::new(s))),
                    );
                } )? )*
                $( if name == <$st as $crate::experiment::system::System>::NAME
                    && <$st as $crate::experiment::system::System>::ANALYSIS
                        .is_none_or(|a| analysis.as_deref() == Some(a))
                {
                    let table = $crate::registry!(@table table, dir $(, $stt)?);
                    $( if study.as_deref() == Some($crate::study::work_precision::NAME) {
                        let spec = $crate::experiment::registry::read_experiment(
                            text,
                            table,
                            $crate::study::work_precision::WorkPrecision::<$st>::validate,
                        );
                        return Some(spec.map(|s| Experiment::$swv(Box::new(s))));
                    } )?
                    let spec = $crate::experiment::registry::read_experiment(
                        text,
                        table,
                        $crate::study::convergence::Convergence::<$st $(, $ssw)?>::validate,
                    );
                    return Some(spec.map(|s| Experiment::$sv(Box::new(s))));
                } )*
                $( $crate::registry!(@default_study name, text, $fv, $ft $(, $fa)?); )*
                None
            }

            /// The experiment's name (its output directory under results/).
            pub fn name(&self) -> &str {
                match self {
                    $( Experiment::$sv(p) => &p.name, )*
                    $( $( Experiment::$swv(p) => &p.name, )? )*
                    $( Experiment::$fv(p) => $crate::experiment::runner::Plan::name(p.as_ref()), )*
                    $( Experiment::$pv(p) => &p.name, )*
                }
            }

            /// Run (or resume) the experiment into `opts.out_dir`.
            pub fn run(
                &self,
                opts: &$crate::experiment::runner::RunOptions,
            ) -> Result<$crate::experiment::runner::RunSummary, $crate::experiment::runner::RunError>
            {
                use $crate::experiment::runner::run_experiment;
                match self {
                    $( Experiment::$sv(p) => run_experiment(p.as_ref(), opts), )*
                    $( $( Experiment::$swv(p) => run_experiment(p.as_ref(), opts), )? )*
                    $( Experiment::$fv(p) => run_experiment(p.as_ref(), opts), )*
                    $( Experiment::$pv(p) => run_experiment(p.as_ref(), opts), )*
                }
            }

            /// Join the shards in `out_dir`.
            pub fn merge(
                &self,
                out_dir: &::std::path::Path,
                command_line: &str,
            ) -> Result<$crate::experiment::runner::RunSummary, $crate::experiment::runner::RunError>
            {
                use $crate::experiment::runner::merge_shards;
                match self {
                    $( Experiment::$sv(p) => merge_shards(p.as_ref(), out_dir, command_line), )*
                    $( $( Experiment::$swv(p) => merge_shards(p.as_ref(), out_dir, command_line), )? )*
                    $( Experiment::$fv(p) => merge_shards(p.as_ref(), out_dir, command_line), )*
                    $( Experiment::$pv(p) => merge_shards(p.as_ref(), out_dir, command_line), )*
                }
            }

            /// Write the report of the finished run in `dir` again from its rows, running
            /// nothing (`rigid-limit report`); refused, saying what to run instead, unless `dir`
            /// holds every point's row computed under this file's settings
            /// ([`check_finished`]($crate::experiment::runner::check_finished)). Returns the
            /// number of rows.
            pub fn report_finished(
                &self,
                dir: &::std::path::Path,
                regenerated_by: Option<&str>,
            ) -> Result<usize, $crate::experiment::runner::RunError> {
                use $crate::experiment::runner::check_finished;
                let (rows, _lock) = match self {
                    $( Experiment::$sv(p) => check_finished(p.as_ref(), dir), )*
                    $( $( Experiment::$swv(p) => check_finished(p.as_ref(), dir), )? )*
                    $( Experiment::$fv(p) => check_finished(p.as_ref(), dir), )*
                    $( Experiment::$pv(p) => check_finished(p.as_ref(), dir), )*
                }?;
                $crate::experiment::store::stage_side_tables(dir)?;
                self.report_regenerated_by(dir, regenerated_by)?;
                Ok(rows)
            }

            /// Write the report (summary.md, analysis.json, figures, beside the side tables of
            /// the run stage) of the run in `dir`; its files replace the previous report's
            /// together ([`replace_report`]($crate::experiment::store::replace_report)). Its
            /// summary says it is regenerated by `rigid-limit run experiments/NAME.toml`.
            pub fn report(
                &self,
                dir: &::std::path::Path,
            ) -> Result<(), $crate::experiment::runner::RunError> {
                self.report_regenerated_by(dir, None)
            }

            /// [`Self::report`] of a run of another file than experiments/NAME.toml: its
            /// summary says that `regenerated_by` regenerates it
            /// ([`regenerating_command`]($crate::report::markdown::regenerating_command));
            /// `None` as [`Self::report`].
            pub fn report_regenerated_by(
                &self,
                dir: &::std::path::Path,
                regenerated_by: Option<&str>,
            ) -> Result<(), $crate::experiment::runner::RunError> {
                $crate::experiment::store::replace_report(dir, |staging| {
                    self.write_report(staging)?;
                    match regenerated_by {
                        Some(command) => $crate::report::markdown::restate_provenance(
                            staging,
                            self.name(),
                            command,
                        ),
                        None => Ok(()),
                    }
                })
            }

            fn write_report(
                &self,
                dir: &::std::path::Path,
            ) -> Result<(), $crate::experiment::runner::RunError> {
                match self {
                    $( Experiment::$sv(spec) => {
                        $crate::registry!(@report_system spec, dir $(, rows $sr)? $(, run $srr)?)
                    } )*
                    $( $( Experiment::$swv(spec) => {
                        $crate::report::work_precision::write_run_report(spec.as_ref(), dir)
                            .map(|_| ())
                    } )? )*
                    $( Experiment::$fv(plan) => {
                        $crate::experiment::registry::Study::report(plan.as_ref(), dir)
                    } )*
                    $( Experiment::$pv(spec) => $pr(spec, dir).map(|_| ()), )*
                }
            }

            /// Run the point `id` of the experiment, as the runner runs it
            /// (`rigid-limit simulate SYSTEM --point ID`).
            pub fn run_point(
                &self,
                id: usize,
            ) -> Result<$crate::study::point::PointRun, $crate::error::SimError> {
                use $crate::study::point::run_point;
                match self {
                    $( Experiment::$sv(p) => run_point(p.as_ref(), id), )*
                    $( $( Experiment::$swv(p) => run_point(p.as_ref(), id), )? )*
                    $( Experiment::$fv(p) => run_point(p.as_ref(), id), )*
                    $( Experiment::$pv(p) => run_point(p.as_ref(), id), )*
                }
            }

            /// One run of the system named `name` (`rigid-limit simulate SYSTEM`), or `None`
            /// when no system of the registry has that name.
            pub(crate) fn simulate_named(name: &str, args: &$args) -> Option<Result<String, String>> {
                let _ = &args;
                $( if name == $crate::experiment::registry::simulate_name::<$st>() {
                    return Some($simulate::<$st>(args));
                } )*
                None
            }
        }
    };
    (@table $table:ident, $dir:ident) => {{
        let _ = $table;
        None
    }};
    (@table $table:ident, $dir:ident, $transform:path) => {
        Some($transform($table, $dir))
    };
    (@default_study $name:ident, $text:ident, $v:ident, $t:ty) => {
        if $name == <$t as $crate::experiment::registry::Study>::MODEL {
            return Some(
                <$t as $crate::experiment::registry::Study>::parse($text)
                    .map(|s| Experiment::$v(Box::new(s))),
            );
        }
    };
    (@default_study $name:ident, $text:ident, $v:ident, $t:ty, $analysis:literal) => {};
    (@rows $spec:ident, $dir:ident) => {
        $crate::experiment::store::read_rows(
            &$dir.join($crate::experiment::runner::RUNS_CSV),
            &$spec.columns(),
        )?
    };
    (@report_system $spec:ident, $dir:ident) => {
        $spec.report_run($dir)
    };
    (@report_system $spec:ident, $dir:ident, rows $report:path) => {
        $report($spec, &$crate::registry!(@rows $spec, $dir), $dir)
    };
    (@report_system $spec:ident, $dir:ident, run $report:path) => {
        $report($spec, $dir).map(|_| ())
    };
}

pub use toml::Table;

/// A plan the registry selects by `model` and `analysis` (its `studies` clause): a generic
/// study of a system, such as the fast-time studies (`crate::study::fast::plan::FastPlan`).
pub trait Study: super::runner::Plan + Sized {
    /// `model = "…"` of its files.
    const MODEL: &'static str;
    /// The system in a sentence or two: its line in `rigid-limit list` (empty when another
    /// entry lists the name).
    const ABOUT: &'static str;
    /// Parse and validate TOML text.
    fn parse(text: &str) -> Result<Self, SpecError>;
    /// summary.md, analysis.json and the figures of the run in `dir`, from its runs.csv.
    fn report(&self, dir: &std::path::Path) -> Result<(), super::runner::RunError>;
}

/// The name `rigid-limit simulate` knows system `S` by: its `analysis` when that selects it
/// among the studies of its model (`oblique_impact`), else its `model` name.
pub const fn simulate_name<S: crate::experiment::system::System>() -> &'static str {
    match S::ANALYSIS {
        Some(analysis) => analysis,
        None => S::NAME,
    }
}

/// An experiment of type `T` from its file: from `text` itself, or from `table` when the system
/// read the file's table through a transform first (`table = f` in the registry); checked by
/// `validate`.
pub fn read_experiment<T: serde::de::DeserializeOwned>(
    text: &str,
    table: Option<Result<Table, SpecError>>,
    validate: impl Fn(&T) -> Result<(), SimError>,
) -> Result<T, SpecError> {
    match table {
        None => super::grammar::parse_validated(text, validate),
        Some(table) => {
            table.and_then(|table| super::grammar::from_table_validated(table, validate))
        }
    }
}

/// `text` as a TOML table whose numbers are all representable (the first step of parsing an
/// experiment file).
pub fn parse_table(text: &str) -> Result<Table, SpecError> {
    let table: Table = toml::from_str(text).map_err(|e| SpecError::Parse {
        path: String::new(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    super::grammar::refuse_unrepresentable_numbers(&table).map_err(|source| {
        SpecError::Invalid {
            path: String::new(),
            source,
        }
    })?;
    Ok(table)
}

/// The error for a file whose `model` (the value given, if any) no registered system takes;
/// `names` are the systems there are.
pub fn unknown_model(model: Option<toml::Value>, names: &[&str]) -> SpecError {
    let value = match model {
        Some(toml::Value::String(name)) => name,
        Some(other) => format!("{other:?}"),
        None => "missing".to_string(),
    };
    SpecError::Invalid {
        path: String::new(),
        source: SimError::invalid(
            "model",
            value,
            &format!("name the mechanical system, one of {}", names.join(", ")),
        ),
    }
}
