//! GPU stepper of the sphere kind: the passes of `cpu_stepper` as kernels of
//! `shaders/sphere_step.wgsl` (MC-stress's two passes included), over buffers held here. Many
//! steps are recorded per submission (`steps_batched`); the host reads the flags (9 words) once
//! per batch. The list builds run on the device (`gpu_rebuild`: the grid fitted to the bounding
//! box, bins, counts, rows, the history carried by key, the j-side incident lists, the
//! sphere–wall candidates and the reference positions) and are scheduled as `schedule` says
//! (`RebuildSchedule`): host-decided (a due build halts the batch and starts the next
//! submission, with direct dispatches; steps record no build dispatch) or device-decided (every
//! step records the build as indirect dispatches sized on the device); `Auto` picks by the pace
//! of the builds. Capacities have headroom; a build that exceeds one halts the batch, and the
//! host grows the buffers and redoes that build. The list is read back only for outputs
//! (`list`). Extra force sources (membranes, beads) rebuild their own candidate lists from host
//! states at the host-decided builds, so batches run with them too (`extra_force`).
//! Pair records are packed (no vec3 padding) and the rolling history is held only when a law
//! uses it: 4 (partner) + 12 (tangential history) + 44 (result) + 4 (j-side incident) = 64 B per
//! candidate pair (docs/spheres.md, *Records*).
//! Sphere–wall contacts are kept for the candidates of the build only (`wall_index`, as the CPU
//! twin's `wall_slots`), so their records cost memory per candidate, not per sphere and wall.

mod profile;

use super::cell_list::NeighborList;
use super::contact::ContactHistory;
use super::cpu_stepper::PairOut;
use super::extra_force::{Evaluation, GpuExtraForces};
use super::gpu_pass::{dispatch, params_uniform};
use super::gpu_rebuild::{
    BuildBuffers, BuildMode, BuildPace, DeviceBuild, DeviceGrid, RebuildSchedule, FLAG_BEGUN, FLAG_BUILDS, FLAG_CELLS,
    FLAG_DUE, FLAG_HALT, FLAG_HOST_DECIDES, FLAG_PAIRS, FLAG_WALL_CANDIDATES, FLAG_WORDS, HALT_DUE, HALT_OVERFLOW,
};
use super::pair_law::LawTable;
use super::state::{SphereForce, SphereParams, SphereState};
use super::wall::PlaneWall;
use crate::gpu::array::GpuArray;
use crate::gpu::context::GpuContext;
use crate::gpu::kernel::Kernel;

struct StepKernels {
    kick_drift: Kernel,
    wall_advance: Kernel,
    pair_pass: Kernel,
    wall_pass: Kernel,
    gather: Kernel,
    gather_kick: Kernel,
    wall_gather: Kernel,
    normal_pass: Kernel,
    wall_normal_pass: Kernel,
    stress_pass: Kernel,
    strain_pass: Kernel,
    kick: Kernel,
    drift: Kernel,
    displacement_check: Kernel,
}

/// Index of each kernel's bind group in `GpuSpheres::bind` (`StepKernels` order).
mod bg {
    pub const KICK_DRIFT: usize = 0;
    pub const WALL_ADVANCE: usize = 1;
    pub const PAIR_PASS: usize = 2;
    pub const WALL_PASS: usize = 3;
    pub const GATHER: usize = 4;
    pub const GATHER_KICK: usize = 5;
    pub const WALL_GATHER: usize = 6;
    pub const NORMAL_PASS: usize = 7;
    pub const WALL_NORMAL_PASS: usize = 8;
    pub const STRESS_PASS: usize = 9;
    pub const STRAIN_PASS: usize = 10;
    pub const KICK: usize = 11;
    pub const DRIFT: usize = 12;
    pub const DISPLACEMENT_CHECK: usize = 13;
}

/// f32 words of one pair's result in `pair_out` (`PAIR_OUT_WORDS` in `shaders/sphere_step.wgsl`):
/// force (3), f_n, torque on i (3), energy, torque on j (3).
const PAIR_OUT_WORDS: usize = 11;

/// Buffers that change size at a rebuild.
struct ListBuffers {
    pair_start: GpuArray<u32>,
    partner: GpuArray<u32>,
    /// Tangential history, 3 f32 per pair.
    history: GpuArray<f32>,
    /// Rolling torque history, 3 f32 per pair when some law has rolling resistance (else 1).
    history_rolling: GpuArray<f32>,
    /// `PAIR_OUT_WORDS` f32 per pair.
    pair_out: GpuArray<f32>,
    pair_trace: GpuArray<[f32; 2]>,
    pair_strain: GpuArray<f32>,
    incident_start: GpuArray<u32>,
    incident: GpuArray<u32>,
    /// Positions at the last build (3 per sphere, then 3 per wall point); during a build its
    /// first n + 1 words hold the saved row starts (`gpu_rebuild`).
    x_ref: GpuArray<f32>,
}

