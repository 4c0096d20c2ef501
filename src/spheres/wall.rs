//! Plane walls: a point (double-f32, so a slowly driven wall moves by sub-ulp steps), an inward
//! unit normal, a velocity, a material of the law table, and the force and torque the spheres
//! exert on it (reported, gathered over spheres in index order). A wall is rigid and infinitely
//! massive: r_ij = r_i, m_ij = m_i. Servo control and cylinder/box walls are not built yet.

use super::contact::{branch_vectors, ContactGeometry};
use super::precision::{df3_add, df3_split, df3_sub};
use super::state::SphereState;
use crate::laws::vec3::{add, cross, dot, scale, sub, V3};
use bytemuck::{Pod, Zeroable};

/// A plane wall (96 bytes; `PlaneWall` in `shaders/sphere_state.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PlaneWall {
    pub point_hi: [f32; 3],
    pub material: u32,
    pub point_lo: [f32; 3],
    pub _pad0: f32,
    /// Unit normal pointing into the domain (towards the spheres it holds).
    pub normal: [f32; 3],
    pub _pad1: f32,
    pub velocity: [f32; 3],
    pub _pad2: f32,
    /// Force of the spheres on the wall (output of the last step).
    pub force: [f32; 3],
    pub _pad3: f32,
    /// Torque of the spheres on the wall about its point (output of the last step).
    pub torque: [f32; 3],
    pub _pad4: f32,
}

impl PlaneWall {
    pub fn new(point: [f64; 3], normal: [f64; 3], velocity: [f64; 3], material: u32) -> PlaneWall {
        let len = (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
        let (hi, lo) = df3_split(point);
        PlaneWall {
            point_hi: hi,
            point_lo: lo,
            material,
            normal: [
                (normal[0] / len) as f32,
                (normal[1] / len) as f32,
                (normal[2] / len) as f32,
            ],
            velocity: [velocity[0] as f32, velocity[1] as f32, velocity[2] as f32],
            ..Default::default()
        }
    }

    /// Moves the point by Δt v (TwoSum, as sphere positions).
    pub fn advance(&mut self, dt: f32) {
        let (hi, lo) = df3_add(self.point_hi, self.point_lo, scale(self.velocity, dt));
        self.point_hi = hi;
        self.point_lo = lo;
    }
}

/// Geometry of sphere s against wall w (δ ≤ 0 when apart), the sphere's branch vector, and the
/// contact point relative to the wall point (for the wall torque).
#[inline]
pub fn wall_geometry(w: &PlaneWall, s: &SphereState) -> (ContactGeometry, V3, V3) {
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    let n = w.normal;
    let gap = dot(d, n);
    let delta = s.radius - gap;
    if delta <= 0.0 {
        return (ContactGeometry::default(), [0.0; 3], [0.0; 3]);
    }
    let (l_i, _) = branch_vectors(n, delta, s.radius, 0.0);
    let v_i = add(s.vel, cross(s.omega, l_i));
    (
        ContactGeometry {
            normal: n,
            delta,
            v_rel: sub(v_i, w.velocity),
            r_star: s.radius,
            w_rel: s.omega,
            m_star: s.mass,
        },
        l_i,
        add(d, l_i),
    )
}
