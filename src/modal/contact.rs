//! Per-node contact functions (CPU twins of shaders/modal_lib.wgsl, same names, same order of
//! operations). They take a point (and its velocity) and a body or wall and return the force and
//! the friction history, so phase 2 (SPD nodes against the modal level set) can call them as is.
//!
//! - `mode_eval`, `mode_at_node`, `displacement`, `displacement_at_node`: u = ε_α Φ_α (eq 1).
//! - `ls_query`: the body's query method, `ls_pullback` or `precomputed::ls_precomputed`.
//! - `ls_pullback`: the deformed level set at a point q of the body frame by the semi-Lagrangian
//!   pullback evaluated on demand at the four corners of q's cell (§3.1.3, eq 47–48):
//!   φ(c) = φ0(c − u(c)) at each corner c, then bilinear interpolation; no grid-wide update.
//! - `contact_law`: penalty normal force with dashpot, tangential spring with history and Coulomb
//!   limit (as in LS-DEM [15], and the SPD contacts of src/cpu/contact.rs).
//! - `node_vs_wall`, `point_vs_body`: a point against a wall / against a body's level set.

pub use super::frame::{rot, rot_t, sin_cos_det};
use super::layout::*;
pub use super::level_set::{grid_of, ls_cell, ls_interp};
use super::level_set::{ls_bilinear, ls_clamped_cell, Grid};
use super::packed::Packed;
use super::MAX_MODES;
use crate::model::ContactLaw;

/// Φ of mode `m` of body `b` at reference point p.
pub fn mode_eval(sc: &Packed, b: &ModalBodyRec, m: u32, p: [f32; 2]) -> [f32; 2] {
    let mr = &sc.modes[(b.mode_first + m) as usize];
    if mr.kind == MODE_BENDING {
        return super::modes::bending_mode(mr.length, mr.x_left, mr.y_mid, p);
    }
    let g = grid_of(b);
    let f = mr.grid_first as usize;
    [
        ls_bilinear_pair(&g, &sc.mode_grid, f, 0, p),
        ls_bilinear_pair(&g, &sc.mode_grid, f, 1, p),
    ]
}

/// Bilinear interpolation of component `c` of interleaved pairs (mode grids). Twin of
/// `ls_bilinear_pair` in modal_lib.wgsl.
fn ls_bilinear_pair(g: &Grid, data: &[f32], first: usize, c: usize, p: [f32; 2]) -> f32 {
    let (i, j, fx, fy) = ls_clamped_cell(g, p);
    let o = first + 2 * (j * g.nx + i) as usize + c;
    let w = 2 * g.nx as usize;
    let v = [data[o], data[o + 2], data[o + w], data[o + w + 2]];
    ls_interp(v, fx, fy, g.h)[0]
}

/// Φ of mode `m` at grid node (i, j): stored value (tabulated) or closed form at the node.
pub fn mode_at_node(sc: &Packed, b: &ModalBodyRec, m: u32, i: u32, j: u32) -> [f32; 2] {
    let mr = &sc.modes[(b.mode_first + m) as usize];
    if mr.kind == MODE_BENDING {
        let p = [b.origin[0] + i as f32 * b.h, b.origin[1] + j as f32 * b.h];
        return super::modes::bending_mode(mr.length, mr.x_left, mr.y_mid, p);
    }
    let o = mr.grid_first as usize + 2 * (j * b.nx + i) as usize;
    [sc.mode_grid[o], sc.mode_grid[o + 1]]
}

/// u(p) = Σ ε_α Φ_α(p) (eq 1).
pub fn displacement(sc: &Packed, b: &ModalBodyRec, eps: &[f32; 4], p: [f32; 2]) -> [f32; 2] {
    let mut u = [0.0f32; 2];
    for m in 0..b.n_modes.min(MAX_MODES as u32) {
        let f = mode_eval(sc, b, m, p);
        u[0] += eps[m as usize] * f[0];
        u[1] += eps[m as usize] * f[1];
    }
    u
}

