//! MC-strain multi-contact normal force (Brodu et al. 2015, the seed paper's eq 7–8), an option of
//! the Hertz law (`MC_STRAIN` in `McStressParams::options`, γ in its `beta` field). Twin:
//! `shaders/mc_strain.wgsl`.
//!
//! Every contact k of a grain displaces the grain's surface at its other contacts c (a point
//! force on an elastic half-space, eq 7):
//!
//!   δ_{k→c} = −γ (1 + ν) f_k/(2π E d_kc) [ (n_k·u_kc)(n_c·u_kc) + (3 − 4ν) n_k·n_c
//!             − (1 − 2ν) (n_k + u_kc)·n_c/(1 + n_k·u_kc) ],
//!
//! with n the inward unit normals of the grain at its contacts (the direction of the force on it),
//! u_kc the unit vector from contact point k to contact point c and d_kc their distance. Eq 8:
//! f_el = 4/3 E* sqrt(r_ij) (δ + Σ_k δ_{k→c})^{3/2}, the sum over the other contacts of both grains.
//! Two diametrically opposed contacts give δ_{k→c} = γ (1+ν)(3−2ν) f_k/(2π E d) > 0: the far
//! side bulges out and the overlap grows.

use crate::laws::vec3::{dot, norm, scale, sub, V3};

/// Option bit: the pair's multi-contact model is MC-strain (γ = `McStressParams::beta`).
pub const MC_STRAIN: u32 = 8;

/// Young's modulus E of a material from its self pair: E* = E/(2(1 − ν²)) (after eq 3).
#[inline(always)]
pub fn young_from_self_pair(e_star: f32, nu: f32) -> f32 {
    2.0 * (1.0 - nu * nu) * e_star
}

/// δ_{k→c} of eq 7 on one grain (E, ν, γ of its material): contact k carries f_k ≥ 0 at branch
/// vector l_k (centre to contact point), contact c is at l_c. The inward normals are −l/|l|.
#[inline(always)]
pub fn strain_displacement(gamma: f32, young: f32, nu: f32, f_k: f32, l_k: V3, l_c: V3) -> f32 {
    let d_vec = sub(l_c, l_k);
    let d = norm(d_vec);
    let (lk, lc) = (norm(l_k), norm(l_c));
    if f_k <= 0.0 || d <= 0.0 || lk <= 0.0 || lc <= 0.0 {
        return 0.0;
    }
    let u = scale(d_vec, 1.0 / d);
    let n_k = scale(l_k, -1.0 / lk);
    let n_c = scale(l_c, -1.0 / lc);
    let nku = dot(n_k, u);
    // 1 + n_k·u → 0 only when c lies behind k's tangent plane, impossible on a convex grain.
    let denom = (1.0 + nku).max(1e-6);
    let bracket = nku * dot(n_c, u) + (3.0 - 4.0 * nu) * dot(n_k, n_c)
        - (1.0 - 2.0 * nu) * dot([n_k[0] + u[0], n_k[1] + u[1], n_k[2] + u[2]], n_c) / denom;
    -gamma * (1.0 + nu) * f_k / (2.0 * std::f32::consts::PI * young * d) * bracket
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposed_contacts_bulge_the_far_side_by_the_boussinesq_value() {
        let (r, f, e, nu, gamma) = (0.01f32, 2.0f32, 1e6f32, 0.3f32, 0.7f32);
        let got = strain_displacement(gamma, e, nu, f, [0.0, 0.0, -r], [0.0, 0.0, r]);
        let want = gamma * (1.0 + nu) * (3.0 - 2.0 * nu) * f / (2.0 * std::f32::consts::PI * e * 2.0 * r);
        assert!(got > 0.0 && (got / want - 1.0).abs() < 1e-5, "{got} vs {want}");
        // A contact at 90° (d = √2 r): n_k·u = 1/√2 = −n_c·u, n_k·n_c = 0, (n_k + u)·n_c = −1/√2,
        // so the bracket is −1/2 + (1 − 2ν)(1/√2)/(1 + 1/√2).
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let side = strain_displacement(gamma, e, nu, f, [0.0, 0.0, -r], [r, 0.0, 0.0]);
        let bracket = -0.5 + (1.0 - 2.0 * nu) * s / (1.0 + s);
        let want = -gamma * (1.0 + nu) * f / (2.0 * std::f32::consts::PI * e * r * 2f32.sqrt()) * bracket;
        assert!((side / want - 1.0).abs() < 1e-5, "{side} vs {want}");
        assert_eq!(strain_displacement(0.0, e, nu, f, [0.0, 0.0, -r], [0.0, 0.0, r]), 0.0);
    }
}
