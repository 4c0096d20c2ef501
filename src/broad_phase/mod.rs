//! The one broad phase of the 2D kinds and its one history remap.
//!
//! Every 2D contact is found in two stages: a list of candidate pairs built every few steps (with
//! a skin, so no pair that may touch before the next build is missed), then the narrow phase of
//! the kind's contact pass on the listed pairs. Each listed pair owns a contact slot that holds
//! its friction history; when a list is rebuilt, the history of a pair still listed moves to the
//! pair's new slot, that of a pair no longer listed is dropped, a new pair starts empty.
//!
//! - [`circles`]: the bounding-circle broad phase over bodies (one uniform bin grid), for modal
//!   level-set bodies against each other and for SPD cells against modal bodies, padded into
//!   fixed-width lists (both sides of a pair list it).
//! - [`primitives`]: within those body pairs, the candidates of each contact primitive (a
//!   surface or SPD node against a level-set body, a node against a cell's sphero-segments in
//!   `coupled::broad_phase`) and the reverse lists the gathers walk, packed as CSR lists in one
//!   array per binding; so the work of a contact pass follows the primitives near each other.
//! - [`history`]: the one history remap: the look-up of a partner in the previous sorted list
//!   (`find_sorted`) and the carry of slots, for the CSR lists of SPD nodes (`carry_slot_index`,
//!   twin of `neighbor_fill` in shaders/broad_phase.wgsl) and for the fixed-width lists of modal
//!   and coupled contacts ([`history::carry_pool`], into [`pool::SlotPool`]s).
//! - [`fixed_lists`]: the partner lists (fixed-width `Plain`; `Csr`) through one trait.
//! - [`pool`]: the one slot pool (CSR offsets per owner) the modal contacts address their slots
//!   through, as the SPD contacts address theirs through `slot_index`; [`history::carry_pool`]
//!   moves its histories when the lists change.
//! - [`schedule`]: the Verlet check between builds (nothing moved more than skin/2).
//! - [`grid3d`]: the one 3D cell list of the sphere kinds (dense grid, count → scan → scatter
//!   binning, 27-cell walk, sorted CSR rows, history carried by [`history::find_sorted`]), twin of
//!   shaders/grid3d.wgsl; the spheres' pair list (`spheres::cell_list`) and the membrane's patch
//!   list (`membrane::patch_list`) are its two kinds.
//!
//! SPD node and segment candidates are built on the device (shaders/broad_phase.wgsl, its CPU
//! twin `cpu::broad_phase`) because they change every few steps for every node; the body lists
//! are few and are built here on the host for both backends.

pub mod circles;
pub mod fixed_lists;
pub mod grid3d;
pub mod history;
pub mod pool;
pub mod primitives;
pub mod schedule;
