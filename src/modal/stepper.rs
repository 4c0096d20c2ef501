//! Scene packing and the step loop shared by both backends.
//!
//! A [`ModalScene`] (bodies, walls, contact parameters, dt) is packed into flat arrays
//! ([`Packed`], the layout of shaders/modal_lib.wgsl). A backend ([`ModalBackend`]) steps
//! `n` steps at a time; between batches [`ModalRun`] reads the body states back, rebuilds the
//! body neighbour lists with the shared bounding-circle broad phase ([`crate::broad_phase`]) and, when they
//! changed, lays the slot pool out anew and moves each node's friction history to its partner's
//! new slot. Both backends follow the
//! same schedule, so they compute the same thing.
#![allow(clippy::needless_range_loop)] // index loops over slots

pub use super::backend::ModalBackend;
use super::body::ModalBody;
use super::broad_phase::{remap_slots, ModalLists, ModalSchedule};
use super::layout::*;
pub use super::packed::Packed;
use super::stiffness::ModalStiffness;
use super::{MAX_MODES, MAX_NB};
use crate::model::contact_table::law_table;
use crate::model::ContactLaw;
use anyhow::ensure;

/// Contact parameters (per node contact; see `contact::contact_law`).
#[derive(Clone, Copy, Debug)]
pub struct ContactParams {
    pub k_n: f32,
    pub c_n: f32,
    pub k_t: f32,
    pub mu: f32,
}

#[derive(Clone, Debug)]
pub struct ModalScene {
    pub bodies: Vec<ModalBody>,
    pub walls: Vec<ModalWallRec>,
    /// The walls' law and contact material 0.
    pub contact: ContactParams,
    /// Contact materials 1, 2, … (`[contact_materials.NAME]`), chosen per body by
    /// `ModalBody::contact_material`; pairs mix by `model::contact_table::mix`. In a coupled
    /// scene the same list as the SPD scene's, so one index names one material on both sides.
    pub contact_materials: Vec<ContactParams>,
    pub dt: f32,
    /// Steps between neighbour-list rebuilds (and between reads of the state on the GPU).
    pub rebuild_every: u32,
    /// Verlet skin added to the bounding circles when listing neighbour bodies.
    pub skin: f32,
}

impl ContactParams {
    pub fn law(&self) -> ContactLaw {
        ContactLaw {
            k_n: self.k_n,
            k_t: self.k_t,
            mu: self.mu,
            c_n: self.c_n,
        }
    }
}

impl ModalScene {
    /// The contact materials' laws: `contact`, then `contact_materials`.
    pub fn laws(&self) -> Vec<ContactLaw> {
        std::iter::once(&self.contact)
            .chain(&self.contact_materials)
            .map(ContactParams::law)
            .collect()
    }

    /// The largest k_n of the law table (a material with itself or mixed): the stiffest contact,
    /// for the critical time step.
    pub fn k_n_max(&self) -> f32 {
        law_table(&self.laws()).iter().map(|l| l.k_n).fold(0.0, f32::max)
    }
}

/// Line wall through p0 with unit normal `normal` (towards the bodies), moving at `velocity`.
pub fn line_wall(p0: [f32; 2], normal: [f32; 2], velocity: [f32; 2]) -> ModalWallRec {
    ModalWallRec {
        kind: WALL_LINE,
        pad: 0,
        p0,
        normal,
        velocity,
        radius: 0.0,
        pad1: 0,
    }
}

/// Rigid cylinder (circle) wall.
pub fn circle_wall(center: [f32; 2], radius: f32, velocity: [f32; 2]) -> ModalWallRec {
    ModalWallRec {
        kind: WALL_CIRCLE,
        pad: 0,
        p0: center,
        normal: [0.0, 1.0],
        velocity,
        radius,
        pad1: 0,
    }
}

fn mat4(v: &[f32], n: usize) -> [f32; 16] {
    let mut m = [0.0; 16];
    for r in 0..n {
        for c in 0..n {
            m[r * 4 + c] = v[r * n + c];
        }
    }
    m
}

