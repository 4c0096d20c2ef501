//! Bending of a membrane across the common edge of two triangles (Götz & Pöschel eq 8–16, after
//! Bridson, Marino & Fedkiw 2003). Twin: `membrane_bending_forces` in `shaders/membrane_bending.wgsl`.
//!
//! Vertices 1, 2 are the tips of the two triangles, 3–4 their common edge (E = ρ4 − ρ3). Where the
//! paper is loose (docs/membrane.md):
//! - eq 10 takes cos θ = n̂1·n̂2 with the **unit** normals (eq 8–9 are not normalised);
//! - θ is signed: sin(θ/2) = s sqrt((1 − cos θ)/2) with s = sign((n2 × n1)·E), the sign for which
//!   u_i = ∂θ/∂ρ_i (checked by finite differences in the tests); the force is then −(…) u_i, restoring;
//! - eq 16 needs the minus sign of Bridson's u4, else Σ u_i ≠ 0 and the law would push the membrane;
//! - with u_i ~ 1/length, k^el is an energy (N·m) and k^diss an N·s, not N/m and N·s/m.

use super::vec3::{add, cross, dot, norm, scale, sub, V3};

/// Bending parameters of a membrane (16 bytes): k^el (N·m) and k^diss (N·s) of eq 11–12.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BendingParams {
    pub k_el: f32,
    pub k_diss: f32,
    pub _pad: [f32; 2],
}

/// sin(θ/2) of the hinge, signed (eq 8–10 with unit normals).
#[inline]
pub fn hinge_sin_half(p1: V3, p2: V3, p3: V3, p4: V3) -> f32 {
    let e = sub(p4, p3);
    let n1 = cross(sub(p1, p3), sub(p1, p4));
    let n2 = cross(sub(p2, p4), sub(p2, p3));
    let c = (dot(n1, n2) / (norm(n1) * norm(n2))).clamp(-1.0, 1.0);
    let s = (0.5 * (1.0 - c)).max(0.0).sqrt();
    if dot(cross(n2, n1), e) < 0.0 {
        -s
    } else {
        s
    }
}

/// Forces on vertices 1–4 (positions p, velocities v) of eq 11–12 with rest value sin(θ⁰/2).
#[inline]
pub fn membrane_bending_forces(p: [V3; 4], v: [V3; 4], sin_half_rest: f32, bp: &BendingParams) -> [V3; 4] {
    let e = sub(p[3], p[2]);
    let n1 = cross(sub(p[0], p[2]), sub(p[0], p[3]));
    let n2 = cross(sub(p[1], p[3]), sub(p[1], p[2]));
    let le = norm(e);
    let (n1sq, n2sq) = (dot(n1, n1), dot(n2, n2));
    if le <= 0.0 || n1sq <= 0.0 || n2sq <= 0.0 {
        return [[0.0; 3]; 4];
    }
    // Eq 13–16 (u4 with Bridson's minus sign).
    let t1 = scale(n1, 1.0 / n1sq);
    let t2 = scale(n2, 1.0 / n2sq);
    let u1 = scale(t1, le);
    let u2 = scale(t2, le);
    let u3 = add(
        scale(t1, dot(sub(p[0], p[3]), e) / le),
        scale(t2, dot(sub(p[1], p[3]), e) / le),
    );
    let u4 = scale(
        add(
            scale(t1, dot(sub(p[0], p[2]), e) / le),
            scale(t2, dot(sub(p[1], p[2]), e) / le),
        ),
        -1.0,
    );
    let (l1, l2) = (n1sq.sqrt(), n2sq.sqrt());
    let c = (dot(n1, n2) / (l1 * l2)).clamp(-1.0, 1.0);
    let mut sin_half = (0.5 * (1.0 - c)).max(0.0).sqrt();
    if dot(cross(n2, n1), e) < 0.0 {
        sin_half = -sin_half;
    }
    let theta_dot = dot(u1, v[0]) + dot(u2, v[1]) + dot(u3, v[2]) + dot(u4, v[3]);
    // Eq 11 + eq 12, both against the flection.
    let f = bp.k_el * (le * le / (l1 + l2)) * (sin_half - sin_half_rest) + bp.k_diss * le * theta_dot;
    [scale(u1, -f), scale(u2, -f), scale(u3, -f), scale(u4, -f)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theta(p: [V3; 4]) -> f64 {
        2.0 * (hinge_sin_half(p[0], p[1], p[2], p[3]) as f64).asin()
    }

    #[test]
    fn directions_are_the_gradient_of_theta_and_forces_balance() {
        let p: [V3; 4] = [[0.4, 1.0, 0.2], [0.6, -0.9, 0.1], [0.0, 0.0, 0.0], [1.0, 0.05, 0.0]];
        let bp = BendingParams {
            k_el: 1.0,
            k_diss: 0.0,
            _pad: [0.0; 2],
        };
        let f = membrane_bending_forces(p, [[0.0; 3]; 4], 0.0, &bp);
        let s = hinge_sin_half(p[0], p[1], p[2], p[3]);
        let e = sub(p[3], p[2]);
        let pref = norm(e) * norm(e)
            / (norm(cross(sub(p[0], p[2]), sub(p[0], p[3]))) + norm(cross(sub(p[1], p[3]), sub(p[1], p[2]))));
        // F_i = −pref sin(θ/2) u_i, so u_i = −F_i/(pref s): compare with the finite-difference ∂θ/∂ρ_i.
        let mut sum = [0.0f32; 3];
        for i in 0..4 {
            sum = add(sum, f[i]);
            for k in 0..3 {
                let h = 1e-3f32;
                let (mut a, mut b) = (p, p);
                a[i][k] += h;
                b[i][k] -= h;
                let fd = (theta(a) - theta(b)) / (2.0 * h as f64);
                let u = -f[i][k] as f64 / (pref * s) as f64;
                assert!(
                    (fd - u).abs() < 2e-3 * (1.0 + u.abs()),
                    "vertex {i} axis {k}: {fd} vs {u}"
                );
            }
        }
        assert!(norm(sum) < 1e-5, "forces sum to {sum:?}");
    }

    #[test]
    fn flat_hinge_is_free_and_damping_opposes_the_flection_rate() {
        let p: [V3; 4] = [[0.5, 1.0, 0.0], [0.5, -1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
        let bp = BendingParams {
            k_el: 1.0,
            k_diss: 0.5,
            _pad: [0.0; 2],
        };
        let f = membrane_bending_forces(p, [[0.0; 3]; 4], 0.0, &bp);
        assert!(f.iter().all(|x| norm(*x) == 0.0));
        // Tip 1 moving up: the dashpot pushes it down.
        let f = membrane_bending_forces(p, [[0.0, 0.0, 1.0], [0.0; 3], [0.0; 3], [0.0; 3]], 0.0, &bp);
        assert!(f[0][2] < 0.0);
    }
}
