//! The diffsol 0.18 facts docs/tolerances.md quotes, measured again:
//! `cargo run --release --example diffsol_probe` (about 10 s).
//!
//! 1. Linear algebra ("Cost"): the three implicit solvers with diffsol's nalgebra dense matrix
//!    and LU against its faer ones (diffsol compiles both whatever its features), on chains of
//!    2–12 states with one stiff penalty contact; steps, LU factorisations and the median wall
//!    time of repeated solves, the two backends interleaved.
//! 2. A mode switch (traps 2, 3 and 6): a damped penalty contact oscillator, x'' = −(1 + x) −
//!    x/κ − c_d ẋ/√κ in contact, x'' = −(1 + x) in flight, starts at x = 0, ẋ = −1; diffsol's
//!    root finder ends the contact at x = 0, `state_mut_back` moves the solver to the root, and
//!    the flight is integrated for 0.5 time units four ways: a new solver started from the root
//!    state (what src/integrate/diffsol.rs does at every phase start); the same solver with the
//!    vector field switched under it (its stored derivative `dy` is still the contact's); the
//!    same solver with `dy` recomputed and `checkpoint()` (a fresh Jacobian); and, for BDF, the
//!    solver's state handed to a new BDF solver. Errors are against closed forms: the contact's
//!    end from the damped oscillator's solution, the flight from the root state each run
//!    reached (so they measure the flight alone).

use diffsol::{
    DiffsolError, FaerLU, FaerMat, NalgebraLU, NalgebraMat, OdeBuilder, OdeEquations,
    OdeSolverMethod, OdeSolverStopReason, Vector,
};
use std::cell::Cell;
use std::time::Instant;

// ---- 1. nalgebra against faer -------------------------------------------------------------

/// Penalty compliance and dashpot of the chain's contact (stiff: the implicit solvers' case).
const CHAIN_KAPPA: f64 = 1e-6;
const CHAIN_DAMPING: f64 = 1.0;
const CHAIN_T_END: f64 = 2.0;
const CHAIN_RTOL: f64 = 1e-8;
const CHAIN_ATOL: f64 = 1e-10;
const REPEATS: usize = 31;

/// `n/2` unit masses in a chain of unit springs between two walls (positions, then
/// velocities); the first also has the penalty spring 1/κ and dashpot c_d/√κ. Linear, so the
/// Jacobian–vector product is the right-hand side applied to the vector.
fn chain_rhs(x: &[f64], y: &mut [f64]) {
    let m = x.len() / 2;
    for i in 0..m {
        let (q, v) = (x[i], x[m + i]);
        let left = if i > 0 { x[i - 1] } else { 0.0 };
        let right = if i + 1 < m { x[i + 1] } else { 0.0 };
        let mut a = -(q - left) - (q - right);
        if i == 0 {
            a += -q / CHAIN_KAPPA - CHAIN_DAMPING * v / CHAIN_KAPPA.sqrt();
        }
        y[i] = v;
        y[m + i] = a;
    }
}

/// The first mass arrives at the contact with unit speed, the others are displaced.
fn chain_start(y: &mut [f64]) {
    let m = y.len() / 2;
    for i in 0..m {
        y[i] = 0.1 * i as f64;
        y[m + i] = if i == 0 { -1.0 } else { 0.0 };
    }
}

/// Steps and LU factorisations of a solve to `t_end`.
fn integrate<'a, Eqn, S>(mut solver: S, t_end: f64) -> (usize, usize)
where
    Eqn: OdeEquations<T = f64> + 'a,
    S: OdeSolverMethod<'a, Eqn>,
{
    solver.set_stop_time(t_end).expect("stop time");
    while !matches!(
        solver.step().expect("chain step"),
        OdeSolverStopReason::TstopReached
    ) {}
    let s = solver.get_statistics();
    (s.number_of_steps, s.number_of_linear_solver_setups)
}

