//! How the validation cases measure what the paper plots (§4–5). Everything is computed on the
//! host, in f64, from a read-back state (`Backend::read_nodes` / `read_contacts` /
//! `read_bodies`), so the CPU and GPU backends are measured by the very same code.
//!
//! **Shape of a particle (Figs 12, 14, 20, 22).** The particle is its node polygon (the shell's
//! mid-line; the sphero-segment half-thickness r is not added).
//! - `b` = extent of the nodes along the compression axis y (max y − min y), `b0` = its initial
//!   value (2R for the regular N-gon with N divisible by 4). The strain is ε = 1 − b/b0. This is
//!   the paper's "distance between the two walls" less the shell thickness and the contact
//!   overlaps, which are both constant or negligible (overlap ≤ 10⁻³ R in every case).
//! - `a` = extent of the nodes along x (max x − min x), the major axis of Fig. 12.
//! - `V` = s · (shoelace area of the node polygon), `V0` its initial value (Figs 14, 20, 22).
//!
//! **Contact forces on the nodes (Figs 16–19, 24–25).** [`wall_contact_forces`] gives, for every
//! node of the particle, the force it receives from one wall. It walks the contact slots of the
//! neighbour lists: a particle node against a wall segment (the force of the slot), a wall node
//! against a particle segment (the opposite force, shared between the segment's ends by the lever
//! rule of Fig. 5, weights 1 − w and w) and node–node cap contacts (owned by the lower index).
//! The validation walls are single long segments, so in practice every force is of the first
//! kind: the paper's "vertical force F'_k acting on each vertex of the particle by the wall".
//!
//! **Contact length L_c (Figs 13, 16, 18, 23, 24).** Following the derivation of eq 33, where
//! "N' = L_c/ℓ" is the number of nodes on the contact line, L_c = N'·ℓ0 with N' the number of
//! particle nodes that receive a normal force larger than 10⁻³ F_c from the wall (F_c = F* for
//! the elastic cases, F** for the plastic ring), averaged over the two walls (so L_c moves in
//! steps of ℓ0/2). The threshold only discards contacts that are opening or closing at that
//! instant; the count is the same for thresholds from 10⁻⁶ to 10⁻² F_c within one node.
//!
//! **Total wall force F (Figs 16, 18, 24, 26).** The y-component of the sum of the forces on the
//! nodes of a wall (`diagnostics::body_force`: a frozen wall's nodes carry only contact
//! reactions), averaged over the two walls (they differ only by inertia, < 1 % at quasi-static
//! rates).
//!
//! **Pressure profile (Figs 17, 19, 25).** "The pressures p are calculated by dividing the contact
//! force on segments of length ℓ by sℓ": p_k = |F'_k|/(s ℓ0) at each contact node k, normalised
//! by p* = F*/(s ℓ0) (or p** = F**/(s ℓ0)), so p/p* = |F'_k|/F*. The abscissa is x_k − x_mid,
//! with x_mid the midpoint of the x-extent of the contact nodes, normalised by R.

use crate::backend::ContactSnapshot;
use crate::model::*;

/// Node range of a body.
pub fn body_range(scene: &Scene, body: u32) -> std::ops::Range<usize> {
    let b = scene.bodies[body as usize];
    b.first as usize..(b.first + b.count) as usize
}

/// Node positions of a body, in f64.
pub fn positions(scene: &Scene, nodes: &[NodeState], body: u32) -> Vec<[f64; 2]> {
    nodes[body_range(scene, body)].iter().map(|s| s.pos()).collect()
}

/// Signed shoelace area of a closed polygon (positive counter-clockwise), relative to its first
/// vertex so it stays exact far from the origin.
pub fn polygon_area(p: &[[f64; 2]]) -> f64 {
    if p.len() < 3 {
        return 0.0;
    }
    let o = p[0];
    let mut a = 0.0;
    for k in 1..p.len() - 1 {
        let (u, v) = (p[k], p[k + 1]);
        a += (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0]);
    }
    0.5 * a
}

/// Extents (max − min) of the points along x and y: the axes (a, b) of a compressed particle.
pub fn extents(p: &[[f64; 2]]) -> (f64, f64) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for q in p {
        x0 = x0.min(q[0]);
        x1 = x1.max(q[0]);
        y0 = y0.min(q[1]);
        y1 = y1.max(q[1]);
    }
    (x1 - x0, y1 - y0)
}

