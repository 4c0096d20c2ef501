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
//! - **Sliding**: z and v_z of the platen, free radially (x, y and the other velocity components
//!   kept). The reference re-splits the f64 values, which gives back the wall's and the vertex's
//!   (hi, lo) pairs (they are normalised: TwoSum results or splits); the kernel copies the pairs:
//!   bit for bit.
//! - **Stopped** (the validation's triaxial cell, `TriaxialCell::rims`): sliding, then the **rim
//!   stop**, the membrane sealed on an end cap of radius R_cap: a vertex may move radially outward
//!   but not inside R_cap from the wall's axis (the vertical line through the wall's point). A
//!   hard constraint: a vertex at ρ < R_cap is put on the cap along its radius, x = w + R_cap d/ρ
//!   (d = x − w in the plane), and an inward radial velocity is removed (v −= min(0, v·ê_r) ê_r;
//!   the tangential and axial parts kept): no force law, no stiffness, deterministic. The cap's
//!   radial reaction never enters a platen's axial force; `diagnose::probe` reports it as the
//!   inward radial force on the rim vertices held on the cap (`cap_force`). The rim's axial
//!   reaction (it follows its platen in z) is the cap's: `cap_axial_force`.
//!   The reference is f64; the kernel forms d in f32 from double-f32 differences, the offset
//!   R_cap d/ρ in f32, and adds it to the wall's double-f32 point: on the cap within a few f32
//!   ulps of |x| (test bound 1e-8 m; tests/gpu_membrane_triaxial.rs).
//! - **Faces** (with the stop, every other vertex of the membrane): the end caps' faces, the two
//!   walls `wall` and `wall_b`: a vertex beyond a wall's plane ((x − w)·n̂ < 0, n̂ into the cell)
//!   is put on it, x −= ((x − w)·n̂) n̂, and its velocity into the wall relative to the wall's is
//!   removed. The membrane's vertices have no contact law with rigid walls (docs/membrane.md); a
//!   rim held at R_cap leaves a wedge between the platen and the corner grains into which σ_c
//!   pushes the vertices of a fine membrane (MSS_particle, rings 1.15 mm apart) and, without
//!   this, through the platen (run away in case 1 at 5 ms of the ramp). The reaction is the
//!   platen's (`cap_axial_force`, with the rims' axial one). Reference f64; the kernel
//!   subtracts the f32 (x − w)·n̂ n̂ from the double-f32 position (within ~1e-7 of the step).
//!
//! **Load cell** (optional, `LoadCell`; the triaxial cell with `servo_on_load_cell`): after the
//! rims and the area, `load_cell_servo` reads the cap's axial force on the membrane at the servo
//! wall, R_z, from the last evaluation's forces (the rule of `cap_axial_force`, per pin
//! `cap_axial_part`) and sets the servo's target σ + R_z/A for the next step, as
//! `TriaxialCell::step` does before a step. The kernel sums in f32 over 256 lanes (lane t the
//! block t·K .. t·K + K − 1 of the pins in order, then a fixed binary tree): deterministic, no
//! atomics; `load_cell_servo` here is its twin in the same order and arithmetic (bit for bit on
//! lavapipe in tests/gpu_membrane_triaxial.rs), and `cap_axial_force` (f64, pin order) stays the
//! reference the CPU cell's servo and the samples use (the twin within 1e-5 of it, relative to
//! the rims' largest force).
//!
//! **Servo area** (optional, `ServoArea`): the servo platen measures its stress over the sample's
//! cross-section at its rim, which moves with a sliding rim: after the rims, the wall's `size`
//! becomes `rims::rim_area_of` of the rim (the polygon; for vertex particles the circle of
//! its area less the vertex radius), as `TriaxialCell::step` sets it. The reference is f64; the
//! kernel forms the polygon as a fan of double-f32 differences from the rim's first vertex in
//! f32: within ~1e-6 of the area (asserted 1e-5 relative).

