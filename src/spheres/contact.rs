//! One contact: its geometry (from two spheres or a sphere and a wall), its history record and
//! the force of the pair's law. `pair_force` is the twin of `pair_force` in
//! `shaders/sphere_contact.wgsl` (same records, same steps).

use super::pair_law::{PairLaw, LAW_HERTZ_MINDLIN, LAW_PLANE_REPULSION};
use super::precision::df3_sub;
use super::state::SphereState;
use crate::laws::hertz::{hertz_elastic_force, hertz_energy, hertz_normal_force};
use crate::laws::linear_spring_dashpot::{linear_energy, linear_normal_force, linear_tangential_damping};
use crate::laws::mc_stress::MC_CAP_HERTZ;
use crate::laws::mindlin::{mindlin_damping, mindlin_energy, mindlin_stiffness, tangential_spring_force};
use crate::laws::plane_repulsion::{plane_repulsion_energy, plane_repulsion_normal};
use crate::laws::rolling_resistance::rolling_torque;
use crate::laws::vec3::{add, cross, dot, norm, scale, sub, tangential, V3};
use bytemuck::{Pod, Zeroable};

/// What a law needs of a contact (48 bytes): unit normal n from j to i, overlap δ, relative
/// velocity of i with respect to j at the contact point, ω_i − ω_j, r_ij and m_ij.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactGeometry {
    pub normal: [f32; 3],
    pub delta: f32,
    pub v_rel: [f32; 3],
    pub r_star: f32,
    pub w_rel: [f32; 3],
    pub m_star: f32,
}

/// History of a contact (32 bytes): the elastic tangential force and the rolling torque on i,
/// carried across steps and list rebuilds, reset to zero when the contact opens.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactHistory {
    pub tangential: [f32; 3],
    pub _pad0: f32,
    pub rolling: [f32; 3],
    pub _pad1: f32,
}

/// Result of a law (32 bytes): force on i (j gets −force), the normal force f_n ≥ 0, the rolling
/// torque on i (j gets its opposite) and the elastic energy stored in the contact.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairForce {
    pub force: [f32; 3],
    pub f_n: f32,
    pub rolling_torque: [f32; 3],
    pub energy: f32,
}

/// Force, torques, normal force and energy of one candidate pair (or sphere–wall contact) in
/// the last step (48 bytes; `PairOut` in `shaders/sphere_contact.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairOut {
    /// Force on i (j gets −force).
    pub force: V3,
    pub f_n: f32,
    pub torque_i: V3,
    pub energy: f32,
    /// Torque on j (on a wall: about the wall's point).
    pub torque_j: V3,
    pub _pad: f32,
}

/// The classical normal force of the pair's law (eq 3, the linear spring–dashpot, or the bead
/// planes' eq 6), ≥ 0:
/// what MC-stress's first pass sums into the particle stress.
#[inline]
pub fn classical_normal_force(law: &PairLaw, g: &ContactGeometry) -> f32 {
    let delta_dot = -dot(g.v_rel, g.normal);
    if law.kind == LAW_HERTZ_MINDLIN {
        hertz_normal_force(&law.hertz, g.r_star, g.m_star, g.delta, delta_dot)
    } else if law.kind == LAW_PLANE_REPULSION {
        plane_repulsion_normal(law.linear.k_n, g.delta)
    } else {
        linear_normal_force(&law.linear, g.m_star, g.delta, delta_dot)
    }
}

