//! GPU backend: device/adapter set-up, typed buffers, generic primitives (scan) and the SPD stepper.

pub mod array;
pub mod context;
pub mod info;
pub mod kernel;
pub mod precision;
pub mod profile;
pub mod report;
pub mod scan;
pub mod stepper;
