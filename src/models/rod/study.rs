//! The integrator study: scenarios × κ × integrators × a ladder of tolerances, each run repeated
//! for a stable median wall time, plus reference runs (two methods at the tightest tolerance) to
//! measure errors against. A `kind = "integrator_study"` TOML file; run by the same runner.

use crate::compliant::{Event, SimulationOptions};
use crate::error::{require_finite, require_positive, require_rtol, SimError};
use crate::experiment::grammar::LogGrid;
use crate::experiment::runner::{Plan, Points};
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::models::rod::mechanics::THETA;
use crate::models::rod::scenario::{RodImpact, Scenario};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::study::work_precision::repeated_wall_times;
pub use crate::study::work_precision::ReferenceSpec;

/// Fixed-time states recorded per run (columns `state_1` … `state_4`).
pub const MAX_OUTPUTS: usize = 4;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StudyKind {
    IntegratorStudy,
}

/// An integrator-study file. Unknown keys are rejected.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    pub name: String,
    pub kind: StudyKind,
    pub integrators: Vec<IntegratorKind>,
    /// The tolerance ladder (loosest first).
    pub rtol: LogGrid,
    /// atol = atol_per_rtol × rtol, on the contact-scaled state (docs/tolerances.md).
    #[serde(default = "one")]
    pub atol_per_rtol: f64,
    /// At most this many runs per point (see [`crate::study::work_precision::REPEAT_BUDGET_S`]).
    pub repeats: usize,
    pub reference: ReferenceSpec,
    /// `[[scenario]]` tables.
    #[serde(rename = "scenario")]
    pub scenarios: Vec<ScenarioSpec>,
    /// Step guard of each run (default 2,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<usize>,
    /// Event guard of each run (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<usize>,
    /// Committed calibration of the recommendation's cost model: each integrator's wall time
    /// per unit of work (RHS + JVP + LU counts), in ns, as measured by an earlier run of the
    /// study (its "time per work unit" table). With it the recommendation is a function of the
    /// deterministic counts alone; without it, this run's own measurement is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_per_work_ns: Option<std::collections::BTreeMap<String, f64>>,
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    Impact,
    Sustained,
    Drop,
}

/// A number, a list, or (for κ) a log grid.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Values {
    One(f64),
    List(Vec<f64>),
    Grid(LogGrid),
}

impl Values {
    pub fn values(&self) -> Vec<f64> {
        match self {
            Values::One(v) => vec![*v],
            Values::List(v) => v.clone(),
            Values::Grid(g) => g.values(),
        }
    }
}

/// One `[[scenario]]`: the rod's parameters, κ and c_d (each one value or several).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Label in the outputs (unique).
    pub name: String,
    pub kind: ScenarioKind,
    pub kappa: Values,
    pub mu: f64,
    /// Default: `mu`.
    pub mu_s: Option<f64>,
    pub theta0: f64,
    #[serde(default)]
    pub omega0: f64,
    pub u0: f64,
    /// Default 0.
    pub damping: Option<Values>,
    /// Drop height (kind = drop).
    pub height: Option<f64>,
    /// End time (kind = sustained or drop).
    pub t_end: Option<f64>,
    /// Times at which the state is compared with the reference (at most 4, in (0, t_end]).
    #[serde(default)]
    pub output_times: Vec<f64>,
}

impl ScenarioSpec {
    fn dampings(&self) -> Vec<f64> {
        self.damping.as_ref().map_or(vec![0.0], Values::values)
    }

    /// The scenario at (κ, c_d).
    pub fn at(&self, kappa: f64, damping: f64) -> Scenario {
        let rod = RodImpact {
            kappa,
            mu: self.mu,
            mu_s: self.mu_s.unwrap_or(self.mu),
            theta0: self.theta0,
            omega0: self.omega0,
            u0: self.u0,
            damping,
            ..RodImpact::zhao_liu(kappa)
        };
        let t_end = self.t_end.unwrap_or(f64::NAN);
        match self.kind {
            ScenarioKind::Impact => Scenario::Impact(rod),
            ScenarioKind::Sustained => Scenario::Sustained { rod, t_end },
            ScenarioKind::Drop => Scenario::Drop {
                rod,
                height: self.height.unwrap_or(f64::NAN),
                t_end,
            },
        }
    }

