//! Twin of `shaders/node_forces.wgsl`: everything that acts on node X at x_{n+1}, then the second
//! half of velocity Verlet (§2.4).
//!
//! Internal forces are gathered, not scattered: X reads the `ShellForce` records that
//! `shell_forces` wrote for X−1, X and X+1 (stretch and core pressure of both its segments, bending
//! of the three vertices X−1, X, X+1). Contact
//! forces are read from the pooled slots of X's entries and, for reactions, of the mirror entries
//! in the neighbours' lists (Fig. 5 lever rule), and cohesive-link forces from the link table. No
//! atomics: the sum order is fixed (list order, whatever the slots' places in the pool), so runs
//! are bit-identical.

use super::integrate::half_kick;
use crate::broad_phase::history::find_sorted;
use crate::model::lanes::Real;
use crate::model::*;

/// Where node_forces reads the `ShellForce` records: the records themselves (the WGSL twin's
/// buffer), or the CPU stepper's columns (`shell_columns`).
pub trait ShellRecords {
    fn record(&self, x: usize) -> ShellForce;
}

impl ShellRecords for [ShellForce] {
    #[inline(always)]
    fn record(&self, x: usize) -> ShellForce {
        self[x]
    }
}

/// What node_forces writes for node X.
pub struct NodeUpdate {
    pub vel: [f32; 2],
    pub force: [f32; 2],
}

/// Everything on node X and the second Verlet half-step. `modal`: the node's force from modal
/// bodies in the coupled stepper (the gathered contacts, `coupled::cpu::spd_modal_gather`), added
/// after the cohesive links; `None` in SPD-only runs. The WGSL twin has one entry point per case
/// (`node_forces` and `node_forces_modal`, which alone binds the modal forces), both node_force_sum
/// then node_force_finish like this function.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn node_forces(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bcs: &[NodeBc],
    bodies: &[Body],
    shell: &(impl ShellRecords + ?Sized),
    vh: [f32; 2],
    start: &[u32],
    entries: &[Entry],
    slot_index: &[u32],
    pool: &[ContactSlot],
    slot_marks: &[u32],
    link_start: &[u32],
    link_list: &[u32],
    link_force: &[[f32; 2]],
    modal: Option<[f32; 2]>,
) -> NodeUpdate {
    let mut f = node_force_sum(
        x, nodes, bodies, shell, start, entries, slot_index, pool, slot_marks, link_start, link_list, link_force,
    );
    if let Some(m) = modal {
        f[0] += m[0];
        f[1] += m[1];
    }
    node_force_finish(x, p, nodes, bcs, bodies, vh, f)
}

/// Shell, contact and cohesive-link forces on node X (twin of `node_force_sum`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn node_force_sum(
    x: usize,
    nodes: &[NodeRecord],
    bodies: &[Body],
    shell: &(impl ShellRecords + ?Sized),
    start: &[u32],
    entries: &[Entry],
    slot_index: &[u32],
    pool: &[ContactSlot],
    slot_marks: &[u32],
    link_start: &[u32],
    link_list: &[u32],
    link_force: &[[f32; 2]],
) -> [f32; 2] {
    let n = nodes[x];
    let body = bodies[n.body as usize];
    let mut f = [0.0f32, 0.0f32];
    let frozen = body.flags & BODY_FROZEN != 0;
    if !frozen {
        // Stretch (eq 1–2) of segments X → X+1 (on its start: −) and X−1 → X (on its end: +).
        if n.next != NONE {
            let s = shell.record(x).stretch;
            f[0] -= s[0];
            f[1] -= s[1];
        }
        if n.prev != NONE {
            let s = shell.record(n.prev as usize).stretch;
            f[0] += s[0];
            f[1] += s[1];
        }
        // Bending (eq 3, 9–10) of vertices X−1, X, X+1: F = −M ∂θ/∂x (zero where a vertex has no
        // two segments).
        if n.prev != NONE {
            let b = shell.record(n.prev as usize).bend_c;
            f[0] -= b[0];
            f[1] -= b[1];
        }
        let own = shell.record(x);
        // On X itself: M (∂θ/∂x_{X−1} + ∂θ/∂x_{X+1}) (the couples sum to zero).
        f[0] += own.bend_a[0] + own.bend_c[0];
        f[1] += own.bend_a[1] + own.bend_c[1];
        if n.next != NONE {
            let b = shell.record(n.next as usize).bend_a;
            f[0] -= b[0];
            f[1] -= b[1];
        }
        // Core pressure on both segments (§2.4), half of each segment's force.
        if body.flags & BODY_CLOSED != 0 && body.core_model != CORE_NONE {
            let fa = shell.record(n.prev as usize).pressure;
            let fb = own.pressure;
            f[0] += fa[0] + fb[0];
            f[1] += fa[1] + fb[1];
        }
    }
    // Contacts: own slots (X as node C), reactions from the neighbours' slots (X as segment end).
    // Entries without a contact have no slot (`NO_SLOT`); a node without any slot is unmarked
    // (`has_slots`), so its entries, or the mirror entries in its list, are not looked at: the
    // terms skipped are the absent ones, the sum and its order are the same. `slot_marks` holds
    // both halves of the marks (slot marks, then gather marks).
    let slot = |e: u32| -> Option<&ContactSlot> {
        let i = slot_index[e as usize];
        (i != NO_SLOT).then(|| &pool[i as usize])
    };
    let x_marked = has_slots(slot_marks, x as u32);
    // No slot of this step acts on X (`gathers`): none of its entries has a term.
    let entries_of_x = if gathers(slot_marks, x as u32) {
        start[x]..start[x + 1]
    } else {
        0..0
    };
    for e in entries_of_x {
        let en = entries[e as usize];
        let d_marked = has_slots(slot_marks, en.neighbor);
        if !x_marked && !d_marked {
            continue;
        }
        let own = if x_marked { slot(e) } else { None };
        let (m, pm) = if d_marked {
            mirror_entries(x as u32, n.prev, en.neighbor, start, entries)
        } else {
            (NONE, NONE)
        };
        let mirror = if d_marked { slot(m) } else { None };
        if let Some(s) = own.filter(|s| s.flags & SLOT_SEG != 0) {
            f[0] += s.seg_force[0];
            f[1] += s.seg_force[1];
        }
        if let Some(ms) = mirror.filter(|s| s.flags & SLOT_SEG != 0) {
            // Neighbour D against segment X → X+1: X is the start, weight 1 − w.
            let w = 1.0 - ms.seg_w;
            f[0] -= w * ms.seg_force[0];
            f[1] -= w * ms.seg_force[1];
        }
        if pm != NONE {
            if let Some(ps) = slot(pm).filter(|s| s.flags & SLOT_SEG != 0) {
                // Neighbour D against segment X−1 → X: X is the end, weight w.
                f[0] -= ps.seg_w * ps.seg_force[0];
                f[1] -= ps.seg_w * ps.seg_force[1];
            }
        }
        if (x as u32) < en.neighbor {
            if let Some(s) = own.filter(|s| s.flags & SLOT_CAP != 0) {
                f[0] += s.cap_force[0];
                f[1] += s.cap_force[1];
            }
        } else if let Some(ms) = mirror.filter(|s| s.flags & SLOT_CAP != 0) {
            f[0] -= ms.cap_force[0];
            f[1] -= ms.cap_force[1];
        }
    }
    // Cohesive links (§7): + force on a, − on b; entries are link · 2 + side. (The emptiness test
    // is loop-invariant in the stepper's node loop: scenes without links skip the table.)
    let links = if link_list.is_empty() {
        &[]
    } else {
        &link_list[link_start[x] as usize..link_start[x + 1] as usize]
    };
    for &e in links {
        let lf = link_force[(e >> 1) as usize];
        if e & 1 == 0 {
            f[0] += lf[0];
            f[1] += lf[1];
        } else {
            f[0] -= lf[0];
            f[1] -= lf[1];
        }
    }
    f
}

