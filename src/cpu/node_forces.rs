//! Twin of `shaders/node_forces.wgsl`: everything that acts on node X at x_{n+1}, then the second
//! half of velocity Verlet (§2.4).
//!
//! Internal forces are gathered, not scattered: X evaluates the stretch law of both its segments,
//! the bending law of the three vertices X−1, X, X+1 and the core pressure on both segments;
//! the plastic state of segment X → X+1 and of vertex X is owned (written) by X alone. Contact
//! forces are read from the slots of X's entries and, for reactions, from the mirror entries in
//! the neighbours' lists (Fig. 5 lever rule), and cohesive-link forces from the link table. No atomics: the sum order is fixed, so runs are
//! bit-identical.

use super::bending::bending;
use super::core_pressure::core_pressure;
use super::stretch::stretch;
use crate::model::*;

/// What node_forces writes for node X.
pub struct NodeUpdate {
    pub vel: [f32; 2],
    pub force: [f32; 2],
    pub seg_rest: f32,
    pub theta_p: f32,
}

#[allow(clippy::too_many_arguments)]
pub fn node_forces(
    x: usize,
    p: &SimParams,
    nodes: &[Node],
    bodies: &[Body],
    materials: &[Material],
    body_state: &[BodyState],
    old: &[NodeState],
    pos: &[NodeState],
    vel_half: &[[f32; 2]],
    start: &[u32],
    entries: &[Entry],
    slots: &[ContactSlot],
    link_start: &[u32],
    link_list: &[u32],
    link_force: &[[f32; 2]],
) -> NodeUpdate {
    let n = nodes[x];
    let body = bodies[n.body as usize];
    let m = materials[body.material as usize];
    let mut f = [0.0f32, 0.0f32];
    let mut seg_rest = old[x].seg_rest;
    let mut theta_p = old[x].theta_p;
    let frozen = body.flags & BODY_FROZEN != 0;
    if !frozen {
        // Stretch (eq 1–2) of segments X → X+1 (owned) and X−1 → X.
        if n.next != NONE {
            let s = stretch(
                &m,
                &pos[x],
                &pos[n.next as usize],
                vel_half[x],
                vel_half[n.next as usize],
                old[x].seg_rest,
            );
            f[0] -= s.force_on_b[0];
            f[1] -= s.force_on_b[1];
            seg_rest = s.rest;
        }
        if n.prev != NONE {
            let a = n.prev as usize;
            let s = stretch(&m, &pos[a], &pos[x], vel_half[a], vel_half[x], old[a].seg_rest);
            f[0] += s.force_on_b[0];
            f[1] += s.force_on_b[1];
        }
        // Bending (eq 3, 9–10) at vertices X−1, X, X+1: F = −M ∂θ/∂x.
        for v in [n.prev, x as u32, n.next] {
            if v == NONE {
                continue;
            }
            let nv = nodes[v as usize];
            if nv.prev == NONE || nv.next == NONE {
                continue;
            }
            let (a, c) = (nv.prev as usize, nv.next as usize);
            let b = bending(
                &m,
                &pos[a],
                &pos[v as usize],
                &pos[c],
                vel_half[a],
                vel_half[v as usize],
                vel_half[c],
                old[v as usize].theta_p,
            );
            if v as usize == x {
                f[0] += b.moment * (b.grad_a[0] + b.grad_c[0]);
                f[1] += b.moment * (b.grad_a[1] + b.grad_c[1]);
                theta_p = b.theta_p;
            } else if v == n.next {
                f[0] -= b.moment * b.grad_a[0];
                f[1] -= b.moment * b.grad_a[1];
            } else {
                f[0] -= b.moment * b.grad_c[0];
                f[1] -= b.moment * b.grad_c[1];
            }
        }
        // Core pressure on both segments (§2.4), half of each segment's force.
        if body.flags & BODY_CLOSED != 0 && body.core_model != CORE_NONE {
            let bs = body_state[n.body as usize];
            let orientation = if bs.area >= 0.0 { 1.0 } else { -1.0 };
            let fa = core_pressure(m.depth, bs.pressure, orientation, &pos[n.prev as usize], &pos[x]);
            let fb = core_pressure(m.depth, bs.pressure, orientation, &pos[x], &pos[n.next as usize]);
            f[0] += fa[0] + fb[0];
            f[1] += fa[1] + fb[1];
        }
    }
    // Contacts: own slots (X as node C), reactions from the neighbours' slots (X as segment end).
    for e in start[x] as usize..start[x + 1] as usize {
        let en = entries[e];
        let s = slots[e];
        let ms = slots[en.mirror as usize];
        if s.flags & SLOT_SEG != 0 {
            f[0] += s.seg_force[0];
            f[1] += s.seg_force[1];
        }
        if ms.flags & SLOT_SEG != 0 {
            // Neighbour D against segment X → X+1: X is the start, weight 1 − w.
            let w = 1.0 - ms.seg_w;
            f[0] -= w * ms.seg_force[0];
            f[1] -= w * ms.seg_force[1];
        }
        if en.prev_mirror != NONE {
            let ps = slots[en.prev_mirror as usize];
            if ps.flags & SLOT_SEG != 0 {
                // Neighbour D against segment X−1 → X: X is the end, weight w.
                f[0] -= ps.seg_w * ps.seg_force[0];
                f[1] -= ps.seg_w * ps.seg_force[1];
            }
        }
        if (x as u32) < en.neighbor {
            if s.flags & SLOT_CAP != 0 {
                f[0] += s.cap_force[0];
                f[1] += s.cap_force[1];
            }
        } else if ms.flags & SLOT_CAP != 0 {
            f[0] -= ms.cap_force[0];
            f[1] -= ms.cap_force[1];
        }
    }
    // Cohesive links (§7): + force on a, − on b; entries are link · 2 + side.
    for &e in &link_list[link_start[x] as usize..link_start[x + 1] as usize] {
        let lf = link_force[(e >> 1) as usize];
        if e & 1 == 0 {
            f[0] += lf[0];
            f[1] += lf[1];
        } else {
            f[0] -= lf[0];
            f[1] -= lf[1];
        }
    }
    let vh = vel_half[x];
    if !frozen {
        f[0] += n.mass * p.gravity[0];
        f[1] += n.mass * p.gravity[1];
        f[0] += n.bc_force[0];
        f[1] += n.bc_force[1];
        // Global viscous damping and local non-viscous damping (quasi-static runs).
        f[0] -= p.viscous_damping * n.mass * vh[0];
        f[1] -= p.viscous_damping * n.mass * vh[1];
        f[0] -= p.local_damping * f[0].abs() * sign(vh[0]);
        f[1] -= p.local_damping * f[1].abs() * sign(vh[1]);
    }
    let h = 0.5 * p.dt / n.mass;
    let mut vel = [vh[0] + h * f[0], vh[1] + h * f[1]];
    if n.bc_mode & BC_VX != 0 {
        vel[0] = n.bc_velocity[0];
    }
    if n.bc_mode & BC_VY != 0 {
        vel[1] = n.bc_velocity[1];
    }
    NodeUpdate {
        vel,
        force: f,
        seg_rest,
        theta_p,
    }
}

/// WGSL `sign`: −1, 0 or +1.
fn sign(v: f32) -> f32 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}
