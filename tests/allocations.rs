//! The step loop allocates nothing with the explicit steppers written here: one impact's heap
//! allocations (counted by the counting global allocator of `examples/allocations.rs`) are the
//! same at rtol 1e-8 and 1e-10, although the second takes more than twice the steps. What they
//! allocate is per phase and per event (buffers, records), never per step.

#[path = "../examples/allocations.rs"]
mod allocations;

use allocations::{allocations, counted, impact};
use rigid_limit::integrate::IntegratorKind;

/// One test, so that the measurements run one after the other (each counts its own thread's
/// allocations).
#[test]
fn the_step_loops_allocate_nothing() {
    native_explicit_steppers();
    described_system();
}

fn native_explicit_steppers() {
    let scenario = impact();
    // A thread's first run allocates the phase buffers that its later runs reuse.
    allocations(&scenario, IntegratorKind::Dop853, 1e-8);
    for kind in [IntegratorKind::Tsit5, IntegratorKind::Dop853] {
        let loose = allocations(&scenario, kind, 1e-8);
        assert_allocations_flat(kind, loose, allocations(&scenario, kind, 1e-10));
    }
}

/// The tighter run, `tight` (steps, allocations), took more steps than `loose` and allocated
/// as much.
fn assert_allocations_flat(kind: IntegratorKind, loose: (usize, usize), tight: (usize, usize)) {
    let ((steps_loose, allocs_loose), (steps_tight, allocs_tight)) = (loose, tight);
    eprintln!(
        "{kind}: {steps_loose} steps, {allocs_loose} allocations; \
         {steps_tight} steps, {allocs_tight} allocations"
    );
    assert!(
        steps_tight >= steps_loose + 10,
        "{steps_loose} vs {steps_tight} steps"
    );
    assert_eq!(
        allocs_loose, allocs_tight,
        "{kind}: allocations grew with the steps"
    );
}

/// The same for a described system (systems/painleve_rod.toml): its expressions are evaluated
/// on stack registers, so its step loop allocates nothing either; what a run allocates (the
/// compilation of the description, buffers, records) does not grow with the steps.
fn described_system() {
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::models::described::cli::read_description;
    use rigid_limit::models::described::Described;
    let rod = read_description("systems/painleve_rod.toml".as_ref()).unwrap();
    for kind in [IntegratorKind::Tsit5, IntegratorKind::Dop853] {
        let run = |tol: f64| {
            let settings = RunSettings::new(kind, tol, tol);
            let (result, allocs) =
                counted(|| Described::run(&rod, Method::Compliant { kappa: 1e-8 }, &settings));
            (result.unwrap().1.steps, allocs)
        };
        // A first run pays the thread's one-time initialisations (the hash maps' random keys).
        run(1e-8);
        assert_allocations_flat(kind, run(1e-8), run(1e-10));
    }
}
