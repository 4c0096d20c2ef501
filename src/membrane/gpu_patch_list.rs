//! The grains' candidate patches built on the GPU (`shaders/membrane_patch_list.wgsl`), twin of
//! `patch_list::build_patch_list` and of the history carry of `Membrane::rebuild`: patches binned
//! by centroid in a dense grid by count → scan → scatter (integer atomics only), each grain's row
//! from the 27 cells around it, sorted by patch index, history carried by binary search in the
//! grain's old row, and per vertex its candidate corners sorted into candidate order. The grid is
//! fitted on the host from the states the stepper read back for its own rebuild (as the sphere
//! list's `fit_grid`); the candidate total is read back once to size the list (as `GpuCellList`).

use super::model::Membrane;
use super::patch_list::PatchList;
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

/// The dense grid of a build: cells of side ≥ r_grain + R_patch + skin (with 0.1 % to spare for
/// the f32 rounding of cell coordinates and of R on the GPU) over the vertices' bounding box plus
/// one cell, at most max(8 n_patches, 4096) cells (larger cells beyond: still exact). A grain
/// outside is clamped into the border cells (monotone, so every candidate stays one cell away).
pub fn fit_patch_grid(m: &Membrane, states: &[SphereState], skin: f32) -> PatchListParams {
    let p = m.params;
    let first = p.first as usize;
    let nv = p.n_vertices as usize;
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for s in &states[first..first + nv] {
        for k in 0..3 {
            let x = s.pos_hi[k] + s.pos_lo[k];
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    if nv == 0 {
        (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    let r_patch = m
        .patches
        .iter()
        .map(|t| {
            let x = t.v.map(|v| states[first + v as usize].position());
            let c = [0, 1, 2].map(|k| (x[0][k] + x[1][k] + x[2][k]) / 3.0);
            x.iter()
                .map(|y| ((y[0] - c[0]).powi(2) + (y[1] - c[1]).powi(2) + (y[2] - c[2]).powi(2)).sqrt())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let self_contact = p.flags & MEMBRANE_SELF_CONTACT != 0;
    let r_grain = states
        .iter()
        .enumerate()
        .filter(|(s, _)| self_contact || *s < first || *s >= first + nv)
        .map(|(_, s)| s.radius as f64)
        .fold(0.0, f64::max);
    let mut cell = (((r_grain + r_patch + skin as f64) * 1.001) as f32).max(1e-9);
    let limit = (8 * m.patches.len() as u64).max(4096);
    loop {
        let dims: [u64; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / cell).floor() as u64 + 3);
        if dims[0] * dims[1] * dims[2] <= limit {
            return PatchListParams {
                grid_origin: [0, 1, 2].map(|k| lo[k] - cell),
                cell_size: cell,
                grid_dims: dims.map(|d| d as u32),
                n_cells: (dims[0] * dims[1] * dims[2]) as u32,
                first: p.first,
                n_vertices: p.n_vertices,
                n_patches: m.patches.len() as u32,
                n_spheres: states.len() as u32,
                skin,
                n_candidates: 0,
                flags: p.flags & MEMBRANE_SELF_CONTACT,
                _pad: 0,
            };
        }
        cell *= 1.26;
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
                (2, spheres),
                (3, patches.buffer()),
                (4, bounds.buffer()),
                (5, cell_start.buffer()),
                (6, cell_cursor.buffer()),
                (7, cell_patches.buffer()),
                (8, start.buffer()),
                (9, patch.buffer()),
                (10, old_start.buffer()),
                (11, old_patch.buffer()),
                (12, old_history.buffer()),
                (13, history.buffer()),
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
