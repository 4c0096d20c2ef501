//! Stretching of a membrane edge (Götz & Pöschel, eq 3–7): a linear spring with a dashpot between
//! two adjacent vertex particles. Twin: `membrane_stretch_force` in `shaders/membrane_stretch.wgsl`.
//!
//! Eq 6 as printed gives particle i the force +ρ̂_ij k (ρ_ij − ρ⁰_ij), which pushes i away from j
//! when the spring is stretched; the dashpot term of the same equation has the right sign. The
//! restoring force on i used here is F_i = −ρ̂_ij [k (ρ_ij − ρ⁰_ij) + 2γ sqrt(k m_eff) ρ̂_ij·ρ̇_ij]
//! (docs/membrane.md, "loose ends").

use super::vec3::{dot, norm, scale, V3};

/// Eq 7: the spring constant k = (√3/2) E d of an edge of a triangulated membrane of Young's
/// modulus E and thickness d (N/m). A regular triangular lattice of such springs has the in-plane
/// stiffness E d and Poisson's ratio 1/3.
pub fn stretch_stiffness(young: f64, thickness: f64) -> f64 {
    0.5 * 3f64.sqrt() * young * thickness
}

/// Force on vertex i (j gets the opposite) of the edge spring (eq 6): ρ_ij = ρ_i − ρ_j,
/// ρ̇_ij = ρ̇_i − ρ̇_j, rest length ρ⁰, stiffness k, damping ratio γ, effective mass m_eff.
#[inline]
pub fn membrane_stretch_force(k: f32, gamma: f32, rest: f32, m_eff: f32, rho_ij: V3, rho_dot_ij: V3) -> V3 {
    let len = norm(rho_ij);
    if len <= 0.0 {
        return [0.0; 3];
    }
    let e = scale(rho_ij, 1.0 / len);
    let f = k * (len - rest) + 2.0 * gamma * (k * m_eff).sqrt() * dot(e, rho_dot_ij);
    scale(e, -f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretched_spring_pulls_and_dashpot_opposes_separation() {
        let f = membrane_stretch_force(100.0, 0.0, 1.0, 1.0, [1.1, 0.0, 0.0], [0.0; 3]);
        assert!((f[0] + 10.0).abs() < 1e-4 && f[1] == 0.0);
        let f = membrane_stretch_force(100.0, 0.5, 1.0, 1.0, [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
        // 2 γ sqrt(k m) v = 2 · 0.5 · 10 · 2 = 20, against the separation.
        assert!((f[0] + 20.0).abs() < 1e-4);
        assert!((stretch_stiffness(1.25e6, 3e-4) - 324.76).abs() < 0.01);
    }
}
