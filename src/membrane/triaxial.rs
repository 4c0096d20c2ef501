//! The triaxial cell of the paper's §3.1 (issue 25, validations 2 and 3): a random packing grown
//! inside a rigid cylinder, then wrapped in a membrane (MSS_patch or MSS_particle) between two
//! platens, confined by σ_c (membrane, eq 18–19) and σ_p = σ_c (top platen, servo), and sheared
//! by the top platen moving at constant velocity.
//!
//! - **Packing** (`grow_packing`): a Lubachevsky–Stillinger-like growth: N centres placed at
//!   random (no overlap) at half their radii in a rigid cylinder R × H between two planes, then all
//!   radii grown together (r_i = λ r_i⁰, masses fixed at the final ones) with the grains' friction,
//!   slowed by the mean stress it builds, until λ = 1 or jammed; relaxed; then compacted by the
//!   top plane as a servo at σ_c (a grown frictional packing is loose). λ ends near 1 (reported);
//!   the membrane's height is the compacted one.
//! - **Membrane radius**: the grains touched the rigid cylinder R, so the membrane starts where
//!   the grains meet it: patches, R/cos(π/n) (the flat patches of a ring of n vertices are at
//!   least R cos(π/n) from the axis); particles, R + r_v (vertex centres, the vertex spheres'
//!   inner surface at R). The same packing goes into both membranes.
//! - **Rims** (`TriaxialCell::rims`, the twin pair `rims.rs` / `membrane_rims.wgsl`): the rim
//!   vertices follow their platen in z and slide on it radially outward, but not inside the cap
//!   radius R_cap (`rim_stop`, default the membrane's initial radius): the membrane sealed on end
//!   caps of the sample's radius, as in a real cell; with it the caps' faces keep every other
//!   vertex between the platens (`rims::face_vertex`). Without the stop (`rim_stop = None`) the
//!   rims slide freely and end under the corner grains; pinned at their initial radius while
//!   the packing shrinks they leave a cone whose confining load σ_c π (R_rim² − R²) is pressed
//!   onto the corner grains axially (the 12 N of the first hydrostatic attempt, docs/membrane.md).
//! - **Platen stress**: the top platen is a servo (`WALL_SERVO`) on the sample's cross-section at
//!   the top rim (`rim_area`: the rim polygon for patches, less the vertex radius for particles),
//!   so σ_p and σ_c close the same bag (with the stop: the cap's cross-section, docs/membrane.md
//!   "Validation 3" for why); each platen's stress is its force over its own rim's
//!   area (the membrane's net pressure force is σ_c (A_top − A_bottom): a platen carries σ_c on
//!   its own rim). With `load_cell` (the validation's cell, `paper_cell`) a platen's force is
//!   the cap's as a load cell reads it: the grains' force plus the membrane's axial force on the
//!   cap (`rims::cap_axial_force`: its rim and the face it lies on), and the servo holds that
//!   measure (`servo_on_load_cell`; docs/membrane.md, "The caps' axial reactions in σ_p").
//!   During shearing the top platen moves at −v_p.
//! - **Measures** (`TriaxialCell::sample`): ε = ln(h0/h); the sample's volume V from the volume
//!   enclosed by the membrane and the platens (`MembraneSpheres::enclosed_volume`; for
//!   particles less the shell of thickness r_v), ε_v = (V0 − V)/V0; σ_p = mean of the two platens'
//!   stresses; σ_d = σ_p − σ_c; the grains' mean stress by Love–Weber on V (patches).

use super::cases::{table2_membrane, TABLE2_GRAIN};
use super::mesh::MembraneMesh;
use super::model::MembraneContact;
/// The rim polygon's area, re-exported for the cell's users.
pub use super::rims::rim_area_of;
use super::rims::{cap_axial_force, hold_rims, rim_servo_area, Rims, ServoArea};
use super::system::MembraneSpheres;
use crate::laws::vec3::dot;
use crate::spheres::contact::sphere_pair_geometry;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::pair_law::{LawTable, SphereMaterial};
use crate::spheres::precision::df3_value;
use crate::spheres::wall::wall_geometry;
use crate::spheres::{PlaneWall, SphereParams, SphereState, WALL_PLANE, WALL_SERVO};
use std::f64::consts::PI;

