//! Per-bead virial stress and principal stresses (the paper's Fig. 7 and 9 quantity
//! |σ1 − σ3|/2, "calculated from the virial stress and kinetic energy contributions", its
//! ref. 32). Tension positive:
//!
//!   σ_b = (1/V_b) [ Σ_c l_c ⊗ f_c − m_b v_b ⊗ v_b ],
//!
//! over the bead's contacts c with branch vector l_c from its centre to the point of action and
//! force f_c on it: a bond to bead j acts at the bond's middle, l = (x_j − x_b)/2; a plane at the
//! bead's surface, l = −r n; a contact of the sphere engine (a wall, the eq-6 walls included, or
//! another sphere) at the middle of its overlap (`add_contact_stress`). V_b is the volume a bead stands for (l³ on the cubic lattice, the
//! body's volume over its bead count otherwise). Host-side (f64), from the bond forces of the
//! last evaluation: a post-processing quantity, not on the stepping path.

use super::forces::BeadForces;
use crate::laws::plane_repulsion::plane_repulsion_force;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::contact::sphere_pair_geometry;
use crate::spheres::precision::df3_sub;
use crate::spheres::wall::wall_geometry;
use crate::spheres::SphereState;

pub type Mat3 = [[f64; 3]; 3];

/// σ of every bead (volume `volume` each) at the last evaluation of `forces` (time t: where the
/// planes were).
pub fn bead_stress(states: &[SphereState], forces: &BeadForces, t: f64, volume: f64) -> Vec<Mat3> {
    let n = forces.bonds.n_beads();
    let planes = forces.plane_records(t);
    let mut out = vec![[[0.0f64; 3]; 3]; n];
    for (k, bond) in forces.bonds.bonds.iter().enumerate() {
        let (a, b) = (&states[bond.i as usize], &states[bond.j as usize]);
        let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
        let f = forces.bond_force[k];
        // Both ends: l ⊗ f = (−d/2) ⊗ f_i = (d/2) ⊗ (−f_i).
        for r in 0..3 {
            for c in 0..3 {
                let w = -0.5 * d[r] as f64 * f[c] as f64;
                out[bond.i as usize][r][c] += w;
                out[bond.j as usize][r][c] += w;
            }
        }
    }
    for (b, sig) in out.iter_mut().enumerate() {
        let s = &states[b];
        for &(hi, lo, nrm, sc) in &planes {
            let d = df3_sub(s.pos_hi, s.pos_lo, hi, lo);
            let f = plane_repulsion_force(sc, s.radius, nrm, d).0;
            for (r, row) in sig.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v += -(s.radius * nrm[r]) as f64 * f[c] as f64;
                }
            }
        }
        for (r, row) in sig.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = (*v - s.mass as f64 * s.vel[r] as f64 * s.vel[c] as f64) / volume;
            }
        }
    }
    out
}

/// Adds to σ of the beads (the first `sig.len()` spheres, before the division by their volume)
/// the sphere engine's contacts of the last evaluation: every wall contact (the eq-6 walls
/// included) and every pair contact with another sphere, l ⊗ f with l the contact's branch
/// vector (`wall_geometry`, `sphere_pair_geometry`: the middle of the overlap) and f the force
/// on the bead.
pub fn add_contact_stress(sig: &mut [Mat3], snap: &SphereSnapshot) {
    let n = sig.len();
    let mut add = |b: usize, l: [f32; 3], f: [f32; 3]| {
        for (r, row) in sig[b].iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v += l[r] as f64 * f[c] as f64;
            }
        }
    };
    for c in &snap.wall_contacts {
        if (c.i as usize) < n {
            let l = wall_geometry(&snap.walls[c.j as usize], &snap.states[c.i as usize]).1;
            add(c.i as usize, l, c.out.force);
        }
    }
    for c in &snap.contacts {
        let (i, j) = (c.i as usize, c.j as usize);
        if i < n || j < n {
            let (_, l_i, l_j) = sphere_pair_geometry(&snap.states[i], &snap.states[j]);
            if i < n {
                add(i, l_i, c.out.force);
            }
            if j < n {
                add(j, l_j, c.out.force.map(|x| -x));
            }
        }
    }
}

