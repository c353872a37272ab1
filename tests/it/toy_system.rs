//! A system added from outside the crate the way README's "Adding a mechanical system" says: its
//! physics (mechanics, configuration, record, one run) and nothing of the harness; the generic
//! convergence study runs it, writes runs.csv and the summary, and the measured values agree
//! with the closed forms.
//!
//! The toy: a unit-mass particle that lands on a frictional floor under gravity g with velocity
//! (u₀, −v₀) at the instant of contact, on a linear spring of compliance κ, and runs to lift-off.
//! The penetration solves δ'' = g − δ/κ, δ(0) = 0, δ'(0) = v₀:
//! δ = gκ(1 − cos ωt) + v₀√κ sin ωt (ω = 1/√κ), zero again at
//! t_off = √κ (π + 2 atan(g√κ/v₀)); the normal velocity returns as +v₀ (the spring and gravity
//! are conservative and y(t_off) = 0), so the normal impulse is 2v₀ + g t_off and, sliding
//! throughout, u_end = u₀ − μ(2v₀ + g t_off). Rigid limits: t_off → 0 and u_end → u₀ − 2μv₀,
//! both at rate κ^(1/2).

use crate::common::{points_table, run_options, scratch};
use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::error::{require_positive, SimError};
use rigid_limit::experiment::grammar::LogGrid;
use rigid_limit::experiment::runner::{run_experiment, RUNS_CSV};
use rigid_limit::experiment::store::read_rows;
use rigid_limit::experiment::system::{Method, Quantity, RunSettings, System};
use rigid_limit::experiment::table::Row;
use rigid_limit::integrate::SolverStats;
use rigid_limit::model::{ContactKinematics, Mechanics, PlanarContactSystem, Real};
use rigid_limit::study::convergence::Convergence;
use serde::{Deserialize, Serialize};

/// The particle under gravity g above a flat floor: q = (x, y), gap y.
pub(crate) struct Landing {
    pub(crate) g: f64,
}

impl Mechanics<2> for Landing {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        [[S::cst(1.0), S::zero()], [S::zero(), S::cst(1.0)]]
    }
    fn generalized_force<S: Real>(&self, _q: &[S; 2], _qdot: &[S; 2]) -> [S; 2] {
        [S::zero(), S::cst(-self.g)]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        q[1].scale(self.g)
    }
}

