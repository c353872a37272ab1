//! A grazing dip inside one long step: a switching function that dips below zero and back
//! within one step, between two of its scan points (docs/tolerances.md, trap 1), is still
//! located — with every integrator, and in particular with the long steps of DOP853.
//!
//! The system is the smallest hybrid one with a closed form: x'' = 2, so
//! x(t) = (t − t*)² − ε, watched for x falling through zero. Every method integrates the
//! quadratic exactly, so the steps grow as fast as each controller allows and the dip, 2√ε
//! long, falls inside one step. The crossing is at t* − √ε.

use rigid_limit::hybrid::{run_hybrid, Crossing, HybridSystem, Named, RunControl, Until};
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::model::Real;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Side {
    #[default]
    Above,
    Below,
}

impl Named for Side {
    fn name(&self) -> &'static str {
        match self {
            Side::Above => "above",
            Side::Below => "below",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FallsThroughZero;

impl Named for FallsThroughZero {
    fn name(&self) -> &'static str {
        "falls_through_zero"
    }
}

/// x'' = 2 on the state (x, x').
struct Parabola;

impl HybridSystem for Parabola {
    type Mode = Side;
    type Event = FallsThroughZero;

    fn dim(&self) -> usize {
        2
    }
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        vec![atol; 2]
    }
    fn min_step(&self) -> f64 {
        1e-12
    }
    fn initial_mode(&self, _y: &[f64]) -> Side {
        Side::Above
    }
    fn field<S: Real>(&self, _mode: Side, y: &[S], dy: &mut [S]) {
        dy[0] = y[1];
        dy[1] = S::cst(2.0);
    }
    fn watched(&self, mode: Side) -> &[(FallsThroughZero, Crossing)] {
        match mode {
            Side::Above => &[(FallsThroughZero, Crossing::Falling)],
            Side::Below => &[],
        }
    }
    fn is_switching(&self, _event: FallsThroughZero) -> bool {
        true
    }
    fn event_value<S: Real>(&self, _mode: Side, _event: FallsThroughZero, y: &[S]) -> S {
        y[0]
    }
    fn transition(&self, _mode: Side, _event: FallsThroughZero, _y: &mut [f64]) -> Side {
        Side::Below
    }
}

#[test]
fn a_dip_inside_one_long_step_is_located() {
    let (t_star, depth) = (3.0, 1e-8);
    let y0 = [t_star * t_star - depth, -2.0 * t_star];
    let control = RunControl {
        until: Until::Transition {
            t_max: 10.0,
            stop: |_, _| true,
        },
        output_times: Vec::new(),
        max_events: 10,
        max_steps: 10_000,
        absolute_tolerances: None,
    };
    let expected = t_star - depth.sqrt();
    for kind in IntegratorKind::ALL {
        let tolerances = Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        };
        let trace = run_hybrid(&Parabola, kind, tolerances, &y0, &control, &mut ())
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let steps = trace.stats.steps;
        eprintln!("{kind}: {steps} steps, events {:?}", trace.events);
        assert!(
            trace.stopped,
            "{kind}: the dip was stepped over ({steps} steps)"
        );
        let t = trace.events[0].t;
        assert!(
            (t - expected).abs() < 1e-9,
            "{kind}: crossing at {t}, expected {expected}"
        );
    }
}
