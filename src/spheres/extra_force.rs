//! The one seam through which other kinds put forces on the spheres of a stepper (bonds between
//! beads, membranes, point loads): a source computes one force and torque per sphere at every
//! force evaluation, before the gather, and the steppers add them in `gather` after the pairs
//! and walls (then damping). Several sources add in a fixed order (attached ones in the order
//! they were attached, then those lent for the step, in the order given). Deterministic: a
//! source writes per sphere in a fixed order (no float atomics); each source is called exactly
//! once per force evaluation (once when attached, then once per step), so it can count
//! evaluations to know the time.
//!
//! Two things a source may carry besides its forces, with one rule each for every source:
//! - **Contact history** (friction springs, e.g. membrane patch contacts): it advances only when
//!   `Evaluation::advance` is set; the force-only evaluation at attachment has it unset (the
//!   stepper keeps its own pair histories likewise).
//! - **Candidate lists** of its own (e.g. grain–patch candidates): `rebuild` is called right
//!   after the stepper rebuilt its sphere list (and once before the first evaluation). Until the
//!   next call no sphere has moved more than skin/2 since, so a list built with the stepper's
//!   skin stays valid; on the GPU the device's check (`kick_drift` flags a due build,
//!   `wall_advance` turns it into the batch's halt; `displacement_check` on the unfused path)
//!   halts the batch and the host calls it (`GpuExtraForces`, *Stepping*).

use super::state::{SphereForce, SphereState};
use crate::gpu::context::GpuContext;

/// What one force evaluation is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// The stepper's Δt.
    pub dt: f32,
    /// Whether contact histories advance (false for the force-only evaluation at attachment).
    pub advance: bool,
}

