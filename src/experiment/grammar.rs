//! The grammar of experiment files shared by every model: value grids, axes, the solver table,
//! parsing with unknown keys rejected, and the errors that name the offending key.

use crate::error::{require_finite, SimError};
use crate::integrate::IntegratorKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Values of one swept parameter: a list or an evenly spaced range.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Axis {
    /// `[a, b, c]`.
    List(Vec<f64>),
    /// `{ min, max, n }`: n evenly spaced values, both ends included.
    Range(LinearRange),
}

/// Values of one parameter swept by a convergence study's `[sweep]`: numbers (an [`Axis`]), or a
/// list of values of another kind that set a field which is not a number (vectors
/// `V0 = [[1.0, 2.0], [0.5, 0.4]]`) or several fields at once (tables
/// `contacts = [{ A = 1.0, B = 0.5, C = 1.0, mu = 0.8 }]`); the system sets those with
/// `System::set_value`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ParameterAxis {
    Numbers(Axis),
    Values(Vec<serde_json::Value>),
}

impl<'de> Deserialize<'de> for ParameterAxis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        match &value {
            // A list of lists or tables; anything else is read (and refused) as numbers.
            serde_json::Value::Array(items)
                if !items.is_empty() && items.iter().all(|x| x.is_array() || x.is_object()) =>
            {
                Ok(ParameterAxis::Values(items.clone()))
            }
            _ => Axis::from_value(&value)
                .map(ParameterAxis::Numbers)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// One value of a [`ParameterAxis`].
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterValue {
    Number(f64),
    Value(serde_json::Value),
}

impl std::fmt::Display for ParameterValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParameterValue::Number(x) => f.write_str(&crate::error::number_text(*x)),
            ParameterValue::Value(v) => f.write_str(&crate::error::as_written(v)),
        }
    }
}