/// A cell and its granulate from plain parameters (SI).
#[derive(Clone, Debug)]
pub struct CellSpec {
    /// Sample radius R (the rigid cylinder of the preparation) and height H.
    pub radius: f64,
    pub height: f64,
    /// Grain radii uniform in [r_min, r_max] before the growth's common factor λ.
    pub r_min: f64,
    pub r_max: f64,
    pub n_grains: usize,
    pub grain: SphereMaterial,
    /// The membrane's friction coefficient (Table 2: 1.2).
    pub membrane_friction: f64,
    /// Confining stress σ_c (Pa).
    pub sigma_c: f64,
    pub dt: f64,
    /// Global damping (1/s) of preparation and confinement; `shear_damping` while shearing.
    pub damping: f64,
    pub shear_damping: f64,
    pub seed: u64,
}

impl CellSpec {
    /// Case 1 or 2 of Table 3 (100 × 25 mm or 140 × 35 mm), Table 2 grains with E softened to
    /// `young` (see docs/membrane.md). Case 1: 1750 grains, chosen so that the compacted packing
    /// is ≈ 100 mm high (the paper: 1689–1731); case 2: the paper's 4645 (not calibrated).
    pub fn table3(case: u32, young: f64, dt: f64) -> CellSpec {
        let (radius, height, n) = if case == 2 {
            (35e-3, 140e-3, 4645)
        } else {
            (25e-3, 100e-3, 1750)
        };
        CellSpec {
            radius,
            height,
            r_min: 2.3e-3,
            r_max: 2.7e-3,
            n_grains: n,
            grain: SphereMaterial { young, ..TABLE2_GRAIN },
            membrane_friction: 1.2,
            sigma_c: 1e5,
            dt,
            damping: 200.0,
            shear_damping: 20.0,
            seed: 25,
        }
    }

    /// Rigid walls: the platens' material (E = ∞, the grains' friction).
    fn platen(&self) -> SphereMaterial {
        SphereMaterial {
            young: f64::INFINITY,
            ..self.grain
        }
    }
}

/// SplitMix64: a deterministic stream of uniform numbers in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce5_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Σ l·f over the contacts of spheres 0..n with each other and with the walls (l from the
/// sphere's centre to the middle of the overlap): the Love–Weber sum, −3 V × mean stress.
pub fn sphere_virial(sp: &CpuSpheres, n: usize) -> f64 {
    let mut sum = 0.0f64;
    for (k, o) in sp.pair_out.iter().enumerate() {
        let (i, j) = (sp.owner[k] as usize, sp.list.partner[k] as usize);
        if i >= n || j >= n || o.f_n == 0.0 {
            continue;
        }
        let (g, l_i, l_j) = sphere_pair_geometry(&sp.states[i], &sp.states[j]);
        if g.delta > 0.0 {
            sum += dot(l_i, o.force) as f64 - dot(l_j, o.force) as f64;
        }
    }
    let nw = sp.walls.len();
    for s in 0..n {
        for w in 0..nw {
            let o = &sp.wall_out[s * nw + w];
            let (g, l, _) = wall_geometry(&sp.walls[w], &sp.states[s]);
            if g.delta > 0.0 {
                sum += dot(l, o.force) as f64;
            }
        }
    }
    sum
}

/// Σ over grains 0..n of Σ over their contacts of l·f (l from the grain's centre to the contact
/// point: the middle of the overlap for grains and walls, the nearest patch point for patches).
pub fn grain_virial(sys: &MembraneSpheres, n: usize) -> f64 {
    use crate::laws::patch_contact::closest_on_patch;
    use crate::laws::vec3::dot;
    use crate::spheres::precision::df3_sub;
    let sp = &sys.spheres;
    let mut sum = sphere_virial(sp, n);
    let m = &sys.membrane;
    let first = m.params.first as usize;
    for s in 0..n.min(m.list.start.len().saturating_sub(1)) {
        for c in m.list.start[s] as usize..m.list.start[s + 1] as usize {
            let o = &m.patch_out[c];
            if o.active == 0 {
                continue;
            }
            let g = &sp.states[s];
            let x = m.patches[m.list.patch[c] as usize].v.map(|v| {
                df3_sub(
                    sp.states[first + v as usize].pos_hi,
                    sp.states[first + v as usize].pos_lo,
                    g.pos_hi,
                    g.pos_lo,
                )
            });
            let q = closest_on_patch([0.0; 3], x[0], x[1], x[2]);
            sum += dot(q.point, o.force) as f64;
        }
    }
    sum
}

