//! What the coupling puts into the shared broad phase (`crate::broad_phase`), in two levels,
//! built on the host on the modal schedule (`rebuild_every` steps) for both backends:
//!
//! 1. Bodies: the bounding circles of the SPD bodies (centroid of its nodes, radius = farthest
//!    node + r; bodies not coupled are left out) against those of the modal bodies (X and
//!    `bound_radius`), as fixed-width lists of both sides: per modal body its nearby cells
//!    (sorted by cell index) and, per cell, its nearby modal bodies (sorted by body index). A
//!    modal surface node has one coupling slot per cell listed for its body.
//! 2. Primitives ([`couple_candidates`]): within those pairs, the candidates of each contact
//!    primitive — per SPD node (a point of a free cell), the modal level sets within its reach
//!    (one slot each); per modal-node slot (a point against one cell), the cell's sphero-segments
//!    within its reach — and the reverse lists the gathers walk (per SPD node the modal-node slots
//!    whose segments end at it, per modal body the SPD-node slots that point to it). So the work
//!    of a step grows with the primitives near each other, not with how finely a wall or a long
//!    cell is segmented (`docs/architecture.md`, *One broad phase*).
//!
//! Reach: a pair is a candidate when its primitives are within their contact distance + skin at
//! the build; the driver checks that no SPD node of a coupled cell, modal centre or modal surface
//! node (of a body with listed cells) moved skin/2 before the next one
//! (`broad_phase::schedule::check_moved`), so every contact of the batch is among the candidates.
//! Each list is in the order the former whole-cell and whole-body loops visited, less entries
//! that can hold no contact: results are bit-identical to those loops.
//!
//! [`remap_spd_slots`] and [`remap_mnode_slots`] lay the coupling slot pools out for the new lists
//! and move the friction history to the partner's new slot with the shared history remap
//! (`crate::broad_phase::history::carry_pool`).

use super::layout::{CellRec, CoupleParams, SegSlot};
use super::{CELL_COUPLED, CELL_FROZEN, CELL_OPEN, DIR_MODAL_NODES, DIR_SPD_NODES, MAX_CELLS, MAX_MB};
use crate::broad_phase::circles::{near_lists, pad_cross, Circle};
use crate::broad_phase::history::{carry_pool, Csr, Plain};
use crate::broad_phase::pool::SlotPool;
use crate::broad_phase::primitives::{check_sections, distance, pack_sections, points_near_bodies, slots_per_partner};
use crate::modal::layout::{ModalSlot, NONE};
use crate::modal::stepper::Packed;

/// The coupling lists. Bodies: `cell_mb[c · MAX_MB + u]` = modal body and
/// `mb_cells[b · MAX_CELLS + t]` = cell, sorted, NONE-padded. Primitives: `cand`, four CSR
/// sections in one array, offsets absolute (`CoupleParams::candidate_sections`): SPD node x's
/// candidate modal bodies `cand[cand[x]..cand[x + 1]]` (sorted; its coupling slots, in that
/// order); at `lever_at + x` the modal-node slots whose candidate segments start or end at x
/// (sorted); at `rx_at + b` the SPD-node slots of body b (sorted); at `seg_at + s` the start
/// nodes of modal-node slot s's candidate segments (sorted).
#[derive(Clone, Debug, PartialEq)]
pub struct CoupleLists {
    pub cell_mb: Vec<u32>,
    pub mb_cells: Vec<u32>,
    pub cand: Vec<u32>,
}

impl CoupleLists {
    /// No pair listed, for `n_spd` SPD nodes.
    pub fn empty(n_cells: usize, n_modal: usize, n_spd: usize) -> CoupleLists {
        let n = CoupleParams::candidate_sections(n_spd, n_modal)[2] as usize + 1;
        CoupleLists {
            cell_mb: vec![NONE; n_cells * MAX_MB],
            mb_cells: vec![NONE; n_modal * MAX_CELLS],
            cand: vec![n as u32; n],
        }
    }
}

/// What the candidates read of the coupling statics (`backend::CoupleStatic`).
pub struct Statics<'a> {
    pub cells: &'a [CellRec],
    /// SPD body of each SPD node.
    pub node_cell: &'a [u32],
    /// `CoupleParams::directions`.
    pub directions: u32,
}

/// Where the primitives were at a build (the candidates' reach is measured there).
pub struct BuildPositions<'a> {
    /// SPD node positions.
    pub spd: &'a [[f32; 2]],
    /// Modal body centres X.
    pub centres: &'a [[f32; 2]],
    /// Modal surface node positions.
    pub mnodes: &'a [[f32; 2]],
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

/// Lists of nearby (cell, modal body) pairs: circles closer than `skin`; no candidates yet
/// ([`couple_candidates`] fills them).
pub fn couple_lists(cells: &[Circle], modal: &[Circle], skin: f32) -> anyhow::Result<CoupleLists> {
    let per_body = near_lists(modal, cells, false, skin);
    let (mb_cells, cell_mb) = pad_cross(
        &per_body,
        cells.len(),
        (MAX_CELLS, "modal body", "MAX_CELLS"),
        (MAX_MB, "SPD cell", "MAX_MB"),
    )?;
    Ok(CoupleLists {
        cell_mb,
        mb_cells,
        cand: vec![],
    })
}