/// Force on every node of `particle` from the nodes and segments of `wall` (see the module
/// documentation), indexed by the node's position inside the particle.
pub fn wall_contact_forces(scene: &Scene, contacts: &ContactSnapshot, particle: u32, wall: u32) -> Vec<[f64; 2]> {
    let pr = body_range(scene, particle);
    let wr = body_range(scene, wall);
    let mut f = vec![[0.0f64; 2]; pr.len()];
    let mut add = |node: usize, v: [f32; 2], w: f64| {
        if pr.contains(&node) {
            let k = node - pr.start;
            f[k][0] += w * v[0] as f64;
            f[k][1] += w * v[1] as f64;
        }
    };
    let n_nodes = contacts.start.len().saturating_sub(1);
    for c in 0..n_nodes {
        let c_in_p = pr.contains(&c);
        let c_in_w = wr.contains(&c);
        if !c_in_p && !c_in_w {
            continue;
        }
        for e in contacts.start[c] as usize..contacts.start[c + 1] as usize {
            let d = contacts.entries[e].neighbor as usize;
            let s = contacts.slots[e];
            let pair_pw = c_in_p && wr.contains(&d);
            let pair_wp = c_in_w && pr.contains(&d);
            if !pair_pw && !pair_wp {
                continue;
            }
            if s.flags & SLOT_SEG != 0 {
                if pair_pw {
                    // Particle node c against wall segment d → next(d): the slot's force acts on c.
                    add(c, s.seg_force, 1.0);
                } else {
                    // Wall node c against particle segment d → next(d): reactions by the lever rule.
                    let next = scene.nodes[d].next as usize;
                    add(d, s.seg_force, -(1.0 - s.seg_w as f64));
                    add(next, s.seg_force, -(s.seg_w as f64));
                }
            }
            if s.flags & SLOT_CAP != 0 && c < d {
                // Cap contact owned by the lower index c: force on c, opposite on d.
                add(c, s.cap_force, 1.0);
                add(d, s.cap_force, -1.0);
            }
        }
    }
    f
}

/// Number of nodes whose force magnitude exceeds `threshold`.
pub fn contact_nodes(forces: &[[f64; 2]], threshold: f64) -> usize {
    forces.iter().filter(|f| f[0].hypot(f[1]) > threshold).count()
}

/// The four lever arms of the plastic ring's collapse mechanism (docs/validation.md, "The
/// plastic ring's collapse load"): for each quarter, the horizontal distance from the outermost
/// contact node of a wall (the contact-edge hinge) to the node of extreme x on that side (the
/// side hinge), as [top right, top left, bottom right, bottom left]. None while a wall has no
/// contact node (force above `threshold`).
pub fn hinge_levers(pos: &[[f64; 2]], bottom: &[[f64; 2]], top: &[[f64; 2]], threshold: f64) -> Option<[f64; 4]> {
    let xs = |forces: &[[f64; 2]]| -> Option<(f64, f64)> {
        let touching = pos.iter().zip(forces).filter(|(_, f)| f[0].hypot(f[1]) > threshold);
        touching.fold(None, |acc, (p, _)| match acc {
            None => Some((p[0], p[0])),
            Some((lo, hi)) => Some((f64::min(lo, p[0]), f64::max(hi, p[0]))),
        })
    };
    let (b0, b1) = xs(bottom)?;
    let (t0, t1) = xs(top)?;
    let x_min = pos.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
    let x_max = pos.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
    Some([x_max - t1, t0 - x_min, x_max - b1, b0 - x_min])
}

/// Pressure profile along a wall: (x_k − x_mid)/R and |F'_k|/F_c for the nodes in contact
/// (force above `threshold`), sorted by x. See the module documentation.
pub fn pressure_profile(
    pos: &[[f64; 2]],
    forces: &[[f64; 2]],
    threshold: f64,
    f_char: f64,
    radius: f64,
) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = pos
        .iter()
        .zip(forces)
        .filter(|(_, f)| f[0].hypot(f[1]) > threshold)
        .map(|(p, f)| (p[0], f[0].hypot(f[1]) / f_char))
        .collect();
    if pts.is_empty() {
        return pts;
    }
    let x0 = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let mid = 0.5 * (x0 + x1);
    for p in &mut pts {
        p.0 = (p.0 - mid) / radius;
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Least-squares line y = slope·x + intercept through the points.
pub fn linear_fit(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}

/// Linear interpolation of y at x in points sorted by x (clamped at the ends).
pub fn interpolate(pts: &[(f64, f64)], x: f64) -> f64 {
    if pts.is_empty() {
        return f64::NAN;
    }
    if x <= pts[0].0 {
        return pts[0].1;
    }
    for w in pts.windows(2) {
        if x <= w[1].0 {
            let t = (x - w[0].0) / (w[1].0 - w[0].0);
            return w[0].1 + t * (w[1].1 - w[0].1);
        }
    }
    pts[pts.len() - 1].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_extents_and_fit() {
        let sq = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]];
        assert_eq!(polygon_area(&sq), 2.0);
        assert_eq!(extents(&sq), (2.0, 1.0));
        let (s, i) = linear_fit(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]);
        assert!((s - 2.0).abs() < 1e-12 && (i - 1.0).abs() < 1e-12);
        assert_eq!(interpolate(&[(0.0, 0.0), (2.0, 4.0)], 1.0), 2.0);
    }
}