/// A grown packing.
#[derive(Clone, Debug)]
pub struct Packing {
    /// Grains at rest (material 0).
    pub grains: Vec<SphereState>,
    /// Common growth factor λ of the radii at the end, smallest and largest radius.
    pub scale: f64,
    pub r_min: f64,
    pub r_max: f64,
    /// Height of the packing (the top plane after compaction).
    pub height: f64,
    /// Solid fraction in the cylinder and the mean stress at the end.
    pub solid_fraction: f64,
    pub mean_stress: f64,
    pub steps: usize,
}

/// The Lubachevsky–Stillinger-like growth of the module doc, in the rigid cylinder R × H:
/// growth by `rate` (1 − p/p_stop) in λ per step (p the mean stress) until λ = 1 or the
/// packing is jammed (p ≥ p_stop/2 for 2000 steps), then `relax` steps at fixed radii, then
/// `compact` steps with the top plane a servo at σ_c (frictionless rigid walls throughout).
pub fn grow_packing(spec: &CellSpec, rate: f64, p_stop: f64, relax: usize, compact: usize) -> Packing {
    let (r_cyl, h) = (spec.radius, spec.height);
    let mut rng = Rng(spec.seed);
    let target: Vec<f64> = (0..spec.n_grains)
        .map(|_| spec.r_min + (spec.r_max - spec.r_min) * rng.next())
        .collect();
    let lambda0 = 0.5;
    let mut pos: Vec<[f64; 3]> = Vec::with_capacity(spec.n_grains);
    for &r in &target {
        let r0 = lambda0 * r;
        loop {
            let rho = (r_cyl - r0) * rng.next().sqrt();
            let phi = 2.0 * PI * rng.next();
            let p = [rho * phi.cos(), rho * phi.sin(), r0 + (h - 2.0 * r0) * rng.next()];
            let free = pos.iter().zip(&target).all(|(q, &rq)| {
                let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2);
                d2 > (lambda0 * (r + rq)).powi(2)
            });
            if free {
                pos.push(p);
                break;
            }
        }
    }
    let states: Vec<SphereState> = pos
        .iter()
        .zip(&target)
        .map(|(p, &r)| {
            let mut s = SphereState::solid(*p, r, spec.grain.density, 0);
            s.radius = (lambda0 * r) as f32;
            s
        })
        .collect();
    // Frictionless rigid walls (their grain laws' μ set to 0: no arching against the cylinder).
    let wall = SphereMaterial {
        friction: 0.0,
        ..spec.platen()
    };
    let walls = vec![
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::new([0.0, 0.0, h], [0.0, 0.0, -1.0], [0.0; 3], 1),
        PlaneWall::cylinder([0.0; 3], [0.0, 0.0, 1.0], r_cyl, 1),
    ];
    let params = SphereParams {
        dt: spec.dt as f32,
        skin: (0.1 * spec.r_min) as f32,
        global_damping: spec.damping as f32,
        ..Default::default()
    };
    let mut laws = LawTable::hertz_mindlin(&[spec.grain, wall]);
    laws.laws[1].mindlin.mu = 0.0;
    laws.laws[2].mindlin.mu = 0.0;
    let mut sys = CpuSpheres::new(params, states, laws, walls);
    let volume = PI * r_cyl * r_cyl * h;
    let n = spec.n_grains;
    let mut lambda = lambda0;
    let mut steps = 0usize;
    let mut p = 0.0;
    let mut loaded = 0usize;
    // Growth slowed by the stress it builds (collisions of the growing grains give short
    // spikes: growth pauses, it does not stop); done when λ = 1 or the packing has carried
    // ≥ p_stop/2 for 2000 steps (jammed).
    while lambda < 1.0 && loaded < 200 {
        lambda = (lambda + rate * (1.0 - p / p_stop).max(0.0)).min(1.0);
        for (s, &r) in sys.states.iter_mut().zip(&target) {
            s.radius = (lambda * r) as f32;
        }
        sys.step();
        steps += 1;
        // Growth shrinks the gaps the list was built with: rebuild every 10 steps (λ grows by
        // at most 10 rate r_max ≪ skin between builds).
        if steps.is_multiple_of(10) {
            sys.rebuild();
            p = -sphere_virial(&sys, n) / (3.0 * volume);
            loaded = if p >= 0.5 * p_stop { loaded + 1 } else { 0 };
        }
    }
    for _ in 0..relax {
        sys.step();
    }
    // Compaction: the top plane becomes a servo at σ_c on π R² (the frictional packing settles
    // where it carries σ_c; the membrane's height is the plane's height after it).
    let area = PI * r_cyl * r_cyl;
    // A grown frictional packing is loose (φ ≈ 0.5): the servo may travel ~10 % of H, at ≤ 0.2 m/s
    // and 4× the confinement's gain (time constant ~0.25 ms).
    sys.walls[1] = PlaneWall::servo(
        [0.0, 0.0, h],
        [0.0, 0.0, -1.0],
        area,
        spec.sigma_c,
        4.0 * servo_gain(spec),
        0.2,
        1,
    );
    for _ in 0..compact {
        sys.step();
    }
    steps += relax + compact;
    let height = df3_value(sys.walls[1].point_hi, sys.walls[1].point_lo)[2];
    let volume = area * height;
    let solid: f64 = sys
        .states
        .iter()
        .map(|s| 4.0 / 3.0 * PI * (s.radius as f64).powi(3))
        .sum();
    let mut grains = sys.states.clone();
    for s in &mut grains {
        s.vel = [0.0; 3];
        s.omega = [0.0; 3];
    }
    Packing {
        scale: lambda,
        r_min: lambda * spec.r_min,
        r_max: lambda * spec.r_max,
        solid_fraction: solid / volume,
        height,
        mean_stress: -sphere_virial(&sys, n) / (3.0 * volume),
        grains,
        steps,
    }
}

