//! The grains' candidate patches built on the GPU (`shaders/membrane_patch_list.wgsl` on the
//! cell list of `shaders/grid3d.wgsl`), twin of `patch_list::build_patch_list` and of the history
//! carry of `Membrane::rebuild` (`grid3d::carry_rows`): patches binned by centroid by count → scan
//! → scatter (integer atomics only), each grain's row from the 27 cells around it, sorted by patch
//! index, history carried by binary search in the grain's old row, and per vertex its candidate
//! corners sorted into candidate order. The grid (`patch_list::patch_grid`, the CPU list's) is
//! fitted on the host from the states the stepper read back for its own rebuild; the candidate
//! total is read back once to size the list (as `GpuCellList`).

use super::model::Membrane;
use super::patch_list::{patch_bounds, patch_grid, PatchList};
use super::records::{MembranePatch, PatchListParams, MEMBRANE_SELF_CONTACT};
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::gpu::scan::PrefixScan;
use crate::spheres::contact::ContactHistory;
use crate::spheres::gpu_pass::dispatch;
use crate::spheres::SphereState;
use wgpu::util::DeviceExt as _;

/// The compiled kernels of one build.
pub struct GpuPatchList {
    patch_bounds: Kernel,
    cell_clear: Kernel,
    cell_count: Kernel,
    cell_cursor: Kernel,
    cell_scatter: Kernel,
    cand_count: Kernel,
    cand_fill: Kernel,
    cand_carry: Kernel,
    corner_clear: Kernel,
    corner_count: Kernel,
    corner_cursor: Kernel,
    corner_scatter: Kernel,
    corner_sort: Kernel,
}

/// A built list on the GPU (the layout of `PatchList`) with its carried history.
pub struct GpuPatchBuffers {
    pub start: GpuArray<u32>,
    pub patch: GpuArray<u32>,
    pub history: GpuArray<ContactHistory>,
    pub corner_start: GpuArray<u32>,
    pub corner: GpuArray<u32>,
    /// Number of candidates (the buffers hold at least one element).
    pub len: usize,
}

impl GpuPatchBuffers {
    /// The list read back (`PatchList` of the CPU twin) and its history.
    pub fn read(&self, ctx: &GpuContext) -> (PatchList, Vec<ContactHistory>) {
        let mut patch = self.patch.read(ctx);
        patch.truncate(self.len);
        let mut corner = self.corner.read(ctx);
        corner.truncate(3 * self.len);
        let mut history = self.history.read(ctx);
        history.truncate(self.len);
        (
            PatchList {
                start: self.start.read(ctx),
                patch,
                corner_start: self.corner_start.read(ctx),
                corner,
            },
            history,
        )
    }
}

/// The uniform of a build: the grid of `patch_list::patch_grid` (the CPU list's), fitted on the
/// host from the states the stepper read back.
pub fn fit_patch_grid(m: &Membrane, states: &[SphereState], skin: f32) -> PatchListParams {
    let p = m.params;
    let (first, nv) = (p.first as usize, p.n_vertices as usize);
    let self_contact = p.flags & MEMBRANE_SELF_CONTACT != 0;
    let bounds = patch_bounds(states, first, &m.patches);
    let g = patch_grid(states, first, nv, self_contact, &bounds, skin as f64);
    PatchListParams {
        grid_origin: g.origin,
        cell_size: g.cell_size,
        grid_dims: g.dims,
        n_cells: g.n_cells,
        first: p.first,
        n_vertices: p.n_vertices,
        n_patches: m.patches.len() as u32,
        n_spheres: states.len() as u32,
        skin,
        n_candidates: 0,
        flags: p.flags & MEMBRANE_SELF_CONTACT,
        _pad: 0,
    }
}

