//! Elastic moduli of a bead network under a small homogeneous (affine) strain, measured with the
//! bond pass and the virial stress: C11 = σxx/ε and C12 = σyy/ε under ε_xx = ε, C44 = σxy/γ under
//! the shear x += γ y, averaged over the interior beads (those at least `margin` from every face of
//! the body's bounding box), then E = (C11 − C12)(C11 + 2 C12)/(C11 + C12), ν = C12/(C11 + C12)
//! (cubic symmetry). On the simple cubic lattice with nearest-neighbour and face-diagonal bonds
//! of equal k every bead is a centre of symmetry, so the affine field is the exact equilibrium
//! of the interior (the residual force is returned to show it), and the result is exact:
//! C11 = 3k/l, C12 = C44 = k/l, E = 2.5 k/l, ν = 1/4 (eq 5). A disordered network relaxes
//! non-affinely: its affine (Born) moduli are an upper bound, reported as such.

use super::forces::BeadForces;
use super::generators::BeadBody;
use super::stress::bead_stress;
use crate::laws::vec3::norm;
use crate::spheres::extra_force::{Evaluation, ExtraForces};
use crate::spheres::precision::df3_split;
use crate::spheres::SphereForce;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AffineModuli {
    pub c11: f64,
    pub c12: f64,
    pub c44: f64,
    pub young: f64,
    pub poisson: f64,
    /// Interior beads averaged.
    pub interior: usize,
    /// Largest net force on an interior bead over the largest bond force (0 at equilibrium).
    pub residual: f64,
}

/// Mean stress of the interior beads and the residual under the displacement `u(x)`.
fn strained(body: &BeadBody, margin: f64, u: impl Fn([f64; 3]) -> [f64; 3]) -> ([[f64; 3]; 3], usize, f64) {
    let pos: Vec<[f64; 3]> = body.states.iter().map(|s| s.position()).collect();
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in &pos {
        for d in 0..3 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    let mut states = body.states.clone();
    for (s, p) in states.iter_mut().zip(&pos) {
        let d = u(*p);
        (s.pos_hi, s.pos_lo) = df3_split([p[0] + d[0], p[1] + d[1], p[2] + d[2]]);
    }
    let mut f = BeadForces::new(body.bonds.clone(), Vec::new(), Vec::new(), f32::INFINITY);
    let mut out = vec![SphereForce::default(); states.len()];
    f.add_forces(&states, Evaluation { dt: 1.0, advance: true }, &mut out);
    let sig = bead_stress(&states, &f, 0.0, body.bead_volume);
    let inside: Vec<usize> = (0..pos.len())
        .filter(|&i| (0..3).all(|d| pos[i][d] - lo[d] >= margin && hi[d] - pos[i][d] >= margin))
        .collect();
    let mut mean = [[0.0; 3]; 3];
    for &i in &inside {
        for r in 0..3 {
            for c in 0..3 {
                mean[r][c] += sig[i][r][c] / inside.len() as f64;
            }
        }
    }
    let fmax = f.bond_force.iter().map(|b| norm(*b) as f64).fold(0.0, f64::max);
    let res = inside.iter().map(|&i| norm(out[i].force) as f64).fold(0.0, f64::max);
    (mean, inside.len(), res / fmax.max(1e-300))
}

/// The moduli of `body` under strains of size `eps`, averaged over beads `margin` inside.
pub fn affine_moduli(body: &BeadBody, eps: f64, margin: f64) -> AffineModuli {
    let c = body
        .states
        .iter()
        .map(|s| s.position())
        .fold([0.0; 3], |a, p| [a[0] + p[0], a[1] + p[1], a[2] + p[2]]);
    let c = c.map(|x| x / body.states.len() as f64);
    let (s1, n, r1) = strained(body, margin, |p| [eps * (p[0] - c[0]), 0.0, 0.0]);
    let (s2, _, r2) = strained(body, margin, |p| [eps * (p[1] - c[1]), 0.0, 0.0]);
    let c11 = s1[0][0] / eps;
    let c12 = 0.5 * (s1[1][1] + s1[2][2]) / eps;
    let c44 = 0.5 * (s2[0][1] + s2[1][0]) / eps;
    AffineModuli {
        c11,
        c12,
        c44,
        young: (c11 - c12) * (c11 + 2.0 * c12) / (c11 + c12),
        poisson: c12 / (c11 + c12),
        interior: n,
        residual: r1.max(r2),
    }
}
