//! The generic harness, which names no concrete model: the grammar of experiment files
//! ([`grammar`]), the contract a mechanical system implements ([`system`]), the rows of a κ
//! sweep ([`rows`]), the tidy table of runs ([`table`]), the registry of systems and studies
//! ([`registry`]) and the parallel, resumable, shardable runner ([`runner`]). Data flows one way: spec → runs → rows → reports.

pub mod grammar;
pub(crate) mod grid;
pub mod record;
pub mod registry;
pub mod rows;
pub mod runner;
pub mod store;
pub mod system;
pub mod table;

pub use grammar::SpecError;
pub use runner::{merge_shards, run_experiment, Plan, RunOptions, RunSummary, Shard};
