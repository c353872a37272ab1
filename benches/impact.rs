//! Wall time of one rod impact (Zhao–Liu's, κ = 1e-8, μ = 2, θ0 = 1.3, to separation) with each
//! explicit integrator at rtol = atol = 1e-8 and 1e-10, and of the projection the right-hand
//! side is built on (the rod's closed form against the generic Cholesky path, in f64 and in
//! the dual numbers of the Jacobian–vector products). docs/performance.md, "One impact, per
//! integrator", counts the same impact's instructions.
//!
//! Run: `cargo bench --features bench --bench impact`; one group by filter, e.g.
//! `cargo bench --features bench --bench impact -- rtol_1e-10`, `-- projection` or
//! `-- described`. The cost of a second contact, timed alternately on a shared machine:
//! `cargo run --release --example multi_contact_cost`.
//! Allocations per impact: `cargo run --release --example allocations`.

use criterion::{criterion_group, criterion_main, Criterion};
use rigid_limit::compliant::SimulationOptions;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::model::{Dual, PlanarContactSystem, ProjectedDynamics};
use rigid_limit::models::rod::mechanics::PainleveRod;
use rigid_limit::models::rod::scenario::{RodImpact, Scenario};
use std::hint::black_box;
use std::time::Duration;

/// The explicit integrators: diffsol's Tsit45 and the two written here.
const EXPLICIT: [IntegratorKind; 3] = [
    IntegratorKind::Tsit45,
    IntegratorKind::Tsit5,
    IntegratorKind::Dop853,
];

fn impact(c: &mut Criterion) {
    let scenario = Scenario::Impact(RodImpact::zhao_liu(1e-8));
    for (label, tol) in [("rtol_1e-8", 1e-8), ("rtol_1e-10", 1e-10)] {
        let mut group = c.benchmark_group(format!("impact/{label}"));
        for kind in EXPLICIT {
            let options = SimulationOptions::new(kind, tol, tol);
            group.bench_function(kind.name(), |b| {
                b.iter(|| {
                    black_box(&scenario)
                        .simulate(black_box(&options))
                        .unwrap_or_else(|e| panic!("{kind}: {e}"))
                })
            });
        }
        group.finish();
    }
}

/// The rod's projection at θ ∈ [1, 1.1): 100 attitudes per iteration.
fn projection(c: &mut Criterion) {
    let rod = PainleveRod::UNIFORM;
    let attitudes: Vec<f64> = (0..100).map(|i| 1.0 + i as f64 * 1e-3).collect();
    let qdot = [-1.0, 0.1, 0.3];
    let mut group = c.benchmark_group("projection");
    group.bench_function("f64/closed_form", |b| {
        b.iter(|| {
            for &theta in &attitudes {
                black_box(black_box(&rod).projected_dynamics(0.0, &[0.0, -1e-6, theta], &qdot));
            }
        })
    });
    group.bench_function("f64/cholesky", |b| {
        b.iter(|| {
            for &theta in &attitudes {
                let q = [0.0, -1e-6, theta];
                black_box(ProjectedDynamics::by_cholesky(
                    black_box(&rod),
                    0.0,
                    &q,
                    &qdot,
                ));
            }
        })
    });
    let dual = |theta: f64| {
        let q = [
            Dual::new(0.0, 1.0),
            Dual::new(-1e-6, 0.5),
            Dual::new(theta, 0.2),
        ];
        let qdot = [
            Dual::new(-1.0, 0.1),
            Dual::new(0.1, -0.3),
            Dual::new(0.3, 0.7),
        ];
        (q, qdot)
    };
    let t = Dual::new(0.0, 0.0);
    group.bench_function("dual/closed_form", |b| {
        b.iter(|| {
            for &theta in &attitudes {
                let (q, qdot) = dual(theta);
                black_box(black_box(&rod).projected_dynamics(t, &q, &qdot));
            }
        })
    });
    group.bench_function("dual/cholesky", |b| {
        b.iter(|| {
            for &theta in &attitudes {
                let (q, qdot) = dual(theta);
                black_box(ProjectedDynamics::by_cholesky(
                    black_box(&rod),
                    t,
                    &q,
                    &qdot,
                ));
            }
        })
    });
    group.finish();
}

/// The rod described in systems/painleve_rod.toml against the hand-coded rod, one impact each
/// (κ = 1e-8, rtol = 1e-10, atol = 1e-12), with dop853 and radau5; "described/run" includes the
/// compilation of the description that every run of the harness does.
fn described(c: &mut Criterion) {
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::models::described::cli::read_description;
    use rigid_limit::models::described::Described;
    let description = read_description("systems/painleve_rod.toml".as_ref())
        .unwrap_or_else(|e| panic!("{e} (run from the repository root)"));
    let scenario = Scenario::Impact(RodImpact::zhao_liu(1e-8));
    let mut group = c.benchmark_group("described");
    group.bench_function("compile", |b| {
        b.iter(|| black_box(&description).compile().unwrap())
    });
    for kind in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let options = SimulationOptions::new(kind, 1e-10, 1e-12);
        group.bench_function(format!("hand_coded/{}", kind.name()), |b| {
            b.iter(|| black_box(&scenario).simulate(black_box(&options)).unwrap())
        });
        let settings = RunSettings::new(kind, 1e-10, 1e-12);
        group.bench_function(format!("described/{}", kind.name()), |b| {
            b.iter(|| {
                Described::run(
                    black_box(&description),
                    Method::Compliant { kappa: 1e-8 },
                    &settings,
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(2000));
    targets = impact, projection, described
}
criterion_main!(benches);