impl PlanarContactSystem<2> for Landing {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        ContactKinematics::particle_on_floor(q)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    g: f64,
    mu: f64,
    u0: f64,
    v0: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Record {
    mode_sequence: String,
    t_liftoff: f64,
    t_liftoff_closed_form: f64,
    t_liftoff_rigid: f64,
    u_end: f64,
    u_end_closed_form: f64,
    u_end_rigid: f64,
    impulse_normal: f64,
}

impl Config {
    fn t_liftoff(&self, kappa: f64) -> f64 {
        let sk = kappa.sqrt();
        sk * (std::f64::consts::PI + 2.0 * (self.g * sk / self.v0).atan())
    }
    fn u_end(&self, kappa: f64) -> f64 {
        self.u0 - self.mu * (2.0 * self.v0 + self.g * self.t_liftoff(kappa))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Toy;

impl System for Toy {
    const NAME: &'static str = "landing";
    const TITLE: &'static str = "a particle landing on a frictional floor";
    const SOLVER_KEYS: &'static [&'static str] = &[];
    type Config = Config;
    type Record = Record;

    fn validate(c: &Config, _kappa: Option<&LogGrid>) -> Result<(), SimError> {
        require_positive("params.v0", c.v0)?;
        require_positive("params.mu", c.mu)?;
        Ok(())
    }

    fn run(c: &Config, method: Method, s: &RunSettings) -> Result<(Record, SolverStats), SimError> {
        let kappa = method.compliant_kappa(Self::NAME)?;
        let landing = Landing { g: c.g };
        let problem = ContactProblem {
            system: &landing,
            compliance: NormalCompliance::spring_dashpot(kappa, 0.0),
            friction: Coulomb {
                mu: c.mu,
                mu_s: c.mu,
            },
        };
        let mut options = SimulationOptions::new(s.integrator, s.rtol, s.atol);
        options.end = EndCondition::Separation;
        let r = simulate(&problem, &[0.0, 0.0], &[c.u0, -c.v0], &options)?;
        let record = Record {
            mode_sequence: r.modes_joined(">"),
            t_liftoff: r.final_time,
            t_liftoff_closed_form: c.t_liftoff(kappa),
            t_liftoff_rigid: 0.0,
            u_end: r.final_qdot[0],
            u_end_closed_form: c.u_end(kappa),
            u_end_rigid: c.u_end(0.0),
            impulse_normal: r.impulse_normal,
        };
        Ok((record, r.stats))
    }

    fn quantities(_: &Config) -> Vec<Quantity> {
        vec![
            Quantity {
                column: "t_liftoff",
                component: None,
                symbol: "t_off",
                closed_form: Some("t_liftoff_closed_form"),
                rigid_limit: Some("t_liftoff_rigid"),
                exponent: Some(0.5),
                ..Quantity::default()
            },
            Quantity {
                column: "u_end",
                component: None,
                symbol: "u_end",
                closed_form: Some("u_end_closed_form"),
                rigid_limit: Some("u_end_rigid"),
                exponent: Some(0.5),
                ..Quantity::default()
            },
        ]
    }

    fn describe(c: &Config) -> String {
        format!(
            "g = {}, μ = {}, landing at (u₀, −v₀) = ({}, −{})",
            c.g, c.mu, c.u0, c.v0
        )
    }
}

const EXPERIMENT: &str = r#"
name = "landing"
model = "landing"
study = "convergence"

[params]
g = 1.0
mu = 0.3
u0 = 2.0
v0 = 1.0

[sweep]
kappa = { min = 1e-8, max = 1e-4, per_decade = 2 }

[solver]
integrators = ["dop853", "radau5"]
rtol = 1e-11
atol = 1e-13
"#;

#[test]
fn a_system_from_outside_the_crate_runs_the_convergence_study_and_matches_its_closed_forms() {
    let spec = Convergence::<Toy>::parse(EXPERIMENT).expect("the experiment parses");
    let dir = scratch("toy");
    let opts = run_options(&dir);
    let summary = run_experiment(&spec, &opts).expect("the run completes");
    assert_eq!((summary.points, summary.failed), (18, 0));
    let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns()).unwrap();
    for r in &rows {
        let n = |c: &str| r.number(c).unwrap();
        let kappa = n("kappa");
        assert_eq!(r.text("mode_sequence"), "slide_right", "{kappa}");
        // Located lift-off and integrated slide against the closed forms.
        let rel = |a: f64, b: f64| ((a - b) / b).abs();
        assert!(
            rel(n("t_liftoff"), n("t_liftoff_closed_form")) < 1e-7,
            "κ {kappa}: t_off {} against {}",
            n("t_liftoff"),
            n("t_liftoff_closed_form")
        );
        assert!(
            (n("u_end") - n("u_end_closed_form")).abs() < 1e-8,
            "κ {kappa}"
        );
        // Impulse–momentum in the normal direction: ∫F_n = Δv_n + g t_off = 2v₀ + g t_off.
        assert!((n("impulse_normal") - (2.0 + n("t_liftoff"))).abs() < 1e-7);
    }
    spec.report(&rows, &dir).unwrap();
    let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    // The generic report fits |t_off − 0| ∝ κ^p: p = 1/2 within its interval.
    let p = fitted_exponent(&text, "- dop853: |t_off");
    assert!((p - 0.5).abs() < 0.01, "{p}");
    // The limit extrapolated from the ladder alone covers the rigid one, for both quantities
    // and both integrators.
    let inside = text
        .lines()
        .filter(|l| l.ends_with("inside the interval."))
        .count();
    assert_eq!(inside, 4, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_study_name_is_refused_naming_the_key() {
    let text = EXPERIMENT.replace("study = \"convergence\"", "study = \"basin\"");
    let e = Convergence::<Toy>::parse(&text).unwrap_err().to_string();
    assert!(
        e.contains("study = basin") && e.contains("the studies convergence and atlas"),
        "{e}"
    );
}

#[test]
fn a_system_from_outside_the_crate_has_the_atlas_too() {
    let text = EXPERIMENT
        .replace("study = \"convergence\"", "study = \"atlas\"")
        .replace(
            "per_decade = 2 }\n",
            "per_decade = 2 }\nmu = [0.1, 0.2, 0.3]\n",
        )
        .replace("[\"dop853\", \"radau5\"]", "[\"dop853\"]");
    let spec = Convergence::<Toy>::parse(&text).expect("the atlas parses");
    let dir = scratch("toy-atlas");
    let summary = run_experiment(&spec, &run_options(&dir)).expect("the run completes");
    assert_eq!((summary.points, summary.failed), (27, 0));
    spec.report_run(&dir).unwrap();
    let rows = points_table(&dir);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        let cell = |c: &str| r[c].as_str();
        let number = |c: &str| cell(c).parse::<f64>().unwrap();
        let mu = number("mu");
        // The rigid landing: the slip keeps its sign, u = u₀ − μ·2v₀, at once.
        let rigid = 2.0 - 2.0 * mu;
        assert_eq!(number("u_end_rigid"), rigid);
        assert!((number("u_end_limit") - rigid).abs() < 1e-7, "{r:?}");
        assert_eq!(cell("u_end_verdict"), "agrees");
        assert_eq!(cell("t_liftoff_verdict"), "agrees");
        // t_off = √κ (π + 2 arctan(g√κ/v₀)): rate 1/2.
        assert!((number("t_liftoff_rate") - 0.5).abs() < 0.01, "{r:?}");
    }
    let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        text.contains("Fitted exponents p of |q − q(rigid)| ∝ κ^p where the limit agrees, at 3 configurations"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The toy with a rigid reference: the landing as one rigid impact (Newton's law with e = 1, so
/// the normal impulse is 2v₀, and Coulomb's sliding impulse −μ·2v₀ while the slip keeps its
/// sign, u₀ > 2μv₀), at t = 0. Its quantities name no rigid-limit column: the study takes the
/// rigid run's values as the limits.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ToyWithImpactLaw;

impl System for ToyWithImpactLaw {
    const NAME: &'static str = "landing";
    const TITLE: &'static str = "a particle landing on a frictional floor, with its impact law";
    const SOLVER_KEYS: &'static [&'static str] = &[];
    const RIGID: bool = true;
    type Config = Config;
    type Record = Record;

    fn validate(c: &Config, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        Toy::validate(c, kappa)?;
        if c.u0 <= 2.0 * c.mu * c.v0 {
            return Err(SimError::invalid(
                "params.u0",
                c.u0,
                "must exceed 2μv₀ (slides through)",
            ));
        }
        Ok(())
    }

    fn run(c: &Config, method: Method, s: &RunSettings) -> Result<(Record, SolverStats), SimError> {
        match method {
            Method::Compliant { .. } => Toy::run(c, method, s),
            Method::Rigid => {
                let impulse_normal = 2.0 * c.v0;
                let record = Record {
                    mode_sequence: "impact".into(),
                    t_liftoff: 0.0,
                    u_end: c.u0 - c.mu * impulse_normal,
                    impulse_normal,
                    ..Record::default()
                };
                Ok((record, SolverStats::default()))
            }
        }
    }

    fn quantities(_: &Config) -> Vec<Quantity> {
        ["t_liftoff", "u_end"]
            .map(|column| Quantity {
                column,
                component: None,
                symbol: column,
                closed_form: None,
                rigid_limit: None,
                exponent: Some(0.5),
                ..Quantity::default()
            })
            .to_vec()
    }

    fn describe(c: &Config) -> String {
        Toy::describe(c)
    }
}

/// The exponent of the first fitted rate line that starts with `prefix`.
fn fitted_exponent(summary: &str, prefix: &str) -> f64 {
    let line = summary
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix} in {summary}"));
    line.split("κ^")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no exponent in {line}"))
}

#[test]
fn a_rigid_reference_is_a_method_point_and_the_rates_are_fitted_against_it() {
    let spec = Convergence::<ToyWithImpactLaw>::parse(EXPERIMENT).expect("the experiment parses");
    assert!(!Convergence::<Toy>::parse(EXPERIMENT)
        .unwrap()
        .columns()
        .contains(&"method"));
    let columns = spec.columns();
    assert_eq!(&columns[..3], &["point_id", "kappa", "method"]);
    let dir = scratch("toy-rigid");
    let opts = run_options(&dir);
    let summary = run_experiment(&spec, &opts).expect("the run completes");
    // The rigid reference per integrator, then 9 κ × 2 integrators.
    assert_eq!((summary.points, summary.failed), (20, 0));
    let rows: Vec<Row> = read_rows(&dir.join(RUNS_CSV), &columns).unwrap();
    let methods: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.text("method"), r.text("kappa")))
        .collect();
    assert_eq!(
        &methods[..3],
        &[("rigid", "0"), ("rigid", "0"), ("compliant", "0.0001")]
    );
    assert!(rows[2..].iter().all(|r| r.text("method") == "compliant"));
    spec.report(&rows, &dir).unwrap();
    let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    // |u_end − u_end(rigid run)| = μ g t_off ∝ κ^(1/2), fitted against the rigid row.
    for kind in ["dop853", "radau5"] {
        let p = fitted_exponent(&text, &format!("- {kind}: |u_end"));
        assert!((p - 0.5).abs() < 0.01, "{kind}: {p}");
    }
    // The extrapolated limits cover the rigid run's values (2 quantities × 2 integrators).
    let inside = text
        .lines()
        .filter(|l| l.ends_with("inside the interval."))
        .count();
    assert_eq!(inside, 4, "{text}");
    assert!(text.contains("| dop853 | rigid |"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The toy registered the way the crate registers its own systems: one line in `registry!`
/// gives the experiment type with parsing by `model = "landing"`, run, report, the listing and
/// `simulate landing` (run by `simulate_system`).
mod registered {
    use super::*;
    use rigid_limit::study::single::{simulate_system, RunFlags};

    rigid_limit::registry! {
        simulate = simulate_system(RunFlags);
        systems {
            Landing(Toy);
        }
        studies {}
        plans {}
    }

    #[test]
    fn one_registry_line_parses_runs_reports_and_lists_the_system() {
        assert_eq!(SYSTEMS, &["landing"]);
        assert_eq!(models(), vec![("landing", Toy::TITLE)]);
        let experiment = Experiment::parse(EXPERIMENT).expect("the experiment parses");
        assert_eq!(experiment.name(), "landing");
        let Experiment::Landing(spec) = &experiment;
        assert_eq!(**spec, Convergence::<Toy>::parse(EXPERIMENT).unwrap());
        let dir = scratch("toy-reg");
        let summary = experiment
            .run(&run_options(&dir))
            .expect("the run completes");
        assert_eq!((summary.points, summary.failed), (18, 0));
        experiment.report(&dir).expect("the report is written");
        let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
        let p = fitted_exponent(&text, "- dop853: |t_off");
        assert!((p - 0.5).abs() < 0.01, "{p}");
        let _ = std::fs::remove_dir_all(&dir);
        // Another model name is refused, naming the key and the systems there are.
        let other = EXPERIMENT.replace("model = \"landing\"", "model = \"rod\"");
        let e = Experiment::parse(&other).unwrap_err().to_string();
        assert!(e.contains("model") && e.contains("landing"), "{e}");
    }
}
