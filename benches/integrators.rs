//! Wall time of one simulation per (scenario, integrator) at rtol = atol = 1e-6.
//!
//! Run all: `cargo bench --features bench --bench integrators`; a subset by filter (a regex on the id
//! `scenario/integrator`): `cargo bench --features bench --bench integrators -- sustained/` or `-- /radau5`.

use criterion::{criterion_group, criterion_main, Criterion};
use rigid_limit::compliant::SimulationOptions;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::scenario::{RodImpact, Scenario};
use std::hint::black_box;
use std::time::Duration;

const TOL: f64 = 1e-6;

fn scenarios() -> [Scenario; 3] {
    [
        Scenario::Impact(RodImpact::zhao_liu(1e-8)),
        Scenario::Sustained {
            rod: RodImpact {
                kappa: 1e-6,
                mu: 0.8,
                mu_s: 0.8,
                theta0: 1.0,
                omega0: 0.0,
                u0: -1.0,
                damping: 1.0,
                ..RodImpact::zhao_liu(1e-6)
            },
            t_end: 1.0,
        },
        Scenario::Drop {
            rod: RodImpact {
                kappa: 1e-6,
                mu: 0.3,
                mu_s: 0.3,
                theta0: 1.45,
                omega0: 0.0,
                u0: 0.0,
                damping: 0.5,
                ..RodImpact::zhao_liu(1e-6)
            },
            height: 0.1,
            t_end: 2.0,
        },
    ]
}

fn integrators(c: &mut Criterion) {
    for scenario in scenarios() {
        let mut group = c.benchmark_group(scenario.name());
        for kind in IntegratorKind::ALL {
            let options = SimulationOptions::new(kind, TOL, TOL);
            group.bench_function(kind.name(), |b| {
                b.iter(|| {
                    let record = black_box(&scenario)
                        .simulate(black_box(&options))
                        .unwrap_or_else(|e| panic!("{}/{}: {e}", scenario.name(), kind.name()));
                    black_box(record)
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
    targets = integrators
}
criterion_main!(benches);
