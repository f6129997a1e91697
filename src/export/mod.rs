//! Turning report values into files: PNG charts (and, from the counting work, CSV and JSON).

pub mod plot;
pub mod tables;
