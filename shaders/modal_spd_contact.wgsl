// modal_spd_contact.wgsl: contact between SPD cells and modal level-set bodies, both ways (issue 7
// phase 2). Compiled after modal_lib.wgsl and modal_body.wgsl (records, bindings 0–13 and 24–27,
// surface_point, point_vs_body, contact_law, body_frame, add_node_force, add_reaction,
// modal_generalized_force, modal_integrate, modal_body_pass_thread). Twins: src/coupled/contact.rs
// (functions), src/coupled/cpu.rs (kernels), same names and order of operations. Every kernel
// writes only its own node's or body's outputs and gathers in a fixed order: no atomics.
//
// Every loop runs over the candidates over primitives built at the last list build (`cand`,
// coupled::broad_phase::couple_candidates): the primitives within reach, not whole cells or bodies.
// - spd_node_vs_modal (per SPD node): against the level sets of its candidate modal bodies;
//   gap = φ − r (eq 47–48 pullback or eq 49–50), slot force on the SPD node.
// - modal_node_vs_spd (per modal surface node): against the closest candidate sphero-segment of
//   each cell listed for its body; gap = d − r; slot force on the modal node.
// - spd_modal_gather (per SPD node): own slots, then lever-rule reactions of the modal-node slots
//   of its lever list.
// - modal_body_update_coupled (per modal body; the walls follow in modal_walls_clock): modal
//   generalized force, its nodes' coupling slots, the reactions of the SPD-node slots of its
//   reaction list (eq 26–28), gravity, eq 42–44.

#import modal_lib
#import modal_body
#import spd_records

const MAX_CELLS: u32 = 16u;
// DIR_SPD_NODES (1) and the frozen and open bits of CellRec.coupled (2, 4) decide which
// candidates are built (coupled::broad_phase); the kernels read only these.
const DIR_MODAL_NODES: u32 = 2u;

// Twin: coupled::layout::CoupleParams.
struct CoupleParams {
    n_spd_nodes: u32,
    n_cells: u32,
    directions: u32,
    // SPD node x's slot offsets at slot_start[spd_start_at + x], modal node k's coupling-slot
    // offsets at slot_start[mnode_start_at + k] (the modal nodes' own come first).
    spd_start_at: u32,
    gravity_x: f32,
    gravity_y: f32,
    mnode_start_at: u32,
    // Sections of `cand` (offsets absolute into it): SPD node x's candidate bodies at cand[x]..,
    // its lever slots at cand[lever_at + x].., body b's reaction slots at cand[rx_at + b]..,
    // modal-node slot s's candidate segments at cand[seg_at + s]...
    lever_at: u32,
    rx_at: u32,
    seg_at: u32,
    pad1: u32,
    pad2: u32,
}

// CellRec.coupled is 0 for an SPD body that is not coupled (twins: coupled::CELL_*).

// Twin: coupled::layout::CellRec.
struct CellRec {
    first: u32,
    count: u32,
    radius: f32,
    coupled: u32,
    contact_material: u32,
}

// Twin: coupled::layout::SegSlot.
struct SegSlot {
    force: array<f32, 2>,
    hist: array<f32, 2>,
    seg: u32,
    t: f32,
    partner: u32,
    flag: u32,
}

@group(0) @binding(14) var<uniform> cparams: CoupleParams;
@group(0) @binding(15) var<storage, read> node_cell: array<u32>;
@group(0) @binding(16) var<storage, read> cells: array<CellRec>;
@group(0) @binding(17) var<storage, read> spd_state: array<NodeState>;
@group(0) @binding(18) var<storage, read> cand: array<u32>;
@group(0) @binding(20) var<storage, read> mb_cells: array<u32>;
@group(0) @binding(21) var<storage, read_write> spd_slots: array<ModalSlot>;
@group(0) @binding(22) var<storage, read_write> mnode_slots: array<SegSlot>;
@group(0) @binding(23) var<storage, read_write> modal_force_out: array<vec2<f32>>;

fn empty_seg_slot(partner: u32) -> SegSlot {
    var sl: SegSlot;
    sl.force = array<f32, 2>(0.0, 0.0);
    sl.hist = array<f32, 2>(0.0, 0.0);
    sl.seg = NONE;
    sl.t = 0.0;
    sl.partner = partner;
    sl.flag = 0u;
    return sl;
}