macro_rules! chain_problem {
    ($mat:ty, $n:expr) => {
        OdeBuilder::<$mat>::new()
            .rtol(CHAIN_RTOL)
            .atol(vec![CHAIN_ATOL; $n])
            .rhs_implicit(
                |x: &[f64], _p: &[f64], _t: f64, y: &mut [f64]| chain_rhs(x, y),
                |_x: &[f64], _p: &[f64], _t: f64, v: &[f64], y: &mut [f64]| chain_rhs(v, y),
            )
            .init(|_p: &[f64], _t: f64, y: &mut [f64]| chain_start(y), $n)
            .build()
            .expect("chain problem")
    };
}

/// (steps, LU factorisations, seconds) of one solve with `method` on `problem`.
macro_rules! timed_solve {
    ($problem:expr, $method:expr, $lu:ty) => {{
        let clock = Instant::now();
        let (steps, lu) = match $method {
            "bdf" => integrate($problem.bdf::<$lu>().expect("bdf"), CHAIN_T_END),
            "tr-bdf2" => integrate($problem.tr_bdf2::<$lu>().expect("tr-bdf2"), CHAIN_T_END),
            _ => integrate($problem.esdirk34::<$lu>().expect("esdirk34"), CHAIN_T_END),
        };
        (steps, lu, clock.elapsed().as_secs_f64())
    }};
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn linear_algebra() {
    println!(
        "## 1. nalgebra against faer (chain of n/2 masses, penalty κ = {CHAIN_KAPPA:e}, \
         c_d = {CHAIN_DAMPING}, t ∈ [0, {CHAIN_T_END}], rtol {CHAIN_RTOL:e}, atol {CHAIN_ATOL:e}; \
         median of {REPEATS} solves)\n"
    );
    println!("| states | solver | steps nalgebra / faer | LU nalgebra / faer | nalgebra ms | faer ms | faer / nalgebra |");
    println!("|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for n in [2, 4, 6, 8, 10, 12] {
        let nalgebra = chain_problem!(NalgebraMat<f64>, n);
        let faer = chain_problem!(FaerMat<f64>, n);
        for method in ["bdf", "tr-bdf2", "esdirk34"] {
            let (mut tn, mut tf) = (Vec::new(), Vec::new());
            let (mut cn, mut cf) = ((0, 0), (0, 0));
            for _ in 0..REPEATS {
                let (s, l, t) = timed_solve!(nalgebra, method, NalgebraLU<f64>);
                (cn, tn) = ((s, l), [tn, vec![t]].concat());
                let (s, l, t) = timed_solve!(faer, method, FaerLU<f64>);
                (cf, tf) = ((s, l), [tf, vec![t]].concat());
            }
            let (mn, mf) = (median(tn), median(tf));
            ratios.push(mf / mn);
            println!(
                "| {n} | {method} | {} / {} | {} / {} | {:.3} | {:.3} | {:.2} |",
                cn.0,
                cf.0,
                cn.1,
                cf.1,
                1e3 * mn,
                1e3 * mf,
                mf / mn
            );
        }
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "\nfaer / nalgebra over the {} cases: {:.2} … {:.2}, median {:.2}\n",
        ratios.len(),
        ratios[0],
        ratios[ratios.len() - 1],
        ratios[ratios.len() / 2]
    );
}

// ---- 2. a mode switch ---------------------------------------------------------------------

const KAPPA: f64 = 1e-4;
const DAMPING: f64 = 0.5;
const RTOL: f64 = 1e-10;
const ATOL: f64 = 1e-12;
/// How long the flight is integrated after the switch (it ends at 2 atan(ẋ) ≈ 0.8).
const FLIGHT: f64 = 0.5;

fn oscillator_rhs(contact: bool, x: &[f64], y: &mut [f64]) {
    y[0] = x[1];
    y[1] = -(1.0 + x[0]);
    if contact {
        y[1] += -x[0] / KAPPA - DAMPING * x[1] / KAPPA.sqrt();
    }
}

/// The contact phase in closed form: x'' + 2α x' + ω0² x = −1 from x = 0, ẋ = −1, with
/// α = c_d/(2√κ), ω0² = 1 + 1/κ; returns the time x returns to zero (bisection on the
/// solution, to rounding).
fn exact_contact_end() -> f64 {
    let alpha = DAMPING / (2.0 * KAPPA.sqrt());
    let w0 = 1.0 + 1.0 / KAPPA;
    let wd = (w0 - alpha * alpha).sqrt();
    let xp = -1.0 / w0;
    let (a, b) = (-xp, (-1.0 + alpha * -xp) / wd);
    let x = |t: f64| xp + (-alpha * t).exp() * (a * (wd * t).cos() + b * (wd * t).sin());
    // x < 0 from t = 0+ until the first upward zero, within one damped period.
    let dt = std::f64::consts::PI / wd / 1000.0;
    let mut hi = dt;
    while x(hi) < 0.0 {
        hi += dt;
    }
    let mut lo = hi - dt;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if x(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The flight x'' = −(1 + x) for `s` from (x, ẋ).
fn exact_flight(y: [f64; 2], s: f64) -> [f64; 2] {
    let (c, sn) = (s.cos(), s.sin());
    [
        -1.0 + (y[0] + 1.0) * c + y[1] * sn,
        -(y[0] + 1.0) * sn + y[1] * c,
    ]
}

fn read<V: Vector<T = f64>>(v: &V) -> [f64; 2] {
    [v.get_index(0), v.get_index(1)]
}

/// Step to `t_stop`, passing over roots (the flight's start sits on x = 0); returns the steps
/// and rejected steps taken.
fn step_to<'a, Eqn, S>(solver: &mut S, t_stop: f64) -> Result<(usize, usize), DiffsolError>
where
    Eqn: OdeEquations<T = f64> + 'a,
    S: OdeSolverMethod<'a, Eqn>,
{
    let before = solver.get_statistics().clone();
    solver.set_stop_time(t_stop)?;
    loop {
        match solver.step()? {
            OdeSolverStopReason::TstopReached => break,
            // Trap 4: after a root one does not act on, set the stop time again.
            OdeSolverStopReason::RootFound(..) => solver.set_stop_time(t_stop)?,
            OdeSolverStopReason::InternalTimestep => {}
        }
    }
    let after = solver.get_statistics();
    Ok((
        after.number_of_steps - before.number_of_steps,
        after.number_of_error_test_failures - before.number_of_error_test_failures,
    ))
}

/// One way of continuing after the switch.
#[derive(Clone, Copy, PartialEq)]
enum Continue {
    NewSolver,
    StaleDerivative,
    RecomputedDerivative,
    HandedToNewBdf,
}

struct Outcome {
    contact_end_error: f64,
    contact_steps: usize,
    flight_error: f64,
    flight_steps: usize,
    flight_rejections: usize,
}

/// The contact phase to its root, then the flight continued `how`.
fn switch<'a, Eqn, S>(
    contact: &Cell<bool>,
    start: &Cell<[f64; 2]>,
    make: &dyn Fn() -> Result<S, DiffsolError>,
    handover: &dyn Fn(S::State) -> Result<S, DiffsolError>,
    how: Continue,
) -> Result<Outcome, DiffsolError>
where
    Eqn: OdeEquations<T = f64> + 'a,
    S: OdeSolverMethod<'a, Eqn>,
{
    contact.set(true);
    start.set([0.0, -1.0]);
    let mut solver = make()?;
    solver.set_stop_time(1.0)?;
    let t_root = loop {
        match solver.step()? {
            OdeSolverStopReason::RootFound(t, _) => break t,
            OdeSolverStopReason::TstopReached => panic!("the contact never ended"),
            OdeSolverStopReason::InternalTimestep => {}
        }
    };
    solver.state_mut_back(t_root)?;
    let contact_steps = solver.get_statistics().number_of_steps;
    let y_root = read(solver.state().y);
    contact.set(false);
    let (y_end, (flight_steps, flight_rejections)) = match how {
        Continue::NewSolver => {
            start.set(y_root);
            let mut fresh = make()?;
            let counts = step_to(&mut fresh, FLIGHT)?;
            (read(fresh.state().y), counts)
        }
        Continue::HandedToNewBdf => {
            let mut next = handover(solver.state_clone())?;
            let counts = step_to(&mut next, t_root + FLIGHT)?;
            (read(next.state().y), counts)
        }
        Continue::StaleDerivative | Continue::RecomputedDerivative => {
            if how == Continue::RecomputedDerivative {
                let mut f = [0.0; 2];
                oscillator_rhs(false, &y_root, &mut f);
                let state = solver.state_mut();
                state.dy.set_index(0, f[0]);
                state.dy.set_index(1, f[1]);
                solver.checkpoint();
            }
            let counts = step_to(&mut solver, t_root + FLIGHT)?;
            (read(solver.state().y), counts)
        }
    };
    let exact = exact_flight(y_root, FLIGHT);
    Ok(Outcome {
        contact_end_error: (t_root - exact_contact_end()).abs(),
        contact_steps,
        flight_error: (y_end[0] - exact[0]).abs().max((y_end[1] - exact[1]).abs()),
        flight_steps,
        flight_rejections,
    })
}

fn mode_switch() -> Result<(), DiffsolError> {
    println!(
        "## 2. a mode switch (κ = {KAPPA:e}, c_d = {DAMPING}, rtol {RTOL:e}, atol {ATOL:e}; \
         flight of {FLIGHT} after the contact's end)\n"
    );
    let contact = Cell::new(true);
    let start = Cell::new([0.0, -1.0]);
    let mut problem = OdeBuilder::<NalgebraMat<f64>>::new()
        .rtol(RTOL)
        .atol([ATOL; 2])
        .rhs_implicit(
            |x: &[f64], _p: &[f64], _t: f64, y: &mut [f64]| oscillator_rhs(contact.get(), x, y),
            |_x: &[f64], _p: &[f64], _t: f64, v: &[f64], y: &mut [f64]| {
                y[0] = v[1];
                y[1] = -v[0];
                if contact.get() {
                    y[1] += -v[0] / KAPPA - DAMPING * v[1] / KAPPA.sqrt();
                }
            },
        )
        .init(
            |_p: &[f64], _t: f64, y: &mut [f64]| y.copy_from_slice(&start.get()),
            2,
        )
        .root(
            |x: &[f64], _p: &[f64], _t: f64, g: &mut [f64]| g[0] = x[0],
            1,
        )
        .build()?;
    problem.ode_options.min_timestep = 1e-14;
    let problem = &problem;
    let ways = [
        (Continue::NewSolver, "new solver from the root state"),
        (Continue::StaleDerivative, "same solver, stale dy"),
        (
            Continue::RecomputedDerivative,
            "same solver, dy recomputed + checkpoint()",
        ),
        (Continue::HandedToNewBdf, "state handed to a new BDF solver"),
    ];
    println!("| solver | contact end: time error, steps | flight: continued by | flight error | flight steps | rejected |");
    println!("|---|---|---|---|---|---|");
    macro_rules! rows {
        ($name:expr, $make:expr, $handover:expr) => {
            for (how, label) in ways {
                if how == Continue::HandedToNewBdf && $name != "bdf" {
                    continue;
                }
                let o = switch(&contact, &start, &$make, &$handover, how)?;
                println!(
                    "| {} | {:.1e}, {} | {label} | {:.1e} | {} | {} |",
                    $name,
                    o.contact_end_error,
                    o.contact_steps,
                    o.flight_error,
                    o.flight_steps,
                    o.flight_rejections
                );
            }
        };
    }
    rows!("bdf", || problem.bdf::<NalgebraLU<f64>>(), |s| problem
        .bdf_solver::<NalgebraLU<
        f64,
    >>(s));
    rows!("tr-bdf2", || problem.tr_bdf2::<NalgebraLU<f64>>(), |_| {
        problem.tr_bdf2::<NalgebraLU<f64>>()
    });
    rows!("esdirk34", || problem.esdirk34::<NalgebraLU<f64>>(), |_| {
        problem.esdirk34::<NalgebraLU<f64>>()
    });
    rows!("tsit45", || problem.tsit45(), |_| problem.tsit45());
    Ok(())
}

fn main() -> Result<(), DiffsolError> {
    linear_algebra();
    mode_switch()
}
