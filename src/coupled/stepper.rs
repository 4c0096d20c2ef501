//! The coupled scene, what a coupled backend offers, and the driver both backends share.
//!
//! One coupled step (both backends; SPD: velocity Verlet, modal: semi-implicit Euler, both with
//! positions at whole steps, so every force of step n is evaluated on the configuration at t_n):
//!
//! 1. SPD `integrate` → x_{n+1}, v_{n+½}; `core_area`, neighbour list, `shell_forces`,
//!    `contact_pairs`, `cohesive_links` (the SPD step up to node_forces, unchanged).
//! 2. `modal_body_update_coupled` (per modal body): generalized force from the slots of state n
//!    (its nodes' modal slots, modal neighbours' reactions, its nodes' coupling slots, the SPD
//!    nodes' reactions, in that order) → eq 42–44 → state n+1; then `modal_walls_clock` (wall
//!    forces, one workgroup per wall, and the step counter).
//! 3. `modal_node_contact` (modal walls and neighbours at n+1); `spd_node_vs_modal` and
//!    `modal_node_vs_spd` (SPD at x_{n+1} with v_{n+½}, modal bodies at n+1): each writes only
//!    its own node's slots.
//! 4. `spd_modal_gather` (per SPD node) and SPD `node_forces_modal`: f_{n+1} with the modal force
//!    added, v_{n+1}.
//!
//! Every force is gathered by its owner in a fixed order (no atomics): two runs are
//! bit-identical. A dt = 0 pass of 1, 3, 4 at the start gives f_0 and the slots of state 0.
//! Between batches of `rebuild_every` steps, [`CoupledRun`] reads the modal states and SPD node
//! positions back, rebuilds the modal–modal lists (`modal::stepper::neighbour_lists`), the cell ↔ modal
//! lists and the candidates over primitives within them (`broad_phase`), and moves the friction
//! histories to their partners' new slots.

pub use super::backend::{CoupleStatic, CoupledBackend, CoupledSlots};
use super::broad_phase::{
    cell_circles, couple_candidates, couple_lists, remap_mnode_slots, remap_spd_slots, BuildPositions, CoupleLists,
    Statics,
};
use super::cpu::CpuCoupled;
use super::layout::{CellRec, CoupleParams};
use crate::broad_phase::schedule::check_moved;
use crate::modal::broad_phase::{body_circles, remap_slots, ModalSchedule};
use crate::modal::layout::{ModalState, NONE};
use crate::modal::stepper::{ModalScene, Packed};
use crate::model::*;
use anyhow::ensure;

/// SPD cells and modal bodies in one simulation.
#[derive(Clone, Debug)]
pub struct CoupledScene {
    pub spd: Scene,
    /// Modal bodies, their walls and contact parameters (also those of the mixed pairs), the
    /// list schedule (`rebuild_every`, `skin`).
    pub modal: ModalScene,
    /// `DIR_*` bits: which of the two contact directions act (normally both), and whether SPD
    /// walls act on modal bodies (`DIR_SPD_WALLS`).
    pub directions: u32,
}

/// Fraction of sqrt(m_min / k_n) (SPD node mass, modal k_n) allowed as dt for the mixed pairs.
pub const COUPLING_DT_FRACTION: f32 = 0.1;

impl CoupledScene {
    /// Both contact directions.
    pub fn new(spd: Scene, modal: ModalScene) -> CoupledScene {
        CoupledScene {
            spd,
            modal,
            directions: super::DIR_BOTH,
        }
    }

    /// The common time step: the smallest of the SPD scene's, the modal scene's and
    /// COUPLING_DT_FRACTION · sqrt(m_min / k_n) of the mixed contacts (k_n: the stiffest law of
    /// the modal law table, `ModalScene::k_n_max`).
    pub fn dt(&self) -> f32 {
        let mixed = COUPLING_DT_FRACTION * (self.spd.m_min() / self.modal.k_n_max()).sqrt();
        self.spd.dt().min(self.modal.dt).min(mixed)
    }

