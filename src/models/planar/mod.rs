//! Champneys–Várkonyi's planar single contact with constant data (`model = "planar"`): the
//! system is given by its projected scalars a, b, A, B, C ([`mechanics`]), the contact by μ
//! (static = kinetic) and the damping c_d, the start by the slip velocity u0 and the fast state
//! (Y0, V0). Its fast-time dynamics ([`FastContact`]) run C–V's mode table
//! ([`crate::study::fast::mode_table`], docs/champneys_varkonyi.md: run to s = t/√κ =
//! `[solver] window_scaled`, classify by the outcome rule, compare the outcome sets with
//! Table 3; the default analysis), the lift-off/IWC basin ([`crate::study::fast::basin`]), the
//! stick/lift-off basin of a state at rest, which scans `sweep.Y0` and `sweep.V0`
//! ([`crate::study::fast::stick_basin`]) and the phase portraits
//! ([`crate::study::fast::portraits`]); the oblique impact and chatter are models in this
//! folder.
//!
//! ```toml
//! model = "planar"
//! analysis = "mode_table"
//! [params]          # any key fixed here, swept in [sweep], or set per entry of sweep.states
//! a = 0.0
//! b = 1.0
//! A = 1.0
//! B = 0.8
//! C = 1.0
//! mu = 2.0
//! u0 = 1.0
//! damping = 1.0     # c_d (C–V's k = −1, q = −c_d); default 1
//! [sweep]
//! kappa = { min = 1e-12, max = 1e-8, per_decade = 1 }
//! starts = [{ Y0 = 0, V0 = 0 }, { Y0 = -2, V0 = 0 }]   # or Y0, V0 in [params] / as axes
//! [solver]
//! integrators = ["tsit45"]
//! rtol = 1e-10
//! atol = 1e-20
//! window_scaled = 200
//! ```

pub mod chatter;
pub mod chatter_report;
pub mod mechanics;
pub mod oblique_impact;
pub mod oblique_impact_report;

/// The oblique impact as a system of the harness (oblique_impact.rs; its report:
/// oblique_impact_report.rs, which names it from here, not from its sibling).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarObliqueImpact;

/// Chatter and reverse chatter as a system of the harness (chatter.rs; its report:
/// chatter_report.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarChatter;

use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::{require_representable_start, require_resolvable_damping};
use crate::error::{require_finite, require_positive, SimError};
use crate::experiment::grammar::{Axis, LogGrid, SolverSpec, Source};
use crate::experiment::grid::ParameterGrid;
use crate::experiment::rows::Cells;
use crate::model::iwc::FastStart;
use crate::study::fast::{self, FastContact};
use mechanics::ConstantPlanar;
use serde::{Deserialize, Serialize};

/// The planar single contact with constant data: its fast-time dynamics ([`FastContact`]) for
/// the fast-time studies; the oblique impact and chatter are models of their own (below).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planar;

/// `[params]` (and each entry of `[sweep] states`): C–V's symbols. Every key may instead be an
/// axis in `[sweep]`; each key has one source.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// a: free tangential acceleration.
    pub a: Option<f64>,
    /// b: free normal acceleration.
    pub b: Option<f64>,
    /// A = cᵀM⁻¹c > 0.
    #[serde(rename = "A")]
    pub tangential_mobility: Option<f64>,
    /// B = cᵀM⁻¹d.
    #[serde(rename = "B")]
    pub cross_mobility: Option<f64>,
    /// C = dᵀM⁻¹d > 0 (AC > B²).
    #[serde(rename = "C")]
    pub normal_mobility: Option<f64>,
    /// Coulomb μ > 0 (static = kinetic).
    pub mu: Option<f64>,
    /// Initial slip velocity u0.
    pub u0: Option<f64>,
    /// Fast initial gap Y0 = y0/κ (default 0).
    #[serde(rename = "Y0")]
    pub y0: Option<f64>,
    /// Fast initial normal velocity V0 = v0/√κ (default 0).
    #[serde(rename = "V0")]
    pub v0: Option<f64>,
    /// Damping c_d ≥ 0 of λ_N = −Y − c_d V (default 1: C–V's k = q = −1).
    pub damping: Option<f64>,
}

