//! A membrane's rims on their platens after every step: the CPU twin (the reference) of
//! `shaders/membrane_rims.wgsl`, same names and order: `hold_rims` (one rim vertex at a time),
//! then `rim_servo_area` (the servo platen's area from its rim).
//!
//! Two rules per rim vertex:
//! - **Pinned** (`[spheres.membrane]` scenarios): x = x₀ + (w − w₀), w the wall's point, x₀ and
//!   w₀ at the start; the wall's velocity, no spin. The reference evaluates it in f64 and splits
//!   it to hi + lo (as the scenario path always did). The kernel has no f64: it adds the
//!   double-f32 offset d = x₀ − w₀ (split on the host from the same f64) to the wall's double-f32
//!   point (TwoSum of the hi parts, the lo parts added, renormalised): the same point to
//!   ~2⁻⁴⁷ |x| (≤ 1e-14 m asserted in tests/gpu_membrane_triaxial.rs; bit for bit there, but
//!   not guaranteed: the two roundings differ in general).
//! - **Sliding** (the validation's triaxial cell, `TriaxialCell::hold_rims`): z and v_z of the
//!   platen, free radially (x, y and the other velocity components kept). The reference
//!   re-splits the f64 values, which gives back the wall's and the vertex's (hi, lo) pairs
//!   (they are normalised: TwoSum results or splits); the kernel copies the pairs: bit for bit.
//!
//! **Servo area** (optional, `ServoArea`): the servo platen measures its stress over the sample's
//! cross-section at its rim, which moves with a sliding rim: after the rims, the wall's `size`
//! becomes `triaxial::rim_area_of` of the rim (the polygon; for vertex particles the circle of
//! its area less the vertex radius), as `TriaxialCell::step` sets it. The reference is f64; the
//! kernel forms the polygon as a fan of double-f32 differences from the rim's first vertex in
//! f32: within ~1e-6 of the area (asserted 1e-5 relative).

use super::model::MembraneContact;
use crate::spheres::precision::{df3_split, df3_value};
use crate::spheres::{PlaneWall, SphereState};
use bytemuck::{Pod, Zeroable};

/// `RimPin::mode`: on the wall's path x₀ + (w − w₀).
pub const RIM_PINNED: u32 = 0;
/// `RimPin::mode`: z and v_z of the wall, free radially.
pub const RIM_SLIDING: u32 = 1;
/// `RimParams::area_wall` without a servo area.
pub const RIM_NO_AREA: u32 = u32::MAX;

/// One rim vertex (`RimPin` of membrane_rims.wgsl, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RimPin {
    /// Sphere index of the vertex and the wall it follows.
    pub sphere: u32,
    pub wall: u32,
    /// `RIM_PINNED` or `RIM_SLIDING`.
    pub mode: u32,
    pub _pad0: u32,
    /// Pinned: x₀ − w₀ as hi + lo (split from f64); zero when sliding.
    pub offset_hi: [f32; 3],
    pub _pad1: f32,
    pub offset_lo: [f32; 3],
    pub _pad2: f32,
}

/// `RimParams` of membrane_rims.wgsl (a uniform, 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RimParams {
    pub n_pins: u32,
    /// The servo wall whose `size` is the rim's area, or `RIM_NO_AREA`.
    pub area_wall: u32,
    /// Vertices of the area's rim (ring order).
    pub n_area: u32,
    /// 1: vertex particles (the circle less `vertex_radius`), 0: patches (the polygon).
    pub particles: u32,
    pub vertex_radius: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// How one rim vertex follows its wall (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RimRule {
    /// x₀ and w₀: the vertex's and the wall's points at the start.
    Pinned {
        x0: [f64; 3],
        w0: [f64; 3],
    },
    Sliding,
}

/// One rim vertex: its sphere, the wall, the rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rim {
    pub sphere: u32,
    pub wall: u32,
    pub rule: RimRule,
}

/// The servo platen whose area follows a rim (module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ServoArea {
    pub wall: u32,
    /// Sphere indices of the rim, in ring order.
    pub rim: Vec<u32>,
    pub contact: MembraneContact,
    pub vertex_radius: f64,
}

/// The rims of one membrane.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rims {
    pub rims: Vec<Rim>,
    pub area: Option<ServoArea>,
}

