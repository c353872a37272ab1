//! rigid-limit: does a penalty (compliant) contact model converge to the rigid limit, how fast,
//! and which integrator gets there cheapest?
//!
//! Map of the crate (docs/architecture.md has the layers and the dependency rule).
//! [`model`]: mechanics as data + pure functions (the planar single-contact system of
//! Champneys & Várkonyi §3) and its projection onto the contact directions. [`integrate`]: the
//! integrators behind one `Stepper` trait, knowing no physics. [`hybrid`]: the mode machine on
//! any stepper, with event location. [`compliant`]: the penalty contact with exact Coulomb
//! friction as one hybrid system. [`experiment`]: the generic harness (experiment files, the
//! `Model` contract, the resumable runner, the output directory, tables). [`models`]: one folder
//! per mechanical system and the registry. [`analysis`]: fits, pure. [`report`]: the one writer
//! of side tables. [`plot`]: figures, no physics. [`simulate`]: the `simulate` command's flags and
//! its dispatch over the systems. [`output`]: standard output for the command line.

pub mod analysis;
pub mod compliant;
pub mod error;
pub mod experiment;
pub mod expression;
pub mod hybrid;
pub mod integrate;
pub mod model;
pub mod models;
pub mod output;
pub mod plot;
pub mod report;
pub mod rigid;
pub mod simulate;
pub mod study;