impl ParameterAxis {
    /// The number of values, without computing them.
    pub fn len(&self) -> usize {
        match self {
            ParameterAxis::Numbers(axis) => axis.len(),
            ParameterAxis::Values(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn values(&self) -> Vec<ParameterValue> {
        match self {
            ParameterAxis::Numbers(axis) => axis
                .values()
                .into_iter()
                .map(ParameterValue::Number)
                .collect(),
            ParameterAxis::Values(v) => v.iter().cloned().map(ParameterValue::Value).collect(),
        }
    }

    /// Check the axis given under `key` (e.g. `sweep.mu`): the numbers as an [`Axis`]; the
    /// system checks the other values in the configurations they make.
    pub fn validate(&self, key: &str) -> Result<(), SimError> {
        match self {
            ParameterAxis::Numbers(axis) => axis.validate(key),
            ParameterAxis::Values(v) if v.len() > MAX_AXIS_VALUES => Err(SimError::invalid(
                key,
                v.len(),
                &format!("list at most {MAX_AXIS_VALUES} values"),
            )),
            ParameterAxis::Values(_) => Ok(()),
        }
    }

    /// The values as written, for messages.
    pub fn written(&self) -> String {
        match self {
            ParameterAxis::Numbers(axis) => crate::error::as_written(&axis.values()),
            ParameterAxis::Values(v) => crate::error::as_written(v),
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinearRange {
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

/// The largest number of values one axis or κ ladder may have (a grid is the product of its
/// axes; see [`MAX_POINTS`]).
pub(crate) const MAX_AXIS_VALUES: usize = 100_000;
/// The largest number of points an experiment runs unless `[solver] max_points` raises it:
/// counted before anything is allocated.
pub const MAX_POINTS: u128 = 1_000_000;

/// What an axis may be, for messages.
pub(crate) const AXIS_FORMS: &str =
    "a list of numbers [a, b, …] or a range { min = …, max = …, n = … }";

impl<'de> Deserialize<'de> for Axis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Axis::from_value(&value).map_err(serde::de::Error::custom)
    }
}

impl Axis {
    /// Read an axis from the value of its key, with a message that says what is wrong.
    pub(crate) fn from_value(value: &serde_json::Value) -> Result<Self, String> {
        use serde_json::Value;
        match value {
            Value::Array(items) => items
                .iter()
                .map(|x| {
                    x.as_f64()
                        .ok_or_else(|| format!("{x} is not a number; expected {AXIS_FORMS}"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Axis::List),
            Value::Object(map) => {
                if let Some(k) = map
                    .keys()
                    .find(|k| !["min", "max", "n"].contains(&k.as_str()))
                {
                    return Err(format!(
                        "unknown key '{k}' in a range; expected {AXIS_FORMS}"
                    ));
                }
                let number = |k: &str| {
                    map.get(k)
                        .ok_or_else(|| format!("a range needs '{k}'; expected {AXIS_FORMS}"))?
                        .as_f64()
                        .ok_or_else(|| format!("'{k}' must be a number"))
                };
                let n = map
                    .get("n")
                    .ok_or_else(|| format!("a range needs 'n'; expected {AXIS_FORMS}"))?
                    .as_u64()
                    .ok_or("'n' must be a whole number >= 1")?;
                Ok(Axis::Range(LinearRange {
                    min: number("min")?,
                    max: number("max")?,
                    n: usize::try_from(n).unwrap_or(usize::MAX),
                }))
            }
            other => Err(format!(
                "{} is not an axis; expected {AXIS_FORMS}",
                crate::error::as_written(other)
            )),
        }
    }

    /// The number of values, without computing them.
    pub fn len(&self) -> usize {
        match self {
            Axis::List(v) => v.len(),
            Axis::Range(r) => r.n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn values(&self) -> Vec<f64> {
        match self {
            Axis::List(v) => v.clone(),
            Axis::Range(r) if r.n == 1 => vec![r.min],
            Axis::Range(r) => (0..r.n)
                .map(|i| r.min + (r.max - r.min) * i as f64 / (r.n - 1) as f64)
                .collect(),
        }
    }

    /// Check the axis given under `key` (e.g. `sweep.mu`).
    pub fn validate(&self, key: &str) -> Result<(), SimError> {
        match self {
            Axis::List(v) if v.is_empty() => {
                Err(SimError::invalid(key, "[]", "list at least one value"))
            }
            Axis::List(v) => {
                v.iter()
                    .try_for_each(|x| require_finite(key, *x).map(|_| ()))?;
                // A value listed twice would run its points twice and report them twice. Sorted
                // (a list may hold 10⁵ values), equal values are neighbours.
                let mut sorted = v.clone();
                sorted.sort_by(f64::total_cmp);
                match sorted.windows(2).find(|w| w[0] == w[1]).map(|w| &w[0]) {
                    Some(x) => Err(SimError::invalid(
                        key,
                        crate::error::as_written(v),
                        &format!(
                            "{} is listed twice; list each value once",
                            crate::error::number_text(*x)
                        ),
                    )),
                    None => Ok(()),
                }
            }
            Axis::Range(r) => {
                require_finite(&format!("{key}.min"), r.min)?;
                require_finite(&format!("{key}.max"), r.max)?;
                if r.n == 0 || r.n > MAX_AXIS_VALUES {
                    return Err(SimError::invalid(
                        &format!("{key}.n"),
                        r.n,
                        &format!("must be between 1 and {MAX_AXIS_VALUES}"),
                    ));
                }
                if r.max < r.min {
                    return Err(SimError::invalid(
                        &format!("{key}.max"),
                        r.max,
                        &format!("must be >= {key}.min"),
                    ));
                }
                if r.n == 1 && r.max != r.min {
                    return Err(SimError::invalid(
                        &format!("{key}.n"),
                        1,
                        &format!("one value of a range from {key}.min to {key}.max is min alone: set n >= 2, or max = min"),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// A logarithmic grid from `max` down to `min` with `per_decade` points per decade.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct LogGrid {
    pub min: f64,
    pub max: f64,
    pub per_decade: u32,
}

/// What a κ ladder's table holds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogGridTable {
    min: f64,
    max: f64,
    per_decade: u32,
}

/// A κ ladder is read from a table only: serde's derive would also read a list as its fields in
/// order, so that `kappa = [1e-8, 1e-6, 2]` (meant as κ values) ran the ladder 1e-8 … 1e-6 at 2
/// per decade.
impl<'de> Deserialize<'de> for LogGrid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ladder;
        impl<'de> serde::de::Visitor<'de> for Ladder {
            type Value = LogGrid;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a κ ladder { min = …, max = …, per_decade = … } (a table, not a list; one κ: min = max)",
                )
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<LogGrid, A::Error> {
                let t =
                    LogGridTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(LogGrid {
                    min: t.min,
                    max: t.max,
                    per_decade: t.per_decade,
                })
            }
        }
        deserializer.deserialize_map(Ladder)
    }
}

impl LogGrid {
    /// The number of values, without computing them (valid grids only).
    pub fn len(&self) -> usize {
        ((self.max.log10() - self.min.log10()) * f64::from(self.per_decade) + 1e-9).floor() as usize
            + 1
    }

    pub fn is_empty(&self) -> bool {
        false
    }

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
    /// Raise the limit on the number of points ([`MAX_POINTS`]) for a deliberately large grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_points: Option<u64>,
    /// The window of a fast-time run, in s = t/√κ (the mode table: each run lasts
    /// `window_scaled·√κ`); models without a fast-time analysis refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_scaled: Option<f64>,
    /// Step guard of each run (default 2,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<usize>,
    /// The end of each run of a system that runs to a fixed time (a described system; without
    /// it, a run ends when the contact opens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Event guard of each run (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<usize>,
}

impl SolverSpec {
    /// Check the solver settings of a grid of `points` configurations × κ values, each run by
    /// every listed integrator: at least one integrator, the grid's size, the tolerances, the
    /// guards.
    pub fn validate(&self, points: u128) -> Result<(), SimError> {
        if self.integrators.is_empty() {
            return Err(SimError::invalid(
                "solver.integrators",
                "[]",
                "list at least one integrator",
            ));
        }
        self.check_work(points.saturating_mul(self.integrators.len() as u128))?;
        crate::error::require_rtol("solver.rtol", self.rtol)?;
        crate::error::require_atol("solver.atol", self.atol)?;
        crate::error::require_guard("solver.max_steps", self.max_steps)?;
        crate::error::require_guard("solver.max_events", self.max_events)?;
        if let Some(t) = self.t_max {
            crate::error::require_positive("solver.t_max", t)?;
        }
        if let Some(t) = self.t_end {
            crate::error::require_positive("solver.t_end", t)?;
        }
        if self.t_max.is_some() && self.t_end.is_some() {
            return Err(SimError::invalid(
                "solver.t_max",
                crate::error::number_text(self.t_max.unwrap_or_default()),
                "a run with solver.t_end ends there; t_max limits a run that ends when the contact opens; remove one",
            ));
        }
        Ok(())
    }

    /// A key that the runs of `model` would ignore (not among `used`, of `t_max`,
    /// `window_scaled`, `max_steps`, `max_events` and `t_end`) is an error, not a silent no-op.
    pub(crate) fn refuse_unused_keys(&self, model: &str, used: &[&str]) -> Result<(), SimError> {
        let set = [
            ("t_max", self.t_max.map(crate::error::number_text)),
            (
                "window_scaled",
                self.window_scaled.map(crate::error::number_text),
            ),
            ("max_steps", self.max_steps.map(|n| n.to_string())),
            ("max_events", self.max_events.map(|n| n.to_string())),
            ("t_end", self.t_end.map(crate::error::number_text)),
        ];
        for (key, value) in set {
            if let Some(value) = value.filter(|_| !used.contains(&key)) {
                let uses = if used.is_empty() {
                    "none of t_max, window_scaled, max_steps, max_events, t_end".to_string()
                } else {
                    used.join(", ")
                };
                return Err(SimError::invalid(
                    &format!("solver.{key}"),
                    value,
                    &format!("model {model} does not use it (its runs use {uses}); remove the key"),
                ));
            }
        }
        Ok(())
    }

    /// Refuse duplicate integrators, and a grid of `points` points above the limit, before
    /// anything is allocated.
    pub(crate) fn check_work(&self, points: u128) -> Result<(), SimError> {
        for (i, a) in self.integrators.iter().enumerate() {
            if self.integrators[..i].contains(a) {
                return Err(SimError::invalid(
                    "solver.integrators",
                    crate::error::as_written(&self.integrators),
                    &format!("{a} is listed twice; list each integrator once"),
                ));
            }
        }
        let limit = self.max_points.map_or(MAX_POINTS, u128::from);
        if points > limit {
            return Err(SimError::invalid(
                "sweep",
                format!("{points} points"),
                &format!("at most {limit} points run unless [solver] max_points raises the limit; narrow an axis or split the experiment"),
            ));
        }
        Ok(())
    }
}

impl LogGrid {
    /// Check the grid given under `key` (e.g. `sweep.kappa`).
    pub fn validate(&self, key: &str) -> Result<(), SimError> {
        crate::error::require_positive(&format!("{key}.min"), self.min)?;
        crate::error::require_positive(&format!("{key}.max"), self.max)?;
        if self.max < self.min {
            return Err(SimError::invalid(
                &format!("{key}.max"),
                self.max,
                &format!("must be >= {key}.min"),
            ));
        }
        if self.per_decade == 0 || self.per_decade > 1000 {
            return Err(SimError::invalid(
                &format!("{key}.per_decade"),
                self.per_decade,
                "must be between 1 and 1000",
            ));
        }
        if self.len() > MAX_AXIS_VALUES {
            return Err(SimError::invalid(
                &format!("{key}.min"),
                crate::error::number_text(self.min),
                &format!(
                    "the ladder would have {} values (at most {MAX_AXIS_VALUES}); narrow it or take fewer per decade",
                    self.len()
                ),
            ));
        }
        Ok(())
    }
}

/// Where one parameter of a model's grid comes from: fixed (in `[params]` or an entry of
/// `[sweep] states`) or swept (an axis in `[sweep]`) — not both.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a, A> {
    /// The key, as written in the file.
    pub name: &'static str,
    pub fixed: Option<f64>,
    pub axis: Option<&'a A>,
    /// Whether the model has no default for it.
    pub required: bool,
}

/// The number of states of a grid (an upper bound), counted without building them: the
/// entries of `[sweep] states` × the fast `starts` × the length of every swept axis (an
/// absent or empty list counts once).
pub fn grid_size<A, S, T>(
    sources: &[Source<'_, A>],
    axis_len: impl Fn(&A) -> usize,
    states: Option<&[S]>,
    starts: Option<&[T]>,
) -> u128 {
    let states = states.map_or(1, |s| s.len().max(1)) as u128;
    let starts = starts.map_or(1, |s| s.len().max(1)) as u128;
    sources
        .iter()
        .filter_map(|s| s.axis.map(|a| axis_len(a) as u128))
        .fold(states.saturating_mul(starts), u128::saturating_mul)
}

/// Check that every parameter has one source and the required ones are given, and validate
/// the axes (`validate_axis(axis, "sweep.NAME")`).
pub(crate) fn check_sources<A>(
    sources: &[Source<'_, A>],
    validate_axis: impl Fn(&A, &str) -> Result<(), SimError>,
) -> Result<(), SimError> {
    for s in sources {
        let name = s.name;
        match (s.fixed, s.axis) {
            (Some(_), Some(_)) => {
                return Err(SimError::invalid(
                    &format!("sweep.{name}"),
                    "both",
                    &format!(
                        "params.{name} (or a sweep.states entry) also gives it; keep one of the two"
                    ),
                ))
            }
            (None, None) if s.required => {
                return Err(SimError::invalid(
                    &format!("params.{name}"),
                    "missing",
                    &format!(
                        "give it in [params] or sweep it in [sweep] ({name} = [..] or {{ min, max, n }})"
                    ),
                ))
            }
            (_, Some(a)) => validate_axis(a, &format!("sweep.{name}"))?,
            _ => {}
        }
    }
    Ok(())
}

/// `[params]` merged with each entry of `[sweep] states` ([`merge_state`]); just `[params]`
/// without a list.
pub(crate) fn merged_states<P: Clone + Serialize + serde::de::DeserializeOwned>(
    params: &P,
    states: Option<&[P]>,
) -> Result<Vec<P>, SimError> {
    match states {
        None => Ok(vec![params.clone()]),
        Some([]) => Err(SimError::invalid(
            "sweep.states",
            "[]",
            "list at least one state, or leave the key out",
        )),
        Some(states) => states
            .iter()
            .enumerate()
            .map(|(i, state)| merge_state(params, state, "sweep.states", i))
            .collect(),
    }
}

/// One entry of a list of explicit states (`[sweep] states = [{ … }, …]`): a partial table of a
/// model's parameters (every field optional) merged over `[params]`. Each key has one source: a
/// key given in both is an error naming `{list_key}[{index}].{key}`.
pub(crate) fn merge_state<P: Serialize + serde::de::DeserializeOwned>(
    params: &P,
    state: &P,
    list_key: &str,
    index: usize,
) -> Result<P, SimError> {
    let internal = |e: serde_json::Error| SimError::invalid(list_key, index, &e.to_string());
    let mut base = serde_json::to_value(params).map_err(internal)?;
    let over = serde_json::to_value(state).map_err(internal)?;
    if let (Some(base), Some(over)) = (base.as_object_mut(), over.as_object()) {
        for (key, value) in over.iter().filter(|(_, v)| !v.is_null()) {
            if base.get(key).is_some_and(|b| !b.is_null()) {
                return Err(SimError::invalid(
                    &format!("{list_key}[{index}].{key}"),
                    crate::error::as_written(value),
                    &format!("params.{key} is also given; keep one of the two"),
                ));
            }
            base.insert(key.clone(), value.clone());
        }
    }
    serde_json::from_value(base).map_err(internal)
}

/// Refuse a number anywhere in an experiment file (`table`, its keys dotted, list items
/// indexed: `sweep.starts[1].Y0`) that is not finite or beyond [`crate::error::LARGEST_INPUT`]
/// in size, before any model reads it: one rule for every key of every model. A non-finite
/// number would otherwise pass through JSON as null and read as "not given" (a default silently
/// in its place).
pub(crate) fn refuse_unrepresentable_numbers(table: &toml::Table) -> Result<(), SimError> {
    fn walk(value: &toml::Value, key: &str) -> Result<(), SimError> {
        match value {
            toml::Value::Float(x) => crate::error::require_representable(key, *x).map(|_| ()),
            toml::Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, v)| walk(v, &format!("{key}[{i}]"))),
            toml::Value::Table(t) => t.iter().try_for_each(|(k, v)| {
                let path = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                walk(v, &path)
            }),
            _ => Ok(()),
        }
    }
    table.iter().try_for_each(|(k, v)| walk(v, k))
}

/// Deserialize TOML text (unknown keys rejected by the type) and validate it.
pub(crate) fn parse_validated<T: serde::de::DeserializeOwned>(
    text: &str,
    validate: impl Fn(&T) -> Result<(), SimError>,
) -> Result<T, SpecError> {
    validated(toml::from_str(text), validate)
}

/// [`parse_validated`] of a TOML table already read (an experiment whose parts come from several
/// files).
pub(crate) fn from_table_validated<T: serde::de::DeserializeOwned>(
    table: toml::Table,
    validate: impl Fn(&T) -> Result<(), SimError>,
) -> Result<T, SpecError> {
    validated(toml::Value::Table(table).try_into(), validate)
}

/// A deserialized experiment file (`parsed`), its TOML error on one line, then `validate`d.
fn validated<T>(
    parsed: Result<T, toml::de::Error>,
    validate: impl Fn(&T) -> Result<(), SimError>,
) -> Result<T, SpecError> {
    let value = parsed.map_err(|e| SpecError::Parse {
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
pub(crate) fn validate_name(name: &str) -> Result<(), SimError> {
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
    pub fn at(self, path: &Path) -> Self {
        let path = path.display().to_string();
        match self {
            SpecError::Parse { message, .. } => SpecError::Parse { path, message },
            SpecError::Invalid { source, .. } => SpecError::Invalid { path, source },
            other => other,
        }
    }
}

/// How a run computes the motion: the layer above the integrator kind. A compliant run
/// integrates the penalty model at one κ with one of the integrators; a rigid run follows the
/// event-driven rigid-contact formulation (impacts as reset maps); an incremental run solves a
/// rate-independent incremental problem step by step. Models that offer more than one take it
/// from the key `method` and write it in a `method` column.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum MethodKind {
    #[default]
    Compliant,
    Rigid,
    Incremental,
}

impl MethodKind {
    pub const ALL: [MethodKind; 3] = [
        MethodKind::Compliant,
        MethodKind::Rigid,
        MethodKind::Incremental,
    ];

    /// The word in experiment files and tables.
    pub fn name(self) -> &'static str {
        match self {
            MethodKind::Compliant => "compliant",
            MethodKind::Rigid => "rigid",
            MethodKind::Incremental => "incremental",
        }
    }
}

impl std::fmt::Display for MethodKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for MethodKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MethodKind::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown method '{s}': use compliant, rigid or incremental"))
    }
}

/// The TOML text of a JSON object (an experiment or a description given as a dictionary by the
/// Python package): the same keys and tables, so it parses with the file's grammar and its
/// messages. A `null` or a top level that is not an object is refused.
pub fn toml_text_of_json(json: &str) -> Result<String, String> {
    let table: toml::Table = serde_json::from_str(json).map_err(|e| {
        format!("not an experiment or system table: {e} (give a dict of TOML values, no None)")
    })?;
    toml::to_string(&table).map_err(|e| e.to_string().trim().replace('\n', " "))
}
