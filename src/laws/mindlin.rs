//! Mindlin/Tsuji tangential force (paper eq 4–6): an incremental spring of stiffness
//! k_t = 8 G* sqrt(r_ij δ) whose force is the contact's history, a dashpot, and the Coulomb cap
//! |f_t| ≤ μ f_n. Twin: `shaders/mindlin.wgsl`.
//!
//! One step, in the order of `tangential_spring_force`:
//!   1. the stored elastic force h is rotated into the current tangent plane, its length kept
//!      (the contact frame turns between steps; LIGGGHTS and MercuryDPM do the same);
//!   2. h ← h − k_t v_t Δt                                  (eq 4–6: Δf = k_t Δδ_t, Δδ_t = v_t Δt);
//!   3. f_t = h − γ_t v_t, γ_t = −2 sqrt(5/6) β_e sqrt(k_t m_ij) (LIGGGHTS' tangential dashpot);
//!   4. if |f_t| > μ f_n: f_t ← μ f_n f_t/|f_t| and h ← f_t + γ_t v_t (the spring holds what the
//!      cap leaves after the dashpot, as MercuryDPM does), so sliding resumes from the cap.
//!
//! The history is the elastic force itself (the paper's incremental eq 4), not a displacement
//! multiplied by the current k_t as in LIGGGHTS; under constant f_n the two are the same.

use super::vec3::{add, dot, norm, scale, sub, tangential, V3};
use bytemuck::{Pod, Zeroable};

/// Mindlin parameters of a material pair (`MindlinParams` in `shaders/mindlin.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MindlinParams {
    /// Effective shear modulus G* (Pa), `mixing::effective_shear`.
    pub g_star: f32,
    /// Coulomb friction coefficient μ.
    pub mu: f32,
    /// β_e of the restitution, for the tangential dashpot (≤ 0).
    pub beta_e: f32,
    pub _pad: f32,
}

/// The new tangential force and history of a contact (`TangentialUpdate` in WGSL).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentialUpdate {
    /// Tangential force on i.
    pub force: V3,
    /// Elastic tangential force to store as the contact's history.
    pub history: V3,
}

/// Tangential stiffness k_t = 8 G* sqrt(r_ij δ) (eq 5).
#[inline(always)]
pub fn mindlin_stiffness(p: &MindlinParams, r_star: f32, delta: f32) -> f32 {
    8.0 * p.g_star * (r_star * delta).sqrt()
}

/// Tangential damping γ_t = −2 sqrt(5/6) β_e sqrt(k_t m_ij) (≥ 0).
#[inline(always)]
pub fn mindlin_damping(p: &MindlinParams, k_t: f32, m_star: f32) -> f32 {
    -super::hertz::TWO_SQRT_FIVE_SIXTHS * p.beta_e * (k_t * m_star).sqrt()
}

/// The history rotated into the plane orthogonal to n with its length kept (zero stays zero).
#[inline(always)]
pub fn rotate_history(h: V3, n: V3) -> V3 {
    let len = norm(h);
    let t = tangential(h, n);
    let tl = norm(t);
    if tl > 0.0 {
        scale(t, len / tl)
    } else {
        [0.0; 3]
    }
}

/// Steps 1–4 above: incremental spring k_t, dashpot γ_t, Coulomb cap μ f_n (f_n ≥ 0 is the
/// normal force that caps friction). `v_t` is the tangential relative velocity of i with
/// respect to j at the contact point, `history` the stored elastic force of the step before.
#[inline(always)]
pub fn tangential_spring_force(
    k_t: f32,
    gamma_t: f32,
    mu_f_n: f32,
    n: V3,
    v_t: V3,
    dt: f32,
    history: V3,
) -> TangentialUpdate {
    let h = sub(rotate_history(history, n), scale(v_t, k_t * dt));
    let f = sub(h, scale(v_t, gamma_t));
    let f_len = norm(f);
    if f_len > mu_f_n {
        let capped = if f_len > 0.0 {
            scale(f, mu_f_n / f_len)
        } else {
            [0.0; 3]
        };
        TangentialUpdate {
            force: capped,
            history: add(capped, scale(v_t, gamma_t)),
        }
    } else {
        TangentialUpdate { force: f, history: h }
    }
}

/// Elastic energy of the tangential spring, |h|²/(2 k_t) (0 when k_t = 0).
#[inline(always)]
pub fn mindlin_energy(k_t: f32, history: V3) -> f32 {
    if k_t > 0.0 {
        dot(history, history) / (2.0 * k_t)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::vec3::norm;

    /// Deterministic pseudo-random numbers in [−1, 1) (splitmix64).
    fn rand(s: &mut u64) -> f32 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    #[test]
    fn rotation_keeps_length_and_makes_the_history_tangent() {
        let mut s = 7u64;
        for _ in 0..1000 {
            let h = [rand(&mut s), rand(&mut s), rand(&mut s)];
            let m = [rand(&mut s), rand(&mut s), rand(&mut s)];
            let n = scale(m, 1.0 / norm(m));
            let r = rotate_history(h, n);
            assert!((norm(r) - norm(h)).abs() <= 1e-6 * norm(h).max(1.0), "{h:?} → {r:?}");
            assert!(dot(r, n).abs() <= 2e-6 * norm(h).max(1.0), "not tangent: {}", dot(r, n));
        }
        assert_eq!(rotate_history([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]), [0.0; 3]);
    }

    #[test]
    fn constant_normal_force_growing_displacement_follows_k_t_then_caps() {
        // A contact at fixed δ (so k_t and μ f_n are constant), i sliding along +x on j at v,
        // no dashpot: f_x = −k_t v t until |f| reaches μ f_n, then exactly −μ f_n.
        let p = MindlinParams {
            g_star: 1e6,
            mu: 0.5,
            beta_e: 0.0,
            _pad: 0.0,
        };
        let (r, delta, f_n) = (0.01f32, 1e-4f32, 10.0f32);
        let k_t = mindlin_stiffness(&p, r, delta);
        assert!((k_t as f64 / (8e6 * (1e-6f64).sqrt()) - 1.0).abs() < 1e-6);
        let (v, dt) = (0.1f32, 1e-4f32); // slip after 62.5 steps
        let n = [0.0, 0.0, 1.0];
        let mut h = [0.0f32; 3];
        let slip_at = p.mu * f_n / k_t; // tangential displacement where sliding starts
        for step in 1..=400 {
            let u = tangential_spring_force(k_t, 0.0, p.mu * f_n, n, [v, 0.0, 0.0], dt, h);
            h = u.history;
            let disp = v * dt * step as f32;
            let expect = -(k_t * disp).min(p.mu * f_n);
            assert!(
                (u.force[0] - expect).abs() <= 1e-4 * p.mu * f_n,
                "step {step}: {} vs {expect}",
                u.force[0]
            );
            assert_eq!((u.force[1], u.force[2]), (0.0, 0.0));
            if disp > 1.01 * slip_at {
                assert_eq!(u.force[0], -p.mu * f_n, "capped exactly");
            }
        }
        // Reversal after sliding: the spring unloads from the cap with slope k_t.
        let u = tangential_spring_force(k_t, 0.0, p.mu * f_n, n, [-v, 0.0, 0.0], dt, h);
        let expect = -p.mu * f_n + k_t * v * dt;
        assert!(
            (u.force[0] - expect).abs() < 1e-4 * p.mu * f_n,
            "{} vs {expect}",
            u.force[0]
        );
    }
}
