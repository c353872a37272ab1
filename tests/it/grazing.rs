//! A grazing dip inside one long step: a switching function that dips below zero and back
//! within one step, between two of its scan points (docs/tolerances.md, trap 1), is still
//! located — with every integrator, and in particular with the long steps of DOP853.
//!
//! The system is the smallest hybrid one with a closed form: x'' = 2, so
//! x(t) = (t − t*)² − ε, watched for x falling through zero. Every method integrates the
//! quadratic exactly, so the steps grow as fast as each controller allows and the dip, 2√ε
//! long, falls inside one step. The crossing is at t* − √ε.
//!
//! The same system started on its surface (x a residue past zero) checks the phase-start rule
//! (docs/tolerances.md, "A phase that starts on an event surface").

use rigid_limit::hybrid::{run_hybrid, Crossing, HybridSystem, Named, RunControl, Trace, Until};
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

/// x'' = `accel` on the state (x, x'); with `half_line`, x falling through zero is not
/// watched but leaves the model's domain x > 0, whose margin x has slope 1 in x when
/// `margin_slopes` says so; `margin_calls` counts the margin's evaluations. The crossing's
/// function x has slope 1 in x when `event_slopes` says so; `event_calls` counts its
/// evaluations. With `changes_nothing` the crossing's transition leaves the mode and the state
/// as they are.
struct Parabola {
    accel: f64,
    half_line: bool,
    margin_slopes: bool,
    event_slopes: bool,
    changes_nothing: bool,
    margin_calls: std::sync::atomic::AtomicUsize,
    event_calls: std::sync::atomic::AtomicUsize,
}

impl Parabola {
    fn new(accel: f64, half_line: bool) -> Self {
        Parabola {
            accel,
            half_line,
            margin_slopes: true,
            event_slopes: false,
            changes_nothing: false,
            margin_calls: std::sync::atomic::AtomicUsize::new(0),
            event_calls: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

const HALF_LINE: [rigid_limit::model::ValidityMargin; 1] = [rigid_limit::model::ValidityMargin {
    quantity: "x",
    meaning: "the particle left the half-line x > 0",
}];

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
        dy[1] = S::cst(self.accel);
    }
    fn watched(&self, mode: Side) -> std::borrow::Cow<'_, [(FallsThroughZero, Crossing)]> {
        std::borrow::Cow::Borrowed(match mode {
            Side::Above if !self.half_line => &[(FallsThroughZero, Crossing::Falling)],
            _ => &[],
        })
    }
    fn is_switching(&self, _event: FallsThroughZero) -> bool {
        true
    }
    fn event_value<S: Real>(&self, _mode: Side, _event: FallsThroughZero, y: &[S]) -> S {
        self.event_calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        y[0]
    }
    fn event_slopes(&self, _mode: Side, _event: FallsThroughZero, out: &mut [f64]) -> bool {
        out.copy_from_slice(&[1.0, 0.0]);
        self.event_slopes
    }
    fn transition(&self, mode: Side, _event: FallsThroughZero, _y: &mut [f64]) -> Side {
        if self.changes_nothing {
            mode
        } else {
            Side::Below
        }
    }
    fn domain(&self) -> &[rigid_limit::model::ValidityMargin] {
        if self.half_line {
            &HALF_LINE
        } else {
            &[]
        }
    }
    fn domain_margin(&self, _index: usize, y: &[f64]) -> f64 {
        self.margin_calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        y[0]
    }
    fn domain_margin_slopes(&self, _index: usize, out: &mut [f64]) -> bool {
        out.copy_from_slice(&[1.0, 0.0]);
        self.margin_slopes
    }
}

/// `sys` from x = 100, x' = −1 until its first crossing, at the latest to t = 10, at rtol =
/// atol = 1e-10: the run and how often it evaluated the margin and the event function.
fn run_counting(
    sys: Parabola,
    kind: IntegratorKind,
) -> (Trace<Side, FallsThroughZero>, usize, usize) {
    let tolerances = Tolerances {
        rtol: 1e-10,
        atol: 1e-10,
    };
    let control = until_first_crossing(10.0);
    let trace = run_hybrid(&sys, kind, tolerances, &[100.0, -1.0], &control, &mut ())
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
    let calls = |c: std::sync::atomic::AtomicUsize| c.into_inner();
    (trace, calls(sys.margin_calls), calls(sys.event_calls))
}

/// Two runs that must be the same bit for bit: end state, end time and steps.
fn assert_same_run(
    a: &Trace<Side, FallsThroughZero>,
    b: &Trace<Side, FallsThroughZero>,
    kind: IntegratorKind,
) {
    assert_eq!(a.y_end, b.y_end, "{kind}");
    assert_eq!(a.t_end, b.t_end, "{kind}");
    assert_eq!(a.stats.steps, b.stats.steps, "{kind}");
}