/// Distance from `x` to the segment a → b (f64).
fn to_segment(x: [f32; 2], a: [f32; 2], b: [f32; 2]) -> f64 {
    let d = |p: [f32; 2], q: [f32; 2]| [p[0] as f64 - q[0] as f64, p[1] as f64 - q[1] as f64];
    let (ra, e) = (d(x, a), d(b, a));
    let ee = e[0] * e[0] + e[1] * e[1];
    let t = if ee > 0.0 {
        ((ra[0] * e[0] + ra[1] * e[1]) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (ra[0] - t * e[0]).hypot(ra[1] - t * e[1])
}

/// The start nodes of cell `c`'s sphero-segments X → X+1 (no closing segment on an open line).
fn segments(cell: &CellRec) -> impl Iterator<Item = (u32, u32)> + '_ {
    let nseg = if cell.coupled & CELL_OPEN != 0 {
        cell.count.saturating_sub(1)
    } else {
        cell.count
    };
    (0..nseg).map(move |i| (cell.first + i, cell.first + (i + 1) % cell.count))
}

/// The coupled candidates over primitives for the body lists `l` (module doc), from the
/// positions at this build: fills `l.cand`. SPD node x (of a free coupled cell, with
/// `DIR_SPD_NODES`) lists modal body b of its cell's list when |x − X_b| ≤ bound_b + r + skin (the
/// reach of `point_vs_body`); modal node k's slot for cell c lists the segments of c within
/// r_c + skin of k (with `DIR_MODAL_NODES`; contact needs the distance below r_c).
pub fn couple_candidates(cs: &Statics, p: &Packed, l: &mut CoupleLists, at: &BuildPositions, skin: f32) {
    let (n_spd, n_bodies) = (cs.node_cell.len(), p.bodies.len());
    let dirs = cs.directions;
    let skin = skin as f64;
    // SPD nodes of free coupled cells: the modal bodies in reach; per body, the slots back.
    let free = |x: usize| {
        let c = cs.node_cell[x] as usize;
        let free = cs.cells[c].coupled & (CELL_COUPLED | CELL_FROZEN) == CELL_COUPLED;
        (free && dirs & DIR_SPD_NODES != 0).then_some(c)
    };
    let reach =
        |x: usize, b: u32| p.bodies[b as usize].bound_radius as f64 + cs.cells[cs.node_cell[x] as usize].radius as f64;
    let cell_bodies = Plain(&l.cell_mb, MAX_MB);
    let node_bodies = points_near_bodies(at.spd, free, &cell_bodies, at.centres, reach, skin);
    let rx = slots_per_partner(&node_bodies, 0, n_bodies);
    // Modal-node slots: per (body, cell) pair, the cell's segments within reach of the body's
    // nodes (their farthest distance from X + r_c + skin), then per node those within its reach.
    let mut seg_lists: Vec<Vec<u32>> = vec![];
    let mut lever: Vec<Vec<u32>> = vec![vec![]; n_spd];
    let mut near: Vec<Vec<Vec<(u32, u32)>>> = vec![vec![]; n_bodies];
    for (b, body) in p.bodies.iter().enumerate() {
        let nodes = body.node_first as usize..(body.node_first + body.node_count) as usize;
        let extent = nodes
            .clone()
            .map(|k| distance(at.mnodes[k], at.centres[b]))
            .fold(0.0, f64::max);
        for t in 0..MAX_CELLS {
            let c = l.mb_cells[b * MAX_CELLS + t];
            if c == NONE {
                break;
            }
            let cell = &cs.cells[c as usize];
            let reach = extent + cell.radius as f64 + skin;
            let segs = segments(cell)
                .filter(|&(a, e)| {
                    dirs & DIR_MODAL_NODES != 0
                        && to_segment(at.centres[b], at.spd[a as usize], at.spd[e as usize]) <= reach
                })
                .collect();
            near[b].push(segs);
        }
    }
    for (k, node) in p.nodes.iter().enumerate() {
        let b = node.body as usize;
        for (t, segs) in near[b].iter().enumerate() {
            let c = l.mb_cells[b * MAX_CELLS + t] as usize;
            let reach = cs.cells[c].radius as f64 + skin;
            let s = seg_lists.len() as u32;
            let mut list = vec![];
            for &(a, e) in segs {
                if to_segment(at.mnodes[k], at.spd[a as usize], at.spd[e as usize]) <= reach {
                    list.push(a);
                    // The slot's force goes to both ends of its segment (lever rule); once each.
                    for x in [a, e] {
                        let xs = &mut lever[x as usize];
                        if xs.last() != Some(&s) {
                            xs.push(s);
                        }
                    }
                }
            }
            seg_lists.push(list);
        }
    }
    // One array, sections in the order of `CoupleParams::candidate_sections`.
    l.cand = pack_sections(&[&node_bodies, &lever, &rx, &seg_lists]);
}

/// Whether `cand` (read from a checkpoint) is laid out for these pools: every section's offsets
/// rise within the array, SPD node x lists as many bodies as it has slots, modal-node slot s's
/// segments and every entry name an existing node, body or slot.
pub fn check_candidates(
    cand: &[u32],
    p: &CoupleParams,
    n_bodies: usize,
    spd_start: &[u32],
    n_mnode_slots: usize,
) -> anyhow::Result<()> {
    let n_spd = p.n_spd_nodes as usize;
    let n_spd_slots = *spd_start.last().unwrap_or(&0) as usize;
    let bad = |what: &str| anyhow::anyhow!("the checkpoint's coupling candidates do not fit the scene ({what})");
    // The sections of `CoupleParams::candidate_sections`, in order.
    let sections = [
        (n_spd, n_bodies),
        (n_spd, n_mnode_slots),
        (n_bodies, n_spd_slots),
        (n_mnode_slots, n_spd),
    ];
    check_sections(cand, &sections).map_err(bad)?;
    for x in 0..n_spd {
        if cand[x + 1] - cand[x] != spd_start[x + 1] - spd_start[x] {
            return Err(bad("SPD node slots"));
        }
    }
    Ok(())
}

/// The SPD nodes' coupling pool for the new candidates: one slot per modal body listed for the
/// node (`cand` section 0), each with the friction history of the same body's old slot (or
/// empty).
pub fn remap_spd_slots(old: &SlotPool<ModalSlot>, old_l: &CoupleLists, new_l: &CoupleLists) -> SlotPool<ModalSlot> {
    let owners = (0..old.owners()).map(|x| (x, x));
    carry_pool(old, owners, 0, &Csr(&old_l.cand, 0), &Csr(&new_l.cand, 0))
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
    let (o, n) = (Plain(&old_l.mb_cells, MAX_CELLS), Plain(&new_l.mb_cells, MAX_CELLS));
    carry_pool(old, owners, 0, &o, &n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When a new partner enters a node's list ahead of an old one, the old partner's slot (and
    /// its friction history) moves with it; a partner that left is dropped; the new one starts
    /// empty.
    #[test]
    fn remap_moves_history_with_its_partner() {
        // Two SPD nodes, three modal bodies: both nodes listed bodies [1, 2] before, [0, 1] now.
        let lists = |bodies: &[u32]| {
            let mut l = CoupleLists::empty(1, 3, 2);
            let n = l.cand.len() as u32;
            l.cand[0] = n;
            l.cand[1] = n + bodies.len() as u32;
            l.cand[2] = n + 2 * bodies.len() as u32;
            l.cand.extend(bodies.iter().chain(bodies));
            l
        };
        let (old_l, new_l) = (lists(&[1, 2]), lists(&[0, 1]));
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
        let new = remap_spd_slots(&old, &old_l, &new_l);
        assert_eq!(new.start, vec![0, 2, 4], "two listed bodies, two slots per node");
        for x in 0..2 {
            assert_eq!(new.of(x)[0], ModalSlot::default(), "new partner 0 starts empty");
            assert_eq!(new.of(x)[1], slot(1, 1.0 + x as f32), "history of partner 1 moved");
            assert!(new.of(x).iter().all(|s| s.partner != 2), "partner 2 dropped");
        }
        // A node whose list empties keeps no slot.
        let none = remap_spd_slots(&new, &new_l, &CoupleLists::empty(1, 3, 2));
        assert_eq!(none.start, vec![0, 0, 0]);
    }

    /// A checkpoint's candidates are taken only when they fit the scene and the slot pools.
    #[test]
    fn a_candidate_array_that_does_not_fit_is_refused() {
        let [lever_at, rx_at, seg_at] = CoupleParams::candidate_sections(2, 3);
        let p = CoupleParams {
            n_spd_nodes: 2,
            lever_at,
            rx_at,
            seg_at,
            ..bytemuck::Zeroable::zeroed()
        };
        assert!(check_candidates(&CoupleLists::empty(1, 3, 2).cand, &p, 3, &[0, 0, 0], 0).is_ok());
        let mut l = CoupleLists::empty(1, 3, 2);
        let n = l.cand.len() as u32;
        (l.cand[0], l.cand[1], l.cand[2]) = (n, n + 1, n + 2);
        l.cand.extend([2, 1]);
        assert!(check_candidates(&l.cand, &p, 3, &[0, 1, 2], 0).is_ok());
        let e = check_candidates(&l.cand, &p, 3, &[0, 2, 2], 0).unwrap_err().to_string();
        assert!(e.contains("SPD node slots"), "{e}");
        let e = check_candidates(&l.cand, &p, 2, &[0, 1, 2], 0).unwrap_err().to_string();
        assert!(e.contains("entries"), "body 2 of 2: {e}");
        l.cand[1] = n + 5;
        let e = check_candidates(&l.cand, &p, 3, &[0, 1, 2], 0).unwrap_err().to_string();
        assert!(e.contains("offsets"), "{e}");
    }
}
