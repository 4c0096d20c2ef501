//! Plain-old-data records shared byte for byte by the CPU twin and the WGSL kernels.
//!
//! Every struct here is `#[repr(C)]` + `Pod` and mirrored by a WGSL struct of the same name and
//! field order in `shaders/common.wgsl`; only 4-byte scalars and `[f32; 2]` pairs aligned to 8 bytes
//! are used so the std430 layout equals the C layout (checked by `tests/layout.rs`).

use bytemuck::{Pod, Zeroable};

/// Marks an absent neighbour in the node linked list (the paper's "absent vertex" ∅).
pub const NONE: u32 = u32::MAX;

/// Bit set in `Node::bc_mode` when the x velocity component is imposed.
pub const BC_VX: u32 = 1;
/// Bit set in `Node::bc_mode` when the y velocity component is imposed.
pub const BC_VY: u32 = 2;

/// Core models (§2.2, eq 4): how the core pressure follows the enclosed area.
pub const CORE_NONE: u32 = 0;
/// Undrained elastic core: p = p0 − K_Ω (V − V0)/V0 (eq 4 integrated).
pub const CORE_UNDRAINED: u32 = 1;
/// Drained core: p = p0, constant.
pub const CORE_DRAINED: u32 = 2;
/// Ideal gas at constant temperature: p V = p0 V0.
pub const CORE_GAS: u32 = 3;

/// Body flag: the node list is closed (a cell); otherwise an open line (wall, beam).
pub const BODY_CLOSED: u32 = 1;
/// Body flag: rigid and driven; no internal forces are computed.
pub const BODY_FROZEN: u32 = 2;
/// Body flag: non-adjacent parts of this shell contact each other.
pub const BODY_SELF_CONTACT: u32 = 4;

/// Static per-node topology and boundary conditions.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Node {
    /// Body this node belongs to.
    pub body: u32,
    /// Previous node along the shell, or `NONE` at the start of an open line.
    pub prev: u32,
    /// Next node along the shell, or `NONE` at the end of an open line. Segment `i` joins `i → next`.
    pub next: u32,
    /// Index of the node inside its body (0..count), for the self-contact exclusion.
    pub local: u32,
    /// Mass m of the node.
    pub mass: f32,
    /// `BC_VX | BC_VY` bits: imposed velocity components.
    pub bc_mode: u32,
    /// Imposed velocity (components selected by `bc_mode`).
    pub bc_velocity: [f32; 2],
    /// Force added to the node every step (components not imposed by velocity).
    pub bc_force: [f32; 2],
}

/// A node as the kernels read it (24 bytes): `Node` without its boundary condition, which few
/// nodes have and many share (a driven wall's nodes), so it is an index into a table of distinct
/// `NodeBc` records (`device_nodes` builds both).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NodeRecord {
    pub body: u32,
    pub prev: u32,
    pub next: u32,
    pub local: u32,
    pub mass: f32,
    /// Index into the `NodeBc` table, `NONE` for a node without imposed velocity or added force.
    pub bc: u32,
}

/// A boundary condition of `Node` (`bc_mode`, `bc_velocity`, `bc_force`), shared by every node
/// that has exactly this one.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NodeBc {
    /// `BC_VX | BC_VY` bits: imposed velocity components.
    pub mode: u32,
    pub _pad: u32,
    /// Imposed velocity (components selected by `mode`).
    pub velocity: [f32; 2],
    /// Force added every step.
    pub force: [f32; 2],
}

/// The kernels' node records and boundary-condition table for `nodes`. Distinct conditions get
/// one table entry each, in the order of their first node; the table is never empty (GPU
/// bindings cannot be), so a scene without conditions gets one unused entry.
pub fn device_nodes(nodes: &[Node]) -> (Vec<NodeRecord>, Vec<NodeBc>) {
    let mut table: Vec<NodeBc> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let records = nodes
        .iter()
        .map(|n| {
            let c = NodeBc {
                mode: n.bc_mode,
                _pad: 0,
                velocity: n.bc_velocity,
                force: n.bc_force,
            };
            let bc = if c.mode == 0 && n.bc_force == [0.0, 0.0] {
                NONE
            } else {
                let key = [
                    c.mode,
                    c.velocity[0].to_bits(),
                    c.velocity[1].to_bits(),
                    c.force[0].to_bits(),
                    c.force[1].to_bits(),
                ];
                *index.entry(key).or_insert_with(|| {
                    table.push(c);
                    (table.len() - 1) as u32
                })
            };
            NodeRecord {
                body: n.body,
                prev: n.prev,
                next: n.next,
                local: n.local,
                mass: n.mass,
                bc,
            }
        })
        .collect();
    if table.is_empty() {
        table.push(NodeBc::default());
    }
    (records, table)
}

