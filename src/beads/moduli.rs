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
    let disp: Vec<[f64; 3]> = pos.iter().map(|p| u(*p)).collect();
    let inside: Vec<usize> = (0..pos.len())
        .filter(|&i| (0..3).all(|d| pos[i][d] - lo[d] >= margin && hi[d] - pos[i][d] >= margin))
        .collect();
    let (mean, res) = stressed(body, &disp, &inside);
    (mean, inside.len(), res)
}

/// Mean virial stress of the beads `inside` with every bead displaced by `disp`, and the
/// largest net force on them over the largest bond force (0 at equilibrium).
fn stressed(body: &BeadBody, disp: &[[f64; 3]], inside: &[usize]) -> ([[f64; 3]; 3], f64) {
    let mut states = body.states.clone();
    for (s, d) in states.iter_mut().zip(disp) {
        let p = s.position();
        (s.pos_hi, s.pos_lo) = df3_split([p[0] + d[0], p[1] + d[1], p[2] + d[2]]);
    }
    let mut f = BeadForces::new(body.bonds.clone(), Vec::new(), Vec::new(), f32::INFINITY);
    let mut out = vec![SphereForce::default(); states.len()];
    f.add_forces(&states, Evaluation { dt: 1.0, advance: true }, &mut out);
    let sig = bead_stress(&states, &f, 0.0, body.bead_volume);
    let mut mean = [[0.0; 3]; 3];
    for &i in inside {
        for r in 0..3 {
            for c in 0..3 {
                mean[r][c] += sig[i][r][c] / inside.len() as f64;
            }
        }
    }
    let fmax = f.bond_force.iter().map(|b| norm(*b) as f64).fold(0.0, f64::max);
    let res = inside.iter().map(|&i| norm(out[i].force) as f64).fold(0.0, f64::max);
    (mean, res / fmax.max(1e-300))
}

/// Linear elastic equilibrium of the network about its rest state (each bond a central spring
/// of stiffness k n ⊗ n, n its rest direction): the beads with `fixed[i]` keep `u[i]`, the
/// others are solved for by conjugate gradients on their stiffness (positive definite for a
/// rigid network held at its boundary) until the residual is `tol` of the initial one.
/// Returns the iterations used.
pub fn relax_linear(body: &BeadBody, fixed: &[bool], u: &mut [[f64; 3]], tol: f64, max_iter: usize) -> usize {
    let pos: Vec<[f64; 3]> = body.states.iter().map(|s| s.position()).collect();
    let springs: Vec<(usize, usize, [f64; 3], f64)> = body
        .bonds
        .bonds
        .iter()
        .map(|b| {
            let (i, j) = (b.i as usize, b.j as usize);
            let d = [0, 1, 2].map(|k| pos[j][k] - pos[i][k]);
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            (i, j, d.map(|x| x / len), b.k as f64)
        })
        .collect();
    // y = K x (the restoring force is −K x), in bond order.
    let apply = |x: &[[f64; 3]], y: &mut [[f64; 3]]| {
        y.iter_mut().for_each(|v| *v = [0.0; 3]);
        for &(i, j, n, k) in &springs {
            let s = k * (0..3).map(|d| n[d] * (x[i][d] - x[j][d])).sum::<f64>();
            for d in 0..3 {
                y[i][d] += s * n[d];
                y[j][d] -= s * n[d];
            }
        }
    };
    let dot = |a: &[[f64; 3]], b: &[[f64; 3]]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(p, q)| p[0] * q[0] + p[1] * q[1] + p[2] * q[2])
            .sum()
    };
    let mask = |v: &mut [[f64; 3]]| {
        for (x, &f) in v.iter_mut().zip(fixed) {
            if f {
                *x = [0.0; 3];
            }
        }
    };
    let n = pos.len();
    let mut ub: Vec<[f64; 3]> = u.to_vec();
    mask_free(&mut ub, fixed);
    let mut r = vec![[0.0; 3]; n];
    apply(&ub, &mut r);
    // r = b − A x with x = 0 on the free beads: b = −K u_B on them.
    r.iter_mut().for_each(|v| *v = v.map(|x| -x));
    mask(&mut r);
    let mut x = vec![[0.0; 3]; n];
    let mut p = r.clone();
    let mut ap = vec![[0.0; 3]; n];
    let mut rr = dot(&r, &r);
    let r0 = rr.sqrt();
    let mut it = 0;
    while it < max_iter && rr.sqrt() > tol * r0 {
        apply(&p, &mut ap);
        mask(&mut ap);
        let alpha = rr / dot(&p, &ap);
        for i in 0..n {
            for d in 0..3 {
                x[i][d] += alpha * p[i][d];
                r[i][d] -= alpha * ap[i][d];
            }
        }
        let rr_new = dot(&r, &r);
        let beta = rr_new / rr;
        for i in 0..n {
            for d in 0..3 {
                p[i][d] = r[i][d] + beta * p[i][d];
            }
        }
        rr = rr_new;
        it += 1;
    }
    for i in 0..n {
        if !fixed[i] {
            u[i] = x[i];
        }
    }
    it
}

