//! GPU stepper: owns the simulation buffers and records the kernel sequence of
//! `cpu::stepper` — integrate → core_area → (rebuild, decided on the GPU) → shell_forces →
//! contact_pairs → cohesive_links → node_forces — for many steps per submission, fused as the
//! CPU fuses them: shell_forces and contact_pairs are one pass over the nodes, and node_forces of
//! a step runs the next step's integrate (except at the end of a batch): 4 dispatches per step
//! (5 with cohesive links) when no list build is due. The node states, cohesive-link state,
//! contact slots (which carry the friction histories) and slot indices are ping-pong buffers:
//! step n reads side `n % 2` and writes the other (node_forces finishes the written states in
//! place). The list build's scratch arrays live in the ShellForce buffer, dead during a build
//! (`Scratch`). Nothing is read back until the caller asks for output.

use std::sync::Arc;

use super::array::{dispatch_size, read_u32_at, GpuArray};
use super::context::GpuContext;
use super::kernel::Kernel;
use super::profile::{KernelProfile, KernelTimer, Recorder};
use super::scan::PrefixScan;
use crate::backend::{slots_from_histories, slots_per_entry, Backend, ContactSnapshot, SavedState};
use crate::model::*;
use wgpu::util::DeviceExt as _;

/// Steps recorded per command buffer (one submission).
const STEPS_PER_SUBMIT: u32 = 64;
/// Workgroup size of every per-node kernel.
const WG: u32 = 64;

struct Kernels {
    integrate: Kernel,
    core_area: Kernel,
    /// shell_forces and contact_pairs, per node (contact_pairs.wgsl).
    shell_contacts: Kernel,
    node_forces: Kernel,
    /// node_forces of step n, then integrate of step n + 1 (node_forces.wgsl).
    node_forces_integrate: Kernel,
    cohesive_links: Kernel,
    rebuild_decide: Kernel,
    segment_max: Kernel,
    grid_clear: Kernel,
    grid_count: Kernel,
    grid_cursor: Kernel,
    grid_scatter: Kernel,
    neighbor_count: Kernel,
    neighbor_fill: Kernel,
    rebuild_commit: Kernel,
    rebuild_check: Kernel,
}

/// How shell_forces_contact_pairs places the new contact slots in the pool (the same slots,
/// indices and results either way; only their places in the pool differ, as between runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SlotAllocation {
    /// Staged in workgroup memory, one atomicAdd per workgroup (`shell_forces_contact_pairs`):
    /// for GPUs without subgroup operations, where one address taking an atomic per slot
    /// serializes.
    Workgroup,
    /// One atomicAdd per slot, no workgroup barrier (`shell_forces_contact_pairs_direct`): for CPU
    /// adapters (lavapipe runs a workgroup's invocations as coroutines that switch at every
    /// barrier; docs/performance.md).
    Direct,
    /// Counted per subgroup, one atomicAdd per subgroup and round of the lists, no workgroup
    /// memory or barrier (`shell_forces_contact_pairs_subgroup`, shaders/contact_pairs_subgroup.wgsl):
    /// for GPUs with subgroup operations (`Features::SUBGROUP`).
    Subgroup,
}

/// The mode an override names, or the default: `direct` on a CPU adapter, `subgroup` on another
/// adapter with subgroup operations, `workgroup` without (each caller names its three). `subgroup` is
/// refused where the device has no subgroup operations. `var` names the variable in messages.
fn choose_mode<T: Copy>(
    var: &str,
    value: &str,
    named: &[(&str, T)],
    cpu: bool,
    subgroups: bool,
    [direct, workgroup, subgroup]: [T; 3],
) -> anyhow::Result<T> {
    match value {
        "" if cpu => Ok(direct),
        "" if subgroups => Ok(subgroup),
        "" => Ok(workgroup),
        "subgroup" if !subgroups => anyhow::bail!(
            "{var}=subgroup: this device has no subgroup operations (wgpu Features::SUBGROUP; \
             `softdem info` lists the adapter's features); use one of the other modes"
        ),
        v => named.iter().find(|(n, _)| *n == v).map(|(_, m)| *m).ok_or_else(|| {
            let names: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
            anyhow::anyhow!("{var}={v:?}: expected one of {}", names.join(", "))
        }),
    }
}

impl SlotAllocation {
    /// `SOFTDEM_GPU_SLOTS=workgroup|direct|subgroup`; unset or empty: by device (`Direct` on a
    /// CPU adapter, `Workgroup` on a GPU with or without subgroup operations: on an NVIDIA H200
    /// the subgroup mode's lock-step rounds made the contact kernel slower, 425 against 300 µs
    /// per step at 4×10⁶ nodes, docs/performance.md).
    pub fn for_device(ctx: &GpuContext) -> anyhow::Result<SlotAllocation> {
        let var = std::env::var("SOFTDEM_GPU_SLOTS").unwrap_or_default();
        Self::choose(&var, ctx.info.device_type == wgpu::DeviceType::Cpu, ctx.has_subgroups())
    }

    /// `for_device` with the variable's value, the adapter's kind and subgroup support given.
    pub fn choose(value: &str, cpu: bool, subgroups: bool) -> anyhow::Result<SlotAllocation> {
        use SlotAllocation::*;
        let named = [("workgroup", Workgroup), ("direct", Direct), ("subgroup", Subgroup)];
        choose_mode(
            "SOFTDEM_GPU_SLOTS",
            value,
            &named,
            cpu,
            subgroups,
            // The default with subgroups is `Workgroup` too (measured, above).
            [Direct, Workgroup, Workgroup],
        )
    }

    /// The shader and entry point.
    fn entry(self) -> (&'static str, &'static str) {
        match self {
            SlotAllocation::Workgroup => ("contact_pairs", "shell_forces_contact_pairs"),
            SlotAllocation::Direct => ("contact_pairs", "shell_forces_contact_pairs_direct"),
            SlotAllocation::Subgroup => ("contact_pairs_subgroup", "shell_forces_contact_pairs_subgroup"),
        }
    }
}

/// How integrate records the largest displacement since the last list build (`flags.max_disp`,
/// an atomicMax on the bits: all give the same bits, a maximum being exact).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DisplacementMax {
    /// Each invocation raises the maximum with its own atomicMax when it beats the load
    /// (`raise_displacement`), no workgroup barrier: for CPU adapters (barriers cost the whole
    /// kernel there, docs/performance.md).
    Direct,
    /// A workgroup maximum in workgroup memory, then one atomicMax per workgroup
    /// (`stage_displacement`, entry points `*_staged`): for GPUs without subgroup operations,
    /// where many invocations of a workgroup would hit one address at once.
    Staged,
    /// A subgroupMax, then one atomicMax per subgroup (`subgroup_displacement`, entry points
    /// `*_subgroup` of shaders/integrate_subgroup.wgsl and node_forces_subgroup.wgsl), no
    /// workgroup memory or barrier: for GPUs with subgroup operations (`Features::SUBGROUP`).
    Subgroup,
}

impl DisplacementMax {
    /// `SOFTDEM_GPU_DISPLACEMENT=direct|staged|subgroup`; unset or empty: by device (`Direct` on
    /// a CPU adapter, `Subgroup` on a GPU with subgroup operations, `Staged` on one without).
    pub fn for_device(ctx: &GpuContext) -> anyhow::Result<DisplacementMax> {
        let var = std::env::var("SOFTDEM_GPU_DISPLACEMENT").unwrap_or_default();
        Self::choose(&var, ctx.info.device_type == wgpu::DeviceType::Cpu, ctx.has_subgroups())
    }

    /// `for_device` with the variable's value, the adapter's kind and subgroup support given.
    pub fn choose(value: &str, cpu: bool, subgroups: bool) -> anyhow::Result<DisplacementMax> {
        use DisplacementMax::*;
        let named = [("direct", Direct), ("staged", Staged), ("subgroup", Subgroup)];
        choose_mode(
            "SOFTDEM_GPU_DISPLACEMENT",
            value,
            &named,
            cpu,
            subgroups,
            [Direct, Staged, Subgroup],
        )
    }

    /// The (shader, entry point) of integrate and of node_forces fused with integrate.
    fn entries(self) -> [(&'static str, &'static str); 2] {
        match self {
            DisplacementMax::Direct => [("integrate", "integrate"), ("node_forces", "node_forces_integrate")],
            DisplacementMax::Staged => [
                ("integrate", "integrate_staged"),
                ("node_forces", "node_forces_integrate_staged"),
            ],
            DisplacementMax::Subgroup => [
                ("integrate_subgroup", "integrate_subgroup"),
                ("node_forces_subgroup", "node_forces_integrate_subgroup"),
            ],
        }
    }
}

/// Refuses a `subgroup` mode (`what`) on a device without subgroup operations.
fn require_subgroups(ctx: &GpuContext, subgroup: bool, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        !subgroup || ctx.has_subgroups(),
        "{what}: subgroup mode asked for, but the device on {:?} ({:?}) has no subgroup operations \
         (wgpu Features::SUBGROUP)",
        ctx.info.name,
        ctx.info.backend
    );
    Ok(())
}

