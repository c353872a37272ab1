//! The cost of the second contact, measured on a loaded machine: Zhao–Liu's impact (κ = 1e-8,
//! μ = 2, θ0 = 1.3, to separation; rtol 1e-10, atol 1e-12) of the single-contact rod
//! (`compliant::ContactProblem`) and of the rod with both ends as contacts (`compliant::multi`,
//! B stays up), run alternately in one process — each round runs both, in alternating order —
//! so that the machine's load falls on both alike; the medians of each and their ratio.
//!
//! `cargo run --release --example multi_contact_cost [ROUNDS] [single|two]` (default 400 rounds
//! of both); with `single` or `two` only that one runs, ROUNDS times per integrator (its
//! median printed), so that a profile (callgrind, `perf stat`) sees one formulation alone;
//! docs/performance.md, "Several contacts".

use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::multi::{
    is_separation, simulate_multi, ContactLaw, MultiContactProblem,
};
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::hybrid::{RunControl, Until};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::mechanics::PainleveRod;
use rigid_limit::models::rod::two_ends::TwoEndedRod;
use std::hint::black_box;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(400, |a| a.parse().expect("ROUNDS: a positive integer"));
    let only = std::env::args().nth(2);
    let rod = PainleveRod::UNIFORM;
    let (compliance, friction) = (NormalCompliance::linear_spring(1e-8), Coulomb::equal(2.0));
    let single = ContactProblem {
        system: &rod,
        compliance,
        friction,
    };
    let two = TwoEndedRod(rod);
    let law = ContactLaw {
        compliance,
        friction,
    };
    let multi = MultiContactProblem::new(&two, vec![law; 2]).unwrap();
    let (q0, qdot0) = ([0.0, 0.0, 1.3], [-1.0, 0.0, 0.0]);
    if only.is_none() {
        println!("integrator  single (µs)  two ends (µs)  ratio of medians  median of ratios");
    }
    for kind in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let mut options = SimulationOptions::new(kind, 1e-10, 1e-12);
        options.end = EndCondition::Separation;
        let control = RunControl {
            until: Until::Transition {
                t_max: options.t_max,
                stop: is_separation,
            },
            output_times: Vec::new(),
            max_events: options.max_events,
            max_steps: options.max_steps,
            absolute_tolerances: None,
        };
        let run_single = || {
            let start = Instant::now();
            black_box(simulate(black_box(&single), &q0, &qdot0, &options).unwrap());
            start.elapsed().as_secs_f64()
        };
        let run_two = || {
            let start = Instant::now();
            black_box(
                simulate_multi(
                    black_box(&multi),
                    &q0,
                    &qdot0,
                    kind,
                    options.tolerances,
                    &control,
                )
                .unwrap(),
            );
            start.elapsed().as_secs_f64()
        };
        match only.as_deref() {
            None => {}
            Some("single") => {
                let times = (0..rounds).map(|_| run_single()).collect();
                println!(
                    "{:<10}  single {:>9.1} µs",
                    kind.name(),
                    median(times) * 1e6
                );
                continue;
            }
            Some("two") => {
                let times = (0..rounds).map(|_| run_two()).collect();
                println!(
                    "{:<10}  two ends {:>9.1} µs",
                    kind.name(),
                    median(times) * 1e6
                );
                continue;
            }
            Some(other) => panic!("{other}: `single` or `two`"),
        }
        for _ in 0..rounds / 10 {
            run_single();
            run_two();
        }
        let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (s, t) = if round % 2 == 0 {
                let s = run_single();
                (s, run_two())
            } else {
                let t = run_two();
                (run_single(), t)
            };
            a.push(s);
            b.push(t);
            ratios.push(t / s);
        }
        let (ma, mb) = (median(a), median(b));
        println!(
            "{:<10}  {:>11.1}  {:>13.1}  {:>16.3}  {:>16.3}",
            kind.name(),
            ma * 1e6,
            mb * 1e6,
            mb / ma,
            median(ratios)
        );
    }
}
