//! The checks every integrator must pass: the [`Stepper`] contract the mode machine relies on
//! (run here on all eight integrators, through the same factory the mode machine uses, with
//! diffsol's known departures declared and checked), and the checks of each method written
//! here: orders of the local error and of the dense output, a stiff problem, the global error
//! against the tolerance, a blow-up, a start from zeros with tiny absolute tolerances.

use super::super::{
    run_with_integrator, FactoryUser, IntegratorKind, OdeSetup, SolverStats, StepControl, Stepper,
    StepperFactory, Tolerances, VectorField,
};
use super::core::{Native, OneStepMethod};
use super::explicit::{Explicit, ExplicitPair};
use super::test_models::{BlowUp, Kepler, Oscillator, StiffCosine};
use super::{dop853::Dop853, radau5::Radau5, rodas4::Rodas4, tsit5::Tsit5, NativeMethod};

pub fn control(rtol: f64, atol: f64, n: usize) -> StepControl {
    StepControl {
        rtol,
        atol: vec![atol; n],
        min_step: 1e-14,
    }
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn state_of<S: Stepper>(st: &S, n: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    st.state(&mut y);
    y
}

fn interp<S: Stepper>(st: &S, t: f64, n: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    st.interpolate(t, &mut y).unwrap();
    y
}

fn start<M: NativeMethod, F: VectorField>(f: F, y0: &[f64], control: StepControl) -> M::Stepper<F> {
    M::start(f, y0, control).unwrap()
}

/// A stepper that can take one step of exactly `h`, accepted whatever its error estimate (for
/// the order tests).
pub trait ForceStep {
    fn force_step(&mut self, h: f64);
}

impl<F: VectorField, M: OneStepMethod> ForceStep for Native<F, M> {
    fn force_step(&mut self, h: f64) {
        Native::force_step(self, h)
    }
}

impl<F: VectorField, P: ExplicitPair> ForceStep for Explicit<F, P> {
    fn force_step(&mut self, h: f64) {
        Explicit::force_step(self, h)
    }
}

/// Step sizes of the order tests: small enough for the asymptotic regime, large enough that
/// the errors stay far above rounding (an 8th-order method needs larger ones).
const ORDER_STEPS: [f64; 3] = [0.2, 0.1, 0.05];

/// Observed orders `log(e_k/e_{k+1}) / log(h_k/h_{k+1})` of the errors `e_k` of one step of
/// each size `h_k` of `hs` from the exact initial value on Kepler's problem, accepted
/// whatever its error estimate; `error` measures a step.
fn orders_on_kepler<M: NativeMethod>(
    tight: &StepControl,
    hs: [f64; 3],
    error: impl Fn(&M::Stepper<Kepler>, f64) -> f64,
) -> Vec<f64>
where
    M::Stepper<Kepler>: ForceStep,
{
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            let mut st = start::<M, _>(Kepler, &Kepler::exact(0.0), tight.clone());
            st.force_step(h);
            error(&st, h)
        })
        .collect();
    let orders = hs
        .windows(2)
        .zip(errs.windows(2))
        .map(|(h, e)| (e[0] / e[1]).ln() / (h[0] / h[1]).ln())
        .collect();
    eprintln!("{}: errors {errs:?}, observed orders {orders:?}", M::NAME);
    orders
}

/// The local error of one step is O(h^`order`) (`order` = the method's order + 1).
pub fn check_local_error_order<M: NativeMethod>(tight: StepControl, hs: [f64; 3], order: f64)
where
    M::Stepper<Kepler>: ForceStep,
{
    let orders = orders_on_kepler::<M>(&tight, hs, |st, h| {
        max_abs_diff(&state_of(st, 4), &Kepler::exact(h))
    });
    for p in orders {
        assert!(
            (p - order).abs() <= 0.5,
            "{}: observed local order {p}",
            M::NAME
        );
    }
}