/// Per-body parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Body {
    /// First node index.
    pub first: u32,
    /// Number of nodes.
    pub count: u32,
    /// Index into the material table.
    pub material: u32,
    /// `BODY_*` flags.
    pub flags: u32,
    /// Half-thickness r of the sphero-segments (and radius of the vertex disks).
    pub radius: f32,
    /// `CORE_*` model.
    pub core_model: u32,
    /// Reference pressure p0 of the core model.
    pub core_p0: f32,
    /// Reference volume V0 = s · A0 of the core model.
    pub core_v0: f32,
    /// Reference area A0 = |A| of the initial polygon as a double-f32 pair hi + lo (from f64 on
    /// the host): `core_area` forms |A| − A0 to ~1e-13 A0, so a stiff core's pressure
    /// K_Ω (V − V0)/V0 is not limited by the f32 rounding of V or V0 (eq 4).
    pub core_a0_hi: f32,
    pub core_a0_lo: f32,
    /// Index into the contact-material table (`Scene::contact_material`; 0: `[contact]`): the
    /// law of a contact is the table's entry for the two bodies' contact materials.
    pub contact_material: u32,
}

/// Shell and core constitutive parameters (§2.2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Material {
    /// Stretch stiffness k_s (eq 1), force per unit length change.
    pub k_s: f32,
    /// Stretch plastic threshold F_s^Y (eq 1); `f32::INFINITY` for purely elastic (the kernels
    /// read [`ELASTIC_THRESHOLD`] instead, see [`Material::for_kernels`]).
    pub f_s_yield: f32,
    /// Segment dashpot coefficient (force per unit elongation rate).
    pub c_s: f32,
    /// Bending stiffness k_b (eq 3), moment per radian.
    pub k_b: f32,
    /// Bending plastic threshold M_b^Y (eq 3); `f32::INFINITY` for purely elastic (kernels: as
    /// `f_s_yield`).
    pub m_b_yield: f32,
    /// Bending dashpot coefficient (moment per unit angular rate); not accumulated plastically.
    pub c_b: f32,
    /// Core modulus K_Ω (eq 4).
    pub k_core: f32,
    /// Out-of-plane depth s: pressure force s·ℓ·p, volume V = s·A.
    pub depth: f32,
}

/// Plastic threshold (F_s^Y, M_b^Y) of a purely elastic material as the kernels of both backends
/// read it: the largest finite f32 instead of +∞. A compiler allowed to assume no infinities
/// (fast-math drivers) may fold `|F| > F^Y` against +∞ arbitrarily; against this finite value the
/// comparison is false for every finite |F|, as it was against +∞, so results do not change.
pub const ELASTIC_THRESHOLD: f32 = f32::MAX;

impl Material {
    /// This material as the kernels read it: thresholds of +∞ (the scenario's "no yield")
    /// replaced by [`ELASTIC_THRESHOLD`]. Both backends upload or copy materials through it.
    pub fn for_kernels(self) -> Material {
        let finite = |y: f32| if y == f32::INFINITY { ELASTIC_THRESHOLD } else { y };
        Material {
            f_s_yield: finite(self.f_s_yield),
            m_b_yield: finite(self.m_b_yield),
            ..self
        }
    }
}

