//! Grains and one membrane stepped together on the CPU: a `CpuSpheres` holding the grains and
//! the membrane's vertex particles (so one integrator moves both), and the membrane, a force
//! source of the stepper (`spheres::extra_force::ExtraForces`) that this façade keeps and lends
//! at every step:
//!
//!   spheres.step_with([membrane]): kick, drift, walls, sphere list (and the membrane's candidate
//!   list after it) → forces: membrane.add_forces (edges, hinges, pressure, patch contacts,
//!   gather → the stepper's extra force) → pair and wall laws → gather (+ extra) → kick;
//!   then the pinned vertices are put on their prescribed path.
//!
//! The façade owns the membrane (rather than attaching it to the stepper) so that `membrane`
//! stays a plain field others read (`list`, `patch_out`, `patches`, …).
//!
//! The law table gets one material more, the membrane's: against grains the Hertz–Mindlin law
//! of the two materials (MSS_particle) or a zero law (MSS_patch: grains meet the patches, whose
//! law is `Membrane::patch_laws`); against itself and rigid walls a zero law (the rims are
//! pinned to the platens).

use super::model::{Membrane, MembraneContact, MembraneSpec};
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::pair_law::{LawTable, PairLaw, SphereMaterial};
use crate::spheres::precision::df3_split;
use crate::spheres::{PlaneWall, SphereParams, SphereState};

/// A vertex moved along a prescribed path x0 + v (t − t0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pin {
    pub sphere: u32,
    pub x0: [f64; 3],
    pub t0: f64,
    pub velocity: [f64; 3],
}

/// Grains + a membrane, stepped together on the CPU.
pub struct MembraneSpheres {
    pub spheres: CpuSpheres,
    pub membrane: Membrane,
    pub pins: Vec<Pin>,
    pub time: f64,
}

/// A law that never acts (zero stiffness, zero damping, zero friction).
pub fn no_contact_law() -> PairLaw {
    PairLaw::linear(0.0, 0.0, 0.5, 0.0)
}

/// `grains` (the law table of the grains' materials 0..n) widened by the membrane's material n
/// (module doc): MSS_particle: Hertz–Mindlin between grains and vertices; MSS_patch: grains
/// meet the patches (`patch_laws`), never the vertices; no law with itself nor with rigid walls.
pub fn with_membrane_material(grains: &LawTable, materials: &[SphereMaterial], spec: &MembraneSpec) -> LawTable {
    let mm = spec.material();
    let n = materials.len();
    let mut table = LawTable {
        n_materials: n + 1,
        laws: vec![no_contact_law(); (n + 1) * (n + 1)],
    };
    for (a, ma) in materials.iter().enumerate() {
        for b in 0..n {
            table.laws[a * (n + 1) + b] = *grains.get(a as u32, b as u32);
        }
        let law = if spec.contact == MembraneContact::Particles && ma.young.is_finite() {
            PairLaw::hertz_mindlin(ma, &mm)
        } else {
            no_contact_law()
        };
        table.laws[a * (n + 1) + n] = law;
        table.laws[n * (n + 1) + a] = law;
    }
    table
}

/// Each vertex's mass: density · thickness · A/3 of each of its patches.
pub fn vertex_masses(spec: &MembraneSpec) -> Vec<f64> {
    let mesh = &spec.mesh;
    let mut mass = vec![0.0f64; mesh.vertices.len()];
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let cr = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let area = 0.5 * (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]).sqrt();
        for i in t {
            mass[*i as usize] += spec.density * spec.thickness * area / 3.0;
        }
    }
    mass
}

/// The membrane's vertex particles as spheres of `material`: radius `vertex_radius`, the mass of
/// `vertex_masses`.
pub fn vertex_spheres(spec: &MembraneSpec, material: u32) -> Vec<SphereState> {
    let r = spec.vertex_radius;
    spec.mesh
        .vertices
        .iter()
        .zip(vertex_masses(spec))
        .map(|(x, m)| {
            let (hi, lo) = df3_split(*x);
            SphereState {
                pos_hi: hi,
                radius: r as f32,
                pos_lo: lo,
                mass: m as f32,
                vel: [0.0; 3],
                inertia: (0.4 * m * r * r) as f32,
                omega: [0.0; 3],
                material,
            }
        })
        .collect()
}