pub fn displacement_at_node(sc: &Packed, b: &ModalBodyRec, eps: &[f32; 4], i: u32, j: u32) -> [f32; 2] {
    let mut u = [0.0f32; 2];
    for m in 0..b.n_modes.min(MAX_MODES as u32) {
        let f = mode_at_node(sc, b, m, i, j);
        u[0] += eps[m as usize] * f[0];
        u[1] += eps[m as usize] * f[1];
    }
    u
}

/// Deformed level set of body `b` (amplitudes `eps`) at q, body frame: (φ, ∂φ/∂x, ∂φ/∂y, inside)
/// with inside = 1 when q lies on the grid (0: no contact possible). Eq 47–48 on demand at the four
/// corners of q's cell.
pub fn ls_pullback(sc: &Packed, b: &ModalBodyRec, eps: &[f32; 4], q: [f32; 2]) -> [f32; 4] {
    let Some((i, j, fx, fy)) = ls_cell(b, q) else {
        return [1.0e30, 0.0, 0.0, 0.0];
    };
    let g = grid_of(b);
    let first = b.ls_first as usize;
    let mut v = [0.0f32; 4];
    for (c, (di, dj)) in [(0u32, 0u32), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
        let u = displacement_at_node(sc, b, eps, i + di, j + dj);
        // eq 47: x_ref = x − u(x) at the corner; eq 48: φ(x) = φ0(x_ref).
        let cx = b.origin[0] + (i + di) as f32 * b.h - u[0];
        let cy = b.origin[1] + (j + dj) as f32 * b.h - u[1];
        v[c] = ls_bilinear(&g, &sc.phi0, first, [cx, cy]);
    }
    ls_interp(v, fx, fy, b.h)
}

/// Deformed level set of body `j` at q (body frame) by the body's query method: the pullback
/// (eq 47–48) or the precomputed level sets (eq 49–50, `precomputed::ls_precomputed`). Twin of
/// `ls_query` in modal_lib.wgsl.
pub fn ls_query(sc: &Packed, j: usize, eps: &[f32; 4], q: [f32; 2]) -> [f32; 4] {
    let qr = &sc.queries[j];
    if qr.kind == QUERY_PRECOMPUTED {
        return super::precomputed::ls_precomputed(sc, &sc.bodies[j], qr, eps, q);
    }
    ls_pullback(sc, &sc.bodies[j], eps, q)
}

/// Result of one contact evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactOut {
    pub force: [f32; 2],
    pub hist: [f32; 2],
    pub active: u32,
}

/// Normal penalty k_n·(−gap) with dashpot c_n (no tension), tangential spring k_t with history
/// `hist` (projected on the current tangent), capped at μ f_n (Coulomb; the spring is reset to
/// the cap on sliding). n points from the partner towards the node.
/// `law`: the pair's entry of the law table (`Packed::pair_law`) or the walls' law.
pub fn contact_law(law: &ContactLaw, dt: f32, gap: f32, n: [f32; 2], vrel: [f32; 2], hist: [f32; 2]) -> ContactOut {
    let p = law;
    if gap >= 0.0 {
        return ContactOut::default();
    }
    let vn = vrel[0] * n[0] + vrel[1] * n[1];
    let fnorm = (-p.k_n * gap - p.c_n * vn).max(0.0);
    let vt = [vrel[0] - vn * n[0], vrel[1] - vn * n[1]];
    let hn = hist[0] * n[0] + hist[1] * n[1];
    let mut ht = [hist[0] - hn * n[0] + vt[0] * dt, hist[1] - hn * n[1] + vt[1] * dt];
    let mut ft = [-p.k_t * ht[0], -p.k_t * ht[1]];
    let ftl = (ft[0] * ft[0] + ft[1] * ft[1]).sqrt();
    let lim = p.mu * fnorm;
    if ftl > lim {
        let r = lim / ftl;
        ft = [ft[0] * r, ft[1] * r];
        ht = [-ft[0] / p.k_t, -ft[1] / p.k_t];
    }
    ContactOut {
        force: [n[0] * fnorm + ft[0], n[1] * fnorm + ft[1]],
        hist: ht,
        active: 1,
    }
}

/// Wall position at time t.
pub fn wall_point(w: &ModalWallRec, t: f32) -> [f32; 2] {
    [w.p0[0] + w.velocity[0] * t, w.p0[1] + w.velocity[1] * t]
}

