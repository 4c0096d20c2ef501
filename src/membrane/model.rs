//! One membrane: its parameters and records (edges, hinges, patches), the static gather lists
//! of its vertices, the candidate patches of the grains with their contact history and results,
//! and the results of the force passes of the last step. Its vertices are spheres of the sphere
//! system (indices `first ..`), integrated by the sphere stepper like any grain (the paper:
//! "their dynamics are handled identically"). The force passes and one evaluation of them
//! (`Membrane::evaluate`, the `ExtraForces` seam) are in `membrane::forces`, above this file.

use super::mesh::MembraneMesh;
use super::patch_list::{build_patch_list, PatchList};
use super::records::*;
use crate::broad_phase::grid3d::carry_rows;
use crate::laws::membrane_bending::{hinge_sin_half, BendingParams};
use crate::laws::membrane_stretch::stretch_stiffness;
use crate::spheres::contact::ContactHistory;
use crate::spheres::pair_law::{PairLaw, SphereMaterial};
use crate::spheres::SphereState;

/// How grains meet the membrane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MembraneContact {
    /// MSS_patch (the paper's model): grains touch the triangular patches.
    Patches,
    /// MSS_particle (the comparison): vertex particles of radius `vertex_radius` touch grains
    /// directly through the sphere law table; no patch contacts.
    Particles,
}

/// A membrane from plain parameters (SI units).
#[derive(Clone, Debug, PartialEq)]
pub struct MembraneSpec {
    pub mesh: MembraneMesh,
    /// Young's modulus E, Poisson's ratio ν (contacts only; the springs give ν = 1/3),
    /// thickness d, density (vertex mass = density · d · A/3 per patch).
    pub young: f64,
    pub poisson: f64,
    pub thickness: f64,
    pub density: f64,
    /// Friction μ and restitution e of the membrane material (contacts with grains).
    pub friction: f64,
    pub restitution: f64,
    /// γ of eq 6 (the paper: ≈ 0.15).
    pub damping_ratio: f64,
    /// k^el (N·m) and k^diss (N·s) of eq 11–12.
    pub k_el: f64,
    pub k_diss: f64,
    /// Confining stress σ (Pa; > 0 presses inward, an internal pressure p is σ = −p).
    pub sigma: f64,
    pub contact: MembraneContact,
    /// Radius of the vertex particles: MSS_particle's contact radius; with patches the contact
    /// radius of self-contact (and it sizes the cell list; no law acts between vertices and grains).
    pub vertex_radius: f64,
    /// Self-contact (with patches only): every vertex against the patches it does not belong to,
    /// as a sphere of radius `vertex_radius` against a patch (docs/membrane.md).
    pub self_contact: bool,
}

impl MembraneSpec {
    /// The membrane's material for the law table.
    pub fn material(&self) -> SphereMaterial {
        SphereMaterial {
            young: self.young,
            poisson: self.poisson,
            restitution: self.restitution,
            friction: self.friction,
            rolling_friction: 0.0,
            density: self.density,
        }
    }
}

/// A membrane in a sphere system.
#[derive(Clone, Debug)]
pub struct Membrane {
    pub params: MembraneParams,
    pub edges: Vec<MembraneEdge>,
    pub hinges: Vec<MembraneHinge>,
    pub patches: Vec<MembranePatch>,
    /// Per local vertex, its edges, hinges and patches as gather entries (`records::entry`).
    pub vertex_start: Vec<u32>,
    pub vertex_entry: Vec<u32>,
    /// Law of a sphere of material m against a patch: `patch_laws[m]` (grains; the vertices'
    /// material, last, is the membrane against itself: self-contact).
    pub patch_laws: Vec<PairLaw>,
    pub list: PatchList,
    pub patch_history: Vec<ContactHistory>,
    pub patch_out: Vec<PatchOut>,
    pub edge_out: Vec<[f32; 4]>,
    pub hinge_out: Vec<[[f32; 4]; 4]>,
    pub pressure_out: Vec<[f32; 4]>,
    /// Positions of all spheres at the last candidate build; skin of the candidate test.
    pub x_ref: Vec<[f64; 3]>,
    pub skin: f64,
    pub patch_overflow: u64,
    pub list_builds: u64,
}