/// The dense output inside one step (at nine interior points) is O(h^`order`).
pub fn check_dense_output_order<M: NativeMethod>(tight: StepControl, hs: [f64; 3], order: f64)
where
    M::Stepper<Kepler>: ForceStep,
{
    let orders = orders_on_kepler::<M>(&tight, hs, |st, h| {
        (1..10)
            .map(|k| {
                let t = h * k as f64 / 10.0;
                max_abs_diff(&interp(st, t, 4), &Kepler::exact(t))
            })
            .fold(0.0, f64::max)
    });
    for p in orders {
        assert!(
            (p - order).abs() <= 0.5,
            "{}: observed dense-output order {p}",
            M::NAME
        );
    }
}

/// [`Stepper::dense_departure`] bounds the interpolant: on the circular Kepler orbit at rtol
/// 1e-4 (long steps, a quarter turn in about ten), at 201 points of every step each component
/// departs from the step's start by at most the bound, and the bound is not loose by more than
/// twice the largest departure in the step plus a third of the step's span.
pub fn check_dense_departure_bounds_the_interpolant<M: NativeMethod>() {
    let mut st = start::<M, _>(Kepler, &Kepler::exact(0.0), control(1e-4, 1e-4, 4));
    st.set_stop_time(1.5).unwrap();
    let mut bound = [0.0; 4];
    let (mut t_prev, mut y_prev) = (0.0, Kepler::exact(0.0));
    let mut steps = 0;
    loop {
        let done = st.step().unwrap();
        steps += 1;
        let t = st.time();
        for (i, b) in bound.iter_mut().enumerate() {
            *b = (st.dense_departure(i)).unwrap_or_else(|| panic!("{}: no bound", M::NAME));
        }
        let mut largest = [0.0_f64; 4];
        for k in 0..=200 {
            let y = interp(&st, t_prev + (t - t_prev) * k as f64 / 200.0, 4);
            for i in 0..4 {
                let departure = (y[i] - y_prev[i]).abs();
                assert!(
                    departure <= bound[i] * (1.0 + 1e-12),
                    "{}: step {steps}, component {i}: departure {departure:e} > bound {:e}",
                    M::NAME,
                    bound[i]
                );
                largest[i] = largest[i].max(departure);
            }
        }
        for i in 0..4 {
            assert!(
                bound[i] <= 2.0 * largest[i] + (t - t_prev) / 3.0,
                "{}: loose bound {:e} against {:e}",
                M::NAME,
                bound[i],
                largest[i]
            );
        }
        (t_prev, y_prev) = (t, state_of(&st, 4));
        if done {
            break;
        }
    }
    assert!(steps < 40, "{}: {steps} steps", M::NAME);
}

/// λ = 1e6 over [0, 1] at rtol = atol = 1e-6, on the slow solution and through an initial
/// transient: few steps (an explicit method needs ~1e6), error at the tolerance level.
pub fn check_stiff_problem<M: NativeMethod>() {
    for y0 in [1.0, 2.0] {
        let problem = StiffCosine { lambda: 1e6 };
        let exact = problem.exact(y0, 1.0);
        let mut st = start::<M, _>(problem, &[y0, 0.0], control(1e-6, 1e-6, 2));
        st.advance_to(1.0).unwrap();
        let err = (state_of(&st, 2)[0] - exact).abs();
        let SolverStats {
            steps,
            rejected_steps,
            ..
        } = st.stats();
        eprintln!(
            "{} stiff from y0 = {y0}: {steps} steps, {rejected_steps} rejected, error {err:e}",
            M::NAME
        );
        assert!(steps < 200, "{}: {steps} steps", M::NAME);
        assert!(err < 1e-5, "{}: error {err:e}", M::NAME);
    }
}

