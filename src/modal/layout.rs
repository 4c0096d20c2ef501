//! GPU records of the modal engine, shared field for field with shaders/modal_lib.wgsl (all
//! fields are 4-byte scalars or arrays of them, so Rust `repr(C)` and WGSL storage layout agree).

use bytemuck::{Pod, Zeroable};

pub const MODE_BENDING: u32 = 0;
pub const MODE_GRID: u32 = 1;
pub const STIFF_LINEAR: u32 = 0;
pub const STIFF_TABLE: u32 = 1;
pub const WALL_LINE: u32 = 0;
pub const WALL_CIRCLE: u32 = 1;
pub const NONE: u32 = u32::MAX;
pub const QUERY_PULLBACK: u32 = 0;
pub const QUERY_PRECOMPUTED: u32 = 1;

/// Step parameters (binding 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalParams {
    pub dt: f32,
    pub n_nodes: u32,
    pub n_bodies: u32,
    pub n_walls: u32,
    /// The most contact slots a node can have, n_walls + MAX_NB (a bound, for the sizes `softdem
    /// check` prints; the pool, `broad_phase::pool`, holds only the walls and listed neighbours).
    pub slots: u32,
    pub k_n: f32,
    pub c_n: f32,
    pub k_t: f32,
    pub mu: f32,
    /// 0 at run time; read through `opaque()` so the driver cannot reassociate TwoSum.
    pub opaque_zero: u32,
    /// Gravity on the bodies' rigid part, M g at X (modal-only runs; stages set it). The coupled
    /// stepper takes it from `CoupleParams` instead and keeps this zero.
    pub gravity: [f32; 2],
    /// Contact materials n of the law table (`Packed::laws`, binding 26: entry a·n + b); the law
    /// above (k_n … mu, material 0) is the walls' law.
    pub n_materials: u32,
    pub pad: [u32; 3],
}

impl ModalParams {
    /// The law of node–wall contacts: `[contact]` (material 0).
    pub fn wall_law(&self) -> crate::model::ContactLaw {
        crate::model::ContactLaw {
            k_n: self.k_n,
            k_t: self.k_t,
            mu: self.mu,
            c_n: self.c_n,
        }
    }
}

/// Static description of one body.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalBodyRec {
    pub node_first: u32,
    pub node_count: u32,
    pub n_modes: u32,
    pub mode_first: u32,
    /// Offset of φ0 in the phi0 array.
    pub ls_first: u32,
    pub nx: u32,
    pub ny: u32,
    pub stiff_kind: u32,
    pub origin: [f32; 2],
    pub h: f32,
    pub mass: f32,
    pub inertia: f32,
    pub rigid_damping: f32,
    pub bound_radius: f32,
    pub table_first: u32,
    pub table_len: u32,
    /// Contact material (row and column of the law table, `Packed::laws`; 0: `[contact]`).
    pub contact_material: u32,
    /// Inverse modal mass M_ε⁻¹, modal stiffness K_ε and modal damping C_ε, row-major 4×4.
    pub minv: [f32; 16],
    pub k: [f32; 16],
    pub c: [f32; 16],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalModeRec {
    pub kind: u32,
    /// Offset of the (Φ_x, Φ_y) pairs in the mode_grid array (tabulated modes).
    pub grid_first: u32,
    pub length: f32,
    pub x_left: f32,
    pub y_mid: f32,
    pub pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalNodeRec {
    pub body: u32,
    pub pad: u32,
    /// Reference position in the body frame.
    pub p: [f32; 2],
    /// Φ_α at the node, (x, y) per mode.
    pub phi: [f32; 8],
}

/// Dynamic state of one body (eq 42–44 unknowns). X is double-f32 (hi + lo).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalState {
    pub x_hi: [f32; 2],
    pub x_lo: [f32; 2],
    pub v: [f32; 2],
    pub theta: f32,
    pub omega: f32,
    pub eps: [f32; 4],
    pub eps_dot: [f32; 4],
}

/// A rigid wall with prescribed velocity: a line (point p0, unit normal towards the bodies) or a
/// circle (centre p0, radius). Position at step n: p0 + velocity · (n · dt).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalWallRec {
    pub kind: u32,
    pub pad: u32,
    pub p0: [f32; 2],
    pub normal: [f32; 2],
    pub velocity: [f32; 2],
    pub radius: f32,
    pub pad1: u32,
}

/// One contact slot of one surface node (walls first, then the neighbour bodies of its body), in
/// the slot pool (`crate::broad_phase::pool::SlotPool`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalSlot {
    /// Force on the node (global frame).
    pub force: [f32; 2],
    /// Contact point in the partner body's frame, current (deformed) coordinates.
    pub q: [f32; 2],
    /// The partner's material point there: pullback x_ref = q − u(q) (eq 47).
    pub p_ref: [f32; 2],
    /// Tangential spring (friction history), global frame.
    pub hist: [f32; 2],
    /// Partner body index (NONE for a wall slot or an empty slot).
    pub partner: u32,
    pub active: u32,
}

/// How a body's deformed level set is queried (binding 24 of shaders/modal_lib.wgsl): the
/// pullback of eq 47–48, or interpolation along precomputed level sets (eq 49–50). For the
/// latter, the `pre_ls` array (binding 25) holds at `samples_first` the `n_samples` sample
/// amplitudes (shared by the body's modes) and at `fields_first` one field on the body's grid per
/// (mode α, sample p), field index α·n_samples + p.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct ModalQueryRec {
    pub kind: u32,
    pub n_samples: u32,
    pub samples_first: u32,
    pub fields_first: u32,
}