impl Kernels {
    fn new(ctx: &GpuContext, slots: SlotAllocation, disp: DisplacementMax) -> anyhow::Result<Self> {
        let bp = |e: &str| Kernel::new(ctx, "broad_phase", e);
        require_subgroups(ctx, slots == SlotAllocation::Subgroup, "contact-slot allocation")?;
        require_subgroups(ctx, disp == DisplacementMax::Subgroup, "displacement maximum")?;
        let [integrate, node_forces_integrate] = disp.entries();
        let (contacts, contacts_entry) = slots.entry();
        Ok(Kernels {
            integrate: Kernel::new(ctx, integrate.0, integrate.1)?,
            core_area: Kernel::new(ctx, "core_area", "core_area")?,
            shell_contacts: Kernel::new(ctx, contacts, contacts_entry)?,
            node_forces: Kernel::new(ctx, "node_forces", "node_forces")?,
            node_forces_integrate: Kernel::new(ctx, node_forces_integrate.0, node_forces_integrate.1)?,
            cohesive_links: Kernel::new(ctx, "cohesive_link", "cohesive_links")?,
            rebuild_decide: bp("rebuild_decide")?,
            segment_max: bp("segment_max")?,
            grid_clear: bp("grid_clear")?,
            grid_count: bp("grid_count")?,
            grid_cursor: bp("grid_cursor")?,
            grid_scatter: bp("grid_scatter")?,
            neighbor_count: bp("neighbor_count")?,
            neighbor_fill: bp("neighbor_fill")?,
            rebuild_commit: bp("rebuild_commit")?,
            rebuild_check: bp("rebuild_check")?,
        })
    }
}

/// Bind groups of one ping-pong side.
struct SideGroups {
    integrate: wgpu::BindGroup,
    core_area: wgpu::BindGroup,
    shell_contacts: wgpu::BindGroup,
    node_forces: wgpu::BindGroup,
    node_forces_integrate: wgpu::BindGroup,
    cohesive_links: wgpu::BindGroup,
    broad_phase: Vec<wgpu::BindGroup>,
}

/// Cohesive links (§7): static table, ping-pong state, per-link force, per-node CSR.
struct LinkBuffers {
    count: u32,
    links: GpuArray<Link>,
    laws: GpuArray<LinkLaw>,
    state: [GpuArray<LinkState>; 2],
    force: GpuArray<[f32; 2]>,
    start: GpuArray<u32>,
    list: GpuArray<u32>,
}

/// Buffers whose size depends on the neighbour-list capacity.
struct ListBuffers {
    capacity: u32,
    live_start: GpuArray<u32>,
    live_entries: GpuArray<Entry>,
    /// Pool index of each entry's slot, `NO_SLOT` without a contact; ping-pong: step n reads
    /// `[n % 2]` (the friction histories) and writes the other. A list build
    /// carries the live side over into the other one, then commits it back.
    slot_index: [GpuArray<u32>; 2],
}

/// Contact slots of the active contacts, appended by contact_pairs; ping-pong with the slot
/// indices (the previous step's slots hold the friction histories).
struct SlotPool {
    capacity: u32,
    slots: [GpuArray<ContactSlot>; 2],
}

pub struct GpuBackend {
    ctx: Arc<GpuContext>,
    kernels: Kernels,
    params: SimParams,
    n_nodes: u32,
    n_bodies: u32,
    params_step: wgpu::Buffer,
    params_init: wgpu::Buffer,
    /// The kernels' node records and boundary-condition table (`device_nodes` of `nodes_host`).
    nodes: GpuArray<NodeRecord>,
    bcs: GpuArray<NodeBc>,
    /// The scene's nodes with the boundary conditions in force (only those change), so no
    /// read-back is needed.
    nodes_host: Vec<Node>,
    bodies: GpuArray<Body>,
    materials: GpuArray<Material>,
    /// The contact law of every pair of contact materials (`Scene::contact_law_table`).
    contact_laws: GpuArray<ContactLaw>,
    /// The node states, ping-pong: the step on side s integrates `state[s]` into `state[1 − s]`,
    /// which its other kernels read and node_forces finishes in place; the finished states are in
    /// `state[side]`.
    state: [GpuArray<NodeState>; 2],
    /// shell_forces output, gathered by node_forces; during a list build, the build's scratch
    /// arrays (`scratch`; at least n records, more when the scratch needs them).
    shell: GpuArray<ShellForce>,
    /// Where the list build's scratch arrays lie in `shell`.
    scratch: Scratch,
    x_ref: GpuArray<[f32; 2]>,
    /// Slot marks then gather marks, one bit per node each, written by contact_pairs (core_area
    /// clears the gather half), read by node_forces (`has_slots`, `gathers`).
    slot_marks: GpuArray<u32>,
    body_state: GpuArray<BodyState>,
    /// The step flags (one `StepFlags` record; `read_flags`, `write_flags`).
    flags: GpuArray<StepFlags>,
    /// The segment grid's items (segment, cell x, cell y) of the wall segments, `seg_capacity` of
    /// them (grown on overflow); their offsets per bucket are `scratch.seg_start`.
    seg_items: GpuArray<u32>,
    seg_capacity: u32,
    seg_scan: PrefixScan,
    lists: ListBuffers,
    pool: SlotPool,
    links: LinkBuffers,
    args: GpuArray<u32>,
    args_template: GpuArray<u32>,
    /// The template's workgroup counts (x, y) per slot: the direct dispatches of a host-driven
    /// rebuild.
    arg_sizes: Vec<(u32, u32)>,
    /// Rebuilds decided by the host (default): steps record `rebuild_check` only and a due
    /// rebuild is redone with direct dispatches. false: every step records the whole broad
    /// phase as indirect dispatches (`SOFTDEM_GPU_REBUILD=gpu`; coupled runs always).
    host_rebuild: bool,
    /// The next recorded step must run the build (host-driven mode): at the start, after
    /// `rebuild_check` stopped a batch, after a list or segment-grid overflow.
    rebuild_next: bool,
    /// The next recorded step's integrate has run (its output is in the other side's states):
    /// after a stopped batch, whose stopping step had integrated (in the step before, fused with
    /// node_forces, whose finished states it does not store, or first in its batch). The redo
    /// resumes after integrate.
    integrated: bool,
    /// Dispatches recorded so far (`dispatches_recorded`, for the bench report).
    dispatches: std::cell::Cell<u64>,
    /// Modelled traffic of the kernels recorded so far (`byte_model`): bytes per node, and bytes
    /// per neighbour-list entry.
    modelled: std::cell::Cell<(f64, f64)>,
    /// Attached while `profile_kernels` runs: every dispatch in a timed pass of its own.
    timer: Option<KernelTimer>,
    /// Which shell_forces_contact_pairs entry point places the new slots.
    slot_allocation: SlotAllocation,
    /// How integrate records the largest displacement (its entry points).
    displacement: DisplacementMax,
    /// Two read-back buffers of the flags, one per batch in flight (`step_host_driven`).
    flag_staging: [wgpu::Buffer; 2],
    bucket_scan: PrefixScan,
    nbr_scan: PrefixScan,
    /// Bind groups per ping-pong side, for stepping and for the dt = 0 initial force pass.
    groups: Vec<SideGroups>,
    groups_init: Vec<SideGroups>,
    side: usize,
    steps: u64,
}

/// `SOFTDEM_GPU_REBUILD`: `host` (default) or `gpu` (see `GpuBackend::host_rebuild`).
fn rebuild_mode_from_env() -> anyhow::Result<bool> {
    match std::env::var("SOFTDEM_GPU_REBUILD").as_deref() {
        Err(_) | Ok("host") => Ok(true),
        Ok("gpu") => Ok(false),
        Ok(other) => anyhow::bail!("SOFTDEM_GPU_REBUILD={other:?}: expected `host` or `gpu`"),
    }
}

/// How a step records the neighbour-list build.
#[derive(Clone, Copy, PartialEq)]
enum BroadPhase {
    /// Every kernel, as indirect dispatches sized by `rebuild_decide` (zero when no rebuild).
    Indirect,
    /// Every kernel, as direct dispatches: the host knows a rebuild is due.
    Direct,
    /// `rebuild_check` only: it stops the batch when a rebuild is due.
    Check,
}

/// Order of the indirect dispatches of a rebuild (index into the args buffer, 12 bytes each).
const ARG_GRID_CLEAR: u32 = 0;
const ARG_GRID_COUNT: u32 = 1;
const ARG_GRID_CURSOR: u32 = 2;
const ARG_GRID_SCATTER: u32 = 3;
const ARG_NEIGHBOR_COUNT: u32 = 4;
const ARG_NEIGHBOR_FILL: u32 = 5;
const ARG_REBUILD_COMMIT: u32 = 6;
const ARG_SEGMENT_MAX: u32 = 7;
/// First slot of the bucket scan's dispatches; the neighbour scan's, then the segment grid's,
/// follow them.
const ARG_SCANS: u32 = 8;

/// The byte model of a step's kernels: the bytes one dispatch of kernel `entry` (its entry point)
/// moves to or from memory per node, as (per node, per neighbour-list entry), with
/// `links_per_node` cohesive links per node. Per-node streams count whole records (a GPU moves
/// 32-byte sectors, and a field of a 40-byte record read or written for every node touches
/// about every sector); reads of the neighbours' records (segment ends, contact partners) are
/// counted as cache hits, as are the per-body records; the entries of node_forces' gather (only
/// nodes a slot acts on) and the contact slots (a few % of the entries) are left out. List-build
/// kernels are not modelled (0): they run only when a build is due.
pub fn byte_model(entry: &str, links_per_node: f64) -> (f64, f64) {
    use std::mem::size_of;
    let state = size_of::<NodeState>() as f64;
    let record = size_of::<NodeRecord>() as f64;
    let shell = size_of::<ShellForce>() as f64;
    let (x_ref, start) = (8.0, 4.0);
    // An entry's neighbour, the previous step's slot index and this step's.
    let per_entry = size_of::<Entry>() as f64 + 4.0 + 4.0;
    match entry {
        // Record, state in, x_ref; state out (whole record).
        "integrate" | "integrate_staged" | "integrate_subgroup" => (record + state + x_ref + state, 0.0),
        // The positions of every node of a closed body.
        "core_area" => (state, 0.0),
        // Record, state (its own; the plastic state is in it), shell record out, list offset;
        // the entries.
        "shell_forces_contact_pairs" | "shell_forces_contact_pairs_direct" | "shell_forces_contact_pairs_subgroup" => {
            (record + state + shell + start, per_entry)
        }
        // Record, own shell record, state in, list offset; state out (whole record).
        "node_forces" | "node_forces_modal" => (record + shell + state + start + state, 0.0),
        // As node_forces without its store, plus integrate's x_ref and store.
        "node_forces_integrate" | "node_forces_integrate_staged" | "node_forces_integrate_subgroup" => {
            (record + shell + state + start + x_ref + state, 0.0)
        }
        // Per link: the link, two link states, the force.
        "cohesive_links" => (
            links_per_node * (size_of::<Link>() + 2 * size_of::<LinkState>() + 8) as f64,
            0.0,
        ),
        _ => (0.0, 0.0),
    }
}

