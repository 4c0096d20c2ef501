//! softdem: 2D Soft Particle Dynamics (core-shell particles) on the GPU (wgpu/WGSL)
//! with a CPU reference twin. See `docs/model-to-code.md` for the map from the paper to the code.

pub mod gpu;
pub mod shaders;
