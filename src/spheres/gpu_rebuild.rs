//! The GPU stepper's list build, all on the device, and its schedule (`RebuildSchedule`):
//! recorded in every step as indirect dispatches whose sizes `rebuild_decide` writes on the
//! device (the template's when a build is due, zero otherwise; the 2D engine's pattern), or,
//! decided by the host, recorded with direct dispatches only where a build is due (a due build
//! halts the batch, `HALT_DUE`). A build:
//! `list_save` (the list before it, kept for the carry in buffers the step recomputes anyway) →
//! `bounds_reduce` → `fit_grid` (the grid of `cell_list::fit_grid`, from an exact min/max
//! reduction, so equal to the host's bit for bit) → bin, count (`cand_count`), scan →
//! `pair_check` → the sphere–wall candidates (`wall_count`, scan, `wall_fill`, with their history
//! carried by slot) → `cand_fill`, `pair_carry_packed` → the j-side incident lists → `reference_positions`.
//! Capacities (cells, pairs, wall candidates) have headroom; a build that exceeds one halts the
//! batch (`step_flags[0]`) before it writes anything it would need again; the host sees the flag
//! in the one read of the batch, grows the buffers and redoes that build with direct dispatches
//! (`GpuSpheres::steps_batched`). Kernels: `shaders/sphere_step.wgsl` (decide, save, walls,
//! reference positions) and `shaders/sphere_cell_list.wgsl` (grid, incident lists; the cells and
//! the pair rows are `shaders/grid3d.wgsl`'s `cell_*` and `cand_*` kernels it imports).

use super::gpu_pass::SPHERE_WG;
use crate::gpu::array::{dispatch_size, GpuArray};
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;
use crate::gpu::scan::PrefixScan;

/// Words of `step_flags` (`shaders/sphere_step.wgsl`).
pub const FLAG_WORDS: usize = 9;
pub const FLAG_HALT: usize = 0;
pub const FLAG_BEGUN: usize = 1;
pub const FLAG_DUE: usize = 2;
pub const FLAG_BUILDS: usize = 3;
pub const FLAG_PAIRS: usize = 4;
pub const FLAG_WALL_CANDIDATES: usize = 5;
pub const FLAG_CELLS: usize = 7;
/// Set by the host under the host-decided schedule: a due build halts the batch.
pub const FLAG_HOST_DECIDES: usize = 8;
/// `step_flags[FLAG_HALT]` after an overflowing build.
pub const HALT_OVERFLOW: u32 = 1;
/// `step_flags[FLAG_HALT]` after a due build halted a batch (host-decided schedule; `HALT_DUE`
/// in `shaders/sphere_step.wgsl`).
pub const HALT_DUE: u32 = 2;

/// Order-preserving key of an f32 as the bounding-box reduction uses it (twin of `bounds_key`
/// in `shaders/sphere_cell_list.wgsl`): a < b ⇔ key(a) < key(b) for non-NaN values.
pub fn bounds_key(x: f32) -> u32 {
    let b = x.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The value of a key (inverse of `bounds_key`).
pub fn bounds_value(k: u32) -> f32 {
    if k & 0x8000_0000 != 0 {
        f32::from_bits(k & 0x7fff_ffff)
    } else {
        f32::from_bits(!k)
    }
}

/// CPU twin of `bounds_reduce` (keys of lo x y z, hi x y z, bits of r_max): the same atomics'
/// result, folded in sphere order.
pub fn bounds_reduce(states: &[super::state::SphereState]) -> [u32; 7] {
    let mut b = [u32::MAX, u32::MAX, u32::MAX, 0, 0, 0, 0];
    for s in states {
        for k in 0..3 {
            let key = bounds_key(s.pos_hi[k] + s.pos_lo[k]);
            b[k] = b[k].min(key);
            b[3 + k] = b[3 + k].max(key);
        }
        b[6] = b[6].max(s.radius.to_bits());
    }
    b
}

/// The grid as the device holds it (`Grid3` in `shaders/grid3d.wgsl`, binding 19 of
/// `shaders/sphere_cell_list.wgsl`; `DeviceGrid::of(&params)` is the host's).
pub use crate::broad_phase::grid3d::Grid3 as DeviceGrid;

/// The reset state of the bounds (what `bounds_reduce` folds into).
const BOUNDS_RESET: [u32; 7] = [u32::MAX, u32::MAX, u32::MAX, 0, 0, 0, 0];

/// Dispatch slots of a build in the argument buffer, in recording order; the four scans follow.
#[derive(Clone, Copy)]
enum Slot {
    ListSave,
    BoundsReduce,
    FitGrid,
    CellClear,
    CellCount,
    CellCursor,
    CellScatter,
    PairCount,
    PairCheck,
    WallCount,
    WallFill,
    PairFill,
    PairCarry,
    IncidentClear,
    IncidentCount,
    IncidentCursor,
    IncidentScatter,
    IncidentSort,
    Reference,
}
const N_SLOTS: u32 = 19;

/// How a build is recorded.
#[derive(Clone, Copy, PartialEq)]
pub enum BuildMode {
    /// Indirect dispatches sized by `rebuild_decide` (inside a batch).
    Indirect,
    /// Direct dispatches, the host knowing a build is due; `save`: save the current list first
    /// (false when redoing a halted build, whose saved list is intact).
    Direct { save: bool },
}

/// The stepper's buffers a build binds.
pub struct BuildBuffers<'a> {
    pub uniform: &'a wgpu::Buffer,
    pub spheres: &'a wgpu::Buffer,
    pub walls: &'a wgpu::Buffer,
    pub pair_start: &'a wgpu::Buffer,
    pub partner: &'a wgpu::Buffer,
    pub history: &'a wgpu::Buffer,
    pub history_rolling: &'a wgpu::Buffer,
    pub pair_out: &'a wgpu::Buffer,
    pub incident_start: &'a wgpu::Buffer,
    pub incident: &'a wgpu::Buffer,
    pub wall_history: &'a wgpu::Buffer,
    pub wall_out: &'a wgpu::Buffer,
    pub wall_index: &'a wgpu::Buffer,
    pub x_ref: &'a wgpu::Buffer,
    pub flags: &'a wgpu::Buffer,
}