/// Eigenvalues σ1 ≥ σ2 ≥ σ3 of the symmetric part of σ (closed form, trigonometric).
pub fn principal_stresses(m: &Mat3) -> [f64; 3] {
    let a = |r: usize, c: usize| 0.5 * (m[r][c] + m[c][r]);
    let p1 = a(0, 1).powi(2) + a(0, 2).powi(2) + a(1, 2).powi(2);
    let q = (a(0, 0) + a(1, 1) + a(2, 2)) / 3.0;
    if p1 <= 1e-30 * (q * q).max(1e-300) {
        let mut e = [a(0, 0), a(1, 1), a(2, 2)];
        e.sort_by(|x, y| y.partial_cmp(x).unwrap());
        return e;
    }
    let p2 = (a(0, 0) - q).powi(2) + (a(1, 1) - q).powi(2) + (a(2, 2) - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    let b = |r: usize, c: usize| (a(r, c) - if r == c { q } else { 0.0 }) / p;
    let det = b(0, 0) * (b(1, 1) * b(2, 2) - b(1, 2) * b(2, 1)) - b(0, 1) * (b(1, 0) * b(2, 2) - b(1, 2) * b(2, 0))
        + b(0, 2) * (b(1, 0) * b(2, 1) - b(1, 1) * b(2, 0));
    let phi = (0.5 * det).clamp(-1.0, 1.0).acos() / 3.0;
    let e1 = q + 2.0 * p * phi.cos();
    let e3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
    [e1, 3.0 * q - e1 - e3, e3]
}

/// The maximum shear |σ1 − σ3|/2 of every bead's stress.
pub fn max_shear(stress: &[Mat3]) -> Vec<f64> {
    stress
        .iter()
        .map(|s| {
            let e = principal_stresses(s);
            0.5 * (e[0] - e[2]).abs()
        })
        .collect()
}

/// |σ1 − σ3|/2 of the beads within `half_width` of the vertical line through (x, y) = `axis`,
/// as (depth below `z_surface`, shear), deepest last: the profile under a contact (Fig. 7).
pub fn axis_shear_profile(
    states: &[SphereState],
    forces: &BeadForces,
    t: f64,
    volume: f64,
    axis: [f64; 2],
    half_width: f64,
    z_surface: f64,
) -> Vec<(f64, f64)> {
    let shear = max_shear(&bead_stress(states, forces, t, volume));
    let mut out: Vec<(f64, f64)> = states
        .iter()
        .zip(&shear)
        .filter_map(|(s, &tau)| {
            let p = s.position();
            let r2 = (p[0] - axis[0]).powi(2) + (p[1] - axis[1]).powi(2);
            (r2 <= half_width * half_width).then_some((z_surface - p[2], tau))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Depth of the maximum of a profile (depth, value), refined by the parabola through the
/// largest sample and its two neighbours (the sample itself at an end of the profile).
pub fn peak_depth(profile: &[(f64, f64)]) -> f64 {
    let k = (0..profile.len())
        .max_by(|&a, &b| profile[a].1.total_cmp(&profile[b].1))
        .unwrap_or(0);
    if k == 0 || k + 1 >= profile.len() {
        return profile.get(k).map_or(0.0, |p| p.0);
    }
    let (x0, y0) = profile[k - 1];
    let (x1, y1) = profile[k];
    let (x2, y2) = profile[k + 1];
    let den = (x0 - x1) * (x0 - x2) * (x1 - x2);
    let a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den;
    let b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den;
    if a >= 0.0 {
        x1
    } else {
        -b / (2.0 * a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_stresses_of_a_rotated_diagonal_tensor() {
        // R diag(3, −1, 2) Rᵀ with R a rotation about (1, 1, 1).
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let u = [1.0 / 3f64.sqrt(); 3];
        let mut r = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                let cross = [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]][i][j];
                r[i][j] = if i == j { c } else { 0.0 } + (1.0 - c) * u[i] * u[j] + s * cross;
            }
        }
        let d = [3.0, -1.0, 2.0];
        let mut m = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] = (0..3).map(|k| r[i][k] * d[k] * r[j][k]).sum();
            }
        }
        let e = principal_stresses(&m);
        for (x, y) in e.iter().zip([3.0, 2.0, -1.0]) {
            assert!((x - y).abs() < 1e-12, "{e:?}");
        }
        assert!((max_shear(&[m])[0] - 2.0).abs() < 1e-12);
        let e = principal_stresses(&[[1.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, -2.0]]);
        assert_eq!(e, [5.0, 1.0, -2.0]);
    }
}
