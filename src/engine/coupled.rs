//! SPD cells and modal bodies coupled, as a kind of its own (`coupled::stepper::CoupledRun` on the
//! CPU twin or the GPU). The driver's forces and wall velocities act on the SPD side as for SPD
//! cells alone (`spd::SpdControls`); gravity is the steppers' own (`SimParams::gravity` on SPD
//! nodes, `CoupleParams::gravity` on the modal bodies' rigid part), replaced when a stage changes
//! it. A stage's wall is an SPD wall (its nodes move) or a `[[modal.walls]]` wall (id tagged by
//! `scenario::coupled::MODAL_WALL`), which moves as in a modal-only run (`engine::modal`: p0 + v t,
//! p0 rebased when v changes; the others keep the file's velocity). The measures are the SPD
//! ones plus the modal walls' (point, force); the modal bodies are observed through
//! `modal_states`.

use super::modal::{get_dynamic, get_pool, put_dynamic, wall_measure, wall_time, walls_under};
use super::spd::{SpdControls, SpdKind};
use super::{Controls, Kind, KindBytes, KindReader, Sample};
use crate::backend::SavedState;
use crate::broad_phase::pool::SlotPool;
use crate::coupled::broad_phase::{check_candidates, CoupleLists};
use crate::coupled::layout::SegSlot;
use crate::coupled::stepper::{CoupledBackend, CoupledRun};
use crate::modal::broad_phase::{ModalLists, ModalSchedule};
use crate::modal::layout::{ModalSlot, ModalState, ModalWallRec};
use crate::model::LinkState;
use crate::output::modal::{Outline, OutlineSource};
use crate::scenario::coupled::modal_wall;
use crate::scenario::Built;
use std::cell::RefCell;
use std::rc::Rc;

/// Tag of a coupled checkpoint (`SavedState::kind`, first word).
/// "COUPL2": the candidates over primitives and the surface nodes at the last build were added.
const TAG: u64 = 0x434f_5550_4c32;
/// The layout before them ("COUPL1"), named in the refusal.
const TAG_V1: u64 = 0x434f_5550_4c31;

/// The run is shared with the snapshot and frame writers' outline sources (`outline_source`).
pub struct CoupledKind<B: CoupledBackend> {
    pub run: Rc<RefCell<CoupledRun<B>>>,
    pub bc: SpdControls,
    name: String,
    /// Gravity in the steppers now.
    gravity: [f32; 2],
    /// Whether every mode of each modal body keeps the centre of mass (gravity is exact then).
    keeps_centre: Vec<bool>,
    /// The `[[modal.walls]]` as the file gives them (velocities outside of stages).
    base_walls: Vec<ModalWallRec>,
}

impl<B: CoupledBackend + 'static> CoupledKind<B> {
    /// `gravity`: the scene's, already in the steppers.
    pub fn new(
        run: CoupledRun<B>,
        bc: SpdControls,
        name: String,
        gravity: [f32; 2],
        keeps_centre: Vec<bool>,
    ) -> CoupledKind<B> {
        CoupledKind {
            base_walls: run.backend.packed().walls.clone(),
            run: Rc::new(RefCell::new(run)),
            bc,
            name,
            gravity,
            keeps_centre,
        }
    }

    /// The modal bodies' current outlines (eq 1 at the run's modal states), for snapshots and
    /// frames.
    pub fn outline_source(&self) -> OutlineSource {
        let run = self.run.clone();
        Box::new(move || {
            let mut r = run.borrow_mut();
            let states = r.modal_states()?;
            Ok(crate::output::modal::outlines(r.backend.packed(), &states))
        })
    }
}

