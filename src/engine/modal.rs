//! Modal bodies alone as a kind (`modal::stepper::ModalRun` on the CPU twin or the GPU). The
//! driver's controls become: gravity on the bodies' rigid part (`ModalParams::gravity`), and a
//! stage's wall velocity on a `[[modal.walls]]` wall (the others keep the file's velocity). A wall
//! is at p0 + v t (t = clock · dt, modal_lib.wgsl `wall_point`); when its velocity changes at
//! step n, p0 is moved so that the wall does not jump: p0' = p0 + (v − v') t_n.

use super::{modal_measures, Controls, Kind, KindBytes, KindReader, Sample};
use crate::backend::SavedState;
use crate::broad_phase::pool::SlotPool;
use crate::broad_phase::primitives::check_sections;
use crate::modal::broad_phase::{ModalLists, ModalSchedule};
use crate::modal::contact::wall_point;
use crate::modal::cpu::Dynamic;
use crate::modal::layout::{ModalSlot, ModalState, ModalWallRec};
use crate::modal::stepper::{ModalBackend, ModalRun, Packed};
use crate::run::measure::Measures;
use crate::scenario::Built;

/// Tag of a modal-only checkpoint (`SavedState::kind`, first word).
/// "MODAL2": the surface nodes' candidates and their positions at the last build were added.
const TAG: u64 = 0x4d4f_4441_4c32;
/// The layout before them ("MODAL1"), named in the refusal.
const TAG_V1: u64 = 0x4d4f_4441_4c31;

pub struct ModalKind<B: ModalBackend> {
    pub run: ModalRun<B>,
    /// The walls as the file gives them (velocities outside of stages).
    base_walls: Vec<ModalWallRec>,
    /// Whether every mode of each body keeps the centre of mass (gravity is exact then).
    keeps_centre: Vec<bool>,
    name: String,
}

impl<B: ModalBackend> ModalKind<B> {
    pub fn new(run: ModalRun<B>, keeps_centre: Vec<bool>, name: String) -> ModalKind<B> {
        ModalKind {
            base_walls: run.backend.packed().walls.clone(),
            run,
            keeps_centre,
            name,
        }
    }

    fn time(&self, clock: u32) -> f32 {
        wall_time(self.run.backend.packed(), clock)
    }
}

/// The time t = clock · dt at which modal walls stand at p0 + v t (`modal_clock` counts the steps
/// of a modal-only or coupled run; f32 as modal_lib.wgsl `wall_point` takes it).
pub fn wall_time(p: &Packed, clock: u32) -> f32 {
    clock as f32 * p.params.dt
}

/// Modal walls under `c` at time `t`: the base velocities, the stage's wall at its velocity,
/// each moved wall rebased so that it is continuous at t.
pub fn walls_under(current: &[ModalWallRec], base: &[ModalWallRec], c: &Controls, t: f32) -> Vec<ModalWallRec> {
    current
        .iter()
        .zip(base)
        .enumerate()
        .map(|(i, (w, b))| {
            let v = match c.wall {
                Some((id, v)) if id as usize == i => [v[0] as f32, v[1] as f32],
                _ => b.velocity,
            };
            if v == w.velocity {
                return *w;
            }
            let p = wall_point(w, t);
            ModalWallRec {
                p0: [p[0] - v[0] * t, p[1] - v[1] * t],
                velocity: v,
                ..*w
            }
        })
        .collect()
}

/// The driver's measures of modal bodies and walls: each wall of `built.geometry.walls` (ids are
/// modal wall indices) at its position with the force on it, the bodies' rigid kinetic energy.
pub fn modal_sample(built: &Built, p: &Packed, states: &[ModalState], wall_forces: &[[f32; 2]], t: f32) -> Measures {
    let mut m = Measures {
        height: f64::NAN,
        width: f64::NAN,
        stress_xx: f64::NAN,
        stress_yy: f64::NAN,
        void_ratio: f64::NAN,
        ..Default::default()
    };
    m.walls = built
        .geometry
        .walls
        .iter()
        .map(|(_, id)| wall_measure(&p.walls[*id as usize], wall_forces[*id as usize], t))
        .collect();
    modal_measures(p, states, &mut m);
    m
}

/// A modal wall as the driver measures it: its point p0 + v t and the force `f` on it.
pub fn wall_measure(w: &ModalWallRec, f: [f32; 2], t: f32) -> ([f64; 3], [f64; 3]) {
    let x = wall_point(w, t);
    ([x[0] as f64, x[1] as f64, 0.0], [f[0] as f64, f[1] as f64, 0.0])
}

/// Gravity `g` on bodies whose modes keep the centre of mass only.
pub fn check_gravity(keeps_centre: &[bool], g: [f32; 2]) -> anyhow::Result<()> {
    if g != [0.0, 0.0] {
        if let Some(b) = keeps_centre.iter().position(|k| !k) {
            anyhow::bail!(
                "gravity on modal body {b}: one of its modes moves the centre of mass (∫ρ Φ ≠ 0), and gravity \
                 acts on the rigid part only (exact for modes such as compaction); keep gravity [0, 0] \
                 (src/engine/modal.rs)"
            );
        }
    }
    Ok(())
}

/// The modal arrays of a checkpoint.
pub fn put_dynamic(out: &mut KindBytes, dy: &Dynamic) {
    out.array(&dy.state)
        .array(&dy.node_cand)
        .array(&dy.body_rx)
        .array(&dy.pool.start)
        .array(&dy.pool.slots)
        .array(&dy.wall_force)
        .u64(dy.clock as u64);
}

