//! Dance's particle on the compliant plane against the rigid motion (docs/dance.md, "Compliant
//! runs"): from the static penetration the compliant slide is the rigid slide from the seeded
//! velocity; from rest the stop and the stick of μ = 1, c_d = 1 match an independent SciPy
//! computation and converge to the normal-transient predictions; the c_d = 2 constants are the
//! closed forms 1/e and 1.

use rigid_limit::compliant::cone::SLIP_SEED;
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::models::dance::compliant::{
    rigid_motion, run_compliant, sample_times, sup_distances, NormalTransient, Start,
};
use rigid_limit::models::dance::rigid::{integrate_slide, RigidState, SeriesLogs};
use rigid_limit::models::dance::series::FormalSeries;
use rigid_limit::models::dance::study::{Working, COMPARISON_DEGREE};
use rigid_limit::models::Experiment;

const TOL: Tolerances = Tolerances {
    rtol: 1e-12,
    atol: 1e-18,
};

fn logs(mu: f64) -> SeriesLogs {
    SeriesLogs::of(&FormalSeries::<Working>::new(mu, COMPARISON_DEGREE).unwrap())
}

/// From δ = κ with c_d = 0 the normal force is exactly 1 and the compliant slide is the rigid
/// slide started from the seeded velocity (SLIP_SEED, 0): they agree to the integration
/// tolerance, and the distance to the rigid motion from rest is the seed's (≤ 2e-9).
#[test]
fn equilibrium_start_is_the_rigid_slide_from_the_seed() {
    for mu in [1.0, 0.5] {
        let kappa = 1e-6;
        let times = sample_times(kappa);
        let run = run_compliant(
            mu,
            Start::Equilibrium,
            0.0,
            kappa,
            &times,
            2.0,
            IntegratorKind::Radau5,
            TOL,
        )
        .unwrap();
        let deviation = run
            .samples
            .iter()
            .map(|s| (s.3 - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(
            deviation < 1e-14,
            "μ = {mu}: |F_n − 1| reaches {deviation:e}"
        );
        assert_eq!(run.modes, ["slide"]);
        let seeded = RigidState {
            t: 0.0,
            u: [0.0, 0.0],
            v: [SLIP_SEED, 0.0],
        };
        let (from_seed, _) =
            integrate_slide(mu, seeded, &times, IntegratorKind::Radau5, TOL).unwrap();
        let d = sup_distances(&run, &from_seed);
        assert!(d.position < 1e-12 && d.velocity < 1e-12, "μ = {mu}: {d:?}");
        let rigid = rigid_motion(mu, &logs(mu), 0.25, &times, IntegratorKind::Radau5, TOL).unwrap();
        let d = sup_distances(&run, &rigid);
        assert!(
            d.velocity <= 1.0001 * SLIP_SEED && d.velocity > 0.9 * SLIP_SEED,
            "{d:?}"
        );
        assert!(d.position <= 2.0 * SLIP_SEED, "{d:?}");
    }
}

/// μ = 1, c_d = 1 from rest: one stop, one stick, then slip; the scaled times equal SciPy's
/// (Radau, rtol 1e-12, on the scaled equations; tools/dance_stop_times.py) and lie within the O(κ) corrections of the predictions π/ω and 4π/(3ω).
#[test]
fn one_stop_and_one_stick_at_the_transient_times() {
    let n = NormalTransient::new(1.0).unwrap();
    // (κ, stop, stick end) from SciPy.
    for (kappa, stop, end) in [
        (1e-4, 3.632382245, 4.823826787),
        (1e-6, 3.627646269, 4.836666985),
    ] {
        let times = sample_times(kappa);
        let run = run_compliant(
            1.0,
            Start::Rest,
            1.0,
            kappa,
            &times,
            2.0,
            IntegratorKind::Radau5,
            TOL,
        )
        .unwrap();
        assert_eq!(run.modes, ["slide", "stick", "slide"]);
        let kinds: Vec<&str> = run.events.iter().map(|e| e.1).collect();
        assert_eq!(kinds, ["stop", "slip"]);
        let s: Vec<f64> = run.events.iter().map(|e| e.0 / kappa.sqrt()).collect();
        assert!(
            (s[0] - stop).abs() < 2e-9,
            "κ = {kappa}: stop {} vs SciPy {stop}",
            s[0]
        );
        assert!(
            (s[1] - end).abs() < 2e-9,
            "κ = {kappa}: stick end {} vs SciPy {end}",
            s[1]
        );
        assert!((s[0] - n.stop().unwrap()).abs() < 60.0 * kappa);
        assert!((s[1] - n.stick_end().unwrap()).abs() < 140.0 * kappa);
    }
}

/// c_d = 2 from rest: sup‖Δv‖/√κ → μ/e and sup‖Δu‖/κ → μ (the closed forms of the critically
/// damped transient), at κ = 1e-6 within 1e-4 relative.
#[test]
fn critical_damping_constants_are_the_closed_forms() {
    let kappa = 1e-6;
    for mu in [1.0, 0.5] {
        let times = sample_times(kappa);
        let run = run_compliant(
            mu,
            Start::Rest,
            2.0,
            kappa,
            &times,
            2.0,
            IntegratorKind::Radau5,
            TOL,
        )
        .unwrap();
        let rigid = rigid_motion(mu, &logs(mu), 0.25, &times, IntegratorKind::Radau5, TOL).unwrap();
        let d = sup_distances(&run, &rigid);
        let cv = d.velocity / kappa.sqrt() / mu;
        let cu = d.position / kappa / mu;
        assert!((cv - (-1.0f64).exp()).abs() < 1e-4, "μ = {mu}: {cv}");
        assert!((cu - 1.0).abs() < 1e-4, "μ = {mu}: {cu}");
    }
}

fn parse(params: &str, sweep: &str) -> String {
    let text = format!(
        "name = \"d\"\nmodel = \"dance\"\n[params]\nt_end = 3.0\nseries_degree = 101\n{params}\n\
         [sweep]\nmu = [1.0]\n{sweep}\n[solver]\nintegrators = [\"radau5\"]\nrtol = 1e-10\natol = 1e-14\n"
    );
    match Experiment::parse(&text) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn compliant_keys_are_checked_by_name() {
    let cases = "compliant = [{ start = \"rest\", damping = [1.0] }]";
    let ladder = "kappa = { min = 1e-6, max = 1e-4, per_decade = 1 }";
    assert_eq!(
        parse("method = \"compliant\"", &format!("{ladder}\n{cases}")),
        ""
    );
    assert!(parse("method = \"compliant\"", cases).contains("sweep.kappa"));
    assert!(parse("method = \"compliant\"", ladder).contains("sweep.compliant"));
    assert!(parse("method = \"rigid\"", cases).contains("sweep.compliant"));
    let negative = "compliant = [{ start = \"rest\", damping = [-1.0] }]";
    assert!(
        parse("method = \"compliant\"", &format!("{ladder}\n{negative}"))
            .contains("sweep.compliant[0].damping")
    );
    assert!(parse(
        "method = \"compliant\"",
        &format!("{ladder}\ncompliant = [{{ start = \"resting\", damping = [1.0] }}]")
    )
    .contains("resting"));
}

/// The report of the committed dance_start_slide rows (`rigid-limit report`, nothing re-run):
/// the generic convergence report fits each compliant case's distances to the rigid motion at
/// the rates derived from the normal transient (docs/dance.md (D13)–(D18)): sup‖Δv‖ ∝ κ^(1/2)
/// from rest (the peak μx'√κ), sup‖Δu‖ ∝ κ (μxκ) unless the slip stops and sticks (μ = 1,
/// c_d = 1: the kept velocity e^(−ζs₁)√κ, rate 1/2), and both independent of κ from the
/// static penetration (the slip seed). The particle's own sections and figures follow.
#[test]
fn report_fits_the_distances_at_their_derived_rates() {
    let dir = crate::common::scratch("report-dance_start_slide");
    std::fs::create_dir_all(&dir).unwrap();
    let committed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/dance_start_slide");
    for file in std::fs::read_dir(&committed).unwrap() {
        let file = file.unwrap();
        std::fs::copy(file.path(), dir.join(file.file_name())).unwrap();
    }
    let (ok, _, err) = crate::common::cli(&[
        "report",
        "experiments/dance_start_slide.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    // (heading of the case, derived exponent of sup‖Δu‖, of sup‖Δv‖)
    let cases = [
        ("μ = 1, from rest on the plane, normal damping 1", 0.5, 0.5),
        ("μ = 1, from rest on the plane, normal damping 2", 1.0, 0.5),
        ("μ = 1, from rest at δ = κ, normal damping 0", 0.0, 0.0),
        (
            "μ = 0.5, from rest on the plane, normal damping 1",
            1.0,
            0.5,
        ),
        (
            "μ = 0.5, from rest on the plane, normal damping 2",
            1.0,
            0.5,
        ),
        ("μ = 0.5, from rest at δ = κ, normal damping 0", 0.0, 0.0),
    ];
    for (case, position, velocity) in cases {
        let section = summary
            .split("\n## ")
            .find(|s| s.starts_with(&format!("{case}\n")))
            .unwrap_or_else(|| panic!("no section {case} in {summary}"));
        for (symbol, derived) in [("sup‖Δu‖", position), ("sup‖Δv‖", velocity)] {
            let line = section
                .lines()
                .find(|l| {
                    l.starts_with("- radau5, κ ∈ [1e-8, 1e-4]: ")
                        && l.contains(&format!(": {symbol} = "))
                })
                .unwrap_or_else(|| panic!("no rate of {symbol} in {section}"));
            let p: f64 = crate::common::number_after(line, "κ^");
            assert!((p - derived).abs() < 0.01, "{case} {symbol}: {p}");
            assert!(
                line.contains(&format!("; predicted exponent {derived}")),
                "{case} {symbol}: {line}"
            );
        }
    }
    // The rigid configurations have no convergence section: the series is the particle's own.
    assert!(!summary.contains("\n## μ = 1, rigid"), "{summary}");
    let rates = summary.find("### Convergence as κ → 0").unwrap();
    let own = summary.find("## Rigid slide").unwrap();
    assert!(rates < own, "{summary}");
    for figure in [
        "convergence.png",
        "coefficients.png",
        "truncation.png",
        "rigid_start.png",
        "compliant_velocity.png",
    ] {
        assert!(dir.join(figure).exists(), "no {figure}");
    }
    for linked in ["convergence.png", "compliant_velocity.png"] {
        assert!(
            summary.contains(&format!("]({linked})")),
            "{linked} not linked"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