/// Where the list build's scratch arrays lie in the ShellForce buffer, as (byte offset, bytes).
/// The ShellForce records are dead during a build: node_forces of the step before has read them,
/// and shell_forces of this step, after the build, writes every record whole before node_forces
/// reads any (a stopped step writes none and reads none). So the counting sort and the new list
/// live there instead of in buffers of their own (about 21 B/node at 10⁶ nodes); the host reads
/// `nbr_count[n]` and `seg_start[buckets]` after an overflow stopped the batch, before the redo.
/// Each array starts at a multiple of the device's storage-binding offset alignment.
#[derive(Clone, Copy, Debug)]
struct Scratch {
    /// Node counts per bucket, scanned into offsets (buckets + 1 words).
    bucket_start: (u64, u64),
    /// Segment-grid item counts per bucket, scanned into offsets (buckets + 1 words).
    seg_start: (u64, u64),
    /// Neighbour counts, scanned into the new list's offsets (n + 1 words); before
    /// neighbor_count, the buckets' fill cursors (nodes, then items: 2 × buckets words).
    nbr_count: (u64, u64),
    /// The nodes sorted by bucket (n words).
    bucket_nodes: (u64, u64),
    /// Neighbour indices of the list being built (one word per entry of the list capacity).
    new_neighbors: (u64, u64),
    /// Bytes from the start of the buffer to the end of the last array.
    end: u64,
}

impl Scratch {
    fn layout(n: u32, buckets: u32, capacity: u32, align: u64) -> Scratch {
        let mut at = 0u64;
        let mut next = |words: u64| {
            let r = (at, 4 * words.max(1));
            at = (at + r.1).next_multiple_of(align);
            r
        };
        let bucket_start = next(buckets as u64 + 1);
        let seg_start = next(buckets as u64 + 1);
        let nbr_count = next((n as u64 + 1).max(2 * buckets as u64));
        let bucket_nodes = next(n as u64);
        let new_neighbors = next(capacity as u64);
        Scratch {
            bucket_start,
            seg_start,
            nbr_count,
            bucket_nodes,
            new_neighbors,
            end: new_neighbors.0 + new_neighbors.1,
        }
    }

    /// ShellForce records the buffer holds: one per node, or more when the scratch needs them.
    fn shell_records(&self, n: u32) -> usize {
        (n as usize).max(self.end.div_ceil(std::mem::size_of::<ShellForce>() as u64) as usize)
    }

    /// Array `r` of the scratch in `buffer` as a binding.
    fn binding(buffer: &wgpu::Buffer, r: (u64, u64)) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer,
            offset: r.0,
            size: std::num::NonZeroU64::new(r.1),
        }
    }
}

/// The prefix scans of a list build over the scratch arrays in `shell`: buckets, neighbour
/// counts, segment-grid items.
fn scratch_scans(
    c: &GpuContext,
    shell: &wgpu::Buffer,
    sc: &Scratch,
    n: u32,
    buckets: u32,
) -> anyhow::Result<[PrefixScan; 3]> {
    Ok([
        PrefixScan::new_at(c, shell, sc.bucket_start.0, buckets)?,
        PrefixScan::new_at(c, shell, sc.nbr_count.0, n)?,
        PrefixScan::new_at(c, shell, sc.seg_start.0, buckets)?,
    ])
}

/// Neighbour-list capacity (entries) before the first build: a first guess, grown on overflow
/// (see `step_with_retry`). The dense bench packing needs ~1.6 entries per node (`near_shell`).
fn initial_list_capacity(n_nodes: u32, max_entries: u32) -> u32 {
    (2 * n_nodes).clamp(1024, max_entries.max(1024))
}

/// Segment-grid items before the first build: a cell whose centre lies within 0.75 of a side of a
/// segment is in one of at most 4 rows per column of its longer axis, over length/side + 3
/// columns, at the cell side of the start (it changes with the free segments; the items grow on
/// overflow, see `step_with_retry`).
fn initial_item_capacity(scene: &Scene) -> u32 {
    let h = scene.sim_params().cell_size as f64;
    let mut items = 0u64;
    for (i, n) in scene.nodes.iter().enumerate() {
        if n.next != NONE && scene.bodies[n.body as usize].flags & BODY_FROZEN != 0 {
            let (a, b) = (scene.init[i].pos(), scene.init[n.next as usize].pos());
            let len = (b[0] - a[0]).hypot(b[1] - a[1]);
            items += 4 * ((len / h).ceil() as u64 + 3);
        }
    }
    items.clamp(64, u32::MAX as u64 / 3) as u32
}

/// Contact slots before the first step for a list of `list_capacity` entries: one per 16 entries
/// (~2 % of the entries of the dense bench packing hold a contact); the pool grows on overflow
/// (see `step_with_retry`).
fn initial_pool_capacity(list_capacity: u32) -> u32 {
    (list_capacity / 16).max(256)
}

/// GPU memory the buffers of `GpuBackend::new` take for `scene` (the main ones: node, list, body
/// and grid buffers), without an adapter: `softdem check` prints it when none is found.
/// `initial_entries` is the size of the first neighbour list; the lists grow to 1.5× that when the
/// initial capacity is too small.
pub fn estimated_bytes(scene: &Scene, initial_entries: usize) -> u64 {
    use std::mem::size_of;
    let n = scene.nodes.len() as u64;
    let capacity = (initial_list_capacity(n as u32, u32::MAX) as u64).max(initial_entries as u64 * 3 / 2);
    let sz = |b: usize| b as u64;
    // Both node states, node, x_ref, live_start; slot and gather marks (two bits per node).
    let per_node = 2 * sz(size_of::<NodeState>()) + sz(size_of::<NodeRecord>()) + 8 + 4;
    let marks = 2 * 4 * n.div_ceil(32);
    // Entry, slot index × 2.
    let per_entry = sz(size_of::<Entry>()) + 2 * 4;
    let pool = 2 * initial_pool_capacity(capacity.min(u32::MAX as u64) as u32) as u64 * sz(size_of::<ContactSlot>());
    // The ShellForce records with the list build's scratch in them (256-byte alignment, the
    // usual limit), the segment grid's items.
    let buckets = scene.sim_params().grid_buckets;
    let scratch = Scratch::layout(n as u32, buckets, capacity.min(u32::MAX as u64) as u32, 256);
    let shell = scratch.shell_records(n as u32) as u64 * sz(size_of::<ShellForce>());
    let links = if scene.links.is_empty() { 0 } else { 4 * (n + 1) };
    let grid = 12 * initial_item_capacity(scene) as u64;
    n * per_node
        + shell
        + links
        + marks
        + capacity * per_entry
        + pool
        + scene.bodies.len() as u64 * sz(size_of::<Body>() + size_of::<BodyState>())
        + grid
}

impl GpuBackend {
    pub fn new(ctx: Arc<GpuContext>, scene: &Scene) -> anyhow::Result<GpuBackend> {
        Self::with_list_capacity(ctx, scene, None)
    }

    /// As `new`, with the initial neighbour-list capacity (entries) given: the lists grow from
    /// there when needed (tests use a tiny one to exercise the growth path).
    pub fn with_list_capacity(
        ctx: Arc<GpuContext>,
        scene: &Scene,
        capacity: Option<u32>,
    ) -> anyhow::Result<GpuBackend> {
        Self::with_capacities(ctx, scene, capacity, None)
    }

    /// As `with_list_capacity`, with the contact-slot pool's initial size also given.
    pub fn with_capacities(
        ctx: Arc<GpuContext>,
        scene: &Scene,
        capacity: Option<u32>,
        pool: Option<u32>,
    ) -> anyhow::Result<GpuBackend> {
        Self::with_all_capacities(ctx, scene, capacity, pool, None)
    }