/// Everything a step needs that is the same for all nodes. One copy lives in a uniform buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SimParams {
    pub n_nodes: u32,
    pub n_bodies: u32,
    /// Capacity of the neighbour-entry arrays.
    pub max_entries: u32,
    /// Number of buckets of the hashed cell grid (power of two).
    pub grid_buckets: u32,
    pub dt: f32,
    /// Global viscous damping rate c_v: f −= c_v m v.
    pub viscous_damping: f32,
    /// Local non-viscous damping α: f_i −= α |f_i| sign(v_i) per component.
    pub local_damping: f32,
    /// Verlet skin: the list is rebuilt once a node has moved more than skin/2.
    pub skin: f32,
    pub gravity: [f32; 2],
    /// Side of a grid cell at the start (the cut-off); rebuilds use the current cut-off.
    pub cell_size: f32,
    /// Neighbour cut-off of the node grid at the start: longest segment of the free bodies +
    /// `contact_reach`. Each rebuild uses the longest free segment *at that time* (see
    /// `segment_max`), so stretched shells keep their contacts; wall (frozen) segments of any
    /// length go into the segment grid (`cpu::broad_phase`).
    pub cutoff: f32,
    /// Self-contact skips node pairs closer than this along the shell (ring distance).
    pub self_exclusion: u32,
    /// Always 0: the GPU kernels XOR float bits with it to stop inexact compiler algebra
    /// (see `opaque` in shaders/model.wgsl).
    pub opaque_zero: u32,
    /// 2 r_max + 2 skin: the cut-off is the longest free segment plus this (docs/model-to-code.md).
    pub contact_reach: f32,
    /// Contact materials n: the pair law of materials (a, b) is entry a·n + b of the law table
    /// (`model::contact_table`).
    pub n_contact_materials: u32,
}

/// The contact law of eq 5–8 between two bodies: one contact material, or the law of a pair of
/// them as the law table holds it (`model::contact_table`; one record per ordered pair).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactLaw {
    /// Normal stiffness k_n (eq 6).
    pub k_n: f32,
    /// Tangential stiffness k_t (eq 7).
    pub k_t: f32,
    /// Coulomb friction coefficient μ (eq 7–8).
    pub mu: f32,
    /// Normal viscous damping c_n (force per unit approach speed), 0 for elastic contacts.
    pub c_n: f32,
}

/// Dynamic per-node state: what a step reads (side n) and writes (side n+1).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NodeState {
    /// Position, high part (see `df32`).
    pub pos_hi: [f32; 2],
    /// Position, low part: the position is pos_hi + pos_lo.
    pub pos_lo: [f32; 2],
    pub vel: [f32; 2],
    /// Total force at this position (velocity Verlet needs f_n at the start of step n).
    pub force: [f32; 2],
    /// Plastic rest length of segment (this node → next), eq 1–2.
    pub seg_rest: f32,
    /// Plastic reference angle θ_p of the vertex at this node, eq 3.
    pub theta_p: f32,
}

/// Per-body quantities recomputed every step (area by the shoelace formula, core pressure).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyState {
    /// Signed enclosed area A (positive for counter-clockwise shells).
    pub area: f32,
    /// Core pressure p (eq 4 and the drained/gas variants).
    pub pressure: f32,
    /// |A| − A0, formed in double-f32 and rounded once (`core_area`): V − V0 = s·area_change
    /// without the cancellation of s|A| − V0 in f32 (core energies of stiff cores).
    pub area_change: f32,
}

/// One entry of a node's neighbour list (CSR, sorted by `neighbor`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Entry {
    /// The neighbouring node D.
    pub neighbor: u32,
}

/// Contact slot flag: the node–segment contact of this entry is active.
pub const SLOT_SEG: u32 = 1;
/// Contact slot flag: the node–node (cap) contact of this entry is active.
pub const SLOT_CAP: u32 = 2;

/// Marks an entry that holds no active contact in `slot_index` (the same value as `NONE`).
pub const NO_SLOT: u32 = NONE;

/// Slot marks: bit x of `marks` (word x / 32, bit x % 32) is set when node X's neighbour entries
/// hold at least one contact slot this step (`contact_pairs` sets them, one word per 32 nodes).
/// Few nodes touch anything in most steps, so `node_forces` looks for mirror entries in a
/// neighbour's list only when that neighbour is marked.
#[inline]
pub fn has_slots(marks: &[u32], x: u32) -> bool {
    marks[(x >> 5) as usize] & (1 << (x & 31)) != 0
}

/// Gather marks, the second half of the marks array (`marks.len() / 2` words in each half):
/// bit x is set when one of this step's contact slots acts on node X — as node C, as node D, or
/// as D's successor (the end of segment D → D+1). A node without it has no contact force at all,
/// so `node_forces` skips its whole entry loop; in a packing that is most nodes, and the loop's
/// data-dependent exit is no longer paid for them. `contact_pairs` sets the bits (GPU:
/// `atomicOr`; CPU: the stepper, from the nodes each chunk's contact_pairs listed), `shell_forces`
/// clears them on the GPU one step ahead, the CPU stepper before it sets them.
#[inline]
pub fn gathers(marks: &[u32], x: u32) -> bool {
    has_slots(&marks[marks.len() / 2..], x)
}