impl Rims {
    /// Pinned rims (`[spheres.membrane]`): (sphere, wall) pairs, x₀ from `states`, w₀ from `walls`.
    pub fn pinned(pins: &[(u32, u32)], states: &[SphereState], walls: &[PlaneWall]) -> Rims {
        Rims {
            rims: pins
                .iter()
                .map(|&(s, w)| Rim {
                    sphere: s,
                    wall: w,
                    rule: RimRule::Pinned {
                        x0: states[s as usize].position(),
                        w0: wall_point(&walls[w as usize]),
                    },
                })
                .collect(),
            area: None,
        }
    }

    /// Sliding rims (the triaxial cell): each (wall, spheres of its rim).
    pub fn sliding(rims: &[(u32, &[u32])], area: Option<ServoArea>) -> Rims {
        Rims {
            rims: rims
                .iter()
                .flat_map(|&(w, ss)| {
                    ss.iter().map(move |&s| Rim {
                        sphere: s,
                        wall: w,
                        rule: RimRule::Sliding,
                    })
                })
                .collect(),
            area,
        }
    }

    /// The kernel's records (the offsets split from f64).
    pub fn records(&self) -> Vec<RimPin> {
        self.rims
            .iter()
            .map(|r| {
                let (mode, d) = match r.rule {
                    RimRule::Pinned { x0, w0 } => (RIM_PINNED, [0, 1, 2].map(|c| x0[c] - w0[c])),
                    RimRule::Sliding => (RIM_SLIDING, [0.0; 3]),
                };
                let (offset_hi, offset_lo) = df3_split(d);
                RimPin {
                    sphere: r.sphere,
                    wall: r.wall,
                    mode,
                    offset_hi,
                    offset_lo,
                    ..Default::default()
                }
            })
            .collect()
    }

    /// The kernel's uniform.
    pub fn params(&self) -> RimParams {
        let a = self.area.as_ref();
        RimParams {
            n_pins: self.rims.len() as u32,
            area_wall: a.map_or(RIM_NO_AREA, |a| a.wall),
            n_area: a.map_or(0, |a| a.rim.len() as u32),
            particles: a.is_some_and(|a| a.contact == MembraneContact::Particles) as u32,
            vertex_radius: a.map_or(0.0, |a| a.vertex_radius as f32),
            ..Default::default()
        }
    }
}

fn wall_point(w: &PlaneWall) -> [f64; 3] {
    df3_value(w.point_hi, w.point_lo)
}

/// Every rim vertex on its wall (module doc), in rim order.
pub fn hold_rims(states: &mut [SphereState], walls: &[PlaneWall], rims: &Rims) {
    for r in &rims.rims {
        let st = &mut states[r.sphere as usize];
        let wall = &walls[r.wall as usize];
        match r.rule {
            RimRule::Pinned { x0, w0 } => pin_vertex(st, x0, w0, wall),
            RimRule::Sliding => slide_vertex(st, wall),
        }
    }
}

/// A pinned vertex on its wall's path: x = x₀ + (w − w₀), the wall's velocity, no spin.
pub fn pin_vertex(st: &mut SphereState, x0: [f64; 3], w0: [f64; 3], wall: &PlaneWall) {
    let now = wall_point(wall);
    let x = [0, 1, 2].map(|c| x0[c] + (now[c] - w0[c]));
    (st.pos_hi, st.pos_lo) = df3_split(x);
    st.vel = wall.velocity;
    st.omega = [0.0; 3];
}

/// A sliding vertex on its wall: z and v_z of the wall, x and y kept.
pub fn slide_vertex(st: &mut SphereState, wall: &PlaneWall) {
    let x = st.position();
    let z = wall_point(wall)[2];
    (st.pos_hi, st.pos_lo) = df3_split([x[0], x[1], z]);
    st.vel[2] = wall.velocity[2];
}

/// The servo wall's area from its rim (module doc); nothing without a `ServoArea`.
pub fn rim_servo_area(states: &[SphereState], walls: &mut [PlaneWall], rims: &Rims) {
    let Some(a) = &rims.area else {
        return;
    };
    let x: Vec<[f64; 3]> = a.rim.iter().map(|&s| states[s as usize].position()).collect();
    walls[a.wall as usize].size = super::triaxial::rim_area_of(&x, a.contact, a.vertex_radius) as f32;
}
