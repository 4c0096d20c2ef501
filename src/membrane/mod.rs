//! Flexible membranes (issue 25; Götz & Pöschel, "DEM-simulation of thin elastic membranes
//! interacting with a granulate"): vertex particles joined by damped springs (eq 6–7) and
//! dihedral bending (eq 8–16), contacts of grains with triangular patches (eq 17, Fig. 3,
//! Table 1), a confining stress (eq 18–19), and the vertex-particle alternative (MSS_particle).
//! The laws live in `crate::laws::{membrane_stretch, membrane_bending, membrane_pressure,
//! patch_contact}`; the GPU kernels in `shaders/membrane_step.wgsl`. Model, choices and the
//! paper's loose ends: docs/membrane.md.

pub mod attach;
pub mod bench;
pub mod cases;
pub mod diagnose;
pub mod forces;
pub mod gpu;
pub mod gpu_patch_list;
pub mod gpu_rims;
pub mod gpu_source;
pub mod gpu_system;
pub mod gpu_triaxial;
pub mod hydrostatic;
pub mod mesh;
pub mod model;
pub mod patch_list;
pub mod records;
pub mod rims;
pub mod system;
pub mod triaxial;

pub use mesh::MembraneMesh;
pub use model::{Membrane, MembraneContact, MembraneSpec};
pub use system::MembraneSpheres;