/// A CPU source.
pub trait ExtraForces: Send + Sync {
    /// Adds this source's force and torque on every sphere to `out` (zeroed by the stepper before
    /// the first source), from the states of this evaluation (positions at the new time,
    /// half-step velocities).
    fn add_forces(&mut self, states: &[SphereState], eval: Evaluation, out: &mut [SphereForce]);
    /// The stepper rebuilt its sphere list (module doc); `skin` is its Verlet skin.
    fn rebuild(&mut self, _states: &[SphereState], _skin: f32) {}
    /// The source itself, to read what it measured (`downcast_ref`).
    fn as_any(&self) -> &dyn std::any::Any;
    /// The source itself, to change its controls between steps (e.g. a membrane's confining
    /// stress); None where a source has none.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// A GPU source. `bind` is called once when attached, with the stepper's sphere buffer and the
/// extra-force buffer (one `SphereForce` per sphere): the source's kernels add to it (`+=`), and
/// the stepper's `gather` reads it and sets it back to zero; `bind_step` then, with the step
/// flags and the walls. `rebuild` follows every list rebuild of the stepper (with the states it
/// read back for it) and `bind`. Before every submission of force evaluations is encoded the
/// stepper calls `prepare_batch` (default: `prepare`, uniform writes that hold for every
/// evaluation of the submission) with the most evaluations the submission records; it records
/// each evaluation's dispatches with `record_at` (its index in the submission, 0, 1, … in
/// order; default: `record`) into the compute pass, before the gather, and
/// `record_after_step` after each step's closing kick; once the submission's flags are read it
/// calls `evaluated` with the evaluations that ran.
///
/// **Stepping.** With sources the stepper's list builds are decided by the host
/// (`RebuildSchedule::Host`): a due build halts the batch after the step's drift, the host reads
/// the states, calls every source's `rebuild`, and the next submission starts with the sphere
/// list's build and that step's forces; so many steps go in one submission. A source whose
/// inputs change from one evaluation to the next (e.g. the beads' moving planes and loads at
/// each evaluation's time) writes one record per evaluation in `prepare_batch` and picks its
/// own in `record_at`; the evaluations of a halted batch after the halt do not run, so
/// `evaluated` tells it how far its clock went. A source that is not `batchable` makes the
/// stepper take one step per submission pair (`step_with_sources`), as it does under the
/// `Device` schedule. The sources' kernels return at once when the stepper's batch has halted
/// (`step_flags[0] != 0`, the buffer of `bind_step`; `list_stale` in sphere_step.wgsl), as the
/// stepper's own kernels do.
pub trait GpuExtraForces {
    fn bind(&mut self, ctx: &GpuContext, spheres: &wgpu::Buffer, extra: &wgpu::Buffer) -> anyhow::Result<()>;
    /// The stepper's step flags (`step_flags`, atomic u32 words) and walls (`PlaneWall` array),
    /// once after `bind`; both buffers live as long as the stepper.
    fn bind_step(&mut self, _ctx: &GpuContext, _flags: &wgpu::Buffer, _walls: &wgpu::Buffer) -> anyhow::Result<()> {
        Ok(())
    }
    /// The stepper's forces (`SphereForce` per sphere, the gather's output: the last
    /// evaluation's total force and torque), once after `bind_step`, for a source that reads
    /// them after the step (`record_after_step`; e.g. a load cell reading a membrane's rim
    /// reactions); the buffer lives as long as the stepper. Default: not needed.
    fn bind_forces(&mut self, _ctx: &GpuContext, _forces: &wgpu::Buffer) -> anyhow::Result<()> {
        Ok(())
    }
    /// Dispatches after each step's closing kick (e.g. vertices put on their platens).
    fn record_after_step(&self, _pass: &mut wgpu::ComputePass<'_>) {}
    /// The stepper rebuilt its sphere list (module doc).
    fn rebuild(&mut self, _ctx: &GpuContext, _states: &[SphereState], _skin: f32) -> anyhow::Result<()> {
        Ok(())
    }
    fn prepare(&mut self, ctx: &GpuContext, eval: Evaluation);
    /// Before a submission that records at most `count` evaluations (`record_at` with indices
    /// 0 .. count); the default is `prepare`, whose writes hold for all of them.
    fn prepare_batch(&mut self, ctx: &GpuContext, eval: Evaluation, count: u32) -> anyhow::Result<()> {
        let _ = count;
        self.prepare(ctx, eval);
        Ok(())
    }
    /// Whether the source can take many evaluations per submission (then the stepper records
    /// many steps per submission; see *Stepping*).
    fn batchable(&self) -> bool {
        true
    }
    fn record(&self, pass: &mut wgpu::ComputePass<'_>);
    /// The dispatches of evaluation `index` (from 0) of the submission `prepare_batch` prepared.
    fn record_at(&self, pass: &mut wgpu::ComputePass<'_>, index: u32) {
        let _ = index;
        self.record(pass)
    }
    /// After a submission, once the stepper has read its flags: `count` of its evaluations ran
    /// (the first `count`; those after a halt returned at once).
    fn evaluated(&mut self, _count: u32) {}
    /// The source itself, to read what it measured (`downcast_ref`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A GPU source behind a `RefCell`, so that a restore or a stage can reach it through the
/// stepper's `extra()` (the stepper hands out shared references only). Find it with
/// `as_any().downcast_ref::<SharedGpuSource<T>>()`.
pub struct SharedGpuSource<T>(pub std::cell::RefCell<T>);

impl<T: GpuExtraForces + 'static> GpuExtraForces for SharedGpuSource<T> {
    fn bind(&mut self, ctx: &GpuContext, spheres: &wgpu::Buffer, extra: &wgpu::Buffer) -> anyhow::Result<()> {
        self.0.get_mut().bind(ctx, spheres, extra)
    }
    fn bind_step(&mut self, ctx: &GpuContext, flags: &wgpu::Buffer, walls: &wgpu::Buffer) -> anyhow::Result<()> {
        self.0.get_mut().bind_step(ctx, flags, walls)
    }
    fn bind_forces(&mut self, ctx: &GpuContext, forces: &wgpu::Buffer) -> anyhow::Result<()> {
        self.0.get_mut().bind_forces(ctx, forces)
    }
    fn record_after_step(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.0.borrow().record_after_step(pass)
    }
    fn rebuild(&mut self, ctx: &GpuContext, states: &[SphereState], skin: f32) -> anyhow::Result<()> {
        self.0.get_mut().rebuild(ctx, states, skin)
    }
    fn prepare(&mut self, ctx: &GpuContext, eval: Evaluation) {
        self.0.get_mut().prepare(ctx, eval)
    }
    fn prepare_batch(&mut self, ctx: &GpuContext, eval: Evaluation, count: u32) -> anyhow::Result<()> {
        self.0.get_mut().prepare_batch(ctx, eval, count)
    }
    fn batchable(&self) -> bool {
        self.0.borrow().batchable()
    }
    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.0.borrow().record(pass)
    }
    fn record_at(&self, pass: &mut wgpu::ComputePass<'_>, index: u32) {
        self.0.borrow().record_at(pass, index)
    }
    fn evaluated(&mut self, count: u32) {
        self.0.get_mut().evaluated(count)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
