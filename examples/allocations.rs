//! Heap allocations per impact, counted by a counting global allocator.
//!
//! `cargo run --release --example allocations` prints, for every integrator, the allocations of
//! one rod impact (Zhao–Liu's, κ = 1e-8, μ = 2, θ0 = 1.3) at rtol = atol = 1e-8 and 1e-10 after
//! a first run (which allocates the phase buffers that the thread's later runs reuse), the
//! accepted steps of each, and the allocations per extra step between the two: 0 means the step
//! loop (step, scan, save) allocates nothing and what remains is per phase and per event.
//! Then the allocations of one atlas point as the runner runs it, over the first points of
//! experiments/painleve_atlas.toml: the impact, its measures and row (`Plan::run_point`), the
//! CSV line written (`Row::to_csv_line`), and their sum (the last line).
//! `tests/allocations.rs` includes this file and checks the per-step figure.

use rigid_limit::compliant::SimulationOptions;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::scenario::{RodImpact, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the allocations (and reallocations) each thread asks for.
struct Counting;

thread_local! {
    /// This thread's allocations: what other threads allocate meanwhile (a test harness's
    /// messages about a slow test on a loaded machine) does not count into a measurement.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Count one allocation of this thread (none while the thread is being torn down).
fn count_one() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

/// This thread's allocations so far.
fn allocations_so_far() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The impact measured: Zhao–Liu's rod at κ = 1e-8 (μ = 2, θ0 = 1.3).
pub fn impact() -> Scenario {
    Scenario::Impact(RodImpact::zhao_liu(1e-8))
}

/// Accepted steps and heap allocations of one run of `scenario` with `kind` at
/// rtol = atol = `tol` (counted on this thread).
pub fn allocations(scenario: &Scenario, kind: IntegratorKind, tol: f64) -> (usize, usize) {
    let options = SimulationOptions::new(kind, tol, tol);
    let before = allocations_so_far();
    let record = scenario
        .simulate(&options)
        .unwrap_or_else(|e| panic!("{kind} at rtol {tol:e}: {e}"));
    let after = allocations_so_far();
    (record.stats.steps, after - before)
}

/// What `f` returns and the heap allocations it made (on this thread).
#[allow(dead_code)]
pub fn counted<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocations_so_far();
    let out = f();
    (out, allocations_so_far() - before)
}

#[allow(dead_code)]
fn main() {
    let scenario = impact();
    // A thread's first run allocates the phase buffers that its later runs reuse: not counted.
    let (_, first) = allocations(&scenario, IntegratorKind::Dop853, 1e-8);
    println!("one impact, kappa = 1e-8, mu = 2, theta0 = 1.3 (rtol = atol)");
    println!("the thread's first run, dop853 at 1e-8: {first} allocations");
    println!(
        "{:<10} {:>7} {:>8} {:>7} {:>8} {:>16}",
        "method", "steps@8", "allocs@8", "steps@10", "allocs@10", "allocs/extra step"
    );
    for kind in IntegratorKind::ALL {
        let (s8, a8) = allocations(&scenario, kind, 1e-8);
        let (s10, a10) = allocations(&scenario, kind, 1e-10);
        let per_step = (a10 as f64 - a8 as f64) / (s10 as f64 - s8 as f64);
        println!(
            "{:<10} {s8:>7} {a8:>8} {s10:>8} {a10:>9} {per_step:>16.2}",
            kind.name()
        );
    }
    // The file is part of the source: built in, so that the example runs from any directory.
    let text = include_str!("../experiments/painleve_atlas.toml");
    let Ok(rigid_limit::models::Experiment::Rod(spec)) =
        rigid_limit::models::Experiment::parse(text)
    else {
        panic!("experiments/painleve_atlas.toml is not a rod experiment");
    };
    use rigid_limit::experiment::runner::Plan;
    let points = spec.points();
    let n = 70.min(points.len());
    let columns = spec.columns();
    let options = |kind| {
        let s = &spec.solver;
        SimulationOptions::new(kind, s.rtol, s.atol).with_guards(s.t_max, s.max_steps, s.max_events)
    };
    let (_, simulate) = counted(|| {
        for p in &points[..n] {
            let _ = p
                .config
                .impact_at(p.method.kappa())
                .simulate(&options(p.integrator));
        }
    });
    let (_, run) = counted(|| {
        for p in &points[..n] {
            spec.run_point(p);
        }
    });
    let (_, written) = counted(|| {
        for p in &points[..n] {
            spec.run_point(p).to_csv_line(&columns);
        }
    });
    let per = |a: usize| a as f64 / n as f64;
    println!(
        "painleve_atlas, first {n} points (10 states x 7 kappa), allocations per point: \
         the impact {:.1}, its measures and row {:.1}, the CSV line {:.1}; {:.1} in all",
        per(simulate),
        per(run) - per(simulate),
        per(written) - per(run),
        per(written)
    );
}
