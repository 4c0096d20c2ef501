//! What the coupling puts into the shared broad phase (`crate::broad_phase`): the bounding
//! circles of the SPD bodies (centroid of its nodes, radius = farthest node + r; bodies not
//! coupled are left out) against those of the modal bodies (X and `bound_radius`), and the
//! fixed-width lists both sides index: per modal body its nearby cells (sorted by cell index) and,
//! per cell, its nearby modal bodies (sorted by body index), each entry with the partner's slot
//! index of the pair (`back`), so the gathers of both sides find the slots of a pair. Built on the
//! host on the modal schedule (`rebuild_every` steps), for both backends; [`remap_spd_slots`] and
//! [`remap_mnode_slots`] lay the coupling slot pools out for the new lists and move the friction
//! history to the partner's new slot with the shared history remap
//! (`crate::broad_phase::history::carry_pool`).

use super::layout::{CellRec, SegSlot};
use super::{MAX_CELLS, MAX_MB};
use crate::broad_phase::circles::{near_lists, pad_cross, Circle};
use crate::broad_phase::history::{carry_pool, Interleaved};
use crate::broad_phase::pool::SlotPool;
use crate::modal::layout::{ModalSlot, NONE};
use crate::modal::stepper::Packed;

/// The coupling lists: `cell_mb[2 (c · MAX_MB + u)]` = modal body, `+ 1` = index of c in that
/// body's list; `mb_cells[2 (b · MAX_CELLS + t)]` = cell, `+ 1` = index of b in that cell's list.
/// NONE-padded.
#[derive(Clone, Debug, PartialEq)]
pub struct CoupleLists {
    pub cell_mb: Vec<u32>,
    pub mb_cells: Vec<u32>,
}

impl CoupleLists {
    pub fn empty(n_cells: usize, n_modal: usize) -> CoupleLists {
        CoupleLists {
            cell_mb: vec![NONE; 2 * n_cells * MAX_MB],
            mb_cells: vec![NONE; 2 * n_modal * MAX_CELLS],
        }
    }
}

/// Bounding circle of each SPD body; radius −1 for bodies that are not coupled.
pub fn cell_circles(cells: &[CellRec], pos: &[[f32; 2]]) -> Vec<Circle> {
    cells
        .iter()
        .map(|c| {
            if c.coupled == 0 {
                return Circle {
                    centre: [0.0; 2],
                    radius: -1.0,
                };
            }
            let nodes = &pos[c.first as usize..(c.first + c.count) as usize];
            let mut m = [0.0f64; 2];
            for p in nodes {
                m[0] += p[0] as f64;
                m[1] += p[1] as f64;
            }
            let m = [(m[0] / nodes.len() as f64) as f32, (m[1] / nodes.len() as f64) as f32];
            let r = nodes
                .iter()
                .map(|p| ((p[0] - m[0]).powi(2) + (p[1] - m[1]).powi(2)).sqrt())
                .fold(0.0, f32::max);
            Circle {
                centre: m,
                radius: r + c.radius,
            }
        })
        .collect()
}

/// Lists of nearby (cell, modal body) pairs: circles closer than `skin`.
pub fn couple_lists(cells: &[Circle], modal: &[Circle], skin: f32) -> anyhow::Result<CoupleLists> {
    let per_body = near_lists(modal, cells, false, skin);
    let (mb_cells, cell_mb) = pad_cross(
        &per_body,
        cells.len(),
        (MAX_CELLS, "modal body", "MAX_CELLS"),
        (MAX_MB, "SPD cell", "MAX_MB"),
    )?;
    Ok(CoupleLists { cell_mb, mb_cells })
}

/// The SPD nodes' coupling pool for the new lists: one slot per modal body listed for the node's
/// cell, each with the friction history of the same body's old slot (or empty).
pub fn remap_spd_slots(
    cells: &[CellRec],
    old: &SlotPool<ModalSlot>,
    old_l: &CoupleLists,
    new_l: &CoupleLists,
) -> SlotPool<ModalSlot> {
    let owners = cells
        .iter()
        .enumerate()
        .flat_map(|(c, cell)| (cell.first as usize..(cell.first + cell.count) as usize).map(move |x| (x, c)));
    let (o, n) = (Interleaved(&old_l.cell_mb, MAX_MB), Interleaved(&new_l.cell_mb, MAX_MB));
    carry_pool(old, owners, 0, &o, &n)
}

/// The modal nodes' coupling pool for the new lists: one slot per cell listed for the node's
/// body, each with the history of the same cell's old slot (or empty).
pub fn remap_mnode_slots(
    p: &Packed,
    old: &SlotPool<SegSlot>,
    old_l: &CoupleLists,
    new_l: &CoupleLists,
) -> SlotPool<SegSlot> {
    let owners = p.nodes.iter().enumerate().map(|(k, n)| (k, n.body as usize));
    let (o, n) = (
        Interleaved(&old_l.mb_cells, MAX_CELLS),
        Interleaved(&new_l.mb_cells, MAX_CELLS),
    );
    carry_pool(old, owners, 0, &o, &n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When a new partner enters a list ahead of an old one, the old partner's slot (and its
    /// friction history) moves with it; a partner that left is dropped; the new one starts empty.
    #[test]
    fn remap_moves_history_with_its_partner() {
        let cells = vec![CellRec {
            first: 0,
            count: 2,
            radius: 0.1,
            coupled: 1,
            contact_material: 0,
        }];
        let mut old_l = CoupleLists::empty(1, 3);
        let mut new_l = CoupleLists::empty(1, 3);
        // Cell 0 listed modal bodies [1, 2] before, [0, 1] now.
        old_l.cell_mb[0] = 1;
        old_l.cell_mb[2] = 2;
        new_l.cell_mb[0] = 0;
        new_l.cell_mb[2] = 1;
        let slot = |partner: u32, h: f32| ModalSlot {
            hist: [h, -h],
            partner,
            active: 1,
            ..ModalSlot::default()
        };
        let mut old = SlotPool::with_counts([2, 2]);
        for x in 0..2 {
            old.slots[2 * x] = slot(1, 1.0 + x as f32);
            old.slots[2 * x + 1] = slot(2, 5.0);
        }
        let new = remap_spd_slots(&cells, &old, &old_l, &new_l);
        assert_eq!(new.start, vec![0, 2, 4], "two listed bodies, two slots per node");
        for x in 0..2 {
            assert_eq!(new.of(x)[0], ModalSlot::default(), "new partner 0 starts empty");
            assert_eq!(new.of(x)[1], slot(1, 1.0 + x as f32), "history of partner 1 moved");
            assert!(new.of(x).iter().all(|s| s.partner != 2), "partner 2 dropped");
        }
        // A cell whose list empties keeps no slot.
        let none = remap_spd_slots(&cells, &new, &new_l, &CoupleLists::empty(1, 3));
        assert_eq!(none.start, vec![0, 0, 0]);
    }
}