/// A sphere system stepped on the GPU.
pub struct GpuSpheres {
    k: StepKernels,
    build: DeviceBuild,
    pub params: SphereParams,
    uniform: wgpu::Buffer,
    spheres: GpuArray<SphereState>,
    forces: GpuArray<SphereForce>,
    laws: GpuArray<super::pair_law::PairLaw>,
    walls: GpuArray<PlaneWall>,
    /// Sphere–wall history and result per candidate of the last build (`wall_index` order).
    wall_history: GpuArray<ContactHistory>,
    wall_out: GpuArray<PairOut>,
    /// CSR starts of each sphere's candidates (n + 1), then each candidate's slot s · nw + w.
    wall_index: GpuArray<u32>,
    /// Sphere–wall candidates the wall buffers hold (≥ the last build's; 0 before the first).
    wall_cap: usize,
    /// `step_flags` (`gpu_rebuild::FLAG_*`, `FLAG_WORDS` words).
    flags: GpuArray<u32>,
    wall_trace: GpuArray<f32>,
    stress_trace: GpuArray<f32>,
    wall_strain: GpuArray<f32>,
    /// Whether the law table uses MC-stress or MC-strain (pass 1 and the stress pass then run).
    pub mc: bool,
    /// Whether it uses MC-strain (`strain_pass` then runs).
    pub strain: bool,
    /// Whether some law has rolling resistance (the rolling history is then held per pair).
    rolling: bool,
    lists: ListBuffers,
    /// Candidate pairs of the current list (`step_flags[4]`, read with the batch's flags).
    total: usize,
    /// Pairs the pair buffers hold (≥ `total`); grown by an eighth over the total when a
    /// build's count exceeds it (0 before the first build, which allocates the total exactly).
    cap: usize,
    /// Builds that grew the pair buffers (the first allocation not counted).
    pub growths: u64,
    /// Builds halted by an overflow (cells, pairs or wall candidates) and redone after growing.
    pub redone: u64,
    /// Read-backs (`map_async`) made by the stepping methods (`step`, `steps_batched`,
    /// `rebuild`): one per batch, plus one per redone build (tests count them).
    pub stepping_reads: u64,
    /// Submissions of steps by `steps_batched` (a batch; the redo of a halted build with the
    /// rest of its step; each half of a step with sources).
    pub step_submissions: u64,
    bind: Vec<wgpu::BindGroup>,
    pub rebuilds: u64,
    pub steps: u64,
    /// Steps recorded per submission by `steps_batched` (the result does not depend on it).
    pub batch: u32,
    /// Who decides the list builds of `steps_batched` (the result does not depend on it; from
    /// `SOFTDEM_GPU_REBUILD`, else `Auto`).
    pub schedule: RebuildSchedule,
    /// The recent steps between builds (`RebuildSchedule::Auto`).
    pace: BuildPace,
    /// The build the next host-decided submission starts with, if a halt left one due:
    /// Some(true) after a due build halted a batch (save the list first), Some(false) after
    /// that build overflowed (redo it from the list it saved).
    build_next: Option<bool>,
    /// List builds recorded into submissions (direct or indirect: the device-decided schedule
    /// records one in every step, the host-decided one only where a build runs).
    pub builds_recorded: u64,
    /// Extra force sources (`extra_force`) and the per-sphere buffer they add to (one
    /// `SphereForce` per sphere; a placeholder, skipped by the gather, until a source is attached).
    extra: Vec<Box<dyn GpuExtraForces>>,
    extra_force: GpuArray<SphereForce>,
    /// Whether steps run the fused kernels (`kick_drift`, `gather_kick`; default) or the unfused
    /// sequence kick, drift, wall_advance, displacement_check, …, gather, wall_gather, kick (the
    /// same operations in the same order per sphere: the result is the same bits; kept for the
    /// test `gpu_sphere_fused.rs` and the per-kernel comparison). From `SOFTDEM_GPU_UNFUSED=1`.
    pub fused: bool,
}

impl GpuSpheres {
    /// As `CpuSpheres::new`: uploads, builds the list and computes the initial forces with the
    /// history left at zero.
    pub fn new(
        ctx: &GpuContext,
        mut params: SphereParams,
        states: &[SphereState],
        laws: &LawTable,
        walls: &[PlaneWall],
    ) -> anyhow::Result<GpuSpheres> {
        params.n_spheres = states.len() as u32;
        params.n_walls = walls.len() as u32;
        params.n_materials = laws.n_materials as u32;
        let kn = |e| Kernel::new(ctx, "sphere_step", e);
        let k = StepKernels {
            kick_drift: kn("kick_drift")?,
            wall_advance: kn("wall_advance")?,
            pair_pass: kn("pair_pass")?,
            wall_pass: kn("wall_pass")?,
            gather: kn("gather")?,
            gather_kick: kn("gather_kick")?,
            wall_gather: kn("wall_gather")?,
            normal_pass: kn("normal_pass")?,
            wall_normal_pass: kn("wall_normal_pass")?,
            stress_pass: kn("stress_pass")?,
            strain_pass: kn("strain_pass")?,
            kick: kn("kick")?,
            drift: kn("drift")?,
            displacement_check: kn("displacement_check")?,
        };
        let n = states.len();
        let nw = walls.len();
        let empty = |ctx| -> anyhow::Result<ListBuffers> {
            Ok(ListBuffers {
                pair_start: GpuArray::zeroed(ctx, "pair start", n + 1)?,
                partner: GpuArray::zeroed(ctx, "partner", 1)?,
                history: GpuArray::zeroed(ctx, "history", 3)?,
                history_rolling: GpuArray::zeroed(ctx, "rolling history", 1)?,
                pair_out: GpuArray::zeroed(ctx, "pair out", 0)?,
                pair_trace: GpuArray::zeroed(ctx, "pair trace", 0)?,
                pair_strain: GpuArray::zeroed(ctx, "pair strain", 0)?,
                incident_start: GpuArray::zeroed(ctx, "incident start", n + 1)?,
                incident: GpuArray::zeroed(ctx, "incident", 1)?,
                x_ref: GpuArray::zeroed(ctx, "x ref", (3 * (n + nw)).max(n + 1))?,
            })
        };
        let mut sys = GpuSpheres {
            k,
            build: DeviceBuild::new(ctx, n as u32, nw as u32)?,
            params,
            uniform: params_uniform(ctx, &params),
            spheres: GpuArray::new(ctx, "spheres", states)?,
            forces: GpuArray::zeroed(ctx, "forces", n)?,
            laws: GpuArray::new(ctx, "laws", &laws.laws)?,
            walls: GpuArray::new(ctx, "walls", walls)?,
            wall_history: GpuArray::zeroed(ctx, "wall history", 1)?,
            wall_out: GpuArray::zeroed(ctx, "wall out", 1)?,
            wall_index: GpuArray::zeroed(ctx, "wall index", n + 2)?,
            wall_cap: 0,
            flags: GpuArray::zeroed(ctx, "step flags", FLAG_WORDS)?,
            // MC buffers hold one element without MC in the law table (never read then; a
            // binding may not be empty).
            wall_trace: GpuArray::zeroed(ctx, "wall trace", if laws.has_mc_stress() { n * nw } else { 1 })?,
            stress_trace: GpuArray::zeroed(ctx, "stress trace", if laws.has_mc_stress() { n } else { 1 })?,
            wall_strain: GpuArray::zeroed(ctx, "wall strain", if laws.has_mc_strain() { n * nw } else { 1 })?,
            mc: laws.has_mc_stress(),
            strain: laws.has_mc_strain(),
            rolling: laws.has_rolling(),
            lists: empty(ctx)?,
            total: 0,
            cap: 0,
            growths: 0,
            redone: 0,
            stepping_reads: 0,
            step_submissions: 0,
            bind: Vec::new(),
            rebuilds: 0,
            steps: 0,
            batch: 32,
            schedule: RebuildSchedule::from_env()?,
            pace: BuildPace::default(),
            build_next: None,
            builds_recorded: 0,
            extra: Vec::new(),
            extra_force: GpuArray::zeroed(ctx, "extra force", 0)?,
            fused: std::env::var("SOFTDEM_GPU_UNFUSED").map_or(true, |v| v != "1"),
        };
        // The first build: from an empty list (nothing to carry), every capacity sized by it
        // (pairs and wall candidates exactly: `cap` 0 until it is done).
        sys.alloc_pairs(ctx, 1)?;
        sys.cap = 0;
        sys.make_bind_groups(ctx)?;
        sys.build_now(ctx, true)?;
        sys.cap = sys.cap.max(1);
        sys.wall_cap = sys.wall_cap.max(1);
        sys.rebuilds += 1;
        let saved = sys.save_histories(ctx);
        sys.submit(ctx, |s, pass| s.record_forces(pass, 0, false));
        sys.restore_histories(ctx, &saved);
        Ok(sys)
    }