/// Forces of the contacts owned by one neighbour entry (node C of the list, neighbour D):
/// C against segment (D → next D), and the cap contact C–D when C < D. Only entries with an active
/// contact get one: slots live in a pool (`contact_pairs` appends them) and each entry's
/// `slot_index` says which slot is its own, or `NO_SLOT`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactSlot {
    /// Force on C from segment (D → next D); the ends receive −(1−w)·f and −w·f (Fig. 5).
    pub seg_force: [f32; 2],
    /// Force on C from node D (cap contact), owned by the lower index of the pair.
    pub cap_force: [f32; 2],
    /// Lever weight w = a/ℓ of the contact point along the segment (Fig. 5).
    pub seg_w: f32,
    /// Normal force f_n of the segment contact (for energies and counts).
    pub seg_fn: f32,
    /// Normal force f_n of the cap contact.
    pub cap_fn: f32,
    /// `SLOT_SEG | SLOT_CAP`.
    pub flags: u32,
    /// New friction history (eq 7–8: f_t of the segment contact, of the cap contact), copied to
    /// the entry's history by `node_forces`.
    pub hist: [f32; 2],
}

/// What `shell_forces` computes once per node X for `node_forces` to gather: the stretch force of
/// segment X → X+1, its core-pressure force, the two bending couples of vertex X, and the new
/// plastic state of both.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShellForce {
    /// Stretch force (eq 1–2) of segment X → X+1 on X+1; X receives the opposite.
    pub stretch: [f32; 2],
    /// Core-pressure force (§2.4) of segment X → X+1 on each of its two ends.
    pub pressure: [f32; 2],
    /// M ∂θ/∂x_{X−1} of vertex X (eq 3, 9–10): the bending force on X−1 is −bend_a, on X+1
    /// −bend_c, and on X bend_a + bend_c.
    pub bend_a: [f32; 2],
    /// M ∂θ/∂x_{X+1} of vertex X.
    pub bend_c: [f32; 2],
    /// New plastic rest length ℓ_p of segment X → X+1 (eq 1–2), copied to the node state by
    /// node_forces (so no kernel writes a node state that others read in the same pass).
    pub seg_rest: f32,
    /// New plastic angle θ_p of vertex X (eq 3).
    pub theta_p: f32,
}

/// A cohesive link between two nodes of different bodies (§7): linear normal and tangential
/// springs from the reference state until the yield function of eq 41 (or the energy criterion)
/// breaks it, irreversibly; the pair is then an ordinary frictional contact.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    /// Index into the link-law table.
    pub law: u32,
    pub _pad: u32,
    /// Reference distance |x_a − x_b| (the initial one).
    pub d0: f32,
    /// Interface length this link stands for (energy criterion: energy per unit length).
    pub interface_length: f32,
}

/// Parameters of the cohesive law (§7, eq 41). Sign convention of the paper: compression and
/// inward displacement positive, so `f_n0 < 0` is the tensile threshold.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LinkLaw {
    pub k_n: f32,
    /// Tangential stiffness (the paper uses 0.1 k_n).
    pub k_t: f32,
    /// Tensile normal force threshold f_n^0 (< 0).
    pub f_n0: f32,
    /// Tangential force threshold f_t^0 (> 0) at zero normal force.
    pub f_t0: f32,
    /// Exponent α of eq 41 (the paper uses 2).
    pub alpha: f32,
    /// Energy criterion: the link breaks when its elastic energy per unit interface length
    /// reaches G_c; 0 disables it.
    pub g_c: f32,
    pub _pad0: f32,
    pub _pad1: f32,
}

/// `LinkState::mode` of an intact link.
pub const LINK_INTACT: u32 = 0;
/// Broke by eq 41 with the normal term dominant (mode I).
pub const LINK_BROKE_TENSION: u32 = 1;
/// Broke by eq 41 with the shear term dominant.
pub const LINK_BROKE_SHEAR: u32 = 2;
/// Broke by the energy criterion.
pub const LINK_BROKE_ENERGY: u32 = 3;

