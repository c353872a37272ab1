//! Experiments: the TOML spec ([`spec`]), the tidy table of runs ([`table`]) and the parallel,
//! resumable, shardable runner ([`runner`]). Data flows one way: spec → runs → records → tables.

pub mod runner;
pub mod spec;
pub mod table;

pub use runner::{merge_shards, run_experiment, Plan, RunOptions, RunSummary, Shard};
pub use spec::{Experiment, ExperimentSpec};