/// The global error on the harmonic oscillator over [0, 10] (largest at the step ends) falls
/// with rtol and stays within 100·rtol.
pub fn check_global_error<M: NativeMethod>() {
    let mut last = f64::INFINITY;
    for rtol in [1e-4, 1e-8, 1e-11] {
        let mut st = start::<M, _>(Oscillator, &Oscillator::exact(0.0), control(rtol, rtol, 2));
        st.set_stop_time(10.0).unwrap();
        let mut err: f64 = 0.0;
        loop {
            let done = st.step().unwrap();
            err = err.max(max_abs_diff(
                &state_of(&st, 2),
                &Oscillator::exact(st.time()),
            ));
            if done {
                break;
            }
        }
        assert_eq!(st.time(), 10.0);
        let steps = st.stats().steps;
        eprintln!(
            "{} rtol {rtol:e}: global error {err:e} in {steps} steps",
            M::NAME
        );
        assert!(
            err < last,
            "{}: error {err:e} did not fall (was {last:e})",
            M::NAME
        );
        assert!(
            err <= 100.0 * rtol,
            "{}: error {err:e} at rtol {rtol:e}",
            M::NAME
        );
        last = err;
    }
}

/// A run into a blow-up ends in an error of the method that names the minimum step (or a
/// non-finite value), never in a panic or an endless loop.
pub fn check_blow_up_is_reported<M: NativeMethod>() {
    let mut st = start::<M, _>(BlowUp, &[1.0], control(1e-6, 1e-6, 1));
    st.set_stop_time(2.0).unwrap();
    for _ in 0..100_000 {
        match st.step() {
            Ok(true) => panic!(
                "{}: stepped through the blow-up to t = {}",
                M::NAME,
                st.time()
            ),
            Ok(false) => {}
            Err(message) => {
                eprintln!("{} blow-up: {message}", M::NAME);
                assert!(message.starts_with(M::NAME));
                return;
            }
        }
    }
    panic!(
        "{}: no failure reported near the blow-up (t = {})",
        M::NAME,
        st.time()
    )
}

/// An impact-like start: zeros in some components, absolute tolerances down to 1e-26.
pub fn check_start_from_zeros<M: NativeMethod>() {
    let y0 = [1.0, 0.0, 0.0, 1.0];
    let mut c = control(1e-6, 1e-26, 4);
    c.atol[0] = 1e-8;
    let mut st = start::<M, _>(Kepler, &y0, c);
    st.advance_to(0.5).unwrap();
    let err = max_abs_diff(&state_of(&st, 4), &Kepler::exact(0.5));
    assert!(err < 1e-6, "{}: error {err:e}", M::NAME);
}

/// The order checks' step sizes and error control, per native method. `local` and `dense`
/// are the orders of one step's error and of the dense output's error inside it (the
/// method's order + 1, the continuous extension's order + 1).
struct OrderCheck {
    tight: StepControl,
    hs: [f64; 3],
    local: f64,
    dense: f64,
}

impl Default for OrderCheck {
    /// The tight error control and the common steps; the orders NaN, so that a check that
    /// forgets them fails.
    fn default() -> Self {
        OrderCheck {
            tight: control(1e-13, 1e-13, 4),
            hs: ORDER_STEPS,
            local: f64::NAN,
            dense: f64::NAN,
        }
    }
}

fn check_orders<M: NativeMethod>(c: OrderCheck)
where
    M::Stepper<Kepler>: ForceStep,
{
    check_local_error_order::<M>(c.tight.clone(), c.hs, c.local);
    check_dense_output_order::<M>(c.tight, c.hs, c.dense);
}

