//! Per-point contact functions of the coupling (CPU twins of the functions of the same names in
//! shaders/modal_spd_contact.wgsl, same order of operations).
//!
//! - `spd_point_vs_body`: an SPD node (centre d relative to X_j, radius r) against modal body j's
//!   deformed level set: `modal::contact::point_vs_body` with gap = φ − r (§3.2 with the node's
//!   half-thickness), the bounding circle widened by r.
//! - `modal_node_vs_cell`: a modal surface node against the sphero-segments of one SPD body (a
//!   cell, a beam or a wall): the closest point over its segments X → X+1 (first in node order on
//!   ties; no closing segment on an open line), gap = d − r.

use super::layout::{CellRec, SegSlot};
use crate::modal::contact::{contact_law, displacement, ls_query, rot, rot_t, sin_cos_det, ContactOut};
use crate::modal::layout::{ModalParams, ModalState};
use crate::modal::stepper::Packed;
use crate::model::NodeState;

/// SPD node of radius r against body j (d: node centre relative to X_j, global frame; `vel`: its
/// velocity). Returns the contact, the node centre in j's frame q and j's material point
/// p_ref = q − u(q) (eq 47) there; the reaction −f acts on j at q (the line of the force passes
/// through the node centre, so angular momentum is kept).
pub fn spd_point_vs_body(
    sc: &Packed,
    j: usize,
    sj: &ModalState,
    d: [f32; 2],
    vel: [f32; 2],
    hist: [f32; 2],
    r: f32,
) -> (ContactOut, [f32; 2], [f32; 2]) {
    let bj = &sc.bodies[j];
    let reach = bj.bound_radius + r;
    if d[0] * d[0] + d[1] * d[1] > reach * reach {
        return (ContactOut::default(), [0.0; 2], [0.0; 2]);
    }
    let (s, c) = sin_cos_det(sj.theta);
    let q = rot_t(c, s, d);
    let ls = ls_query(sc, j, &sj.eps, q);
    // §3.2: the node's surface is r outside its centre.
    let gap = ls[0] - r;
    if ls[3] == 0.0 || gap >= 0.0 {
        return (ContactOut::default(), q, [0.0; 2]);
    }
    let gl = (ls[1] * ls[1] + ls[2] * ls[2]).sqrt();
    let nl = if gl > 0.0 { [ls[1] / gl, ls[2] / gl] } else { [1.0, 0.0] };
    let n = rot(c, s, nl);
    let u = displacement(sc, bj, &sj.eps, q);
    let p_ref = [q[0] - u[0], q[1] - u[1]];
    // Velocity of j's material point at q: V + ω × d + R Σ ε̇_α Φ_α(p_ref).
    let ud = displacement(sc, bj, &sj.eps_dot, p_ref);
    let udg = rot(c, s, ud);
    let vj = [sj.v[0] - sj.omega * d[1] + udg[0], sj.v[1] + sj.omega * d[0] + udg[1]];
    let vrel = [vel[0] - vj[0], vel[1] - vj[1]];
    (contact_law(&sc.params, gap, n, vrel, hist), q, p_ref)
}

/// A modal surface node at x_hi + x_lo (velocity `vel`) against the sphero-segments of SPD cell
/// `ci` (`spd`: node states at x_{n+1}, `vh`: v_{n+½}). The slot's force acts on the modal node;
/// the segment's ends take −(1−t) f and −t f.
#[allow(clippy::too_many_arguments)]
pub fn modal_node_vs_cell(
    p: &ModalParams,
    cell: &CellRec,
    ci: u32,
    spd: &[NodeState],
    vh: &[[f32; 2]],
    x_hi: [f32; 2],
    x_lo: [f32; 2],
    vel: [f32; 2],
    hist: [f32; 2],
) -> SegSlot {
    let mut best = f32::INFINITY;
    let mut seg = cell.first;
    let mut t_best = 0.0f32;
    let mut cp_best = [0.0f32; 2];
    // Segments X → X+1: count of them on a closed shell, count − 1 on an open line.
    let nseg = if cell.coupled & super::CELL_OPEN != 0 {
        cell.count.saturating_sub(1)
    } else {
        cell.count
    };
    if nseg == 0 {
        return SegSlot {
            partner: ci,
            ..SegSlot::default()
        };
    }
    for i in 0..nseg {
        let a = cell.first + i;
        let b = cell.first + (i + 1) % cell.count;
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
    let va = vh[seg as usize];
    let vb = vh[next as usize];
    let vs = [
        (1.0 - t_best) * va[0] + t_best * vb[0],
        (1.0 - t_best) * va[1] + t_best * vb[1],
    ];
    let vrel = [vel[0] - vs[0], vel[1] - vs[1]];
    let o = contact_law(p, gap, n, vrel, hist);
    SegSlot {
        force: o.force,
        hist: o.hist,
        seg,
        t: t_best,
        partner: ci,
        active: o.active,
    }
}