    /// Both scenes at the common dt, the packed modal scene, its initial states and the static
    /// coupling data.
    pub fn prepare(&self) -> anyhow::Result<(Scene, Packed, Vec<ModalState>, CoupleStatic)> {
        let dt = self.dt();
        let mut spd = self.spd.clone();
        spd.time_step = TimeStep::Fixed(dt);
        let mut modal = self.modal.clone();
        modal.dt = dt;
        let packed = modal.pack()?;
        for (i, b) in spd.bodies.iter().enumerate() {
            ensure!(
                b.contact_material < packed.params.n_materials,
                "coupled scene: SPD body {i} has contact material {}, the modal law table has {} \
                 (give the modal scene the SPD scene's contact_materials)",
                b.contact_material,
                packed.params.n_materials
            );
        }
        if spd.gravity != [0.0, 0.0] {
            for (i, b) in modal.bodies.iter().enumerate() {
                gravity_check(b).map_err(|e| anyhow::anyhow!("coupled scene, modal body {i}: {e}"))?;
            }
        }
        let states = modal.bodies.iter().map(|b| b.initial_state()).collect();
        let cells: Vec<CellRec> = spd
            .bodies
            .iter()
            .map(|b| {
                let frozen = b.flags & BODY_FROZEN != 0;
                let coupled = if frozen && self.directions & super::DIR_SPD_WALLS == 0 {
                    0
                } else {
                    super::CELL_COUPLED
                        | if frozen { super::CELL_FROZEN } else { 0 }
                        | if b.flags & BODY_CLOSED == 0 {
                            super::CELL_OPEN
                        } else {
                            0
                        }
                };
                CellRec {
                    first: b.first,
                    count: b.count,
                    radius: b.radius,
                    coupled,
                    contact_material: b.contact_material,
                }
            })
            .collect();
        let node_cell = spd.nodes.iter().map(|n| n.body).collect();
        let sections = CoupleParams::candidate_sections(spd.nodes.len(), packed.bodies.len());
        let cs = CoupleStatic {
            params: CoupleParams {
                n_spd_nodes: spd.nodes.len() as u32,
                n_cells: cells.len() as u32,
                directions: self.directions,
                // slot_start: the modal nodes' offsets, then the SPD nodes', then the modal
                // nodes' coupling offsets.
                spd_start_at: packed.nodes.len() as u32 + 1,
                gravity: spd.gravity,
                mnode_start_at: (packed.nodes.len() + 1 + spd.nodes.len() + 1) as u32,
                lever_at: sections[0],
                rx_at: sections[1],
                seg_at: sections[2],
                pad1: 0,
                pad2: 0,
            },
            cells,
            node_cell,
        };
        Ok((spd, packed, states, cs))
    }
}

/// Gravity acts on a modal body's rigid part only (M g at X); that is exact when no mode moves
/// the centre of mass, ∫ρ Φ_α = 0 (symmetric modes).
fn gravity_check(b: &crate::modal::body::ModalBody) -> anyhow::Result<()> {
    for a in 0..b.modes.len() {
        ensure!(
            mode_keeps_centre(b, a),
            "gravity on modal bodies needs modes that keep the centre of mass (∫ρ Φ = 0); mode {a} \
             does not (src/coupled/stepper.rs)"
        );
    }
    Ok(())
}

/// Whether mode `a` of `b` keeps the centre of mass (∫ρ Φ_α = 0), by a sum over the level-set grid
/// nodes inside the body: |Σ Φ_α| ≤ 1e-3 · (nodes inside) · max|Φ_α|. Also used by scenario files
/// (`scenario::coupled`) to refuse such a mode under gravity with the mode's key.
pub fn mode_keeps_centre(b: &crate::modal::body::ModalBody, a: usize) -> bool {
    let g = &b.level_set.grid;
    let m = &b.modes[a];
    let (mut s, mut count, mut max) = ([0.0f64; 2], 0usize, 0.0f64);
    for j in 0..g.ny {
        for i in 0..g.nx {
            // Inside fraction of the node's cell, smoothed over one spacing (a node on the
            // boundary counts half, whatever the rounding of φ0 there).
            let w = (0.5 - b.level_set.phi[(j * g.nx + i) as usize] as f64 / g.h as f64).clamp(0.0, 1.0);
            if w > 0.0 {
                let p = [g.origin[0] + i as f32 * g.h, g.origin[1] + j as f32 * g.h];
                let f = m.eval(g, p);
                s[0] += w * f[0] as f64;
                s[1] += w * f[1] as f64;
                count += 1;
                max = max.max((f[0] as f64).hypot(f[1] as f64));
            }
        }
    }
    s[0].hypot(s[1]) <= 1e-3 * count as f64 * max
}

/// The shared driver: batches of `rebuild_every` steps, lists rebuilt in between.
pub struct CoupledRun<B: CoupledBackend> {
    pub backend: B,
    pub rebuild_every: u32,
    pub skin: f32,
    /// The modal side of the schedule: the modal–modal lists of the last build and where the
    /// bodies and surface nodes were then.
    pub(crate) modal: ModalSchedule,
    pub(crate) lists: CoupleLists,
    /// SPD node positions at the last build.
    pub(crate) spd_at_rebuild: Vec<[f32; 2]>,
    pub rebuilds: u32,
}

/// A coupled run on the CPU.
pub fn cpu(scene: &CoupledScene) -> anyhow::Result<CoupledRun<CpuCoupled>> {
    let (spd, packed, states, cs) = scene.prepare()?;
    let be = CpuCoupled::new(crate::cpu::CpuBackend::new(&spd)?, packed, states, cs);
    CoupledRun::new(be, scene.modal.rebuild_every, scene.modal.skin)
}