/// The force of `law` on a contact of geometry `g` (δ > 0) with history `h`, plus `f_mc`, the
/// MC-stress correction of eq 10 (0 for classical DEM); returns the force and the new history.
/// δ ≤ 0: no force and a cleared history.
#[inline]
pub fn pair_force(
    law: &PairLaw,
    g: &ContactGeometry,
    dt: f32,
    h: &ContactHistory,
    f_mc: f32,
) -> (PairForce, ContactHistory) {
    if g.delta <= 0.0 {
        return (PairForce::default(), ContactHistory::default());
    }
    let n = g.normal;
    let v_t = tangential(g.v_rel, n);
    let f_classical = classical_normal_force(law, g);
    let f_n = f_classical + f_mc;
    // The normal force that caps friction (and rolling): the corrected one unless MC_CAP_HERTZ.
    let f_cap = if (law.mc.options & MC_CAP_HERTZ) != 0 {
        f_classical
    } else {
        f_n
    };
    let k_n: f32;
    let k_t: f32;
    let gamma_t: f32;
    let mu: f32;
    let mut energy: f32;
    if law.kind == LAW_HERTZ_MINDLIN {
        // Secant stiffness f_el/δ for the rolling spring (LIGGGHTS' k_n of the Hertz model).
        k_n = hertz_elastic_force(&law.hertz, g.r_star, g.delta) / g.delta;
        k_t = mindlin_stiffness(&law.mindlin, g.r_star, g.delta);
        gamma_t = mindlin_damping(&law.mindlin, k_t, g.m_star);
        mu = law.mindlin.mu;
        energy = hertz_energy(&law.hertz, g.r_star, g.delta);
    } else if law.kind == LAW_PLANE_REPULSION {
        // Eq 6: normal only (k_t = γ_t = μ = 0 give no tangential force nor history).
        k_n = law.linear.k_n * g.delta;
        k_t = 0.0;
        gamma_t = 0.0;
        mu = 0.0;
        energy = plane_repulsion_energy(law.linear.k_n, g.delta);
    } else {
        k_n = law.linear.k_n;
        k_t = law.linear.k_t;
        gamma_t = linear_tangential_damping(&law.linear, g.m_star);
        mu = law.linear.mu;
        energy = linear_energy(&law.linear, g.delta);
    }
    let t = tangential_spring_force(k_t, gamma_t, mu * f_cap, n, v_t, dt, h.tangential);
    energy += mindlin_energy(k_t, t.history);
    let m_r = if law.rolling.mu_r > 0.0 {
        rolling_torque(&law.rolling, k_n, g.r_star, f_cap, n, g.w_rel, dt, h.rolling)
    } else {
        [0.0; 3]
    };
    (
        PairForce {
            force: add(scale(n, f_n), t.force),
            f_n,
            rolling_torque: m_r,
            energy,
        },
        ContactHistory {
            tangential: t.history,
            _pad0: 0.0,
            rolling: m_r,
            _pad1: 0.0,
        },
    )
}

/// Branch vectors l_i, l_j from the centres to the contact point, taken at the middle of the
/// overlap: l_i = −(r_i − δ/2) n, l_j = (r_j − δ/2) n.
#[inline]
pub fn branch_vectors(n: V3, delta: f32, r_i: f32, r_j: f32) -> (V3, V3) {
    (scale(n, -(r_i - 0.5 * delta)), scale(n, r_j - 0.5 * delta))
}

/// Geometry of spheres i and j (δ ≤ 0 when apart) and their branch vectors.
#[inline]
pub fn sphere_pair_geometry(a: &SphereState, b: &SphereState) -> (ContactGeometry, V3, V3) {
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let dist = norm(d);
    let delta = a.radius + b.radius - dist;
    if delta <= 0.0 || dist <= 0.0 {
        return (ContactGeometry::default(), [0.0; 3], [0.0; 3]);
    }
    let n = scale(d, 1.0 / dist);
    let (l_i, l_j) = branch_vectors(n, delta, a.radius, b.radius);
    let v_i = add(a.vel, cross(a.omega, l_i));
    let v_j = add(b.vel, cross(b.omega, l_j));
    (
        ContactGeometry {
            normal: n,
            delta,
            v_rel: sub(v_i, v_j),
            r_star: a.radius * b.radius / (a.radius + b.radius),
            w_rel: sub(a.omega, b.omega),
            m_star: a.mass * b.mass / (a.mass + b.mass),
        },
        l_i,
        l_j,
    )
}
