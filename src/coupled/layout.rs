//! GPU records of the coupled modal–SPD passes, shared field for field with
//! shaders/modal_spd_contact.wgsl. SPD-node slots reuse `modal::layout::ModalSlot` (force, contact
//! point q and pullback point p_ref in the modal body's frame, friction history, partner body).
//! Both kinds of coupling slots live in slot pools (`crate::broad_phase::pool`), their offsets in
//! the modal `slot_start` buffer after the modal nodes' (`CoupleParams::spd_start_at`,
//! `mnode_start_at`).

use bytemuck::{Pod, Zeroable};

/// Parameters of the coupling passes (uniform, binding 14; 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct CoupleParams {
    pub n_spd_nodes: u32,
    pub n_cells: u32,
    /// `DIR_*` bits.
    pub directions: u32,
    /// Where the SPD nodes' slot offsets start in `slot_start` (binding 27, after the modal
    /// nodes' n_nodes + 1): SPD node x's coupling slots are `spd_slots[slot_start[spd_start_at + x]
    /// ..]`, one per candidate modal body (`CoupleLists::cand` section 0).
    pub spd_start_at: u32,
    /// Gravity on the modal bodies (the SPD scene's gravity): M g on their rigid part.
    pub gravity: [f32; 2],
    /// Where the modal nodes' coupling-slot offsets start in `slot_start` (after the SPD nodes'
    /// n_spd_nodes + 1): one `SegSlot` per cell listed for the node's body.
    pub mnode_start_at: u32,
    /// Where the sections of the candidates over primitives (binding 18, `CoupleLists::cand`,
    /// offsets absolute into it) start: SPD node x's candidate modal bodies at `cand[x]..`
    /// (section 0), its lever slots at `cand[lever_at + x]..`, modal body b's reaction slots at
    /// `cand[rx_at + b]..`, modal-node slot s's candidate segments at `cand[seg_at + s]..`.
    pub lever_at: u32,
    pub rx_at: u32,
    pub seg_at: u32,
    pub pad1: u32,
    pub pad2: u32,
}

impl CoupleParams {
    /// The candidate sections' offsets for `n_spd` SPD nodes and `n_bodies` modal bodies.
    pub fn candidate_sections(n_spd: usize, n_bodies: usize) -> [u32; 3] {
        let lever_at = n_spd + 1;
        let rx_at = 2 * (n_spd + 1);
        [lever_at as u32, rx_at as u32, (rx_at + n_bodies + 1) as u32]
    }
}

/// One SPD body as the coupling passes see it (binding 16).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct CellRec {
    pub first: u32,
    pub count: u32,
    /// Half-thickness r of the shell.
    pub radius: f32,
    /// `CELL_*` bits (`coupled::CELL_COUPLED`, `CELL_FROZEN`, `CELL_OPEN`); 1 is a free closed
    /// cell, 0 a body that is not coupled.
    pub coupled: u32,
    /// The SPD body's contact material (`Body::contact_material`), a row of the law table
    /// (`modal::packed::Packed::laws`) for its contacts with modal bodies.
    pub contact_material: u32,
}

/// Contact of one modal surface node with one SPD cell (binding 22): the closest segment
/// X → X+1 of the cell, the lever parameter t of the closest point, force on the modal node,
/// friction history (global frame).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct SegSlot {
    pub force: [f32; 2],
    pub hist: [f32; 2],
    /// Start node X of the segment (global SPD node index).
    pub seg: u32,
    pub t: f32,
    /// SPD body index (NONE when the slot is empty).
    pub partner: u32,
    pub active: u32,
}

impl Default for SegSlot {
    fn default() -> Self {
        SegSlot {
            force: [0.0; 2],
            hist: [0.0; 2],
            seg: crate::modal::layout::NONE,
            t: 0.0,
            partner: crate::modal::layout::NONE,
            active: 0,
        }
    }
}