/// `[sweep]`: κ, any parameter as an axis, explicit states and fast starts.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub kappa: LogGrid,
    pub a: Option<Axis>,
    pub b: Option<Axis>,
    #[serde(rename = "A")]
    pub tangential_mobility: Option<Axis>,
    #[serde(rename = "B")]
    pub cross_mobility: Option<Axis>,
    #[serde(rename = "C")]
    pub normal_mobility: Option<Axis>,
    pub mu: Option<Axis>,
    pub u0: Option<Axis>,
    #[serde(rename = "Y0")]
    pub y0: Option<Axis>,
    #[serde(rename = "V0")]
    pub v0: Option<Axis>,
    pub damping: Option<Axis>,
    /// Explicit states, each a table of the keys above merged over `[params]`.
    pub states: Option<Vec<Params>>,
    /// Explicit fast starts `{ Y0 = …, V0 = … }`, crossed with everything else.
    pub starts: Option<Vec<FastStart>>,
}

/// One run's state: the system, the contact and the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarState {
    pub system: ConstantPlanar,
    pub mu: f64,
    pub u0: f64,
    pub damping: f64,
    pub start: FastStart,
}

/// The default damping: C–V's k = q = −1 (their law while the contact is closed).
pub(crate) const DEFAULT_DAMPING: f64 = 1.0;

impl PlanarState {
    fn friction(&self) -> Coulomb {
        Coulomb {
            mu: self.mu,
            mu_s: self.mu,
        }
    }

    /// Touching (y = 0) with v = 0 and slip velocity u0: where the rigid data are evaluated.
    fn contact_state(&self) -> ([f64; 2], [f64; 2]) {
        ([0.0, 0.0], [self.u0, 0.0])
    }

    /// The initial state at compliance κ: gap κY0, normal velocity √κV0.
    fn initial_state(&self, kappa: f64) -> ([f64; 2], [f64; 2]) {
        let (gap, v) = self.start.unscaled(kappa);
        ([0.0, gap], [self.u0, v])
    }

    /// Check the state at the ladder's largest κ, `kappa_max`; `key` maps a parameter to the
    /// key that set it.
    fn validate(&self, kappa_max: f64, key: impl Fn(&str) -> String) -> Result<(), SimError> {
        let s = &self.system;
        require_finite(&key("a"), s.free_tangential_accel)?;
        require_finite(&key("b"), s.free_normal_accel)?;
        require_positive(&key("A"), s.tangential_mobility)?;
        require_finite(&key("B"), s.cross_mobility)?;
        require_positive(&key("C"), s.normal_mobility)?;
        if s.mobility_determinant() <= 0.0 {
            return Err(SimError::invalid(
                &key("B"),
                s.cross_mobility,
                &format!(
                    "needs B² < A·C = {} (a positive-definite mass matrix, C–V (ABCD_inequals))",
                    s.tangential_mobility * s.normal_mobility
                ),
            ));
        }
        require_positive(&key("mu"), self.mu)?;
        require_finite(&key("u0"), self.u0)?;
        require_resolvable_damping(&key("damping"), self.damping)?;
        require_representable_start(&key("Y0"), self.start.gap, "sweep.kappa.max", kappa_max)?;
        require_representable_start(
            &key("V0"),
            self.start.normal_velocity,
            "sweep.kappa.max",
            kappa_max,
        )?;
        Ok(())
    }
}

/// The grid of states that `[params]` and `[sweep]` define (the fast-time studies).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanarGrid<'a> {
    pub params: &'a Params,
    pub sweep: &'a Sweep,
}