impl Membrane {
    /// Records of `spec` for vertex spheres `first ..` of `states` (positions taken from there),
    /// `patch_laws` per grain material.
    pub fn new(
        spec: &MembraneSpec,
        first: usize,
        states: &[SphereState],
        patch_laws: Vec<PairLaw>,
        dt: f32,
        skin: f64,
    ) -> Membrane {
        let mesh = &spec.mesh;
        let nv = mesh.vertices.len();
        let x = |v: u32| states[first + v as usize].position();
        let edges: Vec<MembraneEdge> = mesh
            .edges()
            .iter()
            .map(|&[i, j]| {
                let (a, b) = (x(i), x(j));
                let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
                MembraneEdge {
                    i,
                    j,
                    rest: d as f32,
                    _pad: 0.0,
                }
            })
            .collect();
        let hinges: Vec<MembraneHinge> = mesh
            .hinges()
            .iter()
            .map(|h| {
                let p = h.v.map(|v| {
                    let (a, o) = (x(v), x(h.v[2]));
                    [(a[0] - o[0]) as f32, (a[1] - o[1]) as f32, (a[2] - o[2]) as f32]
                });
                MembraneHinge {
                    v: h.v,
                    sin_half_rest: hinge_sin_half(p[0], p[1], p[2], p[3]),
                    _pad: [0.0; 3],
                }
            })
            .collect();
        let patches: Vec<MembranePatch> = mesh
            .triangles
            .iter()
            .map(|t| MembranePatch { v: *t, _pad: 0 })
            .collect();
        // Static gather lists: per vertex its edges, then hinges, then patches, each in index order.
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); nv];
        for (k, e) in edges.iter().enumerate() {
            lists[e.i as usize].push(entry(ENTRY_EDGE, k as u32, 0));
            lists[e.j as usize].push(entry(ENTRY_EDGE, k as u32, 1));
        }
        for (k, h) in hinges.iter().enumerate() {
            for (slot, v) in h.v.iter().enumerate() {
                lists[*v as usize].push(entry(ENTRY_HINGE, k as u32, slot as u32));
            }
        }
        for (k, p) in patches.iter().enumerate() {
            for (corner, v) in p.v.iter().enumerate() {
                lists[*v as usize].push(entry(ENTRY_PRESSURE, k as u32, corner as u32));
            }
        }
        let mut vertex_start = vec![0u32];
        let mut vertex_entry = Vec::new();
        for l in lists {
            vertex_entry.extend(l);
            vertex_start.push(vertex_entry.len() as u32);
        }
        let params = MembraneParams {
            k: stretch_stiffness(spec.young, spec.thickness) as f32,
            gamma: spec.damping_ratio as f32,
            k_el: spec.k_el as f32,
            k_diss: spec.k_diss as f32,
            sigma: spec.sigma as f32,
            dt,
            first: first as u32,
            n_vertices: nv as u32,
            n_edges: edges.len() as u32,
            n_hinges: hinges.len() as u32,
            n_patches: patches.len() as u32,
            n_spheres: states.len() as u32,
            flags: match (spec.contact, spec.self_contact) {
                (MembraneContact::Patches, false) => MEMBRANE_PATCH_CONTACTS,
                (MembraneContact::Patches, true) => MEMBRANE_PATCH_CONTACTS | MEMBRANE_SELF_CONTACT,
                (MembraneContact::Particles, _) => 0,
            },
            ..Default::default()
        };
        Membrane {
            params,
            edge_out: vec![[0.0; 4]; edges.len()],
            hinge_out: vec![[[0.0; 4]; 4]; hinges.len()],
            pressure_out: vec![[0.0; 4]; patches.len()],
            edges,
            hinges,
            patches,
            vertex_start,
            vertex_entry,
            patch_laws,
            list: PatchList::default(),
            patch_history: Vec::new(),
            patch_out: Vec::new(),
            x_ref: Vec::new(),
            skin,
            patch_overflow: 0,
            list_builds: 0,
        }
    }

    pub fn bending(&self) -> BendingParams {
        BendingParams {
            k_el: self.params.k_el,
            k_diss: self.params.k_diss,
            _pad: [0.0; 2],
        }
    }

    /// Whether a sphere or vertex moved more than skin/2 since the last candidate build.
    pub fn needs_rebuild(&self, states: &[SphereState]) -> bool {
        if self.params.flags & MEMBRANE_PATCH_CONTACTS == 0 {
            return false;
        }
        let lim2 = 0.25 * self.skin * self.skin;
        self.x_ref.len() != states.len()
            || states.iter().zip(&self.x_ref).any(|(s, r)| {
                let x = s.position();
                (x[0] - r[0]).powi(2) + (x[1] - r[1]).powi(2) + (x[2] - r[2]).powi(2) > lim2
            })
    }

    /// New candidate list; the history of a (grain, patch) candidate follows it by binary search
    /// in the grain's old row (`grid3d::carry_rows`, as the spheres' pairs).
    pub fn rebuild(&mut self, states: &[SphereState]) {
        self.params.n_spheres = states.len() as u32;
        if self.params.flags & MEMBRANE_PATCH_CONTACTS == 0 {
            return;
        }
        let new = build_patch_list(
            states,
            self.params.first as usize,
            &self.patches,
            self.params.n_vertices as usize,
            self.params.flags & MEMBRANE_SELF_CONTACT != 0,
            self.skin,
        );
        let hist = carry_rows(
            &self.list.start,
            &self.list.patch,
            &self.patch_history,
            &new.start,
            &new.patch,
        );
        self.patch_out = vec![PatchOut::default(); new.patch.len()];
        self.patch_history = hist;
        self.list = new;
        self.x_ref = states.iter().map(|s| s.position()).collect();
        self.list_builds += 1;
    }
}