/// One record of a triaxial run (SI; stresses > 0 in compression).
#[derive(Clone, Copy, Debug, Default)]
pub struct TriaxialSample {
    pub time: f64,
    /// Platen distance h, ε = ln(h0/h).
    pub height: f64,
    pub axial_strain: f64,
    /// Sample volume V and ε_v = (V0 − V)/V0.
    pub volume: f64,
    pub volumetric_strain: f64,
    /// Mean cross-section V/h; the platens' stresses (bottom, top), each on its rim's area
    /// (`rim_area`: where the membrane meets the platen, the servo's area), σ_p their mean, σ_d.
    pub area: f64,
    pub platen_stress: [f64; 2],
    /// The grains' part of `platen_stress` (their contact force on each platen over its rim's
    /// area) and the caps' axial force on the membrane (N, > 0 up; `rims::cap_axial_force`),
    /// which `platen_stress` adds when the cell is a load cell (`TriaxialCell::load_cell`).
    pub grain_platen_stress: [f64; 2],
    pub cap_membrane_force: [f64; 2],
    /// The rims' areas (bottom, top; `rim_area`) the platen stresses divide by.
    pub rim_area: [f64; 2],
    pub sigma_p: f64,
    pub sigma_d: f64,
    /// The grains' mean stress (Love–Weber on V; patches only, else 0).
    pub mean_stress: f64,
    /// Grains outside the cell (`TriaxialCell::escaped`).
    pub escaped: usize,
}

/// A membrane-wrapped packing between two platens.
pub struct TriaxialCell {
    pub sys: MembraneSpheres,
    pub n_grains: usize,
    pub contact: MembraneContact,
    pub vertex_radius: f64,
    pub bottom_rim: Vec<u32>,
    pub top_rim: Vec<u32>,
    pub sigma_c: f64,
    /// h0 and V0 at the start of shearing (set by `start_shear`).
    pub h0: f64,
    pub v0: f64,
    pub shear_damping: f64,
    /// The rim stop's cap radius R_cap (the cell's key: `new` sets the membrane's initial radius;
    /// `None`: rims sliding freely). Change it with `set_rim_stop`.
    pub rim_stop: Option<f64>,
    /// The rims on their platens (bottom on wall 0, top on wall 1) and the servo's area from the
    /// top rim: what `step` applies, and the GPU cell's rim kernel (`gpu_triaxial`).
    pub rims: Rims,
    /// σ_p as a load cell on each cap sealed to the membrane reads it: the grains' force on the
    /// platen plus the membrane's axial force on the cap (its rim and the face it lies on,
    /// `rims::cap_axial_force`). `paper_cell` (validation 3, the GPU cell) sets it; `new` leaves
    /// it off (the grains' force alone: the hydrostatic cell of validation 2, whose check is the
    /// grains' stress with freely sliding rims). docs/membrane.md, "The caps' axial reactions".
    pub load_cell: bool,
    /// With `load_cell`: the servo holds the load cell's measure at its target (`step`), so that
    /// σ_p = σ_c at the start of shearing as the paper sets it. `paper_cell` sets it (the row's
    /// runs, the bench, the GPU cell: `gpu_triaxial` computes the same target on the device,
    /// `rims::load_cell_servo`); `diagnose::diagnose_run` sets it from its options.
    pub servo_on_load_cell: bool,
    /// The servo's target σ (`set_servo_stress`; with `servo_on_load_cell` the wall's target is
    /// the grains' share of it).
    pub servo_stress: f64,
}