/// Per sphere material against a patch; the vertices' (last, index n): the membrane against
/// itself (self-contact).
pub fn patch_laws(materials: &[SphereMaterial], spec: &MembraneSpec) -> Vec<PairLaw> {
    let mm = spec.material();
    materials
        .iter()
        .chain(std::iter::once(&mm))
        .map(|m| PairLaw::hertz_mindlin(m, &mm))
        .collect()
}

/// What both façades (`MembraneSpheres`, `gpu_system::GpuMembraneSpheres`) step: the sphere
/// states (grains, then the membrane's vertices), the law table with the membrane's material
/// (module doc) and the membrane's records.
pub fn membrane_system(
    params: &SphereParams,
    grains: Vec<SphereState>,
    materials: &[SphereMaterial],
    spec: &MembraneSpec,
) -> (Vec<SphereState>, LawTable, Membrane) {
    let laws = with_membrane_material(&LawTable::hertz_mindlin(materials), materials, spec);
    let first = grains.len();
    let mut states = grains;
    states.extend(vertex_spheres(spec, materials.len() as u32));
    let membrane = Membrane::new(
        spec,
        first,
        &states,
        patch_laws(materials, spec),
        params.dt,
        params.skin as f64,
    );
    (states, laws, membrane)
}

impl MembraneSpheres {
    /// Grains of `materials` (walls' materials among them, E = ∞), walls and the membrane of
    /// `spec`. The vertex spheres follow the grains (index `grains.len()` ..).
    pub fn new(
        params: SphereParams,
        grains: Vec<SphereState>,
        materials: &[SphereMaterial],
        walls: Vec<PlaneWall>,
        spec: &MembraneSpec,
    ) -> MembraneSpheres {
        let (states, laws, membrane) = membrane_system(&params, grains, materials, spec);
        let spheres = CpuSpheres::new(params, states, laws, walls);
        let mut sys = MembraneSpheres {
            spheres,
            membrane,
            pins: Vec::new(),
            time: 0.0,
        };
        // Initial forces with the membrane's, histories untouched (as CpuSpheres::new).
        sys.spheres.evaluate_lent(&mut [&mut sys.membrane]);
        sys
    }

    /// Sphere index of local vertex v.
    pub fn vertex_sphere(&self, v: u32) -> usize {
        (self.membrane.params.first + v) as usize
    }

    /// Pins the vertices `vs` to move at `velocity` from where they are now.
    pub fn pin(&mut self, vs: &[u32], velocity: [f64; 3]) {
        for &v in vs {
            let s = self.vertex_sphere(v);
            self.pins.push(Pin {
                sphere: s as u32,
                x0: self.spheres.states[s].position(),
                t0: self.time,
                velocity,
            });
        }
    }

    /// One time step (module doc).
    pub fn step(&mut self) {
        self.spheres.step_with(&mut [&mut self.membrane]);
        self.time += self.spheres.params.dt as f64;
        for p in &self.pins {
            let dt = self.time - p.t0;
            let x = [0, 1, 2].map(|k| p.x0[k] + p.velocity[k] * dt);
            let s = &mut self.spheres.states[p.sphere as usize];
            (s.pos_hi, s.pos_lo) = df3_split(x);
            s.vel = p.velocity.map(|v| v as f32);
            s.omega = [0.0; 3];
        }
    }

    /// Current positions of the membrane's vertices (f64).
    pub fn vertex_positions(&self) -> Vec<[f64; 3]> {
        (0..self.membrane.params.n_vertices)
            .map(|v| self.spheres.states[self.vertex_sphere(v)].position())
            .collect()
    }

    /// Volume enclosed by the membrane and two platens normal to z, about the axis (x, y).
    pub fn enclosed_volume(&self, axis: [f64; 2]) -> f64 {
        let tris: Vec<[u32; 3]> = self.membrane.patches.iter().map(|p| p.v).collect();
        super::mesh::MembraneMesh::volume_about_z(&self.vertex_positions(), &tris, axis)
    }
}
