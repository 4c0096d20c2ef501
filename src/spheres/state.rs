//! Sphere records shared byte for byte with WGSL (`shaders/sphere_state.wgsl`, checked by
//! `tests/layout.rs`). A `vec3<f32>` in WGSL has 16-byte alignment, so every 3-vector is followed
//! by one 4-byte scalar and a record is a sequence of 16-byte rows; the C layout of
//! `[f32; 3]` + scalar is then the std430 layout.

use bytemuck::{Pod, Zeroable};

/// One sphere (64 bytes). Position as double-f32 (hi + lo, see `precision`); mass m, moment of
/// inertia I (2/5 m r² for a solid sphere), radius r and material index with the state so a
/// contact reads one record per partner. No orientation: a sphere's contact laws do not need it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SphereState {
    pub pos_hi: [f32; 3],
    pub radius: f32,
    pub pos_lo: [f32; 3],
    pub mass: f32,
    pub vel: [f32; 3],
    pub inertia: f32,
    pub omega: [f32; 3],
    pub material: u32,
}

impl SphereState {
    /// A solid sphere of density ρ at rest at `pos` (split into hi + lo).
    pub fn solid(pos: [f64; 3], radius: f64, density: f64, material: u32) -> SphereState {
        let mass = density * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let (hi, lo) = super::precision::df3_split(pos);
        SphereState {
            pos_hi: hi,
            radius: radius as f32,
            pos_lo: lo,
            mass: mass as f32,
            vel: [0.0; 3],
            inertia: (0.4 * mass * radius * radius) as f32,
            omega: [0.0; 3],
            material,
        }
    }

    /// Position as f64 (hi + lo).
    pub fn position(&self) -> [f64; 3] {
        super::precision::df3_value(self.pos_hi, self.pos_lo)
    }
}

/// Force and torque gathered on one sphere in a step (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SphereForce {
    pub force: [f32; 3],
    pub _pad0: f32,
    pub torque: [f32; 3],
    pub _pad1: f32,
}

/// Step parameters (a uniform in WGSL, 80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SphereParams {
    /// Gravity g (m/s²).
    pub gravity: [f32; 3],
    /// Time step Δt (s).
    pub dt: f32,
    pub n_spheres: u32,
    /// Number of items of the current batch (contact pairs or law evaluations).
    pub n_items: u32,
    pub n_walls: u32,
    /// Always 0: XOR-ed into float bits so the driver cannot re-associate TwoSum (`opaque`, df32.wgsl).
    pub opaque_zero: u32,
    /// Global (viscous) damping α_g (1/s): f −= α_g m v, τ −= α_g I ω.
    pub global_damping: f32,
    /// Local (Cundall) damping α_l: f_k −= α_l |f_k| sign(v_k), per component.
    pub local_damping: f32,
    /// Verlet skin s (m): candidate pairs within r_i + r_j + s.
    pub skin: f32,
    /// Cell side (m) of the cell list, ≥ 2 r_max + s.
    pub cell_size: f32,
    /// Corner of the cell grid (m).
    pub grid_origin: [f32; 3],
    /// Number of cells, dims x·y·z.
    pub n_cells: u32,
    /// Cells along x, y, z.
    pub grid_dims: [u32; 3],
    /// Materials of the law table (n × n records).
    pub n_materials: u32,
}
