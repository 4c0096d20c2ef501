//! What the coupled driver (`stepper::CoupledRun`) needs from a coupled backend, and the static
//! data both backends share: below `cpu`, `gpu` and `stepper`, so none of them imports another
//! for these (the driver constructs the backends, the backends do not know the driver).

use super::broad_phase::CoupleLists;
use super::layout::{CellRec, CoupleParams, SegSlot};
use crate::backend::Backend;
use crate::broad_phase::pool::SlotPool;
use crate::modal::broad_phase::ModalLists;
use crate::modal::cpu::Dynamic;
use crate::modal::layout::{ModalSlot, ModalState, ModalWallRec};
use crate::modal::stepper::Packed;

/// Static data of the coupling passes (both backends).
#[derive(Clone, Debug)]
pub struct CoupleStatic {
    pub params: CoupleParams,
    pub cells: Vec<CellRec>,
    /// SPD body of each SPD node.
    pub node_cell: Vec<u32>,
}

/// The slot pools: modal, SPD-node coupling and modal-node coupling slots (for the history
/// remap and checkpoints).
pub type CoupledSlots = (SlotPool<ModalSlot>, SlotPool<ModalSlot>, SlotPool<SegSlot>);

/// What every coupled backend keeps on the host: the packed modal scene, the coupling statics and
/// the SPD backend. [`CoupledBackend`]'s provided methods read and change it once for both
/// backends; a backend mirrors a change on its device in `upload_couple_params` /
/// `upload_modal_walls`. (`spd` last: `CoupledHost<CpuBackend>` is seen as
/// `CoupledHost<dyn Backend>`.)
pub struct CoupledHost<S: ?Sized> {
    pub sc: Packed,
    pub cs: CoupleStatic,
    pub spd: S,
}

/// What a coupled backend offers to the shared driver.
pub trait CoupledBackend {
    /// The host part (the same for both backends).
    fn host(&self) -> &CoupledHost<dyn Backend>;
    fn host_mut(&mut self) -> &mut CoupledHost<dyn Backend>;
    /// Writes `host().cs.params` to the device after `set_gravity` (nothing on the CPU).
    fn upload_couple_params(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// Writes `host().sc.walls` to the device after `set_modal_walls` (nothing on the CPU).
    fn upload_modal_walls(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// The SPD side (node states, contacts, boundary conditions).
    fn spd(&mut self) -> &mut dyn Backend {
        &mut self.host_mut().spd
    }
    fn packed(&self) -> &Packed {
        &self.host().sc
    }
    fn statics(&self) -> &CoupleStatic {
        &self.host().cs
    }
    /// Coupled steps done (the SPD side's count).
    fn steps_done(&self) -> u64 {
        self.host().spd.steps_done()
    }
    /// Gravity on SPD nodes and on the modal bodies' rigid part from now on.
    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()> {
        let h = self.host_mut();
        h.spd.set_gravity(g)?;
        h.cs.params.gravity = g;
        self.upload_couple_params()
    }
    /// The `[[modal.walls]]` from now on (a stage's velocity, p0 rebased: `engine::modal::walls_under`).
    fn set_modal_walls(&mut self, walls: &[ModalWallRec]) -> anyhow::Result<()> {
        self.host_mut().sc.set_walls(walls)?;
        self.upload_modal_walls()
    }
    /// The dt = 0 pass: f_0 and every slot at state 0 (after the first lists).
    fn init_forces(&mut self) -> anyhow::Result<()>;
    /// `n` coupled steps with the current lists.
    fn step(&mut self, n: u32) -> anyhow::Result<()>;
    fn modal_states(&mut self) -> anyhow::Result<Vec<ModalState>>;
    /// Force on each modal wall (from the slots of the state before the last step).
    fn modal_wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>>;
    fn slots(&mut self) -> anyhow::Result<CoupledSlots>;
    /// The modal read-write arrays (checkpoints).
    fn modal_dynamic(&mut self) -> anyhow::Result<Dynamic>;
    /// Restores `modal_dynamic` of a backend of the same scene.
    fn set_modal_dynamic(&mut self, dy: &Dynamic) -> anyhow::Result<()>;
    /// Installs the lists (and, when given, remapped slots; the modal pool must be laid out for
    /// `modal.node_cand`, so the driver gives them whenever the lists change).
    fn set_lists(&mut self, modal: &ModalLists, lists: &CoupleLists, slots: Option<CoupledSlots>)
        -> anyhow::Result<()>;
}