use super::model::MembraneContact;
use crate::cpu::fixed_reduce::{reduce_tree, REDUCE_LANES};
use crate::spheres::precision::{df3_split, df3_sub, df3_value};
use crate::spheres::{PlaneWall, SphereForce, SphereState, WALL_SERVO};
use bytemuck::{Pod, Zeroable};
use std::f64::consts::PI;

/// `RimPin::mode`: on the wall's path x₀ + (w − w₀).
pub const RIM_PINNED: u32 = 0;
/// `RimPin::mode`: z and v_z of the wall, free radially.
pub const RIM_SLIDING: u32 = 1;
/// `RimPin::mode`: sliding, and not inside `RimPin::cap_radius` (the rim stop).
pub const RIM_STOPPED: u32 = 2;
/// `RimPin::mode`: not beyond the planes of `wall` and `wall_b` (the caps' faces).
pub const RIM_FACES: u32 = 3;
/// `RimParams::area_wall` without a servo area.
pub const RIM_NO_AREA: u32 = u32::MAX;

/// One rim vertex (`RimPin` of membrane_rims.wgsl, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RimPin {
    /// Sphere index of the vertex and the wall it follows.
    pub sphere: u32,
    pub wall: u32,
    /// `RIM_PINNED`, `RIM_SLIDING`, `RIM_STOPPED` or `RIM_FACES`.
    pub mode: u32,
    /// Faces: the second wall; zero otherwise.
    pub wall_b: u32,
    /// Pinned: x₀ − w₀ as hi + lo (split from f64); zero otherwise.
    pub offset_hi: [f32; 3],
    /// Stopped: R_cap (m); zero otherwise.
    pub cap_radius: f32,
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

/// `LoadCell` of membrane_rims.wgsl (a uniform, 16 bytes): the servo wall whose cap the load cell
/// reads and σ, the servo's target as the cell measures it (the membrane's share added to the
/// grains' by `load_cell_servo`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LoadCell {
    pub wall: u32,
    pub _pad0: u32,
    pub sigma: f32,
    pub _pad1: u32,
}

/// A face vertex lies on a wall's plane within this distance (m): `cap_axial_force` and
/// `cap_axial_part` count its push only then.
pub const FACE_ON: f64 = 1e-9;

/// Lanes of `load_cell_servo`'s one workgroup (`LOAD_LANES` of membrane_rims.wgsl).
pub const LOAD_CELL_LANES: usize = REDUCE_LANES;

