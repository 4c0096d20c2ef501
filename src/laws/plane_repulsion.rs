//! Rigid plane that pushes beads (Sahputra et al., eq 6, LAMMPS' `fix indent` plane):
//! F = S (r_b − R_i)² along the plane's inward normal, where r_b − R_i is how far the bead has
//! gone past the plane, and F = 0 on the free side. Here the plane acts on the bead's surface
//! (its centre plus its contact radius r): depth p = r − (x − p₀)·n, F = S p² n for p > 0. With
//! r = 0 it is the paper's law on the bead centres. Twin of `shaders/plane_repulsion.wgsl`.

use super::vec3::{dot, scale, V3};

/// Eq 6 as a function of the depth alone: F = S p² for p > 0, else 0. What the sphere engine's
/// wall law `LAW_PLANE_REPULSION` applies to a wall contact of overlap δ = p
/// (`spheres::contact::classical_normal_force`).
#[inline]
pub fn plane_repulsion_normal(s: f32, p: f32) -> f32 {
    if p <= 0.0 {
        return 0.0;
    }
    // Eq 6.
    s * p * p
}

/// Energy stored at depth p, S p³/3 (its derivative is eq 6).
#[inline]
pub fn plane_repulsion_energy(s: f32, p: f32) -> f32 {
    if p <= 0.0 {
        return 0.0;
    }
    s * p * p * p / 3.0
}

/// Force on a bead of contact radius r at offset d = x − p₀ from a plane with inward unit normal
/// n and constant S (N/m²); returns (force, depth p, energy S p³/3).
#[inline]
pub fn plane_repulsion_force(s: f32, radius: f32, n: V3, d: V3) -> (V3, f32, f32) {
    let p = radius - dot(d, n);
    if p <= 0.0 {
        return ([0.0; 3], p, 0.0);
    }
    (scale(n, plane_repulsion_normal(s, p)), p, plane_repulsion_energy(s, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadratic_in_depth_and_zero_outside() {
        let n = [0.0, 0.0, 1.0];
        let (f, p, e) = plane_repulsion_force(1e10, 0.0, n, [3.0, 1.0, -2e-6]);
        assert!((p - 2e-6).abs() < 1e-12);
        assert!((f[2] - 1e10 * 4e-12).abs() < 1e-6 && f[0] == 0.0);
        assert!((e - 1e10 * 8e-18 / 3.0).abs() < 1e-12);
        // dE/dp = F: (E(p+h) − E(p−h))/2h.
        let h = 1e-8;
        let ep = plane_repulsion_force(1e10, 0.0, n, [0.0, 0.0, -2e-6 - h]).2;
        let em = plane_repulsion_force(1e10, 0.0, n, [0.0, 0.0, -2e-6 + h]).2;
        assert!(((ep - em) / (2.0 * h) - f[2]).abs() < 1e-3 * f[2]);
        // On the free side, and with the contact radius taken into account.
        assert_eq!(plane_repulsion_force(1e10, 0.0, n, [0.0, 0.0, 1e-6]).0, [0.0; 3]);
        assert!(plane_repulsion_force(1e10, 2e-6, n, [0.0, 0.0, 1e-6]).1 > 0.0);
        // The depth-only form is the same law.
        assert_eq!(plane_repulsion_normal(1e10, 2e-6), f[2]);
        assert_eq!(plane_repulsion_energy(1e10, 2e-6), e);
        assert_eq!(plane_repulsion_normal(1e10, -1e-6), 0.0);
    }

    /// The sphere engine's wall law `LAW_PLANE_REPULSION` is eq 6 on the overlap: S δ² along the
    /// normal, no tangential force or history however the bead slides or spins, energy S δ³/3.
    #[test]
    fn the_sphere_wall_law_is_eq_6() {
        use crate::spheres::contact::{classical_normal_force, pair_force, ContactGeometry, ContactHistory};
        use crate::spheres::pair_law::PairLaw;
        let law = PairLaw::plane_repulsion(1e10);
        let g = ContactGeometry {
            normal: [0.0, 0.0, -1.0],
            delta: 3e-7,
            v_rel: [2.0, -1.0, 5.0],
            r_star: 1.25e-7,
            w_rel: [1e3, 0.0, 0.0],
            m_star: 2e-12,
        };
        let (f, h) = pair_force(&law, &g, 2e-9, &ContactHistory::default(), 0.0);
        let want = plane_repulsion_normal(1e10, 3e-7);
        assert_eq!(classical_normal_force(&law, &g), want);
        assert_eq!(f.f_n, want);
        assert_eq!(f.force[2], -want);
        assert!(f.force[0].abs() == 0.0 && f.force[1].abs() == 0.0);
        assert_eq!(f.energy, plane_repulsion_energy(1e10, 3e-7));
        assert_eq!(f.rolling_torque, [0.0; 3]);
        assert!(h.tangential.iter().chain(&h.rolling).all(|x| *x == 0.0));
        // Apart: nothing.
        let apart = ContactGeometry { delta: -1e-7, ..g };
        assert_eq!(pair_force(&law, &apart, 2e-9, &h, 0.0).0.f_n, 0.0);
    }
}
