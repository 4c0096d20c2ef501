//! What the modal driver (`stepper::ModalRun`) needs from a backend (`ModalBackend`) and the
//! read-write arrays a backend exports for checkpoints (`Dynamic`): below `cpu`, `gpu` and
//! `stepper`, so the backends do not import the driver that constructs them.

use super::layout::*;
use super::packed::Packed;
use crate::broad_phase::pool::SlotPool;
use crate::broad_phase::primitives::pack_sections;

/// Dynamic arrays (the GPU's read-write buffers).
#[derive(Clone, Debug)]
pub struct Dynamic {
    pub state: Vec<ModalState>,
    /// Per surface node k, its candidate neighbour bodies (those of its body's list within
    /// reach at the last build, `stepper::modal_candidates`): `node_cand[node_cand[k]..
    /// node_cand[k + 1]]`, a CSR list in one array (`crate::broad_phase::primitives`).
    pub node_cand: Vec<u32>,
    /// Per body b, the pool slots of other bodies' nodes that point to it, in slot order:
    /// `body_rx[body_rx[b]..body_rx[b + 1]]` (the reactions its generalized force gathers).
    pub body_rx: Vec<u32>,
    /// The contact slots, one pool: per surface node its walls, then its candidate neighbours
    /// (`crate::broad_phase::pool`).
    pub pool: SlotPool<ModalSlot>,
    pub clock: u32,
    pub wall_force: Vec<[f32; 2]>,
}

impl Dynamic {
    /// The arrays at the start, before any list (modal-only and coupled, both backends): the
    /// states, empty candidate lists, the walls' slots only, clock 0, no wall force yet.
    pub fn new(sc: &Packed, state: Vec<ModalState>) -> Dynamic {
        Dynamic {
            state,
            node_cand: pack_sections(&[&vec![vec![]; sc.nodes.len()]]),
            body_rx: pack_sections(&[&vec![vec![]; sc.bodies.len()]]),
            pool: wall_pool(sc),
            clock: 0,
            wall_force: vec![[0.0; 2]; sc.walls.len()],
        }
    }
}

/// The pool before any list: every surface node's wall slots.
pub fn wall_pool(sc: &Packed) -> SlotPool<ModalSlot> {
    SlotPool::with_counts(sc.nodes.iter().map(|_| sc.walls.len()))
}

/// What a backend offers to the shared loop.
pub trait ModalBackend {
    /// Runs `n` steps with the current neighbour lists.
    fn step(&mut self, n: u32) -> anyhow::Result<()>;
    fn states(&mut self) -> anyhow::Result<Vec<ModalState>>;
    /// Total force on each wall at the last step (sum over nodes of −force, node order).
    fn wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>>;
    fn pool(&mut self) -> anyhow::Result<SlotPool<ModalSlot>>;
    /// Installs candidate lists (`Dynamic::node_cand`, `body_rx`) and the slot pool laid out for
    /// them (histories remapped).
    fn set_neighbours(&mut self, node_cand: &[u32], body_rx: &[u32], pool: &SlotPool<ModalSlot>) -> anyhow::Result<()>;
    fn steps_done(&self) -> u64;
    /// The packed scene's host copy (both backends keep one; `set_walls` and `set_gravity`
    /// change it, then the backend mirrors it on its device).
    fn packed(&self) -> &Packed;
    fn packed_mut(&mut self) -> &mut Packed;
    /// Writes `packed().walls` to the device after `set_walls` (nothing on the CPU).
    fn upload_walls(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// Writes `packed().params` to the device after `set_gravity` (nothing on the CPU).
    fn upload_params(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// Replaces the walls (a stage changes a wall's velocity; `engine::modal`).
    fn set_walls(&mut self, walls: &[ModalWallRec]) -> anyhow::Result<()> {
        self.packed_mut().set_walls(walls)?;
        self.upload_walls()
    }
    /// Gravity on the bodies' rigid part from now on.
    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()> {
        self.packed_mut().params.gravity = g;
        self.upload_params()
    }
    /// The read-write arrays (checkpoints).
    fn dynamic(&mut self) -> anyhow::Result<Dynamic>;
    /// Restores `dynamic()` of a backend of the same scene, with the step count.
    fn set_dynamic(&mut self, dy: &Dynamic, steps: u64) -> anyhow::Result<()>;
}
