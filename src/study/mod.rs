//! The studies: experiment designs generic over any [`crate::experiment::system::System`]. A
//! study owns the grid of points, the columns of runs.csv, the resume key and the report's
//! shape; the system owns the physics.

pub mod convergence;
pub mod cycles;
pub mod single;