/// Kernels, build buffers and prepared scans of the device-side build.
pub struct DeviceBuild {
    decide: Kernel,
    list_save: Kernel,
    wall_count: Kernel,
    wall_fill: Kernel,
    reference: Kernel,
    bounds_reduce: Kernel,
    fit_grid: Kernel,
    clear: Kernel,
    count: Kernel,
    cursor: Kernel,
    scatter: Kernel,
    pair_count: Kernel,
    pair_check: Kernel,
    pair_fill: Kernel,
    pair_carry: Kernel,
    incident_clear: Kernel,
    incident_count: Kernel,
    incident_cursor: Kernel,
    incident_scatter: Kernel,
    incident_sort: Kernel,
    n: u32,
    n_walls: u32,
    /// Cells the cell buffers hold (≥ the grid's).
    pub cell_cap: u32,
    cell_start: GpuArray<u32>,
    cell_cursor: GpuArray<u32>,
    cell_spheres: GpuArray<u32>,
    grid: GpuArray<DeviceGrid>,
    bounds: GpuArray<u32>,
    args: GpuArray<u32>,
    template: GpuArray<u32>,
    sizes: Vec<(u32, u32)>,
    scans: Vec<PrefixScan>,
    groups: Vec<wgpu::BindGroup>,
}

impl DeviceBuild {
    pub fn new(ctx: &GpuContext, n: u32, n_walls: u32) -> anyhow::Result<DeviceBuild> {
        let step = |e| Kernel::new(ctx, "sphere_step", e);
        let cell = |e| Kernel::new(ctx, "sphere_cell_list", e);
        Ok(DeviceBuild {
            decide: step("rebuild_decide")?,
            list_save: step("list_save")?,
            wall_count: step("wall_count")?,
            wall_fill: step("wall_fill")?,
            reference: step("reference_positions")?,
            bounds_reduce: cell("bounds_reduce")?,
            fit_grid: cell("fit_grid")?,
            clear: cell("cell_clear")?,
            count: cell("cell_count")?,
            cursor: cell("cell_cursor")?,
            scatter: cell("cell_scatter")?,
            pair_count: cell("cand_count")?,
            pair_check: cell("pair_check")?,
            pair_fill: cell("cand_fill")?,
            pair_carry: cell("pair_carry_packed")?,
            incident_clear: cell("incident_clear")?,
            incident_count: cell("incident_count")?,
            incident_cursor: cell("incident_cursor_init")?,
            incident_scatter: cell("incident_scatter")?,
            incident_sort: cell("incident_sort")?,
            n,
            n_walls,
            cell_cap: 0,
            cell_start: GpuArray::zeroed(ctx, "cell start", 2)?,
            cell_cursor: GpuArray::zeroed(ctx, "cell cursor", 1)?,
            cell_spheres: GpuArray::zeroed(ctx, "cell spheres", (n as usize).max(1))?,
            grid: GpuArray::zeroed(ctx, "grid", 1)?,
            bounds: GpuArray::new(ctx, "bounds", &BOUNDS_RESET)?,
            args: GpuArray::zeroed(ctx, "build args", 3)?,
            template: GpuArray::zeroed(ctx, "build args template", 3)?,
            sizes: Vec::new(),
            scans: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// The cell buffers at `cap` cells (at least one).
    pub fn alloc_cells(&mut self, ctx: &GpuContext, cap: u32) -> anyhow::Result<()> {
        let cap = cap.max(1);
        self.cell_start = GpuArray::zeroed(ctx, "cell start", cap as usize + 1)?;
        self.cell_cursor = GpuArray::zeroed(ctx, "cell cursor", cap as usize)?;
        self.cell_cap = cap;
        Ok(())
    }

    /// Bytes of the build's own buffers (held between builds).
    pub fn bytes(&self) -> u64 {
        [
            self.cell_start.buffer().size(),
            self.cell_cursor.buffer().size(),
            self.cell_spheres.buffer().size(),
            self.grid.buffer().size(),
            self.bounds.buffer().size(),
            self.args.buffer().size(),
            self.template.buffer().size(),
        ]
        .iter()
        .sum()
    }

    /// The grid of the last build (a read-back: tests and diagnostics).
    pub fn grid(&self, ctx: &GpuContext) -> DeviceGrid {
        self.grid.read(ctx)[0]
    }

    /// Bind groups, prepared scans and the argument template for the stepper's current buffers
    /// (after any of them was reallocated).
    pub fn bind(&mut self, ctx: &GpuContext, b: &BuildBuffers<'_>) -> anyhow::Result<()> {
        let n = self.n;
        self.scans = vec![
            PrefixScan::new(ctx, self.cell_start.buffer(), self.cell_cap)?,
            PrefixScan::new(ctx, b.pair_start, n)?,
            PrefixScan::new(ctx, b.wall_index, n)?,
            PrefixScan::new(ctx, b.incident_start, n)?,
        ];
        // Workgroups of each dispatch, slots in `Slot` order then the scans'.
        let (nw, cells) = (self.n_walls, self.cell_cap);
        let d = |items: u32| dispatch_size(items, SPHERE_WG);
        let mut sizes = vec![(0, 0); N_SLOTS as usize];
        let set = |sizes: &mut Vec<(u32, u32)>, s: Slot, v: (u32, u32)| sizes[s as usize] = v;
        set(&mut sizes, Slot::ListSave, d(n));
        set(&mut sizes, Slot::BoundsReduce, d(n));
        set(&mut sizes, Slot::FitGrid, (1, 1));
        set(&mut sizes, Slot::CellClear, d(cells + 1));
        set(&mut sizes, Slot::CellCount, d(n));
        set(&mut sizes, Slot::CellCursor, d(cells));
        set(&mut sizes, Slot::CellScatter, d(n));
        set(&mut sizes, Slot::PairCount, d(n));
        set(&mut sizes, Slot::PairCheck, (1, 1));
        set(&mut sizes, Slot::WallCount, d(n));
        set(&mut sizes, Slot::WallFill, d(n));
        set(&mut sizes, Slot::PairFill, d(n));
        set(&mut sizes, Slot::PairCarry, d(n));
        set(&mut sizes, Slot::IncidentClear, d(n + 1));
        set(&mut sizes, Slot::IncidentCount, d(n));
        set(&mut sizes, Slot::IncidentCursor, d(n));
        set(&mut sizes, Slot::IncidentScatter, d(n));
        set(&mut sizes, Slot::IncidentSort, d(n));
        set(&mut sizes, Slot::Reference, d(n.max(nw)));
        for scan in &self.scans {
            sizes.extend(scan.dispatch_sizes());
        }
        let template: Vec<u32> = sizes.iter().flat_map(|&(x, y)| [x, y, 1]).collect();
        self.template = GpuArray::new(ctx, "build args template", &template)?;
        self.args = GpuArray::new_indirect(ctx, "build args", &vec![0u32; template.len()])?;
        self.sizes = sizes;
        let step_table = [
            (0, b.uniform),
            (1, b.spheres),
            (4, b.walls),
            (5, b.pair_start),
            (6, b.partner),
            (7, b.history),
            (22, b.history_rolling),
            (8, b.pair_out),
            (11, b.wall_history),
            (12, b.wall_out),
            (13, b.x_ref),
            (14, b.flags),
            (21, b.wall_index),
            (23, self.args.buffer()),
            (24, self.template.buffer()),
        ];
        let cell_table = [
            (0, b.uniform),
            (1, b.spheres),
            (2, self.cell_start.buffer()),
            (3, self.cell_cursor.buffer()),
            (4, self.cell_spheres.buffer()),
            (5, b.pair_start),
            (6, b.partner),
            // The saved row starts (list_save) are in x_ref until reference_positions.
            (7, b.x_ref),
            (12, b.history),
            (14, b.history_rolling),
            (15, b.incident_start),
            (16, b.incident),
            // The incident cursors (n words) in x_ref too: after pair_carry_packed read the saved
            // starts and after every check (no halt can follow), before reference_positions.
            (17, b.x_ref),
            (18, b.flags),
            (19, self.grid.buffer()),
            (20, self.bounds.buffer()),
            // The saved pairs (list_save) are in pair_out.
            (21, b.pair_out),
        ];
        self.groups = self
            .kernels()
            .iter()
            .enumerate()
            .map(|(k, kernel)| kernel.bind(ctx, if k < 5 { &step_table[..] } else { &cell_table[..] }))
            .collect();
        Ok(())
    }

    /// Kernels in bind-group order: the step shader's five, then the cell list's.
    fn kernels(&self) -> [&Kernel; 20] {
        [
            &self.decide,
            &self.list_save,
            &self.wall_count,
            &self.wall_fill,
            &self.reference,
            &self.bounds_reduce,
            &self.fit_grid,
            &self.clear,
            &self.count,
            &self.cursor,
            &self.scatter,
            &self.pair_count,
            &self.pair_check,
            &self.pair_fill,
            &self.pair_carry,
            &self.incident_clear,
            &self.incident_count,
            &self.incident_cursor,
            &self.incident_scatter,
            &self.incident_sort,
        ]
    }

    /// Records one build. `Indirect`: `rebuild_decide` first, then every kernel sized by it.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>, mode: BuildMode) {
        if mode == BuildMode::Indirect {
            pass.set_pipeline(&self.decide.pipeline);
            pass.set_bind_group(0, &self.groups[0], &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let run = |pass: &mut wgpu::ComputePass<'_>, group: usize, slot: Slot| {
            let kernel = self.kernels()[group];
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &self.groups[group], &[]);
            match mode {
                BuildMode::Indirect => pass.dispatch_workgroups_indirect(self.args.buffer(), slot as u64 * 12),
                BuildMode::Direct { .. } => {
                    let (x, y) = self.sizes[slot as usize];
                    pass.dispatch_workgroups(x, y, 1)
                }
            }
        };
        let scan = |pass: &mut wgpu::ComputePass<'_>, k: usize| {
            let first: usize =
                N_SLOTS as usize + self.scans[..k].iter().map(|s| s.dispatch_sizes().len()).sum::<usize>();
            match mode {
                BuildMode::Indirect => self.scans[k].record_indirect(pass, self.args.buffer(), first as u32),
                BuildMode::Direct { .. } => self.scans[k].record(pass),
            }
        };
        if mode != (BuildMode::Direct { save: false }) {
            run(pass, 1, Slot::ListSave);
        }
        run(pass, 5, Slot::BoundsReduce);
        run(pass, 6, Slot::FitGrid);
        run(pass, 7, Slot::CellClear);
        run(pass, 8, Slot::CellCount);
        scan(pass, 0);
        run(pass, 9, Slot::CellCursor);
        run(pass, 10, Slot::CellScatter);
        run(pass, 11, Slot::PairCount);
        scan(pass, 1);
        run(pass, 12, Slot::PairCheck);
        run(pass, 2, Slot::WallCount);
        scan(pass, 2);
        run(pass, 3, Slot::WallFill);
        run(pass, 13, Slot::PairFill);
        run(pass, 14, Slot::PairCarry);
        run(pass, 15, Slot::IncidentClear);
        run(pass, 16, Slot::IncidentCount);
        scan(pass, 3);
        run(pass, 17, Slot::IncidentCursor);
        run(pass, 18, Slot::IncidentScatter);
        run(pass, 19, Slot::IncidentSort);
        run(pass, 4, Slot::Reference);
    }
}

/// Who decides the list builds of `GpuSpheres::steps_batched`. Both schedules run the same
/// builds at the same steps with the same kernels on the same data, so the results are the same
/// bits (test `tests/gpu_sphere_schedule.rs`); they differ in what a step records and in the
/// host round trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RebuildSchedule {
    /// A step records no build dispatch: `wall_advance` halts the batch when a build is due (a
    /// wall's check, or the spheres' of `kick_drift`; `displacement_check` in the unfused step) (`HALT_DUE`, as an overflow halts it); the host, which reads the flags at the
    /// end of every batch anyway, records the build with direct dispatches at the start of the
    /// next submission, then the halted step's forces, and goes on. Costs per build: the halted
    /// batch's remaining steps (recorded, returning at once) and one more submission. Extra
    /// force sources rebuild their candidate lists there (`GpuExtraForces::rebuild`).
    Host,
    /// Every step records the whole build as indirect dispatches sized on the device
    /// (`rebuild_decide`, zero when no build is due): no round trip per build, ~25 dispatches
    /// per step. Not with extra force sources (they rebuild on the host): those steps go one
    /// per submission pair (`GpuSpheres::step_with_sources`).
    Device,
    /// `Host` while the builds come less often than every `AUTO_DEVICE_BELOW` steps on average
    /// (recent builds, `BuildPace`), `Device` when they come more often; `Host` with sources.
    Auto,
}