impl<B: CoupledBackend + 'static> Kind for CoupledKind<B> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.run.borrow_mut().run(steps as u64)
    }
    fn steps_done(&self) -> u64 {
        self.run.borrow().backend.steps_done()
    }
    fn apply(&mut self, c: &Controls) -> anyhow::Result<()> {
        let g = [c.gravity[0] as f32, c.gravity[1] as f32];
        if g != self.gravity {
            super::modal::check_gravity(&self.keeps_centre, g)?;
            self.run.borrow_mut().backend.set_gravity(g)?;
            self.gravity = g;
        }
        // The stage's wall: a modal wall, or an SPD wall (the SPD controls').
        let modal = c.wall.and_then(|(id, v)| modal_wall(id).map(|i| (i as u32, v)));
        // Gravity is the steppers' here, not a boundary force.
        let spd = Controls {
            gravity: [0.0; 3],
            wall: if modal.is_some() { None } else { c.wall },
            ..c.clone()
        };
        let bc = self.bc.boundary_conditions(&spd);
        let mut run = self.run.borrow_mut();
        run.backend.spd().set_boundary_conditions(&bc)?;
        // The modal walls as in a modal-only run (the clock is the step count here too).
        let t = wall_time(run.backend.packed(), run.backend.steps_done() as u32);
        let current = &run.backend.packed().walls;
        let only = Controls {
            wall: modal,
            ..Default::default()
        };
        let walls = walls_under(current, &self.base_walls, &only, t);
        if &walls != current {
            run.backend.set_modal_walls(&walls)?;
        }
        Ok(())
    }
    fn sample(&mut self, built: &Built) -> anyhow::Result<Sample> {
        let mut run = self.run.borrow_mut();
        let mut s = SpdKind::sample_spd(run.backend.spd(), built)?;
        if !self.base_walls.is_empty() {
            // The modal walls' places in the measures (NaN from `measure::measure`).
            let wf = run.backend.modal_wall_forces()?;
            let p = run.backend.packed();
            let t = wall_time(p, run.backend.steps_done() as u32);
            for ((_, id), m) in built.geometry.walls.iter().zip(&mut s.measures.walls) {
                if let Some(i) = modal_wall(*id) {
                    *m = wall_measure(&p.walls[i], wf[i], t);
                }
            }
        }
        Ok(s)
    }
    fn describe_point(&self, i: u32) -> String {
        self.bc.describe_node(i)
    }
    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        let mut run = self.run.borrow_mut();
        let run = &mut *run;
        let spd = run.backend.spd().export_state()?;
        let dy = run.backend.modal_dynamic()?;
        let (_, s, k) = run.backend.slots()?;
        let mut out = KindBytes::tagged(TAG);
        put_dynamic(&mut out, &dy);
        out.array(&s.start)
            .array(&s.slots)
            .array(&k.start)
            .array(&k.slots)
            .array(&run.lists.cell_mb)
            .array(&run.lists.mb_cells)
            .array(&run.lists.cand)
            .array(&run.modal.lists.nb)
            .array(&run.modal.centres)
            .array(&run.spd_at_rebuild)
            .array(&run.modal.surface)
            .u64(run.rebuilds as u64);
        // The modal walls as stages left them, when the scene has any (so that checkpoints of
        // scenes without them keep their layout).
        let walls = &run.backend.packed().walls;
        if !walls.is_empty() {
            out.array(walls);
        }
        Ok(SavedState { kind: out.0, ..spd })
    }
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        let mut run = self.run.borrow_mut();
        let run = &mut *run;
        anyhow::ensure!(
            KindReader::tagged(&saved.kind, TAG_V1, "").is_err(),
            "the checkpoint is of a coupled SPD + modal run written by an older softdem (layout \
             COUPL1, without the candidate lists): run the scenario again from the start"
        );
        let mut r = KindReader::tagged(&saved.kind, TAG, "a coupled SPD + modal run")?;
        anyhow::ensure!(
            saved.nodes.len() == self.bc.n_nodes(),
            "the checkpoint has {} SPD nodes, the scenario {}",
            saved.nodes.len(),
            self.bc.n_nodes()
        );
        let p = run.backend.packed().clone();
        let dy = get_dynamic(&mut r, &p)?;
        let s: SlotPool<ModalSlot> = get_pool(&mut r, run.backend.statics().node_cell.len(), "SPD-node coupling")?;
        let k: SlotPool<SegSlot> = get_pool(&mut r, p.nodes.len(), "modal-node coupling")?;
        let lists = CoupleLists {
            cell_mb: r.exact(run.lists.cell_mb.len(), "cell coupling entries")?,
            mb_cells: r.exact(run.lists.mb_cells.len(), "modal body coupling entries")?,
            cand: r.array()?,
        };
        check_candidates(
            &lists.cand,
            &run.backend.statics().params,
            p.bodies.len(),
            &s.start,
            k.slots.len(),
        )?;
        let nb: Vec<u32> = r.exact(run.modal.lists.nb.len(), "modal neighbour entries")?;
        let centres: Vec<[f32; 2]> = r.array()?;
        let spd_at_rebuild: Vec<[f32; 2]> = r.array()?;
        let surface: Vec<[f32; 2]> = r.array()?;
        let rebuilds = r.u64()? as u32;
        let walls: Option<Vec<ModalWallRec>> = match p.walls.len() {
            0 => None,
            n => Some(r.exact(n, "modal walls")?),
        };
        let spd = SavedState {
            kind: vec![],
            ..saved.clone()
        };
        run.backend.spd().import_state(&spd)?;
        run.backend.set_modal_dynamic(&dy)?;
        if let Some(w) = &walls {
            run.backend.set_modal_walls(w)?;
        }
        let modal = ModalLists {
            nb,
            node_cand: dy.node_cand.clone(),
            body_rx: dy.body_rx.clone(),
        };
        run.backend.set_lists(&modal, &lists, Some((dy.pool.clone(), s, k)))?;
        run.modal = ModalSchedule {
            lists: modal,
            centres,
            surface,
        };
        run.lists = lists;
        run.spd_at_rebuild = spd_at_rebuild;
        run.rebuilds = rebuilds;
        Ok(())
    }
    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        self.run.borrow_mut().backend.spd().read_links()
    }
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        self.run.borrow_mut().backend.modal_states()
    }
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        self.run.borrow_mut().backend.modal_wall_forces()
    }
    fn modal_outlines(&mut self) -> anyhow::Result<Vec<Outline>> {
        (self.outline_source())()
    }
}
