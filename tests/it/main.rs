//! The integration tests, one crate: each file of this folder is a module (one binary links the
//! library once, and its tests run in parallel across files). tests/allocations.rs stays a crate
//! of its own: its counting global allocator would count every test's allocations here.

mod atlas;
mod chatter;
mod claims;
mod cli;
mod cluster;
mod common;
mod dance_compliant;
mod dance_rigid;
mod dance_series;
mod dance_system;
mod described_system;
mod experiment;
mod extrapolation;
mod fast_contact;
mod fuzz_inputs;
mod golden;
mod grazing;
mod gspot;
mod integrators;
mod klarbring;
mod klarbring_impacts;
mod mode_table;
mod multi_contact;
mod oblique_impact;
mod phase_portraits;
mod physics;
mod readme;
mod restitution;
mod results_tables;
mod rod3d_jam;
mod schmid_mielke;
mod simulate_point;
mod slope_body;
mod spatial_contacts;
mod spring_particle;
mod stale_rows;
mod stick_basin;
mod stick_envelope;
mod toy_system;
mod two_contact;
mod validity;
mod work_precision;
