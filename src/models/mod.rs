//! The mechanical systems, one folder each.

pub mod rod;