impl TriaxialCell {
    /// The packing wrapped in a Table 2 membrane of vertex spacing ≈ `spacing` (`contact`:
    /// patches, or vertex particles of radius `vertex_radius`), bottom platen fixed at z = 0, top
    /// platen a servo at z = H; no stress yet (`confine` ramps it).
    pub fn new(
        spec: &CellSpec,
        packing: &Packing,
        contact: MembraneContact,
        spacing: f64,
        vertex_radius: f64,
    ) -> TriaxialCell {
        let radius = membrane_radius(contact, spec.radius, spacing, vertex_radius);
        let n = (2.0 * PI * radius / spacing).round();
        let h = packing.height;
        let mesh = MembraneMesh::cylinder([0.0; 3], radius, h, 2.0 * PI * radius / n);
        let per_ring = n as u32;
        let mut membrane = table2_membrane(mesh, contact, vertex_radius);
        membrane.friction = spec.membrane_friction;
        let area = PI * spec.radius * spec.radius;
        let walls = vec![
            PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
            PlaneWall::servo([0.0, 0.0, h], [0.0, 0.0, -1.0], area, 0.0, 0.0, 0.0, 1),
        ];
        let params = SphereParams {
            dt: spec.dt as f32,
            skin: (0.1 * spec.r_min) as f32,
            global_damping: spec.damping as f32,
            ..Default::default()
        };
        let sys = MembraneSpheres::new(
            params,
            packing.grains.clone(),
            &[spec.grain, spec.platen()],
            walls,
            &membrane,
        );
        let nv = sys.membrane.params.n_vertices;
        let mut cell = TriaxialCell {
            n_grains: packing.grains.len(),
            contact,
            vertex_radius,
            bottom_rim: (0..per_ring).collect(),
            top_rim: (nv - per_ring..nv).collect(),
            sigma_c: spec.sigma_c,
            h0: h,
            v0: 0.0,
            shear_damping: spec.shear_damping,
            sys,
            rim_stop: Some(radius),
            rims: Rims::default(),
            load_cell: false,
            servo_on_load_cell: false,
            servo_stress: 0.0,
        };
        cell.set_rim_stop(Some(radius));
        cell
    }

    /// The rim stop at cap radius `r_cap`, with the caps' faces for every other vertex (`None`:
    /// rims sliding freely, no faces); rebuilds `rims`.
    pub fn set_rim_stop(&mut self, r_cap: Option<f64>) {
        self.rim_stop = r_cap;
        let to_spheres = |rim: &[u32]| -> Vec<u32> { rim.iter().map(|&v| self.sys.vertex_sphere(v) as u32).collect() };
        let (bottom, top) = (to_spheres(&self.bottom_rim), to_spheres(&self.top_rim));
        let area = ServoArea {
            wall: 1,
            rim: top.clone(),
            contact: self.contact,
            vertex_radius: self.vertex_radius,
        };
        self.rims = Rims::on_platens(&[(0, &bottom), (1, &top)], r_cap, Some(area));
        if r_cap.is_some() {
            // The caps' faces for every other vertex (rims.rs: the wedge at the held rim).
            let rim_rows = self.bottom_rim.len() as u32;
            let nv = self.sys.membrane.params.n_vertices;
            let others: Vec<u32> = (rim_rows..nv - self.top_rim.len() as u32)
                .map(|v| self.sys.vertex_sphere(v) as u32)
                .collect();
            self.rims = std::mem::take(&mut self.rims).with_faces(&others, 0, 1);
        }
    }

    pub fn n_vertices(&self) -> usize {
        self.sys.membrane.params.n_vertices as usize
    }

    fn platen_z(&self, w: usize) -> f64 {
        let wl = &self.sys.spheres.walls[w];
        df3_value(wl.point_hi, wl.point_lo)[2]
    }

