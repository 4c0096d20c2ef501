//! Twin of `shaders/shell_forces.wgsl`: the shell's internal forces, each evaluated once per step.
//!
//! Node X owns segment X → X+1 and vertex X: it evaluates the stretch law (eq 1–2) and the core
//! pressure (§2.4) of that segment and the bending law (eq 3, 9–10) of that vertex, writes the
//! forces into its `ShellForce` record and the new plastic state (ℓ_p, θ_p) into its node state.
//! `node_forces` then gathers the records of X−1, X and X+1. (Before this pass each node evaluated
//! the stretch of two segments and the bending of three vertices: twice and three times the work.)

use super::bending::bending;
use super::core_pressure::core_pressure;
use super::stretch::stretch;
use crate::model::lanes::{Point, ShellMaterial};
use crate::model::*;

/// Node x's record.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn shell_forces(
    x: usize,
    nodes: &[NodeRecord],
    bodies: &[Body],
    materials: &[Material],
    body_state: &[BodyState],
    old: &[NodeState],
    pos: &[NodeState],
) -> ShellForce {
    let n = nodes[x];
    let body = bodies[n.body as usize];
    let mut out = ShellForce {
        seg_rest: old[x].seg_rest,
        theta_p: old[x].theta_p,
        ..Default::default()
    };
    if body.flags & BODY_FROZEN != 0 {
        return out;
    }
    let m = ShellMaterial::from(&materials[body.material as usize]);
    if n.next != NONE {
        let b = n.next as usize;
        let (px, pb) = (Point::from(&pos[x]), Point::from(&pos[b]));
        // Stretch (eq 1–2) of the owned segment X → X+1.
        let s = stretch(&m, &px, &pb, old[x].seg_rest);
        out.stretch = s.force_on_b;
        out.seg_rest = s.rest;
        // Core pressure on the owned segment (§2.4), the force on each end.
        if body.flags & BODY_CLOSED != 0 && body.core_model != CORE_NONE {
            let bs = body_state[n.body as usize];
            let orientation = if bs.area >= 0.0 { 1.0 } else { -1.0 };
            out.pressure = core_pressure(m.depth, bs.pressure, orientation, &px, &pb);
        }
        // Bending (eq 3, 9–10) of the owned vertex X: F = −M ∂θ/∂x on X−1 and X+1.
        if n.prev != NONE {
            let pa = Point::from(&pos[n.prev as usize]);
            let bd = bending(&m, &pa, &px, &pb, old[x].theta_p);
            out.bend_a = [bd.moment * bd.grad_a[0], bd.moment * bd.grad_a[1]];
            out.bend_c = [bd.moment * bd.grad_c[0], bd.moment * bd.grad_c[1]];
            out.theta_p = bd.theta_p;
        }
    }
    out
}