    fn submit(&self, ctx: &GpuContext, f: impl FnOnce(&Self, &mut wgpu::ComputePass<'_>)) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            f(self, &mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
    }

    /// Bind groups of the kernels in `StepKernels` order, and the build's.
    fn make_bind_groups(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        let l = &self.lists;
        let table = [
            (0, &self.uniform),
            (1, self.spheres.buffer()),
            (2, self.forces.buffer()),
            (3, self.laws.buffer()),
            (4, self.walls.buffer()),
            (5, l.pair_start.buffer()),
            (6, l.partner.buffer()),
            (7, l.history.buffer()),
            (8, l.pair_out.buffer()),
            (9, l.incident_start.buffer()),
            (10, l.incident.buffer()),
            (11, self.wall_history.buffer()),
            (12, self.wall_out.buffer()),
            (13, l.x_ref.buffer()),
            (14, self.flags.buffer()),
            (15, l.pair_trace.buffer()),
            (16, self.wall_trace.buffer()),
            (17, self.stress_trace.buffer()),
            (18, l.pair_strain.buffer()),
            (19, self.wall_strain.buffer()),
            (20, self.extra_force.buffer()),
            (21, self.wall_index.buffer()),
            (22, l.history_rolling.buffer()),
        ];
        let k = &self.k;
        self.bind = [
            &k.kick_drift,
            &k.wall_advance,
            &k.pair_pass,
            &k.wall_pass,
            &k.gather,
            &k.gather_kick,
            &k.wall_gather,
            &k.normal_pass,
            &k.wall_normal_pass,
            &k.stress_pass,
            &k.strain_pass,
            &k.kick,
            &k.drift,
            &k.displacement_check,
        ]
        .iter()
        .map(|kernel| kernel.bind(ctx, &table))
        .collect();
        self.build.bind(
            ctx,
            &BuildBuffers {
                uniform: &self.uniform,
                spheres: self.spheres.buffer(),
                walls: self.walls.buffer(),
                pair_start: l.pair_start.buffer(),
                partner: l.partner.buffer(),
                history: l.history.buffer(),
                history_rolling: l.history_rolling.buffer(),
                pair_out: l.pair_out.buffer(),
                incident_start: l.incident_start.buffer(),
                incident: l.incident.buffer(),
                wall_history: self.wall_history.buffer(),
                wall_out: self.wall_out.buffer(),
                wall_index: self.wall_index.buffer(),
                x_ref: l.x_ref.buffer(),
                flags: self.flags.buffer(),
            },
        )
    }

    /// One force evaluation; `eval` is its index in the submission (the sources' `record_at`).
    /// `close`: with the step's closing kick (fused into the gather, `gather_kick`, unless
    /// `fused` is off); without it for a force evaluation alone (initial forces, a source added).
    fn record_forces(&self, pass: &mut wgpu::ComputePass<'_>, eval: u32, close: bool) {
        let (n, nw) = (self.params.n_spheres, self.params.n_walls);
        if self.mc {
            dispatch(pass, &self.k.normal_pass, &self.bind[bg::NORMAL_PASS], n);
            dispatch(pass, &self.k.wall_normal_pass, &self.bind[bg::WALL_NORMAL_PASS], n * nw);
            dispatch(pass, &self.k.stress_pass, &self.bind[bg::STRESS_PASS], n);
        }
        if self.strain {
            dispatch(pass, &self.k.strain_pass, &self.bind[bg::STRAIN_PASS], n);
        }
        // --- extra force sources (extra_force.rs), before the gather ---
        for src in &self.extra {
            src.record_at(pass, eval);
        }
        // --- end extra ---
        dispatch(pass, &self.k.pair_pass, &self.bind[bg::PAIR_PASS], n);
        if nw > 0 {
            // Over the capacity: wall_pass returns past the build's count (wall_index[n]).
            dispatch(
                pass,
                &self.k.wall_pass,
                &self.bind[bg::WALL_PASS],
                self.wall_cap.max(1) as u32,
            );
        }
        if close && self.fused {
            dispatch(pass, &self.k.gather_kick, &self.bind[bg::GATHER_KICK], n);
        } else {
            dispatch(pass, &self.k.gather, &self.bind[bg::GATHER], n);
        }
        // One workgroup of 256 lanes per wall (the fixed-order reduction of wall_reduce.rs).
        if nw > 0 {
            pass.set_pipeline(&self.k.wall_gather.pipeline);
            pass.set_bind_group(0, &self.bind[bg::WALL_GATHER], &[]);
            pass.dispatch_workgroups(nw, 1, 1);
        }
        if close && !self.fused {
            dispatch(pass, &self.k.kick, &self.bind[bg::KICK], n);
        }
    }

    /// The opening of a step up to its displacement checks. Fused: `kick_drift`, then
    /// `wall_advance` (one workgroup: the walls, and under the host-decided schedule the halt of a
    /// build the spheres found due; skipped when there are no walls and the device decides).
    /// Unfused: kick, drift, wall_advance, displacement_check.
    fn record_opening(&self, pass: &mut wgpu::ComputePass<'_>, host_decides: bool) {
        let (n, nw) = (self.params.n_spheres, self.params.n_walls);
        let walls = |pass: &mut wgpu::ComputePass<'_>| {
            if nw > 0 || host_decides {
                pass.set_pipeline(&self.k.wall_advance.pipeline);
                pass.set_bind_group(0, &self.bind[bg::WALL_ADVANCE], &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        };
        if self.fused {
            dispatch(pass, &self.k.kick_drift, &self.bind[bg::KICK_DRIFT], n);
            walls(pass);
        } else {
            dispatch(pass, &self.k.kick, &self.bind[bg::KICK], n);
            dispatch(pass, &self.k.drift, &self.bind[bg::DRIFT], n);
            walls(pass);
            dispatch(pass, &self.k.displacement_check, &self.bind[bg::DISPLACEMENT_CHECK], n);
        }
    }

    /// One time step (`steps_batched` with one step).
    pub fn step(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        self.steps_batched(ctx, 1)
    }

    /// `k` time steps, `batch` per submission with one read-back per batch (the flag words).
    /// The list builds are decided as `schedule` says (`RebuildSchedule`): on the host (a due
    /// build halts the batch, the host records it with direct dispatches at the start of the
    /// next submission and resumes at the halted step; steps record no build dispatch) or on the
    /// device (every step records the whole build as indirect dispatches that `rebuild_decide`
    /// sizes, zero unless some sphere or wall point moved half the skin). When a build exceeds a
    /// capacity (cells, pairs, wall candidates) it halts the batch before writing what it needs
    /// again (`gpu_rebuild`); the host grows the buffers, redoes that build and finishes the
    /// step. The same kernels run in the same order on the same data in both schedules and at
    /// any `batch`, so the result depends on neither (tests `gpu_sphere_batch.rs`,
    /// `gpu_sphere_schedule.rs`). With extra force sources the builds are the host's (the
    /// sources rebuild their lists from host states); a source that is not `batchable`, or the
    /// `Device` schedule, steps one step per submission pair (`step_with_sources`).
    pub fn steps_batched(&mut self, ctx: &GpuContext, k: u32) -> anyhow::Result<()> {
        let mut left = k;
        if !self.extra.is_empty() {
            if self.schedule == RebuildSchedule::Device || !self.extra.iter().all(|s| s.batchable()) {
                for _ in 0..k {
                    self.step_with_sources(ctx)?;
                }
                return Ok(());
            }
            while left > 0 {
                left -= self.batch_host_decided(ctx, left)?;
            }
            return Ok(());
        }
        while left > 0 {
            // A build left due by a halt is the host's whatever the next batch's schedule.
            left -= if self.build_next.is_some() || self.pace.host_decides(self.schedule) {
                self.batch_host_decided(ctx, left)?
            } else {
                self.batch_device_decided(ctx, left)?
            };
        }
        Ok(())
    }

    /// One submission of at most `batch` of the `left` steps, the builds decided on the device;
    /// returns the steps finished.
    fn batch_device_decided(&mut self, ctx: &GpuContext, left: u32) -> anyhow::Result<u32> {
        let b = left.min(self.batch.max(1));
        self.clear_flags(ctx, false);
        self.builds_recorded += b as u64;
        self.step_submissions += 1;
        self.submit(ctx, |s, pass| {
            for i in 0..b {
                s.record_opening(pass, false);
                s.build.record(pass, BuildMode::Indirect);
                s.record_forces(pass, i, true);
            }
        });
        let flags = self.read_flags(ctx);
        self.rebuilds += flags[FLAG_BUILDS] as u64;
        self.total = flags[FLAG_PAIRS] as usize;
        if flags[FLAG_HALT] == 0 {
            self.steps += b as u64;
            self.pace.record(b as u64, flags[FLAG_BUILDS] as u64);
            return Ok(b);
        }
        // Step `begun` (counted from 1 in this batch) halted in its build.
        let begun = flags[FLAG_BEGUN].clamp(1, b);
        self.grow(ctx, &flags)?;
        self.build_now(ctx, false)?;
        self.builds_recorded += 1;
        self.step_submissions += 1;
        self.submit(ctx, |s, pass| s.record_forces(pass, 0, true));
        self.steps += begun as u64;
        self.pace.record(begun as u64, flags[FLAG_BUILDS] as u64);
        Ok(begun)
    }

    /// One submission of at most `batch` of the `left` steps, the builds decided by the host;
    /// returns the steps finished. It starts with the build a halt left due (`build_next`) and
    /// the forces and closing kick of the halted step (its drift and checks ran before the halt),
    /// then whole steps that record no build: `wall_advance` (after `kick_drift`'s checks) halts
    /// the batch at the first step whose build is due (`HALT_DUE`), the kernels after it return at
    /// once. The host sees the halt in the batch's one read of the flags; with sources it then
    /// reads the states and rebuilds their lists (their kernels run only after the build).
    fn batch_host_decided(&mut self, ctx: &GpuContext, left: u32) -> anyhow::Result<u32> {
        let b = left.min(self.pace.host_batch(self.batch));
        let build = self.build_next.take();
        self.clear_flags(ctx, true);
        // Evaluation i of the submission is step i's (the halted step's, with the build, is 0).
        self.prepare_sources(ctx, b)?;
        self.builds_recorded += build.is_some() as u64;
        self.step_submissions += 1;
        self.submit(ctx, |s, pass| {
            let mut first = 0;
            if let Some(save) = build {
                s.build.record(pass, BuildMode::Direct { save });
                s.record_forces(pass, 0, true);
                s.record_after_step(pass);
                first = 1;
            }
            for i in first..b {
                s.record_opening(pass, true);
                s.record_forces(pass, i, true);
                s.record_after_step(pass);
            }
        });
        let flags = self.read_flags(ctx);
        self.total = flags[FLAG_PAIRS] as usize;
        let halt = flags[FLAG_HALT];
        if halt == HALT_OVERFLOW {
            // Only the build at the start builds: nothing ran after it. Redo it from the list
            // it saved, in grown buffers.
            anyhow::ensure!(build.is_some(), "a host-decided batch overflowed without a build");
            self.grow(ctx, &flags)?;
            self.build_next = Some(false);
            return Ok(0);
        }
        let built = build.is_some() as u32;
        self.rebuilds += built as u64;
        // The pace counts a halted step with its build at the halt (not again when finished).
        if halt == 0 {
            self.steps += b as u64;
            self.pace.record((b - built) as u64, 0);
            self.sources_evaluated(b);
            return Ok(b);
        }
        anyhow::ensure!(halt == HALT_DUE, "step flags: halt {halt}");
        // Whole steps begun in this batch (drifts); the last of them halted before its forces.
        let begun = flags[FLAG_BEGUN];
        anyhow::ensure!(
            begun >= 1 && built + begun <= b,
            "step flags: {begun} steps begun in a batch of {b}"
        );
        // The evaluations that ran: the halted build's step's and those of the whole steps.
        let done = built + begun - 1;
        self.sources_evaluated(done);
        self.steps += done as u64;
        self.pace.record((done + 1 - built) as u64, 1);
        self.build_next = Some(true);
        self.rebuild_sources(ctx)?;
        Ok(done)
    }

    /// Clears the halt, steps-begun, due and build-count words for a batch and says who decides
    /// its builds (`FLAG_HOST_DECIDES`).
    fn clear_flags(&self, ctx: &GpuContext, host_decides: bool) {
        self.flags.write(ctx, &[0; 4]);
        let at = (FLAG_HOST_DECIDES * std::mem::size_of::<u32>()) as u64;
        ctx.queue
            .write_buffer(self.flags.buffer(), at, bytemuck::bytes_of(&(host_decides as u32)));
    }

    /// The sources' `rebuild` from the current states (read back, counted in `stepping_reads`):
    /// after the sphere list's build, or (host-decided) before it, at the halt (the build does
    /// not move the spheres, so the states are the same).
    fn rebuild_sources(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        if self.extra.is_empty() {
            return Ok(());
        }
        self.stepping_reads += 1;
        let states = self.spheres.read(ctx);
        for src in &mut self.extra {
            src.rebuild(ctx, &states, self.params.skin)?;
        }
        Ok(())
    }

    /// The sources' `prepare_batch` for the at most `count` evaluations of the next submission
    /// (none without sources).
    fn prepare_sources(&mut self, ctx: &GpuContext, count: u32) -> anyhow::Result<()> {
        let eval = Evaluation {
            dt: self.params.dt,
            advance: true,
        };
        for src in &mut self.extra {
            src.prepare_batch(ctx, eval, count)?;
        }
        Ok(())
    }

    /// Tells the sources that `count` evaluations of the last submission ran.
    fn sources_evaluated(&mut self, count: u32) {
        for src in &mut self.extra {
            src.evaluated(count);
        }
    }

    /// The sources' dispatches after a step's closing kick (`GpuExtraForces::record_after_step`).
    fn record_after_step(&self, pass: &mut wgpu::ComputePass<'_>) {
        for src in &self.extra {
            src.record_after_step(pass);
        }
    }

    /// The step flags (one read-back, counted in `stepping_reads`).
    fn read_flags(&mut self, ctx: &GpuContext) -> Vec<u32> {
        self.stepping_reads += 1;
        self.flags.read(ctx)
    }

    /// A build recorded with direct dispatches (the host knows one is due): `save` the current
    /// list first, or (false) redo a halted build from the list it saved. Grows the capacities
    /// and redoes the build while it halts on one; reads the flags once per try.
    fn build_now(&mut self, ctx: &GpuContext, save: bool) -> anyhow::Result<()> {
        let mut save = save;
        loop {
            self.flags.write(ctx, &[0]);
            self.submit(ctx, |s, pass| s.build.record(pass, BuildMode::Direct { save }));
            let flags = self.read_flags(ctx);
            self.total = flags[FLAG_PAIRS] as usize;
            if flags[FLAG_HALT] == 0 {
                return Ok(());
            }
            self.grow(ctx, &flags)?;
            save = false;
        }
    }

    /// After a build halted on a capacity: the cell, pair or wall-candidate buffers grown to what
    /// it needed (pairs and candidates: exactly at the first build, else an eighth over; cells
    /// an eighth over). The saved list (in `pair_out` and `wall_out`, see `gpu_rebuild`) is
    /// copied into the grown buffers, so the redo carries the same history.
    fn grow(&mut self, ctx: &GpuContext, flags: &[u32]) -> anyhow::Result<()> {
        self.redone += 1;
        let cells = flags[FLAG_CELLS];
        if cells > self.build.cell_cap {
            self.build.alloc_cells(ctx, cells + cells / 8)?;
        }
        let pairs = flags[FLAG_PAIRS] as usize;
        if pairs > self.cap.max(1) {
            let saved = self.lists.pair_out.buffer().clone();
            if self.cap > 0 {
                self.growths += 1;
            }
            self.alloc_pairs(ctx, if self.cap == 0 { pairs } else { pairs + pairs / 8 })?;
            carry_over(ctx, &saved, self.lists.pair_out.buffer());
        }
        let candidates = flags[FLAG_WALL_CANDIDATES] as usize;
        if candidates > self.wall_cap.max(1) {
            let saved = self.wall_out.buffer().clone();
            let cap = if self.wall_cap == 0 {
                candidates
            } else {
                candidates + candidates / 8
            };
            self.alloc_walls(ctx, cap)?;
            carry_over(ctx, &saved, self.wall_out.buffer());
        }
        self.make_bind_groups(ctx)
    }

    /// The wall-candidate buffers at capacity `cap` (at least one: a binding may not be empty).
    fn alloc_walls(&mut self, ctx: &GpuContext, cap: usize) -> anyhow::Result<()> {
        let cap = cap.max(1);
        let n = self.params.n_spheres as usize;
        self.wall_history = GpuArray::zeroed(ctx, "wall history", cap)?;
        self.wall_out = GpuArray::zeroed(ctx, "wall out", cap)?;
        self.wall_index = GpuArray::zeroed(ctx, "wall index", n + 1 + cap)?;
        self.wall_cap = cap;
        Ok(())
    }

    /// One step with extra force sources: the drift half, the rebuild if the device flags one,
    /// the sources' `prepare`, then the forces and the closing kick.
    fn step_with_sources(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        self.clear_flags(ctx, false);
        self.step_submissions += 2;
        self.submit(ctx, |s, pass| s.record_opening(pass, false));
        if self.read_flags(ctx)[FLAG_DUE] != 0 {
            self.rebuild(ctx)?;
        } else {
            self.pace.record(1, 0);
        }
        self.prepare_sources(ctx, 1)?;
        self.submit(ctx, |s, pass| {
            s.record_forces(pass, 0, true);
            s.record_after_step(pass);
        });
        self.sources_evaluated(1);
        self.steps += 1;
        Ok(())
    }

    /// Attaches an extra force source (bound to the sphere and extra-force buffers, then its
    /// `rebuild`) and recomputes the current forces with it, force only: histories kept (as
    /// `CpuSpheres::add_extra`).
    pub fn add_extra(&mut self, ctx: &GpuContext, mut source: Box<dyn GpuExtraForces>) -> anyhow::Result<()> {
        if self.extra.is_empty() {
            self.extra_force = GpuArray::zeroed(ctx, "extra force", self.params.n_spheres as usize)?;
        }
        source.bind(ctx, self.spheres.buffer(), self.extra_force.buffer())?;
        source.bind_step(ctx, self.flags.buffer(), self.walls.buffer())?;
        source.bind_forces(ctx, self.forces.buffer())?;
        source.rebuild(ctx, &self.spheres.read(ctx), self.params.skin)?;
        self.extra.push(source);
        self.make_bind_groups(ctx)?;
        let saved = self.save_histories(ctx);
        let eval = Evaluation {
            dt: self.params.dt,
            advance: false,
        };
        for src in &mut self.extra {
            src.prepare_batch(ctx, eval, 1)?;
        }
        self.submit(ctx, |s, pass| s.record_forces(pass, 0, false));
        self.sources_evaluated(1);
        self.restore_histories(ctx, &saved);
        Ok(())
    }

    /// The attached extra force sources (to read what they measured).
    pub fn extra(&self) -> &[Box<dyn GpuExtraForces>] {
        &self.extra
    }

    /// A list build now (the host decides; `steps_batched` builds inside its batches by itself):
    /// grid, candidates, history carry, wall candidates and reference positions on the device,
    /// then the extra sources' own rebuild (they take the states on the host).
    pub fn rebuild(&mut self, ctx: &GpuContext) -> anyhow::Result<()> {
        self.flags.write(ctx, &[0; 4]);
        self.build_now(ctx, true)?;
        self.builds_recorded += 1;
        self.rebuilds += 1;
        self.pace.record(0, 1);
        self.rebuild_sources(ctx)
    }

    /// The grid of the last build (read back; tests).
    pub fn grid(&self, ctx: &GpuContext) -> DeviceGrid {
        self.build.grid(ctx)
    }

    /// The pair buffers at capacity `cap` pairs (at least one: a binding may not be empty).
    fn alloc_pairs(&mut self, ctx: &GpuContext, cap: usize) -> anyhow::Result<()> {
        let cap = cap.max(1);
        // list_save keeps 7 words per pair of the list in pair_out (PAIR_OUT_WORDS ≥ 7).
        let l = &mut self.lists;
        l.partner = GpuArray::zeroed(ctx, "partner", cap)?;
        l.history = GpuArray::zeroed(ctx, "history", 3 * cap)?;
        l.history_rolling = GpuArray::zeroed(ctx, "rolling history", if self.rolling { 3 * cap } else { 1 })?;
        l.pair_out = GpuArray::zeroed(ctx, "pair out", PAIR_OUT_WORDS * cap)?;
        l.pair_trace = GpuArray::zeroed(ctx, "pair trace", if self.mc { cap } else { 1 })?;
        l.pair_strain = GpuArray::zeroed(ctx, "pair strain", if self.strain { 2 * cap } else { 1 })?;
        l.incident = GpuArray::zeroed(ctx, "incident", cap)?;
        self.cap = cap;
        Ok(())
    }

    /// The j-side incident lists (starts, entries) built on the device (twin: `j_incident`).
    pub fn incident(&self, ctx: &GpuContext) -> (Vec<u32>, Vec<u32>) {
        let start = self.lists.incident_start.read(ctx);
        let mut incident = self.lists.incident.read(ctx);
        incident.truncate(*start.last().unwrap_or(&0) as usize);
        (start, incident)
    }

    /// Candidate pairs of the current list.
    pub fn pair_count(&self) -> usize {
        self.total
    }

    /// Pairs the pair buffers hold now.
    pub fn pair_capacity(&self) -> usize {
        self.cap
    }

    /// The current candidate list, read back from the device (outputs and checkpoints; the
    /// stepping path never reads it).
    pub fn list(&self, ctx: &GpuContext) -> NeighborList {
        let mut partner = self.lists.partner.read(ctx);
        partner.truncate(self.total);
        NeighborList {
            start: self.lists.pair_start.read(ctx),
            partner,
        }
    }

    pub fn states(&self, ctx: &GpuContext) -> Vec<SphereState> {
        self.spheres.read(ctx)
    }

    /// Overwrites spheres `first ..` with `states` between steps (a composing system that moves
    /// some spheres on a prescribed path, as pinned membrane vertices). The list is not rebuilt
    /// here: the next step's displacement check sees the move.
    pub fn write_spheres(&self, ctx: &GpuContext, first: usize, states: &[SphereState]) {
        assert!(
            first + states.len() <= self.params.n_spheres as usize,
            "write_spheres past the end"
        );
        let size = std::mem::size_of::<SphereState>() as u64;
        ctx.queue
            .write_buffer(self.spheres.buffer(), first as u64 * size, bytemuck::cast_slice(states));
    }

    pub fn walls(&self, ctx: &GpuContext) -> Vec<PlaneWall> {
        self.walls.read(ctx)
    }

    /// Replaces the walls (same count): a driver moves, stops or reverses them between steps.
    pub fn set_walls(&mut self, ctx: &GpuContext, walls: &[PlaneWall]) {
        assert_eq!(
            walls.len(),
            self.params.n_walls as usize,
            "set_walls keeps the wall count"
        );
        if !walls.is_empty() {
            self.walls.write(ctx, walls);
        }
    }

    /// Force and torque gathered on every sphere at the last force evaluation.
    pub fn forces(&self, ctx: &GpuContext) -> Vec<SphereForce> {
        self.forces.read(ctx)
    }

    /// GPU memory held per sphere (bytes of every state, list, history and output buffer of the
    /// stepper divided by the number of spheres; the law table, walls and the build's own
    /// buffers (cells, grid, arguments) included).
    pub fn bytes_per_sphere(&self) -> f64 {
        let l = &self.lists;
        let bytes = [
            self.spheres.buffer().size(),
            self.forces.buffer().size(),
            self.laws.buffer().size(),
            self.walls.buffer().size(),
            self.wall_history.buffer().size(),
            self.wall_out.buffer().size(),
            self.wall_index.buffer().size(),
            self.flags.buffer().size(),
            self.build.bytes(),
            self.wall_trace.buffer().size(),
            self.stress_trace.buffer().size(),
            self.wall_strain.buffer().size(),
            l.pair_strain.buffer().size(),
            l.pair_start.buffer().size(),
            l.partner.buffer().size(),
            l.history.buffer().size(),
            l.history_rolling.buffer().size(),
            l.pair_out.buffer().size(),
            l.pair_trace.buffer().size(),
            l.incident_start.buffer().size(),
            l.incident.buffer().size(),
            l.x_ref.buffer().size(),
        ]
        .iter()
        .sum::<u64>();
        bytes as f64 / self.params.n_spheres.max(1) as f64
    }

    /// tr σ of every sphere at the last force evaluation (MC-stress; zeros otherwise).
    pub fn stress_trace(&self, ctx: &GpuContext) -> Vec<f32> {
        self.stress_trace.read(ctx)
    }

    /// Σ_k δ_{k→c} of every pair contact (i's side, j's side) at the last force evaluation (MC-strain).
    pub fn pair_strain(&self, ctx: &GpuContext) -> Vec<f32> {
        let mut v = self.lists.pair_strain.read(ctx);
        if self.strain {
            v.truncate(2 * self.total);
        }
        v
    }

    /// Each candidate pair's history (pair order of `list`).
    pub fn history(&self, ctx: &GpuContext) -> Vec<ContactHistory> {
        let mut t = self.lists.history.read(ctx);
        t.truncate(3 * self.total);
        let mut r = if self.rolling {
            self.lists.history_rolling.read(ctx)
        } else {
            Vec::new()
        };
        r.truncate(3 * self.total);
        unpack_history(&t, &r)
    }

    /// The pair and wall histories (packed as held), to put back after a force evaluation that
    /// must not advance them.
    fn save_histories(&self, ctx: &GpuContext) -> (Vec<f32>, Vec<f32>, Vec<ContactHistory>) {
        let l = &self.lists;
        (
            l.history.read(ctx),
            l.history_rolling.read(ctx),
            self.wall_history.read(ctx),
        )
    }

    fn restore_histories(&self, ctx: &GpuContext, saved: &(Vec<f32>, Vec<f32>, Vec<ContactHistory>)) {
        self.lists.history.write(ctx, &saved.0);
        self.lists.history_rolling.write(ctx, &saved.1);
        self.wall_history.write(ctx, &saved.2);
    }
}

/// What the sphere kind (`spheres::backend`) reads and restores between steps: outputs and
/// checkpoints. Reads wait for the queue; none of them is on the stepping path.
impl GpuSpheres {
    /// Each candidate pair's result of the last force evaluation (pair order of `list`).
    pub fn pair_out(&self, ctx: &GpuContext) -> Vec<PairOut> {
        self.lists
            .pair_out
            .read(ctx)
            .chunks_exact(PAIR_OUT_WORDS)
            .take(self.total)
            .map(|w| PairOut {
                force: [w[0], w[1], w[2]],
                f_n: w[3],
                torque_i: [w[4], w[5], w[6]],
                energy: w[7],
                torque_j: [w[8], w[9], w[10]],
                _pad: 0.0,
            })
            .collect()
    }

    /// The sphere–wall candidates of the last build: slots s · n_walls + w, increasing (read
    /// back; the CPU twin's `wall_slots`).
    pub fn wall_slots(&self, ctx: &GpuContext) -> Vec<u32> {
        let n = self.params.n_spheres as usize;
        let index = self.wall_index.read(ctx);
        let count = (index[n] as usize).min(self.wall_cap.max(1));
        index[n + 1..n + 1 + count].to_vec()
    }

    /// Each sphere–wall result of the last force evaluation, index s · n_walls + w (zero where
    /// the sphere is not a candidate of the wall, as on the CPU).
    pub fn wall_out(&self, ctx: &GpuContext) -> Vec<PairOut> {
        self.dense(ctx, &self.wall_out.read(ctx))
    }

    /// Each sphere–wall history, index s · n_walls + w (zero where not a candidate).
    pub fn wall_history(&self, ctx: &GpuContext) -> Vec<ContactHistory> {
        self.dense(ctx, &self.wall_history.read(ctx))
    }

    /// Records per candidate spread to the dense index s · n_walls + w (the slots read back).
    fn dense<T: Copy + Default>(&self, ctx: &GpuContext, compact: &[T]) -> Vec<T> {
        let n = self.params.n_spheres as usize;
        let mut out = vec![T::default(); n * self.params.n_walls as usize];
        let index = self.wall_index.read(ctx);
        let count = (index[n] as usize).min(self.wall_cap);
        for (&k, r) in index[n + 1..n + 1 + count].iter().zip(compact) {
            out[k as usize] = *r;
        }
        out
    }

    /// Global damping (1/s) from the next step on (a driver changes it between stages, as the
    /// triaxial cell's shear does on the CPU stepper's `params`).
    pub fn set_global_damping(&mut self, ctx: &GpuContext, d: f32) {
        self.params.global_damping = d;
        ctx.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&self.params));
    }