    /// The sample's cross-section at a platen: the polygon of its rim (patches), or the circle
    /// inside the vertex particles (particles).
    pub fn rim_area(&self, rim: &[u32]) -> f64 {
        let x: Vec<[f64; 3]> = rim
            .iter()
            .map(|&v| self.sys.spheres.states[self.sys.vertex_sphere(v)].position())
            .collect();
        rim_area_of(&x, self.contact, self.vertex_radius)
    }

    /// One step: the membrane system, the rims on their platens (`rims::hold_rims`: sliding,
    /// with the stop), the servo's area from the top rim (`rims::rim_servo_area`).
    /// With `servo_on_load_cell`, first the servo's target for this step: the grains' share of
    /// `servo_stress`, σ + R_z/A (R the top cap's axial force on the membrane at the last
    /// evaluation, < 0 down: what the membrane carries to the cap the grains need not).
    pub fn step(&mut self) {
        let sp = &mut self.sys.spheres;
        if self.load_cell && self.servo_on_load_cell && sp.walls[1].kind == WALL_SERVO {
            let r = cap_axial_force(&sp.states, &sp.forces, &sp.walls, &self.rims)[1];
            let w = &mut sp.walls[1];
            w.target_stress = (self.servo_stress + r / w.size as f64) as f32;
        }
        self.sys.step();
        let sp = &mut self.sys.spheres;
        hold_rims(&mut sp.states, &sp.walls, &self.rims);
        rim_servo_area(&sp.states, &mut sp.walls, &self.rims);
    }

    /// The servo's target stress σ (the top platen's, as the cell measures it: `load_cell`).
    pub fn set_servo_stress(&mut self, s: f64) {
        self.servo_stress = s;
        self.sys.spheres.walls[1].target_stress = s as f32;
    }

    /// Ramps σ_c on the membrane and the top platen's servo target linearly from 0 over `ramp`
    /// steps, then holds them `hold` steps (servo gain `gain` (m/s)/Pa, speed ≤ `v_max`).
    pub fn confine(&mut self, ramp: usize, hold: usize, gain: f64, v_max: f64) {
        {
            let w = &mut self.sys.spheres.walls[1];
            w.gain = gain as f32;
            w.max_speed = v_max as f32;
        }
        for k in 0..ramp + hold {
            let s = self.sigma_c * ((k + 1) as f64 / ramp.max(1) as f64).min(1.0);
            self.sys.membrane.params.sigma = s as f32;
            self.set_servo_stress(s);
            self.step();
        }
    }

    /// The sample's volume: enclosed by the membrane and the platens, less the vertex
    /// particles' shell for MSS_particle.
    pub fn volume(&self) -> f64 {
        let v = self.sys.enclosed_volume([0.0, 0.0]);
        match self.contact {
            MembraneContact::Patches => v,
            MembraneContact::Particles => {
                let h = self.height();
                let r = (v / (PI * h)).sqrt();
                PI * (r - self.vertex_radius).powi(2) * h
            }
        }
    }

    pub fn height(&self) -> f64 {
        self.platen_z(1) - self.platen_z(0)
    }

    /// Grains whose centre left the cell: beyond a platen, or separated from the axis by the
    /// membrane — the horizontal segment from the axis to the centre crosses an odd number of
    /// patches (parity, so folds of the membrane count right). A grain is counted from the step
    /// its centre passes a patch, not only once it is beyond the outermost vertex.
    pub fn escaped(&self) -> usize {
        let xs = self.sys.vertex_positions();
        let tris: Vec<[[f64; 3]; 3]> = self
            .sys
            .membrane
            .patches
            .iter()
            .map(|p| p.v.map(|v| xs[v as usize]))
            .collect();
        let (z0, z1) = (self.platen_z(0), self.platen_z(1));
        // Patches binned by height (bins as tall as the tallest patch: one or two bins each).
        let zr = |t: &[[f64; 3]; 3]| {
            let lo = t[0][2].min(t[1][2]).min(t[2][2]);
            (lo, t[0][2].max(t[1][2]).max(t[2][2]))
        };
        let w = tris.iter().map(|t| zr(t).1 - zr(t).0).fold(1e-9, f64::max);
        let z_lo = tris.iter().map(|t| zr(t).0).fold(f64::MAX, f64::min);
        let z_hi = tris.iter().map(|t| zr(t).1).fold(f64::MIN, f64::max);
        let n_bins = ((z_hi - z_lo) / w) as usize + 2;
        let bin = |z: f64| (((z - z_lo) / w).max(0.0) as usize).min(n_bins - 1);
        let mut bins = vec![Vec::new(); n_bins];
        for (k, t) in tris.iter().enumerate() {
            let (lo, hi) = zr(t);
            for b in bins.iter_mut().take(bin(hi) + 1).skip(bin(lo)) {
                b.push(k);
            }
        }
        self.sys.spheres.states[..self.n_grains]
            .iter()
            .filter(|s| {
                let x = s.position();
                let o = [0.0, 0.0, x[2]];
                let crossings = bins[bin(x[2])]
                    .iter()
                    .filter(|&&k| segment_crosses_triangle(o, x, &tris[k]))
                    .count();
                x[2] < z0 || x[2] > z1 || crossings % 2 == 1
            })
            .count()
    }

