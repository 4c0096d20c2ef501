//! Linear spring–dashpot (Cundall & Strack): f_n = k_n δ + γ_n δ̇, γ_n = −2 β_e sqrt(k_n m_ij),
//! clipped at zero; the tangential part is the incremental spring of `mindlin` with a constant
//! k_t. Twin: `shaders/linear_spring_dashpot.wgsl`.
//!
//! With β_e from the restitution e (`mixing::restitution_damping_ratio`) an unclipped linear
//! oscillator rebounds with exactly e; the clip ends the contact a little earlier, when
//! k_n δ + γ_n δ̇ = 0 (the exact rebound of the clipped law is in `tests/sphere_laws.rs`).

use bytemuck::{Pod, Zeroable};

/// Linear spring–dashpot parameters of a material pair (`LinearSpringDashpotParams` in WGSL).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LinearSpringDashpotParams {
    /// Normal stiffness k_n (N/m).
    pub k_n: f32,
    /// Tangential stiffness k_t (N/m).
    pub k_t: f32,
    /// β_e of the restitution (≤ 0).
    pub beta_e: f32,
    /// Coulomb friction coefficient μ of the tangential spring.
    pub mu: f32,
}

/// Normal damping γ_n = −2 β_e sqrt(k_n m_ij).
#[inline(always)]
pub fn linear_damping(p: &LinearSpringDashpotParams, m_star: f32) -> f32 {
    -2.0 * p.beta_e * (p.k_n * m_star).sqrt()
}

/// Normal force k_n δ + γ_n δ̇ (positive repulsive), clipped at zero.
#[inline(always)]
pub fn linear_normal_force(p: &LinearSpringDashpotParams, m_star: f32, delta: f32, delta_dot: f32) -> f32 {
    let f = p.k_n * delta + linear_damping(p, m_star) * delta_dot;
    f.max(0.0)
}

/// Normal spring energy k_n δ²/2.
#[inline(always)]
pub fn linear_energy(p: &LinearSpringDashpotParams, delta: f32) -> f32 {
    0.5 * p.k_n * delta * delta
}

/// Contact stiffness for the critical time step: k_n.
#[inline(always)]
pub fn linear_stiffness(p: &LinearSpringDashpotParams) -> f32 {
    p.k_n
}

/// Tangential damping γ_t = −2 β_e sqrt(k_t m_ij).
#[inline(always)]
pub fn linear_tangential_damping(p: &LinearSpringDashpotParams, m_star: f32) -> f32 {
    -2.0 * p.beta_e * (p.k_t * m_star).sqrt()
}
