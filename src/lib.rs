//! rigid-limit: does a penalty (compliant) contact model converge to the rigid limit, how fast,
//! and which integrator gets there cheapest?
//!
//! Map of the crate. [`model`] holds mechanical systems as data + pure functions (the general
//! planar single-contact system of Champneys & Várkonyi §3, and the Painlevé rod of Zhao–Liu as
//! its first instance). [`contact`] is the normal force law (spring, spring–dashpot, stiffness
//! 1/κ), [`friction`] the Coulomb modes and the rules at zero slip. [`hybrid`] is the mode machine:
//! one smooth vector field per mode, events located on the dense output and refined to the
//! integration tolerance, a fresh integrator per phase. [`integrate`] puts the integrators behind
//! one trait. [`record`] is what one run measured; [`limit`] the rigid-limit predictions to
//! compare with.

pub mod analysis;
pub mod compliant;
pub mod error;
pub mod experiment;
pub mod hybrid;
pub mod integrate;
pub mod model;
pub mod models;
pub mod plot;