/// Dynamic state of a link (ping-pong like the node state).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LinkState {
    /// Normal force f_n (compression positive), at this step or at the break.
    pub f_n: f32,
    /// Tangential force f_t (incremental, in the frame t = n × z), at this step or at the break.
    pub f_t: f32,
    /// Step at which the link broke (1-based), 0 while intact.
    pub broken_step: u32,
    /// `LINK_*` mode.
    pub mode: u32,
}

/// The SPD GPU stepper's step flags: one record in a storage buffer, written by the kernels and
/// read by the host after each batch (`gpu::stepper`). Mirrored in `shaders/spd_records.wgsl` as
/// `StepFlags` (atomic words, for the kernels that write it) and `StepFlagsView` (plain words);
/// tests/layout.rs checks both against this record.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StepFlags {
    /// Largest node displacement since the last list build, as f32 bits (integrate).
    pub max_disp: u32,
    /// 1: a list, the segment grid or the slot pool overflowed, or a build is due in a step
    /// recorded without it; every later kernel of the batch does nothing.
    pub stop: u32,
    /// 1: the next `rebuild_decide` builds the list whatever the displacement (set by the host).
    pub force_rebuild: u32,
    /// List builds so far.
    pub rebuilds: u32,
    /// Longest free segment at the last build, as f32 bits: the cut-off is that + `contact_reach`.
    pub longest_free_segment: u32,
    /// The step being computed (1-based; counted by the broad phase, read by cohesive_links).
    pub step: u32,
    /// Slots appended to the pool in this step (contact_pairs; zeroed every step).
    pub pool_used: u32,
    /// 1: the slot pool overflowed (the host grows the pool, not the lists).
    pub pool_overflow: u32,
    /// 1: more segment-grid items than `seg_items` holds (the host grows it, redoes the step).
    pub grid_overflow: u32,
    /// 1: a loop of the list build stopped short (`cut_short`): an error.
    pub cut_short: u32,
    /// 1: `rebuild_check` found a build due in a step recorded without it (the host redoes the
    /// step with the build).
    pub rebuild_due: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::bending::bending;
    use crate::cpu::stretch::stretch;
    use crate::model::lanes::{Point, ShellMaterial};

    /// The kernels' finite "no yield" gives the laws' results under +∞ bit for bit: stretch and
    /// bending over strains from 1e-6 to 1e30 (forces up to ~1e33) and both signs never yield.
    #[test]
    fn elastic_threshold_gives_the_results_of_infinity() {
        let m = Material {
            k_s: 1e3,
            f_s_yield: f32::INFINITY,
            c_s: 0.5,
            k_b: 1.0,
            m_b_yield: f32::INFINITY,
            c_b: 0.1,
            k_core: 0.0,
            depth: 1.0,
        };
        let finite = m.for_kernels();
        assert_eq!(
            (finite.f_s_yield, finite.m_b_yield),
            (ELASTIC_THRESHOLD, ELASTIC_THRESHOLD)
        );
        assert_eq!(Material { f_s_yield: 2.0, ..m }.for_kernels().f_s_yield, 2.0);
        let (inf, fin) = (ShellMaterial::from(&m), ShellMaterial::from(&finite));
        let p = |x: f32, y: f32| Point {
            hi: [x, y],
            lo: [0.0; 2],
            vel: [0.1, -0.2],
        };
        for e in -6..=30 {
            for sign in [-1.0f32, 1.0] {
                let s = sign * 10f32.powi(e);
                let (a, b) = (p(0.0, 0.0), p(1.0, 0.0));
                let (si, sf) = (stretch(&inf, &a, &b, 1.0 + s), stretch(&fin, &a, &b, 1.0 + s));
                assert_eq!(si.rest.to_bits(), sf.rest.to_bits(), "stretch rest at {s}");
                assert_eq!(
                    si.force_on_b.map(f32::to_bits),
                    sf.force_on_b.map(f32::to_bits),
                    "stretch at {s}"
                );
                let c = p(2.0, 0.3);
                let (bi, bf) = (bending(&inf, &a, &b, &c, s), bending(&fin, &a, &b, &c, s));
                assert_eq!(bi.moment.to_bits(), bf.moment.to_bits(), "bending at θ_p = {s}");
                assert_eq!(bi.theta_p.to_bits(), bf.theta_p.to_bits(), "bending θ_p at {s}");
            }
        }
    }
}
