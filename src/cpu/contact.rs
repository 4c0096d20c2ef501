//! Twin of `shaders/contact.wgsl`: contact geometry between sphero-segments (Fig. 4) and the
//! contact law (eq 5–8).
//!
//! Each geometric contact is found exactly once:
//! - node C against the *interior* of segment A → B: 0 ≤ (C−A)·(B−A) and (C−B)·(B−A) < 0
//!   (half-open, Fig. 4b);
//! - node C against node D (the caps, Fig. 4a/4c) only when each lies in the other's vertex
//!   region, i.e. beyond both adjacent segments' interiors. The vertex-region test uses the very
//!   same dot products as the interior tests with the opposite comparison, so the regions
//!   partition the plane exactly and a node sliding over a convex joint passes from segment to cap
//!   to segment with a continuous force and never two at once;
//! - at a concave joint C may lie in both adjacent interiors: only the closer segment acts.

use crate::model::df32::{df_sub, dot};
use crate::model::*;

/// Contact parameters as the law needs them.
pub struct LawParams {
    pub k_n: f32,
    pub k_t: f32,
    pub mu: f32,
    pub c_n: f32,
    pub dt: f32,
}

impl LawParams {
    /// The pair law `law` (an entry of the contact law table, `model::contact_table`) at step dt.
    pub fn new(law: &ContactLaw, dt: f32) -> Self {
        LawParams {
            k_n: law.k_n,
            k_t: law.k_t,
            mu: law.mu,
            c_n: law.c_n,
            dt,
        }
    }
}

/// Result of the contact law on node C.
pub struct ContactForce {
    pub force: [f32; 2],
    pub f_n: f32,
    pub f_t: f32,
}

/// Eq 6–8: f_n = k_n δ (+ optional dashpot, never attractive), f_t incremental with
/// δf_t = −k_t δu_t capped at μ f_n. `n` points from the partner towards C, `vrel` is C's velocity
/// relative to the partner's contact point, t = n × z.
#[inline]
pub fn contact_law(lp: &LawParams, overlap: f32, n: [f32; 2], vrel: [f32; 2], ft_old: f32) -> ContactForce {
    let vn = dot(vrel, n);
    let f_n = (lp.k_n * overlap - lp.c_n * vn).max(0.0);
    let t = [n[1], -n[0]];
    let du_t = dot(vrel, t) * lp.dt;
    let lim = lp.mu * f_n;
    let f_t = (ft_old - lp.k_t * du_t).clamp(-lim, lim);
    ContactForce {
        force: [f_n * n[0] + f_t * t[0], f_n * n[1] + f_t * t[1]],
        f_n,
        f_t,
    }
}

/// True when P projects into the half-open interior of segment A → B.
#[inline]
pub fn in_segment_interior(p: &NodeState, a: &NodeState, b: &NodeState) -> bool {
    let ab = df_sub(b.pos_hi, b.pos_lo, a.pos_hi, a.pos_lo);
    let ap = df_sub(p.pos_hi, p.pos_lo, a.pos_hi, a.pos_lo);
    let bp = df_sub(p.pos_hi, p.pos_lo, b.pos_hi, b.pos_lo);
    dot(ap, ab) >= 0.0 && dot(bp, ab) < 0.0
}

/// Distance vector from the closest point of segment A → B to P, and the lever weight w = a/ℓ.
#[inline]
pub fn segment_offset(p: &NodeState, a: &NodeState, b: &NodeState) -> ([f32; 2], f32) {
    let ab = df_sub(b.pos_hi, b.pos_lo, a.pos_hi, a.pos_lo);
    let ap = df_sub(p.pos_hi, p.pos_lo, a.pos_hi, a.pos_lo);
    let w = dot(ap, ab) / dot(ab, ab);
    ([ap[0] - w * ab[0], ap[1] - w * ab[1]], w)
}

/// True when P lies in the vertex region of node V (not in the interior of either segment at V).
#[inline]
pub fn in_vertex_region(p: &NodeState, v: u32, nodes: &[NodeRecord], pos: &[NodeState]) -> bool {
    let nv = nodes[v as usize];
    let pv = &pos[v as usize];
    let vp = df_sub(p.pos_hi, p.pos_lo, pv.pos_hi, pv.pos_lo);
    if nv.prev != NONE {
        let a = &pos[nv.prev as usize];
        let av = df_sub(pv.pos_hi, pv.pos_lo, a.pos_hi, a.pos_lo);
        if dot(vp, av) < 0.0 {
            return false;
        }
    }
    if nv.next != NONE {
        let b = &pos[nv.next as usize];
        let vb = df_sub(b.pos_hi, b.pos_lo, pv.pos_hi, pv.pos_lo);
        if dot(vp, vb) >= 0.0 {
            return false;
        }
    }
    true
}

/// Distance from P to segment A → B when P is in its interior, else the largest finite f32 (a
/// finite sentinel, as in the WGSL twin: a fast-math GPU compiler may assume no infinities).
/// Callers compare it with the finite distance of an active contact.
#[inline]
pub fn interior_distance(p: &NodeState, a: &NodeState, b: &NodeState) -> f32 {
    if !in_segment_interior(p, a, b) {
        return f32::MAX;
    }
    let (d, _) = segment_offset(p, a, b);
    dot(d, d).sqrt()
}