    fn validate(&self, i: usize) -> Result<(), SimError> {
        let key = |field: &str| format!("scenario[{i}].{field}");
        let needs = |field: &str, v: Option<f64>, allowed: bool| match (v, allowed) {
            (None, true) => Err(SimError::invalid(
                &key(field),
                "missing",
                &format!(
                    "a {} scenario needs it",
                    crate::error::as_written(&self.kind)
                ),
            )),
            (Some(_), false) => Err(SimError::invalid(
                &key(field),
                "given",
                &format!(
                    "a {} scenario does not use it; remove it",
                    crate::error::as_written(&self.kind)
                ),
            )),
            _ => Ok(()),
        };
        let fixed_time = self.kind != ScenarioKind::Impact;
        needs("t_end", self.t_end, fixed_time)?;
        needs("height", self.height, self.kind == ScenarioKind::Drop)?;
        if !fixed_time && !self.output_times.is_empty() {
            return Err(SimError::invalid(
                &key("output_times"),
                crate::error::as_written(&self.output_times),
                "an impact ends at separation; fixed-time states need kind = sustained or drop",
            ));
        }
        if self.output_times.len() > MAX_OUTPUTS {
            return Err(SimError::invalid(
                &key("output_times"),
                self.output_times.len(),
                &format!("at most {MAX_OUTPUTS} output times"),
            ));
        }
        let t_end = self.t_end.unwrap_or(f64::INFINITY);
        let mut last = 0.0;
        for &t in &self.output_times {
            require_finite(&key("output_times"), t)?;
            if !(t > last && t <= t_end) {
                return Err(SimError::invalid(
                    &key("output_times"),
                    t,
                    "output times must increase and lie in (0, t_end]",
                ));
            }
            last = t;
        }
        if let Values::Grid(g) = &self.kappa {
            require_positive(&key("kappa.min"), g.min)?;
            require_positive(&key("kappa.max"), g.max)?;
            if g.per_decade == 0 || g.max < g.min {
                return Err(SimError::invalid(
                    &key("kappa"),
                    format!("{g:?}"),
                    "need min <= max and per_decade >= 1",
                ));
            }
        }
        let (kappas, dampings) = (self.kappa.values(), self.dampings());
        if kappas.is_empty() || dampings.is_empty() {
            return Err(SimError::invalid(
                &key(if kappas.is_empty() {
                    "kappa"
                } else {
                    "damping"
                }),
                "[]",
                "give at least one value",
            ));
        }
        for &kappa in &kappas {
            for &damping in &dampings {
                self.at(kappa, damping).validate(|name| key(name))?;
            }
        }
        Ok(())
    }
}

/// One run of the study.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyPoint {
    pub id: usize,
    /// Index into [`StudySpec::scenarios`].
    pub scenario_index: usize,
    pub scenario: Scenario,
    pub integrator: IntegratorKind,
    pub rtol: f64,
    pub atol: f64,
    /// A reference run (tightest tolerance), not a point of the ladder.
    pub reference: bool,
}

/// Column names of a study's runs.csv.
pub const STUDY_COLUMNS: &[&str] = &[
    "point_id",
    "scenario",
    "kind",
    "role",
    "kappa",
    "mu",
    "mu_s",
    "theta0",
    "omega0",
    "u0",
    "damping",
    "height",
    "t_end",
    "integrator",
    "rtol",
    "atol",
    "status",
    "error",
    "mode_sequence",
    "n_events",
    "n_contacts",
    "t_slide",
    "t_stick",
    "t_reverse_slip",
    "u_out",
    "v_out",
    "omega_out",
    "state_1",
    "state_2",
    "state_3",
    "state_4",
    "steps",
    "rejected_steps",
    "rhs_evals",
    "jvp_evals",
    "jacobian_evals",
    "lu_factorisations",
    "newton_iterations",
    "repeats",
    "wall_time_s",
    "wall_time_min_s",
];

/// The `state_k` columns: `t x_A y_A θ ẋ_A ẏ_A θ̇`, space-separated.
pub const STATE_COLUMNS: [&str; MAX_OUTPUTS] = ["state_1", "state_2", "state_3", "state_4"];