#[test]
fn native_methods_have_their_orders() {
    // An 8th-order method's errors at h = 0.05 are at rounding: larger steps.
    check_orders::<Dop853>(OrderCheck {
        tight: control(1e-13, 1e-13, 4),
        hs: [0.8, 0.4, 0.2],
        local: 9.0,
        dense: 8.0,
    });
    // Tsitouras minimised the pair's principal error coefficients, so on Kepler's problem the
    // O(h⁷) term of the local error still dominates at h = 0.1 (observed order 6.8 between
    // 0.1 and 0.05): smaller steps, still far above rounding (1.4e-15 at 0.0125).
    check_orders::<Tsit5>(OrderCheck {
        hs: [0.05, 0.025, 0.0125],
        local: 6.0,
        dense: 5.0,
        ..OrderCheck::default()
    });
    // Radau5's tolerance is tight enough for a Newton error far below the local errors
    // measured, loose enough for the Newton iteration to converge from zero starting values
    // at h = 0.2 (at rtol = 1e-13 it is predicted to fail and the step would be rejected).
    check_orders::<Radau5>(OrderCheck {
        tight: control(1e-11, 1e-11, 4),
        local: 6.0,
        dense: 4.0,
        ..OrderCheck::default()
    });
    check_orders::<Rodas4>(OrderCheck {
        local: 5.0,
        dense: 4.0,
        ..OrderCheck::default()
    });
}

/// The checks every native method passes alike.
fn check_every_native_method<M: NativeMethod>() {
    check_global_error::<M>();
    check_blow_up_is_reported::<M>();
    check_start_from_zeros::<M>();
}

#[test]
fn explicit_pairs_pass_the_common_checks_and_bound_their_interpolants() {
    check_every_native_method::<Dop853>();
    check_dense_departure_bounds_the_interpolant::<Dop853>();
    check_every_native_method::<Tsit5>();
    check_dense_departure_bounds_the_interpolant::<Tsit5>();
}

#[test]
fn implicit_methods_pass_the_common_checks_and_take_few_stiff_steps() {
    check_every_native_method::<Radau5>();
    check_stiff_problem::<Radau5>();
    check_every_native_method::<Rodas4>();
    check_stiff_problem::<Rodas4>();
}

/// Where a stepper knowingly departs from the [`Stepper`] contract. A declared departure is
/// checked to occur (so that one that goes away shows up); none of them is a point the mode
/// machine relies on (it never interpolates before a step or right after a restore, never
/// needs the steps after a restore to be bit-identical to the first ones, and never sets a stop
/// time within round-off of the current time: `refine_event` guards with 200 ε).
#[derive(Clone, Copy, Default)]
struct Departures {
    /// Interpolation before the last step is answered, not refused: diffsol's BDF bounds the
    /// time only from above and extrapolates its history polynomial backwards.
    interpolates_before_the_step: bool,
    /// No dense output right after a restore: diffsol's `set_state` marks a Runge–Kutta
    /// solver's state as mutated, and it then interpolates only at the state's own time until
    /// the next step; the native explicit pairs do not save their last step's dense output
    /// (`explicit::LastStep`: the larger part of a copy made before every step).
    no_dense_output_after_restore: bool,
    /// A restore evaluates a new Jacobian and LU: diffsol's `set_state` (BDF, SDIRK) refreshes
    /// them "as if a checkpoint was taken", so the restore counts work and the steps after it
    /// agree with the first ones only to the tolerance, not bit for bit (the Newton solver's
    /// Jacobian is not part of diffsol's saved state).
    restore_refreshes_the_jacobian: bool,
    /// A stop time within diffsol's stop-time round-off of the current time (100 ε (|t| + |h|))
    /// is refused (the adapter's `advance_to` counts such a target as reached).
    refuses_a_stop_time_within_round_off: bool,
}