// A modal surface node at x_hi + x_lo (velocity vel) against the closest sphero-segment of SPD
// cell ci among its candidates cand[j_lo..j_hi] (start nodes, sorted; first in node order on
// ties); the slot force acts on the modal node. `law`: the table's entry for the modal body's and
// the cell's contact materials.
fn modal_node_vs_cell(law: ContactLaw, ci: u32, j_lo: u32, j_hi: u32, x_hi: vec2<f32>, x_lo: vec2<f32>, vel: vec2<f32>, hist: vec2<f32>) -> SegSlot {
    let cell = cells[ci];
    var best = 0.0;
    var seg = cell.first;
    var t_best = 0.0;
    var cp_best = vec2<f32>(0.0, 0.0);
    if (j_hi == j_lo) {
        return empty_seg_slot(ci);
    }
    for (var j = j_lo; j < j_hi; j = j + 1u) {
        let a = cand[j];
        let b = cell.first + (a - cell.first + 1u) % cell.count;
        let sa = spd_state[a];
        let sb = spd_state[b];
        let ra = vec2<f32>((sa.pos_hi.x - x_hi.x) + (sa.pos_lo.x - x_lo.x),
                           (sa.pos_hi.y - x_hi.y) + (sa.pos_lo.y - x_lo.y));
        let e = vec2<f32>((sb.pos_hi.x - sa.pos_hi.x) + (sb.pos_lo.x - sa.pos_lo.x),
                          (sb.pos_hi.y - sa.pos_hi.y) + (sb.pos_lo.y - sa.pos_lo.y));
        let ee = opaque(e.x * e.x) + opaque(e.y * e.y);
        var t = 0.0;
        if (ee > 0.0) {
            t = clamp(-(opaque(ra.x * e.x) + opaque(ra.y * e.y)) / ee, 0.0, 1.0);
        }
        let cp = vec2<f32>(ra.x + opaque(t * e.x), ra.y + opaque(t * e.y));
        let d2 = opaque(cp.x * cp.x) + opaque(cp.y * cp.y);
        if (j == j_lo || d2 < best) {
            best = d2;
            seg = a;
            t_best = t;
            cp_best = cp;
        }
    }
    let dist = sqrt(best);
    let gap = dist - cell.radius;
    if (!(gap < 0.0)) {
        return empty_seg_slot(ci);
    }
    var n = vec2<f32>(0.0, 1.0);
    if (dist > 0.0) {
        n = vec2<f32>(-cp_best.x / dist, -cp_best.y / dist);
    }
    let next = cell.first + (seg - cell.first + 1u) % cell.count;
    let va = spd_state[seg].vel;
    let vb = spd_state[next].vel;
    let vs = vec2<f32>(opaque((1.0 - t_best) * va.x) + opaque(t_best * vb.x),
                       opaque((1.0 - t_best) * va.y) + opaque(t_best * vb.y));
    let vrel = vec2<f32>(vel.x - vs.x, vel.y - vs.y);
    let o = contact_law(law, gap, n, vrel, hist);
    var sl: SegSlot;
    sl.force = array<f32, 2>(o.force.x, o.force.y);
    sl.hist = array<f32, 2>(o.hist.x, o.hist.y);
    sl.seg = seg;
    sl.t = t_best;
    sl.partner = ci;
    sl.flag = o.flag;
    return sl;
}

@compute @workgroup_size(64)
fn spd_node_vs_modal(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= cparams.n_spd_nodes) {
        return;
    }
    let cell = cells[node_cell[x]];
    let sx = spd_state[x];
    // x's slots in the pool: one per candidate modal body (only free coupled cells have them).
    let base = slot_start[cparams.spd_start_at + x];
    let listed = slot_start[cparams.spd_start_at + x + 1u] - base;
    for (var u = 0u; u < listed; u = u + 1u) {
        let slot = base + u;
        let b = cand[cand[x] + u];
        let sb = state[b];
        let d = vec2<f32>((sx.pos_hi.x - sb.x_hi[0]) + (sx.pos_lo.x - sb.x_lo[0]),
                          (sx.pos_hi.y - sb.x_hi[1]) + (sx.pos_lo.y - sb.x_lo[1]));
        let h = spd_slots[slot].hist;
        let o = point_vs_body(b, d, spd_state[x].vel, vec2<f32>(h[0], h[1]), cell.radius, cell.contact_material);
        spd_slots[slot] = body_contact_slot(o, b);
    }
}