/// Zeroes the displacement of the free beads (keeps the fixed ones').
fn mask_free(v: &mut [[f64; 3]], fixed: &[bool]) {
    for (x, &f) in v.iter_mut().zip(fixed) {
        if !f {
            *x = [0.0; 3];
        }
    }
}

/// The moduli of a body after relaxation: the beads farther than `hold` from the centroid are
/// held on the affine field of a strain `eps` (uniaxial ε_xx, then the shear x += γ y), the
/// others relax to linear equilibrium (`relax_linear`); stresses averaged over the beads within
/// `measure` of the centroid. For a disordered network this is the non-affine modulus the
/// compression of a sphere of the same generator should show (up to the held boundary's
/// stiffening, which shrinks as `measure`/`hold` does); on the cubic lattice it equals the
/// affine one (the affine field is already in equilibrium).
pub fn relaxed_moduli(body: &BeadBody, eps: f64, hold: f64, measure: f64) -> AffineModuli {
    let pos: Vec<[f64; 3]> = body.states.iter().map(|s| s.position()).collect();
    let c = pos
        .iter()
        .fold([0.0; 3], |a, p| [a[0] + p[0], a[1] + p[1], a[2] + p[2]]);
    let c = c.map(|x| x / pos.len() as f64);
    let r = |p: &[f64; 3]| ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt();
    let fixed: Vec<bool> = pos.iter().map(|p| r(p) > hold).collect();
    let inside: Vec<usize> = (0..pos.len()).filter(|&i| r(&pos[i]) <= measure).collect();
    let solve = |u: &dyn Fn([f64; 3]) -> [f64; 3]| {
        let mut d: Vec<[f64; 3]> = pos.iter().map(|p| u([p[0] - c[0], p[1] - c[1], p[2] - c[2]])).collect();
        relax_linear(body, &fixed, &mut d, 1e-10, 20 * pos.len());
        stressed(body, &d, &inside)
    };
    let (s1, r1) = solve(&|p| [eps * p[0], 0.0, 0.0]);
    let (s2, r2) = solve(&|p| [eps * p[1], 0.0, 0.0]);
    moduli_of(s1, s2, eps, inside.len(), r1.max(r2))
}

fn moduli_of(s1: [[f64; 3]; 3], s2: [[f64; 3]; 3], eps: f64, interior: usize, residual: f64) -> AffineModuli {
    let c11 = s1[0][0] / eps;
    let c12 = 0.5 * (s1[1][1] + s1[2][2]) / eps;
    let c44 = 0.5 * (s2[0][1] + s2[1][0]) / eps;
    AffineModuli {
        c11,
        c12,
        c44,
        young: (c11 - c12) * (c11 + 2.0 * c12) / (c11 + c12),
        poisson: c12 / (c11 + c12),
        interior,
        residual,
    }
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
    moduli_of(s1, s2, eps, n, r1.max(r2))
}
