//! The interface both backends implement, so drivers, tests and the command line never care
//! which one runs.

use crate::model::*;

/// A stepping backend holding the simulation state of one `Scene`.
pub trait Backend {
    /// Human-readable name ("cpu", or "gpu: <adapter>").
    fn name(&self) -> String;
    /// Advances `steps` time steps.
    fn step(&mut self, steps: u32) -> anyhow::Result<()>;
    /// Steps done since the start.
    fn steps_done(&self) -> u64;
    /// Current node states (a read-back on the GPU).
    fn read_nodes(&mut self) -> anyhow::Result<Vec<NodeState>>;
    /// Current per-body area and pressure.
    fn read_bodies(&mut self) -> anyhow::Result<Vec<BodyState>>;
    /// Current neighbour list and contact slots: (CSR start, entries, slots).
    fn read_contacts(&mut self) -> anyhow::Result<ContactSnapshot>;
    /// Bytes of device (GPU) memory held by the simulation; 0 for the CPU backend.
    fn device_bytes(&self) -> u64 {
        0
    }
    /// Current state of every cohesive link (forces, break step and mode).
    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>>;
    /// Everything needed to continue the run bit for bit (for checkpoints).
    fn export_state(&mut self) -> anyhow::Result<SavedState>;
    /// Restores a state from `export_state` of a backend built from the same scene (either kind).
    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()>;
    /// Replaces the boundary conditions (the `bc_*` fields) of every node, e.g. at a new stage.
    fn set_boundary_conditions(&mut self, nodes: &[Node]) -> anyhow::Result<()>;
    /// Replaces the scene's gravity (`SimParams::gravity`, m·g on free nodes in `node_forces`;
    /// coupled runs change it by stage, SPD-only runs apply gravity as boundary forces instead).
    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()>;
}

/// A backend's complete dynamic state: continuing from it gives, bit for bit, what continuing the
/// original run would have given on the same backend. Plain arrays of `Pod` records, so a
/// checkpoint writer can store it with `bytemuck::cast_slice`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedState {
    pub steps: u64,
    /// Node states at the current step (positions, velocities, forces, plastic state).
    pub nodes: Vec<NodeState>,
    /// Boundary conditions in force (they change between stages).
    pub node_bc: Vec<Node>,
    /// Neighbour list (CSR) and the friction history of each entry.
    pub start: Vec<u32>,
    pub entries: Vec<Entry>,
    pub hist: Vec<[f32; 2]>,
    /// Positions at the last list build and the largest displacement since (bits of an f32).
    pub x_ref: Vec<[f32; 2]>,
    pub max_disp_bits: u32,
    /// Cohesive links: tangential history, break step and mode.
    pub links: Vec<LinkState>,
    /// The state of a kind beyond the SPD arrays (modal bodies, coupling slots and lists;
    /// `engine::KindBytes`); empty for SPD cells alone.
    pub kind: Vec<u8>,
}

/// Each entry's slot from a pool (`ContactSlot::default()` for an entry without one).
pub fn slots_per_entry(slot_index: &[u32], pool: &[ContactSlot]) -> Vec<ContactSlot> {
    slot_index
        .iter()
        .map(|&i| {
            if i != NO_SLOT {
                pool[i as usize]
            } else {
                ContactSlot::default()
            }
        })
        .collect()
}

/// Slot indices and a pool that carry the friction histories `hist` (one per entry): a slot for
/// each entry whose history is not all zero bits, `NO_SLOT` for the others (the steppers read
/// no slot as a zero history). Inverse of the `hist` of `slots_per_entry`.
pub fn slots_from_histories(hist: &[[f32; 2]]) -> (Vec<u32>, Vec<ContactSlot>) {
    let mut pool = Vec::new();
    let index = hist
        .iter()
        .map(|h| {
            if h[0].to_bits() == 0 && h[1].to_bits() == 0 {
                NO_SLOT
            } else {
                pool.push(ContactSlot {
                    hist: *h,
                    ..Default::default()
                });
                (pool.len() - 1) as u32
            }
        })
        .collect();
    (index, pool)
}

/// Contact data read back from a backend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactSnapshot {
    pub start: Vec<u32>,
    pub entries: Vec<Entry>,
    pub slots: Vec<ContactSlot>,
}

impl ContactSnapshot {
    /// Number of active contacts (node–segment plus node–node).
    pub fn active_count(&self) -> usize {
        self.slots
            .iter()
            .map(|s| (s.flags & SLOT_SEG != 0) as usize + (s.flags & SLOT_CAP != 0) as usize)
            .sum()
    }
}

/// Which backend to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    Gpu,
    Cpu,
}
