//! CPU reference backend: one Rust function per WGSL kernel, same names, same structure, same
//! operation order. `stepper.rs` runs them in the same sequence as `gpu::stepper`.

pub mod bending;
pub mod broad_phase;
pub mod cohesive_link;
pub mod contact;
pub mod contact_pairs;
pub mod core_area;
pub mod core_pressure;
pub mod integrate;
pub mod node_forces;
pub mod scan;
pub mod shell_forces;
pub mod shell_lanes;
pub mod stepper;
pub mod stretch;

pub use stepper::CpuBackend;
