//! The generic harness, which names no concrete model: the grammar of experiment files
//! ([`grammar`]), the contract a mechanical system implements and the κ sweep of any model
//! ([`model`]), the tidy table of runs ([`table`]) and the parallel, resumable, shardable
//! runner ([`runner`]). Data flows one way: spec → runs → rows → reports.

pub mod grammar;
pub mod model;
pub mod record;
pub mod registry;
pub mod runner;
pub mod store;
pub mod system;
pub mod table;

pub use grammar::SpecError;
pub use model::{Model, SweepSpec};
pub use runner::{merge_shards, run_experiment, Plan, RunOptions, RunSummary, Shard};
