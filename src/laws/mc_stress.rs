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
//! Eq 11 as printed (P_4 = 4 f d/V for a particle of diameter d with four contacts) is a third
//! convention, `MC_PRESSURE_EQ11` with the options `MC_EQ11`: k = 1/2 (for two equal particles
//! P_ij is one particle's trace), contact ij included, and the branch |l^c| = d instead of the
//! centre-to-contact distance r − δ/2 (`MC_BRANCH_DIAMETER`). Its f = f_H (1 + 4 d β ν A_ij/V)
//! on a square lattice is eq 11 exactly (unit test below).
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
/// The branch length of eq 9 is the particle's diameter 2r (eq 11's "f d"), not r − δ/2. An
/// MC-stress option: ignored under MC-strain (bit 8, `mc_strain::MC_STRAIN`), which reads f_n
/// back from the trace with the geometric branch.
pub const MC_BRANCH_DIAMETER: u32 = 16;
/// The options of eq 11 as printed (with `MC_PRESSURE_EQ11`).
pub const MC_EQ11: u32 = MC_INCLUDE_SELF | MC_BRANCH_DIAMETER;

/// Pressure prefactor of the Appendix, P = (tr σ_i + tr σ_j)/6 (up to the sign).
pub const MC_PRESSURE_APPENDIX: f32 = 1.0 / 6.0;
/// Pressure prefactor of eq 10 as printed, P = (tr σ_i + tr σ_j)/3.
pub const MC_PRESSURE_EQ10: f32 = 1.0 / 3.0;
/// Pressure prefactor of eq 11 as printed, P = (tr σ_i + tr σ_j)/2: P_4 = 4 f d/V, the trace
/// of one particle, when both particles carry the same stress.
pub const MC_PRESSURE_EQ11: f32 = 0.5;

/// MC-stress parameters of a material pair (`McStressParams` in WGSL); β = 0 is classical DEM.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct McStressParams {
    /// Empirical prefactor β (paper: 1.71 rubber, 1 and 1.65 hydrogel, 5.17 glass).
    pub beta: f32,
    /// Poisson's ratio ν of the pair (mean of the two materials').
    pub nu: f32,
    /// k in P_ij = −k (tr σ_i + tr σ_j): `MC_PRESSURE_APPENDIX`, `MC_PRESSURE_EQ10` or
    /// `MC_PRESSURE_EQ11`.
    pub pressure_factor: f32,
    /// `MC_INCLUDE_SELF | MC_EXCLUDE_WALLS | MC_CAP_HERTZ | MC_BRANCH_DIAMETER` bits (and
    /// `mc_strain::MC_STRAIN`).
    pub options: u32,
}

/// |l^c| of eq 9 for a contact of sphere i (radius r_i, overlap δ): the distance from the
/// centre to the middle of the overlap, r_i − δ/2, or with `MC_BRANCH_DIAMETER` (MC-stress
/// only) the diameter 2 r_i of eq 11.
#[inline(always)]
pub fn branch_length(options: u32, r_i: f32, delta: f32) -> f32 {
    if options & (MC_BRANCH_DIAMETER | crate::laws::mc_strain::MC_STRAIN) == MC_BRANCH_DIAMETER {
        2.0 * r_i
    } else {
        r_i - 0.5 * delta
    }
}

/// l_i · f of one contact of sphere i (radius r_i, overlap δ, normal force f_n on i) under the
/// pair's MC `options`: the contribution of the contact to V_i tr σ_i (eq 9), −|l| f_n.
#[inline(always)]
pub fn stress_trace_term(options: u32, r_i: f32, delta: f32, f_n: f32) -> f32 {
    -branch_length(options, r_i, delta) * f_n
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
        let tr = 2.0 * stress_trace_term(0, r, d, f) / v;
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

    /// Eq 11 as printed, from the passes' own terms: on a square lattice every particle has
    /// four contacts at δ with the Hertz force f_H; in the eq 11 convention (k = 1/2, self
    /// included, |l| = d) the corrected force is f_H (1 + 4 d β ν A_ij/V), A_ij = π r_ij δ, and
    /// at δ = d/4 with d = 2r (the reading) the factor is 1 + 1.5 β ν. The default
    /// convention gives the much smaller f_H (1 + 6 k β ν A (r − δ/2)/V) with k = 1/6.
    #[test]
    fn eq11_convention_gives_eq_11_on_the_square_lattice() {
        let (r, beta, nu) = (0.01f64, 1.65f64, 0.5f64);
        let (d, delta) = (2.0 * r, 0.5 * r);
        let f_h = 0.3f64;
        let v = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let p = McStressParams {
            beta: beta as f32,
            nu: nu as f32,
            pressure_factor: MC_PRESSURE_EQ11,
            options: MC_EQ11,
        };
        let (rf, df, ff) = (r as f32, delta as f32, f_h as f32);
        // Pass 1: each particle's trace over its four contacts (contact ij among them).
        let trace = 4.0 * stress_trace_term(p.options, rf, df, ff) / sphere_volume(rf);
        let f = f_h + mc_stress_force(&p, rf / 2.0, df, trace, trace) as f64;
        let a_ij = std::f64::consts::PI * (r / 2.0) * delta;
        let eq11 = f_h * (1.0 + 4.0 * d * beta * nu * a_ij / v);
        assert!((f / eq11 - 1.0).abs() < 1e-6, "{f} vs eq 11 {eq11}");
        assert!((f / f_h - (1.0 + 1.5 * beta * nu)).abs() < 1e-5, "factor {}", f / f_h);
        // The default convention on the same lattice (self excluded: three contacts).
        let q = McStressParams {
            pressure_factor: MC_PRESSURE_APPENDIX,
            options: 0,
            ..p
        };
        let t3 = 3.0 * stress_trace_term(0, rf, df, ff) / sphere_volume(rf);
        let g = f_h + mc_stress_force(&q, rf / 2.0, df, t3, t3) as f64;
        let expect = f_h * (1.0 + (9.0 / 64.0) * beta * nu);
        assert!((g / expect - 1.0).abs() < 1e-6, "{g} vs {expect}");
        // The branch option does not apply under MC-strain.
        let strain = MC_BRANCH_DIAMETER | crate::laws::mc_strain::MC_STRAIN;
        assert_eq!(branch_length(strain, rf, df), rf - 0.5 * df);
        assert_eq!(branch_length(MC_BRANCH_DIAMETER, rf, df), 2.0 * rf);
    }
}