/// A point x = x_hi + x_lo (double-f32) with velocity `vel` against wall `w` at time t.
pub fn node_vs_wall(
    p: &ModalParams,
    w: &ModalWallRec,
    t: f32,
    x_hi: [f32; 2],
    x_lo: [f32; 2],
    vel: [f32; 2],
    hist: [f32; 2],
) -> ContactOut {
    let wp = wall_point(w, t);
    let d = [(x_hi[0] - wp[0]) + x_lo[0], (x_hi[1] - wp[1]) + x_lo[1]];
    let gap;
    let mut n = w.normal;
    if w.kind == WALL_LINE {
        gap = d[0] * w.normal[0] + d[1] * w.normal[1];
    } else {
        let dist = (d[0] * d[0] + d[1] * d[1]).sqrt();
        gap = dist - w.radius;
        if dist > 0.0 {
            n = [d[0] / dist, d[1] / dist];
        }
    }
    let vrel = [vel[0] - w.velocity[0], vel[1] - w.velocity[1]];
    contact_law(&p.wall_law(), p.dt, gap, n, vrel, hist)
}

/// Contact of a point of radius `r` against body `j`'s deformed level set (§3.2: gap = φ − r; a
/// modal surface node has r = 0, an SPD node its half-thickness). `d` is the point's centre
/// relative to X_j (global frame), `vel` its velocity. Returns the contact, the centre in j's frame
/// q and j's material point p_ref = q − u(q) (eq 47) there; inactive when the point is outside j's
/// bounding circle widened by r or its grid, or gap ≥ 0. The reaction −f acts on j at q (the
/// force's line passes through the centre, so angular momentum is kept). `material`: the point's
/// contact material; the law is the table's entry for it and j's.
#[allow(clippy::too_many_arguments)]
pub fn point_vs_body(
    sc: &Packed,
    j: usize,
    sj: &ModalState,
    d: [f32; 2],
    vel: [f32; 2],
    hist: [f32; 2],
    r: f32,
    material: u32,
) -> (ContactOut, [f32; 2], [f32; 2]) {
    let bj = &sc.bodies[j];
    let reach = bj.bound_radius + r;
    if d[0] * d[0] + d[1] * d[1] > reach * reach {
        return (ContactOut::default(), [0.0; 2], [0.0; 2]);
    }
    let (s, c) = sin_cos_det(sj.theta);
    let q = rot_t(c, s, d);
    let ls = ls_query(sc, j, &sj.eps, q);
    let gap = ls[0] - r;
    if ls[3] == 0.0 || gap >= 0.0 {
        return (ContactOut::default(), q, [0.0; 2]);
    }
    let gl = (ls[1] * ls[1] + ls[2] * ls[2]).sqrt();
    let nl = if gl > 0.0 { [ls[1] / gl, ls[2] / gl] } else { [1.0, 0.0] };
    let n = rot(c, s, nl);
    let u = displacement(sc, bj, &sj.eps, q);
    let p_ref = [q[0] - u[0], q[1] - u[1]];
    // Velocity of j's material point at the contact: V + ω × d + R Σ ε̇_α Φ_α(p_ref).
    let ud = displacement(sc, bj, &sj.eps_dot, p_ref);
    let udg = rot(c, s, ud);
    let vj = [sj.v[0] - sj.omega * d[1] + udg[0], sj.v[1] + sj.omega * d[0] + udg[1]];
    let vrel = [vel[0] - vj[0], vel[1] - vj[1]];
    let law = sc.pair_law(material, bj.contact_material);
    (contact_law(&law, sc.params.dt, gap, n, vrel, hist), q, p_ref)
}

/// The slot a point's contact with body `partner` leaves (`point_vs_body`'s result: contact, q,
/// p_ref), for a modal surface node or an SPD node alike. Twin of `body_contact_slot` in
/// modal_lib.wgsl.
pub fn body_contact_slot((o, q, p_ref): (ContactOut, [f32; 2], [f32; 2]), partner: u32) -> ModalSlot {
    ModalSlot {
        force: o.force,
        q,
        p_ref,
        hist: o.hist,
        partner,
        active: o.active,
    }
}