/// In the list of X's neighbour D: the entry for X (it exists: lists are symmetric) and the entry
/// for X's predecessor `prev` (or `NONE`), whose segment prev → X has X as its end (twin of
/// `mirror_entries`). Lists are sorted, so prev = X − 1 sits just before X.
#[inline]
pub fn mirror_entries(x: u32, prev: u32, d: u32, start: &[u32], entries: &[Entry]) -> (u32, u32) {
    let (first, end) = (start[d as usize], start[d as usize + 1]);
    let (mut lo, mut hi) = (first, end);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if entries[mid as usize].neighbor < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let m = lo;
    let pm = if prev == NONE {
        NONE
    } else if prev + 1 == x {
        if m > first && entries[m as usize - 1].neighbor == prev {
            m - 1
        } else {
            NONE
        }
    } else {
        find_sorted(first, end, prev, |k| entries[k].neighbor)
    };
    (m, pm)
}

/// Gravity, added forces and damping, then the second Verlet half-step (twin of
/// `node_force_finish`).
#[inline]
pub fn node_force_finish(
    x: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bcs: &[NodeBc],
    bodies: &[Body],
    vh: [f32; 2],
    f_in: [f32; 2],
) -> NodeUpdate {
    let n = nodes[x];
    let frozen = bodies[n.body as usize].flags & BODY_FROZEN != 0;
    let mut f = f_in;
    // The node's boundary condition; none = no imposed component, zero added force.
    let c = if n.bc != NONE {
        bcs[n.bc as usize]
    } else {
        NodeBc::default()
    };
    if !frozen {
        f = external_and_damping(p, n.mass, vh, f, c.force);
    }
    let mut vel = half_kick(p.dt, n.mass, vh, f);
    if c.mode & BC_VX != 0 {
        vel[0] = c.velocity[0];
    }
    if c.mode & BC_VY != 0 {
        vel[1] = c.velocity[1];
    }
    NodeUpdate { vel, force: f }
}

/// Gravity, the added force `added` and the damping (global viscous, local non-viscous for
/// quasi-static runs) on a free node of mass m with v_{n+½} = `vh` and force `f`; generic over
/// `Real` so that the node pass's lanes (`node_lanes`) run this one copy.
#[inline(always)]
pub fn external_and_damping<T: Real>(p: &SimParams, mass: T, vh: [T; 2], f: [T; 2], added: [T; 2]) -> [T; 2] {
    let mut f = f;
    for d in 0..2 {
        f[d] = f[d] + mass * T::splat(p.gravity[d]);
        f[d] = f[d] + added[d];
        f[d] = f[d] - T::splat(p.viscous_damping) * mass * vh[d];
        f[d] = f[d] - T::splat(p.local_damping) * f[d].abs() * sign(vh[d]);
    }
    f
}

/// WGSL `sign`: −1, 0 or +1 (0 for NaN).
#[inline(always)]
pub fn sign<T: Real>(v: T) -> T {
    let zero = T::splat(0.0);
    T::select(v.gt(zero), T::splat(1.0), T::select(v.lt(zero), T::splat(-1.0), zero))
}
