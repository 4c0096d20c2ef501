//! GPU twin of `cell_list::build_neighbor_list` + `carry_history` (`shaders/sphere_cell_list.wgsl`
//! with the `cell_*` and `cand_*` kernels of `shaders/grid3d.wgsl`),
//! reusing the GPU prefix scan (`gpu::scan::PrefixScan`): `build`, host arrays in and out (the
//! CPU/GPU comparison of the list, `tests/gpu_sphere.rs`). The GPU stepper records the same
//! kernels, with the grid fitted on the device, its list staying there (`gpu_rebuild`).

use super::cell_list::NeighborList;
use super::contact::ContactHistory;
use super::gpu_pass::{dispatch, params_uniform};
use super::gpu_rebuild::{DeviceGrid, FLAG_WORDS};
use super::state::{SphereParams, SphereState};
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::gpu::scan::PrefixScan;

/// The compiled kernels of one build.
pub struct GpuCellList {
    clear: Kernel,
    count: Kernel,
    cursor: Kernel,
    scatter: Kernel,
    pair_count: Kernel,
    pair_fill: Kernel,
    pair_carry: Kernel,
}

impl GpuCellList {
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        let k = |e| Kernel::new(ctx, "sphere_cell_list", e);
        Ok(GpuCellList {
            clear: k("cell_clear")?,
            count: k("cell_count")?,
            cursor: k("cell_cursor")?,
            scatter: k("cell_scatter")?,
            pair_count: k("cand_count")?,
            pair_fill: k("cand_fill")?,
            pair_carry: k("cand_carry")?,
        })
    }

    /// The candidate list of `spheres` on the grid of `p` (as `cell_list::fit_grid` sets it) and
    /// the history carried from `old`/`old_history`.
    pub fn build(
        &self,
        ctx: &GpuContext,
        p: &SphereParams,
        spheres: &[SphereState],
        old: &NeighborList,
        old_history: &[ContactHistory],
    ) -> anyhow::Result<(NeighborList, Vec<ContactHistory>)> {
        let n = spheres.len();
        let mut p = *p;
        p.n_spheres = n as u32;
        let uniform = params_uniform(ctx, &p);
        let spheres_b = GpuArray::new(ctx, "spheres", spheres)?;
        let cell_start = GpuArray::<u32>::zeroed(ctx, "cell start", p.n_cells as usize + 1)?;
        let cursor = GpuArray::<u32>::zeroed(ctx, "cell cursor", p.n_cells as usize)?;
        let cell_spheres = GpuArray::<u32>::zeroed(ctx, "cell spheres", n)?;
        let pair_start = GpuArray::<u32>::zeroed(ctx, "pair start", n + 1)?;
        let mut old_start = old.start.clone();
        old_start.resize(n + 1, *old_start.last().unwrap_or(&0));
        let old_start_b = GpuArray::new(ctx, "old start", &old_start)?;
        let old_partner_b = GpuArray::new(ctx, "old partner", &old.partner)?;
        let old_history_b = GpuArray::new(ctx, "old history", old_history)?;
        let cell_scan = PrefixScan::new(ctx, cell_start.buffer(), p.n_cells)?;
        let pair_scan = PrefixScan::new(ctx, pair_start.buffer(), n as u32)?;
        // The grid of `p` (the stepper's fit_grid writes it on the device); no halt flag.
        let grid = GpuArray::new(ctx, "grid", &[DeviceGrid::of(&p)])?;
        let flags = GpuArray::<u32>::zeroed(ctx, "flags", FLAG_WORDS)?;

        let table = |partner: &GpuArray<u32>, history: &GpuArray<ContactHistory>, k: &Kernel| {
            k.bind(
                ctx,
                &[
                    (0, &uniform),
                    (1, spheres_b.buffer()),
                    (2, cell_start.buffer()),
                    (3, cursor.buffer()),
                    (4, cell_spheres.buffer()),
                    (5, pair_start.buffer()),
                    (6, partner.buffer()),
                    (7, old_start_b.buffer()),
                    (8, old_partner_b.buffer()),
                    (9, old_history_b.buffer()),
                    (10, history.buffer()),
                    (18, flags.buffer()),
                    (19, grid.buffer()),
                ],
            )
        };

        // Bin, count, scan the counts.
        let no_partner = GpuArray::<u32>::zeroed(ctx, "no partner", 0)?;
        let no_history = GpuArray::<ContactHistory>::zeroed(ctx, "no history", 0)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            let t = |k| table(&no_partner, &no_history, k);
            dispatch(&mut pass, &self.clear, &t(&self.clear), p.n_cells + 1);
            dispatch(&mut pass, &self.count, &t(&self.count), n as u32);
            cell_scan.record(&mut pass);
            dispatch(&mut pass, &self.cursor, &t(&self.cursor), p.n_cells);
            dispatch(&mut pass, &self.scatter, &t(&self.scatter), n as u32);
            dispatch(&mut pass, &self.pair_count, &t(&self.pair_count), n as u32);
            pair_scan.record(&mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
        let start = pair_start.read(ctx);
        let total = start[n] as usize;

        // Fill, sort rows, carry history.
        let partner = GpuArray::<u32>::zeroed(ctx, "partner", total)?;
        let history = GpuArray::<ContactHistory>::zeroed(ctx, "history", total)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            dispatch(
                &mut pass,
                &self.pair_fill,
                &table(&partner, &history, &self.pair_fill),
                n as u32,
            );
            dispatch(
                &mut pass,
                &self.pair_carry,
                &table(&partner, &history, &self.pair_carry),
                n as u32,
            );
        }
        ctx.queue.submit([encoder.finish()]);
        Ok((
            NeighborList {
                start,
                partner: partner.read(ctx),
            },
            history.read(ctx),
        ))
    }
}