impl ModalScene {
    pub fn pack(&self) -> anyhow::Result<Packed> {
        let mut p = Packed {
            params: ModalParams {
                dt: self.dt,
                n_nodes: 0,
                n_bodies: self.bodies.len() as u32,
                n_walls: self.walls.len() as u32,
                slots: (self.walls.len() + MAX_NB) as u32,
                k_n: self.contact.k_n,
                c_n: self.contact.c_n,
                k_t: self.contact.k_t,
                mu: self.contact.mu,
                opaque_zero: 0,
                gravity: [0.0, 0.0],
                n_materials: 1 + self.contact_materials.len() as u32,
                pad: [0; 3],
            },
            bodies: vec![],
            modes: vec![],
            mode_grid: vec![],
            phi0: vec![],
            nodes: vec![],
            walls: self.walls.clone(),
            tables: vec![],
            queries: vec![],
            pre_ls: vec![],
            laws: law_table(&self.laws()),
        };
        ensure!(
            self.contact.k_t > 0.0 || self.contact.mu == 0.0,
            "modal scene: friction needs k_t > 0"
        );
        for (bi, b) in self.bodies.iter().enumerate() {
            b.validate().map_err(|e| anyhow::anyhow!("body {bi}: {e}"))?;
            ensure!(
                b.contact_material < p.params.n_materials,
                "modal scene: body {bi} has contact material {} of {}",
                b.contact_material,
                p.params.n_materials
            );
            let n = b.n_modes();
            let g = &b.level_set.grid;
            let m64: Vec<f64> = b.modal_mass.iter().map(|x| *x as f64).collect();
            let minv: Vec<f32> = super::quadrature::invert(&m64, n)?.iter().map(|x| *x as f32).collect();
            let (stiff_kind, k, table_first, table_len) = match &b.stiffness {
                ModalStiffness::Linear(k) => (STIFF_LINEAR, mat4(k, n), 0, 0),
                ModalStiffness::Table(t) => {
                    let first = p.tables.len() as u32;
                    for e in t {
                        p.tables.extend_from_slice(e);
                    }
                    (STIFF_TABLE, [0.0; 16], first, t.len() as u32)
                }
            };
            let rec = ModalBodyRec {
                node_first: p.nodes.len() as u32,
                node_count: b.nodes.len() as u32,
                n_modes: n as u32,
                mode_first: p.modes.len() as u32,
                ls_first: p.phi0.len() as u32,
                nx: g.nx,
                ny: g.ny,
                stiff_kind,
                origin: g.origin,
                h: g.h,
                mass: b.mass,
                inertia: b.inertia,
                rigid_damping: b.rigid_damping,
                // Reference extent + room for the deformation + two cells.
                bound_radius: b.reference_radius() + 2.0 * g.h,
                table_first,
                table_len,
                contact_material: b.contact_material,
                minv: mat4(&minv, n),
                k,
                c: mat4(&b.modal_damping, n),
            };
            p.phi0.extend_from_slice(&b.level_set.phi);
            p.queries.push(super::precomputed::pack_body(b, &mut p.pre_ls));
            for m in &b.modes {
                match m {
                    super::modes::Mode::Bending { length, x_left, y_mid } => p.modes.push(ModalModeRec {
                        kind: MODE_BENDING,
                        grid_first: 0,
                        length: *length,
                        x_left: *x_left,
                        y_mid: *y_mid,
                        pad: [0; 3],
                    }),
                    super::modes::Mode::Grid { ux, uy } => {
                        p.modes.push(ModalModeRec {
                            kind: MODE_GRID,
                            grid_first: p.mode_grid.len() as u32,
                            length: 0.0,
                            x_left: 0.0,
                            y_mid: 0.0,
                            pad: [0; 3],
                        });
                        for (x, y) in ux.iter().zip(uy) {
                            p.mode_grid.push(*x);
                            p.mode_grid.push(*y);
                        }
                    }
                }
            }
            for q in &b.nodes {
                let mut phi = [0.0f32; 8];
                for (a, m) in b.modes.iter().enumerate().take(MAX_MODES) {
                    let f = m.eval(g, *q);
                    phi[2 * a] = f[0];
                    phi[2 * a + 1] = f[1];
                }
                p.nodes.push(ModalNodeRec {
                    body: bi as u32,
                    pad: 0,
                    p: *q,
                    phi,
                });
            }
            p.bodies.push(rec);
        }
        p.params.n_nodes = p.nodes.len() as u32;
        // Keep every binding non-empty.
        if p.mode_grid.is_empty() {
            p.mode_grid.push(0.0);
        }
        if p.tables.is_empty() {
            p.tables.extend_from_slice(&[0.0, 0.0]);
        }
        if p.pre_ls.is_empty() {
            p.pre_ls.push(0.0);
        }
        if p.queries.is_empty() {
            p.queries.push(bytemuck::Zeroable::zeroed());
        }
        Ok(p)
    }
}

/// The shared driver: batches of `rebuild_every` steps with a neighbour-list rebuild in between.
pub struct ModalRun<B: ModalBackend> {
    pub backend: B,
    pub rebuild_every: u32,
    pub skin: f32,
    /// The lists of the last build and where the bodies and surface nodes were then.
    pub(crate) modal: ModalSchedule,
    pub rebuilds: u32,
}

impl<B: ModalBackend> ModalRun<B> {
    pub fn new(backend: B, rebuild_every: u32, skin: f32) -> ModalRun<B> {
        ModalRun {
            modal: ModalSchedule::empty(backend.packed()),
            backend,
            rebuild_every: rebuild_every.max(1),
            skin,
            rebuilds: 0,
        }
    }

    /// The lists of the last build (bodies, surface nodes' candidates).
    pub fn lists(&self) -> &ModalLists {
        &self.modal.lists
    }

    fn rebuild(&mut self) -> anyhow::Result<()> {
        let states = self.backend.states()?;
        let every = (self.skin, self.rebuild_every);
        let next = self.modal.next(self.backend.packed(), &states, every, |_| false)?;
        let (old, new) = (&self.modal.lists.node_cand, &next.lists.node_cand);
        if new != old || self.rebuilds == 0 {
            // The pool is laid out by the candidates: remapped whenever they change.
            let pool = self.backend.pool()?;
            let pool = remap_slots(self.backend.packed(), &pool, old, new);
            self.backend.set_neighbours(new, &next.lists.body_rx, &pool)?;
        }
        self.modal = next;
        self.rebuilds += 1;
        Ok(())
    }

    /// Runs `n` steps (a multiple of nothing in particular: the last batch may be short).
    pub fn run(&mut self, n: u64) -> anyhow::Result<()> {
        let mut left = n;
        while left > 0 {
            let since = self.backend.steps_done() % self.rebuild_every as u64;
            if since == 0 {
                self.rebuild()?;
            }
            let batch = (self.rebuild_every as u64 - since).min(left);
            self.backend.step(batch as u32)?;
            left -= batch;
        }
        Ok(())
    }
}

impl Default for ModalSlot {
    fn default() -> Self {
        ModalSlot {
            force: [0.0; 2],
            q: [0.0; 2],
            p_ref: [0.0; 2],
            hist: [0.0; 2],
            partner: NONE,
            active: 0,
        }
    }
}
