//! Hertz normal force with viscoelastic damping (paper eq 3), damping in the form of LIGGGHTS'
//! Hertz model (restitution → β_e → γ_n). Twin: `shaders/hertz.wgsl`.
//!
//!   f_n = 4/3 E* sqrt(r_ij δ) δ + γ_n δ̇,                         (eq 3, elastic part exact)
//!   S_n = 2 E* sqrt(r_ij δ)  (= d f_el/dδ, the contact stiffness),
//!   γ_n = −2 sqrt(5/6) β_e sqrt(S_n m_ij),  β_e = ln e / sqrt(ln² e + π²).
//!
//! The paper writes the dashpot as η^n sqrt(r_ij δ) δ̇ with a material η^n; Table 1 gives a
//! restitution coefficient instead, so γ_n is taken from it as LIGGGHTS does (γ_n ∝ (r δ)^{1/4},
//! which makes the restitution independent of the impact velocity; its value is close to but not
//! exactly e, see docs/spheres.md). The force is clipped at zero: no attraction at separation.

use bytemuck::{Pod, Zeroable};

/// Hertz parameters of a material pair (mirrored by `HertzParams` in `shaders/hertz.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HertzParams {
    /// Effective Young's modulus E* (Pa), `mixing::effective_young`.
    pub e_star: f32,
    /// β_e = ln e / sqrt(ln² e + π²) of the pair's restitution e (≤ 0; 0 is undamped).
    pub beta_e: f32,
}

impl HertzParams {
    pub fn new(e_star: f64, restitution: f64) -> Self {
        HertzParams {
            e_star: e_star as f32,
            beta_e: super::mixing::restitution_damping_ratio(restitution) as f32,
        }
    }
}

/// 2 sqrt(5/6), LIGGGHTS' prefactor of γ_n.
pub const TWO_SQRT_FIVE_SIXTHS: f32 = 1.825_741_9;

/// Contact stiffness S_n = 2 E* sqrt(r_ij δ) = d f_el/dδ (for the critical time step and γ_n).
#[inline(always)]
pub fn hertz_stiffness(p: &HertzParams, r_star: f32, delta: f32) -> f32 {
    2.0 * p.e_star * (r_star * delta).sqrt()
}

/// Elastic part of eq 3, 4/3 E* sqrt(r_ij δ) δ.
#[inline(always)]
pub fn hertz_elastic_force(p: &HertzParams, r_star: f32, delta: f32) -> f32 {
    (4.0 / 3.0) * p.e_star * (r_star * delta).sqrt() * delta
}

/// Normal damping coefficient γ_n = −2 sqrt(5/6) β_e sqrt(S_n m_ij) (≥ 0).
#[inline(always)]
pub fn hertz_damping(p: &HertzParams, r_star: f32, m_star: f32, delta: f32) -> f32 {
    -TWO_SQRT_FIVE_SIXTHS * p.beta_e * (hertz_stiffness(p, r_star, delta) * m_star).sqrt()
}

/// Normal force of eq 3 (positive repulsive), clipped at zero.
#[inline(always)]
pub fn hertz_normal_force(p: &HertzParams, r_star: f32, m_star: f32, delta: f32, delta_dot: f32) -> f32 {
    let f = hertz_elastic_force(p, r_star, delta) + hertz_damping(p, r_star, m_star, delta) * delta_dot;
    f.max(0.0)
}

/// Elastic energy 8/15 E* sqrt(r_ij) δ^{5/2} = 2/5 f_el δ.
#[inline(always)]
pub fn hertz_energy(p: &HertzParams, r_star: f32, delta: f32) -> f32 {
    0.4 * hertz_elastic_force(p, r_star, delta) * delta
}

/// Duration of an undamped head-on Hertz collision at relative speed v,
/// t_c = 2.87 (m_ij²/(r_ij E*² v))^{1/5} (paper §3.4; the constant is 2.868).
pub fn hertz_contact_duration(e_star: f64, r_star: f64, m_star: f64, v: f64) -> f64 {
    2.868 * (m_star * m_star / (r_star * e_star * e_star * v)).powf(0.2)
}

/// Maximum overlap of that collision, δ_max = (15 m_ij v²/(16 E* sqrt(r_ij)))^{2/5}.
pub fn hertz_max_overlap(e_star: f64, r_star: f64, m_star: f64, v: f64) -> f64 {
    (15.0 * m_star * v * v / (16.0 * e_star * r_star.sqrt())).powf(0.4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_overlap_follows_hertz_and_stiffness_is_its_derivative() {
        let p = HertzParams::new(15_533.0, 1.0);
        let r = 0.005f32;
        for k in 1..=50 {
            let d = 1e-5 * k as f64 * k as f64;
            let exact = 4.0 / 3.0 * 15_533.0 * 0.005f64.sqrt() * d.powf(1.5);
            let f = hertz_normal_force(&p, r, 1e-5, d as f32, 0.0) as f64;
            assert!((f / exact - 1.0).abs() < 1e-3, "δ = {d}: {f} vs {exact}");
            let e = hertz_energy(&p, r, d as f32) as f64;
            let e_exact = 8.0 / 15.0 * 15_533.0 * 0.005f64.sqrt() * d.powf(2.5);
            assert!((e / e_exact - 1.0).abs() < 1e-3);
            // S_n against a central difference of f_el.
            let h = d * 1e-3;
            let fd = (hertz_elastic_force(&p, r, (d + h) as f32) as f64
                - hertz_elastic_force(&p, r, (d - h) as f32) as f64)
                / (2.0 * h);
            let s = hertz_stiffness(&p, r, d as f32) as f64;
            assert!((s / fd - 1.0).abs() < 2e-2, "δ = {d}: S_n {s} vs {fd}");
        }
    }

    #[test]
    fn damping_repels_on_approach_and_is_clipped_at_separation() {
        let p = HertzParams::new(1e6, 0.7);
        assert!(p.beta_e < 0.0);
        let f_el = hertz_elastic_force(&p, 0.01, 1e-4);
        assert!(hertz_normal_force(&p, 0.01, 1e-3, 1e-4, 1.0) > f_el);
        assert!(hertz_normal_force(&p, 0.01, 1e-3, 1e-4, -1.0) < f_el);
        assert_eq!(hertz_normal_force(&p, 0.01, 1e-3, 1e-4, -1e6), 0.0);
    }
}
