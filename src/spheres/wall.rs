//! Walls: a point (double-f32, so a slowly driven wall moves by sub-ulp steps), a unit direction,
//! a velocity, a material of the law table, and the force and torque the spheres exert on it
//! (reported, gathered over spheres in index order). A wall is rigid and infinitely massive:
//! m_ij = m_i, and r_ij = r_i (locally flat, also for the cylinder: LIGGGHTS' choice for its
//! primitive walls). Kinds (`kind`):
//! - `WALL_PLANE`: a plane through the point with inward normal `normal`;
//! - `WALL_CYLINDER`: the inside of a cylinder of radius `size` whose axis passes through the
//!   point along `normal` (spheres inside; the normal of a contact points to the axis);
//! - `WALL_SERVO`: a plane whose normal velocity is set after every force evaluation from the
//!   stress it carries, σ = −F·n/A (A = `size`): v = n clamp(g (σ_target − σ), −v_max, v_max)
//!   (`servo_velocity`), on the device for the GPU stepper (no read-back).
//!
//! A box is six planes (`box_walls`).

use super::contact::{branch_vectors, ContactGeometry};
use super::precision::{df3_add, df3_split, df3_sub};
use super::state::SphereState;
use crate::laws::vec3::{add, cross, dot, norm, scale, sub, V3};
use bytemuck::{Pod, Zeroable};

/// A plane wall (96 bytes; `PlaneWall` in `shaders/sphere_state.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PlaneWall {
    pub point_hi: [f32; 3],
    pub material: u32,
    pub point_lo: [f32; 3],
    /// `WALL_PLANE`, `WALL_CYLINDER` or `WALL_SERVO`.
    pub kind: u32,
    /// Plane and servo: unit normal pointing into the domain (towards the spheres it holds).
    /// Cylinder: unit axis.
    pub normal: [f32; 3],
    /// Cylinder: radius R (m). Servo: the area A (m²) its stress is measured over.
    pub size: f32,
    pub velocity: [f32; 3],
    /// Servo: target stress σ_target (Pa, > 0 in compression).
    pub target_stress: f32,
    /// Force of the spheres on the wall (output of the last step).
    pub force: [f32; 3],
    /// Servo: gain g ((m/s)/Pa).
    pub gain: f32,
    /// Torque of the spheres on the wall about its point (output of the last step).
    pub torque: [f32; 3],
    /// Servo: largest normal speed v_max (m/s).
    pub max_speed: f32,
}

pub const WALL_PLANE: u32 = 0;
pub const WALL_CYLINDER: u32 = 1;
pub const WALL_SERVO: u32 = 2;

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

    /// The inside of a cylinder of radius R with its axis through `point` along `axis`, at rest.
    pub fn cylinder(point: [f64; 3], axis: [f64; 3], radius: f64, material: u32) -> PlaneWall {
        PlaneWall {
            kind: WALL_CYLINDER,
            size: radius as f32,
            ..PlaneWall::new(point, axis, [0.0; 3], material)
        }
    }

    /// A servo-controlled plane (see the module doc), starting at rest.
    pub fn servo(
        point: [f64; 3],
        normal: [f64; 3],
        area: f64,
        target_stress: f64,
        gain: f64,
        max_speed: f64,
        material: u32,
    ) -> PlaneWall {
        PlaneWall {
            kind: WALL_SERVO,
            size: area as f32,
            target_stress: target_stress as f32,
            gain: gain as f32,
            max_speed: max_speed as f32,
            ..PlaneWall::new(point, normal, [0.0; 3], material)
        }
    }

    /// Stress the spheres exert on the wall, −F·n/A (servo; > 0 in compression).
    pub fn stress(&self) -> f32 {
        -dot(self.force, self.normal) / self.size
    }

    /// Moves the point by Δt v (TwoSum, as sphere positions).
    pub fn advance(&mut self, dt: f32) {
        let (hi, lo) = df3_add(self.point_hi, self.point_lo, scale(self.velocity, dt));
        self.point_hi = hi;
        self.point_lo = lo;
    }
}

/// The six inward planes of the box [lo, hi] (order −x, +x, −y, +y, −z, +z), at rest.
pub fn box_walls(lo: [f64; 3], hi: [f64; 3], material: u32) -> Vec<PlaneWall> {
    let mut out = Vec::with_capacity(6);
    for k in 0..3 {
        let mut n = [0.0; 3];
        n[k] = 1.0;
        out.push(PlaneWall::new(lo, n, [0.0; 3], material));
        n[k] = -1.0;
        out.push(PlaneWall::new(hi, n, [0.0; 3], material));
    }
    out
}

/// Servo law (after the wall's force is gathered): v = n clamp(g (σ_target − σ), ±v_max), so the
/// wall advances into the domain while it carries less than the target. Other kinds unchanged.
#[inline]
pub fn servo_velocity(w: &PlaneWall) -> V3 {
    if w.kind != WALL_SERVO {
        return w.velocity;
    }
    let u = (w.gain * (w.target_stress - w.stress())).clamp(-w.max_speed, w.max_speed);
    scale(w.normal, u)
}

/// Whether sphere s is a candidate of wall w at a list build: its gap to the wall is below the
/// skin (δ > −skin, δ as in `wall_geometry`). Between builds a sphere and a wall each move less
/// than skin/2 (`CpuSpheres::needs_rebuild`), so a sphere that is not a candidate cannot touch.
#[inline]
pub fn wall_candidate(w: &PlaneWall, s: &SphereState, skin: f32) -> bool {
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    let gap = if w.kind == WALL_CYLINDER {
        w.size - norm(sub(d, scale(w.normal, dot(d, w.normal))))
    } else {
        dot(d, w.normal)
    };
    s.radius + skin - gap > 0.0
}

/// Geometry of sphere s against wall w (δ ≤ 0 when apart), the sphere's branch vector, and the
/// contact point relative to the wall point (for the wall torque).
#[inline]
pub fn wall_geometry(w: &PlaneWall, s: &SphereState) -> (ContactGeometry, V3, V3) {
    let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
    let (n, gap) = if w.kind == WALL_CYLINDER {
        // Radial offset from the axis; the normal points from the shell to the axis.
        let radial = sub(d, scale(w.normal, dot(d, w.normal)));
        let rho = norm(radial);
        if rho == 0.0 {
            return (ContactGeometry::default(), [0.0; 3], [0.0; 3]);
        }
        (scale(radial, -1.0 / rho), w.size - rho)
    } else {
        (w.normal, dot(d, w.normal))
    };
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