@compute @workgroup_size(64)
fn modal_node_vs_spd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, 64u);
    if (k >= params.n_nodes) {
        return;
    }
    let pt = surface_point(k);
    let b = pt.body;
    // k's coupling slots in the pool: one per cell listed for its body.
    let base = slot_start[cparams.mnode_start_at + k];
    let listed = slot_start[cparams.mnode_start_at + k + 1u] - base;
    for (var t = 0u; t < listed; t = t + 1u) {
        let slot = base + t;
        let c = mb_cells[b * MAX_CELLS + t];
        if ((cparams.directions & DIR_MODAL_NODES) == 0u) {
            mnode_slots[slot] = empty_seg_slot(NONE);
            continue;
        }
        let h = mnode_slots[slot].hist;
        let law = pair_law(bodies[b].contact_material, cells[c].contact_material);
        let j_lo = cand[cparams.seg_at + slot];
        let j_hi = cand[cparams.seg_at + slot + 1u];
        mnode_slots[slot] = modal_node_vs_cell(law, c, j_lo, j_hi, pt.x_hi, pt.x_lo, pt.vel, vec2<f32>(h[0], h[1]));
    }
}

@compute @workgroup_size(64)
fn spd_modal_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let x = linear_id(wid, lid, nwg, 64u);
    if (x >= cparams.n_spd_nodes) {
        return;
    }
    var f = vec2<f32>(0.0, 0.0);
    let cell = cells[node_cell[x]];
    if (cell.coupled == 0u) {
        modal_force_out[x] = f;
        return;
    }
    for (var sl = slot_start[cparams.spd_start_at + x]; sl < slot_start[cparams.spd_start_at + x + 1u]; sl = sl + 1u) {
        let s = spd_slots[sl];
        if (s.flag != 0u) {
            f.x = f.x + s.force[0];
            f.y = f.y + s.force[1];
        }
    }
    var prev = x - 1u;
    if (x == cell.first) {
        prev = cell.first + cell.count - 1u;
    }
    // The modal-node slots whose candidate segments start or end at x, in slot order.
    for (var j = cand[cparams.lever_at + x]; j < cand[cparams.lever_at + x + 1u]; j = j + 1u) {
        let s = mnode_slots[cand[j]];
        if (s.flag == 0u) {
            continue;
        }
        if (s.seg == x) {
            let w = 1.0 - s.t;
            f.x = f.x - opaque(w * s.force[0]);
            f.y = f.y - opaque(w * s.force[1]);
        }
        if (s.seg == prev) {
            f.x = f.x - opaque(s.t * s.force[0]);
            f.y = f.y - opaque(s.t * s.force[1]);
        }
    }
    modal_force_out[x] = f;
}

fn modal_body_update_coupled_one(b: u32) {
    var g = modal_generalized_force(b);
    let fr = body_frame(b);
    let br = fr.br;
    for (var k = br.node_first; k < br.node_first + br.node_count; k = k + 1u) {
        let nd = nodes[k];
        let rel = node_arm(fr.st, k, fr.c, fr.s);
        for (var sl = slot_start[cparams.mnode_start_at + k]; sl < slot_start[cparams.mnode_start_at + k + 1u];
             sl = sl + 1u) {
            let o = mnode_slots[sl];
            if (o.flag != 0u) {
                add_node_force(&g, fr, nd, rel, o.force);
            }
        }
    }
    // The SPD-node slots that point to b, in node order.
    for (var j = cand[cparams.rx_at + b]; j < cand[cparams.rx_at + b + 1u]; j = j + 1u) {
        let o = spd_slots[cand[j]];
        if (o.flag != 0u) {
            add_reaction(&g, fr, b, o);
        }
    }
    // Gravity on the rigid part (∫ρ Φ = 0 is checked when the scene is prepared).
    g.f.x = g.f.x + br.mass * cparams.gravity_x;
    g.f.y = g.f.y + br.mass * cparams.gravity_y;
    modal_integrate(b, g);
}

@compute @workgroup_size(64)
fn modal_body_update_coupled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                             @builtin(num_workgroups) nwg: vec3<u32>) {
    let b = modal_body_pass_thread(linear_id(wid, lid, nwg, 64u));
    if (b != NONE) {
        modal_body_update_coupled_one(b);
    }
}