impl StudySpec {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, crate::experiment::grammar::SpecError> {
        crate::experiment::grammar::parse_validated(text, Self::validate)
    }

    fn validate(&self) -> Result<(), SimError> {
        crate::experiment::grammar::validate_name(&self.name)?;
        if self.integrators.is_empty() {
            return Err(SimError::invalid(
                "integrators",
                "[]",
                "list at least one integrator",
            ));
        }
        let g = &self.rtol;
        require_rtol("rtol.min", g.min)?;
        require_rtol("rtol.max", g.max)?;
        if g.per_decade == 0 || g.max < g.min {
            return Err(SimError::invalid(
                "rtol",
                format!("{g:?}"),
                "need min <= max and per_decade >= 1",
            ));
        }
        require_positive("atol_per_rtol", self.atol_per_rtol)?;
        crate::error::require_guard("max_steps", self.max_steps)?;
        crate::error::require_guard("max_events", self.max_events)?;
        if self.repeats == 0 {
            return Err(SimError::invalid("repeats", 0, "must be >= 1"));
        }
        if let Some(calibration) = &self.time_per_work_ns {
            for (name, &ns) in calibration {
                let key = format!("time_per_work_ns.{name}");
                let known = name
                    .parse::<IntegratorKind>()
                    .is_ok_and(|k| self.integrators.contains(&k));
                if !known {
                    return Err(SimError::invalid(
                        &key,
                        ns,
                        "name an integrator of `integrators`",
                    ));
                }
                require_positive(&key, ns)?;
            }
            if let Some(missing) = self
                .integrators
                .iter()
                .find(|k| !calibration.contains_key(&k.to_string()))
            {
                return Err(SimError::invalid(
                    "time_per_work_ns",
                    crate::error::as_written(&calibration.keys().collect::<Vec<_>>()),
                    &format!(
                        "give {missing} too (copy the \"time per work unit\" table of a run \
                         without time_per_work_ns)"
                    ),
                ));
            }
        }
        self.reference.validate("reference", g.min)?;
        if self.scenarios.is_empty() {
            return Err(SimError::invalid(
                "scenario",
                "none",
                "add at least one [[scenario]] table",
            ));
        }
        for (i, s) in self.scenarios.iter().enumerate() {
            if self.scenarios[..i].iter().any(|o| o.name == s.name) {
                return Err(SimError::invalid(
                    &format!("scenario[{i}].name"),
                    &s.name,
                    "scenario names must be unique",
                ));
            }
            s.validate(i)?;
        }
        Ok(())
    }

    pub fn atol(&self, rtol: f64) -> f64 {
        self.atol_per_rtol * rtol
    }

    /// Every configuration (scenario index, scenario), in output order: scenarios as listed,
    /// then c_d, then κ from large to small.
    pub fn configurations(&self) -> Vec<(usize, Scenario)> {
        let mut out = Vec::new();
        for (i, s) in self.scenarios.iter().enumerate() {
            for damping in s.dampings() {
                for kappa in s.kappa.values() {
                    out.push((i, s.at(kappa, damping)));
                }
            }
        }
        out
    }
}

impl StudySpec {
    /// Per configuration: the two reference runs, then every integrator × tolerance.
    pub fn points(&self) -> Vec<StudyPoint> {
        let mut out = Vec::new();
        for (scenario_index, scenario) in self.configurations() {
            let mut push = |integrator, rtol, reference| {
                out.push(StudyPoint {
                    id: out.len(),
                    scenario_index,
                    scenario,
                    integrator,
                    rtol,
                    atol: self.atol(rtol),
                    reference,
                })
            };
            for &integrator in &self.reference.integrators {
                push(integrator, self.reference.rtol, true);
            }
            for &integrator in &self.integrators {
                for rtol in self.rtol.values() {
                    push(integrator, rtol, false);
                }
            }
        }
        out
    }
}

impl Plan for StudySpec {
    type Point = StudyPoint;

    fn name(&self) -> &str {
        &self.name
    }