/// A coupled run on the GPU of `ctx`.
pub fn gpu(
    ctx: std::sync::Arc<crate::gpu::context::GpuContext>,
    scene: &CoupledScene,
) -> anyhow::Result<CoupledRun<super::gpu::GpuCoupled>> {
    let (spd, packed, states, cs) = scene.prepare()?;
    let be = super::gpu::GpuCoupled::new(ctx, &spd, packed, states, cs)?;
    CoupledRun::new(be, scene.modal.rebuild_every, scene.modal.skin)
}

impl<B: CoupledBackend> CoupledRun<B> {
    /// Builds the first lists and runs the dt = 0 force pass.
    pub fn new(backend: B, rebuild_every: u32, skin: f32) -> anyhow::Result<CoupledRun<B>> {
        let nm = backend.packed().bodies.len();
        let nc = backend.statics().cells.len();
        let ns = backend.statics().node_cell.len();
        let mut run = CoupledRun {
            modal: ModalSchedule::empty(backend.packed()),
            backend,
            rebuild_every: rebuild_every.max(1),
            skin,
            lists: CoupleLists::empty(nc, nm, ns),
            spd_at_rebuild: vec![],
            rebuilds: 0,
        };
        run.rebuild()?;
        run.backend.init_forces()?;
        Ok(run)
    }

    fn rebuild(&mut self) -> anyhow::Result<()> {
        let states = self.backend.modal_states()?;
        let nodes = self.backend.spd().read_nodes()?;
        let pos: Vec<[f32; 2]> = nodes
            .iter()
            .map(|s| [s.pos_hi[0] + s.pos_lo[0], s.pos_hi[1] + s.pos_lo[1]])
            .collect();
        let cs = self.backend.statics().clone();
        let packed = self.backend.packed();
        // The modal side (centres, surface nodes of bodies with partners or listed cells), then
        // every SPD node of a coupled cell within skin/2 of where it was at the last build: no
        // pair closer than its reach + skin was missed.
        let mb_cells = &self.lists.mb_cells;
        let listed = |b: usize| mb_cells[b * super::MAX_CELLS] != NONE;
        let modal = self
            .modal
            .next(packed, &states, (self.skin, self.rebuild_every), listed)?;
        if !self.spd_at_rebuild.is_empty() {
            let coupled = cs.cells.iter().filter(|c| c.coupled != 0);
            let nodes = coupled.flat_map(|c| c.first as usize..(c.first + c.count) as usize);
            check_moved(
                "SPD node",
                &pos,
                &self.spd_at_rebuild,
                nodes,
                self.skin,
                self.rebuild_every,
            )?;
        }
        let modal_circles = body_circles(packed, &modal.centres);
        let mut lists = couple_lists(&cell_circles(&cs.cells, &pos), &modal_circles, self.skin)?;
        let at = BuildPositions {
            spd: &pos,
            centres: &modal.centres,
            mnodes: &modal.surface,
        };
        let statics = Statics {
            cells: &cs.cells,
            node_cell: &cs.node_cell,
            directions: cs.params.directions,
        };
        couple_candidates(&statics, packed, &mut lists, &at, self.skin);
        let changed = modal.lists != self.modal.lists || lists != self.lists;
        if self.rebuilds == 0 || changed {
            let (m, s, k) = self.backend.slots()?;
            let packed = self.backend.packed();
            let remapped = (
                remap_slots(packed, &m, &self.modal.lists.node_cand, &modal.lists.node_cand),
                remap_spd_slots(&s, &self.lists, &lists),
                remap_mnode_slots(packed, &k, &self.lists, &lists),
            );
            self.backend.set_lists(&modal.lists, &lists, Some(remapped))?;
        }
        self.modal = modal;
        self.lists = lists;
        self.spd_at_rebuild = pos;
        self.rebuilds += 1;
        Ok(())
    }

    /// Runs `n` coupled steps, rebuilding the lists every `rebuild_every` steps.
    pub fn run(&mut self, n: u64) -> anyhow::Result<()> {
        let mut left = n;
        while left > 0 {
            let done = self.backend.steps_done();
            let since = done % self.rebuild_every as u64;
            if since == 0 && done > 0 {
                self.rebuild()?;
            }
            let batch = (self.rebuild_every as u64 - since).min(left);
            self.backend.step(batch as u32)?;
            left -= batch;
        }
        Ok(())
    }

    pub fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        self.backend.modal_states()
    }

    pub fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        self.backend.modal_wall_forces()
    }

    /// The SPD side's node states (a read-back on the GPU).
    pub fn read_nodes(&mut self) -> anyhow::Result<Vec<NodeState>> {
        self.backend.spd().read_nodes()
    }

    /// The SPD side's contacts.
    pub fn read_contacts(&mut self) -> anyhow::Result<crate::backend::ContactSnapshot> {
        self.backend.spd().read_contacts()
    }

    /// The lists of the last build (cell ↔ modal body, and the candidates over primitives).
    pub fn lists(&self) -> &CoupleLists {
        &self.lists
    }
}