    /// As `with_capacities`, with the segment grid's initial item count also given.
    pub fn with_all_capacities(
        ctx: Arc<GpuContext>,
        scene: &Scene,
        capacity: Option<u32>,
        pool: Option<u32>,
        items: Option<u32>,
    ) -> anyhow::Result<GpuBackend> {
        scene.validate().map_err(anyhow::Error::msg)?;
        let c = &*ctx;
        super::precision::require_df32(c)?;
        let slot_allocation = SlotAllocation::for_device(c)?;
        let displacement = DisplacementMax::for_device(c)?;
        let kernels = Kernels::new(c, slot_allocation, displacement)?;
        let n = scene.nodes.len() as u32;
        let mut params = scene.sim_params();
        let max_entries = (c.limits.max_storage_buffer_binding_size / std::mem::size_of::<Entry>() as u64) as u32;
        let capacity = capacity.unwrap_or(initial_list_capacity(n, max_entries)).max(1);
        let pool = pool.unwrap_or(initial_pool_capacity(capacity)).max(1);
        params.max_entries = capacity;
        c.check_binding_size("node state", n as u64 * std::mem::size_of::<NodeState>() as u64)?;
        let uniform = |p: &SimParams, label: &str| {
            c.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::bytes_of(p),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            })
        };
        let params_step = uniform(&params, "params");
        let params_init = uniform(&SimParams { dt: 0.0, ..params }, "params dt=0");
        let buckets = params.grid_buckets;
        let seg_capacity = items.unwrap_or_else(|| initial_item_capacity(scene)).max(1);
        let seg_items = GpuArray::<u32>::zeroed(c, "seg_items", 3 * seg_capacity as usize)?;
        // The ShellForce records, and in them the list build's scratch (`Scratch`).
        let scratch = Scratch::layout(
            n,
            buckets,
            capacity,
            c.limits.min_storage_buffer_offset_alignment as u64,
        );
        let shell = GpuArray::<ShellForce>::zeroed(c, "shell + list-build scratch", scratch.shell_records(n))?;
        let [bucket_scan, nbr_scan, seg_scan] = scratch_scans(c, shell.buffer(), &scratch, n, buckets)?;
        // Indirect arguments template: full sizes; rebuild_decide copies them or zeroes x.
        let mut template: Vec<[u32; 3]> = vec![[0, 1, 1]; ARG_SCANS as usize];
        let g = |threads: u32| {
            let (x, y) = dispatch_size(threads, WG);
            [x, y, 1]
        };
        template[ARG_GRID_CLEAR as usize] = g(buckets + 1);
        template[ARG_GRID_COUNT as usize] = g(n);
        template[ARG_GRID_CURSOR as usize] = g(buckets);
        template[ARG_GRID_SCATTER as usize] = g(n);
        template[ARG_NEIGHBOR_COUNT as usize] = g(n);
        template[ARG_NEIGHBOR_FILL as usize] = g(n);
        template[ARG_REBUILD_COMMIT as usize] = g(n);
        template[ARG_SEGMENT_MAX as usize] = g(n);
        for (x, y) in bucket_scan
            .dispatch_sizes()
            .into_iter()
            .chain(nbr_scan.dispatch_sizes())
            .chain(seg_scan.dispatch_sizes())
        {
            template.push([x, y, 1]);
        }
        let arg_sizes: Vec<(u32, u32)> = template.iter().map(|t| (t[0], t[1])).collect();
        let template: Vec<u32> = template.concat();
        let args_template = GpuArray::new(c, "args_template", &template)?;
        let args = GpuArray::new_indirect(c, "args", &template)?;
        let lists = Self::list_buffers(c, n, capacity)?;
        let device = device_nodes(&scene.nodes);
        let pool = Self::slot_pool(c, pool)?;
        let (link_start, link_list) = scene.link_csr();
        let no_links = vec![LinkState::default(); scene.links.len()];
        let links = LinkBuffers {
            count: scene.links.len() as u32,
            links: GpuArray::new(c, "links", &scene.links)?,
            laws: GpuArray::new(c, "link_laws", &scene.link_laws)?,
            state: [
                GpuArray::new(c, "link state 0", &no_links)?,
                GpuArray::new(c, "link state 1", &no_links)?,
            ],
            force: GpuArray::zeroed(c, "link_force", scene.links.len())?,
            // Without links one word (node_forces then skips the loop): 4 B/node less.
            start: if scene.links.is_empty() {
                GpuArray::new(c, "link_start", &[0u32])?
            } else {
                GpuArray::new(c, "link_start", &link_start)?
            },
            list: GpuArray::new(c, "link_list", &link_list)?,
        };
        let mut be = GpuBackend {
            kernels,
            params,
            n_nodes: n,
            n_bodies: scene.bodies.len() as u32,
            params_step,
            params_init,
            nodes: GpuArray::new(c, "nodes", &device.0)?,
            bcs: GpuArray::new(c, "node bcs", &device.1)?,
            nodes_host: scene.nodes.clone(),
            bodies: GpuArray::new(c, "bodies", &scene.bodies)?,
            materials: GpuArray::new(
                c,
                "materials",
                &scene.materials.iter().map(|m| m.for_kernels()).collect::<Vec<_>>(),
            )?,
            contact_laws: GpuArray::new(c, "contact_laws", &scene.contact_law_table())?,
            state: [
                GpuArray::new(c, "state 0", &scene.init)?,
                GpuArray::new(c, "state 1", &scene.init)?,
            ],
            shell,
            scratch,
            x_ref: GpuArray::zeroed(c, "x_ref", n as usize)?,
            // Slot marks, then gather marks (`model::layout::gathers`).
            slot_marks: GpuArray::zeroed(c, "slot_marks", 2 * (n as usize).div_ceil(32))?,
            body_state: GpuArray::zeroed(c, "body_state", scene.bodies.len())?,
            // max displacement = +inf and force_rebuild = 1: the first step builds the list.
            // No displacement bound yet (+∞: rebuild), a build forced.
            flags: GpuArray::new(
                c,
                "flags",
                &[StepFlags {
                    max_disp: f32::INFINITY.to_bits(),
                    force_rebuild: 1,
                    ..StepFlags::default()
                }],
            )?,
            seg_items,
            seg_capacity,
            seg_scan,
            lists,
            pool,
            links,
            args,
            args_template,
            arg_sizes,
            host_rebuild: rebuild_mode_from_env()?,
            rebuild_next: true,
            integrated: false,
            dispatches: std::cell::Cell::new(0),
            modelled: std::cell::Cell::new((0.0, 0.0)),
            timer: None,
            slot_allocation,
            displacement,
            flag_staging: [0, 1].map(|_| {
                c.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("flags staging"),
                    size: std::mem::size_of::<StepFlags>() as u64,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            }),
            bucket_scan,
            nbr_scan,
            groups: vec![],
            groups_init: vec![],
            side: 0,
            steps: 0,
            ctx,
        };
        be.make_groups();
        // One step with dt = 0 computes f_0 without moving anything (as the CPU twin does).
        be.step_with_retry(1, true)?;
        Ok(be)
    }

    fn list_buffers(c: &GpuContext, n: u32, capacity: u32) -> anyhow::Result<ListBuffers> {
        let cap = capacity as usize;
        c.check_binding_size("neighbour list", capacity as u64 * std::mem::size_of::<Entry>() as u64)?;
        let no_slots = vec![NO_SLOT; cap];
        Ok(ListBuffers {
            capacity,
            live_start: GpuArray::zeroed(c, "live_start", n as usize + 1)?,
            live_entries: GpuArray::zeroed(c, "live_entries", cap)?,
            slot_index: [
                GpuArray::new(c, "slot_index 0", &no_slots)?,
                GpuArray::new(c, "slot_index 1", &no_slots)?,
            ],
        })
    }

    fn slot_pool(c: &GpuContext, capacity: u32) -> anyhow::Result<SlotPool> {
        c.check_binding_size(
            "contact-slot pool",
            capacity as u64 * std::mem::size_of::<ContactSlot>() as u64,
        )?;
        Ok(SlotPool {
            capacity,
            slots: [
                GpuArray::zeroed(c, "contact slots 0", capacity as usize)?,
                GpuArray::zeroed(c, "contact slots 1", capacity as usize)?,
            ],
        })
    }

    /// Grows the neighbour-list buffers to hold `needed` entries (with margin), keeping the live
    /// list and its slot indices (and with them the friction histories).
    fn grow_lists(&mut self, needed: u32) -> anyhow::Result<()> {
        let c = &*self.ctx;
        let capacity = needed.saturating_add(needed / 2).max(2 * self.lists.capacity);
        let old = std::mem::replace(&mut self.lists, Self::list_buffers(c, self.n_nodes, capacity)?);
        let mut enc = c
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("grow") });
        let l = &self.lists;
        for (from, to) in [
            (old.live_start.buffer(), l.live_start.buffer()),
            (old.live_entries.buffer(), l.live_entries.buffer()),
            (old.slot_index[0].buffer(), l.slot_index[0].buffer()),
            (old.slot_index[1].buffer(), l.slot_index[1].buffer()),
        ] {
            enc.copy_buffer_to_buffer(from, 0, to, 0, from.size().min(to.size()));
        }
        c.queue.submit([enc.finish()]);
        self.params.max_entries = capacity;
        self.upload_params();
        self.place_scratch()?;
        self.make_groups();
        Ok(())
    }

    /// Lays the list build's scratch out for the current list capacity, in a larger ShellForce
    /// buffer when it no longer fits (its contents are dead between steps), with the scans over
    /// it made again. The caller makes the bind groups again (the coupled modal–SPD stepper
    /// binds the ShellForce buffer too, but its lists never grow: `record_coupled`).
    fn place_scratch(&mut self) -> anyhow::Result<()> {
        let c = &*self.ctx;
        let (n, buckets) = (self.n_nodes, self.params.grid_buckets);
        let align = c.limits.min_storage_buffer_offset_alignment as u64;
        self.scratch = Scratch::layout(n, buckets, self.lists.capacity, align);
        if self.scratch.shell_records(n) > self.shell.len() {
            self.shell = GpuArray::zeroed(c, "shell + list-build scratch", self.scratch.shell_records(n))?;
        }
        [self.bucket_scan, self.nbr_scan, self.seg_scan] =
            scratch_scans(c, self.shell.buffer(), &self.scratch, n, buckets)?;
        Ok(())
    }

    /// Grows the contact-slot pools to hold `needed` slots (with margin), keeping their contents
    /// (the side the overflowing step read holds the friction histories).
    fn grow_pool(&mut self, needed: u32) -> anyhow::Result<()> {
        let c = &*self.ctx;
        let capacity = needed.saturating_add(needed / 2).max(2 * self.pool.capacity);
        let old = std::mem::replace(&mut self.pool, Self::slot_pool(c, capacity)?);
        let mut enc = c.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("grow pool"),
        });
        for (from, to) in old.slots.iter().zip(&self.pool.slots) {
            enc.copy_buffer_to_buffer(from.buffer(), 0, to.buffer(), 0, from.buffer().size());
        }
        c.queue.submit([enc.finish()]);
        self.make_groups();
        Ok(())
    }

    /// Runs `steps` steps. When a list build finds more entries than the buffers hold, or
    /// contact_pairs more contacts than the slot pool holds, the GPU sets the overflow flag and
    /// every later kernel of the batch does nothing (they test the flag; `rebuild_decide` zeroes
    /// the indirect dispatches), so the state stays at the start of the overflowing step: node
    /// state, link state, slots and slot indices of that side, and the live list (a list overflow
    /// happens before the build commits; a pool overflow after it, and the redo, from the same
    /// positions, then keeps that list). The host grows the lists or the pools, undoes that
    /// step's counters and runs the remaining steps from there: the result is as if the capacity
    /// had been enough, with no snapshot copy of the state.
    fn step_with_retry(&mut self, steps: u32, init: bool) -> anyhow::Result<()> {
        if self.host_rebuild {
            return self.step_host_driven(steps, init);
        }
        let mut left = steps;
        // The GPU's step counter (flags.step) equals the host's at the start of a call.
        let mut counted0 = self.steps as u32;
        while left > 0 {
            let side0 = self.side;
            self.record_and_submit(left, init);
            let flags = self.read_flags();
            if flags.stop == 0 {
                return Ok(());
            }
            let done = self.handle_stop(flags, side0, counted0, init)?;
            left -= done;
            counted0 = counted0.wrapping_add(done);
        }
        Ok(())
    }

    /// `step_with_retry` with host-driven rebuilds: batches of `STEPS_PER_SUBMIT` steps, two in
    /// flight, each ending with a copy of the flags into its own staging buffer; the host reads a
    /// batch's flags while the next one runs. When a batch stopped (a due rebuild, an
    /// overflow), the batch after it did nothing (every kernel tests flags.stop); the host handles
    /// the stop and records from the stopping step.
    fn step_host_driven(&mut self, steps: u32, init: bool) -> anyhow::Result<()> {
        let mut left = steps;
        let mut counted0 = self.steps as u32;
        let mut flight = std::collections::VecDeque::new();
        let mut queued = 0;
        let mut staging = 0;
        while left > 0 {
            while flight.len() < 2 && queued < left {
                let batch = (left - queued).min(STEPS_PER_SUBMIT);
                let side0 = self.side;
                let index = self.submit_batch(batch, init, Some(staging));
                flight.push_back((batch, side0, index, staging));
                queued += batch;
                staging ^= 1;
            }
            let (batch, side0, index, k) = flight.pop_front().expect("a batch in flight");
            let flags = self.read_staged_flags(k, index);
            if flags.stop == 0 {
                left -= batch;
                queued -= batch;
                if !init {
                    counted0 = counted0.wrapping_add(batch);
                }
                continue;
            }
            if let Some((_, _, last, _)) = flight.back() {
                self.ctx
                    .device
                    .poll(wgpu::PollType::Wait {
                        submission_index: Some(last.clone()),
                        timeout: None,
                    })
                    .expect("wgpu device poll failed (device lost?)");
            }
            flight.clear();
            queued = 0;
            let done = self.handle_stop(flags, side0, counted0, init)?;
            left -= done;
            counted0 = counted0.wrapping_add(done);
        }
        Ok(())
    }

    /// The flags as batch `index` left them in staging buffer `k` (waits for that batch only).
    fn read_staged_flags(&self, k: usize, index: wgpu::SubmissionIndex) -> StepFlags {
        let buf = &self.flag_staging[k];
        let (tx, rx) = std::sync::mpsc::channel();
        buf.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.ctx
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .expect("wgpu device poll failed (device lost?)");
        rx.recv()
            .expect("map_async callback was not called")
            .expect("mapping the flags' staging buffer failed");
        let flags = bytemuck::pod_read_unaligned::<StepFlags>(&buf.slice(..).get_mapped_range().expect("mapped flags"));
        buf.unmap();
        flags
    }

    /// After a batch stopped (flags.stop) at the step the step counter flags.step stopped at: undoes
    /// that step's counters, grows what overflowed or marks the build due (`rebuild_next`),
    /// writes the flags back, puts the ping-pong side at the start of that step and returns the
    /// steps of the batch (begun on side `side0` with the counter at `counted0`) done before it.
    fn handle_stop(&mut self, mut flags: StepFlags, side0: usize, counted0: u32, init: bool) -> anyhow::Result<u32> {
        anyhow::ensure!(
            flags.cut_short == 0,
            "GPU list build: a loop of the wall walk stopped before its end (flags.cut_short; \
             shaders/broad_phase.wgsl, cut_short). The driver caps the loop iterations of one \
             invocation (lavapipe: 65535 for all loops together), and a wall node's walk of its \
             long segments needed more: subdivide the long walls (`segment`) or run with \
             --backend cpu"
        );
        // Steps completed before the overflowing one (the step counter stopped at it).
        let done = if init { 0 } else { flags.step.wrapping_sub(counted0) - 1 };
        self.side = side0 ^ (done as usize & 1);
        if flags.rebuild_due != 0 {
            // rebuild_check found a rebuild due: redo that step with the build recorded.
            flags.rebuild_due = 0;
            self.rebuild_next = true;
        } else if flags.pool_overflow != 0 {
            // The contact-slot pool overflowed in contact_pairs (flags.pool_used: the slots that step
            // asked for; threads that started after the overflow stopped early, so the redo
            // may overflow again and grow again). The step's list build, if any, had
            // committed and is kept: the redo, from the same positions, finds no reason to
            // rebuild.
            let (needed, before) = (flags.pool_used, self.pool.capacity);
            self.grow_pool(needed)?;
            anyhow::ensure!(
                self.pool.capacity > before,
                "contact-slot pool cannot grow beyond {before} slots"
            );
            flags.pool_overflow = 0;
        } else if flags.grid_overflow != 0 {
            // The segment grid outgrew its items in grid_scatter (the cell side shrank, or a
            // wall stretched): seg_start holds the items the build asked for.
            let at = self.scratch.seg_start.0 / 4 + self.params.grid_buckets as u64;
            let needed = read_u32_at(&self.ctx, self.shell.buffer(), at);
            let before = self.seg_capacity;
            self.seg_capacity = needed.saturating_add(needed / 2).max(2 * before);
            self.seg_items = GpuArray::zeroed(&self.ctx, "seg_items", 3 * self.seg_capacity as usize)?;
            self.make_groups();
            flags.grid_overflow = 0;
            flags.force_rebuild = 1;
            flags.rebuilds -= 1;
            self.rebuild_next = true;
        } else {
            let at = self.scratch.nbr_count.0 / 4 + self.n_nodes as u64;
            let needed = read_u32_at(&self.ctx, self.shell.buffer(), at);
            let before = self.lists.capacity;
            self.grow_lists(needed)?;
            anyhow::ensure!(
                self.lists.capacity > before,
                "neighbour list cannot grow beyond {before} entries"
            );
            // Undo the overflowing step's rebuild_decide: rebuild forced again, rebuild
            // counter back by one.
            flags.force_rebuild = 1;
            flags.rebuilds -= 1;
            self.rebuild_next = true;
        }
        // The stopping step's integrate ran (flags.stop is set after it in a step); its
        // displacement stays in flags.max_disp.
        self.integrated = true;
        // Overflow off, step counter back by one.
        flags.stop = 0;
        if !init {
            flags.step -= 1;
        }
        self.write_flags(&flags);
        Ok(done)
    }

    /// The step flags as the GPU left them (waits for the queue).
    fn read_flags(&self) -> StepFlags {
        self.flags.read(&self.ctx)[0]
    }

    fn write_flags(&self, flags: &StepFlags) {
        self.flags.write(&self.ctx, std::slice::from_ref(flags));
    }

    /// Writes `params` to the stepping uniform and, with dt = 0, to the initial-force one.
    fn upload_params(&self) {
        let c = &*self.ctx;
        c.queue
            .write_buffer(&self.params_step, 0, bytemuck::bytes_of(&self.params));
        c.queue.write_buffer(
            &self.params_init,
            0,
            bytemuck::bytes_of(&SimParams { dt: 0.0, ..self.params }),
        );
    }

    /// Bind groups for both sides, for the stepping and the dt = 0 parameters.
    fn make_groups(&mut self) {
        let mk = |params: &wgpu::Buffer, s: usize| -> SideGroups {
            let c = &*self.ctx;
            let k = &self.kernels;
            let l = &self.lists;
            // Side s integrates the states of the step before (old) into new.
            let (old, new) = (self.state[s].buffer(), self.state[1 - s].buffer());
            let integrate = k.integrate.bind(
                c,
                &[
                    (0, params),
                    (1, self.nodes.buffer()),
                    (5, self.flags.buffer()),
                    (15, self.bcs.buffer()),
                    (16, self.x_ref.buffer()),
                    (17, new),
                    (18, old),
                ],
            );
            let core_area = k.core_area.bind(
                c,
                &[
                    (0, params),
                    (1, self.bodies.buffer()),
                    (2, self.materials.buffer()),
                    (3, new),
                    (4, self.body_state.buffer()),
                    (5, self.flags.buffer()),
                    (10, self.slot_marks.buffer()),
                ],
            );
            let shell_contacts = k.shell_contacts.bind(
                c,
                &[
                    (0, params),
                    (1, self.nodes.buffer()),
                    (2, self.bodies.buffer()),
                    (3, new),
                    (14, self.materials.buffer()),
                    (15, self.body_state.buffer()),
                    (17, self.shell.buffer()),
                    (5, l.live_start.buffer()),
                    (6, l.live_entries.buffer()),
                    (7, self.pool.slots[s].buffer()),
                    (8, self.pool.slots[1 - s].buffer()),
                    (9, l.slot_index[1 - s].buffer()),
                    (11, l.slot_index[s].buffer()),
                    (10, self.flags.buffer()),
                    (12, self.slot_marks.buffer()),
                    (13, self.contact_laws.buffer()),
                ],
            );
            let node_forces = k.node_forces.bind(c, &self.node_forces_table(params, s));
            let node_forces_integrate = k.node_forces_integrate.bind(c, &self.node_forces_table(params, s));
            let lk = &self.links;
            let cohesive_links = k.cohesive_links.bind(
                c,
                &[
                    (0, params),
                    (1, lk.links.buffer()),
                    (2, lk.laws.buffer()),
                    (3, new),
                    (5, lk.state[s].buffer()),
                    (6, lk.state[1 - s].buffer()),
                    (7, lk.force.buffer()),
                    (8, self.flags.buffer()),
                ],
            );
            // The scratch arrays: ranges of the ShellForce buffer (`Scratch`).
            let (sh, sc) = (self.shell.buffer(), &self.scratch);
            let whole = wgpu::Buffer::as_entire_buffer_binding;
            let table: Vec<(u32, wgpu::BufferBinding<'_>)> = vec![
                (0, whole(params)),
                (1, whole(self.nodes.buffer())),
                (2, whole(self.bodies.buffer())),
                (3, whole(new)),
                (4, Scratch::binding(sh, sc.bucket_start)),
                (5, Scratch::binding(sh, sc.nbr_count)), // cursor: see `Scratch::nbr_count`
                (6, Scratch::binding(sh, sc.bucket_nodes)),
                (7, Scratch::binding(sh, sc.nbr_count)),
                (8, whole(l.live_start.buffer())),
                (9, whole(l.live_entries.buffer())),
                (10, whole(l.slot_index[s].buffer())),
                (11, Scratch::binding(sh, sc.new_neighbors)),
                (12, whole(l.slot_index[1 - s].buffer())), // new_slot_index: written by contact_pairs later
                (13, whole(self.flags.buffer())),
                (14, whole(self.x_ref.buffer())),
                (15, whole(self.args.buffer())),
                (16, whole(self.args_template.buffer())),
                (17, Scratch::binding(sh, sc.seg_start)),
                (18, whole(self.seg_items.buffer())),
            ];
            let broad_phase = [
                &k.rebuild_decide,
                &k.segment_max,
                &k.grid_clear,
                &k.grid_count,
                &k.grid_cursor,
                &k.grid_scatter,
                &k.neighbor_count,
                &k.neighbor_fill,
                &k.rebuild_commit,
                &k.rebuild_check,
            ]
            .iter()
            .map(|kk| kk.bind_ranges(c, &table))
            .collect();
            SideGroups {
                integrate,
                core_area,
                shell_contacts,
                node_forces,
                node_forces_integrate,
                cohesive_links,
                broad_phase,
            }
        };
        let groups = vec![mk(&self.params_step, 0), mk(&self.params_step, 1)];
        let groups_init = vec![mk(&self.params_init, 0), mk(&self.params_init, 1)];
        self.groups = groups;
        self.groups_init = groups_init;
    }

    /// Records `steps` steps into one command buffer per `STEPS_PER_SUBMIT` and submits them.
    fn record_and_submit(&mut self, steps: u32, init: bool) {
        let mut left = steps;
        while left > 0 {
            let batch = left.min(STEPS_PER_SUBMIT);
            self.submit_batch(batch, init, None);
            left -= batch;
        }
    }

    /// Records `batch` steps into one command buffer and submits it; with `staging` = Some(k),
    /// the flags are copied into `flag_staging[k]` at its end.
    fn submit_batch(&mut self, batch: u32, init: bool, staging: Option<usize>) -> wgpu::SubmissionIndex {
        let mut enc = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("steps") });
        // With a timer attached (`profile_kernels`), each kernel in a timed pass of its own.
        let mut timer = self.timer.take();
        {
            let mut rec = Recorder::new(&mut enc, "steps", timer.as_mut());
            for i in 0..batch {
                let bp = if !self.host_rebuild {
                    BroadPhase::Indirect
                } else if std::mem::take(&mut self.rebuild_next) {
                    BroadPhase::Direct
                } else {
                    BroadPhase::Check
                };
                // The batch's first step integrates; each step's node_forces integrates the
                // next one but the batch's last (the host may change the inputs between batches).
                let with_integrate = i == 0 && !std::mem::take(&mut self.integrated);
                self.record_step_begin(&mut rec, init, bp, with_integrate);
                self.record_step_end(&mut rec, init, i + 1 < batch);
                self.side = 1 - self.side;
            }
        }
        if let Some(t) = &timer {
            t.resolve(&mut enc);
        }
        self.timer = timer;
        if let Some(k) = staging {
            let bytes = self.flag_staging[k].size();
            enc.copy_buffer_to_buffer(self.flags.buffer(), 0, &self.flag_staging[k], 0, bytes);
        }
        self.ctx.queue.submit([enc.finish()])
    }

    /// Runs `steps` steps with every dispatch in a compute pass of its own whose beginning and end
    /// write a timestamp (`gpu::profile`), one batch of at most `STEPS_PER_SUBMIT` steps at a
    /// time; returns the GPU time per kernel and the wall time of the steps (the timestamps are
    /// read outside it). None when the device has no timestamp queries. Redone steps (a list
    /// build due, an overflow) and the build's kernels are included; the scans are not timed.
    pub fn profile_kernels(&mut self, steps: u32) -> anyhow::Result<Option<KernelProfile>> {
        let mut profile = KernelProfile {
            steps: steps as u64,
            wall_s: 0.0,
            kernels: Vec::new(),
        };
        let mut left = steps;
        while left > 0 {
            let Some(timer) = KernelTimer::new(&self.ctx) else {
                return Ok(None);
            };
            let batch = left.min(STEPS_PER_SUBMIT);
            self.timer = Some(timer);
            let t = std::time::Instant::now();
            let stepped = self.step(batch);
            profile.wall_s += t.elapsed().as_secs_f64();
            let timer = self.timer.take().expect("the timer attached above");
            stepped?;
            profile.add(&timer.read(&self.ctx));
            left -= batch;
        }
        Ok(Some(profile))
    }

    /// How new contact slots are placed (`SlotAllocation::for_device` unless set).
    pub fn slot_allocation(&self) -> SlotAllocation {
        self.slot_allocation
    }

    /// Places the next steps' new contact slots as `a` says; all give the same run bit for bit
    /// (test `every_slot_allocation_gives_the_same_run`). `Subgroup` is refused on a device
    /// without subgroup operations.
    pub fn set_slot_allocation(&mut self, a: SlotAllocation) -> anyhow::Result<()> {
        require_subgroups(&self.ctx, a == SlotAllocation::Subgroup, "contact-slot allocation")?;
        let (shader, entry) = a.entry();
        self.kernels.shell_contacts = Kernel::new(&self.ctx, shader, entry)?;
        self.slot_allocation = a;
        self.make_groups();
        Ok(())
    }

    /// How integrate records the largest displacement (`DisplacementMax::for_device` unless set).
    pub fn displacement_max(&self) -> DisplacementMax {
        self.displacement
    }

    /// Records the next steps' displacement maximum as `d` says; all give the same run bit for
    /// bit (test `every_displacement_max_gives_the_same_run`). `Subgroup` is refused on a device
    /// without subgroup operations.
    pub fn set_displacement_max(&mut self, d: DisplacementMax) -> anyhow::Result<()> {
        require_subgroups(&self.ctx, d == DisplacementMax::Subgroup, "displacement maximum")?;
        let [(shader, integrate), (nf_shader, node_forces_integrate)] = d.entries();
        self.kernels.integrate = Kernel::new(&self.ctx, shader, integrate)?;
        self.kernels.node_forces_integrate = Kernel::new(&self.ctx, nf_shader, node_forces_integrate)?;
        self.displacement = d;
        self.make_groups();
        Ok(())
    }

    /// Dispatches recorded so far (all steps, redone ones included).
    pub fn dispatches_recorded(&self) -> u64 {
        self.dispatches.get()
    }

    /// Whether rebuilds are decided by the host (see `host_rebuild`).
    pub fn host_driven_rebuilds(&self) -> bool {
        self.host_rebuild
    }

    /// Chooses host-driven (true, the default) or GPU-driven rebuilds for the next steps; both
    /// give the same run bit for bit (test `host_and_gpu_driven_rebuilds_give_the_same_run`).
    pub fn set_host_driven_rebuilds(&mut self, on: bool) {
        if on && !self.host_rebuild {
            // A build forced on the GPU (flags.force_rebuild) is found by rebuild_check, which stops the
            // batch; the host then records it.
            self.rebuild_next = false;
        }
        self.host_rebuild = on;
    }

    /// The bindings of node_forces for ping-pong side `s` (it reads the slots and slot indices
    /// this step wrote, side 1 − s).
    fn node_forces_table<'a>(&'a self, params: &'a wgpu::Buffer, s: usize) -> Vec<(u32, &'a wgpu::Buffer)> {
        let l = &self.lists;
        vec![
            (0, params),
            (1, self.nodes.buffer()),
            (2, self.bodies.buffer()),
            (3, self.shell.buffer()),
            (4, l.slot_index[1 - s].buffer()),
            (5, self.flags.buffer()),
            (7, self.slot_marks.buffer()),
            (8, l.live_start.buffer()),
            (9, l.live_entries.buffer()),
            (10, self.pool.slots[1 - s].buffer()),
            (11, self.links.start.buffer()),
            (12, self.links.list.buffer()),
            (13, self.links.force.buffer()),
            (15, self.bcs.buffer()),
            // This step's node states, finished in place; node_forces_integrate integrates the
            // next step into the other side.
            (6, self.state[1 - s].buffer()),
            (16, self.x_ref.buffer()),
            (17, self.state[s].buffer()),
        ]
    }

    /// For the coupled modal–SPD stepper (`coupled::gpu`): the node_forces bindings of side `s`
    /// (stepping or dt = 0 parameters), the node state buffer of side `s` and v_{n+½}.
    pub(crate) fn coupling_table(&self, init: bool, s: usize) -> Vec<(u32, &wgpu::Buffer)> {
        self.node_forces_table(if init { &self.params_init } else { &self.params_step }, s)
    }

    /// The node state buffer of ping-pong side `s`.
    pub(crate) fn state_buffer(&self, s: usize) -> &wgpu::Buffer {
        self.state[s].buffer()
    }

    /// Records and submits `steps` coupled steps: per step, every kernel of `record_step` up to
    /// node_forces, then `couple(pass, side)`, which records the modal and coupling passes and
    /// node_forces_modal. The neighbour lists are not grown here: an overflow is an error (the
    /// modal kernels do not stop at an SPD list overflow, so the batch cannot be redone). `init`: the
    /// dt = 0 force pass, not counted as a step.
    pub(crate) fn record_coupled(
        &mut self,
        steps: u32,
        init: bool,
        couple: &mut dyn FnMut(&mut wgpu::ComputePass<'_>, usize),
    ) -> anyhow::Result<()> {
        let mut left = steps;
        while left > 0 {
            let batch = left.min(STEPS_PER_SUBMIT);
            let mut enc = self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("coupled steps"),
            });
            {
                let mut rec = Recorder::new(&mut enc, "coupled steps", None);
                for _ in 0..batch {
                    self.record_step_begin(&mut rec, init, BroadPhase::Indirect, true);
                    couple(rec.pass(), self.side);
                    self.side = 1 - self.side;
                }
            }
            self.ctx.queue.submit([enc.finish()]);
            left -= batch;
        }
        anyhow::ensure!(
            self.read_flags().stop == 0,
            "coupled modal–SPD run: the SPD neighbour list outgrew its {} entries or the contact-slot \
             pool its {} slots (src/gpu/stepper.rs, record_coupled); give the GPU backend larger \
             initial capacities",
            self.lists.capacity,
            self.pool.capacity
        );
        if !init {
            self.steps += steps as u64;
        }
        Ok(())
    }

    /// node_forces (the last kernel of a step); with `integrate_next`, fused with the next step's
    /// integrate (`node_forces_integrate`), which that step then does not record.
    fn record_step_end(&self, rec: &mut Recorder<'_>, init: bool, integrate_next: bool) {
        let g = if init {
            &self.groups_init[self.side]
        } else {
            &self.groups[self.side]
        };
        let nodes = dispatch_size(self.n_nodes, WG);
        if integrate_next {
            rec.dispatch(&self.kernels.node_forces_integrate, &g.node_forces_integrate, nodes);
        } else {
            rec.dispatch(&self.kernels.node_forces, &g.node_forces, nodes);
        }
        self.dispatches.set(self.dispatches.get() + 1);
        let name = if integrate_next {
            "node_forces_integrate"
        } else {
            "node_forces"
        };
        self.model_add(name);
    }

    /// Adds kernel `name`'s modelled traffic (`byte_model`) for one dispatch.
    fn model_add(&self, name: &str) {
        let (node, entry) = byte_model(name, self.links.count as f64 / self.n_nodes.max(1) as f64);
        let (a, b) = self.modelled.get();
        self.modelled.set((a + node, b + entry));
    }

    /// Modelled traffic of the kernels recorded so far, per node (`byte_model`): (bytes per
    /// node, bytes per neighbour-list entry), summed over the dispatches; divided by the steps,
    /// B/node-step = node + entry × (entries per node). List builds are not modelled.
    pub fn modelled_bytes(&self) -> (f64, f64) {
        self.modelled.get()
    }

    /// Every kernel of a step before node_forces; integrate only `with_integrate` (otherwise the
    /// step before ran it, fused with its node_forces).
    fn record_step_begin(&self, rec: &mut Recorder<'_>, init: bool, mode: BroadPhase, with_integrate: bool) {
        let g = if init {
            &self.groups_init[self.side]
        } else {
            &self.groups[self.side]
        };
        let k = &self.kernels;
        let nodes = dispatch_size(self.n_nodes, WG);
        // core_area: eight invocations per body; the same threads clear the gather marks.
        let marks_words = self.n_nodes.div_ceil(32);
        let bodies = dispatch_size((8 * self.n_bodies).max(marks_words), WG);
        let args = self.args.buffer();
        let count = |d: u64| self.dispatches.set(self.dispatches.get() + d);
        let direct = |rec: &mut Recorder<'_>, kern: &Kernel, group: &wgpu::BindGroup, d: (u32, u32)| {
            rec.dispatch(kern, group, d);
            count(1);
            self.model_add(kern.name.rsplit("::").next().unwrap_or(""));
        };
        // A kernel of the build: indirect (sized by rebuild_decide) or direct (the template's size).
        let build = |rec: &mut Recorder<'_>, kern: &Kernel, group: &wgpu::BindGroup, slot: u32| {
            if mode == BroadPhase::Indirect {
                let pass = rec.pass();
                pass.set_pipeline(&kern.pipeline);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups_indirect(args, slot as u64 * 12);
            } else {
                rec.dispatch(kern, group, self.arg_sizes[slot as usize]);
            }
            count(1);
        };
        // The scans' dispatches are not timed (one untimed pass).
        let scan = |rec: &mut Recorder<'_>, sc: &PrefixScan, first: u32| {
            if mode == BroadPhase::Indirect {
                sc.record_indirect(rec.pass(), args, first);
            } else {
                sc.record(rec.pass());
            }
            count(sc.dispatch_sizes().len() as u64);
        };
        if with_integrate {
            direct(rec, &k.integrate, &g.integrate, nodes);
        }
        direct(rec, &k.core_area, &g.core_area, bodies);
        let bp = &g.broad_phase;
        if mode == BroadPhase::Check {
            direct(rec, &k.rebuild_check, &bp[9], (1, 1));
        } else {
            // Neighbour list: rebuild_decide decides (Indirect) or confirms (Direct) the build.
            direct(rec, &k.rebuild_decide, &bp[0], (1, 1));
            build(rec, &k.segment_max, &bp[1], ARG_SEGMENT_MAX);
            build(rec, &k.grid_clear, &bp[2], ARG_GRID_CLEAR);
            build(rec, &k.grid_count, &bp[3], ARG_GRID_COUNT);
            scan(rec, &self.bucket_scan, ARG_SCANS);
            let nbr_first = ARG_SCANS + self.bucket_scan.dispatch_sizes().len() as u32;
            let seg_first = nbr_first + self.nbr_scan.dispatch_sizes().len() as u32;
            scan(rec, &self.seg_scan, seg_first);
            build(rec, &k.grid_cursor, &bp[4], ARG_GRID_CURSOR);
            build(rec, &k.grid_scatter, &bp[5], ARG_GRID_SCATTER);
            build(rec, &k.neighbor_count, &bp[6], ARG_NEIGHBOR_COUNT);
            scan(rec, &self.nbr_scan, nbr_first);
            build(rec, &k.neighbor_fill, &bp[7], ARG_NEIGHBOR_FILL);
            build(rec, &k.rebuild_commit, &bp[8], ARG_REBUILD_COMMIT);
        }
        direct(rec, &k.shell_contacts, &g.shell_contacts, nodes);
        if self.links.count > 0 {
            direct(
                rec,
                &k.cohesive_links,
                &g.cohesive_links,
                dispatch_size(self.links.count, WG),
            );
        }
    }

    /// Number of neighbour-list builds so far (including the initial one).
    pub fn rebuilds(&self) -> u64 {
        self.read_flags().rebuilds as u64
    }

    pub fn params(&self) -> &SimParams {
        &self.params
    }

    /// Current neighbour-list capacity (entries).
    pub fn list_capacity(&self) -> u32 {
        self.lists.capacity
    }

    /// The slot of each of the first `total` entries, as the last step left them.
    fn slots_per_entry(&self, total: usize) -> Vec<ContactSlot> {
        let index = self.lists.slot_index[self.side].read(&self.ctx);
        let pool = self.pool.slots[self.side].read(&self.ctx);
        slots_per_entry(&index[..total], &pool)
    }

    /// Current capacity of the segment grid (items).
    pub fn item_capacity(&self) -> u32 {
        self.seg_capacity
    }

    /// Current size of the contact-slot pool (slots).
    pub fn pool_capacity(&self) -> u32 {
        self.pool.capacity
    }

    /// Bytes of GPU memory held by the simulation buffers (all of them).
    pub fn bytes_gpu(&self) -> u64 {
        self.buffer_bytes().iter().map(|(_, b)| b).sum()
    }

    /// Every simulation buffer's label and size in bytes, largest first (the GPU report's
    /// memory table).
    pub fn buffer_bytes(&self) -> Vec<(String, u64)> {
        let l = &self.lists;
        let lk = &self.links;
        let mut all: Vec<(String, u64)> = [
            ("nodes", self.nodes.buffer()),
            ("node bcs", self.bcs.buffer()),
            ("bodies", self.bodies.buffer()),
            ("materials", self.materials.buffer()),
            ("contact_laws", self.contact_laws.buffer()),
            ("state 0", self.state[0].buffer()),
            ("state 1", self.state[1].buffer()),
            ("shell + list-build scratch", self.shell.buffer()),
            ("x_ref", self.x_ref.buffer()),
            ("slot_marks", self.slot_marks.buffer()),
            ("body_state", self.body_state.buffer()),
            ("flags", self.flags.buffer()),
            ("seg_items", self.seg_items.buffer()),
            ("live_start", l.live_start.buffer()),
            ("live_entries", l.live_entries.buffer()),
            ("slot_index 0", l.slot_index[0].buffer()),
            ("slot_index 1", l.slot_index[1].buffer()),
            ("contact slots 0", self.pool.slots[0].buffer()),
            ("contact slots 1", self.pool.slots[1].buffer()),
            ("links", lk.links.buffer()),
            ("link_laws", lk.laws.buffer()),
            ("link state 0", lk.state[0].buffer()),
            ("link state 1", lk.state[1].buffer()),
            ("link_force", lk.force.buffer()),
            ("link_start", lk.start.buffer()),
            ("link_list", lk.list.buffer()),
        ]
        .iter()
        .map(|(name, b)| (name.to_string(), b.size()))
        .collect();
        all.sort_by_key(|b| std::cmp::Reverse(b.1));
        all
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> String {
        format!("gpu ({}, {:?})", self.ctx.info.name, self.ctx.info.backend)
    }

    fn step(&mut self, steps: u32) -> anyhow::Result<()> {
        self.step_with_retry(steps, false)?;
        self.steps += steps as u64;
        Ok(())
    }

    fn steps_done(&self) -> u64 {
        self.steps
    }

    fn device_bytes(&self) -> u64 {
        self.bytes_gpu()
    }

    fn read_nodes(&mut self) -> anyhow::Result<Vec<NodeState>> {
        Ok(self.state[self.side].read(&self.ctx))
    }

    fn read_bodies(&mut self) -> anyhow::Result<Vec<BodyState>> {
        Ok(self.body_state.read(&self.ctx))
    }

    fn read_contacts(&mut self) -> anyhow::Result<ContactSnapshot> {
        let start = self.lists.live_start.read(&self.ctx);
        let total = start[self.n_nodes as usize] as usize;
        let mut entries = self.lists.live_entries.read(&self.ctx);
        entries.truncate(total);
        let slots = self.slots_per_entry(total);
        Ok(ContactSnapshot { start, entries, slots })
    }

    fn read_links(&mut self) -> anyhow::Result<Vec<LinkState>> {
        Ok(self.links.state[self.side].read(&self.ctx))
    }

    fn export_state(&mut self) -> anyhow::Result<SavedState> {
        let c = &*self.ctx;
        let start = self.lists.live_start.read(c);
        let total = start[self.n_nodes as usize] as usize;
        let mut entries = self.lists.live_entries.read(c);
        entries.truncate(total);
        let hist = self.slots_per_entry(total).iter().map(|s| s.hist).collect();
        let c = &*self.ctx;
        Ok(SavedState {
            steps: self.steps,
            nodes: self.state[self.side].read(c),
            node_bc: self.nodes_host.clone(),
            start,
            entries,
            hist,
            x_ref: self.x_ref.read(c),
            max_disp_bits: self.read_flags().max_disp,
            links: self.links.state[self.side].read(c),
            kind: Vec::new(),
        })
    }

    fn import_state(&mut self, saved: &SavedState) -> anyhow::Result<()> {
        let n = self.n_nodes as usize;
        anyhow::ensure!(
            saved.nodes.len() == n && saved.start.len() == n + 1 && saved.x_ref.len() == n,
            "saved state has {} nodes, this scene {n}",
            saved.nodes.len()
        );
        if saved.entries.len() > self.lists.capacity as usize {
            let needed = saved.entries.len() as u32;
            self.lists = Self::list_buffers(&self.ctx, self.n_nodes, needed + needed / 2)?;
            self.params.max_entries = self.lists.capacity;
            self.upload_params();
            // The new list's neighbours (scratch) need room for the larger capacity.
            self.place_scratch()?;
            self.make_groups();
        }
        let (index, slots) = slots_from_histories(&saved.hist);
        if slots.len() > self.pool.capacity as usize {
            self.pool = Self::slot_pool(&self.ctx, slots.len() as u32 * 3 / 2)?;
            self.make_groups();
        }
        self.set_boundary_conditions(&saved.node_bc)?;
        let c = &*self.ctx;
        self.steps = saved.steps;
        // The next step integrates side `self.side`.
        self.state[self.side].write(c, &saved.nodes);
        self.lists.live_start.write(c, &saved.start);
        self.lists.live_entries.write(c, &saved.entries);
        // The next step reads the slots of this side (contact_pairs of side `self.side`).
        self.lists.slot_index[self.side].write(c, &index);
        self.pool.slots[self.side].write(c, &slots);
        self.x_ref.write(c, &saved.x_ref);
        anyhow::ensure!(
            saved.links.len() == self.links.count as usize,
            "saved state has {} links, this scene {}",
            saved.links.len(),
            self.links.count
        );
        self.links.state[self.side].write(c, &saved.links);
        let mut flags = self.read_flags();
        flags.max_disp = saved.max_disp_bits;
        flags.step = saved.steps as u32;
        flags.stop = 0;
        flags.force_rebuild = 0;
        // The imported list is live; rebuild_check decides the next build from the imported
        // displacement.
        self.rebuild_next = false;
        // The imported states are whole: the next step integrates them.
        self.integrated = false;
        self.write_flags(&flags);
        Ok(())
    }

    fn set_gravity(&mut self, g: [f32; 2]) -> anyhow::Result<()> {
        self.params.gravity = g;
        self.upload_params();
        Ok(())
    }

    fn set_boundary_conditions(&mut self, nodes: &[Node]) -> anyhow::Result<()> {
        anyhow::ensure!(nodes.len() == self.n_nodes as usize, "node count changed");
        for (a, b) in self.nodes_host.iter_mut().zip(nodes) {
            a.bc_mode = b.bc_mode;
            a.bc_velocity = b.bc_velocity;
            a.bc_force = b.bc_force;
        }
        let (records, bcs) = device_nodes(&self.nodes_host);
        self.nodes.write(&self.ctx, &records);
        if self.bcs.write_or_grow(&self.ctx, "node bcs", &bcs)? {
            self.make_groups();
        }
        Ok(())
    }
}

