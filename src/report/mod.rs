//! The report layer: what a study writes for its reader besides runs.csv. Today: [`table`], the
//! one writer of side tables (history.csv, points.csv, paths.csv, …), and [`json`], pretty JSON
//! with shortest numbers (analysis.json, `simulate --json`). It computes no physics and names no
//! model.

pub mod json;
pub mod table;