/// The points of the [`Stepper`] contract the mode machine relies on, on a stepper freshly
/// started on Kepler's problem (dimension `n`) at time 0, except the declared `departures`.
/// `external` gives the counters kept outside the stepper (by its factory);
/// `offers_derivative`: whether it holds the field at its state ([`Stepper::derivative`]).
fn check_contract<S: Stepper>(
    mut st: S,
    n: usize,
    external: impl Fn() -> SolverStats,
    departures: Departures,
    offers_derivative: bool,
) {
    let total = |st: &S| {
        let mut stats = st.stats();
        stats.add(&external());
        stats
    };
    assert_eq!(st.time(), 0.0);
    // No stop time yet: +∞.
    for _ in 0..3 {
        assert!(!st.step().unwrap());
    }
    // Dense output at the ends of the last step reproduces the stored states.
    let (t0, y0) = (st.time(), state_of(&st, n));
    assert!(!st.step().unwrap());
    let (t1, y1) = (st.time(), state_of(&st, n));
    assert!(t1 > t0);
    assert!(max_abs_diff(&interp(&st, t0, n), &y0) <= 1e-14);
    assert!(max_abs_diff(&interp(&st, t1, n), &y1) <= 1e-14);
    let mut out = vec![0.0; n];
    assert!(st.interpolate(t1 + 0.5 * (t1 - t0), &mut out).is_err());
    assert_eq!(
        st.interpolate(t0 - 0.5 * (t1 - t0), &mut out).is_err(),
        !departures.interpolates_before_the_step
    );

    // save → step → restore → step is bit-identical; counters are not rolled back.
    let saved = st.save();
    let t_mid = 0.5 * (t1 + t0);
    let y_mid = interp(&st, t_mid, n);
    st.step().unwrap();
    let (ta, ya) = (st.time(), state_of(&st, n));
    let ia = interp(&st, 0.5 * (t1 + ta), n);
    st.step().unwrap();
    let (tb, yb) = (st.time(), state_of(&st, n));
    let stats_after = total(&st);
    st.restore(saved);
    assert_eq!(st.time(), t1);
    assert_eq!(state_of(&st, n), y1);
    if departures.no_dense_output_after_restore {
        assert!(st.interpolate(t_mid, &mut out).is_err());
    } else {
        assert_eq!(interp(&st, t_mid, n), y_mid);
    }
    let mut expected = stats_after;
    if departures.restore_refreshes_the_jacobian {
        expected.jvp_evals += n;
        expected.jacobian_evals += 1;
        expected.lu_factorisations += 1;
    }
    assert_eq!(total(&st), expected);
    // Bit-identical, or (after a refreshed Jacobian) equal to the tolerance.
    let agrees = |a: &[f64], b: &[f64]| {
        if departures.restore_refreshes_the_jacobian {
            max_abs_diff(a, b) <= 1e-6
        } else {
            a == b
        }
    };
    st.step().unwrap();
    assert_eq!(st.time(), ta);
    assert!(agrees(&state_of(&st, n), &ya));
    assert!(agrees(&interp(&st, 0.5 * (t1 + ta), n), &ia));
    st.step().unwrap();
    assert_eq!(st.time(), tb);
    assert!(agrees(&state_of(&st, n), &yb));
    let stats_again = total(&st);
    assert_eq!(stats_again.steps, stats_after.steps + 2);
    assert!(stats_again.rhs_evals > stats_after.rhs_evals);

    // The derivative a stepper offers is the field at its state, bit for bit (the scan uses
    // it in place of evaluating the field); the explicit pairs offer it.
    let mut flow = vec![0.0; n];
    assert_eq!(st.derivative(&mut flow), offers_derivative);
    if offers_derivative {
        let mut field = vec![0.0; n];
        Kepler.rhs(&state_of(&st, n), &mut field);
        assert_eq!(flow, field);
    }

    // Stop times: not in the past; reached exactly, never passed; continuing after it.
    let now = st.time();
    assert!(st.set_stop_time(now).is_err());
    assert!(st.set_stop_time(now - 1.0).is_err());
    let stop = now + 2.5 * (tb - ta);
    st.set_stop_time(stop).unwrap();
    loop {
        let reached = st.step().unwrap();
        assert!(st.time() <= stop);
        if reached {
            break;
        }
    }
    assert_eq!(st.time(), stop);
    let stop2 = stop + 7.0 * (tb - ta);
    st.advance_to(stop2).unwrap();
    assert_eq!(st.time(), stop2);
    // A stop time a few ulps ahead: one tiny step lands on it.
    let stop3 = stop2 + 4.0 * f64::EPSILON * stop2;
    if departures.refuses_a_stop_time_within_round_off {
        assert!(st.set_stop_time(stop3).is_err());
    } else {
        st.set_stop_time(stop3).unwrap();
        assert!(st.step().unwrap());
        assert_eq!(st.time(), stop3);
    }
    // Continuing after that tiny step takes ordinary steps (no cascade of rejections).
    let before = st.stats();
    st.advance_to(stop3 + 7.0 * (tb - ta)).unwrap();
    let after = st.stats();
    assert!(
        after.rejected_steps - before.rejected_steps <= 1 && after.steps - before.steps <= 12,
        "after a tiny step: {} steps, {} rejected",
        after.steps - before.steps,
        after.rejected_steps - before.rejected_steps
    );
    assert!(state_of(&st, n).iter().all(|x| x.is_finite()));
}

