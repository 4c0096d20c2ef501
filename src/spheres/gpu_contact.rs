//! GPU evaluation of the pair laws on a batch of contact geometries (`pair_force_batch` in
//! `shaders/sphere_law_batch.wgsl`), the twin of `contact::pair_force` applied to each. The GPU
//! stepper's pair pass will form the geometry in the same kernel; this batch form is what the
//! CPU/GPU comparison of the laws runs on (`tests/gpu_sphere.rs`).

use super::contact::{ContactGeometry, ContactHistory, PairForce};
use super::gpu_pass::{dispatch, params_uniform};
use super::pair_law::PairLaw;
use super::state::SphereParams;
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;

/// The compiled `pair_force_batch` kernel.
pub struct GpuPairForce {
    kernel: Kernel,
}

impl GpuPairForce {
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        Ok(GpuPairForce {
            kernel: Kernel::new(ctx, "sphere_law_batch", "pair_force_batch")?,
        })
    }

    /// Forces and new histories of contacts k = 0.. with law `laws[law_index[k]]`, step `dt`.
    pub fn run(
        &self,
        ctx: &GpuContext,
        dt: f32,
        laws: &[PairLaw],
        geometry: &[ContactGeometry],
        law_index: &[u32],
        history: &[ContactHistory],
    ) -> anyhow::Result<(Vec<PairForce>, Vec<ContactHistory>)> {
        let n = geometry.len();
        anyhow::ensure!(
            law_index.len() == n && history.len() == n,
            "batch arrays differ in length"
        );
        let p = SphereParams {
            dt,
            n_items: n as u32,
            ..Default::default()
        };
        let uniform = params_uniform(ctx, &p);
        let laws_b = GpuArray::new(ctx, "pair laws", laws)?;
        let geom_b = GpuArray::new(ctx, "contact geometry", geometry)?;
        let index_b = GpuArray::new(ctx, "law index", law_index)?;
        let hist_b = GpuArray::new(ctx, "contact history", history)?;
        let out_b = GpuArray::<PairForce>::zeroed(ctx, "pair force", n)?;
        let bg = self.kernel.bind(
            ctx,
            &[
                (0, &uniform),
                (1, laws_b.buffer()),
                (2, geom_b.buffer()),
                (3, index_b.buffer()),
                (4, hist_b.buffer()),
                (5, out_b.buffer()),
            ],
        );
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &self.kernel, &bg, n as u32);
        }
        ctx.queue.submit([encoder.finish()]);
        Ok((out_b.read(ctx), hist_b.read(ctx)))
    }
}
