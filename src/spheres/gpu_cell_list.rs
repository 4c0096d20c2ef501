//! GPU twin of `cell_list::build_neighbor_list` + `carry_history` (`shaders/sphere_cell_list.wgsl`),
//! reusing the GPU prefix scan (`gpu::scan::PrefixScan`). Two forms:
//! - `build`: host arrays in and out (the CPU/GPU comparison of the list, `tests/gpu_sphere.rs`);
//! - `count` + `fill` (the GPU stepper): the list stays on the device. `count` counts and scans
//!   the candidates there and reads back one number, the pair total; the stepper grows its pair
//!   buffers when the total exceeds their capacity; `fill` writes the sorted rows, carries the
//!   packed history from the old list and builds the j-side incident lists, all on the device.

use super::cell_list::NeighborList;
use super::contact::ContactHistory;
use super::gpu_pass::{dispatch, params_uniform};
use super::state::{SphereParams, SphereState};
use crate::gpu::array::{read_u32_at, GpuArray};
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
    pair_carry_packed: Kernel,
    incident_clear: Kernel,
    incident_count: Kernel,
    incident_cursor: Kernel,
    incident_scatter: Kernel,
    incident_sort: Kernel,
}

/// The stepper's device buffers of one build (`GpuCellList::fill`).
pub struct DeviceLists<'a> {
    pub spheres: &'a wgpu::Buffer,
    /// The list before this build (start n + 1, partner, packed tangential and rolling history).
    pub old_start: &'a wgpu::Buffer,
    pub old_partner: &'a wgpu::Buffer,
    pub old_history: &'a wgpu::Buffer,
    pub old_rolling: &'a wgpu::Buffer,
    /// The new list: start (counted by `count`), partner, history, rolling history (3 f32 per
    /// pair or one element), j-side incident starts (n + 1) and entries.
    pub pair_start: &'a wgpu::Buffer,
    pub partner: &'a wgpu::Buffer,
    pub history: &'a wgpu::Buffer,
    pub rolling: &'a wgpu::Buffer,
    pub incident_start: &'a wgpu::Buffer,
    pub incident: &'a wgpu::Buffer,
}

/// What `count` leaves for `fill`: the grid of the build (freed after it).
pub struct Counted {
    uniform: wgpu::Buffer,
    cell_start: GpuArray<u32>,
    cursor: GpuArray<u32>,
    cell_spheres: GpuArray<u32>,
    n: u32,
}

impl GpuCellList {
    pub fn new(ctx: &GpuContext) -> anyhow::Result<Self> {
        let k = |e| Kernel::new(ctx, "sphere_cell_list", e);
        Ok(GpuCellList {
            clear: k("cell_clear")?,
            count: k("cell_count")?,
            cursor: k("cell_cursor")?,
            scatter: k("cell_scatter")?,
            pair_count: k("pair_count")?,
            pair_fill: k("pair_fill")?,
            pair_carry: k("pair_carry")?,
            pair_carry_packed: k("pair_carry_packed")?,
            incident_clear: k("incident_clear")?,
            incident_count: k("incident_count")?,
            incident_cursor: k("incident_cursor_init")?,
            incident_scatter: k("incident_scatter")?,
            incident_sort: k("incident_sort")?,
        })
    }

    /// Bins the spheres of the device buffer `spheres` (n of them) on the grid of `p`, counts
    /// each row's candidates and scans the counts into `pair_start` (n + 1), on the device; reads
    /// back the pair total only.
    pub fn count(
        &self,
        ctx: &GpuContext,
        p: &SphereParams,
        spheres: &wgpu::Buffer,
        n: usize,
        pair_start: &wgpu::Buffer,
    ) -> anyhow::Result<(Counted, u32)> {
        let mut p = *p;
        p.n_spheres = n as u32;
        let c = Counted {
            uniform: params_uniform(ctx, &p),
            cell_start: GpuArray::zeroed(ctx, "cell start", p.n_cells as usize + 1)?,
            cursor: GpuArray::zeroed(ctx, "cell cursor", p.n_cells as usize)?,
            cell_spheres: GpuArray::zeroed(ctx, "cell spheres", n.max(1))?,
            n: n as u32,
        };
        let cell_scan = PrefixScan::new(ctx, c.cell_start.buffer(), p.n_cells)?;
        let pair_scan = PrefixScan::new(ctx, pair_start, n as u32)?;
        // pair_count shares visit_candidates with pair_fill, which writes partners: bound,
        // never written here.
        let unused = GpuArray::<u32>::zeroed(ctx, "no partner", 1)?;
        let table = [
            (0, &c.uniform),
            (1, spheres),
            (2, c.cell_start.buffer()),
            (3, c.cursor.buffer()),
            (4, c.cell_spheres.buffer()),
            (5, pair_start),
            (6, unused.buffer()),
        ];
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            dispatch(&mut pass, &self.clear, &self.clear.bind(ctx, &table), p.n_cells + 1);
            dispatch(&mut pass, &self.count, &self.count.bind(ctx, &table), n as u32);
            cell_scan.record(&mut pass);
            dispatch(&mut pass, &self.cursor, &self.cursor.bind(ctx, &table), p.n_cells);
            dispatch(&mut pass, &self.scatter, &self.scatter.bind(ctx, &table), n as u32);
            dispatch(
                &mut pass,
                &self.pair_count,
                &self.pair_count.bind(ctx, &table),
                n as u32,
            );
            pair_scan.record(&mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
        let total = read_u32_at(ctx, pair_start, n as u64);
        Ok((c, total))
    }

    /// After `count` (and the caller's sizing of `d`'s buffers): fills and sorts the rows, carries
    /// the packed history from the old list, builds the j-side incident lists. No read-back.
    pub fn fill(&self, ctx: &GpuContext, c: Counted, d: &DeviceLists<'_>) -> anyhow::Result<()> {
        let n = c.n;
        let cursor = GpuArray::<u32>::zeroed(ctx, "incident cursor", (n as usize).max(1))?;
        let incident_scan = PrefixScan::new(ctx, d.incident_start, n)?;
        let table = [
            (0, &c.uniform),
            (1, d.spheres),
            (2, c.cell_start.buffer()),
            (3, c.cursor.buffer()),
            (4, c.cell_spheres.buffer()),
            (5, d.pair_start),
            (6, d.partner),
            (7, d.old_start),
            (8, d.old_partner),
            (11, d.old_history),
            (12, d.history),
            (13, d.old_rolling),
            (14, d.rolling),
            (15, d.incident_start),
            (16, d.incident),
            (17, cursor.buffer()),
        ];
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            let run = |pass: &mut wgpu::ComputePass<'_>, k: &Kernel, count: u32| {
                dispatch(pass, k, &k.bind(ctx, &table), count)
            };
            run(&mut pass, &self.pair_fill, n);
            run(&mut pass, &self.pair_carry_packed, n);
            run(&mut pass, &self.incident_clear, n + 1);
            run(&mut pass, &self.incident_count, n);
            incident_scan.record(&mut pass);
            run(&mut pass, &self.incident_cursor, n);
            run(&mut pass, &self.incident_scatter, n);
            run(&mut pass, &self.incident_sort, n);
        }
        ctx.queue.submit([encoder.finish()]);
        Ok(())
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
