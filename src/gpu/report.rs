//! `softdem bench --gpu-report`: the harness for a lent GPU, meant to say in minutes what the
//! device gives and what to fix. It prints:
//!
//! 1. the environment: adapter, driver, backend, wgpu version, instance flags, features, limits;
//! 2. the floating-point probe ([`super::precision`]);
//! 3. the cost of an empty dispatch, direct and indirect (`dispatch_probe.wgsl`);
//! 4. per size of the standard compaction bench (`scenes::compaction_bench`): steps timed in a
//!    window of at least `window_s` seconds with every read-back outside it, rebuilds in the
//!    window, dispatches per step, neighbour-list entries per node and the bytes per node-step of
//!    the byte model (`gpu::stepper::byte_model`), wall µs per step, node-steps/s, GPU bytes per
//!    node, and hashes
//!    of the node states of two runs from the same scene (the same-device bit-identity); list
//!    builds decided by the host (the default), and the first size again with GPU-driven builds
//!    (`rebuild_mode` gpu) to say which is faster on the device;
//! 5. per size of the 3D sphere bench (`spheres::bench_scene::compressed_lattice`, n³ spheres):
//!    sphere-steps/s, GPU bytes per sphere and the rerun hashes; then per sphere size the GPU time
//!    of each kernel of a build-free step (timestamp queries, `GpuSpheres::profile_kernels`);
//! 6. one PASS/FAIL line per target of the GPU work (issues 21, 23): ≥ 2×10⁹ node-steps/s at
//!    ≥ 10⁶ nodes, ≥ 10⁴ steps/s at 500 cells, ≤ 256 B per node, ≥ 10⁹ sphere-steps/s at ≥ 10⁶
//!    spheres, ≤ 512 B per sphere, bit-identical reruns.
//!
//!
//! Per size it then prints the GPU time of each kernel from timestamp queries (each kernel in a
//! compute pass of its own, see `gpu::profile`) with its GB/s against the byte model, beside the
//! wall time of the same steps, or why they are not measured (no `TIMESTAMP_QUERY`); and the GPU
//! memory per buffer, largest first.

use super::context::GpuContext;
use super::kernel::Kernel;
use super::profile::KernelProfile;
use super::stepper::GpuBackend;
use crate::backend::Backend;
use crate::gpu::array::GpuArray;
use crate::model::BODY_CLOSED;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// Cells (of 32 nodes) of the report's sizes: 500 cells, then 10⁵, 10⁶ and 4×10⁶ nodes.
pub const REPORT_CELLS: [usize; 4] = [500, 3_125, 31_250, 125_000];

/// Lattice sides n of the sphere sizes (n³ ≈ 10⁴, 10⁵, 10⁶ spheres).
pub const REPORT_SPHERE_SIDES: [usize; 3] = [22, 47, 100];

/// Steps of each determinism run.
const HASH_STEPS: u32 = 100;

/// Targets (issue 21).
const TARGET_NODE_STEPS: f64 = 2e9;
const TARGET_NODES_FOR_THROUGHPUT: usize = 1_000_000;
const TARGET_STEPS_PER_S_500_CELLS: f64 = 1e4;
const TARGET_BYTES_PER_NODE: f64 = 256.0;
const TARGET_SPHERE_STEPS: f64 = 1e9;
const TARGET_SPHERES_FOR_THROUGHPUT: usize = 1_000_000;
const TARGET_BYTES_PER_SPHERE: f64 = 512.0;