/// How one rim vertex follows its wall (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RimRule {
    /// x₀ and w₀: the vertex's and the wall's points at the start.
    Pinned {
        x0: [f64; 3],
        w0: [f64; 3],
    },
    Sliding,
    /// Sliding, not inside `cap_radius` from the wall's axis (the rim stop).
    Stopped {
        cap_radius: f64,
    },
    /// Not beyond the plane of `wall` nor of `wall_b` (the end caps' faces).
    Faces {
        wall_b: u32,
    },
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

    /// Sliding rims: each (wall, spheres of its rim).
    pub fn sliding(rims: &[(u32, &[u32])], area: Option<ServoArea>) -> Rims {
        Rims::on_platens(rims, None, area)
    }

    /// Rims on their platens (the triaxial cell): sliding, with the rim stop at `cap_radius`
    /// (`Stopped`) or without it (`Sliding`, `None`); each (wall, spheres of its rim).
    pub fn on_platens(rims: &[(u32, &[u32])], cap_radius: Option<f64>, area: Option<ServoArea>) -> Rims {
        let rule = cap_radius.map_or(RimRule::Sliding, |r| RimRule::Stopped { cap_radius: r });
        Rims {
            rims: rims
                .iter()
                .flat_map(|&(w, ss)| {
                    ss.iter().map(move |&s| Rim {
                        sphere: s,
                        wall: w,
                        rule,
                    })
                })
                .collect(),
            area,
        }
    }

    /// The faces of walls `a` and `b` for the vertices `spheres` (appended after the rims).
    pub fn with_faces(mut self, spheres: &[u32], a: u32, b: u32) -> Rims {
        self.rims.extend(spheres.iter().map(|&s| Rim {
            sphere: s,
            wall: a,
            rule: RimRule::Faces { wall_b: b },
        }));
        self
    }

    /// The kernel's records (the offsets split from f64).
    pub fn records(&self) -> Vec<RimPin> {
        self.rims
            .iter()
            .map(|r| {
                let (mode, d, cap) = match r.rule {
                    RimRule::Pinned { x0, w0 } => (RIM_PINNED, [0, 1, 2].map(|c| x0[c] - w0[c]), 0.0),
                    RimRule::Sliding => (RIM_SLIDING, [0.0; 3], 0.0),
                    RimRule::Stopped { cap_radius } => (RIM_STOPPED, [0.0; 3], cap_radius),
                    RimRule::Faces { .. } => (RIM_FACES, [0.0; 3], 0.0),
                };
                let wall_b = match r.rule {
                    RimRule::Faces { wall_b } => wall_b,
                    _ => 0,
                };
                let (offset_hi, offset_lo) = df3_split(d);
                RimPin {
                    sphere: r.sphere,
                    wall: r.wall,
                    mode,
                    wall_b,
                    offset_hi,
                    cap_radius: cap as f32,
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
            RimRule::Stopped { cap_radius } => {
                slide_vertex(st, wall);
                stop_vertex(st, wall, cap_radius);
            }
            RimRule::Faces { wall_b } => {
                face_vertex(st, wall);
                face_vertex(st, &walls[wall_b as usize]);
            }
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

/// The rim stop (module doc): a vertex inside `cap_radius` from the wall's axis is put on the
/// cap along its radius and loses its inward radial velocity; z and v_z untouched.
pub fn stop_vertex(st: &mut SphereState, wall: &PlaneWall, cap_radius: f64) {
    let (x, w) = (st.position(), wall_point(wall));
    let d = [x[0] - w[0], x[1] - w[1]];
    let rho = d[0].hypot(d[1]);
    if !(rho < cap_radius && rho > 0.0) {
        return;
    }
    let e = [d[0] / rho, d[1] / rho];
    let (hi, lo) = df3_split([w[0] + cap_radius * e[0], w[1] + cap_radius * e[1], 0.0]);
    st.pos_hi[..2].copy_from_slice(&hi[..2]);
    st.pos_lo[..2].copy_from_slice(&lo[..2]);
    let v_r = st.vel[0] as f64 * e[0] + st.vel[1] as f64 * e[1];
    if v_r < 0.0 {
        st.vel[0] = (st.vel[0] as f64 - v_r * e[0]) as f32;
        st.vel[1] = (st.vel[1] as f64 - v_r * e[1]) as f32;
    }
}

/// A cap's face (module doc): a vertex beyond the wall's plane is put on it and loses its
/// velocity into the wall (relative to the wall's).
pub fn face_vertex(st: &mut SphereState, wall: &PlaneWall) {
    let (x, w) = (st.position(), wall_point(wall));
    let n = wall.normal.map(|c| c as f64);
    let s = (x[0] - w[0]) * n[0] + (x[1] - w[1]) * n[1] + (x[2] - w[2]) * n[2];
    if s.is_nan() || s >= 0.0 {
        return;
    }
    (st.pos_hi, st.pos_lo) = df3_split([0, 1, 2].map(|c| x[c] - s * n[c]));
    let v_n: f64 = (0..3)
        .map(|c| (st.vel[c] as f64 - wall.velocity[c] as f64) * n[c])
        .sum();
    if v_n < 0.0 {
        st.vel = [0, 1, 2].map(|c| (st.vel[c] as f64 - v_n * n[c]) as f32);
    }
}

/// The caps' axial force on the membrane, per wall (N along z, > 0 up): what a load cell on a
/// cap sealed to the membrane reads besides the grains (docs/membrane.md, "The caps' axial
/// reactions"). From `forces` of the last evaluation: a rim vertex (pinned, sliding or stopped)
/// is held in z on its wall, so the cap balances the rest of its force, −F_z; a face vertex
/// lying on a wall's plane (within 1e-9 m) and pressed into it gets the push −(F·n̂) n̂_z > 0
/// into the cell (a face only pushes). The rim stop's radial reaction is not axial (`cap_force`
/// of `diagnose::probe`). The reference in f64: the samples of both backends (the GPU cell reads
/// the forces back at every sample) and the CPU cell's servo; the device's servo sums the same
/// rule in f32 (`load_cell_servo`, module doc).
pub fn cap_axial_force(states: &[SphereState], forces: &[SphereForce], walls: &[PlaneWall], rims: &Rims) -> Vec<f64> {
    let mut out = vec![0.0; walls.len()];
    for r in &rims.rims {
        let i = r.sphere as usize;
        let f = forces[i].force.map(|c| c as f64);
        match r.rule {
            RimRule::Faces { wall_b } => {
                let x = states[i].position();
                for w in [r.wall, wall_b] {
                    let wall = &walls[w as usize];
                    let (p, n) = (wall_point(wall), wall.normal.map(|c| c as f64));
                    let dist: f64 = (0..3).map(|c| (x[c] - p[c]) * n[c]).sum();
                    let f_n: f64 = (0..3).map(|c| f[c] * n[c]).sum();
                    if dist.abs() <= FACE_ON {
                        if f_n < 0.0 {
                            out[w as usize] -= f_n * n[2];
                        }
                        break;
                    }
                }
            }
            _ => out[r.wall as usize] -= f[2],
        }
    }
    out
}

/// One pin's share of the cap's axial force on the membrane at `wall`, in f32 (twin of
/// `cap_axial_part` in membrane_rims.wgsl; the rule of `cap_axial_force`): a rim vertex held on
/// `wall` gives −F_z; a face vertex lying on a plane (|distance| ≤ `FACE_ON`, its first wall
/// checked first) and pressed into it the push −(F·n̂) n̂_z when that plane is `wall`'s.
pub fn cap_axial_part(
    states: &[SphereState],
    forces: &[SphereForce],
    walls: &[PlaneWall],
    p: &RimPin,
    wall: u32,
) -> f32 {
    let f = forces[p.sphere as usize].force;
    if p.mode != RIM_FACES {
        return if p.wall == wall { -f[2] } else { 0.0 };
    }
    let s = &states[p.sphere as usize];
    for id in [p.wall, p.wall_b] {
        let w = &walls[id as usize];
        let d = df3_sub(s.pos_hi, s.pos_lo, w.point_hi, w.point_lo);
        let n = w.normal;
        let dist = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
        if dist.abs() <= FACE_ON as f32 {
            let f_n = f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
            if id == wall && f_n < 0.0 {
                return -(f_n * n[2]);
            }
            return 0.0;
        }
    }
    0.0
}

/// The load cell's servo (module doc; twin of `load_cell_servo` in membrane_rims.wgsl, the same
/// lanes, order and f32 arithmetic): R_z at `cell.wall` summed over `rims`' pins, then, if that
/// wall is a servo, its target σ + R_z/A (A its `size`). Returns R_z (N, > 0 up).
pub fn load_cell_servo(
    states: &[SphereState],
    forces: &[SphereForce],
    walls: &mut [PlaneWall],
    rims: &Rims,
    cell: &LoadCell,
) -> f32 {
    let pins = rims.records();
    let m = pins.len();
    let k = m.div_ceil(LOAD_CELL_LANES);
    let mut part = [0.0f32; LOAD_CELL_LANES];
    for (lane, p) in part.iter_mut().enumerate() {
        let b0 = (lane * k).min(m);
        let b1 = (b0 + k).min(m);
        let mut r = 0.0f32;
        for pin in &pins[b0..b1] {
            r += cap_axial_part(states, forces, walls, pin, cell.wall);
        }
        *p = r;
    }
    let r_z = reduce_tree(&mut part, |a, b| a + b);
    let w = &mut walls[cell.wall as usize];
    if w.kind == WALL_SERVO {
        w.target_stress = cell.sigma + r_z / w.size;
    }
    r_z
}

/// The servo wall's area from its rim (module doc); nothing without a `ServoArea`.
pub fn rim_servo_area(states: &[SphereState], walls: &mut [PlaneWall], rims: &Rims) {
    let Some(a) = &rims.area else {
        return;
    };
    let x: Vec<[f64; 3]> = a.rim.iter().map(|&s| states[s as usize].position()).collect();
    walls[a.wall as usize].size = rim_area_of(&x, a.contact, a.vertex_radius) as f32;
}

/// The sample's cross-section at a rim through the points `x` (in ring order): the polygon
/// (patches), or the circle of the same area less the vertex radius (particles).
pub fn rim_area_of(x: &[[f64; 3]], contact: MembraneContact, vertex_radius: f64) -> f64 {
    let k = x.len();
    let poly = 0.5
        * (0..k)
            .map(|i| x[i][0] * x[(i + 1) % k][1] - x[(i + 1) % k][0] * x[i][1])
            .sum::<f64>()
            .abs();
    match contact {
        MembraneContact::Patches => poly,
        MembraneContact::Particles => {
            let r = (poly / PI).sqrt();
            PI * (r - vertex_radius).powi(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(x: [f64; 3], vel: [f32; 3]) -> SphereState {
        let mut s = SphereState::solid(x, 1e-4, 1000.0, 0);
        s.vel = vel;
        s.omega = [1.0, 2.0, 3.0];
        s
    }

    /// A platen at z = 7 mm, its axis through (1, −2) mm, moving at (0, 0, 0.05) m/s.
    fn platen() -> PlaneWall {
        PlaneWall::new([1e-3, -2e-3, 7e-3], [0.0, 0.0, -1.0], [0.0, 0.0, 0.05], 0)
    }

    /// A vertex inside the cap (ρ = 20 mm < R_cap = 25 mm, moving inward and along the rim): put
    /// on the cap along its radius (ρ = R_cap to 1e-15 m, same azimuth), its inward radial
    /// velocity removed, the tangential part, z = the platen's and v_z = the platen's kept.
    #[test]
    fn the_stop_puts_a_vertex_inside_the_cap_on_it() {
        let w = platen();
        let (c, r_cap) = ([1e-3, -2e-3], 25e-3);
        let phi = 0.7f64;
        let e = [phi.cos(), phi.sin()];
        let t = [-e[1], e[0]];
        // v = −0.3 ê_r + 0.2 ê_θ, v_z 0.01.
        let v = [
            (-0.3 * e[0] + 0.2 * t[0]) as f32,
            (-0.3 * e[1] + 0.2 * t[1]) as f32,
            0.01,
        ];
        let mut s = vertex([c[0] + 0.02 * e[0], c[1] + 0.02 * e[1], 3e-3], v);
        let rims = Rims::on_platens(&[(0, &[0])], Some(r_cap), None);
        hold_rims(std::slice::from_mut(&mut s), &[w], &rims);
        let x = s.position();
        let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
        assert!((dx.hypot(dy) - r_cap).abs() < 1e-15, "ρ = {}", dx.hypot(dy));
        assert!((dy.atan2(dx) - phi).abs() < 1e-12, "azimuth moved");
        assert_eq!(
            (s.pos_hi[2], s.pos_lo[2], s.vel[2]),
            (w.point_hi[2], w.point_lo[2], 0.05)
        );
        let v_r = s.vel[0] as f64 * e[0] + s.vel[1] as f64 * e[1];
        let v_t = s.vel[0] as f64 * t[0] + s.vel[1] as f64 * t[1];
        assert!(v_r.abs() < 1e-7, "inward velocity left: {v_r}");
        assert!((v_t - 0.2).abs() < 1e-7, "tangential velocity {v_t}");
        assert_eq!(s.omega, [1.0, 2.0, 3.0], "the stop does not touch the spin");
    }

    /// Outside the cap the stop does nothing (it slides: only z and v_z change); inside it, an
    /// outward radial velocity is kept (the vertex may leave the cap outward).
    #[test]
    fn the_stop_lets_a_vertex_move_outward() {
        let w = platen();
        let r_cap = 25e-3;
        let rims = Rims::on_platens(&[(0, &[0, 1])], Some(r_cap), None);
        let out = vertex([1e-3 + 0.026, -2e-3, 3e-3], [-0.5, 0.1, 0.0]);
        let inside = vertex([1e-3 + 0.024, -2e-3, 3e-3], [0.5, 0.1, 0.0]);
        let mut states = [out, inside];
        hold_rims(&mut states, &[w], &rims);
        let mut slid = out;
        slide_vertex(&mut slid, &w);
        assert_eq!(
            bytemuck::bytes_of(&states[0]),
            bytemuck::bytes_of(&slid),
            "outside the cap: sliding only"
        );
        assert_eq!(states[1].vel[..2], [0.5, 0.1], "an outward velocity is kept");
        assert!((states[1].position()[0] - (1e-3 + r_cap)).abs() < 1e-15);
    }

    /// A vertex below the bottom face (moving down) is put on it with the wall's normal velocity;
    /// one between the faces is untouched; one above the top face (moving up) is put on it.
    #[test]
    fn faces_keep_vertices_between_the_platens() {
        let bottom = PlaneWall::new([0.0, 0.0, 1e-3], [0.0, 0.0, 1.0], [0.0, 0.0, 0.01], 0);
        let top = PlaneWall::new([0.0, 0.0, 0.1], [0.0, 0.0, -1.0], [0.0, 0.0, -0.05], 0);
        let a = vertex([0.02, 0.0, 0.5e-3], [0.1, 0.2, -0.3]);
        let b = vertex([0.02, 0.0, 0.05], [0.1, 0.2, -0.3]);
        let c = vertex([0.0, 0.021, 0.1003], [0.1, 0.2, 0.3]);
        let mut states = [a, b, c];
        let rims = Rims::default().with_faces(&[0, 1, 2], 0, 1);
        hold_rims(&mut states, &[bottom, top], &rims);
        assert!((states[0].position()[2] - 1e-3).abs() < 1e-15);
        assert_eq!(states[0].vel, [0.1, 0.2, 0.01]);
        assert_eq!(bytemuck::bytes_of(&states[1]), bytemuck::bytes_of(&b));
        assert!((states[2].position()[2] - 0.1).abs() < 1e-15);
        assert_eq!(states[2].vel, [0.1, 0.2, -0.05]);
        assert_eq!(states[0].position()[..2], a.position()[..2]);
    }

    /// A rim vertex on each platen and three face vertices of the bottom cap (one pressed into
    /// it, one pulled off it, one between the planes), with forces of different F_z.
    fn cap_fixture() -> ([SphereState; 5], [SphereForce; 5], Rims) {
        let states = [
            vertex([0.025, 0.0, 0.0], [0.0; 3]),
            vertex([0.025, 0.0, 0.1], [0.0; 3]),
            vertex([0.024, 0.0, 0.0], [0.0; 3]),
            vertex([0.023, 0.0, 0.0], [0.0; 3]),
            vertex([0.024, 0.0, 0.05], [0.0; 3]),
        ];
        let f = |z: f32| SphereForce {
            force: [3.0, -1.0, z],
            ..Default::default()
        };
        let forces = [f(0.5), f(2.0), f(-1.5), f(0.7), f(-9.0)];
        let rims = Rims::on_platens(&[(0, &[0]), (1, &[1])], Some(0.025), None).with_faces(&[2, 3, 4], 0, 1);
        (states, forces, rims)
    }

    /// The caps' axial force: a rim vertex held on each platen gets −F_z (either sign), a face
    /// vertex on the bottom plane pressed into it (F_z < 0) gets the push, one pulled off it
    /// (F_z > 0) and one between the planes nothing.
    #[test]
    fn cap_axial_force_is_the_rims_and_faces_reaction() {
        let bottom = PlaneWall::new([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3], 0);
        let top = PlaneWall::new([0.0, 0.0, 0.1], [0.0, 0.0, -1.0], [0.0, 0.0, -0.05], 0);
        let (states, forces, rims) = cap_fixture();
        let r = cap_axial_force(&states, &forces, &[bottom, top], &rims);
        assert_eq!(r, vec![-0.5 + 1.5, -2.0]);
    }

    /// The load cell's twin (f32, lanes and tree) reads what `cap_axial_force` reads: the rims'
    /// and faces' reactions per wall (the case above, exactly: sums of a few f32 values), and
    /// sets a servo wall's target σ + R_z/A; a plane wall keeps its target. Over 1000 pins of
    /// pseudo-random forces on a rim and faces it stays within 1e-6 of the f64 reference
    /// (relative to Σ|F_z|).
    #[test]
    fn load_cell_servo_is_cap_axial_force_in_f32() {
        let bottom = PlaneWall::new([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3], 0);
        let mut top = PlaneWall::servo([0.0, 0.0, 0.1], [0.0, 0.0, -1.0], 2e-3, 1e5, 1e-6, 0.05, 0);
        top.target_stress = 7.0;
        let (states, forces, rims) = cap_fixture();
        let mut walls = [bottom, top];
        let cell = |wall| LoadCell {
            wall,
            sigma: 1e5,
            ..Default::default()
        };
        assert_eq!(load_cell_servo(&states, &forces, &mut walls, &rims, &cell(0)), 1.0);
        assert_eq!(walls[0].target_stress, bottom.target_stress, "a plane keeps its target");
        assert_eq!(load_cell_servo(&states, &forces, &mut walls, &rims, &cell(1)), -2.0);
        assert_eq!(walls[1].target_stress, 1e5f32 + -2.0f32 / 2e-3f32);

        // Many pins: rims on both walls, faces on both planes and between them.
        let n = 1000;
        let mut states = Vec::new();
        let mut forces = Vec::new();
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..n {
            let a = i as f64 * 0.0123;
            let z = match i % 4 {
                0 | 2 => 0.0,
                1 => 0.1,
                _ => 0.05 * rnd(),
            };
            states.push(vertex([0.024 * a.cos(), 0.024 * a.sin(), z], [0.0; 3]));
            forces.push(SphereForce {
                force: [rnd() as f32 - 0.5, rnd() as f32 - 0.5, (rnd() as f32 - 0.5) * 3.0],
                ..Default::default()
            });
        }
        let rim0: Vec<u32> = (0..n as u32).step_by(4).collect();
        let rim1: Vec<u32> = (1..n as u32).step_by(4).collect();
        let others: Vec<u32> = (0..n as u32).filter(|i| i % 4 >= 2).collect();
        let rims = Rims::on_platens(&[(0, &rim0), (1, &rim1)], Some(0.02), None).with_faces(&others, 0, 1);
        let reference = cap_axial_force(&states, &forces, &walls, &rims);
        let scale: f64 = forces.iter().map(|f| (f.force[2] as f64).abs()).sum();
        for w in 0..2 {
            let r = load_cell_servo(&states, &forces, &mut walls, &rims, &cell(w)) as f64;
            let d = (r - reference[w as usize]).abs() / scale;
            assert!(
                d <= 1e-6,
                "wall {w}: twin {r}, reference {}, {d:e}",
                reference[w as usize]
            );
            assert!(reference[w as usize].abs() > 1.0, "the faces and rims carry a force");
        }
    }

    /// Without a cap radius `on_platens` is the sliding rule; the records carry the mode and R_cap.
    #[test]
    fn records_carry_the_cap() {
        let a = Rims::on_platens(&[(1, &[4, 5])], None, None);
        assert_eq!(a, Rims::sliding(&[(1, &[4, 5])], None));
        let b = Rims::on_platens(&[(1, &[4, 5])], Some(0.025), None);
        let r = b.records();
        assert_eq!(
            (r[1].sphere, r[1].wall, r[1].mode, r[1].cap_radius),
            (5, 1, RIM_STOPPED, 0.025f32)
        );
        assert_eq!(a.records()[0].mode, RIM_SLIDING);
    }
}
