// beads.wgsl: the bead force source of a bonded-bead body (Sahputra et al.), twin of
// src/beads/forces.rs and src/beads/bonds.rs (host order in src/beads/gpu.rs):
//   bond_pass (one Kelvin–Voigt force per bond, eq 3, breakage) → bead_pass (per bead: its bonds
//   in CSR order, then the planes of eq 6 in order; added to the stepper's extra force) →
//   load_pass (point loads) → plane_gather (per plane, minus its forces on the beads: one workgroup
//   per plane, the fixed-order reduction of fixed_reduce.wgsl).
// No float atomics: each bond writes its own slot, each bead and each plane gathers in a fixed order.
// Many evaluations per submission: evaluation `slot` of the submission binds its own BeadParams
// (a 256-byte-aligned slice of one uniform buffer) and reads its planes and loads at
// planes[slot · n_planes ..], loads[slot · n_loads ..], all written by the host once per batch
// (f64 time → f32 records, as the CPU twin). Every kernel returns at once when the stepper's
// batch has halted (`list_stale`), so the evaluations after a halt change nothing.

#import sphere_state
#import kelvin_voigt
#import plane_repulsion
#import fixed_reduce

struct BeadParams {
    n_beads: u32,
    n_bonds: u32,
    n_planes: u32,
    n_loads: u32,
    break_stretch: f32,
    // 1-based index of this force evaluation (written into a bond when it breaks).
    evaluation: u32,
    // Index of this evaluation in the submission (its plane and load records).
    slot: u32,
    _pad1: u32,
}

struct Bond {
    i: u32,
    j: u32,
    rest: f32,
    k: f32,
    b: f32,
    broken_step: u32,
    break_stretch: f32,
    _pad: u32,
}

// A plane at one evaluation's time: point (hi + lo), S, inward normal.
struct BeadPlaneRec {
    point_hi: vec3<f32>,
    s: f32,
    point_lo: vec3<f32>,
    _pad0: f32,
    normal: vec3<f32>,
    _pad1: f32,
}

struct LoadRec {
    force: vec3<f32>,
    bead: u32,
}

@group(0) @binding(1) var<uniform> bp: BeadParams;
@group(0) @binding(2) var<storage, read> spheres: array<SphereState>;
// The stepper's extra force and torque per sphere, added to here, read and cleared by its gather.
@group(0) @binding(3) var<storage, read_write> extra: array<SphereForce>;
@group(0) @binding(4) var<storage, read_write> bonds: array<Bond>;
@group(0) @binding(5) var<storage, read_write> bond_force: array<vec4<f32>>;
// Per bead, its bonds as bond << 1 | 1 when the bead is the bond's j, in bond order.
@group(0) @binding(6) var<storage, read> bond_start: array<u32>;
@group(0) @binding(7) var<storage, read> bond_incident: array<u32>;
@group(0) @binding(8) var<storage, read> planes: array<BeadPlaneRec>;
@group(0) @binding(9) var<storage, read> loads: array<LoadRec>;
@group(0) @binding(10) var<storage, read_write> plane_force: array<vec4<f32>>;
// The sphere stepper's step flags ([0] ≠ 0: the batch has halted; `list_stale` of sphere_step.wgsl).
@group(0) @binding(11) var<storage, read_write> step_flags: array<atomic<u32>>;

fn list_stale() -> bool {
    return atomicLoad(&step_flags[0]) != 0u;
}

const BEAD_WG: u32 = 64u;

// Twin of bonds::bond_force.
@compute @workgroup_size(64)
fn bond_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, BEAD_WG);
    if (k >= bp.n_bonds || list_stale()) {
        return;
    }
    var bond = bonds[k];
    if (bond.broken_step != 0u) {
        bond_force[k] = vec4<f32>(0.0);
        return;
    }
    let a = spheres[bond.i];
    let b = spheres[bond.j];
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let r = kelvin_voigt_force(bond.k, bond.b, bond.rest, d, a.vel - b.vel);
    let stretch = r.extension / bond.rest;
    if (stretch > bp.break_stretch) {
        bond.broken_step = bp.evaluation;
        bond.break_stretch = stretch;
        bonds[k] = bond;
        bond_force[k] = vec4<f32>(0.0);
        return;
    }
    bond_force[k] = vec4<f32>(r.force, 0.0);
}

// Twin of forces::bead_force.
@compute @workgroup_size(64)
fn bead_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, BEAD_WG);
    if (i >= bp.n_beads || list_stale()) {
        return;
    }
    var f = vec3<f32>(0.0);
    for (var q = bond_start[i]; q < bond_start[i + 1u]; q++) {
        let e = bond_incident[q];
        let fb = bond_force[e >> 1u].xyz;
        if ((e & 1u) == 0u) {
            f = f + fb;
        } else {
            f = f - fb;
        }
    }
    let s = spheres[i];
    let first = bp.slot * bp.n_planes;
    for (var p = 0u; p < bp.n_planes; p++) {
        let pl = planes[first + p];
        let d = df3_sub(s.pos_hi, s.pos_lo, pl.point_hi, pl.point_lo);
        f = f + plane_repulsion_force(pl.s, s.radius, pl.normal, d).force;
    }
    extra[i].force = extra[i].force + f;
}

@compute @workgroup_size(64)
fn load_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let q = linear_id(wid, lid, nwg, BEAD_WG);
    if (q >= bp.n_loads || list_stale()) {
        return;
    }
    let l = loads[bp.slot * bp.n_loads + q];
    extra[l.bead].force = extra[l.bead].force + l.force;
}

// One workgroup of REDUCE_LANES lanes per plane (the host dispatches n_planes workgroups). Lane t
// sums minus the plane's forces on beads t, t + L, t + 2L, … in increasing order, then the fixed
// tree of fixed_reduce.wgsl adds the lanes (twin: forces::plane_gather). Each lane reads n/L beads
// (one thread read all n before); adjacent lanes read adjacent beads. A halted batch sums nothing
// and skips the write (no return before the tree's barriers).
@compute @workgroup_size(256)
fn plane_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let p = wid.x;
    let lane = lid.x;
    if (p >= bp.n_planes) {
        return;
    }
    let live = !list_stale();
    let n = select(0u, bp.n_beads, live);
    let pl = planes[bp.slot * bp.n_planes + p];
    var f = vec3<f32>(0.0);
    for (var i = lane; i < n; i += REDUCE_LANES) {
        let s = spheres[i];
        let d = df3_sub(s.pos_hi, s.pos_lo, pl.point_hi, pl.point_lo);
        f = f - plane_repulsion_force(pl.s, s.radius, pl.normal, d).force;
    }
    let total = reduce_tree1(lane, f);
    if (lane == 0u && live) {
        plane_force[p] = vec4<f32>(total, 0.0);
    }
}