impl<'a> ParameterGrid<'a> for PlanarGrid<'a> {
    type Params = Params;
    type Axis = Axis;
    type Start = FastStart;

    fn params(&self) -> &'a Params {
        self.params
    }

    fn state_entries(&self) -> Option<&'a [Params]> {
        self.sweep.states.as_deref()
    }

    fn start_entries(&self) -> Option<&'a [FastStart]> {
        self.sweep.starts.as_deref()
    }

    /// Every parameter's source, for `[params]` merged with one state.
    fn sources(&self, p: &Params) -> Vec<Source<'a, Axis>> {
        let s = self.sweep;
        let src = |name, fixed, axis: &'a Option<Axis>, required| Source {
            name,
            fixed,
            axis: axis.as_ref(),
            required,
        };
        vec![
            src("a", p.a, &s.a, true),
            src("b", p.b, &s.b, true),
            src("A", p.tangential_mobility, &s.tangential_mobility, true),
            src("B", p.cross_mobility, &s.cross_mobility, true),
            src("C", p.normal_mobility, &s.normal_mobility, true),
            src("mu", p.mu, &s.mu, true),
            src("u0", p.u0, &s.u0, true),
            src("damping", p.damping, &s.damping, false),
            src("Y0", p.y0, &s.y0, false),
            src("V0", p.v0, &s.v0, false),
        ]
    }

    fn axis_len(axis: &Axis) -> usize {
        axis.len()
    }

    fn validate_axis(axis: &Axis, key: &str) -> Result<(), SimError> {
        axis.validate(key)
    }
}

impl<'a> PlanarGrid<'a> {
    pub fn new(params: &'a Params, sweep: &'a Sweep) -> Self {
        PlanarGrid { params, sweep }
    }

    /// Each key has one source, the required ones are given, the axes, the fast starts and
    /// every state are valid; errors name the key that set the offending value.
    pub fn validate(&self) -> Result<(), SimError> {
        let y0_v0_given = self.check_sources()?;
        let kappa_max = self.sweep.kappa.max;
        fast::check_starts(self.sweep.starts.as_deref(), y0_v0_given, kappa_max)?;
        let in_state = |index: usize, name: &str| {
            self.sweep
                .states
                .as_ref()
                .and_then(|s| s.get(index))
                .and_then(|p| serde_json::to_value(p).ok())
                .is_some_and(|v| v.get(name).is_some_and(|x| !x.is_null()))
        };
        for (state, index) in self.states() {
            state.validate(kappa_max, |name| {
                if self.is_swept(name) {
                    format!("sweep.{name}")
                } else if in_state(index, name) {
                    format!("sweep.states[{index}].{name}")
                } else {
                    format!("params.{name}")
                }
            })?;
        }
        Ok(())
    }

    /// Checks every state's closed contact against the explicit integrators' step budget
    /// ([`fast::check_explicit_steps`]); the key named is C's.
    pub(crate) fn check_explicit_steps(&self, solver: &SolverSpec) -> Result<(), SimError> {
        let window = fast::window(solver)?;
        let mut worst: Option<(f64, PlanarState, usize)> = None;
        for (state, index) in self.states() {
            let rate = fast::closed_contact_rate(state.system.normal_mobility, state.damping);
            if worst.as_ref().is_none_or(|w| rate > w.0) {
                worst = Some((rate, state, index));
            }
        }
        let Some((rate, state, index)) = worst else {
            return Ok(());
        };
        let in_state = self
            .sweep
            .states
            .as_ref()
            .and_then(|s| s.get(index))
            .and_then(|p| serde_json::to_value(p).ok())
            .is_some_and(|v| v.get("C").is_some_and(|x| !x.is_null()));
        let key = if self.sweep.normal_mobility.is_some() {
            "sweep.C".to_string()
        } else if in_state {
            format!("sweep.states[{index}].C")
        } else {
            "params.C".to_string()
        };
        fast::check_explicit_steps(solver, window, rate, &key, state.system.normal_mobility)
    }