    fn columns(&self) -> Vec<&'static str> {
        STUDY_COLUMNS.to_vec()
    }

    fn points(&self) -> Points<'_, StudyPoint> {
        Box::new(StudySpec::points(self).into_iter())
    }

    fn point_id(&self, point: &StudyPoint) -> usize {
        point.id
    }

    fn input_row(&self, p: &StudyPoint) -> Row {
        study_row_inputs(self, p)
    }

    fn run_point(&self, p: &StudyPoint) -> Row {
        let spec = &self.scenarios[p.scenario_index];
        let mut options = SimulationOptions::new(p.integrator, p.rtol, p.atol).with_guards(
            None,
            self.max_steps,
            self.max_events,
        );
        options.output_times = spec.output_times.clone();
        let mut row = study_row_inputs(self, p);
        let first = p.scenario.simulate(&options);
        let mut put = |k: &'static str, v: String| {
            row.fields.insert(k, v);
        };
        let record = match first {
            Err(e) => {
                put("status", "error".into());
                put("error", e.to_string());
                return row;
            }
            Ok(r) => r,
        };
        let mut times = repeated_wall_times(record.stats.wall_time_s, self.repeats, || {
            p.scenario
                .simulate(&options)
                .ok()
                .map(|r| r.stats.wall_time_s)
        });
        let median = crate::analysis::work_precision::median(&mut times);
        put("status", "ok".into());
        let sequence: Vec<_> = record.modes.iter().map(|m| m.mode.name()).collect();
        put("mode_sequence", sequence.join(">"));
        put("n_events", record.events.len().to_string());
        let contacts = record
            .events
            .iter()
            .filter(|e| e.event == Event::ContactCloses)
            .count();
        put("n_contacts", contacts.to_string());
        put("t_slide", record.durations.slide.to_string());
        put("t_stick", record.durations.stick.to_string());
        put("t_reverse_slip", record.durations.reverse_slip.to_string());
        if let Some(out) = &record.post_impact {
            put("u_out", out.u.to_string());
            put("v_out", out.v.to_string());
            put("omega_out", out.qdot[THETA].to_string());
        }
        for (col, sample) in STATE_COLUMNS.iter().zip(&record.outputs) {
            let cells: Vec<String> = std::iter::once(sample.t)
                .chain(sample.q.iter().copied())
                .chain(sample.qdot.iter().copied())
                .map(|v| v.to_string())
                .collect();
            put(col, cells.join(" "));
        }
        for (k, v) in crate::experiment::table::stat_fields(&record.stats) {
            put(k, v);
        }
        put("repeats", times.len().to_string());
        put("wall_time_s", median.to_string());
        put("wall_time_min_s", times[0].to_string());
        row
    }

    fn describe(&self, p: &StudyPoint) -> String {
        format!(
            "{} {} κ = {:.0e} rtol {:.0e}",
            self.scenarios[p.scenario_index].name,
            p.integrator,
            p.scenario.rod().kappa,
            p.rtol
        )
    }

    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// A row holding only the inputs of `p` (what identifies the run).
fn study_row_inputs(spec: &StudySpec, p: &StudyPoint) -> Row {
    let mut f: BTreeMap<&'static str, String> = BTreeMap::new();
    let rod = p.scenario.rod();
    f.insert("point_id", p.id.to_string());
    f.insert("scenario", spec.scenarios[p.scenario_index].name.clone());
    f.insert("kind", p.scenario.name().to_string());
    f.insert(
        "role",
        if p.reference { "reference" } else { "ladder" }.to_string(),
    );
    for (k, v) in [
        ("kappa", rod.kappa),
        ("mu", rod.mu),
        ("mu_s", rod.mu_s),
        ("theta0", rod.theta0),
        ("omega0", rod.omega0),
        ("u0", rod.u0),
        ("damping", rod.damping),
        ("rtol", p.rtol),
        ("atol", p.atol),
    ] {
        f.insert(k, v.to_string());
    }
    match p.scenario {
        Scenario::Impact(_) => {}
        Scenario::Sustained { t_end, .. } => {
            f.insert("t_end", t_end.to_string());
        }
        Scenario::Drop { height, t_end, .. } => {
            f.insert("height", height.to_string());
            f.insert("t_end", t_end.to_string());
        }
    }
    f.insert("integrator", p.integrator.to_string());
    Row {
        point_id: p.id,
        fields: f.into_iter().collect(),
    }
}
