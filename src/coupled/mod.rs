//! Coupled simulation of SPD cells and modal level-set bodies (issue 7, phase 2): contact between
//! the two kinds, both ways, on both backends.
//!
//! - SPD node vs modal level set: an SPD node of a cell (radius r, its body's half-thickness)
//!   against a modal body's deformed level set by the pullback query (`modal::contact::ls_query`,
//!   eq 47–48, or the precomputed level sets of eq 49–50 when the body uses them): gap = φ − r,
//!   normal ∇φ/|∇φ|, the modal contact law with friction history. The SPD node gets f; the modal
//!   body gets −f at the node's point q, its generalized force evaluated at the pullback material
//!   point p_ref = q − u(q) (eq 26–28), exactly as the modal–modal reaction.
//! - Modal surface node vs SPD segments: a modal surface node against the sphero-segments of a
//!   neighbouring cell (closest point on the closest segment X → X+1, gap = d − r), same law with
//!   history; the modal node gets f, the segment's end nodes −(1−t)f and −t f (lever rule, Fig. 5).
//!
//! Mixed pairs take k_n, c_n, k_t, μ from the modal law table (`modal::packed::Packed::pair_law`)
//! at the modal body's and the SPD body's contact materials (`CellRec::contact_material`; one
//! numbering for both scenes, `[contact]` = 0); the common dt accounts for the table's largest
//! k_n (`CoupledScene::dt`).
//! Free SPD bodies (cells, beams) are coupled both ways; frozen SPD bodies (walls) only with the
//! `DIR_SPD_WALLS` bit, through their segments (modal surface nodes vs the wall's
//! sphero-segments; the reaction goes to the wall's nodes, so it is in the SPD wall forces). Open
//! lines have no closing segment. Modal walls (`[[modal.walls]]`) act on modal bodies only.
//!
//! Files, one concept each:
//! - [`layout`]: the GPU records shared with shaders/modal_spd_contact.wgsl.
//! - [`broad_phase`]: bounding-circle lists SPD cell ↔ modal body, and the history remap.
//! - [`contact`]: per-point contact functions (CPU twins of the WGSL functions).
//! - [`cpu`]: CPU twins of the kernels and the CPU backend; [`gpu`]: the wgpu backend.
//! - [`stepper`]: the scene, the backend trait and the shared driver (list schedule), which
//!   implements `crate::backend::Backend`.

pub mod backend;
pub mod broad_phase;
pub mod contact;
pub mod cpu;
pub mod gpu;
pub mod layout;
pub mod stepper;

/// Most modal bodies listed per SPD cell (a bound on an SPD node's contact slots).
pub const MAX_MB: usize = 4;
/// Most SPD cells listed per modal body (contact slots per modal surface node).
pub const MAX_CELLS: usize = 16;
/// Direction bits: SPD nodes vs modal level sets, modal surface nodes vs SPD segments.
pub const DIR_SPD_NODES: u32 = 1;
pub const DIR_MODAL_NODES: u32 = 2;
pub const DIR_BOTH: u32 = DIR_SPD_NODES | DIR_MODAL_NODES;
/// Host-side bit of `CoupledScene::directions`: frozen SPD bodies (walls) are coupled too (modal
/// surface nodes vs their segments). Each wall then lists at most MAX_MB modal bodies near it.
pub const DIR_SPD_WALLS: u32 = 4;
/// `CellRec::coupled` bits: the body is coupled (its segments are seen by modal surface nodes).
pub const CELL_COUPLED: u32 = 1;
/// Frozen body (a wall): its nodes do not query the modal level sets.
pub const CELL_FROZEN: u32 = 2;
/// Open polyline: segments X → X+1 up to the last node, no closing segment.
pub const CELL_OPEN: u32 = 4;