    /// Every state of the grid with the keys that set its values: the entries of `states`,
    /// then a, b, A, B, C, μ, c_d, u0, the fast start (outermost first).
    pub fn states(&self) -> Vec<(PlanarState, usize)> {
        let mut out = Vec::new();
        let Ok(merged) = self.merged() else {
            return out;
        };
        for (index, p) in merged.iter().enumerate() {
            let sources = self.sources(p);
            let values = |i: usize, default: f64| -> Vec<f64> {
                match (sources[i].fixed, sources[i].axis) {
                    (_, Some(axis)) => axis.values(),
                    (Some(v), None) => vec![v],
                    (None, None) => vec![default],
                }
            };
            let starts = fast::fast_starts(
                self.sweep.starts.as_deref(),
                &values(8, 0.0),
                &values(9, 0.0),
            );
            for a in values(0, f64::NAN) {
                for b in values(1, f64::NAN) {
                    for aa in values(2, f64::NAN) {
                        for bb in values(3, f64::NAN) {
                            for cc in values(4, f64::NAN) {
                                for mu in values(5, f64::NAN) {
                                    for damping in values(7, DEFAULT_DAMPING) {
                                        for u0 in values(6, f64::NAN) {
                                            for &start in &starts {
                                                let system = ConstantPlanar {
                                                    free_tangential_accel: a,
                                                    free_normal_accel: b,
                                                    tangential_mobility: aa,
                                                    cross_mobility: bb,
                                                    normal_mobility: cc,
                                                };
                                                let state = PlanarState {
                                                    system,
                                                    mu,
                                                    u0,
                                                    damping,
                                                    start,
                                                };
                                                out.push((state, index));
                                            }
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
}

/// Input columns: C–V's symbols, then the fast start.
const INPUTS: &[&str] = &["a", "b", "A", "B", "C", "mu", "u0", "damping", "Y0", "V0"];

/// The columns that identify a state of the report (every input but the fast start).
const STATE_COLUMNS: &[&str] = INPUTS.split_at(8).0;

impl FastContact<2> for Planar {
    const NAME: &'static str = "planar";
    const ABOUT: &'static str =
        "Champneys–Várkonyi's planar single contact with constant data; analyses mode_table, \
         liftoff_iwc_basin, stick_liftoff_basin, phase_portraits, oblique_impact and chatter";
    const TITLE: &'static str = "C–V's planar single contact with constant data";
    const BASIN_TITLE: &'static str = "C–V's planar single contact";
    const NOUN: &'static str = "the planar system";
    const DESCRIBE: &'static str =
        "Each state is given by C–V's projected scalars (a, b, A, B, C), μ and u0; the \
         contact law is λ_N = max(−Y − c_d V, 0) in the fast variables Y = y/κ, V = v/√κ.";
    const STATE_COLUMNS: &'static [&'static str] = STATE_COLUMNS;
    const SCALARS_ARE_INPUTS: bool = true;
    type Params = Params;
    type Sweep = Sweep;
    type State = PlanarState;
    type Body = ConstantPlanar;

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn start_axes(sweep: &Sweep) -> [Option<&Axis>; 2] {
        [sweep.y0.as_ref(), sweep.v0.as_ref()]
    }

    fn without_start_axes(sweep: &Sweep) -> Sweep {
        Sweep {
            y0: None,
            v0: None,
            ..sweep.clone()
        }
    }

    fn validate(params: &Params, sweep: &Sweep) -> Result<(), SimError> {
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            sweep.kappa.max,
        )?;
        PlanarGrid::new(params, sweep).validate()
    }

    fn check_solver(params: &Params, sweep: &Sweep, solver: &SolverSpec) -> Result<(), SimError> {
        PlanarGrid::new(params, sweep).check_explicit_steps(solver)
    }

    fn grid_size(params: &Params, sweep: &Sweep) -> u128 {
        PlanarGrid::new(params, sweep).size()
    }

    fn states(params: &Params, sweep: &Sweep) -> Vec<(PlanarState, usize)> {
        PlanarGrid::new(params, sweep).states()
    }

    fn state_key(sweep: &Sweep, index: usize) -> String {
        if sweep.states.is_some() {
            format!("sweep.states[{index}]")
        } else {
            "params".to_string()
        }
    }

    fn state_cells(c: &PlanarState) -> Cells {
        let s = &c.system;
        vec![
            ("a", s.free_tangential_accel.to_string()),
            ("b", s.free_normal_accel.to_string()),
            ("A", s.tangential_mobility.to_string()),
            ("B", s.cross_mobility.to_string()),
            ("C", s.normal_mobility.to_string()),
            ("mu", c.mu.to_string()),
            ("u0", c.u0.to_string()),
            ("damping", c.damping.to_string()),
        ]
    }

    fn start(c: &PlanarState) -> FastStart {
        c.start
    }

    fn with_start(c: &PlanarState, start: FastStart) -> PlanarState {
        PlanarState { start, ..*c }
    }

    fn body(c: &PlanarState) -> ConstantPlanar {
        c.system
    }

    fn contact_state(c: &PlanarState) -> ([f64; 2], [f64; 2]) {
        c.contact_state()
    }

    fn initial_state(c: &PlanarState, kappa: f64) -> ([f64; 2], [f64; 2]) {
        c.initial_state(kappa)
    }

    fn friction(c: &PlanarState) -> Coulomb {
        c.friction()
    }

    fn damping(c: &PlanarState) -> f64 {
        c.damping
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::experiment::runner::Plan;
    use crate::integrate::IntegratorKind;
    use crate::study::fast::mode_table::ModeTable;
    use crate::study::fast::plan::{FastPlan, FastStudy};

    type Table = ModeTable<Planar, 2>;

    const FILE: &str = r#"
name = "planar_test"
model = "planar"
analysis = "mode_table"
[params]
A = 1.0
C = 1.0
damping = 1.0
[sweep]
kappa = { min = 1e-10, max = 1e-8, per_decade = 1 }
states = [
  { a = 0.0, b = 1.0, B = 0.8, mu = 2.0, u0 = 1.0 },
  { a = 4.0, b = 1.0, B = 0.8, mu = 2.0, u0 = 0.0 },
]
starts = [{ Y0 = 0, V0 = 0 }, { Y0 = -2, V0 = 0 }]
[solver]
integrators = ["tsit45"]
rtol = 1e-10
atol = 1e-20
window_scaled = 200
"#;

    #[test]
    fn states_cross_the_starts_in_order() {
        let spec = FastPlan::<Table, 2>::parse(FILE).unwrap();
        let states = Table::points(&spec);
        assert_eq!(states.len(), 4);
        assert_eq!(states[1].start.gap, -2.0);
        assert_eq!(states[2].system.free_tangential_accel, 4.0);
        assert_eq!(Plan::points(&spec).count(), 4 * 3);
        let cells = Table::derived(&states[0]);
        let get = |k: &str| cells.iter().find(|(c, _)| *c == k).unwrap().1.clone();
        assert_eq!(get("cell"), "I(iii)");
        assert_eq!(get("expected"), "F and IWC");
        assert_eq!(get("table3"), "F and IWC");
    }

    #[test]
    fn a_run_that_cannot_advance_ends_at_once_with_that_diagnosis() {
        // Past validation (which refuses it), a start at Y0 = -1e200 (1e154 ... 1e300 alike):
        // the steps leave t = 0 where it is. Without the no-progress guard it spins to the step
        // limit (2,000,001 steps, about 1.7 s).
        let spec = FastPlan::<Table, 2>::parse(FILE).unwrap();
        let mut state = Table::points(&spec)[1];
        state.start.gap = -1e200;
        let started = std::time::Instant::now();
        let window = crate::study::fast::window(&spec.solver).unwrap();
        let result = Table::run(&spec.solver, &state, window, 1e-8, IntegratorKind::Tsit45);
        let took = started.elapsed().as_secs_f64();
        let Err(error) = result else {
            panic!("a run from a start beyond the contact law");
        };
        assert!(took < 0.5, "{took} s: {error}");
        assert!(error.starts_with("no progress in time"), "{error}");
    }

    #[test]
    fn validation_errors_name_the_key() {
        let cases = [
            (FILE.replace("C = 1.0", "C = 0.5"), "B"),
            (FILE.replace("A = 1.0", "A = -1.0"), "params.A"),
            (
                FILE.replace("window_scaled = 200", ""),
                "solver.window_scaled",
            ),
            (
                FILE.replace("mu = 2.0, u0 = 1.0", "mu = 0.0, u0 = 1.0"),
                "sweep.states[0].mu",
            ),
            (
                FILE.replace("damping = 1.0", "damping = 1.0\nY0 = 1.0"),
                "sweep.starts",
            ),
            (
                FILE.replace("A = 1.0", "A = 1.0\nmu = 2.0"),
                "sweep.states[0].mu",
            ),
            (FILE.replace("[solver]", "b = [1.0]\n[solver]"), "sweep.b"),
            (FILE.replace("A = 1.0", "Q = 1.0"), "Q"),
        ];
        for (text, key) in cases {
            let e = FastPlan::<Table, 2>::parse(&text).unwrap_err().to_string();
            assert!(e.contains(key), "error does not name {key}: {e}");
        }
    }
}
