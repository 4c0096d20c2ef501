//! MC-stress multi-contact normal force (Giannis et al., paper eq 9–10 and Appendix), an option
//! of the Hertz law: a two-pass correction by the particles' stress. Twin: `shaders/mc_stress.wgsl`.
//!
//!   pass 1 (eq 9, trace only): tr σ_i = (1/V_i) Σ_c l_i^c · f^c over i's contacts, with the
//!          classical (eq 3) forces of the step; l ∥ n, so only f_n enters:
//!          l_i · f = −(r_i − δ/2) f_n, negative in compression as eq 9 is written;
//!   pass 2 (eq 10): f_n = f_Hertz + β ν A_ij P_ij, A_ij = π r_ij δ,
//!          P_ij = −k (tr σ_i + tr σ_j), k = 1/6 (Appendix, the mean of the two particle
//!          pressures; the default) or 1/3 (eq 10 as printed, their sum).
//!
//! The choices the paper leaves open (docs/spheres.md), each a flag of `McStressParams::options`:
//! the sign is taken so that compression stiffens (P ≥ 0); contact ij itself is left out of
//! σ_i and σ_j (so that two-sphere collisions equal classical DEM, as the paper states) unless
//! `MC_INCLUDE_SELF`; wall contacts enter the stress and are corrected (a wall has no stress of
//! its own) unless `MC_EXCLUDE_WALLS`; Coulomb friction is capped by the corrected f_n unless
//! `MC_CAP_HERTZ`.

use bytemuck::{Pod, Zeroable};

/// Keep contact ij in σ_i and σ_j when correcting it.
pub const MC_INCLUDE_SELF: u32 = 1;
/// Wall contacts neither enter the stress nor are corrected.
pub const MC_EXCLUDE_WALLS: u32 = 2;
/// Coulomb friction capped by the Hertz f_n, not the corrected one.
pub const MC_CAP_HERTZ: u32 = 4;

/// Pressure prefactor of the Appendix, P = (tr σ_i + tr σ_j)/6 (up to the sign).
pub const MC_PRESSURE_APPENDIX: f32 = 1.0 / 6.0;
/// Pressure prefactor of eq 10 as printed, P = (tr σ_i + tr σ_j)/3.
pub const MC_PRESSURE_EQ10: f32 = 1.0 / 3.0;

/// MC-stress parameters of a material pair (`McStressParams` in WGSL); β = 0 is classical DEM.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct McStressParams {
    /// Empirical prefactor β (paper: 1.71 rubber, 1 and 1.65 hydrogel, 5.17 glass).
    pub beta: f32,
    /// Poisson's ratio ν of the pair (mean of the two materials').
    pub nu: f32,
    /// k in P_ij = −k (tr σ_i + tr σ_j): `MC_PRESSURE_APPENDIX` or `MC_PRESSURE_EQ10`.
    pub pressure_factor: f32,
    /// `MC_INCLUDE_SELF | MC_EXCLUDE_WALLS | MC_CAP_HERTZ` bits.
    pub options: u32,
}

/// l_i · f of one contact of sphere i (radius r_i, overlap δ, normal force f_n on i): the
/// contribution of the contact to V_i tr σ_i (eq 9).
#[inline(always)]
pub fn stress_trace_term(r_i: f32, delta: f32, f_n: f32) -> f32 {
    -(r_i - 0.5 * delta) * f_n
}

/// Volume V = 4/3 π r³ of a sphere (eq 9's V_p).
#[inline(always)]
pub fn sphere_volume(r: f32) -> f32 {
    (4.0 / 3.0) * std::f32::consts::PI * r * r * r
}

/// Contact area A_ij = π r_ij δ.
#[inline(always)]
pub fn contact_area(r_star: f32, delta: f32) -> f32 {
    std::f32::consts::PI * r_star * delta
}

/// The correction β ν A_ij P_ij of eq 10, P_ij = −k (tr σ_i + tr σ_j) (≥ 0 in compression).
#[inline(always)]
pub fn mc_stress_force(p: &McStressParams, r_star: f32, delta: f32, trace_i: f32, trace_j: f32) -> f32 {
    let pressure = -p.pressure_factor * (trace_i + trace_j);
    p.beta * p.nu * contact_area(r_star, delta) * pressure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correction_stiffens_in_compression_and_eq10_doubles_the_appendix() {
        let mut p = McStressParams {
            beta: 1.71,
            nu: 0.46,
            pressure_factor: MC_PRESSURE_APPENDIX,
            options: 0,
        };
        // A sphere of r = 1 cm pressed by f_n = 2 N at δ = 1 mm on two sides: V tr σ = −2 (r − δ/2) f_n.
        let (r, d, f) = (0.01f32, 1e-3f32, 2.0f32);
        let v = 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
        let tr = 2.0 * stress_trace_term(r, d, f) / v;
        assert!(tr < 0.0, "eq 9 is negative in compression");
        let c = mc_stress_force(&p, r / 2.0, d, tr, tr);
        let expect = 1.71 * 0.46 * std::f32::consts::PI * (r / 2.0) * d * (-(2.0 * tr) / 6.0);
        assert!(c > 0.0 && (c / expect - 1.0).abs() < 1e-6, "{c} vs {expect}");
        p.pressure_factor = MC_PRESSURE_EQ10;
        assert!((mc_stress_force(&p, r / 2.0, d, tr, tr) / c - 2.0).abs() < 1e-6);
        p.nu = 0.0;
        assert_eq!(
            mc_stress_force(&p, r / 2.0, d, tr, tr),
            0.0,
            "ν = 0 de-activates the model"
        );
    }
}