#[cfg(test)]
mod mode_tests {
    use super::{DisplacementMax as D, SlotAllocation as S};

    /// The defaults by adapter (direct on a CPU adapter whatever it has; on a GPU the slots'
    /// workgroup stage, and the displacement's subgroup maximum where it has subgroup operations,
    /// its workgroup stage without), the overrides, and `subgroup` refused
    /// with a message naming the variable where the device has no subgroup operations.
    #[test]
    fn modes_are_chosen_by_adapter_and_subgroup_is_refused_without_the_feature() {
        for subgroups in [false, true] {
            assert_eq!(S::choose("", true, subgroups).unwrap(), S::Direct);
            assert_eq!(D::choose("", true, subgroups).unwrap(), D::Direct);
        }
        assert_eq!(S::choose("", false, true).unwrap(), S::Workgroup);
        assert_eq!(D::choose("", false, true).unwrap(), D::Subgroup);
        assert_eq!(S::choose("", false, false).unwrap(), S::Workgroup);
        assert_eq!(D::choose("", false, false).unwrap(), D::Staged);
        for cpu in [false, true] {
            assert_eq!(S::choose("subgroup", cpu, true).unwrap(), S::Subgroup);
            assert_eq!(D::choose("subgroup", cpu, true).unwrap(), D::Subgroup);
            assert_eq!(S::choose("workgroup", cpu, true).unwrap(), S::Workgroup);
            assert_eq!(S::choose("direct", cpu, false).unwrap(), S::Direct);
            assert_eq!(D::choose("staged", cpu, true).unwrap(), D::Staged);
            assert_eq!(D::choose("direct", cpu, false).unwrap(), D::Direct);
            let e = S::choose("subgroup", cpu, false).unwrap_err().to_string();
            assert!(
                e.starts_with("SOFTDEM_GPU_SLOTS=subgroup: this device has no subgroup"),
                "{e}"
            );
            let e = D::choose("subgroup", cpu, false).unwrap_err().to_string();
            assert!(
                e.starts_with("SOFTDEM_GPU_DISPLACEMENT=subgroup: this device has no subgroup"),
                "{e}"
            );
        }
        let e = S::choose("staged", false, true).unwrap_err().to_string();
        assert_eq!(
            e,
            "SOFTDEM_GPU_SLOTS=\"staged\": expected one of workgroup, direct, subgroup"
        );
        let e = D::choose("workgroup", false, true).unwrap_err().to_string();
        assert_eq!(
            e,
            "SOFTDEM_GPU_DISPLACEMENT=\"workgroup\": expected one of direct, staged, subgroup"
        );
    }
}
