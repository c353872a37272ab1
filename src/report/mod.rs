//! The report layer: what a study writes for its reader besides runs.csv. Today: [`table`], the
//! one writer of side tables (history.csv, points.csv, paths.csv, …). It computes no physics and
//! names no model.

pub mod table;
