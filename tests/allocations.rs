//! The step loop allocates nothing with the explicit steppers written here: one impact's heap
//! allocations (counted by the counting global allocator of `examples/allocations.rs`) are the
//! same at rtol 1e-8 and 1e-10, although the second takes more than twice the steps. What they
//! allocate is per phase and per event (buffers, records), never per step.

#[path = "../examples/allocations.rs"]
mod allocations;

use allocations::{allocations, impact};
use rigid_limit::integrate::IntegratorKind;

#[test]
fn the_native_explicit_step_loop_allocates_nothing() {
    let scenario = impact();
    for kind in [IntegratorKind::Tsit5, IntegratorKind::Dop853] {
        let (steps_loose, allocs_loose) = allocations(&scenario, kind, 1e-8);
        let (steps_tight, allocs_tight) = allocations(&scenario, kind, 1e-10);
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
}