/// Run until the first crossing, at the latest to `t_max`.
fn until_first_crossing(t_max: f64) -> RunControl<Side> {
    RunControl {
        until: Until::Transition {
            t_max,
            stop: |_, _| true,
        },
        output_times: Vec::new(),
        max_events: 10,
        max_steps: 10_000,
        absolute_tolerances: None,
    }
}

#[test]
fn a_dip_inside_one_long_step_is_located() {
    let (t_star, depth) = (3.0, 1e-8);
    let y0 = [t_star * t_star - depth, -2.0 * t_star];
    let control = until_first_crossing(10.0);
    let expected = t_star - depth.sqrt();
    for kind in IntegratorKind::ALL {
        let tolerances = Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        };
        let trace = run_hybrid(
            &Parabola::new(2.0, false),
            kind,
            tolerances,
            &y0,
            &control,
            &mut (),
        )
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

/// A function that starts on its surface — x = −1e-30, past zero by far less than its absolute
/// tolerance 1e-12 — crosses where it leaves the surface: x = −1e-30 + v0 t + a t²/2.
/// - v0 = 0, a = −2: it moves away past zero from the start, a crossing at t = 0 (no sample
///   is ever on the start side, x > 0);
/// - v0 = 1e-3, a = −2: an excursion to x > 0 that ends at t = v0 (to 1e-27);
/// - v0 = 0, a = +2: it comes back to x > 0 and never falls again: no crossing;
/// - x0 = −1e-6 (a million times its tolerance, not a residue), a = −2: not on its surface,
///   never on the start side: no crossing.
#[test]
fn a_function_starting_on_its_surface_crosses_where_it_leaves_it() {
    let control = until_first_crossing(1.0);
    let tolerances = Tolerances {
        rtol: 1e-12,
        atol: 1e-12,
    };
    let cases: [(f64, f64, f64, Option<f64>); 4] = [
        (-1e-30, 0.0, -2.0, Some(0.0)),
        (-1e-30, 1e-3, -2.0, Some(1e-3)),
        (-1e-30, 0.0, 2.0, None),
        (-1e-6, 0.0, -2.0, None),
    ];
    for kind in IntegratorKind::ALL {
        for (x0, v0, accel, expected) in cases {
            let trace = run_hybrid(
                &Parabola::new(accel, false),
                kind,
                tolerances,
                &[x0, v0],
                &control,
                &mut (),
            )
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
            let crossing = trace.events.first().map(|e| e.t);
            let case = format!("{kind}, x0 = {x0:e}, v0 = {v0:e}, a = {accel}");
            match expected {
                Some(t) => {
                    let found = crossing.unwrap_or_else(|| panic!("{case}: no crossing"));
                    // BDF's low-order start is not exact on the quadratic: 6e-11 at rtol 1e-12.
                    assert!((found - t).abs() < 1e-9, "{case}: crossing at {found}");
                }
                None => assert_eq!(crossing, None, "{case}"),
            }
        }
    }
}

/// A crossing whose transition changes neither the mode nor the state is no event, on
/// x'' = −2 from x = 1 (x falls through zero at t = 1) and from x = −1e-30 (on the surface,
/// leaving it past zero at once: the phase-start rule locates that at the phase start). The run
/// goes on to t = 2 (x = 1 − 4 or −4) with no event recorded, its phase split at t = 1 (a
/// phase may also be split where an integrator's noise shows a crossing). Before (hybrid::driver), a fresh phase from the unchanged state found the same
/// event again at its start, until the event limit: an event storm at t = 1 (and at t = 0).
#[test]
fn an_event_that_changes_nothing_is_no_event() {
    let control = RunControl {
        until: Until::Time(2.0),
        ..until_first_crossing(2.0)
    };
    let tolerances = Tolerances {
        rtol: 1e-12,
        atol: 1e-12,
    };
    for kind in IntegratorKind::ALL {
        for x0 in [1.0, -1e-30] {
            let system = Parabola {
                changes_nothing: true,
                ..Parabola::new(-2.0, false)
            };
            let trace = run_hybrid(&system, kind, tolerances, &[x0, 0.0], &control, &mut ())
                .unwrap_or_else(|e| panic!("{kind}, x0 = {x0}: {e}"));
            assert!(
                trace.events.is_empty(),
                "{kind}, x0 = {x0}: {:?}",
                trace.events
            );
            if x0 > 0.0 {
                let split = trace.phases.get(1).map(|p| p.t_start);
                assert!(
                    split.is_some_and(|t| (t - 1.0).abs() < 1e-9),
                    "{kind}: {split:?}"
                );
            }
            assert_eq!(trace.t_end, 2.0);
            let x_end = x0 - 4.0;
            assert!(
                (trace.y_end[0] - x_end).abs() < 1e-9,
                "{kind}: x(2) = {}",
                trace.y_end[0]
            );
        }
    }
}

/// The same dip as `a_dip_inside_one_long_step_is_located`, in a domain margin: x leaves the
/// half-line for 2√ε = 2e-4 inside one long step and comes back; every integrator ends the run
/// with the domain error at t* − √ε (before the fix the scan saw x > 0 at every sample and ran
/// on to t_max).
#[test]
fn a_domain_margin_dipping_inside_one_long_step_ends_the_run() {
    use rigid_limit::error::SimError;
    let (t_star, depth) = (3.0, 1e-8);
    let y0 = [t_star * t_star - depth, -2.0 * t_star];
    let expected = t_star - depth.sqrt();
    for (kind, margin_slopes) in IntegratorKind::ALL
        .into_iter()
        .flat_map(|k| [(k, false), (k, true)])
    {
        let tolerances = Tolerances {
            rtol: 1e-12,
            atol: 1e-12,
        };
        let result = run_hybrid(
            &Parabola {
                margin_slopes,
                ..Parabola::new(2.0, true)
            },
            kind,
            tolerances,
            &y0,
            &until_first_crossing(10.0),
            &mut (),
        );
        match result {
            Err(SimError::LeftDomain { time, quantity, .. }) => {
                assert_eq!(quantity, "x");
                assert!(
                    (time - expected).abs() < 1e-9,
                    "{kind} (slopes {margin_slopes}): left at {time}, expected {expected}"
                );
            }
            other => panic!("{kind}: expected the domain error, got {other:?}"),
        }
    }
}

/// A margin that no step can bring to zero (x = 100 − t + t², x ≥ 99.75 to t = 10): with its
/// slope the explicit pairs, which bound their dense output's departure, evaluate it at two
/// samples of a step instead of five (tsit5 10 times instead of 24 in its 4 steps, dop853 13),
/// and no integrator's run changes by a bit.
#[test]
fn a_margin_far_from_zero_is_sampled_less_and_nothing_changes() {
    for kind in IntegratorKind::ALL {
        let run = |margin_slopes| {
            let (trace, calls, _) = run_counting(
                Parabola {
                    margin_slopes,
                    ..Parabola::new(2.0, true)
                },
                kind,
            );
            (trace, calls)
        };
        let ((plain, calls_plain), (with_slopes, calls_with_slopes)) = (run(false), run(true));
        assert_same_run(&plain, &with_slopes, kind);
        let steps = plain.stats.steps;
        eprintln!("{kind}: {steps} steps, margin evaluations {calls_plain} without slopes, {calls_with_slopes} with");
        if matches!(kind, IntegratorKind::Tsit5 | IntegratorKind::Dop853) {
            assert!(
                5 * calls_with_slopes < 3 * calls_plain,
                "{kind}: {calls_with_slopes} evaluations with slopes, {calls_plain} without"
            );
        } else {
            assert_eq!(calls_with_slopes, calls_plain, "{kind}");
        }
    }
}

/// The event functions' slopes (docs/tolerances.md, trap 1): a step whose dense output cannot
/// bring the watched function to zero takes two samples instead of five, and nothing changes,
/// whether the function stays far from zero (x'' = 2 from x = 100, x' = −1: x ≥ 99.75) or
/// crosses it late (x'' = −2: x = 0 at t ≈ 9.51, located bit for bit the same).
#[test]
fn an_event_far_from_zero_is_sampled_less_and_nothing_changes() {
    for accel in [2.0, -2.0] {
        for kind in IntegratorKind::ALL {
            let run = |event_slopes| {
                let (trace, _, calls) = run_counting(
                    Parabola {
                        event_slopes,
                        ..Parabola::new(accel, false)
                    },
                    kind,
                );
                (trace, calls)
            };
            let ((plain, calls_plain), (with_slopes, calls_with_slopes)) = (run(false), run(true));
            assert_same_run(&plain, &with_slopes, kind);
            if accel < 0.0 {
                let t_cross = (-1.0 + (1.0f64 + 4.0 * 100.0).sqrt()) / 2.0;
                assert!(
                    (plain.t_end - t_cross).abs() < 1e-8,
                    "{kind}: {}",
                    plain.t_end
                );
            } else {
                assert_eq!(plain.t_end, 10.0, "{kind}");
            }
            let steps = plain.stats.steps;
            eprintln!("{kind} x'' = {accel}: {steps} steps, event evaluations {calls_plain} without slopes, {calls_with_slopes} with");
            // The crossing's own step, its refinement and the steps next to it are sampled
            // in full: fewer evaluations, but not 3/5 of them over 5 steps.
            let (fewer, of) = if accel > 0.0 { (3, 5) } else { (1, 1) };
            if matches!(kind, IntegratorKind::Tsit5 | IntegratorKind::Dop853) {
                assert!(
                    of * calls_with_slopes < fewer * calls_plain,
                    "{kind}: {calls_with_slopes} evaluations with slopes, {calls_plain} without"
                );
            } else {
                assert_eq!(calls_with_slopes, calls_plain, "{kind}");
            }
        }
    }
}