impl GpuPatchList {
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        let k = |e| Kernel::new(ctx, "membrane_patch_list", e);
        Ok(GpuPatchList {
            patch_bounds: k("patch_bounds")?,
            cell_clear: k("cell_clear")?,
            cell_count: k("cell_count")?,
            cell_cursor: k("cell_cursor")?,
            cell_scatter: k("cell_scatter")?,
            cand_count: k("cand_count")?,
            cand_fill: k("cand_fill")?,
            cand_carry: k("cand_carry")?,
            corner_clear: k("corner_clear")?,
            corner_count: k("corner_count")?,
            corner_cursor: k("corner_cursor")?,
            corner_scatter: k("corner_scatter")?,
            corner_sort: k("corner_sort")?,
        })
    }

    /// A new list of membrane `m` from the sphere buffer `spheres` (whose contents `states` are;
    /// the grid is fitted from them), history carried from `old` (none: all zero). `sp` is a
    /// `SphereParams` uniform (binding 0: its `opaque_zero`), `patches` the membrane's patches.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &self,
        ctx: &GpuContext,
        sp: &wgpu::Buffer,
        spheres: &wgpu::Buffer,
        patches: &GpuArray<MembranePatch>,
        m: &Membrane,
        states: &[SphereState],
        skin: f32,
        old: Option<&GpuPatchBuffers>,
    ) -> anyhow::Result<GpuPatchBuffers> {
        let mut lp = fit_patch_grid(m, states, skin);
        let (n, nv, np) = (states.len(), lp.n_vertices as usize, lp.n_patches);
        let uniform = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("PatchListParams"),
            contents: bytemuck::bytes_of(&lp),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bounds = GpuArray::<[f32; 4]>::zeroed(ctx, "patch bounds", np as usize)?;
        let cell_start = GpuArray::<u32>::zeroed(ctx, "patch cell start", lp.n_cells as usize + 1)?;
        let cell_cursor = GpuArray::<u32>::zeroed(ctx, "patch cell cursor", lp.n_cells as usize)?;
        let cell_patches = GpuArray::<u32>::zeroed(ctx, "cell patches", np as usize)?;
        let start = GpuArray::<u32>::zeroed(ctx, "cand start", n + 1)?;
        let zeros = GpuArray::<u32>::zeroed(ctx, "no old start", n + 1)?;
        let none_u = GpuArray::<u32>::zeroed(ctx, "no old patch", 1)?;
        let none_h = GpuArray::<ContactHistory>::zeroed(ctx, "no old history", 1)?;
        let (old_start, old_patch, old_history) = match old {
            Some(o) => (&o.start, &o.patch, &o.history),
            None => (&zeros, &none_u, &none_h),
        };
        let cell_scan = PrefixScan::new(ctx, cell_start.buffer(), lp.n_cells)?;
        let cand_scan = PrefixScan::new(ctx, start.buffer(), n as u32)?;
        let corner_start = GpuArray::<u32>::zeroed(ctx, "corner start", nv + 1)?;
        let corner_cursor = GpuArray::<u32>::zeroed(ctx, "corner cursor", nv)?;
        let corner_scan = PrefixScan::new(ctx, corner_start.buffer(), nv as u32)?;
        let table = |patch: &GpuArray<u32>, history: &GpuArray<ContactHistory>, corner: &GpuArray<u32>| {
            [
                (0, sp),
                (1, &uniform),
                // grid3d's bindings: cells, rows, old list, history.
                (2, cell_start.buffer()),
                (3, cell_cursor.buffer()),
                (4, cell_patches.buffer()),
                (5, start.buffer()),
                (6, patch.buffer()),
                (7, old_start.buffer()),
                (8, old_patch.buffer()),
                (9, old_history.buffer()),
                (10, history.buffer()),
                (11, spheres),
                (12, patches.buffer()),
                (13, bounds.buffer()),
                (14, corner_start.buffer()),
                (15, corner_cursor.buffer()),
                (16, corner.buffer()),
            ]
            .iter()
            .map(|(b, x)| (*b, (*x).clone()))
            .collect::<Vec<(u32, wgpu::Buffer)>>()
        };
        let bind = |k: &Kernel, t: &[(u32, wgpu::Buffer)]| {
            let refs: Vec<(u32, &wgpu::Buffer)> = t.iter().map(|(b, x)| (*b, x)).collect();
            k.bind(ctx, &refs)
        };

        // Bounds, bin, count candidates, scan them.
        let t0 = table(&none_u, &none_h, &none_u);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &self.patch_bounds, &bind(&self.patch_bounds, &t0), np);
            dispatch(
                &mut pass,
                &self.cell_clear,
                &bind(&self.cell_clear, &t0),
                lp.n_cells + 1,
            );
            dispatch(&mut pass, &self.cell_count, &bind(&self.cell_count, &t0), np);
            cell_scan.record(&mut pass);
            dispatch(&mut pass, &self.cell_cursor, &bind(&self.cell_cursor, &t0), lp.n_cells);
            dispatch(&mut pass, &self.cell_scatter, &bind(&self.cell_scatter, &t0), np);
            dispatch(&mut pass, &self.cand_count, &bind(&self.cand_count, &t0), n as u32);
            cand_scan.record(&mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
        let total = start.read(ctx)[n] as usize;

        // Fill and sort the rows, carry the history, the corners.
        lp.n_candidates = total as u32;
        ctx.queue.write_buffer(&uniform, 0, bytemuck::bytes_of(&lp));
        let patch = GpuArray::<u32>::zeroed(ctx, "cand patch", total)?;
        let history = GpuArray::<ContactHistory>::zeroed(ctx, "patch history", total)?;
        let corner = GpuArray::<u32>::zeroed(ctx, "corner", 3 * total)?;
        let t1 = table(&patch, &history, &corner);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &self.cand_fill, &bind(&self.cand_fill, &t1), n as u32);
            dispatch(&mut pass, &self.cand_carry, &bind(&self.cand_carry, &t1), n as u32);
            dispatch(
                &mut pass,
                &self.corner_clear,
                &bind(&self.corner_clear, &t1),
                nv as u32 + 1,
            );
            dispatch(
                &mut pass,
                &self.corner_count,
                &bind(&self.corner_count, &t1),
                total as u32,
            );
            corner_scan.record(&mut pass);
            dispatch(
                &mut pass,
                &self.corner_cursor,
                &bind(&self.corner_cursor, &t1),
                nv as u32,
            );
            dispatch(
                &mut pass,
                &self.corner_scatter,
                &bind(&self.corner_scatter, &t1),
                total as u32,
            );
            dispatch(&mut pass, &self.corner_sort, &bind(&self.corner_sort, &t1), nv as u32);
        }
        ctx.queue.submit([encoder.finish()]);
        Ok(GpuPatchBuffers {
            start,
            patch,
            history,
            corner_start,
            corner,
            len: total,
        })
    }
}
