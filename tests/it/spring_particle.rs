//! The spring-loaded particle: a non-autonomous system (time in the state, the load's work in the
//! energy account) run by every integrator, and the whole model run through the harness from its
//! own experiment file.

use crate::common::{parse_error, run_and_report};
use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::spring_particle::mechanics::SpringParticleMechanics;
use rigid_limit::models::Experiment;
use std::path::Path;

const PARTICLE: SpringParticleMechanics = SpringParticleMechanics {
    stiffness: 1.0,
    depth: 1.0,
    load_amplitude: 1.0,
    load_frequency: 1.0,
};

/// Every integrator finds the stick → slip onset at the closed form sin(ωt₁) = μ k d/((1+kκ) a),
/// and closes the energy account with the load's work ∫ a sin(ωt) ẋ dt.
#[test]
fn slip_onset_matches_its_closed_form_with_every_integrator() {
    let mu = 0.5;
    for kappa in [1e-3, 1e-6] {
        let exact = PARTICLE.slip_onset(mu, kappa).unwrap();
        let problem = ContactProblem {
            system: &PARTICLE,
            compliance: NormalCompliance::linear_spring(kappa),
            friction: Coulomb { mu, mu_s: mu },
        };
        let y0 = -kappa * PARTICLE.rest_normal_force(kappa);
        for kind in IntegratorKind::ALL {
            let mut o = SimulationOptions::new(kind, 1e-10, 1e-10);
            o.end = EndCondition::Time(2.0);
            let r = simulate(&problem, &[0.0, y0], &[0.0, 0.0], &o).unwrap();
            let onset = r.events[0].t;
            let tol = if kind == IntegratorKind::TrBdf2 {
                1e-6
            } else {
                1e-7
            };
            assert!(
                (onset - exact).abs() < tol,
                "{kind} κ {kappa}: onset {onset} vs {exact}"
            );
            assert_eq!(r.modes[0].mode.name(), "stick");
            assert!(r.energy.load_work > 0.1, "{kind}: {:?}", r.energy);
            assert!(
                r.energy.balance_error.abs() < 1e-6 * r.energy.load_work,
                "{kind} κ {kappa}: {:?}",
                r.energy
            );
            assert!((r.final_time - 2.0).abs() < 1e-12);
        }
    }
}

/// The experiment file runs through the registry like the rod's, and its report measures the
/// rate of convergence of the onset to the rigid limit, κ¹, and draws it.
#[test]
fn the_experiment_runs_through_the_harness_and_converges_at_rate_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/spring_particle.toml");
    let experiment = Experiment::load(&path).unwrap();
    let (dir, summary) = run_and_report(&experiment, "spring");
    assert_eq!((summary.points, summary.failed), (26, 0));
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let radau = md.lines().find(|l| l.starts_with("- radau5:")).unwrap();
    let exponent: f64 = radau
        .split('^')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!((exponent - 1.0).abs() < 0.01, "{radau}");
    // No rigid run, but the onset's rigid-limit column: the figure of the distances to it.
    assert!(dir.join("convergence.png").is_file());
    assert!(md.contains("](convergence.png)"), "{md}");
    let header = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    assert!(header.starts_with(
        "point_id,kappa,mu,stiffness,depth,load_amplitude,load_frequency,damping,t_end,integrator"
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `study = "convergence"` names the study the file already runs: the same experiment.
#[test]
fn the_study_key_names_the_convergence_study() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/spring_particle.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let named = text.replace(
        "model = \"spring_particle\"",
        "model = \"spring_particle\"\nstudy = \"convergence\"",
    );
    let (plain, named) = (
        Experiment::parse(&text).unwrap(),
        Experiment::parse(&named).unwrap(),
    );
    let Experiment::SpringParticle(named) = named else {
        panic!("read as another experiment");
    };
    let Experiment::SpringParticle(plain) = plain else {
        panic!("read as another experiment");
    };
    assert_eq!(named.analysis.as_deref(), Some("convergence"));
    assert_eq!((named.params, named.sweep), (plain.params, plain.sweep));
    let other = text.replace(
        "model = \"spring_particle\"",
        "model = \"spring_particle\"\nstudy = \"mode_table\"",
    );
    let e = parse_error(&other);
    assert!(e.contains("study") && e.contains("convergence"), "{e}");
}