    /// Sets one wall's servo target stress between steps (4 bytes written: the wall's position
    /// on the device is not read back), as a σ_c ramp needs at every step.
    pub fn set_wall_target(&self, ctx: &GpuContext, w: usize, target: f32) {
        assert!(w < self.params.n_walls as usize, "set_wall_target past the walls");
        let at = (w * std::mem::size_of::<PlaneWall>() + std::mem::offset_of!(PlaneWall, target_stress)) as u64;
        ctx.queue
            .write_buffer(self.walls.buffer(), at, bytemuck::bytes_of(&target));
    }

    pub fn set_gravity(&mut self, ctx: &GpuContext, g: [f32; 3]) {
        self.params.gravity = g;
        ctx.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&self.params));
    }

    /// Restores a state exported by the sphere kind: spheres, forces of the last evaluation,
    /// walls, the history of the pairs of `list` and of the wall contacts, and the counters; the
    /// candidate list is rebuilt from the restored positions with the history carried by key.
    #[allow(clippy::too_many_arguments)]
    pub fn restore(
        &mut self,
        ctx: &GpuContext,
        states: &[SphereState],
        forces: &[SphereForce],
        walls: &[PlaneWall],
        list: NeighborList,
        history: &[ContactHistory],
        wall_history: &[ContactHistory],
        steps: u64,
        rebuilds: u64,
    ) -> anyhow::Result<()> {
        let n = self.params.n_spheres as usize;
        anyhow::ensure!(states.len() == n && forces.len() == n, "sphere count changed");
        anyhow::ensure!(
            wall_history.len() == n * self.params.n_walls as usize && walls.len() == self.params.n_walls as usize,
            "wall count changed"
        );
        self.spheres.write(ctx, states);
        self.forces.write(ctx, forces);
        self.set_walls(ctx, walls);
        anyhow::ensure!(
            history.len() == list.len() && list.start.len() == n + 1,
            "one history per pair of a list of the {n} spheres"
        );
        // The saved list becomes the current list, which the build below saves and carries
        // from (the carry's key); the wall contacts with a history become the current candidates
        // (a candidate without one would carry zeros, the same).
        self.alloc_pairs(ctx, list.len())?;
        self.lists.pair_start.write(ctx, &list.start);
        self.lists.partner.write(ctx, &list.partner);
        self.lists
            .history
            .write(ctx, &pack_tangential(history)[..3 * list.len()]);
        if self.rolling {
            self.lists
                .history_rolling
                .write(ctx, &pack_rolling(history)[..3 * list.len()]);
        }
        self.total = list.len();
        let nw = self.params.n_walls as usize;
        let slots: Vec<u32> = (0..n * nw)
            .filter(|&k| bytemuck::bytes_of(&wall_history[k]).iter().any(|&b| b != 0))
            .map(|k| k as u32)
            .collect();
        self.alloc_walls(ctx, slots.len())?;
        let mut index = vec![0u32; n + 1];
        for &k in &slots {
            index[k as usize / nw.max(1) + 1] += 1;
        }
        let mut run = 0;
        for v in index.iter_mut() {
            run += *v;
            *v = run;
        }
        index.extend_from_slice(&slots);
        self.wall_index.write(ctx, &index);
        if !slots.is_empty() {
            let compact: Vec<ContactHistory> = slots.iter().map(|&k| wall_history[k as usize]).collect();
            self.wall_history.write(ctx, &compact);
        }
        self.make_bind_groups(ctx)?;
        self.rebuild(ctx)?;
        self.steps = steps;
        self.rebuilds = rebuilds;
        Ok(())
    }
}

