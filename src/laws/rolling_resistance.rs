//! Optional rolling resistance: an elastic–plastic spring torque (Ai et al., Powder Technol. 206
//! (2011), model C without its viscous part; LIGGGHTS' `rolling_friction epsd2`).
//!
//!   k_r = 2.25 k_n μ_r² r_ij²,  M_r ← rot(M_r) − k_r ω_r Δt,  |M_r| ≤ μ_r r_ij f_n,
//!
//! ω_r = (ω_i − ω_j) projected on the tangent plane, k_n the contact's normal stiffness (the
//! Hertz caller passes the secant f_el/δ as LIGGGHTS does), M_r the torque on i (j gets −M_r),
//! stored as the contact's rolling history and rotated like the tangential one. A sphere on a
//! slope of angle θ is then held by it while tan θ < μ_r. Twin: `shaders/rolling_resistance.wgsl`.

use super::mindlin::rotate_history;
use super::vec3::{norm, scale, sub, tangential, V3};
use bytemuck::{Pod, Zeroable};

/// Rolling parameters of a material pair (`RollingParams` in WGSL); μ_r = 0 turns it off.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RollingParams {
    /// Rolling friction coefficient μ_r (dimensionless).
    pub mu_r: f32,
    pub _pad: f32,
}

/// Rolling stiffness k_r = 2.25 k_n μ_r² r_ij².
#[inline(always)]
pub fn rolling_stiffness(p: &RollingParams, k_n: f32, r_star: f32) -> f32 {
    2.25 * k_n * p.mu_r * p.mu_r * r_star * r_star
}

/// The new rolling torque on i (also the history to store). The arguments mirror the WGSL twin.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rolling_torque(
    p: &RollingParams,
    k_n: f32,
    r_star: f32,
    f_n: f32,
    n: V3,
    w_rel: V3,
    dt: f32,
    history: V3,
) -> V3 {
    let k_r = rolling_stiffness(p, k_n, r_star);
    let w_r = tangential(w_rel, n);
    let m = sub(rotate_history(history, n), scale(w_r, k_r * dt));
    let cap = p.mu_r * r_star * f_n;
    let len = norm(m);
    if len > cap {
        if len > 0.0 {
            scale(m, cap / len)
        } else {
            [0.0; 3]
        }
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torque_follows_k_r_then_caps_at_mu_r_r_f_n() {
        let p = RollingParams { mu_r: 0.1, _pad: 0.0 };
        let (k_n, r, f_n) = (1e4f32, 0.01f32, 2.0f32);
        let k_r = rolling_stiffness(&p, k_n, r);
        let (w, dt) = (0.5f32, 1e-3f32);
        let mut m = [0.0f32; 3];
        let cap = p.mu_r * r * f_n;
        for step in 1..=200 {
            m = rolling_torque(&p, k_n, r, f_n, [0.0, 0.0, 1.0], [w, 0.0, 3.0], dt, m);
            let expect = -(k_r * w * dt * step as f32).min(cap);
            assert!((m[0] - expect).abs() <= 1e-4 * cap, "step {step}: {} vs {expect}", m[0]);
            assert_eq!((m[1], m[2]), (0.0, 0.0), "twist about n is not rolling");
        }
        assert_eq!(m[0], -cap);
    }
}
