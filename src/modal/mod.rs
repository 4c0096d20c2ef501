//! Modal deformable bodies with level-set contact (deformable LS-DEM of Henzel & Karapiperis,
//! `../shared/seeds/modal-level-set-dem.txt`; issue 7, phase 1), in 2D.
//!
//! A body has rigid degrees of freedom (X, Θ) and modal amplitudes ε_α (eq 1): a material point
//! with reference (undeformed, body-frame) coordinates p sits at x = X + R(Θ)(p + ε_α Φ_α(p)).
//! Its geometry is a reference signed-distance field on a regular grid plus surface nodes; contact
//! is surface node of one body against the level set of the other (or a rigid wall), the deformed
//! level set being evaluated on demand by the semi-Lagrangian pullback of §3.1.3 (eq 47–48).
//!
//! Files, one concept each:
//! - [`level_set`]: reference signed-distance grid, bilinear interpolation, polygon distance.
//! - [`modes`]: deformation modes Φ_α (analytic bending eq 51, or tabulated on the level-set grid).
//! - [`quadrature`]: modal mass and stiffness matrices by quadrature (eq 4, 8).
//! - [`stiffness`]: internal modal force, linear K ε (eq 55) or a lookup table (eq 56–58, App. B).
//! - [`body`]: the body description and builders (disk, beam), its state.
//! - [`layout`]: GPU records shared with `shaders/modal_lib.wgsl`.
//! - [`contact`]: per-node contact functions (wall, level-set pullback, precomputed level sets).
//! - [`broad_phase`]: body pairs by the shared broad phase (`crate::broad_phase`), then each
//!   surface node's candidate partners within them, and the slots' history remap.
//! - [`timestep`]: the two critical time steps of §3.3.
//! - [`cpu`]: CPU twins of the kernels; [`gpu`]: the wgpu stepper; [`stepper`]: scene packing and
//!   the step loop both share.
//! - [`validation`]: the four validation cases of issue 7 (`modal_*` rows).

pub mod backend;
pub mod body;
pub mod broad_phase;
pub mod contact;
pub mod cpu;
pub mod frame;
pub mod gpu;
pub mod layout;
pub mod level_set;
pub mod modes;
pub mod packed;
pub mod precomputed;
pub mod quadrature;
pub mod stepper;
pub mod stiffness;
pub mod timestep;
pub mod validation;

/// Most modes per body (fixed-size arrays in the GPU records).
pub const MAX_MODES: usize = 4;
/// Most neighbour bodies per body (a bound on a surface node's contact slots besides the walls).
pub const MAX_NB: usize = 6;