/// Runs [`check_contract`] on a stepper of the factory it is handed, freshly started on
/// Kepler's problem.
struct KeepsTheContract(Departures, bool);

impl FactoryUser<()> for KeepsTheContract {
    type Output = ();
    fn run<F: StepperFactory<()>>(self, factory: &mut F) {
        let st = factory.start((), &Kepler::exact(0.0)).unwrap();
        check_contract(st, 4, || factory.evaluation_counts(), self.0, self.1);
    }
}

fn check_contract_of(kind: IntegratorKind, departures: Departures) {
    let setup = OdeSetup {
        kind,
        tolerances: Tolerances {
            rtol: 1e-6,
            atol: 1e-8,
        },
        atol: vec![1e-8; 4],
        min_step: 1e-14,
        rhs: |(), y: &[f64], dy: &mut [f64]| Kepler.rhs(y, dy),
        jvp: |(), y: &[f64], v: &[f64], out: &mut [f64]| Kepler.jvp(y, v, out),
    };
    let explicit_pair = matches!(kind, IntegratorKind::Tsit5 | IntegratorKind::Dop853);
    run_with_integrator(setup, KeepsTheContract(departures, explicit_pair)).unwrap();
}

#[test]
fn bdf_keeps_the_stepper_contract() {
    check_contract_of(
        IntegratorKind::Bdf,
        Departures {
            interpolates_before_the_step: true,
            restore_refreshes_the_jacobian: true,
            refuses_a_stop_time_within_round_off: true,
            ..Departures::default()
        },
    );
}

/// The two SDIRK methods depart alike.
const SDIRK_DEPARTURES: Departures = Departures {
    interpolates_before_the_step: false,
    no_dense_output_after_restore: true,
    restore_refreshes_the_jacobian: true,
    refuses_a_stop_time_within_round_off: true,
};

#[test]
fn tr_bdf2_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::TrBdf2, SDIRK_DEPARTURES);
}

#[test]
fn esdirk34_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::Esdirk34, SDIRK_DEPARTURES);
}

#[test]
fn tsit45_keeps_the_stepper_contract() {
    check_contract_of(
        IntegratorKind::Tsit45,
        Departures {
            no_dense_output_after_restore: true,
            refuses_a_stop_time_within_round_off: true,
            ..Departures::default()
        },
    );
}

#[test]
fn radau5_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::Radau5, Departures::default());
}

#[test]
fn rodas4_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::Rodas4, Departures::default());
}

#[test]
fn tsit5_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::Tsit5, EXPLICIT_PAIR_DEPARTURES);
}

#[test]
fn dop853_keeps_the_stepper_contract() {
    check_contract_of(IntegratorKind::Dop853, EXPLICIT_PAIR_DEPARTURES);
}

/// The native explicit pairs depart alike.
const EXPLICIT_PAIR_DEPARTURES: Departures = Departures {
    interpolates_before_the_step: false,
    no_dense_output_after_restore: true,
    restore_refreshes_the_jacobian: false,
    refuses_a_stop_time_within_round_off: false,
};
