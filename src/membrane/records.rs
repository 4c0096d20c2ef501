//! Membrane records shared byte for byte with WGSL (`shaders/membrane_step.wgsl`): every vec3
//! followed by a scalar so the C layout equals std430.

use bytemuck::{Pod, Zeroable};

/// `MembraneParams::flags`: contacts of grains with patches (MSS_patch) are evaluated.
pub const MEMBRANE_PATCH_CONTACTS: u32 = 1;
/// `MembraneParams::flags`: a force-only evaluation (at attachment): contact histories are not
/// written (`spheres::extra_force::Evaluation::advance` unset).
pub const MEMBRANE_FORCE_ONLY: u32 = 2;

/// Step parameters of one membrane (a uniform, 64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MembraneParams {
    /// Spring constant k of eq 6–7 (N/m) and damping ratio γ of eq 6.
    pub k: f32,
    pub gamma: f32,
    /// k^el (N·m) and k^diss (N·s) of eq 11–12.
    pub k_el: f32,
    pub k_diss: f32,
    /// Confining stress σ (Pa, > 0 pushes inward; an internal pressure is negative), eq 18.
    pub sigma: f32,
    /// Time step (s), as the sphere stepper's.
    pub dt: f32,
    /// Sphere index of vertex 0 (the vertices are spheres first .. first + n_vertices).
    pub first: u32,
    pub n_vertices: u32,
    pub n_edges: u32,
    pub n_hinges: u32,
    pub n_patches: u32,
    pub n_spheres: u32,
    pub flags: u32,
    /// Always 0 (df32's `opaque`).
    pub opaque_zero: u32,
    pub _pad: [u32; 2],
}

/// A stretching spring between vertices i, j (local indices) with rest length ρ⁰ (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MembraneEdge {
    pub i: u32,
    pub j: u32,
    pub rest: f32,
    pub _pad: f32,
}

/// A hinge (tips v0, v1; common edge v2–v3) with its rest sin(θ⁰/2) (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MembraneHinge {
    pub v: [u32; 4],
    pub sin_half_rest: f32,
    pub _pad: [f32; 3],
}

/// A patch: three local vertex indices, counter-clockwise seen from outside (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MembranePatch {
    pub v: [u32; 3],
    pub _pad: u32,
}

/// Result of one grain–patch candidate (48 bytes): force on the grain (vertex k gets
/// −weights[k] force), normal force, torque on the grain, energy; `active` = 1 when the
/// contact was selected this step (Table 1), else every field is 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PatchOut {
    pub force: [f32; 3],
    pub f_n: f32,
    pub weights: [f32; 3],
    pub active: u32,
    pub torque: [f32; 3],
    pub energy: f32,
}

/// Gather entry kinds of a vertex (`entry >> 30`): edge (index << 2 | side), hinge
/// (index << 2 | slot), patch under pressure (index << 2 | corner).
pub const ENTRY_EDGE: u32 = 0;
pub const ENTRY_HINGE: u32 = 1;
pub const ENTRY_PRESSURE: u32 = 2;

/// Packs a gather entry: kind in the top 2 bits, item << 2 | slot below (items < 2²⁸).
pub fn entry(kind: u32, item: u32, slot: u32) -> u32 {
    debug_assert!(item < (1 << 28));
    (kind << 30) | (item << 2) | slot
}