/// One sphere size's measurements.
#[derive(Clone, Debug)]
pub struct SphereResult {
    pub spheres: usize,
    pub steps: u64,
    pub seconds: f64,
    pub rebuilds: u64,
    pub bytes_per_sphere: f64,
    pub hashes: [u64; 2],
    /// Per-kernel GPU times of build-free steps after the window (None without timestamps).
    pub kernels: Option<KernelProfile>,
    /// Dispatches of a build-free step (`GpuSpheres::dispatches_per_step`).
    pub dispatches_per_step: u32,
    /// The byte model of a build-free step, per kernel (`GpuSpheres::step_bytes`).
    pub step_bytes: Vec<(&'static str, f64)>,
}

impl SphereResult {
    pub fn sphere_steps_per_s(&self) -> f64 {
        self.spheres as f64 * self.steps as f64 / self.seconds
    }
}

fn sphere_system(ctx: &GpuContext, side: usize) -> anyhow::Result<crate::spheres::gpu_stepper::GpuSpheres> {
    let (p, states, laws, walls) = crate::spheres::bench_scene::compressed_lattice(side);
    crate::spheres::gpu_stepper::GpuSpheres::new(ctx, p, &states, &laws, &walls)
}

/// Measures the sphere scene of side `side`: warm-up, then steps until `window_s` has passed;
/// then two fresh runs of `HASH_STEPS` steps hashed.
pub fn measure_spheres(ctx: &GpuContext, side: usize, window_s: f64) -> anyhow::Result<SphereResult> {
    let mut sys = sphere_system(ctx, side)?;
    let spheres = side * side * side;
    let warm = Instant::now();
    for _ in 0..5 {
        sys.step(ctx)?;
    }
    // Calls of about a tenth of the window, as the SPD sizes: `steps_batched` records many steps
    // per submission and reads the flags once per submission, as a run does (one step per call
    // would time the host's submission and read-back, not the GPU).
    let per_step = warm.elapsed().as_secs_f64() / 5.0;
    let call = ((window_s / 10.0 / per_step.max(1e-9)) as u32).clamp(1, 100_000);
    let rebuilds0 = sys.rebuilds;
    let (mut steps, t) = (0u64, Instant::now());
    while t.elapsed().as_secs_f64() < window_s {
        sys.steps_batched(ctx, call)?;
        steps += call as u64;
    }
    let seconds = t.elapsed().as_secs_f64();
    let rebuilds = sys.rebuilds - rebuilds0;
    let bytes_per_sphere = sys.bytes_per_sphere();
    // Per-kernel times: half the window's steps, 8 to 64 (GpuSpheres::profile_kernels).
    let kernels = sys.profile_kernels(ctx, (steps / 2).clamp(8, 64) as u32)?;
    let dispatches_per_step = sys.dispatches_per_step();
    let step_bytes = sys.step_bytes(ctx);
    drop(sys);
    let hash = || -> anyhow::Result<u64> {
        let mut sys = sphere_system(ctx, side)?;
        for _ in 0..HASH_STEPS {
            sys.step(ctx)?;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytemuck::cast_slice::<_, u8>(&sys.states(ctx)).hash(&mut h);
        Ok(h.finish())
    };
    let hashes = [hash()?, hash()?];
    Ok(SphereResult {
        spheres,
        steps,
        seconds,
        rebuilds,
        bytes_per_sphere,
        hashes,
        kernels,
        dispatches_per_step,
        step_bytes,
    })
}

/// One size's measurements.
#[derive(Clone, Debug)]
pub struct SizeResult {
    pub cells: usize,
    pub nodes: usize,
    pub steps: u64,
    pub seconds: f64,
    pub rebuilds: u64,
    /// Dispatches recorded per step in the window (redone steps included).
    pub dispatches_per_step: f64,
    /// Neighbour-list entries per node at the end of the window.
    pub entries_per_node: f64,
    /// Bytes per node-step by the byte model (`gpu::stepper::byte_model`) of the dispatches
    /// recorded in the window, at `entries_per_node`.
    pub model_bytes_per_node_step: f64,
    /// "host" or "gpu": who decided the list builds (`measure_size`).
    pub rebuild_mode: &'static str,
    pub bytes_per_node: f64,
    pub hashes: [u64; 2],
    /// Per-kernel GPU times of `profile.steps` steps after the window; None without timestamp
    /// queries.
    pub kernels: Option<KernelProfile>,
    /// Every buffer's label and bytes, largest first (`GpuBackend::buffer_bytes`).
    pub buffers: Vec<(String, u64)>,
}

impl SizeResult {
    pub fn node_steps_per_s(&self) -> f64 {
        self.nodes as f64 * self.steps as f64 / self.seconds
    }
    pub fn steps_per_s(&self) -> f64 {
        self.steps as f64 / self.seconds
    }
}

/// The wgpu version this binary was built with (from Cargo.lock, embedded at compile time).
pub fn wgpu_version() -> &'static str {
    const LOCK: &str = include_str!("../../Cargo.lock");
    LOCK.split("[[package]]")
        .find(|p| p.contains("\nname = \"wgpu\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or("?")
}

/// µs per dispatch of an empty kernel: `count` dispatches in one pass, direct then indirect.
fn dispatch_cost(ctx: &GpuContext, count: u32) -> anyhow::Result<(f64, f64)> {
    let kernel = Kernel::new(ctx, "dispatch_probe", "empty")?;
    let args = GpuArray::<u32>::new_indirect(ctx, "dispatch_probe args", &[1, 1, 1])?;
    let time = |indirect: bool| {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&kernel.pipeline);
            for _ in 0..count {
                if indirect {
                    pass.dispatch_workgroups_indirect(args.buffer(), 0);
                } else {
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
        }
        let t = Instant::now();
        ctx.queue.submit([enc.finish()]);
        ctx.poll_wait();
        t.elapsed().as_secs_f64() * 1e6 / count as f64
    };
    time(false); // warm-up
    Ok((time(false), time(true)))
}

/// Hash of the node states after `HASH_STEPS` steps of a fresh backend on `scene`.
fn rerun_hash(ctx: &Arc<GpuContext>, scene: &crate::model::Scene) -> anyhow::Result<u64> {
    let mut be = GpuBackend::new(ctx.clone(), scene)?;
    be.step(HASH_STEPS)?;
    let nodes = be.read_nodes()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytemuck::cast_slice::<_, u8>(&nodes).hash(&mut h);
    Ok(h.finish())
}

/// Measures one size: warm-up, then batches of steps until `window_s` has passed.
/// `host_rebuilds`: list builds decided by the host (the default) or on the GPU (indirect
/// dispatches every step), see `GpuBackend::set_host_driven_rebuilds`.
pub fn measure_size(
    ctx: &Arc<GpuContext>,
    cells: usize,
    window_s: f64,
    host_rebuilds: bool,
) -> anyhow::Result<SizeResult> {
    let (scene, _) = crate::scenes::compaction_bench(cells);
    let cells = scene.bodies.iter().filter(|b| b.flags & BODY_CLOSED != 0).count();
    let nodes = scene.nodes.len();
    let mut be = GpuBackend::new(ctx.clone(), &scene)?;
    be.set_host_driven_rebuilds(host_rebuilds);
    be.step(10)?; // pipelines, first list build
                  // Batches sized to about a tenth of the window from the warm-up's speed.
    let t = Instant::now();
    be.step(10)?;
    let per_step = t.elapsed().as_secs_f64() / 10.0;
    let batch = ((window_s / 10.0 / per_step.max(1e-9)) as u32).clamp(1, 100_000);
    let (rebuilds0, dispatches0, modelled0) = (be.rebuilds(), be.dispatches_recorded(), be.modelled_bytes());
    let (mut steps, t) = (0u64, Instant::now());
    while t.elapsed().as_secs_f64() < window_s {
        be.step(batch)?;
        steps += batch as u64;
    }
    let seconds = t.elapsed().as_secs_f64();
    let rebuilds = be.rebuilds() - rebuilds0;
    let dispatches_per_step = (be.dispatches_recorded() - dispatches0) as f64 / steps as f64;
    let modelled = be.modelled_bytes();
    let entries_per_node = be.read_contacts()?.entries.len() as f64 / nodes as f64;
    let model_bytes_per_node_step =
        ((modelled.0 - modelled0.0) + (modelled.1 - modelled0.1) * entries_per_node) / steps as f64;
    let bytes_per_node = be.device_bytes() as f64 / nodes as f64;
    let buffers = be.buffer_bytes();
    // Per-kernel times: half the window's steps, at least 8 (the steps of a batch but its last
    // run node_forces fused with the next integrate), at most one 64-step batch.
    let kernels = be.profile_kernels((steps / 2).clamp(8, 64) as u32)?;
    drop(be);
    let hashes = [rerun_hash(ctx, &scene)?, rerun_hash(ctx, &scene)?];
    Ok(SizeResult {
        cells,
        nodes,
        steps,
        seconds,
        rebuilds,
        dispatches_per_step,
        entries_per_node,
        model_bytes_per_node_step,
        rebuild_mode: if host_rebuilds { "host" } else { "gpu" },
        bytes_per_node,
        hashes,
        kernels,
        buffers,
    })
}

/// The per-kernel lines of sphere size `r`: per kernel, dispatches and µs per step, µs per
/// dispatch, its share of the kernels' time, the byte model's bytes per sphere-step and the GB/s
/// that gives; then the kernels' sum against the wall time, the dispatches and bytes per step.
fn write_sphere_kernel_lines(out: &mut dyn Write, r: &SphereResult) -> std::io::Result<()> {
    let n = r.spheres.max(1) as f64;
    let bytes_of = |entry: &str| -> f64 { r.step_bytes.iter().filter(|(e, _)| *e == entry).map(|(_, b)| b).sum() };
    let total_bytes: f64 = r.step_bytes.iter().map(|(_, b)| b).sum();
    let Some(p) = &r.kernels else {
        writeln!(out, "{},-,not measured: no TIMESTAMP_QUERY on the device", r.spheres)?;
        return writeln!(
            out,
            "{},step,{} dispatches per step,{:.0} B per sphere-step (byte model)",
            r.spheres,
            r.dispatches_per_step,
            total_bytes / n
        );
    };
    let total: f64 = p.kernels.iter().map(|k| k.ns).sum();
    for k in &p.kernels {
        let us_per_step = k.ns * 1e-3 / p.steps.max(1) as f64;
        let bytes = bytes_of(&k.entry);
        writeln!(
            out,
            "{},{},{:.3},{:.1},{:.1},{:.3},{:.1},{:.2}",
            r.spheres,
            k.entry,
            k.dispatches as f64 / p.steps.max(1) as f64,
            k.ns * 1e-3 / k.dispatches as f64,
            us_per_step,
            k.ns / total,
            bytes / n,
            bytes / (us_per_step * 1e3).max(1e-9)
        )?;
    }
    writeln!(
        out,
        "{},all kernels,{} steps,kernels {:.1} us/step,wall {:.1} us/step,{} dispatches per step,{:.0} B per sphere-step (byte model),{:.2} GB/s",
        r.spheres,
        p.steps,
        p.kernel_us_per_step(),
        p.wall_us_per_step(),
        r.dispatches_per_step,
        total_bytes / n,
        total_bytes / (p.kernel_us_per_step() * 1e3).max(1e-9)
    )
}

/// The per-kernel lines of size `r` (CSV under the header of `gpu_report`): per kernel,
/// dispatches and µs per step, µs per dispatch, its share of the kernels' time, the byte model's
/// bytes per node (plus per entry × entries per node) and the GB/s that gives; then the sum of
/// the kernels against the wall time of the same steps.
fn write_kernel_lines(out: &mut dyn Write, r: &SizeResult) -> std::io::Result<()> {
    let Some(p) = &r.kernels else {
        return writeln!(out, "{},-,not measured: the device has no TIMESTAMP_QUERY", r.nodes);
    };
    let total: f64 = p.kernels.iter().map(|k| k.ns).sum();
    for k in &p.kernels {
        let (per_node, per_entry) = super::stepper::byte_model(&k.entry, 0.0);
        let model = per_node + per_entry * r.entries_per_node;
        let ns_per_dispatch = k.ns / k.dispatches as f64;
        // Bytes per ns = GB/s; list-build kernels have no model (0).
        let gb_s = r.nodes as f64 * model / ns_per_dispatch;
        writeln!(
            out,
            "{},{},{:.3},{:.1},{:.1},{:.3},{:.0},{:.2}",
            r.nodes,
            k.entry,
            k.dispatches as f64 / p.steps as f64,
            ns_per_dispatch * 1e-3,
            k.ns * 1e-3 / p.steps as f64,
            k.ns / total,
            model,
            gb_s
        )?;
    }
    writeln!(
        out,
        "{},all kernels,{} steps,kernels {:.1} us/step,wall {:.1} us/step,kernels/wall {:.3}",
        r.nodes,
        p.steps,
        p.kernel_us_per_step(),
        p.wall_us_per_step(),
        p.kernel_us_per_step() / p.wall_us_per_step()
    )
}

/// The memory lines of size `r`: buffers of at least 1 B per node, then the rest together.
fn write_memory_lines(out: &mut dyn Write, r: &SizeResult) -> std::io::Result<()> {
    let n = r.nodes as f64;
    let mut rest = 0;
    for (name, bytes) in &r.buffers {
        if *bytes as f64 >= n {
            writeln!(out, "{},{name},{bytes},{:.2}", r.nodes, *bytes as f64 / n)?;
        } else {
            rest += bytes;
        }
    }
    writeln!(out, "{},(the rest),{rest},{:.2}", r.nodes, rest as f64 / n)?;
    writeln!(
        out,
        "{},total,{:.0},{:.2}",
        r.nodes,
        r.bytes_per_node * n,
        r.bytes_per_node
    )
}

/// Writes the whole report for `cells` SPD sizes and `sphere_sides` sphere sizes; returns the
/// per-size results and whether every target that the sizes cover passed.
pub fn gpu_report(
    out: &mut dyn Write,
    cells: &[usize],
    sphere_sides: &[usize],
    window_s: f64,
) -> anyhow::Result<(Vec<SizeResult>, Vec<SphereResult>, bool)> {
    let t0 = Instant::now();
    let ctx = Arc::new(GpuContext::new()?);
    let i = &ctx.info;
    writeln!(out, "# softdem GPU report")?;
    writeln!(out, "adapter: {} ({:?}, {:?})", i.name, i.device_type, i.backend)?;
    writeln!(out, "driver: {} {}", i.driver, i.driver_info)?;
    writeln!(out, "vendor/device id: {:#06x}/{:#06x}", i.vendor, i.device)?;
    writeln!(out, "softdem {}, wgpu {}", env!("CARGO_PKG_VERSION"), wgpu_version())?;
    writeln!(out, "instance flags: {:?}", super::context::instance_flags(i.backend))?;
    writeln!(out, "adapter features: {:?}", ctx.adapter.features())?;
    writeln!(out, "subgroup operations: {}", ctx.subgroup_summary())?;
    let l = &ctx.limits;
    writeln!(
        out,
        "limits used: storage binding {} B, buffer {} B, storage buffers/stage {}, workgroups/dim {}",
        l.max_storage_buffer_binding_size,
        l.max_buffer_size,
        l.max_storage_buffers_per_shader_stage,
        l.max_compute_workgroups_per_dimension
    )?;
    writeln!(out, "\n## floating point")?;
    let precision = super::precision::measure(&ctx)?;
    for line in precision.lines() {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "\n## dispatch cost (empty kernel, 2000 in one pass)")?;
    let (direct, indirect) = dispatch_cost(&ctx, 2000)?;
    writeln!(
        out,
        "direct: {direct:.2} µs/dispatch, indirect: {indirect:.2} µs/dispatch"
    )?;
    writeln!(
        out,
        "\n## SPD compaction bench (32-node cells), read-back outside the window"
    )?;
    writeln!(
        out,
        "contact-slot allocation: {:?} (SOFTDEM_GPU_SLOTS=workgroup|direct|subgroup; default direct on a \
         CPU adapter, workgroup on a GPU: measured faster than subgroup on an H200)",
        super::stepper::SlotAllocation::for_device(&ctx)?
    )?;
    writeln!(
        out,
        "displacement maximum: {:?} (SOFTDEM_GPU_DISPLACEMENT=direct|staged|subgroup; default direct on a \
         CPU adapter, subgroup on a GPU with subgroups, staged without)",
        super::stepper::DisplacementMax::for_device(&ctx)?
    )?;
    writeln!(
        out,
        "cells,nodes,rebuild_mode,steps,seconds,rebuilds,dispatches_per_step,entries_per_node,model_B_per_node_step,us_per_step,steps_per_s,node_steps_per_s,bytes_per_node,hash_run1,hash_run2"
    )?;
    out.flush()?;
    let mut results = vec![];
    // Every size with host-driven builds (the default), and the first again with GPU-driven ones:
    // which of the two is faster on this device (`SOFTDEM_GPU_REBUILD`).
    let runs = cells
        .iter()
        .map(|&c| (c, true))
        .chain(cells.first().map(|&c| (c, false)));
    for (i, (c, host)) in runs.enumerate() {
        let r = measure_size(&ctx, c, window_s, host)?;
        writeln!(
            out,
            "{},{},{},{},{:.3},{},{:.2},{:.2},{:.0},{:.2},{:.1},{:.4e},{:.1},{:016x},{:016x}",
            r.cells,
            r.nodes,
            r.rebuild_mode,
            r.steps,
            r.seconds,
            r.rebuilds,
            r.dispatches_per_step,
            r.entries_per_node,
            r.model_bytes_per_node_step,
            r.seconds * 1e6 / r.steps as f64,
            r.steps_per_s(),
            r.node_steps_per_s(),
            r.bytes_per_node,
            r.hashes[0],
            r.hashes[1]
        )?;
        out.flush()?;
        if i < cells.len() {
            results.push(r);
        }
    }
    writeln!(
        out,
        "\n## per-kernel GPU time (timestamp queries, one compute pass per kernel), after each window"
    )?;
    writeln!(
        out,
        "nodes,kernel,dispatches_per_step,us_per_dispatch,us_per_step,share,model_B_per_node,GB_per_s"
    )?;
    for r in &results {
        write_kernel_lines(out, r)?;
    }
    writeln!(out, "\n## GPU memory by buffer, largest first")?;
    writeln!(out, "nodes,buffer,bytes,B_per_node")?;
    for r in &results {
        write_memory_lines(out, r)?;
    }
    out.flush()?;
    writeln!(
        out,
        "\n## 3D spheres (Hertz–Mindlin lattice under slow compression), read-back outside the window"
    )?;
    writeln!(
        out,
        "spheres,steps,seconds,rebuilds,us_per_step,sphere_steps_per_s,bytes_per_sphere,hash_run1,hash_run2"
    )?;
    out.flush()?;
    let mut spheres = vec![];
    for &side in sphere_sides {
        let r = measure_spheres(&ctx, side, window_s)?;
        writeln!(
            out,
            "{},{},{:.3},{},{:.2},{:.4e},{:.1},{:016x},{:016x}",
            r.spheres,
            r.steps,
            r.seconds,
            r.rebuilds,
            r.seconds * 1e6 / r.steps as f64,
            r.sphere_steps_per_s(),
            r.bytes_per_sphere,
            r.hashes[0],
            r.hashes[1]
        )?;
        out.flush()?;
        spheres.push(r);
    }
    writeln!(
        out,
        "\n## sphere per-kernel GPU time (timestamp queries, one compute pass per kernel, build-free steps), after each window"
    )?;
    writeln!(
        out,
        "spheres,kernel,dispatches_per_step,us_per_dispatch,us_per_step,share,bytes_per_sphere_step,gb_per_s"
    )?;
    for r in &spheres {
        write_sphere_kernel_lines(out, r)?;
    }
    writeln!(out, "\n## targets")?;
    let mut all = precision.df32_exact();
    let mut verdict = |out: &mut dyn Write, ok: bool, what: String| -> std::io::Result<()> {
        all &= ok;
        writeln!(out, "{} {what}", if ok { "PASS" } else { "FAIL" })
    };
    verdict(out, precision.df32_exact(), "double-f32 exact on this device".into())?;
    for r in results.iter().filter(|r| r.nodes >= TARGET_NODES_FOR_THROUGHPUT) {
        let v = r.node_steps_per_s();
        verdict(
            out,
            v >= TARGET_NODE_STEPS,
            format!(
                "{v:.3e} node-steps/s at {} nodes (target ≥ {TARGET_NODE_STEPS:.0e})",
                r.nodes
            ),
        )?;
    }
    for r in results.iter().filter(|r| r.cells == 500) {
        let v = r.steps_per_s();
        verdict(
            out,
            v >= TARGET_STEPS_PER_S_500_CELLS,
            format!("{v:.0} steps/s at 500 cells (target ≥ {TARGET_STEPS_PER_S_500_CELLS:.0})"),
        )?;
    }
    for r in &results {
        verdict(
            out,
            r.bytes_per_node <= TARGET_BYTES_PER_NODE,
            format!(
                "{:.1} B/node at {} nodes (target ≤ {TARGET_BYTES_PER_NODE})",
                r.bytes_per_node, r.nodes
            ),
        )?;
        verdict(
            out,
            r.hashes[0] == r.hashes[1],
            format!("two runs of {HASH_STEPS} steps bit-identical at {} nodes", r.nodes),
        )?;
    }
    for r in &spheres {
        if r.spheres >= TARGET_SPHERES_FOR_THROUGHPUT {
            let v = r.sphere_steps_per_s();
            verdict(
                out,
                v >= TARGET_SPHERE_STEPS,
                format!(
                    "{v:.3e} sphere-steps/s at {} spheres (target ≥ {TARGET_SPHERE_STEPS:.0e})",
                    r.spheres
                ),
            )?;
        }
        verdict(
            out,
            r.bytes_per_sphere <= TARGET_BYTES_PER_SPHERE,
            format!(
                "{:.1} B/sphere at {} spheres (target ≤ {TARGET_BYTES_PER_SPHERE})",
                r.bytes_per_sphere, r.spheres
            ),
        )?;
        verdict(
            out,
            r.hashes[0] == r.hashes[1],
            format!("two runs of {HASH_STEPS} steps bit-identical at {} spheres", r.spheres),
        )?;
    }
    writeln!(out, "\nreport took {:.1} s", t0.elapsed().as_secs_f64())?;
    Ok((results, spheres, all))
}
