//! The rigid slide of Dance's particle (docs/dance.md, "Rigid numerics"): integrated from
//! t₀ = .25, where the optimal truncation of the formal series gives the state.

use crate::common::parse_error;
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::models::dance::precision::BigFloat;
use rigid_limit::models::dance::rigid::{integrate_slide, RigidState, SeriesLogs};
use rigid_limit::models::dance::series::FormalSeries;

const T0: f64 = 0.25;

fn logs(mu: f64) -> SeriesLogs {
    SeriesLogs::of(&FormalSeries::<BigFloat<256>>::new(mu, 401).unwrap())
}

/// atol = 1e-6 rtol: near t₀ the velocity is O(t³) = 2.6e-3 (μ = 1), and Radau5 with atol = rtol
/// = 1e-13 puts 1.6e-12 into v(.35), whose optimal-truncation error is 7e-12 (measured; against
/// mpmath's Taylor solution, docs/dance.md).
fn run(
    mu: f64,
    start: RigidState,
    times: &[f64],
    kind: IntegratorKind,
    rtol: f64,
) -> Vec<RigidState> {
    let tol = Tolerances {
        rtol,
        atol: 1e-6 * rtol,
    };
    integrate_slide(mu, start, times, kind, tol).unwrap().0
}

/// v(.5), v(1), v(2) agree to 1e-10 across rtol 1e-12/1e-13 and three integrators, for both μ;
/// and the states at .5 agree with the series itself (μ = 1/2 converges there; μ = 1's optimal
/// truncation is within its smallest term).
#[test]
fn rigid_velocity_agrees_across_tolerances_and_integrators() {
    let times = [0.5, 1.0, 2.0];
    for mu in [1.0, 0.5] {
        let l = logs(mu);
        let start = l.state_at(T0);
        assert!(
            start.smallest_term < 1e-20,
            "μ {mu}: {:e}",
            start.smallest_term
        );
        let reference = run(mu, start.state, &times, IntegratorKind::Radau5, 1e-13);
        for kind in [
            IntegratorKind::Radau5,
            IntegratorKind::Tsit45,
            IntegratorKind::Rodas4,
        ] {
            for rtol in [1e-12, 1e-13] {
                let r = run(mu, start.state, &times, kind, rtol);
                for (a, b) in r.iter().zip(&reference) {
                    assert!((a.t - b.t).abs() < 1e-14);
                    for i in 0..2 {
                        assert!(
                            (a.v[i] - b.v[i]).abs() < 1e-10 && (a.u[i] - b.u[i]).abs() < 1e-10,
                            "μ {mu} {kind} rtol {rtol:e} t {}: {:?} vs {:?}",
                            a.t,
                            a,
                            b
                        );
                    }
                }
            }
        }
        if mu == 1.0 {
            // mpmath's Taylor solver at 40 digits from t = .1 (the series' state there, error
            // ~1e-100), an independent reference kept outside the repository (docs/dance.md,
            // "Independent checks").
            let mpmath = [
                (0.108957653582234, 0.0993703738710124),
                (0.492711573517356, 0.8161137424841204),
            ];
            for (r, (v1, v2)) in reference[1..].iter().zip(mpmath) {
                assert!(
                    (r.v[0] - v1).abs() < 1e-12 && (r.v[1] - v2).abs() < 1e-12,
                    "{r:?}"
                );
            }
        }
        let at_half = l.state_at(0.5);
        let gap = (at_half.state.v[0] - reference[0].v[0]).abs();
        assert!(
            gap < at_half.parallel_velocity.smallest_term.max(1e-12),
            "μ {mu}: {gap:e}"
        );
    }
}

/// μ = 1: the optimal truncation's error (against the numerics) over its smallest term lies in
/// [.4, .6] for t ∈ [.35, .6] — the half-smallest-term rule of an alternating Gevrey-1 series.
#[test]
fn optimal_truncation_error_is_half_the_smallest_term() {
    let l = logs(1.0);
    let start = l.state_at(T0).state;
    let times: Vec<f64> = (0..=25).map(|i| 0.35 + 0.01 * f64::from(i)).collect();
    let numeric = run(1.0, start, &times, IntegratorKind::Radau5, 1e-13);
    for r in &numeric {
        let o = l.state_at(r.t).parallel_velocity;
        let ratio = (o.value - r.v[0]).abs() / o.smallest_term;
        assert!(
            (0.4..=0.6).contains(&ratio),
            "t {}: ratio {ratio}, smallest {:e}",
            r.t,
            o.smallest_term
        );
    }
}

/// The experiment file's errors name the key and the fix.
#[test]
fn experiment_file_errors_name_the_key() {
    use rigid_limit::models::Experiment;
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/dance_start_slide.toml"
    ))
    .unwrap();
    assert!(Experiment::parse(&base).is_ok());
    for (from, to, key) in [
        (
            "method = \"compliant\"",
            "method = \"incremental\"",
            "params.method",
        ),
        ("mu = [1.0, 0.5]", "mu = [1.5]", "sweep.mu"),
        // A rigid experiment has no κ ladder.
        (
            "method = \"compliant\"",
            "method = \"rigid\"",
            "sweep.kappa",
        ),
        ("min = 1e-8", "min = 1e-40", "sweep.kappa.min"),
        (
            "series_degree = 1001",
            "series_degree = 7",
            "params.series_degree",
        ),
        ("t_series = 0.25", "t_series = 0.7", "params.t_series"),
        // The compliant starts are the grid's, listed in [sweep] compliant.
        (
            "t_series = 0.25",
            "t_series = 0.25\nstart = \"rest\"",
            "params.start",
        ),
        ("mu = [1.0, 0.5]", "", "sweep.mu"),
    ] {
        let text = base.replace(from, to);
        assert_ne!(text, base, "{from}");
        let e = parse_error(&text);
        assert!(e.contains(key), "{key}: {e}");
    }
}