/// Below this mean number of steps between builds `Auto` records the builds on the device
/// (measured on lavapipe: docs/spheres.md, *Rebuild schedule*).
pub const AUTO_DEVICE_BELOW: f64 = 8.0;

/// Fewest steps of a host-decided submission sized by the pace (`BuildPace::host_batch`).
pub const HOST_BATCH_MIN: u32 = 4;

impl RebuildSchedule {
    /// `SOFTDEM_GPU_REBUILD`: `host`, `gpu` (Device) or `auto` (unset: Auto); the 2D engine's
    /// variable, with the same two values.
    pub fn from_env() -> anyhow::Result<RebuildSchedule> {
        match std::env::var("SOFTDEM_GPU_REBUILD").as_deref() {
            Err(_) | Ok("auto") => Ok(RebuildSchedule::Auto),
            Ok("host") => Ok(RebuildSchedule::Host),
            Ok("gpu") => Ok(RebuildSchedule::Device),
            Ok(other) => anyhow::bail!("SOFTDEM_GPU_REBUILD={other:?}: expected `host`, `gpu` or `auto`"),
        }
    }
}

/// The recent pace of the builds: a running mean of the steps between builds (weight 1/4 for
/// the newest interval), read by `RebuildSchedule::Auto`.
#[derive(Clone, Copy, Debug)]
pub struct BuildPace {
    mean: f64,
    /// Steps since the last build.
    since: u64,
}

