//! Per-point contact functions of the coupling (CPU twins of the functions of the same names in
//! shaders/modal_spd_contact.wgsl, same order of operations).
//!
//! - `modal_node_vs_cell`: a modal surface node against the sphero-segments of one SPD body (a
//!   cell, a beam or a wall): the closest point over its candidate segments X → X+1 (those within
//!   reach at the last build, `coupled::broad_phase::couple_candidates`, in node order; first in
//!   node order on ties), gap = d − r.
//!
//! The other direction, an SPD node against a modal body's level set, is
//! `modal::contact::point_vs_body` with the node's half-thickness as r.

use super::layout::{CellRec, SegSlot};
use crate::modal::contact::contact_law;
use crate::modal::layout::ModalParams;
use crate::model::{ContactLaw, NodeState};

/// A modal surface node at x_hi + x_lo (velocity `vel`) against the sphero-segments of SPD cell
/// `ci` whose start nodes are `segs` (its candidates, sorted; `spd`: node states at x_{n+1} with
/// v_{n+½}, see `NodeState::vel`). The slot's force acts on the modal node; the segment's ends take
/// −(1−t) f and −t f. `law`: the table's entry for the modal body's and the cell's contact
/// materials (`Packed::pair_law`).
#[allow(clippy::too_many_arguments)]
pub fn modal_node_vs_cell(
    p: &ModalParams,
    law: &ContactLaw,
    cell: &CellRec,
    ci: u32,
    segs: &[u32],
    spd: &[NodeState],
    x_hi: [f32; 2],
    x_lo: [f32; 2],
    vel: [f32; 2],
    hist: [f32; 2],
) -> SegSlot {
    let mut best = f32::INFINITY;
    let mut seg = cell.first;
    let mut t_best = 0.0f32;
    let mut cp_best = [0.0f32; 2];
    if segs.is_empty() {
        return SegSlot {
            partner: ci,
            ..SegSlot::default()
        };
    }
    for &a in segs {
        let b = cell.first + (a - cell.first + 1) % cell.count;
        let sa = &spd[a as usize];
        let sb = &spd[b as usize];
        // Segment start relative to the node, and the segment vector (double-f32 differences).
        let ra = [
            (sa.pos_hi[0] - x_hi[0]) + (sa.pos_lo[0] - x_lo[0]),
            (sa.pos_hi[1] - x_hi[1]) + (sa.pos_lo[1] - x_lo[1]),
        ];
        let e = [
            (sb.pos_hi[0] - sa.pos_hi[0]) + (sb.pos_lo[0] - sa.pos_lo[0]),
            (sb.pos_hi[1] - sa.pos_hi[1]) + (sb.pos_lo[1] - sa.pos_lo[1]),
        ];
        let ee = e[0] * e[0] + e[1] * e[1];
        let mut t = 0.0f32;
        if ee > 0.0 {
            t = (-(ra[0] * e[0] + ra[1] * e[1]) / ee).clamp(0.0, 1.0);
        }
        // Closest point of the segment relative to the node.
        let cp = [ra[0] + t * e[0], ra[1] + t * e[1]];
        let d2 = cp[0] * cp[0] + cp[1] * cp[1];
        if d2 < best {
            best = d2;
            seg = a;
            t_best = t;
            cp_best = cp;
        }
    }
    let dist = best.sqrt();
    let gap = dist - cell.radius;
    // Written to match the WGSL `!(gap < 0.0)`: a NaN gap is no contact.
    if gap.is_nan() || gap >= 0.0 {
        return SegSlot {
            partner: ci,
            ..SegSlot::default()
        };
    }
    // Normal from the segment towards the modal node.
    let n = if dist > 0.0 {
        [-cp_best[0] / dist, -cp_best[1] / dist]
    } else {
        [0.0, 1.0]
    };
    let next = cell.first + (seg - cell.first + 1) % cell.count;
    let va = spd[seg as usize].vel;
    let vb = spd[next as usize].vel;
    let vs = [
        (1.0 - t_best) * va[0] + t_best * vb[0],
        (1.0 - t_best) * va[1] + t_best * vb[1],
    ];
    let vrel = [vel[0] - vs[0], vel[1] - vs[1]];
    let o = contact_law(law, p.dt, gap, n, vrel, hist);
    SegSlot {
        force: o.force,
        hist: o.hist,
        seg,
        t: t_best,
        partner: ci,
        active: o.active,
    }
}