/// Copies what fits of `from` into the start of `to` (a grown buffer keeps the saved list).
fn carry_over(ctx: &GpuContext, from: &wgpu::Buffer, to: &wgpu::Buffer) {
    let bytes = from.size().min(to.size());
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(from, 0, to, 0, bytes);
    ctx.queue.submit([encoder.finish()]);
}

/// The j-side incident lists of `list`: per sphere (CSR starts, n + 1) the pairs where it is j,
/// in pair order. A sphere's own pairs are its row of the list, after all of these (their owner
/// is lower), so "these, then the row" is the incident order of `cpu_stepper::incident_lists`.
pub fn j_incident(list: &NeighborList) -> (Vec<u32>, Vec<u32>) {
    let n = list.start.len().saturating_sub(1);
    let mut start = vec![0u32; n + 1];
    for &j in &list.partner {
        start[j as usize] += 1;
    }
    let total = crate::cpu::scan::prefix_scan(&mut start[..n]);
    start[n] = total;
    let mut cursor = start.clone();
    let mut incident = vec![0u32; total as usize];
    for (k, &j) in list.partner.iter().enumerate() {
        incident[cursor[j as usize] as usize] = k as u32;
        cursor[j as usize] += 1;
    }
    (start, incident)
}

/// Tangential histories as 3 f32 per pair (one zero word for an empty list: a binding may not
/// be empty).
fn pack_tangential(h: &[ContactHistory]) -> Vec<f32> {
    let mut v: Vec<f32> = h.iter().flat_map(|c| c.tangential).collect();
    if v.is_empty() {
        v.push(0.0);
    }
    v
}

/// Rolling histories as 3 f32 per pair (one zero word for an empty list).
fn pack_rolling(h: &[ContactHistory]) -> Vec<f32> {
    let mut v: Vec<f32> = h.iter().flat_map(|c| c.rolling).collect();
    if v.is_empty() {
        v.push(0.0);
    }
    v
}

/// Histories from the packed arrays (`rolling` empty: zero rolling torques).
fn unpack_history(tangential: &[f32], rolling: &[f32]) -> Vec<ContactHistory> {
    let n = tangential.len() / 3;
    (0..n)
        .map(|k| ContactHistory {
            tangential: [tangential[3 * k], tangential[3 * k + 1], tangential[3 * k + 2]],
            rolling: if rolling.len() >= 3 * n {
                [rolling[3 * k], rolling[3 * k + 1], rolling[3 * k + 2]]
            } else {
                [0.0; 3]
            },
            ..Default::default()
        })
        .collect()
}