impl Default for BuildPace {
    fn default() -> Self {
        BuildPace {
            mean: f64::INFINITY,
            since: 0,
        }
    }
}

impl BuildPace {
    /// `steps` steps with `builds` builds among them (spread evenly when a batch reports only
    /// the count).
    pub fn record(&mut self, steps: u64, builds: u64) {
        if builds == 0 {
            self.since += steps;
            return;
        }
        let interval = (self.since + steps) as f64 / builds as f64;
        for _ in 0..builds {
            self.mean = if self.mean.is_finite() {
                0.75 * self.mean + 0.25 * interval
            } else {
                interval
            };
        }
        self.since = 0;
    }

    /// Mean steps between builds, the current build-free stretch counted once it is longer.
    pub fn interval(&self) -> f64 {
        self.mean.max(self.since as f64)
    }

    /// Steps of the next host-decided submission, at most `batch`: about the steps left to the
    /// next build at the recent pace (one more, so that the halt falls inside the batch), at
    /// least `HOST_BATCH_MIN`; once the current build-free stretch passes half the mean, as many
    /// steps as it has lasted (a pause in the builds grows the batches geometrically). A halted batch's remaining steps are recorded and return at
    /// once, which costs a dispatch each on a CPU device (lavapipe: ~20 µs) and on a GPU; a
    /// batch that ends before the build only costs a read of the flags. The result does not
    /// depend on it (the batch length never does).
    pub fn host_batch(&self, batch: u32) -> u32 {
        let batch = batch.max(1);
        if !self.mean.is_finite() {
            return batch;
        }
        let since = self.since as f64;
        let ahead = (self.mean - since).max(since).ceil() + 1.0;
        (ahead.min(batch as f64) as u32).max(HOST_BATCH_MIN).min(batch)
    }

    /// Whether the next batch's builds are decided by the host under `schedule`.
    pub fn host_decides(&self, schedule: RebuildSchedule) -> bool {
        match schedule {
            RebuildSchedule::Host => true,
            RebuildSchedule::Device => false,
            RebuildSchedule::Auto => self.interval() >= AUTO_DEVICE_BELOW,
        }
    }
}