    /// The measures of the module doc now.
    pub fn sample(&self) -> TriaxialSample {
        let (h, v) = (self.height(), self.volume());
        let area = v / h;
        let w = &self.sys.spheres.walls;
        let rim_area = [self.rim_area(&self.bottom_rim), self.rim_area(&self.top_rim)];
        let sp = &self.sys.spheres;
        let cap = cap_axial_force(&sp.states, &sp.forces, w, &self.rims);
        let cap_membrane_force = [cap[0], cap[1]];
        // Bottom: up on the sample > 0; top: down on the sample > 0.
        let grain = [-(w[0].force[2] as f64), w[1].force[2] as f64];
        let grain_platen_stress = [grain[0] / rim_area[0], grain[1] / rim_area[1]];
        let platen_stress = if self.load_cell {
            [(grain[0] + cap[0]) / rim_area[0], (grain[1] - cap[1]) / rim_area[1]]
        } else {
            grain_platen_stress
        };
        let sigma_p = 0.5 * (platen_stress[0] + platen_stress[1]);
        let mean_stress = if self.contact == MembraneContact::Patches {
            -grain_virial(&self.sys, self.n_grains) / (3.0 * v)
        } else {
            0.0
        };
        TriaxialSample {
            time: self.sys.time,
            height: h,
            axial_strain: (self.h0 / h).ln(),
            volume: v,
            volumetric_strain: if self.v0 > 0.0 { (self.v0 - v) / self.v0 } else { 0.0 },
            area,
            platen_stress,
            grain_platen_stress,
            cap_membrane_force,
            rim_area,
            sigma_p,
            sigma_d: sigma_p - self.sigma_c,
            mean_stress,
            escaped: self.escaped(),
        }
    }

    /// The top platen becomes a plane moving down at `v_p`; h0, V0 from now.
    pub fn start_shear(&mut self, v_p: f64) {
        self.h0 = self.height();
        self.v0 = self.volume();
        let w = &mut self.sys.spheres.walls[1];
        w.kind = WALL_PLANE;
        w.velocity = [0.0, 0.0, -v_p as f32];
        self.sys.spheres.params.global_damping = self.shear_damping as f32;
    }

    /// Shears `steps` steps, a sample every `every` steps (the first before the first step).
    pub fn shear(&mut self, steps: usize, every: usize) -> Vec<TriaxialSample> {
        let mut out = vec![self.sample()];
        for k in 1..=steps {
            self.step();
            if k.is_multiple_of(every) {
                out.push(self.sample());
            }
        }
        out
    }
}

/// Radius of the membrane around a packing grown in a rigid cylinder of radius R (module doc):
/// R/cos(π/n) for patches (n = round(2πR/s) vertices a ring), R + r_v for particles.
pub fn membrane_radius(contact: MembraneContact, radius: f64, spacing: f64, vertex_radius: f64) -> f64 {
    let n = (2.0 * PI * radius / spacing).round();
    match contact {
        MembraneContact::Patches => radius / (PI / n).cos(),
        MembraneContact::Particles => radius + vertex_radius,
    }
}

