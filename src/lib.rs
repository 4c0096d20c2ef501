//! softdem: 2D Soft Particle Dynamics (core-shell particles) on the GPU (wgpu/WGSL) with a CPU
//! reference twin. See `docs/model-to-code.md` for the map from the paper to the code.
//!
//! Data flow: `model::Scene` (bodies, nodes, materials) → a `Backend` (`cpu::CpuBackend` or
//! `gpu::GpuBackend`) that steps it → `diagnostics` (energies, wall forces) for output and tests.

pub mod backend;
pub mod beads;
pub mod bench_measure;
pub mod broad_phase;
pub mod coupled;
pub mod cpu;
pub mod diagnostics;
pub mod engine;
pub mod gpu;
pub mod laws;
pub mod membrane;
pub mod modal;
pub mod model;
pub mod output;
pub mod plot;
pub mod run;
pub mod scenario;
pub mod scenes;
pub mod shaders;
pub mod spheres;
pub mod sweep;
pub mod validation;

pub use backend::Backend;
/// The tissue generator lives with the scenario code that builds it (`scenario::tissue`).
pub use scenario::tissue;
