// spd_records.wgsl: the SPD engine's records, shared with src/model/layout.rs (same fields, same
// order, same sizes; checked by tests/layout.rs) and their constants. No bindings, so kernels of
// other kinds that read SPD state (modal_spd_contact.wgsl) import the records without model.wgsl's
// bindings.

// ---- Records shared with src/model/layout.rs (same fields, same order, same sizes). ----

const BC_VX: u32 = 1u;
const BC_VY: u32 = 2u;
const CORE_NONE: u32 = 0u;
const CORE_UNDRAINED: u32 = 1u;
const CORE_DRAINED: u32 = 2u;
const CORE_GAS: u32 = 3u;
const BODY_CLOSED: u32 = 1u;
const BODY_FROZEN: u32 = 2u;
const BODY_SELF_CONTACT: u32 = 4u;
const SLOT_SEG: u32 = 1u;
const SLOT_CAP: u32 = 2u;
// slot_index of an entry without a contact (= NONE).
const NO_SLOT: u32 = 0xffffffffu;

// A slot with no contact (ContactSlot::default()).
fn empty_slot() -> ContactSlot {
    return ContactSlot(vec2<f32>(0.0, 0.0), vec2<f32>(0.0, 0.0), 0.0, 0.0, 0.0, 0u, vec2<f32>(0.0, 0.0));
}
const PI: f32 = 3.14159265358979;

struct NodeRecord {
    body: u32,
    prev: u32,
    next: u32,
    local_index: u32,
    mass: f32,
    bc: u32,
}

struct NodeBc {
    mode: u32,
    _pad: u32,
    velocity: vec2<f32>,
    force: vec2<f32>,
}

struct Body {
    first: u32,
    count: u32,
    material: u32,
    flags: u32,
    radius: f32,
    core_model: u32,
    core_p0: f32,
    core_v0: f32,
    core_a0_hi: f32,
    core_a0_lo: f32,
    contact_material: u32,
}

struct Material {
    k_s: f32,
    f_s_yield: f32,
    c_s: f32,
    k_b: f32,
    m_b_yield: f32,
    c_b: f32,
    k_core: f32,
    depth: f32,
}

struct SimParams {
    n_nodes: u32,
    n_bodies: u32,
    max_entries: u32,
    grid_buckets: u32,
    dt: f32,
    viscous_damping: f32,
    local_damping: f32,
    skin: f32,
    gravity: vec2<f32>,
    cell_size: f32,
    cutoff: f32,
    self_exclusion: u32,
    // Always 0. XOR-ing float bits with it hides values from the shader compiler (see opaque).
    opaque_zero: u32,
    contact_reach: f32,
    // The contact law of materials (a, b) is entry a·n_contact_materials + b of the law table.
    n_contact_materials: u32,
}

// The contact law (eq 5–8) of one pair of contact materials (src/model/contact_table.rs).
struct ContactLaw {
    k_n: f32,
    k_t: f32,
    mu: f32,
    c_n: f32,
}

struct NodeState {
    pos_hi: vec2<f32>,
    pos_lo: vec2<f32>,
    vel: vec2<f32>,
    force: vec2<f32>,
    seg_rest: f32,
    theta_p: f32,
}

struct BodyState {
    area: f32,
    pressure: f32,
    area_change: f32,
}

struct Entry {
    neighbor: u32,
}

struct Link {
    a: u32,
    b: u32,
    law: u32,
    _pad: u32,
    d0: f32,
    interface_length: f32,
}

struct LinkLaw {
    k_n: f32,
    k_t: f32,
    f_n0: f32,
    f_t0: f32,
    alpha: f32,
    g_c: f32,
    _pad0: f32,
    _pad1: f32,
}

const LINK_INTACT: u32 = 0u;
const LINK_BROKE_TENSION: u32 = 1u;
const LINK_BROKE_SHEAR: u32 = 2u;
const LINK_BROKE_ENERGY: u32 = 3u;

struct LinkState {
    f_n: f32,
    f_t: f32,
    broken_step: u32,
    mode: u32,
}

struct ShellForce {
    stretch: vec2<f32>,
    pressure: vec2<f32>,
    bend_a: vec2<f32>,
    bend_c: vec2<f32>,
    seg_rest: f32,
    theta_p: f32,
}

struct ContactSlot {
    seg_force: vec2<f32>,
    cap_force: vec2<f32>,
    seg_w: f32,
    seg_fn: f32,
    cap_fn: f32,
    flags: u32,
    hist: vec2<f32>,
}

// The SPD stepper's step flags: one record in a storage buffer, written by the kernels and read by
// the host after each batch (`StepFlags` of src/model/layout.rs, field by field). Kernels that
// write it bind `StepFlags` (atomic words), kernels that only test `stop` bind `StepFlagsView`
// (the same words, plain); both have the layout of the Rust record (tests/layout.rs).
struct StepFlags {
    // Largest node displacement since the last list build (f32 bits; integrate).
    max_disp: atomic<u32>,
    // 1: a list, the segment grid or the slot pool overflowed, or a build is due in a step
    // recorded without it: every later kernel of the batch does nothing.
    stop: atomic<u32>,
    // 1: the next rebuild_decide builds the list whatever the displacement (host).
    force_rebuild: atomic<u32>,
    // List builds so far.
    rebuilds: atomic<u32>,
    // Longest free segment at the last build (f32 bits): the cut-off is that + contact_reach.
    longest_free_segment: atomic<u32>,
    // The step being computed (1-based; counted by rebuild_decide/rebuild_check, read by
    // cohesive_links).
    step: atomic<u32>,
    // Slots appended to the pool in this step (contact_pairs; zeroed every step).
    pool_used: atomic<u32>,
    // 1: the slot pool overflowed (host: grow the pool, not the lists).
    pool_overflow: atomic<u32>,
    // 1: more segment-grid items than seg_items holds (host: grow it, redo the step).
    grid_overflow: atomic<u32>,
    // 1: a loop of the list build stopped short (`cut_short`; host: an error).
    cut_short: atomic<u32>,
    // 1: a rebuild is due in a step recorded without it (`rebuild_check`; host: redo the step
    // with the build).
    rebuild_due: atomic<u32>,
}

// `StepFlags` as read-only kernels bind it (atomics need read_write storage).
struct StepFlagsView {
    max_disp: u32,
    stop: u32,
    force_rebuild: u32,
    rebuilds: u32,
    longest_free_segment: u32,
    step: u32,
    pool_used: u32,
    pool_overflow: u32,
    grid_overflow: u32,
    cut_short: u32,
    rebuild_due: u32,
}
