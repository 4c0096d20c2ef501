//! Extra per-sphere forces from outside the contact laws (bonds between beads, membranes, point
//! loads): a source computes one force per sphere at every force evaluation, before the gather,
//! and the steppers add it in `gather` after the pairs and walls (then damping). Several
//! sources add in the order they were attached. Deterministic: a source writes per sphere in a
//! fixed order (no float atomics); each source is called exactly once per force evaluation
//! (once when attached, then once per step), so it can count evaluations to know the time.

use super::state::SphereState;
use crate::gpu::context::GpuContext;
use crate::laws::vec3::V3;

/// A CPU source: adds its force on every sphere to `out` (zeroed by the stepper before the first
/// source), from the states of this evaluation (positions at the new time, half-step velocities).
pub trait ExtraForces: Send + Sync {
    fn add_forces(&mut self, states: &[SphereState], dt: f32, out: &mut [V3]);
    /// The source itself, to read what it measured (`downcast_ref`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A GPU source. `bind` is called once when attached, with the stepper's sphere buffer and the
/// extra-force buffer (one `vec4<f32>` per sphere, xyz used): the source's kernels add to it
/// (`+=`), and the stepper's `gather` reads it and sets it back to zero. `prepare` runs on the
/// host before every force evaluation is encoded (uniform writes), `record` records the source's
/// dispatches into the evaluation's compute pass, before the gather.
pub trait GpuExtraForces {
    fn bind(&mut self, ctx: &GpuContext, spheres: &wgpu::Buffer, extra: &wgpu::Buffer) -> anyhow::Result<()>;
    fn prepare(&mut self, ctx: &GpuContext, dt: f32);
    fn record(&self, pass: &mut wgpu::ComputePass<'_>);
    /// The source itself, to read what it measured (`downcast_ref`).
    fn as_any(&self) -> &dyn std::any::Any;
}
