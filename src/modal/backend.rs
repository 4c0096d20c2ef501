//! What the modal driver (`stepper::ModalRun`) needs from a backend (`ModalBackend`) and the
//! read-write arrays a backend exports for checkpoints (`Dynamic`): below `cpu`, `gpu` and
//! `stepper`, so the backends do not import the driver that constructs them.

use super::layout::*;
use super::packed::Packed;

/// Dynamic arrays (the GPU's read-write buffers).
#[derive(Clone, Debug)]
pub struct Dynamic {
    pub state: Vec<ModalState>,
    pub nb: Vec<u32>,
    pub nb_back: Vec<u32>,
    pub slots: Vec<ModalSlot>,
    pub clock: u32,
    pub wall_force: Vec<[f32; 2]>,
}

/// What a backend offers to the shared loop.
pub trait ModalBackend {
    /// Runs `n` steps with the current neighbour lists.
    fn step(&mut self, n: u32) -> anyhow::Result<()>;
    fn states(&mut self) -> anyhow::Result<Vec<ModalState>>;
    /// Total force on each wall at the last step (sum over nodes of −force, node order).
    fn wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>>;
    fn slots(&mut self) -> anyhow::Result<Vec<ModalSlot>>;
    /// Installs neighbour lists (and, when given, remapped contact slots).
    fn set_neighbours(&mut self, nb: &[u32], nb_back: &[u32], slots: Option<&[ModalSlot]>) -> anyhow::Result<()>;
    fn steps_done(&self) -> u64;
    fn packed(&self) -> &Packed;
    /// Replaces the walls (a stage changes a wall's velocity; `engine::modal`).
    fn set_walls(&mut self, walls: &[ModalWallRec]) -> anyhow::Result<()>;
    /// Gravity on the bodies' rigid part from now on.
    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()>;
    /// The read-write arrays (checkpoints).
    fn dynamic(&mut self) -> anyhow::Result<Dynamic>;
    /// Restores `dynamic()` of a backend of the same scene, with the step count.
    fn set_dynamic(&mut self, dy: &Dynamic, steps: u64) -> anyhow::Result<()>;
}
