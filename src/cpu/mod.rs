//! CPU reference backend: one Rust function per WGSL kernel, same names, same structure, same
//! operation order. `stepper.rs` runs them in the same sequence as `gpu::stepper`; the `*_lanes`
//! modules and `contact_reach` run the hot ones eight nodes at a time with the same bits (each
//! tested against its scalar twin).

pub mod bending;
pub mod broad_phase;
pub mod cohesive_link;
pub mod contact;
pub mod contact_pairs;
pub mod contact_reach;
pub mod core_area;
pub mod core_area_lanes;
pub mod core_pressure;
pub mod fixed_reduce;
pub mod integrate;
pub mod integrate_lanes;
pub mod node_forces;
pub mod node_lanes;
pub mod resting_walls;
pub mod scan;
pub mod shell_columns;
pub mod shell_forces;
pub mod shell_lanes;
pub mod stepper;
pub mod stretch;

pub use stepper::CpuBackend;

/// Nodes per chunk of the stepper's parallel loops (a rayon task takes at least one; small scenes
/// stay on one thread). A multiple of 32, so a chunk owns whole words of the node bit masks.
pub const CHUNK: usize = 512;

/// The unit tests' elastic shell: k_s = 100, k_b = 1, no yield, depth 1.
#[cfg(test)]
pub(crate) fn elastic_test_material() -> crate::model::Material {
    crate::model::Material {
        k_s: 100.0,
        k_b: 1.0,
        f_s_yield: f32::INFINITY,
        m_b_yield: f32::INFINITY,
        depth: 1.0,
        ..Default::default()
    }
}