/// Reads a slot pool of `owners` owners (offsets, then slots; `what` names it in errors).
pub fn get_pool<S: bytemuck::Pod>(r: &mut KindReader, owners: usize, what: &str) -> anyhow::Result<SlotPool<S>> {
    let start: Vec<u32> = r.exact(owners + 1, &format!("{what} slot offsets (owners + 1)"))?;
    anyhow::ensure!(
        start[0] == 0 && start.windows(2).all(|w| w[0] <= w[1]),
        "the checkpoint's {what} slot offsets are not increasing from 0"
    );
    let slots = r.exact(start[owners] as usize, &format!("{what} contact slots"))?;
    Ok(SlotPool { start, slots })
}

/// Reads `put_dynamic` for a packed scene `p` (the candidate lists checked against the pool).
pub fn get_dynamic(r: &mut KindReader, p: &Packed) -> anyhow::Result<Dynamic> {
    let state = r.exact(p.bodies.len(), "modal bodies")?;
    let node_cand: Vec<u32> = r.array()?;
    let body_rx: Vec<u32> = r.array()?;
    let pool: SlotPool<ModalSlot> = get_pool(r, p.nodes.len(), "modal")?;
    let (n_nodes, n_bodies, walls) = (p.nodes.len(), p.bodies.len(), p.params.n_walls);
    let fits = check_sections(&node_cand, &[(n_nodes, n_bodies)])
        .and_then(|_| check_sections(&body_rx, &[(n_bodies, pool.slots.len())]))
        .and_then(|_| {
            let slots = |k: usize| pool.start[k + 1] - pool.start[k];
            let same = (0..n_nodes).all(|k| node_cand[k + 1] - node_cand[k] + walls == slots(k));
            same.then_some(()).ok_or("slots per node")
        });
    fits.map_err(|e| anyhow::anyhow!("the checkpoint's modal candidate lists do not fit the scene ({e})"))?;
    Ok(Dynamic {
        state,
        node_cand,
        body_rx,
        pool,
        wall_force: r.exact(p.walls.len(), "modal walls")?,
        clock: r.u64()? as u32,
    })
}

impl<B: ModalBackend> Kind for ModalKind<B> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.run.run(steps as u64)
    }
    fn steps_done(&self) -> u64 {
        self.run.backend.steps_done()
    }
    fn apply(&mut self, c: &Controls) -> anyhow::Result<()> {
        anyhow::ensure!(
            c.forces.is_empty() && c.stage_force.is_none(),
            "force stages act on SPD nodes; a modal-only scene has none"
        );
        let g = [c.gravity[0] as f32, c.gravity[1] as f32];
        if g != self.run.backend.packed().params.gravity {
            check_gravity(&self.keeps_centre, g)?;
            self.run.backend.set_gravity(g)?;
        }
        // The clock is the step count in a modal-only run.
        let t = self.time(self.run.backend.steps_done() as u32);
        let current = &self.run.backend.packed().walls;
        let walls = walls_under(current, &self.base_walls, c, t);
        if &walls != current {
            self.run.backend.set_walls(&walls)?;
        }
        Ok(())
    }
    fn sample(&mut self, built: &Built) -> anyhow::Result<Sample> {
        let states = self.run.backend.states()?;
        let wf = self.run.backend.wall_forces()?;
        let t = self.time(self.run.backend.steps_done() as u32);
        let measures = modal_sample(built, self.run.backend.packed(), &states, &wf, t);
        Ok(Sample {
            measures,
            ..Default::default()
        })
    }
    fn describe_point(&self, i: u32) -> String {
        format!("modal body {i}")
    }
    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        let dy = self.run.backend.dynamic()?;
        let p = self.run.backend.packed();
        let mut out = KindBytes::tagged(TAG);
        put_dynamic(&mut out, &dy);
        out.array(&p.walls)
            .array(&p.params.gravity)
            .array(&self.run.modal.lists.nb)
            .array(&self.run.modal.centres)
            .array(&self.run.modal.surface)
            .u64(self.run.rebuilds as u64);
        Ok(SavedState {
            steps: self.run.backend.steps_done(),
            kind: out.0,
            ..Default::default()
        })
    }
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        anyhow::ensure!(
            KindReader::tagged(&saved.kind, TAG_V1, "").is_err(),
            "the checkpoint is of a modal-only run written by an older softdem (layout MODAL1, \
             without the candidate lists): run the scenario again from the start"
        );
        let mut r = KindReader::tagged(&saved.kind, TAG, "a modal-only run")?;
        let p = self.run.backend.packed().clone();
        let dy = get_dynamic(&mut r, &p)?;
        let walls: Vec<ModalWallRec> = r.exact(p.walls.len(), "modal walls")?;
        let g: Vec<f32> = r.exact(2, "gravity components")?;
        let nb: Vec<u32> = r.exact(self.run.modal.lists.nb.len(), "modal neighbour entries")?;
        let centres: Vec<[f32; 2]> = r.array()?;
        let surface: Vec<[f32; 2]> = r.array()?;
        let rebuilds = r.u64()? as u32;
        self.run.backend.set_dynamic(&dy, saved.steps)?;
        self.run.backend.set_walls(&walls)?;
        self.run.backend.set_gravity([g[0], g[1]])?;
        let lists = ModalLists {
            nb,
            node_cand: dy.node_cand.clone(),
            body_rx: dy.body_rx.clone(),
        };
        self.run.modal = ModalSchedule {
            lists,
            centres,
            surface,
        };
        self.run.rebuilds = rebuilds;
        Ok(())
    }
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        self.run.backend.states()
    }
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        self.run.backend.wall_forces()
    }
    fn modal_outlines(&mut self) -> anyhow::Result<Vec<crate::output::modal::Outline>> {
        let states = self.run.backend.states()?;
        Ok(crate::output::modal::outlines(self.run.backend.packed(), &states))
    }
}