/// Whether the segment a → b crosses triangle t (Möller–Trumbore, parameter in (0, 1]).
fn segment_crosses_triangle(a: [f64; 3], b: [f64; 3], t: &[[f64; 3]; 3]) -> bool {
    let sub = |p: [f64; 3], q: [f64; 3]| [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    let cross = |p: [f64; 3], q: [f64; 3]| {
        [
            p[1] * q[2] - p[2] * q[1],
            p[2] * q[0] - p[0] * q[2],
            p[0] * q[1] - p[1] * q[0],
        ]
    };
    let dot = |p: [f64; 3], q: [f64; 3]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
    let d = sub(b, a);
    let (e1, e2) = (sub(t[1], t[0]), sub(t[2], t[0]));
    let h = cross(d, e2);
    let det = dot(e1, h);
    if det.abs() < 1e-30 {
        return false;
    }
    let s = sub(a, t[0]);
    let u = dot(s, h) / det;
    let q = cross(s, e1);
    let v = dot(d, q) / det;
    let w = dot(e2, q) / det;
    (0.0..=1.0).contains(&u) && v >= 0.0 && u + v <= 1.0 && w > 0.0 && w <= 1.0
}

/// Result of one membrane model's triaxial run.
#[derive(Clone, Debug, Default)]
pub struct TriaxialRun {
    pub membrane_particles: usize,
    pub grains: usize,
    /// The sample at the start of shearing (after confinement).
    pub confined: TriaxialSample,
    pub curve: Vec<TriaxialSample>,
    /// Wall seconds of the confinement and the shearing, shearing steps, and seconds per 20 ms
    /// of simulated shearing (Table 4's measure).
    pub confine_seconds: f64,
    pub shear_seconds: f64,
    pub shear_steps: usize,
    pub seconds_per_20ms: f64,
}

/// The paper's membranes (§3.1): patches of side 4.0 mm (vertex radius 0.15 mm: sizes the cell
/// list only), or vertex particles 1.33 mm apart of radius 0.67 mm; σ_p the load cell's and the
/// servo on it (`load_cell`, `servo_on_load_cell`).
pub fn paper_cell(spec: &CellSpec, packing: &Packing, contact: MembraneContact) -> TriaxialCell {
    let (s, rv) = match contact {
        MembraneContact::Patches => (4.0e-3, 0.15e-3),
        MembraneContact::Particles => (1.33e-3, 0.67e-3),
    };
    let mut cell = TriaxialCell::new(spec, packing, contact, s, rv);
    cell.load_cell = true;
    cell.servo_on_load_cell = true;
    cell
}

/// Servo gain of the top platen: a time constant of ~1 ms on a packing of modulus ~100 MPa.
pub fn servo_gain(spec: &CellSpec) -> f64 {
    spec.height / (1e8 * 1e-3)
}

/// Confines `packing` in the membrane of `contact` (ramp 5 ms, hold 10 ms) and shears it at
/// v_p = 0.05 m/s to ε = `strain` (the paper's spacings: 4.0 mm patches, 1.33 mm particles of
/// radius 0.67 mm).
pub fn triaxial_run(spec: &CellSpec, packing: &Packing, contact: MembraneContact, strain: f64) -> TriaxialRun {
    let mut cell = paper_cell(spec, packing, contact);
    let t0 = std::time::Instant::now();
    let ms = (1e-3 / spec.dt).round() as usize;
    cell.confine(5 * ms, 10 * ms, servo_gain(spec), 0.05);
    let confine_seconds = t0.elapsed().as_secs_f64();
    let v_p = 0.05;
    cell.start_shear(v_p);
    let confined = cell.sample();
    let steps = ((1.0 - (-strain).exp()) * cell.h0 / (v_p * spec.dt)).round() as usize;
    let t1 = std::time::Instant::now();
    let curve = cell.shear(steps, (steps / 40).max(1));
    let shear_seconds = t1.elapsed().as_secs_f64();
    TriaxialRun {
        membrane_particles: cell.n_vertices(),
        grains: cell.n_grains,
        confined,
        curve,
        confine_seconds,
        shear_seconds,
        shear_steps: steps,
        seconds_per_20ms: shear_seconds * 0.02 / (steps as f64 * spec.dt),
    }
}

/// σ_d of `curve` at axial strain ε (linear between samples; the last one beyond).
pub fn sigma_d_at(curve: &[TriaxialSample], eps: f64) -> f64 {
    for w in curve.windows(2) {
        let (a, b) = (w[0], w[1]);
        if eps <= b.axial_strain {
            let t = ((eps - a.axial_strain) / (b.axial_strain - a.axial_strain).max(1e-300)).clamp(0.0, 1.0);
            return a.sigma_d + t * (b.sigma_d - a.sigma_d);
        }
    }
    curve.last().map_or(0.0, |s| s.sigma_d)
}
