//! Contact force laws, each in one home: its parameter record (Pod, mirrored in
//! `shaders/<law>.wgsl` and checked by `tests/layout.rs`), its force, its energy and the contact
//! stiffness the critical time step needs, together. Every function has a WGSL twin of the same
//! name and structure; the CPU functions are the reference (f32, no fused multiply-add, the
//! operations in the WGSL order). Used by the 3D sphere kind (`crate::spheres`); the 2D laws
//! still live in `src/cpu/` until the seam of issue 22 moves them here.
//!
//! Sign convention of every law: the normal n points from j to i, the overlap δ > 0 in contact,
//! δ̇ = −(v_i − v_j)·n (> 0 while approaching), a scalar normal force is positive when repulsive,
//! and vector forces are the force on i (j gets the opposite).

pub mod hertz;
pub mod kelvin_voigt;
pub mod linear_spring_dashpot;
pub mod mc_strain;
pub mod mc_stress;
pub mod membrane_bending;
pub mod membrane_pressure;
pub mod membrane_stretch;
pub mod mindlin;
pub mod mixing;
pub mod patch_contact;
pub mod plane_repulsion;
pub mod rolling_resistance;
pub mod vec3;
